"""Archimedes in 2D plane strain (issue 37 part 2): a box of density rho_b
floats on weakly compressible water at draft (rho_b / rho_w) h. A first
look, not a claim: the box (free, Coulomb-slip contact) is released at
rest with its bottom on the still water surface, heaves, and is damped by
the water only; the script records its height and reports the mean draft
over the last half and the heave period (zero crossings of the height about
its mean). Usage: float.py OUT.tsv DX_CM [T_END]"""
import math
import sys

import numpy as np

import bagnold as bg

out, dx = sys.argv[1], float(sys.argv[2]) / 100
t_end = float(sys.argv[3]) if len(sys.argv) > 3 else 1.5
W, Hw = 0.40, 0.12          # tank width and water depth, m
B, Hb, rho_b = 0.08, 0.06, 500.0
water = bg.water()
rho_w = water.params()["rho0"] if "rho0" in water.params() else 1000.0
nx, nz = int(round(W / dx)) + 4, int(round((Hw + 2 * Hb) / dx)) + 4
surf = 2 * dx + Hw  # the floor's plane 1.5 cells in; water from z = 2 dx
# released with its bottom on the surface
x0 = (nx * dx / 2, 0.0, surf + Hb / 2)
box = bg.Body("box", half=(B / 2, 0.05, Hb / 2), density=rho_b, x=x0, friction="slip")
sim = bg.Sim(grid=(nx, nz), dx=dx, material=water, threads=2, bodies=[box])
h = dx / 2
xs = np.arange(2 * dx + h / 2, (nx - 2) * dx, h)
zs = np.arange(2 * dx + h / 2, surf, h)
X, Z = np.meshgrid(xs, zs, indexing="ij")
pts = np.stack([X.ravel(), np.zeros(X.size), Z.ravel()], axis=1).astype(np.float32)
sim.add(pts, ppc=4)
rows = []
while sim.time < t_end:
    sim.run(20)
    st = sim.body(0)
    rows.append((sim.time, st["x"][2], st["v"][2]))
rows = np.array(rows)
np.savetxt(out, rows, delimiter="\t", header="t_s\tz_m\tvz_m_s", comments="", fmt="%.6g")
half = rows[rows[:, 0] > t_end / 2]
zc = half[:, 1].mean()
draft = surf - (zc - Hb / 2)
want = rho_b / rho_w * Hb
s = np.sign(rows[:, 1] - zc)
cross = rows[1:, 0][(s[1:] > 0) & (s[:-1] <= 0)]
period = np.diff(cross).mean() if len(cross) > 2 else float("nan")
t0 = 2 * math.pi * math.sqrt(want / 9.81)
print(f"dx {dx*100:.2f} cm, {len(sim)} particles: mean draft {draft*1000:.2f} mm against (rho_b/rho_w) h = "
      f"{want*1000:.2f} mm ({draft/want:.3f}); heave period {period:.4f} s, no-added-mass 2 pi sqrt(d/g) {t0:.4f} s")
