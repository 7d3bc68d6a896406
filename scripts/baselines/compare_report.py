"""compare_report.py: the head-to-head in words for the report: compare.md
(printed as well) and the same as an HTML fragment, compare.html."""
import os
import sys

import compare_record as record
from compare_check import REF, vtext
from compare_common import ROOT
from compare_solvers import PUBLIC


def intro(a, rec):
    """The run in one paragraph, and a warning when the machine was busy."""
    sc, la = a.sc, rec.la
    omp = record.omp_settings()
    md = [f"Head-to-head on the same scene ({a.scene}"
          + (f": a column on the floor, shuffled, timed from t = {sc.window_start:.3f} s" if a.scene == "collapse"
             else "") + f") in one run: {a.n} particles (ppc {a.ppc}, block {sc.side}³ cells, "
          f"grid {sc.grid_text()} nodes), device {a.device}, {rec.date}, commit `{rec.commit}`, {rec.host} "
          f"({rec.cpu}, {a.nproc} CPUs{', GPU ' + rec.gname if rec.gname else ''}); {rec.ver_text}. "
          f"{a.reps} interleaved repetitions of {a.warmup} warm-up + {a.steps} timed steps; load average at "
          f"start {la[0]:.2f}." + (f" Environment: `{omp}`." if omp else "")]
    if la[0] == la[0] and la[0] > 0.5 * a.nproc:
        md.append("")
        md.append(f"**Shared machine**: load average {la[0]:.1f} on {a.nproc} CPUs when the run started, so other "
                  "processes competed for the cores throughout; multi-threaded solvers lose most (a thread that "
                  "is descheduled stalls every barrier), and the 1-thread lines are the steadier comparison.")
    md.append("")
    return md


def throughput_table(a, label_of, workers, m, j):
    """One row per solver: rates, ratio to bagnold, start-up, first step and
    the cross-check's verdict; then bagnold 1 thread against Warp."""
    md = ["| solver | M particle-steps/s min / median / max | bagnold ÷ solver (medians; paired min..max) "
          "| start-up s | first step s (incl. JIT) | cross-check |",
          "|---|---:|---:|---:|---:|---|"]
    for s in a.solvers:
        w = workers[s]
        if s not in j.summ:
            md.append(f"| {label_of[s]} | unavailable: {w.error or 'failed'} | | | | |")
            continue
        mn, md_, mx = j.summ[s]
        rr = j.ratio.get(s)
        rtext = "—" if s == REF else (f"{rr[0]:.2f}× ({rr[1]:.2f}..{rr[3]:.2f})" if rr else "n/a")
        ctext = vtext(j, s, md=True)
        if ctext.startswith("not comparable"):
            ctext = "not comparable (below)"
        md.append(f"| {label_of[s]} | {mn / 1e6:.3f} / {md_ / 1e6:.3f} / {mx / 1e6:.3f} | {rtext} | "
                  f"{w.startup_s:.2f} | {m.compile_s.get(s, float('nan')):.3f} | {ctext} |")
    if j.ratio_1t is not None:
        md.append("")
        md.append(f"Single thread against single thread (Warp's CPU device runs a launch serially): bagnold 1 "
                  f"thread ÷ Warp = {j.ratio_1t:.2f}× (medians).")
    return md


def bagnold_vs_peers(a, label_of, j):
    """Every bagnold line against every peer, when there are several."""
    md = []
    bl = [s for s in a.solvers if s.startswith("bagnold") and s in j.summ]
    peers = [s for s in a.solvers if not s.startswith("bagnold") and s in j.summ]
    if len(bl) > 1 and peers:
        md.append("")
        md.append("Every bagnold line against every peer (ratio of the medians):")
        md.append("")
        md.append("| | " + " | ".join(label_of[p] for p in peers) + " |")
        md.append("|---|" + "---:|" * len(peers))
        for b in bl:
            md.append(f"| {label_of[b]} | " + " | ".join(f"{j.summ[b][1] / j.summ[p][1]:.2f}×" for p in peers) + " |")
    md.append("")
    return md


def crosscheck_table(a, label_of, m, j):
    """The cross-check's quantities and deltas from bagnold, per solver."""
    md = []
    if m.chk:
        md.append(f"Cross-check after t = {a.check_time} s simulated (reference bagnold; tolerance "
                  f"{a.tolerance:g} dx = {j.tol * 1e3:.2f} mm on each of com x, y, z, h99 and spread; the "
                  f"initial lattices must be identical to the bit): ")
        md.append("")
        md.append("| solver | steps | com z mm | h99 mm | spread mm | Δcom (x, y, z) mm | Δh99 mm | Δspread mm | "
                  "max particle Δ mm | verdict |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for s in a.solvers:
            if s not in m.chk or s not in j.verdict:
                continue
            c = m.chk[s]
            d, dmax, ok, _ = j.verdict[s]
            md.append(f"| {label_of[s]} | {c['steps']} | {c['com_z'] * 1e3:.3f} | {c['h99'] * 1e3:.3f} | "
                      f"{c['spread'] * 1e3:.3f} | {d['com_x'] * 1e3:+.4f}, {d['com_y'] * 1e3:+.4f}, "
                      f"{d['com_z'] * 1e3:+.4f} | {d['h99'] * 1e3:+.4f} | {d['spread'] * 1e3:+.4f} | "
                      f"{dmax * 1e3:.3f} | {vtext(j, s, md=True)} |")
        md.append("")
    return md


def public_code(a, rec, label_of, workers):
    """What the public code's adapters state: physics differences and run-time
    fixes."""
    md = []
    pub = [s for s in a.solvers if s in PUBLIC]
    if pub:
        md.append("Our Taichi and Warp implementations (mpm_taichi.py, mpm_warp.py) do bagnold's step with the "
                  "scene's physics. The public code runs unmodified through an adapter (peer_*.py); where its "
                  "physics differs from the scene, it is listed here, with any run-time fix the adapter applies:")
        md.append("")
        for s in pub:
            diffs, fixes = workers[s].info_list("physics_differences"), workers[s].info_list("runtime_fixes")
            if workers[s].error and not diffs:
                md.append(f"- {label_of[s]}: unavailable: {workers[s].error}")
                continue
            md.append(f"- {label_of[s]}, version {rec.versions.get(s, '?')}: physics differences: " +
                      ("; ".join(diffs) if diffs else "none stated") + ". Run-time fixes: " +
                      ("; ".join(fixes) if fixes else "none") + ".")
        md.append("")
    return md


def markdown(a, rec, label_of, workers, m, j, chart_ok):
    """compare.md's lines."""
    return (intro(a, rec) + throughput_table(a, label_of, workers, m, j) + bagnold_vs_peers(a, label_of, j) +
            crosscheck_table(a, label_of, m, j) + public_code(a, rec, label_of, workers) +
            [f"Reproduce: `{rec.cmdline}`. Files: `summary.tsv`, `compare.tsv` (every repetition), "
             f"`crosscheck.tsv`, `compare.png`{'' if chart_ok else ' (not drawn)'}, `logs/`."])


def md_to_html(lines):
    """The markdown written above (paragraphs and pipe tables with `code` and
    **bold**) as an HTML fragment for scripts/report.py's page, through the
    lab's one Markdown renderer (scripts/mdrender.py)."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import mdrender

    return mdrender.to_html(lines)


def save(out, md):
    """compare.md and compare.html in out."""
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "compare.html"), "w") as f:
        f.write(md_to_html(md))
