#!/usr/bin/env python3
"""windows.py: the depth series of an exp_rft run read over parts of its window.

For the drags of set "depth" in RUN_DIR/series.tsv, the rows' stress force
|F| (stress_fx_N_m, stress_fz_N_m) and the plate centre's depth below a
surface (depth_m, below the surface before the drag, plus the surface's
height: surface_over_m, surface_ahead_half_m, surface_ahead_m or
surface_ahead_two_m) are averaged over travel ranges [lo, hi) in L. Per
range it prints alpha = mean |F| / (L |z|) per depth, N/cm^3, and the
zero-force depth of the unweighted line |F| = k |z| + c over the mean
depth, -c / k / mean |z| (the claim's line has weights and errors; this
shows where in the travel the departure comes from).

usage: windows.py RUN_DIR [--length L] [--ranges 1,1.5,2,2.5,3]
"""
import argparse
import math
import os

SURFACES = ["surface_over_m", "surface_ahead_half_m", "surface_ahead_m", "surface_ahead_two_m"]


def rows_of(path):
    head, out = None, []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if head is None:
            head = f
        else:
            out.append(dict(zip(head, f)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--length", type=float, default=0.04)
    ap.add_argument("--ranges", default="1,1.5,2,2.5,3")
    a = ap.parse_args()
    edges = [float(x) for x in a.ranges.split(",")]
    spans = list(zip(edges, edges[1:])) + [(edges[0], edges[-1])]
    rows = [r for r in rows_of(os.path.join(a.run, "series.tsv"))
            if r["set"] == "depth" and "nan" not in r["stress_fx_N_m"]]
    for col in SURFACES:
        print(col)
        for lo, hi in spans:
            by = {}
            for r in rows:
                t = float(r["travel_L"])
                if not lo - 1e-6 <= t < hi + 1e-6 or (hi < edges[-1] and t >= hi - 1e-6):
                    continue
                f = math.hypot(float(r["stress_fx_N_m"]), float(r["stress_fz_N_m"]))
                z = float(r["depth_m"]) + float(r[col])
                by.setdefault(float(r["depth_nominal_m"]), []).append((f, z))
            pts, cells = [], []
            for d in sorted(by):
                v = by[d]
                fm, zm = sum(x[0] for x in v) / len(v), sum(x[1] for x in v) / len(v)
                al = sum(x[0] / (a.length * x[1]) for x in v) / len(v) / 1e6
                pts.append((zm, fm))
                cells.append(f"{d * 100:g} cm: {al:.3f}")
            if len(pts) < 2:
                continue
            mz, mf = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
            k = sum((p[0] - mz) * (p[1] - mf) for p in pts) / sum((p[0] - mz) ** 2 for p in pts)
            c = mf - k * mz
            print(f"  travel [{lo:g}, {hi:g}) L: alpha {', '.join(cells)}; zero-force depth {-c / k / mz:+.3f} of the mean")


if __name__ == "__main__":
    main()
