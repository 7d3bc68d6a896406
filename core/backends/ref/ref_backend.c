/* ref_backend.c: cpu/ref, the plain serial backend: the oracle every other
 * backend is held to (test_parity).
 *
 * Written only with the core/physics point functions: the B-spline weights
 * (bg_bspline.h), the MLS/APIC affine momentum and F update
 * (bg_transfer.h), the node update, damping and boundary rule
 * (bg_boundary.h), the scalar constitutive update (bg_materials.h) and the
 * park rule (bg_park_code). In 2D (plane strain) the loops over the y
 * stencil visit only the plane's node (bg_stencil_b0/b1). One loop per stage over the particles in the
 * order they were added (or imported), one node at a time; no vector types,
 * no colouring, no threads. Particle p's floats are one row of the raw
 * layout (bg_internal.h, BG_RAW_*), so read-back and checkpoints copy rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_bspline.h"
#include "bg_internal.h"
#include "bg_materials.h"
#include "bg_transfer.h"

typedef struct ref_state {
  const bg_config *cfg;
  size_t n, cap;
  bg_real *f;    /* n rows of BG_RAW_NF floats */
  int64_t *id;   /* insertion index of each row */
  int32_t *park; /* -1 active, k < n_sinks in sink k, n_sinks left the grid */
  uint8_t *mat;  /* each row's entry in the material table */
  bg_real (*grid)[4]; /* per node: mass, then momentum; velocity after the grid update */
  bg_real *gs;        /* the nonlocal service's mass-weighted nodal sums (nl >= 0) */
  bg_real *gm;        /* the nonlocal particles' nodal mass, when not every entry is nonlocal */
  int nl;             /* the state slot whose Laplacian the table's nonlocal entries need, or -1 */
  bg_bnode *bn;
  size_t n_bn;
  bg_bnode *bb; /* the rigid bodies' nodes (set_body_nodes): they act instead of bn's */
  size_t n_bb;
  double parked_mass, total_mass, max_speed;
  double *sink_mass; /* n_sinks + 1: the last, particles that left the grid */
  double *wf;        /* BG_WALL_TALLY per wall: force and moment over the last grid update */
  double *cwf;       /* the same from the plates' cut transfers over the last P2G and G2P (bg_cut.h) */
} ref_state;

static bg_real *row(const ref_state *s, size_t p) { return s->f + p * BG_RAW_NF; }

static bg_mat3 get_mat(const bg_real *r) {
  bg_mat3 m;
  for (int e = 0; e < 9; ++e) m.m[e / 3][e % 3] = r[e];
  return m;
}

static void put_mat(bg_real *r, const bg_mat3 *m) {
  for (int e = 0; e < 9; ++e) r[e] = m->m[e / 3][e % 3];
}

/* Symmetric storage of tau: xx yy zz xy xz yz. */
static bg_mat3 get_sym(const bg_real *t) {
  bg_mat3 m;
  m.m[0][0] = t[0];
  m.m[1][1] = t[1];
  m.m[2][2] = t[2];
  m.m[0][1] = m.m[1][0] = t[3];
  m.m[0][2] = m.m[2][0] = t[4];
  m.m[1][2] = m.m[2][1] = t[5];
  return m;
}

static void put_sym(bg_real *t, const bg_mat3 *m) {
  t[0] = m->m[0][0];
  t[1] = m->m[1][1];
  t[2] = m->m[2][2];
  t[3] = 0.5f * (m->m[0][1] + m->m[1][0]);
  t[4] = 0.5f * (m->m[0][2] + m->m[2][0]);
  t[5] = 0.5f * (m->m[1][2] + m->m[2][1]);
}

/* The constitutive update of one particle, of material m: the one call
 * site of the material interface. F in: F_trial, out: F; st in/out;
 * returns the mode. */
static int ref_material_update(const bg_mat *m, bg_real dt, const bg_mat3 *C, bg_mat3 *F, bg_real *st,
                               bg_mat3 *tau) {
  bg_update_ctx u = {F, C, dt, st, tau};
  return bg_material_update(m, &u);
}

/* The material of row p, and whether the nonlocal service serves it. */
static const bg_mat *row_mat(const ref_state *s, size_t p) { return &s->cfg->mats[s->mat[p]]; }
static int row_nonlocal(const ref_state *s, size_t p) {
  return s->nl >= 0 && bg_material_nonlocal_slot(row_mat(s, p)->model) >= 0;
}

/* A state slot the model declares (bg_state_desc), or its neutral value
 * 0 when the model has none: log Jp = 0 is Jp = 1, q = 0 no plastic strain. */
static bg_real ref_slot(const bg_real *st, int slot) { return slot >= 0 ? st[slot] : 0.0f; }

/* The B-spline stencil of the particle at x. */
static bg_bspline stencil(const bg_config *c, const bg_real *x) {
  bg_real xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (x[d] - c->origin[d]) * c->inv_dx;
  return bg_bspline_eval_dim(xg, c->dim);
}

/* Node index of stencil node (a, b, k) and its offset from the particle (m). */
static int64_t stencil_node(const bg_config *c, const bg_bspline *w, int a, int b, int k, bg_real dpos[3]) {
  const int o[3] = {a, b, k};
  for (int d = 0; d < 3; ++d) dpos[d] = ((bg_real)o[d] - w->fx[d]) * c->dx;
  return ((int64_t)(w->base[0] + a) * c->dims[1] + (w->base[1] + b)) * c->dims[2] + (w->base[2] + k);
}

static int ref_available(char *why, size_t len) {
  (void)why;
  (void)len;
  return 1;
}

static void ref_destroy(void *state) {
  ref_state *s = state;
  if (!s) return;
  free(s->f);
  free(s->id);
  free(s->park);
  free(s->mat);
  free(s->grid);
  free(s->gs);
  free(s->gm);
  free(s->bn);
  free(s->bb);
  free(s->sink_mass);
  free(s->wf);
  free(s->cwf);
  free(s);
}

static bg_status ref_create(const bg_config *cfg, void **out, char *err, size_t len) {
  (void)err;
  (void)len;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return BG_ERR_NOMEM;
  s->cfg = cfg;
  s->nl = cfg->nl;
  s->grid = calloc((size_t)cfg->n_nodes, sizeof *s->grid);
  s->gs = s->nl >= 0 ? calloc((size_t)cfg->n_nodes, sizeof *s->gs) : NULL;
  s->gm = s->nl >= 0 && !cfg->nl_all ? calloc((size_t)cfg->n_nodes, sizeof *s->gm) : NULL;
  s->sink_mass = calloc((size_t)cfg->n_sinks + 1, sizeof *s->sink_mass);
  s->wf = calloc(BG_WALL_TALLY * (size_t)cfg->n_walls + 1, sizeof *s->wf);
  s->cwf = calloc(BG_WALL_TALLY * (size_t)cfg->n_walls + 1, sizeof *s->cwf);
  if (!s->grid || (s->nl >= 0 && !s->gs) || (s->nl >= 0 && !cfg->nl_all && !s->gm) || !s->sink_mass || !s->wf ||
      !s->cwf) {
    ref_destroy(s);
    return BG_ERR_NOMEM;
  }
  *out = s;
  return BG_OK;
}

static bg_status grow(ref_state *s, size_t n) {
  if (n <= s->cap) return BG_OK;
  size_t cap = s->cap ? s->cap : 1024;
  while (cap < n) cap *= 2;
  bg_real *f = realloc(s->f, cap * BG_RAW_NF * sizeof *f);
  if (!f) return BG_ERR_NOMEM;
  s->f = f;
  int64_t *id = realloc(s->id, cap * sizeof *id);
  if (!id) return BG_ERR_NOMEM;
  s->id = id;
  int32_t *park = realloc(s->park, cap * sizeof *park);
  if (!park) return BG_ERR_NOMEM;
  s->park = park;
  uint8_t *mat = realloc(s->mat, cap * sizeof *mat);
  if (!mat) return BG_ERR_NOMEM;
  s->mat = mat;
  s->cap = cap;
  return BG_OK;
}

static bg_status ref_add(void *state, size_t n, const bg_real *x, const bg_real *v, const bg_real *vol, int mat) {
  ref_state *s = state;
  if (grow(s, s->n + n) != BG_OK) return BG_ERR_NOMEM;
  for (size_t k = 0; k < n; ++k) {
    size_t p = s->n + k;
    bg_real *r = row(s, p);
    memset(r, 0, BG_RAW_NF * sizeof *r);
    for (int d = 0; d < 3; ++d) {
      r[BG_RAW_X + d] = x[3 * k + d];
      r[BG_RAW_V + d] = v ? v[3 * k + d] : 0.0f;
    }
    for (int d = 0; d < 3; ++d) r[BG_RAW_F + 4 * d] = 1.0f;
    r[BG_RAW_MODE] = (bg_real)BG_RM_ELASTIC;
    r[BG_RAW_VOL] = vol[k];
    r[BG_RAW_MASS] = s->cfg->mats[mat].el.rho0 * vol[k];
    s->id[p] = (int64_t)p;
    s->mat[p] = (uint8_t)mat;
    s->park[p] = -1;
    s->total_mass += (double)r[BG_RAW_MASS];
    /* the next dt must see these speeds, not only those of the last G2P */
    double sp = 0;
    for (int d = 0; d < 3; ++d) sp += (double)r[BG_RAW_V + d] * r[BG_RAW_V + d];
    if (sqrt(sp) > s->max_speed) s->max_speed = sqrt(sp);
  }
  s->n += n;
  return BG_OK;
}

static bg_status copy_list(const bg_bnode *nodes, size_t n, bg_bnode **list, size_t *len) {
  bg_bnode *copy = malloc((n ? n : 1) * sizeof *copy);
  if (!copy) return BG_ERR_NOMEM;
  if (n) memcpy(copy, nodes, n * sizeof *copy);
  free(*list);
  *list = copy;
  *len = n;
  return BG_OK;
}

static bg_status ref_set_boundary(void *state, const bg_bnode *nodes, size_t n) {
  ref_state *s = state;
  return copy_list(nodes, n, &s->bn, &s->n_bn);
}

/* The oracle takes the bodies' nodes apart, as the device does, so that
 * the front end's split list is held to the same closed forms on the host. */
static bg_status ref_set_body_nodes(void *state, const bg_bnode *nodes, size_t n) {
  ref_state *s = state;
  return copy_list(nodes, n, &s->bb, &s->n_bb);
}

/* No sort: the particles stay in the order they came in. */
static bg_status ref_sort(void *state, uint64_t step) {
  (void)state;
  (void)step;
  return BG_OK;
}

static bg_status ref_p2g(void *state, bg_real dt) {
  ref_state *s = state;
  const bg_config *c = s->cfg;
  const bg_cut_grid G = bg_cut_grid_of(c);
  const double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
  memset(s->grid, 0, (size_t)c->n_nodes * sizeof *s->grid);
  memset(s->cwf, 0, BG_WALL_TALLY * (size_t)c->n_walls * sizeof *s->cwf);
  if (s->gs) memset(s->gs, 0, (size_t)c->n_nodes * sizeof *s->gs);
  if (s->gm) memset(s->gm, 0, (size_t)c->n_nodes * sizeof *s->gm);
  for (size_t p = 0; p < s->n; ++p) {
    if (s->park[p] >= 0) continue;
    const bg_real *r = row(s, p);
    const int nonlocal = row_nonlocal(s, p);
    bg_bspline w = stencil(c, r + BG_RAW_X);
    bg_mat3 C = get_mat(r + BG_RAW_C), tau = get_sym(r + BG_RAW_TAU);
    bg_real m = r[BG_RAW_MASS];
    bg_mat3 A = bg_p2g_affine(m, r[BG_RAW_VOL], &C, &tau, dt, c->inv_dx);
    if (c->n_cuts) { /* a plate between the particle and some of its nodes */
      bg_cut_stencil cs;
      bg_cut_stencil_eval(c->cuts, c->n_cuts, &G, &w, r + BG_RAW_X, &cs);
      if (cs.cut) {
        bg_cut_p2g(&G, &cs, &w, s->grid, m, r + BG_RAW_V, &A, nonlocal ? s->gs : NULL, s->gm,
                   nonlocal ? r[BG_RAW_ST + s->nl] : 0.0f, c->cuts, s->cwf, inv_dt);
        continue;
      }
    }
    for (int a = 0; a < 3; ++a)
      for (int b = bg_stencil_b0(c); b <= bg_stencil_b1(c); ++b)
        for (int k = 0; k < 3; ++k) {
          bg_real dpos[3];
          int64_t i = stencil_node(c, &w, a, b, k, dpos);
          bg_real wt = bg_bspline_weight(&w, a, b, k);
          s->grid[i][0] += wt * m;
          for (int d = 0; d < 3; ++d) {
            bg_real mom = m * r[BG_RAW_V + d] + A.m[d][0] * dpos[0] + A.m[d][1] * dpos[1] + A.m[d][2] * dpos[2];
            s->grid[i][1 + d] += wt * mom;
          }
          if (nonlocal) s->gs[i] += wt * m * r[BG_RAW_ST + s->nl];
          if (nonlocal && s->gm) s->gm[i] += wt * m;
        }
  }
  return BG_OK;
}

static bg_status ref_grid_update(void *state, bg_real dt) {
  ref_state *s = state;
  const bg_config *c = s->cfg;
  const bg_real gdt[3] = {c->gravity[0] * dt, c->gravity[1] * dt, c->gravity[2] * dt};
  const bg_real damp = bg_damping_factor(c->damping, dt);
  for (int64_t i = 0; i < c->n_nodes; ++i) {
    bg_node_update(s->grid[i], gdt);
    if (damp != 1.0f)
      for (int d = 1; d < 4; ++d) s->grid[i][d] *= damp;
  }
  /* walls and colliders; the momentum a wall gives a node, over dt, is
   * minus the force on that wall */
  double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
  memset(s->wf, 0, BG_WALL_TALLY * (size_t)c->n_walls * sizeof *s->wf);
  for (size_t k = 0; k < s->n_bn + s->n_bb; ++k) {
    const bg_bnode *b = k < s->n_bn ? &s->bn[k] : &s->bb[k - s->n_bn];
    if (k < s->n_bn && s->n_bb && bg_bnode_find(s->bb, (int64_t)s->n_bb, b->node) >= 0) continue;
    bg_real *g = s->grid[b->node];
    if (!(g[0] > 0)) continue;
    bg_bnode_effect eff;
    bg_bnode_apply(b, c->walls, c->n_walls - BG_FACE_COUNT, g + 1, &eff);
    double xn[3];
    bg_node_offset(b->node, c->dims, c->dx, xn);
    bg_wall_tally_add(s->wf, &eff, g[0], inv_dt, xn);
  }
  return BG_OK;
}

/* The nonlocal service's Laplacian at a particle (bg_transfer.h) from the
 * nodal mass-weighted means (over the nonlocal particles' mass where the
 * table mixes them with others); nodes without mass carry no mean. */
static bg_real nodal_laplacian(const ref_state *s, const bg_bspline *w) {
  const bg_config *c = s->cfg;
  bg_real sum = 0.0f;
  for (int a = 0; a < 3; ++a)
    for (int b = bg_stencil_b0(c); b <= bg_stencil_b1(c); ++b)
      for (int k = 0; k < 3; ++k) {
        bg_real dpos[3];
        int64_t i = stencil_node(c, w, a, b, k, dpos);
        bg_real m = s->gm ? s->gm[i] : s->grid[i][0];
        bg_real lw = c->dim == 2 ? bg_bspline_lap_weight_plane(w->w, a, k) : bg_bspline_lap_weight(w->w, a, b, k);
        if (m > 0.0f) sum += lw * (s->gs[i] / m);
      }
  return sum * c->inv_dx * c->inv_dx;
}

static bg_status ref_g2p(void *state, bg_real dt) {
  ref_state *s = state;
  const bg_config *c = s->cfg;
  const bg_real k4 = 4.0f * c->inv_dx * c->inv_dx; /* the inverse APIC inertia */
  const bg_cut_grid G = bg_cut_grid_of(c);
  const double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
  double vmax2 = 0;
  for (size_t p = 0; p < s->n; ++p) {
    if (s->park[p] >= 0) continue;
    bg_real *r = row(s, p);
    bg_bspline w = stencil(c, r + BG_RAW_X);
    bg_real v[3] = {0, 0, 0};
    bg_mat3 B = bg_mat3_zero(), C;
    bg_cut_stencil cs;
    cs.cut = 0;
    if (c->n_cuts) bg_cut_stencil_eval(c->cuts, c->n_cuts, &G, &w, r + BG_RAW_X, &cs);
    if (cs.cut) /* a plate between the particle and some of its nodes: ghosts there */
      bg_cut_g2p(&G, &cs, &w, (const bg_real(*)[4])s->grid, c->cuts, c->walls, r + BG_RAW_X, r + BG_RAW_V,
                 r[BG_RAW_MASS], v, &C, s->cwf, inv_dt);
    else
      for (int a = 0; a < 3; ++a)
      for (int b = bg_stencil_b0(c); b <= bg_stencil_b1(c); ++b)
        for (int k = 0; k < 3; ++k) {
          bg_real dpos[3];
          int64_t i = stencil_node(c, &w, a, b, k, dpos);
          bg_real wt = bg_bspline_weight(&w, a, b, k);
          for (int d = 0; d < 3; ++d) {
            bg_real wv = wt * s->grid[i][1 + d];
            v[d] += wv;
            for (int e = 0; e < 3; ++e) B.m[d][e] += wv * dpos[e];
          }
        }
    bg_mat3 F = get_mat(r + BG_RAW_F), tau;
    if (!cs.cut)
      for (int e = 0; e < 9; ++e) C.m[e / 3][e % 3] = k4 * B.m[e / 3][e % 3];
    if (row_nonlocal(s, p)) r[BG_RAW_ST + s->nl + 1] = nodal_laplacian(s, &w);
    for (int d = 0; d < 3; ++d) {
      r[BG_RAW_V + d] = v[d];
      r[BG_RAW_X + d] += dt * v[d];
    }
    put_mat(r + BG_RAW_C, &C);
    F = bg_f_update(&C, &F, dt);
    r[BG_RAW_MODE] = (bg_real)ref_material_update(row_mat(s, p), dt, &C, &F, r + BG_RAW_ST, &tau);
    if (c->dim == 2) {
      bg_plane_strain_clear(&F);
      bg_plane_strain_clear(&tau);
    }
    put_mat(r + BG_RAW_F, &F);
    put_sym(r + BG_RAW_TAU, &tau);
    int32_t code = bg_park_code(c, c->sinks, r + BG_RAW_X);
    if (code >= 0) {
      s->park[p] = code;
      s->sink_mass[code] += (double)r[BG_RAW_MASS];
      s->parked_mass += (double)r[BG_RAW_MASS];
    } else {
      double sp = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
      if (sp > vmax2) vmax2 = sp;
    }
  }
  s->max_speed = sqrt(vmax2);
  return BG_OK;
}

static bg_status ref_get(void *state, bg_field f, bg_real *out) {
  ref_state *s = state;
  for (size_t p = 0; p < s->n; ++p) {
    const bg_real *r = row(s, p);
    size_t o = (size_t)s->id[p];
    const bg_mat *m = row_mat(s, p);
    const bg_real rho0 = m->el.rho0;
    bg_real log_jp = ref_slot(r + BG_RAW_ST, m->slot_log_jp);
    switch (f) {
      case BG_FIELD_X: memcpy(out + 3 * o, r + BG_RAW_X, 3 * sizeof *out); break;
      case BG_FIELD_V: memcpy(out + 3 * o, r + BG_RAW_V, 3 * sizeof *out); break;
      case BG_FIELD_F: memcpy(out + 9 * o, r + BG_RAW_F, 9 * sizeof *out); break;
      case BG_FIELD_C: memcpy(out + 9 * o, r + BG_RAW_C, 9 * sizeof *out); break;
      case BG_FIELD_JP: out[o] = expf(log_jp); break;
      case BG_FIELD_DENSITY: out[o] = bg_density(rho0, bg_mat3_det(get_mat(r + BG_RAW_F)), log_jp); break;
      case BG_FIELD_Q: out[o] = ref_slot(r + BG_RAW_ST, m->slot_q); break;
      case BG_FIELD_STRESS: {
        /* Cauchy stress: tau over the current volume ratio det(F_E) Jp */
        bg_mat3 t = get_sym(r + BG_RAW_TAU);
        bg_real J = bg_mat3_det(get_mat(r + BG_RAW_F)) * expf(log_jp);
        for (int e = 0; e < 9; ++e) out[9 * o + (size_t)e] = t.m[e / 3][e % 3] / J;
        break;
      }
      case BG_FIELD_MASS: out[o] = r[BG_RAW_MASS]; break;
      case BG_FIELD_ACTIVE: out[o] = s->park[p] < 0 ? 1.0f : 0.0f; break;
      case BG_FIELD_MODE: out[o] = r[BG_RAW_MODE]; break;
      case BG_FIELD_MATERIAL: out[o] = (bg_real)s->mat[p]; break;
    }
  }
  return BG_OK;
}

static bg_status ref_stats(void *state, bg_backend_stats *out, double *sink_mass) {
  ref_state *s = state;
  memset(out, 0, sizeof *out);
  for (size_t p = 0; p < s->n; ++p) {
    if (s->park[p] < 0) out->n_active++;
    else if (s->park[p] < s->cfg->n_sinks) out->n_parked_sink++;
    else out->n_parked_out++;
  }
  out->parked_mass = s->parked_mass;
  out->total_mass = s->total_mass;
  out->max_speed = s->max_speed;
  if (sink_mass)
    for (int k = 0; k < s->cfg->n_sinks; ++k) sink_mass[k] = s->sink_mass[k];
  return BG_OK;
}

static bg_status ref_grid(void *state, int which, bg_real *out) {
  ref_state *s = state;
  for (int64_t i = 0; i < s->cfg->n_nodes; ++i) {
    if (which == 0) out[i] = s->grid[i][0];
    else
      for (int d = 0; d < 3; ++d) out[3 * i + d] = s->grid[i][0] > 0 ? s->grid[i][1 + d] : 0.0f;
  }
  return BG_OK;
}

static size_t ref_count(void *state) { return ((ref_state *)state)->n; }

static bg_status ref_export(void *state, bg_raw *r) {
  ref_state *s = state;
  for (size_t p = 0; p < s->n; ++p)
    for (int k = 0; k < BG_RAW_NF; ++k) r->f[k][p] = row(s, p)[k];
  if (s->n) {
    memcpy(r->id, s->id, s->n * sizeof *s->id);
    memcpy(r->park, s->park, s->n * sizeof *s->park);
    memcpy(r->mat, s->mat, s->n * sizeof *s->mat);
  }
  r->n = s->n;
  r->parked_mass = s->parked_mass;
  r->total_mass = s->total_mass;
  r->max_speed = s->max_speed;
  for (int k = 0; k <= s->cfg->n_sinks; ++k) r->sink_mass[k] = s->sink_mass[k];
  r->n_runs = -1; /* no sort state: every step visits the particles in their order */
  return BG_OK;
}

static bg_status ref_import(void *state, const bg_raw *r) {
  ref_state *s = state;
  if (grow(s, r->n) != BG_OK) return BG_ERR_NOMEM;
  for (size_t p = 0; p < r->n; ++p)
    for (int k = 0; k < BG_RAW_NF; ++k) row(s, p)[k] = r->f[k][p];
  if (r->n) {
    memcpy(s->id, r->id, r->n * sizeof *s->id);
    memcpy(s->park, r->park, r->n * sizeof *s->park);
    memcpy(s->mat, r->mat, r->n * sizeof *s->mat);
  }
  s->n = r->n;
  s->parked_mass = r->parked_mass;
  s->total_mass = r->total_mass;
  s->max_speed = r->max_speed;
  for (int k = 0; k <= s->cfg->n_sinks; ++k) s->sink_mass[k] = r->sink_mass[k];
  return BG_OK;
}

static bg_status ref_wall_forces(void *state, double *out) {
  ref_state *s = state;
  for (size_t k = 0; k < BG_WALL_TALLY * (size_t)s->cfg->n_walls; ++k) out[k] = s->wf[k] + s->cwf[k];
  return BG_OK;
}

static void ref_memory(void *state, bg_memory *out) {
  ref_state *s = (ref_state *)state;
  const size_t nn = (size_t)s->cfg->n_nodes;
  out->particle_bytes = s->cap * (BG_RAW_NF * sizeof *s->f + sizeof *s->id + sizeof *s->park + sizeof *s->mat);
  out->grid_nodes = nn;
  out->grid_bytes = nn * sizeof *s->grid + (s->gs ? nn * sizeof *s->gs : 0) + (s->gm ? nn * sizeof *s->gm : 0);
  out->other_bytes = (s->n_bn + s->n_bb) * sizeof *s->bn;
}

const bg_backend_ops bg_backend_cpu_ref = {
    .variant = 0,
    .properties = NULL,
    .n_properties = 0,
    .available = ref_available,
    .create = ref_create,
    .destroy = ref_destroy,
    .add = ref_add,
    .set_boundary = ref_set_boundary,
    .set_body_nodes = ref_set_body_nodes,
    .sort = ref_sort,
    .p2g = ref_p2g,
    .grid_update = ref_grid_update,
    .g2p = ref_g2p,
    .get = ref_get,
    .stats = ref_stats,
    .grid = ref_grid,
    .count = ref_count,
    .stage_times = NULL, /* synchronous: the front end's wall clock */
    .export_raw = ref_export,
    .import_raw = ref_import,
    .wall_forces = ref_wall_forces,
    .memory = ref_memory,
};
