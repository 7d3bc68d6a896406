/* cuda_g2p2g.cu: the fused grid-to-particle-to-grid step (the property
 * g2p2g=fused; Wang et al. 2020 fuse the two transfers the same way). One
 * warp per run of the last sort, as P2G: each lane gathers its particle from
 * this step's grid and updates it (cuda_gather.cuh, the same code as G2P),
 * then scatters it at once, from registers, into the next step's grid, so
 * the state P2G would read back (x, v, C, tau, mass, volume: about 100
 * bytes a particle) is never re-read.
 *
 * The next step's dt is not known yet: it comes from the largest speed this
 * kernel reduces. So the scatter keeps the stress apart from the momentum:
 * seven channels per node, the mass, the momentum m v + m C dpos, and the
 * force -V0 (4/dx^2) tau dpos, into gnext and gforce. The next grid update
 * adds dt times the force to the momentum (k_grid_update_pre,
 * cuda_grid.cu), which is bg_p2g_affine's m C - dt V0 (4/dx^2) tau split in
 * two; only the float rounding differs from the two-pass step.
 *
 * The tile is the running-bound one of k_p2g_running (one int32 word per
 * value, the scales raised 32 particles at a time), with seven planes. A
 * particle whose update moved its stencil out of the run's block goes to
 * the global arrays with float atomics, as a drifted one does in P2G. */
#include "cuda_gather.cuh"

/* Channels per node: mass, momentum (3), force (3). */
#define FCH 7

/* A particle's scatter after its update: per node
 * wt (m, m v + m C dpos, K dpos) with K = -V0 (4/dx^2) tau. */
typedef struct fcontrib {
  bg_bspline w;
  float m, mv[3], mc[3][3], k[3][3];
} fcontrib;

static __device__ __forceinline__ void fused_contrib(const dgeom &G, const g2p_out &o, float m, float vol0,
                                                     int dim, fcontrib &c) {
  float xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (o.x[d] - G.origin[d]) * G.inv_dx;
  c.w = bg_bspline_eval_dim(xg, dim);
  c.m = m;
  const float kk = -vol0 * 4.0f * G.inv_dx * G.inv_dx;
  const float t[3][3] = {
      {o.tau[0], o.tau[3], o.tau[4]}, {o.tau[3], o.tau[1], o.tau[5]}, {o.tau[4], o.tau[5], o.tau[2]}};
  for (int i = 0; i < 3; ++i) {
    c.mv[i] = m * o.v[i];
    for (int j = 0; j < 3; ++j) {
      c.mc[i][j] = m * o.C.m[i][j];
      c.k[i][j] = kk * t[i][j];
    }
  }
}

/* The seven values at node (a, b, k) of the stencil. */
static __device__ __forceinline__ void fused_node_value(const fcontrib &c, int a, int b, int k, float dx,
                                                        float val[FCH]) {
  const float dp[3] = {((float)a - c.w.fx[0]) * dx, ((float)b - c.w.fx[1]) * dx, ((float)k - c.w.fx[2]) * dx};
  const float wt = sel3(c.w.w[0], a) * sel3(c.w.w[1], b) * sel3(c.w.w[2], k);
  val[0] = wt * c.m;
#pragma unroll
  for (int i = 0; i < 3; ++i) {
    val[1 + i] = wt * (c.mv[i] + c.mc[i][0] * dp[0] + c.mc[i][1] * dp[1] + c.mc[i][2] * dp[2]);
    val[4 + i] = wt * (c.k[i][0] * dp[0] + c.k[i][1] * dp[1] + c.k[i][2] * dp[2]);
  }
}

/* A particle's term of the bound on every node sum of each channel
 * (weights <= 1, |node - particle| <= h = 1.5 dx per axis), as add_bound. */
static __device__ __forceinline__ void fused_bound(const fcontrib &c, float h, float b[FCH]) {
  b[0] = fabsf(c.m);
#pragma unroll
  for (int i = 0; i < 3; ++i) {
    b[1 + i] = fabsf(c.mv[i]) + h * (fabsf(c.mc[i][0]) + fabsf(c.mc[i][1]) + fabsf(c.mc[i][2]));
    b[4 + i] = h * (fabsf(c.k[i][0]) + fabsf(c.k[i][1]) + fabsf(c.k[i][2]));
  }
}

/* The tile's words back to floats at the block's scales, two vector atomics
 * per node (nodes the tile holds no mass for are skipped, as in P2G). */
template <int LB>
static __device__ __forceinline__ void fused_flush(const dgeom &G, const int *ti, const int *e, int o0, int o1,
                                                   int o2, float4 *gnext, float4 *gforce) {
  constexpr int T = (1 << LB) + 2, TN = T * T * T;
  float ish[FCH]; /* 1 / the scale, exact: 2^(e - 30) */
#pragma unroll
  for (int l = 0; l < FCH; ++l) ish[l] = ldexpf(1.0f, e[l] - 30);
  for (int t = threadIdx.x & 31; t < TN; t += 32) {
    if (ti[t] == 0) continue;
    float q[FCH];
#pragma unroll
    for (int l = 0; l < FCH; ++l) q[l] = (float)((double)ti[l * TN + t] * (double)ish[l]);
    const int i = o0 + t / (T * T), j = o1 + (t / T) % T, k = o2 + t % T;
    if (i >= G.dims[0] || j >= G.dims[1] || k >= G.dims[2]) continue;
    const int64_t at = node_index(G, i, j, k);
    atomic_add4(gnext + at, q[0], q[1], q[2], q[3]);
    atomic_add4(gforce + at, q[4], q[5], q[6], 0.0f);
  }
}

/* One particle's 27 nodes (9 in 2D) from column rot on, into the tile
 * (in) or the global arrays. */
template <int LB, int DIM>
static __device__ __forceinline__ void fused_scatter(const dgeom &G, const fcontrib &c, bool in, int o0, int o1,
                                                     int o2, int rot, int *ti, const int *e, float4 *gnext,
                                                     float4 *gforce) {
  constexpr int T = (1 << LB) + 2, TN = T * T * T;
  float sh[FCH]; /* the block's scales, 2^(30 - e), from the warp's exponents */
  if (in) {
#pragma unroll
    for (int l = 0; l < FCH; ++l) sh[l] = ldexpf(1.0f, 30 - e[l]);
  }
  constexpr int NCOL = DIM == 2 ? 3 : 9;
  int a = DIM == 2 ? rot : rot / 3, b = DIM == 2 ? 1 : rot - 3 * (rot / 3);
  for (int s = 0; s < NCOL; ++s) {
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      float val[FCH];
      fused_node_value(c, a, b, k, G.dx, val);
      if (in) {
        const int t = ((c.w.base[0] - o0 + a) * T + (c.w.base[1] - o1 + b)) * T + (c.w.base[2] - o2 + k);
#pragma unroll
        for (int l = 0; l < FCH; ++l) atomicAdd(&ti[l * TN + t], (int)rintf(val[l] * sh[l]));
      } else {
        const int64_t at = node_index(G, c.w.base[0] + a, c.w.base[1] + b, c.w.base[2] + k);
        atomic_add4(gnext + at, val[0], val[1], val[2], val[3]);
        atomic_add4(gforce + at, val[4], val[5], val[6], 0.0f);
      }
    }
    if (DIM == 2) {
      a = a == 2 ? 0 : a + 1;
    } else if (++b == 3) {
      b = 0;
      a = a == 2 ? 0 : a + 1;
    }
  }
}

/* One warp per run: G2P of 32 particles (one per lane), then their scatter.
 * TILE: the shared fixed-point tile (resource cuda); otherwise every value
 * goes to the global arrays (cuda/global). The running bound is
 * k_p2g_running's (cuda_p2g.cu), over seven channels. */
template <int LB, int DIM, bool MULTI, bool TILE>
static __device__ __forceinline__ void g2p2g_body(const dparts &P, const dgeom &G, const dmat &M,
                                                  const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
                                                  int64_t n, float dt, const float4 *__restrict__ grid, float4 *gnext,
                                                  float4 *gforce, unsigned long long *tally) {
  constexpr int B = 1 << LB, T = B + 2, TN = T * T * T;
  __shared__ int ti[TILE ? FCH * TN : 1];
  run_block rb;
  if (!run_of<LB>(G, runstart, runkey, n_runs, n, blockIdx.x, rb)) return; /* uniform across the block */
  const int lane = (int)(threadIdx.x & 31);
  if (TILE) {
    for (int i = lane; i < FCH * TN; i += 32) ti[i] = 0;
    __syncwarp();
  }
  const unsigned full = 0xffffffffu;
  const float h = 1.5f * G.dx;
  constexpr int NCOL = DIM == 2 ? 3 : 9;
  const int rot = (lane * BG_CUDA_P2G_ROT_MUL) % NCOL;
  /* the running bound's sums and exponents are the same on every lane:
   * held in shared memory, they take no registers through the update */
  __shared__ float srun[FCH];
  __shared__ int e[FCH];
  if (lane < FCH) {
    srun[lane] = 0.0f;
    e[lane] = 0;
  }
  __syncwarp();
  bool use_tile = TILE, started = false;
  double sp2max = 0.0;
  for (int64_t p0 = rb.beg; p0 < rb.end; p0 += 32) {
    const int64_t p = p0 + lane;
    bool live = p < rb.end && P.park[p] < 0;
    fcontrib c;
    bool inb = false;
    if (live) {
      g2p_out o;
      const double sp2 = g2p_particle<MULTI, DIM, false, false, true>(P, p, G, M, dt, grid, NULL, NULL, -1, tally, &o);
      sp2max = fmax(sp2max, sp2);
      live = o.live; /* parked now: no scatter */
      if (live) {
        fused_contrib(G, o, P.f[PM][p], P.f[PVOL][p], DIM, c);
        inb = (c.w.base[0] >> LB) == rb.b[0] && (DIM == 2 || (c.w.base[1] >> LB) == rb.b[1]) &&
              (c.w.base[2] >> LB) == rb.b[2];
      }
    }
    if (use_tile) {
      float b[FCH];
#pragma unroll
      for (int l = 0; l < FCH; ++l) b[l] = 0.0f;
      if (live && inb) fused_bound(c, h, b);
      bool ok = true, grow = false;
      int need[FCH];
#pragma unroll
      for (int l = 0; l < FCH; ++l) {
        for (int off = 16; off > 0; off >>= 1) b[l] += __shfl_xor_sync(full, b[l], off);
        const float sr = srun[l] + b[l]; /* the butterfly leaves the sum on every lane */
        bool fin;
        /* never below 2^-96: a finer scale (2^126 and up) leaves float's range */
        need[l] = max(bound_exp(sr, fin), -96);
        if (!fin || 30 - need[l] < -126) ok = false;
        if (!started || need[l] > e[l]) grow = true;
        b[l] = sr;
      }
      __syncwarp();
#pragma unroll
      for (int l = 0; l < FCH; ++l) /* constant indices: a lane-indexed array would live in local memory */
        if (lane == l) srun[l] = b[l];
      __syncwarp();
      if (!ok) {
        /* a bound that is not finite: what the tile holds, and the rest of
         * the run, to the global arrays */
        if (started) fused_flush<LB>(G, ti, e, rb.o[0], rb.o[1], rb.o[2], gnext, gforce);
        use_tile = false;
      } else if (grow) {
#pragma unroll
        for (int l = 0; l < FCH; ++l) {
          const int k = started ? need[l] - e[l] : 0;
          if (k > 0)
            for (int i = lane; i < TN; i += 32) {
              const int w = ti[l * TN + i];
              ti[l * TN + i] = k >= 31 ? 0 : (w + (1 << (k - 1))) >> k;
            }
        }
        __syncwarp();
#pragma unroll
        for (int l = 0; l < FCH; ++l)
          if (lane == l && (!started || need[l] > e[l])) e[l] = need[l];
        started = true;
        __syncwarp();
      }
    }
    if (live) fused_scatter<LB, DIM>(G, c, use_tile && inb, rb.o[0], rb.o[1], rb.o[2], rot, ti, e, gnext, gforce);
  }
  if (use_tile && started) {
    __syncwarp();
    fused_flush<LB>(G, ti, e, rb.o[0], rb.o[1], rb.o[2], gnext, gforce);
  }
  max_speed(sp2max, tally);
}

/* No bound: the compiler's registers (168 on sm_90 in 3D with the tile: 12
 * resident warps per SM). A bound of 1 block is not the same: it lets
 * ptxas take up to 255. */
template <int LB, int DIM, bool MULTI, bool TILE>
__global__ void __launch_bounds__(BG_CUDA_P2G_THREADS)
    k_g2p2g_free(dparts P, dgeom G, dmat M, const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
                 int64_t n, float dt, const float4 *__restrict__ grid, float4 *gnext, float4 *gforce,
                 unsigned long long *tally) {
  g2p2g_body<LB, DIM, MULTI, TILE>(P, G, M, runstart, runkey, n_runs, n, dt, grid, gnext, gforce, tally);
}

/* g2p_minblocks=4: at least 16 resident one-warp blocks per SM, the 512
 * threads per SM that bound asks of G2P's 128-thread blocks: at most 128
 * registers, with a few spills (20-28 bytes on sm_90). */
template <int LB, int DIM, bool MULTI, bool TILE>
__global__ void __launch_bounds__(BG_CUDA_P2G_THREADS, 16)
    k_g2p2g_16(dparts P, dgeom G, dmat M, const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
               int64_t n, float dt, const float4 *__restrict__ grid, float4 *gnext, float4 *gforce,
               unsigned long long *tally) {
  g2p2g_body<LB, DIM, MULTI, TILE>(P, G, M, runstart, runkey, n_runs, n, dt, grid, gnext, gforce, tally);
}

bg_status cuda_g2p2g_launch(cuda_state *s, const dmat *M, float dt) {
  const unsigned nr = (unsigned)s->n_runs, th = BG_CUDA_P2G_THREADS;
  const bool tile = s->variant == BG_CUDA_TILE;
#define BG_FUSED_B(KERNEL, DIM, MULTI, TILE)                                                                        \
  KERNEL<BG_BLOCK_LOG2, DIM, MULTI, TILE><<<nr, th, 0, s->st>>>(s->P, s->geo, *M, s->runstart, s->runkey, s->n_runs, \
                                                                (int64_t)s->n, dt, s->grid, s->gnext, s->gforce,     \
                                                                s->d_tally)
#define BG_FUSED(DIM, MULTI, TILE)                                                                                  \
  do {                                                                                                             \
    if (s->g2p_minb == 4) BG_FUSED_B(k_g2p2g_16, DIM, MULTI, TILE);                                                \
    else BG_FUSED_B(k_g2p2g_free, DIM, MULTI, TILE);                                                               \
  } while (0)
  const bool multi = s->mats != NULL;
  if (s->cfg->dim == 2) {
    if (multi && tile) BG_FUSED(2, true, true);
    else if (multi) BG_FUSED(2, true, false);
    else if (tile) BG_FUSED(2, false, true);
    else BG_FUSED(2, false, false);
  } else {
    if (multi && tile) BG_FUSED(3, true, true);
    else if (multi) BG_FUSED(3, true, false);
    else if (tile) BG_FUSED(3, false, true);
    else BG_FUSED(3, false, false);
  }
#undef BG_FUSED
#undef BG_FUSED_B
  CU(cudaGetLastError());
  s->pre = BG_PRE_VALID;
  return BG_OK;
}
