"""How much smaller the elastic-CFL step would be if its speed came from the
grid instead of the particles. A particle's new velocity is a B-spline
average of its 27 nodes' (weights >= 0, summing to 1), so the fastest node
bounds the fastest particle, and a dt from the grid's maximum speed is known
after the grid update, before G2P: what a fused G2P2G kernel needs to
scatter the next step's stress with the next step's dt (issue 36 part 2).
This probe steps a column collapse on the cpu backend and, every few steps,
compares the dt the library takes (from the particles' maximum speed) with
the dt the grid's maximum speed would give, cfl dx / (c_p + max |v_node|),
c_p recovered from the library's own bound. Usage: probe.py OUT.tsv"""
import sys

import numpy as np

import bagnold as bg

out = sys.argv[1]
dx, a, h0 = 0.01, 2.0, 0.12           # cells, aspect ratio, column height
nx, ny, nz = 64, 12, 24
sim = bg.Sim(grid=(nx, ny, nz), dx=dx, material=bg.sand(), backend="cpu", threads=2,
             walls={"floor": 0.5})
r0 = h0 / a
g = np.mgrid[0:r0:dx / 2, 2 * dx:(ny - 2) * dx:dx / 2, 0:h0:dx / 2].reshape(3, -1).T + dx / 4
g += [2 * dx, 0.0, 2 * dx]
sim.add(g.astype(np.float32), ppc=8)
cfl = 0.3
rows = []
while sim.time < 0.6:
    sim.run(10)
    dt, bound = sim.next_dt()
    vp = sim.stats.max_speed
    cp = cfl * dx / bound - vp
    m = sim.grid_mass()
    v = sim.grid_velocity()
    vn = float(np.sqrt((v[m > 0] ** 2).sum(axis=1)).max())
    dt_node = cfl * dx / (cp + vn)
    rows.append((sim.time, vp, vn, dt, dt_node, dt_node / dt))
rows = np.array(rows)
np.savetxt(out, rows, delimiter="\t", header="t_s\tvmax_particles\tvmax_nodes\tdt_particles\tdt_nodes\tratio",
           comments="", fmt="%.6g")
print(f"{len(rows)} samples to t = {rows[-1, 0]:.3f} s: node/particle speed max {np.max(rows[:, 2] / np.maximum(rows[:, 1], 1e-12)):.3f}; "
      f"dt ratio min {rows[:, 5].min():.5f}, mean {rows[:, 5].mean():.5f}; c_p {cfl * dx / rows[0, 3] - rows[0, 1]:.2f} m/s")
assert (rows[:, 2] >= rows[:, 1] * (1 - 1e-5)).all(), "a particle faster than every node"
