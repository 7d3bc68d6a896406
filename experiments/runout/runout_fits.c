/* runout_fits.c: the runout experiment's fits (runout.c's header says
 * what each is for): the two-regime law, the large-a power law, the line
 * through the origin, the static bound and the refinement's y(h). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"
#include "runout.h"

typedef struct law_data {
  const double *a, *y;
  size_t n;
} law_data;

/* the two-regime law and its derivatives in (c1, a_b, p) */
double runout_law(double a, double c1, double ab, double p) { return a < ab ? c1 * a : c1 * ab * pow(a / ab, p); }

static int law_f(const gsl_vector *x, void *vd, gsl_vector *f) {
  const law_data *d = vd;
  double c1 = gsl_vector_get(x, 0), ab = gsl_vector_get(x, 1), p = gsl_vector_get(x, 2);
  for (size_t i = 0; i < d->n; ++i) gsl_vector_set(f, i, runout_law(d->a[i], c1, ab, p) - d->y[i]);
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

/* One fit from one start; the kink makes the objective piecewise smooth, so
 * the caller tries several breaks and keeps the lowest chi^2. */
static law_fit fit_from(const double *a, const double *y, size_t n, double ab0) {
  law_fit r;
  memset(&r, 0, sizeof r);
  r.status = -1;
  r.chi2 = INFINITY;
  law_data d = {a, y, n};
  bg_fit_model m = {law_f, law_df, &d, n, 3};
  /* start: the slope of the points below ab0, p = 0.5 */
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i)
    if (a[i] < ab0) {
      sxy += a[i] * y[i];
      sxx += a[i] * a[i];
    }
  double c10 = sxx > 0 ? sxy / sxx : y[0] / a[0];
  double x0[3] = {c10, ab0, 0.5};
  bg_fit_result f = bg_fit_nlinear(&m, x0, (bg_fit_stop){500, 1e-12, 1e-12, 1e-12});
  r.status = f.status;
  r.chi2 = f.chi2;
  r.c1 = f.p[0];
  r.ab = f.p[1];
  r.p = f.p[2];
  r.dof = f.dof;
  double s2 = bg_fit_scatter(&f);
  r.s_c1 = bg_fit_sigma(&f, 0, s2);
  r.s_ab = bg_fit_sigma(&f, 1, s2);
  r.s_p = bg_fit_sigma(&f, 2, s2);
  /* c2 = c1 ab^(1-p): first-order propagation with the full covariance */
  r.c2 = r.c1 * pow(r.ab, 1 - r.p);
  double g[3] = {pow(r.ab, 1 - r.p), r.c1 * (1 - r.p) * pow(r.ab, -r.p), -r.c2 * log(r.ab)};
  double v = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v += g[i] * g[j] * f.cov[i][j];
  r.s_c2 = sqrt(s2 * v);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] < r.ab) r.n_below++;
    else r.n_above++;
  }
  return r;
}

/* The fit that is kept: lowest chi^2 over starts between the aspects, with
 * at least one point on each side of the break (else the law has no second
 * regime and the break is not measured). */
law_fit runout_fit_law(const double *a, const double *y, size_t n) {
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
law_fit runout_fit_law_upto(const double *a, const double *y, size_t n, double amax) {
  size_t m = 0;
  while (m < n && a[m] <= amax * (1 + 1e-9)) m++;
  return runout_fit_law(a, y, m);
}

/* The large-a power law y = c2 a^p over a >= amin: a straight line in
 * (ln a, ln y); GSL's covariance is the scatter about the line (chi^2 scaled),
 * so at least three points are needed, else NaN. */
power_fit runout_fit_power(const double *a, const double *y, size_t n, double amin) {
  power_fit r = {NAN, NAN, NAN, 0};
  double lx[MAX_ASPECTS], ly[MAX_ASPECTS];
  for (size_t i = 0; i < n; ++i)
    if (a[i] >= amin * (1 - 1e-9) && y[i] > 0) {
      lx[r.n] = log(a[i]);
      ly[r.n++] = log(y[i]);
    }
  if (r.n < 3) return r;
  bg_fit_line_result l = bg_fit_line(lx, ly, (size_t)r.n);
  r.p = l.c1;
  r.s_p = sqrt(l.cov11);
  r.c2 = exp(l.c0);
  return r;
}

/* The origin of the definition: as a -> 0 there is no column, so the
 * runout R_inf -> R0 and y = (R_inf - R0)/R0 -> 0. A GSL straight line
 * y = b + c a over the small aspects a <= amax (the static bound's summit
 * regime, sqrt(3) tan phi) extrapolates to a = 0; its intercept b misses the
 * origin only by the curve's curvature over the range and the edge's
 * discretisation (references/derivations/runout.md section 6). At least three
 * aspects, else NaN; sigma_b from the scatter about the line. */
origin_fit runout_fit_origin(const double *a, const double *y, size_t n, double amax) {
  origin_fit r = {NAN, NAN, NAN, 0};
  size_t m = 0;
  while (m < n && a[m] <= amax * (1 + 1e-9)) m++;
  r.n = (int)m;
  if (m < 3) return r;
  bg_fit_line_result l = bg_fit_line(a, y, m);
  r.b = l.c0;
  r.c = l.c1;
  if (l.status != GSL_SUCCESS) r.b = r.c = NAN;
  r.s_b = sqrt(l.cov00);
  return r;
}

/* the static bound (derivation section 1): y of the frustum at phi holding
 * the column's volume, while it keeps its summit (a <= sqrt(3) tan phi) */
double runout_y_static(double a, double phi_deg) {
  double s = a / tan(phi_deg * M_PI / 180.0);
  return 0.5 * (s + sqrt(4.0 - s * s / 3.0)) - 1.0;
}

/* Observed convergence y(h) = y_inf + C h^q on the refinement grids
 * (h = dx / R0), three free parameters, no assumed order; 1-sigma from
 * (J^T J)^-1 chi^2 / dof. */
conv_fit runout_fit_conv(const double *h, const double *y, size_t n) {
  conv_fit r;
  memset(&r, 0, sizeof r);
  r.status = -1;
  r.y_inf = r.C = r.q = r.s_y_inf = r.s_C = r.s_q = NAN;
  if (n < 4) return r;
  /* start: first order through the coarsest and finest grids */
  double C0 = (y[0] - y[n - 1]) / (h[0] - h[n - 1]);
  double x0[3] = {y[n - 1] - C0 * h[n - 1], C0, 1.0};
  bg_fit_result f = bg_fit_refine(h, y, n, x0);
  r.status = f.status;
  r.chi2 = f.chi2;
  r.y_inf = f.p[0];
  r.C = f.p[1];
  r.q = f.p[2];
  r.dof = f.dof;
  double s2 = bg_fit_scatter(&f);
  r.s_y_inf = bg_fit_sigma(&f, 0, s2);
  r.s_C = bg_fit_sigma(&f, 1, s2);
  r.s_q = bg_fit_sigma(&f, 2, s2);
  return r;
}

/* The claim: the finest grid's distance from the fitted limit plus the
 * limit's 1-sigma, relative to the limit (an unsure limit cannot pass); NaN
 * (a fail) when no limit is found: the fit failed or the order is not
 * positive. */
double runout_conv_error(const conv_fit *c, double y_finest) {
  if (c->status != GSL_SUCCESS || !(c->q > 0) || !isfinite(c->s_y_inf)) return NAN;
  return (fabs(y_finest - c->y_inf) + c->s_y_inf) / fabs(c->y_inf);
}
