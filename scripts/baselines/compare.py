"""compare.py: the head-to-head benchmark, bagnold against our own Taichi and
Warp implementations of its step and against the public code (geotaichi,
genesis-world, taichi_elements, warp-mpm) on one scene in one run
(scripts/lab bench compare runs it through compare.sh).

Every solver is a worker process that keeps its compiled kernels and answers
one command per line (scripts/bench/bench_scene.c describes the protocol):
bagnold through its C driver bench_scene; our Taichi and Warp implementations
through mpm_taichi.py and mpm_warp.py; the public code, run unmodified, through
the adapters peer_geotaichi.py (PyPI geotaichi 0.2.6, in its own venv),
peer_genesis.py (PyPI genesis-world 1.4.5 with torch, in its own venv),
peer_taichi_elements.py (--taichi-elements DIR) and peer_warp_mpm.py
(--warp-mpm DIR). An adapter states in its ready line the physics that
differs from the scene (physics_differences) and the run-time fixes it
applies to the public code (runtime_fixes); both are printed and written.
While one solver runs, the others wait on their stdin, so they never compete
for the cores. Protocol:

  1. start every worker; the time to its "ready" line is its start-up
     (process, import, framework init);
  2. one untimed round per solver ('run W 1'): its first answer includes the
     JIT compilation of every kernel (Taichi and Warp compile on first use;
     bagnold is compiled ahead of time), reported as compile_s;
  3. R repetitions, interleaved: in each, every solver runs 'run W S' (a fresh
     state, W untimed warm-up steps, S timed steps), the order rotated by one
     solver per repetition so that no solver always runs first or last;
  4. the cross-check: each solver advances a fresh state to the same
     simulated time T and writes its positions; compare.py computes the same
     quantities from every file, so the comparison is not at the mercy of
     three implementations of a percentile.

Throughput is particle-steps/s = N S / wall; per solver min, median and max
over the repetitions, and the ratio bagnold/peer both of the medians and per
repetition (paired: bagnold's rep r against the peer's rep r).
"""
import argparse
import os
import sys

import compare_check as check
import compare_record as record
import compare_report as report
import compare_run as run
import compare_solvers as solvers
import compare_write as write
import scene as S
from compare_common import ROOT, log


def parser():
    """The command line; its help is the docstring's first paragraph."""
    ap = argparse.ArgumentParser(prog="scripts/lab bench compare", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu",
                    help="cpu: Taichi arch=cpu, Warp device cpu, bagnold cpu; gpu: arch=cuda, cuda:0, bagnold cuda")
    ap.add_argument("--particles", type=int, default=None,
                    help="particle count (default 32768 on cpu, 4194304 on gpu)")
    ap.add_argument("--ppc", type=int, default=8, choices=(1, 8, 27, 64), help="particles per cell (default 8)")
    ap.add_argument("--threads", type=int, default=None,
                    help="CPU threads for bagnold and Taichi (default: all online CPUs; Warp's CPU launches are serial)")
    ap.add_argument("--reps", type=int, default=5, help="interleaved repetitions (default 5)")
    ap.add_argument("--warmup", type=int, default=8, help="untimed steps before each timed block (default 8)")
    ap.add_argument("--steps", type=int, default=32, help="timed steps per block (default 32: one re-sort of bagnold's falls inside, its amortised share)")
    ap.add_argument("--check-time", type=float, default=None,
                    help="simulated time of the cross-check, s (default 0.15 for freefall: the block has landed and "
                         "spreads; 2 x the window start, about the end of the runout, for collapse)")
    # TOLERANCE. The three solvers do the same float32 arithmetic in different
    # orders (bagnold's coloured scatter, atomics in any order in the peers) and
    # with different SVD algorithms, so their states part by rounding, and the
    # plastic flow amplifies that: measured on this scene at 32768 particles after
    # t = 0.15 s (771 steps), correct solvers agree to <= 0.05 mm = 0.005 dx in
    # every checked quantity (0.3 mm for the worst single particle). A real
    # physics difference is much larger: the floor's Coulomb mu 0.3 instead of 0.5
    # in one peer moves com z by 0.69 mm and h99 by 0.23 mm. The default 0.02 dx
    # (0.2 mm) sits between the two: 4x above the rounding spread, below the
    # effect of that friction error. (1% of the block side, 1.6 mm here, would
    # have passed the wrong friction.)
    ap.add_argument("--tolerance", type=float, default=0.02,
                    help="cross-check tolerance in cells (units of dx) on the centre of mass, the deposit "
                         "height and the spread (default 0.02 dx = 0.2 mm; see TOLERANCE in compare.py)")
    ap.add_argument("--solvers", default="",
                    help="comma list of bagnold, bagnold-1t, taichi-dense, taichi-bls, warp (our Taichi and Warp "
                         "implementations), geotaichi, genesis, taichi_elements, warp_mpm (the public code) "
                         "(default: all that apply to the device, taichi_elements and warp_mpm when their DIR is "
                         "given) and bagnold-passive (bagnold with OMP_WAIT_POLICY=passive: sleeping instead of "
                         "spinning at barriers, which a busy machine rewards)")
    ap.add_argument("--scene", choices=S.SCENES, default="freefall",
                    help="freefall (default: the block falls onto the floor and spreads) or collapse (the block as "
                         "a column on the floor, particles shuffled, timed mid-runout at 1.5 sqrt(h/g); "
                         "scripts/bench/bench_common.c)")
    ap.add_argument("--geotaichi-python", default="",
                    help="Python with geotaichi 0.2.6 (default BUILD/venv-geotaichi/bin/python, made by compare.sh; "
                         "geotaichi pins taichi 1.6.0, so it cannot share BUILD/venv's taichi 1.7.4)")
    # GENESIS_NOTE, which this help names, is in compare_solvers.py with the other unavailable reasons
    ap.add_argument("--genesis-python", default="",
                    help="Python with genesis-world 1.4.5 and torch (default BUILD/venv-genesis/bin/python, made "
                         "by compare.sh when the disk has 20 GB free: see GENESIS_NOTE in compare.py)")
    ap.add_argument("--taichi-elements", default="", metavar="DIR",
                    help="your checkout of github taichi-dev/taichi_elements: run its engine/mpm_solver.py, "
                         "unmodified, as solver taichi_elements (on BUILD/venv's taichi)")
    ap.add_argument("--warp-mpm", default="", metavar="DIR",
                    help="your checkout of github zeshunzong/warp-mpm: run its mpm_solver_warp.py, unmodified, as "
                         "solver warp_mpm (it needs torch and h5py, and kernels that the pinned warp 1.19 rejects: "
                         "give --warp-mpm-python)")
    ap.add_argument("--warp-mpm-python", default="",
                    help="Python for warp-mpm, with warp-lang, torch and h5py (warp-mpm pins warp-lang 0.10.1; "
                         "default: this Python)")
    ap.add_argument("--first-run-timeout", type=float, default=900, metavar="S",
                    help="seconds a solver may take for its first reset + step (JIT included) before it is "
                         "stopped and reported as failed, so that one that hangs does not hold up the rest "
                         "(default 900)")
    ap.add_argument("--warm-cache", action="store_true",
                    help="let Taichi and Warp use their on-disk kernel caches (default: bypassed, so the "
                         "reported compile time is a cold compile)")
    ap.add_argument("--bagnold", default="", help="bench_scene executable (default BUILD/bin/bench_scene)")
    ap.add_argument("--out", default="", help="output directory (default BUILD/bench/compare)")
    return ap


def options():
    """The command line, checked, and what follows from it, on the same
    namespace: gpu, n (particles), sc (the scene.Scene), nproc, threads,
    check_time (its default for the scene), build, out (made, with its logs/),
    bench_scene and solvers (the list to run)."""
    ap = parser()
    a = ap.parse_args()

    a.gpu = a.device == "gpu"
    a.n = a.particles if a.particles is not None else (4194304 if a.gpu else 32768)
    if a.n < 1:
        ap.error(f"--particles must be >= 1 (got {a.n})")
    if a.reps < 1 or a.steps < 1 or a.warmup < 1:
        ap.error("--reps, --steps and --warmup must be >= 1")
    if not a.first_run_timeout > 0:
        ap.error(f"--first-run-timeout must be > 0 s (got {a.first_run_timeout})")
    a.sc = S.Scene(a.n, a.ppc, a.scene)
    if a.check_time is None:
        # freefall: the block has landed and spreads; collapse: about the end of the runout (3 sqrt(h/g))
        a.check_time = 0.15 if a.scene == "freefall" else round(2.0 * a.sc.window_start, 4)
    if not (a.check_time > 0 and a.check_time <= 10):
        ap.error(f"--check-time must be in (0, 10] s (got {a.check_time})")
    if not (a.tolerance > 0 and a.tolerance <= 10):
        ap.error(f"--tolerance must be in (0, 10] cells (got {a.tolerance})")
    a.nproc = os.cpu_count() or 1
    a.threads = a.threads if a.threads is not None else a.nproc
    if a.threads < 1:
        ap.error(f"--threads must be >= 1 (got {a.threads})")
    a.build = os.path.abspath(os.environ.get("BAGNOLD_BUILD_DIR", os.path.join(ROOT, "build")))
    a.out = os.path.abspath(a.out or os.path.join(a.build, "bench", "compare"))
    os.makedirs(os.path.join(a.out, "logs"), exist_ok=True)
    a.bench_scene = a.bagnold or os.path.join(a.build, "bin", "bench_scene")
    a.solvers = solvers.choose(a, ap.error)
    return a


def main():
    a = options()
    lineup = solvers.lineup(a)
    if not os.path.isfile(a.bench_scene):
        log(f"bagnold's worker {a.bench_scene} does not exist (build it: scripts/lab setup)")
        return 1
    scene_ok = solvers.bagnold_runs_scene(a, lineup)
    rec = record.describe(a)

    workers = solvers.start(a, lineup, scene_ok)                    # 1. start-up
    record.note_binary(rec, workers)
    m = run.Measured()
    m.compile_s = run.first_round(a, workers, lineup.label)        # 2. the compile / JIT round
    m.walls, m.rows = run.repetitions(a, workers, lineup.label)    # 3. interleaved repetitions
    m.chk, m.x0_same = run.cross_check(a, workers, lineup.label)   # 4. the cross-check
    for w in workers.values():
        w.close()

    j = check.judge(a, m, workers)
    record.note_versions(rec, workers)
    write.tables(a, rec, lineup.label, workers, m, j)
    chart_ok = write.chart(a, rec, lineup.label, j)
    md = report.markdown(a, rec, lineup.label, workers, m, j, chart_ok)
    report.save(a.out, md)
    run.remove_positions(a.out, m.chk)
    print("\n".join(md))
    log(f"wrote {a.out}/summary.tsv, compare.tsv, crosscheck.tsv, compare.md" + (", compare.png" if chart_ok else ""))
    return check.exit_status(j)


if __name__ == "__main__":
    sys.exit(main())
