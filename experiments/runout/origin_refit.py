#!/usr/bin/env python3
"""origin_refit.py: runout.origin re-judged on a recorded exp_runout run.

Reads DIR/sweep.tsv and DIR/manifest.json (radius_m, phi_deg) and fits, as
exp_runout does (gsl_fit_linear), the straight line y = b + c a over the
aspects a <= sqrt(3) tan phi, for the definition y = (R - R0)/R0 and for the
planted bug y = R/R0 (mutant runout-over-r0). Python standard library only.

usage: origin_refit.py DIR [DIR...]
"""
import csv
import json
import math
import sys


def line(xs, ys):
    """least-squares y = b + c x; b, c and sigma_b from the scatter (as GSL)"""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    c = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    b = my - c * mx
    s2 = sum((y - b - c * x) ** 2 for x, y in zip(xs, ys)) / (n - 2) if n > 2 else float("nan")
    return b, c, math.sqrt(s2 * (1.0 / n + mx * mx / sxx))


def main(dirs):
    for d in dirs:
        man = json.load(open(f"{d}/manifest.json"))
        R0 = float(man["radius_m"])
        phi = float(man.get("phi_deg", 33.0))
        amax = math.sqrt(3.0) * math.tan(math.radians(phi))
        with open(f"{d}/sweep.tsv") as f:
            rows = list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))
        pts = [(float(r["aspect"]), float(r["runout_m"])) for r in rows if float(r["aspect"]) <= amax * (1 + 1e-9)]
        if len(pts) < 3:
            print(f"{d}: {len(pts)} aspects below {amax:.3f}: NaN")
            continue
        xs = [a for a, _ in pts]
        for name, y in (("(R-R0)/R0", lambda R: (R - R0) / R0), ("R/R0", lambda R: R / R0)):
            b, c, sb = line(xs, [y(R) for _, R in pts])
            print(f"{d}: a <= {amax:.3f} ({', '.join(f'{a:g}' for a in xs)}), y = {name}: "
                  f"b = {b:+.4f} +- {sb:.4f}, slope {c:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
