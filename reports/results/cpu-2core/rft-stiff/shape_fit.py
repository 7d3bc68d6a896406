#!/usr/bin/env python3
"""shape_fit.py FILE...: exp_rft's shape fit (experiments/rft/rft_fit.c, rft_fit_shape) redone over
the whole shape set and over each direction of motion alone (gamma 0: dragged horizontally; gamma 90:
pushed down), each with its own zeta and its own resolution. FILE is a run's alpha.tsv or the logs
of sweep points (their 'alpha_z A, alpha_x B N/cm^3' lines, 4 digits). Li et al.'s coefficients come
from references/literature/li2013_rft.tsv."""
import math
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
coef = {}
for line in open(os.path.join(here, "../../../../references/literature/li2013_rft.tsv")):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 2 and not line.startswith("#"):
        try:
            coef[f[0]] = float(f[1])
        except ValueError:
            pass
c = [coef[k] for k in "A00 A10 B11 B01 Bm11 C11 C01 Cm11 D10".split()]


def generic(b, g):
    az = c[0] + c[1] * math.cos(2 * b) + c[2] * math.sin(2 * b + g) + c[3] * math.sin(g) + c[4] * math.sin(-2 * b + g)
    ax = c[5] * math.cos(2 * b + g) + c[6] * math.cos(g) + c[7] * math.cos(-2 * b + g) + c[8] * math.sin(2 * b)
    return az, ax


def fit(rows):
    G, M, Y = [], [], []
    for b, g, az, ax in rows:
        r = math.pi / 180
        G += generic(b * r, g * r)
        M += generic(-b * r, g * r)
        Y += [az, ax]
    zeta = sum(a * y for a, y in zip(G, Y)) / sum(a * a for a in G)
    e = sum((y - zeta * a) ** 2 for a, y in zip(G, Y))
    m = sum((zeta * a) ** 2 for a in G)
    d = sum((a - b) ** 2 for a, b in zip(G, M))
    return zeta, math.sqrt(e / m), 0.5 * math.sqrt(d / (m / zeta ** 2))


rows = []
for path in sys.argv[1:]:
    for line in open(path):
        m = re.search(r"shape beta (\S+) gamma (\S+) depth \S+: alpha_z (\S+), alpha_x (\S+) N", line)
        if m:
            rows.append(tuple(float(m.group(i)) for i in range(1, 5)))
            continue
        f = line.split("\t")
        if f[0] == "shape":  # alpha.tsv: beta, gamma read back; alpha_z, alpha_x in N/cm^3
            rows.append((float(f[1]), float(f[2]), float(f[11]), float(f[12])))
print("set\tdrags\tzeta_N_cm3\tmisfit\tresolution\tmeasured")
for name, sub in (("all", rows), ("gamma 0", [r for r in rows if abs(r[1]) < 1]),
                  ("gamma 90", [r for r in rows if abs(r[1] - 90) < 1])):
    if sub:
        z, mis, res = fit(sub)
        print("%s\t%d\t%.3f\t%.3f\t%.3f\t%+.3f" % (name, len(sub), z, mis, res, mis - res))
