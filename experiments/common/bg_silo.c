/* bg_silo.c: one silo discharge run (see bg_silo.h and experiments/silo/silo.c). */
#include "bg_silo.h"

#include <gsl/gsl_math.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"

#define G 9.81

static void fail_sim(const char *what, bg_status s, const char *msg) {
  bg_lab_fail("%s: %s (%s)", what, bg_status_name(s), msg);
}

/* --------------------------------------------------------------- geometry */

typedef struct grid_geo {
  bg_sim_desc desc;
  bg_real *phi;  /* floor node field */
  double xc;     /* aperture centre x (slot), m */
  double L, H, T; /* width/diameter, fill height, slab thickness (slot) */
  double z_sink;
  double A;       /* cross-section of the fill, m^2 (set from the particles) */
  int n_free;     /* free floor-plane nodes in the hole, as this file built them */
} grid_geo;

/* The floor from the scene's mesh: its signed distance on the grid's
 * nodes, taken in the mesh's units (grid scaled by 1 / D about the aperture
 * centre) and scaled back by D; free hole nodes counted as fed_aperture
 * counts them (phi >= 0 on the node plane under z = 0, inside the silo). */
static void mesh_floor(bg_lab *lab, const bg_silo_scene *sc, grid_geo *g, int64_t nx, int64_t ny,
                       int64_t nz) {
  const bg_sim_desc *d = &g->desc;
  double dx = sc->dx, D = sc->D_cells * dx, lo[3], hi[3];
  double shift[3] = {g->xc, sc->round ? g->xc : 0.0, 0.0}, o[3];
  for (int a = 0; a < 3; ++a) o[a] = (d->origin[a] - shift[a]) / D;
  bg_mesh_bounds(sc->floor_mesh, lo, hi);
  double reach[2] = {(double)(nx - 1) * dx / D, (double)(ny - 1) * dx / D};
  for (int a = 0; a < 2; ++a)
    if (lo[a] > o[a] || hi[a] < o[a] + reach[a])
      bg_lab_fail(
          "the floor mesh spans %c in [%g, %g] orifice diameters; the grid at D = %.3f mm needs "
          "[%g, %g]",
          "xy"[a], lo[a], hi[a], D * 1e3, o[a], o[a] + reach[a]);
  size_t dims[3] = {(size_t)nx, (size_t)ny, (size_t)nz};
  char err[512];
  if (bg_mesh_sdf_grid(sc->floor_mesh, dims, dx / D, o, g->phi, dims[0] * dims[1] * dims[2], err,
                       sizeof err) != BG_OK)
    bg_lab_fail("the floor mesh's distance field: %s", err);
  int64_t kt = 2 + 3 + sc->gap_cells + sc->floor_cells - 1;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j) {
      size_t n = (size_t)((i * ny + j) * nz + kt);
      double x = d->origin[0] + (double)i * dx, y = d->origin[1] + (double)j * dx;
      int inside =
          sc->round ? hypot(x, y) < 0.5 * g->L : (fabs(x) < 0.5 * g->L && y > 0 && y < g->T);
      if (inside && g->phi[n] >= 0) g->n_free++;
    }
  /* the same solid as the analytic floor? its sign at every node, and the
   * two fields' largest difference in the solid and over the grid (the
   * analytic max() is no exact distance off the orifice's edges) */
  long sign_diff = 0;
  double dmax_solid = 0, dmax = 0, t = sc->floor_cells * dx, R = 0.5 * D;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) {
        size_t n = (size_t)((i * ny + j) * nz + k);
        g->phi[n] = (bg_real)(g->phi[n] * D);
        double x = d->origin[0] + (double)i * dx, y = d->origin[1] + (double)j * dx,
               z = d->origin[2] + (double)k * dx;
        double rho = sc->round ? hypot(x - g->xc, y - g->xc) : fabs(x - g->xc);
        double ref = (bg_real)fmax(fabs(z + 0.5 * t) - 0.5 * t, R - rho),
               diff = fabs(g->phi[n] - ref);
        if ((g->phi[n] < 0) != (ref < 0)) sign_diff++;
        dmax = fmax(dmax, diff);
        if (ref < 0) dmax_solid = fmax(dmax_solid, diff);
      }
  bg_lab_progress(
      lab,
      "floor mesh at D = %.3f mm against the analytic floor: sign differs at %ld of %lld nodes; "
      "max |phi difference| %.3g cells in the solid, %.3g cells over the grid",
      D * 1e3, sign_diff, (long long)(nx * ny * nz), dmax_solid / dx, dmax / dx);
}

static void build_geometry(bg_lab *lab, const bg_silo_scene *sc, grid_geo *g) {
  double dx = sc->dx;
  int Lc = sc->silo_cells;
  g->L = Lc * dx;
  g->H = sc->hr * 0.5 * g->L;
  g->T = sc->slab_cells * dx;
  bg_sim_desc *d = &g->desc;
  *d = bg_sim_desc_default();
  d->material = sc->material;
  d->dx = (bg_real)dx;
  /* below the floor: 2 face layers, 3 sink cells for the stencil, the gap, the floor */
  int kf = 2 + 3 + sc->gap_cells + sc->floor_cells;
  int ktop = (int)ceil(g->H * 1.08 / dx) + 4;
  d->dims[2] = (size_t)(kf + ktop);
  /* floor top z = 0 midway between node planes kf-1 and kf */
  d->origin[2] = (bg_real)(-(kf - 0.5) * dx);
  /* the aperture centre sits on a node for an odd cell count, midway for an
   * even one, so the hole holds the nominal number of node columns */
  int nD = (int)lround(sc->D_cells);
  if (!sc->round) {
    d->dims[0] = (size_t)Lc + 4; /* x faces are the walls, midway between nodes 1 and 2 */
    d->dims[1] = (size_t)sc->slab_cells + 4;
    d->origin[0] = (bg_real)(-0.5 * g->L - 1.5 * dx);
    d->origin[1] = (bg_real)(-1.5 * dx);
    /* nodes lie at x = (i - Lc/2 - 1.5) dx: half-integer multiples of dx for even Lc */
    double node_off = fmod(0.5 * Lc + 1.5, 1.0); /* 0.5 for even Lc */
    g->xc = (nD % 2 == 1) == (node_off > 0.25) ? 0.5 * dx : 0.0;
    d->walls[BG_FACE_XLO].friction = d->walls[BG_FACE_XHI].friction = BG_FRICTION_COULOMB;
    d->walls[BG_FACE_XLO].mu = d->walls[BG_FACE_XHI].mu = (bg_real)sc->mu_wall;
  } else {
    d->dims[0] = d->dims[1] = (size_t)Lc + 6;
    /* nodes at (i - (Lc + 6)/2 + 0.5) dx for even Lc + 6: axis midway (even D) or shifted */
    d->origin[0] = d->origin[1] = (bg_real)(-(0.5 * (Lc + 5)) * dx);
    g->xc = (nD % 2 == 1) ? 0.5 * dx : 0.0;
  }
  d->walls[BG_FACE_ZLO].friction = BG_FRICTION_SLIP;
  d->backend = sc->backend;
  d->threads = sc->threads;
  int64_t nx = (int64_t)d->dims[0], ny = (int64_t)d->dims[1], nz = (int64_t)d->dims[2];
  g->phi = malloc((size_t)(nx * ny * nz) * sizeof *g->phi);
  if (!g->phi) {
    bg_lab_fail("out of memory for the floor field");
  }
  double t = sc->floor_cells * dx, R = 0.5 * sc->D_cells * dx;
  g->n_free = 0;
  if (sc->floor_mesh) {
    mesh_floor(lab, sc, g, nx, ny, nz);
    g->z_sink = -(sc->floor_cells + sc->gap_cells) * dx;
    return;
  }
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) {
        double x = d->origin[0] + (double)i * dx, y = d->origin[1] + (double)j * dx,
               z = d->origin[2] + (double)k * dx;
        double rho = sc->round ? hypot(x - g->xc, y - g->xc) : fabs(x - g->xc);
        double slab = fabs(z + 0.5 * t) - 0.5 * t;
        double phi = fmax(slab, R - rho);
        g->phi[(i * ny + j) * nz + k] = (bg_real)phi;
        /* the floor plane just under z = 0: count hole nodes inside the silo */
        if (k == (int64_t)(2 + 3 + sc->gap_cells + sc->floor_cells) - 1 && slab < 0 && rho < R) {
          int inside = sc->round ? hypot(x, y) < 0.5 * g->L : (fabs(x) < 0.5 * g->L && y > 0 && y < g->T);
          if (inside) g->n_free++;
        }
      }
  g->z_sink = -(sc->floor_cells + sc->gap_cells) * dx;
}

/* The aperture the simulation was fed, read back through the public API:
 * bg_sim_describe's grid (dx, origin, dims), its copy of the floor's node
 * field (the BG_SHAPE_NODES collider) and the silo wall as it holds it (the
 * inverted cylinder's centre and radius; the slot's walls are the x domain
 * faces, the slab the y faces, each face's plane 1.5 cells inside its outer
 * node). Free nodes (phi >= 0: walls act on phi < 0) of the node plane just
 * under the floor's top z = 0, inside the silo, counted: slot N dx per slab
 * node row, round sqrt(4 N dx^2 / pi). Also returns the fed dx and rho0. */
static double fed_aperture(const bg_sim *sim, int round, double *dx_out, double *rho0_out) {
  bg_sim_desc d;
  if (bg_sim_describe(sim, &d) != BG_OK) bg_lab_fail("bg_sim_describe: %s", bg_sim_last_error(sim));
  const bg_collider *floor_c = NULL, *wall = NULL;
  for (size_t c = 0; c < d.n_colliders; ++c) {
    if (d.colliders[c].shape == BG_SHAPE_NODES) floor_c = &d.colliders[c];
    if (d.colliders[c].shape == BG_SHAPE_CYLINDER && d.colliders[c].invert) wall = &d.colliders[c];
  }
  if (!floor_c || !floor_c->phi || (round && !wall))
    bg_lab_fail("the simulation holds no floor node field%s", round ? " or no silo wall" : "");
  double dx = d.dx;
  int64_t nx = (int64_t)d.dims[0], ny = (int64_t)d.dims[1], nz = (int64_t)d.dims[2];
  int64_t kt = (int64_t)ceil(-d.origin[2] / dx - 1e-6) - 1; /* the node plane in (-dx, 0) */
  if (kt < 0 || kt >= nz) bg_lab_fail("the floor's top plane z = 0 lies outside the grid");
  double xlo = d.origin[0] + 1.5 * dx, xhi = d.origin[0] + (double)(nx - 2.5) * dx;
  double ylo = d.origin[1] + 1.5 * dx, yhi = d.origin[1] + (double)(ny - 2.5) * dx;
  long nfree = 0, rows = 0;
  for (int64_t j = 0; j < ny; ++j) {
    double y = d.origin[1] + (double)j * dx;
    if (!round && y > ylo && y < yhi) rows++;
    for (int64_t i = 0; i < nx; ++i) {
      double x = d.origin[0] + (double)i * dx;
      int inside = round ? hypot(x - wall->center[0], y - wall->center[1]) < wall->radius
                         : (x > xlo && x < xhi && y > ylo && y < yhi);
      if (inside && floor_c->phi[(i * ny + j) * nz + kt] >= 0) nfree++;
    }
  }
  *dx_out = dx;
  *rho0_out = d.material.rho0;
  return round ? sqrt(4.0 * (double)nfree * dx * dx / M_PI) : (rows ? (double)nfree / (double)rows * dx : NAN);
}

/* --------------------------------------------------------------- one run */

/* mass-weighted mean and sd of rho_p over the bulk (away from the floor, the
 * free surface and the walls) */
static void bulk_density(const bg_silo_scene *sc, const grid_geo *g, size_t n, const bg_real *x, const bg_real *m,
                         const bg_real *rho, const bg_real *act, double h, double *mean, double *sd) {
  double dx = sc->dx, sw = 0, s1 = 0, s2 = 0;
  double zlo = 0.5 * g->L, zhi = h - 2 * dx, rwall = 0.5 * g->L - 2 * dx;
  if (zhi < zlo + 2 * dx) zlo = fmax(2 * dx, zhi - 4 * dx);
  for (size_t p = 0; p < n; ++p) {
    if (act[p] < 0.5f) continue;
    double z = x[3 * p + 2];
    if (z < zlo || z > zhi) continue;
    double rr = sc->round ? hypot(x[3 * p], x[3 * p + 1]) : fabs(x[3 * p]);
    if (rr > rwall) continue;
    sw += m[p];
    s1 += m[p] * rho[p];
    s2 += m[p] * (double)rho[p] * rho[p];
  }
  *mean = sw > 0 ? s1 / sw : NAN;
  *sd = sw > 0 ? sqrt(fmax(0, s2 / sw - *mean * *mean)) : NAN;
}

/* slope of y(t) by least squares over samples [a, b), with its sd */
static double slope(const double *t, const double *y, int a, int b, double *sd) {
  if (b - a < 3) {
    *sd = NAN;
    return NAN;
  }
  bg_fit_line_result l = bg_fit_line(t + a, y + a, (size_t)(b - a));
  *sd = sqrt(l.cov11);
  return l.c1;
}

/* the round silo's interior: lattice points within r_max (ctx) of the axis */
static int in_round(const double p[3], void *ctx) { return !(hypot(p[0], p[1]) > *(const double *)ctx); }

static double rng_uniform(void *rng) { return gsl_rng_uniform(rng); }

/* Relative standard error of the window's rate W, samples [a, b): the larger
 * of the GSL fit's own error sW / W (from the scatter about the line, which
 * treats the samples as independent) and the standard error of the mean of
 * the BG_SILO_N_SUB sub-window rates, sd(W_k) / (sqrt(BG_SILO_N_SUB) W). The second counts
 * fluctuations that are correlated over a sub-window (the column's residual
 * ringing, intermittent flow at a small aperture), which the first misses. */
static double w_rel_se(const double *t, const double *y, int a, int b) {
  double sw, w = slope(t, y, a, b, &sw);
  if (!isfinite(w) || w <= 0) return INFINITY;
  double wk[BG_SILO_N_SUB], mean = 0, var = 0;
  for (int k = 0; k < BG_SILO_N_SUB; ++k) {
    double sd;
    wk[k] = slope(t, y, a + (b - a) * k / BG_SILO_N_SUB, a + (b - a) * (k + 1) / BG_SILO_N_SUB, &sd);
    if (!isfinite(wk[k])) return INFINITY;
    mean += wk[k] / BG_SILO_N_SUB;
  }
  for (int k = 0; k < BG_SILO_N_SUB; ++k) var += (wk[k] - mean) * (wk[k] - mean) / (BG_SILO_N_SUB - 1);
  return fmax(sw / w, sqrt(var / BG_SILO_N_SUB) / w);
}

/* ------------------------------------------------------ the loop's state */

/* Everything the loop keeps between samples, for a checkpoint: the clock,
 * the window's bookkeeping, the samples so far and the exit profile's sums. */
typedef struct silo_loop {
  bg_silo_result *r;
  double *t, *rho_b, *rho_sd, *last_growth_t, *last_msink;
  int *in_window, *w0;
  size_t *ns, *cap_s;
  double **ts, **msink, **mbelow, **hs, **rbs;
} silo_loop;

static const char *const k_stop_rules[] = {"none", "fill_end", "fill_drop", "steady_window", "t_max", "jammed"};
enum { N_STOP_RULES = sizeof k_stop_rules / sizeof k_stop_rules[0] };
#define SILO_STATE_MAGIC 0x73696c31u /* "sil1": the layout below */

static void put_d(bg_lab_blob *b, const double *v, size_t n) { bg_lab_blob_put(b, v, n * sizeof *v); }
static void get_d(bg_lab_blob *b, double *v, size_t n) { bg_lab_blob_get(b, v, n * sizeof *v); }

static void silo_pack(void *ctx, bg_lab_blob *b) {
  const silo_loop *c = ctx;
  const bg_silo_result *r = c->r;
  int32_t rule = 0;
  for (int i = 0; i < N_STOP_RULES; ++i)
    if (!strcmp(r->stop_rule, k_stop_rules[i])) rule = i;
  int32_t ints[6] = {(int32_t)SILO_STATE_MAGIC, rule, r->jammed, r->n_prof, *c->in_window, *c->w0};
  uint64_t ns = *c->ns, nb = (uint64_t)r->nb;
  bg_lab_blob_put(b, ints, sizeof ints);
  bg_lab_blob_put(b, &ns, sizeof ns);
  bg_lab_blob_put(b, &nb, sizeof nb);
  double sc[8] = {*c->t, *c->rho_b, *c->rho_sd, *c->last_growth_t, *c->last_msink, r->rho_b, r->rho_b_sd, r->h_stop};
  put_d(b, sc, 8);
  put_d(b, *c->ts, ns);
  put_d(b, *c->msink, ns);
  put_d(b, *c->mbelow, ns);
  put_d(b, *c->hs, ns);
  put_d(b, *c->rbs, ns);
  put_d(b, r->sm, nb);
  put_d(b, r->smv, nb);
  put_d(b, r->smr, nb);
  put_d(b, r->cnt, nb);
}

static void silo_unpack(const silo_loop *c, bg_lab_blob *b, const char *tag) {
  bg_silo_result *r = c->r;
  int32_t ints[6];
  uint64_t ns, nb;
  bg_lab_blob_get(b, ints, sizeof ints);
  bg_lab_blob_get(b, &ns, sizeof ns);
  bg_lab_blob_get(b, &nb, sizeof nb);
  if ((uint32_t)ints[0] != SILO_STATE_MAGIC || ints[1] < 0 || ints[1] >= N_STOP_RULES || nb != (uint64_t)r->nb ||
      ns > (b->len - b->pos) / sizeof(double))
    bg_lab_fail("%s: the checkpoint holds another loop's state (or another scene's profile bins)", tag);
  r->stop_rule = k_stop_rules[ints[1]];
  r->jammed = ints[2];
  r->n_prof = ints[3];
  *c->in_window = ints[4];
  *c->w0 = ints[5];
  double sc[8];
  get_d(b, sc, 8);
  *c->t = sc[0];
  *c->rho_b = sc[1];
  *c->rho_sd = sc[2];
  *c->last_growth_t = sc[3];
  *c->last_msink = sc[4];
  r->rho_b = sc[5];
  r->rho_b_sd = sc[6];
  r->h_stop = sc[7];
  if (ns > *c->cap_s) {
    double **arr[5] = {c->ts, c->msink, c->mbelow, c->hs, c->rbs};
    for (int i = 0; i < 5; ++i) {
      double *p = realloc(*arr[i], ns * sizeof **arr[i]);
      if (!p) bg_lab_fail("out of memory for the time series");
      *arr[i] = p;
    }
    *c->cap_s = ns;
  }
  *c->ns = ns;
  get_d(b, *c->ts, ns);
  get_d(b, *c->msink, ns);
  get_d(b, *c->mbelow, ns);
  get_d(b, *c->hs, ns);
  get_d(b, *c->rbs, ns);
  get_d(b, r->sm, nb);
  get_d(b, r->smv, nb);
  get_d(b, r->smr, nb);
  get_d(b, r->cnt, nb);
}

bg_silo_result bg_silo_run(bg_lab *lab, const bg_silo_scene *sc, const char *tag, FILE *series_out) {
  bg_silo_result r;
  memset(&r, 0, sizeof r);
  grid_geo g;
  build_geometry(lab, sc, &g);
  double dx = sc->dx;
  bg_collider col[2];
  memset(col, 0, sizeof col);
  col[0].shape = BG_SHAPE_NODES;
  col[0].phi = g.phi;
  col[0].friction = BG_FRICTION_COULOMB;
  col[0].mu = (bg_real)sc->mu_floor;
  int ncol = 1;
  if (sc->round) {
    col[1].shape = BG_SHAPE_CYLINDER;
    col[1].radius = (bg_real)(0.5 * g.L);
    col[1].lo[2] = -1e3f;
    col[1].hi[2] = 1e3f;
    col[1].invert = 1;
    col[1].friction = BG_FRICTION_COULOMB;
    col[1].mu = (bg_real)sc->mu_wall;
    ncol = 2;
  }
  bg_sink sink = {{-1e3f, -1e3f, -1e3f}, {1e3f, 1e3f, (bg_real)g.z_sink}};
  g.desc.colliders = col;
  g.desc.n_colliders = (size_t)ncol;
  g.desc.sinks = &sink;
  g.desc.n_sinks = 1;
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(&g.desc, &sim, err, sizeof err);
  if (s != BG_OK) fail_sim("bg_sim_create", s, err);
  r.D_nom = sc->D_cells * dx;
  /* the aperture the measurements use is this file's count of the field it
   * built; silo.aperture holds it to the one the library holds, counted
   * again from the library's own copy (fed_aperture), so that a scene that
   * hands the library another floor than the one it measures with, or a
   * measurement that misreads it, fails a claim */
  r.D_geo = sc->round ? sqrt(4.0 * g.n_free * dx * dx / M_PI) : (double)g.n_free / sc->slab_cells * dx;
  r.D_fed = fed_aperture(sim, sc->round, &r.dx_fed, &r.rho0_fed);

  /* ppc 8: lattice of spacing dx/2 over the silo interior, jittered */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, sc->seed * 2654435761ul + (unsigned long)lround(sc->D_cells * 16));
  double sp = 0.5 * dx;
  int ni = (int)floor(g.L / sp + 1e-9), nk = (int)floor(g.H / sp + 1e-9);
  int nj = sc->round ? ni : (int)floor(g.T / sp + 1e-9);
  double r_max = 0.5 * g.L - 0.25 * sp; /* round: lattice points this far from the axis */
  bg_seed_lattice_desc lat = {.origin = {-0.5 * g.L, sc->round ? -0.5 * g.L : 0, 0},
                              .spacing = sp,
                              .count = {(size_t)ni, (size_t)nj, (size_t)nk},
                              .jitter = sc->jitter,
                              .inside = sc->round ? in_round : NULL,
                              .inside_ctx = &r_max,
                              .uniform = rng_uniform,
                              .uniform_ctx = rng};
  size_t cap = (size_t)ni * nj * nk, n = 0;
  bg_real *x = malloc(3 * cap * sizeof *x);
  if ((s = bg_seed_lattice(&lat, x, cap, &n, err, sizeof err)) != BG_OK) fail_sim("bg_seed_lattice", s, err);
  gsl_rng_free(rng);
  s = bg_sim_add_particles(sim, n, x, NULL, 8);
  if (s != BG_OK) fail_sim("bg_sim_add_particles", s, bg_sim_last_error(sim));
  r.n_particles = n;
  r.H = g.H;
  double h_end = BG_SILO_H_END_OVER_L * g.L;
  double h_start = g.H - sc->startup_frac * (g.H - h_end);
  double t_start = BG_SILO_STARTUP_PERIODS * 4 * g.H / (double)bg_material_pwave_speed(&g.desc.material);
  r.h_stop = h_end; /* until the window opens; then the window's own drop */

  bg_real *m = malloc(n * sizeof *m), *v = malloc(3 * n * sizeof *v), *rho = malloc(n * sizeof *rho),
          *act = malloc(n * sizeof *act);
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  double M = 0;
  for (size_t p = 0; p < n; ++p) M += m[p];
  r.M0 = M;
  /* the cross-section the fill actually has: the lattice's volume over H
   * (a round silo's lattice is a staircase inside the circle, a few % short of pi R^2) */
  g.A = M / (g.desc.material.rho0 * g.H);
  /* per unit width for the slot, so that W is the planar law's quantity */
  double wscale = sc->round ? 1.0 : 1.0 / g.T;

  /* profile bins: dx/2 across the silo (slot: x - xc from -L/2; round: r from the axis) */
  double bw = 0.5 * dx;
  r.nb = sc->round ? (int)ceil(0.5 * g.L / bw) : (int)ceil(g.L / bw);
  r.pos = calloc((size_t)r.nb, sizeof *r.pos);
  r.area = calloc((size_t)r.nb, sizeof *r.area);
  r.sm = calloc((size_t)r.nb, sizeof *r.sm);
  r.smv = calloc((size_t)r.nb, sizeof *r.smv);
  r.smr = calloc((size_t)r.nb, sizeof *r.smr);
  r.cnt = calloc((size_t)r.nb, sizeof *r.cnt);
  double xlo = -0.5 * g.L;
  for (int b = 0; b < r.nb; ++b) {
    if (sc->round) {
      double r0 = b * bw, r1 = (b + 1) * bw;
      r.pos[b] = 0.5 * (r0 + r1);
      r.area[b] = M_PI * (r1 * r1 - r0 * r0);
    } else {
      r.pos[b] = xlo + (b + 0.5) * bw - g.xc;
      r.area[b] = bw * g.T;
    }
  }

  size_t cap_s = 1024, ns = 0;
  double *ts = malloc(cap_s * sizeof *ts), *msink = malloc(cap_s * sizeof *msink),
         *mbelow = malloc(cap_s * sizeof *mbelow), *hs = malloc(cap_s * sizeof *hs),
         *rbs = malloc(cap_s * sizeof *rbs);
  bg_lab_progress(lab, "%s: %s silo L %.1f mm (%d cells), H %.1f mm, D %.2f cells nominal, %.2f counted; "
                  "%zu particles, grid %zux%zux%zu",
                  tag, sc->round ? "round" : "slot", g.L * 1e3, sc->silo_cells, g.H * 1e3, sc->D_cells,
                  r.D_geo / dx, n, g.desc.dims[0], g.desc.dims[1], g.desc.dims[2]);
  double t = 0, rho_b = NAN, rho_sd = NAN;
  int in_window = 0, w0 = -1;
  r.stop_rule = "none";
  double last_growth_t = 0, last_msink = 0;
  silo_loop sl = {&r, &t, &rho_b, &rho_sd, &last_growth_t, &last_msink, &in_window, &w0, &ns, &cap_s,
                  &ts, &msink, &mbelow, &hs, &rbs};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) silo_unpack(&sl, &state, tag);
  bg_lab_blob_free(&state);
  while (!finished) {
    bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
    bg_sim_get(sim, BG_FIELD_DENSITY, rho, n);
    bg_sim_get(sim, BG_FIELD_ACTIVE, act, n);
    double mab = 0, mbl = 0;
    for (size_t p = 0; p < n; ++p) {
      if (x[3 * p + 2] < 0) mbl += m[p];
      else if (act[p] > 0.5f) mab += m[p];
    }
    double ms;
    bg_sim_sink_mass(sim, &ms, 1);
    /* rho_b from the fill estimated with the last rho_b (converges in a step) */
    double hguess = isfinite(rho_b) ? mab / (rho_b * g.A) : g.H;
    bulk_density(sc, &g, n, x, m, rho, act, hguess, &rho_b, &rho_sd);
    double h = mab / (rho_b * g.A);
    if (ns == cap_s) {
      cap_s *= 2;
      ts = realloc(ts, cap_s * sizeof *ts);
      msink = realloc(msink, cap_s * sizeof *msink);
      mbelow = realloc(mbelow, cap_s * sizeof *mbelow);
      hs = realloc(hs, cap_s * sizeof *hs);
      rbs = realloc(rbs, cap_s * sizeof *rbs);
      if (!ts || !msink || !mbelow || !hs || !rbs) {
        bg_lab_fail("out of memory for the time series");
      }
    }
    ts[ns] = t;
    msink[ns] = ms * wscale;
    mbelow[ns] = mbl * wscale;
    hs[ns] = h;
    rbs[ns] = rho_b;
    ns++;
    if (!in_window && h <= h_start && t >= t_start) {
      in_window = 1;
      w0 = (int)ns - 1;
      r.rho_b = rho_b;
      r.rho_b_sd = rho_sd;
      r.h_stop = fmax(h_end, h - sc->drop * (g.H - h_end));
    }
    if (in_window) {
      /* exit profile: the band -dx <= z < 0, the top cell of the orifice,
       * which only material inside the hole reaches */
      bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
      for (size_t p = 0; p < n; ++p) {
        if (act[p] < 0.5f || x[3 * p + 2] >= 0 || x[3 * p + 2] < -dx) continue;
        double q = sc->round ? hypot(x[3 * p] - g.xc, x[3 * p + 1] - g.xc) : x[3 * p] - xlo;
        int b = (int)floor(q / bw);
        if (b < 0 || b >= r.nb) continue;
        r.sm[b] += m[p];
        r.smv[b] += -m[p] * v[3 * p + 2];
        r.smr[b] += m[p] * rho[p];
        r.cnt[b] += 1;
      }
      r.n_prof++;
    }
    if (ms > last_msink + 1e-3 * M) {
      last_msink = ms;
      last_growth_t = t;
    }
    if (h <= r.h_stop) {
      r.stop_rule = sc->drop >= 1 ? "fill_end" : "fill_drop";
      break;
    }
    /* sweep runs: the steady window is long enough for the rate once it has
     * lasted t_win_min and W is known to rel_se_max (checked every 10 samples) */
    if (in_window && sc->steady_stop && t - ts[w0] >= sc->t_win_min && (ns - w0) % 10 == 0) {
      double rse = w_rel_se(ts, msink, w0, (int)ns);
      if (rse <= sc->rel_se_max) {
        r.stop_rule = "steady_window";
        break;
      }
    }
    if (t >= sc->t_max) {
      r.stop_rule = "t_max";
      break;
    }
    if (t > last_growth_t + 0.5) {
      r.jammed = 1;
      r.stop_rule = "jammed";
      break;
    }
    if (ns % 50 == 0) {
      char wmsg[96] = "";
      if (in_window && sc->steady_stop)
        snprintf(wmsg, sizeof wmsg, "; window %.2f s of >= %.2f s, W rel. s.e. %.2g%% (stop at <= %.2g%%)",
                 t - ts[w0], sc->t_win_min, 100 * w_rel_se(ts, msink, w0, (int)ns),
                 100 * sc->rel_se_max);
      bg_lab_progress(lab, "%s: t %.3f s, fill %.1f mm (stop at %.1f), discharged %.1f%%, rho_b %.0f kg/m3%s",
                      tag, t, h * 1e3, r.h_stop * 1e3, 100 * ms / M, rho_b, wmsg);
    }
    {
      bg_stats ps;
      if (bg_sim_stats(sim, &ps) == BG_OK) bg_lab_progress_sim(lab, tag, t, sc->t_max, (double)n * (double)ps.step);
    }
    t += sc->sample_dt;
    s = bg_sim_advance_to(sim, t);
    if (s != BG_OK) fail_sim("bg_sim_advance_to", s, bg_sim_last_error(sim));
    bg_lab_sim_tick(ls, silo_pack, &sl);
  }
  bg_lab_sim_end(ls, silo_pack, &sl);
  bg_stats st;
  bg_sim_stats(sim, &st);
  r.steps = st.step;
  r.t_end = st.time;

  int w1 = (int)ns;
  r.n_window = w0 >= 0 ? w1 - w0 : 0;
  r.t0w = w0 >= 0 ? ts[w0] : NAN;
  r.t1w = ts[ns - 1];
  if (w0 >= 0) {
    r.W = slope(ts, msink, w0, w1, &r.sW);
    r.W_plane = slope(ts, mbelow, w0, w1, &r.sW_plane);
    r.flat = 0;
    for (int k = 0; k < BG_SILO_N_SUB; ++k) {
      int a = w0 + (w1 - w0) * k / BG_SILO_N_SUB, b = w0 + (w1 - w0) * (k + 1) / BG_SILO_N_SUB;
      double sd;
      r.W_sub[k] = slope(ts, msink, a, b, &sd);
      r.t_sub[k][0] = ts[a];
      r.t_sub[k][1] = ts[b - 1];
      /* a sub-window too short to fit leaves flatness unmeasured (NaN) */
      r.flat = isfinite(r.W_sub[k]) ? fmax(r.flat, fabs(r.W_sub[k] / r.W - 1)) : NAN;
    }
    r.rel_se = w_rel_se(ts, msink, w0, w1);
    /* the same flatness had the window opened at t = 0 */
    double sd, w_all = slope(ts, msink, 0, w1, &sd);
    r.flat_startup = 0;
    for (int k = 0; k < BG_SILO_N_SUB; ++k) {
      double wk = slope(ts, msink, w1 * k / BG_SILO_N_SUB, w1 * (k + 1) / BG_SILO_N_SUB, &sd);
      r.flat_startup = isfinite(wk) ? fmax(r.flat_startup, fabs(wk / w_all - 1)) : NAN;
    }
  } else {
    r.W = r.W_plane = r.flat = r.rel_se = r.flat_startup = NAN;
  }
  /* profile integrals (per unit width for the slot) */
  double vmax = 0, smc = 0, smvc = 0;
  r.W_closure = r.W_counted = r.W_closure_rho0 = 0;
  for (int b = 0; b < r.nb; ++b) {
    if (r.sm[b] <= 0 || r.n_prof == 0) continue;
    double vol = r.area[b] * dx * r.n_prof;
    double vb = r.smv[b] / r.sm[b], rb = r.smr[b] / r.sm[b];
    r.W_closure += rb * vb * r.area[b] * wscale;
    r.W_counted += r.smv[b] / vol * r.area[b] * wscale;
    r.W_closure_rho0 += r.rho0_fed * vb * r.area[b] * wscale;
    if (vb > vmax) vmax = vb;
    if (fabs(r.pos[b]) < 0.5 * dx) {
      smc += r.sm[b];
      smvc += r.smv[b];
    }
  }
  r.v_c = smc > 0 ? smvc / smc : NAN;
  r.u_c = r.v_c / sqrt(G * r.D_geo);
  /* flowing width: extent of the bins with v > 10% of the maximum */
  {
    double lo = INFINITY, hi = -INFINITY;
    for (int b = 0; b < r.nb; ++b) {
      if (r.sm[b] <= 0) continue;
      double vb = r.smv[b] / r.sm[b];
      if (vb > 0.1 * vmax) {
        lo = fmin(lo, r.pos[b] - 0.5 * bw);
        hi = fmax(hi, r.pos[b] + 0.5 * bw);
      }
    }
    r.D_flow = sc->round ? 2 * hi : hi - lo;
    if (!isfinite(r.D_flow)) r.D_flow = NAN;
  }

  if (series_out) {
    for (size_t i = 0; i < ns; ++i) {
      /* local rate: centred difference over +-5 samples */
      size_t a = i >= 5 ? i - 5 : 0, b = i + 5 < ns ? i + 5 : ns - 1;
      double wl = b > a ? (msink[b] - msink[a]) / (ts[b] - ts[a]) : NAN;
      double wp = b > a ? (mbelow[b] - mbelow[a]) / (ts[b] - ts[a]) : NAN;
      fprintf(series_out, "%.5f\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4f\t%.2f\t%d\n", ts[i], msink[i],
              mbelow[i], wl, wp, hs[i], hs[i] / g.L, (hs[i]) / g.H, rbs[i],
              w0 >= 0 && (int)i >= w0 ? 1 : 0);
    }
  }
  bg_lab_progress(lab,
                  "%s: %s at t %.3f s after %llu steps, ended by rule '%s'; window %.3f-%.3f s (%d samples); "
                  "W %.5g +- %.2g (plane %.5g), W rel. s.e. %.2g%%, flatness %.3f, rho_b %.0f, closure %.5g",
                  tag, r.jammed ? "JAMMED" : "done", r.t_end, (unsigned long long)r.steps, r.stop_rule, r.t0w,
                  r.t1w, r.n_window, r.W, r.sW, r.W_plane, 100 * r.rel_se, r.flat, r.rho_b, r.W_closure);
  free(ts);
  free(msink);
  free(mbelow);
  free(hs);
  free(rbs);
  free(x);
  free(m);
  free(v);
  free(rho);
  free(act);
  free(g.phi);
  bg_sim_destroy(sim);
  return r;
}


/* A result into a sweep point's blob and back (bg_lab_sweep), field by
 * field in a fixed order, then the series rows as text. */
#define SILO_RESULT_MAGIC 0x73696c72u /* "silr" */
enum { SILO_N_D = 26 + 3 * BG_SILO_N_SUB };

static void silo_doubles(bg_silo_result *r, double **p) {
  double *f[] = {&r->D_nom, &r->D_geo, &r->t_end, &r->M0, &r->H, &r->h_stop, &r->rho_b, &r->rho_b_sd, &r->t0w,
                 &r->t1w, &r->W, &r->sW, &r->W_plane, &r->sW_plane, &r->flat, &r->W_closure, &r->W_counted,
                 &r->W_closure_rho0, &r->flat_startup, &r->v_c, &r->u_c, &r->D_flow, &r->rel_se, &r->D_fed, &r->dx_fed, &r->rho0_fed};
  _Static_assert(sizeof f / sizeof f[0] + 3 * BG_SILO_N_SUB == SILO_N_D, "SILO_N_D counts every field");
  int k = 0;
  for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) p[k++] = f[i];
  for (int i = 0; i < BG_SILO_N_SUB; ++i) {
    p[k++] = &r->W_sub[i];
    p[k++] = &r->t_sub[i][0];
    p[k++] = &r->t_sub[i][1];
  }
}

void bg_silo_result_pack(const bg_silo_result *r, const char *series, size_t series_len, bg_lab_blob *b) {
  bg_silo_result c = *r;
  double *p[SILO_N_D];
  silo_doubles(&c, p);
  int32_t rule = 0;
  for (int i = 0; i < N_STOP_RULES; ++i)
    if (r->stop_rule && !strcmp(r->stop_rule, k_stop_rules[i])) rule = i;
  const int32_t ints[6] = {(int32_t)SILO_RESULT_MAGIC, rule, r->jammed, r->n_window, r->n_prof, r->nb};
  const uint64_t u[3] = {r->n_particles, r->steps, series_len};
  bg_lab_blob_put(b, ints, sizeof ints);
  bg_lab_blob_put(b, u, sizeof u);
  for (int i = 0; i < SILO_N_D; ++i) {
    const double v = *p[i];
    bg_lab_blob_put(b, &v, sizeof v);
  }
  const double *arr[6] = {r->pos, r->area, r->sm, r->smv, r->smr, r->cnt};
  for (int i = 0; i < 6; ++i)
    if (r->nb > 0) put_d(b, arr[i], (size_t)r->nb);
  if (series_len) bg_lab_blob_put(b, series, series_len);
}

bg_silo_result bg_silo_result_unpack(bg_lab_blob *b, char **series, size_t *series_len) {
  bg_silo_result r;
  memset(&r, 0, sizeof r);
  int32_t ints[6];
  uint64_t u[3];
  bg_lab_blob_get(b, ints, sizeof ints);
  bg_lab_blob_get(b, u, sizeof u);
  if ((uint32_t)ints[0] != SILO_RESULT_MAGIC || ints[1] < 0 || ints[1] >= N_STOP_RULES || ints[5] < 0)
    bg_lab_fail("a silo result is damaged or from another version of the experiment");
  r.stop_rule = k_stop_rules[ints[1]];
  r.jammed = ints[2];
  r.n_window = ints[3];
  r.n_prof = ints[4];
  r.nb = ints[5];
  r.n_particles = (size_t)u[0];
  r.steps = u[1];
  double *p[SILO_N_D];
  silo_doubles(&r, p);
  for (int i = 0; i < SILO_N_D; ++i) {
    double v;
    bg_lab_blob_get(b, &v, sizeof v);
    *p[i] = v;
  }
  double **arr[6] = {&r.pos, &r.area, &r.sm, &r.smv, &r.smr, &r.cnt};
  for (int i = 0; i < 6; ++i) {
    if (r.nb == 0) continue;
    if ((size_t)r.nb > (b->len - b->pos) / sizeof(double)) bg_lab_fail("a silo result ends early: damaged");
    *arr[i] = malloc((size_t)r.nb * sizeof **arr[i]);
    if (!*arr[i]) bg_lab_fail("out of memory for a silo result");
    get_d(b, *arr[i], (size_t)r.nb);
  }
  if (u[2] != b->len - b->pos) bg_lab_fail("a silo result's series is %llu bytes, %zu are left: damaged",
                                           (unsigned long long)u[2], b->len - b->pos);
  *series_len = (size_t)u[2];
  *series = malloc(*series_len + 1);
  if (!*series) bg_lab_fail("out of memory for a silo series");
  bg_lab_blob_get(b, *series, *series_len);
  (*series)[*series_len] = 0;
  return r;
}

void bg_silo_result_free(bg_silo_result *r) {
  free(r->pos);
  free(r->area);
  free(r->sm);
  free(r->smv);
  free(r->smr);
  free(r->cnt);
  r->pos = r->area = r->sm = r->smv = r->smr = r->cnt = NULL;
}

