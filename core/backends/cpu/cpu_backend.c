/* cpu_backend.c: the optimised CPU backend (C11 + OpenMP), held to the
 * plain serial cpu/ref (core/backends/ref) by test_parity.
 *
 * Particles live in structure-of-arrays, physically re-sorted by 4^3 grid
 * block every sort_interval steps (the GPU's layout) and binned by block
 * every step. P2G scatters straight into the global grid without atomics or
 * locks: a particle in block b writes nodes of blocks b..b+1 per axis, so
 * blocks whose coordinates share parity (one of 8 colours) never write the
 * same node and run in parallel, colour after colour. Each node therefore
 * receives its contributions in an order fixed by the particle order alone,
 * which makes P2G bitwise independent of the thread count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bg_bspline.h"
#include "bg_constitutive_batch.h"
#include "bg_internal.h"
#include "bg_transfer.h"

/* Helpers and per-particle kernels are inlined into their cloned callers
 * (p2g_block, g2p_chunk), so that they are compiled for the clone's ISA
 * rather than called at the baseline's. */
#if defined(__GNUC__)
#define CPU_INLINE static inline __attribute__((always_inline))
#else
#define CPU_INLINE static inline
#endif

/* A grid node's four floats (mass, then momentum or velocity) in one SSE
 * register. gcc left the node loops of the transfers half scalar, with the
 * accumulators spilled to the stack; written on this type, every node
 * update is a handful of packed operations. Element-wise IEEE arithmetic:
 * the results do not depend on the vector width the compiler picks. */
typedef bg_real node4 __attribute__((vector_size(4 * sizeof(bg_real))));

CPU_INLINE node4 node_load(const bg_real *g) {
  node4 v;
  memcpy(&v, g, sizeof v);
  return v;
}

CPU_INLINE void node_store(bg_real *g, node4 v) { memcpy(g, &v, sizeof v); }

/* The stencil's per-axis factors along z: the weight w_k and w_k (k - fx) dx. */
static inline void stencil_z(const bg_bspline *w, bg_real dx, bg_real wz[3], bg_real wzd[3]) {
  for (int k = 0; k < 3; ++k) {
    wz[k] = w->w[2][k];
    wzd[k] = w->w[2][k] * (((bg_real)k - w->fx[2]) * dx);
  }
}

typedef struct cpu_state {
  const bg_config *cfg;
  size_t n, cap;
  /* particle state, SoA */
  bg_real *x[3], *v[3], *F[9], *C[9], *tau[6];
  bg_real *st[BG_NSTATE]; /* the plastic state (bg_material_core.h) */
  bg_real *mass, *vol0, *mode;
  bg_real *slab; /* one allocation behind every float array above (see grow) */
  int64_t *id;   /* insertion index of the particle in each slot */
  int32_t *park; /* -1 active, k < n_sinks parked in sink k, n_sinks left the grid */
  /* binning */
  int64_t nb[3], n_blocks;
  int64_t *bstart; /* n_blocks + 1 prefix offsets into order */
  int64_t *order;  /* active particles grouped by block */
  int64_t *blist;  /* occupied blocks, grouped by colour */
  int64_t *bin_key;  /* per particle: its block this step, -1 parked (cap entries) */
  int keys_fresh;    /* bin_key holds the blocks of the positions G2P wrote (nothing moved since) */
  int64_t *bin_hist; /* per binning thread: a count, then a cursor, per block */
  int bin_threads;   /* how many histograms bin_hist holds */
  int64_t cstart[9];
  /* scratch grid, 4 floats per node: mass then momentum, velocity after the update */
  bg_real (*grid)[4];
  bg_bnode *bn;
  size_t n_bn;
  /* the nonlocal service (bg_material_core.h): the state slot the model
   * needs the Laplacian of, or -1, and its mass-weighted nodal sums */
  int nl;
  bg_real *gs;
  /* tallies */
  size_t n_active, n_sink, n_out;
  double parked_mass, total_mass, max_speed;
  double *sink_mass;
  /* wall forces of the last grid update: per thread, 3 per wall, summed in
   * thread order so the total does not depend on scheduling */
  double *wf_thread, *wf;
  int wf_threads;
} cpu_state;

static int nthreads(const cpu_state *s) {
#ifdef _OPENMP
  return s->cfg->threads > 0 ? s->cfg->threads : omp_get_max_threads();
#else
  (void)s;
  return 1;
#endif
}

static int cpu_available(char *why, size_t len) {
  (void)why;
  (void)len;
  return 1;
}

/* All per-particle float arrays, in the raw layout (bg_internal.h), for
 * growth, permutation and checkpoints in one loop. */
#define N_FLOAT_ARRAYS BG_RAW_NF
static bg_real **float_arrays(cpu_state *s, bg_real **a) {
  int k = 0;
  for (int d = 0; d < 3; ++d) a[k++] = s->x[d];
  for (int d = 0; d < 3; ++d) a[k++] = s->v[d];
  for (int d = 0; d < 9; ++d) a[k++] = s->F[d];
  for (int d = 0; d < 9; ++d) a[k++] = s->C[d];
  for (int d = 0; d < 6; ++d) a[k++] = s->tau[d];
  for (int d = 0; d < BG_NSTATE; ++d) a[k++] = s->st[d];
  a[k++] = s->mass;
  a[k++] = s->vol0;
  a[k++] = s->mode;
  return a;
}

static void set_float_arrays(cpu_state *s, bg_real **a) {
  int k = 0;
  for (int d = 0; d < 3; ++d) s->x[d] = a[k++];
  for (int d = 0; d < 3; ++d) s->v[d] = a[k++];
  for (int d = 0; d < 9; ++d) s->F[d] = a[k++];
  for (int d = 0; d < 9; ++d) s->C[d] = a[k++];
  for (int d = 0; d < 6; ++d) s->tau[d] = a[k++];
  for (int d = 0; d < BG_NSTATE; ++d) s->st[d] = a[k++];
  s->mass = a[k++];
  s->vol0 = a[k++];
  s->mode = a[k++];
}

static void cpu_destroy(void *state) {
  cpu_state *s = state;
  if (!s) return;
  free(s->slab);
  free(s->id);
  free(s->park);
  free(s->bstart);
  free(s->order);
  free(s->bin_key);
  free(s->bin_hist);
  free(s->blist);
  free(s->grid);
  free(s->gs);
  free(s->bn);
  free(s->sink_mass);
  free(s->wf_thread);
  free(s->wf);
  free(s);
}

static bg_status cpu_create(const bg_config *cfg, void **out, char *err, size_t len) {
  cpu_state *s = calloc(1, sizeof *s);
  if (!s) return BG_ERR_NOMEM;
  s->cfg = cfg;
  s->n_blocks = 1;
  for (int a = 0; a < 3; ++a) {
    s->nb[a] = (cfg->dims[a] + BG_BLOCK - 1) / BG_BLOCK;
    s->n_blocks *= s->nb[a];
  }
  s->grid = malloc((size_t)cfg->n_nodes * sizeof *s->grid);
  s->bstart = malloc(((size_t)s->n_blocks + 1) * sizeof *s->bstart);
  s->blist = malloc((size_t)s->n_blocks * sizeof *s->blist);
  /* one thread's histogram; bin_particles grows it for more */
  s->bin_hist = malloc(((size_t)s->n_blocks + 1) * sizeof *s->bin_hist);
  s->bin_threads = 1;
  s->sink_mass = calloc((size_t)cfg->n_sinks + 1, sizeof *s->sink_mass);
  s->nl = bg_material_nonlocal_slot(cfg->mat.model);
  if (s->nl >= 0) s->gs = calloc((size_t)cfg->n_nodes, sizeof *s->gs);
  s->wf_threads = nthreads(s);
  s->wf_thread = calloc((size_t)s->wf_threads * 3 * (size_t)cfg->n_walls, sizeof *s->wf_thread);
  s->wf = calloc(3 * (size_t)cfg->n_walls, sizeof *s->wf);
  if (!s->grid || !s->bstart || !s->blist || !s->bin_hist || !s->sink_mass || (s->nl >= 0 && !s->gs) || !s->wf_thread ||
      !s->wf) {
    cpu_destroy(s);
    if (err && len) snprintf(err, len, "cpu backend: out of memory for a %lld-node grid",
                             (long long)cfg->n_nodes);
    return BG_ERR_NOMEM;
  }
  memset(s->grid, 0, (size_t)cfg->n_nodes * sizeof *s->grid);
  *out = s;
  return BG_OK;
}

/* The float arrays share one slab at a stride of cap + SLAB_STAGGER
 * floats: cap is a multiple of one page, so array k starts k cache lines
 * further into its page than array 0. Separately
 * allocated, every array of a power-of-two capacity starts at the same
 * offset within a page, so the 30-odd streams the gather and scatter walk
 * in lockstep all map to one L1 set (8 ways) and evict each other on every
 * particle; staggered, stream k sits k sets further on. 41 arrays x 64 B
 * stay inside the 4 KiB that L1's set index spans. */
#define SLAB_STAGGER 16
_Static_assert(N_FLOAT_ARRAYS * SLAB_STAGGER * sizeof(bg_real) <= 4096, "stagger must fit in one L1 way");

static bg_status grow(cpu_state *s, size_t need) {
  if (need <= s->cap) return BG_OK;
  size_t cap = s->cap ? s->cap : 1024;
  while (cap < need) cap *= 2;
  size_t stride = cap + SLAB_STAGGER;
  bg_real *slab = aligned_alloc(64, N_FLOAT_ARRAYS * stride * sizeof *slab);
  if (!slab) return BG_ERR_NOMEM;
  bg_real *a[N_FLOAT_ARRAYS];
  float_arrays(s, a);
  for (int k = 0; k < N_FLOAT_ARRAYS; ++k) {
    bg_real *g = slab + (size_t)k * stride; /* cap is a multiple of 1024 floats */
    if (s->n) memcpy(g, a[k], s->n * sizeof *g);
    a[k] = g;
  }
  free(s->slab);
  s->slab = slab;
  set_float_arrays(s, a);
  int64_t *id = realloc(s->id, cap * sizeof *id);
  if (id) s->id = id;
  int32_t *pk = realloc(s->park, cap * sizeof *pk);
  if (pk) s->park = pk;
  int64_t *ord = realloc(s->order, cap * sizeof *ord);
  if (ord) s->order = ord;
  int64_t *bk = realloc(s->bin_key, cap * sizeof *bk);
  if (bk) s->bin_key = bk;
  if (!id || !pk || !ord || !bk) return BG_ERR_NOMEM;
  s->cap = cap;
  return BG_OK;
}

static bg_status cpu_add(void *state, size_t n, const bg_real *x, const bg_real *v, const bg_real *vol) {
  cpu_state *s = state;
  s->keys_fresh = 0;
  if (grow(s, s->n + n) != BG_OK) return BG_ERR_NOMEM;
  bg_real rho0 = s->cfg->mat.el.rho0;
  for (size_t k = 0; k < n; ++k) {
    size_t p = s->n + k;
    for (int d = 0; d < 3; ++d) {
      s->x[d][p] = x[3 * k + d];
      s->v[d][p] = v ? v[3 * k + d] : 0.0f;
    }
    for (int d = 0; d < 9; ++d) {
      s->F[d][p] = (d % 4 == 0) ? 1.0f : 0.0f;
      s->C[d][p] = 0.0f;
    }
    for (int d = 0; d < 6; ++d) s->tau[d][p] = 0.0f;
    for (int d = 0; d < BG_NSTATE; ++d) s->st[d][p] = 0.0f;
    s->mode[p] = (bg_real)BG_RM_ELASTIC;
    s->vol0[p] = vol[k];
    s->mass[p] = rho0 * vol[k];
    s->id[p] = (int64_t)p;
    s->park[p] = -1;
    s->total_mass += (double)s->mass[p];
    /* the next dt must see these speeds, not only those of the last G2P */
    if (v) {
      double sp = sqrt((double)v[3 * k] * v[3 * k] + (double)v[3 * k + 1] * v[3 * k + 1] +
                       (double)v[3 * k + 2] * v[3 * k + 2]);
      if (sp > s->max_speed) s->max_speed = sp;
    }
  }
  s->n += n;
  s->n_active += n;
  return BG_OK;
}

static bg_status cpu_set_boundary(void *state, const bg_bnode *nodes, size_t n) {
  cpu_state *s = state;
  bg_bnode *copy = malloc((n ? n : 1) * sizeof *copy);
  if (!copy) return BG_ERR_NOMEM;
  if (n) memcpy(copy, nodes, n * sizeof *copy);
  free(s->bn);
  s->bn = copy;
  s->n_bn = n;
  return BG_OK;
}

/* Block of a particle: the block holding its lowest stencil node. */
static inline int64_t particle_block(const cpu_state *s, size_t p) {
  const bg_config *c = s->cfg;
  int64_t b[3];
  for (int d = 0; d < 3; ++d) {
    int base = bg_floor_int((s->x[d][p] - c->origin[d]) * c->inv_dx - 0.5f);
    b[d] = base >> BG_BLOCK_LOG2;
  }
  return (b[0] * s->nb[1] + b[1]) * s->nb[2] + b[2];
}

/* Physical re-sort by block (parked particles last), every sort_interval
 * steps: keeps each block's particles contiguous in memory for the scatter
 * and the gather. A stable counting sort, so the order is deterministic. */
static bg_status cpu_sort(void *state, uint64_t step) {
  cpu_state *s = state;
  if (s->n == 0 || step % (uint64_t)s->cfg->sort_interval != 0) return BG_OK;
  s->keys_fresh = 0;
  int64_t nbk = s->n_blocks + 1; /* last bucket: parked */
  int64_t *cnt = calloc((size_t)nbk + 1, sizeof *cnt);
  int64_t *key = malloc(s->n * sizeof *key);
  int64_t *perm = malloc(s->n * sizeof *perm);
  if (!cnt || !key || !perm) {
    free(cnt);
    free(key);
    free(perm);
    return BG_ERR_NOMEM;
  }
  for (size_t p = 0; p < s->n; ++p) {
    key[p] = s->park[p] < 0 ? particle_block(s, p) : s->n_blocks;
    cnt[key[p] + 1]++;
  }
  for (int64_t b = 0; b < nbk; ++b) cnt[b + 1] += cnt[b];
  for (size_t p = 0; p < s->n; ++p) perm[cnt[key[p]]++] = (int64_t)p;
  bg_real *a[N_FLOAT_ARRAYS];
  float_arrays(s, a);
  bg_real *tmp = malloc(s->n * sizeof *tmp);
  int64_t *itmp = malloc(s->n * sizeof *itmp);
  if (!tmp || !itmp) {
    free(tmp);
    free(itmp);
    free(cnt);
    free(key);
    free(perm);
    return BG_ERR_NOMEM;
  }
  /* the permutation, array by array, split over the threads */
  int64_t n = (int64_t)s->n;
  int32_t *pk = (int32_t *)tmp; /* same size as a float */
#pragma omp parallel num_threads(nthreads(s))
  {
    for (int k = 0; k < N_FLOAT_ARRAYS; ++k) {
      bg_real *arr = a[k];
#pragma omp for schedule(static)
      for (int64_t p = 0; p < n; ++p) tmp[p] = arr[perm[p]];
#pragma omp for schedule(static)
      for (int64_t p = 0; p < n; ++p) arr[p] = tmp[p];
    }
#pragma omp for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
      itmp[p] = s->id[perm[p]];
      pk[p] = s->park[perm[p]];
    }
#pragma omp for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
      s->id[p] = itmp[p];
      s->park[p] = pk[p];
    }
  }
  free(tmp);
  free(itmp);
  free(cnt);
  free(key);
  free(perm);
  return BG_OK;
}

/* Histograms of the parallel binning, at most this many entries in all
 * (threads x blocks): a huge grid on many threads bins on fewer threads. */
#define BIN_HIST_MAX ((int64_t)1 << 26)

/* Bins active particles by block into order[] and lists the occupied blocks
 * by colour. Runs every step. A counting sort, in parallel from 4096
 * particles on: each thread counts the blocks of a contiguous range of
 * particles, the cursors are laid out block by block and, within a block,
 * thread by thread, and each thread then places its range in particle
 * order. The result is the serial stable sort's, whatever the thread count. */
static void bin_particles(cpu_state *s) {
  int64_t nb = s->n_blocks;
  int64_t n = (int64_t)s->n;
  int nt = nthreads(s);
  if ((int64_t)nt * (nb + 1) > BIN_HIST_MAX) nt = (int)(BIN_HIST_MAX / (nb + 1));
  if (nt < 1) nt = 1;
  if (nt > s->bin_threads) {
    int64_t *h = realloc(s->bin_hist, (size_t)nt * (size_t)(nb + 1) * sizeof *h);
    if (h) {
      s->bin_hist = h;
      s->bin_threads = nt;
    }
  }
  if (nt > s->bin_threads) nt = s->bin_threads; /* a failed growth bins on fewer threads */
  int64_t *bstart = s->bstart, *key = s->bin_key, *order = s->order, *hist = s->bin_hist;
  bstart[0] = 0;
#pragma omp parallel num_threads(nt) if (nt > 1 && n >= 4096)
  {
#ifdef _OPENMP
    int t = omp_get_thread_num(), team = omp_get_num_threads();
#else
    int t = 0, team = 1;
#endif
    /* the team may be smaller than asked: ranges follow the real size */
    int64_t lo = n * t / team, hi = n * (t + 1) / team;
    int64_t *h = hist + (size_t)t * (size_t)(nb + 1);
    memset(h, 0, (size_t)nb * sizeof *h);
    /* G2P leaves each particle's block in key (keys_fresh): a pass over
     * the positions less */
    if (s->keys_fresh) {
      for (int64_t p = lo; p < hi; ++p)
        if (key[p] >= 0) h[key[p]]++;
    } else {
      for (int64_t p = lo; p < hi; ++p) {
        int64_t k = s->park[p] < 0 ? particle_block(s, (size_t)p) : -1;
        key[p] = k;
        if (k >= 0) h[k]++;
      }
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; ++b) {
      int64_t tot = 0;
      for (int u = 0; u < team; ++u) tot += hist[(size_t)u * (size_t)(nb + 1) + (size_t)b];
      bstart[b + 1] = tot;
    }
#pragma omp single
    for (int64_t b = 0; b < nb; ++b) bstart[b + 1] += bstart[b];
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; ++b) {
      int64_t off = bstart[b];
      for (int u = 0; u < team; ++u) {
        int64_t *e = &hist[(size_t)u * (size_t)(nb + 1) + (size_t)b];
        int64_t cnt = *e;
        *e = off;
        off += cnt;
      }
    }
    for (int64_t p = lo; p < hi; ++p)
      if (key[p] >= 0) order[h[key[p]]++] = p;
  }
  /* occupied blocks by colour (parity of block coordinates) */
  int64_t k = 0;
  for (int c = 0; c < 8; ++c) {
    s->cstart[c] = k;
    for (int64_t bi = (c >> 2) & 1; bi < s->nb[0]; bi += 2)
      for (int64_t bj = (c >> 1) & 1; bj < s->nb[1]; bj += 2)
        for (int64_t bk = c & 1; bk < s->nb[2]; bk += 2) {
          int64_t b = (bi * s->nb[1] + bj) * s->nb[2] + bk;
          if (s->bstart[b + 1] > s->bstart[b]) s->blist[k++] = b;
        }
  }
  s->cstart[8] = k;
}

static inline bg_mat3 load_mat(bg_real *const *a, size_t p) {
  bg_mat3 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m.m[i][j] = a[3 * i + j][p];
  return m;
}

static inline void store_mat(bg_real **a, size_t p, const bg_mat3 *m) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a[3 * i + j][p] = m->m[i][j];
}

/* Symmetric storage: xx yy zz xy xz yz. */
static inline bg_mat3 load_sym(bg_real *const *t, size_t p) {
  bg_mat3 m;
  m.m[0][0] = t[0][p];
  m.m[1][1] = t[1][p];
  m.m[2][2] = t[2][p];
  m.m[0][1] = m.m[1][0] = t[3][p];
  m.m[0][2] = m.m[2][0] = t[4][p];
  m.m[1][2] = m.m[2][1] = t[5][p];
  return m;
}

static inline void store_sym(bg_real **t, size_t p, const bg_mat3 *m) {
  t[0][p] = m->m[0][0];
  t[1][p] = m->m[1][1];
  t[2][p] = m->m[2][2];
  t[3][p] = 0.5f * (m->m[0][1] + m->m[1][0]);
  t[4][p] = 0.5f * (m->m[0][2] + m->m[2][0]);
  t[5][p] = 0.5f * (m->m[1][2] + m->m[2][1]);
}

static inline void particle_xg(const cpu_state *s, size_t p, bg_real xg[3]) {
  const bg_config *c = s->cfg;
  for (int d = 0; d < 3; ++d) xg[d] = (s->x[d][p] - c->origin[d]) * c->inv_dx;
}

CPU_INLINE void p2g_particle(cpu_state *s, size_t p, bg_real dt) {
  const bg_config *c = s->cfg;
  bg_real xg[3];
  particle_xg(s, p, xg);
  bg_bspline w = bg_bspline_eval(xg);
  bg_mat3 C = load_mat(s->C, p), tau = load_sym(s->tau, p);
  bg_real m = s->mass[p];
  bg_mat3 A = bg_p2g_affine(m, s->vol0[p], &C, &tau, dt, c->inv_dx);
  /* per node the particle adds wt * (m, m v + A dpos), wt = wa wb wz:
   * lane 0 is the mass, whose affine part is zero */
  const node4 b4 = {m, m * s->v[0][p], m * s->v[1][p], m * s->v[2][p]};
  const node4 ax = {0, A.m[0][0], A.m[1][0], A.m[2][0]};
  const node4 ay = {0, A.m[0][1], A.m[1][1], A.m[2][1]};
  const node4 az = {0, A.m[0][2], A.m[1][2], A.m[2][2]};
  int64_t sy = c->dims[2], sx = c->dims[1] * sy;
  bg_real(*g0)[4] = s->grid + (w.base[0] * sx + w.base[1] * sy + w.base[2]);
  bg_real dx = c->dx, wz[3], wzd[3];
  stencil_z(&w, dx, wz, wzd);
  for (int a = 0; a < 3; ++a) {
    bg_real dxa = ((bg_real)a - w.fx[0]) * dx;
    for (int b = 0; b < 3; ++b) {
      bg_real dxb = ((bg_real)b - w.fx[1]) * dx;
      bg_real wab = w.w[0][a] * w.w[1][b];
      node4 vab = b4 + ax * dxa + ay * dxb;
      bg_real *g = g0[a * sx + b * sy];
      for (int k = 0; k < 3; ++k) node_store(g + 4 * k, node_load(g + 4 * k) + wab * (wz[k] * vab + wzd[k] * az));
    }
  }
  if (s->nl >= 0) {
    bg_real mf = m * s->st[s->nl][p];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        bg_real *g = s->gs + (w.base[0] + a) * sx + (w.base[1] + b) * sy + w.base[2];
        for (int k = 0; k < 3; ++k) g[k] += bg_bspline_weight(&w, a, b, k) * mf;
      }
  }
}

/* P2G of one block's particles, compiled for AVX2/AVX-512 too (as
 * g2p_chunk). */
BG_BATCH_DRIVER void p2g_block(cpu_state *s, int64_t b, bg_real dt) {
  for (int64_t q = s->bstart[b]; q < s->bstart[b + 1]; ++q) p2g_particle(s, (size_t)s->order[q], dt);
}

static bg_status cpu_p2g(void *state, bg_real dt) {
  cpu_state *s = state;
  const bg_config *c = s->cfg;
  int nt = nthreads(s);
  int64_t nn = c->n_nodes;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = 0; i < nn; ++i) s->grid[i][0] = s->grid[i][1] = s->grid[i][2] = s->grid[i][3] = 0;
  if (s->nl >= 0) memset(s->gs, 0, (size_t)nn * sizeof *s->gs);
  if (s->n_active == 0) return BG_OK;
  bin_particles(s);
  for (int col = 0; col < 8; ++col) {
    int64_t lo = s->cstart[col], hi = s->cstart[col + 1];
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
    for (int64_t k = lo; k < hi; ++k) p2g_block(s, s->blist[k], dt);
  }
  return BG_OK;
}

static bg_status cpu_grid_update(void *state, bg_real dt) {
  cpu_state *s = state;
  const bg_config *c = s->cfg;
  int nt = nthreads(s);
  int64_t nn = c->n_nodes;
  const bg_real gdt[3] = {c->gravity[0] * dt, c->gravity[1] * dt, c->gravity[2] * dt};
  const bg_real damp = bg_damping_factor(c->damping, dt);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = 0; i < nn; ++i) {
    bg_node_update(s->grid[i], gdt);
    if (damp != 1.0f)
      for (int d = 1; d < 4; ++d) s->grid[i][d] *= damp;
  }
  int64_t nb = (int64_t)s->n_bn;
  int nw = c->n_walls;
  /* the wall-force tallies are sized for the thread count at creation */
  int wt = nt < s->wf_threads ? nt : s->wf_threads;
  memset(s->wf_thread, 0, (size_t)s->wf_threads * 3 * (size_t)nw * sizeof *s->wf_thread);
  double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
#pragma omp parallel num_threads(wt)
  {
#ifdef _OPENMP
    double *mine = s->wf_thread + (size_t)omp_get_thread_num() * 3 * (size_t)nw;
#else
    double *mine = s->wf_thread;
#endif
#pragma omp for schedule(static)
    for (int64_t k = 0; k < nb; ++k) {
      const bg_bnode *b = &s->bn[k];
      bg_real *g = s->grid[b->node];
      if (!(g[0] > 0)) continue;
      bg_bnode_effect eff;
      bg_bnode_apply(b, c->walls, nw - BG_FACE_COUNT, g + 1, &eff);
      for (int e = 0; e < eff.n; ++e)
        for (int d = 0; d < 3; ++d) mine[3 * eff.wall[e] + d] -= (double)g[0] * eff.dv[e][d] * inv_dt;
    }
  }
  for (int k = 0; k < 3 * nw; ++k) {
    double sum = 0;
    for (int t = 0; t < s->wf_threads; ++t) sum += s->wf_thread[(size_t)t * 3 * (size_t)nw + k];
    s->wf[k] = sum;
  }
  return BG_OK;
}

/* The nonlocal service's Laplacian at a particle (bg_transfer.h): the
 * B-spline Laplacian of the nodal mass-weighted means. Every node of a
 * particle's stencil with a nonzero weight holds mass (the particle's own,
 * scattered this step), so none is skipped but the weightless ones. */
static bg_real nodal_laplacian(const cpu_state *s, const bg_bspline *w) {
  const bg_config *c = s->cfg;
  int64_t ny = c->dims[1], nz = c->dims[2];
  bg_real sum = 0.0f;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      int64_t row = ((int64_t)(w->base[0] + a) * ny + (w->base[1] + b)) * nz + w->base[2];
      for (int k = 0; k < 3; ++k) {
        bg_real m = s->grid[row + k][0];
        if (m > 0.0f) sum += bg_bspline_lap_weight(w->w, a, b, k) * (s->gs[row + k] / m);
      }
    }
  return sum * c->inv_dx * c->inv_dx;
}

/* G2P after the gather, for lane l of a chunk and particle slot p of the
 * arrays given (offset to the chunk's first slot, or not): v and x, C,
 * and the trial F = (I + dt C) F into the chunk. */
CPU_INLINE void g2p_lane(const cpu_state *s, bg_real *const *x, bg_real *const *v, bg_real *const *cm,
                         bg_real *const *f, int64_t p, bg_real (*lv)[BG_BATCH_CHUNK], bg_real (*lC)[BG_BATCH_CHUNK],
                         bg_mat_chunk *ch, int64_t *lkey, int l, bg_real dt) {
  const bg_config *c = s->cfg;
  int64_t b[3];
  for (int d = 0; d < 3; ++d) {
    v[d][p] = lv[d][l];
    const bg_real xn = x[d][p] + dt * lv[d][l];
    x[d][p] = xn;
    /* the next binning's block (particle_block's arithmetic), while x is at hand */
    b[d] = bg_floor_int((xn - c->origin[d]) * c->inv_dx - 0.5f) >> BG_BLOCK_LOG2;
  }
  lkey[l] = (b[0] * s->nb[1] + b[1]) * s->nb[2] + b[2];
  bg_mat3 C, F;
  for (int e = 0; e < 9; ++e) {
    C.m[e / 3][e % 3] = lC[e][l];
    cm[e][p] = lC[e][l];
    F.m[e / 3][e % 3] = f[e][p];
  }
  F = bg_f_update(&C, &F, dt);
  for (int e = 0; e < 9; ++e) ch->F[e][l] = F.m[e / 3][e % 3];
}

/* G2P over particles p0 .. p1-1 (at most one chunk): the gather per
 * particle, then the constitutive update (SVD, return map, stress)
 * vectorised across the chunk's lanes (bg_constitutive_batch.h). Compiled
 * for AVX2/AVX-512 too, like the lane drivers (BG_BATCH_DRIVER): the
 * clones differ in encoding only, not in results. mine: the thread's
 * tallies of newly parked particles; returns the largest squared speed. */
BG_BATCH_DRIVER double g2p_chunk(cpu_state *s, int64_t p0, int64_t p1, bg_real dt, double *mine) {
  const bg_config *c = s->cfg;
  int64_t sy = c->dims[2], sx = c->dims[1] * sy;
  bg_real dx = c->dx, k4 = 4.0f * c->inv_dx * c->inv_dx;
  int ns = c->n_sinks;
  double vmax2 = 0;
  bg_mat_chunk ch;
  size_t slot[BG_BATCH_CHUNK];
  bg_real lv[3][BG_BATCH_CHUNK], lC[9][BG_BATCH_CHUNK]; /* the gathered v and C, by lane */
  ch.C = (const bg_real(*)[BG_BATCH_CHUNK])lC;            /* the update context's velocity gradient */
  int64_t lkey[BG_BATCH_CHUNK];                          /* each lane's block after the move */
  int len = 0;
  /* 1. the gather, particle by particle */
  for (int64_t pi = p0; pi < p1; ++pi) {
    size_t p = (size_t)pi;
    if (s->park[p] >= 0) {
      s->bin_key[p] = -1;
      continue;
    }
    bg_real xg[3];
    particle_xg(s, p, xg);
    bg_bspline w = bg_bspline_eval(xg);
    /* lane 0 of each node is its mass: gathered along with the
     * velocity so a node is one vector, then ignored. The sums of
     * w v, w v dxa, w v dxb and w v dxc factor axis by axis: along z
     * per column, along y per plane, then along x. */
    bg_real wz[3], wzd[3];
    stencil_z(&w, dx, wz, wzd);
    const bg_real(*g00)[4] = (const bg_real(*)[4])s->grid + (w.base[0] * sx + w.base[1] * sy + w.base[2]);
    node4 av = {0, 0, 0, 0}, aa = av, ab = av, ac = av;
    for (int a = 0; a < 3; ++a) {
      node4 sa = {0, 0, 0, 0}, ya = sa, za = sa;
      for (int b = 0; b < 3; ++b) {
        bg_real wb = w.w[1][b], dxb = ((bg_real)b - w.fx[1]) * dx;
        const bg_real *g = g00[a * sx + b * sy];
        node4 g0 = node_load(g), g1 = node_load(g + 4), g2 = node_load(g + 8);
        node4 cs = wz[0] * g0 + wz[1] * g1 + wz[2] * g2;
        node4 cz = wzd[0] * g0 + wzd[1] * g1 + wzd[2] * g2;
        sa += wb * cs;
        ya += (wb * dxb) * cs;
        za += wb * cz;
      }
      bg_real wa = w.w[0][a], dxa = ((bg_real)a - w.fx[0]) * dx;
      av += wa * sa;
      aa += (wa * dxa) * sa;
      ab += wa * ya;
      ac += wa * za;
    }
    for (int d = 0; d < 3; ++d) lv[d][len] = av[1 + d];
    for (int i = 0; i < 3; ++i) {
      lC[3 * i + 0][len] = k4 * aa[1 + i];
      lC[3 * i + 1][len] = k4 * ab[1 + i];
      lC[3 * i + 2][len] = k4 * ac[1 + i];
    }
    for (int d = 0; d < BG_NSTATE; ++d) ch.st[d][len] = s->st[d][p];
    if (s->nl >= 0) ch.st[s->nl + 1][len] = nodal_laplacian(s, &w);
    slot[len++] = p;
  }
  /* 2. v, x, C and the trial F, lane by lane: a chunk without parked
   * particles is one run of slots, and then this loop vectorises */
  int run = len > 0 && slot[len - 1] - slot[0] == (size_t)(len - 1);
  if (run) {
    size_t at = slot[0];
    bg_real *xs[3], *vs[3], *cs[9], *fs[9];
    for (int d = 0; d < 3; ++d) {
      xs[d] = s->x[d] + at;
      vs[d] = s->v[d] + at;
    }
    for (int e = 0; e < 9; ++e) {
      cs[e] = s->C[e] + at;
      fs[e] = s->F[e] + at;
    }
    BG_SIMD_LOOP
    for (int l = 0; l < len; ++l) g2p_lane(s, xs, vs, cs, fs, l, lv, lC, &ch, lkey, l, dt);
  } else {
    for (int l = 0; l < len; ++l) g2p_lane(s, s->x, s->v, s->C, s->F, (int64_t)slot[l], lv, lC, &ch, lkey, l, dt);
  }
  /* 3. parking and the largest speed */
  for (int l = 0; l < len; ++l) {
    size_t p = slot[l];
    const bg_real xp[3] = {s->x[0][p], s->x[1][p], s->x[2][p]};
    int32_t code = bg_park_code(c, c->sinks, xp);
    /* the next binning's key, while x is at hand */
    s->bin_key[p] = code >= 0 ? -1 : lkey[l];
    if (code >= 0) {
      s->park[p] = code;
      mine[code] += (double)s->mass[p];
      mine[ns + 1] += 1.0;
    } else {
      double sp = (double)lv[0][l] * lv[0][l] + (double)lv[1][l] * lv[1][l] + (double)lv[2][l] * lv[2][l];
      if (sp > vmax2) vmax2 = sp;
    }
  }
  /* 4. the constitutive update across the chunk's lanes (a model without
   * lanes runs the scalar update on each) */
  bg_material_update_chunk(&c->mat, dt, &ch, len);
  for (int l = 0; l < len; ++l) s->mode[slot[l]] = (bg_real)ch.mode[l];
  /* array by array, one store stream at a time; a run copied as such */
  for (int e = 0; e < 9 + 6 + BG_NSTATE; ++e) {
    bg_real *dst = e < 9 ? s->F[e] : e < 15 ? s->tau[e - 9] : s->st[e - 15];
    const bg_real *src = e < 9 ? ch.F[e] : e < 15 ? ch.tau[e - 9] : ch.st[e - 15];
    if (run) {
      memcpy(dst + slot[0], src, (size_t)len * sizeof *src);
    } else {
      for (int l = 0; l < len; ++l) dst[slot[l]] = src[l];
    }
  }
  return vmax2;
}

static bg_status cpu_g2p(void *state, bg_real dt) {
  cpu_state *s = state;
  const bg_config *c = s->cfg;
  int nt = nthreads(s);
  int64_t n = (int64_t)s->n;
  int ns = c->n_sinks;
  double vmax2 = 0;
  /* per-thread tallies of newly parked particles, summed in thread order */
  double *tally = calloc((size_t)nt * (size_t)(ns + 2), sizeof *tally);
  if (!tally) return BG_ERR_NOMEM;
#pragma omp parallel num_threads(nt) reduction(max : vmax2)
  {
#ifdef _OPENMP
    int tid = omp_get_thread_num();
#else
    int tid = 0;
#endif
    double *mine = tally + (size_t)tid * (size_t)(ns + 2);
    /* particles go through in chunks (g2p_chunk) */
#pragma omp for schedule(static)
    for (int64_t p0 = 0; p0 < n; p0 += BG_BATCH_CHUNK) {
      double v2 = g2p_chunk(s, p0, p0 + BG_BATCH_CHUNK < n ? p0 + BG_BATCH_CHUNK : n, dt, mine);
      if (v2 > vmax2) vmax2 = v2;
    }
  }
  for (int t = 0; t < nt; ++t) {
    double *mine = tally + (size_t)t * (size_t)(ns + 2);
    for (int k = 0; k <= ns; ++k) {
      s->sink_mass[k] += mine[k];
      s->parked_mass += mine[k];
    }
  }
  free(tally);
  /* recount (cheap, exact) rather than trust incremental counters */
  int64_t act = 0, sink = 0, out = 0, np = (int64_t)s->n;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : act, sink, out)
  for (int64_t p = 0; p < np; ++p) {
    if (s->park[p] < 0) act++;
    else if (s->park[p] < ns) sink++;
    else out++;
  }
  s->n_active = (size_t)act;
  s->n_sink = (size_t)sink;
  s->n_out = (size_t)out;
  s->max_speed = sqrt(vmax2);
  s->keys_fresh = 1;
  return BG_OK;
}

static bg_status cpu_get(void *state, bg_field f, bg_real *out) {
  cpu_state *s = state;
  for (size_t p = 0; p < s->n; ++p) {
    size_t o = (size_t)s->id[p];
    switch (f) {
      case BG_FIELD_X:
        for (int d = 0; d < 3; ++d) out[3 * o + d] = s->x[d][p];
        break;
      case BG_FIELD_V:
        for (int d = 0; d < 3; ++d) out[3 * o + d] = s->v[d][p];
        break;
      case BG_FIELD_F:
        for (int d = 0; d < 9; ++d) out[9 * o + d] = s->F[d][p];
        break;
      case BG_FIELD_C:
        for (int d = 0; d < 9; ++d) out[9 * o + d] = s->C[d][p];
        break;
      case BG_FIELD_JP: out[o] = expf(bg_mat_log_jp(&s->cfg->mat, s->st, (int64_t)p)); break;
      case BG_FIELD_DENSITY: {
        bg_mat3 F = load_mat(s->F, p);
        out[o] = bg_density(s->cfg->mat.el.rho0, bg_mat3_det(F), bg_mat_log_jp(&s->cfg->mat, s->st, (int64_t)p));
        break;
      }
      case BG_FIELD_Q: out[o] = bg_mat_q(&s->cfg->mat, s->st, (int64_t)p); break;
      case BG_FIELD_STRESS: {
        /* Cauchy stress: V0 tau is the force-carrying quantity, the current
         * volume is V0 det(F_E) Jp */
        bg_mat3 F = load_mat(s->F, p), t = load_sym(s->tau, p);
        bg_real J = bg_mat3_det(F) * expf(bg_mat_log_jp(&s->cfg->mat, s->st, (int64_t)p));
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) out[9 * o + 3 * i + j] = t.m[i][j] / J;
        break;
      }
      case BG_FIELD_MASS: out[o] = s->mass[p]; break;
      case BG_FIELD_ACTIVE: out[o] = s->park[p] < 0 ? 1.0f : 0.0f; break;
      case BG_FIELD_MODE: out[o] = s->mode[p]; break;
    }
  }
  return BG_OK;
}

static bg_status cpu_stats(void *state, bg_backend_stats *out, double *sink_mass) {
  cpu_state *s = state;
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

static bg_status cpu_grid(void *state, int which, bg_real *out) {
  cpu_state *s = state;
  int64_t nn = s->cfg->n_nodes;
  for (int64_t i = 0; i < nn; ++i) {
    if (which == 0) out[i] = s->grid[i][0];
    else
      for (int d = 0; d < 3; ++d) out[3 * i + d] = s->grid[i][0] > 0 ? s->grid[i][1 + d] : 0.0f;
  }
  return BG_OK;
}

static size_t cpu_count(void *state) { return ((cpu_state *)state)->n; }

static bg_status cpu_export(void *state, bg_raw *r) {
  cpu_state *s = state;
  bg_real *a[N_FLOAT_ARRAYS];
  float_arrays(s, a);
  for (int k = 0; k < N_FLOAT_ARRAYS; ++k)
    if (s->n) memcpy(r->f[k], a[k], s->n * sizeof(bg_real));
  if (s->n) {
    memcpy(r->id, s->id, s->n * sizeof *s->id);
    memcpy(r->park, s->park, s->n * sizeof *s->park);
  }
  r->n = s->n;
  r->parked_mass = s->parked_mass;
  r->total_mass = s->total_mass;
  r->max_speed = s->max_speed;
  for (int k = 0; k <= s->cfg->n_sinks; ++k) r->sink_mass[k] = s->sink_mass[k];
  r->n_runs = -1; /* the CPU bins every step from the positions: no sort state to keep */
  return BG_OK;
}

static bg_status cpu_import(void *state, const bg_raw *r) {
  cpu_state *s = state;
  s->keys_fresh = 0;
  if (grow(s, r->n) != BG_OK) return BG_ERR_NOMEM;
  bg_real *a[N_FLOAT_ARRAYS];
  float_arrays(s, a);
  for (int k = 0; k < N_FLOAT_ARRAYS; ++k)
    if (r->n) memcpy(a[k], r->f[k], r->n * sizeof(bg_real));
  if (r->n) {
    memcpy(s->id, r->id, r->n * sizeof *s->id);
    memcpy(s->park, r->park, r->n * sizeof *s->park);
  }
  s->n = r->n;
  s->parked_mass = r->parked_mass;
  s->total_mass = r->total_mass;
  s->max_speed = r->max_speed;
  for (int k = 0; k <= s->cfg->n_sinks; ++k) s->sink_mass[k] = r->sink_mass[k];
  size_t act = 0, sink = 0, out = 0;
  for (size_t p = 0; p < s->n; ++p) {
    if (s->park[p] < 0) act++;
    else if (s->park[p] < s->cfg->n_sinks) sink++;
    else out++;
  }
  s->n_active = act;
  s->n_sink = sink;
  s->n_out = out;
  return BG_OK;
}

static bg_status cpu_wall_forces(void *state, double *out) {
  cpu_state *s = state;
  memcpy(out, s->wf, 3 * (size_t)s->cfg->n_walls * sizeof *out);
  return BG_OK;
}

const bg_backend_ops bg_backend_cpu = {
    .variant = 0,
    .properties = NULL,
    .n_properties = 0,
    .available = cpu_available,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .add = cpu_add,
    .set_boundary = cpu_set_boundary,
    .sort = cpu_sort,
    .p2g = cpu_p2g,
    .grid_update = cpu_grid_update,
    .g2p = cpu_g2p,
    .get = cpu_get,
    .stats = cpu_stats,
    .grid = cpu_grid,
    .count = cpu_count,
    .stage_times = NULL, /* the front end's wall clock is exact for a synchronous backend */
    .export_raw = cpu_export,
    .import_raw = cpu_import,
    .wall_forces = cpu_wall_forces,
};
