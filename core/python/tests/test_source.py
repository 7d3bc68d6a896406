"""Sources through the Python API: Sim.add_source mirrors bg_source with
keyword arguments and refuses a bad value with the library's own message;
the emitted mass is accounted to the particle; a checkpoint carries the
source and its state."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bagnold import BagnoldError, Sim, sand
from conftest import DX, THREADS

JET = dict(shape="disc", center=(0.1, 0.1, 0.15), radius=0.02, velocity=(0, 0, -1.0), mass_rate=2.0)


def scene() -> Sim:
    return Sim(grid=(20, 20, 20), dx=DX, material=sand(), threads=THREADS)


@pytest.mark.parametrize("change,status,name", [
    (dict(radius=0.0), "BG_ERR_RANGE", "source.radius"),
    (dict(mass_rate=-1.0), "BG_ERR_RANGE", "source.mass_rate"),
    (dict(mass_rate=3.0), "BG_ERR_RANGE", "source.mass_rate must be <= rho0 pi"),
    (dict(velocity=(0, 0, 0)), "BG_ERR_RANGE", "source.velocity"),
    (dict(t_start=1.0, t_stop=0.5), "BG_ERR_RANGE", "source.t_stop"),
    (dict(t_start=float("nan")), "BG_ERR_NONFINITE", "source.t_start"),
    (dict(ppc=0.0), "BG_ERR_RANGE", "source.ppc"),
    (dict(material=3), "BG_ERR_RANGE", "source.material"),
    (dict(center=(0.1, 0.1, 0.19)), "BG_ERR_OUTSIDE", "source.center[2]"),
    (dict(shape="box", half=(0.02, 0.0, 0.02)), "BG_ERR_RANGE", "source.half[1]"),
])
def test_refused_with_the_library_message(change, status, name):
    with scene() as sim:
        with pytest.raises(BagnoldError) as e:
            sim.add_source(**{**JET, **change})
        assert e.value.status == status and name in e.value.message and e.value.function == "bg_sim_add_source"


def test_python_side_arguments_named():
    with scene() as sim:
        with pytest.raises(ValueError, match="shape must be one of disc, box"):
            sim.add_source(**{**JET, "shape": "cone"})
        with pytest.raises(ValueError, match="center must be 3 numbers"):
            sim.add_source(**{**JET, "center": (0.1, 0.1)})
        with pytest.raises(ValueError, match="seed must be an integer"):
            sim.add_source(**{**JET, "seed": 1.5})
        with pytest.raises(BagnoldError, match="id = 0 is not a source"):
            sim.source_mass(0)


def test_mass_accounted_to_the_particle():
    with scene() as sim:
        sid = sim.add_source(**JET, t_start=0.001)
        assert sid == 0 and sim.source(sid)["radius"] == pytest.approx(0.02)
        mp = float(np.float32(2200.0) * (np.float32(DX) ** 3 / np.float32(8)))
        for _ in range(40):
            sim.step()
            kg, t = sim.source_mass(sid), sim.time
            lag = JET["mass_rate"] * max(t - 0.001, 0.0) - kg
            assert 0 <= lag + 1e-12 < mp
            assert kg == float(np.sum(sim.get("mass").astype(np.float64)))
            assert sim.source_count(sid) == len(sim)
        assert len(sim) > 30


def test_checkpoint_carries_the_source(out_dir: Path):
    a = scene()
    a.add_source(**JET, seed=7)
    a.run(15)
    path = out_dir / "pour.bgck"
    a.save(path)
    a.run(15)
    b = Sim.load(path, backend=a.backend, threads=THREADS)
    assert b.source(0)["seed"] == 7
    b.run(15)
    assert len(a) == len(b) and np.array_equal(a.get("x"), b.get("x"))
    assert a.source_mass(0) == b.source_mass(0)
    a.close()
    b.close()
