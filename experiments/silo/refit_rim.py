#!/usr/bin/env python3
"""refit_rim.py: re-judge recorded silo runs with the rim modelled.

Reads the rates.tsv (aperture sweep) and refine.tsv (dx refinement) of one
or more recorded exp_silo run folders and fits, jointly over the chosen
points,

    W / (rho_b sqrt(g)) = C (D - k dx)^n          (rim a fixed number of cells)
    W / (rho_b sqrt(g)) = C (D - k_len)^n         (rim a fixed length, m)

by Levenberg-Marquardt on relative residuals (the same weighting as
exp_silo's GSL fits), with 1-sigma errors from the covariance scaled by
chi^2/dof. Each point keeps its own dx, so the refinement runs tell the two
rim models apart: a rim of fixed cells shrinks in mm as dx halves, one of a
fixed length (a grain size) does not. Then the same fits with n fixed at
the law's value (5/2 round, 3/2 slot). Python standard library only.

Usage:
  experiments/silo/refit_rim.py [--min-cells 14] [--n-law 2.5] DIR [DIR ...]
Points: every discharging aperture of rates.tsv with D_geo / dx >= min-cells,
and every refinement run of refine.tsv (all grids, whatever their cells).
"""
import argparse
import json
import math
import os
import sys

G = 9.81


def read_tsv(path):
    rows, head = [], None
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            cells = line.rstrip('\n').split('\t')
            if head is None:
                head = cells
                continue
            rows.append(dict(zip(head, cells)))
    return rows




def points(folder, min_cells):
    pts = []
    rates = os.path.join(folder, 'rates.tsv')
    with open(os.path.join(folder, 'manifest.json')) as f:
        dx_run = float(json.load(f)['dx_m'])
    if os.path.exists(rates):
        for r in read_tsv(rates):
            W, rb, D, cells = float(r['W']), float(r['rho_b_kg_m3']), float(r['D_geo_m']), float(r['D_over_dx'])
            if not (W > 0) or int(r.get('jammed', '0')) or cells < min_cells:
                continue
            pts.append((os.path.basename(folder.rstrip('/')) + ':D%.4g' % cells, D, dx_run, W / (rb * math.sqrt(G))))
    ref = os.path.join(folder, 'refine.tsv')
    if os.path.exists(ref):
        for r in read_tsv(ref):
            W, rb, D, dx = float(r['W']), float(r['rho_b_kg_m3']), float(r['D_geo_m']), float(r['dx_m'])
            if W > 0:
                pts.append((os.path.basename(folder.rstrip('/')) + ':R dx %g' % dx, D, dx, W / (rb * math.sqrt(G))))
    return pts


def solve(A, b):
    n = len(b)
    M = [A[i][:] + [b[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        if abs(M[p][c]) < 1e-300:
            raise ZeroDivisionError
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                for k in range(c, n + 1):
                    M[r][k] -= f * M[c][k]
    return [M[i][n] / M[i][i] for i in range(n)]


def inverse(A):
    n = len(A)
    cols = [solve(A, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def fit(pts, cells, n_fix=None):
    """C, k, n (n free unless n_fix); k in cells of each point's dx when
    cells, else a length in m. Returns dict with values, sigmas, rms."""
    free_n = n_fix is None

    def unpack(p):
        return p[0], p[1], (p[2] if free_n else n_fix)

    def resid_jac(p):
        C, k, e = unpack(p)
        r, J = [], []
        for _, D, dx, y in pts:
            L = k * dx if cells else k
            dL = dx if cells else 1.0
            a = D - L
            if a <= 0:
                return None, None
            pe = a ** e
            r.append((C * pe - y) / y)
            row = [pe / y, -C * e * a ** (e - 1) * dL / y]
            if free_n:
                row.append(C * pe * math.log(a) / y)
            J.append(row)
        return r, J

    # start: k 0 and the largest point's C
    D0, y0 = max((q[1], q[3]) for q in pts)
    e0 = n_fix if n_fix else 2.5
    p = [y0 / D0 ** e0, 0.0] + ([e0] if free_n else [])
    lam = 1e-3
    r, J = resid_jac(p)
    chi2 = sum(x * x for x in r)
    for _ in range(500):
        np_ = len(p)
        JTJ = [[sum(J[i][a] * J[i][b] for i in range(len(r))) for b in range(np_)] for a in range(np_)]
        JTr = [sum(J[i][a] * r[i] for i in range(len(r))) for a in range(np_)]
        A = [[JTJ[a][b] * (1 + lam if a == b else 1) for b in range(np_)] for a in range(np_)]
        try:
            step = solve(A, [-g for g in JTr])
        except ZeroDivisionError:
            break
        q = [p[i] + step[i] for i in range(np_)]
        rq, Jq = resid_jac(q)
        if rq is not None and sum(x * x for x in rq) < chi2:
            done = chi2 - sum(x * x for x in rq) < 1e-15 * max(chi2, 1e-30)
            p, r, J, chi2 = q, rq, Jq, sum(x * x for x in rq)
            lam = max(lam / 10, 1e-12)
            if done:
                break
        else:
            lam *= 10
            if lam > 1e12:
                break
    np_ = len(p)
    dof = len(pts) - np_
    JTJ = [[sum(J[i][a] * J[i][b] for i in range(len(r))) for b in range(np_)] for a in range(np_)]
    cov = inverse(JTJ)
    s = chi2 / dof if dof > 0 else float('nan')
    sig = [math.sqrt(s * cov[i][i]) for i in range(np_)]
    C, k, e = unpack(p)
    return {'C': C, 'sC': sig[0], 'k': k, 'sk': sig[1], 'n': e, 'sn': sig[2] if free_n else 0.0,
            'rms': math.sqrt(chi2 / len(pts)), 'dof': dof, 'resid': r}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--min-cells', type=float, default=14.0,
                    help='sweep apertures enter when D_geo / dx >= this (refinement runs always do)')
    ap.add_argument('--n-law', type=float, default=2.5, help="the law's exponent: 2.5 round, 1.5 slot")
    ap.add_argument('folders', nargs='+')
    a = ap.parse_args()
    pts = []
    for f in a.folders:
        pts += points(f, a.min_cells)
    if len(pts) < 4:
        sys.exit('refit_rim: %d points, the joint fit needs at least 4' % len(pts))
    dxs = sorted({q[2] for q in pts})
    print('# points: %d (sweep apertures of >= %g cells, every refinement grid); dx in the set: %s mm'
          % (len(pts), a.min_cells, ', '.join('%g' % (d * 1e3) for d in dxs)))
    dx_ref = max(set(q[2] for q in pts), key=lambda d: sum(1 for q in pts if q[2] == d))
    print('# model\tC\tsigma_C\tk_cells\tsigma_k_cells\tk_mm\tsigma_k_mm\tn\tsigma_n\trms_rel\tdof')
    for name, cells, nf in (('rim_cells_n_free', True, None), ('rim_cells_n_law', True, a.n_law),
                            ('rim_length_n_free', False, None), ('rim_length_n_law', False, a.n_law)):
        f = fit(pts, cells, nf)
        if cells:
            kc, skc, km, skm = f['k'], f['sk'], f['k'] * dx_ref * 1e3, f['sk'] * dx_ref * 1e3
        else:
            km, skm, kc, skc = f['k'] * 1e3, f['sk'] * 1e3, f['k'] / dx_ref, f['sk'] / dx_ref
        print('%s\t%.4f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t%.4f\t%.4f\t%d'
              % (name, f['C'], f['sC'], kc, skc, km, skm, f['n'], f['sn'], f['rms'], f['dof']))
    print('# k_mm of a rim in cells and k_cells of a rim of fixed length are given at dx %g mm (most points)' % (dx_ref * 1e3))
    # the refinement runs alone through the cell-rim law with n at the law: C per grid
    f = fit(pts, True, a.n_law)
    print('# per point, rim in cells, n = %g: point\tD_cells\tC_local = y / (D - k dx)^n' % a.n_law)
    for lab, D, dx, y in pts:
        print('#   %s\t%.2f\t%.4f' % (lab, D / dx, y / (D - f['k'] * dx) ** a.n_law))


if __name__ == '__main__':
    main()
