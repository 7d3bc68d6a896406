"""Archimedes in 2D plane strain: a free box on weakly compressible water comes
to rest at the draft its weight implies, d = m / (rho_w B) per metre of
depth, for two densities (issue 37; reports/results/cpu-2core/archimedes-2d).

The expected draft is read from what the run holds: the box's mass as the
simulation reports it, rho0 of its water and the box's width. The box acts
on the water through the grid nodes it claims (those strictly inside it), so
its side faces are placed midway between node planes, where the claimed
columns span exactly its width (on node planes it would act a column
narrower). Its height is resolved to one node row: the water's push does not
change while the box moves within a cell, and steps as a row of nodes enters
it, so the box comes to rest within one cell of its Archimedes draft.
Tolerance: one cell. The scan over densities and the mutants (a box denser
than the expected value assumes) are in that folder's README."""

from __future__ import annotations

import numpy as np
import pytest

import bagnold as bg
from conftest import THREADS

DX = 0.005
W, HW = 0.30, 0.09          # tank width and still-water depth, m
B, HB = 0.10, 0.06          # box width and height, m (upright is stable for both densities)
TOL = DX


def float_box(rho_b: float, feed: float = 1.0, backend: str = "cpu"):
    """The box's draft once at rest, the draft its reported mass implies, its
    speed and tilt. feed scales the density the box is made with, not the
    one the expected value assumes (1: as meant; 1.2: the mutant)."""
    water = bg.water()
    rho_w = water.params()["rho0"]
    e = DX                                    # each face's material edge: its last solid node
    n = int(round(W / DX)) | 1                # an odd number of cells across: the centre midway
    nx, nz = n + 3, int(round((HW + 2 * HB) / DX)) + 4
    wt = n * DX                               # the tank's width between the walls' planes
    surf0 = e + HW
    xc = e + wt / 2                           # B / DX even: the side faces midway between node planes
    zb = surf0 - rho_b / rho_w * HB + 0.005   # released half a centimetre high, in water seeded around it
    box = bg.Body("box", half=(B / 2, 0.05, HB / 2), density=feed * rho_b, x=(xc, 0.0, zb + HB / 2),
                  friction="slip")
    sim = bg.Sim(grid=(nx, nz), dx=DX, material=water, threads=THREADS, bodies=[box], backend=backend)
    h = DX / 2
    X, Z = np.meshgrid(np.arange(e + h / 2, e + wt, h), np.arange(e + h / 2, surf0, h), indexing="ij")
    keep = ~((np.abs(X - xc) < B / 2) & (Z > zb))
    sim.add(np.stack([X[keep], np.zeros(keep.sum()), Z[keep]], axis=1).astype(np.float32), ppc=4)
    sim.run(until=0.5)
    sim.set_damping(20.0)                     # a static equilibrium is left where it is
    sim.run(until=0.9)
    st = sim.body(0)
    x = sim.get("x")
    far = (np.abs(x[:, 0] - xc) > B / 2 + 3 * DX) & (x[:, 0] > e + 3 * DX) & (x[:, 0] < e + wt - 3 * DX)
    cols = np.round(x[far, 0] / h).astype(int)
    surface = float(np.mean([x[far][cols == c, 2].max() for c in np.unique(cols)])) + h / 2
    draft = surface - (st["x"][2] - HB / 2)
    want = st["mass"] / feed / (rho_w * 2 * box.half[0])
    tilt = 2 * np.degrees(np.arcsin(st["q"][2]))
    return draft, want, abs(st["v"][2]), tilt


@pytest.mark.parametrize("backend", ["cpu", "cpu/ref"])
@pytest.mark.parametrize("rho_b", [500.0, 800.0])
def test_box_floats_at_its_archimedes_draft(rho_b, backend):
    draft, want, speed, tilt = float_box(rho_b, backend=backend)
    print(f"{backend}, rho_b {rho_b:.0f}: draft {draft * 1e3:.2f} mm against m / (rho_w B) = {want * 1e3:.2f} mm "
          f"({(draft - want) / DX:+.3f} cells), {speed:.1e} m/s, tilt {tilt:+.2f} deg")
    assert speed < 0.01, f"the box has not come to rest ({speed:.3g} m/s)"
    assert abs(tilt) < 2.0, f"the box tilted {tilt:.2f} degrees"
    assert draft == pytest.approx(want, abs=TOL), f"draft {draft * 1e3:.2f} mm, Archimedes {want * 1e3:.2f} mm"
