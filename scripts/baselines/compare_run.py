"""compare_run.py: steps 2 to 4 of the head-to-head's protocol (compare.py's
docstring) on started workers: the compile round, the interleaved timed
repetitions and the cross-check runs, whose positions compare_check.py
measures."""
import os

import numpy as np

from compare_check import metrics
from compare_common import log


class Measured:
    """What the workers answered: compile_s {solver: first reset + step, s};
    walls {solver: [timed block, s]} and rows (compare.tsv's) of the
    repetitions; chk {solver: cross-check metrics}, x0_same {solver: initial
    lattice identical to the first solver's}."""

    def __init__(self):
        self.compile_s, self.walls, self.rows, self.chk, self.x0_same = {}, {}, [], {}, {}


def first_round(a, workers, label_of):
    """Step 2: one untimed 'run W 1' per solver, which includes its JIT.
    {solver: first reset + step, s}; a bagnold that should run on the device
    but ran on the host is marked failed."""
    compile_s = {}
    for s, w in workers.items():
        if w.error:
            continue
        try:
            r = w.ask(f"run {a.warmup} 1", timeout=a.first_run_timeout)
            compile_s[s] = float(r["first_step_s"])
            if s.startswith("bagnold") and a.gpu and r.get("on_device") != "1":
                w.error = f"backend {r.get('backend')} ran on the host instead of a device"
            log(f"{label_of[s]}: ready after {w.startup_s:.2f} s; first reset + step (with any JIT) "
                f"{compile_s[s]:.3f} s")
        except RuntimeError as e:
            log(f"{label_of[s]}: failed in its first run: {e}")
    return compile_s


def repetitions(a, workers, label_of):
    """Step 3: a.reps rounds of 'run W S' on every live solver, the order
    rotated by one each round. ({solver: [wall s]}, the rows of compare.tsv)."""
    live = [s for s in a.solvers if not workers[s].error]
    walls = {s: [] for s in a.solvers}
    rows = []
    for rep in range(a.reps):
        order = live[rep % len(live):] + live[:rep % len(live)] if live else []
        for s in order:
            w = workers[s]
            if w.error:
                continue
            try:
                r = w.ask(f"run {a.warmup} {a.steps}")
            except RuntimeError as e:
                log(f"{label_of[s]}: rep {rep + 1} failed: {e}")
                continue
            wall = float(r["wall_s"])
            walls[s].append(wall)
            pss = a.n * a.steps / wall
            rows.append((s, rep + 1, wall, pss, float(r.get("dt", "nan")), int(r.get("n_active", -1))))
            log(f"rep {rep + 1}/{a.reps} {label_of[s]}: {a.steps} steps in {wall:.3f} s, "
                f"{pss / 1e6:.3f} M particle-steps/s")
    return walls, rows


def cross_check(a, workers, label_of):
    """Step 4: every solver's initial positions (against the first solver's,
    to the bit) and its positions at a.check_time, with their metrics.
    ({solver: metrics + time, steps, wall, n_active, x}, {solver: initial
    lattice identical})."""
    chk = {}
    x0_same = {}
    ref_x0 = None
    for s in a.solvers:
        w = workers[s]
        if w.error:
            continue
        path0 = os.path.join(a.out, f"x0_{s}.f32")
        path = os.path.join(a.out, f"x_{s}.f32")
        try:
            w.ask(f"check 0 {path0}")
            x0 = np.fromfile(path0, dtype=np.float32)
            if ref_x0 is None:
                ref_x0 = x0
            x0_same[s] = bool(x0.shape == ref_x0.shape and np.array_equal(x0, ref_x0))
            os.remove(path0)
            log(f"cross-check: {label_of[s]} to t = {a.check_time} s ...")
            r = w.ask(f"check {a.check_time} {path}")
            x = np.fromfile(path, dtype=np.float32).reshape(-1, 3)
            if x.shape[0] != a.n:
                raise RuntimeError(f"{x.shape[0]} positions written, expected {a.n}")
            m = metrics(x)
            m.update(time=float(r["time"]), steps=int(r["steps"]), wall=float(r["wall_s"]),
                     n_active=int(r["n_active"]), x=x)
            chk[s] = m
            log(f"cross-check: {label_of[s]}: {m['steps']} steps to t = {m['time']:.6g} s in {m['wall']:.1f} s; "
                f"com z {m['com_z']:.6f} m, h99 {m['h99']:.6f} m, spread {m['spread']:.6f} m")
        except RuntimeError as e:
            log(f"cross-check: {label_of[s]} failed: {e}")
    return chk, x0_same


def remove_positions(out, chk):
    """The cross-check's position files, once everything is written."""
    for s in chk:
        try:
            os.remove(os.path.join(out, f"x_{s}.f32"))
        except OSError:
            pass
