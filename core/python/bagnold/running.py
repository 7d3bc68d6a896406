"""Long runs from Python: steps in short C calls so that Ctrl-C, progress
and callbacks get a turn between them.

One ``bg_sim_run`` call holds the interpreter until it returns, so a run of
10^6 steps in one call cannot be interrupted. :func:`drive` cuts a run into
calls of about :data:`SLICE_S` seconds each (the slice adapts to the measured
speed, at least one step), so a KeyboardInterrupt raised by Ctrl-C arrives
between two steps, within a fraction of a second, and leaves a consistent
simulation that can be saved or run on. The steps are the ones a single
call takes: the same dt sequence, bit for bit (tests/test_running.py).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Callable, Optional

#: Wall time of one C call, s: short enough for Ctrl-C to feel immediate.
SLICE_S = 0.1


class _Progress:
    """A progress bar on the total (steps, or simulated seconds): tqdm when
    it is installed, else one line on stderr rewritten in place with the
    rate and an ETA."""

    def __init__(self, total: float, unit: str, enabled: bool) -> None:
        self.total, self.unit, self.done = total, unit, 0.0
        self.bar = None
        self.plain = False
        self.t0 = time.monotonic()
        self.last = 0.0
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm  # optional

            self.bar = tqdm(total=total, unit=unit, dynamic_ncols=True)
        except ImportError:
            self.plain = True

    def update(self, done: float) -> None:
        step, self.done = done - self.done, done
        if self.bar is not None:
            self.bar.update(step)
        elif self.plain:
            now = time.monotonic()
            if now - self.last < 0.5 and done < self.total:
                return
            self.last = now
            el = now - self.t0
            frac = done / self.total if self.total > 0 else 1.0
            eta = el * (1 - frac) / frac if frac > 0 else math.inf
            sys.stderr.write(f"\rbagnold: {frac:6.1%} of {self.total:g} {self.unit}, "
                             f"{el:.0f} s elapsed, ETA {eta:.0f} s   ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.plain:
            sys.stderr.write("\n")


def drive(sim: Any, steps: Optional[int], until: Optional[float], progress: bool,
          callback: Optional[Callable[[Any], Any]], every: int) -> None:
    """Run sim ``steps`` steps, or to the simulated time ``until``, in short
    calls; ``callback(sim)`` after every ``every`` steps (and at the end)."""
    if (steps is None) == (until is None):
        raise ValueError("give the number of steps or until=t, not both")
    if every < 1:
        raise ValueError(f"every must be >= 1 step (got {every})")
    t_start = sim.time
    if until is not None and not math.isfinite(until):
        raise ValueError(f"until must be a finite time, s (got {until})")
    total = float(steps) if steps is not None else max(until - t_start, 0.0)
    bar = _Progress(total, "steps" if steps is not None else "s", progress)
    chunk, done_steps = 1, 0
    fresh = False  # whether callback has seen the current state
    try:
        while True:
            if steps is not None:
                left = steps - done_steps
                if left <= 0:
                    break
                n = min(chunk, left)
            else:
                remaining = until - sim.time
                if remaining <= 0:
                    break
                dt, bound = sim.next_dt()
                # no step of the slice may pass `until`: the last ones go to
                # bg_sim_advance_to, which shortens the final step to land on it
                n = min(chunk, int(remaining / max(dt, bound)) - 1)
                if n < 1:
                    sim.advance_to(until)
                    fresh = False
                    break
            if callback is not None:
                n = min(n, every - done_steps % every)
            t0 = time.monotonic()
            sim._run_steps(n)
            wall = time.monotonic() - t0
            done_steps += n
            # the next slice: about SLICE_S of wall time at this speed
            chunk = max(1, min(int(n * SLICE_S / wall) if wall > 0 else 2 * n, 4 * n))
            bar.update(done_steps if steps is not None else sim.time - t_start)
            fresh = False
            if callback is not None and done_steps % every == 0:
                callback(sim)
                fresh = True
        bar.update(total)
    finally:
        bar.close()
    if callback is not None and not fresh:
        callback(sim)
