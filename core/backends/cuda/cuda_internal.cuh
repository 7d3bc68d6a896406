/* cuda_internal.cuh: what the CUDA backend's stage files share: the
 * constants, the device-side particle arrays (dparts), the grid geometry
 * (dgeom) and material (dmat) passed by value to kernels, the backend state,
 * the CUDA error helpers, the device helpers more than one stage uses, and
 * the host entry points of each stage (its file in the comment).
 *
 * Layout. Particle state lives on the device in structure-of-arrays (one
 * float array per component), indices are 64-bit everywhere. The grid is a
 * dense array of float4 per node (mass, momentum; velocity after the update):
 * one 16-byte load per stencil node in G2P and one vector atomic per node on
 * sm_90. Every device helper here is static and inline, so each stage file
 * is a whole CUDA translation unit (no relocatable device code).
 *
 * 2D (plane strain, bg_config.dim 2): the kernels of P2G and G2P take the
 * dimension as a template parameter, so the 3D ones keep their fixed
 * 27-node loops; in 2D the y stencil is the plane's node alone (b = 1,
 * bg_bspline_plane), blocks are 4 x 1 x 4 nodes and the P2G tile's y
 * layer 0 is the only one written. */
#ifndef BG_CUDA_INTERNAL_CUH
#define BG_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_bspline.h"
#include "bg_internal.h"
#include "bg_materials.h"
#include "bg_transfer.h"

/* ------------------------------------------------------------- constants */

/* Threads per P2G block: the seed found one warp per grid block best (a
 * 4^3 block at 8 ppc holds ~512 particles, 16 per lane). */
#define BG_CUDA_P2G_THREADS 32
/* Lane L starts at column (L * this) mod 9 of its particle's stencil in the
 * column order (cuda_p2g.cu): coprime with 9, so lanes 0-8 start on nine
 * different columns, and not 1, which puts neighbouring lanes one column
 * apart where their stencils overlap most. */
#define BG_CUDA_P2G_ROT_MUL 7
/* G2P threads per block. Its registers (27-node gather, SVD, return map)
 * decide how many blocks reside per SM: the property g2p_minblocks asks
 * for at least 4 (128 registers) or 8 (64, with a few spills), 0 for the
 * compiler's choice, or auto (0, or 4 for the nonlocal model; cuda_g2p.cu). */
#define BG_CUDA_G2P_THREADS 128
/* Element-wise kernels (keys, gathers, node update, read-back). */
#define BG_CUDA_EW_THREADS 256
/* Particles uploaded per staging chunk in add(): bounds the device scratch
 * to 7 floats x this many particles however many are added at once. */
#define BG_CUDA_UPLOAD_CHUNK ((size_t)1 << 22)

/* The resources of this backend (bg_backend_ops.variant): the fixed-point
 * shared tile ("cuda") and global float atomics ("cuda/global"). */
enum { BG_CUDA_TILE = 0, BG_CUDA_GLOBAL = 1 };

/* cuda_state.pre: gnext and gforce are zero (NONE), hold the scatter of
 * every particle as it stands (VALID: the next P2G has nothing to do), or
 * hold a scatter that particles added or set since have made stale. */
enum { BG_PRE_NONE = 0, BG_PRE_VALID = 1, BG_PRE_STALE = 2 };

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
  float *f[NPF]; /* NULL for the arrays layout=compact does not keep (below) */
  int64_t *id;   /* insertion index of the particle in each slot */
  int32_t *park; /* -1 active, k < n_sinks in sink k, n_sinks left the grid */
  uint8_t *mat;  /* entry of the material table; read and sorted only when the table has several */
  /* layout=compact (cuda_backend.cu): no tau (f[PT..PT+5] NULL), which P2G
   * derives from F and the state through mat1 (compact_tau); one mass m1
   * and volume v1 for every particle (f[PM], f[PVOL] NULL); and only the
   * state slots mat1's model names (the others NULL, read as 0) */
  float m1, v1;
  bg_mat mat1;
} dparts;

/* The mass and volume of particle p, whichever layout holds them. */
static __device__ __forceinline__ float p_mass(const dparts &P, int64_t p) { return P.f[PM] ? P.f[PM][p] : P.m1; }
static __device__ __forceinline__ float p_vol(const dparts &P, int64_t p) { return P.f[PVOL] ? P.f[PVOL][p] : P.v1; }
static __device__ __forceinline__ float p_state(const dparts &P, int k, int64_t p) {
  return P.f[PS + k] ? P.f[PS + k][p] : 0.0f;
}

/* layout=compact: particle p's Kirchhoff stress from its F and state, as
 * G2P would have stored it (the model's stress of F, plane-strain cleared
 * in 2D, symmetrised); bg_material_stress_of_f, checked against the cached
 * stress by test_stress_of_f. */
static __device__ __forceinline__ bg_mat3 compact_tau(const dparts &P, int64_t p, int dim) {
  bg_mat3 F, tau;
  for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
  float st[BG_NSTATE];
  for (int k = 0; k < BG_NSTATE; ++k) st[k] = p_state(P, k, p);
  (void)bg_material_stress_of_f(&P.mat1, &F, st, &tau);
  if (dim == 2) bg_plane_strain_clear(&tau);
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) tau.m[i][j] = tau.m[j][i] = 0.5f * (tau.m[i][j] + tau.m[j][i]);
  return tau;
}

/* Grid geometry and the sort's block decomposition, by value to kernels. */
typedef struct dgeom {
  int64_t dims[3];
  int64_t nb[3];
  int64_t n_blocks;
  float origin[3];
  float dx, inv_dx;
  int lb;  /* log2 of the block edge */
  int dim; /* 3, or 2: plane strain, one node layer in y (block index 0) */
  /* grid=sparse (cuda_sparse.cu): each block's slot in the node pool, -1
   * where the block is not allocated this step; NULL for the dense grid */
  const int32_t *bslot;
  /* the thin plates of this step (bg_cut.h, device copy), n_cuts 0 when
   * none: the particles beside one take the cut transfers' own kernels
   * (k_p2g_cut, k_g2p_cut), the others the usual ones */
  const bg_cut *cuts;
  int n_cuts;
  /* G2P only, with plates: 1 for the particles beside one (cut_near) as
   * they stood before G2P moved any (k_cut_mark), so that the usual kernel
   * and k_g2p_cut split them once; NULL otherwise */
  const uint8_t *cut_flag;
} dgeom;

/* What G2P needs besides particles and grid: the material (entry 0, by
 * value, and the device copy of the whole table), and the configuration
 * by value for bg_park_code (its pointers are host pointers and are never
 * followed on the device; sinks is the device copy). */
typedef struct dmat {
  bg_mat mat;
  const bg_mat *mats;
  bg_config cfg;
  const bg_sink *sinks;
  int n_sinks;
} dmat;

typedef struct cuda_state {
  const bg_config *cfg;
  char *err; /* the simulation's message buffer, which outlives this state */
  size_t err_len;
  cudaStream_t st;
  int device; /* the ordinal current at creation: every allocation is on it */
  dgeom geo;
  int variant;  /* BG_CUDA_TILE or BG_CUDA_GLOBAL */
  int g2p_minb; /* the property g2p_minblocks: 0, 4 or 8, or -1 for auto (cuda_g2p.cu) */
  int det;      /* the property deterministic: the grid summed in 64-bit fixed point (cuda_p2g.cu) */
  int p2g_words; /* the property p2g_words: int32 words per value in the P2G tile, 2 (hi, lo) or 1 (cuda_p2g.cu) */
  int p2g_bound; /* the property p2g_bound: 1 running, the one-word tile's scales raised as the run is read; 0 pass (cuda_p2g.cu) */
  int fused;     /* the property g2p2g: 1 fused, G2P scatters the next step's grid at once (cuda_g2p2g.cu) */
  int compact;   /* the property layout: 1 compact, the arrays dparts names NULL not held (cuda_backend.cu) */
  int have_v1;   /* compact: P.v1 and P.m1 are set (by the first particles added) */
  int pre;       /* BG_PRE_*: what gnext and gforce hold */
  size_t n, cap;
  dparts P;
  /* sort: keys and permutation double buffers (also the gather's spares);
   * 32-bit permutations, as the particle count is below 2^32 (cuda_grow) */
  uint32_t *keys[2];
  uint32_t *vals[2];
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
  /* grid and boundaries: the dense array of every node, or with
   * grid=sparse the pool of the blocks allocated this step, 64 nodes per
   * block (block-major, k fastest), pool_cap blocks held, n_act in use */
  float4 *grid;
  /* g2p2g=fused: the next step's mass and momentum (gnext) and force
   * (gforce, w unused), scattered by the fused kernel and folded into grid
   * by the next grid update (BG_PRE_VALID), zero otherwise */
  float4 *gnext, *gforce;
  int sparse;
  int32_t *bflag, *bslot; /* per block: touched this step, its slot (cuda_sparse.cu) */
  void *sp_tmp;           /* CUB's scratch of the slots' scan */
  size_t sp_tmp_bytes;
  int64_t *d_nact;
  int64_t n_act, pool_cap;
  /* deterministic only: the node sums as integers at a global scale per
   * component (4 planes of n_nodes), then the scales' bound (4 float bits)
   * and the scales (4 doubles) in one allocation */
  unsigned long long *gfix;
  void *gbound;
  /* the nonlocal service (bg_material_core.h): the model's slot, or -1,
   * and the mass-weighted nodal sums of that slot */
  int nl;
  float *gs;
  float *gm; /* the nonlocal particles' nodal mass, when the table mixes them with others */
  /* the material table on the device (NULL for one material: the kernels
   * then take entry 0 by value and never load a particle's index) */
  bg_mat *mats;
  bg_bnode *bn;
  size_t n_bn, bn_cap;
  /* the rigid bodies' solid nodes (set_body_nodes), ascending in node: they
   * act instead of bn's entries of the same nodes. Sent every step from a
   * pinned copy, so the upload does not wait for the step in flight; ev_bb
   * marks when the copy has left it */
  bg_bnode *bb, *h_bb;
  size_t n_bb, bb_cap, h_bb_cap;
  cudaEvent_t ev_bb;
  bg_wallc *walls;
  bg_sink *sinks;
  bg_cut *d_cuts; /* the plates' cuts, BG_CUT_MAX, sent before each P2G */
  uint8_t *cut_flag; /* G2P's split of the particles beside a plate (dgeom.cut_flag), cut_flag_cap of them */
  size_t cut_flag_cap;
  /* tallies: [0] max |v|^2 of the last G2P as double bits, [1 .. ns+1]
   * parked counts per code, then ns+1 parked masses (double), then the
   * wall tallies of the last grid update (BG_WALL_TALLY doubles per wall),
   * then, with plates, the cut transfers' of the last P2G and G2P */
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

static inline bg_status cu_fail(cuda_state *s, cudaError_t e, const char *what, const char *file, int line) {
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

static inline bg_status fail(cuda_state *s, bg_status st, const char *msg) {
  if (s && s->err && s->err_len) snprintf(s->err, s->err_len, "cuda backend: %s", msg);
  return st;
}

static inline unsigned grid_of(int64_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

/* Records stage boundary k (0 before the sort .. 4 after G2P) on the stream. */
static inline bg_status mark(cuda_state *s, int k) {
  CU(cudaEventRecord(s->ev[k], s->st));
  s->ev_mask |= 1u << k;
  return BG_OK;
}

/* ------------------------------------------------------------- device code */

static __device__ __forceinline__ int64_t node_index(const dgeom &G, int i, int j, int k) {
  return ((int64_t)i * G.dims[1] + j) * G.dims[2] + k;
}

/* Nodes per block of the sparse pool (BG_BLOCK_LOG2 = 2: 4^3). */
#define BG_CUDA_BLOCK_NODES (1 << (3 * BG_BLOCK_LOG2))

/* Where node (i, j, k) lives in the grid array: its dense index, or
 * (grid=sparse) its block's slot times the block's nodes plus its place in
 * the block. Every node a P2G or G2P stencil reaches is in an allocated
 * block (cuda_sparse.cu marks them from the particles first). */
template <bool SP>
static __device__ __forceinline__ int64_t grid_addr(const dgeom &G, int i, int j, int k) {
  if (!SP) return node_index(G, i, j, k);
  constexpr int L = BG_BLOCK_LOG2, M = (1 << BG_BLOCK_LOG2) - 1;
  const int64_t b = ((int64_t)(i >> L) * G.nb[1] + (j >> L)) * G.nb[2] + (k >> L);
  return (int64_t)G.bslot[b] * BG_CUDA_BLOCK_NODES + ((((i & M) << L) | (j & M)) << L | (k & M));
}

/* grid=sparse, one particle's stencil: it spans at most two blocks per
 * axis, whose 8 slots are loaded once (the same slot again along an axis
 * it does not cross), so that a node costs selects and adds rather than a
 * lookup in the table. n0: the stencil's first node per axis; cross[d]: 0
 * where the axis has one node (2D's y). */
typedef struct sparse_stencil {
  int32_t sl[8]; /* (ox, oy, oz) at 4 ox + 2 oy + oz */
  int l0[3];     /* the first node's place in its block, per axis */
} sparse_stencil;

static __device__ __forceinline__ void sparse_stencil_load(const dgeom &G, const int n0[3], const int span[3],
                                                           sparse_stencil &ss) {
  constexpr int L = BG_BLOCK_LOG2, M = (1 << BG_BLOCK_LOG2) - 1;
  int cr[3];
  for (int d = 0; d < 3; ++d) {
    ss.l0[d] = n0[d] & M;
    cr[d] = (ss.l0[d] + span[d] - 1) >> L;
  }
  const int64_t sy = G.nb[2], sx = G.nb[1] * G.nb[2];
  const int64_t blk = (int64_t)(n0[0] >> L) * sx + (int64_t)(n0[1] >> L) * sy + (n0[2] >> L);
#pragma unroll
  for (int o = 0; o < 8; ++o)
    ss.sl[o] = G.bslot[blk + ((o >> 2) & cr[0]) * sx + ((o >> 1) & 1 & cr[1]) * sy + (o & 1 & cr[2])];
}

/* The pool address of the stencil's node (a, b, k) from its first node. */
static __device__ __forceinline__ int64_t sparse_node(const sparse_stencil &ss, int a, int b, int k) {
  constexpr int L = BG_BLOCK_LOG2, M = (1 << BG_BLOCK_LOG2) - 1;
  const int x = ss.l0[0] + a, y = ss.l0[1] + b, z = ss.l0[2] + k;
  const int o = ((x >> L) << 2) | ((y >> L) << 1) | (z >> L);
  const int32_t slot = o & 4 ? (o & 2 ? (o & 1 ? ss.sl[7] : ss.sl[6]) : (o & 1 ? ss.sl[5] : ss.sl[4]))
                             : (o & 2 ? (o & 1 ? ss.sl[3] : ss.sl[2]) : (o & 1 ? ss.sl[1] : ss.sl[0]));
  return (int64_t)slot * BG_CUDA_BLOCK_NODES + ((((x & M) << L) | (y & M)) << L | (z & M));
}

/* The same at run time, for the element-wise kernels (read-back, boundary):
 * -1 where the node's block is not allocated (no mass this step). */
static __device__ __forceinline__ int64_t grid_addr_rt(const dgeom &G, int64_t node) {
  if (!G.bslot) return node;
  const int64_t k = node % G.dims[2], j = (node / G.dims[2]) % G.dims[1], i = node / (G.dims[2] * G.dims[1]);
  constexpr int L = BG_BLOCK_LOG2;
  const int64_t b = ((i >> L) * G.nb[1] + (j >> L)) * G.nb[2] + (k >> L);
  if (G.bslot[b] < 0) return -1;
  return grid_addr<true>(G, (int)i, (int)j, (int)k);
}

/* Whether a plate may cut the stencil of particle p (bg_cut_near): such a
 * particle takes the cut kernels, not the usual ones. */
static __device__ __forceinline__ bool cut_near(const dgeom &G, const dparts &P, int64_t p) {
  if (G.n_cuts == 0) return false;
  const float x[3] = {P.f[PX][p], P.f[PX + 1][p], P.f[PX + 2][p]};
  return bg_cut_any_near(G.cuts, G.n_cuts, x, G.dx) != 0;
}

/* The grid as the plates' transfers (bg_cut.h) see it. */
static __device__ __forceinline__ bg_cut_grid cut_grid(const dgeom &G) {
  bg_cut_grid cg;
  for (int d = 0; d < 3; ++d) {
    cg.dims[d] = G.dims[d];
    cg.origin[d] = G.origin[d];
  }
  cg.dx = G.dx;
  cg.dim = G.dim;
  return cg;
}

/* A particle beside a plate: its position, stencil, the grid as bg_cut.h
 * sees it, and which of its nodes the plates cut (bg_cut_stencil_eval). */
template <int DIM>
static __device__ __forceinline__ void cut_stencil_at(const dparts &P, int64_t p, const dgeom &G, float xp[3],
                                                      bg_bspline &w, bg_cut_grid &cg, bg_cut_stencil &cs) {
  float xg[3];
  for (int d = 0; d < 3; ++d) {
    xp[d] = P.f[PX + d][p];
    xg[d] = (xp[d] - G.origin[d]) * G.inv_dx;
  }
  w = bg_bspline_eval_dim(xg, DIM);
  cg = cut_grid(G);
  bg_cut_stencil_eval(G.cuts, G.n_cuts, &cg, &w, xp, &cs);
}

/* The cut transfers' wall tally: after the walls' in d_tally. */
static inline double *cut_tally(cuda_state *s) {
  return (double *)(s->d_tally + 1 + 2 * ((size_t)s->cfg->n_sinks + 1)) + BG_WALL_TALLY * (size_t)s->cfg->n_walls;
}

/* One vector atomic per node on sm_90, four scalar ones before it. */
static __device__ __forceinline__ void atomic_add4(float4 *g, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(g, make_float4(a, b, c, d));
#else
  atomicAdd(&g->x, a);
  atomicAdd(&g->y, b);
  atomicAdd(&g->z, c);
  atomicAdd(&g->w, d);
#endif
}

static __device__ __forceinline__ float sel3(const float *v, int i) { return i == 0 ? v[0] : i == 1 ? v[1] : v[2]; }

/* The exponent e with S 1.001 < 2^e (0 for S = 0): the float sums of the
 * bounds round below the true ones by far less than the factor 2 that the
 * power of two leaves, and 1.001 covers them. ok: S is finite. */
static __device__ __forceinline__ int bound_exp(float S, bool &ok) {
  S *= 1.001f;
  int e = 0;
  ok = isfinite(S);
  if (ok && S > 0.0f) (void)frexpf(S, &e);
  return e;
}

/* Run r of the last sort: its particles [beg, end), its grid block b and
 * the block's first node o; false for the parked bucket. */
typedef struct run_block {
  uint32_t key;
  int64_t beg, end, b[3];
  int o[3];
} run_block;

template <int LB>
static __device__ __forceinline__ bool run_of(const dgeom &G, const int64_t *runstart, const uint32_t *runkey,
                                              int64_t n_runs, int64_t n, int64_t r, run_block &rb) {
  rb.key = runkey[r];
  if (rb.key >= (uint32_t)G.n_blocks) return false;
  rb.beg = runstart[r];
  rb.end = r + 1 < n_runs ? runstart[r + 1] : n;
  rb.b[2] = rb.key % G.nb[2];
  rb.b[1] = (rb.key / G.nb[2]) % G.nb[1];
  rb.b[0] = rb.key / (G.nb[2] * G.nb[1]);
  for (int d = 0; d < 3; ++d) rb.o[d] = (int)(rb.b[d] << LB);
  return true;
}

/* ------------------------------------------------ host entry points by file */

/* cuda_backend.cu: lifecycle */
bg_status cuda_grow(cuda_state *s, size_t need);
/* layout=compact: the device bytes of one particle slot, and the check
 * that particles added keep the one volume (cuda_backend.cu) */
size_t cuda_bytes_per_slot(const cuda_state *s);
bg_status cuda_compact_volume(cuda_state *s, size_t n, const bg_real *vol, bg_real vol_c);
void cuda_compact_commit(cuda_state *s, size_t n, const bg_real *vol, bg_real vol_c);
/* queues the initial state of particles off .. off+cnt-1 (device x, v or
 * NULL, volume vol_c each) on the stream */
bg_status cuda_launch_init(cuda_state *s, int64_t off, int64_t cnt, const float *x, const float *v, float vol_c,
                           int mat);
/* cuda_sort.cu */
bg_status cuda_ensure_sort_buffers(cuda_state *s);
bg_status cuda_sort(void *state, uint64_t step);
/* cuda_sparse.cu: grid=sparse's blocks of this step (marked from the
 * particles, given slots, the pool grown and cleared); s->n_act is set */
bg_status cuda_sparse_alloc(cuda_state *s);
bg_status cuda_sparse_activate(cuda_state *s);
/* cuda_p2g.cu */
bg_status cuda_p2g(void *state, bg_real dt);
/* cuda_grid.cu; cuda_grid_kernel is a kernel of this build, for the
 * availability check's image probe */
bg_status cuda_grid_update(void *state, bg_real dt);
bg_status cuda_set_body_nodes(void *state, const bg_bnode *nodes, size_t n);
const void *cuda_grid_kernel(void);
/* cuda_g2p.cu */
bg_status cuda_g2p(void *state, bg_real dt);
/* cuda_g2p2g.cu: the fused G2P and next scatter over this step's runs
 * (g2p2g=fused, no plates); sets pre to BG_PRE_VALID */
bg_status cuda_g2p2g_launch(cuda_state *s, const dmat *M, float dt);
/* particles changed outside a step: a pre-scattered grid no longer holds them */
static inline void cuda_pre_invalidate(cuda_state *s) {
  if (s->pre == BG_PRE_VALID) s->pre = BG_PRE_STALE;
}
/* cuda_readback.cu; cuda_flush folds the last step's device tallies in */
bg_status cuda_flush(cuda_state *s);
bg_status cuda_get(void *state, bg_field f, bg_real *out);
bg_status cuda_stats(void *state, bg_backend_stats *out, double *sink_mass);
bg_status cuda_grid(void *state, int which, bg_real *out);
size_t cuda_count(void *state);
bg_status cuda_stage_times(void *state, double ms[BG_STAGE_COUNT]);
bg_status cuda_export(void *state, bg_raw *r);
bg_status cuda_import(void *state, const bg_raw *r);
bg_status cuda_wall_forces(void *state, double *out);
/* queues field f of every particle into device memory out, insertion order */
bg_status cuda_launch_get(cuda_state *s, bg_field f, float *out);
/* cuda_device_io.cu: the device-memory exchange (bagnold.h) */
int cuda_device_ordinal(void *state);
bg_status cuda_get_device(void *state, bg_field f, bg_real *dev_out, uintptr_t stream);
bg_status cuda_set_device(void *state, bg_field f, const bg_real *dev_in, uintptr_t stream);
bg_status cuda_add_device(void *state, size_t n, const bg_real *x, const bg_real *v, bg_real vol, int mat,
                          uintptr_t stream);
bg_status cuda_device_alloc(void *state, size_t bytes, void **dev);
void cuda_device_free(void *state, void *dev);
void cuda_memory(void *state, bg_memory *out);

#endif /* BG_CUDA_INTERNAL_CUH */
