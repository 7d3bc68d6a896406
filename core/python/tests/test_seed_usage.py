"""The seed's usage example, written against this API at a size a test can
run: ``Sim(grid, dx, material=sand(phi_deg=35))``, ``add(positions, ppc=8)``,
``run(1000)``, ``density()``; then its boundary from a signed distance on
the nodes with wall friction 0.3 against a stick one. Each step is checked for
what it must do, not only that it runs."""

from __future__ import annotations

import numpy as np
import pytest

from bagnold import Sim, sand, sdf
from conftest import THREADS, lattice

DX = 0.01
RHO0 = 2200.0


def test_seed_usage_example():
    # a block of sand in the middle of a 24^3 grid, 2 particles per cell edge
    positions = lattice((0.08, 0.08, 0.02), (0.16, 0.16, 0.10), DX / 2)
    sim = Sim(grid=(24, 24, 24), dx=DX, material=sand(phi_deg=35.0), threads=THREADS)
    sim.add(positions, ppc=8)  # particles per cell fixes their volume
    mass = sim.get("mass")
    assert mass == pytest.approx(np.full(len(positions), RHO0 * DX**3 / 8), rel=1e-6)
    sim.run(1000)  # timestep from the elastic CFL
    s = sim.stats
    assert s.step == 1000 and s.n_active == len(positions)
    # the elastic CFL: dt = 0.3 dx / (c_p + |v|max) <= 0.3 dx / c_p
    c_p = np.sqrt(3.537e5 * (1 - 0.3) / ((1 + 0.3) * (1 - 0.6)) / RHO0)
    assert 0 < s.dt <= 0.3 * DX / c_p * (1 + 1e-6)
    rho = sim.density()  # kg/m3, per particle
    assert rho.shape == (len(positions),)
    # the block has slumped onto the floor face and come to rest near rho0:
    # sand neither compacts nor dilates much at this depth
    assert sim.get("x")[:, 2].min() > DX  # held by the floor face
    assert np.median(rho) == pytest.approx(RHO0, rel=0.03)


def _floor_sdf(stick: bool):
    """phi < 0 below a floor plane midway between node planes 4 and 5."""
    nx = ny = nz = 20
    z = np.arange(nz) * DX
    phi = np.broadcast_to(z - 4.5 * DX, (nx, ny, nz)).copy()
    normals = np.zeros((nx, ny, nz, 3), np.float32)
    normals[..., 2] = 1.0
    return sdf(phi, normals, friction="stick" if stick else 0.3)


def _thrown_block(stick: bool) -> float:
    """A block thrown sideways at 1 m/s onto the SDF floor: how far its
    base layer slid in 0.05 s (free flight: 5 cm)."""
    sim = Sim(grid=(20, 20, 20), dx=DX, material=sand(), colliders=[_floor_sdf(stick)], threads=THREADS)
    x0 = lattice((0.05, 0.05, 4.0 * DX), (0.09, 0.09, 4.0 * DX + 0.04), DX / 2)
    v0 = np.zeros_like(x0)
    v0[:, 0] = 1.0
    sim.add(x0, ppc=8, velocities=v0)
    sim.advance_to(0.05)
    x = sim.get("x")
    assert x[:, 2].min() > 3.5 * DX  # the floor holds
    base = x0[:, 2] < 5.0 * DX
    return float((x[base, 0] - x0[base, 0]).mean())


def test_seed_collider_from_sdf():
    # Coulomb 0.3 brakes the base (at most mu g: it slides less than free
    # flight); stick stops the solid nodes, so the base, which still sees
    # the free nodes above through its stencil, slides less again
    coulomb, stick = _thrown_block(False), _thrown_block(True)
    assert 0 < stick < coulomb < 0.05, f"base slid {stick:.4f} m (stick), {coulomb:.4f} m (mu 0.3)"
