"""(A probe, not a test: see README.md.) Archimedes in 2D plane strain (issue 37 part 2): a free box on weakly
compressible water comes to rest at the draft its weight implies,
d = m_b / (rho_w B) per metre of depth, whatever its density. The box is
released, heaves freely, then grid
damping (which leaves a static equilibrium where it is) brings it to rest.
It starts 1 cm above the draft its fed density implies, in water seeded
around it, so that it heaves a little and no water washes over its top.
The draft is measured through the API: the box's bottom (its centre from
Sim.body less half its height) below the water's free surface away from
the box (the highest particles there, plus half their spacing). Expected:
the box's mass read back over rho0 of the water the simulation holds and
the box's width. Tolerance: a quarter cell, the resolution of the free
surface (half the particle spacing at 4 per cell). At dx = 1 cm (3 cells
of draft) the box floats 24% too deep; at 0.5 cm within 2%
(reports/results/cpu-2core/archimedes-2d)."""

from __future__ import annotations

import numpy as np
import pytest

import bagnold as bg
THREADS = 2

DX = 0.005
W, HW = 0.30, 0.09          # tank width and water depth, m
B = 0.08                    # box width, m


def float_box(rho_b: float, HB: float):
    water = bg.water()
    nx, nz = int(round(W / DX)) + 4, int(round((HW + 2 * HB) / DX)) + 4
    surf0 = 2 * DX + HW
    xc = nx * DX / 2
    # released 1 cm above where it should float (d0 from the fed densities), in water
    # seeded around it: a small heave, no water over its top (a box released at the
    # surface dives, and at 12 mm of freeboard is swamped)
    zb = surf0 - rho_b / water.params()["rho0"] * HB + 0.01
    box = bg.Body("box", half=(B / 2, 0.05, HB / 2), density=rho_b, x=(xc, 0.0, zb + HB / 2), friction="slip")
    sim = bg.Sim(grid=(nx, nz), dx=DX, material=water, threads=THREADS, bodies=[box])
    h = DX / 2
    X, Z = np.meshgrid(np.arange(2 * DX + h / 2, (nx - 2) * DX, h), np.arange(2 * DX + h / 2, surf0, h), indexing="ij")
    keep = ~((np.abs(X - xc) < B / 2) & (Z > zb))
    X, Z = X[keep], Z[keep]
    sim.add(np.stack([X.ravel(), np.zeros(X.size), Z.ravel()], axis=1).astype(np.float32), ppc=4)
    sim.run(until=0.5)
    sim.set_damping(20.0)
    sim.run(until=0.9)
    st = sim.body(0)
    x = sim.get("x")
    far = np.abs(x[:, 0] - xc) > B
    cols = np.round(x[far, 0] / h).astype(int)
    tops = [x[far][cols == c, 2].max() for c in np.unique(cols)]
    surface = float(np.mean(tops)) + h / 2
    draft = surface - (st["x"][2] - HB / 2)
    want = st["mass"] / (water.params()["rho0"] * B)
    speed = abs(st["v"][2])
    return draft, want, speed


@pytest.mark.parametrize("rho_b,height", [(500.0, 0.06), (800.0, 0.08)])
def test_box_floats_at_its_draft(rho_b, height):
    draft, want, speed = float_box(rho_b, height)
    print(f"rho_b {rho_b}: draft {draft * 1e3:.2f} mm against m / (rho_w B) = {want * 1e3:.2f} mm")
    assert speed < 0.01, f"the box has not come to rest ({speed:.3g} m/s)"
    assert draft == pytest.approx(want, abs=DX / 4)


if __name__ == "__main__":
    for rho_b, height in [(500.0, 0.06), (800.0, 0.08)]:
        draft, want, speed = float_box(rho_b, height)
        print(f"rho_b {rho_b:.0f} kg/m^3, box {B * 100:.0f} x {height * 100:.0f} cm: draft {draft * 1e3:.2f} mm against "
              f"m / (rho_w B) = {want * 1e3:.2f} mm ({draft / want - 1:+.1%}, {(draft - want) / DX:+.2f} cells); "
              f"at rest: {speed:.2g} m/s")
