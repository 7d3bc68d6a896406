"""compare_solvers.py: the line-up of the head-to-head: which solvers run,
the command line, environment and label of each, why one is unavailable, and
starting them all as workers (compare_worker.py)."""
import os
import shutil
import subprocess
import sys

from compare_common import log
from compare_worker import Worker

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
SOLVERS = ("bagnold", "bagnold-passive", "bagnold-1t", "taichi-dense", "taichi-bls", "warp") + PUBLIC
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


def choose(a, error):
    """The solvers to run, in order: --solvers, or all that apply to the
    device; a bad list goes to error (argparse's, exit 2)."""
    all_solvers = ["bagnold"] + (["bagnold-1t"] if not a.gpu and a.threads > 1 else []) + \
        ["taichi-dense", "taichi-bls", "warp", "geotaichi", "genesis"] + \
        (["taichi_elements"] if a.taichi_elements else []) + (["warp_mpm"] if a.warp_mpm else [])
    solvers = [s.strip() for s in a.solvers.split(",") if s.strip()] if a.solvers else all_solvers
    for s in solvers:
        if s not in SOLVERS:
            error(f"--solvers: unknown solver '{s}'")
    if "bagnold" not in solvers:
        error("--solvers must include bagnold (the ratios are bagnold/peer)")
    if "taichi_elements" in solvers and not a.taichi_elements:
        error("solver taichi_elements needs --taichi-elements DIR")
    if "warp_mpm" in solvers and not a.warp_mpm:
        error("solver warp_mpm needs --warp-mpm DIR")
    return solvers


def interpreter(given, default):
    """A bare interpreter name (python3) is looked up on PATH, as a shell would."""
    if given and os.sep not in given:
        return shutil.which(given) or given
    return given or default


class Lineup:
    """Every solver's worker command line (argv), extra environment (env) and
    label, and the interpreters of the peers that bring their own (gt_py,
    gen_py, wm_py)."""

    def __init__(self, argv, env, label, gt_py, gen_py, wm_py):
        self.argv, self.env, self.label = argv, env, label
        self.gt_py, self.gen_py, self.wm_py = gt_py, gen_py, wm_py


def lineup(a):
    """The Lineup of a's solvers on a's scene and device."""
    gpu, threads = a.gpu, a.threads
    py = sys.executable
    common = ["--particles", str(a.n), "--ppc", str(a.ppc)]
    peer = common + ["--scene", a.scene] + (["--warm-cache"] if a.warm_cache else [])
    gt_py = interpreter(a.geotaichi_python, os.path.join(a.build, "venv-geotaichi", "bin", "python"))
    gen_py = interpreter(a.genesis_python, os.path.join(a.build, "venv-genesis", "bin", "python"))
    wm_py = interpreter(a.warp_mpm_python, py)
    te_dir = os.path.abspath(a.taichi_elements) if a.taichi_elements else ""
    wm_dir = os.path.abspath(a.warp_mpm) if a.warp_mpm else ""
    argv_of = {
        "bagnold": [a.bench_scene] + common + ["--threads", str(threads), "--backend", "device" if gpu else "host"],
        "bagnold-1t": [a.bench_scene] + common + ["--threads", "1", "--backend", "host"],
        "bagnold-passive": [a.bench_scene] + common + ["--threads", str(threads), "--backend", "host"],
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
    return Lineup(argv_of, env_of, label_of, gt_py, gen_py, wm_py)


def bagnold_runs_scene(a, lu):
    """Whether bench_scene can run a.scene (one without a --scene option runs
    freefall only); if so, bagnold's workers are told to."""
    ok = True
    if a.scene != "freefall":
        hr = subprocess.run([a.bench_scene, "--help"], capture_output=True, text=True)
        ok = "--scene" in hr.stdout
        if ok:
            for k in ("bagnold", "bagnold-1t", "bagnold-passive"):
                lu.argv[k] += ["--scene", a.scene]
    return ok


def unavailable_reason(a, lu, s, bagnold_scene_ok):
    """Why solver s cannot even start here, or None."""
    if s.startswith("bagnold") and not bagnold_scene_ok:
        return (f"{a.bench_scene} has no --scene option, so bagnold cannot run the {a.scene} scene "
                "(bench_scene.c needs a --scene freefall or collapse option: bench_scene_build_kind and, in 'run', the "
                "untimed advance to bench_scene_window_start before the warm-up steps)")
    if s == "geotaichi" and not os.path.isfile(lu.gt_py):
        return (f"no {lu.gt_py} (compare.sh makes BUILD/venv-geotaichi; or pass --geotaichi-python): geotaichi "
                "0.2.6 pins taichi 1.6.0, apart from BUILD/venv's taichi 1.7.4")
    if s == "genesis" and not os.path.isfile(lu.gen_py):
        return f"no {lu.gen_py}: {GENESIS_NOTE}"
    if s == "warp_mpm" and not os.path.isfile(lu.wm_py):
        return f"--warp-mpm-python {lu.wm_py} does not exist"
    return None


def start(a, lu, bagnold_scene_ok):
    """Step 1: every worker, started one after the other; the time to its
    ready line is its start-up. {solver: Worker}, in a.solvers' order."""
    workers = {}
    for s in a.solvers:
        log(f"starting {lu.label[s]}")
        reason = unavailable_reason(a, lu, s, bagnold_scene_ok)
        if reason:
            w = Worker.unavailable(s, lu.label[s], reason)
        else:
            env = dict(os.environ, OMP_WAIT_POLICY="passive") if s == "bagnold-passive" else None
            if s in lu.env:
                env = dict(os.environ, **lu.env[s])
            w = Worker(s, lu.label[s], lu.argv[s], os.path.join(a.out, "logs", f"{s}.log"), env)
        if w.error:
            log(f"{lu.label[s]}: unavailable: {w.error}")
        workers[s] = w
        for field in ("physics_differences", "runtime_fixes"):
            items = w.info_list(field)
            if items:
                log(f"{lu.label[s]}: {field.replace('_', ' ')}:")
                for d in items:
                    log(f"    - {d}")
    return workers
