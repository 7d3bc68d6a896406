"""scene.py: the head-to-head benchmark scene, shared by our Taichi and Warp
implementations (mpm_taichi.py, mpm_warp.py) and the adapters of the public
code (peer_geotaichi.py, peer_taichi_elements.py, peer_warp_mpm.py), and the
worker loop that lets compare.py drive every solver the same way.

The scene is the one scripts/bench/bench_cpu.c and bench_scene.c build, rule
for rule: a block of Klar sand (E 3.537e5 Pa, nu 0.3, rho0 2200 kg/m^3,
phi 35 deg, no hardening, log-Jp volume correction on), a regular lattice of
ppc = k^3 particles per cell at offsets (i + 0.5) / k (no jitter, so all three
solvers start from the same positions to the bit), dx = 1 cm, C x C cells
laterally with C^3 ppc >= N, filled layer by layer until exactly N particles,
4 free cells on each lateral side, the block's bottom 4 cells above the -z
face; grid nodes (C + 9) x (C + 9) x (4 + ceil(1.6 C) + 5). Every domain
face holds its two outermost node layers: -z is a Coulomb floor (mu 0.5),
the others slip. Gravity -9.81 m/s^2. dt = cfl dx / (c_p + v_max), cfl 0.3,
recomputed every step from the previous step's maximum particle speed. All
arithmetic float32, as bagnold's.
"""
import math
import sys
import time

import numpy as np

MARGIN_CELLS = 4
FLOOR_CELLS = 4
FACE_LAYERS = 2
DX = np.float32(0.01)
GRAVITY = (0.0, 0.0, -9.81)
FLOOR_MU = 0.5
CFL = 0.3
SIGMA_MIN = 1e-4  # bg_stress.h: singular values are clamped here before the log

# bg_material_sand(): Klar et al. 2016
E = np.float32(3.537e5)
NU = np.float32(0.3)
RHO0 = np.float32(2200.0)
PHI_DEG = np.float32(35.0)


def lame():
    f = np.float32
    mu = E / (f(2) * (f(1) + NU))
    lam = E * NU / ((f(1) + NU) * (f(1) - f(2) * NU))
    return f(mu), f(lam)


def dp_alpha():
    """The Drucker-Prager cone slope from phi, as bg_dp_alpha (float32)."""
    f = np.float32
    s = np.sin(PHI_DEG * f(0.017453292519943295), dtype=np.float32)
    return f(f(0.8164965809277260) * f(2) * s / (f(3) - s))


def pwave_speed():
    mu, lam = lame()
    return np.float32(np.sqrt((lam + np.float32(2) * mu) / RHO0, dtype=np.float32))


SCENES = ("freefall", "collapse")
COLLAPSE_SEED = 20261203  # bench_common.c's shuffle seed


def _splitmix_shuffle(x, seed):
    """bench_common.c's Fisher-Yates with splitmix64, to the bit: for q = n
    down to 2, r = mix() % q, swap rows q - 1 and r. The mix values depend
    only on the step, so they are computed at once; the swaps run in order."""
    n = x.shape[0]
    if n < 2:
        return x
    m64 = (1 << 64) - 1
    with np.errstate(over="ignore"):
        t = np.arange(1, n, dtype=np.uint64)  # draw t (1-based) happens at q = n - t + 1
        z = (np.uint64(seed) + t * np.uint64(0x9E3779B97F4A7C15)) & np.uint64(m64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    q = np.arange(n, 1, -1, dtype=np.uint64)
    r = (z % q).astype(np.int64)
    q = q.astype(np.int64)
    for a, b in zip((q - 1).tolist(), r.tolist()):
        x[[a, b]] = x[[b, a]]
    return x


class Scene:
    """The lattice and the grid of one particle count, as bench_common.c
    builds them (bench_scene_build_kind):

      freefall  the block 4 cells above the floor, 4 free cells on each
                lateral side, particles in lattice order (bench_cpu's scene);
      collapse  the same block as a column standing on the floor (its bottom
                1 cell above node 0), (side + 1) // 2 + 4 free cells on each
                lateral side, particles in bench_common.c's shuffled order;
                a 'run' first advances (untimed) to window_start =
                1.5 sqrt(h / g), the middle of the runout, h the filled
                height."""

    def __init__(self, particles, ppc, kind="freefall"):
        if ppc not in (1, 8, 27, 64):
            raise ValueError(f"ppc must be 1, 8, 27 or 64 (got {ppc})")
        if kind not in SCENES:
            raise ValueError(f"scene must be one of {SCENES} (got {kind!r})")
        self.kind = kind
        self.n = int(particles)
        self.ppc = int(ppc)
        self.k = round(ppc ** (1.0 / 3.0))
        c = max(1, int(math.pow(self.n / self.ppc, 1.0 / 3.0)))
        while c > 1 and (c - 1) ** 3 * self.ppc >= self.n:
            c -= 1
        while c ** 3 * self.ppc < self.n:
            c += 1
        self.side = c
        margin = (c + 1) // 2 + MARGIN_CELLS if kind == "collapse" else MARGIN_CELLS
        z0 = 1.0 if kind == "collapse" else float(FLOOR_CELLS)
        self.margin = margin
        self.dims = (c + 2 * margin + 1, c + 2 * margin + 1,
                     FLOOR_CELLS + int(math.ceil(1.6 * c)) + 4 + 1)
        self.height = self.n / (self.ppc * float(c * c))  # filled height, cells
        self.window_start = 1.5 * math.sqrt(self.height * float(DX) / 9.81) if kind == "collapse" else 0.0
        lat = self.k * c
        p = np.arange(self.n, dtype=np.int64)
        i, j, l = p % lat, (p // lat) % lat, p // (lat * lat)
        dx = float(DX)
        x = np.empty((self.n, 3), dtype=np.float32)
        x[:, 0] = ((margin + (i + 0.5) / self.k) * dx).astype(np.float32)
        x[:, 1] = ((margin + (j + 0.5) / self.k) * dx).astype(np.float32)
        x[:, 2] = ((z0 + (l + 0.5) / self.k) * dx).astype(np.float32)
        if kind == "collapse":
            x = _splitmix_shuffle(x, COLLAPSE_SEED)
        self.x0 = x
        self.vol0 = np.float32(DX * DX * DX / np.float32(self.ppc))
        self.mass = np.float32(RHO0 * self.vol0)

    def grid_text(self):
        return "x".join(str(d) for d in self.dims)


def n_inside(sc, xyz):
    """The particles still inside the grid's interior (whose stencil stays
    on the grid), the peers' stand-in for bagnold's n_active: no peer parks."""
    xg = xyz / np.float32(DX)
    ok = np.all((xg >= 0.5) & (xg < np.array(sc.dims, dtype=np.float32) - 1.5), axis=1)
    return int(ok.sum())


class HostDtSolver:
    """What the public code's adapters share: the scene's dt rule evaluated on
    the host before every step (self._h(), the next dt) and one step of the
    public code of a given dt (self._step(h)); run, dt and advance_to (the
    last step shortened to land on t_end, as bg_sim_advance_to) follow.
    self._dt is the last step's dt."""

    def run(self, steps):
        for _ in range(steps):
            self._dt = self._h()
            self._step(self._dt)

    def dt(self):
        return float(self._dt)

    def advance_to(self, t_end):
        t, k = 0.0, 0
        while t < t_end:
            h = self._h()
            if t + h > t_end:
                h = float(np.float32(t_end - t))
            if not h > 0:
                break
            self._step(h)
            self._dt = h
            t += h
            k += 1
        return k, t


_proto = None


def protocol_out():
    """The worker's answers go to the original stdout; from the first call on,
    everything else written to fd 1 (the frameworks print compile notices
    from C++ as well as Python) goes to stderr, so it cannot break the
    one-line-per-command protocol."""
    global _proto
    if _proto is None:
        import os
        sys.stdout.flush()
        _proto = os.fdopen(os.dup(1), "w", buffering=1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    return _proto


def serve(solver, name, version, extra="", window=None):
    """The worker protocol of scripts/bench/bench_scene.c, on stdin/stdout.

    solver must have reset(), run(steps) (dt rule on the device, no host
    sync inside), sync(), advance_to(t) -> steps, positions() -> (n, 3)
    float32, dt() and n_active(). The first 'run' of the process includes the
    JIT compilation of every kernel; its reset and first step are reported
    separately as first_step_s so compare.py can state the compile cost
    apart. window > 0 (the collapse scene; default solver.window, else 0): every 'run' first advances the
    fresh state to t = window, untimed (part of first_step_s in the first
    run), then takes its warm-up and timed steps there."""
    out = protocol_out()
    if window is None:
        window = float(getattr(solver, "window", 0.0))
    print(f"ready solver={name} version={version} {extra}".rstrip(), file=out, flush=True)
    for line in sys.stdin:
        parts = line.split(maxsplit=2)
        if not parts:
            continue
        cmd = parts[0]
        try:
            if cmd == "quit":
                break
            if cmd == "run" and len(parts) == 3:
                warm, steps = int(parts[1]), int(parts[2])
                if warm < 0 or steps < 1:
                    raise ValueError("run W S needs W >= 0 and S >= 1")
                a = time.perf_counter()
                solver.reset()
                solver.sync()
                first = 0.0
                if window > 0:
                    solver.advance_to(window)
                    solver.sync()
                if warm:
                    solver.run(1)
                    solver.sync()
                    first = time.perf_counter() - a
                    if warm > 1:
                        solver.run(warm - 1)
                        solver.sync()
                t0 = time.perf_counter()
                solver.run(steps)
                solver.sync()
                t1 = time.perf_counter()
                print(f"result wall_s={t1 - t0:.9g} steps={steps} first_step_s={first:.9g} "
                      f"dt={solver.dt():.9g} n_active={solver.n_active()}", file=out, flush=True)
            elif cmd == "check" and len(parts) == 3:
                t_end = float(parts[1])
                solver.reset()
                solver.sync()
                a = time.perf_counter()
                steps, t = solver.advance_to(t_end) if t_end > 0 else (0, 0.0)
                solver.sync()
                wall = time.perf_counter() - a
                solver.positions().astype(np.float32).tofile(parts[2].strip())
                print(f"checked time={t:.9g} steps={steps} wall_s={wall:.9g} "
                      f"n_active={solver.n_active()}", file=out, flush=True)
            else:
                print(f"error unknown command '{line.strip()}' (expected 'run W S', "
                      "'check T PATH' or 'quit')", file=out, flush=True)
        except Exception as e:  # the driver must hear about it, not hang
            print(f"error {type(e).__name__}: {e}".replace("\n", " "), file=out, flush=True)


def worker_args(argv, prog):
    import argparse
    ap = argparse.ArgumentParser(prog=prog, description="a worker of scripts/baselines/compare.py; "
                                 "commands on stdin as scripts/bench/bench_scene.c")
    ap.add_argument("--particles", type=int, default=32768)
    ap.add_argument("--ppc", type=int, default=8, choices=(1, 8, 27, 64))
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (Taichi; Warp's CPU is serial)")
    ap.add_argument("--variant", default="", help="solver variant (Taichi: dense or bls)")
    ap.add_argument("--scene", choices=SCENES, default="freefall", help="freefall (default) or collapse")
    ap.add_argument("--warm-cache", action="store_true",
                    help="use the framework's on-disk kernel cache (default: bypass it, so the first step's "
                         "time is a cold compile every run)")
    a = ap.parse_args(argv)
    if a.particles < 1:
        ap.error(f"--particles must be >= 1 (got {a.particles})")
    if a.threads < 1:
        ap.error(f"--threads must be >= 1 (got {a.threads})")
    return a
