/* bg_silo.c: one silo discharge run, scene to result (see bg_silo.h and
 * experiments/silo/silo.c); a result's blob form is in bg_silo_result.c. */
#include "bg_silo.h"

#include <gsl/gsl_math.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"
#include "bg_silo_internal.h"

#define G 9.81

static void fail_sim(const char *what, bg_status s, const char *msg) {
  bg_lab_fail("%s: %s (%s)", what, bg_status_name(s), msg);
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

/* ------------------------------------------------------- the run's state */

/* What the discharge loop keeps between samples. A checkpoint holds it with
 * the result's window fields and exit profile sums (silo_pack). */
typedef struct silo_loop {
  double t, rho_b, rho_sd;                /* the clock; rho_b and its sd at the last sample */
  double last_growth_t, last_msink;       /* when the parked mass last grew, and to what */
  int in_window, w0;                      /* the steady window is open, from sample w0 */
  size_t ns, cap_s;                       /* samples so far, and room for */
  double *ts, *msink, *mbelow, *hs, *rbs; /* per sample: t, parked mass, mass below z = 0, fill, rho_b */
} silo_loop;

/* One run from scene to result: what each stage of bg_silo_run hands on. */
typedef struct silo_run {
  bg_lab *lab;
  const bg_silo_scene *sc;
  const char *tag;
  grid_geo g;
  bg_collider col[2]; /* the floor field; round: the silo wall */
  bg_sink sink;       /* under the outlet: parks what falls through */
  bg_sim *sim;
  size_t n;                       /* particles */
  bg_real *x, *m, *v, *rho, *act; /* read-back buffers */
  double M;                       /* the fill's mass */
  double wscale;                  /* slot: 1 / T, so that W is per unit width; round: 1 */
  double h_end, h_start, t_start; /* the fill the run drains to; start-up's end in fill and time */
  double bw, xlo;                 /* profile bin width; the slot's first bin edge */
  silo_loop lp;
  bg_silo_result r;
} silo_run;

/* The stop rules by the index that checkpoints and result blobs store; not
 * static, as bg_silo_result.c reads them too (bg_silo.h is the public API). */
const char *const bg_silo_stop_rules[BG_SILO_N_STOP_RULES] = {"none", "fill_end", "fill_drop", "steady_window", "t_max", "jammed"};
#define SILO_STATE_MAGIC 0x73696c31u /* "sil1": the layout below */

static void put_d(bg_lab_blob *b, const double *v, size_t n) { bg_lab_blob_put(b, v, n * sizeof *v); }
static void get_d(bg_lab_blob *b, double *v, size_t n) { bg_lab_blob_get(b, v, n * sizeof *v); }

static void silo_pack(void *ctx, bg_lab_blob *b) {
  const silo_run *u = ctx;
  const silo_loop *c = &u->lp;
  const bg_silo_result *r = &u->r;
  int32_t rule = 0;
  for (int i = 0; i < BG_SILO_N_STOP_RULES; ++i)
    if (!strcmp(r->stop_rule, bg_silo_stop_rules[i])) rule = i;
  int32_t ints[6] = {(int32_t)SILO_STATE_MAGIC, rule, r->jammed, r->n_prof, c->in_window, c->w0};
  uint64_t ns = c->ns, nb = (uint64_t)r->nb;
  bg_lab_blob_put(b, ints, sizeof ints);
  bg_lab_blob_put(b, &ns, sizeof ns);
  bg_lab_blob_put(b, &nb, sizeof nb);
  double sc[8] = {c->t, c->rho_b, c->rho_sd, c->last_growth_t, c->last_msink, r->rho_b, r->rho_b_sd, r->h_stop};
  put_d(b, sc, 8);
  put_d(b, c->ts, ns);
  put_d(b, c->msink, ns);
  put_d(b, c->mbelow, ns);
  put_d(b, c->hs, ns);
  put_d(b, c->rbs, ns);
  put_d(b, r->sm, nb);
  put_d(b, r->smv, nb);
  put_d(b, r->smr, nb);
  put_d(b, r->cnt, nb);
}

static void silo_unpack(silo_run *u, bg_lab_blob *b) {
  silo_loop *c = &u->lp;
  bg_silo_result *r = &u->r;
  int32_t ints[6];
  uint64_t ns, nb;
  bg_lab_blob_get(b, ints, sizeof ints);
  bg_lab_blob_get(b, &ns, sizeof ns);
  bg_lab_blob_get(b, &nb, sizeof nb);
  if ((uint32_t)ints[0] != SILO_STATE_MAGIC || ints[1] < 0 || ints[1] >= BG_SILO_N_STOP_RULES ||
      nb != (uint64_t)r->nb || ns > (b->len - b->pos) / sizeof(double))
    bg_lab_fail("%s: the checkpoint holds another loop's state (or another scene's profile bins)", u->tag);
  r->stop_rule = bg_silo_stop_rules[ints[1]];
  r->jammed = ints[2];
  r->n_prof = ints[3];
  c->in_window = ints[4];
  c->w0 = ints[5];
  double sc[8];
  get_d(b, sc, 8);
  c->t = sc[0];
  c->rho_b = sc[1];
  c->rho_sd = sc[2];
  c->last_growth_t = sc[3];
  c->last_msink = sc[4];
  r->rho_b = sc[5];
  r->rho_b_sd = sc[6];
  r->h_stop = sc[7];
  if (ns > c->cap_s) {
    double **arr[5] = {&c->ts, &c->msink, &c->mbelow, &c->hs, &c->rbs};
    for (int i = 0; i < 5; ++i) {
      double *p = realloc(*arr[i], ns * sizeof **arr[i]);
      if (!p) bg_lab_fail("out of memory for the time series");
      *arr[i] = p;
    }
    c->cap_s = ns;
  }
  c->ns = ns;
  get_d(b, c->ts, ns);
  get_d(b, c->msink, ns);
  get_d(b, c->mbelow, ns);
  get_d(b, c->hs, ns);
  get_d(b, c->rbs, ns);
  get_d(b, r->sm, nb);
  get_d(b, r->smv, nb);
  get_d(b, r->smr, nb);
  get_d(b, r->cnt, nb);
}

/* ------------------------------------------------------ the run's stages */

/* The grid, the floor and wall colliders and the sink, handed to the
 * library; the aperture counted in the field built here and again in the
 * library's copy of it. */
static void silo_build(silo_run *u) {
  const bg_silo_scene *sc = u->sc;
  grid_geo *g = &u->g;
  bg_silo_build_geometry(u->lab, sc, g);
  double dx = sc->dx;
  bg_collider *col = u->col;
  col[0].shape = BG_SHAPE_NODES;
  col[0].phi = g->phi;
  col[0].friction = BG_FRICTION_COULOMB;
  col[0].mu = (bg_real)sc->mu_floor;
  int ncol = 1;
  if (sc->round) {
    col[1].shape = BG_SHAPE_CYLINDER;
    col[1].radius = (bg_real)(0.5 * g->L);
    col[1].lo[2] = -1e3f;
    col[1].hi[2] = 1e3f;
    col[1].invert = 1;
    col[1].friction = BG_FRICTION_COULOMB;
    col[1].mu = (bg_real)sc->mu_wall;
    ncol = 2;
  }
  u->sink = (bg_sink){{-1e3f, -1e3f, -1e3f}, {1e3f, 1e3f, (bg_real)g->z_sink}};
  g->desc.colliders = col;
  g->desc.n_colliders = (size_t)ncol;
  g->desc.sinks = &u->sink;
  g->desc.n_sinks = 1;
  char err[512];
  bg_status s = bg_sim_create(&g->desc, &u->sim, err, sizeof err);
  if (s != BG_OK) fail_sim("bg_sim_create", s, err);
  bg_silo_result *r = &u->r;
  r->D_nom = sc->D_cells * dx;
  /* the aperture the measurements use is this file's count of the field it
   * built; silo.aperture holds it to the one the library holds, counted
   * again from the library's own copy (bg_silo_fed_aperture), so that a scene that
   * hands the library another floor than the one it measures with, or a
   * measurement that misreads it, fails a claim */
  r->D_geo = sc->round ? sqrt(4.0 * g->n_free * dx * dx / M_PI) : (double)g->n_free / sc->slab_cells * dx;
  r->D_fed = bg_silo_fed_aperture(u->sim, sc->round, &r->dx_fed, &r->rho0_fed);
}

/* The fill at rest: a jittered lattice of spacing dx/2 (ppc 8) over the
 * silo's interior; its mass, the cross-section it has, and the fill heights
 * and time that open and close the window. */
static void silo_fill(silo_run *u) {
  const bg_silo_scene *sc = u->sc;
  grid_geo *g = &u->g;
  double dx = sc->dx;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, sc->seed * 2654435761ul + (unsigned long)lround(sc->D_cells * 16));
  double sp = 0.5 * dx;
  int ni = (int)floor(g->L / sp + 1e-9), nk = (int)floor(g->H / sp + 1e-9);
  int nj = sc->round ? ni : (int)floor(g->T / sp + 1e-9);
  double r_max = 0.5 * g->L - 0.25 * sp; /* round: lattice points this far from the axis */
  bg_seed_lattice_desc lat = {.origin = {-0.5 * g->L, sc->round ? -0.5 * g->L : 0, 0},
                              .spacing = sp,
                              .count = {(size_t)ni, (size_t)nj, (size_t)nk},
                              .jitter = sc->jitter,
                              .inside = sc->round ? in_round : NULL,
                              .inside_ctx = &r_max,
                              .uniform = rng_uniform,
                              .uniform_ctx = rng};
  size_t cap = (size_t)ni * nj * nk;
  char err[512];
  bg_status s;
  u->x = malloc(3 * cap * sizeof *u->x);
  if ((s = bg_seed_lattice(&lat, u->x, cap, &u->n, err, sizeof err)) != BG_OK) fail_sim("bg_seed_lattice", s, err);
  gsl_rng_free(rng);
  size_t n = u->n;
  s = bg_sim_add_particles(u->sim, n, u->x, NULL, 8);
  if (s != BG_OK) fail_sim("bg_sim_add_particles", s, bg_sim_last_error(u->sim));
  u->r.n_particles = n;
  u->r.H = g->H;
  u->h_end = BG_SILO_H_END_OVER_L * g->L;
  u->h_start = g->H - sc->startup_frac * (g->H - u->h_end);
  u->t_start = BG_SILO_STARTUP_PERIODS * 4 * g->H / (double)bg_material_pwave_speed(&g->desc.material);
  u->r.h_stop = u->h_end; /* until the window opens; then the window's own drop */

  u->m = malloc(n * sizeof *u->m);
  u->v = malloc(3 * n * sizeof *u->v);
  u->rho = malloc(n * sizeof *u->rho);
  u->act = malloc(n * sizeof *u->act);
  bg_sim_get(u->sim, BG_FIELD_MASS, u->m, n);
  double M = 0;
  for (size_t p = 0; p < n; ++p) M += u->m[p];
  u->M = u->r.M0 = M;
  /* the cross-section the fill actually has: the lattice's volume over H
   * (a round silo's lattice is a staircase inside the circle, a few % short of pi R^2) */
  g->A = M / (g->desc.material.rho0 * g->H);
  /* per unit width for the slot, so that W is the planar law's quantity */
  u->wscale = sc->round ? 1.0 : 1.0 / g->T;
}

/* Exit profile bins, dx/2 wide across the silo: the slot's over x - xc
 * from -L/2, the round silo's rings out from the axis. */
static void silo_bins(silo_run *u) {
  const grid_geo *g = &u->g;
  bg_silo_result *r = &u->r;
  int round = u->sc->round;
  double bw = u->bw = 0.5 * u->sc->dx;
  r->nb = round ? (int)ceil(0.5 * g->L / bw) : (int)ceil(g->L / bw);
  r->pos = calloc((size_t)r->nb, sizeof *r->pos);
  r->area = calloc((size_t)r->nb, sizeof *r->area);
  r->sm = calloc((size_t)r->nb, sizeof *r->sm);
  r->smv = calloc((size_t)r->nb, sizeof *r->smv);
  r->smr = calloc((size_t)r->nb, sizeof *r->smr);
  r->cnt = calloc((size_t)r->nb, sizeof *r->cnt);
  u->xlo = -0.5 * g->L;
  for (int b = 0; b < r->nb; ++b) {
    if (round) {
      double r0 = b * bw, r1 = (b + 1) * bw;
      r->pos[b] = 0.5 * (r0 + r1);
      r->area[b] = M_PI * (r1 * r1 - r0 * r0);
    } else {
      r->pos[b] = u->xlo + (b + 0.5) * bw - g->xc;
      r->area[b] = bw * g->T;
    }
  }
}

/* Appends a sample to the series, doubling its room when it is full. */
static void silo_push(silo_run *u, double ms, double mbl, double h) {
  silo_loop *lp = &u->lp;
  if (lp->ns == lp->cap_s) {
    lp->cap_s *= 2;
    lp->ts = realloc(lp->ts, lp->cap_s * sizeof *lp->ts);
    lp->msink = realloc(lp->msink, lp->cap_s * sizeof *lp->msink);
    lp->mbelow = realloc(lp->mbelow, lp->cap_s * sizeof *lp->mbelow);
    lp->hs = realloc(lp->hs, lp->cap_s * sizeof *lp->hs);
    lp->rbs = realloc(lp->rbs, lp->cap_s * sizeof *lp->rbs);
    if (!lp->ts || !lp->msink || !lp->mbelow || !lp->hs || !lp->rbs) {
      bg_lab_fail("out of memory for the time series");
    }
  }
  lp->ts[lp->ns] = lp->t;
  lp->msink[lp->ns] = ms * u->wscale;
  lp->mbelow[lp->ns] = mbl * u->wscale;
  lp->hs[lp->ns] = h;
  lp->rbs[lp->ns] = lp->rho_b;
  lp->ns++;
}

/* The exit profile: the band -dx <= z < 0, the top cell of the orifice,
 * which only material inside the hole reaches; mass, downward momentum and
 * density sums per bin. */
static void silo_exit_profile(silo_run *u) {
  const bg_silo_scene *sc = u->sc;
  const grid_geo *g = &u->g;
  bg_silo_result *r = &u->r;
  double dx = sc->dx;
  const bg_real *x = u->x, *m = u->m, *v = u->v, *rho = u->rho, *act = u->act;
  bg_sim_get(u->sim, BG_FIELD_V, u->v, 3 * u->n);
  for (size_t p = 0; p < u->n; ++p) {
    if (act[p] < 0.5f || x[3 * p + 2] >= 0 || x[3 * p + 2] < -dx) continue;
    double q = sc->round ? hypot(x[3 * p] - g->xc, x[3 * p + 1] - g->xc) : x[3 * p] - u->xlo;
    int b = (int)floor(q / u->bw);
    if (b < 0 || b >= r->nb) continue;
    r->sm[b] += m[p];
    r->smv[b] += -m[p] * v[3 * p + 2];
    r->smr[b] += m[p] * rho[p];
    r->cnt[b] += 1;
  }
  r->n_prof++;
}

/* One sample: the parked mass, the fill height (the mass above the floor
 * over rho_b A), a series row; the window opens once start-up is over and
 * the exit profile gathers inside it. Returns the fill height, *ms_out the
 * parked mass. */
static double silo_sample(silo_run *u, double *ms_out) {
  const bg_silo_scene *sc = u->sc;
  const grid_geo *g = &u->g;
  silo_loop *lp = &u->lp;
  bg_silo_result *r = &u->r;
  size_t n = u->n;
  bg_sim_get(u->sim, BG_FIELD_X, u->x, 3 * n);
  bg_sim_get(u->sim, BG_FIELD_DENSITY, u->rho, n);
  bg_sim_get(u->sim, BG_FIELD_ACTIVE, u->act, n);
  double mab = 0, mbl = 0;
  for (size_t p = 0; p < n; ++p) {
    if (u->x[3 * p + 2] < 0) mbl += u->m[p];
    else if (u->act[p] > 0.5f) mab += u->m[p];
  }
  double ms;
  bg_sim_sink_mass(u->sim, &ms, 1);
  /* rho_b from the fill estimated with the last rho_b (converges in a step) */
  double hguess = isfinite(lp->rho_b) ? mab / (lp->rho_b * g->A) : g->H;
  bulk_density(sc, g, n, u->x, u->m, u->rho, u->act, hguess, &lp->rho_b, &lp->rho_sd);
  double h = mab / (lp->rho_b * g->A);
  silo_push(u, ms, mbl, h);
  if (!lp->in_window && h <= u->h_start && lp->t >= u->t_start) {
    lp->in_window = 1;
    lp->w0 = (int)lp->ns - 1;
    r->rho_b = lp->rho_b;
    r->rho_b_sd = lp->rho_sd;
    r->h_stop = fmax(u->h_end, h - sc->drop * (g->H - u->h_end));
  }
  if (lp->in_window) silo_exit_profile(u);
  if (ms > lp->last_msink + 1e-3 * u->M) {
    lp->last_msink = ms;
    lp->last_growth_t = lp->t;
  }
  *ms_out = ms;
  return h;
}

/* The stop rules, in order: 1 with r.stop_rule naming the one that ends the
 * run at fill height h, 0 to go on. */
static int silo_stops(silo_run *u, double h) {
  const bg_silo_scene *sc = u->sc;
  const silo_loop *lp = &u->lp;
  bg_silo_result *r = &u->r;
  if (h <= r->h_stop) {
    r->stop_rule = sc->drop >= 1 ? "fill_end" : "fill_drop";
    return 1;
  }
  /* sweep runs: the steady window is long enough for the rate once it has
   * lasted t_win_min and W is known to rel_se_max (checked every 10 samples) */
  if (lp->in_window && sc->steady_stop && lp->t - lp->ts[lp->w0] >= sc->t_win_min && (lp->ns - lp->w0) % 10 == 0) {
    double rse = w_rel_se(lp->ts, lp->msink, lp->w0, (int)lp->ns);
    if (rse <= sc->rel_se_max) {
      r->stop_rule = "steady_window";
      return 1;
    }
  }
  if (lp->t >= sc->t_max) {
    r->stop_rule = "t_max";
    return 1;
  }
  if (lp->t > lp->last_growth_t + 0.5) {
    r->jammed = 1;
    r->stop_rule = "jammed";
    return 1;
  }
  return 0;
}

/* A progress line every 50 samples, and the lab's rate meter every sample. */
static void silo_progress(const silo_run *u, double h, double ms) {
  const bg_silo_scene *sc = u->sc;
  const silo_loop *lp = &u->lp;
  if (lp->ns % 50 == 0) {
    char wmsg[96] = "";
    if (lp->in_window && sc->steady_stop)
      snprintf(wmsg, sizeof wmsg, "; window %.2f s of >= %.2f s, W rel. s.e. %.2g%% (stop at <= %.2g%%)",
               lp->t - lp->ts[lp->w0], sc->t_win_min, 100 * w_rel_se(lp->ts, lp->msink, lp->w0, (int)lp->ns),
               100 * sc->rel_se_max);
    bg_lab_progress(u->lab, "%s: t %.3f s, fill %.1f mm (stop at %.1f), discharged %.1f%%, rho_b %.0f kg/m3%s",
                    u->tag, lp->t, h * 1e3, u->r.h_stop * 1e3, 100 * ms / u->M, lp->rho_b, wmsg);
  }
  bg_stats ps;
  if (bg_sim_stats(u->sim, &ps) == BG_OK)
    bg_lab_progress_sim(u->lab, u->tag, lp->t, sc->t_max, (double)u->n * (double)ps.step);
}

/* The discharge from rest until a stop rule ends it, a sample every
 * sample_dt; a checkpoint holds the loop's state, so a resumed run goes on
 * from its last one. */
static void silo_discharge(silo_run *u) {
  const bg_silo_scene *sc = u->sc;
  const grid_geo *g = &u->g;
  silo_loop *lp = &u->lp;
  bg_silo_result *r = &u->r;
  lp->cap_s = 1024;
  lp->ts = malloc(lp->cap_s * sizeof *lp->ts);
  lp->msink = malloc(lp->cap_s * sizeof *lp->msink);
  lp->mbelow = malloc(lp->cap_s * sizeof *lp->mbelow);
  lp->hs = malloc(lp->cap_s * sizeof *lp->hs);
  lp->rbs = malloc(lp->cap_s * sizeof *lp->rbs);
  bg_lab_progress(u->lab, "%s: %s silo L %.1f mm (%d cells), H %.1f mm, D %.2f cells nominal, %.2f counted; "
                  "%zu particles, grid %zux%zux%zu",
                  u->tag, sc->round ? "round" : "slot", g->L * 1e3, sc->silo_cells, g->H * 1e3, sc->D_cells,
                  r->D_geo / sc->dx, u->n, g->desc.dims[0], g->desc.dims[1], g->desc.dims[2]);
  lp->t = 0;
  lp->rho_b = lp->rho_sd = NAN;
  lp->in_window = 0;
  lp->w0 = -1;
  r->stop_rule = "none";
  lp->last_growth_t = lp->last_msink = 0;
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(u->lab, u->sim, u->tag, &state, &finished);
  if (state.len) silo_unpack(u, &state);
  bg_lab_blob_free(&state);
  while (!finished) {
    double ms, h = silo_sample(u, &ms);
    if (silo_stops(u, h)) break;
    silo_progress(u, h, ms);
    lp->t += sc->sample_dt;
    bg_status s = bg_sim_advance_to(u->sim, lp->t);
    if (s != BG_OK) fail_sim("bg_sim_advance_to", s, bg_sim_last_error(u->sim));
    bg_lab_sim_tick(ls, silo_pack, u);
  }
  bg_lab_sim_end(ls, silo_pack, u);
  bg_stats st;
  bg_sim_stats(u->sim, &st);
  r->steps = st.step;
  r->t_end = st.time;
}

/* W by least squares over the steady window, from the parked mass and from
 * the mass below the floor plane; its sub-window flatness and relative
 * standard error; and the flatness had the window opened at t = 0. */
static void silo_fit(silo_run *u) {
  bg_silo_result *r = &u->r;
  const double *ts = u->lp.ts, *msink = u->lp.msink;
  int w0 = u->lp.w0, w1 = (int)u->lp.ns;
  r->n_window = w0 >= 0 ? w1 - w0 : 0;
  r->t0w = w0 >= 0 ? ts[w0] : NAN;
  r->t1w = ts[u->lp.ns - 1];
  if (w0 < 0) {
    r->W = r->W_plane = r->flat = r->rel_se = r->flat_startup = NAN;
    return;
  }
  r->W = slope(ts, msink, w0, w1, &r->sW);
  r->W_plane = slope(ts, u->lp.mbelow, w0, w1, &r->sW_plane);
  r->flat = 0;
  for (int k = 0; k < BG_SILO_N_SUB; ++k) {
    int a = w0 + (w1 - w0) * k / BG_SILO_N_SUB, b = w0 + (w1 - w0) * (k + 1) / BG_SILO_N_SUB;
    double sd;
    r->W_sub[k] = slope(ts, msink, a, b, &sd);
    r->t_sub[k][0] = ts[a];
    r->t_sub[k][1] = ts[b - 1];
    /* a sub-window too short to fit leaves flatness unmeasured (NaN) */
    r->flat = isfinite(r->W_sub[k]) ? fmax(r->flat, fabs(r->W_sub[k] / r->W - 1)) : NAN;
  }
  r->rel_se = w_rel_se(ts, msink, w0, w1);
  double sd, w_all = slope(ts, msink, 0, w1, &sd);
  r->flat_startup = 0;
  for (int k = 0; k < BG_SILO_N_SUB; ++k) {
    double wk = slope(ts, msink, w1 * k / BG_SILO_N_SUB, w1 * (k + 1) / BG_SILO_N_SUB, &sd);
    r->flat_startup = isfinite(wk) ? fmax(r->flat_startup, fabs(wk / w_all - 1)) : NAN;
  }
}

/* The exit profile's integrals (per unit width for the slot): W from the
 * exit density and speed, from the counted mass, and with rho0; the
 * centreline speed and the flowing width. */
static void silo_profile(silo_run *u) {
  bg_silo_result *r = &u->r;
  double dx = u->sc->dx, wscale = u->wscale;
  double vmax = 0, smc = 0, smvc = 0;
  r->W_closure = r->W_counted = r->W_closure_rho0 = 0;
  for (int b = 0; b < r->nb; ++b) {
    if (r->sm[b] <= 0 || r->n_prof == 0) continue;
    double vol = r->area[b] * dx * r->n_prof;
    double vb = r->smv[b] / r->sm[b], rb = r->smr[b] / r->sm[b];
    r->W_closure += rb * vb * r->area[b] * wscale;
    r->W_counted += r->smv[b] / vol * r->area[b] * wscale;
    r->W_closure_rho0 += r->rho0_fed * vb * r->area[b] * wscale;
    if (vb > vmax) vmax = vb;
    if (fabs(r->pos[b]) < 0.5 * dx) {
      smc += r->sm[b];
      smvc += r->smv[b];
    }
  }
  r->v_c = smc > 0 ? smvc / smc : NAN;
  r->u_c = r->v_c / sqrt(G * r->D_geo);
  /* flowing width: extent of the bins with v > 10% of the maximum */
  double lo = INFINITY, hi = -INFINITY;
  for (int b = 0; b < r->nb; ++b) {
    if (r->sm[b] <= 0) continue;
    double vb = r->smv[b] / r->sm[b];
    if (vb > 0.1 * vmax) {
      lo = fmin(lo, r->pos[b] - 0.5 * u->bw);
      hi = fmax(hi, r->pos[b] + 0.5 * u->bw);
    }
  }
  r->D_flow = u->sc->round ? 2 * hi : hi - lo;
  if (!isfinite(r->D_flow)) r->D_flow = NAN;
}

/* The series rows, with local rates by a centred difference over +-5 samples. */
static void silo_write_series(const silo_run *u, FILE *out) {
  const silo_loop *lp = &u->lp;
  size_t ns = lp->ns;
  for (size_t i = 0; i < ns; ++i) {
    size_t a = i >= 5 ? i - 5 : 0, b = i + 5 < ns ? i + 5 : ns - 1;
    double wl = b > a ? (lp->msink[b] - lp->msink[a]) / (lp->ts[b] - lp->ts[a]) : NAN;
    double wp = b > a ? (lp->mbelow[b] - lp->mbelow[a]) / (lp->ts[b] - lp->ts[a]) : NAN;
    fprintf(out, "%.5f\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4f\t%.2f\t%d\n", lp->ts[i], lp->msink[i],
            lp->mbelow[i], wl, wp, lp->hs[i], lp->hs[i] / u->g.L, (lp->hs[i]) / u->g.H, lp->rbs[i],
            lp->w0 >= 0 && (int)i >= lp->w0 ? 1 : 0);
  }
}

/* Everything but the result's profile arrays, which the caller owns. */
static void silo_release(silo_run *u) {
  silo_loop *lp = &u->lp;
  free(lp->ts);
  free(lp->msink);
  free(lp->mbelow);
  free(lp->hs);
  free(lp->rbs);
  free(u->x);
  free(u->m);
  free(u->v);
  free(u->rho);
  free(u->act);
  free(u->g.phi);
  bg_sim_destroy(u->sim);
}

bg_silo_result bg_silo_run(bg_lab *lab, const bg_silo_scene *sc, const char *tag, FILE *series_out) {
  silo_run u;
  memset(&u, 0, sizeof u);
  u.lab = lab;
  u.sc = sc;
  u.tag = tag;
  silo_build(&u);
  silo_fill(&u);
  silo_bins(&u);
  silo_discharge(&u);
  silo_fit(&u);
  silo_profile(&u);
  if (series_out) silo_write_series(&u, series_out);
  const bg_silo_result *r = &u.r;
  bg_lab_progress(lab,
                  "%s: %s at t %.3f s after %llu steps, ended by rule '%s'; window %.3f-%.3f s (%d samples); "
                  "W %.5g +- %.2g (plane %.5g), W rel. s.e. %.2g%%, flatness %.3f, rho_b %.0f, closure %.5g",
                  tag, r->jammed ? "JAMMED" : "done", r->t_end, (unsigned long long)r->steps, r->stop_rule, r->t0w,
                  r->t1w, r->n_window, r->W, r->sW, r->W_plane, 100 * r->rel_se, r->flat, r->rho_b, r->W_closure);
  silo_release(&u);
  return u.r;
}
