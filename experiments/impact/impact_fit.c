/* impact_fit.c: the fits of exp_impact over one grid's drops (GSL).
 *
 * Joint fit: log d = c + a log H + b log D over every drop of the grid, an
 * ordinary least-squares fit (gsl_multifit_linear) whose standard errors
 * are the covariance scaled by chi^2 / dof. Per diameter: log d against
 * log H alone (gsl_fit_linear). Prefactor: with Uehara's exponents held,
 * K = exp(mean(log d - 2/3 log D - 1/3 log H)), the geometric mean of
 * d / (D^(2/3) H^(1/3)) over the drops, against 0.14 / mu (rho_b /
 * rho_g)^(1/2) built from what the simulations held (the mean over the
 * drops; they hold the same material and sphere density). */
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <string.h>

#include "impact.h"

double impact_uehara_depth(double mu, double rho_b, double rho_g, double D, double H) {
  return UEHARA_C / mu * sqrt(rho_b / rho_g) * pow(D, UEHARA_B) * pow(H, UEHARA_A);
}

/* The law's own depth for a drop from h: d = K D^(2/3) (h + d)^(1/3),
 * solved by fixed-point iteration (a contraction: the slope is below 1/3
 * d / H < 1/3). */
static double law_depth(double K, double D, double h) {
  double d = h;
  for (int i = 0; i < 200; ++i) d = K * pow(D, UEHARA_B) * pow(h + d, UEHARA_A);
  return d;
}

/* Index of the drop whose labels (h, D) drop k is read with: its own; with
 * the heights reversed, the drop of the same diameter at the mirrored
 * position in the list of heights; with the diameters reversed, the drop of
 * the same height at the mirrored position in the list of diameters. */
static int relabel(const impact_drop *d, int n, int k, impact_fit_mode mode) {
  if (!mode.reverse_h && !mode.reverse_d) return k;
  int same[64], ns = 0, pos = 0;
  for (int j = 0; j < n && ns < 64; ++j) {
    if (mode.reverse_h ? d[j].D != d[k].D : d[j].h != d[k].h) continue;
    if (j == k) pos = ns;
    same[ns++] = j;
  }
  return same[ns - 1 - pos];
}

impact_fit impact_fit_grid(const impact_drop *d, int n, const impact_options *o,
                           impact_fit_mode mode) {
  impact_fit f;
  memset(&f, 0, sizeof f);
  f.dx = n > 0 ? d[0].dx : NAN;
  f.n = n;
  double mu = 0, rho_b = 0, rho_g = 0;
  for (int k = 0; k < n; ++k) {
    mu += d[k].mu_fed / n;
    rho_b += d[k].rho_b_held / n;
    rho_g += d[k].rho_g / n;
  }
  if (mode.rho_b_lab > 0) rho_b = mode.rho_b_lab;
  if (mode.mu_lab > 0) mu = mode.mu_lab;
  f.K_expected = UEHARA_C / mu * sqrt(rho_b / rho_g);
  double logd[64], logH[64], logD[64];
  if (n > 64) n = 64;
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    double depth = mode.use_release ? d[k].depth_release : d[k].depth;
    int j = relabel(d, n, k, mode); /* the drop whose labels drop k is read with */
    double h = d[j].h, D = d[j].D;
    if (mode.law_data) depth = law_depth(f.K_expected, d[k].D, d[k].h);
    logd[k] = log(depth);
    logH[k] = log(h + depth);
    logD[k] = log(D);
    sum += logd[k] - UEHARA_B * logD[k] - UEHARA_A * logH[k];
  }
  f.K = exp(sum / n);

  /* joint fit: needs more drops than the three coefficients */
  f.a = f.b = f.c = f.a_se = f.b_se = NAN;
  if (n > 3) {
    gsl_matrix *X = gsl_matrix_alloc(n, 3), *cov = gsl_matrix_alloc(3, 3);
    gsl_vector *y = gsl_vector_alloc(n), *c = gsl_vector_alloc(3);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, 3);
    for (int k = 0; k < n; ++k) {
      gsl_matrix_set(X, k, 0, 1.0);
      gsl_matrix_set(X, k, 1, logH[k]);
      gsl_matrix_set(X, k, 2, logD[k]);
      gsl_vector_set(y, k, logd[k]);
    }
    double chisq;
    if (gsl_multifit_linear(X, y, c, cov, &chisq, w) == 0) {
      f.c = gsl_vector_get(c, 0);
      f.a = gsl_vector_get(c, 1);
      f.b = gsl_vector_get(c, 2);
      /* gsl's covariance is (X^T X)^-1: scaled by the residual variance */
      double s2 = chisq / (n - 3);
      f.a_se = sqrt(s2 * gsl_matrix_get(cov, 1, 1));
      f.b_se = sqrt(s2 * gsl_matrix_get(cov, 2, 2));
    }
    gsl_multifit_linear_free(w);
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(c);
  }

  /* per diameter: log d against log H */
  for (int i = 0; i < o->n_d; ++i) {
    double xs[64], ys[64];
    int m = 0;
    for (int k = 0; k < n; ++k)
      if (d[k].D == o->d[i]) {
        xs[m] = logH[k];
        ys[m++] = logd[k];
      }
    double c0, c1, c00, c01, c11, ss;
    f.a_per_d[i] =
        m >= 2 && gsl_fit_linear(xs, 1, ys, 1, m, &c0, &c1, &c00, &c01, &c11, &ss) == 0 ? c1 : NAN;
  }
  return f;
}
