#!/usr/bin/env python3
"""ahead.py: the depth series of exp_rft runs read against five surfaces.

For each run folder given (its series.tsv and alpha.tsv, columns by name),
every drag of set "depth" is averaged over the last WINDOW plate lengths of
its travel: the contact force |F| (series fx_N_m, fz_N_m) and the depth of
the plate's centre below the surface before the drag (depth_m), over the
plate's span (surface_over_m), and ahead of it over half, one and two depths
(surface_ahead_half_m, surface_ahead_m, surface_ahead_two_m). For each
surface it prints alpha = |F| / (L |z|) per depth and the zero-force depth
of the least-squares line |F| = k |z| + c over the mean depth, |c / k| / zbar
(unweighted: what the claim's line gives without its errors).

usage: ahead.py [--window W] [--length L] RUN_DIR...   (W 1.2 and L 0.04 by default)
"""
import argparse
import math


def table(path):
    rows, head = [], None
    for line in open(path):
        if line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        if head is None:
            head = f
            continue
        rows.append(dict(zip(head, f)) if line.strip() else None)
    return rows


def runs(rows):
    """series rows split into drags at blank lines"""
    out, cur = [], []
    for r in rows:
        if r is None:
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(r)
    if cur:
        out.append(cur)
    return out


def line_fit(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    k = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
    return k, my - k * mx


SURFACES = [('before the drag', None), ('over the plate', 'surface_over_m'),
            ('ahead, 0.5 depth', 'surface_ahead_half_m'), ('ahead, 1 depth', 'surface_ahead_m'),
            ('ahead, 2 depths', 'surface_ahead_two_m')]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--window', type=float, default=1.2)
    ap.add_argument('--length', type=float, default=0.04)
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    for d in a.dirs:
        drags = [r for r in runs(table(d + '/series.tsv')) if r[0]['set'] == 'depth']
        surf0 = [float(r['surface_m']) for r in table(d + '/alpha.tsv') if r and r['set'] == 'depth']
        print(f'## {d} (window {a.window} L)\n')
        print('| depth below the surface | ' + ' | '.join(f"alpha at {float(r[0]['depth_m']) / a.length:.2g} L" for r in drags)
              + ' | zero-force depth / mean depth |')
        print('|---|' + '---:|' * (len(drags) + 1))
        for name, col in SURFACES:
            F, Z = [], []
            for r, s0 in zip(drags, surf0):
                end = float(r[-1]['travel_L'])
                w = [q for q in r if float(q['travel_L']) > end - a.window + 1e-9]
                F.append(sum(math.hypot(float(q['fx_N_m']), float(q['fz_N_m'])) for q in w) / len(w))
                Z.append(sum(float(q['depth_m']) + (float(q[col]) - s0 if col else 0) for q in w) / len(w))
            k, c = line_fit(Z, F)
            print(f'| {name} | ' + ' | '.join(f'{f / (a.length * z) * 1e-6:.4f}' for f, z in zip(F, Z))
                  + f' | {abs(c / k) / (sum(Z) / len(Z)):.3f} |')
        print()


if __name__ == '__main__':
    main()
