/* cpu_internal.h: what the files of the optimised CPU backend share: its
 * state (particles in structure-of-arrays, the block binning, the scratch
 * grid, the tallies), the thread count, the particle matrix loads and
 * stores, and the entry points of the step's stages (cpu_step.c) that the
 * ops table (cpu_backend.c) names. */
#ifndef BG_CPU_INTERNAL_H
#define BG_CPU_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bg_constitutive_batch.h"
#include "bg_internal.h"

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
  uint8_t *mid;  /* entry of the material table (cfg->mats); all 0, and never sorted, for one material */
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
  /* scratch grid, 4 floats per node: mass then momentum, velocity after the
   * update. Paged (cpu_grid_map): reserved address space whose pages the
   * kernel backs only where they are written, so memory follows the
   * material, not the box. Only the nodes of the active rows are cleared
   * and updated: row r = i * dims[1] + j holds nodes k in [row_lo[r],
   * row_hi[r]) that the last P2G could reach (lo == hi: none), listed in
   * rows[0 .. n_rows). */
  bg_real (*grid)[4];
  size_t grid_map_bytes;
  int32_t *row_lo, *row_hi;
  int64_t *rows, n_rows;
  bg_bnode *bn;
  size_t n_bn;
  /* the nonlocal service (bg_material_core.h): the state slot the model
   * needs the Laplacian of, or -1, and its mass-weighted nodal sums */
  int nl;
  bg_real *gs;
  bg_real *gm; /* the nonlocal particles' nodal mass, when the table mixes them with others */
  /* tallies */
  size_t n_active, n_sink, n_out;
  double parked_mass, total_mass, max_speed;
  double *sink_mass;
  /* wall forces of the last grid update: per thread, 3 per wall, summed in
   * thread order so the total does not depend on scheduling */
  double *wf_thread, *wf;
  int wf_threads;
  /* per thread as wf_thread, plus a spare slice for threads past them: the
   * plates' tallies from the cut transfers of the last P2G and G2P (cpu_cut.c) */
  double *cwf_thread;
} cpu_state;

/* OpenMP threads of a parallel region: the descriptor's, else the default. */
static inline int cpu_nthreads(const cpu_state *s) {
#ifdef _OPENMP
  return s->cfg->threads > 0 ? s->cfg->threads : omp_get_max_threads();
#else
  (void)s;
  return 1;
#endif
}

/* All per-particle float arrays, in the raw layout (bg_internal.h): into a
 * (BG_RAW_NF pointers), and back (cpu_backend.c). */
#define N_FLOAT_ARRAYS BG_RAW_NF
bg_real **cpu_float_arrays(cpu_state *s, bg_real **a);
void cpu_set_float_arrays(cpu_state *s, bg_real **a);

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

/* The material of slot p. */
static inline const bg_mat *cpu_mat(const cpu_state *s, size_t p) { return &s->cfg->mats[s->mid[p]]; }

/* Whether the nonlocal service serves slot p (only where the model needs it). */
static inline int cpu_nonlocal(const cpu_state *s, size_t p) {
  return s->nl >= 0 && (s->cfg->n_mats == 1 || bg_material_nonlocal_slot(cpu_mat(s, p)->model) >= 0);
}

/* The paged grid (cpu_grid.c): n zero bytes of address space,
 * backed by memory only where written; NULL when it cannot be had. */
void *cpu_grid_map(size_t n);
void cpu_grid_unmap(void *p, size_t n);
/* Bytes of [p, p + n) backed by memory now (mincore); n when unknown. */
size_t cpu_grid_resident(const void *p, size_t n);
/* P2G's first two acts on the paged grid: zero the last step's rows, and,
 * once particles are binned, mark the rows this step can reach. */
void cpu_grid_clear_rows(cpu_state *s, int nt);
void cpu_grid_mark_rows(cpu_state *s);

/* The stages of a step (cpu_step.c). */
bg_status cpu_sort(void *state, uint64_t step);
bg_status cpu_p2g(void *state, bg_real dt);
bg_status cpu_grid_update(void *state, bg_real dt);
bg_status cpu_g2p(void *state, bg_real dt);

/* cpu_cut.c: P2G and G2P's gather (into lane len of lv, lC) of particle p
 * when a plate cuts its stencil; 0 (nothing done) when none does */
int cpu_p2g_cut(cpu_state *s, size_t p, bg_real dt);
int cpu_g2p_cut(const cpu_state *s, size_t p, const bg_bspline *w, bg_real (*lv)[BG_BATCH_CHUNK],
                bg_real (*lC)[BG_BATCH_CHUNK], int len, bg_real dt);
/* the calling thread's slice of cwf_thread, or NULL past wf_threads (the
 * caller then adds under a critical section) */
double *cpu_cut_tally(const cpu_state *s);

#endif /* BG_CPU_INTERNAL_H */
