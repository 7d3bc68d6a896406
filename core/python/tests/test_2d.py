"""Sim(grid=(nx, nz)): the plane-strain (2D) solver from Python: the grid it
makes, (n, 2) positions on the plane, masses per metre of depth, free fall
by the closed form, the same deposit as the 3D slab between mirror planes,
and the library's refusals."""

from __future__ import annotations

import numpy as np
import pytest

from bagnold import BagnoldError, Sim
from conftest import DX, THREADS, lattice


def test_grid_of_two_is_2d():
    sim = Sim(grid=(24, 20), dx=DX, backend="cpu/ref", threads=THREADS)
    assert sim.dim == 2 and sim.grid == (24, 1, 20)
    assert Sim(grid=(8, 8, 8), dx=DX, threads=THREADS).dim == 3


def test_positions_on_the_plane_and_mass_per_metre():
    sim = Sim(grid=(24, 20), dx=DX, origin=(0, 0.3, 0), threads=THREADS)
    xz = lattice((0.05, 0.05), (0.09, 0.09), DX / 2)  # 8 x 8 on (x, z)
    sim.add(xz, ppc=4)
    x = sim.get("x")
    assert x.shape == (64, 3)
    assert np.all(x[:, 1] == np.float32(0.3))
    assert np.array_equal(x[:, [0, 2]], xz.astype(np.float32))
    assert np.allclose(sim.get("mass"), sim.material._c.rho0 * DX * DX / 4, rtol=1e-6)


def test_free_fall_closed_form():
    dt, steps, g = 1e-4, 400, 9.81
    sim = Sim(grid=(24, 40), dx=DX, fixed_dt=dt, threads=THREADS)
    xz = lattice((0.08, 0.25), (0.14, 0.30), DX / 2)
    sim.add(xz)
    sim.run(steps)
    x, v = sim.get("x"), sim.get("v")
    assert np.allclose(v[:, 2], -g * steps * dt, rtol=1e-4)
    assert np.all(v[:, 1] == 0) and np.all(x[:, 1] == 0)
    assert np.allclose(x[:, 2], xz[:, 1] - g * dt * dt * steps * (steps + 1) / 2, atol=1e-6)


def collapse(dim: int) -> np.ndarray:
    """A 6 x 6 cm column collapsing on a Coulomb floor, 2D or as the 3D slab
    two cells thick between slip y faces; the final (x, z) of its particles
    (the slab's first y layer)."""
    walls = {"floor": 0.5}
    if dim == 2:
        sim = Sim(grid=(24, 12), dx=DX, walls=walls, threads=THREADS)
        sim.add(lattice((DX / 2, DX / 2), (DX / 2 + 0.06, DX / 2 + 0.06), DX / 2))
    else:
        sim = Sim(grid=(24, 4, 12), dx=DX, walls=walls, threads=THREADS)
        sim.add(lattice((DX / 2, DX / 2, DX / 2), (DX / 2 + 0.06, 2.5 * DX, DX / 2 + 0.06), DX / 2))
    sim.advance_to(0.2)
    x = sim.get("x")
    if dim == 3:
        x = x.reshape(12, 4, 12, 3)[:, 0].reshape(-1, 3)  # lattice order: x, then y, then z
    return x[:, [0, 2]]


def test_same_deposit_as_the_slab():
    a, b = collapse(2), collapse(3)
    assert np.max(np.abs(a - b)) < 1e-4 * 0.06  # float rounding of a run both ways


@pytest.mark.parametrize("kw, needle", [
    (dict(gravity=(0, -1, -9.81)), "gravity[1]"),
])
def test_refusals(kw, needle):
    with pytest.raises(BagnoldError) as e:
        Sim(grid=(16, 16), dx=DX, threads=THREADS, **kw)
    assert needle in str(e.value)


def test_off_plane_particle_refused():
    sim = Sim(grid=(16, 16), dx=DX, threads=THREADS)
    with pytest.raises(BagnoldError) as e:
        sim.add(np.array([[0.05, 0.0, 0.05], [0.06, 0.01, 0.05]]))
    assert "particle 1" in str(e.value)
