"""The seed's Usage section (../shared/seeds/bagnold.txt), line by line as
written, against ``import bagnold as bag`` (the seed's ``bag`` comes from
``kernels.get_kernel``; this package is what it names). One change: the
seed's grid, 512 x 512 x 256 nodes at dx 1.25 mm (3.2M particles in its
block), is too big for CI, so ``grid=`` is 16 x 16 x 16 nodes here; dx,
the material, ppc, the 1000 steps and every call are the seed's. Each line
is checked for what it must do, not only that it runs."""

from __future__ import annotations

import numpy as np
import pytest

import bagnold as bag
from conftest import lattice

dx = 1.25e-3  # the seed's node spacing, m
g = (16, 16, 16)  # the seed's grid is (512, 512, 256): too big for CI
RHO0 = 2200.0  # bg_mat_dp.h's default density, kg/m^3


def _resting_block() -> np.ndarray:
    """A layer 4 cells deep, 2 particles per cell edge, from wall to wall
    of the slip faces (each face's plane 1.5 cells inside its outer node;
    the material's edge where bag.wall_edge_offset puts it): confined, it
    has nowhere to flow and comes to rest."""
    lo = (1.5 + bag.wall_edge_offset("slip", 1.5)) * dx
    hi = (g[0] - 1 - 1.5 - bag.wall_edge_offset("slip", 1.5)) * dx
    return lattice((lo, lo, lo), (hi, hi, lo + 4 * dx), dx / 2)


def test_seed_sim_add_run_density():
    positions = _resting_block()
    sim = bag.Sim(grid=g, dx=1.25e-3,
                  material=bag.sand(phi_deg=35.0))
    assert sim.grid == g
    sim.add(positions, ppc=8)          # particles per cell fixes their volume
    # ppc fixes the volume: each particle holds rho0 dx^3 / 8
    assert sim.get("mass") == pytest.approx(np.full(len(positions), RHO0 * dx**3 / 8), rel=1e-6)
    sim.run(1000)                      # timestep from the elastic CFL
    s = sim.stats
    assert s.step == 1000 and s.n_active == len(positions)
    # the elastic CFL of the fed material: dt <= 0.3 dx / c_p
    c_p = bag.sand(phi_deg=35.0).pwave_speed()
    assert 0 < s.dt <= 0.3 * dx / c_p * (1 + 1e-6)

    rho = sim.density()                # kg/m3, per particle
    assert rho.shape == (len(positions),) and rho.dtype == np.float32
    # a layer at rest on the floor neither compacts nor dilates: its
    # density stays at the fed rho0 to within the elastic strain of its own
    # weight at its base, rho0 g h / E (3e-4 here)
    assert sim.get("x")[:, 2].min() > 0  # held by the floor face
    assert s.max_speed < 0.05, f"the layer is not at rest: {s.max_speed:.3g} m/s"
    p = bag.sand(phi_deg=35.0).params()
    strain = p["rho0"] * 9.81 * (positions[:, 2].max() - positions[:, 2].min()) / p["E"]
    assert p["rho0"] == RHO0
    assert np.median(rho) == pytest.approx(RHO0, rel=3 * strain)
    # density() is rho0 / (det F Jp) per particle: the same numbers as get()
    np.testing.assert_array_equal(rho, sim.get("density"))


def _floor(nz: int) -> tuple:
    """phi < 0 below a floor plane between node planes 4 and 5, outward
    normals +z, on a grid of g's nodes."""
    z = np.arange(nz) * dx
    phi = np.broadcast_to(z - 4.5 * dx, g).copy()
    normals = np.zeros(g + (3,), np.float32)
    normals[..., 2] = 1.0
    return phi, normals


def _thrown(mu) -> float:
    """A block on the SDF floor, thrown sideways at 0.5 m/s: how far its
    base layer slid in 10 ms (free flight: 5 mm)."""
    phi, normals = _floor(g[2])
    col = bag.Collider.from_sdf(phi, normals, dx, mu=mu)   # phi < 0 inside solid
    sim = bag.Sim(grid=g, dx=dx, material=bag.sand(), collider=col)
    positions = lattice((3 * dx, 4 * dx, 4.5 * dx), (7 * dx, 12 * dx, 8.5 * dx), dx / 2)
    sim.add(positions, ppc=8)
    v = np.zeros_like(positions)
    v[:, 0] = 0.5
    sim.set("v", v)
    sim.advance_to(0.01)
    x = sim.get("x")
    assert x[:, 2].min() > 4.0 * dx  # the SDF floor holds
    base = positions[:, 2] < 5.5 * dx
    return float((x[base, 0] - positions[base, 0]).mean())


def test_seed_collider_from_sdf():
    # Coulomb 0.3 brakes the base by at most mu g: it slides, less than free
    # flight; mu=None is stick: the solid nodes stop, and the base, which
    # still sees the free nodes above it through its stencil, slides less
    coulomb, stick = _thrown(0.3), _thrown(None)
    assert 0 < stick < coulomb < 0.005, f"base slid {stick:.5f} m (mu=None), {coulomb:.5f} m (mu=0.3)"


def test_seed_collider_arguments():
    phi, normals = _floor(g[2])
    col = bag.Collider.from_sdf(phi, normals, dx, mu=0.3)
    assert col.friction == 0.3 and col.dx == dx
    assert bag.Collider.from_sdf(phi, normals, dx, mu=None).friction == "stick"
    # the same collider through today's names: collider= is colliders=[col]
    a = bag.Sim(grid=g, dx=dx, material=bag.sand(), collider=col)
    b = bag.Sim(grid=g, dx=dx, material=bag.sand(), colliders=[bag.sdf(phi, normals, friction=0.3)])
    assert len(a.wall_names) == len(b.wall_names) == 7
    # an SDF sampled at another spacing is refused, naming both
    with pytest.raises(ValueError, match="dx"):
        bag.Sim(grid=g, dx=2 * dx, material=bag.sand(), collider=col)
    with pytest.raises(ValueError, match="collider"):
        bag.Sim(grid=g, dx=dx, collider=phi)


def _slump(material) -> float:
    """How far a 4-cell-wide, 8-cell-tall block's toe spread in 20 ms."""
    sim = bag.Sim(grid=g, dx=dx, material=material)
    z0 = (1.5 + bag.wall_edge_offset("slip", 1.5)) * dx
    positions = lattice((6 * dx, 4 * dx, z0), (10 * dx, 12 * dx, z0 + 8 * dx), dx / 2)
    sim.add(positions, ppc=8)
    sim.advance_to(0.02)
    x = sim.get("x")[:, 0]
    return float((x.max() - x.min()) - (positions[:, 0].max() - positions[:, 0].min()))


def test_seed_sand_hardening():
    m = bag.sand(phi_deg=35.0, hardening=True)
    assert m.params()["hardening"] is True and m.params()["phi_deg"] == 35.0
    assert bag.sand(phi_deg=35.0).params()["hardening"] is False
    # hardening's angle at zero plastic strain is h0 - h3 (25 deg with the
    # defaults), below the fed 35: a slumping block spreads further
    p = m.params()
    assert p["h0"] - p["h3"] < 35.0
    assert _slump(m) > _slump(bag.sand(phi_deg=35.0))
