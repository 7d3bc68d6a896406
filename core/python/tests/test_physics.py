"""Physical checks through the Python API that a wrong binding or a broken
solver would fail: a block resting on a halfspace is held up at rest
density, conserves its mass exactly and loads the floor with its weight; a
free column of sand spreads when it collapses."""

from __future__ import annotations

import numpy as np
import pytest

from bagnold import Sim, halfspace, sand
from conftest import DX, THREADS, lattice

RHO0 = 2200.0
G = 9.81
PLANE = 4.5 * DX  # midway between node planes (references/walls.md)


@pytest.fixture(scope="module")
def resting_block():
    """A 6 cm layer of sand on a Coulomb halfspace, filling the domain
    between its slip side faces (a free cube of cohesionless sand would
    slump), settled with grid damping, then run undamped while the floor
    force is averaged."""
    sim = Sim(grid=(16, 16, 20), dx=DX, material=sand(phi_deg=35),
              colliders=[halfspace(point=(0, 0, PLANE), normal=(0, 0, 1), friction=0.5)],
              threads=THREADS, damping=40.0)
    # the material's edge starts on the last solid node: plane - 0.5 cells
    # and between the side faces, whose planes lie 1.5 cells inside the
    # outer nodes, from one cell to n - 2 cells (bg_wall_edge_offset: -0.5)
    bottom = PLANE - 0.5 * DX
    x0 = lattice((DX, DX, bottom), (14 * DX, 14 * DX, bottom + 0.06), DX / 2)
    sim.add(x0, ppc=8)
    mass0 = sim.get("mass")
    sim.advance_to(0.15)
    sim.set_damping(0.0)
    forces, dts = [], []
    j0, t0 = sim.wall_impulses(), sim.time
    for _ in range(40):
        dts.append(sim.step())
        forces.append(sim.wall_forces())
    # the impulse over the window is the sum of each step's force times its dt
    j = sim.wall_impulses() - j0
    assert np.allclose(j, np.tensordot(np.array(dts, np.float64), np.array(forces), axes=1), rtol=1e-9, atol=1e-12)
    return sim, x0, mass0, j / (sim.time - t0)


def test_block_is_held_up(resting_block):
    sim, x0, _, _ = resting_block
    x = sim.get("x")
    # free fall over 0.15 s would have dropped it 11 cm; the floor holds it
    # (elastic sag under its own weight is a fraction of a millimetre)
    assert abs(x[:, 2].mean() - x0[:, 2].mean()) < 0.25 * DX
    assert x[:, 2].min() > PLANE - 1.0 * DX
    assert sim.get("active").all()
    assert sim.stats.max_speed < 0.05


def test_settled_density_is_rest_density(resting_block):
    sim = resting_block[0]
    rho = sim.density()
    assert rho.mean() == pytest.approx(RHO0, rel=0.01)
    assert np.all(np.abs(rho / RHO0 - 1) < 0.03)


def test_mass_is_conserved_exactly(resting_block):
    sim, _, mass0, _ = resting_block
    assert np.array_equal(sim.get("mass"), mass0)
    assert sim.stats.total_mass == pytest.approx(float(mass0.astype(np.float64).sum()), rel=1e-6)
    # P2G spreads every particle's mass over weights summing to one
    assert float(sim.grid_mass().astype(np.float64).sum()) == pytest.approx(float(mass0.sum()), rel=1e-4)


def test_floor_carries_the_weight(resting_block):
    sim, _, mass0, f = resting_block
    weight = float(mass0.astype(np.float64).sum()) * G
    names = sim.wall_names
    floor = f[names.index("collider0")]
    assert floor[2] == pytest.approx(-weight, rel=0.03)
    assert abs(floor[0]) < 0.02 * weight and abs(floor[1]) < 0.02 * weight
    # the domain's own floor face touches nothing
    assert np.abs(f[names.index("-z")]).max() < 1e-3 * weight


def test_column_collapse_spreads():
    dx = 0.01
    sim = Sim(grid=(40, 40, 20), dx=dx, material=sand(phi_deg=30), walls={"floor": 0.5}, threads=THREADS)
    # the domain floor's plane is 1.5 cells above node 0: the edge starts at 1 cell
    half, height = 0.03, 0.12
    c = 0.2
    x0 = lattice((c - half, c - half, dx), (c + half, c + half, dx + height), dx / 2)
    sim.add(x0, ppc=8)
    sim.advance_to(0.35)
    x = sim.get("x")
    r0 = np.abs(x0[:, :2] - c).max()
    r = np.abs(x[:, :2] - c).max()
    assert r > 1.6 * r0, f"runout {r:.3f} m from a half-width {r0:.3f} m"
    assert x[:, 2].max() < 0.8 * x0[:, 2].max()
    assert np.array_equal(sim.get("mass"), np.full(len(x0), RHO0 * dx**3 / 8, np.float32))
