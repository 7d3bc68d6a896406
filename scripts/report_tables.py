"""report_tables.py: what scripts/report.py reads and how it counts: the lab
TSVs (experiments/registry.tsv, references/claims.tsv and mutants.tsv, a
run's claims.tsv), a run's manifest.json, the verdict helpers (criterion,
count) and the messages and paths the report's modules share."""
import hashlib
import json
import math
import os
import re
import sys

import report_view  # scripts/report_view.py: the registry's view column

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print(f"report: {msg}", file=sys.stderr, flush=True)


def die(code, msg):
    print(f"report: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def rel(path):
    """A path for the reader: relative to the repository when inside it."""
    try:
        r = os.path.relpath(path, ROOT)
    except ValueError:
        return path
    return path if r.startswith("..") else r


def build_dir():
    return os.path.abspath(os.environ.get("BAGNOLD_BUILD_DIR") or os.path.join(ROOT, "build"))


def refs_dir():
    return os.path.abspath(os.environ.get("BAGNOLD_REFERENCES") or os.path.join(ROOT, "references"))


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


# --- manifests and rates ------------------------------------------------------------

def fmt_rate(r):
    r = num(r)
    if math.isnan(r) or r == 0:
        return "n/a (no particle steps)"
    if r >= 1e9:
        return f"{r / 1e9:.3g} G/s"
    return f"{r / 1e6:.3g} M/s" if r >= 1e6 else f"{r:.3g} /s"


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
