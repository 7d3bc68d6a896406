"""mpm_taichi.py: the head-to-head scene (scene.py) in Taichi, written for
this benchmark the way Taichi's documentation programs MLS-MPM.

Physics, identical to bagnold's (core/physics): quadratic B-spline weights,
APIC/MLS-MPM transfers (Hu et al. 2018) scattering m C - dt V0 (4/dx^2) tau,
the Kirchhoff stress tau cached from the previous step's constitutive update,
F_trial = (I + dt C) F, SVD, the Drucker-Prager return map in principal
Hencky strain (Klar et al. 2016) with the log-Jp volume correction
(Tampubolon et al. 2017), no hardening, StVK-Hencky stress; grid momentum to
velocity plus gravity, then the six domain faces on their two outer node
layers in face order (-x, +x, -y, +y, -z, +z; the floor Coulomb mu 0.5, the
rest slip, only approaching velocities touched). dt = cfl dx / (c_p + v_max)
is computed in a kernel from the last G2P's maximum speed, so a step needs no
host round trip. float32 throughout.

Two layouts, as Taichi programs MPM:
  dense  dense grid fields, a particle loop scattering with atomic adds (the
         pattern of Taichi's MPM examples);
  bls    a sparse grid of 4^3-node pointer blocks with a per-block particle
         list (ti.append into a ti.root ... dynamic SNode, rebuilt every
         step, a fixed capacity of a power of two >= 8 ppc 4^3 per block)
         and P2G/G2P looping over those lists with ti.block_local caching
         the grid tile of each block, base hinted with
         ti.assume_in_range(base, block origin, 0, 1) and the block sizes
         (64 threads binning, 256 per P2G/G2P block) of Taichi's published
         BLS programs (the particle-in-block pattern; block-local storage
         only takes effect on CUDA). Every grid block a step touches is
         activated by a kernel of its own before binning, and P2G/G2P/grid
         run with ti.no_activate: no pointer block is allocated while other
         threads of the same kernel look blocks up (see activate_k).
"""
import sys
import time

import numpy as np

import scene as S

BLOCK = 4
PROFILE = False  # True: Taichi's kernel profiler (ti.profiler.print_kernel_profiler_info), cpu and cuda, by hand


def build(sc, arch, threads, variant, cache=False):
    import taichi as ti

    t0 = time.perf_counter()
    if arch == "cpu":
        ti.init(arch=ti.cpu, cpu_max_num_threads=threads, default_fp=ti.f32, log_level=ti.WARN,
                kernel_profiler=PROFILE, offline_cache=cache)
    else:
        # sparse SNodes allocate from a pool taken at init; the default (1 GB) is short of 4M particles.
        # The fraction is of the card's total memory, taken by each process at init: compare.py runs the
        # dense and bls workers at once beside bagnold and Warp, so two halves would leave the others nothing.
        ti.init(arch=ti.cuda, default_fp=ti.f32, log_level=ti.WARN, offline_cache=cache,
                device_memory_fraction=0.25, kernel_profiler=PROFILE)
    init_s = time.perf_counter() - t0

    f32 = ti.f32
    n = sc.n
    nx, ny, nz = sc.dims
    dx = float(S.DX)
    inv_dx = float(np.float32(1.0) / S.DX)
    mu, lam = S.lame()
    mu, lam = float(mu), float(lam)
    alpha = float(S.dp_alpha())
    cp = float(S.pwave_speed())
    mass = float(sc.mass)
    vol0 = float(sc.vol0)
    gz = S.GRAVITY[2]
    cfl_dx = float(np.float32(S.CFL) * S.DX)

    x = ti.Vector.field(3, f32, n)
    v = ti.Vector.field(3, f32, n)
    C = ti.Matrix.field(3, 3, f32, n)
    F = ti.Matrix.field(3, 3, f32, n)
    tau = ti.Matrix.field(3, 3, f32, n)
    logjp = ti.field(f32, n)
    dt = ti.field(f32, ())
    vmax = ti.field(f32, ())

    grid_m = ti.field(f32)
    grid_v = ti.Vector.field(3, f32)
    pid = None
    if variant == "dense":
        ti.root.dense(ti.ijk, sc.dims).place(grid_m, grid_v)
        blocks = None
    else:
        # One block more than the nodes need on each axis: P2G's block-local tile of a block starting at node
        # c spans nodes c .. c + BLOCK + 1 (the base nodes of its particles plus the 3-node stencil), and
        # BLS writes the whole tile back, so an occupied block's tile reaches into the next block; for the
        # last block that is past the pointer's end (no bounds check in a release build). No stencil of a
        # particle inside the grid reaches the extra nodes: they get no mass, and grid_k skips them.
        nb = tuple((d + BLOCK - 1) // BLOCK + 1 for d in sc.dims)
        blocks = ti.root.pointer(ti.ijk, nb)
        # Each grid component in a dense of its own (structure of arrays), as taichi_elements' mpm_solver.py
        # places grid_v.get_scalar_field(d). BLS needs it: components sharing one dense cell (place(grid_m,
        # grid_v), array of structures) make Taichi lower grid_v[I] to one vector-typed global pointer with
        # per-component shift pointers (transforms/lower_matrix_ptr.cpp), which the BLS analyzer does not
        # follow (analysis/bls_analyzer.cpp records only plain GlobalPtrStmt accesses), so grid_v's scratch
        # pads got no access and CUDA compilation aborted in scratch_pad.h (finalize: bounds[i].low != max).
        blocks.dense(ti.ijk, BLOCK).place(grid_m)
        for d in range(3):
            blocks.dense(ti.ijk, BLOCK).place(grid_v.get_scalar_field(d))
        pid = ti.field(ti.i32)
        # One list per 4^3 block, as Taichi's published BLS programs (taichi_elements' mpm_solver.py, the
        # mpm benchmarks) size it: a fixed power-of-two capacity per block, not all n particles (a list of n
        # per block made the index space of pid and of BLS's bounds analysis huge). A block holds
        # ppc * 4^3 particles at rest density; 8x that is far beyond any compaction of sand (J ~ 1), and
        # advance_to checks that no append was dropped.
        cap = 1
        while cap < min(n, 8 * sc.ppc * BLOCK ** 3):
            cap *= 2
        blocks.dynamic(ti.l, cap, chunk_size=BLOCK ** 3 * 8).place(pid)
        binned = ti.field(ti.i32, ())

    @ti.kernel
    def reset_k(x0: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)):
        for p in x:
            x[p] = x0[p]
            v[p] = ti.Vector.zero(f32, 3)
            C[p] = ti.Matrix.zero(f32, 3, 3)
            F[p] = ti.Matrix.identity(f32, 3)
            tau[p] = ti.Matrix.zero(f32, 3, 3)
            logjp[p] = 0.0
        vmax[None] = 0.0

    @ti.kernel
    def dt_k():
        dt[None] = cfl_dx / (cp + vmax[None])
        vmax[None] = 0.0

    @ti.func
    def weights(xp):
        xg = xp * inv_dx
        base = ti.floor(xg - 0.5, ti.i32)
        fx = xg - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        return base, fx, w

    @ti.func
    def scatter(p, base, fx, w):
        A = mass * C[p] - dt[None] * vol0 * 4.0 * inv_dx * inv_dx * tau[p]
        mv = mass * v[p]
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            off = ti.Vector([i, j, k])
            dpos = (off - fx) * dx
            wt = w[i][0] * w[j][1] * w[k][2]
            grid_m[base + off] += wt * mass
            grid_v[base + off] += wt * (mv + A @ dpos)

    @ti.func
    def return_map(sig, ljp):
        # bg_dp_return_map with volume correction: eps from sigma, Jp folded in
        eps = ti.Vector([ti.log(ti.max(sig[0], S.SIGMA_MIN)), ti.log(ti.max(sig[1], S.SIGMA_MIN)),
                         ti.log(ti.max(sig[2], S.SIGMA_MIN))])
        tr_raw = eps.sum()
        e = eps + ljp / 3.0
        tr = e.sum()
        eh = e - tr / 3.0
        eh_norm = eh.norm()
        dgamma = eh_norm + (3.0 * lam + 2.0 * mu) / (2.0 * mu) * alpha * tr
        out = e
        if tr >= 0.0:
            out = ti.Vector.zero(f32, 3)
        elif dgamma <= 0.0 or eh_norm <= 0.0:
            out = e
        else:
            out = e - (dgamma / eh_norm) * eh
        return out, ljp + tr_raw - out.sum()

    @ti.func
    def gather_update(p, base, fx, w):
        nv = ti.Vector.zero(f32, 3)
        B = ti.Matrix.zero(f32, 3, 3)
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            off = ti.Vector([i, j, k])
            dpos = (off - fx) * dx
            wt = w[i][0] * w[j][1] * w[k][2]
            gv = grid_v[base + off]
            nv += wt * gv
            B += wt * gv.outer_product(dpos)
        Cp = 4.0 * inv_dx * inv_dx * B
        v[p] = nv
        C[p] = Cp
        x[p] += dt[None] * nv
        Ft = (ti.Matrix.identity(f32, 3) + dt[None] * Cp) @ F[p]
        U, sig, V = ti.svd(Ft)
        s = ti.Vector([sig[0, 0], sig[1, 1], sig[2, 2]])
        e_new, ljp = return_map(s, logjp[p])
        logjp[p] = ljp
        s_new = ti.exp(e_new)
        F[p] = U @ ti.Matrix([[s_new[0], 0, 0], [0, s_new[1], 0], [0, 0, s_new[2]]]) @ V.transpose()
        # Hencky Kirchhoff stress of the projected state (bg_tau_hencky)
        le = ti.log(ti.max(s_new, S.SIGMA_MIN))
        t = 2.0 * mu * le + lam * le.sum()
        tau[p] = U @ ti.Matrix([[t[0], 0, 0], [0, t[1], 0], [0, 0, t[2]]]) @ U.transpose()
        ti.atomic_max(vmax[None], nv.norm())

    @ti.func
    def node_update(I):
        m = grid_m[I]
        if m > 0.0:
            vel = grid_v[I] / m
            vel[2] += dt[None] * gz
            for f in ti.static(range(6)):
                a = ti.static(f // 2)
                hi = ti.static(f % 2)
                depth = I[a]
                if ti.static(hi):
                    depth = sc.dims[a] - 1 - I[a]
                if depth < S.FACE_LAYERS:
                    sgn = ti.static(-1.0 if hi else 1.0)  # inward normal
                    vn = vel[a] * sgn
                    if vn < 0.0:
                        vel[a] = 0.0  # v - vn n for an axis-aligned n
                        if ti.static(f == 4):  # the Coulomb floor
                            tn = vel.norm()
                            kf = 0.0
                            if tn > 0.0:
                                kf = ti.max(0.0, 1.0 - S.FLOOR_MU * (-vn) / tn)
                            vel *= kf
            grid_v[I] = vel

    if variant == "dense":
        @ti.kernel
        def clear_k():
            for I in ti.grouped(grid_m):
                grid_m[I] = 0.0
                grid_v[I] = ti.Vector.zero(f32, 3)

        @ti.kernel
        def p2g_k():
            for p in x:
                base, fx, w = weights(x[p])
                scatter(p, base, fx, w)

        @ti.kernel
        def grid_k():
            for I in ti.grouped(grid_m):
                node_update(I)

        @ti.kernel
        def g2p_k():
            for p in x:
                base, fx, w = weights(x[p])
                gather_update(p, base, fx, w)

        def step():
            dt_k()
            clear_k()
            p2g_k()
            grid_k()
            g2p_k()
    else:
        @ti.kernel
        def activate_k():
            # Allocate, before any kernel looks them up, every block this step writes: the block of each
            # particle's base node (its list) and the 2x2x2 blocks from it that hold its block's P2G tile
            # (ti.block_local writes every node of the tile back, the zeros too). On CUDA, Taichi allocates a
            # pointer cell under a lock but looks cells up with plain loads (runtime_module/node_pointer.h:
            # Pointer_activate, Pointer_lookup_element), and P2G's block-local write-back goes through
            # activating pointers (transforms/make_block_local.cpp, the epilogue), so with activation left to
            # p2g_k and ti.append, blocks would be allocated while other threads of the same kernel read
            # them: a race (a thread that misses a block fresh from another multiprocessor reads or writes
            # Taichi's shared ambient cell instead). Here one kernel only activates and the later ones only
            # look up: the kernel boundary orders the two. ti.append in bin_k finds its block active.
            for p in x:
                b = ti.rescale_index(grid_m, blocks, ti.floor(x[p] * inv_dx - 0.5, ti.i32))
                for i, j, k in ti.static(ti.ndrange(2, 2, 2)):
                    ti.activate(blocks, [b[0] + i, b[1] + j, b[2] + k])  # (a Vector index warns of a cast)

        @ti.kernel
        def bin_k():
            ti.loop_config(block_dim=64)
            for p in x:
                base = ti.floor(x[p] * inv_dx - 0.5, ti.i32)
                # the block of the base node, as the published programs: rescale_index to pid's grandparent
                ti.append(pid.parent(), ti.rescale_index(grid_m, pid.parent(2), base), p)

        @ti.kernel
        def binned_k():
            binned[None] = 0
            for I in ti.grouped(blocks):
                binned[None] += ti.length(pid.parent(), I)

        @ti.kernel
        def p2g_k():
            ti.no_activate(blocks)  # activate_k allocated every block the tile writes
            ti.loop_config(block_dim=256)
            ti.block_local(grid_m, grid_v)
            for I in ti.grouped(pid):
                p = pid[I]
                base, fx, w = weights(x[p])
                Im = ti.rescale_index(pid, grid_m, I)
                for d in ti.static(range(3)):
                    # base - Im is in [0, BLOCK): the relative offset of the particle's base node from its
                    # block's origin. Taichi's BLS analysis already spans the block's BLOCK nodes for Im
                    # (the rescaled loop index), so the hint is the range [0, 1) that Taichi's own BLS MPM
                    # programs give; [0, BLOCK) counted the block twice.
                    base[d] = ti.assume_in_range(base[d], Im[d], 0, 1)
                scatter(p, base, fx, w)

        @ti.kernel
        def grid_k():
            ti.no_activate(blocks)
            for I in ti.grouped(grid_m):
                node_update(I)

        @ti.kernel
        def g2p_k():
            ti.no_activate(blocks)
            ti.loop_config(block_dim=256)
            ti.block_local(grid_v)
            for I in ti.grouped(pid):
                p = pid[I]
                base, fx, w = weights(x[p])
                Im = ti.rescale_index(pid, grid_m, I)
                for d in ti.static(range(3)):
                    base[d] = ti.assume_in_range(base[d], Im[d], 0, 1)  # as in p2g_k
                gather_update(p, base, fx, w)

        def clear():
            blocks.deactivate_all()  # grid blocks and their particle lists (Taichi's kernels, with their gc)
            activate_k()

        def step():
            dt_k()
            clear()
            bin_k()
            p2g_k()
            grid_k()
            g2p_k()

    class Solver:
        def reset(self):
            reset_k(sc.x0)

        def run(self, steps):
            for _ in range(steps):
                step()

        def sync(self):
            ti.sync()

        def dt(self):
            return float(dt[None])

        def advance_to(self, t_end):
            # bg_sim_advance_to: the last step is shortened to land on t_end
            t, k = 0.0, 0
            while t < t_end:
                dt_k()
                h = float(dt[None])
                if t + h > t_end:
                    h = float(np.float32(t_end - t))
                    dt[None] = h
                if not h > 0:
                    break
                if variant == "dense":
                    clear_k()
                else:
                    clear()
                    bin_k()
                    binned_k()
                    if binned[None] != n:
                        raise RuntimeError(f"bls: {binned[None]} of {n} particles binned (a block list is full)")
                p2g_k()
                grid_k()
                g2p_k()
                t += h
                k += 1
            return k, t

        def positions(self):
            return x.to_numpy()

        def n_active(self):
            return S.n_inside(sc, self.positions())

    return Solver(), init_s, ti.__version__


def main(argv):
    S.protocol_out()  # before the framework is imported: its notices go to stderr
    a = S.worker_args(argv, "mpm_taichi.py")
    variant = a.variant or "dense"
    if variant not in ("dense", "bls"):
        print(f"error --variant must be dense or bls (got '{variant}')", file=S.protocol_out(), flush=True)
        return 2
    sc = S.Scene(a.particles, a.ppc, a.scene)
    arch = "cpu" if a.device == "cpu" else "cuda"
    try:
        solver, init_s, ver = build(sc, arch, a.threads, variant, a.warm_cache)
    except Exception as e:
        print(f"error taichi arch={arch}: {type(e).__name__}: {e}".replace("\n", " "), file=S.protocol_out(), flush=True)
        return 1
    ver = ".".join(str(c) for c in ver) if isinstance(ver, tuple) else str(ver)
    solver.window = sc.window_start  # the collapse scene: runs start mid-runout
    S.serve(solver, "taichi", ver, f"variant={variant} arch={arch} threads={a.threads} "
            f"init_s={init_s:.6g} kernel_cache={'on' if a.warm_cache else 'off'} particles={sc.n} grid={sc.grid_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
