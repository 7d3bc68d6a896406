"""report_run.py: the report's runs. Each selected registry entry is run as
its executable (stderr kept in OUT/runs/NAME/log.txt); a finished run gets
its pictures of the sand and its figures (reports/FIG.gp through gnuplot, from
its TSV only) before the next starts; then each exit code is held against
the run's claims."""
import os
import shutil
import subprocess
import sys

import report_view  # scripts/report_view.py: the pictures of the sand
from report_tables import ROOT, log, read_run_claims

MAX_JOBS = 6  # simulations side by side; the files are the same whatever the count


def run_entry(exe, args, logpath):
    """Run one executable: its stdout to ours, its stderr to ours and to logpath."""
    sys.stdout.flush()
    with open(logpath, "wb") as logf:
        p = subprocess.Popen([exe] + args, stderr=subprocess.PIPE)
        try:
            while True:
                chunk = os.read(p.stderr.fileno(), 65536)
                if not chunk:
                    break
                logf.write(chunk)
                sys.stderr.buffer.write(chunk)
                sys.stderr.buffer.flush()
        finally:
            p.stderr.close()
            rc = p.wait()
    return rc


def gq(s):
    """A value for a gnuplot string literal: a ' inside single quotes is written ''."""
    return s.replace("'", "''")


# A figure script exits with this status when its data predates it (a recorded
# run written before the columns it draws existed): nothing to draw, not a failure.
FIG_PREDATES = 3


def draw(gp, indir, outprefix, logpath):
    """Draw one figure; True when OUTPREFIX.png is written and non-empty, FIG_PREDATES
    when the script says its data predates it, else False."""
    for ext in (".png", ".svg"):
        if os.path.exists(outprefix + ext):
            os.remove(outprefix + ext)
    with open(logpath, "ab") as logf:
        r = subprocess.run(["gnuplot", "-e", f"in='{gq(indir)}'; out='{gq(outprefix)}'", gp],
                           stdout=logf, stderr=logf)
    png = outprefix + ".png"
    if r.returncode == FIG_PREDATES:
        return FIG_PREDATES
    return r.returncode == 0 and os.path.isfile(png) and os.path.getsize(png) > 0


def run_entries(r):
    """Run r.selected in order, filling r's state, note, rc_of, claims_of,
    views, view_why, fig_ok, fig_why, problems and ran."""
    r.renderer = report_view.Renderer(ROOT, r.build)
    for i, e in enumerate(r.selected, 1):
        if run_one(r, i, e) != "finished":
            continue
        if e["view"]:
            render_views(r, e)
        draw_figures(r, e)
    r.ran = [e["name"] for e in r.selected if r.state.get(e["name"]) in ("finished", "crash")]


def run_one(r, i, e):
    """Run entry e (the i-th of r.selected); its state: skipped, crash or finished."""
    name, binary = e["name"], e["binary"]
    exe = os.path.join(r.build, "bin", binary)
    tag = f"[{i}/{len(r.selected)}] {name}"
    if not os.access(exe, os.X_OK):
        log(f"{tag}: skipped, {exe} does not exist (not built)")
        r.state[name], r.note[name] = "skipped", f"{binary} is not built in {r.build}/bin"
        return "skipped"
    rundir = os.path.join(r.out, "runs", name)
    shutil.rmtree(rundir, ignore_errors=True)  # a stale claims.tsv is never taken for this run's
    os.makedirs(rundir)
    args = ["--scale", r.scale, "--out", rundir, "--references", r.refs]
    if r.backend:
        args += ["--backend", r.backend]
    if e["jobs"] == "yes":
        args += ["--jobs", str(max(1, min(os.cpu_count() or 1, MAX_JOBS)))]
    args += e["args"] + report_view.run_args(e["view"])
    log(f"{tag}: {binary} {' '.join(args)}")
    # the run owns its folder (a lab run refuses a folder holding other
    # files), so its log lands beside it and moves in once it has ended
    logtmp = os.path.join(r.out, "runs", name + ".log.txt")
    rc = run_entry(exe, args, logtmp)
    shutil.move(logtmp, os.path.join(rundir, "log.txt"))
    r.rc_of[name] = rc
    claims, _ = read_run_claims(os.path.join(rundir, "claims.tsv"))
    r.claims_of[name] = claims
    # 0 and 1 are results (1: an unexpected verdict, or with the old
    # convention a failed claim); anything else is a crash
    if rc not in (0, 1):
        r.state[name], r.note[name] = "crash", f"crashed with exit code {rc}" if rc > 0 else f"killed by signal {-rc}"
    elif not os.path.isfile(os.path.join(rundir, "claims.tsv")) or not os.path.getsize(os.path.join(rundir, "claims.tsv")):
        r.state[name], r.note[name] = "crash", f"exit code {rc} but no claims.tsv written"
    else:
        r.state[name], r.note[name] = "finished", f"exit code {rc}"
    if r.state[name] == "crash":
        log(f"{name}: {r.note[name]} (log: {rundir}/log.txt); its figures are not drawn")
        r.problems += 1
    return r.state[name]


def render_views(r, e):
    """The pictures of the sand of finished run e (its registry view column)."""
    name = e["name"]
    rundir = os.path.join(r.out, "runs", name)
    r.views[name], r.view_why[name] = r.renderer.render(e["view"], rundir, name, r.figdir)
    log(f"{name}: pictures " + (", ".join(k + ".png" for k, _, _ in r.views[name]) or
                               f"not rendered: {r.view_why[name]}"))
    # no renderer on this machine (pyvista not installable) is a warning; a failed render a problem
    r.problems += not r.views[name] and r.renderer.python is not None


def draw_figures(r, e):
    """The registry's figures of finished run e, from its TSV, into r.figdir."""
    name = e["name"]
    rundir = os.path.join(r.out, "runs", name)
    for fig in e["figures"]:
        gp = os.path.join(ROOT, "reports", fig + ".gp")
        key = f"{name}:{fig}"
        if not os.path.isfile(gp):
            r.fig_ok[key], r.fig_why[key] = False, f"there is no script reports/{fig}.gp"
            log(f"{name}: figure {fig}: no script {gp}")
        elif draw(gp, rundir, os.path.join(r.figdir, fig), os.path.join(rundir, "figures.log")) is True:
            r.fig_ok[key] = True
            log(f"{name}: figure {fig}.png")
        else:
            r.fig_ok[key], r.fig_why[key] = False, f"gnuplot failed: see runs/{name}/figures.log"
            log(f"{name}: figure {fig} failed (gnuplot output in {rundir}/figures.log)")
        r.problems += not r.fig_ok[key]


def check_exit_codes(r):
    """A finished run's exit code must agree with its claims: new contract
    (1 exactly when some verdict differs from its expect) or old (1 exactly
    when some claim failed); either is accepted while the executables move.
    A disagreement, or a run without claims, is noted and is a problem."""
    for name in r.ran:
        if r.state[name] != "finished":
            continue
        cl = r.claims_of[name]
        rc = r.rc_of[name]
        unexpected = any(c.get("verdict") != c.get("expect") for c in cl)
        failed = any(c.get("verdict") == "fail" for c in cl)
        if not cl:
            r.note[name] += "; it made no claims"
            r.problems += 1
        elif (rc == 1) == unexpected:
            r.note[name] += ": an unexpected verdict" if rc else ""
        elif (rc == 1) == failed:
            r.note[name] += ": a claim failed (the old exit-code convention)" if rc else ""
        else:
            n_unexpected = sum(c.get("verdict") != c.get("expect") for c in cl)
            n_failed = sum(c.get("verdict") == "fail" for c in cl)
            r.note[name] += f"; the exit code does not match its claims ({n_unexpected} unexpected, {n_failed} failed)"
            r.problems += 1
