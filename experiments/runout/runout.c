/* runout.c: the axisymmetric granular column collapse against the laws of
 * Lube et al. (2004) and Lajeunesse et al. (2004), and against what the model
 * implies for the scene (references/derivations/runout.md).
 *
 * Scene (bg_column.c): a quarter cylinder of Klar's sand, radius R0 and
 * height H0 = a R0, released at rest on a Coulomb floor, run until its
 * kinetic energy falls below ke_frac M g R0. Per aspect ratio a the deposit
 * gives the runout R_inf as the toe extrapolated from the mass distribution
 * (bg_column front; the old 1-dx thickness edge is kept beside it), the
 * central height H_inf (columns within dx of the axis), the morphology and
 * the time to rest.
 *
 * Morphology: Lube's small-a deposits keep an undisturbed summit; here a
 * deposit is "summit" when H_inf >= H0 - dx, else "conical".
 *
 * Law: y = (R_inf - R0) / R0 against a, fitted (GSL, nonlinear least
 * squares, unweighted) over the seed's range a <= fit_amax with y = c1 a
 * below the break a_b and y = c1 a_b (a / a_b)^p above it (continuous, three
 * free parameters); the break counts only if it survives dropping the
 * range's largest aspect. The large-a regime is its own fit, y = c2 a^p over
 * a >= large_amin. Uncertainties: covariances scaled by chi^2 / dof.
 *
 * Origin: the definition itself fixes y(0) = 0 (no column, no runout); a
 * straight line over the static bound's summit regime a <= sqrt(3) tan phi
 * must meet a = 0 within the curvature and one cell (runout.origin; the
 * planted R_inf / R0 of mutant runout-over-r0 meets it near 1).
 *
 * Refinement: at a = conv_aspect on four grids (1, 1.5, 2, 3 x conv_cells),
 * the observed order and limit from y = y_inf + C h^q. Floor friction: at
 * a = mu_aspect the runout for floor mu from mu_lo to mu_hi. */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"

#define MAX_ASPECTS 32
#define N_CONV 4
#define N_MU 5
#define KE_FRAC 1e-4
#define CHECK_DT_FRAC 0.1
#define LAWS "literature/column_collapse_laws.tsv"
#define SEED "seed/seed_results.tsv"

typedef struct law_data {
  const double *a, *y;
  size_t n;
} law_data;

/* the two-regime law and its derivatives in (c1, a_b, p) */
static double law(double a, double c1, double ab, double p) { return a < ab ? c1 * a : c1 * ab * pow(a / ab, p); }

static int law_f(const gsl_vector *x, void *vd, gsl_vector *f) {
  const law_data *d = vd;
  double c1 = gsl_vector_get(x, 0), ab = gsl_vector_get(x, 1), p = gsl_vector_get(x, 2);
  for (size_t i = 0; i < d->n; ++i) gsl_vector_set(f, i, law(d->a[i], c1, ab, p) - d->y[i]);
  return GSL_SUCCESS;
}

static int law_df(const gsl_vector *x, void *vd, gsl_matrix *J) {
  const law_data *d = vd;
  double c1 = gsl_vector_get(x, 0), ab = gsl_vector_get(x, 1), p = gsl_vector_get(x, 2);
  for (size_t i = 0; i < d->n; ++i) {
    double a = d->a[i];
    if (a < ab) {
      gsl_matrix_set(J, i, 0, a);
      gsl_matrix_set(J, i, 1, 0);
      gsl_matrix_set(J, i, 2, 0);
    } else {
      double r = pow(a / ab, p); /* y = c1 ab^(1-p) a^p */
      gsl_matrix_set(J, i, 0, ab * r);
      gsl_matrix_set(J, i, 1, c1 * (1 - p) * r);
      gsl_matrix_set(J, i, 2, c1 * ab * r * log(a / ab));
    }
  }
  return GSL_SUCCESS;
}

typedef struct law_fit {
  double c1, ab, p, c2, s_c1, s_ab, s_p, s_c2, chi2;
  int dof, status, n_below, n_above;
} law_fit;

/* One fit from one start; the kink makes the objective piecewise smooth, so
 * the caller tries several breaks and keeps the lowest chi^2. */
static law_fit fit_from(const double *a, const double *y, size_t n, double ab0) {
  law_fit r;
  memset(&r, 0, sizeof r);
  r.status = -1;
  r.chi2 = INFINITY;
  law_data d = {a, y, n};
  gsl_multifit_nlinear_fdf fdf = {law_f, law_df, NULL, n, 3, &d, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, 3);
  /* start: the slope of the points below ab0, p = 0.5 */
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i)
    if (a[i] < ab0) {
      sxy += a[i] * y[i];
      sxx += a[i] * a[i];
    }
  double c10 = sxx > 0 ? sxy / sxx : y[0] / a[0];
  double x0[3] = {c10, ab0, 0.5};
  gsl_vector_view xv = gsl_vector_view_array(x0, 3);
  gsl_multifit_nlinear_init(&xv.vector, &fdf, w);
  int info;
  r.status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
  gsl_vector *f = gsl_multifit_nlinear_residual(w);
  gsl_blas_ddot(f, f, &r.chi2);
  r.c1 = gsl_vector_get(w->x, 0);
  r.ab = gsl_vector_get(w->x, 1);
  r.p = gsl_vector_get(w->x, 2);
  r.dof = (int)n - 3;
  gsl_matrix *cov = gsl_matrix_alloc(3, 3);
  gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
  double s2 = r.dof > 0 ? r.chi2 / r.dof : NAN;
  r.s_c1 = sqrt(s2 * gsl_matrix_get(cov, 0, 0));
  r.s_ab = sqrt(s2 * gsl_matrix_get(cov, 1, 1));
  r.s_p = sqrt(s2 * gsl_matrix_get(cov, 2, 2));
  /* c2 = c1 ab^(1-p): first-order propagation with the full covariance */
  r.c2 = r.c1 * pow(r.ab, 1 - r.p);
  double g[3] = {pow(r.ab, 1 - r.p), r.c1 * (1 - r.p) * pow(r.ab, -r.p), -r.c2 * log(r.ab)};
  double v = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v += g[i] * g[j] * gsl_matrix_get(cov, (size_t)i, (size_t)j);
  r.s_c2 = sqrt(s2 * v);
  gsl_matrix_free(cov);
  gsl_multifit_nlinear_free(w);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] < r.ab) r.n_below++;
    else r.n_above++;
  }
  return r;
}

/* The fit that is kept: lowest chi^2 over starts between the aspects, with
 * at least one point on each side of the break (else the law has no second
 * regime and the break is not measured). */
static law_fit fit_law(const double *a, const double *y, size_t n) {
  law_fit best;
  memset(&best, 0, sizeof best);
  best.status = -1;
  best.chi2 = INFINITY;
  best.c1 = best.ab = best.p = best.c2 = NAN;
  if (n < 4) return best;
  for (size_t i = 0; i + 1 < n; ++i) {
    law_fit r = fit_from(a, y, n, 0.5 * (a[i] + a[i + 1]));
    if (r.status != GSL_SUCCESS || !isfinite(r.chi2) || r.n_below < 1 || r.n_above < 1) continue;
    if (r.chi2 < best.chi2) best = r;
  }
  return best;
}

/* the two-regime fit over the aspects a <= amax */
static law_fit fit_law_upto(const double *a, const double *y, size_t n, double amax) {
  size_t m = 0;
  while (m < n && a[m] <= amax * (1 + 1e-9)) m++;
  return fit_law(a, y, m);
}

/* The large-a power law y = c2 a^p over a >= amin: a straight line in
 * (ln a, ln y); GSL's covariance is the scatter about the line (chi^2 scaled),
 * so at least three points are needed, else NaN. */
typedef struct power_fit {
  double p, s_p, c2;
  int n;
} power_fit;

static power_fit fit_power(const double *a, const double *y, size_t n, double amin) {
  power_fit r = {NAN, NAN, NAN, 0};
  double lx[MAX_ASPECTS], ly[MAX_ASPECTS];
  for (size_t i = 0; i < n; ++i)
    if (a[i] >= amin * (1 - 1e-9) && y[i] > 0) {
      lx[r.n] = log(a[i]);
      ly[r.n++] = log(y[i]);
    }
  if (r.n < 3) return r;
  double c0, c1, v00, v01, v11, ss;
  gsl_fit_linear(lx, 1, ly, 1, (size_t)r.n, &c0, &c1, &v00, &v01, &v11, &ss);
  r.p = c1;
  r.s_p = sqrt(v11);
  r.c2 = exp(c0);
  return r;
}

/* The origin of the definition: as a -> 0 there is no column, so the
 * runout R_inf -> R0 and y = (R_inf - R0)/R0 -> 0. A GSL straight line
 * y = b + c a over the small aspects a <= amax (the static bound's summit
 * regime, sqrt(3) tan phi) extrapolates to a = 0; its intercept b misses the
 * origin only by the curve's curvature over the range and the edge's
 * discretisation (references/derivations/runout.md section 6). At least three
 * aspects, else NaN; sigma_b from the scatter about the line. */
typedef struct origin_fit {
  double b, s_b, c;
  int n;
} origin_fit;

static origin_fit fit_origin(const double *a, const double *y, size_t n, double amax) {
  origin_fit r = {NAN, NAN, NAN, 0};
  size_t m = 0;
  while (m < n && a[m] <= amax * (1 + 1e-9)) m++;
  r.n = (int)m;
  if (m < 3) return r;
  double v00, v01, v11, ss;
  if (gsl_fit_linear(a, 1, y, 1, m, &r.b, &r.c, &v00, &v01, &v11, &ss) != GSL_SUCCESS) r.b = r.c = NAN;
  r.s_b = sqrt(v00);
  return r;
}

/* the static bound (derivation section 1): y of the frustum at phi holding
 * the column's volume, while it keeps its summit (a <= sqrt(3) tan phi) */
static double y_static(double a, double phi_deg) {
  double s = a / tan(phi_deg * M_PI / 180.0);
  return 0.5 * (s + sqrt(4.0 - s * s / 3.0)) - 1.0;
}

/* Observed convergence y(h) = y_inf + C h^q on the refinement grids
 * (h = dx / R0), three free parameters, no assumed order; 1-sigma from
 * (J^T J)^-1 chi^2 / dof. */
typedef struct conv_fit {
  double y_inf, C, q, s_y_inf, s_C, s_q, chi2;
  int dof, status;
} conv_fit;

typedef struct conv_data {
  const double *h, *y;
  size_t n;
} conv_data;

static int conv_f(const gsl_vector *x, void *vd, gsl_vector *f) {
  const conv_data *d = vd;
  double yi = gsl_vector_get(x, 0), C = gsl_vector_get(x, 1), q = gsl_vector_get(x, 2);
  for (size_t i = 0; i < d->n; ++i) gsl_vector_set(f, i, yi + C * pow(d->h[i], q) - d->y[i]);
  return GSL_SUCCESS;
}

static int conv_df(const gsl_vector *x, void *vd, gsl_matrix *J) {
  const conv_data *d = vd;
  double C = gsl_vector_get(x, 1), q = gsl_vector_get(x, 2);
  for (size_t i = 0; i < d->n; ++i) {
    double hq = pow(d->h[i], q);
    gsl_matrix_set(J, i, 0, 1);
    gsl_matrix_set(J, i, 1, hq);
    gsl_matrix_set(J, i, 2, C * hq * log(d->h[i]));
  }
  return GSL_SUCCESS;
}

static conv_fit fit_conv(const double *h, const double *y, size_t n) {
  conv_fit r;
  memset(&r, 0, sizeof r);
  r.status = -1;
  r.y_inf = r.C = r.q = r.s_y_inf = r.s_C = r.s_q = NAN;
  if (n < 4) return r;
  conv_data d = {h, y, n};
  gsl_multifit_nlinear_fdf fdf = {conv_f, conv_df, NULL, n, 3, &d, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, 3);
  /* start: first order through the coarsest and finest grids */
  double C0 = (y[0] - y[n - 1]) / (h[0] - h[n - 1]);
  double x0[3] = {y[n - 1] - C0 * h[n - 1], C0, 1.0};
  gsl_vector_view xv = gsl_vector_view_array(x0, 3);
  gsl_multifit_nlinear_init(&xv.vector, &fdf, w);
  int info;
  r.status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
  gsl_vector *f = gsl_multifit_nlinear_residual(w);
  gsl_blas_ddot(f, f, &r.chi2);
  r.y_inf = gsl_vector_get(w->x, 0);
  r.C = gsl_vector_get(w->x, 1);
  r.q = gsl_vector_get(w->x, 2);
  r.dof = (int)n - 3;
  gsl_matrix *cov = gsl_matrix_alloc(3, 3);
  gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
  double s2 = r.chi2 / r.dof;
  r.s_y_inf = sqrt(s2 * gsl_matrix_get(cov, 0, 0));
  r.s_C = sqrt(s2 * gsl_matrix_get(cov, 1, 1));
  r.s_q = sqrt(s2 * gsl_matrix_get(cov, 2, 2));
  gsl_matrix_free(cov);
  gsl_multifit_nlinear_free(w);
  return r;
}

/* The claim: the finest grid's distance from the fitted limit plus the
 * limit's 1-sigma, relative to the limit (an unsure limit cannot pass); NaN
 * (a fail) when no limit is found: the fit failed or the order is not
 * positive. */
static double conv_error(const conv_fit *c, double y_finest) {
  if (c->status != GSL_SUCCESS || !(c->q > 0) || !isfinite(c->s_y_inf)) return NAN;
  return (fabs(y_finest - c->y_inf) + c->s_y_inf) / fabs(c->y_inf);
}

/* parses "0.5,1,2" into v (sorted ascending, distinct), range-checked */
static int parse_list(const char *s, double *v, int max, double lo, double hi, const char *opt) {
  int n = 0;
  const char *p = s;
  while (*p) {
    char *end;
    double x = strtod(p, &end);
    if (end == p || !isfinite(x) || x < lo || x > hi) {
      fprintf(stderr, "error: --%s: '%s' is not a comma-separated list of numbers in [%g, %g]\n", opt, s, lo, hi);
      exit(2);
    }
    if (n == max) {
      fprintf(stderr, "error: --%s: at most %d values\n", opt, max);
      exit(2);
    }
    if (n > 0 && x <= v[n - 1]) {
      fprintf(stderr, "error: --%s: values must increase (%g after %g)\n", opt, x, v[n - 1]);
      exit(2);
    }
    v[n++] = x;
    p = end;
    if (*p == ',') p++;
    else if (*p) {
      fprintf(stderr, "error: --%s: unexpected '%c' in '%s'\n", opt, *p, s);
      exit(2);
    }
  }
  return n;
}

/* A row of a references table: the literature laws
 * (literature/column_collapse_laws.tsv: source, c1, a_break, c2, p, nan where
 * a source gives none) or the seed's results (seed/seed_results.tsv:
 * quantity, value, lo, hi, ...; value lands in c1). */
typedef struct lit_law {
  double c1, ab, c2, p;
  int found;
} lit_law;

static lit_law read_law(bg_lab *lab, const char *file, const char *source) {
  lit_law l = {NAN, NAN, NAN, NAN, 0};
  char path[1100], line[512];
  snprintf(path, sizeof path, "%s/%s", bg_lab_references(lab), file);
  FILE *f = fopen(path, "r");
  if (!f) {
    bg_lab_fail("cannot read %s", path);
  }
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char name[64];
    char c1[32], ab[32], c2[32], p[32];
    if (sscanf(line, "%63[^\t]\t%31[^\t]\t%31[^\t]\t%31[^\t]\t%31[^\t\n]", name, c1, ab, c2, p) != 5) continue;
    if (strcmp(name, source) != 0) continue;
    l.c1 = strtod(c1, NULL);
    l.ab = strtod(ab, NULL);
    l.c2 = strtod(c2, NULL);
    l.p = strtod(p, NULL);
    l.found = 1;
  }
  fclose(f);
  if (!l.found) {
    bg_lab_fail("%s has no row '%s'", path, source);
  }
  return l;
}

static double lit_value(const lit_law *l, double a) { return a < l->ab ? l->c1 * a : l->c2 * pow(a, l->p); }

/* L / R0 that leaves room for Lube's runout with a margin of half again */
static double domain_for(const lit_law *lube_law, double a) {
  double lube = lit_value(lube_law, a);
  double L = 1.0 + 1.5 * lube + 0.5;
  return L < 2.5 ? 2.5 : L;
}

typedef struct run_row {
  double a, runout, y, h_center, t_rest, r99, thr, y_thr;
  int summit, settled, wall;
  size_t particles;
  uint64_t steps;
} run_row;

static run_row row_of(const bg_column_result *r, const bg_column_scene *sc) {
  run_row w;
  w.a = sc->aspect;
  w.runout = r->front;
  w.r99 = r->r99;
  w.y = (r->front - sc->R0) / sc->R0;
  w.thr = r->runout;
  w.y_thr = (r->runout - sc->R0) / sc->R0;
  w.h_center = r->h_center;
  w.t_rest = r->t_end;
  w.summit = r->h_center >= r->H0 - r->dx;
  w.settled = r->settled;
  w.wall = r->runout_wall;
  w.particles = r->n_particles;
  w.steps = r->steps;
  return w;
}

static void write_row(FILE *f, const run_row *w, double R0, double dx, double mu, int cells) {
  double H0 = w->a * R0;
  fprintf(f, "%.4g\t%.4g\t%d\t%.5g\t%.6g\t%.5f\t%.6g\t%.5f\t%s\t%.4f\t%.4f\t%d\t%d\t%zu\t%llu\t%.6g\t%.6g\t%.5f\n", w->a,
          mu, cells, dx, w->runout, w->y, w->h_center, w->h_center / H0, w->summit ? "summit" : "conical",
          w->t_rest, w->t_rest / sqrt(H0 / 9.81), w->settled, w->wall, w->particles,
          (unsigned long long)w->steps, w->r99, w->thr, w->y_thr);
}

#define ROW_COLUMNS                                                                                       \
  "aspect\tmu_floor\tcells_per_R0\tdx_m\trunout_m\trunout_norm\th_center_m\th_center_over_H0\tmorphology\t" \
  "t_rest_s\tt_rest_over_sqrt_H0_g\tsettled\treaches_wall\tparticles\tsteps\tr99_m\tthreshold_m\tthreshold_norm"

/* a stage a mutant run leaves out: every measurement NaN */
static bg_column_result skipped_result(void) {
  bg_column_result r;
  memset(&r, 0, sizeof r);
  r.runout = r.front = r.r99 = r.h_center = r.dx = r.H0 = NAN;
  return r;
}

/* One point of the sweep: a column run to rest (or a placeholder for a
 * stage this mutant run does not need), packed for the gather. */
typedef struct run_ctx {
  bg_lab *lab;
  const bg_column_scene *scenes;
  const char (*tags)[64];
  const int *skip;
} run_ctx;

static void run_point(void *vctx, int k, bg_lab_blob *out) {
  const run_ctx *c = vctx;
  bg_column_result r = c->skip[k] ? skipped_result() : bg_column_run(c->lab, &c->scenes[k], c->tags[k]);
  bg_column_result_pack(&r, out);
  bg_column_result_free(&r);
}

/* the refinement grids, in multiples of --conv-cells / 2 */
static const int conv_factor2[N_CONV] = {2, 3, 4, 6};

int main(int argc, char **argv) {
  static const char *const mutants[] = {"runout-1dx-threshold",
                                        "aspect-as-diameter",
                                        "lube-law-data", "converging-runout", "runout-over-r0", NULL};
  double phi = 33, mu_floor = 0.6, R0 = 0.05, t_max = 6.0, jitter = 0.5, conv_aspect = 0.5, mu_aspect = 2.0;
  double mu_lo = 0.3, mu_hi = 1.0, fit_amax = 4, large_amin = 0;
  int cells = 0, conv_cells = 0, jobs = 1;
  const char *aspects_s = NULL;
  bg_lab_param params[] = {
      {"phi", BG_PARAM_DOUBLE, &phi, 20, 45, "fed friction angle, deg", 0, NULL, NULL, "phi_deg"},
      {"mu-floor", BG_PARAM_DOUBLE, &mu_floor, 0.05, 5, "floor Coulomb coefficient of the aspect sweep", 0, NULL, NULL,
       NULL},
      {"radius", BG_PARAM_DOUBLE, &R0, 0.01, 0.5, "column radius R0, m", 0, NULL, NULL, "radius_m"},
      {"cells", BG_PARAM_INT, &cells, 4, 256, "cells per R0 of the aspect and floor sweeps", 0, "8", "30",
       "cells_per_R0"},
      {"aspects", BG_PARAM_STRING, &aspects_s, 0, 0,
       "aspect ratios a = H0/R0, comma-separated, increasing, in [0.25, 12]", 0, "0.5,0.75,1,1.5,2,3,4,6",
       "0.5,0.75,1,1.5,2,3,4,6,8,10", NULL},
      {"conv-cells", BG_PARAM_INT, &conv_cells, 4, 256, "cells per R0 of the coarsest refinement grid", 0, "8", "16",
       "conv_cells_coarse"},
      {"conv-aspect", BG_PARAM_DOUBLE, &conv_aspect, 0.25, 12, "aspect ratio of the refinement runs", 0, NULL, NULL,
       NULL},
      {"mu-aspect", BG_PARAM_DOUBLE, &mu_aspect, 0.25, 12, "aspect ratio of the floor-friction sweep", 0, NULL, NULL,
       NULL},
      {"mu-lo", BG_PARAM_DOUBLE, &mu_lo, 0.05, 5, "lowest floor mu of the sweep", 0, NULL, NULL, NULL},
      {"mu-hi", BG_PARAM_DOUBLE, &mu_hi, 0.05, 5, "highest floor mu of the sweep", 0, NULL, NULL, NULL},
      {"t-max", BG_PARAM_DOUBLE, &t_max, 0.1, 30, "maximum simulated time per run, s", 0, NULL, NULL, "t_max_s"},
      {"jitter", BG_PARAM_DOUBLE, &jitter, 0, 1, "lattice jitter, fraction of the particle spacing", 0, NULL, NULL,
       NULL},
      {"fit-amax", BG_PARAM_DOUBLE, &fit_amax, 1, 12, "largest aspect of the two-regime fit (the seed's range: 4)", 0,
       NULL, NULL, NULL},
      {"large-amin", BG_PARAM_DOUBLE, &large_amin, 0.25, 12, "smallest aspect of the large-a power-law fit", 0, "3",
       "6", NULL},
      {"jobs", BG_PARAM_INT, &jobs, 1, 64,
       "runs simulated at once, each its own simulation with one CPU thread, or on cuda its own stream; "
       "results do not depend on it", 0, NULL, NULL, NULL},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab *lab = bg_lab_init("exp_runout",
                            "Axisymmetric column collapse: runout vs aspect ratio against Lube 2004 and "
                            "Lajeunesse 2004, a two-regime GSL fit, refinement and floor friction.",
                            argc, argv, params, np, mutants);
  /* every reference file the analysis reads, checked before any simulation */
  char ref_path[1400];
  bg_lab_reference(lab, LAWS, ref_path, sizeof ref_path);
  bg_lab_reference(lab, SEED, ref_path, sizeof ref_path);
  if (!(mu_lo < mu_hi)) {
    fprintf(stderr, "error: --mu-lo %g must be below --mu-hi %g\n", mu_lo, mu_hi);
    return 2;
  }
  if (conv_cells % 2) {
    fprintf(stderr, "error: --conv-cells %d: must be even (the grids are 1, 1.5, 2 and 3 times it)\n", conv_cells);
    return 2;
  }
  if (conv_cells * 3 > 1024) {
    fprintf(stderr, "error: --conv-cells %d: the finest grid (x3) must stay at or below 1024 cells per R0\n",
            conv_cells);
    return 2;
  }
  double aspects[MAX_ASPECTS];
  int na = parse_list(aspects_s, aspects, MAX_ASPECTS, 0.25, 12, "aspects");
  if (na < 4) {
    fprintf(stderr, "error: --aspects: at least 4 values are needed for a three-parameter fit (got %d)\n", na);
    return 2;
  }
  /* a mutant run simulates only the stages its claims need */
  int need_small = bg_lab_needed(lab, "runout.break") || bg_lab_needed(lab, "runout.small_a_slope");
  int need_large = bg_lab_needed(lab, "runout.large_a_exponent");
  int need_conv = bg_lab_needed(lab, "runout.converged_dx"), need_floor = bg_lab_needed(lab, "runout.floor_mu");
  /* the origin claim's range: the static bound keeps its summit up to a = sqrt(3) tan phi (derivation section 1) */
  double origin_amax = sqrt(3.0) * tan(phi * M_PI / 180.0);
  int need_origin = bg_lab_needed(lab, "runout.origin");
  {
    int m = 0;
    for (int i = 0; i < na; ++i)
      if ((need_small && aspects[i] <= fit_amax * (1 + 1e-9)) || (need_large && aspects[i] >= large_amin * (1 - 1e-9)) ||
          (need_origin && aspects[i] <= origin_amax * (1 + 1e-9)))
        aspects[m++] = aspects[i];
    na = m;
  }
  gsl_set_error_handler_off();
  bg_lab_manifest_num(lab, "radius_m", R0);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "ke_threshold_over_MgR0", KE_FRAC);
  bg_lab_manifest_num(lab, "runout_threshold_over_dx", 1.0);
  bg_lab_manifest_num(lab, "fit_amax", fit_amax);
  bg_lab_manifest_num(lab, "large_amin", large_amin);
  bg_lab_manifest_str(lab, "runout_estimator", "toe extrapolated from the mass fractions 0.80-0.99 against sqrt(1-F)");
  bg_lab_manifest_str(lab, "symmetry", "quarter cylinder, slip faces at x = 0 and y = 0 as mirror planes");

  bg_column_scene base = bg_column_scene_default();
  base.R0 = R0;
  base.phi = phi;
  base.material = bg_lab_material(lab);
  if (base.material.model == BG_MODEL_DP) base.material.dp.phi_deg = (bg_real)phi;
  bg_lab_manifest_material(lab, &base.material);
  base.t_max_s = t_max;
  base.jitter = jitter;
  base.cells = cells;
  base.floor = BG_FRICTION_COULOMB;
  base.mu = mu_floor;
  base.ke_frac = KE_FRAC;
  base.check_frac = CHECK_DT_FRAC;
  base.runout_h = 1.0;
  base.backend = bg_lab_backend(lab);
  base.threads = bg_lab_threads(lab);
  base.seed = bg_lab_seed(lab);
  double dx = R0 / cells;
  lit_law lube = read_law(lab, LAWS, "lube2004");

  /* Every run is independent: the aspect sweep, the refinement and the floor
   * sweep are built first as the points of one sweep (bg_lab_sweep: in this
   * process --jobs at a time, or one point per process with --point K and
   * then --gather), then read in order. With jobs > 1 each simulation gets
   * one CPU thread (nested parallelism is off), which is why the results do
   * not depend on jobs. */
  enum { N_RUNS = MAX_ASPECTS + N_CONV + N_MU };
  bg_column_scene scenes[N_RUNS];
  char tags[N_RUNS][64];
  int skip[N_RUNS] = {0};
  int nr = 0;
  for (int i = 0; i < na; ++i, ++nr) {
    scenes[nr] = base;
    scenes[nr].aspect = aspects[i];
    scenes[nr].L_over_R0 = domain_for(&lube, aspects[i]);
    snprintf(tags[nr], sizeof tags[nr], "a %.3g (%d/%d)", aspects[i], i + 1, na);
  }
  for (int gi = 0; gi < N_CONV; ++gi, ++nr) {
    scenes[nr] = base;
    scenes[nr].aspect = conv_aspect;
    scenes[nr].cells = conv_cells * conv_factor2[gi] / 2;
    scenes[nr].L_over_R0 = domain_for(&lube, conv_aspect);
    snprintf(tags[nr], sizeof tags[nr], "refinement %d/%d", gi + 1, N_CONV);
    skip[nr] = !need_conv;
  }
  for (int i = 0; i < N_MU; ++i, ++nr) {
    scenes[nr] = base;
    scenes[nr].aspect = mu_aspect;
    scenes[nr].mu = mu_lo + (mu_hi - mu_lo) * i / (N_MU - 1);
    scenes[nr].L_over_R0 = domain_for(&lube, mu_aspect);
    snprintf(tags[nr], sizeof tags[nr], "floor mu %.3g", scenes[nr].mu);
    skip[nr] = !need_floor;
  }
  /* work per run ~ particles x steps ~ a cells^4: the order to start them */
  double cost[N_RUNS];
  const char *tagp[N_RUNS];
  for (int k = 0; k < nr; ++k) {
    cost[k] = scenes[k].aspect * pow(scenes[k].cells, 4);
    tagp[k] = tags[k];
  }
  run_ctx rc = {lab, scenes, (const char(*)[64])tags, skip};
  bg_lab_blob *packed = bg_lab_sweep(lab, nr, tagp, cost, jobs, run_point, &rc);
  bg_column_result results[N_RUNS];
  for (int k = 0; k < nr; ++k) results[k] = bg_column_result_unpack(&packed[k]);
  bg_lab_sweep_free(packed, nr);
  int next = 0; /* the runs are read back in the order they were built */

  /* 1. the aspect sweep */
  run_row rows[MAX_ASPECTS];
  FILE *fs = bg_lab_tsv(lab, "sweep.tsv",
                        "one run per aspect ratio a = H0/R0; runout_norm = (R_inf - R0)/R0; morphology summit when "
                        "H_inf >= H0 - dx; t_rest: kinetic energy below 1e-4 M g R0",
                        ROW_COLUMNS);
  int n_bad = 0;
  /* the friction angle the closed forms use is the one the simulations
   * hold, read back from them (Drucker-Prager; the other models have no
   * phi, and their claims do not use it) */
  double phi_fed = NAN;
  for (int i = 0; i < na; ++i) {
    const bg_column_scene sc = scenes[next];
    const char *tag = tags[next];
    bg_column_result r = results[next++];
    if (i == 0) phi_fed = r.phi_fed;
    rows[i] = row_of(&r, &sc);
    bg_lab_progress(lab, "%s: %s at t = %.3f s; runout %.1f mm, (R-R0)/R0 %.3f, H_inf/H0 %.3f (%s)%s", tag,
                    r.settled ? "settled" : "NOT settled", r.t_end, r.runout * 1e3, rows[i].y,
                    rows[i].h_center / r.H0, rows[i].summit ? "summit" : "conical",
                    r.runout_wall ? ", REACHES THE WALL" : "");
    write_row(fs, &rows[i], R0, dx, mu_floor, cells);
    fflush(fs);
    char fn[64], cm[160];
    snprintf(fn, sizeof fn, "profile_a%02d.tsv", i);
    snprintf(cm, sizeof cm, "final radially averaged profile, a = %g, dx = %.4g m, R0 %.3g m", aspects[i], dx, R0);
    bg_column_write_profile(lab, &r, &sc, fn, cm);
    if (!r.settled || r.runout_wall) n_bad++;
    bg_column_result_free(&r);
  }
  fclose(fs);

  /* 2. the law */
  double av[MAX_ASPECTS], yv[MAX_ASPECTS], yt[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) {
    av[i] = rows[i].a;
    yv[i] = rows[i].y;
    yt[i] = rows[i].y_thr;
  }
  law_fit lf = fit_law_upto(av, yv, (size_t)na, fit_amax);
  /* the break is measured only if it stays within the claim's tolerance
   * when the fitted range loses its largest aspect */
  int n_fit = 0;
  while (n_fit < na && av[n_fit] <= fit_amax * (1 + 1e-9)) n_fit++;
  double ab_tol = NAN;
  law_fit lf_prev = fit_law(av, yv, (size_t)(n_fit > 0 ? n_fit - 1 : 0));
  bg_lab_claim_ref(lab, "runout.break", NULL, &ab_tol);
  double ab_claim = fabs(lf.ab - lf_prev.ab) <= ab_tol ? lf.ab : NAN;
  double adia[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) adia[i] = 0.5 * av[i];
  law_fit lf_dia = fit_law_upto(adia, yv, (size_t)na, 0.5 * fit_amax);
  law_fit lf_thr = fit_law_upto(av, yt, (size_t)na, fit_amax);
  power_fit pw = fit_power(av, yv, (size_t)na, large_amin);
  power_fit pw_thr = fit_power(av, yt, (size_t)na, large_amin);
  /* positive control (lube-law-data): Lube's own law at the measured
   * aspects, +-1% alternating, through the same fits, must give its slope
   * and exponent back */
  double ylube[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) ylube[i] = lit_value(&lube, av[i]) * (i % 2 ? 1.01 : 0.99);
  power_fit pw_lube = fit_power(av, ylube, (size_t)na, large_amin);
  law_fit lf_lube = fit_law_upto(av, ylube, (size_t)na, fit_amax);
  /* the static bound on c1: the frustum at phi holding the column's volume
   * (references/derivations/runout.md section 1); the claim is c1 + 2 sigma
   * over it, >= 1 when the deposit is not significantly shorter */
  double phi_c = isfinite(phi_fed) ? phi_fed : phi;
  double c1_bound = 1.0 / (2.0 * tan(phi_c * M_PI / 180.0));
  /* the origin y(0) = 0, and the planted bug (runout-over-r0): y read as
   * R_inf / R0, the same fits on it */
  origin_fit of = fit_origin(av, yv, (size_t)na, origin_amax);
  double yr[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) yr[i] = rows[i].runout / R0;
  origin_fit of_r = fit_origin(av, yr, (size_t)na, origin_amax);
  law_fit lf_r = fit_law_upto(av, yr, (size_t)na, fit_amax);
  law_fit lf_r_prev = fit_law(av, yr, (size_t)(n_fit > 0 ? n_fit - 1 : 0));
  double ab_claim_r = fabs(lf_r.ab - lf_r_prev.ab) <= ab_tol ? lf_r.ab : NAN;
  power_fit pw_r = fit_power(av, yr, (size_t)na, large_amin);
  if (n_bad) {
    bg_lab_progress(lab, "%d run(s) did not settle or reached the wall: the fit is not a free-deposit fit", n_bad);
    lf.c1 = lf.ab = lf.p = lf.c2 = NAN;
    ab_claim = lf_dia.ab = lf_dia.c1 = lf_thr.c1 = pw.p = pw_thr.p = NAN;
    of.b = of_r.b = ab_claim_r = lf_r.c1 = pw_r.p = NAN;
  }
  /* the same line through the static bound at the same aspects: the
   * intercept its curvature alone gives (the claim's tolerance, derivation
   * section 6) */
  double ys[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) ys[i] = y_static(av[i], phi_c);
  origin_fit of_s = fit_origin(av, ys, (size_t)na, origin_amax);
  FILE *fo = bg_lab_tsv(lab, "origin.tsv",
                        "GSL straight line y = b + c a over the aspects a <= sqrt(3) tan phi, sigma_b from the scatter; "
                        "the definition y = (R_inf - R0)/R0 gives y(0) = 0 (no column, no runout); R_over_R0 is the "
                        "planted bug (mutant runout-over-r0); static_bound the frustum at phi (closed form)",
                        "quantity\ta_max\tn\tb\tsigma_b\tc");
  const origin_fit *ofs[3] = {&of, &of_r, &of_s};
  const char *ofn[3] = {"toe_runout_norm", "toe_R_over_R0", "static_bound"};
  for (int k = 0; k < 3; ++k)
    fprintf(fo, "%s\t%.5f\t%d\t%.6f\t%.6f\t%.6f\n", ofn[k], origin_amax, ofs[k]->n, ofs[k]->b, ofs[k]->s_b,
            ofs[k]->c);
  fclose(fo);
  bg_lab_progress(lab, "origin a <= %.3g (%d aspects): y(0) = b = %.4f +- %.4f (slope %.3f); static bound's line %.4f; "
                  "with y = R/R0: %.4f", origin_amax, of.n, of.b, of.s_b, of.c, of_s.b, of_r.b);
  /* identifiability: the same two fits as the fitted range changes */
  FILE *fr = bg_lab_tsv(lab, "fit_ranges.tsv",
                        "the two-regime fit over a <= a_max and the power law over a >= a_min, as the range "
                        "changes (toe estimator); the claims use a_max = fit_amax and a_min = large_amin",
                        "a_limit	kink_c1	kink_a_break	kink_p	kink_chi2	power_p	sigma_power_p	power_c2	power_n");
  for (int i = 0; i < na; ++i) {
    law_fit k = fit_law_upto(av, yv, (size_t)na, av[i]);
    power_fit q = fit_power(av, yv, (size_t)na, av[i]);
    fprintf(fr, "%g\t%.5f\t%.5f\t%.5f\t%.4g\t%.5f\t%.5f\t%.5f\t%d\n", av[i], k.c1, k.ab, k.p, k.chi2, q.p, q.s_p,
            q.c2, q.n);
  }
  fclose(fr);
  FILE *ff = bg_lab_tsv(lab, "fit.tsv",
                        "GSL fit (R_inf-R0)/R0 = c1 a for a < a_b, c1 a_b (a/a_b)^p above (c2 = c1 a_b^(1-p)); "
                        "1-sigma from (J^T J)^-1 chi2/dof",
                        "c1\tsigma_c1\ta_break\tsigma_a_break\tp\tsigma_p\tc2\tsigma_c2\tchi2\tdof\tn_below\tn_above\tgsl_status\tlube_a_break\tlajeunesse_a_break\t"
                        "fit_amax\tlarge_amin\tlarge_p\tsigma_large_p\tlarge_c2\tlarge_n");
  fprintf(ff, "%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.4g\t%d\t%d\t%d\t%d\t%g\t%g\t%g\t%g\t%.5f\t%.5f\t%.5f\t%d\n",
          lf.c1, lf.s_c1, lf.ab, lf.s_ab, lf.p, lf.s_p, lf.c2, lf.s_c2, lf.chi2, lf.dof, lf.n_below, lf.n_above,
          lf.status, lube.ab, read_law(lab, LAWS, "lajeunesse2004").ab, fit_amax, large_amin, pw.p, pw.s_p, pw.c2,
          pw.n);
  fclose(ff);
  /* the seed's fitted law, in the literature table's seed rows */
  lit_law seed = {NAN, NAN, NAN, NAN, 1};
  seed.c1 = read_law(lab, SEED, "runout_small_a_slope").c1;
  seed.ab = read_law(lab, SEED, "runout_break").c1;
  seed.c2 = read_law(lab, SEED, "runout_large_a_coeff").c1;
  seed.p = read_law(lab, SEED, "runout_large_a_exponent").c1;
  FILE *fcurve = bg_lab_tsv(lab, "fit_curve.tsv",
                            "the fitted law, Lube 2004 and the seed's fit (references/literature/column_collapse_laws.tsv, references/seed/seed_results.tsv), for the figure",
                            "aspect\tfit\tlube2004\tseed");
  for (int i = 0; i <= 200; ++i) {
    double a = 0.3 * pow(12.0 / 0.3, i / 200.0);
    fprintf(fcurve, "%.5g\t%.5g\t%.5g\t%.5g\n", a, law(a, lf.c1, lf.ab, lf.p), lit_value(&lube, a), lit_value(&seed, a));
  }
  fclose(fcurve);
  bg_lab_progress(lab, "fit a <= %g: c1 %.3f +- %.3f, a_b %.2f +- %.2f, p %.3f +- %.3f, c2 %.3f +- %.3f (chi2 %.3g, dof %d)",
                  fit_amax, lf.c1, lf.s_c1, lf.ab, lf.s_ab, lf.p, lf.s_p, lf.c2, lf.s_c2, lf.chi2, lf.dof);
  bg_lab_progress(lab, "power law a >= %g: p %.3f +- %.3f, c2 %.3f (%d aspects)", large_amin, pw.p, pw.s_p, pw.c2, pw.n);

  /* 3. refinement at conv_aspect */
  FILE *fc = bg_lab_tsv(lab, "convergence.tsv", "runout on four grids (1, 1.5, 2, 3 x the coarsest cells per R0), same aspect ratio",
                        ROW_COLUMNS);
  run_row conv[N_CONV];
  for (int gi = 0; gi < N_CONV; ++gi) {
    const bg_column_scene sc = scenes[next];
    const char *tag = tags[next];
    bg_column_result r = results[next++];
    conv[gi] = row_of(&r, &sc);
    bg_lab_progress(lab, "%s: toe %.2f mm, (R-R0)/R0 %.4f (1-dx threshold %.4f)", tag, r.front * 1e3, conv[gi].y,
                    conv[gi].y_thr);
    write_row(fc, &conv[gi], R0, r.dx, mu_floor, sc.cells);
    fflush(fc);
    char fn[64], cm[160];
    snprintf(fn, sizeof fn, "profile_conv%d.tsv", gi);
    snprintf(cm, sizeof cm, "final profile, a = %g, dx = %.4g m (%d cells per R0)", conv_aspect, r.dx, sc.cells);
    bg_column_write_profile(lab, &r, &sc, fn, cm);
    bg_column_result_free(&r);
  }
  fclose(fc);
  /* observed convergence of (R_inf - R0)/R0, of the 1-dx threshold's and of
   * R_inf itself (the last two are measurement mutants) */
  double hv[N_CONV], cy[N_CONV], cyt[N_CONV], cR[N_CONV];
  for (int gi = 0; gi < N_CONV; ++gi) {
    hv[gi] = 2.0 / (conv_cells * conv_factor2[gi]);
    cy[gi] = conv[gi].y;
    cyt[gi] = conv[gi].y_thr;
    cR[gi] = conv[gi].runout / R0;
  }
  conv_fit cf = fit_conv(hv, cy, N_CONV), cf_thr = fit_conv(hv, cyt, N_CONV), cf_R = fit_conv(hv, cR, N_CONV);
  double conv_err = conv_error(&cf, cy[N_CONV - 1]), conv_err_thr = conv_error(&cf_thr, cyt[N_CONV - 1]);
  double conv_err_R = conv_error(&cf_R, cR[N_CONV - 1]);
  double conv_change = fabs(cy[N_CONV - 1] - cy[N_CONV - 2]) / fabs(cy[N_CONV - 1]);
  for (int gi = 0; gi < N_CONV; ++gi)
    if (!conv[gi].settled || conv[gi].wall) conv_err = conv_err_thr = conv_err_R = NAN;
  /* positive control (converging-runout): a sequence on this run's own grids
   * that converges at order 2 to the coarsest grid's y, 2% below the limit
   * on the finest and +-0.1% of scatter, through the same fit and error:
   * it must pass, so a miss of runout.converged_dx is the flow's */
  double ypc[N_CONV];
  for (int gi = 0; gi < N_CONV; ++gi)
    ypc[gi] = cy[0] * (1.0 - 0.02 * pow(hv[gi] / hv[N_CONV - 1], 2)) * (gi % 2 ? 1.001 : 0.999);
  conv_fit cf_pc = fit_conv(hv, ypc, N_CONV);
  double conv_err_pc = conv_error(&cf_pc, ypc[N_CONV - 1]);
  FILE *fcf = bg_lab_tsv(lab, "convergence_fit.tsv",
                         "GSL fit y(h) = y_inf + C h^q over the refinement grids, h = dx/R0, 1-sigma from (J^T J)^-1 "
                         "chi2/dof; error = (|y(finest) - y_inf| + sigma_y_inf) / y_inf",
                         "quantity\ty_inf\tsigma_y_inf\tC\tsigma_C\tq\tsigma_q\tchi2\tdof\tgsl_status\ty_finest\terror");
  const conv_fit *cfs[3] = {&cf, &cf_thr, &cf_R};
  const char *cfn[3] = {"toe_runout_norm", "threshold_runout_norm", "toe_R_over_R0"};
  double cfin[3] = {cy[N_CONV - 1], cyt[N_CONV - 1], cR[N_CONV - 1]}, cerr[3] = {conv_err, conv_err_thr, conv_err_R};
  for (int k = 0; k < 3; ++k)
    fprintf(fcf, "%s\t%.6g\t%.3g\t%.5g\t%.3g\t%.4g\t%.3g\t%.3g\t%d\t%d\t%.6g\t%.4g\n", cfn[k], cfs[k]->y_inf,
            cfs[k]->s_y_inf, cfs[k]->C, cfs[k]->s_C, cfs[k]->q, cfs[k]->s_q, cfs[k]->chi2, cfs[k]->dof,
            cfs[k]->status, cfin[k], cerr[k]);
  fclose(fcf);
  bg_lab_progress(lab, "refinement fit: y_inf %.4f +- %.4f, q %.2f +- %.2f; finest-grid error %.4f", cf.y_inf,
                  cf.s_y_inf, cf.q, cf.s_q, conv_err);

  /* 4. floor friction at mu_aspect */
  FILE *fm = bg_lab_tsv(lab, "floor_mu.tsv", "runout vs floor Coulomb mu at one aspect ratio and dx", ROW_COLUMNS);
  run_row rmu[N_MU];
  for (int i = 0; i < N_MU; ++i) {
    const bg_column_scene sc = scenes[next];
    const char *tag = tags[next];
    bg_column_result r = results[next++];
    rmu[i] = row_of(&r, &sc);
    bg_lab_progress(lab, "%s: toe %.2f mm, 1-dx threshold %.2f mm, r99 %.2f mm", tag, r.front * 1e3, r.runout * 1e3,
                    r.r99 * 1e3);
    write_row(fm, &rmu[i], R0, dx, sc.mu, cells);
    fflush(fm);
    bg_column_result_free(&r);
  }
  fclose(fm);
  double mu_effect = (rmu[0].runout - rmu[N_MU - 1].runout) / rmu[N_MU - 1].runout;
  double mu_effect_r99 = (rmu[0].r99 - rmu[N_MU - 1].r99) / rmu[N_MU - 1].r99;
  double mu_effect_thr = (rmu[0].thr - rmu[N_MU - 1].thr) / rmu[N_MU - 1].thr;
  for (int i = 0; i < N_MU; ++i)
    if (!rmu[i].settled || rmu[i].wall) mu_effect = mu_effect_thr = NAN;

  int n_summit_small = 0, n_small = 0, n_conical_large = 0, n_large = 0;
  for (int i = 0; i < na; ++i) {
    if (rows[i].a < lube.ab) {
      n_small++;
      n_summit_small += rows[i].summit;
    } else {
      n_large++;
      n_conical_large += !rows[i].summit;
    }
  }
  FILE *fsum = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
  fprintf(fsum, "c1_small_a_slope\t%.5f\t1\n", lf.c1);
  fprintf(fsum, "a_break\t%.5f\t1\n", lf.ab);
  fprintf(fsum, "a_break_without_largest_aspect\t%.5f\t1\n", lf_prev.ab);
  fprintf(fsum, "conv_R_finest_grid_error\t%.5f\t1\n", conv_err_R);
  fprintf(fsum, "p_large_a_exponent\t%.5f\t1\n", lf.p);
  fprintf(fsum, "c2_large_a_coefficient\t%.5f\t1\n", lf.c2);
  fprintf(fsum, "large_a_power_exponent\t%.5f\t1\n", pw.p);
  fprintf(fsum, "large_a_power_coefficient\t%.5f\t1\n", pw.c2);
  fprintf(fsum, "c1_small_a_slope_threshold_estimator\t%.5f\t1\n", lf_thr.c1);
  fprintf(fsum, "a_break_threshold_estimator\t%.5f\t1\n", lf_thr.ab);
  fprintf(fsum, "large_a_power_exponent_threshold_estimator\t%.5f\t1\n", pw_thr.p);
  fprintf(fsum, "origin_intercept\t%.5f\t1\n", of.b);
  fprintf(fsum, "origin_intercept_R_over_R0\t%.5f\t1\n", of_r.b);
  fprintf(fsum, "conv_finest_grid_error\t%.5f\t1\n", conv_err);
  fprintf(fsum, "conv_observed_order\t%.4f\t1\n", cf.q);
  fprintf(fsum, "conv_rel_change_finest_pair\t%.5f\t1\n", conv_change);
  fprintf(fsum, "floor_mu_rel_runout_change\t%.5f\t1\n", mu_effect);
  fprintf(fsum, "floor_mu_rel_threshold_change\t%.5f\t1\n", mu_effect_thr);
  fprintf(fsum, "floor_mu_rel_r99_change\t%.5f\t1\n", mu_effect_r99);
  fprintf(fsum, "summit_deposits_below_lube_break\t%d of %d\t1\n", n_summit_small, n_small);
  fprintf(fsum, "conical_deposits_above_lube_break\t%d of %d\t1\n", n_conical_large, n_large);
  fclose(fsum);
  bg_lab_manifest_num(lab, "fit_c1", lf.c1);
  bg_lab_manifest_num(lab, "fit_a_break", lf.ab);
  bg_lab_manifest_num(lab, "fit_p", lf.p);
  bg_lab_manifest_num(lab, "fit_c2", lf.c2);

  bg_lab_claim(lab, "runout.break", ab_claim);
  bg_lab_claim(lab, "runout.small_a_slope", lf.c1);
  bg_lab_claim(lab, "runout.static_bound", (lf.c1 + 2 * lf.s_c1) / c1_bound);
  bg_lab_claim(lab, "runout.large_a_exponent", pw.p);
  bg_lab_claim(lab, "runout.converged_dx", conv_err);
  bg_lab_claim(lab, "runout.floor_mu", mu_effect);
  bg_lab_claim(lab, "runout.origin", of.b);
  bg_lab_claim_mutant(lab, "runout-1dx-threshold", "runout.converged_dx", conv_err_thr);
  bg_lab_claim_mutant(lab, "runout-1dx-threshold", "runout.floor_mu", mu_effect_thr);
  bg_lab_claim_mutant(lab, "runout-1dx-threshold", "runout.static_bound", (lf_thr.c1 + 2 * lf_thr.s_c1) / c1_bound);
  bg_lab_claim_mutant(lab, "aspect-as-diameter", "runout.break", lf_dia.ab);
  bg_lab_claim_mutant(lab, "aspect-as-diameter", "runout.small_a_slope", lf_dia.c1);
  bg_lab_claim_mutant(lab, "converging-runout", "runout.converged_dx", conv_err_pc);
  bg_lab_claim_mutant(lab, "lube-law-data", "runout.small_a_slope", lf_lube.c1);
  bg_lab_claim_mutant(lab, "lube-law-data", "runout.large_a_exponent", pw_lube.p);
  /* the planted bug on every claim that reads y; only runout.origin must flip (mutants.tsv) */
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.origin", of_r.b);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.break", ab_claim_r);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.small_a_slope", lf_r.c1);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.static_bound", (lf_r.c1 + 2 * lf_r.s_c1) / c1_bound);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.large_a_exponent", pw_r.p);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.converged_dx", conv_err_R);
  return bg_lab_finish(lab);
}
