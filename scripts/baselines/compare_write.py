"""compare_write.py: the head-to-head's data files in its output folder:
compare.tsv (every repetition), summary.tsv (per solver), crosscheck.tsv, and
the bar chart (chart.dat drawn by compare.gp into compare.png)."""
import os
import shutil
import subprocess

import compare_record as record
from compare_check import CHECK_KEYS, vtext
from compare_common import HERE, log
from compare_solvers import PUBLIC


def tables(a, rec, label_of, workers, m, j):
    """compare.tsv, summary.tsv and crosscheck.tsv, each under the run's
    header lines."""
    meta = record.meta(a, rec, j.tol)

    def header(f):
        for k, v in meta:
            f.write(f"# {k}: {v}\n")

    with open(os.path.join(a.out, "compare.tsv"), "w") as f:
        header(f)
        f.write("solver\tlabel\trep\twall_s (s)\tparticle_steps_per_s (1/s)\tdt_last (s)\tn_active\n")
        for s, rep, wall, pss, dt, na in m.rows:
            f.write(f"{s}\t{label_of[s]}\t{rep}\t{wall:.6f}\t{pss:.6g}\t{dt:.6g}\t{na}\n")

    with open(os.path.join(a.out, "summary.tsv"), "w") as f:
        header(f)
        f.write("solver\tlabel\tversion\tstatus\tstartup_s (s)\tcompile_first_step_s (s)\tpss_min (1/s)\t"
                "pss_median (1/s)\tpss_max (1/s)\tbagnold_over_solver_medians\tpaired_min\tpaired_median\t"
                "paired_max\tcrosscheck\tphysics_differences\truntime_fixes\n")
        for s in a.solvers:
            w = workers[s]
            st = "ok" if s in j.summ else f"unavailable: {w.error}" if w.error else "failed"
            mn, md, mx = j.summ.get(s, (float("nan"),) * 3)
            rr = j.ratio.get(s, (float("nan"),) * 4)
            f.write(f"{s}\t{label_of[s]}\t{rec.versions.get(s, '')}\t{st}\t"
                    f"{getattr(w, 'startup_s', float('nan')):.3f}\t"
                    f"{m.compile_s.get(s, float('nan')):.3f}\t{mn:.6g}\t{md:.6g}\t{mx:.6g}\t{rr[0]:.4g}\t{rr[1]:.4g}\t"
                    f"{rr[2]:.4g}\t{rr[3]:.4g}\t{vtext(j, s)}\t"
                    f"{'; '.join(w.info_list('physics_differences')) or ('none' if s not in PUBLIC else 'n/a')}\t"
                    f"{'; '.join(w.info_list('runtime_fixes')) or 'none'}\n")

    with open(os.path.join(a.out, "crosscheck.tsv"), "w") as f:
        header(f)
        f.write("solver\tsim_time (s)\tsteps\tcom_x (m)\tcom_y (m)\tcom_z (m)\th99 (m)\tspread (m)\t"
                "d_com_x (m)\td_com_y (m)\td_com_z (m)\td_h99 (m)\td_spread (m)\tmax_particle_diff (m)\t"
                "tolerance (m)\tinitial_lattice_identical\tn_active\tverdict\n")
        for s in a.solvers:
            if s not in m.chk:
                f.write(f"{s}\t" + "\t".join(["nan"] * 14) + "\tn/a\t-1\tn/a\n")
                continue
            c = m.chk[s]
            d, dmax, ok, _ = j.verdict.get(s, ({k: float("nan") for k in CHECK_KEYS}, float("nan"), False, None))
            f.write(f"{s}\t{c['time']:.9g}\t{c['steps']}\t" + "\t".join(f"{c[k]:.7f}" for k in CHECK_KEYS) + "\t" +
                    "\t".join(f"{d[k]:.3e}" for k in CHECK_KEYS) + f"\t{dmax:.3e}\t{j.tol:.3e}\t"
                    f"{'yes' if m.x0_same.get(s) else 'no'}\t{c['n_active']}\t{vtext(j, s)}\n")


def chart(a, rec, label_of, j):
    """chart.dat and, where gnuplot is installed and draws it, compare.png;
    whether the PNG was drawn."""
    dat = os.path.join(a.out, "chart.dat")
    with open(dat, "w") as f:
        f.write(f"# head-to-head throughput in M particle-steps/s, commit {rec.commit}\n")
        f.write("index\tlabel\tmedian\tmin\tmax\tratio_text\tcolour\n")
        for i, s in enumerate(a.solvers):
            if s not in j.summ:
                continue
            mn, md, mx = j.summ[s]
            # never an empty field: gnuplot reads "" as missing and shifts the columns
            rt = f"bagnold/this {j.ratio[s][0]:.2f}x" if s in j.ratio and s != "bagnold" else "reference"
            colour = 0xC0504D if s.startswith("bagnold") else 0x4A78B0
            # the axis takes the label up to its details in parentheses (the table has them all)
            short = label_of[s].split(" (")[0] if not s.startswith("bagnold") else label_of[s]
            f.write(f'{i}\t"{short}"\t{md / 1e6:.6g}\t{mn / 1e6:.6g}\t{mx / 1e6:.6g}\t"{rt}"\t{colour}\n')
    gp = os.path.join(HERE, "compare.gp")
    omp = record.omp_settings()
    title = (f"{a.n} particles, {a.device} ({rec.cpu if not a.gpu else rec.gname}), commit {rec.commit}"
             f"{', ' + omp if omp else ''}").replace("'", "''")
    png = os.path.join(a.out, "compare.png")
    chart_ok = False
    if shutil.which("gnuplot"):
        r = subprocess.run(["gnuplot", "-e", f"in='{dat}'; out='{png}'; ttl='{title}'", gp],
                           capture_output=True, text=True)
        chart_ok = r.returncode == 0 and os.path.isfile(png)
        if not chart_ok:
            log(f"gnuplot failed: {r.stderr.strip()[-500:]}")
    else:
        log("gnuplot not found: no chart (scripts/lab setup installs gnuplot-nox)")
    return chart_ok
