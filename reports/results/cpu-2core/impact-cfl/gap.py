#!/usr/bin/env python3
"""The free sphere's depth against the step and the grid: for each drop (D, h), the depth at each
(dx, CFL) from the drops.tsv of every folder named on the command line (each one exp_impact run at
one --cfl, read from its manifest), the gap between the largest CFL and each smaller one on each
grid, and the gap's order in dx between successive grids (log of the gaps' ratio over log of the
grids' ratio). Prints Markdown tables.

usage: gap.py DIR...   (e.g. gap.py cfl* dx0.005-cfl*)"""
import csv, json, math, os, sys


def cfl_of(d):
    """the run's CFL from its manifest.json, or from the folder's name (cflC) where it kept none"""
    m = os.path.join(d, "manifest.json")
    if os.path.exists(m):
        return float(json.load(open(m))["cfl"])
    return float(os.path.basename(d.rstrip("/")).split("cfl")[-1])


depth = {}  # (D, h) -> {(dx, cfl): d}
for d in sys.argv[1:]:
    c = cfl_of(d)
    rows = [l for l in open(os.path.join(d, "drops.tsv")) if not l.startswith("#")]
    for r in csv.DictReader(rows, delimiter="\t"):
        depth.setdefault((float(r["D_m"]), float(r["h_m"])), {})[(float(r["dx_m"]), c)] = float(r["d_m"])

for (D, h), t in sorted(depth.items()):
    dxs = sorted({k[0] for k in t}, reverse=True)
    cfls = sorted({k[1] for k in t}, reverse=True)
    print(f"\nD {D*100:g} cm, h {h*100:g} cm: depth d, cm")
    print("| dx cm | " + " | ".join(f"CFL {c:g}" for c in cfls) + " | " +
          " | ".join(f"gap {cfls[0]:g}-{c:g}" for c in cfls[1:]) + " |")
    print("|---:|" + "---:|" * (2 * len(cfls) - 1))
    for x in dxs:
        v = [t.get((x, c)) for c in cfls]
        g = [t[(x, cfls[0])] - t[(x, c)] if (x, c) in t and (x, cfls[0]) in t else None for c in cfls[1:]]
        fmt = lambda a: "" if a is None else f"{100*a:.2f}"
        print(f"| {100*x:g} | " + " | ".join(fmt(a) for a in v) + " | " + " | ".join(fmt(a) for a in g) + " |")
    for c in cfls[1:]:
        gx = [(x, t[(x, cfls[0])] - t[(x, c)]) for x in dxs if (x, c) in t and (x, cfls[0]) in t]
        orders = [math.log(g1 / g0) / math.log(x1 / x0) for (x0, g0), (x1, g1) in zip(gx, gx[1:])]
        if orders:
            print(f"- gap {cfls[0]:g}-{c:g}: order in dx " + ", ".join(f"{p:.2f}" for p in orders) +
                  " (between successive grids)")
