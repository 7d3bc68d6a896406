/* cuda_backend.cu: the CUDA backend, the fast path of the same solver. Same
 * physics headers as the CPU reference (core/physics, through BG_HD), same
 * semantics: insertion-order read-back, parking codes, tallies, the node
 * update and the colliders.
 *
 * Layout. Particle state lives on the device in structure-of-arrays (one
 * float array per component), indices are 64-bit everywhere. The grid is a
 * dense array of float4 per node (mass, momentum; velocity after the update):
 * one 16-byte load per stencil node in G2P and one vector atomic per node on
 * sm_90.
 *
 * P2G (Gao et al. 2018, the seed's design). Every sort_interval steps the
 * particles are physically re-sorted by grid block (B^3 nodes, B = 4 by
 * default; by cell inside the block too with BAGNOLD_CUDA_SORT=cell, the
 * default of the redux scatter) with a CUB radix sort, and the runs of
 * equal block form the work list. One CUDA block per run accumulates its particles into a (B+2)^3
 * shared-memory tile (a particle whose lowest stencil node lies in the block
 * touches nodes origin .. origin+B+1 per axis) and flushes it once to the
 * global grid with atomics. Particles that drifted out of their block since
 * the sort take the global-atomic path, so the sort interval is a
 * performance knob, never a correctness one. On sm_80/90 a shared float
 * atomicAdd (and a 64-bit integer one) is a compare-and-swap loop, while a
 * 32-bit integer add is native, so the default tile holds each sum as two
 * int32 fixed-point words with per-block power-of-two scales (fix_scales):
 * exact integer sums, converted once per node at the flush. Each lane walks
 * its particle's 27 nodes in an order offset by lane (k_p2g), which keeps a
 * warp's adds off the same addresses.
 *
 * G2P runs one thread per particle on the global path (its 27 reads per
 * particle are served by L2), followed by the scalar constitutive update
 * (bg_material_update). The maximum speed for the next dt and the parking
 * tallies are reduced on the device and come back with one small async copy
 * per step: the front end's dt query is the step's only host wait.
 *
 * Benchmark knobs (environment, read at creation; the defaults are the
 * measured fastest, see bagnold.h's BG_CUDA_DEFAULT_P2G and
 * reports/results/h200/p2g-fixed): BAGNOLD_CUDA_BLOCK = 2|4|8 nodes per
 * block edge (tile 4^3, 6^3, 10^3), BAGNOLD_CUDA_P2G_THREADS = threads per
 * P2G block (multiple of 32, <= 1024), BAGNOLD_CUDA_P2G =
 * fixed|tiled|global|redux (global: every particle scatters with global
 * atomics, the baseline the tiles are measured against; redux: the
 * fixed-point tile after a warp-level sum over lanes sharing a cell),
 * BAGNOLD_CUDA_SORT = block|cell (the sort key's resolution),
 * BAGNOLD_CUDA_P2G_ORDER = columns|rotated|fixed (the order in which a lane
 * visits its particle's 27 nodes),
 * BAGNOLD_CUDA_P2G_ROT = the offset's stride across lanes (1-26, not a
 * multiple of 3). */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_bspline.h"
#include "bg_internal.h"
#include "bg_transfer.h"

/* ------------------------------------------------------------- constants */

/* Threads per P2G block: the seed found one warp per grid block best (a
 * 4^3 block at 8 ppc holds ~512 particles, 16 per lane). */
#define BG_CUDA_P2G_THREADS 32
/* The default scatter and stencil order are BG_CUDA_DEFAULT_P2G and
 * BG_CUDA_DEFAULT_ORDER (bagnold.h, where the benchmarks read them too). */
/* Lane L starts at node (L * this) mod 27 in the rotated order, at column
 * (L * this) mod 9 in the column order (BAGNOLD_CUDA_P2G_ROT): 7 was the
 * best stride for the rotated float tile (reports/results/h200/bench-rotated). */
#define BG_CUDA_P2G_ROT_MUL 7
/* G2P is register-heavy (27-node gather, SVD, return map): unbounded,
 * ptxas gives it 168 registers on sm_90, 3 blocks of 128 threads per SM
 * (19% occupancy). BAGNOLD_CUDA_G2P_MINBLOCKS (bagnold.h's
 * BG_CUDA_DEFAULT_G2P_MINBLOCKS) asks for at least 4 or 5 resident blocks
 * instead (128 registers with 24 B of spills, or 96 with 180 B), or 0 for
 * no bound. */
#define BG_CUDA_G2P_THREADS 128
/* Element-wise kernels (keys, gathers, node update, read-back). */
#define BG_CUDA_EW_THREADS 256
/* Particles uploaded per staging chunk in add(): bounds the device scratch
 * to 7 floats x this many particles however many are added at once. */
#define BG_CUDA_UPLOAD_CHUNK ((size_t)1 << 22)

/* Particle float arrays, SoA: component k of particle p is f[k][p], in
 * the raw layout every backend shares (bg_internal.h). */
enum {
  PX = BG_RAW_X,     /* x, y, z */
  PV = BG_RAW_V,     /* velocity */
  PF = BG_RAW_F,     /* elastic F, row-major */
  PC = BG_RAW_C,     /* APIC C, row-major */
  PT = BG_RAW_TAU,   /* Kirchhoff stress, symmetric: xx yy zz xy xz yz */
  PS = BG_RAW_ST,    /* the plastic state, BG_NSTATE floats (bg_material_core.h) */
  PM = BG_RAW_MASS,  /* mass */
  PVOL = BG_RAW_VOL, /* reference volume */
  PMODE = BG_RAW_MODE, /* return-map case of the last update */
  NPF = BG_RAW_NF
};

typedef struct dparts {
  float *f[NPF];
  int64_t *id;   /* insertion index of the particle in each slot */
  int32_t *park; /* -1 active, k < n_sinks in sink k, n_sinks left the grid */
} dparts;

/* Grid geometry and the sort's block decomposition, by value to kernels. */
typedef struct dgeom {
  int64_t dims[3];
  int64_t nb[3];
  int64_t n_blocks;
  float origin[3];
  float dx, inv_dx;
  int lb;        /* log2 of the block edge */
  int cell_bits; /* 0: sort keys are blocks; 3 lb: blocks, then the cell in the block */
} dgeom;

/* What G2P needs besides particles and grid: the material, and the
 * configuration by value for bg_park_code (its pointers are host pointers
 * and are never followed on the device; sinks is the device copy). */
typedef struct dmat {
  bg_mat mat;
  bg_config cfg;
  const bg_sink *sinks;
  int n_sinks;
} dmat;

typedef struct cuda_state {
  const bg_config *cfg;
  char *err; /* the simulation's message buffer, which outlives this state */
  size_t err_len;
  cudaStream_t st;
  dgeom geo;
  int p2g_threads, p2g_mode, order, rot_mul;
  int sort_cells; /* BAGNOLD_CUDA_SORT=cell */
  int g2p_minb; /* BAGNOLD_CUDA_G2P_MINBLOCKS */
  size_t n, cap;
  dparts P;
  /* sort: keys and permutation double buffers (also the gather's spares) */
  uint32_t *keys[2];
  int64_t *vals[2];
  size_t sort_cap;
  void *cub_tmp;
  size_t cub_bytes;
  int64_t *runstart; /* first slot of each run of equal block key */
  uint32_t *runkey;  /* its block key */
  size_t run_cap;
  int64_t n_runs;
  int64_t *d_nsel;
  int end_bit;
  int dirty; /* particles added since the last sort: the run list misses them */
  /* grid and boundaries */
  float4 *grid;
  /* the nonlocal service (bg_material_core.h): the model's slot, or -1,
   * and the mass-weighted nodal sums of that slot */
  int nl;
  float *gs;
  bg_bnode *bn;
  size_t n_bn, bn_cap;
  bg_wallc *walls;
  bg_sink *sinks;
  /* tallies: [0] max |v|^2 of the last G2P as double bits, [1 .. ns+1]
   * parked counts per code, then ns+1 parked masses (double), then the
   * wall forces of the last grid update (3 doubles per wall) */
  unsigned long long *d_tally, *h_tally;
  size_t tally_words;
  cudaEvent_t ev_tally;
  int pending;
  size_t n_active, n_sink, n_out;
  double parked_mass, total_mass, max_speed;
  double *sink_mass;
  double *wf; /* host copy of the wall forces */
  /* stage timing: events at the stage boundaries of the current step */
  cudaEvent_t ev[5];
  unsigned ev_mask;
  double stage_ms[BG_STAGE_COUNT];
} cuda_state;

/* ------------------------------------------------------------------ errors */

static bg_status cu_fail(cuda_state *s, cudaError_t e, const char *what, const char *file, int line) {
  /* a failed allocation is not sticky: clear it so later checks see their own errors */
  (void)cudaGetLastError();
  if (s && s->err && s->err_len)
    snprintf(s->err, s->err_len, "cuda backend: %s failed (%s:%d): %s: %s", what, file, line,
             cudaGetErrorName(e), cudaGetErrorString(e));
  return e == cudaErrorMemoryAllocation ? BG_ERR_NOMEM : BG_ERR_DEVICE;
}

#define CU(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) return cu_fail(s, e_, #call, __FILE__, __LINE__);   \
  } while (0)
/* Every launch is followed by CU(cudaGetLastError()): a bad configuration
 * shows there, a fault inside a kernel at the next synchronisation (the
 * tally wait of the next step, or a read-back). */

static bg_status fail(cuda_state *s, bg_status st, const char *msg) {
  if (s && s->err && s->err_len) snprintf(s->err, s->err_len, "cuda backend: %s", msg);
  return st;
}

static unsigned grid_of(int64_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

/* ------------------------------------------------------------- device code */

__device__ __forceinline__ void atomic_add4(float4 *g, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(g, make_float4(a, b, c, d));
#else
  atomicAdd(&g->x, a);
  atomicAdd(&g->y, b);
  atomicAdd(&g->z, c);
  atomicAdd(&g->w, d);
#endif
}

__device__ __forceinline__ int64_t node_index(const dgeom &G, int i, int j, int k) {
  return ((int64_t)i * G.dims[1] + j) * G.dims[2] + k;
}

/* Sort key of a particle: the block holding its lowest stencil node, as on
 * the CPU (there with B = 4 for the coloured scatter); with cell_bits = 3 lb
 * (BAGNOLD_CUDA_SORT=cell) followed by that node's cell inside the block,
 * so that particles sharing a cell are neighbours in memory and in a warp. */
__device__ __forceinline__ uint32_t block_key(const dgeom &G, const dparts &P, int64_t p) {
  int64_t b[3];
  uint32_t cell = 0;
  const int mask = (1 << G.lb) - 1;
  for (int d = 0; d < 3; ++d) {
    int base = bg_floor_int((P.f[PX + d][p] - G.origin[d]) * G.inv_dx - 0.5f);
    b[d] = base >> G.lb;
    cell = (cell << G.lb) | (uint32_t)(base & mask);
  }
  const uint32_t blk = (uint32_t)((b[0] * G.nb[1] + b[1]) * G.nb[2] + b[2]);
  return G.cell_bits ? (blk << G.cell_bits) | cell : blk;
}

__global__ void k_init(dparts P, int64_t off, int64_t cnt, const float *x, const float *v,
                       const float *vol, float rho0) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= cnt) return;
  int64_t p = off + k;
  for (int d = 0; d < 3; ++d) {
    P.f[PX + d][p] = x[3 * k + d];
    P.f[PV + d][p] = v ? v[3 * k + d] : 0.0f;
  }
  for (int d = 0; d < 9; ++d) {
    P.f[PF + d][p] = (d % 4 == 0) ? 1.0f : 0.0f;
    P.f[PC + d][p] = 0.0f;
  }
  for (int d = 0; d < 6; ++d) P.f[PT + d][p] = 0.0f;
  for (int k = 0; k < BG_NSTATE; ++k) P.f[PS + k][p] = 0.0f;
  P.f[PVOL][p] = vol[k];
  P.f[PM][p] = rho0 * vol[k];
  P.f[PMODE][p] = (float)BG_RM_ELASTIC;
  P.id[p] = p;
  P.park[p] = -1;
}

/* Sort keys: block (and cell) of active particles, n_blocks (last) for
 * parked ones. */
__global__ void k_keys(dparts P, int64_t n, dgeom G, uint32_t *keys, int64_t *vals) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  keys[p] = P.park[p] < 0 ? block_key(G, P, p) : (uint32_t)G.n_blocks << G.cell_bits;
  vals[p] = p;
}

/* A run is a block: keys compared without their cell bits. */
struct run_start_op {
  const uint32_t *k;
  int shift;
  __device__ bool operator()(int64_t i) const { return i == 0 || (k[i] >> shift) != (k[i - 1] >> shift); }
};

__global__ void k_runkeys(const int64_t *start, const uint32_t *keys, int shift, uint32_t *rk, int64_t nr) {
  int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r < nr) rk[r] = keys[start[r]] >> shift;
}

template <typename T>
__global__ void k_gather(T *dst, const T *src, const int64_t *perm, int64_t n) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p < n) dst[p] = src[perm[p]];
}

/* What a particle scatters, computed exactly as the CPU reference does:
 * per node wt * (m, m v + A dpos), dpos = (node - xg) dx. */
typedef struct contrib {
  bg_bspline w;
  float b4[4], ax[4], ay[4], az[4];
} contrib;

__device__ __forceinline__ void particle_contrib(const dparts &P, int64_t p, const dgeom &G, float dt,
                                                 contrib &c) {
  float xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (P.f[PX + d][p] - G.origin[d]) * G.inv_dx;
  c.w = bg_bspline_eval(xg);
  bg_mat3 C, tau;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = P.f[PC + 3 * i + j][p];
  tau.m[0][0] = P.f[PT + 0][p];
  tau.m[1][1] = P.f[PT + 1][p];
  tau.m[2][2] = P.f[PT + 2][p];
  tau.m[0][1] = tau.m[1][0] = P.f[PT + 3][p];
  tau.m[0][2] = tau.m[2][0] = P.f[PT + 4][p];
  tau.m[1][2] = tau.m[2][1] = P.f[PT + 5][p];
  float m = P.f[PM][p];
  bg_mat3 A = bg_p2g_affine(m, P.f[PVOL][p], &C, &tau, dt, G.inv_dx);
  c.b4[0] = m;
  for (int d = 0; d < 3; ++d) c.b4[1 + d] = m * P.f[PV + d][p];
  c.ax[0] = c.ay[0] = c.az[0] = 0.0f;
  for (int d = 0; d < 3; ++d) {
    c.ax[1 + d] = A.m[d][0];
    c.ay[1 + d] = A.m[d][1];
    c.az[1 + d] = A.m[d][2];
  }
}

__device__ __forceinline__ float sel3(const float *v, int i) { return i == 0 ? v[0] : i == 1 ? v[1] : v[2]; }

/* Scatter modes (BAGNOLD_CUDA_P2G): every particle to the global grid with
 * float atomics; in-block particles to a shared float tile; to a shared
 * fixed-point tile; or to the fixed-point tile after a warp-level sum of
 * the contributions of lanes whose particles share a cell (see k_p2g). */
enum { P2G_GLOBAL = 0, P2G_TILED = 1, P2G_FIXED = 2, P2G_REDUX = 3, P2G_NMODES = 4 };
/* Stencil orders of the scatter (BAGNOLD_CUDA_P2G_ORDER; see k_p2g). */
enum { ORD_FIXED = 0, ORD_ROTATED = 1, ORD_COLUMNS = 2 };

/* The fixed-point tile's per-block scales, powers of two per component:
 * a value v goes in as hi = rint(v sh) plus lo = rint((v - hi / sh) sl). */
typedef struct fixscale {
  float sh[4], sl[4], ish[4]; /* ish = 1 / sh, exact: a multiply, not a division, per node */
} fixscale;

/* One node of a particle's 27: the same arithmetic, in the same order, as
 * the CPU reference, whether (a, b, k) are compile-time constants (fixed
 * order, unrolled) or run-time ones (rotated order). */
__device__ __forceinline__ void node_value(const contrib &c, int a, int b, int k, float dx, float val[4]) {
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

template <int LB, int MODE>
__device__ __forceinline__ void scatter_node(const dgeom &G, const contrib &c, bool in, int o0, int o1, int o2,
                                             int a, int b, int k, float dx, float *tile, const fixscale &fs,
                                             float4 *grid) {
  constexpr int T = (1 << LB) + 2, TN = T * T * T;
  float val[4];
  node_value(c, a, b, k, dx, val);
  if (MODE != P2G_GLOBAL && in) {
    const int t = (((c.w.base[0] - o0 + a) * T + (c.w.base[1] - o1 + b)) * T + (c.w.base[2] - o2 + k));
    if (MODE == P2G_FIXED) {
      int *ti = (int *)tile;
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        /* v sh is exact (a power of two), so is hi / sh, and so is the
         * remainder v - hi / sh (it is smaller than either): hi and lo carry
         * v to within 0.5 / sl, whatever its size */
        const float h = rintf(val[l] * fs.sh[l]);
        const float r = val[l] - h * fs.ish[l];
        atomicAdd(&ti[l * TN + t], (int)h);
        atomicAdd(&ti[(4 + l) * TN + t], __float2int_rn(r * fs.sl[l]));
      }
    } else {
#pragma unroll
      for (int l = 0; l < 4; ++l) atomicAdd(&tile[l * TN + t], val[l]);
    }
  } else {
    atomic_add4(grid + node_index(G, c.w.base[0] + a, c.w.base[1] + b, c.w.base[2] + k), val[0], val[1], val[2],
                val[3]);
  }
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
template <int LB>
__device__ bool fix_scales(const dparts &P, const dgeom &G, int64_t beg, int64_t end, int64_t bx, int64_t by,
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
    particle_contrib(P, p, G, dt, c);
    if ((c.w.base[0] >> LB) != bx || (c.w.base[1] >> LB) != by || (c.w.base[2] >> LB) != bz) continue;
    ++cnt;
#pragma unroll
    for (int l = 0; l < 4; ++l) sum[l] += fabsf(c.b4[l]) + h * (fabsf(c.ax[l]) + fabsf(c.ay[l]) + fabsf(c.az[l]));
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
      /* the float sums of the bounds round below the true ones by far less
       * than the factor 2 that ceil log2 leaves; 1.001 covers them */
      const float S = ssum[l] * 1.001f;
      int e = 0;
      if (!isfinite(S)) ok = 0;
      else if (S > 0.0f) (void)frexpf(S, &e); /* S < 2^e */
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

__device__ __forceinline__ int pick8(const int v[8], int w) {
  /* a select chain: an indexed read would put v in local memory */
  int r = v[0];
#pragma unroll
  for (int i = 1; i < 8; ++i) r = w == i ? v[i] : r;
  return r;
}

/* P2G_REDUX's particle loop. The warp takes 32 consecutive particles at a
 * time with every lane present (the warp intrinsics need them together).
 * Lanes whose particles share a cell (their lowest stencil node) add to the
 * same 27 nodes: __match_any_sync finds the groups, and for each node the
 * group sums its 8 fixed-point words with __reduce_add_sync. Integer sums
 * are exact, so the tile holds bit for bit what one atomic per lane gives
 * (P2G_FIXED). The group's lanes then share the 8 shared atomics of the
 * node, lane r of the group taking words r, r + size, ...: with the cell
 * sort and ~8 particles per cell, one atomic instruction per node where
 * P2G_FIXED issues eight, each with every lane active. Drifted particles
 * add to the global grid on their own. */
template <int LB>
__device__ __forceinline__ void redux_particles(const dparts &P, const dgeom &G, int64_t beg, int64_t end, int o0,
                                                int o1, int o2, bool use_tile, float dt, int *ti,
                                                const fixscale &fs, float4 *grid) {
  constexpr int B = 1 << LB, T = B + 2, TN = T * T * T;
  const unsigned lane = threadIdx.x & 31u;
  const float dx = G.dx;
  for (int64_t p0 = beg + (int64_t)(threadIdx.x & ~31u); p0 < end; p0 += blockDim.x) {
    const int64_t p = p0 + lane;
    const bool act = p < end && P.park[p] < 0;
    contrib c;
    if (act) particle_contrib(P, p, G, dt, c);
    const int c0 = act ? c.w.base[0] - o0 : -1, c1 = act ? c.w.base[1] - o1 : -1, c2 = act ? c.w.base[2] - o2 : -1;
    const bool in = act && use_tile && (unsigned)c0 < (unsigned)B && (unsigned)c1 < (unsigned)B &&
                    (unsigned)c2 < (unsigned)B;
    const unsigned grp = __match_any_sync(0xffffffffu, in ? (c0 * B + c1) * B + c2 : -1);
    const int rank = __popc(grp & ((1u << lane) - 1u)), size = __popc(grp);
    if (!act) continue;
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
      for (int b = 0; b < 3; ++b)
#pragma unroll
        for (int k = 0; k < 3; ++k) {
          float val[4];
          node_value(c, a, b, k, dx, val);
          if (in) {
            int sum[8];
#pragma unroll
            for (int l = 0; l < 4; ++l) {
              /* the same split as scatter_node's P2G_FIXED */
              const float h = rintf(val[l] * fs.sh[l]);
              const float r = val[l] - h * fs.ish[l];
              sum[l] = __reduce_add_sync(grp, (int)h);
              sum[4 + l] = __reduce_add_sync(grp, __float2int_rn(r * fs.sl[l]));
            }
            const int t = ((c0 + a) * T + (c1 + b)) * T + (c2 + k);
            for (int w = rank; w < 8; w += size) atomicAdd(&ti[w * TN + t], pick8(sum, w));
          } else {
            atomic_add4(grid + node_index(G, c.w.base[0] + a, c.w.base[1] + b, c.w.base[2] + k), val[0], val[1],
                        val[2], val[3]);
          }
        }
  }
}

/* One CUDA block per run of particles sharing a grid block (the run list of
 * the last sort). P2G_TILED / P2G_FIXED: in-block particles accumulate into
 * the shared tile, drifted ones go to global atomics; P2G_GLOBAL: every
 * particle goes global. On sm_80/90 a shared float atomicAdd is a
 * compare-and-swap loop (ATOMS.CAST.SPIN in the SASS, retried on every
 * collision), and so is a 64-bit integer one, while a 32-bit integer add is
 * one native ATOMS.ADD: P2G_FIXED accumulates each float as two int32
 * fixed-point words (fix_scales) and converts once per node at the flush;
 * P2G_REDUX does the same after summing the words of same-cell lanes
 * inside the warp (redux_particles).
 * ORD (BAGNOLD_CUDA_P2G_ORDER) is the order in which a lane visits its
 * particle's 27 nodes: ORD_FIXED the same for every lane, ORD_ROTATED
 * starting at node (L * rot_mul) mod 27 for lane L, ORD_COLUMNS the nine
 * (a, b) columns starting at column (L * rot_mul) mod 9, each column's
 * three nodes in a fixed, unrolled order (fewer run-time node indices and
 * weight selects than the rotated loop, which profiled as integer-bound).
 * Sorted neighbours share most of their stencil, so in the fixed order the
 * lanes of a warp add to the same few nodes at once, and same-address
 * atomics serialise. Rotated, one instruction's 32 adds mostly go to
 * different nodes. The order of the additions into a node changes, as any
 * parallel float scatter does; each particle's contribution does not. */
template <int LB, int MODE, int ORD>
__global__ void k_p2g(dparts P, dgeom G, const int64_t *runstart, const uint32_t *runkey, int64_t n_runs,
                      int64_t n, float dt, float4 *grid, int rot_mul) {
  constexpr int B = 1 << LB, T = B + 2, TN = T * T * T;
  /* component-major (mass plane, then the three momentum planes; for the
   * fixed-point tile the four hi planes, then the four lo ones): lanes
   * adding to different nodes t then fall in banks t mod 32, where the
   * node-major float4 layout used only t mod 8 */
  constexpr bool FIXPT = MODE == P2G_FIXED || MODE == P2G_REDUX;
  __shared__ float tile[FIXPT ? 8 * TN : MODE == P2G_TILED ? 4 * TN : 1];
  const int64_t r = blockIdx.x;
  const uint32_t key = runkey[r];
  if (key >= (uint32_t)G.n_blocks) return; /* the parked bucket; uniform across the block */
  const int64_t beg = runstart[r], end = r + 1 < n_runs ? runstart[r + 1] : n;
  const int64_t bz = key % G.nb[2], by = (key / G.nb[2]) % G.nb[1], bx = key / (G.nb[2] * G.nb[1]);
  const int o0 = (int)(bx << LB), o1 = (int)(by << LB), o2 = (int)(bz << LB);
  constexpr int TW = FIXPT ? 8 * TN : 4 * TN;
  if (MODE != P2G_GLOBAL) {
    for (int i = threadIdx.x; i < TW; i += blockDim.x) tile[i] = 0.0f; /* also int 0 */
    __syncthreads();
  }
  fixscale fs;
  bool use_tile = MODE != P2G_GLOBAL;
  if (FIXPT) use_tile = fix_scales<LB>(P, G, beg, end, bx, by, bz, dt, fs);
  const float dx = G.dx;
  const unsigned lane = threadIdx.x & 31u;
  const int rot = ORD == ORD_ROTATED ? (int)(lane * (unsigned)rot_mul) % 27
                  : ORD == ORD_COLUMNS ? (int)(lane * (unsigned)rot_mul) % 9
                                        : 0;
  if (MODE == P2G_REDUX) {
    redux_particles<LB>(P, G, beg, end, o0, o1, o2, use_tile, dt, (int *)tile, fs, grid);
  } else
  for (int64_t p = beg + threadIdx.x; p < end; p += blockDim.x) {
    if (P.park[p] >= 0) continue;
    contrib c;
    particle_contrib(P, p, G, dt, c);
    /* in the block iff the lowest stencil node is: then base - origin is in
     * [0, B) and base - origin + {0,1,2} in [0, B+2) = the tile */
    const bool in = use_tile && (c.w.base[0] >> LB) == bx && (c.w.base[1] >> LB) == by &&
                    (c.w.base[2] >> LB) == bz;
    if (ORD == ORD_ROTATED) {
#pragma unroll 3
      for (int s = 0; s < 27; ++s) {
        int q = s + rot;
        q -= q >= 27 ? 27 : 0;
        const int a = q / 9, b = q / 3 - 3 * a, k = q - 3 * (q / 3);
        scatter_node<LB, MODE>(G, c, in, o0, o1, o2, a, b, k, dx, tile, fs, grid);
      }
    } else if (ORD == ORD_COLUMNS) {
      int a = rot / 3, b = rot - 3 * (rot / 3);
      for (int s = 0; s < 9; ++s) {
#pragma unroll
        for (int k = 0; k < 3; ++k) scatter_node<LB, MODE>(G, c, in, o0, o1, o2, a, b, k, dx, tile, fs, grid);
        if (++b == 3) {
          b = 0;
          a = a == 2 ? 0 : a + 1;
        }
      }
    } else {
      /* fully unrolled, or the stencil arrays go to local memory (ptxas -v) */
#pragma unroll
      for (int a = 0; a < 3; ++a)
#pragma unroll
        for (int b = 0; b < 3; ++b)
#pragma unroll
          for (int k = 0; k < 3; ++k) scatter_node<LB, MODE>(G, c, in, o0, o1, o2, a, b, k, dx, tile, fs, grid);
    }
  }
  if (MODE != P2G_GLOBAL && use_tile) {
    __syncthreads();
    for (int t = threadIdx.x; t < TN; t += blockDim.x) {
      float q[4];
      if (FIXPT) {
        const int *ti = (const int *)tile;
        if (ti[t] == 0 && ti[4 * TN + t] == 0) continue; /* no mass: untouched, or weights below resolution */
        for (int l = 0; l < 4; ++l)
          q[l] = (float)((double)ti[l * TN + t] * (double)fs.ish[l] + (double)ti[(4 + l) * TN + t] / (double)fs.sl[l]);
      } else {
        if (tile[t] == 0.0f) continue; /* untouched node: weight 0 adds nothing anywhere */
        for (int l = 0; l < 4; ++l) q[l] = tile[l * TN + t];
      }
      const int li = t / (T * T), lj = (t / T) % T, lk = t % T;
      const int i = o0 + li, j = o1 + lj, k = o2 + lk;
      if (i >= G.dims[0] || j >= G.dims[1] || k >= G.dims[2]) continue;
      atomic_add4(grid + node_index(G, i, j, k), q[0], q[1], q[2], q[3]);
    }
  }
}

/* The nonlocal service's scatter: mass times state slot nl to the nodal
 * sums gs. Only a nonlocal model runs it; plain global atomics, since no
 * such model is on the fast path the tiled scatter is tuned for. */
__global__ void k_p2g_nonlocal(dparts P, dgeom G, int64_t n, int nl, float *gs) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n || P.park[p] >= 0) return;
  float xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (P.f[PX + d][p] - G.origin[d]) * G.inv_dx;
  const bg_bspline w = bg_bspline_eval(xg);
  const float mf = P.f[PM][p] * P.f[PS + nl][p];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int k = 0; k < 3; ++k)
        atomicAdd(gs + node_index(G, w.base[0] + a, w.base[1] + b, w.base[2] + k), bg_bspline_weight(&w, a, b, k) * mf);
}

/* Node update (bg_node_update): momentum to velocity, plus gravity, then
 * the optional damping factor (1 when off). */
__global__ void k_grid_update(float4 *grid, int64_t nn, float g0, float g1, float g2, float damp) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nn) return;
  float4 q = grid[i];
  if (q.x > 0.0f) {
    float g[4] = {q.x, q.y, q.z, q.w};
    const float gdt[3] = {g0, g1, g2};
    bg_node_update(g, gdt);
    grid[i] = make_float4(g[0], g[1] * damp, g[2] * damp, g[3] * damp);
  }
}

/* Contact on the solid nodes; each wall's share of the momentum change,
 * over dt, is added to wf (3 doubles per wall, minus: the force on it). */
__global__ void k_boundary(float4 *grid, const bg_bnode *bn, int64_t nbn, const bg_wallc *walls, int n_colliders,
                           double inv_dt, double *wf) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= nbn) return;
  const bg_bnode b = bn[k];
  float4 q = grid[b.node];
  if (q.x > 0.0f) {
    float v[3] = {q.y, q.z, q.w};
    bg_bnode_effect eff;
    bg_bnode_apply(&b, walls, n_colliders, v, &eff);
    q.y = v[0];
    q.z = v[1];
    q.w = v[2];
    grid[b.node] = q;
    for (int e = 0; e < eff.n; ++e)
      for (int d = 0; d < 3; ++d)
        if (eff.dv[e][d] != 0.0f) atomicAdd(&wf[3 * eff.wall[e] + d], -(double)q.x * eff.dv[e][d] * inv_dt);
  }
}

/* The G2P body, one thread per particle; the kernels below differ only in
 * their launch bounds. */
static __device__ __forceinline__ void g2p_body(dparts P, int64_t n, dgeom G, const dmat &M, float dt,
                                                const float4 *__restrict__ grid, const float *__restrict__ gs,
                                                int nl, unsigned long long *tally) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  double sp2 = 0.0;
  if (p < n && P.park[p] < 0) {
    float xg[3];
    for (int d = 0; d < 3; ++d) xg[d] = (P.f[PX + d][p] - G.origin[d]) * G.inv_dx;
    const bg_bspline w = bg_bspline_eval(xg);
    const float dx = G.dx, k4 = 4.0f * G.inv_dx * G.inv_dx;
    /* lanes 1..3 of the CPU's 4-lane sums (lane 0, the mass, is ignored there) */
    float av[3] = {0, 0, 0}, aa[3] = {0, 0, 0}, ab[3] = {0, 0, 0}, ac[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
      const float dxa = ((float)a - w.fx[0]) * dx;
      for (int b = 0; b < 3; ++b) {
        const float dxb = ((float)b - w.fx[1]) * dx;
        const float wab = w.w[0][a] * w.w[1][b];
        const float4 *g = grid + node_index(G, w.base[0] + a, w.base[1] + b, w.base[2]);
        for (int k = 0; k < 3; ++k) {
          const float dxc = ((float)k - w.fx[2]) * dx;
          const float wt = wab * w.w[2][k];
          const float4 q = g[k];
          const float gv[3] = {q.y, q.z, q.w};
          for (int l = 0; l < 3; ++l) {
            const float wv = wt * gv[l];
            av[l] += wv;
            aa[l] += wv * dxa;
            ab[l] += wv * dxb;
            ac[l] += wv * dxc;
          }
        }
      }
    }
    bg_mat3 C;
    for (int i = 0; i < 3; ++i) {
      C.m[i][0] = k4 * aa[i];
      C.m[i][1] = k4 * ab[i];
      C.m[i][2] = k4 * ac[i];
    }
    float xp[3];
    for (int d = 0; d < 3; ++d) {
      P.f[PV + d][p] = av[d];
      xp[d] = P.f[PX + d][p] + dt * av[d];
      P.f[PX + d][p] = xp[d];
    }
    for (int e = 0; e < 9; ++e) P.f[PC + e][p] = C.m[e / 3][e % 3];
    bg_mat3 F;
    for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
    F = bg_f_update(&C, &F, dt);
    float st[BG_NSTATE];
    for (int k = 0; k < BG_NSTATE; ++k) st[k] = P.f[PS + k][p];
    if (nl >= 0) {
      /* the nonlocal service's Laplacian, as the CPU's nodal_laplacian */
      float sum = 0.0f;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          for (int k = 0; k < 3; ++k) {
            const int64_t i = node_index(G, w.base[0] + a, w.base[1] + b, w.base[2] + k);
            const float m = grid[i].x;
            if (m > 0.0f) sum += bg_bspline_lap_weight(w.w, a, b, k) * (gs[i] / m);
          }
      st[nl + 1] = sum * G.inv_dx * G.inv_dx;
    }
    bg_mat3 tau;
    bg_update_ctx u = {&F, &C, dt, st, &tau};
    P.f[PMODE][p] = (float)bg_material_update(&M.mat, &u);
    for (int e = 0; e < 9; ++e) P.f[PF + e][p] = F.m[e / 3][e % 3];
    P.f[PT + 0][p] = tau.m[0][0];
    P.f[PT + 1][p] = tau.m[1][1];
    P.f[PT + 2][p] = tau.m[2][2];
    P.f[PT + 3][p] = 0.5f * (tau.m[0][1] + tau.m[1][0]);
    P.f[PT + 4][p] = 0.5f * (tau.m[0][2] + tau.m[2][0]);
    P.f[PT + 5][p] = 0.5f * (tau.m[1][2] + tau.m[2][1]);
    for (int k = 0; k < BG_NSTATE; ++k) P.f[PS + k][p] = st[k];
    const int32_t code = bg_park_code(&M.cfg, M.sinks, xp);
    if (code >= 0) {
      P.park[p] = code;
      atomicAdd(&tally[1 + code], 1ull);
      atomicAdd((double *)(tally + 1 + (M.n_sinks + 1)) + code, (double)P.f[PM][p]);
    } else {
      sp2 = (double)av[0] * av[0] + (double)av[1] * av[1] + (double)av[2] * av[2];
    }
  }
  /* warp maximum, one atomic per warp; non-negative doubles order as their bits */
  for (int off = 16; off > 0; off >>= 1) sp2 = fmax(sp2, __shfl_xor_sync(0xffffffffu, sp2, off));
  if ((threadIdx.x & 31) == 0 && sp2 > 0.0) atomicMax(&tally[0], (unsigned long long)__double_as_longlong(sp2));
}

/* No bound on the resident blocks: the compiler's own choice (168
 * registers on sm_90). Note that __launch_bounds__(128, 1) is not the
 * same: it lets ptxas take 247. */
__global__ void __launch_bounds__(BG_CUDA_G2P_THREADS)
    k_g2p_free(dparts P, int64_t n, dgeom G, dmat M, float dt, const float4 *__restrict__ grid,
               const float *__restrict__ gs, int nl, unsigned long long *tally) {
  g2p_body(P, n, G, M, dt, grid, gs, nl, tally);
}

/* At least MINB resident blocks per SM: at most 65536 / (128 MINB) registers. */
template <int MINB>
__global__ void __launch_bounds__(BG_CUDA_G2P_THREADS, MINB)
    k_g2p(dparts P, int64_t n, dgeom G, dmat M, float dt, const float4 *__restrict__ grid,
          const float *__restrict__ gs, int nl, unsigned long long *tally) {
  g2p_body(P, n, G, M, dt, grid, gs, nl, tally);
}

/* Read-back in insertion order: slot p writes row id[p] (64-bit offsets). */
__global__ void k_get(dparts P, int64_t n, int field, bg_mat mat, float *out) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int64_t o = P.id[p];
  switch (field) {
    case BG_FIELD_X:
      for (int d = 0; d < 3; ++d) out[3 * o + d] = P.f[PX + d][p];
      break;
    case BG_FIELD_V:
      for (int d = 0; d < 3; ++d) out[3 * o + d] = P.f[PV + d][p];
      break;
    case BG_FIELD_F:
      for (int d = 0; d < 9; ++d) out[9 * o + d] = P.f[PF + d][p];
      break;
    case BG_FIELD_C:
      for (int d = 0; d < 9; ++d) out[9 * o + d] = P.f[PC + d][p];
      break;
    case BG_FIELD_JP: out[o] = expf(bg_mat_log_jp(&mat, P.f + PS, p)); break;
    case BG_FIELD_DENSITY: {
      bg_mat3 F;
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
      out[o] = bg_density(mat.el.rho0, bg_mat3_det(F), bg_mat_log_jp(&mat, P.f + PS, p));
      break;
    }
    case BG_FIELD_Q: out[o] = bg_mat_q(&mat, P.f + PS, p); break;
    case BG_FIELD_STRESS: {
      /* Cauchy stress tau / J with J = det(F_E) Jp, as on the CPU */
      bg_mat3 F;
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
      const float J = bg_mat3_det(F) * expf(bg_mat_log_jp(&mat, P.f + PS, p));
      const int sym[9] = {0, 3, 4, 3, 1, 5, 4, 5, 2};
      for (int e = 0; e < 9; ++e) out[9 * o + e] = P.f[PT + sym[e]][p] / J;
      break;
    }
    case BG_FIELD_MASS: out[o] = P.f[PM][p]; break;
    case BG_FIELD_ACTIVE: out[o] = P.park[p] < 0 ? 1.0f : 0.0f; break;
    case BG_FIELD_MODE: out[o] = P.f[PMODE][p]; break;
    default: break;
  }
}

__global__ void k_grid_get(const float4 *grid, int64_t nn, int which, float *out) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nn) return;
  const float4 q = grid[i];
  if (which == 0) {
    out[i] = q.x;
  } else {
    const int has = q.x > 0.0f;
    out[3 * i] = has ? q.y : 0.0f;
    out[3 * i + 1] = has ? q.z : 0.0f;
    out[3 * i + 2] = has ? q.w : 0.0f;
  }
}

/* --------------------------------------------------------------- host code */

/* The kernel instantiations the knobs select; the P2G table is indexed by
 * (log2 block - 1), the scatter mode and the order. */
typedef void (*p2g_fn)(dparts, dgeom, const int64_t *, const uint32_t *, int64_t, int64_t, float, float4 *, int);
static const p2g_fn p2g_table[3][P2G_NMODES][3] = {
#define BG_P2G_MODE(lb, m) {k_p2g<lb, m, ORD_FIXED>, k_p2g<lb, m, ORD_ROTATED>, k_p2g<lb, m, ORD_COLUMNS>}
/* redux has one order (read_knobs) */
#define BG_P2G_REDUX(lb) {k_p2g<lb, P2G_REDUX, ORD_FIXED>, NULL, NULL}
#define BG_P2G_ROW(lb)                                                                                        \
  {BG_P2G_MODE(lb, P2G_GLOBAL), BG_P2G_MODE(lb, P2G_TILED), BG_P2G_MODE(lb, P2G_FIXED), BG_P2G_REDUX(lb)}
    BG_P2G_ROW(1), BG_P2G_ROW(2), BG_P2G_ROW(3),
#undef BG_P2G_ROW
#undef BG_P2G_REDUX
#undef BG_P2G_MODE
};

static int cuda_available(char *why, size_t len) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why && len)
      snprintf(why, len, "no usable CUDA device (cudaGetDeviceCount: %s)",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    (void)cudaGetLastError();
    return 0;
  }
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    if (why && len) snprintf(why, len, "cannot query CUDA device %d", dev);
    (void)cudaGetLastError();
    return 0;
  }
  /* the build must hold an image this device can run */
  cudaFuncAttributes fa;
  e = cudaFuncGetAttributes(&fa, (const void *)k_grid_update);
  if (e != cudaSuccess) {
    if (why && len)
      snprintf(why, len, "device %d (%s, sm_%d%d) cannot run this build's kernels: %s (set BAGNOLD_CUDA_ARCHS)",
               dev, prop.name, prop.major, prop.minor, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return 0;
  }
  /* available: why describes the device, for manifests and logs */
  int drv = 0;
  (void)cudaDriverGetVersion(&drv);
  if (why && len)
    snprintf(why, len, "%s (sm_%d%d, %d SMs, %.1f GB, driver CUDA %d.%d)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, prop.totalGlobalMem / 1e9, drv / 1000, (drv % 1000) / 10);
  return 1;
}

static void free_parts(dparts *P) {
  for (int k = 0; k < NPF; ++k) cudaFree(P->f[k]);
  cudaFree(P->id);
  cudaFree(P->park);
  memset(P, 0, sizeof *P);
}

static void cuda_destroy(void *state) {
  cuda_state *s = (cuda_state *)state;
  if (!s) return;
  if (s->st) cudaStreamSynchronize(s->st);
  free_parts(&s->P);
  for (int k = 0; k < 2; ++k) {
    cudaFree(s->keys[k]);
    cudaFree(s->vals[k]);
  }
  cudaFree(s->cub_tmp);
  cudaFree(s->runstart);
  cudaFree(s->runkey);
  cudaFree(s->d_nsel);
  cudaFree(s->grid);
  cudaFree(s->gs);
  cudaFree(s->bn);
  cudaFree(s->walls);
  cudaFree(s->sinks);
  cudaFree(s->d_tally);
  if (s->h_tally) cudaFreeHost(s->h_tally);
  if (s->ev_tally) cudaEventDestroy(s->ev_tally);
  for (int k = 0; k < 5; ++k)
    if (s->ev[k]) cudaEventDestroy(s->ev[k]);
  if (s->st) cudaStreamDestroy(s->st);
  free(s->sink_mass);
  free(s->wf);
  (void)cudaGetLastError();
  free(s);
}

/* Benchmark knob from the environment: an integer in [lo, hi], else def. */
static bg_status env_int(cuda_state *s, const char *name, int def, int lo, int hi, int *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v) return BG_OK;
  char *end = NULL;
  long x = strtol(v, &end, 10);
  if (*end || x < lo || x > hi) {
    if (s->err && s->err_len)
      snprintf(s->err, s->err_len, "cuda backend: %s=\"%s\" must be an integer in [%d, %d]", name, v, lo, hi);
    return BG_ERR_RANGE;
  }
  *out = (int)x;
  return BG_OK;
}

static bg_status read_knobs(cuda_state *s) {
  int block;
  bg_status st = env_int(s, "BAGNOLD_CUDA_BLOCK", BG_BLOCK, 2, 8, &block);
  if (st != BG_OK) return st;
  if (block != 2 && block != 4 && block != 8)
    return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_BLOCK must be 2, 4 or 8 nodes (tile 4^3, 6^3 or 10^3)");
  s->geo.lb = block == 2 ? 1 : block == 4 ? 2 : 3;
  st = env_int(s, "BAGNOLD_CUDA_P2G_THREADS", BG_CUDA_P2G_THREADS, 32, 1024, &s->p2g_threads);
  if (st != BG_OK) return st;
  if (s->p2g_threads % 32)
    return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_P2G_THREADS must be a multiple of 32 (whole warps)");
  const char *mode = getenv("BAGNOLD_CUDA_P2G");
  if (!mode || !*mode) mode = BG_CUDA_DEFAULT_P2G;
  {
    if (strcmp(mode, "tiled") == 0) s->p2g_mode = P2G_TILED;
    else if (strcmp(mode, "fixed") == 0) s->p2g_mode = P2G_FIXED;
    else if (strcmp(mode, "global") == 0) s->p2g_mode = P2G_GLOBAL;
    else if (strcmp(mode, "redux") == 0) s->p2g_mode = P2G_REDUX;
    else return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_P2G must be \"fixed\", \"tiled\", \"global\" or \"redux\"");
  }
  /* redux sums same-cell lanes, which the cell order makes neighbours; the
   * other scatters keep the block order they were measured with */
  const char *sort = getenv("BAGNOLD_CUDA_SORT");
  if (!sort || !*sort) s->sort_cells = s->p2g_mode == P2G_REDUX;
  else if (strcmp(sort, "cell") == 0) s->sort_cells = 1;
  else if (strcmp(sort, "block") == 0) s->sort_cells = 0;
  else return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_SORT must be \"block\" or \"cell\"");
  /* the rotation's stride across lanes: coprime with 27 so that lanes 0-26
   * start on 27 different nodes; stride 1 puts consecutive lanes, often
   * neighbours one cell apart along z, one node apart, where they collide */
  st = env_int(s, "BAGNOLD_CUDA_P2G_ROT", BG_CUDA_P2G_ROT_MUL, 1, 26, &s->rot_mul);
  if (st != BG_OK) return st;
  if (s->rot_mul % 3 == 0)
    return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_P2G_ROT must not be a multiple of 3 (it must be coprime with 27)");
  st = env_int(s, "BAGNOLD_CUDA_G2P_MINBLOCKS", BG_CUDA_DEFAULT_G2P_MINBLOCKS, 0, 5, &s->g2p_minb);
  if (st != BG_OK) return st;
  if (s->g2p_minb != 0 && s->g2p_minb != 4 && s->g2p_minb != 5)
    return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_G2P_MINBLOCKS must be 0 (no bound), 4 or 5 resident G2P blocks per SM");
  const char *order = getenv("BAGNOLD_CUDA_P2G_ORDER");
  /* the lanes of a redux group must visit the same node together */
  if (s->p2g_mode == P2G_REDUX && order && *order && strcmp(order, "fixed") != 0)
    return fail(s, BG_ERR_RANGE,
                "BAGNOLD_CUDA_P2G=redux visits the 27 nodes in one order across the warp: leave "
                "BAGNOLD_CUDA_P2G_ORDER unset or \"fixed\"");
  if (s->p2g_mode == P2G_REDUX) order = "fixed";
  if (!order || !*order) order = BG_CUDA_DEFAULT_ORDER;
  {
    if (strcmp(order, "rotated") == 0) s->order = ORD_ROTATED;
    else if (strcmp(order, "columns") == 0) s->order = ORD_COLUMNS;
    else if (strcmp(order, "fixed") == 0) s->order = ORD_FIXED;
    else return fail(s, BG_ERR_RANGE, "BAGNOLD_CUDA_P2G_ORDER must be \"rotated\", \"columns\" or \"fixed\"");
  }
  return BG_OK;
}

static bg_status cuda_create(const bg_config *cfg, void **out, char *err, size_t len) {
  cuda_state *s = (cuda_state *)calloc(1, sizeof *s);
  if (!s) return BG_ERR_NOMEM;
  s->cfg = cfg;
  s->err = err;
  s->err_len = len;
  bg_status st = read_knobs(s);
  if (st != BG_OK) {
    free(s);
    return st;
  }
  dgeom *G = &s->geo;
  G->n_blocks = 1;
  for (int a = 0; a < 3; ++a) {
    G->dims[a] = cfg->dims[a];
    G->origin[a] = cfg->origin[a];
    G->nb[a] = (cfg->dims[a] + (1 << G->lb) - 1) >> G->lb;
    G->n_blocks *= G->nb[a];
  }
  G->dx = cfg->dx;
  G->inv_dx = cfg->inv_dx;
  /* keys are 32-bit with one extra value for the parked bucket; runs index
   * CUDA blocks (gridDim.x < 2^31) */
  if (G->n_blocks >= INT32_MAX) {
    st = fail(s, BG_ERR_OVERFLOW, "the grid has more than 2^31 - 1 blocks; use fewer nodes");
    free(s);
    return st;
  }
  G->cell_bits = s->sort_cells ? 3 * G->lb : 0;
  if (((int64_t)G->n_blocks << G->cell_bits) >= (int64_t)UINT32_MAX) {
    st = fail(s, BG_ERR_OVERFLOW,
              "BAGNOLD_CUDA_SORT=cell: the grid's blocks times cells per block exceed the 32-bit sort key; "
              "use BAGNOLD_CUDA_SORT=block or fewer nodes");
    free(s);
    return st;
  }
  s->end_bit = 1;
  while (s->end_bit < 32 && ((int64_t)1 << s->end_bit) <= (G->n_blocks << G->cell_bits)) s->end_bit++;
  bg_status r = BG_OK;
#define TRY(call)                                                   \
  do {                                                              \
    cudaError_t e_ = (call);                                        \
    if (e_ != cudaSuccess) {                                        \
      r = cu_fail(s, e_, #call, __FILE__, __LINE__);                \
      goto fail;                                                    \
    }                                                               \
  } while (0)
  {
    size_t free_b = 0, total_b = 0;
    TRY(cudaMemGetInfo(&free_b, &total_b));
    size_t grid_bytes = (size_t)cfg->n_nodes * sizeof(float4);
    if (grid_bytes > free_b) {
      if (err && len)
        snprintf(err, len, "cuda backend: a %lld-node grid needs %.3g GB, the device has %.3g GB free",
                 (long long)cfg->n_nodes, grid_bytes / 1e9, free_b / 1e9);
      cuda_destroy(s);
      return BG_ERR_NOMEM;
    }
    TRY(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
    TRY(cudaMalloc((void **)&s->grid, grid_bytes));
    TRY(cudaMemsetAsync(s->grid, 0, grid_bytes, s->st));
    s->nl = bg_material_nonlocal_slot(cfg->mat.model);
    if (s->nl >= 0) TRY(cudaMalloc((void **)&s->gs, (size_t)cfg->n_nodes * sizeof(float)));
    TRY(cudaMalloc((void **)&s->walls, (size_t)cfg->n_walls * sizeof(bg_wallc)));
    TRY(cudaMemcpyAsync(s->walls, cfg->walls, (size_t)cfg->n_walls * sizeof(bg_wallc), cudaMemcpyHostToDevice,
                        s->st));
    if (cfg->n_sinks) {
      TRY(cudaMalloc((void **)&s->sinks, (size_t)cfg->n_sinks * sizeof(bg_sink)));
      TRY(cudaMemcpyAsync(s->sinks, cfg->sinks, (size_t)cfg->n_sinks * sizeof(bg_sink), cudaMemcpyHostToDevice,
                          s->st));
    }
    s->tally_words = 1 + 2 * ((size_t)cfg->n_sinks + 1) + 3 * (size_t)cfg->n_walls;
    TRY(cudaMalloc((void **)&s->d_tally, s->tally_words * 8));
    TRY(cudaMemsetAsync(s->d_tally, 0, s->tally_words * 8, s->st));
    TRY(cudaMallocHost((void **)&s->h_tally, s->tally_words * 8));
    memset(s->h_tally, 0, s->tally_words * 8);
    TRY(cudaMalloc((void **)&s->d_nsel, sizeof(int64_t)));
    TRY(cudaEventCreateWithFlags(&s->ev_tally, cudaEventDisableTiming));
    for (int k = 0; k < 5; ++k) TRY(cudaEventCreate(&s->ev[k]));
    TRY(cudaStreamSynchronize(s->st));
  }
#undef TRY
  s->sink_mass = (double *)calloc((size_t)cfg->n_sinks + 1, sizeof *s->sink_mass);
  s->wf = (double *)calloc(3 * (size_t)cfg->n_walls, sizeof *s->wf);
  if (!s->sink_mass || !s->wf) {
    cuda_destroy(s);
    return BG_ERR_NOMEM;
  }
  *out = s;
  return BG_OK;
fail:
  cuda_destroy(s);
  return r;
}

/* Folds the last step's device tallies and stage events into the host
 * counters: the one wait per step. */
static bg_status flush(cuda_state *s) {
  if (!s->pending) return BG_OK;
  CU(cudaEventSynchronize(s->ev_tally));
  s->pending = 0;
  const unsigned long long *t = s->h_tally;
  double vmax2;
  memcpy(&vmax2, &t[0], sizeof vmax2);
  s->max_speed = sqrt(vmax2);
  int ns = s->cfg->n_sinks;
  const double *mass = (const double *)(t + 1 + (ns + 1));
  size_t parked = 0;
  s->parked_mass = 0;
  for (int k = 0; k <= ns; ++k) {
    parked += (size_t)t[1 + k];
    s->sink_mass[k] = mass[k];
    s->parked_mass += mass[k];
  }
  memcpy(s->wf, mass + (ns + 1), 3 * (size_t)s->cfg->n_walls * sizeof *s->wf);
  s->n_sink = parked - (size_t)t[1 + ns];
  s->n_out = (size_t)t[1 + ns];
  s->n_active = s->n - parked;
  if (s->ev_mask == 0x1f) {
    for (int k = 0; k < BG_STAGE_COUNT; ++k) {
      float ms = 0;
      CU(cudaEventElapsedTime(&ms, s->ev[k], s->ev[k + 1]));
      s->stage_ms[k] += ms;
    }
  }
  s->ev_mask = 0;
  return BG_OK;
}

static bg_status mark(cuda_state *s, int k) {
  CU(cudaEventRecord(s->ev[k], s->st));
  s->ev_mask |= 1u << k;
  return BG_OK;
}

/* Capacity for need particles: all new arrays first, so a failure leaves
 * the old ones intact. */
static bg_status grow(cuda_state *s, size_t need) {
  if (need <= s->cap) return BG_OK;
  size_t want[2] = {need > 2 * s->cap ? need : 2 * s->cap, need};
  for (int attempt = 0; attempt < 2; ++attempt) {
    size_t cap = want[attempt];
    if (attempt == 1 && cap == want[0]) break;
    dparts Q;
    memset(&Q, 0, sizeof Q);
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < NPF && e == cudaSuccess; ++k) e = cudaMalloc((void **)&Q.f[k], cap * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&Q.id, cap * sizeof(int64_t));
    if (e == cudaSuccess) e = cudaMalloc((void **)&Q.park, cap * sizeof(int32_t));
    if (e != cudaSuccess) {
      free_parts(&Q);
      (void)cudaGetLastError();
      if (e == cudaErrorMemoryAllocation) continue;
      return cu_fail(s, e, "cudaMalloc (particle arrays)", __FILE__, __LINE__);
    }
    if (s->n) {
      for (int k = 0; k < NPF; ++k)
        CU(cudaMemcpyAsync(Q.f[k], s->P.f[k], s->n * sizeof(float), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaMemcpyAsync(Q.id, s->P.id, s->n * sizeof(int64_t), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaMemcpyAsync(Q.park, s->P.park, s->n * sizeof(int32_t), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaStreamSynchronize(s->st));
    }
    free_parts(&s->P);
    s->P = Q;
    s->cap = cap;
    return BG_OK;
  }
  if (s->err && s->err_len) {
    size_t fb = 0, tb = 0;
    cudaMemGetInfo(&fb, &tb);
    snprintf(s->err, s->err_len,
             "cuda backend: out of device memory for %zu particles (%.3g GB of state; %.3g GB free of %.3g)", need,
             (double)need * (NPF * 4 + 12) / 1e9, fb / 1e9, tb / 1e9);
  }
  return BG_ERR_NOMEM;
}

static bg_status cuda_add(void *state, size_t n, const bg_real *x, const bg_real *v, const bg_real *vol) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = flush(s); /* the speeds below must max into the last step's, not be overwritten */
  if (st != BG_OK) return st;
  if ((st = grow(s, s->n + n)) != BG_OK) return st;
  size_t chunk = n < BG_CUDA_UPLOAD_CHUNK ? n : BG_CUDA_UPLOAD_CHUNK;
  float *tmp = NULL;
  CU(cudaMalloc((void **)&tmp, 7 * chunk * sizeof(float)));
  float *tx = tmp, *tv = tmp + 3 * chunk, *tvol = tmp + 6 * chunk;
  bg_status r = BG_OK;
  for (size_t k0 = 0; k0 < n && r == BG_OK; k0 += chunk) {
    size_t c = n - k0 < chunk ? n - k0 : chunk;
    cudaError_t e = cudaMemcpyAsync(tx, x + 3 * k0, 3 * c * sizeof(float), cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess && v) e = cudaMemcpyAsync(tv, v + 3 * k0, 3 * c * sizeof(float), cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(tvol, vol + k0, c * sizeof(float), cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess) {
      k_init<<<grid_of((int64_t)c, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
          s->P, (int64_t)(s->n + k0), (int64_t)c, tx, v ? tv : NULL, tvol, s->cfg->mat.el.rho0);
      e = cudaGetLastError();
    }
    /* the staging buffer is reused by the next chunk */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
    if (e != cudaSuccess) r = cu_fail(s, e, "uploading particles", __FILE__, __LINE__);
  }
  cudaFree(tmp);
  if (r != BG_OK) return r;
  /* host tallies exactly as the CPU keeps them */
  bg_real rho0 = s->cfg->mat.el.rho0;
  for (size_t k = 0; k < n; ++k) {
    bg_real m = rho0 * vol[k];
    s->total_mass += (double)m;
    if (v) {
      double sp = sqrt((double)v[3 * k] * v[3 * k] + (double)v[3 * k + 1] * v[3 * k + 1] +
                       (double)v[3 * k + 2] * v[3 * k + 2]);
      if (sp > s->max_speed) s->max_speed = sp;
    }
  }
  s->n += n;
  s->n_active += n;
  s->dirty = 1;
  return BG_OK;
}

static bg_status cuda_set_boundary(void *state, const bg_bnode *nodes, size_t n) {
  cuda_state *s = (cuda_state *)state;
  if (n > s->bn_cap) {
    bg_bnode *nb = NULL;
    size_t cap = n + n / 2;
    CU(cudaMalloc((void **)&nb, cap * sizeof *nb));
    cudaFree(s->bn); /* synchronises with kernels still reading it */
    s->bn = nb;
    s->bn_cap = cap;
  }
  /* pageable source: the copy has consumed the host list when this returns */
  if (n) CU(cudaMemcpyAsync(s->bn, nodes, n * sizeof *nodes, cudaMemcpyHostToDevice, s->st));
  s->n_bn = n;
  return BG_OK;
}

/* The sort buffers have exactly the particle arrays' capacity: the gather
 * swaps them with particle arrays, so any other size would corrupt both. */
static bg_status ensure_sort_buffers(cuda_state *s) {
  if (s->sort_cap == s->cap) return BG_OK;
  for (int k = 0; k < 2; ++k) {
    cudaFree(s->keys[k]);
    cudaFree(s->vals[k]);
    s->keys[k] = NULL;
    s->vals[k] = NULL;
  }
  cudaFree(s->runstart);
  cudaFree(s->runkey);
  s->runstart = NULL;
  s->runkey = NULL;
  s->sort_cap = 0;
  size_t cap = s->cap;
  for (int k = 0; k < 2; ++k) {
    CU(cudaMalloc((void **)&s->keys[k], cap * sizeof(uint32_t)));
    CU(cudaMalloc((void **)&s->vals[k], cap * sizeof(int64_t)));
  }
  /* at most one run per block plus the parked bucket, and never more than particles */
  size_t runs = (size_t)s->geo.n_blocks + 1 < cap ? (size_t)s->geo.n_blocks + 1 : cap;
  CU(cudaMalloc((void **)&s->runstart, runs * sizeof(int64_t)));
  CU(cudaMalloc((void **)&s->runkey, runs * sizeof(uint32_t)));
  s->run_cap = runs;
  s->sort_cap = cap;
  return BG_OK;
}

/* Physical re-sort by block (parked last) every sort_interval steps, or
 * when particles were added, and the run list P2G launches over. */
static bg_status cuda_sort(void *state, uint64_t step) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = mark(s, 0);
  if (st != BG_OK) return st;
  if (s->n && (s->dirty || step % (uint64_t)s->cfg->sort_interval == 0)) {
    if ((st = ensure_sort_buffers(s)) != BG_OK) return st;
    const int64_t n = (int64_t)s->n;
    k_keys<<<grid_of(n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, n, s->geo, s->keys[0],
                                                                              s->vals[0]);
    CU(cudaGetLastError());
    cub::DoubleBuffer<uint32_t> dk(s->keys[0], s->keys[1]);
    cub::DoubleBuffer<int64_t> dv(s->vals[0], s->vals[1]);
    size_t b_sort = 0, b_sel = 0;
    run_start_op op = {dk.Current(), s->geo.cell_bits};
    CU(cub::DeviceRadixSort::SortPairs(NULL, b_sort, dk, dv, n, 0, s->end_bit, s->st));
    /* the select reads the sorted keys, wherever the sort leaves them: size
     * it for either buffer (the size does not depend on the pointer) */
    CU(cub::DeviceSelect::If(NULL, b_sel, thrust::counting_iterator<int64_t>(0), s->runstart, s->d_nsel, n, op,
                             s->st));
    size_t need = b_sort > b_sel ? b_sort : b_sel;
    if (need > s->cub_bytes) {
      cudaFree(s->cub_tmp);
      s->cub_tmp = NULL;
      s->cub_bytes = 0;
      CU(cudaMalloc(&s->cub_tmp, need));
      s->cub_bytes = need;
    }
    size_t have = s->cub_bytes;
    CU(cub::DeviceRadixSort::SortPairs(s->cub_tmp, have, dk, dv, n, 0, s->end_bit, s->st));
    const uint32_t *sorted = dk.Current();
    const int64_t *perm = dv.Current();
    op.k = sorted;
    have = s->cub_bytes;
    CU(cub::DeviceSelect::If(s->cub_tmp, have, thrust::counting_iterator<int64_t>(0), s->runstart, s->d_nsel, n,
                             op, s->st));
    /* the launch size of P2G: one small copy per sort */
    CU(cudaMemcpyAsync(&s->n_runs, s->d_nsel, sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaStreamSynchronize(s->st));
    if (s->n_runs < 1 || (size_t)s->n_runs > s->run_cap)
      return fail(s, BG_ERR_INTERNAL, "sort produced an impossible number of block runs");
    k_runkeys<<<grid_of(s->n_runs, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->runstart, sorted, s->geo.cell_bits, s->runkey, s->n_runs);
    CU(cudaGetLastError());
    /* apply the permutation array by array through one spare buffer: the
     * key buffers (4 bytes per slot) for floats and park codes, the other
     * value buffer for the 64-bit ids */
    float *spare = (float *)(sorted == s->keys[0] ? s->keys[1] : s->keys[0]);
    int64_t *ispare = perm == s->vals[0] ? s->vals[1] : s->vals[0];
    const unsigned gb = grid_of(n, BG_CUDA_EW_THREADS);
    for (int k = 0; k < NPF; ++k) {
      k_gather<float><<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>(spare, s->P.f[k], perm, n);
      CU(cudaGetLastError());
      float *old = s->P.f[k];
      s->P.f[k] = spare;
      spare = old;
    }
    k_gather<int32_t><<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>((int32_t *)spare, s->P.park, perm, n);
    CU(cudaGetLastError());
    {
      int32_t *old = s->P.park;
      s->P.park = (int32_t *)spare;
      spare = (float *)old;
    }
    k_gather<int64_t><<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>(ispare, s->P.id, perm, n);
    CU(cudaGetLastError());
    {
      int64_t *old = s->P.id;
      s->P.id = ispare;
      ispare = old;
    }
    /* the buffers left over become the sort's: particle arrays and sort
     * buffers all hold cap slots (ensure_sort_buffers), so they interchange */
    if (s->sort_cap != s->cap) return fail(s, BG_ERR_INTERNAL, "sort buffers and particle arrays differ in size");
    if (sorted == s->keys[0]) s->keys[1] = (uint32_t *)spare;
    else s->keys[0] = (uint32_t *)spare;
    if (perm == s->vals[0]) s->vals[1] = ispare;
    else s->vals[0] = ispare;
    s->dirty = 0;
  }
  return mark(s, 1);
}

static bg_status cuda_p2g(void *state, bg_real dt) {
  cuda_state *s = (cuda_state *)state;
  const bg_config *c = s->cfg;
  CU(cudaMemsetAsync(s->grid, 0, (size_t)c->n_nodes * sizeof(float4), s->st));
  if (s->n && s->n_runs > 0) {
    if (s->dirty) return fail(s, BG_ERR_INTERNAL, "p2g called before particles added since the last step were sorted");
    p2g_fn f = p2g_table[s->geo.lb - 1][s->p2g_mode][s->order];
    f<<<(unsigned)s->n_runs, s->p2g_threads, 0, s->st>>>(s->P, s->geo, s->runstart, s->runkey, s->n_runs,
                                                        (int64_t)s->n, dt, s->grid, s->rot_mul);
    CU(cudaGetLastError());
    if (s->nl >= 0) {
      CU(cudaMemsetAsync(s->gs, 0, (size_t)c->n_nodes * sizeof(float), s->st));
      k_p2g_nonlocal<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
          s->P, s->geo, (int64_t)s->n, s->nl, s->gs);
      CU(cudaGetLastError());
    }
  }
  return mark(s, 2);
}

static bg_status cuda_grid_update(void *state, bg_real dt) {
  cuda_state *s = (cuda_state *)state;
  const bg_config *c = s->cfg;
  k_grid_update<<<grid_of(c->n_nodes, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
      s->grid, c->n_nodes, c->gravity[0] * dt, c->gravity[1] * dt, c->gravity[2] * dt,
      bg_damping_factor(c->damping, dt));
  CU(cudaGetLastError());
  double *wf = (double *)(s->d_tally + 1 + 2 * ((size_t)c->n_sinks + 1));
  CU(cudaMemsetAsync(wf, 0, 3 * (size_t)c->n_walls * sizeof(double), s->st));
  if (s->n_bn) {
    k_boundary<<<grid_of((int64_t)s->n_bn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->grid, s->bn, (int64_t)s->n_bn, s->walls, c->n_walls - BG_FACE_COUNT, dt > 0 ? 1.0 / (double)dt : 0.0,
        wf);
    CU(cudaGetLastError());
  }
  return mark(s, 3);
}

static bg_status cuda_g2p(void *state, bg_real dt) {
  cuda_state *s = (cuda_state *)state;
  /* only the maximum speed restarts each step; parking tallies accumulate */
  CU(cudaMemsetAsync(s->d_tally, 0, sizeof(unsigned long long), s->st));
  if (s->n) {
    dmat M;
    M.cfg = *s->cfg;
    M.mat = s->cfg->mat;
    M.sinks = s->sinks;
    M.n_sinks = s->cfg->n_sinks;
    const dim3 nb = grid_of((int64_t)s->n, BG_CUDA_G2P_THREADS);
    if (s->g2p_minb == 5)
      k_g2p<5><<<nb, BG_CUDA_G2P_THREADS, 0, s->st>>>(s->P, (int64_t)s->n, s->geo, M, dt, s->grid, s->gs, s->nl,
                                                      s->d_tally);
    else if (s->g2p_minb == 4)
      k_g2p<4><<<nb, BG_CUDA_G2P_THREADS, 0, s->st>>>(s->P, (int64_t)s->n, s->geo, M, dt, s->grid, s->gs, s->nl,
                                                      s->d_tally);
    else
      k_g2p_free<<<nb, BG_CUDA_G2P_THREADS, 0, s->st>>>(s->P, (int64_t)s->n, s->geo, M, dt, s->grid, s->gs, s->nl,
                                                        s->d_tally);
    CU(cudaGetLastError());
  }
  bg_status st = mark(s, 4);
  if (st != BG_OK) return st;
  CU(cudaMemcpyAsync(s->h_tally, s->d_tally, s->tally_words * 8, cudaMemcpyDeviceToHost, s->st));
  CU(cudaEventRecord(s->ev_tally, s->st));
  s->pending = 1;
  return BG_OK;
}

static bg_status cuda_get(void *state, bg_field f, bg_real *out) {
  cuda_state *s = (cuda_state *)state;
  if (!s->n) return BG_OK;
  size_t w = (size_t)bg_field_width(f), bytes = s->n * w * sizeof(float);
  float *d = NULL;
  CU(cudaMalloc((void **)&d, bytes));
  k_get<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
      s->P, (int64_t)s->n, (int)f, s->cfg->mat, d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, s->st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
  cudaFree(d);
  if (e != cudaSuccess) return cu_fail(s, e, "reading back particles", __FILE__, __LINE__);
  return BG_OK;
}

static bg_status cuda_stats(void *state, bg_backend_stats *out, double *sink_mass) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = flush(s);
  if (st != BG_OK) return st;
  out->n_active = s->n_active;
  out->n_parked_sink = s->n_sink;
  out->n_parked_out = s->n_out;
  out->parked_mass = s->parked_mass;
  out->total_mass = s->total_mass;
  out->max_speed = s->max_speed;
  if (sink_mass)
    for (int k = 0; k < s->cfg->n_sinks; ++k) sink_mass[k] = s->sink_mass[k];
  return BG_OK;
}

static bg_status cuda_grid(void *state, int which, bg_real *out) {
  cuda_state *s = (cuda_state *)state;
  int64_t nn = s->cfg->n_nodes;
  size_t bytes = (size_t)nn * (which ? 3 : 1) * sizeof(float);
  float *d = NULL;
  CU(cudaMalloc((void **)&d, bytes));
  k_grid_get<<<grid_of(nn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->grid, nn, which, d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, s->st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
  cudaFree(d);
  if (e != cudaSuccess) return cu_fail(s, e, "reading back the grid", __FILE__, __LINE__);
  return BG_OK;
}

static size_t cuda_count(void *state) { return ((cuda_state *)state)->n; }

static bg_status cuda_export(void *state, bg_raw *r) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = flush(s);
  if (st != BG_OK) return st;
  if (s->n) {
    for (int k = 0; k < NPF; ++k)
      CU(cudaMemcpyAsync(r->f[k], s->P.f[k], s->n * sizeof(float), cudaMemcpyDeviceToHost, s->st));
    CU(cudaMemcpyAsync(r->id, s->P.id, s->n * sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaMemcpyAsync(r->park, s->P.park, s->n * sizeof(int32_t), cudaMemcpyDeviceToHost, s->st));
  }
  /* the runs P2G launches over until the next sort; none while dirty */
  r->n_runs = -1;
  if (s->n && !s->dirty && s->n_runs > 0 && (size_t)s->n_runs <= r->run_cap) {
    CU(cudaMemcpyAsync(r->runstart, s->runstart, (size_t)s->n_runs * sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaMemcpyAsync(r->runkey, s->runkey, (size_t)s->n_runs * sizeof(uint32_t), cudaMemcpyDeviceToHost, s->st));
    r->n_runs = s->n_runs;
  }
  CU(cudaStreamSynchronize(s->st));
  r->n = s->n;
  r->parked_mass = s->parked_mass;
  r->total_mass = s->total_mass;
  r->max_speed = s->max_speed;
  for (int k = 0; k <= s->cfg->n_sinks; ++k) r->sink_mass[k] = s->sink_mass[k];
  return BG_OK;
}

static bg_status cuda_import(void *state, const bg_raw *r) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = flush(s);
  if (st != BG_OK) return st;
  if ((st = grow(s, r->n)) != BG_OK) return st;
  /* a checkpoint without runs (the CPU's, or one taken before a sort)
   * makes the next step sort */
  int keep_runs = r->n && r->n_runs > 0;
  if (keep_runs) {
    if ((st = ensure_sort_buffers(s)) != BG_OK) return st;
    if ((size_t)r->n_runs > s->run_cap) keep_runs = 0;
  }
  if (r->n) {
    for (int k = 0; k < NPF; ++k)
      CU(cudaMemcpyAsync(s->P.f[k], r->f[k], r->n * sizeof(float), cudaMemcpyHostToDevice, s->st));
    CU(cudaMemcpyAsync(s->P.id, r->id, r->n * sizeof(int64_t), cudaMemcpyHostToDevice, s->st));
    CU(cudaMemcpyAsync(s->P.park, r->park, r->n * sizeof(int32_t), cudaMemcpyHostToDevice, s->st));
    if (keep_runs) {
      CU(cudaMemcpyAsync(s->runstart, r->runstart, (size_t)r->n_runs * sizeof(int64_t), cudaMemcpyHostToDevice,
                         s->st));
      CU(cudaMemcpyAsync(s->runkey, r->runkey, (size_t)r->n_runs * sizeof(uint32_t), cudaMemcpyHostToDevice, s->st));
    }
  }
  /* the device tallies accumulate parked counts and masses across steps */
  int ns = s->cfg->n_sinks;
  memset(s->h_tally, 0, s->tally_words * 8);
  for (size_t p = 0; p < r->n; ++p)
    if (r->park[p] >= 0) s->h_tally[1 + r->park[p]]++;
  memcpy(s->h_tally + 1 + (ns + 1), r->sink_mass, (size_t)(ns + 1) * sizeof(double));
  CU(cudaMemcpyAsync(s->d_tally, s->h_tally, s->tally_words * 8, cudaMemcpyHostToDevice, s->st));
  CU(cudaStreamSynchronize(s->st));
  s->n = r->n;
  s->n_runs = keep_runs ? r->n_runs : 0;
  s->dirty = keep_runs ? 0 : 1;
  s->parked_mass = r->parked_mass;
  s->total_mass = r->total_mass;
  s->max_speed = r->max_speed;
  size_t parked = 0, out = 0;
  for (size_t p = 0; p < r->n; ++p)
    if (r->park[p] >= 0) {
      parked++;
      if (r->park[p] == ns) out++;
    }
  for (int k = 0; k <= ns; ++k) s->sink_mass[k] = r->sink_mass[k];
  s->n_active = r->n - parked;
  s->n_sink = parked - out;
  s->n_out = out;
  return BG_OK;
}

static bg_status cuda_wall_forces(void *state, double *out) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = flush(s);
  if (st != BG_OK) return st;
  memcpy(out, s->wf, 3 * (size_t)s->cfg->n_walls * sizeof *out);
  return BG_OK;
}

static bg_status cuda_stage_times(void *state, double ms[BG_STAGE_COUNT]) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = flush(s);
  if (st != BG_OK) return st;
  for (int k = 0; k < BG_STAGE_COUNT; ++k) ms[k] = s->stage_ms[k];
  return BG_OK;
}

extern "C" const bg_backend_ops bg_backend_cuda = {
    "cuda",   cuda_available, cuda_create, cuda_destroy, cuda_add,  cuda_set_boundary, cuda_sort, cuda_p2g,
    cuda_grid_update, cuda_g2p, cuda_get,  cuda_stats,   cuda_grid, cuda_count,        cuda_stage_times,
    cuda_export,      cuda_import, cuda_wall_forces,
};
