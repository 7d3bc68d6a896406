/* cuda_p2g.cu: the particle-to-grid scatter (Gao et al. 2018, the seed's
 * design). One CUDA block per run of the last sort (cuda_sort.cu): the
 * particles whose lowest stencil node lies in one 4^3 grid block. They
 * touch nodes origin .. origin + 5 per axis, a 6^3 tile held in shared
 * memory and flushed once to the global grid with atomics; particles that
 * drifted out of their block since the sort add to the global grid
 * directly. The resource "cuda/global" sends every particle to the global
 * grid with float atomics: the plain reference the tile is measured and
 * checked against. Also the nonlocal service's scatter.
 *
 * The property deterministic=1 (DET below) replaces every float atomic that
 * reaches the grid by a 64-bit integer one at a scale common to the whole
 * grid: integer sums do not depend on their order, so the grid, and with it
 * the run, repeats bit for bit. The scale per component is 2^(62 - e) with
 * 2^e above n_runs times the largest block's bound S_l (fix_scales): no
 * node sum exceeds the sum of every block's bound, so no sum overflows, and
 * a node resolves 2^(e - 62), far below float's resolution of any node
 * sum within some 2^20 of the largest. */
#include "cuda_internal.cuh"

/* What a particle scatters, computed exactly as the CPU reference does:
 * per node wt * (m, m v + A dpos), dpos = (node - xg) dx. */
typedef struct contrib {
  bg_bspline w;
  float b4[4], ax[4], ay[4], az[4];
} contrib;

/* A particle's affine matrix A (bg_p2g_affine) from its C and tau; CP
 * (layout=compact): tau derived from F and the state, one mass and volume
 * (a template parameter, so that the other kernels carry no second SVD). */
template <bool CP = false>
static __device__ __forceinline__ bg_mat3 particle_affine(const dparts &P, int64_t p, const dgeom &G, float dt) {
  bg_mat3 C, tau;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = P.f[PC + 3 * i + j][p];
  if (CP) {
    tau = compact_tau(P, p, G.dim);
    return bg_p2g_affine(P.m1, P.v1, &C, &tau, dt, G.inv_dx);
  }
  tau.m[0][0] = P.f[PT + 0][p];
  tau.m[1][1] = P.f[PT + 1][p];
  tau.m[2][2] = P.f[PT + 2][p];
  tau.m[0][1] = tau.m[1][0] = P.f[PT + 3][p];
  tau.m[0][2] = tau.m[2][0] = P.f[PT + 4][p];
  tau.m[1][2] = tau.m[2][1] = P.f[PT + 5][p];
  return bg_p2g_affine(P.f[PM][p], P.f[PVOL][p], &C, &tau, dt, G.inv_dx);
}

template <int DIM, bool CP = false>
static __device__ __forceinline__ void particle_contrib(const dparts &P, int64_t p, const dgeom &G, float dt,
                                                 contrib &c) {
  float xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (P.f[PX + d][p] - G.origin[d]) * G.inv_dx;
  c.w = bg_bspline_eval_dim(xg, DIM);
  const float m = CP ? P.m1 : P.f[PM][p];
  const bg_mat3 A = particle_affine<CP>(P, p, G, dt);
  c.b4[0] = m;
  for (int d = 0; d < 3; ++d) c.b4[1 + d] = m * P.f[PV + d][p];
  c.ax[0] = c.ay[0] = c.az[0] = 0.0f;
  for (int d = 0; d < 3; ++d) {
    c.ax[1 + d] = A.m[d][0];
    c.ay[1 + d] = A.m[d][1];
    c.az[1 + d] = A.m[d][2];
  }
}

/* Whether a particle's lowest stencil node lies in block (bx, by, bz); in
 * 2D the y stencil is the plane's node, in block 0. */
template <int LB, int DIM>
static __device__ __forceinline__ bool in_block(const contrib &c, int64_t bx, int64_t by, int64_t bz) {
  return (c.w.base[0] >> LB) == bx && (DIM == 2 || (c.w.base[1] >> LB) == by) && (c.w.base[2] >> LB) == bz;
}

/* The scatters: every particle to the global grid with float atomics
 * ("cuda/global"), or in-block particles to a shared fixed-point tile
 * ("cuda"; see k_p2g). */
enum { P2G_GLOBAL = 0, P2G_FIXED = 1 };

/* The fixed-point tile's per-block scales, powers of two per component:
 * a value v goes in as hi = rint(v sh) plus lo = rint((v - hi / sh) sl). */
typedef struct fixscale {
  float sh[4], sl[4], ish[4]; /* ish = 1 / sh, exact: a multiply, not a division, per node */
} fixscale;

/* One node of a particle's 27: the same arithmetic, in the same order, as
 * the CPU reference, whatever order the nodes are visited in. */
static __device__ __forceinline__ void node_value(const contrib &c, int a, int b, int k, float dx, float val[4]) {
  const float dxa = ((float)a - c.w.fx[0]) * dx;
  const float dxb = ((float)b - c.w.fx[1]) * dx;
  const float dxc = ((float)k - c.w.fx[2]) * dx;
  const float wab = sel3(c.w.w[0], a) * sel3(c.w.w[1], b);
  const float wt = wab * sel3(c.w.w[2], k);
#pragma unroll
  for (int l = 0; l < 4; ++l) {
    const float vab = c.b4[l] + c.ax[l] * dxa + c.ay[l] * dxb;
    val[l] = wt * (vab + c.az[l] * dxc);
  }
}

/* A value into the fixed-point grid: v times the component's scale, to
 * the nearest integer (two's complement in the unsigned word). */
static __device__ __forceinline__ void fix_add(unsigned long long *gfix, int64_t nn, int l, int64_t node, double v,
                                               const double *gscale) {
  atomicAdd(gfix + l * nn + node, (unsigned long long)__double2ll_rn(v * gscale[l]));
}

template <int LB, int MODE, int W, bool DET, bool SP>
static __device__ __forceinline__ void scatter_node(const dgeom &G, const contrib &c, bool in, int o0, int o1, int o2,
                                             int a, int b, int k, float dx, float *tile, const fixscale &fs,
                                             float4 *grid, unsigned long long *gfix, const double *gscale,
                                             const sparse_stencil &ss, int b0) {
  constexpr int T = (1 << LB) + 2, TN = T * T * T;
  float val[4];
  node_value(c, a, b, k, dx, val);
  if (MODE == P2G_FIXED && in) {
    const int t = (((c.w.base[0] - o0 + a) * T + (c.w.base[1] - o1 + b)) * T + (c.w.base[2] - o2 + k));
    int *ti = (int *)tile;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      /* v sh is exact (a power of two), so is hi / sh, and so is the
       * remainder v - hi / sh (it is smaller than either): hi and lo carry
       * v to within 0.5 / sl, whatever its size; hi alone (W = 1) to
       * within 0.5 / sh, 2^-31 of the block's bound */
      const float h = rintf(val[l] * fs.sh[l]);
      atomicAdd(&ti[l * TN + t], (int)h);
      if (W == 2) {
        const float r = val[l] - h * fs.ish[l];
        atomicAdd(&ti[(4 + l) * TN + t], __float2int_rn(r * fs.sl[l]));
      }
    }
  } else if (DET) {
    const int64_t node = node_index(G, c.w.base[0] + a, c.w.base[1] + b, c.w.base[2] + k);
    const int64_t nn = G.dims[0] * G.dims[1] * G.dims[2];
#pragma unroll
    for (int l = 0; l < 4; ++l) fix_add(gfix, nn, l, node, (double)val[l], gscale);
  } else {
    /* sparse: through the particle's stencil blocks, loaded once (k_p2g) */
    atomic_add4(grid + (SP ? sparse_node(ss, a, b - b0, k)
                           : node_index(G, c.w.base[0] + a, c.w.base[1] + b, c.w.base[2] + k)),
                val[0], val[1], val[2], val[3]);
  }
}

/* A particle's term of the bound S_l on every node sum it reaches (weights
 * <= 1, |node - particle| <= h = 1.5 dx per axis): fix_scales' per-block
 * scales and the deterministic grid's global ones share it. */
static __device__ __forceinline__ void add_bound(const contrib &c, float h, float sum[4]) {
#pragma unroll
  for (int l = 0; l < 4; ++l) sum[l] += fabsf(c.b4[l]) + h * (fabsf(c.ax[l]) + fabsf(c.ay[l]) + fabsf(c.az[l]));
}

/* The fixed-point tile's scales for one block, from a first pass over its
 * particles. Every node sum of component l is bounded by
 * S_l = sum_p (|b_l| + 1.5 dx (|ax_l| + |ay_l| + |az_l|)) (weights <= 1,
 * |node - particle| <= 1.5 dx per axis), so sh = 2^(30 - ceil log2 S_l)
 * keeps every hi sum, rounding included, inside int32; lo's terms are
 * below 0.5 sl / sh each, so sl = sh 2^(30 - ceil log2 (n + 1)) does the
 * same for n particles. A node then resolves 2^-51 S_l in a 512-particle
 * block, where float atomics resolve 2^-24 of each partial sum, and the
 * sum is exact integer arithmetic, so its order does not matter. Returns
 * false (the block takes the float path) when a bound is not finite or a
 * scale leaves float's range. */
template <int LB, int DIM>
static __device__ bool fix_scales(const dparts &P, const dgeom &G, int64_t beg, int64_t end, int64_t bx, int64_t by,
                           int64_t bz, float dt, fixscale &fs) {
  __shared__ float ssum[4], ssh[4], ssl[4];
  __shared__ int scount, sok;
  if (threadIdx.x == 0) {
    for (int l = 0; l < 4; ++l) ssum[l] = 0.0f;
    scount = 0;
  }
  __syncthreads();
  float sum[4] = {0, 0, 0, 0};
  int cnt = 0;
  const float h = 1.5f * G.dx;
  for (int64_t p = beg + threadIdx.x; p < end; p += blockDim.x) {
    if (P.park[p] >= 0) continue;
    contrib c;
    particle_contrib<DIM>(P, p, G, dt, c);
    if (!in_block<LB, DIM>(c, bx, by, bz)) continue;
    ++cnt;
    add_bound(c, h, sum);
  }
  for (int off = 16; off > 0; off >>= 1) {
    cnt += __shfl_xor_sync(0xffffffffu, cnt, off);
#pragma unroll
    for (int l = 0; l < 4; ++l) sum[l] += __shfl_xor_sync(0xffffffffu, sum[l], off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&scount, cnt);
    for (int l = 0; l < 4; ++l) atomicAdd(&ssum[l], sum[l]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int ok = scount < (1 << 28);
    int lb = 0; /* ceil log2 (n + 1) */
    while ((1 << lb) < scount + 1) ++lb;
    for (int l = 0; l < 4; ++l) {
      bool fin;
      const int e = bound_exp(ssum[l], fin);
      if (!fin) ok = 0;
      const int eh = 30 - e, el = eh + 30 - lb;
      if (eh < -126 || el > 126) ok = 0;
      ssh[l] = ok ? ldexpf(1.0f, eh) : 1.0f;
      ssl[l] = ok ? ldexpf(1.0f, el) : 1.0f;
    }
    sok = ok;
  }
  __syncthreads();
  for (int l = 0; l < 4; ++l) {
    fs.sh[l] = ssh[l];
    fs.sl[l] = ssl[l];
    fs.ish[l] = 1.0f / ssh[l];
  }
  return sok != 0;
}

/* The tile's sums into the grid: each node's words back to a float at the
 * block's scales, one vector atomic per node (or, deterministic, the exact
 * sums rounded once to the grid's integer scale). */
template <int LB, int W, bool DET, bool SP>
static __device__ __forceinline__ void flush_tile(const dgeom &G, const float *tile, const fixscale &fs, int o0,
                                                  int o1, int o2, float4 *grid, unsigned long long *gfix,
                                                  const double *gscale) {
  constexpr int T = (1 << LB) + 2, TN = T * T * T;
  for (int t = threadIdx.x; t < TN; t += blockDim.x) {
    float q[4];
    const int *ti = (const int *)tile;
    if (ti[t] == 0 && (W == 1 || ti[4 * TN + t] == 0)) continue; /* no mass: untouched, or below resolution */
    double qd[4];
    for (int l = 0; l < 4; ++l) {
      qd[l] = (double)ti[l * TN + t] * (double)fs.ish[l];
      if (W == 2) qd[l] += (double)ti[(4 + l) * TN + t] / (double)fs.sl[l];
      q[l] = (float)qd[l];
    }
    const int li = t / (T * T), lj = (t / T) % T, lk = t % T;
    const int i = o0 + li, j = o1 + lj, k = o2 + lk;
    if (i >= G.dims[0] || j >= G.dims[1] || k >= G.dims[2]) continue;
    if (DET) {
      /* the block's exact integer sums, rounded once to the grid's scale */
      const int64_t node = node_index(G, i, j, k), nn = G.dims[0] * G.dims[1] * G.dims[2];
      for (int l = 0; l < 4; ++l) fix_add(gfix, nn, l, node, qd[l], gscale);
    } else {
      atomic_add4(grid + grid_addr<SP>(G, i, j, k), q[0], q[1], q[2], q[3]);
    }
  }
}

/* One particle's 27 nodes (9 in 2D), into the tile (in) or the global
 * grid, as the (a, b) columns from column rot on (k_p2g: the per-lane
 * rotation). */
template <int LB, int MODE, int W, int DIM, bool DET, bool SP>
static __device__ __forceinline__ void scatter_particle(const dgeom &G, const contrib &c, bool in, int o0, int o1,
                                                        int o2, int rot, float *tile, const fixscale &fs,
                                                        float4 *grid, unsigned long long *gfix,
                                                        const double *gscale) {
  constexpr int NCOL = DIM == 2 ? 3 : 9;
  constexpr int b0 = DIM == 2 ? 1 : 0; /* the y stencil's first b */
  sparse_stencil ss;
  if (SP && !in) {
    const int n0[3] = {c.w.base[0], c.w.base[1] + b0, c.w.base[2]}, span[3] = {3, DIM == 2 ? 1 : 3, 3};
    sparse_stencil_load(G, n0, span, ss);
  }
  int a = DIM == 2 ? rot : rot / 3, b = DIM == 2 ? 1 : rot - 3 * (rot / 3);
  for (int s = 0; s < NCOL; ++s) {
#pragma unroll
    for (int k = 0; k < 3; ++k)
      scatter_node<LB, MODE, W, DET, SP>(G, c, in, o0, o1, o2, a, b, k, G.dx, tile, fs, grid, gfix, gscale, ss, b0);
    if (DIM == 2) {
      a = a == 2 ? 0 : a + 1;
    } else if (++b == 3) {
      b = 0;
      a = a == 2 ? 0 : a + 1;
    }
  }
}

/* A run's particles, one lane each: in-block ones into the tile (use_tile)
 * or the global grid, drifted ones to the global grid. */
template <int LB, int MODE, int W, int DIM, bool DET, bool SP>
static __device__ __forceinline__ void scatter_run(const dparts &P, const dgeom &G, int64_t beg, int64_t end,
                                                   int64_t bx, int64_t by, int64_t bz, float dt, bool use_tile,
                                                   float *tile, const fixscale &fs, float4 *grid,
                                                   unsigned long long *gfix, const double *gscale) {
  const int o0 = (int)(bx << LB), o1 = (int)(by << LB), o2 = (int)(bz << LB);
  const unsigned lane = threadIdx.x & 31u;
  /* the stencil's (a, b) columns: nine, or in 2D the three of b = 1 */
  constexpr int NCOL = DIM == 2 ? 3 : 9;
  const int rot = (int)(lane * (unsigned)BG_CUDA_P2G_ROT_MUL) % NCOL;
  for (int64_t p = beg + threadIdx.x; p < end; p += blockDim.x) {
    if (P.park[p] >= 0 || cut_near(G, P, p)) continue; /* beside a plate: k_p2g_cut */
    contrib c;
    particle_contrib<DIM>(P, p, G, dt, c);
    /* in the block iff the lowest stencil node is: then base - origin is in
     * [0, B) and base - origin + {0,1,2} in [0, B+2) = the tile (in 2D,
     * base[1] + 1 = 0: the tile's y layer 0) */
    const bool inb = MODE == P2G_FIXED && in_block<LB, DIM>(c, bx, by, bz);
    scatter_particle<LB, MODE, W, DIM, DET, SP>(G, c, use_tile && inb, o0, o1, o2, rot, tile, fs, grid, gfix, gscale);
  }
}

/* One CUDA block per run of particles sharing a grid block (the run list of
 * the last sort). P2G_FIXED: in-block particles accumulate into the shared
 * tile, drifted ones go to global atomics; P2G_GLOBAL: every particle goes
 * global. On sm_80/90 a shared float atomicAdd is a compare-and-swap loop
 * (ATOMS.CAST.SPIN in the SASS, retried on every collision), and so is a
 * 64-bit integer one, while a 32-bit integer add is one native ATOMS.ADD:
 * the tile holds each float as one or two int32 fixed-point words
 * (fix_scales), converted once per node at the flush.
 * A lane visits its particle's 27 nodes as the nine (a, b) columns starting
 * at column (L * BG_CUDA_P2G_ROT_MUL) mod 9 for lane L, each column's three
 * nodes in a fixed, unrolled order. Sorted neighbours share most of their
 * stencil, so in one order for all lanes a warp's adds go to the same few
 * nodes at once and serialise; offset per lane, they mostly do not. The
 * order of the additions into a node changes, as any parallel float
 * scatter does; each particle's contribution does not. */
template <int LB, int MODE, int W, int DIM, bool DET, bool SP>
__global__ void k_p2g(dparts P, dgeom G, const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
                      int64_t n, float dt, float4 *grid, unsigned long long *gfix, const double *gscale) {
  constexpr int B = 1 << LB, T = B + 2, TN = T * T * T;
  /* component-major (the four hi planes: mass, then the three momenta;
   * then the four lo ones, W = 2): lanes adding to different nodes t then
   * fall in banks t mod 32, where a node-major layout used only t mod 8 */
  constexpr bool FIXPT = MODE == P2G_FIXED;
  __shared__ float tile[FIXPT ? 4 * W * TN : 1];
  run_block rb;
  if (!run_of<LB>(G, runstart, runkey, n_runs, n, blockIdx.x, rb)) return; /* uniform across the block */
  const int64_t beg = rb.beg, end = rb.end, bx = rb.b[0], by = rb.b[1], bz = rb.b[2];
  const int o0 = rb.o[0], o1 = rb.o[1], o2 = rb.o[2];
  constexpr int TW = 4 * W * TN;
  if (FIXPT) {
    for (int i = threadIdx.x; i < TW; i += blockDim.x) tile[i] = 0.0f; /* also int 0 */
    __syncthreads();
  }
  fixscale fs;
  bool use_tile = FIXPT;
  if (FIXPT) use_tile = fix_scales<LB, DIM>(P, G, beg, end, bx, by, bz, dt, fs);
  scatter_run<LB, MODE, W, DIM, DET, SP>(P, G, beg, end, bx, by, bz, dt, use_tile, tile, fs, grid, gfix, gscale);
  if (FIXPT && use_tile) {
    __syncthreads();
    flush_tile<LB, W, DET, SP>(G, tile, fs, o0, o1, o2, grid, gfix, gscale);
  }
}

/* p2g_bound=running (one word, float grid): the scales from a bound that
 * grows as the run is read, 32 particles (one per lane) at a time, so each
 * particle is read once. Before a chunk scatters, its in-block particles'
 * bound terms (add_bound) join the running sums; where a sum needs a larger
 * power of two, the scale drops by that many bits and every word of the
 * tile is shifted right by them, rounded, so the tile always holds its sums
 * at the current scale and never more than the running bound (< 2^30 of a
 * word). The final scale is the one the pass gives; each shift adds at most
 * half a unit to a word. A bound that is not finite (a broken state) sends
 * what the tile holds and the rest of the run to the global grid, as the
 * pass's float path does. */
template <int LB, int DIM, bool SP, bool CP>
__global__ void k_p2g_running(dparts P, dgeom G, const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
                              int64_t n, float dt, float4 *grid) {
  constexpr int B = 1 << LB, T = B + 2, TN = T * T * T;
  __shared__ float tile[4 * TN];
  run_block rb;
  if (!run_of<LB>(G, runstart, runkey, n_runs, n, blockIdx.x, rb)) return; /* uniform across the block */
  const int64_t beg = rb.beg, end = rb.end, bx = rb.b[0], by = rb.b[1], bz = rb.b[2];
  const int o0 = rb.o[0], o1 = rb.o[1], o2 = rb.o[2];
  int *ti = (int *)tile;
  for (int i = threadIdx.x; i < 4 * TN; i += blockDim.x) ti[i] = 0;
  __syncwarp();
  const unsigned full = 0xffffffffu;
  const int lane = (int)(threadIdx.x & 31);
  const float h = 1.5f * G.dx;
  constexpr int NCOL = DIM == 2 ? 3 : 9;
  const int rot = (lane * BG_CUDA_P2G_ROT_MUL) % NCOL;
  fixscale fs;
  float srun[4] = {0, 0, 0, 0};
  int e[4] = {0, 0, 0, 0};
  bool use_tile = true, started = false;
  /* one warp per block (BG_CUDA_P2G_THREADS): every lane takes every chunk */
  for (int64_t p0 = beg; p0 < end; p0 += 32) {
    const int64_t p = p0 + lane;
    const bool live = p < end && P.park[p] < 0 && !cut_near(G, P, p); /* beside a plate: k_p2g_cut */
    contrib c;
    bool inb = false;
    if (live) {
      particle_contrib<DIM, CP>(P, p, G, dt, c);
      inb = in_block<LB, DIM>(c, bx, by, bz);
    }
    if (use_tile) {
      float b[4] = {0, 0, 0, 0};
      if (inb) add_bound(c, h, b);
      bool ok = true, grow = false;
      int need[4];
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        for (int off = 16; off > 0; off >>= 1) b[l] += __shfl_xor_sync(full, b[l], off);
        srun[l] += __shfl_sync(full, b[l], 0); /* lane 0's sum: the same on every lane */
        bool fin;
        /* never below 2^-96: a finer scale (2^126 and up) leaves float's range */
        need[l] = max(bound_exp(srun[l], fin), -96);
        if (!fin || 30 - need[l] < -126) ok = false;
        if (!started || need[l] > e[l]) grow = true;
      }
      if (!ok) {
        __syncwarp();
        if (started) flush_tile<LB, 1, false, SP>(G, tile, fs, o0, o1, o2, grid, NULL, NULL);
        use_tile = false;
      } else if (grow) {
        __syncwarp();
#pragma unroll
        for (int l = 0; l < 4; ++l) {
          const int k = started ? need[l] - e[l] : 0;
          if (k > 0)
            for (int i = lane; i < TN; i += 32) {
              const int w = ti[l * TN + i];
              ti[l * TN + i] = k >= 31 ? 0 : (w + (1 << (k - 1))) >> k;
            }
          if (!started || need[l] > e[l]) e[l] = need[l];
          fs.sh[l] = ldexpf(1.0f, 30 - e[l]);
          fs.ish[l] = 1.0f / fs.sh[l];
          fs.sl[l] = 1.0f;
        }
        started = true;
        __syncwarp();
      }
    }
    if (!live) continue;
    scatter_particle<LB, P2G_FIXED, 1, DIM, false, SP>(G, c, use_tile && inb, o0, o1, o2, rot, tile, fs, grid, NULL,
                                                      NULL);
  }
  if (use_tile && started) {
    __syncwarp();
    flush_tile<LB, 1, false, SP>(G, tile, fs, o0, o1, o2, grid, NULL, NULL);
  }
}

/* The particles beside a plate (cut_near), one thread each over the
 * particle array: the cut transfers' scatter (bg_cut_p2g, atomic on the
 * device) to the dense float grid; what the cut nodes would have received
 * goes, over dt, to the plate's tally cwf. */
template <int DIM>
__global__ void k_p2g_cut(dparts P, dgeom G, int64_t n, float dt, float4 *grid, double *cwf) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n || P.park[p] >= 0 || !cut_near(G, P, p)) return;
  float xp[3];
  bg_bspline w;
  bg_cut_grid cg;
  bg_cut_stencil cs;
  cut_stencil_at<DIM>(P, p, G, xp, w, cg, cs);
  const float m = P.f[PM][p];
  const bg_mat3 A = particle_affine(P, p, G, dt);
  const float vp[3] = {P.f[PV][p], P.f[PV + 1][p], P.f[PV + 2][p]};
  bg_cut_p2g(&cg, &cs, &w, (float(*)[4])grid, m, vp, &A, NULL, NULL, 0.0f, G.cuts, cwf,
             dt > 0 ? 1.0 / (double)dt : 0.0);
}

/* deterministic: the largest block bound per component (fix_scales' S_l
 * over every particle of the run, drifted ones included), maxed over the
 * runs through the bits of non-negative floats, which order as the floats
 * do: a maximum, unlike a float sum, does not depend on the order. */
template <int DIM>
__global__ void k_det_bound(dparts P, dgeom G, const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
                            int64_t n, float dt, unsigned int *bound) {
  const int64_t r = blockIdx.x;
  if (runkey[r] >= (uint32_t)G.n_blocks) return;
  const int64_t beg = runstart[r], end = r + 1 < n_runs ? runstart[r + 1] : n;
  const float h = 1.5f * G.dx;
  float sum[4] = {0, 0, 0, 0};
  for (int64_t p = beg + threadIdx.x; p < end; p += blockDim.x) {
    if (P.park[p] >= 0) continue;
    contrib c;
    particle_contrib<DIM>(P, p, G, dt, c);
    add_bound(c, h, sum);
  }
  /* one warp per block (BG_CUDA_P2G_THREADS): a fixed butterfly */
  for (int off = 16; off > 0; off >>= 1)
#pragma unroll
    for (int l = 0; l < 4; ++l) sum[l] += __shfl_xor_sync(0xffffffffu, sum[l], off);
  if (threadIdx.x == 0)
    for (int l = 0; l < 4; ++l) atomicMax(bound + l, __float_as_uint(sum[l]));
}

/* The scales from the bound: 2^(62 - e) with n_runs max S_l < 2^e (1 where
 * a component is all zero; 0, which the conversion reads as NaN, where the
 * bound is not finite, so a broken state shows instead of wrapping). */
__global__ void k_det_scale(const unsigned int *bound, int64_t n_runs, double *gscale) {
  for (int l = 0; l < 4; ++l) {
    const double S = (double)__uint_as_float(bound[l]) * (double)n_runs * 1.001;
    int e = 0;
    if (!isfinite(S)) {
      gscale[l] = 0.0;
      continue;
    }
    if (S > 0.0) (void)frexp(S, &e);
    gscale[l] = ldexp(1.0, 62 - e);
  }
}

/* The integer grid into the float4 grid every later stage reads. */
__global__ void k_det_grid(const unsigned long long *gfix, int64_t nn, const double *gscale, float4 *grid) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nn) return;
  float q[4];
#pragma unroll
  for (int l = 0; l < 4; ++l)
    q[l] = gscale[l] > 0.0 ? (float)((double)(long long)gfix[l * nn + i] / gscale[l]) : __int_as_float(0x7fc00000);
  grid[i] = make_float4(q[0], q[1], q[2], q[3]);
}

/* The nonlocal service's scatter: mass times state slot nl to the nodal
 * sums gs. Only a nonlocal model runs it; plain global atomics, since no
 * such model is on the fast path the tiled scatter is tuned for. With a
 * material table (mats not NULL) only the particles of the entries that
 * need it scatter, and their mass to gm beside it when some entries do not. */
__global__ void k_p2g_nonlocal(dparts P, dgeom G, int64_t n, int nl, float *gs, const bg_mat *mats, float *gm) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n || P.park[p] >= 0) return;
  if (mats && bg_material_nonlocal_slot(mats[P.mat[p]].model) < 0) return;
  float xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (P.f[PX + d][p] - G.origin[d]) * G.inv_dx;
  const bg_bspline w = bg_bspline_eval_dim(xg, G.dim);
  const float m = p_mass(P, p), mf = m * P.f[PS + nl][p];
  const int b0 = G.dim == 2 ? 1 : 0, b1 = G.dim == 2 ? 1 : 2; /* bg_stencil_b0/b1 */
  for (int a = 0; a < 3; ++a)
    for (int b = b0; b <= b1; ++b)
      for (int k = 0; k < 3; ++k) {
        const int64_t i = node_index(G, w.base[0] + a, w.base[1] + b, w.base[2] + k);
        atomicAdd(gs + i, bg_bspline_weight(&w, a, b, k) * mf);
        if (gm) atomicAdd(gm + i, bg_bspline_weight(&w, a, b, k) * m);
      }
}

bg_status cuda_p2g(void *state, bg_real dt) {
  cuda_state *s = (cuda_state *)state;
  const bg_config *c = s->cfg;
  const size_t nn = (size_t)c->n_nodes;
  unsigned int *bound = (unsigned int *)s->gbound;
  double *gscale = s->det ? (double *)((char *)s->gbound + 4 * sizeof(unsigned int)) : NULL;
  /* g2p2g=fused: the last G2P scattered every particle already, unless a
   * plate came since (its particles take the cut kernels) */
  if (s->pre == BG_PRE_VALID && c->n_cuts == 0) return mark(s, 2);
  if (s->pre != BG_PRE_NONE) {
    CU(cudaMemsetAsync(s->gnext, 0, 2 * nn * sizeof(float4), s->st));
    s->pre = BG_PRE_NONE;
  }
  if (s->det) {
    CU(cudaMemsetAsync(s->gfix, 0, 4 * nn * sizeof(unsigned long long), s->st));
    CU(cudaMemsetAsync(bound, 0, 4 * sizeof(unsigned int), s->st));
  } else if (s->sparse) {
    bg_status st = cuda_sparse_activate(s); /* the step's blocks, cleared */
    if (st != BG_OK) return st;
  } else {
    CU(cudaMemsetAsync(s->grid, 0, nn * sizeof(float4), s->st));
  }
  /* the plates as this step sees them, and their tally of the cut transfers */
  s->geo.cuts = s->d_cuts;
  s->geo.n_cuts = c->n_cuts;
  if (c->n_cuts) {
    CU(cudaMemcpyAsync(s->d_cuts, c->cuts, (size_t)c->n_cuts * sizeof(bg_cut), cudaMemcpyHostToDevice, s->st));
    CU(cudaMemsetAsync(cut_tally(s), 0, BG_WALL_TALLY * (size_t)c->n_walls * sizeof(double), s->st));
  }
  if (s->n && s->n_runs > 0) {
    if (s->dirty) return fail(s, BG_ERR_INTERNAL, "p2g called before particles added since the last step were sorted");
    const unsigned nr = (unsigned)s->n_runs, th = BG_CUDA_P2G_THREADS;
    const bool glob = s->variant == BG_CUDA_GLOBAL;
    if (s->det) {
      if (c->dim == 2)
        k_det_bound<2><<<nr, th, 0, s->st>>>(s->P, s->geo, s->runstart, s->runkey, s->n_runs, (int64_t)s->n, dt,
                                             bound);
      else
        k_det_bound<3><<<nr, th, 0, s->st>>>(s->P, s->geo, s->runstart, s->runkey, s->n_runs, (int64_t)s->n, dt,
                                             bound);
      CU(cudaGetLastError());
      k_det_scale<<<1, 1, 0, s->st>>>(bound, s->n_runs, gscale);
      CU(cudaGetLastError());
    }
    /* the tile's words per value (the property p2g_words); the global
     * scatter has no tile and takes one instance */
#define BG_P2G_W(MODE, W, DIM, DET, SP)                                                                             \
  k_p2g<BG_BLOCK_LOG2, MODE, W, DIM, DET, SP><<<nr, th, 0, s->st>>>(s->P, s->geo, s->runstart, s->runkey, s->n_runs,   \
                                                               (int64_t)s->n, dt, s->grid, s->gfix, gscale)
#define BG_P2G(MODE, DIM, DET, SP)                                                                                 \
  do {                                                                                                             \
    if (MODE == P2G_FIXED && s->p2g_words == 1) BG_P2G_W(P2G_FIXED, 1, DIM, DET, SP);                              \
    else BG_P2G_W(MODE, 2, DIM, DET, SP);                                                                          \
  } while (0)
    if (s->p2g_bound == 1) {
      /* running: the one-word tile of the float grid (cuda_backend.cu) */
#define BG_P2G_RUN(DIM, SP, CP)                                                                                    \
  k_p2g_running<BG_BLOCK_LOG2, DIM, SP, CP><<<nr, th, 0, s->st>>>(s->P, s->geo, s->runstart, s->runkey, s->n_runs,  \
                                                                  (int64_t)s->n, dt, s->grid)
      /* layout=compact (CP) runs only here (cuda_backend.cu) */
      if (s->compact) {
        if (c->dim == 2 && s->sparse) BG_P2G_RUN(2, true, true);
        else if (c->dim == 2) BG_P2G_RUN(2, false, true);
        else if (s->sparse) BG_P2G_RUN(3, true, true);
        else BG_P2G_RUN(3, false, true);
      } else if (c->dim == 2 && s->sparse) BG_P2G_RUN(2, true, false);
      else if (c->dim == 2) BG_P2G_RUN(2, false, false);
      else if (s->sparse) BG_P2G_RUN(3, true, false);
      else BG_P2G_RUN(3, false, false);
#undef BG_P2G_RUN
    } else if (s->det) {
      if (c->dim == 2 && glob) BG_P2G(P2G_GLOBAL, 2, true, false);
      else if (c->dim == 2) BG_P2G(P2G_FIXED, 2, true, false);
      else if (glob) BG_P2G(P2G_GLOBAL, 3, true, false);
      else BG_P2G(P2G_FIXED, 3, true, false);
    } else if (s->sparse) {
      if (c->dim == 2 && glob) BG_P2G(P2G_GLOBAL, 2, false, true);
      else if (c->dim == 2) BG_P2G(P2G_FIXED, 2, false, true);
      else if (glob) BG_P2G(P2G_GLOBAL, 3, false, true);
      else BG_P2G(P2G_FIXED, 3, false, true);
    } else {
      if (c->dim == 2 && glob) BG_P2G(P2G_GLOBAL, 2, false, false);
      else if (c->dim == 2) BG_P2G(P2G_FIXED, 2, false, false);
      else if (glob) BG_P2G(P2G_GLOBAL, 3, false, false);
      else BG_P2G(P2G_FIXED, 3, false, false);
    }
#undef BG_P2G
#undef BG_P2G_W
    CU(cudaGetLastError());
    if (c->n_cuts) {
      const unsigned ng = grid_of((int64_t)s->n, BG_CUDA_EW_THREADS);
      if (c->dim == 2)
        k_p2g_cut<2><<<ng, BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, s->geo, (int64_t)s->n, dt, s->grid, cut_tally(s));
      else
        k_p2g_cut<3><<<ng, BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, s->geo, (int64_t)s->n, dt, s->grid, cut_tally(s));
      CU(cudaGetLastError());
    }
    if (s->nl >= 0) {
      CU(cudaMemsetAsync(s->gs, 0, (size_t)c->n_nodes * sizeof(float), s->st));
      if (s->gm) CU(cudaMemsetAsync(s->gm, 0, (size_t)c->n_nodes * sizeof(float), s->st));
      k_p2g_nonlocal<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
          s->P, s->geo, (int64_t)s->n, s->nl, s->gs, s->mats, s->gm);
      CU(cudaGetLastError());
    }
  }
  if (s->det) {
    if (!(s->n && s->n_runs > 0)) {
      /* nothing scattered: a zero grid, whatever the scales */
      CU(cudaMemsetAsync(s->grid, 0, nn * sizeof(float4), s->st));
    } else {
      k_det_grid<<<grid_of((int64_t)nn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->gfix, (int64_t)nn,
                                                                                              gscale, s->grid);
      CU(cudaGetLastError());
    }
  }
  return mark(s, 2);
}

