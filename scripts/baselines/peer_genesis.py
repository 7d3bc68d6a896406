"""peer_genesis.py: the public code genesis-world (PyPI, unmodified: its MPM
solver and its Sand material) on the head-to-head scene (scene.py), as a
worker of compare.py speaking scene.py's protocol exactly as mpm_taichi.py
does.

genesis-world runs in its own venv, BUILD/venv-genesis (compare.sh makes it:
genesis-world pinned, with PyPI's torch, which genesis imports but does not
declare; on Linux x86-64 PyPI's torch is the CUDA build, about 8.5 GB of venv
with its nvidia-* wheels). Nothing of genesis is copied or edited, and no
monkeypatch is needed (RUNTIME_FIXES is empty). How the scene is set up
through genesis' own API:

  * gs.init(backend=gs.cpu or gs.cuda, precision "32"); on the CPU genesis
    runs Quadrants (its Taichi fork) on one thread unless QD_NUM_THREADS is
    set, so the adapter sets QD_NUM_THREADS to --threads before the import;
    without --warm-cache it points Quadrants' kernel cache
    (QD_OFFLINE_CACHE_FILE_PATH, which also holds its source-level fast
    cache) at a fresh empty folder with QD_OFFLINE_CACHE=0, so every run
    compiles cold, as the other peers do;
  * gs.Scene(SimOptions(dt, substeps=1, gravity (0, 0, -9.81)),
    MPMOptions(grid_density 100 /m: dx 1 cm, particle_size dx / k: its
    particle volume (dx / k)^3 = dx^3 / ppc and mass rho0 dx^3 / ppc, as the
    scene's), show_viewer=False); scene.step(update_visualizer=False) is one
    MPM substep, and throughput counts those;
  * the grid: genesis' MPM keeps a slip box (CubeBoundary, restitution 0:
    outward normal velocity zeroed, on grid nodes and on particle positions)
    3 dx inside its lower_bound / upper_bound. The adapter gives it
    lower_bound -2 dx and upper_bound (dims + 0.75) dx on every axis, so its
    nodes are the scene's (node 0 at the origin) plus two on each side that
    no particle reaches, and its box acts on the scene's two outer node
    layers of every face (<= 1 dx and >= (dims - 2.25) dx; the quarter cell
    keeps the upper test away from float32 rounding);
  * the floor: a fixed rigid gs.morphs.Plane at z = 1.5 dx with
    gs.materials.Rigid(coup_friction 0.5, coup_restitution 0, coup_softness
    1e-4), coupled to the MPM grid by genesis' legacy coupler: on nodes below
    the plane (layers 0 and 1) an approaching velocity loses its normal part
    and its tangential part shrinks by mu |v_n| and stops, never reverses:
    bagnold's Coulomb floor, formula for formula;
  * the sand: gs.materials.MPM.Sand(E 3.537e5, nu 0.3, rho 2200,
    friction_angle 35, sampler 'regular') on a gs.morphs.Box that is the
    scene's block. Genesis' own regular sampler puts particles at the same
    lattice sites as scene.py (to one float32 ulp, in another order); the
    adapter then writes scene.py's float32 positions, in the scene's order,
    with entity.set_particles_pos (which also zeroes v and C, sets F = I and
    Jp to Sand's default 0) and registers that as the scene's initial state
    (scene.reset(scene.get_state())), so the initial lattice is the same to
    the bit and every 'run' and 'check' starts from it through
    scene.reset(). Where N is not a whole number of lattice layers the box
    has the next whole layer and the surplus particles are switched off with
    set_particles_active (genesis skips inactive particles);
  * BAGNOLD_CHECK_FLOOR_MU=X replaces the floor's mu 0.5 by X: only for
    checking that compare.py's cross-check of this peer can fail.
  * two more check settings remove one listed physics difference each, to
    find which moves the GPU collapse's cross-check (issue 36: Δh99 +0.76 mm
    at 1M on an H200, where the CPU at 32k passes):
    BAGNOLD_CHECK_GENESIS_DT_SCALE=X multiplies the fixed dt by X (bagnold's
    adaptive dt averages about 0.925 of it over the collapse's check: 3334
    against 3605 steps); BAGNOLD_CHECK_GENESIS_NO_FAST_MATH=1 initialises
    genesis with debug=True, its only switch of Quadrants' fast_math (off in
    debug), with QD_DEBUG=0 so Quadrants' own debug mode stays off (bounds
    checks stay on: slower, same arithmetic). The ready line reports both.

Measured on the CPU machine (32768 particles, to t = 0.15 s): with the fixed
dt of 0.3 dx / c_p the deltas to bagnold are 0.004 mm in com z, 0.055 mm in
h99 and 0.043 mm in spread (0.32 mm for the worst particle), inside the
0.02 dx rounding tolerance and the size of our own Taichi ports' deltas;
with dt 10 % shorter, 0.12 mm in com z; with the floor's mu 0.3, -0.74 mm in
com z and -0.24 mm in h99: a FAIL. So genesis is cross-checked like our own
ports (PASS/FAIL), not set apart as "not comparable".

Physics differences from the scene (each is in PHYSICS_DIFFERENCES, which
the worker sends in its ready line and compare.py prints):
"""
import os
import sys
import tempfile
import time
import urllib.parse

import numpy as np

import scene as S

GENESIS_VERSION = "1.4.5"  # what compare.sh installs; the ready line reports the version that ran
VERSION_LABEL = f"the public code: genesis-world {GENESIS_VERSION} (PyPI, unmodified)"

RUNTIME_FIXES = []

PHYSICS_DIFFERENCES = [
    "time step: genesis' fixed substep dt (its kernels compile the substep dt in as a constant, so it cannot "
    "follow the scene's per-step rule) = 0.3 dx / c_p, the scene's rule at rest (the largest dt it gives; 2 % "
    "above genesis' suggested 2e-2 dx, which it warns about); the Courant number at the fastest particle "
    "(about 1.7 m/s) is then 0.33 instead of 0.3; the check runs the whole number of steps nearest to T and "
    "reports that time (|t - T| <= dt / 2) where bagnold shortens its last step",
    "volume correction: genesis' Sand is taichi_elements' sand_projection: the positive excess trace is kept "
    "in Jp and the raw log strain (epsilon, without Jp) is projected, where bagnold projects epsilon + log Jp "
    "/ 3; log |sigma| instead of log sigma",
    "order: genesis updates F, does the return map and the stress at the start of a substep with that substep's "
    "dt, bagnold at the end of the previous one with that one's dt (the same with a fixed dt)",
    "boundaries: the floor (the rigid plane, Coulomb on the node velocity, mu 0.5, node layers 0-1) acts before "
    "the slip box (every face, two layers), not in bagnold's face order (-x, +x, -y, +y, floor, +z): only edge "
    "nodes differ; the slip box also clamps particle positions to [1 dx, (dims - 2.25) dx]",
    "grid: two more node layers beyond every face (genesis' box sits 3 dx inside its domain), empty, on which "
    "genesis' dense grid update still loops",
    "float32 with Quadrants' fast math (genesis turns it on outside debug mode)",
]
__doc__ += "".join(f"\n  - {d}" for d in PHYSICS_DIFFERENCES) + "\n"


def build(sc, device, threads, cache=False):
    t0 = time.perf_counter()
    if device == "cpu":
        os.environ["QD_NUM_THREADS"] = str(threads)  # genesis' own knob: one CPU thread unless it is set
    if not cache:
        os.environ["QD_OFFLINE_CACHE"] = "0"
        os.environ["QD_OFFLINE_CACHE_FILE_PATH"] = tempfile.mkdtemp(prefix="bagnold-genesis-qd-")
    import torch
    import genesis as gs
    import quadrants as qd

    no_fast_math = os.environ.get("BAGNOLD_CHECK_GENESIS_NO_FAST_MATH", "0") == "1"
    if no_fast_math:
        os.environ["QD_DEBUG"] = "0"  # genesis' debug=True without Quadrants' own debug mode
    gs.init(backend=gs.cpu if device == "cpu" else gs.cuda, precision="32", logging_level="warning",
            debug=no_fast_math)
    init_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    floor_mu = float(os.environ.get("BAGNOLD_CHECK_FLOOR_MU", S.FLOOR_MU))
    dx = float(S.DX)
    cp = float(S.pwave_speed())
    dt_scale = float(os.environ.get("BAGNOLD_CHECK_GENESIS_DT_SCALE", "1"))
    if not 0.1 <= dt_scale <= 1.0:
        raise RuntimeError(f"BAGNOLD_CHECK_GENESIS_DT_SCALE={dt_scale}: must be in [0.1, 1] (the scene's dt bounds it)")
    dt = float(S.CFL) * dx / cp * dt_scale  # the scene's rule at rest, fixed (times the check's scale)
    dims = sc.dims
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=dt, substeps=1, gravity=tuple(S.GRAVITY)),
        mpm_options=gs.options.MPMOptions(lower_bound=(-2.0 * dx,) * 3,
                                          upper_bound=tuple((d + 0.75) * dx for d in dims),
                                          grid_density=1.0 / dx, particle_size=dx / sc.k),
        show_viewer=False,
    )
    scene.add_entity(gs.morphs.Plane(pos=(0.0, 0.0, (S.FACE_LAYERS - 0.5) * dx)),
                     material=gs.materials.Rigid(coup_friction=floor_mu, coup_restitution=0.0, coup_softness=1e-4))
    lat = sc.k * sc.side
    layers = -(-sc.n // (lat * lat))  # lattice layers, the last one maybe partial
    z0 = 1.0 if sc.kind == "collapse" else float(S.FLOOR_CELLS)  # the block's bottom, cells (scene.Scene)
    lo = np.array([sc.margin, sc.margin, z0]) * dx
    hi = lo + np.array([lat, lat, layers]) * dx / sc.k
    sand = scene.add_entity(
        material=gs.materials.MPM.Sand(E=float(S.E), nu=float(S.NU), rho=float(S.RHO0),
                                       friction_angle=float(S.PHI_DEG), sampler="regular"),
        morph=gs.morphs.Box(lower=tuple(lo), upper=tuple(hi)),
    )
    scene.build()
    m = sand.n_particles
    if m < sc.n:
        raise RuntimeError(f"genesis sampled {m} particles in the block, fewer than the scene's {sc.n}")
    pos = sand.get_particles_pos().cpu().numpy()
    if m > sc.n:
        # the surplus of the last lattice layer: where genesis put them, switched off
        taken = set(map(tuple, np.round(sc.x0 / (dx / sc.k) - 0.5).astype(np.int64).tolist()))
        key = np.round(pos / (dx / sc.k) - 0.5).astype(np.int64)
        rest = pos[[tuple(kk) not in taken for kk in key.tolist()]]
        pos = np.concatenate([sc.x0, rest[:m - sc.n]]).astype(np.float32)
    else:
        pos = sc.x0
    sand.set_particles_pos(torch.from_numpy(np.ascontiguousarray(pos)).to(gs.device))
    if m > sc.n:
        act = torch.zeros(m, dtype=torch.bool, device=gs.device)
        act[:sc.n] = True
        sand.set_particles_active(act)
    scene.reset(scene.get_state())  # this is the initial state every reset returns to
    build_s = time.perf_counter() - t1
    n = sc.n
    solver = scene.sim.mpm_solver
    if abs(solver.substep_dt - dt) > 1e-12 * dt or abs(solver.dx - dx) > 1e-12:
        raise RuntimeError(f"genesis took dt {solver.substep_dt}, dx {solver.dx}; expected {dt}, {dx}")

    class Solver:
        window = sc.window_start

        def reset(self):
            scene.reset()

        def run(self, steps):
            for _ in range(steps):
                scene.step(update_visualizer=False)

        def dt(self):
            return dt

        def advance_to(self, t_end):
            k = 0
            while (k + 0.5) * dt < t_end:  # the whole number of steps nearest to t_end
                scene.step(update_visualizer=False)
                k += 1
            return k, k * dt

        def sync(self):
            qd.sync()

        def positions(self):
            return sand.get_particles_pos()[:n].cpu().numpy().astype(np.float32)

        def n_active(self):
            return S.n_inside(sc, self.positions())

    info = {"genesis": gs.__version__, "torch": torch.__version__, "quadrants": getattr(qd, "__version__", "?"),
            "backend": "cpu" if device == "cpu" else "cuda", "init_s": f"{init_s:.6g}", "build_s": f"{build_s:.6g}",
            "dt": f"{dt:.6g}", "floor_mu": f"{floor_mu:g}", "sampled": str(m),
            "fast_math": "off" if no_fast_math else "on"}
    return Solver(), info


def main(argv):
    S.protocol_out()  # before the framework is imported: its notices go to stderr
    a = S.worker_args(argv, "peer_genesis.py")
    sc = S.Scene(a.particles, a.ppc, a.scene)
    try:
        solver, info = build(sc, a.device, a.threads, a.warm_cache)
    except Exception as e:
        print(f"error genesis device={a.device}: {type(e).__name__}: {e}".replace("\n", " "), file=S.protocol_out(),
              flush=True)
        return 1
    qv = info["quadrants"]
    qv = ".".join(str(c) for c in qv) if isinstance(qv, (tuple, list)) else str(qv)
    diffs = urllib.parse.quote(" | ".join(PHYSICS_DIFFERENCES), safe="")
    fixes = urllib.parse.quote(" | ".join(RUNTIME_FIXES) or "none", safe="")
    S.serve(solver, "genesis", info["genesis"],
            f"torch={info['torch']} quadrants={qv} backend={info['backend']} "
            f"threads={a.threads if a.device == 'cpu' else 0} init_s={info['init_s']} build_s={info['build_s']} "
            f"kernel_cache={'on' if a.warm_cache else 'off'} particles={sc.n} sampled={info['sampled']} "
            f"grid={sc.grid_text()} dt_fixed={info['dt']} floor_mu={info['floor_mu']} fast_math={info['fast_math']} "
            f"physics_differences={diffs} runtime_fixes={fixes}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
