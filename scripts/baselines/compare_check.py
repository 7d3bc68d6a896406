"""compare_check.py: what the head-to-head concludes from its measurements:
the cross-check's metrics of a set of positions, throughput statistics, the
ratios bagnold/peer, each solver's cross-check verdict and the exit status."""
import math

import numpy as np

import scene as S
from compare_common import log


def metrics(x):
    """Centre of mass (equal masses), deposit height = the 99th percentile of
    the particle heights (nearest rank), lateral spread = RMS horizontal
    distance from the vertical axis through the centre of mass. m, grid frame
    (origin at node 0)."""
    x = x.astype(np.float64)
    com = x.mean(axis=0)
    z = np.sort(x[:, 2])
    h99 = z[max(0, int(math.ceil(0.99 * len(z))) - 1)]
    r2 = (x[:, 0] - com[0]) ** 2 + (x[:, 1] - com[1]) ** 2
    return {"com_x": com[0], "com_y": com[1], "com_z": com[2], "h99": h99, "spread": math.sqrt(r2.mean())}


CHECK_KEYS = ("com_x", "com_y", "com_z", "h99", "spread")

REF = "bagnold"

# Where a peer's physics differs from the scene's by more than the rounding the
# tolerance was set from (TOLERANCE in compare.py), its cross-check rows say so
# instead of PASS or FAIL: the tolerance is never widened for it. The deltas
# are still computed and written, like everyone's.
NOT_COMPARABLE = {
    "geotaichi": "a different model of the same sand (small-strain hypoelastic Drucker-Prager without the "
                 "volume correction, USL transfers with PIC velocities, a floor friction on nodal forces), so the "
                 "0.02 dx rounding tolerance does not apply",
    "warp_mpm": "no volume correction (log Jp) in its sand return map, so the 0.02 dx rounding tolerance does "
                "not apply",
}


def stats(v):
    v = sorted(v)
    return v[0], float(np.median(v)), v[-1]


class Judgement:
    """tol: the cross-check tolerance, m; summ: {solver: (min, median, max)
    particle-steps/s}; ratio: {peer: (bagnold/peer of the medians, paired
    min, median, max)}; ratio_1t: bagnold 1 thread / Warp, or None; verdict:
    {solver: (deltas, max particle difference, ok, not-comparable reason)};
    all_pass: every checkable solver checked and passed."""

    def __init__(self, tol, summ, ratio, ratio_1t, verdict, all_pass):
        self.tol, self.summ, self.ratio, self.ratio_1t = tol, summ, ratio, ratio_1t
        self.verdict, self.all_pass = verdict, all_pass


def throughput(a, walls):
    """({solver: (min, median, max) particle-steps/s}, the ratios of
    Judgement) from the timed blocks' walls."""
    summ = {}
    for s in a.solvers:
        if walls[s]:
            pss = [a.n * a.steps / t for t in walls[s]]
            summ[s] = stats(pss)
    ref = REF
    ratio = {}
    for s in a.solvers:
        if s == ref or s not in summ or ref not in summ:
            continue
        k = min(len(walls[ref]), len(walls[s]))
        paired = [walls[s][i] / walls[ref][i] for i in range(k)]  # bagnold's rate over the peer's
        ratio[s] = (summ[ref][1] / summ[s][1],) + stats(paired)
    ratio_1t = None
    if "bagnold-1t" in summ and "warp" in summ:
        ratio_1t = summ["bagnold-1t"][1] / summ["warp"][1]
    return summ, ratio, ratio_1t


def verdicts(a, chk, x0_same, tol):
    """{solver: (deltas from bagnold, max particle difference, ok,
    not-comparable reason or None)}; {} when bagnold has no cross-check."""
    ref = REF
    verdict = {}
    if ref in chk:
        r0 = chk[ref]
        for s, m in chk.items():
            d = {k: m[k] - r0[k] for k in CHECK_KEYS}
            dmax = float(np.abs(m["x"].astype(np.float64) - r0["x"].astype(np.float64)).max())
            ok = all(abs(v) <= tol for v in d.values()) and m["n_active"] == a.n and x0_same.get(s, False)
            nc = NOT_COMPARABLE.get(s) if s != ref else None
            if nc and not x0_same.get(s, False):
                nc = None  # a different initial lattice is a plain FAIL, whatever the physics
            verdict[s] = (d, dmax, ok, nc)
    return verdict


def judge(a, m, workers):
    """The Judgement of a run's measurements (compare_run.Measured)."""
    tol = a.tolerance * float(S.DX)
    summ, ratio, ratio_1t = throughput(a, m.walls)
    verdict = verdicts(a, m.chk, m.x0_same, tol)
    all_pass = bool(verdict) and all(v[2] for v in verdict.values() if not v[3]) and \
        all(s in verdict for s in a.solvers if not workers[s].error)
    return Judgement(tol, summ, ratio, ratio_1t, verdict, all_pass)


def vtext(j, s, md=False):
    """Solver s's cross-check verdict in words (md: FAIL in bold)."""
    cv = j.verdict.get(s)
    if cv is None:
        return "n/a"
    if cv[3]:
        return f"not comparable: {cv[3]}"
    return "PASS" if cv[2] else ("**FAIL**" if md else "FAIL")


def exit_status(j):
    """1 when there is no ratio to report or the cross-check failed, else 0."""
    if REF not in j.summ:
        log("bagnold did not run: no ratios")
        return 1
    if not j.all_pass:
        log("cross-check FAILED (or a solver could not be checked): see crosscheck.tsv")
        return 1
    return 0
