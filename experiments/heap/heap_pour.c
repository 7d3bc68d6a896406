/* heap_pour.c: the poured ridge (see heap.h). The sand enters through a BOX
 * source against the x = 0 mirror plane, falls onto the floor and builds a
 * half ridge; the flank angle is read every check interval while it grows,
 * and once more on the settled deposit. */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"
#include "heap.h"

#define STILL_CHECKS 10 /* the creep test's span, in checks (0.1 s at R0 0.1 m) */
#define STILL_DEG 0.5     /* the flank's largest change over that span, deg */
#define HEAP_STATE_MAGIC 0x68656170u /* "heap": the loop state's layout below */

double heap_window_angle(const double *r, const double *h, int n, double lo, double hi, double h_max) {
  double *bx = malloc((size_t)(n > 0 ? n : 1) * sizeof *bx), *by = malloc((size_t)(n > 0 ? n : 1) * sizeof *by);
  if (!bx || !by) bg_lab_fail("out of memory for a profile of %d bins", n);
  size_t k = 0;
  for (int b = 0; b < n; ++b)
    if (h[b] >= lo * h_max && h[b] <= hi * h_max) {
      bx[k] = r[b];
      by[k++] = h[b];
    }
  double a = k >= 3 ? atan(-bg_fit_line(bx, by, k).c1) * DEG : NAN;
  free(bx);
  free(by);
  return a;
}

static void fail_sim(const char *what, bg_status s, const char *msg) {
  bg_lab_fail("%s: %s (%s)", what, bg_status_name(s), msg);
}

/* the loop's state between checks, what a checkpoint carries */
typedef struct heap_loop {
  double t;
  int32_t settled, n_rows, cap;
  heap_row *rows;
} heap_loop;

static void loop_push(heap_loop *l, heap_row r) {
  if (l->n_rows == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 256;
    l->rows = realloc(l->rows, (size_t)l->cap * sizeof *l->rows);
    if (!l->rows) bg_lab_fail("out of memory for %d history rows", l->cap);
  }
  l->rows[l->n_rows++] = r;
}

static void loop_pack(void *ctx, bg_lab_blob *b) {
  const heap_loop *l = ctx;
  uint32_t magic = HEAP_STATE_MAGIC;
  bg_lab_blob_put(b, &magic, sizeof magic);
  bg_lab_blob_put(b, &l->t, sizeof l->t);
  bg_lab_blob_put(b, &l->settled, sizeof l->settled);
  bg_lab_blob_put(b, &l->n_rows, sizeof l->n_rows);
  if (l->n_rows) bg_lab_blob_put(b, l->rows, (size_t)l->n_rows * sizeof *l->rows);
}

static void loop_unpack(heap_loop *l, bg_lab_blob *b, const char *tag) {
  uint32_t magic;
  int32_t n;
  bg_lab_blob_get(b, &magic, sizeof magic);
  if (magic != HEAP_STATE_MAGIC) bg_lab_fail("%s: the checkpoint holds another loop's state", tag);
  bg_lab_blob_get(b, &l->t, sizeof l->t);
  bg_lab_blob_get(b, &l->settled, sizeof l->settled);
  bg_lab_blob_get(b, &n, sizeof n);
  if (n < 0 || (size_t)n > (b->len - b->pos) / sizeof(heap_row)) bg_lab_fail("%s: a damaged history (%d rows)", tag, n);
  for (int32_t i = 0; i < n; ++i) {
    heap_row r;
    bg_lab_blob_get(b, &r, sizeof r);
    loop_push(l, r);
  }
}

/* The surface of the heap while it grows: the repose reader's (the
 * highest particle of each column) without the sand in flight (faster than
 * FLIGHT_SPEED: the stream and its splash; a heap's surface avalanches move
 * slower), over the columns clear of the funnel's footprint by two cells
 * (under it the columns read the stream's impact). */
#define FLIGHT_SPEED 1.0 /* m/s */
static bg_column_result read_surface(const heap_scene *sc, const bg_real *x, const unsigned char *skip, size_t n,
                                     int nx, int ny, int nl, double x_min) {
  bg_column_result c;
  memset(&c, 0, sizeof c);
  double dx = sc->R0 / sc->cells;
  c.dx = dx;
  c.H0 = sc->H0;
  bg_column_grid g = {.dx = dx, .off = 0, .L = nl * dx, .runout_h = 1.0, .x_min = x_min,
                      .nx = nx, .ny = ny, .nb = nl, .ridge = 1, .skip = skip};
  bg_column_surface(&c, x, n, &g);
  return c;
}

heap_result heap_pour_run(bg_lab *lab, const heap_scene *sc, const char *tag) {
  heap_result res;
  memset(&res, 0, sizeof res);
  const double g = 9.81, dx = sc->R0 / sc->cells;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.material = sc->material;
  desc.dx = (bg_real)dx;
  /* as bg_column's ridge: faces midway between node planes 1 and 2 from
   * each end, x = 0 the mirror plane, y the slab's slip walls */
  int nl = (int)ceil(sc->L_over_R0 * sc->cells);
  desc.dims[0] = (size_t)nl + 4;
  desc.dims[1] = (size_t)sc->ridge_cells + 4;
  desc.dims[2] = (size_t)ceil(sc->funnel_z / dx) + 8;
  desc.origin[0] = (bg_real)(-1.5 * dx);
  desc.origin[1] = (bg_real)(-1.5 * dx);
  desc.origin[2] = (bg_real)(-2.5 * dx); /* floor z = 0 midway between nodes 2 and 3 */
  double Ly = sc->ridge_cells * dx;
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
  res.phi_fed = held.material.model == BG_MODEL_DP ? (double)held.material.dp.phi_deg : NAN;
  res.mu_s_fed = bg_lab_static_friction(&held.material);

  /* the funnel: the column's mass (per slab) in t_pour, a box dx/2 thick */
  double rho0 = (double)held.material.rho0;
  res.mass_target = rho0 * sc->R0 * sc->H0 * Ly;
  bg_source src = bg_source_default();
  src.shape = BG_SOURCE_BOX;
  src.center[0] = (bg_real)(0.5 * sc->funnel_w);
  src.center[1] = (bg_real)(0.5 * Ly);
  src.center[2] = (bg_real)sc->funnel_z;
  src.half[0] = (bg_real)(0.5 * sc->funnel_w);
  src.half[1] = (bg_real)(0.5 * Ly);
  src.half[2] = (bg_real)(0.25 * dx);
  src.velocity[2] = (bg_real)(-sc->v_out);
  src.mass_rate = res.mass_target / sc->t_pour;
  src.t_start = 0;
  src.t_stop = sc->t_pour;
  src.ppc = 8;
  src.seed = sc->seed + (uint64_t)sc->cells * 7919u;
  int sid = 0;
  if ((s = bg_sim_add_source(sim, &src, &sid)) != BG_OK) fail_sim("bg_sim_add_source", s, bg_sim_last_error(sim));

  bg_lab_progress(lab, "%s: dx %.3g mm (%d cells per R0), grid %zux%zux%zu, funnel %.3g m wide at %.3g m, %.4g kg in %.3g s, floor %s mu %g",
                  tag, dx * 1e3, sc->cells, desc.dims[0], desc.dims[1], desc.dims[2], sc->funnel_w, sc->funnel_z,
                  res.mass_target, sc->t_pour, sc->floor == BG_FRICTION_STICK ? "stick" : "coulomb", sc->mu);
  double ke_thresh = sc->ke_frac * res.mass_target * g * sc->R0, tc = sqrt(sc->R0 / g);
  heap_loop lp = {0};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) loop_unpack(&lp, &state, tag);
  bg_lab_blob_free(&state);
  size_t cap = 0;
  bg_real *x = NULL, *v = NULL, *m = NULL;
  unsigned char *fly = NULL;
  int ny = sc->ridge_cells;
  while (!finished && !lp.settled && lp.t < sc->t_max) {
    lp.t = fmin(lp.t + sc->check_frac * tc, sc->t_max);
    if ((s = bg_sim_advance_to(sim, lp.t)) != BG_OK) fail_sim("bg_sim_advance_to", s, bg_sim_last_error(sim));
    bg_stats st;
    bg_sim_stats(sim, &st);
    size_t n = st.n_particles;
    if (n > cap) {
      cap = 2 * n;
      x = realloc(x, 3 * cap * sizeof *x);
      v = realloc(v, 3 * cap * sizeof *v);
      m = realloc(m, cap * sizeof *m);
      fly = realloc(fly, cap);
      if (!x || !v || !m || !fly) bg_lab_fail("out of memory for %zu particles", cap);
    }
    heap_row row = {.t = lp.t, .ke = 0};
    if (n) {
      bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
      bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
      bg_sim_get(sim, BG_FIELD_MASS, m, n);
    }
    for (size_t p = 0; p < n; ++p) {
      double v2 = (double)v[3 * p] * v[3 * p] + (double)v[3 * p + 1] * v[3 * p + 1] + (double)v[3 * p + 2] * v[3 * p + 2];
      row.ke += 0.5 * m[p] * v2;
      fly[p] = v2 > FLIGHT_SPEED * FLIGHT_SPEED;
    }
    bg_sim_source_mass(sim, sid, &row.mass);
    bg_column_result c = read_surface(sc, x, fly, n, nl, ny, nl, sc->funnel_w + 2 * dx);
    row.h_max = c.h_max;
    row.toe = c.runout;
    row.theta = heap_window_angle(c.rbin, c.hbin, c.nbins, heap_win_lo[HEAP_WIN_MAIN], heap_win_hi[HEAP_WIN_MAIN],
                                  c.h_max);
    bg_column_result_free(&c);
    loop_push(&lp, row);
    bg_lab_progress_sim(lab, tag, lp.t, sc->t_max, (double)n * (double)st.step);
    /* settled: after the pour, the kinetic energy below the threshold (the
     * column's rule) and the flank no longer creeping: within STILL_DEG of
     * its angle STILL_CHECKS checks before (a heap can creep on after its
     * kinetic energy has gone) */
    if (lp.t >= sc->t_pour && row.ke < ke_thresh && lp.n_rows > STILL_CHECKS &&
        fabs(row.theta - lp.rows[lp.n_rows - 1 - STILL_CHECKS].theta) <= STILL_DEG)
      lp.settled = 1;
    bg_lab_sim_tick(ls, loop_pack, &lp);
  }
  bg_lab_sim_end(ls, loop_pack, &lp);
  bg_stats st;
  bg_sim_stats(sim, &st);
  size_t n = st.n_particles;
  x = realloc(x, 3 * (n ? n : 1) * sizeof *x);
  if (!x) bg_lab_fail("out of memory for %zu particles", n);
  if (n) bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_sim_source_mass(sim, sid, &res.mass_poured);
  bg_lab_add_work(lab, (double)n * (double)st.step);
  /* the settled deposit, read as the collapse's (the highest particle of
   * each column, every column): the stream has landed */
  memset(&res.col, 0, sizeof res.col);
  res.col.dx = dx;
  res.col.H0 = sc->H0;
  bg_column_grid cg = {.dx = dx, .off = 0, .L = nl * dx, .runout_h = 1.0, .x_min = -INFINITY,
                       .nx = nl, .ny = ny, .nb = nl, .ridge = 1, .skip = NULL};
  bg_column_surface(&res.col, x, n, &cg);
  res.col.n_particles = n;
  res.col.steps = st.step;
  res.col.t_end = st.time;
  res.col.settled = lp.settled;
  res.col.phi_fed = res.phi_fed;
  res.col.rho0_fed = rho0;
  res.col.ke_thresh = ke_thresh;
  res.col.ke_end = lp.n_rows ? lp.rows[lp.n_rows - 1].ke : NAN;
  res.settled = lp.settled;
  res.n_rows = lp.n_rows;
  res.rows = lp.rows;
  free(x);
  free(v);
  free(m);
  free(fly);
  bg_sim_destroy(sim);
  return res;
}

void heap_result_pack(const heap_result *r, bg_lab_blob *b) {
  bg_column_result_pack(&r->col, b);
  const double dv[4] = {r->mass_poured, r->mass_target, r->phi_fed, r->mu_s_fed};
  const int32_t iv[2] = {r->settled, r->n_rows};
  bg_lab_blob_put(b, dv, sizeof dv);
  bg_lab_blob_put(b, iv, sizeof iv);
  if (r->n_rows) bg_lab_blob_put(b, r->rows, (size_t)r->n_rows * sizeof *r->rows);
}

heap_result heap_result_unpack(bg_lab_blob *b) {
  heap_result r;
  memset(&r, 0, sizeof r);
  r.col = bg_column_result_unpack_part(b);
  double dv[4];
  int32_t iv[2];
  bg_lab_blob_get(b, dv, sizeof dv);
  bg_lab_blob_get(b, iv, sizeof iv);
  r.mass_poured = dv[0];
  r.mass_target = dv[1];
  r.phi_fed = dv[2];
  r.mu_s_fed = dv[3];
  r.settled = iv[0];
  r.n_rows = iv[1];
  if (r.n_rows < 0 || (size_t)r.n_rows * sizeof(heap_row) != b->len - b->pos)
    bg_lab_fail("a heap result's history does not match its length: damaged");
  r.rows = malloc((size_t)(r.n_rows ? r.n_rows : 1) * sizeof *r.rows);
  if (!r.rows) bg_lab_fail("out of memory for a heap history");
  if (r.n_rows) bg_lab_blob_get(b, r.rows, (size_t)r.n_rows * sizeof *r.rows);
  return r;
}

void heap_result_free(heap_result *r) {
  bg_column_result_free(&r->col);
  free(r->rows);
  r->rows = NULL;
}
