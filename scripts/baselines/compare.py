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
import datetime
import math
import os
import platform
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse

import numpy as np

import scene as S

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def log(msg):
    print(f"compare: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------- workers

class Worker:
    """One solver process speaking the line protocol."""

    @classmethod
    def unavailable(cls, key, label, reason):
        w = cls.__new__(cls)
        w.key, w.label, w.argv, w.info, w.error, w.p, w.log = key, label, [], {}, reason, None, None
        w.startup_s = float("nan")
        return w

    def __init__(self, key, label, argv, logpath, env=None):
        self.key, self.label, self.argv = key, label, argv
        self.info, self.error = {}, None
        self.log = open(logpath, "w")
        self.log.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
        self.log.flush()
        t0 = time.perf_counter()
        try:
            self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                      text=True, bufsize=1, env=env, cwd=HERE)
        except OSError as e:
            self.p, self.error = None, f"cannot start {argv[0]}: {e}"
            return
        self.q = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        line = self._line(600)
        self.startup_s = time.perf_counter() - t0
        if line is None:
            time.sleep(0.2)
            rc = self.p.poll()
            self.error = (f"exited with status {rc} before it was ready (log: {logpath})" if rc is not None
                          else f"no answer within 600 s (log: {logpath})")
        elif line.startswith("ready"):
            self.info = parse_kv(line)
        else:
            self.error = line[6:] if line.startswith("error ") else f"unexpected '{line}'"

    def _pump(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def _line(self, timeout):
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None

    def ask(self, cmd, timeout=3600):
        if self.error:
            raise RuntimeError(self.error)
        try:
            self.p.stdin.write(cmd + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            self.error = "the worker has exited"
            raise RuntimeError(self.error)
        line = self._line(timeout)
        if line is None:
            time.sleep(0.2)
            rc = self.p.poll()
            if rc is None:
                # a worker that hangs keeps its device memory and its cores: stop it now, so the
                # other solvers' timings and the cross-check go on without it
                self.p.kill()
                self.p.wait()
            self.error = (f"the worker exited with status {rc} during '{cmd}' (log: {self.log.name})"
                          if rc is not None else f"no answer to '{cmd}' within {timeout} s: stopped")
            raise RuntimeError(self.error)
        if line.startswith("error"):
            raise RuntimeError(line[6:])
        return parse_kv(line)

    def close(self):
        if self.p is None and self.log is None:
            return
        if self.p and self.p.poll() is None:
            try:
                self.p.stdin.write("quit\n")
                self.p.stdin.flush()
                self.p.wait(timeout=30)
            except Exception:
                self.p.kill()
                self.p.wait()
        self.log.close()


def parse_kv(line):
    out = {"_": line.split()[0]}
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out


# ------------------------------------------------------------------ machine

def git_commit():
    env = os.environ.get("BAGNOLD_COMMIT")
    if env:
        return env
    try:
        h = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                           check=True).stdout.strip()
        d = subprocess.run(["git", "--no-optional-locks", "-C", ROOT, "status", "--porcelain"],
                           capture_output=True, text=True).stdout.strip()
        return h + ("-dirty" if d else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# --------------------------------------------------------------- cross-check

def metrics(x):
    """Centre of mass (equal masses), deposit height = the 99th percentile of
    the particle heights (nearest rank), lateral spread = RMS horizontal
    distance from the vertical axis through the centre of mass. m, grid frame
    (origin at node 0)."""
    x = x.astype(np.float64)
    com = x.mean(axis=0)
    z = np.sort(x[:, 2])
    h99 = z[max(0, int(math.ceil(0.99 * len(z))) - 1)]
    r2 = (x[:, 0] - com[0]) ** 2 + (x[:, 1] - com[1]) ** 2
    return {"com_x": com[0], "com_y": com[1], "com_z": com[2], "h99": h99, "spread": math.sqrt(r2.mean())}


CHECK_KEYS = ("com_x", "com_y", "com_z", "h99", "spread")

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


# THE PUBLIC CODE. Solvers that are somebody else's published MPM code, run
# unmodified through an adapter (peer_*.py), as distinct from our own Taichi
# and Warp implementations of bagnold's step (mpm_taichi.py, mpm_warp.py).
PUBLIC = ("geotaichi", "genesis", "taichi_elements", "warp_mpm")
PUBLIC_LABEL = {
    "geotaichi": "the public code: geotaichi 0.2.6 (PyPI, unmodified)",
    "genesis": "the public code: genesis-world 1.4.5 (PyPI, unmodified)",
    "taichi_elements": "the public code: taichi_elements (your checkout, unmodified)",
    "warp_mpm": "the public code: warp-mpm (your checkout, unmodified)",
}
# Where a peer's physics differs from the scene's by more than the rounding the
# tolerance was set from (TOLERANCE below), its cross-check rows say so instead
# of PASS or FAIL: the tolerance is never widened for it. The deltas are still
# computed and written, like everyone's.
NOT_COMPARABLE = {
    "geotaichi": "a different model of the same sand (small-strain hypoelastic Drucker-Prager without the "
                 "volume correction, USL transfers with PIC velocities, a floor friction on nodal forces), so the "
                 "0.02 dx rounding tolerance does not apply",
    "warp_mpm": "no volume correction (log Jp) in its sand return map, so the 0.02 dx rounding tolerance does "
                "not apply",
}
# genesis-world 1.4.5 (peer_genesis.py), in its own venv BUILD/venv-genesis,
# which compare.sh makes when it is missing and the disk has 20 GB free:
# genesis imports torch without declaring it, and PyPI's Linux torch (2.15.0)
# is the CUDA build with its nvidia-* wheels, so the venv is 8.5 GB (3-6 min to
# install on the 2-core CPU machine). Its MPM solver with the Sand material
# (the Klar return map of taichi_elements, as our scene's) runs on the
# scene's lattice with a fixed substep dt and a rigid plane as the Coulomb
# floor; it is cross-checked like our own ports (see peer_genesis.py).
GENESIS_NOTE = ("genesis-world needs BUILD/venv-genesis (genesis-world 1.4.5 with PyPI's torch 2.15.0, 8.5 GB): "
                "compare.sh makes it when the disk has 20 GB free and BAGNOLD_NO_GENESIS is not 1; or pass "
                "--genesis-python PATH")


def md_to_html(lines):
    """The markdown written above (paragraphs and pipe tables with `code` and
    **bold**) as an HTML fragment for scripts/report.py's page, through the
    lab's one Markdown renderer (scripts/mdrender.py)."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import mdrender

    return mdrender.to_html(lines)


# ---------------------------------------------------------------------- main

def stats(v):
    v = sorted(v)
    return v[0], float(np.median(v)), v[-1]


def main():
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
    a = ap.parse_args()

    gpu = a.device == "gpu"
    n = a.particles if a.particles is not None else (4194304 if gpu else 32768)
    if n < 1:
        ap.error(f"--particles must be >= 1 (got {n})")
    if a.reps < 1 or a.steps < 1 or a.warmup < 1:
        ap.error("--reps, --steps and --warmup must be >= 1")
    if not a.first_run_timeout > 0:
        ap.error(f"--first-run-timeout must be > 0 s (got {a.first_run_timeout})")
    sc = S.Scene(n, a.ppc, a.scene)
    if a.check_time is None:
        # freefall: the block has landed and spreads; collapse: about the end of the runout (3 sqrt(h/g))
        a.check_time = 0.15 if a.scene == "freefall" else round(2.0 * sc.window_start, 4)
    if not (a.check_time > 0 and a.check_time <= 10):
        ap.error(f"--check-time must be in (0, 10] s (got {a.check_time})")
    if not (a.tolerance > 0 and a.tolerance <= 10):
        ap.error(f"--tolerance must be in (0, 10] cells (got {a.tolerance})")
    nproc = os.cpu_count() or 1
    threads = a.threads if a.threads is not None else nproc
    if threads < 1:
        ap.error(f"--threads must be >= 1 (got {threads})")
    build = os.path.abspath(os.environ.get("BAGNOLD_BUILD_DIR", os.path.join(ROOT, "build")))
    out = os.path.abspath(a.out or os.path.join(build, "bench", "compare"))
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    bench_scene = a.bagnold or os.path.join(build, "bin", "bench_scene")

    all_solvers = ["bagnold"] + (["bagnold-1t"] if not gpu and threads > 1 else []) + \
        ["taichi-dense", "taichi-bls", "warp", "geotaichi", "genesis"] + \
        (["taichi_elements"] if a.taichi_elements else []) + (["warp_mpm"] if a.warp_mpm else [])
    solvers = [s.strip() for s in a.solvers.split(",") if s.strip()] if a.solvers else all_solvers
    for s in solvers:
        if s not in ("bagnold", "bagnold-passive", "bagnold-1t", "taichi-dense", "taichi-bls", "warp") + PUBLIC:
            ap.error(f"--solvers: unknown solver '{s}'")
    if "bagnold" not in solvers:
        ap.error("--solvers must include bagnold (the ratios are bagnold/peer)")
    if "taichi_elements" in solvers and not a.taichi_elements:
        ap.error("solver taichi_elements needs --taichi-elements DIR")
    if "warp_mpm" in solvers and not a.warp_mpm:
        ap.error("solver warp_mpm needs --warp-mpm DIR")

    py = sys.executable
    common = ["--particles", str(n), "--ppc", str(a.ppc)]
    peer = common + ["--scene", a.scene] + (["--warm-cache"] if a.warm_cache else [])
    # a bare interpreter name (python3) is looked up on PATH, as a shell would
    def interpreter(given, default):
        if given and os.sep not in given:
            return shutil.which(given) or given
        return given or default
    gt_py = interpreter(a.geotaichi_python, os.path.join(build, "venv-geotaichi", "bin", "python"))
    gen_py = interpreter(a.genesis_python, os.path.join(build, "venv-genesis", "bin", "python"))
    wm_py = interpreter(a.warp_mpm_python, py)
    te_dir = os.path.abspath(a.taichi_elements) if a.taichi_elements else ""
    wm_dir = os.path.abspath(a.warp_mpm) if a.warp_mpm else ""
    argv_of = {
        "bagnold": [bench_scene] + common + ["--threads", str(threads), "--backend", "device" if gpu else "host"],
        "bagnold-1t": [bench_scene] + common + ["--threads", "1", "--backend", "host"],
        "bagnold-passive": [bench_scene] + common + ["--threads", str(threads), "--backend", "host"],
        "taichi-dense": [py, "mpm_taichi.py"] + peer + ["--device", a.device, "--threads", str(threads),
                                                         "--variant", "dense"],
        "taichi-bls": [py, "mpm_taichi.py"] + peer + ["--device", a.device, "--threads", str(threads),
                                                       "--variant", "bls"],
        "warp": [py, "mpm_warp.py"] + peer + ["--device", a.device],
        "geotaichi": [gt_py, "peer_geotaichi.py"] + peer + ["--device", a.device, "--threads", str(threads)],
        "genesis": [gen_py, "peer_genesis.py"] + peer + ["--device", a.device, "--threads", str(threads)],
        "taichi_elements": [py, "peer_taichi_elements.py"] + peer + ["--device", a.device, "--threads",
                                                                      str(threads)],
        "warp_mpm": [wm_py, "peer_warp_mpm.py"] + peer + ["--device", a.device],
    }
    env_of = {"taichi_elements": {"BAGNOLD_TAICHI_ELEMENTS": te_dir}, "warp_mpm": {"BAGNOLD_WARP_MPM": wm_dir}}
    dev_word = "cuda" if gpu else "cpu"
    tw = f"{threads} thread{'s' if threads != 1 else ''}"
    ttw = 'cuda' if gpu else f'cpu, {tw}'
    label_of = {
        "bagnold": f"bagnold ({dev_word}{'' if gpu else f', {tw}'})",
        "bagnold-1t": "bagnold (cpu, 1 thread)",
        "bagnold-passive": f"bagnold (cpu, {tw}, OMP_WAIT_POLICY=passive)",
        "taichi-dense": f"our Taichi implementation, dense (mpm_taichi.py; {ttw})",
        "taichi-bls": f"our Taichi implementation, pid+BLS (mpm_taichi.py; {ttw})",
        "warp": f"our Warp implementation (mpm_warp.py; {'cuda' if gpu else 'cpu, 1 thread: serial CPU launches'})",
        "geotaichi": f"{PUBLIC_LABEL['geotaichi']} ({ttw})",
        "genesis": f"{PUBLIC_LABEL['genesis']} ({ttw})",
        "taichi_elements": f"{PUBLIC_LABEL['taichi_elements']} ({ttw})",
        "warp_mpm": f"{PUBLIC_LABEL['warp_mpm']} ({'cuda' if gpu else 'cpu, serial CPU launches'})",
    }
    if not os.path.isfile(bench_scene):
        log(f"bagnold's worker {bench_scene} does not exist (build it: scripts/lab setup)")
        return 1
    bagnold_scene_ok = True
    if a.scene != "freefall":
        hr = subprocess.run([bench_scene, "--help"], capture_output=True, text=True)
        bagnold_scene_ok = "--scene" in hr.stdout
        if bagnold_scene_ok:
            for k in ("bagnold", "bagnold-1t", "bagnold-passive"):
                argv_of[k] += ["--scene", a.scene]

    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    commit = git_commit()
    # the machine as the lab's C describes it in every record (scripts/bglab.py)
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import bglab

    try:
        here = bglab.host(build)
    except bglab.LabQueryError as e:
        sys.exit(f"compare: {e}")
    host, cpu = here["host"], here["cpu"]
    gname = here["gpu"] if gpu else ""
    cmdline = os.environ.get("BAGNOLD_COMPARE_COMMAND") or ("scripts/lab bench compare " + " ".join(
        shlex.quote(x) for x in sys.argv[1:]))
    log(f"scene {a.scene}; {n} particles (ppc {a.ppc}, block {sc.side}^3 cells, grid {sc.grid_text()} nodes), device "
        f"{a.device}, {threads} threads, {a.reps} reps x ({a.warmup} warm-up + {a.steps} timed steps); "
        f"commit {commit}; output {out}")
    try:
        la = os.getloadavg()
        log(f"load average at start {la[0]:.2f} {la[1]:.2f} {la[2]:.2f} on {nproc} CPUs")
        if la[0] > 0.5 * nproc:
            log("warning: the machine is busy; timings will be noisy and multi-threaded ones pessimistic")
    except OSError:
        la = (float("nan"),) * 3

    workers = {}
    for s in solvers:
        log(f"starting {label_of[s]}")
        reason = None
        if s.startswith("bagnold") and not bagnold_scene_ok:
            reason = (f"{bench_scene} has no --scene option, so bagnold cannot run the {a.scene} scene "
                      "(bench_scene.c needs a --scene freefall or collapse option: bench_scene_build_kind and, in 'run', the "
                      "untimed advance to bench_scene_window_start before the warm-up steps)")
        elif s == "geotaichi" and not os.path.isfile(gt_py):
            reason = (f"no {gt_py} (compare.sh makes BUILD/venv-geotaichi; or pass --geotaichi-python): geotaichi "
                      "0.2.6 pins taichi 1.6.0, apart from BUILD/venv's taichi 1.7.4")
        elif s == "genesis" and not os.path.isfile(gen_py):
            reason = f"no {gen_py}: {GENESIS_NOTE}"
        elif s == "warp_mpm" and not os.path.isfile(wm_py):
            reason = f"--warp-mpm-python {wm_py} does not exist"
        if reason:
            w = Worker.unavailable(s, label_of[s], reason)
        else:
            env = dict(os.environ, OMP_WAIT_POLICY="passive") if s == "bagnold-passive" else None
            if s in env_of:
                env = dict(os.environ, **env_of[s])
            w = Worker(s, label_of[s], argv_of[s], os.path.join(out, "logs", f"{s}.log"), env)
        if w.error:
            log(f"{label_of[s]}: unavailable: {w.error}")
        workers[s] = w
        for field in ("physics_differences", "runtime_fixes"):
            v = urllib.parse.unquote(w.info.get(field, "none"))
            if w.info and v != "none":
                log(f"{label_of[s]}: {field.replace('_', ' ')}:")
                for d in v.split(" | "):
                    log(f"    - {d}")

    # the worker's own build: the checkout's commit says nothing about a binary carried from elsewhere
    bin_commit = workers["bagnold"].info.get("commit", "unknown") if "bagnold" in workers else "unknown"
    h_bin, h_co = bin_commit.split("-")[0], commit.split("-")[0]
    if bin_commit != "unknown" and not (h_bin.startswith(h_co) or h_co.startswith(h_bin)):
        log(f"warning: bench_scene was built from commit {bin_commit}, the checkout is at {commit}")

    # 2. compile / JIT round
    compile_s = {}
    for s, w in workers.items():
        if w.error:
            continue
        try:
            r = w.ask(f"run {a.warmup} 1", timeout=a.first_run_timeout)
            compile_s[s] = float(r["first_step_s"])
            if s.startswith("bagnold") and gpu and r.get("on_device") != "1":
                w.error = f"backend {r.get('backend')} ran on the host instead of a device"
            log(f"{label_of[s]}: ready after {w.startup_s:.2f} s; first reset + step (with any JIT) "
                f"{compile_s[s]:.3f} s")
        except RuntimeError as e:
            log(f"{label_of[s]}: failed in its first run: {e}")

    # 3. interleaved repetitions
    live = [s for s in solvers if not workers[s].error]
    walls = {s: [] for s in solvers}
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
            pss = n * a.steps / wall
            rows.append((s, rep + 1, wall, pss, float(r.get("dt", "nan")), int(r.get("n_active", -1))))
            log(f"rep {rep + 1}/{a.reps} {label_of[s]}: {a.steps} steps in {wall:.3f} s, "
                f"{pss / 1e6:.3f} M particle-steps/s")

    # 4. cross-check
    chk = {}
    x0_same = {}
    ref_x0 = None
    for s in solvers:
        w = workers[s]
        if w.error:
            continue
        path0 = os.path.join(out, f"x0_{s}.f32")
        path = os.path.join(out, f"x_{s}.f32")
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
            if x.shape[0] != n:
                raise RuntimeError(f"{x.shape[0]} positions written, expected {n}")
            m = metrics(x)
            m.update(time=float(r["time"]), steps=int(r["steps"]), wall=float(r["wall_s"]),
                     n_active=int(r["n_active"]), x=x)
            chk[s] = m
            log(f"cross-check: {label_of[s]}: {m['steps']} steps to t = {m['time']:.6g} s in {m['wall']:.1f} s; "
                f"com z {m['com_z']:.6f} m, h99 {m['h99']:.6f} m, spread {m['spread']:.6f} m")
        except RuntimeError as e:
            log(f"cross-check: {label_of[s]} failed: {e}")
    for w in workers.values():
        w.close()

    # --------------------------------------------------------------- summaries
    tol = a.tolerance * float(S.DX)
    summ = {}
    for s in solvers:
        if walls[s]:
            pss = [n * a.steps / t for t in walls[s]]
            summ[s] = stats(pss)
    ref = "bagnold"
    ratio = {}
    for s in solvers:
        if s == ref or s not in summ or ref not in summ:
            continue
        k = min(len(walls[ref]), len(walls[s]))
        paired = [walls[s][i] / walls[ref][i] for i in range(k)]  # bagnold's rate over the peer's
        ratio[s] = (summ[ref][1] / summ[s][1],) + stats(paired)
    ratio_1t = None
    if "bagnold-1t" in summ and "warp" in summ:
        ratio_1t = summ["bagnold-1t"][1] / summ["warp"][1]

    verdict = {}
    if ref in chk:
        r0 = chk[ref]
        for s, m in chk.items():
            d = {k: m[k] - r0[k] for k in CHECK_KEYS}
            dmax = float(np.abs(m["x"].astype(np.float64) - r0["x"].astype(np.float64)).max())
            ok = all(abs(v) <= tol for v in d.values()) and m["n_active"] == n and x0_same.get(s, False)
            nc = NOT_COMPARABLE.get(s) if s != ref else None
            if nc and not x0_same.get(s, False):
                nc = None  # a different initial lattice is a plain FAIL, whatever the physics
            verdict[s] = (d, dmax, ok, nc)
    all_pass = bool(verdict) and all(v[2] for v in verdict.values() if not v[3]) and \
        all(s in verdict for s in solvers if not workers[s].error)

    def vtext(s, md=False):
        cv = verdict.get(s)
        if cv is None:
            return "n/a"
        if cv[3]:
            return f"not comparable: {cv[3]}"
        return "PASS" if cv[2] else ("**FAIL**" if md else "FAIL")

    def info_list(s, field):
        v = urllib.parse.unquote(workers[s].info.get(field, "none")) if workers[s].info else "none"
        return [] if v == "none" else v.split(" | ")

    versions = {}
    for s, w in workers.items():
        if w.info:
            versions[s] = w.info.get("version", "?")
    ver_text = ", ".join(dict.fromkeys(f"{k} {v}" for k, v in
                                       ((s.split('-')[0], versions[s]) for s in versions)))
    meta = [
        ("benchmark", "head-to-head: bagnold vs our Taichi and Warp implementations (mpm_taichi.py, mpm_warp.py) "
                      "vs the public code (geotaichi, genesis-world, taichi_elements, warp-mpm) (scripts/baselines)"),
        ("command", cmdline),
        ("date_utc", date), ("commit", commit), ("bagnold_binary_commit", bin_commit), ("machine", host),
        ("cpu_model", cpu), ("cpus_online", str(nproc)), ("gpu", gname or "none"),
        ("load_average_at_start", " ".join(f"{v:.2f}" for v in la)),
        ("solver_versions", ver_text), ("python", platform.python_version()),
        ("environment", " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ)
                                 if k.startswith(("OMP_", "GOMP_", "TI_", "WARP_")))
                            or "no OMP_/GOMP_/TI_/WARP_ variables"),
        ("scene", f"{a.scene}" + (f" (column on the floor, {sc.margin} free cells each side, shuffled order, runs "
                                  f"timed from t = {sc.window_start:.4g} s)" if a.scene == "collapse" else "") +
                  f": {n} particles, ppc {a.ppc}, sand block {sc.side}^3 cells, dx {float(S.DX):.4g} m, grid "
                  f"{sc.grid_text()} nodes, Klar sand (E 3.537e5 Pa, nu 0.3, rho0 2200, phi 35 deg, no hardening, "
                  f"volume correction), floor Coulomb mu 0.5, other faces slip, 2 node layers, cfl 0.3"),
        ("protocol", f"device {a.device}, {threads} threads, {a.reps} interleaved reps (order rotated), "
                     f"fresh state per block, {a.warmup} warm-up + {a.steps} timed steps; peers' kernel caches "
                     f"{'used' if a.warm_cache else 'bypassed (cold compile)'}"),
        ("cross_check", f"positions after t = {a.check_time} s simulated; tolerance {a.tolerance:g} dx = "
                        f"{tol * 1e3:.3f} mm on com_x, com_y, com_z, h99 (99th-percentile height), spread (RMS "
                        f"horizontal distance from the centre of mass); reference bagnold"),
    ]

    def header(f):
        for k, v in meta:
            f.write(f"# {k}: {v}\n")

    with open(os.path.join(out, "compare.tsv"), "w") as f:
        header(f)
        f.write("solver\tlabel\trep\twall_s (s)\tparticle_steps_per_s (1/s)\tdt_last (s)\tn_active\n")
        for s, rep, wall, pss, dt, na in rows:
            f.write(f"{s}\t{label_of[s]}\t{rep}\t{wall:.6f}\t{pss:.6g}\t{dt:.6g}\t{na}\n")

    with open(os.path.join(out, "summary.tsv"), "w") as f:
        header(f)
        f.write("solver\tlabel\tversion\tstatus\tstartup_s (s)\tcompile_first_step_s (s)\tpss_min (1/s)\t"
                "pss_median (1/s)\tpss_max (1/s)\tbagnold_over_solver_medians\tpaired_min\tpaired_median\t"
                "paired_max\tcrosscheck\tphysics_differences\truntime_fixes\n")
        for s in solvers:
            w = workers[s]
            st = "ok" if s in summ else f"unavailable: {w.error}" if w.error else "failed"
            mn, md, mx = summ.get(s, (float("nan"),) * 3)
            rr = ratio.get(s, (float("nan"),) * 4)
            cv = verdict.get(s)
            f.write(f"{s}\t{label_of[s]}\t{versions.get(s, '')}\t{st}\t{getattr(w, 'startup_s', float('nan')):.3f}\t"
                    f"{compile_s.get(s, float('nan')):.3f}\t{mn:.6g}\t{md:.6g}\t{mx:.6g}\t{rr[0]:.4g}\t{rr[1]:.4g}\t"
                    f"{rr[2]:.4g}\t{rr[3]:.4g}\t{vtext(s)}\t"
                    f"{'; '.join(info_list(s, 'physics_differences')) or ('none' if s not in PUBLIC else 'n/a')}\t"
                    f"{'; '.join(info_list(s, 'runtime_fixes')) or 'none'}\n")

    with open(os.path.join(out, "crosscheck.tsv"), "w") as f:
        header(f)
        f.write("solver\tsim_time (s)\tsteps\tcom_x (m)\tcom_y (m)\tcom_z (m)\th99 (m)\tspread (m)\t"
                "d_com_x (m)\td_com_y (m)\td_com_z (m)\td_h99 (m)\td_spread (m)\tmax_particle_diff (m)\t"
                "tolerance (m)\tinitial_lattice_identical\tn_active\tverdict\n")
        for s in solvers:
            if s not in chk:
                f.write(f"{s}\t" + "\t".join(["nan"] * 14) + "\tn/a\t-1\tn/a\n")
                continue
            m = chk[s]
            d, dmax, ok, _ = verdict.get(s, ({k: float("nan") for k in CHECK_KEYS}, float("nan"), False, None))
            f.write(f"{s}\t{m['time']:.9g}\t{m['steps']}\t" + "\t".join(f"{m[k]:.7f}" for k in CHECK_KEYS) + "\t" +
                    "\t".join(f"{d[k]:.3e}" for k in CHECK_KEYS) + f"\t{dmax:.3e}\t{tol:.3e}\t"
                    f"{'yes' if x0_same.get(s) else 'no'}\t{m['n_active']}\t{vtext(s)}\n")

    # gnuplot bar chart
    dat = os.path.join(out, "chart.dat")
    with open(dat, "w") as f:
        f.write(f"# head-to-head throughput in M particle-steps/s, commit {commit}\n")
        f.write("index\tlabel\tmedian\tmin\tmax\tratio_text\tcolour\n")
        for i, s in enumerate(solvers):
            if s not in summ:
                continue
            mn, md, mx = summ[s]
            # never an empty field: gnuplot reads "" as missing and shifts the columns
            rt = f"bagnold/this {ratio[s][0]:.2f}x" if s in ratio and s != "bagnold" else "reference"
            colour = 0xC0504D if s.startswith("bagnold") else 0x4A78B0
            # the axis takes the label up to its details in parentheses (the table has them all)
            short = label_of[s].split(" (")[0] if not s.startswith("bagnold") else label_of[s]
            f.write(f'{i}\t"{short}"\t{md / 1e6:.6g}\t{mn / 1e6:.6g}\t{mx / 1e6:.6g}\t"{rt}"\t{colour}\n')
    gp = os.path.join(HERE, "compare.gp")
    omp = " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ) if k.startswith("OMP_") and os.environ[k])
    title = (f"{n} particles, {a.device} ({cpu if not gpu else gname}), commit {commit}"
             f"{', ' + omp if omp else ''}").replace("'", "''")
    png = os.path.join(out, "compare.png")
    chart_ok = False
    if shutil.which("gnuplot"):
        r = subprocess.run(["gnuplot", "-e", f"in='{dat}'; out='{png}'; ttl='{title}'", gp],
                           capture_output=True, text=True)
        chart_ok = r.returncode == 0 and os.path.isfile(png)
        if not chart_ok:
            log(f"gnuplot failed: {r.stderr.strip()[-500:]}")
    else:
        log("gnuplot not found: no chart (scripts/lab setup installs gnuplot-nox)")

    # markdown for the report
    md = []
    md.append(f"Head-to-head on the same scene ({a.scene}"
              + (f": a column on the floor, shuffled, timed from t = {sc.window_start:.3f} s" if a.scene == "collapse"
                 else "") + f") in one run: {n} particles (ppc {a.ppc}, block {sc.side}³ cells, "
              f"grid {sc.grid_text()} nodes), device {a.device}, {date}, commit `{commit}`, {host} "
              f"({cpu}, {nproc} CPUs{', GPU ' + gname if gname else ''}); {ver_text}. "
              f"{a.reps} interleaved repetitions of {a.warmup} warm-up + {a.steps} timed steps; load average at "
              f"start {la[0]:.2f}." + (f" Environment: `{omp}`." if omp else ""))
    if la[0] == la[0] and la[0] > 0.5 * nproc:
        md.append("")
        md.append(f"**Shared machine**: load average {la[0]:.1f} on {nproc} CPUs when the run started, so other "
                  "processes competed for the cores throughout; multi-threaded solvers lose most (a thread that "
                  "is descheduled stalls every barrier), and the 1-thread lines are the steadier comparison.")
    md.append("")
    md.append("| solver | M particle-steps/s min / median / max | bagnold ÷ solver (medians; paired min..max) "
              "| start-up s | first step s (incl. JIT) | cross-check |")
    md.append("|---|---:|---:|---:|---:|---|")
    for s in solvers:
        w = workers[s]
        if s not in summ:
            md.append(f"| {label_of[s]} | unavailable: {w.error or 'failed'} | | | | |")
            continue
        mn, md_, mx = summ[s]
        rr = ratio.get(s)
        rtext = "—" if s == ref else (f"{rr[0]:.2f}× ({rr[1]:.2f}..{rr[3]:.2f})" if rr else "n/a")
        ctext = vtext(s, md=True)
        if ctext.startswith("not comparable"):
            ctext = "not comparable (below)"
        md.append(f"| {label_of[s]} | {mn / 1e6:.3f} / {md_ / 1e6:.3f} / {mx / 1e6:.3f} | {rtext} | "
                  f"{w.startup_s:.2f} | {compile_s.get(s, float('nan')):.3f} | {ctext} |")
    if ratio_1t is not None:
        md.append("")
        md.append(f"Single thread against single thread (Warp's CPU device runs a launch serially): bagnold 1 "
                  f"thread ÷ Warp = {ratio_1t:.2f}× (medians).")
    bl = [s for s in solvers if s.startswith("bagnold") and s in summ]
    peers = [s for s in solvers if not s.startswith("bagnold") and s in summ]
    if len(bl) > 1 and peers:
        md.append("")
        md.append("Every bagnold line against every peer (ratio of the medians):")
        md.append("")
        md.append("| | " + " | ".join(label_of[p] for p in peers) + " |")
        md.append("|---|" + "---:|" * len(peers))
        for b in bl:
            md.append(f"| {label_of[b]} | " + " | ".join(f"{summ[b][1] / summ[p][1]:.2f}×" for p in peers) + " |")
    md.append("")
    if chk:
        md.append(f"Cross-check after t = {a.check_time} s simulated (reference bagnold; tolerance "
                  f"{a.tolerance:g} dx = {tol * 1e3:.2f} mm on each of com x, y, z, h99 and spread; the "
                  f"initial lattices must be identical to the bit): ")
        md.append("")
        md.append("| solver | steps | com z mm | h99 mm | spread mm | Δcom (x, y, z) mm | Δh99 mm | Δspread mm | "
                  "max particle Δ mm | verdict |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for s in solvers:
            if s not in chk or s not in verdict:
                continue
            m = chk[s]
            d, dmax, ok, _ = verdict[s]
            md.append(f"| {label_of[s]} | {m['steps']} | {m['com_z'] * 1e3:.3f} | {m['h99'] * 1e3:.3f} | "
                      f"{m['spread'] * 1e3:.3f} | {d['com_x'] * 1e3:+.4f}, {d['com_y'] * 1e3:+.4f}, "
                      f"{d['com_z'] * 1e3:+.4f} | {d['h99'] * 1e3:+.4f} | {d['spread'] * 1e3:+.4f} | "
                      f"{dmax * 1e3:.3f} | {vtext(s, md=True)} |")
        md.append("")
    pub = [s for s in solvers if s in PUBLIC]
    if pub:
        md.append("Our Taichi and Warp implementations (mpm_taichi.py, mpm_warp.py) do bagnold's step with the "
                  "scene's physics. The public code runs unmodified through an adapter (peer_*.py); where its "
                  "physics differs from the scene, it is listed here, with any run-time fix the adapter applies:")
        md.append("")
        for s in pub:
            diffs, fixes = info_list(s, "physics_differences"), info_list(s, "runtime_fixes")
            if workers[s].error and not diffs:
                md.append(f"- {label_of[s]}: unavailable: {workers[s].error}")
                continue
            md.append(f"- {label_of[s]}, version {versions.get(s, '?')}: physics differences: " +
                      ("; ".join(diffs) if diffs else "none stated") + ". Run-time fixes: " +
                      ("; ".join(fixes) if fixes else "none") + ".")
        md.append("")
    md.append(f"Reproduce: `{cmdline}`. Files: `summary.tsv`, `compare.tsv` (every repetition), "
              f"`crosscheck.tsv`, `compare.png`{'' if chart_ok else ' (not drawn)'}, `logs/`.")
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "compare.html"), "w") as f:
        f.write(md_to_html(md))
    for s in chk:
        try:
            os.remove(os.path.join(out, f"x_{s}.f32"))
        except OSError:
            pass

    print("\n".join(md))
    log(f"wrote {out}/summary.tsv, compare.tsv, crosscheck.tsv, compare.md" + (", compare.png" if chart_ok else ""))
    if ref not in summ:
        log("bagnold did not run: no ratios")
        return 1
    if not all_pass:
        log("cross-check FAILED (or a solver could not be checked): see crosscheck.tsv")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
