"""Several materials in one simulation from Python: a list of materials,
add(..., material=k), get("material"), the table's errors naming the entry."""

from __future__ import annotations

import numpy as np
import pytest

import bagnold
from bagnold import BagnoldError, Sim, sand
from conftest import DX, THREADS, lattice


def cube(lo, size=0.04) -> np.ndarray:
    return lattice(lo, [a + size for a in lo], DX / 2)


def test_a_list_of_materials():
    soft = sand(rho0=1500.0)
    heavy = bagnold.mui(rho0=2600.0)
    sim = Sim(grid=(24, 16, 16), dx=DX, threads=THREADS, material=[soft, heavy])
    a = sim.add(cube((0.03, 0.05, 0.05)))
    b = sim.add(cube((0.12, 0.05, 0.05)), material=1)
    mat = sim.get("material")
    assert mat.dtype == np.int32 and np.all(mat[a] == 0) and np.all(mat[b] == 1)
    vol = DX ** 3 / 8
    mass = sim.get("mass")
    assert mass[a] == pytest.approx(1500.0 * vol) and mass[b] == pytest.approx(2600.0 * vol)
    sim.run(3)
    rho = sim.get("density")
    assert np.allclose(rho[a], 1500.0, rtol=0.02) and np.allclose(rho[b], 2600.0, rtol=0.02)
    assert [m.model for m in sim.materials] == ["drucker-prager", "mu-i"]


def test_errors_name_the_entry():
    with pytest.raises(BagnoldError) as e:
        Sim(grid=(16, 16, 16), dx=DX, material=[sand(), sand().replace(nu=0.7)])
    assert e.value.status == "BG_ERR_RANGE" and "materials[1].nu" in e.value.message
    sim = Sim(grid=(16, 16, 16), dx=DX, threads=THREADS, material=[sand(), sand()])
    with pytest.raises(BagnoldError) as e:
        sim.add(cube((0.05, 0.05, 0.05)), material=2)
    assert e.value.status == "BG_ERR_RANGE" and "material = 2" in e.value.message
    with pytest.raises(ValueError, match="material"):
        sim.add(cube((0.05, 0.05, 0.05)), material=1.5)
    with pytest.raises(ValueError, match="empty"):
        Sim(grid=(16, 16, 16), dx=DX, material=[])


def test_checkpoint_keeps_the_table(tmp_path):
    sim = Sim(grid=(24, 16, 16), dx=DX, threads=THREADS, material=[sand(), bagnold.mui()])
    sim.add(cube((0.03, 0.05, 0.05)), material=1)
    sim.add(cube((0.12, 0.05, 0.05)))
    sim.run(2)
    path = tmp_path / "two.bgck"
    sim.save(path)
    back = Sim.load(path, threads=THREADS)
    assert np.array_equal(back.get("material"), sim.get("material"))
    assert np.array_equal(back.get("x"), sim.get("x"))
    assert [m.model for m in back.materials] == ["drucker-prager", "mu-i"]
