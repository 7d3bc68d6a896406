#!/usr/bin/env python3
"""report.py: run every probe and experiment of experiments/registry.tsv, draw
their figures (reports/*.gp, from the runs' TSV only) and assemble one report:
OUT/report.md, OUT/report.html (self-contained: figures embedded) and
OUT/claims.tsv (every claim of every run, with its compare rule). After this
report's own runs come the recorded runs (reports/results/SET/NAME/: judged
then, and re-judged against today's claims table) and the latest head-to-head
benchmark. `scripts/lab report` calls this with BAGNOLD_BUILD_DIR set; it can
also be run by hand. Python 3, standard library only. Its parts, beside it:
report_tables.py (what it reads), report_run.py (the runs and their figures),
report_doc.py (the page), report_recorded.py (recorded runs, head-to-head).

Exit code: 0 when every claim's verdict equals its expect column (a
documented miss is a fail the table expects), 1 otherwise, or when a run
crashed, made no claims, exited with a code its claims do not explain, or a
figure could not be drawn; 2 on bad usage or an unreadable registry; 130 when
interrupted.
"""
import datetime
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bglab  # noqa: E402  (scripts/bglab.py: the lab's verdicts and host, from its C)
import report_doc  # noqa: E402  (scripts/report_doc.py: the page, Markdown and HTML)
import report_recorded  # noqa: E402  (scripts/report_recorded.py: recorded runs, the head-to-head)
import report_run  # noqa: E402  (scripts/report_run.py: the runs, their pictures and figures)
from report_tables import (ROOT, build_dir, count, die, load_claims_table, load_mutants,  # noqa: E402
                           load_registry, log, read_manifest, refs_dir, rel, rule_of, sha256_of, table_check)


# --- arguments ------------------------------------------------------------------

def backend_names() -> list:
    """Every backend name of the one list, core/backends/bg_backend_list.h
    (compiled into the build or not: the run itself says when it lacks one)."""
    with open(os.path.join(ROOT, "core", "backends", "bg_backend_list.h")) as f:
        return re.findall(r'^\s*X\(\w+,\s*"([^"]+)",\s*[A-Z]+,\s*[01]\)', f.read(), re.M)


USAGE = """usage: scripts/report.py [--scale quick|paper] [--out DIR] [--only NAME ...] [--backend B] [--list]

Runs the probes and experiments of experiments/registry.tsv, draws their
figures and writes OUT/report.md, OUT/report.html and OUT/claims.tsv.

  --scale quick|paper  default: paper when the build's GPU backend finds a device here,
                       else quick
  --out DIR            default: $BAGNOLD_BUILD_DIR/report
  --only NAME          run only this entry (repeatable); one of: {names}
  --backend B          passed to every run (a name of core/backends/bg_backend_list.h,
                       or auto); default: the runs' own
  --list               print the registry (name|binary|figures, one per line) and exit
  -h, --help           this text

exit code: 0 every verdict equals its expect; 1 an unexpected verdict, a crashed run,
a run without claims or a figure not drawn; 2 bad usage or registry; 130 interrupted.

environment:
  BAGNOLD_BUILD_DIR    build directory holding bin/ (default: <repo>/build)
  BAGNOLD_REFERENCES   claims table directory, passed to every run as --references
                       (default: <repo>/references)
"""


def parse_args(argv, names):
    a = {"scale": "", "out": "", "backend": "", "only": [], "list": False, "help": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        key, eq, val = arg.partition("=")
        if key in ("--scale", "--out", "--only", "--backend"):
            if not eq:
                if i + 1 >= len(argv):
                    die(2, f"{arg} needs a value (see --help)")
                i += 1
                val = argv[i]
            name = key[2:]
            if name == "only":
                a["only"].append(val)
            else:
                a[name] = val
        elif arg == "--list":
            a["list"] = True
        elif arg in ("-h", "--help"):
            a["help"] = True
        else:
            die(2, f"unknown argument '{arg}' (see --help)")
        i += 1
    known = backend_names()
    if a["backend"] and a["backend"] not in known + ["auto"]:
        die(2, f"--backend: '{a['backend']}' is not one of {', '.join(known + ['auto'])}")
    if a["scale"] not in ("", "quick", "paper"):
        die(2, f"--scale: '{a['scale']}' is not one of quick, paper")
    for n in a["only"]:
        if n not in names:
            die(2, f"--only: unknown run '{n}' (valid: {' '.join(names)})")
    return a


# --- one report, phase by phase ---------------------------------------------------

class Report:
    """What one report knows, filled in by its phases in main's order."""

    def __init__(self, args, registry):
        self.args, self.registry = args, registry
        # setup: where, at what scale, judged by which table
        self.build = self.refs = self.out = self.figdir = self.backend = None
        self.here = self.scale = self.scale_why = None
        self.selected = []
        self.claims_path = self.table_sha = None
        self.table, self.table_problems, self.kills = {}, [], {}
        # the runs (report_run): per run name, and per "name:figure" for figures
        self.renderer = None
        self.state, self.note, self.rc_of, self.claims_of = {}, {}, {}, {}
        self.views, self.view_why, self.fig_ok, self.fig_why = {}, {}, {}, {}
        self.problems = 0
        self.ran = []  # names of the runs that finished or crashed
        # what the page says about them
        self.counts = (0, 0, 0, 0, 0, 0)  # report_tables.count over every claim
        self.summary, self.ok = "", False
        self.manifests, self.warnings = {}, []
        self.date_now = None


def print_help(registry_path):
    try:
        names = " ".join(e["name"] for e in load_registry(registry_path))
    except SystemExit:
        names = f"(the names of {rel(registry_path)}, which could not be read)"
    sys.stdout.write(USAGE.format(names=names))
    return 0


def print_list(registry):
    for e in registry:
        print(f"{e['name']}|{e['binary']}|{' '.join(e['figures'])}")
    return 0


def setup(args, registry):
    """The build, the scale, the selected entries, the claims table and the
    output folders; an error that stops the report before any run exits here."""
    r = Report(args, registry)
    r.build, r.refs = build_dir(), refs_dir()
    r.out = os.path.abspath(args["out"] or os.path.join(r.build, "report"))
    r.backend = args["backend"]
    try:
        r.here = bglab.host(r.build)
    except bglab.LabQueryError as e:
        die(2, str(e))
    if args["scale"]:
        r.scale, r.scale_why = args["scale"], "given with --scale"
    elif r.here["gpu"]:
        r.scale, r.scale_why = "paper", f"the library's GPU backend runs here ({r.here['gpu']})"
    else:
        r.scale, r.scale_why = "quick", f"no GPU backend here: {r.here['gpu_why']}"
    log(f"scale {r.scale}: {r.scale_why}")

    r.selected = [e for e in registry if not args["only"] or e["name"] in args["only"]]
    if not shutil.which("gnuplot"):
        die(1, "gnuplot not found (scripts/lab setup installs gnuplot-nox)")
    r.claims_path = os.path.join(r.refs, "claims.tsv")
    if not os.path.isfile(r.claims_path):
        die(1, f"no claims table at {r.claims_path}")
    r.table, r.table_problems = load_claims_table(r.claims_path)
    r.table_sha = sha256_of(r.claims_path)
    r.kills = load_mutants(os.path.join(r.refs, "mutants.tsv"))
    r.figdir = os.path.join(r.out, "figures")
    os.makedirs(os.path.join(r.out, "runs"), exist_ok=True)
    os.makedirs(r.figdir, exist_ok=True)
    return r


def write_claims_tsv(r):
    """OUT/claims.tsv: every claim of every run, with its compare rule; the
    claims it wrote, counted, in r.counts."""
    all_claims = []
    with open(os.path.join(r.out, "claims.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# every claim of every run in this report (scale {r.scale}), judged by {rel(r.claims_path)} "
                f"(sha256 {r.table_sha}); compare: abs |measured-expected| <= tolerance, rel |measured-expected| "
                f"<= tolerance*|expected|, max measured <= tolerance, min measured >= tolerance\n")
        f.write("run\tclaim\tcompare\tmeasured\texpected\ttolerance\tunit\tverdict\tsource\texpect\n")
        for name in r.ran:
            for c in r.claims_of.get(name, []):
                all_claims.append(c)
                f.write("\t".join([name, c["claim"], rule_of(c, r.table) or "?", c.get("measured", ""),
                                   c.get("expected", ""), c.get("tolerance", ""), c.get("unit", ""),
                                   c.get("verdict", ""), c.get("source", ""), c.get("expect", "")]) + "\n")
    r.counts = count(all_claims)


def summarise(r):
    """The report's one-line verdict, and whether it is clean."""
    N, P, F, K, UF, UP = r.counts
    U = UF + UP
    summary = f"{N} claims: {P} pass, {F} fail ({K} documented misses, {U} unexpected)"
    if UP:
        summary += f"; {UP} of the unexpected are passes of claims the table expects to fail (update references/claims.tsv)"
    n_crash = sum(r.state.get(e["name"]) == "crash" for e in r.selected)
    n_skip = sum(r.state.get(e["name"]) == "skipped" for e in r.selected)
    if n_crash:
        summary += f"; {n_crash} run(s) crashed"
    if n_skip:
        summary += f"; {n_skip} run(s) skipped (not built)"
    n_rc = sum("does not match its claims" in r.note[n] for n in r.ran)
    n_none = sum("made no claims" in r.note[n] for n in r.ran)
    n_fig = sum(not v for v in r.fig_ok.values())
    if n_rc:
        summary += f"; {n_rc} run(s) with an exit code their claims do not explain"
    if n_none:
        summary += f"; {n_none} run(s) made no claims"
    if n_fig:
        summary += f"; {n_fig} figure(s) could not be drawn"
    r.summary = summary
    r.ok = U == 0 and r.problems == 0 and N > 0


def read_manifests(r):
    """The runs' manifests, and the header's warnings: the claims table's
    unusable rows, manifests unread or judged by another table (one warning
    per message, naming every run it concerns), no renderer."""
    by_msg = {}
    for name in r.ran:
        m, err = read_manifest(os.path.join(r.out, "runs", name, "manifest.json"))
        if m:
            r.manifests[name] = m
        for w in (err, table_check(m, r.table_sha) if m else None):
            if w:
                by_msg.setdefault(w, []).append(name)
    r.warnings = list(r.table_problems) + [
        f"run{'s' if len(runs) > 1 else ''} {', '.join(runs)}: {w}" for w, runs in by_msg.items()]
    if r.renderer.why:
        r.warnings.append(f"no pictures of the sand: {r.renderer.why}")


def page_meta(r):
    """The header's (key, value) lines: from the runs' manifests where they
    wrote one, else from this host."""
    def uniq(key):
        vals = []
        for m in r.manifests.values():
            v = str(m.get(key, ""))
            if v and v not in vals:
                vals.append(v)
        return ", ".join(vals)

    commit = uniq("commit") or "unknown (no run wrote a manifest)"
    machine = (f"{uniq('host') or r.here['host']} — {uniq('cpu') or r.here['cpu']}, "
               f"{uniq('cores') or r.here['cores']} cores")
    gpu_text = r.here["gpu"] or f"none: {r.here['gpu_why']}"
    meta = [("date", r.date_now), ("commit", commit), ("machine", machine), ("GPU", gpu_text),
            ("scale", f"{r.scale} ({r.scale_why})")]
    if r.backend:
        meta.append(("backend requested", r.backend))
    meta.append(("claims table", f"{rel(r.claims_path)}, SHA-256 {r.table_sha}"))
    return meta


def write_markdown(r, doc):
    with open(os.path.join(r.out, "report.md"), "w", encoding="utf-8") as f:
        f.write("".join(doc.md))


def write_html(r, doc):
    with open(os.path.join(r.out, "report.html"), "w", encoding="utf-8") as f:
        f.write(report_doc.html_page(doc, r.date_now))


def exit_code(r):
    """0 clean; 1 when nothing ran, a verdict differs from its expect, or a
    run or figure had a problem (each said in the log)."""
    log(r.summary)
    log(f"report at {r.out}/report.html")
    log(f"          {r.out}/report.md")
    log(f"claims: {r.out}/claims.tsv")
    _, _, _, _, uf, up = r.counts
    if not r.ran:
        log(f"nothing ran: no entry of the registry has its binary built in {r.build}/bin")
        return 1
    if uf + up or r.problems:
        if uf + up:
            log(f"{uf + up} claim verdict(s) differ from the table's expect column")
        if r.problems:
            log(f"{r.problems} problem(s) with runs or figures (see above)")
        return 1
    return 0


def main(argv):
    registry_path = os.path.join(ROOT, "experiments", "registry.tsv")
    # help and the list need no build; help not even a readable registry
    if any(x in ("-h", "--help") for x in argv):
        return print_help(registry_path)
    registry = load_registry(registry_path)
    args = parse_args(argv, [e["name"] for e in registry])
    if args["list"]:
        return print_list(registry)

    r = setup(args, registry)
    report_run.run_entries(r)  # each run, then its pictures and figures
    report_run.check_exit_codes(r)
    write_claims_tsv(r)
    summarise(r)
    read_manifests(r)

    r.date_now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc = report_doc.Doc()
    report_doc.head(doc, page_meta(r), r.warnings, r.summary, r.ok)
    report_doc.runs_table(doc, r.selected, r.claims_of, r.state, r.note)
    report_doc.glossary(doc, r.refs)
    for e in r.selected:
        report_doc.run_section(doc, r, e)
    report_recorded.recorded_section(doc, r.registry, r.table, r.table_sha, r.figdir)
    report_recorded.compare_section(doc, r.build, r.figdir)
    write_markdown(r, doc)
    write_html(r, doc)
    return exit_code(r)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("report: interrupted", file=sys.stderr)
        sys.exit(130)
