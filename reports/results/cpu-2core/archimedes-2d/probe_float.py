"""(A probe, not a test: see README.md.) probe_rest.py's free box brought to
rest on 2D water, with the lab's side of the measurement put right: the water
fills the tank to the walls' acting planes (bagnold.wall_edge_offset, one cell
in from each outer node) so that none drains into a gap at a wall, and the
free surface is read away from the box and from the walls (top particles plus
half their spacing). The box's side faces are placed SX cells off the node
planes (0: on them, the extreme where the coupling loses most width; 0.5:
midway). Expected: the box's mass as the simulation reports it, over rho0 of
the water it holds and the box's width, per metre; and over the width of the
node columns the box claims (the coupling's body is the cells of the nodes it
claims: README.md), with the bottom's distance to the nearest node plane (the
buoyancy is a staircase in the box's height, so a floating box locks its
bottom onto a node plane).
Usage: probe_float.py DX_CM RHO_B HB_CM [SX=cells] [T=seconds]"""
import sys

import numpy as np

import bagnold as bg

dx, rho_b, HB = float(sys.argv[1]) / 100, float(sys.argv[2]), float(sys.argv[3]) / 100
opt = dict(a.split("=") for a in sys.argv[4:] if "=" in a)
SX, T = float(opt.get("SX", 0.0)), float(opt.get("T", 0.9))
W, HW, B = 0.30, 0.09, 0.08          # tank width, water depth, box width, m


def float_box():
    water = bg.water()
    rho = water.params()["rho0"]
    e = dx                           # each face's material edge (its last solid node)
    nx, nz = int(round(W / dx)) + 3, int(round((HW + 2 * HB) / dx)) + 4
    surf0, xc = e + HW, e + W / 2 + SX * dx
    zb = surf0 - rho_b / rho * HB + 0.01
    box = bg.Body("box", half=(B / 2, 0.05, HB / 2), density=rho_b, x=(xc, 0.0, zb + HB / 2), friction="slip")
    sim = bg.Sim(grid=(nx, nz), dx=dx, material=water, threads=1, bodies=[box])
    h = dx / 2
    X, Z = np.meshgrid(np.arange(e + h / 2, e + W, h), np.arange(e + h / 2, surf0, h), indexing="ij")
    keep = ~((np.abs(X - xc) < B / 2) & (Z > zb))
    X, Z = X[keep], Z[keep]
    sim.add(np.stack([X.ravel(), np.zeros(X.size), Z.ravel()], axis=1).astype(np.float32), ppc=4)
    sim.run(until=T - 0.4)
    sim.set_damping(20.0)
    sim.run(until=T)
    st = sim.body(0)
    x = sim.get("x")
    far = (np.abs(x[:, 0] - xc) > B / 2 + 3 * dx) & (x[:, 0] > e + 3 * dx) & (x[:, 0] < e + W - 3 * dx)
    cols = np.round(x[far, 0] / h).astype(int)
    surface = float(np.mean([x[far][cols == c, 2].max() for c in np.unique(cols)])) + h / 2
    draft = surface - (st["x"][2] - HB / 2)
    if "-v" in sys.argv:
        zc = st["x"][2]
        allc = np.floor((x[:, 0] - e) / dx).astype(int)
        print("tops (cells above the box bottom) per column:",
              " ".join(f"{(x[allc == c, 2].max() + h / 2 - zc + HB / 2) / dx:.2f}" for c in np.unique(allc)))
        inb = (np.abs(x[:, 0] - xc) < B / 2) & (np.abs(x[:, 2] - zc) < HB / 2)
        print(f"box bottom {(zc - HB / 2 - e) / dx:.3f} cells above the floor edge, {inb.sum()} particles inside it; "
              f"surface {(surface - e) / dx:.3f} cells")
    want = st["mass"] / (rho * B)
    tilt = 2 * np.degrees(np.arcsin(st["q"][2]))
    on_top = int(np.sum((np.abs(x[:, 0] - st["x"][0]) < B / 2 + dx) & (x[:, 2] > st["x"][2] + HB / 2 - dx)))
    # the coupling's body: the cells of the nodes it claims (nodes strictly inside)
    ks = np.arange(int(np.ceil((xc - B / 2) / dx)) - 1, int(np.floor((xc + B / 2) / dx)) + 2)
    b_vox = np.sum(np.abs(ks * dx - xc) < B / 2 - 1e-9 * dx) * dx
    lock = ((st["x"][2] - HB / 2) / dx) % 1.0
    lock = min(lock, 1.0 - lock)
    return draft, want, abs(st["v"][2]), len(x), tilt, on_top, st["mass"] / (rho * b_vox), lock


draft, want, speed, n, tilt, on_top, want_vox, lock = float_box()
print(f"dx {dx * 100:.2f} cm, rho_b {rho_b:.0f} kg/m^3, box {B * 100:.0f} x {HB * 100:.0f} cm, sides {SX:g} cells off "
      f"the node planes, {n} particles: draft {draft * 1e3:.2f} mm against m / (rho_w B) = {want * 1e3:.2f} mm "
      f"({draft / want - 1:+.2%}, {(draft - want) / dx:+.3f} cells); over the claimed columns' width "
      f"{want_vox * 1e3:.2f} mm ({(draft - want_vox) / dx:+.3f} cells); bottom {lock:.3f} cells from a node plane; at rest: {speed:.1e} m/s, tilt {tilt:+.2f} deg, {on_top} particles on its top", flush=True)
