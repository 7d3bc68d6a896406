#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* silo.c: discharge of a flat-bottomed silo through an orifice (Beverloo).
 *
 * Scene: a silo of width (slot) or diameter (round) L, filled with Klar's
 * sand at rest to H = (H/R) L/2 (H/R >= 5, tall enough for Janssen
 * saturation), walls with Coulomb friction mu_wall. The floor (top face at
 * z = 0, floor_cells thick) is a user node field (BG_SHAPE_NODES): the slab
 * minus the aperture, phi = max(|z + t/2| - t/2, D/2 - rho), rho = |x - xc|
 * for the planar slot and the distance from the axis for the round orifice.
 * Material that falls gap_cells below the floor's underside enters a sink
 * box and is parked, so nothing piles back up under the outlet. The orifice
 * is open from t = 0: the sand settles elastically while it starts to flow.
 *
 * Geometries:
 *   slot  a slab slab_cells thick between slip faces (y), the silo walls are
 *         the x domain faces (Coulomb mu_wall): a planar silo, W per unit
 *         width ~ (D - k d)^(3/2). The quick preset uses it: 3D is ~50x the
 *         particles at the same cells per aperture, beyond 3 CPU minutes.
 *   round an inverted z-cylinder (Coulomb mu_wall) of diameter L with a
 *         circular orifice: W ~ (D - k d)^(5/2), Beverloo's law.
 *
 * Apertures are resolved on the grid, not at the nominal D: a floor node is
 * free when it lies in the hole, so the geometric aperture is counted from
 * the free nodes of the floor plane (slot: N dx; round: sqrt(4 N dx^2 / pi))
 * of the floor field as the library holds it, read back through
 * bg_sim_describe (bg_silo.c, fed_aperture). Every fit uses this counted
 * aperture; silo.aperture ties it to the library's (expected: fed). A
 * continuum has no grain size, so Beverloo's k d is 0; the grid's rim is
 * a dead zone of a fixed number of cells (references/derivations/silo.md,
 * section 6), so the claims' fit is the joint one, W = C rho_b sqrt(g)
 * (D - k dx)^n with C, k (cells of each run's dx) and n free, over the
 * apertures of >= joint-min-cells cells and the refinement runs.
 *
 * Resolution criterion: only apertures whose centreline exit speed over
 * sqrt(g D) has levelled off against D (|d ln u_c / d ln D| <= plateau_slope)
 * enter the Beverloo fits; the claims are NaN (fail) when too few pass.
 * --refine D runs one physical aperture on three grids (dx x 2, dx, dx / 2).
 *
 * Measurements, one run per aperture, sampled every sample_dt:
 *   parked mass in the sink (the discharge, W its slope), mass below the
 *   orifice plane z = 0 (the plane-flux check), mass above it and the bulk
 *   density rho_b: mass-weighted mean of rho0 / (det F Jp) over particles in
 *   the bulk (z from L/2 to h - 2 dx, at least 2 dx from the wall), so the
 *   fill height h = M_above / (rho_b A) is measured, not assumed (A: the
 *   initial lattice's volume over H, M0 / (rho0 H)).
 *   Steady window: start-up ends when h has dropped by startup_frac (0.05) of
 *   (H - 1.2 L) and t >= STARTUP_PERIODS x 4 H / c_p: the column starts
 *   stress-free and rings in its fundamental elastic mode (period 4 H / c_p)
 *   while it settles onto the floor, which holds the rate low for ~2 periods
 *   whatever the aperture (seen in the rate series: a fill criterion alone
 *   let the large apertures' windows start inside it). The window then runs
 *   until h has dropped a further drop (H - 1.2 L), capped at h = 1.2 L: the
 *   rate run (largest aperture) drains to 1.2 L, the sweep runs a fraction
 *   of that, or less: a sweep run also ends once its window has lasted
 *   t_win_min with W's relative standard error <= rel_se_max (see main).
 *   W: GSL linear fit of the
 *   parked mass over the window; flatness: the same fit on N_SUB equal
 *   sub-windows, max |W_k / W - 1|.
 *   Exit profile: particles in the band -dx <= z < 0 (the orifice's top cell),
 *   binned across the aperture (dx/2 bins), over every sample of the window:
 *   mass flux j = sum m v_z / (V_bin n_samples), exit speed v = sum m v_z /
 *   sum m, local density from particle state rho = sum m rho_p / sum m. The
 *   closure integrates rho v over the exit and compares it with W.
 * Fits (GSL nonlinear least squares, relative residuals, covariance scaled
 * by chi^2/dof): W / (rho_b sqrt(g)) = C (D - k dx)^n with n fixed (3/2 slot,
 * 5/2 round), then with n free; and the geometric power law W ~ D^n_geo (a
 * linear fit in logs). */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"
#include "bg_silo.h"

#define MAX_AP 12
#define MAX_PTS (MAX_AP + 3)
#define G 9.81

/* ---------------------------------------------------------------- fits */

typedef struct bev_data {
  const double *D, *y; /* aperture (m), W / (rho_b sqrt g) */
  size_t n;
  const double *d; /* per point, the length in D - k d: the run's dx */
  double n_fix;  /* exponent when fixed */
  int free_n;
} bev_data;

static int bev_f(const gsl_vector *p, void *vd, gsl_vector *f) {
  const bev_data *d = vd;
  double C = gsl_vector_get(p, 0), k = gsl_vector_get(p, 1);
  double e = d->free_n ? gsl_vector_get(p, 2) : d->n_fix;
  for (size_t i = 0; i < d->n; ++i) {
    double a = d->D[i] - k * d->d[i];
    /* an aperture closed by the deficit predicts no flow */
    double model = a > 0 ? C * pow(a, e) : 0;
    gsl_vector_set(f, i, (model - d->y[i]) / d->y[i]);
  }
  return GSL_SUCCESS;
}

static int bev_df(const gsl_vector *p, void *vd, gsl_matrix *J) {
  const bev_data *d = vd;
  double C = gsl_vector_get(p, 0), k = gsl_vector_get(p, 1);
  double e = d->free_n ? gsl_vector_get(p, 2) : d->n_fix;
  for (size_t i = 0; i < d->n; ++i) {
    double a = d->D[i] - k * d->d[i];
    if (a <= 0) a = 1e-12;
    double pe = pow(a, e);
    gsl_matrix_set(J, i, 0, pe / d->y[i]);
    gsl_matrix_set(J, i, 1, -C * e * pow(a, e - 1) * d->d[i] / d->y[i]);
    if (d->free_n) gsl_matrix_set(J, i, 2, C * pe * log(a) / d->y[i]);
  }
  return GSL_SUCCESS;
}

typedef struct bev_fit {
  double C, k, n, sC, sk, sn, rms;
  int status, dof;
} bev_fit;

static bev_fit fit_beverloo(const double *D, const double *y, size_t n, const double *d, double n_fix, int free_n,
                            const double *start) {
  bev_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, 0};
  size_t np = free_n ? 3 : 2;
  r.dof = (int)n - (int)np;
  if (n < np + 1 || !isfinite(start[0])) return r;
  bev_data bd = {D, y, n, d, n_fix, free_n};
  gsl_multifit_nlinear_fdf fdf = {bev_f, bev_df, NULL, n, np, &bd, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, np);
  double p0[3] = {start[0], start[1], free_n ? start[2] : n_fix};
  gsl_vector_view pv = gsl_vector_view_array(p0, np);
  gsl_multifit_nlinear_init(&pv.vector, &fdf, w);
  int info;
  r.status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
  gsl_matrix *cov = gsl_matrix_alloc(np, np);
  gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
  double chi2;
  gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), &chi2);
  /* residuals are relative with no known sigma: scale by chi^2/dof */
  double sc = chi2 / r.dof;
  r.C = gsl_vector_get(w->x, 0);
  r.k = gsl_vector_get(w->x, 1);
  r.n = free_n ? gsl_vector_get(w->x, 2) : n_fix;
  r.sC = sqrt(sc * gsl_matrix_get(cov, 0, 0));
  r.sk = sqrt(sc * gsl_matrix_get(cov, 1, 1));
  r.sn = free_n ? sqrt(sc * gsl_matrix_get(cov, 2, 2)) : 0;
  r.rms = sqrt(chi2 / n);
  gsl_matrix_free(cov);
  gsl_multifit_nlinear_free(w);
  return r;
}

/* C of W / (rho_b sqrt g) = C (D - kd)^n_law with k fixed: a linear fit
 * through the origin of the relative residuals, C x_i - 1 with
 * x_i = (D_i - kd)^n_law / y_i (GSL, variance from the scatter) */
static bev_fit fit_C_kfixed(const double *D, const double *y, size_t n, double kd, double n_law) {
  bev_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, (int)n - 1};
  if (n < 2) return r;
  double x[MAX_AP + 3], one[MAX_AP + 3], c1, cov11, ss;
  for (size_t i = 0; i < n; ++i) {
    if (D[i] - kd <= 0) return r;
    x[i] = pow(D[i] - kd, n_law) / y[i];
    one[i] = 1;
  }
  r.status = gsl_fit_mul(x, 1, one, 1, n, &c1, &cov11, &ss);
  r.C = c1;
  r.sC = sqrt(cov11);
  r.n = n_law;
  r.sn = 0;
  r.rms = sqrt(ss / n);
  return r;
}

/* n (and C) of the same law with k fixed: a straight line in logs,
 * ln y = ln C + n ln(D - kd) (GSL, covariance from the scatter) */
static bev_fit fit_n_kfixed(const double *D, const double *y, size_t n, double kd) {
  bev_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, (int)n - 2};
  if (n < 3) return r;
  double lx[MAX_AP + 3], ly[MAX_AP + 3], c0, c1, c00, c01, c11, ss;
  for (size_t i = 0; i < n; ++i) {
    if (D[i] - kd <= 0) return r;
    lx[i] = log(D[i] - kd);
    ly[i] = log(y[i]);
  }
  r.status = gsl_fit_linear(lx, 1, ly, 1, n, &c0, &c1, &c00, &c01, &c11, &ss);
  r.C = exp(c0);
  r.sC = r.C * sqrt(c00);
  r.n = c1;
  r.sn = sqrt(c11);
  r.rms = sqrt(ss / n);
  return r;
}

/* Resolution criterion: an aperture's run has reached its steady exit speed
 * when u_c = v_c / sqrt(g D) has levelled off against D. s_i is the local
 * log-slope d ln u_c / d ln D to the next larger aperture (the largest: to
 * the one below); W ~ u_c D^(n_law) in the law's dimensions, so the drift of
 * u_c adds s_i to the local exponent of W, and an aperture passes when
 * |s_i| <= s_max. Runs that did not discharge never pass. */
static int resolution(const bg_silo_result *rr, int n, double s_max, double *s, int *ok) {
  int nok = 0;
  for (int i = 0; i < n; ++i) {
    int j = i + 1 < n ? i + 1 : i - 1;
    const bg_silo_result *a = &rr[i], *b = &rr[j];
    int disch = isfinite(a->W) && a->W > 0 && !a->jammed && isfinite(a->u_c) && a->u_c > 0;
    int disch_b = isfinite(b->W) && b->W > 0 && !b->jammed && isfinite(b->u_c) && b->u_c > 0;
    s[i] = n > 1 && disch && disch_b ? log(b->u_c / a->u_c) / log(b->D_geo / a->D_geo) : NAN;
    ok[i] = isfinite(s[i]) && fabs(s[i]) <= s_max;
    nok += ok[i];
  }
  return nok;
}

/* The joint fit with the rim modelled: W / (rho_b sqrt g) = C (D - k dx)^n,
 * C, k (cells of each run's own dx) and n free (n_law fixed: n = n_law), over
 * the sweep's discharging apertures of at least min_cells cells and every
 * discharging refinement run. D_i = D_geo - off_cells dx_i (off_cells 1: the
 * measurement mutant aperture-one-cell-small). */
static bev_fit joint_fit(const bg_silo_result *rr, int nap, int ntot, double min_cells, double off_cells, double n_law,
                         int free_n, int *npts) {
  bev_fit none = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, 0};
  double D[MAX_PTS], y[MAX_PTS], d[MAX_PTS];
  int n = 0;
  for (int i = 0; i < ntot; ++i) {
    const bg_silo_result *r = &rr[i];
    if (!(isfinite(r->W) && r->W > 0 && !r->jammed)) continue;
    if (i < nap && r->D_geo / r->dx_fed < min_cells - 1e-9) continue;
    D[n] = r->D_geo - off_cells * r->dx_fed;
    y[n] = r->W / (r->rho_b * sqrt(G));
    d[n] = r->dx_fed;
    n++;
  }
  *npts = n;
  if (n < (free_n ? 4 : 3)) return none;
  /* start: k 0, C from the largest aperture */
  int il = 0;
  for (int i = 1; i < n; ++i)
    if (D[i] > D[il]) il = i;
  double st[3] = {y[il] / pow(D[il], n_law), 0, n_law};
  bev_fit f = fit_beverloo(D, y, (size_t)n, d, n_law, 0, st);
  if (!free_n) return f;
  double st1[3] = {f.C, f.k, n_law};
  return fit_beverloo(D, y, (size_t)n, d, n_law, 1, st1);
}

/* ---------------------------------------------------------------- main */

/* measurement mutants (references/mutants.tsv), evaluated on the plain run's data */
static const char *const silo_mutants[] = {"criterion-off", "startup-included", "density-rho0", "beverloo-law-data",
                                           "unresolved-in", "aperture-one-cell-small",
                                           "rim-unmodelled-law-data", NULL};

static int parse_apertures(const char *s, double *out, int max, double lo, double hi) {
  int n = 0;
  const char *c = s;
  while (*c) {
    char *end;
    double v = strtod(c, &end);
    if (end == c || !isfinite(v)) {
      fprintf(stderr, "error: --apertures: '%s' is not a comma-separated list of numbers\n", s);
      exit(2);
    }
    if (v < lo || v > hi) {
      fprintf(stderr, "error: --apertures: %g cells is outside the accepted range [%g, %g] "
                      "(at least 3 cells, at most silo-cells / 2.5)\n", v, lo, hi);
      exit(2);
    }
    if (n == max) {
      fprintf(stderr, "error: --apertures: more than %d values\n", max);
      exit(2);
    }
    out[n++] = v;
    c = end;
    if (*c == ',') c++;
    else if (*c) {
      fprintf(stderr, "error: --apertures: unexpected '%c' in '%s'\n", *c, s);
      exit(2);
    }
  }
  for (int i = 1; i < n; ++i)
    if (out[i] <= out[i - 1]) {
      fprintf(stderr, "error: --apertures: values must increase (got %g after %g)\n", out[i], out[i - 1]);
      exit(2);
    }
  return n;
}

/* One point of the sweep: an aperture (or a refinement grid) run until its
 * stop rule, with its series rows, packed for the gather. */
typedef struct silo_ctx {
  bg_lab *lab;
  const bg_silo_scene *scenes;
  const char (*tags)[96];
} silo_ctx;

static void silo_point(void *vctx, int k, bg_lab_blob *out) {
  const silo_ctx *c = vctx;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) bg_lab_fail("%s: cannot open a memory stream for the series: %s", c->tags[k], strerror(errno));
  bg_silo_result r = bg_silo_run(c->lab, &c->scenes[k], c->tags[k], mem);
  bg_lab_add_work(c->lab, (double)r.n_particles * (double)r.steps);
  if (fclose(mem) != 0) bg_lab_fail("%s: the series stream failed: %s", c->tags[k], strerror(errno));
  bg_silo_result_pack(&r, text, len, out);
  free(text);
  bg_silo_result_free(&r);
}

int main(int argc, char **argv) {
  const char *geometry = NULL, *apertures = NULL;
  double dx = 0, hr = 5.5, mu_wall = 0.5, mu_floor = 0.5, drop_sweep = 0, t_max = 20, sample_dt = 0,
         jitter = 0.5, t_win_min = 0, w_rel_se_max = 0.01, startup_frac = 0.05, plateau_slope = 0.1, k_fixed = 0,
         refine = 0, joint_min = 14;
  int silo_cells = 0, floor_cells = 2, gap_cells = 3, slab_cells = 1, jobs = 1;
  bg_lab_param params[] = {
      {"geometry", BG_PARAM_STRING, &geometry, 0, 0, "slot (planar, W ~ D^3/2) or round (W ~ D^5/2)", 0, "slot", "round", NULL},
      {"dx", BG_PARAM_DOUBLE, &dx, 1e-4, 0.1, "grid spacing, m", 0, "0.01", "0.005", "dx_m"},
      {"silo-cells", BG_PARAM_INT, &silo_cells, 8, 512, "silo width (slot) or diameter (round) L, cells", 0, "20", "60", NULL},
      {"apertures", BG_PARAM_STRING, &apertures, 0, 0, "orifice sizes D, cells, comma-separated, increasing", 0, "4,5,6,7", "14,17,20,22,24", "apertures_cells"},
      {"h-over-r", BG_PARAM_DOUBLE, &hr, 5, 20, "fill height over silo half-width H / R (Janssen: >= 5)", 0, NULL, NULL, NULL},
      {"mu-wall", BG_PARAM_DOUBLE, &mu_wall, 0, 2, "silo wall Coulomb coefficient", 0, NULL, NULL, NULL},
      {"mu-floor", BG_PARAM_DOUBLE, &mu_floor, 0, 2, "floor Coulomb coefficient", 0, NULL, NULL, NULL},
      {"floor-cells", BG_PARAM_INT, &floor_cells, 2, 8, "floor thickness, cells", 0, NULL, NULL, NULL},
      {"gap-cells", BG_PARAM_INT, &gap_cells, 1, 32, "distance from the floor's underside to the sink, cells", 0, NULL, NULL, NULL},
      {"slab-cells", BG_PARAM_INT, &slab_cells, 1, 32, "slot silo thickness between the slip walls, cells", 0, NULL, NULL, NULL},
      {"drop-sweep", BG_PARAM_DOUBLE, &drop_sweep, 0.1, 1,
       "fraction of the fill range H to 1.2 L the sweep runs drain inside their steady window (the largest aperture drains to 1.2 L)", 0, "0.2", "0.5", NULL},
      {"t-max", BG_PARAM_DOUBLE, &t_max, 0.01, 100, "maximum simulated time per run, s", 0, NULL, NULL, "t_max_s"},
      {"sample-dt", BG_PARAM_DOUBLE, &sample_dt, 1e-4, 0.1, "sampling interval, s (default: derived, 0.25 sqrt(dx / g))", 0, NULL, NULL, "sample_dt_s"},
      {"jitter", BG_PARAM_DOUBLE, &jitter, 0, 1, "lattice jitter, fraction of the particle spacing", 0, NULL, NULL, NULL},
      {"t-window-min", BG_PARAM_DOUBLE, &t_win_min, 0.01, 100,
       "steady-window rule for the sweep runs: the shortest window, s (unset: 2 x 5 = 10 elastic periods 4 H / c_p)", 0, NULL, NULL, "t_window_min_s"},
      {"w-rel-se", BG_PARAM_DOUBLE, &w_rel_se_max, 1e-4, 0.5,
       "steady-window rule: a sweep run ends once its window lasts t-window-min and W's relative standard error is at most this", 0, NULL, NULL, "w_rel_se_max"},
      {"startup-frac", BG_PARAM_DOUBLE, &startup_frac, 0.005, 0.5,
       "start-up exclusion: the window opens once the fill has dropped this fraction of H - 1.2 L (and t >= 2 x 4 H / c_p)", 0, NULL, NULL, NULL},
      {"jobs", BG_PARAM_INT, &jobs, 1, MAX_AP,
       "apertures simulated at once, each its own simulation with one CPU thread, or on cuda its own stream (which "
       "hides every run's host-side sampling behind the others' kernels); results do not depend on it", 0, NULL, NULL, NULL},
      {"plateau-slope", BG_PARAM_DOUBLE, &plateau_slope, 0.01, 1,
       "resolution criterion: an aperture enters the Beverloo fits when |d ln u_c / d ln D| <= this, u_c = v_c / sqrt(g D) its centreline exit speed (slope to the next larger aperture; the largest: to the one below)", 0, NULL, NULL, NULL},
      {"k-fixed", BG_PARAM_DOUBLE, &k_fixed, 0, 10,
       "k of the fixed-k Beverloo fits, cells (0: a continuum has no grain size, see references/derivations/silo.md)", 0, NULL, NULL, "k_fixed_cells"},
      {"refine", BG_PARAM_DOUBLE, &refine, 0, 1,
       "dx refinement at a fixed physical aperture D (m; 0: off): the same silo geometry with L = 2.5 D at dx x 2, dx, dx / 2, one run each, W, u_c and C(k=0) per grid in refine.tsv; the runs join the joint Beverloo fit (paper: 8 cm, the recorded h200/silo-refine)", 0, NULL, "0.08", "refine_D_m"},
      {"joint-min-cells", BG_PARAM_DOUBLE, &joint_min, 0, 64,
       "the joint Beverloo fit with the rim modelled (C, k, n free): sweep apertures of at least this many cells enter, with every refinement run (references/derivations/silo.md)", 0, NULL, NULL, NULL},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab *lab = bg_lab_init("exp_silo",
                            "Silo discharge through a floor orifice: rate against fill height, Beverloo "
                            "aperture sweep with GSL fits, exit profiles and flux closure.",
                            argc, argv, params, np, silo_mutants);
  if (strcmp(geometry, "slot") && strcmp(geometry, "round")) {
    fprintf(stderr, "error: --geometry: '%s' is not one of slot, round\n", geometry);
    return 2;
  }
  int round = !strcmp(geometry, "round");
  /* paper: apertures of 14-24 cells (L/D >= 2.5), where u_c levels off in the recorded round runs */
  /* 0 (below the accepted range): derived from the grid and the column */
  const int derive_sample_dt = sample_dt == 0, derive_t_win = t_win_min == 0;
  if (derive_sample_dt) sample_dt = 0.25 * sqrt(dx / G);
  /* Sweep runs (every aperture but the largest) end on whichever comes first:
   * the fill-drop target (drop-sweep), or the steady-window rule: the window
   * has lasted t-window-min AND W's relative standard error (w_rel_se: the
   * larger of the GSL fit's and the sub-window rates') is <= w-rel-se.
   * Default t-window-min: 2 BG_SILO_N_SUB = 10 periods of the column's fundamental
   * elastic mode 4 H / c_p (0.15 s at H = 0.55 m, c_p 14.7 m/s, so 1.5 s), so
   * that each of the BG_SILO_N_SUB sub-windows spans two periods of the ringing that
   * start-up leaves, and the window is long against the flow's own time at
   * the orifice, sqrt(D / g) = 0.03-0.09 s for D = 1-8 cm (T_min is >= 16 of
   * them, >= 250 samples at the paper's sample_dt). Default w-rel-se 1%:
   * across six apertures with D - k dx spanning a factor ~4 (ln 4 = 1.4),
   * independent 1% errors in W alone would move a two-parameter power-law
   * exponent by ~0.01; the three-parameter fit amplifies that (not measured
   * here), and 1% should keep it well below the claims' tolerance of 0.2.
   * The rate run is not affected: it drains to 1.2 L for silo.rate_flat.
   * The quick preset's sweep windows (0.45-1.28 s) are shorter than 1.5 s,
   * so there the fill drop ends them as before.
   * Paper preset (round, 60 cells, 14-24-cell apertures): 3.7M particles;
   * the recorded 56-cell run with 8-22 cells took 262 s on an H200 at
   * --jobs 6, so expect ~5 min. See reports/silo.md. */
  bg_material sand = bg_lab_material(lab);
  double period = 4 * (hr * 0.5 * silo_cells * dx) / (double)bg_material_pwave_speed(&sand);
  if (derive_t_win) t_win_min = 2.0 * BG_SILO_N_SUB * period;
  double D[MAX_AP];
  int nap = parse_apertures(apertures, D, MAX_AP, 3, silo_cells / 2.5);
  if (nap < 4) {
    fprintf(stderr, "error: --apertures: %d values, the fits need at least 4\n", nap);
    return 2;
  }
  gsl_set_error_handler_off();
  /* the derived values, as used */
  bg_lab_manifest_num(lab, "sample_dt_s", sample_dt);
  bg_lab_manifest_num(lab, "t_window_min_s", t_win_min);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "startup_periods_4H_over_cp", BG_SILO_STARTUP_PERIODS);
  bg_lab_manifest_num(lab, "h_end_over_L", BG_SILO_H_END_OVER_L);
  bg_lab_manifest_num(lab, "elastic_period_4H_over_cp_s", period);
  bg_lab_manifest_str(lab, "sweep_stop_rule",
                      "first of: fill drop of drop_sweep x (H - 1.2 L) inside the window; window >= t_window_min_s "
                      "and relative s.e. of W <= w_rel_se_max (max of the GSL fit's and the 5 sub-window rates')");
  bg_lab_manifest_material(lab, &sand);
  /* Beverloo's k d: a model with a grain size (mu(I), nonlocal fluidity)
   * takes k d from it, with Beverloo's k (references/literature/beverloo.tsv);
   * Drucker-Prager has no length but dx, and k-fixed counts cells of it */
  const double grain_d = bg_lab_grain_d(&sand);
  const int grain = grain_d > 0;
  const double k_bev = bg_lab_ref_value(lab, "literature/beverloo.tsv", "k", "value");
  const double grain_kd = grain ? k_bev * grain_d : -1;
  if (grain) bg_lab_manifest_num(lab, "beverloo_kd_m", grain_kd);
  bg_lab_manifest_str(lab, "beverloo_length_d", grain ? "the model's grain diameter d, k from references/literature/beverloo.tsv" : "grid spacing dx (a continuum has no grain size)");

  bg_silo_scene base = {round, dx, silo_cells, hr, 0, floor_cells, gap_cells, slab_cells, mu_wall, mu_floor, 1.0,
                0, t_win_min, w_rel_se_max, startup_frac, t_max, sample_dt, jitter, bg_lab_backend(lab), bg_lab_threads(lab), bg_lab_seed(lab),
                sand};
  double n0 = round ? 2.5 : 1.5;
  const char *unit_w = round ? "kg_per_s" : "kg_per_m_s";
  /* runs: the aperture sweep, then (--refine) one fixed physical aperture on three grids */
  int nref = refine > 0 ? 3 : 0, ntot = nap + nref;
  bg_silo_scene scs[MAX_AP + 3];
  bg_silo_result rr[MAX_AP + 3];
  int iref = nap - 1; /* the largest aperture drains the whole window: the rate run */
  char cols[512];
  snprintf(cols, sizeof cols,
           "t_s\tparked_%s\tbelow_plane_%s\tW_sink_%s\tW_plane_%s\tfill_m\tfill_over_L\tfill_over_H\trho_b_kg_m3\tin_window",
           round ? "kg" : "kg_per_m", round ? "kg" : "kg_per_m", unit_w, unit_w);
  for (int i = 0; i < nap; ++i) {
    scs[i] = base;
    scs[i].D_cells = D[i];
    scs[i].drop = i == iref ? 1.0 : drop_sweep;
    scs[i].steady_stop = i != iref;
  }
  /* refinement: L = 2.5 D (Mankoc 2007: wider does not matter) in whole even cells of the coarsest grid */
  int rlc0 = refine > 0 ? 2 * (int)ceil(1.25 * refine / (2 * dx) - 1e-9) : 0;
  for (int j = 0; j < nref; ++j) {
    bg_silo_scene *sc = &scs[nap + j];
    *sc = base;
    sc->dx = 2 * dx / (1 << j);
    sc->silo_cells = rlc0 << j;
    sc->D_cells = refine / sc->dx;
    sc->drop = drop_sweep;
    sc->steady_stop = 1;
    if (derive_sample_dt) sc->sample_dt = 0.25 * sqrt(sc->dx / G);
    if (derive_t_win) sc->t_win_min = 2.0 * BG_SILO_N_SUB * 4 * (hr * 0.5 * rlc0 * 2 * dx) / (double)bg_material_pwave_speed(&sand);
    if (sc->D_cells < 3 || sc->silo_cells > 1024) {
      fprintf(stderr, "error: --refine %g m: %.2f cells on the coarsest grid (dx %g m) and %d silo cells on the finest; "
                      "need >= 3 and <= 1024\n", refine, refine / (2 * dx), 2 * dx, rlc0 << 2);
      return 2;
    }
  }
  /* Each aperture is an independent simulation: the points of one sweep
   * (bg_lab_sweep: in this process --jobs at a time, the smallest aperture
   * and the finest refinement grid first as they run the longest, or one
   * point per process with --point K and then --gather). Inside a --jobs
   * region the CPU backend's own parallel loops get one thread each (nested
   * parallelism is off), which is why the CPU keeps 1. */
  if (jobs > ntot) jobs = ntot; /* the manifest keeps the value asked for */
  char tags[MAX_AP + 3][96];
  const char *tagp[MAX_AP + 3];
  double cost[MAX_AP + 3];
  for (int i = 0; i < ntot; ++i) {
    if (i < nap) snprintf(tags[i], sizeof tags[i], "D %g cells (%d/%d)", D[i], i + 1, nap);
    else snprintf(tags[i], sizeof tags[i], "refine D %g m, dx %g m (%d/%d)", refine, scs[i].dx, i - nap + 1, nref);
    tagp[i] = tags[i];
    /* the order they ran in before: refinement finest first, then the apertures smallest first */
    cost[i] = i >= nap ? 2.0 * ntot + i : (double)(ntot - i);
  }
  silo_ctx ctx = {lab, scs, (const char(*)[96])tags};
  bg_lab_blob *packed = bg_lab_sweep(lab, ntot, tagp, cost, jobs, silo_point, &ctx);
  for (int i = 0; i < ntot; ++i) {
    char fn[64], cm[256], *series;
    size_t series_len;
    rr[i] = bg_silo_result_unpack(&packed[i], &series, &series_len);
    if (i < nap) snprintf(fn, sizeof fn, "series_D%d.tsv", i);
    else snprintf(fn, sizeof fn, "series_R%d.tsv", i - nap);
    snprintf(cm, sizeof cm, "%s silo, aperture %g cells nominal, dx %g m, L %d cells; W per %s; local rates over +-5 samples; fill = mass above z=0 / (rho_b A)",
             geometry, scs[i].D_cells, scs[i].dx, scs[i].silo_cells, round ? "silo" : "unit slot width");
    FILE *f = bg_lab_tsv(lab, fn, cm, cols);
    fwrite(series, 1, series_len, f);
    fclose(f);
    free(series);
  }
  bg_lab_sweep_free(packed, ntot);

  /* rates, exit speeds and the resolution criterion */
  double slope_u[MAX_AP];
  int res[MAX_AP];
  int nres = resolution(rr, nap, plateau_slope, slope_u, res);
  FILE *fr = bg_lab_tsv(lab, "rates.tsv",
                        round ? "discharge rate per aperture (kg/s), parked-mass fit over the steady window; D_geo counted from free floor nodes; u_c = v_c / sqrt(g D_geo), u_slope = d ln u_c / d ln D, resolved: |u_slope| <= plateau_slope"
                              : "discharge rate per unit slot width (kg/(m s)), parked-mass fit over the steady window; D_geo counted from free floor nodes; u_c = v_c / sqrt(g D_geo), u_slope = d ln u_c / d ln D, resolved: |u_slope| <= plateau_slope",
                        "D_nominal_m\tD_geo_m\tD_over_dx\tW\tsigma_W\tW_plane\tsigma_W_plane\tW_closure\tW_counted\trho_b_kg_m3\tsigma_rho_b_kg_m3\tflatness\tD_flow_m\tt_window_start_s\tt_window_end_s\tsamples\tjammed\tparticles\tsteps\tW_rel_se\tstop_rule\tv_c_m_s\tu_c\tu_slope\tresolved\tC_k0");
  /* fit sets: every discharging aperture (all), and those that pass the criterion (res) */
  double Da[MAX_AP], ya[MAX_AP], Dr[MAX_AP], yr[MAX_AP], lD[MAX_AP], lW[MAX_AP], rb_mean = 0;
  int nfit = 0, nr = 0;
  for (int i = 0; i < nap; ++i) {
    bg_silo_result *r = &rr[i];
    double yy = r->W / (r->rho_b * sqrt(G));
    fprintf(fr, "%.6g\t%.6g\t%.4g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.2f\t%.2f\t%.5f\t%.5g\t%.4f\t%.4f\t%d\t%d\t%zu\t%llu\t%.3g\t%s\t%.5g\t%.5g\t%.4g\t%d\t%.5g\n",
            r->D_nom, r->D_geo, r->D_geo / dx, r->W, r->sW, r->W_plane, r->sW_plane, r->W_closure, r->W_counted,
            r->rho_b, r->rho_b_sd, r->flat, r->D_flow, r->t0w, r->t1w, r->n_window, r->jammed, r->n_particles,
            (unsigned long long)r->steps, r->rel_se, r->stop_rule, r->v_c, r->u_c, slope_u[i], res[i],
            yy / pow(r->D_geo, n0));
    if (isfinite(r->W) && r->W > 0 && !r->jammed) {
      Da[nfit] = r->D_geo;
      ya[nfit] = yy;
      lD[nfit] = log(r->D_geo);
      lW[nfit] = log(r->W);
      rb_mean += r->rho_b;
      nfit++;
      if (res[i]) {
        Dr[nr] = r->D_geo;
        yr[nr] = yy;
        nr++;
      }
    }
  }
  fclose(fr);
  (void)nres;

  /* fits: k fixed by the physical argument (k_fixed, 0) and k free, on the
   * resolved apertures, and the same on all (the definitions before the
   * criterion); the geometric power law on all */
  bev_fit none = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, 0};
  double kd = grain_kd >= 0 ? grain_kd : k_fixed * dx;
  double dxa[MAX_PTS];
  for (int i = 0; i < MAX_PTS; ++i) dxa[i] = dx;
  bev_fit c_fix = fit_C_kfixed(Dr, yr, (size_t)nr, kd, n0);
  bev_fit n_fix = fit_n_kfixed(Dr, yr, (size_t)nr, kd);
  double st0[3] = {nr > 0 ? yr[nr - 1] / pow(Dr[nr - 1], n0) : 1.0, 0.5, n0};
  bev_fit c_free = nr >= 3 ? fit_beverloo(Dr, yr, (size_t)nr, dxa, n0, 0, st0) : none;
  double st1[3] = {c_free.C, c_free.k, n0};
  bev_fit n_free = nr >= 4 && isfinite(c_free.C) ? fit_beverloo(Dr, yr, (size_t)nr, dxa, n0, 1, st1) : none;
  double sa0[3] = {nfit > 0 ? ya[nfit - 1] / pow(Da[nfit - 1] - dx, n0) : 1.0, 1.0, n0};
  bev_fit c_free_all = nfit >= 4 ? fit_beverloo(Da, ya, (size_t)nfit, dxa, n0, 0, sa0) : none;
  double sa1[3] = {c_free_all.C, c_free_all.k, n0};
  bev_fit n_free_all = nfit >= 4 ? fit_beverloo(Da, ya, (size_t)nfit, dxa, n0, 1, sa1) : none;
  bev_fit c_fix_all = fit_C_kfixed(Da, ya, (size_t)nfit, kd, n0);
  bev_fit n_fix_all = fit_n_kfixed(Da, ya, (size_t)nfit, kd);
  /* positive control (beverloo-law-data): Beverloo's round law with C 0.58
   * and a rim of 2.7 cells, at this run's counted apertures (+-0.1%
   * alternating), through the claims' fits (the joint fit of C, k, n; a
   * grain model: the fixed-k fits with k = 0) must give C inside 0.55-0.65
   * and n = 5/2 back */
  double yb[MAX_AP];
  const double k_syn = grain_kd >= 0 ? 0 : 2.7;
  for (int i = 0; i < nfit; ++i) yb[i] = 0.58 * pow(Da[i] - k_syn * dx, 2.5) * (i % 2 ? 1.001 : 0.999);
  bev_fit c_law, n_law;
  if (grain_kd >= 0) {
    c_law = fit_C_kfixed(Da, yb, (size_t)nfit, 0, 2.5);
    n_law = fit_n_kfixed(Da, yb, (size_t)nfit, 0);
  } else {
    double stl[3] = {nfit > 0 ? yb[nfit - 1] / pow(Da[nfit - 1], 2.5) : NAN, 0, 2.5};
    c_law = nfit >= 3 ? fit_beverloo(Da, yb, (size_t)nfit, dxa, 2.5, 0, stl) : none;
    double stl1[3] = {c_law.C, c_law.k, 2.5};
    n_law = nfit >= 4 ? fit_beverloo(Da, yb, (size_t)nfit, dxa, 2.5, 1, stl1) : none;
  }
  /* the joint fit with the rim modelled (the claims' fit for Drucker-Prager):
   * n free, and C with n at the law; and the same on the apertures read one
   * cell small (the measurement mutant aperture-one-cell-small) */
  int nj = 0, nj_m = 0;
  bev_fit j_n = joint_fit(rr, nap, ntot, joint_min, 0, n0, 1, &nj);
  bev_fit j_c = joint_fit(rr, nap, ntot, joint_min, 0, n0, 0, &nj);
  bev_fit j_n_m = joint_fit(rr, nap, ntot, joint_min, 1, n0, 1, &nj_m);
  bev_fit j_c_m = joint_fit(rr, nap, ntot, joint_min, 1, n0, 0, &nj_m);
  if (nj < 4 && grain_kd < 0)
    fprintf(stderr, "exp_silo: %d runs of >= %g cells (and refinement runs) discharged: the joint fit of C, k and n "
                    "needs 4, so the exponent%s cannot be judged\n", nj, joint_min, round ? " and C" : "");
  /* the aperture the measurement used against the one the library holds:
   * the run where they differ most (the rate run when none does), in cells */
  int iap = iref;
  double dev = fabs(rr[iref].D_geo - rr[iref].D_fed);
  for (int i = 0; i < ntot; ++i)
    if (fabs(rr[i].D_geo - rr[i].D_fed) > dev) {
      iap = i;
      dev = fabs(rr[i].D_geo - rr[i].D_fed);
    }
  double ng = NAN, sng = NAN, lc0 = NAN;
  if (nfit >= 3) {
    double c00, c01, c11, ss;
    gsl_fit_linear(lD, 1, lW, 1, (size_t)nfit, &lc0, &ng, &c00, &c01, &c11, &ss);
    sng = sqrt(c11); /* gsl_fit_linear's covariance is already scaled by the scatter */
  }
  /* the reason a Beverloo claim is NaN, printed even with --quiet */
  if (nr < 3)
    fprintf(stderr, "exp_silo: %d of %d apertures pass the resolution criterion |d ln u_c / d ln D| <= %g "
                    "(rates.tsv: u_c, u_slope): %s cannot be judged\n", nr, nap, plateau_slope,
            nr < 2 ? (round ? "C (needs 2) and the exponent (needs 3)" : "the exponent (needs 3)") : "the exponent (needs 3)");
  FILE *ff = bg_lab_tsv(lab, "fits.tsv",
                        "GSL fits of W / (rho_b sqrt g) = C (D - k dx)^n over the counted apertures (relative residuals; 1-sigma from the scatter, chi^2/dof); "
                        "set resolved: apertures that pass the resolution criterion, all: every discharging aperture, joint: the rim modelled, apertures of >= joint-min-cells cells and every refinement run, k in cells of each run's dx; k_rule fixed: k = k_fixed cells; "
                        "rows 1-3 (C_k_fixed, n_k_fixed, geometric) feed reports/silo_beverloo.gp",
                        "fit\tC\tsigma_C\tk\tsigma_k\tn\tsigma_n\trms_rel\tdof\tgsl_status\tn_law\tdx_m\tset\tapertures");
  struct {
    const char *name, *set;
    const bev_fit *f;
    int n;
  } rows[] = {
      {"C_k_fixed", "resolved", &c_fix, nr},        {"n_k_fixed", "resolved", &n_fix, nr},
      {"geometric", "all", &none, nfit},            {"C_k_free", "resolved", &c_free, nr},
      {"n_k_free", "resolved", &n_free, nr},        {"C_k_fixed_all", "all", &c_fix_all, nfit},
      {"n_k_fixed_all", "all", &n_fix_all, nfit},   {"C_k_free_all", "all", &c_free_all, nfit},
      {"n_k_free_all", "all", &n_free_all, nfit},   {"C_joint_n_law", "joint", &j_c, nj},
      {"n_joint", "joint", &j_n, nj},
  };
  for (size_t q = 0; q < sizeof rows / sizeof rows[0]; ++q) {
    const bev_fit *f = rows[q].f;
    if (!strcmp(rows[q].name, "geometric")) {
      fprintf(ff, "geometric\t%.5g\tnan\t0\t0\t%.4g\t%.3g\tnan\t%d\t0\t%g\t%g\tall\t%d\n", exp(lc0), ng, sng, nfit - 2,
              n0, dx, nfit);
      continue;
    }
    int kfix = strstr(rows[q].name, "k_fixed") != NULL;
    /* k in cells of each point's dx (the joint set may mix grids) */
    fprintf(ff, "%s\t%.5g\t%.3g\t%.5g\t%.3g\t%.4g\t%.3g\t%.4g\t%d\t%d\t%g\t%g\t%s\t%d\n", rows[q].name, f->C, f->sC,
            kfix ? k_fixed : f->k, kfix ? 0.0 : f->sk, f->n, f->sn, f->rms, f->dof, f->status, n0, dx, rows[q].set,
            rows[q].n);
  }
  fclose(ff);
  /* curves for the figure, W against D: the resolved k-fixed fits (n law, n free) and the geometric law */
  FILE *fcv = bg_lab_tsv(lab, "fit_curves.tsv", "fitted W(D) with the run's mean rho_b; W in the rates.tsv unit",
                         "D_m\tW_C_k_fixed\tW_n_k_fixed\tW_geometric");
  if (nfit > 0) rb_mean /= nfit;
  for (int i = 0; i <= 200 && nfit > 0; ++i) {
    double Dq = Da[nfit - 1] * 1.15 * i / 200.0, a = Dq - kd;
    fprintf(fcv, "%.6g\t%.6g\t%.6g\t%.6g\n", Dq, a > 0 ? c_fix.C * rb_mean * sqrt(G) * pow(a, n0) : NAN,
            a > 0 ? n_fix.C * rb_mean * sqrt(G) * pow(a, n_fix.n) : NAN, Dq > 0 ? exp(lc0) * pow(Dq, ng) : NAN);
  }
  fclose(fcv);
  /* exit profiles (sweep, then refinement runs) */
  for (int i = 0; i < ntot; ++i) {
    bg_silo_result *r = &rr[i];
    char fn[64], cm[320];
    if (i < nap) snprintf(fn, sizeof fn, "exit_D%d.tsv", i);
    else snprintf(fn, sizeof fn, "exit_R%d.tsv", i - nap);
    snprintf(cm, sizeof cm, "exit profile just under the orifice plane z = 0 (band -dx <= z < 0, %d samples), D_geo %.4g m, dx %g m; %s; v downward positive",
             r->n_prof, r->D_geo, scs[i].dx, round ? "position = radius from the axis" : "position = x from the aperture centre");
    FILE *fe = bg_lab_tsv(lab, fn, cm,
                          "pos_m\tpos_over_D\tflux_kg_m2_s\tv_exit_m_s\trho_state_kg_m3\trho_counted_kg_m3\tparticle_samples");
    for (int b = 0; b < r->nb; ++b) {
      double vol = r->area[b] * scs[i].dx * (r->n_prof ? r->n_prof : 1);
      int has = r->sm[b] > 0;
      fprintf(fe, "%.6g\t%.5g\t%.6g\t%.6g\t%.6g\t%.6g\t%g\n", r->pos[b], r->pos[b] / r->D_geo,
              r->smv[b] / vol, has ? r->smv[b] / r->sm[b] : NAN, has ? r->smr[b] / r->sm[b] : NAN, r->sm[b] / vol,
              r->cnt[b]);
    }
    fclose(fe);
  }
  /* the dx refinement at one physical aperture */
  if (nref) {
    FILE *fx = bg_lab_tsv(lab, "refine.tsv",
                          "dx refinement at a fixed physical aperture (--refine), silo L = 2.5 D; C_k0 = W / (rho_b sqrt(g) D_geo^n_law)",
                          "dx_m\tsilo_cells\tD_nominal_m\tD_geo_m\tD_over_dx\tW\tsigma_W\tW_rel_se\trho_b_kg_m3\tv_c_m_s\tu_c\tC_k0\tflatness\tparticles\tsteps\tstop_rule");
    for (int j = 0; j < nref; ++j) {
      bg_silo_result *r = &rr[nap + j];
      double c0k = r->W / (r->rho_b * sqrt(G) * pow(r->D_geo, n0));
      fprintf(fx, "%g\t%d\t%.6g\t%.6g\t%.4g\t%.6g\t%.3g\t%.3g\t%.2f\t%.5g\t%.5g\t%.5g\t%.5f\t%zu\t%llu\t%s\n", scs[nap + j].dx,
              scs[nap + j].silo_cells, r->D_nom, r->D_geo, r->D_geo / scs[nap + j].dx, r->W, r->sW, r->rel_se, r->rho_b,
              r->v_c, r->u_c, c0k, r->flat, r->n_particles, (unsigned long long)r->steps, r->stop_rule);
      bg_lab_progress(lab, "refine dx %g m: D %.2f cells, W %.5g, u_c %.4g, C(k=0) %.4g", scs[nap + j].dx,
                      r->D_geo / scs[nap + j].dx, r->W, r->u_c, c0k);
    }
    fclose(fx);
  }

  bg_silo_result *ref = &rr[iref];
  FILE *fw = bg_lab_tsv(lab, "rate_sub.tsv",
                        "rate run (largest aperture): parked-mass GSL fits over five equal sub-windows of the steady window",
                        round ? "t_mid_s\tW_kg_per_s\tt_lo_s\tt_hi_s\tW_over_W_window" : "t_mid_s\tW_kg_per_m_s\tt_lo_s\tt_hi_s\tW_over_W_window");
  for (int k = 0; k < BG_SILO_N_SUB; ++k)
    fprintf(fw, "%.5f\t%.6g\t%.5f\t%.5f\t%.5f\n", 0.5 * (ref->t_sub[k][0] + ref->t_sub[k][1]), ref->W_sub[k],
            ref->t_sub[k][0], ref->t_sub[k][1], ref->W_sub[k] / ref->W);
  fclose(fw);
  double closure = ref->W_closure / ref->W - 1;
  FILE *fsum = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
  fprintf(fsum, "geometry\t%s\t-\n", geometry);
  fprintf(fsum, "rate_run_D_geo\t%.6g\tm\n", ref->D_geo);
  fprintf(fsum, "rate_run_W\t%.6g\t%s\n", ref->W, unit_w);
  fprintf(fsum, "rate_run_W_plane\t%.6g\t%s\n", ref->W_plane, unit_w);
  fprintf(fsum, "rate_run_flatness\t%.5f\t1\n", ref->flat);
  fprintf(fsum, "rate_run_flatness_from_t0\t%.5f\t1\n", ref->flat_startup);
  for (int k = 0; k < BG_SILO_N_SUB; ++k) fprintf(fsum, "rate_run_W_sub%d\t%.6g\t%s\n", k, ref->W_sub[k], unit_w);
  fprintf(fsum, "rate_run_fill_start_over_L\t%.4f\t1\n", ref->H / (silo_cells * dx));
  fprintf(fsum, "rate_run_fill_end_over_L\t%.4f\t1\n", ref->h_stop / (silo_cells * dx));
  fprintf(fsum, "rate_run_rho_b\t%.2f\tkg/m3\n", ref->rho_b);
  fprintf(fsum, "rate_run_W_closure\t%.6g\t%s\n", ref->W_closure, unit_w);
  fprintf(fsum, "rate_run_W_counted\t%.6g\t%s\n", ref->W_counted, unit_w);
  fprintf(fsum, "rate_run_W_closure_rho0\t%.6g\t%s\n", ref->W_closure_rho0, unit_w);
  fprintf(fsum, "flux_closure_rel\t%.5f\t1\n", closure);
  fprintf(fsum, "plane_vs_sink_rel\t%.5f\t1\n", ref->W_plane / ref->W - 1);
  fprintf(fsum, "rate_run_D_flow\t%.5g\tm\n", ref->D_flow);
  fprintf(fsum, "plateau_slope_max\t%g\t1\n", plateau_slope);
  fprintf(fsum, "apertures_resolved\t%d\t1\n", nr);
  fprintf(fsum, "k_fixed_cells\t%g\t1\n", k_fixed);
  fprintf(fsum, "C_k_fixed\t%.5g\t1\n", c_fix.C);
  fprintf(fsum, "n_k_fixed\t%.4g\t1\n", n_fix.n);
  fprintf(fsum, "sigma_n_k_fixed\t%.3g\t1\n", n_fix.sn);
  fprintf(fsum, "C_k_free\t%.5g\t1\n", c_free.C);
  fprintf(fsum, "k_free_cells\t%.4g\t1\n", c_free.k);
  fprintf(fsum, "n_k_free\t%.4g\t1\n", n_free.n);
  fprintf(fsum, "C_k_free_all\t%.5g\t1\n", c_free_all.C);
  fprintf(fsum, "k_free_all_cells\t%.4g\t1\n", c_free_all.k);
  fprintf(fsum, "n_k_free_all\t%.4g\t1\n", n_free_all.n);
  fprintf(fsum, "n_geometric\t%.4g\t1\n", ng);
  fprintf(fsum, "joint_points\t%d\t1\n", nj);
  fprintf(fsum, "n_joint\t%.4g\t1\n", j_n.n);
  fprintf(fsum, "sigma_n_joint\t%.3g\t1\n", j_n.sn);
  fprintf(fsum, "C_joint_n_free\t%.4g\t1\n", j_n.C);
  fprintf(fsum, "k_joint_cells\t%.4g\t1\n", j_n.k);
  fprintf(fsum, "sigma_k_joint_cells\t%.3g\t1\n", j_n.sk);
  fprintf(fsum, "k_joint_mm_at_dx\t%.4g\tmm\n", j_n.k * dx * 1e3);
  fprintf(fsum, "rms_joint\t%.4g\t1\n", j_n.rms);
  fprintf(fsum, "C_joint_n_law\t%.4g\t1\n", j_c.C);
  fprintf(fsum, "sigma_C_joint_n_law\t%.3g\t1\n", j_c.sC);
  fprintf(fsum, "k_joint_n_law_cells\t%.4g\t1\n", j_c.k);
  fprintf(fsum, "aperture_fed_m\t%.6g\tm\n", rr[iap].D_fed);
  fprintf(fsum, "aperture_measured_m\t%.6g\tm\n", rr[iap].D_geo);
  for (int i = 0; i < nap; ++i) {
    fprintf(fsum, "stop_rule_D%d\t%s\t-\n", i, rr[i].stop_rule);
    fprintf(fsum, "W_rel_se_D%d\t%.3g\t1\n", i, rr[i].rel_se);
    fprintf(fsum, "window_s_D%d\t%.4f\ts\n", i, rr[i].t1w - rr[i].t0w);
    fprintf(fsum, "u_c_D%d\t%.4g\t1\n", i, rr[i].u_c);
  }
  fclose(fsum);
  bg_lab_manifest_num(lab, "apertures_resolved", nr);
  bg_lab_manifest_num(lab, "C_k_fixed", c_fix.C);
  bg_lab_manifest_num(lab, "n_k_fixed", n_fix.n);
  bg_lab_manifest_num(lab, "C_k_free", c_free.C);
  bg_lab_manifest_num(lab, "k_free_cells", c_free.k);
  bg_lab_manifest_num(lab, "n_k_free", n_free.n);
  bg_lab_manifest_num(lab, "n_geometric", ng);
  bg_lab_manifest_num(lab, "joint_points", nj);
  bg_lab_manifest_num(lab, "n_joint", j_n.n);
  bg_lab_manifest_num(lab, "k_joint_cells", j_n.k);
  bg_lab_manifest_num(lab, "k_joint_mm", j_n.k * dx * 1e3);
  bg_lab_manifest_num(lab, "C_joint_n_law", j_c.C);

  bg_lab_claim(lab, "silo.rate_flat", ref->flat);
  bg_lab_claim_mutant(lab, "startup-included", "silo.rate_flat", ref->flat_startup);
  /* the aperture the fits used, against the one the library holds (cells of its dx) */
  bg_lab_claim_fed(lab, "silo.aperture", rr[iap].D_geo / rr[iap].dx_fed, rr[iap].D_fed / rr[iap].dx_fed);
  bg_lab_claim_mutant_fed(lab, "aperture-one-cell-small", "silo.aperture", (rr[iap].D_geo - rr[iap].dx_fed) / rr[iap].dx_fed,
                          rr[iap].D_fed / rr[iap].dx_fed);
  /* Drucker-Prager: the joint fit with the rim modelled; a grain model
   * (mu(I), ngf): the fixed-k fits with k d from its grain size */
  const int grain_fit = grain_kd >= 0;
  if (round) {
    bg_lab_claim(lab, "silo.beverloo_exponent", grain_fit ? n_fix.n : j_n.n);
    bg_lab_claim(lab, "silo.C", grain_fit ? c_fix.C : j_c.C);
    bg_lab_claim_mutant(lab, "aperture-one-cell-small", "silo.beverloo_exponent", grain_fit ? n_fix.n : j_n_m.n);
    bg_lab_claim_mutant(lab, "aperture-one-cell-small", "silo.C", grain_fit ? c_fix.C : j_c_m.C);
  } else {
    bg_lab_claim(lab, "silo.slot_exponent", grain_fit ? n_fix.n : j_n.n);
    bg_lab_claim_mutant(lab, "aperture-one-cell-small", "silo.slot_exponent", grain_fit ? n_fix.n : j_n_m.n);
    /* the fit before the criterion: every aperture, k floating */
    bg_lab_claim_mutant(lab, "criterion-off", "silo.slot_exponent", n_free_all.n);
  }
  /* synthetic data: judged in every geometry, so the quick run checks it */
  bg_lab_claim_mutant(lab, "beverloo-law-data", "silo.C", c_law.C);
  bg_lab_claim_mutant(lab, "beverloo-law-data", "silo.beverloo_exponent", n_law.n);
  /* negative control: the same synthetic law (a rim of 2.7 cells) through
   * the k = 0 fit, the rim unmodelled, must miss n = 5/2 */
  bg_lab_claim_mutant(lab, "rim-unmodelled-law-data", "silo.beverloo_exponent", fit_n_kfixed(Da, yb, (size_t)nfit, 0).n);
  /* the round silo's exponent over every discharging aperture, the
   * unresolved ones included (the resolution criterion off) */
  if (round) bg_lab_claim_mutant(lab, "unresolved-in", "silo.beverloo_exponent", n_fix_all.n);
  /* reported: k d with the grid spacing for d (the length Drucker-Prager
   * borrows) instead of the grain size, on the same resolved apertures */
  bg_lab_manifest_num(lab, "beverloo_exponent_kd_from_dx", fit_n_kfixed(Dr, yr, (size_t)nr, k_bev * dx).n);
  bg_lab_claim(lab, "silo.flux_closure", closure);
  bg_lab_claim_mutant(lab, "density-rho0", "silo.flux_closure", ref->W_closure_rho0 / ref->W - 1);
  for (int i = 0; i < ntot; ++i) {
    bg_silo_result_free(&rr[i]);
  }
  return bg_lab_finish(lab);
}
