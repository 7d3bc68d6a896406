/* cpu_backend.c: the optimised CPU backend (C11 + OpenMP), held to the
 * plain serial cpu/ref (core/backends/ref) by test_parity: its lifecycle,
 * read-back, checkpoint export and import, and its ops table. The step's
 * stages, where the time goes, live in cpu_step.c; cpu_internal.h holds
 * the state both share. */
#include "cpu_internal.h"

static int cpu_available(char *why, size_t len) {
  (void)why;
  (void)len;
  return 1;
}

/* For growth, permutation and checkpoints in one loop. */
bg_real **cpu_float_arrays(cpu_state *s, bg_real **a) {
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

void cpu_set_float_arrays(cpu_state *s, bg_real **a) {
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
  free(s->mid);
  free(s->bstart);
  free(s->order);
  free(s->bin_key);
  free(s->bin_hist);
  free(s->blist);
  const size_t nn = (size_t)s->cfg->n_nodes;
  cpu_grid_unmap(s->grid, nn * sizeof *s->grid);
  cpu_grid_unmap(s->gs, nn * sizeof *s->gs);
  cpu_grid_unmap(s->gm, nn * sizeof *s->gm);
  free(s->row_lo);
  free(s->row_hi);
  free(s->rows);
  free(s->bn);
  free(s->sink_mass);
  free(s->wf_thread);
  free(s->cwf_thread);
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
  const size_t nn = (size_t)cfg->n_nodes, nrow = (size_t)(cfg->dims[0] * cfg->dims[1]);
  s->grid = cpu_grid_map(nn * sizeof *s->grid);
  s->row_lo = calloc(nrow, sizeof *s->row_lo);
  s->row_hi = calloc(nrow, sizeof *s->row_hi);
  s->rows = malloc(nrow * sizeof *s->rows);
  s->bstart = malloc(((size_t)s->n_blocks + 1) * sizeof *s->bstart);
  s->blist = malloc((size_t)s->n_blocks * sizeof *s->blist);
  /* one thread's histogram; bin_particles grows it for more */
  s->bin_hist = malloc(((size_t)s->n_blocks + 1) * sizeof *s->bin_hist);
  s->bin_threads = 1;
  s->sink_mass = calloc((size_t)cfg->n_sinks + 1, sizeof *s->sink_mass);
  s->nl = cfg->nl;
  if (s->nl >= 0) s->gs = cpu_grid_map(nn * sizeof *s->gs);
  if (s->nl >= 0 && !cfg->nl_all) s->gm = cpu_grid_map(nn * sizeof *s->gm);
  s->wf_threads = cpu_nthreads(s);
  s->wf_thread = calloc((size_t)s->wf_threads * BG_WALL_TALLY * (size_t)cfg->n_walls, sizeof *s->wf_thread);
  s->wf = calloc(BG_WALL_TALLY * (size_t)cfg->n_walls, sizeof *s->wf);
  s->cwf_thread = calloc((size_t)(s->wf_threads + 1) * BG_WALL_TALLY * (size_t)cfg->n_walls, sizeof *s->cwf_thread);
  if (!s->grid || !s->row_lo || !s->row_hi || !s->rows || !s->bstart || !s->blist || !s->bin_hist || !s->sink_mass || (s->nl >= 0 && !s->gs) ||
      (s->nl >= 0 && !cfg->nl_all && !s->gm) || !s->wf_thread || !s->cwf_thread ||
      !s->wf) {
    cpu_destroy(s);
    if (err && len) snprintf(err, len, "cpu backend: out of memory for a %lld-node grid",
                             (long long)cfg->n_nodes);
    return BG_ERR_NOMEM;
  }
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
  cpu_float_arrays(s, a);
  for (int k = 0; k < N_FLOAT_ARRAYS; ++k) {
    bg_real *g = slab + (size_t)k * stride; /* cap is a multiple of 1024 floats */
    if (s->n) memcpy(g, a[k], s->n * sizeof *g);
    a[k] = g;
  }
  free(s->slab);
  s->slab = slab;
  cpu_set_float_arrays(s, a);
  int64_t *id = realloc(s->id, cap * sizeof *id);
  if (id) s->id = id;
  int32_t *pk = realloc(s->park, cap * sizeof *pk);
  if (pk) s->park = pk;
  int64_t *ord = realloc(s->order, cap * sizeof *ord);
  if (ord) s->order = ord;
  int64_t *bk = realloc(s->bin_key, cap * sizeof *bk);
  if (bk) s->bin_key = bk;
  uint8_t *mid = realloc(s->mid, cap * sizeof *mid);
  if (mid) s->mid = mid;
  if (!id || !pk || !ord || !bk || !mid) return BG_ERR_NOMEM;
  s->cap = cap;
  return BG_OK;
}

static bg_status cpu_add(void *state, size_t n, const bg_real *x, const bg_real *v, const bg_real *vol, int mat) {
  cpu_state *s = state;
  s->keys_fresh = 0;
  if (grow(s, s->n + n) != BG_OK) return BG_ERR_NOMEM;
  bg_real rho0 = s->cfg->mats[mat].el.rho0;
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
    s->mid[p] = (uint8_t)mat;
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

static bg_status cpu_get(void *state, bg_field f, bg_real *out) {
  cpu_state *s = state;
  for (size_t p = 0; p < s->n; ++p) {
    size_t o = (size_t)s->id[p];
    const bg_mat *m = cpu_mat(s, p);
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
      case BG_FIELD_JP: out[o] = expf(bg_mat_log_jp(m, s->st, (int64_t)p)); break;
      case BG_FIELD_DENSITY: {
        bg_mat3 F = load_mat(s->F, p);
        out[o] = bg_density(m->el.rho0, bg_mat3_det(F), bg_mat_log_jp(m, s->st, (int64_t)p));
        break;
      }
      case BG_FIELD_Q: out[o] = bg_mat_q(m, s->st, (int64_t)p); break;
      case BG_FIELD_STRESS: {
        /* Cauchy stress: V0 tau is the force-carrying quantity, the current
         * volume is V0 det(F_E) Jp */
        bg_mat3 F = load_mat(s->F, p), t = load_sym(s->tau, p);
        bg_real J = bg_mat3_det(F) * expf(bg_mat_log_jp(m, s->st, (int64_t)p));
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) out[9 * o + 3 * i + j] = t.m[i][j] / J;
        break;
      }
      case BG_FIELD_MASS: out[o] = s->mass[p]; break;
      case BG_FIELD_ACTIVE: out[o] = s->park[p] < 0 ? 1.0f : 0.0f; break;
      case BG_FIELD_MODE: out[o] = s->mode[p]; break;
      case BG_FIELD_MATERIAL: out[o] = (bg_real)s->mid[p]; break;
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
  const int64_t nn = s->cfg->n_nodes, nz = s->cfg->dims[2], w = which == 0 ? 1 : 3;
  /* zeros, then the active rows' nodes: a node outside them holds no mass,
   * and reading it would map its page of the paged grid */
  memset(out, 0, (size_t)(nn * w) * sizeof *out);
  for (int64_t q = 0; q < s->n_rows; ++q) {
    const int64_t r = s->rows[q];
    for (int64_t i = r * nz + s->row_lo[r]; i < r * nz + s->row_hi[r]; ++i) {
      if (which == 0) out[i] = s->grid[i][0];
      else
        for (int d = 0; d < 3; ++d) out[3 * i + d] = s->grid[i][0] > 0 ? s->grid[i][1 + d] : 0.0f;
    }
  }
  return BG_OK;
}

static size_t cpu_count(void *state) { return ((cpu_state *)state)->n; }

static bg_status cpu_export(void *state, bg_raw *r) {
  cpu_state *s = state;
  bg_real *a[N_FLOAT_ARRAYS];
  cpu_float_arrays(s, a);
  for (int k = 0; k < N_FLOAT_ARRAYS; ++k)
    if (s->n) memcpy(r->f[k], a[k], s->n * sizeof(bg_real));
  if (s->n) {
    memcpy(r->id, s->id, s->n * sizeof *s->id);
    memcpy(r->park, s->park, s->n * sizeof *s->park);
    memcpy(r->mat, s->mid, s->n * sizeof *s->mid);
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
  cpu_float_arrays(s, a);
  for (int k = 0; k < N_FLOAT_ARRAYS; ++k)
    if (r->n) memcpy(a[k], r->f[k], r->n * sizeof(bg_real));
  if (r->n) {
    memcpy(s->id, r->id, r->n * sizeof *s->id);
    memcpy(s->park, r->park, r->n * sizeof *s->park);
    memcpy(s->mid, r->mat, r->n * sizeof *s->mid);
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
  /* the grid update's, and the cut transfers' summed in thread order */
  const size_t nw = BG_WALL_TALLY * (size_t)s->cfg->n_walls;
  for (size_t k = 0; k < nw; ++k) {
    double sum = s->wf[k];
    for (int t = 0; t <= s->wf_threads; ++t) sum += s->cwf_thread[(size_t)t * nw + k];
    out[k] = sum;
  }
  return BG_OK;
}

static void cpu_memory(void *state, bg_memory *out) {
  cpu_state *s = (cpu_state *)state;
  const bg_config *c = s->cfg;
  const size_t cap = s->cap, nn = (size_t)c->n_nodes, nb = (size_t)s->n_blocks;
  /* the slab of float arrays (staggered), then id, park, order, bin_key, material index */
  out->particle_bytes = cap ? (size_t)N_FLOAT_ARRAYS * (cap + SLAB_STAGGER) * sizeof(bg_real) +
                                  cap * (sizeof *s->id + sizeof *s->park + sizeof *s->order + sizeof *s->bin_key +
                                         sizeof *s->mid)
                            : 0;
  /* the paged grid's resident pages, and the row table */
  out->grid_nodes = cpu_grid_resident(s->grid, nn * sizeof *s->grid) / sizeof *s->grid;
  out->grid_bytes = cpu_grid_resident(s->grid, nn * sizeof *s->grid) +
                    (s->gs ? cpu_grid_resident(s->gs, nn * sizeof *s->gs) : 0) +
                    (s->gm ? cpu_grid_resident(s->gm, nn * sizeof *s->gm) : 0) +
                    (size_t)(c->dims[0] * c->dims[1]) * (sizeof *s->row_lo + sizeof *s->row_hi + sizeof *s->rows);
  out->other_bytes = (nb + 1) * sizeof *s->bstart + nb * sizeof *s->blist +
                     (size_t)s->bin_threads * (nb + 1) * sizeof *s->bin_hist + s->n_bn * sizeof *s->bn;
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
    .memory = cpu_memory,
};
