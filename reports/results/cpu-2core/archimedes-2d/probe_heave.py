"""(A probe, not a test: see README.md.) The heave of a wide box in a narrow,
shallow 2D tank, where a closed form exists: long-wave (shallow-water) flow
under the box and a level rising uniformly in the two side gaps. Per metre,
with B the box's width, W the tank's, h_u the water under the box, h_s the
water depth in the gaps, L_s = (W - B) / 2 each gap's width:
  stiffness   k   = rho g B W / (W - B)   (the gaps' level rises as the box sinks)
  added mass  m_a = rho B^3 / (12 h_u) + rho B^2 (W - B) / (12 h_s)
              (the kinetic energy of the flow out from under the box, u = x zdot / h_u,
              and of the flow in the gaps, falling linearly to the walls)
  period      T   = 2 pi sqrt((m + m_a) / k)
Valid when B / 2 >> h_u (here 4.3) and the gaps' own sloshing (4 L_s / sqrt(g h_s),
here 0.47 s) is quicker than T. The box is released A = 5 mm above its equilibrium,
the water seeded around it with the volume it has at equilibrium, and its height is
recorded. The motion is strongly damped (about one overshoot), so the period is read
as twice the time from its first minimum to the maximum after it, and the damping
ratio from the decrement between release and that minimum.
Usage: probe_heave.py DX_CM [T_END]"""
import math
import sys

import numpy as np

import bagnold as bg

dx = float(sys.argv[1]) / 100
t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 2.5
W, B, HB, RHO_B, H0, A = 0.50, 0.30, 0.08, 500.0, 0.015, 0.005
G = 9.81
water = bg.water()
rho = water.params()["rho0"]
d = RHO_B / rho * HB
level = H0 + B * d / (W - B)              # the equilibrium level: the gaps take what the box displaces
h_u, h_s, l_s = level - d, level, (W - B) / 2
m = RHO_B * B * HB
k = rho * G * B * W / (W - B)
m_a = rho * B ** 3 / (12 * h_u) + rho * B ** 2 * (W - B) / (12 * h_s)
t_closed = 2 * math.pi * math.sqrt((m + m_a) / k)

e = dx
n = int(round(W / dx)) | 1
nx, nz = n + 3, int(round((level + 2 * HB) / dx)) + 4
wt = n * dx
xc = e + wt / 2
zb = e + level - d + A
s0 = e + level - B * A / (W - B)           # the level outside that keeps the equilibrium's volume
box = bg.Body("box", half=(B / 2, 0.05, HB / 2), density=RHO_B, x=(xc, 0.0, zb + HB / 2), friction="slip")
sim = bg.Sim(grid=(nx, nz), dx=dx, material=water, threads=1, bodies=[box])
h = dx / 2
X, Z = np.meshgrid(np.arange(e + h / 2, e + wt, h), np.arange(e + h / 2, s0, h), indexing="ij")
keep = ~((np.abs(X - xc) < B / 2) & (Z > zb))
sim.add(np.stack([X[keep], np.zeros(keep.sum()), Z[keep]], axis=1).astype(np.float32), ppc=4)
rows = []
while sim.time < t_end:
    sim.run(10)
    rows.append((sim.time, sim.body(0)["x"][2]))
rows = np.array(rows)
# the motion is strongly damped: read the first minimum and the maximum after it
z = rows[:, 1]
i1 = int(np.argmin(z[rows[:, 0] < 0.8]))
i2 = i1 + int(np.argmax(z[i1:][rows[i1:, 0] < rows[i1, 0] + 0.8]))
z_end = float(np.mean(z[rows[:, 0] > rows[-1, 0] - 0.3]))
x0, x1, x2 = z[0] - z_end, z[i1] - z_end, z[i2] - z_end
lam = math.log(-x0 / x1) if x1 < 0 < x0 else float("nan")       # the half-cycle decrement
zeta = lam / math.sqrt(math.pi ** 2 + lam ** 2)
t_d = 2 * (rows[i2, 0] - rows[i1, 0])
print(f"dx {dx * 100:.2f} cm: released {x0 * 1e3:.2f} mm above where it ends ({(z_end - (e + level - d + HB / 2)) * 1e3:+.2f} mm "
      f"from Archimedes' rest); first minimum {x1 * 1e3:+.2f} mm at {rows[i1, 0]:.3f} s, then {x2 * 1e3:+.2f} mm at "
      f"{rows[i2, 0]:.3f} s: damping ratio {zeta:.2f} (half-cycle decrement), damped period 2 x {rows[i2, 0] - rows[i1, 0]:.3f}"
      f" = {t_d:.3f} s, undamped {t_d * math.sqrt(1 - zeta ** 2):.3f} s, against the long-wave closed form {t_closed:.3f} s "
      f"(m {m:.1f}, m_a {m_a:.1f} kg/m, k {k:.0f} N/m^2; the gaps' sloshing 4 L_s / sqrt(g h_s) = "
      f"{4 * l_s / math.sqrt(G * h_s):.3f} s)", flush=True)
