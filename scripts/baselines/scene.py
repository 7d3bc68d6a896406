"""scene.py: the head-to-head benchmark scene, shared by the Taichi and Warp
peers (mpm_taichi.py, mpm_warp.py), and the worker loop that lets
compare.py drive every solver the same way.

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


class Scene:
    """The lattice and the grid of one particle count, as bench_cpu builds them."""

    def __init__(self, particles, ppc):
        if ppc not in (1, 8, 27, 64):
            raise ValueError(f"ppc must be 1, 8, 27 or 64 (got {ppc})")
        self.n = int(particles)
        self.ppc = int(ppc)
        self.k = round(ppc ** (1.0 / 3.0))
        c = max(1, int(math.pow(self.n / self.ppc, 1.0 / 3.0)))
        while c > 1 and (c - 1) ** 3 * self.ppc >= self.n:
            c -= 1
        while c ** 3 * self.ppc < self.n:
            c += 1
        self.side = c
        self.dims = (c + 2 * MARGIN_CELLS + 1, c + 2 * MARGIN_CELLS + 1,
                     FLOOR_CELLS + int(math.ceil(1.6 * c)) + 4 + 1)
        lat = self.k * c
        p = np.arange(self.n, dtype=np.int64)
        i, j, l = p % lat, (p // lat) % lat, p // (lat * lat)
        dx = float(DX)
        x = np.empty((self.n, 3), dtype=np.float32)
        x[:, 0] = ((MARGIN_CELLS + (i + 0.5) / self.k) * dx).astype(np.float32)
        x[:, 1] = ((MARGIN_CELLS + (j + 0.5) / self.k) * dx).astype(np.float32)
        x[:, 2] = ((FLOOR_CELLS + (l + 0.5) / self.k) * dx).astype(np.float32)
        self.x0 = x
        self.vol0 = np.float32(DX * DX * DX / np.float32(self.ppc))
        self.mass = np.float32(RHO0 * self.vol0)

    def grid_text(self):
        return "x".join(str(d) for d in self.dims)


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


def serve(solver, name, version, extra=""):
    """The worker protocol of scripts/bench/bench_scene.c, on stdin/stdout.

    solver must have reset(), run(steps) (dt rule on the device, no host
    sync inside), sync(), advance_to(t) -> steps, positions() -> (n, 3)
    float32, dt() and n_active(). The first 'run' of the process includes the
    JIT compilation of every kernel; its reset and first step are reported
    separately as first_step_s so compare.py can state the compile cost
    apart."""
    out = protocol_out()
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
    ap.add_argument("--warm-cache", action="store_true",
                    help="use the framework's on-disk kernel cache (default: bypass it, so the first step's "
                         "time is a cold compile every run)")
    a = ap.parse_args(argv)
    if a.particles < 1:
        ap.error(f"--particles must be >= 1 (got {a.particles})")
    if a.threads < 1:
        ap.error(f"--threads must be >= 1 (got {a.threads})")
    return a
