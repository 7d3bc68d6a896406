"""compare_record.py: where, when and from what a head-to-head ran: the date,
the checkout's and bench_scene's commits, the machine (as the lab's C
describes it), the load, the solvers' versions, and the header lines every
TSV of the run carries."""
import datetime
import os
import platform
import shlex
import subprocess
import sys

import scene as S
from compare_common import ROOT, log


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


class Record:
    """date (UTC), commit, host, cpu, gname (the GPU's name on --device gpu,
    else ""), cmdline (the command to reproduce the run), la (the load
    averages at the start); bin_commit and versions, ver_text once the workers
    have said theirs."""

    def __init__(self, date, commit, host, cpu, gname, cmdline, la):
        self.date, self.commit, self.host, self.cpu, self.gname = date, commit, host, cpu, gname
        self.cmdline, self.la = cmdline, la
        self.bin_commit, self.versions, self.ver_text = "unknown", {}, ""


def describe(a):
    """The Record of this run so far; logs the run's plan and the load. A lab
    that cannot describe the machine ends the run (exit 1)."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    commit = git_commit()
    # the machine as the lab's C describes it in every record (scripts/bglab.py)
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import bglab

    try:
        here = bglab.host(a.build)
    except bglab.LabQueryError as e:
        sys.exit(f"compare: {e}")
    host, cpu = here["host"], here["cpu"]
    gname = here["gpu"] if a.gpu else ""
    cmdline = os.environ.get("BAGNOLD_COMPARE_COMMAND") or ("scripts/lab bench compare " + " ".join(
        shlex.quote(x) for x in sys.argv[1:]))
    sc = a.sc
    log(f"scene {a.scene}; {a.n} particles (ppc {a.ppc}, block {sc.side}^3 cells, grid {sc.grid_text()} nodes), "
        f"device {a.device}, {a.threads} threads, {a.reps} reps x ({a.warmup} warm-up + {a.steps} timed steps); "
        f"commit {commit}; output {a.out}")
    try:
        la = os.getloadavg()
        log(f"load average at start {la[0]:.2f} {la[1]:.2f} {la[2]:.2f} on {a.nproc} CPUs")
        if la[0] > 0.5 * a.nproc:
            log("warning: the machine is busy; timings will be noisy and multi-threaded ones pessimistic")
    except OSError:
        la = (float("nan"),) * 3
    return Record(date, commit, host, cpu, gname, cmdline, la)


def note_binary(rec, workers):
    """bagnold's worker's own build: the checkout's commit says nothing about
    a binary carried from elsewhere, so a mismatch is logged."""
    rec.bin_commit = workers["bagnold"].info.get("commit", "unknown") if "bagnold" in workers else "unknown"
    h_bin, h_co = rec.bin_commit.split("-")[0], rec.commit.split("-")[0]
    if rec.bin_commit != "unknown" and not (h_bin.startswith(h_co) or h_co.startswith(h_bin)):
        log(f"warning: bench_scene was built from commit {rec.bin_commit}, the checkout is at {rec.commit}")


def note_versions(rec, workers):
    """Each started solver's version, and the distinct frameworks' versions
    in one line."""
    versions = {}
    for s, w in workers.items():
        if w.info:
            versions[s] = w.info.get("version", "?")
    rec.versions = versions
    rec.ver_text = ", ".join(dict.fromkeys(f"{k} {v}" for k, v in
                                           ((s.split('-')[0], versions[s]) for s in versions)))


def omp_settings():
    """The OMP_ variables that are set, as NAME=value words."""
    return " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ) if k.startswith("OMP_") and os.environ[k])


def meta(a, rec, tol):
    """The (key, value) header lines of every TSV of the run."""
    sc = a.sc
    return [
        ("benchmark", "head-to-head: bagnold vs our Taichi and Warp implementations (mpm_taichi.py, mpm_warp.py) "
                      "vs the public code (geotaichi, genesis-world, taichi_elements, warp-mpm) (scripts/baselines)"),
        ("command", rec.cmdline),
        ("date_utc", rec.date), ("commit", rec.commit), ("bagnold_binary_commit", rec.bin_commit),
        ("machine", rec.host),
        ("cpu_model", rec.cpu), ("cpus_online", str(a.nproc)), ("gpu", rec.gname or "none"),
        ("load_average_at_start", " ".join(f"{v:.2f}" for v in rec.la)),
        ("solver_versions", rec.ver_text), ("python", platform.python_version()),
        ("environment", " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ)
                                 if k.startswith(("OMP_", "GOMP_", "TI_", "WARP_")))
                            or "no OMP_/GOMP_/TI_/WARP_ variables"),
        ("scene", f"{a.scene}" + (f" (column on the floor, {sc.margin} free cells each side, shuffled order, runs "
                                  f"timed from t = {sc.window_start:.4g} s)" if a.scene == "collapse" else "") +
                  f": {a.n} particles, ppc {a.ppc}, sand block {sc.side}^3 cells, dx {float(S.DX):.4g} m, grid "
                  f"{sc.grid_text()} nodes, Klar sand (E 3.537e5 Pa, nu 0.3, rho0 2200, phi 35 deg, no hardening, "
                  f"volume correction), floor Coulomb mu 0.5, other faces slip, 2 node layers, cfl 0.3"),
        ("protocol", f"device {a.device}, {a.threads} threads, {a.reps} interleaved reps (order rotated), "
                     f"fresh state per block, {a.warmup} warm-up + {a.steps} timed steps; peers' kernel caches "
                     f"{'used' if a.warm_cache else 'bypassed (cold compile)'}"),
        ("cross_check", f"positions after t = {a.check_time} s simulated; tolerance {a.tolerance:g} dx = "
                        f"{tol * 1e3:.3f} mm on com_x, com_y, com_z, h99 (99th-percentile height), spread (RMS "
                        f"horizontal distance from the centre of mass); reference bagnold"),
    ]
