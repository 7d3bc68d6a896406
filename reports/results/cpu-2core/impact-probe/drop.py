"""A first look at Uehara et al. 2003's penetration law in bagnold's
coupled rigid body: a sphere dropped into a bed of Klar sand (Drucker-
Prager, the library's default) from several heights, at quick resolution.
Not a claim: the measured depths and the slopes of log d against log H
and log D, for the issue's note. Usage: drop.py OUTDIR TAG D_cm,... h_cm,...
(every pair is dropped; TAG names the output files)."""
import math
import sys
import time

import numpy as np

import bagnold as bg

out, tag = sys.argv[1], sys.argv[2]
diams = [float(v) / 100 for v in sys.argv[3].split(",")]
heights = [float(v) / 100 for v in sys.argv[4].split(",")]
dx, ratio = 0.01, 3.0
W, B = 0.30, 0.12            # bed width and depth, m
g = 9.81
rows = []
for D, h in [(D, h) for D in diams for h in heights]:
    sand = bg.sand()
    R = D / 2
    nx = int(round(W / dx)) + 4
    nz = int(round(B / dx)) + 16
    surf = 1.0 * dx + B      # the floor's edge on its last solid node (z = dx)
    z0 = surf + R + 1.5 * dx
    v0 = math.sqrt(2 * g * h)
    ball = bg.Body("sphere", radius=R, density=ratio * sand.params()["rho0"], x=(nx * dx / 2, nx * dx / 2, z0),
                   v=(0, 0, -v0), friction=0.5)
    sim = bg.Sim(grid=(nx, nx, nz), dx=dx, material=sand, walls={"-z": 0.5}, bodies=[ball], backend="cpu")
    s = dx / 2
    lo = 1.0 * dx
    xs = np.mgrid[lo + s / 2:lo + W:s, lo + s / 2:lo + W:s, dx + s / 2:surf:s].reshape(3, -1).T
    sim.add(xs.astype(np.float32), ppc=8)
    sim.set_geostatic(surf, 0.5)
    t0 = time.time()
    zmin, stopped = z0, False
    while sim.stats.time < 0.4:
        sim.step()
        b = sim.body(0)
        zmin = min(zmin, b["x"][2])
        if b["v"][2] >= 0 and b["x"][2] < surf + R:
            stopped = True
            break
    d = surf - (zmin - R)
    rows.append((h, v0, d, h + d, stopped, sim.stats.time, time.time() - t0, len(xs), D))
    print(f"D {D:.3f} m h {h:.3f} m v0 {v0:.3f} m/s: d {d*100:.2f} cm (stopped {stopped} at t {sim.stats.time:.3f} s, "
          f"{time.time()-t0:.0f} s wall)", flush=True)
    sim.close()
with open(f"{out}/{tag}_drops.tsv", "w") as f:
    f.write("# rho_b/rho_g 3, dx 1 cm, Klar sand (phi 35 deg); d: the sphere's bottom at its lowest, below the bed's surface\n")
    f.write("D_m\th_m\tv0_m_s\td_m\tH_m\tstopped\tt_s\twall_s\tparticles\n")
    for r in rows:
        f.write("%.4f\t%.4f\t%.4f\t%.5f\t%.5f\t%d\t%.4f\t%.1f\t%d\n" % (r[8], r[0], r[1], r[2], r[3], int(r[4]), r[5], r[6], r[7]))
# log d = a + b log H + c log D over every drop
A = np.array([[1.0, math.log(r[3]), math.log(r[8])] for r in rows])
y = np.log([r[2] for r in rows])
coef = np.linalg.lstsq(A, y, rcond=None)[0] if len(set(r[8] for r in rows)) > 1 else np.polyfit(A[:, 1], y, 1)[::-1]
mu = math.tan(math.radians(35))
pred = [0.14 / mu * math.sqrt(ratio) * r[8] ** (2 / 3) * r[3] ** (1 / 3) for r in rows]
with open(f"{out}/{tag}_summary.txt", "w") as f:
    f.write(f"log d fit: H exponent {coef[1]:.3f} (Uehara 1/3)" + (f", D exponent {coef[2]:.3f} (Uehara 2/3)" if len(coef) > 2 else "") + "\n")
    for r, p in zip(rows, pred):
        f.write(f"D {r[8]:.3f} m H {r[3]:.4f} m: d {r[2]:.4f} m, Uehara with mu = tan 35 deg {p:.4f} m, ratio {r[2]/p:.3f}\n")
print(open(f"{out}/{tag}_summary.txt").read())
