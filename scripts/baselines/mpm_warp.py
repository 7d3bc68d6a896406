"""mpm_warp.py: the head-to-head scene (scene.py) in NVIDIA Warp, written for
this benchmark the way Warp's documentation programs particle-grid methods:
one thread per particle, wp.atomic_add into dense wp.array3d grids, wp.svd3
for the SVD, and on CUDA the step captured once into a CUDA graph and
replayed (wp.ScopedCapture / wp.capture_launch), which is possible because
dt lives on the device.

Physics, identical to bagnold's (core/physics) and to mpm_taichi.py:
quadratic B-spline weights, APIC/MLS-MPM transfers scattering
m C - dt V0 (4/dx^2) tau with tau cached from the previous step,
F_trial = (I + dt C) F, SVD, the Drucker-Prager return map in principal
Hencky strain (Klar et al. 2016) with the log-Jp volume correction, no
hardening, StVK-Hencky stress; grid momentum to velocity plus gravity, then
the six domain faces on their two outer node layers in face order (-x, +x,
-y, +y, -z, +z; floor Coulomb mu 0.5, the rest slip). dt = cfl dx /
(c_p + v_max) from the last G2P's maximum speed, computed in a kernel.
float32 throughout. Warp runs CPU kernels on one thread (its CPU device
does not parallelise a launch), which compare.py states next to its rate.
"""
import sys
import time

import numpy as np

import scene as S


def build(sc, device, cache_dir=None):
    import warp as wp

    t0 = time.perf_counter()
    wp.config.quiet = True
    if cache_dir:
        wp.config.kernel_cache_dir = cache_dir
    wp.init()
    init_s = time.perf_counter() - t0
    dev = "cpu" if device == "cpu" else "cuda:0"

    n = sc.n
    nx, ny, nz = sc.dims
    mu, lam = S.lame()
    DX = float(S.DX)
    INV_DX = float(np.float32(1.0) / S.DX)
    MU = float(mu)
    LAM = float(lam)
    ALPHA = float(S.dp_alpha())
    CP = float(S.pwave_speed())
    MASS = float(sc.mass)
    VOL0 = float(sc.vol0)
    GZ = float(S.GRAVITY[2])
    CFL_DX = float(np.float32(S.CFL) * S.DX)
    FLOOR_MU = float(S.FLOOR_MU)
    SMIN = float(S.SIGMA_MIN)
    LAYERS = int(S.FACE_LAYERS)

    @wp.func
    def bspline(f: float):
        a = 1.5 - f
        b = f - 1.0
        c = f - 0.5
        return wp.vec3(0.5 * a * a, 0.75 - b * b, 0.5 * c * c)

    @wp.kernel
    def reset_k(x0: wp.array(dtype=wp.vec3), x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3),
                C: wp.array(dtype=wp.mat33), F: wp.array(dtype=wp.mat33), tau: wp.array(dtype=wp.mat33),
                logjp: wp.array(dtype=float)):
        p = wp.tid()
        x[p] = x0[p]
        v[p] = wp.vec3(0.0)
        C[p] = wp.mat33(0.0)
        F[p] = wp.identity(n=3, dtype=float)
        tau[p] = wp.mat33(0.0)
        logjp[p] = 0.0

    @wp.kernel
    def dt_k(vmax: wp.array(dtype=float), dt: wp.array(dtype=float)):
        dt[0] = CFL_DX / (CP + vmax[0])
        vmax[0] = 0.0

    @wp.kernel
    def p2g_k(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), C: wp.array(dtype=wp.mat33),
              tau: wp.array(dtype=wp.mat33), dt: wp.array(dtype=float), grid_m: wp.array3d(dtype=float),
              grid_v: wp.array3d(dtype=wp.vec3)):
        p = wp.tid()
        xg = x[p] * INV_DX
        bi = int(wp.floor(xg[0] - 0.5))
        bj = int(wp.floor(xg[1] - 0.5))
        bk = int(wp.floor(xg[2] - 0.5))
        fx = xg - wp.vec3(float(bi), float(bj), float(bk))
        wx = bspline(fx[0])
        wy = bspline(fx[1])
        wz = bspline(fx[2])
        A = MASS * C[p] - (dt[0] * VOL0 * 4.0 * INV_DX * INV_DX) * tau[p]
        mv = MASS * v[p]
        for i in range(3):
            for j in range(3):
                for k in range(3):
                    dpos = (wp.vec3(float(i), float(j), float(k)) - fx) * DX
                    wt = wx[i] * wy[j] * wz[k]
                    wp.atomic_add(grid_m, bi + i, bj + j, bk + k, wt * MASS)
                    wp.atomic_add(grid_v, bi + i, bj + j, bk + k, wt * (mv + A * dpos))

    @wp.func
    def face(vel: wp.vec3, axis: int, sgn: float, coulomb: int):
        vn = vel[axis] * sgn
        out = vel
        if vn < 0.0:
            out[axis] = 0.0  # v - vn n for an axis-aligned n
            if coulomb == 1:
                tn = wp.length(out)
                kf = float(0.0)
                if tn > 0.0:
                    kf = wp.max(0.0, 1.0 - FLOOR_MU * (-vn) / tn)
                out = out * kf
        return out

    @wp.kernel
    def grid_k(dt: wp.array(dtype=float), grid_m: wp.array3d(dtype=float), grid_v: wp.array3d(dtype=wp.vec3)):
        i, j, k = wp.tid()
        m = grid_m[i, j, k]
        if m > 0.0:
            vel = grid_v[i, j, k] / m
            vel = vel + wp.vec3(0.0, 0.0, dt[0] * GZ)
            if i < LAYERS:
                vel = face(vel, 0, 1.0, 0)
            if nx - 1 - i < LAYERS:
                vel = face(vel, 0, -1.0, 0)
            if j < LAYERS:
                vel = face(vel, 1, 1.0, 0)
            if ny - 1 - j < LAYERS:
                vel = face(vel, 1, -1.0, 0)
            if k < LAYERS:
                vel = face(vel, 2, 1.0, 1)
            if nz - 1 - k < LAYERS:
                vel = face(vel, 2, -1.0, 0)
            grid_v[i, j, k] = vel

    @wp.kernel
    def g2p_k(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), C: wp.array(dtype=wp.mat33),
              F: wp.array(dtype=wp.mat33), tau: wp.array(dtype=wp.mat33), logjp: wp.array(dtype=float),
              dt: wp.array(dtype=float), grid_v: wp.array3d(dtype=wp.vec3), vmax: wp.array(dtype=float)):
        p = wp.tid()
        h = dt[0]
        xg = x[p] * INV_DX
        bi = int(wp.floor(xg[0] - 0.5))
        bj = int(wp.floor(xg[1] - 0.5))
        bk = int(wp.floor(xg[2] - 0.5))
        fx = xg - wp.vec3(float(bi), float(bj), float(bk))
        wx = bspline(fx[0])
        wy = bspline(fx[1])
        wz = bspline(fx[2])
        nv = wp.vec3(0.0)
        B = wp.mat33(0.0)
        for i in range(3):
            for j in range(3):
                for k in range(3):
                    dpos = (wp.vec3(float(i), float(j), float(k)) - fx) * DX
                    wt = wx[i] * wy[j] * wz[k]
                    gv = grid_v[bi + i, bj + j, bk + k]
                    nv = nv + wt * gv
                    B = B + wt * wp.outer(gv, dpos)
        Cp = (4.0 * INV_DX * INV_DX) * B
        v[p] = nv
        C[p] = Cp
        x[p] = x[p] + h * nv
        Ft = (wp.identity(n=3, dtype=float) + h * Cp) * F[p]
        U = wp.mat33()
        sig = wp.vec3()
        V = wp.mat33()
        wp.svd3(Ft, U, sig, V)
        # bg_dp_return_map with the volume correction
        ljp = logjp[p]
        eps = wp.vec3(wp.log(wp.max(sig[0], SMIN)), wp.log(wp.max(sig[1], SMIN)), wp.log(wp.max(sig[2], SMIN)))
        tr_raw = eps[0] + eps[1] + eps[2]
        e = eps + wp.vec3(ljp / 3.0)
        tr = e[0] + e[1] + e[2]
        eh = e - wp.vec3(tr / 3.0)
        eh_norm = wp.length(eh)
        dgamma = eh_norm + (3.0 * LAM + 2.0 * MU) / (2.0 * MU) * ALPHA * tr
        en = e
        if tr >= 0.0:
            en = wp.vec3(0.0)
        elif dgamma <= 0.0 or eh_norm <= 0.0:
            en = e
        else:
            en = e - (dgamma / eh_norm) * eh
        logjp[p] = ljp + tr_raw - (en[0] + en[1] + en[2])
        sn = wp.vec3(wp.exp(en[0]), wp.exp(en[1]), wp.exp(en[2]))
        F[p] = U * wp.diag(sn) * wp.transpose(V)
        le = wp.vec3(wp.log(wp.max(sn[0], SMIN)), wp.log(wp.max(sn[1], SMIN)), wp.log(wp.max(sn[2], SMIN)))
        trl = le[0] + le[1] + le[2]
        t = 2.0 * MU * le + wp.vec3(LAM * trl)
        tau[p] = U * wp.diag(t) * wp.transpose(U)
        wp.atomic_max(vmax, 0, wp.length(nv))

    x0 = wp.array(sc.x0, dtype=wp.vec3, device=dev)
    x = wp.zeros(n, dtype=wp.vec3, device=dev)
    v = wp.zeros(n, dtype=wp.vec3, device=dev)
    C = wp.zeros(n, dtype=wp.mat33, device=dev)
    F = wp.zeros(n, dtype=wp.mat33, device=dev)
    tau = wp.zeros(n, dtype=wp.mat33, device=dev)
    logjp = wp.zeros(n, dtype=float, device=dev)
    grid_m = wp.zeros((nx, ny, nz), dtype=float, device=dev)
    grid_v = wp.zeros((nx, ny, nz), dtype=wp.vec3, device=dev)
    vmax = wp.zeros(1, dtype=float, device=dev)
    dt = wp.zeros(1, dtype=float, device=dev)

    def transfers():
        grid_m.zero_()
        grid_v.zero_()
        wp.launch(p2g_k, dim=n, inputs=[x, v, C, tau, dt, grid_m, grid_v], device=dev)
        wp.launch(grid_k, dim=(nx, ny, nz), inputs=[dt, grid_m, grid_v], device=dev)
        wp.launch(g2p_k, dim=n, inputs=[x, v, C, F, tau, logjp, dt, grid_v, vmax], device=dev)

    def one_step():
        wp.launch(dt_k, dim=1, inputs=[vmax, dt], device=dev)
        transfers()

    graph = [None]
    use_graph = dev != "cpu"

    class Solver:
        def reset(self):
            wp.launch(reset_k, dim=n, inputs=[x0, x, v, C, F, tau, logjp], device=dev)
            vmax.zero_()

        def run(self, steps):
            if use_graph:
                if graph[0] is None:
                    one_step()  # loads every module before the capture
                    wp.synchronize_device(dev)
                    self.reset()
                    with wp.ScopedCapture(device=dev) as cap:
                        one_step()
                    graph[0] = cap.graph
                for _ in range(steps):
                    wp.capture_launch(graph[0])
            else:
                for _ in range(steps):
                    one_step()

        def sync(self):
            wp.synchronize_device(dev)

        def dt(self):
            return float(dt.numpy()[0])

        def advance_to(self, t_end):
            t, k = 0.0, 0
            while t < t_end:
                wp.launch(dt_k, dim=1, inputs=[vmax, dt], device=dev)
                h = float(dt.numpy()[0])
                if t + h > t_end:
                    h = float(np.float32(t_end - t))
                    dt.assign(np.array([h], dtype=np.float32))
                if not h > 0:
                    break
                transfers()
                t += h
                k += 1
            return k, t

        def positions(self):
            return x.numpy()

        def n_active(self):
            return S.n_inside(sc, self.positions())

    return Solver(), init_s, wp.__version__, dev


def main(argv):
    S.protocol_out()  # before the framework is imported: its notices go to stderr
    a = S.worker_args(argv, "mpm_warp.py")
    sc = S.Scene(a.particles, a.ppc, a.scene)
    import atexit
    import shutil
    import tempfile
    cache_dir = None
    if not a.warm_cache:  # a fresh kernel cache: the first launch compiles, every run
        cache_dir = tempfile.mkdtemp(prefix="bagnold-warp-cache-")
        atexit.register(shutil.rmtree, cache_dir, True)
    try:
        solver, init_s, ver, dev = build(sc, a.device, cache_dir)
    except Exception as e:
        print(f"error warp device={a.device}: {type(e).__name__}: {e}".replace("\n", " "), file=S.protocol_out(), flush=True)
        return 1
    solver.window = sc.window_start  # the collapse scene: runs start mid-runout
    S.serve(solver, "warp", ver, f"variant=atomics device={dev} threads=1 init_s={init_s:.6g} "
            f"kernel_cache={'on' if a.warm_cache else 'off'} "
            f"particles={sc.n} grid={sc.grid_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
