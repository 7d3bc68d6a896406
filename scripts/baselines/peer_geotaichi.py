"""peer_geotaichi.py: the public code geotaichi 0.2.6 (PyPI, unmodified) on the
head-to-head scene (scene.py), as a worker of compare.py speaking scene.py's
protocol exactly as mpm_taichi.py does.

Unlike mpm_taichi.py and mpm_warp.py (our own Taichi and Warp implementations
of bagnold's step), this runs geotaichi's own MPM engine through its own API
(src.mpm.mainMPM.MPM: set_configuration, set_solver, memory_allocate,
add_material, add_element, add_body_from_file, add_boundary_condition,
add_essentials) and steps it with its own loop body (MPMBase.Solver.core).
Nothing of geotaichi is copied or edited. What this adapter does around it:

  * import: geotaichi 0.2.6's `import geotaichi` fails ("attempted relative
    import beyond top-level package": its __init__ says `from ..src import *`),
    so the adapter imports the package's top-level `src` (src.mpm.mainMPM)
    directly and calls ti.init itself with the arguments geotaichi.init()
    would pass (arch, cpu_max_num_threads, offline_cache, default_fp,
    log_level);
  * install: geotaichi 0.2.6 declares Requires-Python <=3.11 (pip refuses
    3.11.1 and later) and pins taichi==1.6.0 and shapely==1.8.0 (no wheel for
    Python 3.11: it builds from source against libgeos). compare.sh installs
    it with --no-deps --ignore-requires-python into its own venv
    BUILD/venv-geotaichi next to its other pins (taichi 1.6.0, numpy 1.23.5,
    scipy 1.10.1, trimesh 3.20.1) and shapely 1.8.5.post1 (same API, has a
    wheel). Python 3.12 (taichi 1.6.0 has no cp312 wheel; the GPU machine
    has only 3.12): the same geotaichi 0.2.6 runs on taichi 1.7.4 and numpy
    2.x with the same run-time fixes, given --no-deps
    --ignore-requires-python (pip install --target refuses it otherwise) and
    the two packages its import path needs: trimesh (3.20.1, pure Python;
    src.mpm.generator.LoadFromFile imports it) and shapely (2.x, which has
    cp312 wheels built for numpy 2; src.utils.PolygonDiscretization imports
    it via src/__init__'s DEM half). Neither is called for an NPZ body;
    scipy, rtree, psutil and pynvml are not imported at all;
  * the lattice: scene.py's positions go in through add_body_from_file (NPZ).
    Run-time fix (monkeypatch, RUNTIME_FIXES): its loader's rotation kernel
    (InsertionKernel.kernel_position_rotate_ndarray_) assigns a vector to one
    array element and taichi refuses to compile it (1.6.0: RuntimeError
    "only one of them is a tensor type"; 1.7.4 is worse: an LLVM assertion
    "Invalid cast!" aborts the whole process), so every file body fails;
    the adapter replaces BodyReader.rotate_body by one that skips the identity
    rotation (orientation (0, 0, 1), the only one used) and calls the original
    otherwise. After the set-up the adapter writes scene.py's float32
    positions into the particle field once more, so the initial lattice is
    the same to the bit, as the cross-check requires. Second run-time fix:
    BodyReader defines set_element_calLength but never calls it, so a file
    body keeps calLength 0 and QuadBSpline's stencil (floor((x - calLength)
    / dx)) starts half a cell too high; the adapter calls that method;
  * the time step: geotaichi's step has a fixed dt (its CFL check only lowers
    the prescribed dt once, before the run); to follow the scene's rule the
    adapter sets sims.dt before every step from geotaichi's own critical time
    step, CFL * dx / (max particle speed + p-wave speed) with CFL 0.3 (a
    reduction and a host read per step);
  * reset: the particle and state-variable fields as they were after the
    set-up are saved once and copied back (from_numpy) for every fresh state;
  * BAGNOLD_CHECK_FLOOR_MU=X replaces the floor's mu 0.5 by X: only for
    checking that compare.py's cross-check of this peer can fail.

Physics differences from the scene (geotaichi cannot do otherwise; each is in
PHYSICS_DIFFERENCES, which the worker sends in its ready line and compare.py
prints):
"""
import os
import sys
import tempfile
import time
import urllib.parse

import numpy as np

import scene as S

VERSION_LABEL = "the public code: geotaichi 0.2.6 (PyPI, unmodified)"

RUNTIME_FIXES = [
    "import src.mpm.mainMPM instead of geotaichi (its __init__'s 'from ..src import *' fails), ti.init as "
    "geotaichi.init would",
    "BodyReader.rotate_body skips the identity rotation: its kernel does not compile with taichi 1.6.0 "
    "('only one of them is a tensor type') and aborts the process with taichi 1.7.4 (LLVM assertion "
    "'Invalid cast!' in CastInst::Create)",
    "BodyReader.set_element_calLength(scene, 0, psize) called after add_body_from_file: geotaichi defines it but "
    "never calls it, so a file body keeps calLength 0 and QuadBSpline's stencil starts half a cell too high "
    "(weights no longer sum to 1; a free-falling block builds stress and falls at about g/4)",
]

PHYSICS_DIFFERENCES = [
    "stress update: small-strain hypoelastic Drucker-Prager (geotaichi's infinitesimal_strain DruckerPrager: "
    "linear elastic stress increment from the strain-rate increment plus a Jaumann rotation, return map on "
    "the Cauchy stress in (p, sqrt J2)) instead of the Hencky hyperelastic F with a return map in principal "
    "Hencky strain; the cone is matched to the scene's (dpType MiddleCircumscribed, q = 6 sin phi / (sqrt 3 "
    "(3 - sin phi)), the same slope as bagnold's alpha), dilation 0, cohesion 0, tension cut-off 0",
    "no log-Jp volume correction (geotaichi has none); particle volume follows det(I + dt L)",
    "transfers: USL with PIC velocity update (alphaPIC 1) and nodal forces from the particle stresses "
    "(grad N), instead of APIC/MLS-MPM affine momentum; geotaichi's mapping 'APIC' is accepted by "
    "set_configuration but its engine rejects it ('not supported yet' in ULExplicitEngine.choose_engine)",
    "floor: geotaichi's FrictionConstraint (Coulomb on the nodal force: tangential force mu |f . n| applied "
    "over dt, the node stopped when the tangential velocity would reverse) on the two bottom node layers, "
    "instead of bagnold's Coulomb on the velocity; walls: ReflectionConstraint (outward normal velocity and "
    "force removed) on the two outer node layers; constraint order friction then reflection, not face order",
    "time step: the scene's dt rule (0.3 dx / (c_p + v_max)) set from the host before every step, from the "
    "current particle speeds",
    "grid: the same nodes (origin at node 0, dx 1 cm, quadratic B-spline), but geotaichi's domain is half a "
    "cell longer on each axis so its node count and boundary boxes come out exact; nodes with mass below its "
    "cut-off (1e-5 rho dx^3) are skipped",
    "float32 (ti.init default_fp f32) as the scene; geotaichi's own default is float64",
]
__doc__ += "".join(f"\n  - {d}" for d in PHYSICS_DIFFERENCES) + "\n"


def build(sc, arch, threads, cache=False):
    import taichi as ti

    t0 = time.perf_counter()
    # what geotaichi.init(arch, cpu_max_num_threads, offline_cache, default_fp="float32") would call
    if arch == "cpu":
        ti.init(arch=ti.cpu, cpu_max_num_threads=threads, offline_cache=cache, default_fp=ti.f32,
                default_ip=ti.i32, log_level=ti.ERROR)
    else:
        ti.init(arch=ti.cuda, offline_cache=cache, default_fp=ti.f32, default_ip=ti.i32, log_level=ti.ERROR,
                device_memory_fraction=0.5)
    from src.mpm.mainMPM import MPM
    from src.mpm.BaseKernel import find_max_velocity_
    import src.mpm.generator.LoadFromFile as gt_load

    # run-time fix (geotaichi's files untouched): BodyReader.rotate_body's kernel assigns a vector to one
    # ndarray element ('body_coords[nb, 0] = coords'), which taichi rejects (1.6.0: "only one of them is a
    # tensor type"; 1.7.4, on Python 3.12: LLVM's assertion "Invalid cast!" aborts the process, no exception
    # to catch), so add_body_from_file fails for every body; for the identity orientation used here the
    # rotation is skipped, which is what it would compute.
    orig_rotate = gt_load.BodyReader.rotate_body

    def rotate_body(self, orientation, coords, init_particle_num, particle_num):
        if [float(c) for c in orientation] == [0.0, 0.0, 1.0]:
            return
        return orig_rotate(self, orientation, coords, init_particle_num, particle_num)

    gt_load.BodyReader.rotate_body = rotate_body
    init_s = time.perf_counter() - t0

    floor_mu = float(os.environ.get("BAGNOLD_CHECK_FLOOR_MU", S.FLOOR_MU))
    dx = float(S.DX)
    nx, ny, nz = sc.dims
    # half a cell beyond the last node: int(L / dx) + 1 nodes and the boundary boxes are then exact
    L = [(d - 1 + 0.5) * dx for d in sc.dims]
    work = tempfile.mkdtemp(prefix="bagnold-geotaichi-")

    mpm = MPM(log=False)
    mpm.set_configuration(log=False, domain=ti.Vector(L), boundary=["Destroy", "Destroy", "Destroy"],
                          gravity=ti.Vector(list(S.GRAVITY)), background_damping=0.0, alphaPIC=1.0,
                          mapping="USL", stabilize=None, shape_function="QuadBSpline", gauss_number=0)
    cp = float(S.pwave_speed())
    dt0 = float(S.CFL) * dx / cp
    mpm.set_solver(log=False, solver={"Timestep": dt0, "SimulationTime": 1e9, "CFL": float(S.CFL),
                                      "SaveInterval": 1e9, "SavePath": os.path.join(work, "out")})
    lo, hi = 1.5 * dx, [Li - 2.0 * dx for Li in L]  # two node layers at each face
    faces = [  # (kind, normal, start, end)
        ("ReflectionConstraint", [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [lo, L[1], L[2]]),
        ("ReflectionConstraint", [1.0, 0.0, 0.0], [hi[0], 0.0, 0.0], L),
        ("ReflectionConstraint", [0.0, -1.0, 0.0], [0.0, 0.0, 0.0], [L[0], lo, L[2]]),
        ("ReflectionConstraint", [0.0, 1.0, 0.0], [0.0, hi[1], 0.0], L),
        ("FrictionConstraint", [0.0, 0.0, -1.0], [0.0, 0.0, 0.0], [L[0], L[1], lo]),
        ("ReflectionConstraint", [0.0, 0.0, 1.0], [0.0, 0.0, hi[2]], L),
    ]
    n_refl = 2 * 2 * (ny * nz + nx * nz) + 2 * nx * ny
    n_fric = 2 * nx * ny
    mpm.memory_allocate(log=False, memory={"max_material_number": 1, "max_particle_number": sc.n,
                                           "max_constraint_number": {"max_reflection_constraint": n_refl,
                                                                     "max_friction_constraint": n_fric}})
    mpm.add_material(model="DruckerPrager", material={
        "MaterialID": 1, "Density": float(S.RHO0), "YoungModulus": float(S.E), "PossionRatio": float(S.NU),
        "Cohesion": 0.0, "Friction": float(S.PHI_DEG), "Dilation": 0.0, "Tensile": 0.0,
        "dpType": "MiddleCircumscribed"})
    mpm.add_element(element={"ElementType": "R8N3D", "ElementSize": ti.Vector([dx, dx, dx]),
                             "Contact": {"ContactDetection": False}})
    npz = os.path.join(work, "lattice.npz")
    psize = np.full((sc.n, 3), 0.5 * dx / sc.k)
    np.savez(npz, position=sc.x0.astype(np.float64), psize=psize,
             volume=np.full(sc.n, float(sc.vol0)))
    mpm.add_body_from_file(body={"FileType": "NPZ", "Template": {
        "File": npz, "BodyID": 0, "MaterialID": 1,
        "ParticleStress": {"GravityField": False, "InternalStress": ti.Vector([0.0] * 6)},
        "InitialVelocity": ti.Vector([0.0, 0.0, 0.0]), "FixVelocity": ["Free", "Free", "Free"]}})
    # run-time fix: a file body never gets the element's calLength (BodyGenerator.add_body sets it for a region
    # body, BodyReader defines set_element_calLength but never calls it), so calLength stays 0 and the
    # QuadBSpline stencil starts half a cell too high: the weights stop summing to one and a block in free fall
    # builds stress and falls at about g / 4. Call geotaichi's own method as its loader should.
    gt_load.BodyReader(mpm.sims).set_element_calLength(mpm.scene, 0, ti.Vector([0.5 * dx / sc.k] * 3))
    bcs = []
    for kind, nrm, a, b in faces:
        d = {"BoundaryType": kind, "Norm": ti.Vector(nrm), "StartPoint": ti.Vector(a), "EndPoint": ti.Vector(b)}
        if kind == "FrictionConstraint":
            d["Friction"] = floor_mu
        bcs.append(d)
    mpm.add_boundary_condition(boundary=bcs)
    mpm.add_essentials({})
    sims, scene_ = mpm.sims, mpm.scene
    solver = mpm.solver
    if int(scene_.particleNum[0]) != sc.n:
        raise RuntimeError(f"geotaichi holds {int(scene_.particleNum[0])} particles, expected {sc.n}")
    x_field = scene_.particle.x
    x_field.from_numpy(np.ascontiguousarray(np.pad(sc.x0, ((0, x_field.shape[0] - sc.n), (0, 0)))))
    saved_p = scene_.particle.to_numpy()
    saved_s = scene_.material.stateVars.to_numpy()
    sound = float(scene_.material.find_max_sound_speed())
    cfl = float(S.CFL)
    n = sc.n

    def set_dt():
        vmax = float(find_max_velocity_(n, scene_.particle))
        h = cfl * float(scene_.element.calc_critical_timestep(vmax + sound))
        sims.dt[None] = h
        sims.delta = h
        return h

    class Solver(S.HostDtSolver):
        def __init__(self):
            self._dt = dt0

        def reset(self):
            scene_.particle.from_numpy(saved_p)
            scene_.material.stateVars.from_numpy(saved_s)
            sims.current_time, sims.current_step = 0.0, 0

        def _h(self):
            return set_dt()

        def _step(self, h):
            # set_dt() has set h already, except for advance_to's shortened last step
            sims.dt[None] = h
            sims.delta = h
            solver.core(scene_, mpm.neighbor)  # geotaichi's own step: grid reset, neighbour list, engine
            sims.current_time += sims.delta
            sims.current_step += 1

        def sync(self):
            ti.sync()

        def positions(self):
            return x_field.to_numpy()[:n].astype(np.float32)

        def n_active(self):
            return S.n_inside(sc, self.positions())

    return Solver(), init_s, ti.__version__, floor_mu


def geotaichi_version():
    try:
        from importlib.metadata import version
        return version("geotaichi")
    except Exception:
        return "?"


def main(argv):
    S.protocol_out()  # before the framework is imported: its notices go to stderr
    a = S.worker_args(argv, "peer_geotaichi.py")
    sc = S.Scene(a.particles, a.ppc, a.scene)
    arch = "cpu" if a.device == "cpu" else "cuda"
    try:
        solver, init_s, tiver, floor_mu = build(sc, arch, a.threads, a.warm_cache)
    except Exception as e:
        print(f"error geotaichi arch={arch}: {type(e).__name__}: {e}".replace("\n", " "), file=S.protocol_out(),
              flush=True)
        return 1
    tiver = ".".join(str(c) for c in tiver) if isinstance(tiver, tuple) else str(tiver)
    diffs = urllib.parse.quote(" | ".join(PHYSICS_DIFFERENCES), safe="")
    fixes = urllib.parse.quote(" | ".join(RUNTIME_FIXES), safe="")
    solver.window = sc.window_start  # the collapse scene: runs start mid-runout
    S.serve(solver, "geotaichi", geotaichi_version(),
            f"taichi={tiver} arch={arch} threads={a.threads} init_s={init_s:.6g} "
            f"kernel_cache={'on' if a.warm_cache else 'off'} particles={sc.n} grid={sc.grid_text()} "
            f"floor_mu={floor_mu:g} physics_differences={diffs} runtime_fixes={fixes}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
