"""Long runs from Python (bagnold/running.py): a run cut into short library
calls takes the very steps of one call, run(until=t) lands on t as
advance_to does, callbacks and the progress line come when they should,
Ctrl-C stops a run within a second and leaves a simulation that saves and
loads, and the package chooses passive OpenMP waiting unless the user chose."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import bagnold as bag
from conftest import DX, THREADS, lattice


def _column(n_cells: int = 16) -> bag.Sim:
    """A small sand column collapsing on a rough floor: a flowing scene whose
    dt changes from step to step (the CFL follows the speed). On the cpu
    backend, whose runs repeat bit for bit: "auto" is CUDA on a GPU host,
    whose default float atomics do not (found on the H200)."""
    sim = bag.Sim(grid=(n_cells,) * 3, dx=DX, material=bag.sand(phi_deg=30),
                  colliders=[bag.halfspace((0, 0, 2 * DX), (0, 0, 1), friction=0.5)], threads=THREADS,
                  backend="cpu")
    sim.add(lattice((4 * DX, 4 * DX, 2 * DX), (8 * DX, 8 * DX, 10 * DX), DX / 2), ppc=8)
    return sim


def test_sliced_run_takes_the_steps_of_one_call():
    a, b = _column(), _column()
    a.run(300)                 # in slices of about 0.1 s
    b._run_steps(300)          # one bg_sim_run call
    assert a.stats.step == b.stats.step == 300
    assert a.time == b.time
    np.testing.assert_array_equal(a.get("x"), b.get("x"))
    np.testing.assert_array_equal(a.get("v"), b.get("v"))


def test_run_until_lands_as_advance_to():
    a, b = _column(), _column()
    t = 0.02
    a.run(until=t)
    b.advance_to(t)
    assert a.time == pytest.approx(t, abs=1e-9) and b.time == a.time
    assert a.stats.step == b.stats.step
    np.testing.assert_array_equal(a.get("x"), b.get("x"))
    a.run(until=t)  # already there: no step
    assert a.stats.step == b.stats.step


def test_callback_every_n_steps_and_at_the_end():
    sim = _column()
    seen = []
    sim.run(25, callback=lambda s: seen.append(s.stats.step), every=10)
    assert seen == [10, 20, 25]
    seen.clear()
    sim.run(20, callback=lambda s: seen.append(s.stats.step), every=10)
    assert seen == [35, 45]


def test_progress_line_without_tqdm(monkeypatch, capsys):
    # the plain line is what a machine without tqdm shows
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    sim = _column()
    sim.run(40, progress=True)
    err = capsys.readouterr().err
    assert "100.0% of 40 steps" in err and "ETA" in err


@pytest.mark.parametrize("bad", [dict(n=-1), dict(n=2.5), dict(n=5, until=0.1), dict(), dict(n=3, every=0),
                                 dict(until=float("nan"))])
def test_bad_arguments_are_named(bad):
    sim = _column()
    with pytest.raises(ValueError):
        sim.run(**bad)
    assert sim.stats.step == 0


_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import bagnold as bag
    sys.path.insert(0, sys.argv[2])
    from conftest import DX, lattice
    print("policy", bag.thread_wait_policy(), flush=True)
    sim = bag.Sim(grid=(32, 32, 32), dx=DX, material=bag.sand(phi_deg=30),
                  colliders=[bag.halfspace((0, 0, 2 * DX), (0, 0, 1), friction=0.5)], threads=1)
    sim.add(lattice((4 * DX, 4 * DX, 2 * DX), (28 * DX, 28 * DX, 20 * DX), DX / 2), ppc=8)
    sim.run(2)
    print("running", flush=True)
    try:
        sim.run(10**9)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), sim.stats.step, flush=True)
        sim.save(sys.argv[1])
        print("saved", flush=True)
""")


def _child_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(extra)
    return env


def test_ctrl_c_stops_within_a_second(out_dir):
    ckpt = out_dir / "interrupted.bgck"
    tests = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.Popen([sys.executable, "-c", _CHILD, str(ckpt), tests], stdout=subprocess.PIPE,
                         text=True, env=_child_env())
    try:
        assert p.stdout.readline().split() == ["policy", "passive"]
        assert p.stdout.readline().strip() == "running"
        time.sleep(1.5)  # well inside the run
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        words = p.stdout.readline().split()
        assert words[0] == "interrupted", words
        # from the signal to the handler: one slice of about 0.1 s at most
        latency = float(words[1]) - sent
        print(f"Ctrl-C to KeyboardInterrupt: {latency:.3f} s")
        assert latency < 1.0, f"Ctrl-C took {latency:.2f} s"
        steps = int(words[2])
        assert p.stdout.readline().strip() == "saved"
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
    # the interrupted simulation is whole: it loads and runs on
    back = bag.Sim.load(ckpt, backend="cpu", threads=THREADS)
    assert back.stats.step == steps > 2
    back.run(2)
    assert np.isfinite(back.get("x")).all()


@pytest.mark.parametrize("env,want", [({}, "passive"), ({"OMP_WAIT_POLICY": "ACTIVE"}, "active"),
                                      ({"GOMP_SPINCOUNT": "1000"}, "spin 1000")])
def test_wait_policy_is_passive_unless_the_user_chose(env, want):
    out = subprocess.run([sys.executable, "-c", "import bagnold as b; print(b.thread_wait_policy())"],
                         capture_output=True, text=True, env=_child_env(**env), check=True)
    assert out.stdout.strip() == want
