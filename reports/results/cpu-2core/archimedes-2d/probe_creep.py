"""(A probe, not a test: see README.md.) probe_float.py's free box followed in
time under grid damping: every 0.25 s from 0.75 s, its bottom and the free
surface (cells above the floor's acting plane), the draft against the one its
reported mass implies, the water particles inside the box's distance field
(along its sides, under its bottom, deeper than half a cell, the deepest), and
the water's vertical force over its weight. Shows the box creeping down and
locking its bottom onto a node plane, and water creeping into the box.
Usage: probe_creep.py DX_CM RHO_B HB_CM SX_CELLS T_END"""
import sys

import numpy as np

import bagnold as bg

dx, rho_b, HB = float(sys.argv[1]) / 100, float(sys.argv[2]), float(sys.argv[3]) / 100
SX, T_END = float(sys.argv[4]), float(sys.argv[5])
W, HW, B = 0.30, 0.09, 0.08
water = bg.water()
rho = water.params()["rho0"]
e = dx
nx, nz = int(round(W / dx)) + 3, int(round((HW + 2 * HB) / dx)) + 4
surf0, xc = e + HW, e + W / 2 + SX * dx
zb = surf0 - rho_b / rho * HB + 0.01
box = bg.Body("box", half=(B / 2, 0.05, HB / 2), density=rho_b, x=(xc, 0.0, zb + HB / 2), friction="slip")
sim = bg.Sim(grid=(nx, nz), dx=dx, material=water, threads=1, bodies=[box])
h = dx / 2
X, Z = np.meshgrid(np.arange(e + h / 2, e + W, h), np.arange(e + h / 2, surf0, h), indexing="ij")
keep = ~((np.abs(X - xc) < B / 2) & (Z > zb))
sim.add(np.stack([X[keep], np.zeros(keep.sum()), Z[keep]], axis=1).astype(np.float32), ppc=4)
sim.run(until=0.5)
sim.set_damping(20.0)
t = 0.5
while t < T_END - 1e-9:
    t += 0.25
    sim.run(until=t)
    sim.run(1)  # a full step, so that the force is not over a shortened one
    st = sim.body(0)
    x = sim.get("x")
    zc = st["x"][2]
    bot = zc - HB / 2
    far = (np.abs(x[:, 0] - xc) > B / 2 + 3 * dx) & (x[:, 0] > e + 3 * dx) & (x[:, 0] < e + W - 3 * dx)
    cols = np.round(x[far, 0] / h).astype(int)
    surface = float(np.mean([x[far][cols == c, 2].max() for c in np.unique(cols)])) + h / 2
    rx, rz = np.abs(x[:, 0] - xc) - B / 2, np.abs(x[:, 2] - zc) - HB / 2
    phi = np.where((rx < 0) & (rz < 0), np.maximum(rx, rz), np.hypot(np.maximum(rx, 0), np.maximum(rz, 0)))
    ins = phi < 0
    print(f"t {sim.time:.2f} bottom {(bot - e) / dx:.3f} surface {(surface - e) / dx:.3f} draft "
          f"{(surface - bot) / dx:.3f} cells (want {st['mass'] / (rho * B) / dx:.3f}); inside {ins.sum()} "
          f"(sides {np.sum(ins & (rx > rz))}, bottom {np.sum(ins & (rz >= rx))}), deeper than half a cell "
          f"{np.sum(phi < -0.5 * dx)}, deepest {phi.min() / dx:.2f} cells; Fz/mg {st['force'][2] / (st['mass'] * 9.81):.4f}",
          flush=True)
