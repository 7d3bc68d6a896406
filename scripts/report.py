#!/usr/bin/env python3
"""report.py: run every probe and experiment of experiments/registry.tsv, draw
their figures (reports/*.gp, from the runs' TSV only) and assemble one report:
OUT/report.md, OUT/report.html (self-contained: figures embedded) and
OUT/claims.tsv (every claim of every run, with its compare rule). After this
report's own runs come the recorded runs (reports/results/SET/NAME/: judged
then, and re-judged against today's claims table) and the latest head-to-head
benchmark. `scripts/lab report` calls this with BAGNOLD_BUILD_DIR set; it can
also be run by hand. Python 3, standard library only.

Exit code: 0 when every claim's verdict equals its expect column (a
documented miss is a fail the table expects), 1 otherwise, or when a run
crashed, made no claims, exited with a code its claims do not explain, or a
figure could not be drawn; 2 on bad usage or an unreadable registry; 130 when
interrupted.
"""
import base64
import datetime
import hashlib
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bglab  # noqa: E402  (scripts/bglab.py: the lab's verdicts and host, from its C)
import mdrender  # noqa: E402  (scripts/mdrender.py, beside this file)
import report_view  # noqa: E402  (scripts/report_view.py: the pictures of the sand)

MAX_JOBS = 6  # simulations side by side; the files are the same whatever the count


def log(msg):
    print(f"report: {msg}", file=sys.stderr, flush=True)


def die(code, msg):
    print(f"report: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def h(s):
    return html.escape(str(s), quote=True)


def rel(path):
    """A path for the reader: relative to the repository when inside it."""
    try:
        r = os.path.relpath(path, ROOT)
    except ValueError:
        return path
    return path if r.startswith("..") else r


# --- tables: registry, claims, mutants ------------------------------------------

def read_tsv(path, first_column):
    """(header, [(line_no, fields)]) of a lab TSV: '#' comment lines, a header
    whose first field is first_column (written '# claim' or 'claim'), rows."""
    header, rows = None, []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                continue
            probe = line.lstrip("#").lstrip() if line.startswith("#") else line
            fields = probe.split("\t")
            if header is None and fields[0] == first_column:
                header = fields
                continue
            if line.startswith("#"):
                continue
            rows.append((no, line.split("\t")))
    return header, rows


REGISTRY_COLUMNS = ["name", "binary", "sources", "timeout", "jobs", "figures", "paper_args", "args", "gate", "view"]


def load_registry(path):
    if not os.path.isfile(path):
        die(2, f"no experiment registry at {path}")
    header, rows = read_tsv(path, "name")
    if header != REGISTRY_COLUMNS:
        die(2, f"{path}: the header must be '" + "\t".join(REGISTRY_COLUMNS) + f"', got {header}")
    entries, seen = [], set()
    for no, f in rows:
        where = f"{path}:{no}"
        if len(f) != len(REGISTRY_COLUMNS) or any(not x.strip() for x in f):
            die(2, f"{where}: {len(REGISTRY_COLUMNS)} non-empty tab-separated fields expected ('-' for none)")
        e = dict(zip(REGISTRY_COLUMNS, (x.strip() for x in f)))
        if e["name"] in seen:
            die(2, f"{where}: duplicate name '{e['name']}'")
        if e["jobs"] not in ("yes", "no"):
            die(2, f"{where}: jobs must be yes or no, got '{e['jobs']}'")
        if e["gate"] not in ("ci", "long"):
            die(2, f"{where}: gate must be ci or long, got '{e['gate']}'")
        if not e["timeout"].isdigit():
            die(2, f"{where}: timeout must be a whole number of seconds, got '{e['timeout']}'")
        seen.add(e["name"])
        e["figures"] = [] if e["figures"] == "-" else e["figures"].split()
        e["args"] = [] if e["args"] == "-" else e["args"].split()
        try:
            e["view"] = report_view.parse_spec(e["view"])
        except ValueError as err:
            die(2, f"{where}: view: {err}")
        entries.append(e)
    if not entries:
        die(2, f"{path}: no entries")
    return entries


def load_claims_table(path):
    """claim id -> its row of references/claims.tsv (by column name), and
    sentences about rows the report could not use (the executables are the
    strict readers; the report only says what it skipped)."""
    table, problems = {}, []
    header, rows = read_tsv(path, "claim")
    if not header:
        return table, [f"{rel(path)}: no header line naming the columns"]
    for no, f in rows:
        row = dict(zip(header, f))
        cid = row.get("claim", "")
        if len(f) < len(header) - 1 or not cid:
            problems.append(f"{rel(path)}:{no}: {len(f)} fields, the header has {len(header)}")
            continue
        if cid in table:
            problems.append(f"{rel(path)}:{no}: claim {cid} is listed twice; the first row is used")
            continue
        table[cid] = row
    return table, problems


def load_mutants(path):
    """claim id -> [mutant rows] from references/mutants.tsv."""
    kills = {}
    if not os.path.isfile(path):
        return kills
    header, rows = read_tsv(path, "mutant")
    header = header or ["mutant", "executable", "kind", "claims", "description"]
    for _, f in rows:
        row = dict(zip(header, f))
        for cid in (c.strip() for c in row.get("claims", "").split(",")):
            if cid:
                kills.setdefault(cid, []).append(row)
    return kills


def read_run_claims(path):
    """A run's claims.tsv: (rows as dicts by column name, the scale its comment names)."""
    scale = None
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return [], scale
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    m = re.search(r"at scale (\w+)", first)
    if m:
        scale = m.group(1)
    header, rows = read_tsv(path, "claim")
    if not header:
        return [], scale
    out = []
    for _, f in rows:
        if len(f) >= 6:
            out.append(dict(zip(header, f)))
    return out, scale


def sha256_of(path):
    d = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            d.update(chunk)
    return d.hexdigest()


def read_manifest(path):
    """(dict, error sentence or None); {} when there is no manifest."""
    if not os.path.isfile(path):
        return {}, None
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
        return (m, None) if isinstance(m, dict) else ({}, "manifest.json is not a JSON object")
    except (OSError, ValueError) as e:
        return {}, f"manifest.json could not be read: {e}"


# --- judging ------------------------------------------------------------------

def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def build_dir():
    return os.path.abspath(os.environ.get("BAGNOLD_BUILD_DIR") or os.path.join(ROOT, "build"))


def refs_dir():
    return os.path.abspath(os.environ.get("BAGNOLD_REFERENCES") or os.path.join(ROOT, "references"))


def criterion(rule, expected, tol, unit=""):
    u = f" {unit}" if unit and unit != "1" else ""
    if rule == "max":
        return f"measured ≤ {tol}{u}"
    if rule == "min":
        return f"measured ≥ {tol}{u}"
    if rule == "abs":
        return f"|measured − {expected}| ≤ {tol}{u}"
    if rule == "rel":
        band = num(tol) * abs(num(expected))
        return f"|measured − {expected}| ≤ {tol} × |{expected}| (= {band:.4g}{u})"
    return f"tolerance {tol}{u}"


def tol_at(row, scale):
    return row.get("tol_paper" if scale == "paper" else "tol_quick", "")


def rule_of(claim, table):
    return claim.get("compare") or table.get(claim["claim"], {}).get("compare", "")


def count(claims):
    """n, pass, fail, documented misses, unexpected fails, unexpected passes."""
    n = p = f = k = uf = up = 0
    for c in claims:
        n += 1
        v, x = c.get("verdict"), c.get("expect")
        p += v == "pass"
        f += v in ("fail", "refuted")
        if v in ("fail", "refuted") and x == v:
            k += 1
        elif v != x and x == "pass":
            uf += 1
        elif v != x:
            up += 1
    return n, p, f, k, uf, up


# --- the environment ------------------------------------------------------------

def fmt_rate(r):
    r = num(r)
    if math.isnan(r) or r == 0:
        return "n/a (no particle steps)"
    if r >= 1e9:
        return f"{r / 1e9:.3g} G/s"
    return f"{r / 1e6:.3g} M/s" if r >= 1e6 else f"{r:.3g} /s"


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


# --- running ----------------------------------------------------------------------

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


def caption_of(fig):
    """The figure's caption: the first comment paragraph of its script, without
    the 'NAME.gp:' prefix."""
    gp = os.path.join(ROOT, "reports", fig + ".gp")
    if not os.path.isfile(gp):
        return fig
    text = []
    with open(gp, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            line = re.sub(r"^# ?", "", line.rstrip("\n"))
            if not line.strip():
                break
            text.append(line)
    t = re.sub(r"^" + re.escape(fig) + r"\.gp: *", "", " ".join(text))
    return t[:1].upper() + t[1:]


def png_data(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode("ascii")


# --- the report: one document written twice (Markdown and HTML) --------------------

CSS = """
  body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1d1d1f; background: #fafafa;
         margin: 0; line-height: 1.5; }
  main { max-width: 1100px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
  h1 { font-size: 1.7em; margin: 0.2em 0 0.4em; }
  h2 { font-size: 1.35em; margin-top: 2em; padding-bottom: 0.2em; border-bottom: 2px solid #e4e4e4; }
  h3 { font-size: 1.1em; margin-top: 1.6em; color: #333; }
  h4 { font-size: 1em; margin-top: 1.4em; color: #333; }
  h5, h6 { font-size: 0.95em; color: #444; }
  code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; background: #f1f1f1; padding: 0 3px; border-radius: 3px; }
  pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 0.8em; }
  pre code { background: none; padding: 0; }
  dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
  dl.meta dt { color: #666; }
  dl.meta dd { margin: 0; word-break: break-word; }
  .summary { font-size: 1.1em; font-weight: bold; margin: 1.2em 0; padding: 10px 14px; border-radius: 6px; }
  .summary.ok { background: #e7f5ea; border-left: 5px solid #2e7d32; }
  .summary.bad { background: #fdecec; border-left: 5px solid #c62828; }
  .summary.skip, .summary.recorded { background: #f3f3f3; border-left: 5px solid #9e9e9e; font-weight: normal; font-size: 1em; }
  .warn { background: #fff8e1; border-left: 5px solid #f9a825; padding: 6px 14px; margin: 0.8em 0; border-radius: 6px; }
  .warn ul { margin: 0.2em 0; padding-left: 1.2em; }
  table { border-collapse: collapse; width: 100%; font-size: 0.86em; margin: 0.6em 0; }
  th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
  th { background: #f4f4f4; }
  th.group { text-align: center; background: #eceff1; }
  td.num { text-align: right; font-family: "DejaVu Sans Mono", monospace; white-space: nowrap; }
  .verdict { font-weight: bold; padding: 1px 6px; border-radius: 3px; }
  .verdict.pass { color: #1b5e20; background: #d8f0dc; }
  .verdict.fail { color: #b71c1c; background: #fbdada; }
  .verdict.then { color: #37474f; background: #eceff1; font-weight: normal; }
  tr.unexp td { background: #fff4e5; }
  tr.changed td { background: #fffde7; }
  tr.gone td { color: #777; }
  .tag { font-size: 0.8em; padding: 1px 6px; border-radius: 10px; white-space: nowrap; }
  .tag.miss { background: #eceff1; color: #455a64; border: 1px solid #b0bec5; }
  .tag.unexpected { background: #c62828; color: #fff; }
  .tag.now-unexpected { background: #fff; color: #bf360c; border: 1px solid #ef6c00; }
  .tag.changed { background: #fff59d; color: #5d4037; border: 1px solid #fbc02d; }
  .tag.gone { background: #f5f5f5; color: #616161; border: 1px dashed #9e9e9e; }
  .state.finished { color: #1b5e20; } .state.crash { color: #b71c1c; font-weight: bold; } .state.skipped { color: #777; }
  figure { margin: 1.2em 0; text-align: center; }
  figure img { max-width: 100%; height: auto; border: 1px solid #e4e4e4; }
  figcaption { font-size: 0.88em; color: #555; margin-top: 4px; text-align: left; }
  ul.notes li { margin-bottom: 0.5em; }
  .glossary { font-size: 0.92em; background: #fbfbfb; border: 1px solid #eee; padding: 4px 16px; border-radius: 6px; }
  .glossary li { margin-bottom: 0.25em; }
  .muted { color: #777; }
  .md table { width: auto; min-width: 50%; }
"""


class Doc:
    """The report written as Markdown and as HTML side by side."""

    def __init__(self):
        self.md, self.html = [], []

    def add(self, md=None, html_=None):
        if md is not None:
            self.md.append(md)
        if html_ is not None:
            self.html.append(html_)

    def markdown(self, text, offset=0):
        """A Markdown file or text, in both (HTML through mdrender)."""
        self.md.append(mdrender.shift_headings(text, offset).rstrip("\n") + "\n\n")
        self.html.append('<div class="md">\n' + mdrender.to_html(text, heading_offset=offset, align=True) + "</div>\n")

    def figure(self, key, png, caption, md_note=""):
        self.md.append(f"![{key}](figures/{key}.png)\n\n*{caption}* (`figures/{key}.png`{md_note})\n\n")
        self.html.append(f'<figure><img alt="{h(key)}" src="data:image/png;base64,{png_data(png)}">'
                         f"<figcaption><strong>{h(key)}.</strong> {h(caption)}</figcaption></figure>\n")


def glossary_md(refs):
    seed_dir = os.path.join(refs, "seed")
    seed_files = sorted(f for f in os.listdir(seed_dir)) if os.path.isdir(seed_dir) else []
    seed_where = ", ".join(f"`{rel(os.path.join(seed_dir, f))}`" for f in seed_files) or "`references/seed/`"
    return f"""- **claim**: one checked statement, a row of `references/claims.tsv` with an id `run.quantity`: a measured value held against an expected value by a compare rule and a tolerance.
- **measured, expected, tolerance**: the run's number; the reference value it is compared with (a number of the table, or for a row whose expected reads `fed` the input the run was fed, read back from the library); the allowed deviation, one per scale (`tol_quick`, `tol_paper`).
- **compare rule**: `abs` passes when |measured − expected| ≤ tolerance; `rel` when |measured − expected| ≤ tolerance × |expected|; `max` when measured ≤ tolerance (expected is the ideal value, shown only); `min` when measured ≥ tolerance. The criterion column writes the rule out.
- **verdict**: pass or fail, the rule applied to the measured value (a NaN fails); at quick scale **refuted** where the rule passes but the recorded paper run of the same claim (reports/results/h200 or h100, re-judged by today's row) fails it, so a quick pass is never shown where the paper data contradicts it; a record judges only its entry's standard run, not one fed other inputs.
- **`expect`**: the verdict the table expects: `pass`, `fail`, or `quick=…,paper=…` where it is known to change with the resolution (`quick=refuted` for a quick pass the paper run refutes). A run's ctest fails when a verdict differs from it.
- **documented miss**: a fail the claims table expects; the claim's description there says why (a limit of the model, or of the seed's claim). It does not fail the report.
- **unexpected**: a verdict that differs from `expect`, either way: a fail where a pass is expected, or a pass of a documented miss (then the table needs an update). It fails the report.
- **kind**: where the expected value comes from: `analytic` (derived from the model), `literature` (a published value; `source` is a key into `references/references.bib`), `seed` (the seed's reported result), `baseline` (our own regression value, which may be re-blessed; never a literature value).
- **the seed**: the original system whose reported results the `seed` claims quote; those results, kept apart from the literature as a comparison and never a target, are in {seed_where}.
- **mutant**: a named change to the model, the scene, the measurement or a search's protocol that a correct lab must detect. `references/mutants.tsv` lists for each claim the mutants that must flip its verdict ("killed by" below); `ctest -L mutants` checks that they do.
- **judged then, now**: a recorded run's verdicts as its executable wrote them, against the claims table of its day; "now" applies today's table (rule, tolerance at the run's scale, expect) to the same measured value.
"""


def claims_rows_md(claims, table, kills):
    out = ["| claim | measured | expected | criterion | unit | verdict | expect | source | killed by (mutant) |",
           "|---|---:|---:|---|---|---|---|---|---|"]
    for c in claims:
        crit = criterion(rule_of(c, table), c["expected"], c["tolerance"])
        v, x = c.get("verdict", ""), c.get("expect", "")
        if v == "fail" and x == "fail":
            v = "fail (documented miss)"
        elif v == "refuted" and x == "refuted":
            v = f"refuted: passes here, the paper run fails it ({c.get('paper_record', '')})"
        elif v != x:
            v = f"**{v.upper()}: unexpected**"
        k = ", ".join(f"{m['mutant']} ({m.get('kind', '')})" for m in kills.get(c["claim"], [])) or "none"
        out.append("| " + " | ".join(mdrender.md_cell(x) for x in (
            f"`{c['claim']}`", c["measured"], c["expected"], crit, c.get("unit", ""), v, x,
            c.get("source", ""), k)) + " |")
    return "\n".join(out) + "\n\n"


def claims_rows_html(claims, table, kills):
    out = ['<table class="claims"><thead><tr><th>claim</th><th>measured</th><th>expected</th><th>criterion</th>'
           "<th>unit</th><th>verdict</th><th>expect</th><th>source</th><th>killed by (mutant)</th></tr></thead><tbody>"]
    for c in claims:
        cid = c["claim"]
        crit = criterion(rule_of(c, table), c["expected"], c["tolerance"])
        v, x = c.get("verdict", ""), c.get("expect", "")
        miss, unexp = v in ("fail", "refuted") and x == v, v != x
        cls = "pass" if v == "pass" else "fail"
        tag = (f' <span class="tag unexpected">refuted by the paper run: {h(c.get("paper_record", ""))}</span>'
               if v == "refuted" else
               ' <span class="tag miss">documented miss</span>' if miss else
               ' <span class="tag unexpected">unexpected</span>' if unexp else "")
        ms = kills.get(cid, [])
        k = ", ".join(f"{m['mutant']} ({m.get('kind', '')})" for m in ms) or "none"
        kt = " | ".join(f"{m['mutant']}: {m.get('description', '')}" for m in ms)
        desc = table.get(cid, {}).get("description", "")
        out.append(f'<tr class="{cls}{" unexp" if unexp else ""}"><td><code title="{h(desc)}">{h(cid)}</code></td>'
                   f'<td class="num">{h(c["measured"])}</td><td class="num">{h(c["expected"])}</td><td>{h(crit)}</td>'
                   f'<td>{h(c.get("unit", ""))}</td><td><span class="verdict {cls}">{h(v)}</span>{tag}</td>'
                   f'<td>{h(x)}</td><td>{h(c.get("source", ""))}</td><td title="{h(kt)}">{h(k)}</td></tr>')
    out.append("</tbody></table>\n")
    return "\n".join(out)


def claim_notes(doc, claims, table):
    """Documented misses and unexpected verdicts, each with its description."""
    md, ht = [], []
    for c in claims:
        v, x, cid = c.get("verdict"), c.get("expect"), c["claim"]
        if not (x in ("fail", "refuted") or v != x):
            continue
        d = table.get(cid, {}).get("description") or "(not in references/claims.tsv)"
        if not d.endswith((".", "!", "?")):
            d += "."
        rule = rule_of(c, table)
        crit = criterion(rule, c["expected"], c["tolerance"], c.get("unit", ""))
        head = ("documented miss" if v == "fail" and x == "fail" else
                f"a quick pass refuted by the recorded paper run ({c.get('paper_record', '')})" if v == x == "refuted"
                else f"unexpected {v} (the table expects {x})")
        meas = f"measured {c['measured']} {c.get('unit', '')}; the claim holds it to {crit}"
        md.append(f"- **{cid}** ({head}): {meas}. {d}")
        ht.append(f'<li><code>{h(cid)}</code> <span class="tag {"miss" if v == x else "unexpected"}">{h(head)}</span> '
                  f'{h(meas)}. <span class="muted">references/claims.tsv:</span> {h(d)}</li>')
    if md:
        doc.add("Misses and surprises, explained by references/claims.tsv:\n\n" + "\n".join(md) + "\n\n",
                "<p>Misses and surprises, explained by <code>references/claims.tsv</code>:</p><ul class=\"notes\">\n"
                + "\n".join(ht) + "\n</ul>\n")


def rejudge(claims, table, scale):
    """Each recorded claim with what today's table makes of its measured value."""
    now = bglab.rejudge(build_dir(), refs_dir(), scale, [(c["claim"], c["measured"], c["expected"]) for c in claims])
    out = []
    for c in claims:
        cid = c["claim"]
        r = dict(c)
        row = table.get(cid)
        if row is None or now.get(cid) is None:
            r.update(status="gone", now_verdict="", now_expect="", now_crit="", change="no longer in the claims table")
            out.append(r)
            continue
        # today's verdict is the lab's own (bglab_query judge), not a copy of its rule
        r["now_verdict"], r["now_expect"], expected, tol = now[cid]
        # the numbers as the table writes them, where they are the table's
        expected = row.get("expected") if num(row.get("expected")) == num(expected) else expected
        tol = tol_at(row, scale) if num(tol_at(row, scale)) == num(tol) else tol
        r["now_crit"] = criterion(row.get("compare", ""), expected, tol, row.get("unit", ""))
        changes = []
        if num(expected) != num(c["expected"]):
            changes.append(f"expected {c['expected']} → {row.get('expected')}")
        if num(tol) != num(c["tolerance"]):
            changes.append(f"tolerance {c['tolerance']} → {tol}")
        if r["now_expect"] != c.get("expect"):
            changes.append(f"expect {c.get('expect')} → {r['now_expect']}")
        if r["now_verdict"] != c.get("verdict"):
            changes.append(f"verdict {c.get('verdict')} → {r['now_verdict']}")
        r["change"] = "; ".join(changes)
        r["status"] = "changed" if changes else "same"
        out.append(r)
    return out


def now_label(r):
    if r["status"] == "gone":
        return ""
    if r["now_verdict"] == r["now_expect"]:
        return "documented miss" if r["now_verdict"] in ("fail", "refuted") else "as expected"
    return "unexpected now"


def recorded_claims(doc, claims, table, scale):
    rows = rejudge(claims, table, scale)
    n = len(rows)
    then_off = sum(r.get("verdict") != r.get("expect") for r in rows)
    gone = sum(r["status"] == "gone" for r in rows)
    changed = sum(r["status"] == "changed" for r in rows)
    now_off = sum(r["status"] != "gone" and r["now_verdict"] != r["now_expect"] for r in rows)
    summary = (f"{n} claims at scale {scale}. Judged then: {n - then_off} equal to their expect of the day, "
               f"{then_off} not. Re-judged against today's table: {now_off} unexpected, {changed} with a changed "
               f"tolerance, expect or verdict, {gone} no longer in the table.")
    md = [summary, "",
          "| claim | measured | then: expected, tolerance | judged then (expect) | now: criterion | now: verdict (expect) | change |",
          "|---|---:|---|---|---|---|---|"]
    ht = [f'<p class="muted">{h(summary)}</p>',
          '<table class="claims recorded"><thead><tr><th rowspan="2">claim</th><th rowspan="2">measured</th>'
          '<th class="group" colspan="2">judged then</th><th class="group" colspan="2">today\'s claims table</th>'
          '<th rowspan="2">change</th></tr><tr><th>expected, tolerance</th><th>verdict (expect)</th>'
          "<th>criterion</th><th>verdict (expect)</th></tr></thead><tbody>"]
    for r in rows:
        unit = r.get("unit", "")
        meas = f"{r['measured']} {unit}" if unit and unit != "1" else r["measured"]
        then = f"{r.get('verdict', '')} ({r.get('expect', '')})"
        lab = now_label(r)
        now = "—" if r["status"] == "gone" else f"{r['now_verdict']} ({r['now_expect']})"
        change = r["change"] or "same"
        md.append("| " + " | ".join(mdrender.md_cell(x) for x in (
            f"`{r['claim']}`", meas, f"{r['expected']}, {r['tolerance']}", then, r["now_crit"] or "—",
            now + (f": {lab}" if lab else ""), change)) + " |")
        desc = table.get(r["claim"], {}).get("description", "")
        if r["status"] == "gone":
            nowcell, cls = '<span class="tag gone">not in today\'s table</span>', "gone"
        else:
            vcls = "pass" if r["now_verdict"] == "pass" else "fail"
            tcls = {"as expected": "miss", "documented miss": "miss"}.get(lab, "now-unexpected")
            nowcell = (f'<span class="verdict {vcls}">{h(r["now_verdict"])}</span> ({h(r["now_expect"])}) '
                       f'<span class="tag {tcls}">{h(lab)}</span>')
            cls = "changed" if r["status"] == "changed" else ""
        chcell = (f'<span class="tag changed">changed</span> {h(r["change"])}' if r["status"] == "changed"
                  else f'<span class="tag gone">gone</span>' if r["status"] == "gone" else '<span class="muted">same</span>')
        ht.append(f'<tr class="{cls}"><td><code title="{h(desc)}">{h(r["claim"])}</code></td>'
                  f'<td class="num">{h(meas)}</td><td>{h(r["expected"])}, {h(r["tolerance"])}</td>'
                  f'<td><span class="verdict then">{h(then)}</span></td><td>{h(r["now_crit"] or "—")}</td>'
                  f"<td>{nowcell}</td><td>{chcell}</td></tr>")
    ht.append("</tbody></table>\n")
    doc.add("\n".join(md) + "\n\n", "\n".join(ht))


def manifest_rows(man):
    be, be_req = man.get("backend", ""), man.get("backend_requested", "")
    if not be:
        be_text = f"requested {be_req}"
    elif be != be_req and be_req:
        be_text = f"{be} (requested {be_req})"
    else:
        be_text = be
    return [("wall time", f"{man.get('wall_s', '?')} s"), ("particle-steps/s", fmt_rate(man.get("particle_steps_per_s"))),
            ("backend", be_text), ("device", man.get("device") or "not recorded"), ("scale", man.get("scale", "")),
            ("threads / seed", f"{man.get('threads', '?')} / {man.get('seed', '?')}"),
            ("command", man.get("command", "")), ("commit", man.get("commit", "")), ("finished", man.get("date", "")),
            ("claims table", f"{man.get('claims_table', 'not recorded')} "
                             f"(SHA-256 {str(man.get('claims_table_sha256', 'not recorded'))[:16]}…)"
             if man.get("claims_table_sha256") else "not recorded in the manifest")]


def table_check(man, sha):
    """A sentence when a manifest does not show that today's table judged it."""
    got = man.get("claims_table_sha256")
    if not got:
        return "the manifest does not record which claims table judged it (no claims_table_sha256)"
    if str(got).lower() != sha:
        return (f"it was judged by a claims table with SHA-256 {str(got)[:16]}… "
                f"({man.get('claims_table', 'path not recorded')}), not today's {sha[:16]}…")
    return None


# --- main ---------------------------------------------------------------------------

def main(argv):
    registry_path = os.path.join(ROOT, "experiments", "registry.tsv")
    # help and the list need no build; help not even a readable registry
    if any(x in ("-h", "--help") for x in argv):
        try:
            names = " ".join(e["name"] for e in load_registry(registry_path))
        except SystemExit:
            names = f"(the names of {rel(registry_path)}, which could not be read)"
        sys.stdout.write(USAGE.format(names=names))
        return 0
    registry = load_registry(registry_path)
    names = [e["name"] for e in registry]
    a = parse_args(argv, names)
    if a["list"]:
        for e in registry:
            print(f"{e['name']}|{e['binary']}|{' '.join(e['figures'])}")
        return 0

    build, refs = build_dir(), refs_dir()
    out = os.path.abspath(a["out"] or os.path.join(build, "report"))
    backend = a["backend"]

    try:
        here = bglab.host(build)
    except bglab.LabQueryError as e:
        die(2, str(e))
    if a["scale"]:
        scale, scale_why = a["scale"], "given with --scale"
    elif here["gpu"]:
        scale, scale_why = "paper", f"the library's GPU backend runs here ({here['gpu']})"
    else:
        scale, scale_why = "quick", f"no GPU backend here: {here['gpu_why']}"
    log(f"scale {scale}: {scale_why}")

    selected = [e for e in registry if not a["only"] or e["name"] in a["only"]]
    if not shutil.which("gnuplot"):
        die(1, "gnuplot not found (scripts/lab setup installs gnuplot-nox)")
    claims_path = os.path.join(refs, "claims.tsv")
    if not os.path.isfile(claims_path):
        die(1, f"no claims table at {claims_path}")
    table, table_problems = load_claims_table(claims_path)
    table_sha = sha256_of(claims_path)
    kills = load_mutants(os.path.join(refs, "mutants.tsv"))
    figdir = os.path.join(out, "figures")
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    os.makedirs(figdir, exist_ok=True)

    # --- run
    state, note, rc_of, claims_of, fig_ok, fig_why = {}, {}, {}, {}, {}, {}
    views, view_why = {}, {}
    renderer = report_view.Renderer(ROOT, build)
    problems = 0
    for i, e in enumerate(selected, 1):
        name, binary = e["name"], e["binary"]
        exe = os.path.join(build, "bin", binary)
        tag = f"[{i}/{len(selected)}] {name}"
        if not os.access(exe, os.X_OK):
            log(f"{tag}: skipped, {exe} does not exist (not built)")
            state[name], note[name] = "skipped", f"{binary} is not built in {build}/bin"
            continue
        rundir = os.path.join(out, "runs", name)
        shutil.rmtree(rundir, ignore_errors=True)  # a stale claims.tsv is never taken for this run's
        os.makedirs(rundir)
        args = ["--scale", scale, "--out", rundir, "--references", refs]
        if backend:
            args += ["--backend", backend]
        if e["jobs"] == "yes":
            args += ["--jobs", str(max(1, min(os.cpu_count() or 1, MAX_JOBS)))]
        args += e["args"] + report_view.run_args(e["view"])
        log(f"{tag}: {binary} {' '.join(args)}")
        # the run owns its folder (a lab run refuses a folder holding other
        # files), so its log lands beside it and moves in once it has ended
        logtmp = os.path.join(out, "runs", name + ".log.txt")
        rc = run_entry(exe, args, logtmp)
        shutil.move(logtmp, os.path.join(rundir, "log.txt"))
        rc_of[name] = rc
        claims, _ = read_run_claims(os.path.join(rundir, "claims.tsv"))
        claims_of[name] = claims
        # 0 and 1 are results (1: an unexpected verdict, or with the old
        # convention a failed claim); anything else is a crash
        if rc not in (0, 1):
            state[name], note[name] = "crash", f"crashed with exit code {rc}" if rc > 0 else f"killed by signal {-rc}"
        elif not os.path.isfile(os.path.join(rundir, "claims.tsv")) or not os.path.getsize(os.path.join(rundir, "claims.tsv")):
            state[name], note[name] = "crash", f"exit code {rc} but no claims.tsv written"
        else:
            state[name], note[name] = "finished", f"exit code {rc}"
        if state[name] == "crash":
            log(f"{name}: {note[name]} (log: {rundir}/log.txt); its figures are not drawn")
            problems += 1
            continue
        if e["view"]:
            views[name], view_why[name] = renderer.render(e["view"], rundir, name, figdir)
            log(f"{name}: pictures " + (", ".join(k + ".png" for k, _, _ in views[name]) or
                                       f"not rendered: {view_why[name]}"))
            # no renderer on this machine (pyvista not installable) is a warning; a failed render a problem
            problems += not views[name] and renderer.python is not None
        for fig in e["figures"]:
            gp = os.path.join(ROOT, "reports", fig + ".gp")
            key = f"{name}:{fig}"
            if not os.path.isfile(gp):
                fig_ok[key], fig_why[key] = False, f"there is no script reports/{fig}.gp"
                log(f"{name}: figure {fig}: no script {gp}")
            elif draw(gp, rundir, os.path.join(figdir, fig), os.path.join(rundir, "figures.log")) is True:
                fig_ok[key] = True
                log(f"{name}: figure {fig}.png")
            else:
                fig_ok[key], fig_why[key] = False, f"gnuplot failed: see runs/{name}/figures.log"
                log(f"{name}: figure {fig} failed (gnuplot output in {rundir}/figures.log)")
            problems += not fig_ok[key]

    ran = [e["name"] for e in selected if state.get(e["name"]) in ("finished", "crash")]

    # a finished run's exit code must agree with its claims: new contract
    # (1 exactly when some verdict differs from its expect) or old (1 exactly
    # when some claim failed); either is accepted while the executables move
    for name in ran:
        if state[name] != "finished":
            continue
        cl = claims_of[name]
        rc = rc_of[name]
        unexpected = any(c.get("verdict") != c.get("expect") for c in cl)
        failed = any(c.get("verdict") == "fail" for c in cl)
        if not cl:
            note[name] += "; it made no claims"
            problems += 1
        elif (rc == 1) == unexpected:
            note[name] += ": an unexpected verdict" if rc else ""
        elif (rc == 1) == failed:
            note[name] += ": a claim failed (the old exit-code convention)" if rc else ""
        else:
            note[name] += f"; the exit code does not match its claims ({sum(c.get('verdict') != c.get('expect') for c in cl)} unexpected, " \
                          f"{sum(c.get('verdict') == 'fail' for c in cl)} failed)"
            problems += 1

    # --- claims.tsv: every claim of every run, with its compare rule
    all_claims = []
    with open(os.path.join(out, "claims.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# every claim of every run in this report (scale {scale}), judged by {rel(claims_path)} "
                f"(sha256 {table_sha}); compare: abs |measured-expected| <= tolerance, rel |measured-expected| "
                f"<= tolerance*|expected|, max measured <= tolerance, min measured >= tolerance\n")
        f.write("run\tclaim\tcompare\tmeasured\texpected\ttolerance\tunit\tverdict\tsource\texpect\n")
        for name in ran:
            for c in claims_of.get(name, []):
                all_claims.append(c)
                f.write("\t".join([name, c["claim"], rule_of(c, table) or "?", c.get("measured", ""),
                                   c.get("expected", ""), c.get("tolerance", ""), c.get("unit", ""),
                                   c.get("verdict", ""), c.get("source", ""), c.get("expect", "")]) + "\n")

    N, P, F, K, UF, UP = count(all_claims)
    U = UF + UP
    summary = f"{N} claims: {P} pass, {F} fail ({K} documented misses, {U} unexpected)"
    if UP:
        summary += f"; {UP} of the unexpected are passes of claims the table expects to fail (update references/claims.tsv)"
    n_crash = sum(state.get(e["name"]) == "crash" for e in selected)
    n_skip = sum(state.get(e["name"]) == "skipped" for e in selected)
    if n_crash:
        summary += f"; {n_crash} run(s) crashed"
    if n_skip:
        summary += f"; {n_skip} run(s) skipped (not built)"
    n_rc = sum("does not match its claims" in note[n] for n in ran)
    n_none = sum("made no claims" in note[n] for n in ran)
    n_fig = sum(not v for v in fig_ok.values())
    if n_rc:
        summary += f"; {n_rc} run(s) with an exit code their claims do not explain"
    if n_none:
        summary += f"; {n_none} run(s) made no claims"
    if n_fig:
        summary += f"; {n_fig} figure(s) could not be drawn"

    # --- header
    manifests = {}
    by_msg = {}  # one warning per message, naming every run it concerns
    for name in ran:
        m, err = read_manifest(os.path.join(out, "runs", name, "manifest.json"))
        if m:
            manifests[name] = m
        for w in (err, table_check(m, table_sha) if m else None):
            if w:
                by_msg.setdefault(w, []).append(name)
    warnings = list(table_problems) + [
        f"run{'s' if len(r) > 1 else ''} {', '.join(r)}: {w}" for w, r in by_msg.items()]
    if renderer.why:
        warnings.append(f"no pictures of the sand: {renderer.why}")

    def uniq(key):
        vals = []
        for m in manifests.values():
            v = str(m.get(key, ""))
            if v and v not in vals:
                vals.append(v)
        return ", ".join(vals)

    commit = uniq("commit") or "unknown (no run wrote a manifest)"
    machine = (f"{uniq('host') or here['host']} — {uniq('cpu') or here['cpu']}, "
               f"{uniq('cores') or here['cores']} cores")
    gpu_text = here["gpu"] or f"none: {here['gpu_why']}"
    date_now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    title = "bagnold report"
    ok = U == 0 and problems == 0 and N > 0

    doc = Doc()
    meta = [("date", date_now), ("commit", commit), ("machine", machine), ("GPU", gpu_text),
            ("scale", f"{scale} ({scale_why})")]
    if backend:
        meta.append(("backend requested", backend))
    meta.append(("claims table", f"{rel(claims_path)}, SHA-256 {table_sha}"))
    doc.add(f"# {title}\n\n" + "".join(f"- {k}: {v}\n" for k, v in meta) + "\n")
    doc.add(None, f'<h1>{h(title)}</h1>\n<dl class="meta">\n' + "".join(
        f"<dt>{h(k)}</dt><dd>{'<code>' + h(v) + '</code>' if k in ('commit', 'claims table') else h(v)}</dd>\n"
        for k, v in meta) + "</dl>\n")
    if warnings:
        doc.add("**Warnings:**\n\n" + "".join(f"- {w}\n" for w in warnings) + "\n",
                '<div class="warn"><strong>Warnings</strong><ul>' + "".join(f"<li>{h(w)}</li>" for w in warnings)
                + "</ul></div>\n")
    doc.add(f"**{summary}**\n\n", f'<p class="summary {"ok" if ok else "bad"}">{h(summary)}</p>\n')
    md = ["| run | status | claims | pass | fail | unexpected |", "|---|---|---:|---:|---:|---:|"]
    ht = ["<table><thead><tr><th>run</th><th>status</th><th>claims</th><th>pass</th><th>fail</th>"
          "<th>unexpected</th></tr></thead><tbody>"]
    for e in selected:
        name = e["name"]
        n, p, f_, _, uf, up = count(claims_of.get(name, []))
        md.append(f"| {name} | {state[name]} ({mdrender.md_cell(note[name])}) | {n} | {p} | {f_} | {uf + up} |")
        ht.append(f'<tr><td><a href="#run-{h(name)}">{h(name)}</a></td><td><span class="state {state[name]}">'
                  f'{state[name]}</span> <span class="muted">({h(note[name])})</span></td><td class="num">{n}</td>'
                  f'<td class="num">{p}</td><td class="num">{f_}</td><td class="num">{uf + up}</td></tr>')
    ht.append("</tbody></table>\n")
    doc.add("\n".join(md) + "\n\n", "\n".join(ht))

    gl = glossary_md(refs)
    doc.add("## Glossary\n\n" + gl + "\n",
            '<h2 id="glossary">Glossary</h2>\n<div class="glossary">' + mdrender.to_html(gl) + "</div>\n")

    # --- one section per run
    for e in selected:
        name, binary = e["name"], e["binary"]
        rundir = os.path.join(out, "runs", name)
        doc.add(f"## {name} (`{binary}`)\n\n", f'<h2 id="run-{h(name)}">{h(name)} <code>{h(binary)}</code></h2>\n')
        desc = os.path.join(ROOT, "reports", name + ".md")
        if os.path.isfile(desc):
            with open(desc, encoding="utf-8") as f:
                doc.markdown(f.read(), offset=2)
        else:
            doc.add(f"_No description: write reports/{name}.md._\n\n",
                    f'<p class="muted">No description: write reports/{h(name)}.md.</p>\n')
        if state[name] != "finished":
            what = "Not run" if state[name] == "skipped" else "Run crashed"
            cls = "skip" if state[name] == "skipped" else "bad"
            doc.add(f"**{what}: {note[name]}.**\n\n", f'<p class="summary {cls}">{h(what)}: {h(note[name])}.</p>\n')
            logp = os.path.join(rundir, "log.txt")
            if os.path.isfile(logp) and os.path.getsize(logp):
                with open(logp, encoding="utf-8", errors="replace") as f:
                    tail = "".join(f.readlines()[-15:])
                doc.add(f"Last lines of `runs/{name}/log.txt`:\n\n```\n{tail}```\n\n",
                        f"<p>Last lines of <code>runs/{h(name)}/log.txt</code>:</p><pre>{h(tail)}</pre>\n")
        else:
            doc.add("### Figures\n\n", "<h3>Figures</h3>\n")
            for fig in e["figures"]:
                key = f"{name}:{fig}"
                if fig_ok.get(key):
                    doc.figure(fig, os.path.join(figdir, fig + ".png"), caption_of(fig), ", `.svg`")
                else:
                    doc.add(f"**Figure {fig} could not be drawn**: {fig_why.get(key)}.\n\n",
                            f'<p class="summary bad">Figure {h(fig)} could not be drawn: {h(fig_why.get(key))}.</p>\n')
            if e["view"]:
                doc.add("### The sand\n\n", "<h3>The sand</h3>\n")
                for key, png, caption in views.get(name, []):
                    doc.figure(key, png, caption)
                if not views.get(name):
                    doc.add(f"**No picture**: {view_why.get(name)}.\n\n",
                            f'<p class="summary bad">No picture: {h(view_why.get(name, ""))}.</p>\n')
        cl = claims_of.get(name, [])
        if cl:
            doc.add("### Claims\n\n" + claims_rows_md(cl, table, kills),
                    "<h3>Claims</h3>\n" + claims_rows_html(cl, table, kills))
            claim_notes(doc, cl, table)
        man = manifests.get(name)
        if man:
            rows = manifest_rows(man)
            doc.add("### Run\n\n" + "".join(f"- {k}: {v}\n" for k, v in rows) +
                    f"\nFiles: `runs/{name}/` (TSV, manifest.json, log.txt).\n\n",
                    '<h3>Run</h3>\n<dl class="meta">\n' + "".join(f"<dt>{h(k)}</dt><dd>{h(v)}</dd>\n" for k, v in rows)
                    + f'</dl>\n<p class="muted">Files: runs/{h(name)}/ (TSV, manifest.json, log.txt).</p>\n')

    recorded_section(doc, registry, table, table_sha, figdir)
    compare_section(doc, build, figdir)

    doc.add(None, '<p class="muted">Written by scripts/report.py; every claim of every run is in claims.tsv '
                  "next to this page.</p>\n")
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("".join(doc.md))
    with open(os.path.join(out, "report.html"), "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{h(title)} — {h(date_now)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
                + "".join(doc.html) + "</main>\n</body>\n</html>\n")

    log(summary)
    log(f"report at {out}/report.html")
    log(f"          {out}/report.md")
    log(f"claims: {out}/claims.tsv")
    if not ran:
        log(f"nothing ran: no entry of the registry has its binary built in {build}/bin")
        return 1
    if U or problems:
        if U:
            log(f"{U} claim verdict(s) differ from the table's expect column")
        if problems:
            log(f"{problems} problem(s) with runs or figures (see above)")
        return 1
    return 0


def recorded_section(doc, registry, table, table_sha, figdir):
    """Runs committed under reports/results/SET/NAME/ as they came out (paper
    scale on a lent GPU, long CPU runs): figures redrawn from their TSV by the
    same scripts, claims as judged then and as today's table judges the same
    numbers; never counted in this report's summary."""
    results = os.path.join(ROOT, "reports", "results")
    if not os.path.isdir(results):
        return
    dirs = sorted(os.path.join(results, s, n) for s in os.listdir(results) if os.path.isdir(os.path.join(results, s))
                  for n in os.listdir(os.path.join(results, s)) if os.path.isdir(os.path.join(results, s, n)))
    if not dirs:
        return
    by_name = {e["name"]: e for e in registry}
    intro = ("Runs committed under reports/results/SET/NAME/ as they came out, at a scale or on hardware this "
             "report did not use; they are not counted in the summary above. Figures are redrawn from their TSV. "
             "Their verdicts are shown as judged then, against the claims table of their day, in neutral grey; "
             "beside them, today's table re-judges the same measured value (its rule and tolerance at the run's "
             "scale, its expect), and a yellow row marks a claim whose tolerance, expect or verdict has changed since.")
    doc.add(f"## Recorded runs\n\n{intro}\n\n", f'<h2 id="recorded">Recorded runs</h2>\n<p>{h(intro)}</p>\n')
    prev = None
    reclog = os.path.join(figdir, "recorded.log")
    for d in dirs:
        name, set_name = os.path.basename(d), os.path.basename(os.path.dirname(d))
        if set_name != prev:
            prev = set_name
            doc.add(f"### {set_name}\n\n", f'<h3 id="recorded-{h(set_name)}">{h(set_name)}</h3>\n')
            readme = os.path.join(results, set_name, "README.md")
            if os.path.isfile(readme):
                with open(readme, encoding="utf-8") as f:
                    doc.markdown(f.read(), offset=3)
        doc.add(f"#### {set_name} / {name}\n\n",
                f'<h4 id="recorded-{h(set_name)}-{h(name)}">{h(set_name)} / {h(name)}</h4>\n')
        readme = os.path.join(d, "README.md")
        if os.path.isfile(readme):
            with open(readme, encoding="utf-8") as f:
                doc.markdown(f.read(), offset=4)
        man, err = read_manifest(os.path.join(d, "manifest.json"))
        figs = []
        if man:
            # NAME-variant (silo-wide, runout-mui-dpcone) takes the figures of the
            # longest registry name it starts with
            pre = [n for n in by_name if name == n or name.startswith(n + "-")]
            e = by_name[max(pre, key=len)] if pre else None
            figs = e["figures"] if e else []
            rb = man.get("backend") or f"{man.get('backend_requested', '?')} (requested)"
            line = (f"scale {man.get('scale', '?')}, backend {rb}, device {man.get('device') or 'not recorded (see the README above)'}, "
                    f"host {man.get('host', '?')}, commit {man.get('commit', '?')}, wall {man.get('wall_s', '?')} s, "
                    f"{fmt_rate(man.get('particle_steps_per_s'))}, finished {man.get('date', '?')}; "
                    f"command: {man.get('command', '?')}")
            w = table_check(man, table_sha)
            if w:
                line += f". Note: {w}"
            doc.add(line + "\n\n", f'<p class="muted">{h(line)}</p>\n')
        elif err:
            doc.add(f"**{err}**\n\n", f'<p class="warn">{h(err)}</p>\n')
        if os.path.isfile(os.path.join(d, "counts.tsv")):
            figs = ["compare_counts"]  # a head-to-head across particle counts
        bg_tsv = os.path.join(d, "bench_gpu.tsv")
        if os.path.isfile(bg_tsv) and os.path.getsize(bg_tsv):
            with open(bg_tsv, encoding="utf-8") as f:
                head = f.readline().rstrip("\n").split("\t")
                col = head.index("tag") if "tag" in head else None
                tags = [r.split("\t")[col] for r in f if col is not None and not r.startswith("#")]
            # both figures draw count sweeps (tag counts*); a folder of variants at one count
            # (its README has the table) has none to draw
            if any(t.startswith("counts") for t in tags):
                figs = ["bench_gpu_counts"]
                # the per-stage byte columns came with issue 18's bench_gpu
                if "B_p2g" in head:
                    figs.append("bench_gpu_bytes")
            # each stage against the copy ceiling, per resource, wherever the byte columns exist
            if "B_p2g" in head and tags:
                figs = figs + ["bench_gpu_roofline"]
        for fig in figs:
            key = f"{set_name}-{fig}" if name == name.split("-")[0] else f"{set_name}-{name}-{fig}"
            gp = os.path.join(ROOT, "reports", fig + ".gp")
            drawn = draw(gp, d, os.path.join(figdir, key), reclog) if os.path.isfile(gp) else False
            if drawn is FIG_PREDATES:
                doc.add(f"Figure {fig}: not drawn, this record predates the columns it draws.\n\n",
                        f'<p class="muted">Figure {h(fig)}: not drawn, this record predates the columns it draws.</p>\n')
            elif drawn:
                doc.figure(key, os.path.join(figdir, key + ".png"), caption_of(fig))
            else:
                doc.add(f"**Figure {fig} could not be drawn from the recorded TSV** (figures/recorded.log).\n\n",
                        f'<p class="summary bad">Figure {h(fig)} could not be drawn from the recorded TSV '
                        "(figures/recorded.log).</p>\n")
        claims, cscale = read_run_claims(os.path.join(d, "claims.tsv"))
        if claims:
            recorded_claims(doc, claims, table, man.get("scale") or cscale or "paper")


def compare_section(doc, build, figdir):
    """The latest head-to-head (scripts/lab bench compare), not re-run here
    (it takes minutes and needs Taichi and Warp): shown as it is, its Markdown
    rendered by the same renderer compare.py uses."""
    cmp = os.path.join(build, "bench", "compare")
    mdp = os.path.join(cmp, "compare.md")
    if not (os.path.isfile(mdp) and os.path.getsize(mdp)):
        return
    when = datetime.datetime.fromtimestamp(os.path.getmtime(mdp), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with open(mdp, encoding="utf-8") as f:
        text = f.read()
    doc.add("## Head-to-head: bagnold, Taichi, Warp\n\n"
            f"_The latest `scripts/lab bench compare` output ({when}, from `{cmp}`); the report does not re-run it._\n\n",
            '<h2 id="bench-compare">Head-to-head: bagnold, Taichi, Warp</h2>\n'
            f'<p class="muted">The latest <code>scripts/lab bench compare</code> output ({h(when)}, from {h(cmp)}); '
            "the report does not re-run it.</p>\n")
    doc.markdown(text, offset=2)
    png = os.path.join(cmp, "compare.png")
    if os.path.isfile(png) and os.path.getsize(png):
        shutil.copyfile(png, os.path.join(figdir, "bench_compare.png"))
        doc.figure("bench_compare", os.path.join(figdir, "bench_compare.png"),
                   "Median particle-steps/s per solver, bars min..max over the interleaved repetitions.")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("report: interrupted", file=sys.stderr)
        sys.exit(130)
