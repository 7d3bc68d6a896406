"""A paddle wheel turned by a motor in sand (issue 37 part 6), a first
measurement: torque against angular velocity. 2D plane strain (per metre of
depth): two kinematic boxes crossing at one centre make a four-armed paddle
(arms 5 cm from the axis, 2 cm = 4 cells thick), buried with its centre
7.5 cm under the surface of a geostatic Drucker-Prager bed (Klar's sand),
spun at a fixed rate omega about y (the motor: a kinematic body keeps its
angular velocity). The torque on the paddle is the two bodies' torques
(Sim.body, about their common centre), averaged over the second quarter
turn (the first is the start-up). Usage: paddle.py OUT.tsv OMEGA,..."""
import math
import sys
import time

import numpy as np

import bagnold as bg

out = sys.argv[1]
omegas = [float(w) for w in sys.argv[2].split(",")]
dx = 0.005
W, Hs = 0.40, 0.15
L, T, depth = 0.10, 0.02, 0.075
nx, nz = int(round(W / dx)) + 4, int(round((Hs + 0.05) / dx)) + 4
z_floor = dx  # the floor's edge on its last solid node
surf = z_floor + Hs
rows = []
for om in omegas:
    c = (nx * dx / 2, 0.0, surf - depth)
    s2 = math.sqrt(0.5)
    arms = [bg.Body("box", half=(L / 2, 0.05, T / 2), density=2000.0, x=c, w=(0, om, 0), kinematic=True,
                    friction=0.5),
            bg.Body("box", half=(L / 2, 0.05, T / 2), density=2000.0, x=c, q=(s2, 0, s2, 0), w=(0, om, 0),
                    kinematic=True, friction=0.5)]
    sand = bg.sand()
    sim = bg.Sim(grid=(nx, nz), dx=dx, material=sand, threads=2, bodies=arms, walls={"floor": 0.5})
    h = dx / 2
    X, Z = np.meshgrid(np.arange(z_floor + h / 2 + dx, (nx - 2) * dx, h), np.arange(z_floor + h / 2, surf, h),
                       indexing="ij")
    pts = np.stack([X.ravel(), np.zeros(X.size), Z.ravel()], axis=1)
    # no sand inside the paddle's arms
    rel = pts - np.array(c)
    inside = np.zeros(len(pts), bool)
    for ang in (0.0, math.pi / 2):
        u = rel[:, 0] * math.cos(ang) + rel[:, 2] * math.sin(ang)
        v = -rel[:, 0] * math.sin(ang) + rel[:, 2] * math.cos(ang)
        inside |= (np.abs(u) < L / 2) & (np.abs(v) < T / 2)
    sim.add(pts[~inside].astype(np.float32), ppc=4)
    sim.set_geostatic(surf, 1 - math.sin(math.radians(35)))
    t0 = time.time()
    quarter = (math.pi / 2) / om
    sim.run(until=quarter)
    taus, ts = [], []
    while sim.time < 2 * quarter:
        sim.run(10)
        taus.append(sim.body(0)["torque"][1] + sim.body(1)["torque"][1])
        ts.append(sim.time)
    tau = float(np.mean(taus))
    tip = om * L / 2
    inertial = tip ** 2 / (9.81 * depth)
    rows.append((om, tip, inertial, tau, float(np.std(taus)), time.time() - t0))
    print(f"omega {om:6.2f} rad/s (tip {tip:.3f} m/s, tip^2/(g depth) {inertial:.4f}): torque {tau:8.3f} N m/m "
          f"(sd {np.std(taus):.3f}), {len(sim)} particles, {time.time() - t0:.0f} s", flush=True)
np.savetxt(out, np.array(rows), delimiter="\t", fmt="%.6g",
           header="omega_rad_s\ttip_speed_m_s\ttip2_over_g_depth\ttorque_N_m_per_m\ttorque_sd\twall_s", comments="")
