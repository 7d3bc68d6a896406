#!/usr/bin/env python3
"""make_hopper_meshes.py: the hopper floors of references/meshes/ as OBJ.

Both are the solid the hopper demo's analytic floor describes
(experiments/common/bg_silo.c: phi = max(slab, D/2 - rho)), in units of the
orifice diameter D (the demo scales them by D at every trial), with the
plate's top at z = 0 and the orifice's axis at x = y = 0:
  hopper_slot.obj   the slot silo's floor (quick scale): two blocks either
                    side of a slot |x| < 1/2 that crosses the plate in y;
  hopper_round.obj  the round silo's floor (paper scale): a plate with a
                    circular orifice of radius 1/2, a 256-gon with its
                    corners on the circle (sag 0.5 (1 - cos(pi/256)) = 3.8e-5 D).
The plate is floor_cells / orifice_cells thick: 2 / 6 for the quick scale's
6 cells across the orifice, 2 / 10 for the paper scale's 10, the analytic
floor's 2 cells. It reaches +-8 D in x and y, beyond every grid the demo's
presets make (the demo refuses a grid the mesh does not cover).

usage: scripts/make_hopper_meshes.py [OUTDIR]   (default references/meshes)
"""
import math
import os
import sys

EXTENT = 8.0


def write_obj(path, comment, verts, tris):
    with open(path + ".tmp", "w") as f:
        f.write("# %s\n# written by scripts/make_hopper_meshes.py\n" % comment)
        for v in verts:
            f.write("v %s %s %s\n" % tuple(repr(float(c)) for c in v))
        for t in tris:
            f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))
    os.replace(path + ".tmp", path)


def box(verts, tris, lo, hi):
    """an axis-aligned box, triangles facing out"""
    base = len(verts)
    for i in range(8):
        verts.append([hi[a] if (i >> (2 - a)) & 1 else lo[a] for a in range(3)])
    # corner index bits: x (4), y (2), z (1); each face counter-clockwise seen from outside
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    for q in quads:
        tris.append((base + q[0], base + q[1], base + q[2]))
        tris.append((base + q[0], base + q[2], base + q[3]))


def slot(thickness):
    verts, tris = [], []
    box(verts, tris, (-EXTENT, -EXTENT, -thickness), (-0.5, EXTENT, 0.0))
    box(verts, tris, (0.5, -EXTENT, -thickness), (EXTENT, EXTENT, 0.0))
    return verts, tris


def round_plate(thickness, n=256):
    """a square plate with a circular hole: rays from the axis at n angles
    (the square's corners among them, n a multiple of 8) join the hole's
    polygon to the square's outline"""
    assert n % 8 == 0
    verts, tris = [], []
    for z in (0.0, -thickness):
        for k in range(n):
            th = 2 * math.pi * k / n
            c, s = math.cos(th), math.sin(th)
            verts.append([0.5 * c, 0.5 * s, z])  # hole corner
            r = EXTENT / max(abs(c), abs(s))
            verts.append([EXTENT * round(r * c / EXTENT, 15), EXTENT * round(r * s / EXTENT, 15), z])

    def idx(top, k, outer):
        return (0 if top else 2 * n) + 2 * (k % n) + outer

    for k in range(n):
        i0, o0, i1, o1 = idx(1, k, 0), idx(1, k, 1), idx(1, k + 1, 0), idx(1, k + 1, 1)
        I0, O0, I1, O1 = idx(0, k, 0), idx(0, k, 1), idx(0, k + 1, 0), idx(0, k + 1, 1)
        tris += [(i0, o0, o1), (i0, o1, i1)]  # top, facing +z
        tris += [(I0, O1, O0), (I0, I1, O1)]  # bottom, facing -z
        tris += [(O0, O1, o1), (O0, o1, o0)]  # outline, facing out
        tris += [(I0, i1, I1), (I0, i0, i1)]  # orifice wall, facing the axis
    return verts, tris


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "references", "meshes")
    v, t = slot(2.0 / 6.0)
    write_obj(os.path.join(out, "hopper_slot.obj"),
              "hopper demo floor, slot silo: |x| < D/2 open, plate 2/6 D thick (units: D)", v, t)
    v, t = round_plate(2.0 / 10.0)
    write_obj(os.path.join(out, "hopper_round.obj"),
              "hopper demo floor, round silo: orifice radius D/2 (256-gon), plate 2/10 D thick (units: D)", v, t)


if __name__ == "__main__":
    main()
