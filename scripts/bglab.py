"""bglab.py: what the Python scripts ask the lab, answered by the lab's own C
(BUILD/bin/bglab_query, experiments/lab/bglab_query.c), so that no script
restates the verdict rule or the host description.

    host(build)                       -> {"host", "cpu", "cores", "gpu", "gpu_why"}
    rejudge(build, refs, scale, rows) -> {claim: (verdict, expect, expected, tolerance)}
"""
import os
import subprocess


class LabQueryError(RuntimeError):
    pass


def query_path(build):
    return os.path.join(build, "bin", "bglab_query")


def _query(build, args, stdin=""):
    exe = query_path(build)
    if not os.access(exe, os.X_OK):
        raise LabQueryError(f"{exe} is missing: build the lab (cmake --build {build})")
    r = subprocess.run([exe] + args, input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise LabQueryError(f"bglab_query {' '.join(args)}: {r.stderr.strip() or f'exit {r.returncode}'}")
    return [l.split("\t") for l in r.stdout.splitlines()]


def host(build):
    """The machine, as every manifest records it (bg_host_describe), and the
    device a GPU backend would run on ("" with gpu_why when none)."""
    d = {k: v for k, *rest in _query(build, ["host"]) for v in [rest[0] if rest else ""]}
    d["cores"] = int(d.get("cores") or 0)
    return d


def rejudge(build, refs, scale, rows):
    """Today's verdicts of recorded claims, by the lab's rule: rows are
    (claim, measured, recorded expected) strings. A claim the table no longer
    has maps to None."""
    text = "".join(f"{c}\t{m}\t{e}\n" for c, m, e in rows)
    out = {}
    for f in _query(build, ["judge", "--references", refs, "--scale", scale], text):
        out[f[0]] = None if f[1] == "-" else (f[1], f[2], f[3], f[4])
    return out
