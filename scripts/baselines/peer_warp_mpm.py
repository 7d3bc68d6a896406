"""peer_warp_mpm.py: the public code warp-mpm (github zeshunzong/warp-mpm,
mpm_solver_warp.py), unmodified and imported from the user's own checkout
(compare.py --warp-mpm DIR), on the head-to-head scene (scene.py), as a
worker speaking scene.py's protocol exactly as mpm_warp.py does. Nothing of
warp-mpm is copied into this repository or edited.

warp-mpm imports torch and h5py at module level (engine_utils.py,
warp_utils.py) and takes its particles as torch tensors, so it needs a Python
with warp, torch and h5py; BUILD/venv has no torch, so compare.py runs this
worker with --warp-mpm-python (or BAGNOLD_WARP_MPM_PYTHON) when given, else
with its own Python, where the missing import is reported as the reason it is
unavailable.

How the scene is set up through its API (MPM_Simulator_WARP):
  load_initial_data_from_torch(scene.py's lattice, volume dx^3 / ppc,
  n_grid = the largest grid dimension, grid_lim = n_grid dx) so dx = 1 cm and
  node 0 at the origin; set_parameters_dict(E, nu, material sand,
  friction_angle 35, g, density 2200); finalize_mu_lam_bulk();
  add_surface_collider for the six faces in bagnold's face order (-x, +x, -y,
  +y, floor, +z), each on the two outer node layers of the scene's grid,
  surface 'separate' (only approaching velocity removed), friction 0.5 on the
  floor and 0 elsewhere; p2g2p(step, dt) per step with the scene's dt rule.
RUNTIME_FIXES lists the monkeypatches: three for warp >= 1 (warp-mpm pins
0.10.1), one for its CPU path; the worker sends those it applied and
PHYSICS_DIFFERENCES in its ready line. With warp 1.19 its kernels still do
not compile (p2g_apic_with_stress: "Passing vectors to wp.matrix() isn't
supported", a kernel body this adapter must not rewrite): give
--warp-mpm-python a Python with warp-lang 0.10.1, torch and h5py.
"""
import os
import sys
import time
import urllib.parse

import numpy as np

import scene as S

APPLIED = []  # the RUNTIME_FIXES this run needed (the first two and the last only on warp >= 1)
RUNTIME_FIXES = [
    "a stand-in module for 'warp.torch' (warp_utils.py says 'import warp.torch', a module warp 1.x no longer has: "
    "ModuleNotFoundError: No module named 'warp.torch'; only the import needs it)",
    "warp.types.float32 = wp.float32 (torch2warp_*'s default argument dtype=warp.types.float32; warp.types no "
    "longer re-exports it: AttributeError: module 'warp.types' has no attribute 'float32')",
    "MPM_Simulator_WARP.import_particle_x_from_torch wrapped (CPU only, not a version fix): "
    "load_initial_data_from_torch calls it as import_particle_x_from_torch(tensor_x, device), so the device "
    "lands in 'clone' and the array goes to the default 'cuda:0' (ValueError: Invalid device identifier: "
    "cuda:0 on a machine without CUDA); the wrapper moves a str 'clone' to 'device'",
    "warp.types.array = wp.array without its removed 'owner' argument (warp_utils.torch2warp_* call "
    "warp.types.array(ptr=..., owner=False, ...); warp.types has no 'array' now; owner=False is the default "
    "deleter=None of wp.array(ptr=...), and warp-mpm keeps the tensor alive in a.tensor)",
]

PHYSICS_DIFFERENCES = [
    "no volume correction: warp-mpm's sand_return_mapping has the log-Jp term commented out, so a "
    "dilated particle is projected to the cone's tip every step instead of carrying its volume change",
    "its grid is a cube of max(grid dims) nodes per axis; the scene's walls are colliders inside it on the "
    "scene's node layers, the nodes beyond them stay empty",
    "time step: the scene's dt rule computed on the host before every step from the particle speeds",
]


def build(sc, device, wm_dir):
    import warp as wp
    import torch

    t0 = time.perf_counter()
    wp.config.quiet = True
    wp.init()
    init_s = time.perf_counter() - t0
    sys.path.insert(0, os.path.abspath(wm_dir))
    import types
    import warp.types as wtypes
    try:
        import warp.torch  # noqa: F401
    except ImportError:  # RUNTIME_FIXES[0]
        sys.modules["warp.torch"] = types.ModuleType("warp.torch")
        APPLIED.append(RUNTIME_FIXES[0])
    if not hasattr(wtypes, "float32"):  # RUNTIME_FIXES[1]
        wtypes.float32 = wp.float32
        APPLIED.append(RUNTIME_FIXES[1])
    if device == "cpu":
        APPLIED.append(RUNTIME_FIXES[2])
    if not hasattr(wtypes, "array"):  # RUNTIME_FIXES[3]
        APPLIED.append(RUNTIME_FIXES[3])
        def array(*args, owner=None, **kw):
            return wp.array(*args, **kw)
        wtypes.array = array
    from mpm_solver_warp import MPM_Simulator_WARP

    orig_import_x = MPM_Simulator_WARP.import_particle_x_from_torch

    def import_particle_x_from_torch(self, tensor_x, clone=True, device="cuda:0"):  # RUNTIME_FIXES[2]
        if isinstance(clone, str):
            clone, device = True, clone
        return orig_import_x(self, tensor_x, clone=clone, device=device)

    MPM_Simulator_WARP.import_particle_x_from_torch = import_particle_x_from_torch

    dvc = "cpu" if device == "cpu" else "cuda:0"
    dx = float(S.DX)
    n = sc.n
    ng = max(sc.dims)
    floor_mu = float(os.environ.get("BAGNOLD_CHECK_FLOOR_MU", S.FLOOR_MU))
    sim = MPM_Simulator_WARP(10, device=dvc)
    x0 = torch.from_numpy(np.ascontiguousarray(sc.x0))
    vol = torch.full((n,), float(sc.vol0), dtype=torch.float32)

    def load():
        sim.load_initial_data_from_torch(x0.clone(), vol, n_grid=ng, grid_lim=ng * dx, device=dvc)
        sim.set_parameters_dict({"E": float(S.E), "nu": float(S.NU), "material": "sand",
                                 "friction_angle": float(S.PHI_DEG), "g": list(S.GRAVITY),
                                 "density": float(S.RHO0)}, device=dvc)
        sim.finalize_mu_lam_bulk(device=dvc)

    load()
    if abs(sim.mpm_model.dx - dx) > 1e-9:
        raise RuntimeError(f"warp-mpm dx {sim.mpm_model.dx} != {dx}")
    nx, ny, nz = sc.dims
    lo = (S.FACE_LAYERS - 0.5) * dx
    faces = [((lo, 0, 0), (1, 0, 0), 0.0), (((nx - 1 - S.FACE_LAYERS + 0.5) * dx, 0, 0), (-1, 0, 0), 0.0),
             ((0, lo, 0), (0, 1, 0), 0.0), ((0, (ny - 1 - S.FACE_LAYERS + 0.5) * dx, 0), (0, -1, 0), 0.0),
             ((0, 0, lo), (0, 0, 1), floor_mu), ((0, 0, (nz - 1 - S.FACE_LAYERS + 0.5) * dx), (0, 0, -1), 0.0)]
    for point, normal, mu in faces:
        sim.add_surface_collider(point, normal, surface="separate", friction=mu)

    cp = float(S.pwave_speed())
    cfl_dx = float(np.float32(S.CFL) * S.DX)
    vmax = wp.zeros(1, dtype=float, device=dvc)

    @wp.kernel
    def vmax_k(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        p = wp.tid()
        wp.atomic_max(out, 0, wp.length(v[p]))

    class Solver(S.HostDtSolver):
        def __init__(self):
            self._dt = cfl_dx / cp
            self.k = 0

        def reset(self):
            load()  # fresh particle state (the colliders stay)
            sim.time = 0.0
            self.k = 0

        def _h(self):
            vmax.zero_()
            wp.launch(vmax_k, dim=n, inputs=[sim.mpm_state.particle_v, vmax], device=dvc)
            return cfl_dx / (cp + float(vmax.numpy()[0]))

        def _step(self, h):
            sim.p2g2p(self.k, h, device=dvc)
            sim.time += h
            self.k += 1

        def sync(self):
            wp.synchronize()

        def positions(self):
            return sim.mpm_state.particle_x.numpy()[:n].astype(np.float32)

        def n_active(self):
            return S.n_inside(sc, self.positions())

    return Solver(), init_s, wp.config.version, floor_mu


def main(argv):
    S.protocol_out()
    wm_dir = os.environ.get("BAGNOLD_WARP_MPM", "")
    a = S.worker_args(argv, "peer_warp_mpm.py")
    if not wm_dir or not os.path.isfile(os.path.join(wm_dir, "mpm_solver_warp.py")):
        print(f"error no warp-mpm checkout: BAGNOLD_WARP_MPM='{wm_dir}' has no mpm_solver_warp.py",
              file=S.protocol_out(), flush=True)
        return 2
    sc = S.Scene(a.particles, a.ppc, a.scene)
    try:
        solver, init_s, wver, floor_mu = build(sc, a.device, wm_dir)
    except Exception as e:
        print(f"error warp_mpm device={a.device}: {type(e).__name__}: {e}".replace("\n", " "),
              file=S.protocol_out(), flush=True)
        return 1
    q = lambda v: urllib.parse.quote(" | ".join(v), safe="") if v else "none"  # noqa: E731
    solver.window = sc.window_start  # the collapse scene: runs start mid-runout
    S.serve(solver, "warp_mpm", f"checkout-on-warp-{wver}",
            f"device={a.device} init_s={init_s:.6g} particles={sc.n} grid={sc.grid_text()} floor_mu={floor_mu:g} "
            f"physics_differences={q(PHYSICS_DIFFERENCES)} runtime_fixes={q(APPLIED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
