"""Checkpoints through the Python API: a run saved and loaded continues bit
for bit, restore brings back state and user blob, and damaged or foreign
files are refused with the library's status and message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bagnold import BagnoldError, Sim, halfspace, sand, verify_checkpoint
from conftest import DX, THREADS, lattice

FIELDS = ("x", "v", "F", "C", "Jp", "q", "stress", "mass", "active")


def scene(**kw) -> Sim:
    # the CPU backend: "bit for bit" is a property of a deterministic
    # scatter; "auto" takes cuda on a GPU host, whose atomic adds are not
    # (its checkpoints are core/tests/test_checkpoint.c's on the cuda backend)
    args = dict(grid=(16, 16, 16), dx=DX, material=sand(phi_deg=30), threads=THREADS, backend="cpu",
                colliders=[halfspace((0, 0, 0.035), (0, 0, 1), friction=0.4)])
    args.update(kw)
    sim = Sim(**args)
    sim.add(lattice((0.04, 0.04, 0.03), (0.1, 0.1, 0.09), DX / 2), velocities=None)
    return sim


def state(sim: Sim) -> dict:
    return {f: sim.get(f) for f in FIELDS}


def assert_same(a: dict, b: dict) -> None:
    for f in FIELDS:
        assert np.array_equal(a[f], b[f]), f"field {f} differs"


def test_load_continues_bit_identically(out_dir: Path):
    sim = scene()
    sim.run(40)
    path = out_dir / "run.bgck"
    sim.save(path, user=b"accumulators")
    sim.run(40)
    ref, ref_stats = state(sim), sim.stats
    loaded = Sim.load(path, backend=sim.backend, threads=THREADS)
    assert loaded.step_count == 40
    loaded.run(40)
    assert_same(ref, state(loaded))
    assert loaded.stats == ref_stats
    assert loaded.grid_mass().shape == (16, 16, 16)
    assert loaded.wall_names == sim.wall_names


def test_restore_returns_state_and_user_blob(out_dir: Path):
    sim = scene()
    sim.run(20)
    path = out_dir / "restore.bgck"
    blob = bytes(range(256)) * 3
    sim.save(path, user=blob)
    saved = state(sim)
    sim.run(20)
    assert sim.step_count == 40
    assert sim.restore(path) == blob
    assert sim.step_count == 20
    assert_same(saved, state(sim))
    other = scene()  # a fresh sim of the same descriptor
    assert other.restore(path) == blob
    assert_same(saved, state(other))
    sim.save(path)  # no blob
    assert sim.restore(path) == b""


def test_restore_into_another_descriptor_is_a_mismatch(out_dir: Path):
    sim = scene()
    path = out_dir / "a.bgck"
    sim.save(path)
    other = scene(grid=(16, 16, 20))
    n0 = len(other)
    with pytest.raises(BagnoldError) as e:
        other.restore(path)
    assert e.value.status == "BG_ERR_MISMATCH" and e.value.message
    assert len(other) == n0 and other.step_count == 0


def test_damaged_files_are_refused(out_dir: Path):
    sim = scene()
    sim.run(2)
    good = out_dir / "good.bgck"
    sim.save(good)
    data = good.read_bytes()
    cut = out_dir / "cut.bgck"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(BagnoldError) as e:
        Sim.load(cut)
    assert e.value.status == "BG_ERR_TRUNCATED" and "cut.bgck" in e.value.message
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    bad = out_dir / "bad.bgck"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(BagnoldError) as e:
        Sim.load(bad)
    assert e.value.status == "BG_ERR_CORRUPT" and "bad.bgck" in e.value.message
    # verify_checkpoint makes the same checks without a simulation
    verify_checkpoint(good)
    for path, status in ((cut, "BG_ERR_TRUNCATED"), (bad, "BG_ERR_CORRUPT"), (out_dir / "missing.bgck", "BG_ERR_IO")):
        with pytest.raises(BagnoldError) as e:
            verify_checkpoint(path)
        assert e.value.status == status and path.name in e.value.message
    with pytest.raises(BagnoldError) as e:
        Sim.load(out_dir / "missing.bgck")
    assert e.value.status == "BG_ERR_IO" and "missing.bgck" in e.value.message
    with pytest.raises(BagnoldError) as e:
        sim.save(out_dir / "no" / "such" / "dir.bgck")
    assert e.value.status == "BG_ERR_IO"


def test_loaded_sim_knows_its_descriptor(out_dir: Path):
    sim = scene()
    path = out_dir / "g.bgck"
    sim.save(path)
    loaded = Sim.load(path, backend=sim.backend, threads=THREADS)
    assert loaded.grid_mass().shape == sim.grid_mass().shape
    assert loaded.wall_names == sim.wall_names
    assert len(loaded) == len(sim)
