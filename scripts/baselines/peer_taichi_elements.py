"""peer_taichi_elements.py: the public code taichi_elements (github
taichi-dev/taichi_elements, engine/mpm_solver.py), unmodified and imported
from the user's own checkout (compare.py --taichi-elements DIR), on the
head-to-head scene (scene.py), as a worker speaking scene.py's protocol
exactly as mpm_taichi.py does. Nothing of taichi_elements is copied into
this repository or edited; it runs on the pinned taichi of BUILD/venv.

How the scene is set up through its API (engine.mpm_solver.MPMSolver):
  MPMSolver(res=grid nodes, size=nodes * dx, padding=2, use_voxelizer=False,
  use_bls=True) so dx = 1 cm and its bounding box holds the two outer node
  layers of every face (slip: approaching components zeroed);
  set_gravity((0, 0, -9.81)); add_particles(scene.py's lattice, SAND);
  the floor as add_surface_collider(point z = 1.5 dx, normal +z,
  surface SEPARATE, friction mu 0.5) on node layers 0 and 1.

Settings its constructor hard-codes and the adapter sets on the solver
object before the first step (its kernels read them when they compile; no
file is changed): E and nu (1e6 size, 0.2) and so mu_0, lambda_0; the sand
cone alpha (phi 45 deg); p_rho (1000), p_vol (dx^3: one particle per cell)
and p_mass (to rho0 dx^3 / ppc). The adapter also:
  * re-orders grid_postprocess through its public methods
    (clear_grid_postprocess, add_surface_collider, add_bounding_box): the
    constructor adds the bounding box first, which zeroes the floor's
    approaching velocity before the friction collider can see it, so the
    floor would be frictionless;
  * sets default_dt above every step's dt and calls step(frame_dt=dt) with
    the scene's dt = 0.3 dx / (c_p + v_max) (v_max from an adapter kernel
    over its particle velocities, read on the host each step), so each
    step() is exactly one substep;
  * resets by clear_particles() + add_particles() and zeroing C and Jp
    (seed_particle does not reset them).
RUNTIME_FIXES lists the monkeypatches needed for the current taichi (one:
clear_particles); the worker sends them and PHYSICS_DIFFERENCES in its
ready line.
"""
import os
import sys
import time
import urllib.parse

import numpy as np

import scene as S

RUNTIME_FIXES = [
    "MPMSolver.clear_particles replaced: its kernel calls self.x.loop_range(), which taichi 1.7 removed "
    "(TaichiCompilationError: 'MatrixField' object has no attribute 'loop_range'); the replacement sets "
    "n_particles to 0, and the next add_particles overwrites the particles in place",
]

PHYSICS_DIFFERENCES = [
    "volume correction: taichi_elements' sand_projection keeps the positive excess trace in Jp and projects the "
    "raw log strain (epsilon, without Jp) while bagnold projects epsilon + log Jp / 3; and log |sigma| instead of "
    "log sigma",
    "boundaries: the floor collider (Coulomb on the node velocity, mu 0.5, layers 0-1) runs before the bounding "
    "box (all faces, two layers, slip), not in bagnold's face order (-x, +x, -y, +y, floor, +z)",
    "time step: the scene's dt rule, computed on the host before every step from the particle speeds",
]


def build(sc, arch, threads, te_dir, cache=False):
    import taichi as ti

    t0 = time.perf_counter()
    if arch == "cpu":
        ti.init(arch=ti.cpu, cpu_max_num_threads=threads, default_fp=ti.f32, log_level=ti.WARN,
                offline_cache=cache)
    else:
        ti.init(arch=ti.cuda, default_fp=ti.f32, log_level=ti.WARN, offline_cache=cache,
                device_memory_fraction=0.5)
    init_s = time.perf_counter() - t0
    sys.path.insert(0, os.path.abspath(te_dir))
    from engine.mpm_solver import MPMSolver

    def clear_particles(self):  # RUNTIME_FIXES[0]
        self.n_particles[None] = 0

    MPMSolver.clear_particles = clear_particles

    dx = float(S.DX)
    n = sc.n
    nx = sc.dims[0]
    floor_mu = float(os.environ.get("BAGNOLD_CHECK_FLOOR_MU", S.FLOOR_MU))
    mp = 1
    while mp < n:
        mp *= 2
    te = MPMSolver(res=tuple(sc.dims), size=nx * dx, padding=S.FACE_LAYERS, use_voxelizer=False,
                   use_bls=True, max_num_particles=mp)
    if abs(te.dx - dx) > 1e-9:
        raise RuntimeError(f"taichi_elements dx {te.dx} != {dx}")
    mu, lam = S.lame()
    te.E, te.nu = float(S.E), float(S.NU)
    te.mu_0, te.lambda_0 = float(mu), float(lam)
    te.alpha = float(S.dp_alpha())
    te.p_rho = float(S.RHO0)
    te.p_vol = float(sc.vol0)
    te.p_mass = float(sc.mass)
    te.set_gravity(tuple(S.GRAVITY))
    te.clear_grid_postprocess()
    te.add_surface_collider(point=(0.0, 0.0, (S.FACE_LAYERS - 0.5) * dx), normal=(0.0, 0.0, 1.0),
                            surface=te.surface_separate, friction=floor_mu)
    te.add_bounding_box(False)
    te.default_dt = 1e9  # step(frame_dt) then takes exactly one substep of frame_dt

    vmax_f = ti.field(ti.f32, ())

    @ti.kernel
    def vmax_k(m: ti.i32):
        vmax_f[None] = 0.0
        for p in range(m):
            ti.atomic_max(vmax_f[None], te.v[p].norm())

    @ti.kernel
    def zero_k(m: ti.i32):
        for p in range(m):
            te.C[p] = ti.Matrix.zero(ti.f32, 3, 3)
            te.Jp[p] = 0.0

    cp = float(S.pwave_speed())
    cfl_dx = float(np.float32(S.CFL) * S.DX)

    class Solver(S.HostDtSolver):
        def __init__(self):
            self._dt = cfl_dx / cp

        def reset(self):
            te.clear_particles()
            te.add_particles(particles=np.ascontiguousarray(sc.x0), material=te.material_sand,
                             velocity=[0.0, 0.0, 0.0])
            zero_k(n)
            te.t = 0.0

        def _h(self):
            vmax_k(n)
            return cfl_dx / (cp + float(vmax_f[None]))

        def _step(self, h):
            te.step(h)

        def sync(self):
            ti.sync()

        def positions(self):
            return te.x.to_numpy()[:n].astype(np.float32)

        def n_active(self):
            return S.n_inside(sc, self.positions())

    return Solver(), init_s, ti.__version__, floor_mu


def te_commit(te_dir):
    import subprocess
    try:
        # only a repository rooted at te_dir: a plain copy inside another repository (this one, say)
        # would otherwise report that repository's commit
        top = subprocess.run(["git", "-C", te_dir, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                             check=True).stdout.strip()
        if os.path.realpath(top) != os.path.realpath(te_dir):
            return "checkout-without-git"
        return "git-" + (subprocess.run(["git", "-C", te_dir, "rev-parse", "--short", "HEAD"], capture_output=True,
                                        text=True, check=True).stdout.strip() or "unknown")
    except Exception:
        return "checkout-without-git"


def main(argv):
    S.protocol_out()
    te_dir = os.environ.get("BAGNOLD_TAICHI_ELEMENTS", "")
    a = S.worker_args(argv, "peer_taichi_elements.py")
    if not te_dir or not os.path.isfile(os.path.join(te_dir, "engine", "mpm_solver.py")):
        print(f"error no taichi_elements checkout: BAGNOLD_TAICHI_ELEMENTS='{te_dir}' has no engine/mpm_solver.py",
              file=S.protocol_out(), flush=True)
        return 2
    sc = S.Scene(a.particles, a.ppc, a.scene)
    arch = "cpu" if a.device == "cpu" else "cuda"
    try:
        solver, init_s, tiver, floor_mu = build(sc, arch, a.threads, te_dir, a.warm_cache)
    except Exception as e:
        print(f"error taichi_elements arch={arch}: {type(e).__name__}: {e}".replace("\n", " "),
              file=S.protocol_out(), flush=True)
        return 1
    tiver = ".".join(str(c) for c in tiver) if isinstance(tiver, tuple) else str(tiver)
    q = lambda v: urllib.parse.quote(" | ".join(v), safe="")  # noqa: E731
    solver.window = sc.window_start  # the collapse scene: runs start mid-runout
    S.serve(solver, "taichi_elements", te_commit(te_dir),
            f"taichi={tiver} arch={arch} threads={a.threads} init_s={init_s:.6g} particles={sc.n} "
            f"grid={sc.grid_text()} floor_mu={floor_mu:g} physics_differences={q(PHYSICS_DIFFERENCES)} "
            f"runtime_fixes={q(RUNTIME_FIXES) if RUNTIME_FIXES else 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
