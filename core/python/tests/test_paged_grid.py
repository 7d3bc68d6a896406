"""The cpu backend's paged grid: the memory it reports (bg_sim_memory,
resident pages read with mincore) follows the material, not the box, and
the physics is the dense grid's (test_parity holds every step to cpu/ref)."""

import sys

import numpy as np
import pytest

import bagnold as bag

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the paged grid's residency is read with mincore (Linux)")

N = 96
DX = 1.0 / N


def test_grid_memory_follows_the_material():
    sim = bag.Sim(grid=(N, N, N), dx=DX, material=bag.sand(phi_deg=30), backend="cpu", threads=2)
    dense = N ** 3 * 16
    # an 8-cell cube of sand on the floor's middle: a thousandth of the box
    g = np.mgrid[0:8 * DX:DX / 2, 0:8 * DX:DX / 2, 0:8 * DX:DX / 2].reshape(3, -1).T + DX / 4
    g += [0.45, 0.45, 3 * DX]
    sim.add(g.astype(np.float32), ppc=8)
    before = sim.memory["grid_bytes"]
    assert before < 0.02 * dense, f"{before} bytes before any step: the grid was written where no P2G reached"
    sim.run(20)
    after = sim.memory["grid_bytes"]
    # the cube's rows of nodes (and their pages) with the row table: a few percent of the dense grid
    assert 0 < after < 0.15 * dense, f"{after} of {dense} bytes after 20 steps: the grid is not paged"
    # the nodes it holds are the backed float4 pages', not the box's
    assert 0 < sim.memory["grid_nodes"] * 16 <= after < 0.15 * dense
    # the grid read back holds the particles' mass, and reading it backs no page
    mass = sim.get("mass").sum(dtype=np.float64)
    assert sim.grid_mass().sum(dtype=np.float64) == pytest.approx(mass, rel=1e-5)
    assert sim.grid_velocity().shape == (N, N, N, 3)
    assert sim.memory["grid_bytes"] == after
