/* bg_column.c: the released sand column (see bg_column.h). */
#include "bg_column.h"

#include "bg_fit.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bg_column_scene bg_column_scene_default(void) {
  bg_column_scene sc;
  memset(&sc, 0, sizeof sc);
  sc.R0 = 0.1;
  sc.aspect = 1.0;
  sc.phi = 35;
  sc.material = bg_material_sand();
  sc.L_over_R0 = 2.5;
  sc.t_max_s = 3.0;
  sc.jitter = 0.5;
  sc.cells = 8;
  sc.ridge_cells = 4;
  sc.floor = BG_FRICTION_COULOMB;
  sc.mu = 1.0;
  sc.ke_frac = 1e-4;
  sc.check_frac = 0.1;
  sc.runout_h = 1.0;
  sc.backend = "auto";
  sc.seed = 1;
  return sc;
}

bg_column_scene bg_column_scene_lab(const bg_lab *lab, double R0, double phi) {
  bg_column_scene sc = bg_column_scene_default();
  sc.R0 = R0;
  sc.phi = phi;
  sc.material = bg_lab_material(lab);
  if (sc.material.model == BG_MODEL_DP) sc.material.dp.phi_deg = (bg_real)phi;
  sc.backend = bg_lab_backend(lab);
  sc.threads = bg_lab_threads(lab);
  sc.seed = bg_lab_seed(lab);
  sc.poisson = bg_lab_seeding(lab) == BG_SEEDING_POISSON;
  return sc;
}

static double kinetic_energy(bg_sim *sim, size_t n, bg_real *v, const bg_real *m) {
  bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
  double ke = 0;
  for (size_t p = 0; p < n; ++p)
    ke += 0.5 * m[p] * ((double)v[3 * p] * v[3 * p] + (double)v[3 * p + 1] * v[3 * p + 1] +
                        (double)v[3 * p + 2] * v[3 * p + 2]);
  return ke;
}

static void fail_sim(const char *what, bg_status s, const char *msg) {
  bg_lab_fail("%s: %s (%s)", what, bg_status_name(s), msg);
}

static void *xcalloc(size_t n, size_t s) {
  void *p = calloc(n ? n : 1, s);
  if (!p) {
    bg_lab_fail("out of memory (%zu bytes)", n * s);
  }
  return p;
}

/* The toe from the mass distribution: where the deposit ends in a wedge
 * (thickness linear in R - r), the mass outside r grows as (R - r)^2, so the
 * radius of mass fraction F is linear in sqrt(1 - F) with intercept R. */
static double column_front(const double *sorted, size_t n) {
  static const double F[] = {0.80, 0.85, 0.90, 0.95, 0.98, 0.99};
  enum { NF = sizeof F / sizeof F[0] };
  double xs[NF], ys[NF];
  for (int i = 0; i < NF; ++i) {
    xs[i] = sqrt(1 - F[i]);
    ys[i] = gsl_stats_quantile_from_sorted_data(sorted, 1, n, F[i]);
  }
  return bg_fit_line(xs, ys, NF).c0;
}

/* the column's footprint: lattice points within R0 (ctx) of the axis */
static int in_column(const double p[3], void *ctx) {
  const double R0 = *(const double *)ctx;
  return !(p[0] * p[0] + p[1] * p[1] > R0 * R0);
}

static double rng_uniform(void *rng) { return gsl_rng_uniform(rng); }

/* the column (pile: radius R0 about the z axis; ridge: the slab
 * 0 <= x <= R0, 0 <= y <= Ly), height H0, shrunk by inset from each face:
 * a sample inset r/2 from a mirror plane is r from its image */
typedef struct column_shape {
  double R0, H0, Ly, inset;
  int ridge, full;
} column_shape;

static int in_shape(const double p[3], void *ctx) {
  const column_shape *c = ctx;
  double e = c->inset;
  if (p[2] < e || p[2] > c->H0 - e) return 0;
  if (c->ridge) return p[0] >= e && p[0] <= c->R0 - e && p[1] >= e && p[1] <= c->Ly - e;
  if (!c->full && (p[0] < e || p[1] < e)) return 0;
  double rr = c->R0 - e;
  return p[0] * p[0] + p[1] * p[1] <= rr * rr;
}

/* Poisson-disk samples of the column at ppc 8 and the volume each carries
 * (the column's measured volume over the count); x is malloc'd. rng was
 * just set to rng_seed: a retry with room for the count needed restarts it */
static bg_real *seed_poisson(const bg_column_scene *sc, double dx, double H0, double Ly, gsl_rng *rng,
                             unsigned long rng_seed, size_t *n, double *vol) {
  char err[512];
  column_shape shape = {sc->R0, H0, Ly, 0, sc->ridge, sc->full};
  bg_seed_poisson_desc pd = {.hi = {sc->R0, sc->ridge ? Ly : sc->R0, H0},
                             .dx = dx,
                             .ppc = 8,
                             .inside = in_shape,
                             .inside_ctx = &shape,
                             .uniform = rng_uniform,
                             .uniform_ctx = rng};
  if (sc->full) pd.lo[0] = pd.lo[1] = -sc->R0;
  shape.inset = 0.5 * bg_seed_poisson_radius(dx, pd.ppc);
  /* ppc in the whole box and half again for the denser layer at the faces */
  double box = (pd.hi[0] - pd.lo[0]) * (pd.hi[1] - pd.lo[1]) * (pd.hi[2] - pd.lo[2]);
  size_t cap = (size_t)(1.5 * pd.ppc * box / (dx * dx * dx)) + 64;
  bg_real *x = bg_lab_xmalloc(3 * cap * sizeof *x);
  bg_status s = bg_seed_poisson(&pd, x, cap, n, err, sizeof err);
  if (s == BG_ERR_RANGE && *n > cap) {
    cap = *n;
    free(x);
    x = bg_lab_xmalloc(3 * cap * sizeof *x);
    gsl_rng_set(rng, rng_seed);
    s = bg_seed_poisson(&pd, x, cap, n, err, sizeof err);
  }
  if (s != BG_OK) fail_sim("bg_seed_poisson", s, err);
  shape.inset = 0;
  bg_seed_volume_desc vd = {.h = 0.25 * dx, .inside = in_shape, .inside_ctx = &shape, .uniform = rng_uniform,
                            .uniform_ctx = rng};
  memcpy(vd.lo, pd.lo, sizeof vd.lo);
  memcpy(vd.hi, pd.hi, sizeof vd.hi);
  bg_seed_volume_result vr;
  if ((s = bg_seed_volume(&vd, *n, &vr, err, sizeof err)) != BG_OK) fail_sim("bg_seed_volume", s, err);
  *vol = vr.per_particle;
  return x;
}

/* The loop's state between iterations (what a checkpoint must carry): the
 * time reached, the last kinetic energy, its peak and whether it settled. */
typedef struct column_loop {
  double *t, *ke, *ke_peak;
  int *settled;
} column_loop;

#define COLUMN_STATE_MAGIC 0x636f6c31u /* "col1": the layout below */

static void column_pack(void *ctx, bg_lab_blob *b) {
  const column_loop *c = ctx;
  uint32_t magic = COLUMN_STATE_MAGIC;
  int32_t settled = *c->settled;
  bg_lab_blob_put(b, &magic, sizeof magic);
  bg_lab_blob_put(b, &settled, sizeof settled);
  bg_lab_blob_put(b, c->t, sizeof *c->t);
  bg_lab_blob_put(b, c->ke, sizeof *c->ke);
  bg_lab_blob_put(b, c->ke_peak, sizeof *c->ke_peak);
}

static void column_unpack(const column_loop *c, bg_lab_blob *b, const char *tag) {
  uint32_t magic;
  int32_t settled;
  bg_lab_blob_get(b, &magic, sizeof magic);
  if (magic != COLUMN_STATE_MAGIC) bg_lab_fail("%s: the checkpoint holds another loop's state", tag);
  bg_lab_blob_get(b, &settled, sizeof settled);
  bg_lab_blob_get(b, c->t, sizeof *c->t);
  bg_lab_blob_get(b, c->ke, sizeof *c->ke);
  bg_lab_blob_get(b, c->ke_peak, sizeof *c->ke_peak);
  *c->settled = settled;
}

/* The deposit's surface from particle positions (see bg_column.h). */
void bg_column_surface(bg_column_result *res, const bg_real *x, size_t n, const bg_column_grid *g) {
  const double dx = g->dx, off = g->off;
  const int nx = g->nx, ny = g->ny;
  double *hf = xcalloc((size_t)nx * ny, sizeof *hf);
  for (size_t p = 0; p < n; ++p) {
    if (g->skip && g->skip[p]) continue;
    int i = (int)floor((x[3 * p] + off) / dx), j = g->plane ? 0 : (int)floor((x[3 * p + 1] + off) / dx);
    if (i < 0 || j < 0 || i >= nx || j >= ny) continue;
    double top = x[3 * p + 2] + 0.25 * dx;
    if (top > hf[(size_t)i * ny + j]) hf[(size_t)i * ny + j] = top;
  }
  {
    /* the lattice gives every particle the same volume, so the same mass */
    double *rp = bg_lab_xmalloc((n ? n : 1) * sizeof *rp);
    for (size_t p = 0; p < n; ++p)
      rp[p] = g->ridge ? (double)x[3 * p] : hypot((double)x[3 * p], (double)x[3 * p + 1]);
    gsl_sort(rp, 1, n);
    res->r99 = n ? gsl_stats_quantile_from_sorted_data(rp, 1, n, 0.99) : NAN;
    res->front = n ? column_front(rp, n) : NAN;
    free(rp);
  }
  res->nx = nx;
  res->ny = ny;
  res->hf = hf;
  double hmax = 0;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      if ((i + 0.5) * dx - off >= g->x_min && hf[(size_t)i * ny + j] > hmax) hmax = hf[(size_t)i * ny + j];
  res->h_max = hmax;

  /* profile: radial (pile) or along x (ridge), bins dx wide, mean thickness */
  int nb = g->nb;
  double *hs = xcalloc((size_t)nb, sizeof *hs), *cnt = xcalloc((size_t)nb, sizeof *cnt);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) {
      double cx = (i + 0.5) * dx - off, cy = (j + 0.5) * dx - off;
      double r = g->ridge ? cx : hypot(cx, cy);
      int b = (int)floor(r / dx);
      if (b >= nb || r < g->x_min) continue;
      hs[b] += hf[(size_t)i * ny + j];
      cnt[b] += 1;
    }
  res->nbins = 0;
  res->rbin = bg_lab_xmalloc((size_t)nb * sizeof *res->rbin);
  res->hbin = bg_lab_xmalloc((size_t)nb * sizeof *res->hbin);
  res->runout = 0;
  double thr = g->runout_h * dx;
  for (int b = 0; b < nb; ++b) {
    if (cnt[b] == 0) continue;
    double r = (b + 0.5) * dx, h = hs[b] / cnt[b];
    res->rbin[res->nbins] = r;
    res->hbin[res->nbins++] = h;
    /* outermost crossing of the threshold, interpolated between bin centres */
    if (h >= thr) {
      res->runout = r;
      if (b + 1 < nb && cnt[b + 1] > 0) {
        double hn = hs[b + 1] / cnt[b + 1];
        if (hn < thr) res->runout = r + dx * (h - thr) / (h - hn);
      }
    }
  }
  res->h_center = cnt[0] > 0 ? hs[0] / cnt[0] : NAN;
  res->runout_wall = res->runout >= g->L - 2 * dx; /* the far wall would hold it back */
  free(hs);
  free(cnt);
}

void bg_column_scene_key(const bg_column_scene *sc, char *buf, size_t n) {
  const bg_material *m = &sc->material;
  /* %a: the exact doubles, so two scenes share a key only when equal */
  int o = snprintf(buf, n,
                   "column R0 %a aspect %a phi %a L %a t_max %a jitter %a poisson %d cells %d ridge %d "
                   "ridge_cells %d dim %d full %d floor %d mu %a ke_frac %a check_frac %a runout_h %a "
                   "backend %s threads %d seed %lu material %s E %a nu %a rho0 %a stress %d vc %d "
                   "elastic_only %d",
                   sc->R0, sc->aspect, sc->phi, sc->L_over_R0, sc->t_max_s, sc->jitter, sc->poisson,
                   sc->cells, sc->ridge, sc->ridge_cells, sc->dim, sc->full, (int)sc->floor, sc->mu,
                   sc->ke_frac, sc->check_frac, sc->runout_h, sc->backend ? sc->backend : "(default)",
                   sc->threads, sc->seed, bg_material_model_name(m->model) ? bg_material_model_name(m->model) : "?",
                   (double)m->E, (double)m->nu, (double)m->rho0, (int)m->stress, m->volume_correction,
                   m->elastic_only);
  /* the model's own parameters by name (every union member starts where dp does) */
  const char *base = (const char *)&m->dp;
  for (int i = 0; o >= 0 && (size_t)o < n && i < bg_material_param_count(m->model); ++i) {
    const char *name;
    size_t off;
    bg_matp_kind kind;
    if (bg_material_param_info(m->model, i, &name, &off, &kind) != BG_OK) break;
    if (kind == BG_MATP_REAL)
      o += snprintf(buf + o, n - (size_t)o, " %s %a", name, (double)*(const bg_real *)(base + off));
    else
      o += snprintf(buf + o, n - (size_t)o, " %s %d", name, *(const int *)(base + off));
  }
  if (o < 0 || (size_t)o >= n) bg_lab_fail("a column scene's key is longer than %zu characters", n - 1);
}

bg_column_result bg_column_run(bg_lab *lab, const bg_column_scene *sc, const char *tag) {
  bg_column_result res;
  memset(&res, 0, sizeof res);
  const double g = 9.81;
  double R0 = sc->R0, H0 = sc->aspect * R0, dx = R0 / sc->cells;
  res.dx = dx;
  res.H0 = H0;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.material = sc->material;
  if (desc.material.model == BG_MODEL_DP) desc.material.dp.phi_deg = (bg_real)sc->phi;
  desc.dx = (bg_real)dx;
  /* domain faces lie midway between node planes 1 and 2 from each end:
   * x = 0 and y = 0 are the mirror planes, x = L (and y = L) far walls */
  int nl = (int)ceil(sc->L_over_R0 * sc->cells);
  if (sc->full && sc->ridge) bg_lab_fail("%s: a full column is a pile, not a ridge", tag);
  const int plane = sc->dim == 2;
  if (plane && (!sc->ridge || sc->poisson))
    bg_lab_fail("%s: the 2D solver runs the ridge with lattice seeding only (a pile is 3D; --seeding poisson "
                "samples volumes)", tag);
  /* full: faces at -L and L on x and y, the axis at the origin */
  int nf = sc->full ? 2 * nl : nl;
  double off = sc->full ? nl * dx : 0;
  desc.dims[0] = (size_t)nf + 4;
  desc.dims[1] = plane ? 1 : sc->ridge ? (size_t)sc->ridge_cells + 4 : (size_t)nf + 4;
  desc.dim = plane ? 2 : 3;
  desc.dims[2] = (size_t)ceil(H0 * 1.15 / dx) + 8;
  desc.origin[0] = (bg_real)(-1.5 * dx - off);
  desc.origin[1] = (bg_real)(-1.5 * dx - off);
  desc.origin[2] = (bg_real)(-2.5 * dx); /* floor z = 0 midway between nodes 2 and 3 */
  double L = nl * dx, Ly = plane ? 0.5 * dx : (double)(desc.dims[1] - 4) * dx; /* 2D: one lattice row */
  desc.walls[BG_FACE_ZLO].friction = BG_FRICTION_OPEN; /* the floor collider does it */
  bg_collider flr;
  memset(&flr, 0, sizeof flr);
  flr.shape = BG_SHAPE_HALFSPACE;
  flr.normal[2] = 1;
  flr.friction = sc->floor;
  flr.mu = (bg_real)sc->mu;
  desc.colliders = &flr;
  desc.n_colliders = 1;
  desc.backend = sc->backend;
  desc.threads = sc->threads;
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(&desc, &sim, err, sizeof err);
  if (s != BG_OK) fail_sim("bg_sim_create", s, err);
  bg_sim_desc held;
  if ((s = bg_sim_describe(sim, &held)) != BG_OK) fail_sim("bg_sim_describe", s, bg_sim_last_error(sim));
  double phi_fed = held.material.model == BG_MODEL_DP ? (double)held.material.dp.phi_deg : NAN;

  /* ppc 8: a lattice of spacing dx/2, each point jittered within its cell */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  unsigned long rng_seed = sc->seed + (unsigned long)sc->cells * 7919ul + (unsigned long)sc->ridge * 104729ul;
  gsl_rng_set(rng, rng_seed);
  double sp = 0.5 * dx, vol = 0;
  int ni = (int)floor(R0 / sp + 1e-9), nk = (int)floor(H0 / sp + 1e-9);
  int nj = sc->ridge ? (int)floor(Ly / sp + 1e-9) : ni;
  bg_seed_lattice_desc lat = {.spacing = sp,
                              .count = {(size_t)ni, (size_t)nj, (size_t)nk},
                              .jitter = sc->jitter,
                              .inside = sc->ridge ? NULL : in_column,
                              .inside_ctx = &R0,
                              .uniform = rng_uniform,
                              .uniform_ctx = rng};
  if (sc->full) {
    lat.origin[0] = lat.origin[1] = -ni * sp;
    lat.count[0] = lat.count[1] = (size_t)(2 * ni);
  }
  size_t cap = lat.count[0] * lat.count[1] * lat.count[2], n = 0;
  bg_real *x;
  if (sc->poisson) {
    x = seed_poisson(sc, dx, H0, Ly, rng, rng_seed, &n, &vol);
  } else {
    x = bg_lab_xmalloc(3 * cap * sizeof *x);
    if ((s = bg_seed_lattice(&lat, x, cap, &n, err, sizeof err)) != BG_OK) fail_sim("bg_seed_lattice", s, err);
  }
  gsl_rng_free(rng);
  if (sc->poisson) {
    bg_real *pv = bg_lab_xmalloc(n * sizeof *pv);
    for (size_t p = 0; p < n; ++p) pv[p] = (bg_real)vol;
    s = bg_sim_add_particles_volume(sim, n, x, NULL, pv);
    free(pv);
  } else if (plane) {
    /* onto the plane: the lattice's one row of y, jittered like the rest, is dropped */
    for (size_t p = 0; p < n; ++p) x[3 * p + 1] = desc.origin[1];
    s = bg_sim_add_particles(sim, n, x, NULL, 4);
  } else {
    s = bg_sim_add_particles(sim, n, x, NULL, 8);
  }
  if (s != BG_OK) fail_sim("bg_sim_add_particles", s, bg_sim_last_error(sim));
  res.n_particles = n;
  res.phi_fed = phi_fed;
  res.cohesion_fed = held.material.model == BG_MODEL_DP ? (double)held.material.dp.cohesion : NAN;
  res.rho0_fed = (double)held.material.rho0;

  bg_real *v = bg_lab_xmalloc(3 * n * sizeof *v), *m = bg_lab_xmalloc(n * sizeof *m);
  double M = 0;
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  for (size_t p = 0; p < n; ++p) M += m[p];
  res.ke_thresh = sc->ke_frac * M * g * R0;
  double tc = sqrt(R0 / g), t = 0, ke = 0;
  bg_lab_progress(lab, "%s: %s, dx %.3g mm (%d cells per R0), a %.3g, %zu%s particles, grid %zux%zux%zu, floor %s mu %g",
                  tag, plane ? "2D" : "3D", dx * 1e3, sc->cells, sc->aspect, n, sc->poisson ? " poisson" : "", desc.dims[0], desc.dims[1], desc.dims[2],
                  sc->floor == BG_FRICTION_STICK ? "stick" : "coulomb", sc->mu);
  column_loop cl = {&t, &ke, &res.ke_peak, &res.settled};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) column_unpack(&cl, &state, tag);
  bg_lab_blob_free(&state);
  while (!finished && t < sc->t_max_s) {
    t += sc->check_frac * tc;
    if (t > sc->t_max_s) t = sc->t_max_s;
    s = bg_sim_advance_to(sim, t);
    if (s != BG_OK) fail_sim("bg_sim_advance_to", s, bg_sim_last_error(sim));
    ke = kinetic_energy(sim, n, v, m);
    {
      bg_stats st;
      if (bg_sim_stats(sim, &st) == BG_OK) bg_lab_progress_sim(lab, tag, t, sc->t_max_s, (double)n * (double)st.step);
    }
    if (ke > res.ke_peak) res.ke_peak = ke;
    if (res.ke_peak > 10 * res.ke_thresh && ke < res.ke_thresh) {
      res.settled = 1;
      break;
    }
    bg_lab_sim_tick(ls, column_pack, &cl);
  }
  bg_lab_sim_end(ls, column_pack, &cl);
  bg_stats st;
  bg_sim_stats(sim, &st);
  res.steps = st.step;
  res.t_end = st.time;
  res.ke_end = ke;
  bg_lab_add_work(lab, (double)n * (double)st.step);

  /* the deposit's surface, as every column reader of the lab reads it */
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_column_grid cg = {.dx = dx, .off = off, .L = L, .nx = nf, .ny = plane ? 1 : sc->ridge ? (int)(desc.dims[1] - 4) : nf,
                       .nb = nl, .ridge = sc->ridge, .plane = plane, .runout_h = sc->runout_h, .x_min = -INFINITY,
                       .skip = NULL};
  bg_column_surface(&res, x, n, &cg);
  free(x);
  free(v);
  free(m);
  bg_sim_destroy(sim);
  return res;
}

void bg_column_result_free(bg_column_result *r) {
  free(r->hf);
  free(r->rbin);
  free(r->hbin);
  r->hf = r->rbin = r->hbin = NULL;
}

/* Every field, one by one in a fixed order (never the struct with its
 * pointers and padding), so that a sweep's point can hand its result to
 * the gather through a file. */
void bg_column_result_pack(const bg_column_result *r, bg_lab_blob *b) {
  const uint64_t np = r->n_particles, steps = r->steps;
  const int32_t iv[5] = {r->settled, r->runout_wall, r->nx, r->ny, r->nbins};
  const double dv[14] = {r->dx,     r->H0,       r->t_end,  r->ke_end, r->ke_thresh, r->ke_peak,   r->h_max,
                         r->h_center, r->runout, r->r99,    r->front,  r->phi_fed,   r->cohesion_fed, r->rho0_fed};
  bg_lab_blob_put(b, &np, sizeof np);
  bg_lab_blob_put(b, &steps, sizeof steps);
  bg_lab_blob_put(b, iv, sizeof iv);
  bg_lab_blob_put(b, dv, sizeof dv);
  if (r->nx > 0 && r->ny > 0) bg_lab_blob_put(b, r->hf, (size_t)r->nx * (size_t)r->ny * sizeof *r->hf);
  if (r->nbins > 0) {
    bg_lab_blob_put(b, r->rbin, (size_t)r->nbins * sizeof *r->rbin);
    bg_lab_blob_put(b, r->hbin, (size_t)r->nbins * sizeof *r->hbin);
  }
}

static double *unpack_array(bg_lab_blob *b, size_t n) {
  if (n == 0) return NULL;
  if (n > (b->len - b->pos) / sizeof(double)) bg_lab_fail("a column result ends early: %zu values expected", n);
  double *a = malloc(n * sizeof *a);
  if (!a) bg_lab_fail("out of memory for a column result (%zu values)", n);
  bg_lab_blob_get(b, a, n * sizeof *a);
  return a;
}

bg_column_result bg_column_result_unpack(bg_lab_blob *b) {
  bg_column_result r = bg_column_result_unpack_part(b);
  if (b->pos != b->len) bg_lab_fail("a column result has %zu bytes more than its fields", b->len - b->pos);
  return r;
}

bg_column_result bg_column_result_unpack_part(bg_lab_blob *b) {
  bg_column_result r;
  memset(&r, 0, sizeof r);
  uint64_t np, steps;
  int32_t iv[5];
  double dv[14];
  bg_lab_blob_get(b, &np, sizeof np);
  bg_lab_blob_get(b, &steps, sizeof steps);
  bg_lab_blob_get(b, iv, sizeof iv);
  bg_lab_blob_get(b, dv, sizeof dv);
  r.n_particles = (size_t)np;
  r.steps = steps;
  r.settled = iv[0];
  r.runout_wall = iv[1];
  r.nx = iv[2];
  r.ny = iv[3];
  r.nbins = iv[4];
  if (r.nx < 0 || r.ny < 0 || r.nbins < 0) bg_lab_fail("a column result has negative sizes: damaged");
  r.dx = dv[0];
  r.H0 = dv[1];
  r.t_end = dv[2];
  r.ke_end = dv[3];
  r.ke_thresh = dv[4];
  r.ke_peak = dv[5];
  r.h_max = dv[6];
  r.h_center = dv[7];
  r.runout = dv[8];
  r.r99 = dv[9];
  r.front = dv[10];
  r.phi_fed = dv[11];
  r.cohesion_fed = dv[12];
  r.rho0_fed = dv[13];
  r.hf = unpack_array(b, (size_t)r.nx * (size_t)r.ny);
  r.rbin = unpack_array(b, (size_t)r.nbins);
  r.hbin = unpack_array(b, (size_t)r.nbins);
  return r;
}

void bg_column_write_profile(bg_lab *lab, const bg_column_result *r, const bg_column_scene *sc,
                             const char *file, const char *comment) {
  FILE *fp = bg_lab_tsv(lab, file, comment, "r_m\th_m\tr_over_R0\th_over_H0");
  for (int b = 0; b < r->nbins; ++b)
    fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\n", r->rbin[b], r->hbin[b], r->rbin[b] / sc->R0,
            r->hbin[b] / (sc->aspect * sc->R0));
  fclose(fp);
}
