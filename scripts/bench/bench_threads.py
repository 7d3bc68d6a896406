#!/usr/bin/env python3
"""bench_threads.py: the CPU backend's rate from Python with each OpenMP wait
policy, on a quiet machine and on one where other work holds the cores.

The Python package chooses passive waiting unless the user set
OMP_WAIT_POLICY or GOMP_SPINCOUNT (bagnold.thread_wait_policy()); this
measures what that choice is worth. Each case is its own process (libgomp
reads the policy once, as it loads): a sand column of about 10^5 particles,
--steps steps after a warm-up, --threads threads. "loaded" runs --hogs
busy-looping processes beside it, as a second job on a shared machine would.

Writes OUT/threads.tsv (one row per case, with the machine and the commit)
and prints it. scripts/lab bench threads [--out DIR] runs it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys, time
import numpy as np
import bagnold as bag
n_side, steps, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
dx = 0.01
g = n_side + 24
floor = bag.halfspace((0, 0, 3 * dx), (0, 0, 1), friction=0.5)
sim = bag.Sim(grid=(g, g, n_side + 8), dx=dx, material=bag.sand(phi_deg=30), colliders=[floor],
              backend="cpu", threads=threads)
h = dx / 2
ax = (12 * dx + h / 2) + h * np.arange(n_side)
az = (3 * dx + h / 2) + h * np.arange(n_side)
x = np.stack(np.meshgrid(ax, ax, az, indexing="ij"), -1).reshape(-1, 3)
sim.add(x, ppc=8)
sim.run(10)  # warm-up: first touch of the arrays, the thread team
t0 = time.perf_counter()
sim.run(steps)
wall = time.perf_counter() - t0
print(json.dumps({"policy": bag.thread_wait_policy(), "particles": len(x), "steps": steps,
                  "wall_s": wall, "rate": len(x) * steps / wall}))
"""


def hog(stop) -> None:
    while not stop.is_set():
        pass


def commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="folder for threads.tsv (default: print only)")
    ap.add_argument("--side", type=int, default=46, help="particles per column edge (46: 97336 particles)")
    ap.add_argument("--steps", type=int, default=150, help="timed steps")
    ap.add_argument("--threads", type=int, default=2, help="OpenMP threads of the simulation")
    ap.add_argument("--hogs", type=int, default=1, help="busy processes beside the loaded case")
    ap.add_argument("--reps", type=int, default=2, help="repetitions of each case")
    a = ap.parse_args()
    for name in ("side", "steps", "threads", "reps"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be >= 1 (got {getattr(a, name)})")
    if a.hogs < 0:
        ap.error(f"--hogs must be >= 0 (got {a.hogs})")
    import bagnold as bag

    host = os.uname().nodename
    cores = os.cpu_count() or 1
    rows = []
    # libgomp's own default, had the package not chosen: spin 300000 times
    # before sleeping (GOMP_SPINCOUNT's default; the package keeps a user's)
    # and one thread, the rate a second thread must not fall below
    cases = [("package default", {}, a.threads), ("libgomp default", {"GOMP_SPINCOUNT": "300000"}, a.threads),
             ("active (spinning)", {"OMP_WAIT_POLICY": "active"}, a.threads), ("one thread", {}, 1)]
    for load in ("quiet", "loaded"):
        stop = mp.Event()
        hogs = [mp.Process(target=hog, args=(stop,), daemon=True) for _ in range(a.hogs if load == "loaded" else 0)]
        for p in hogs:
            p.start()
        try:
            for label, policy, threads in cases:
                env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
                env.update(policy)
                for rep in range(a.reps):
                    r = subprocess.run([sys.executable, "-c", CHILD, str(a.side), str(a.steps), str(threads)],
                                       env=env, capture_output=True, text=True)
                    if r.returncode != 0:
                        sys.stderr.write(r.stderr)
                        return 1
                    m = json.loads(r.stdout.strip().splitlines()[-1])
                    rows.append({"load": load, "hogs": len(hogs), "case": label, "rep": rep + 1, "threads": threads,
                                 **m})
                    print(f"{load:6s} {label:18s} {threads} thr rep {rep + 1}: {m['rate'] / 1e6:6.2f} M particle-steps/s "
                          f"(policy {m['policy']})", flush=True)
        finally:
            stop.set()
            for p in hogs:
                p.join()
    head = "# bench_threads: host %s, %d cores, commit %s, %s, bagnold %s\n" % (
        host, cores, commit(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), bag.__version__)
    cols = ["load", "hogs", "case", "rep", "policy", "particles", "steps", "threads", "wall_s", "rate"]
    lines = [head, "\t".join(cols) + "\n"]
    for r in rows:
        lines.append("\t".join(f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c]) for c in cols) + "\n")
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / "threads.tsv").write_text("".join(lines))
    sys.stdout.write("".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
