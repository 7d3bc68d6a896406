"""(A probe, not a test: see README.md.) A box held still (kinematic, at rest)
with its bottom at a chosen height in 2D water, settled by grid damping; what
the water hands it. The water fills the tank to the walls' acting planes
(bagnold.wall_edge_offset: one cell in from each outer node), so no gap is
left for it to drain into. Printed per case, each as a draft (the level less
the box's bottom), mm:
  force:   the vertical force on the box per metre, averaged over full steps,
           over rho_w g B (the level its pressure implies);
  surface: the top particles away from the box plus half their spacing;
  volume:  the level the water's volume (sum of m / rho) implies, the box's
           submerged part taken as B times the draft.
and where the water under the box stops against its bottom, in cells. Given
two drafts or more, the force fitted as rho g (B - beta) (d - delta) per
metre, d the draft from the surface: beta the width the box loses, delta the
height its bottom acts above where it is, both in cells.
With -v, the water's pressure (Tait, from each particle's density) by half-cell
row away from the box, beside the hydrostatic pressure of the volume's level
(README.md: why the level is read from the particles' tops instead).
Usage: probe_held.py DX_CM DRAFT_CM [DRAFT_CM ...] [B=cm] [HB=cm] [UNDER=cm] [SX=cells] [SZ=cells] [F=slip|stick]
(SX, SZ: the box moved off the node planes its faces lie on by these fractions of a cell.)"""
import sys

import numpy as np

import bagnold as bg

dx = float(sys.argv[1]) / 100
opt = dict(a.split("=") for a in sys.argv[2:] if "=" in a)
drafts = [float(a) / 100 for a in sys.argv[2:] if a != "-v" and "=" not in a]
W = 0.30
UNDER, HB = float(opt.get("UNDER", 5)) / 100, float(opt.get("HB", 10)) / 100
B = float(opt.get("B", 8)) / 100
SX, SZ, FRICTION = float(opt.get("SX", 0)) * dx, float(opt.get("SZ", 0)) * dx, opt.get("F", "slip")   # tank width, water under the box, box width and height, m
# (the water is d0 + UNDER deep: the same layer under the box at every draft)
G = 9.81


def held(d0: float):
    water = bg.water()
    par = water.params()
    rho, K, gam = par["rho0"], par["bulk_modulus"], par["gamma"]
    HW = round((d0 + UNDER) / dx) * dx
    nx, nz = int(round(W / dx)) + 3, int(round((HW + HB) / dx)) + 6
    e = dx                                  # each face's material edge: its last solid node
    surf0, xc = e + HW + SZ, e + W / 2 + SX
    zb = surf0 - d0
    box = bg.Body("box", half=(B / 2, 0.05, HB / 2), density=500.0, x=(xc, 0.0, zb + HB / 2), friction=FRICTION,
                  kinematic=True)
    sim = bg.Sim(grid=(nx, nz), dx=dx, material=water, threads=1, bodies=[box])
    h = dx / 2
    X, Z = np.meshgrid(np.arange(e + h / 2, e + W, h), np.arange(e + h / 2, surf0, h), indexing="ij")
    keep = ~((np.abs(X - xc) < B / 2) & (Z > zb))
    X, Z = X[keep], Z[keep]
    sim.add(np.stack([X.ravel(), np.zeros(X.size), Z.ravel()], axis=1).astype(np.float32), ppc=4)
    sim.set_damping(20.0)
    sim.run(until=0.8)
    fz = []
    for _ in range(40):
        sim.run(5)
        fz.append(sim.body(0)["force"][2])
    x, m, den, v = sim.get("x"), sim.get("mass"), sim.get("density"), sim.get("v")
    s_vol0 = (float(np.sum(m / den)) + e * W - B * zb) / (W - B)
    p = K * ((den / rho) ** gam - 1)
    away = (np.abs(x[:, 0] - xc) > B / 2 + 3 * dx) & (x[:, 0] > e + 3 * dx) & (x[:, 0] < e + W - 3 * dx)
    if "-v" in sys.argv:
        for z0 in np.arange(e, surf0 + dx, h):
            s = away & (np.abs(x[:, 2] - z0 - h / 2) < h / 2)
            if s.any():
                print(f"  z {(z0 - e) / dx:5.2f} cells: n {s.sum():4d} p {p[s].mean():8.2f} +- {p[s].std():6.2f} Pa, "
                      f"hydrostatic from the volume level {rho * G * (s_vol0 - z0 - h / 2):8.2f}")
    far = np.abs(x[:, 0] - xc) > B
    cols = np.round(x[far, 0] / h).astype(int)
    surface = float(np.mean([x[far][cols == c, 2].max() for c in np.unique(cols)])) + h / 2
    area = float(np.sum(m / den))
    s_vol = (area + e * W - B * zb) / (W - B)
    under = np.abs(x[:, 0] - xc) < B / 2 - dx
    return dict(force=float(np.mean(fz)) / (rho * G * B), surface=surface - zb, volume=s_vol - zb, top_under=(float(x[under, 2].max()) - zb) / dx,
                vmax=float(np.abs(v).max()))


rows = []
for d0 in drafts:
    r = held(d0)
    rows.append((r["surface"], r["force"]))
    print(f"dx {dx * 100:.2f} cm, B {B * 100:g} cm, shift {SX / dx:g} {SZ / dx:g} cells, {FRICTION}, held at {d0 * 1e3:.1f} mm: force {r['force'] * 1e3:.2f}, surface {r['surface'] * 1e3:.2f}, volume {r['volume'] * 1e3:.2f} mm; "
          f"force - surface {(r['force'] - r['surface']) / dx:+.3f} cells; water under the box tops "
          f"{r['top_under']:+.3f} cells from its bottom; vmax {r['vmax']:.1e} m/s", flush=True)
if len(rows) > 1:
    # F / (rho g B) = (1 - beta / B) (d - delta), d the draft from the surface
    a, b = np.polyfit(*np.array(rows).T, 1)
    print(f"fit over the surface drafts: force = rho g (B - beta) (d - delta), beta {B * (1 - a) / dx:.3f} cells, "
          f"delta {-b / a / dx:+.3f} cells", flush=True)
