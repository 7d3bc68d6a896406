/* repose_fit.c: the flank angle's limit as dx -> 0 (theta(h) = theta_inf +
 * c h^p, bg_fit_refine), the sequence's monotony, the flow angle bound, the
 * recorded baseline of the lower band and the estimators' spread. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"
#include "repose.h"

/* One nonlinear fit from a start at order p0 (theta_inf and c from the
 * linear fit at that order). */
static conv_fit fit_from(const double *h, const double *theta, size_t n, double p0) {
  conv_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, (int)n - 3, -1, 0};
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; ++i) x[i] = pow(h[i], p0);
  bg_fit_line_result l = bg_fit_line(x, theta, n);
  free(x);
  const double st[3] = {l.c0, l.c1, p0};
  bg_fit_result f = bg_fit_refine(h, theta, n, st);
  /* unknown per-grid errors: the scatter about the fit sets them (chi^2 / dof) */
  double scale = bg_fit_scatter(&f);
  r.status = f.status;
  r.chi2 = f.chi2;
  r.theta_inf = f.p[0];
  r.c = f.p[1];
  r.p = f.p[2];
  r.s_theta = bg_fit_sigma(&f, 0, scale);
  r.s_c = bg_fit_sigma(&f, 1, scale);
  r.s_p = bg_fit_sigma(&f, 2, scale);
  return r;
}

/* Unweighted fit theta_i = theta_inf + c h_i^p with p free; the covariance
 * (J^T J)^-1 is scaled by chi^2 / dof, which needs n >= 4. The limit counts
 * as found only when the fit converged to an order p > 2 sigma_p (theta
 * provably approaches theta_inf as h -> 0) with a finite uncertainty. Several starting orders:
 * the lowest chi^2 wins. */
conv_fit repose_fit_convergence(const double *h, const double *theta, size_t n) {
  conv_fit best = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, (int)n - 3, -1, 0};
  if (n < 4) return best;
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(theta[i])) return best;
  const double p0[] = {0.25, 0.5, 1.0, 2.0};
  for (size_t k = 0; k < sizeof p0 / sizeof p0[0]; ++k) {
    conv_fit r = fit_from(h, theta, n, p0[k]);
    if (r.status != GSL_SUCCESS || !isfinite(r.chi2)) continue;
    if (best.status != GSL_SUCCESS || r.chi2 < best.chi2) best = r;
  }
  best.found = best.status == GSL_SUCCESS && best.p > 2 * best.s_p && isfinite(best.s_theta) &&
               isfinite(best.theta_inf);
  return best;
}

/* Coarse-to-fine steps (or fine-to-coarse, reversed) whose angle does not
 * come closer to phi; every step counts when an angle is missing. */
int repose_steps_away(const double *th, int n, double phi, int reversed) {
  int away = 0;
  for (int k = 0; k + 1 < n; ++k) {
    double a = reversed ? th[n - 1 - k] : th[k], b = reversed ? th[n - 2 - k] : th[k + 1];
    if (!isfinite(a) || !isfinite(b)) return n - 1;
    if (fabs(b - phi) >= fabs(a - phi)) away++;
  }
  return away;
}

/* The friction angle a surface layer mobilises in steady simple shear under
 * Klar's Drucker-Prager cone (compression-meridian alpha): tau / sigma_n =
 * sqrt(J2) / p = 2 sqrt(3) sin phi / (3 - sin phi); references/derivations/repose.md. */
double repose_flow_angle(double phi_deg) {
  double s = sin(phi_deg / DEG);
  return atan(2 * sqrt(3.0) * s / (3 - s)) * DEG;
}

/* The recorded paper run's offset of the lower band below its fed angle at
 * resolution h = dx / R0: phi_fed_deg - lower_deg of
 * references/baselines/repose_lower_band.tsv, interpolated linearly in
 * log h between its grids; NaN outside their range (never extrapolated). */
double repose_baseline_offset(bg_lab *lab, double h) {
  char path[1200], line[1024];
  bg_lab_reference(lab, "baselines/repose_lower_band.tsv", path, sizeof path);
  FILE *fp = fopen(path, "r");
  if (!fp) bg_lab_fail("cannot read %s", path);
  double hs[16], off[16];
  int n = 0, header = 0;
  while (fgets(line, sizeof line, fp) && n < 16) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (!header) {
      header = 1;
      if (strncmp(line, "cells_per_R0\tdx_over_R0\tlower_deg\tphi_fed_deg", 44))
        bg_lab_fail("%s: the header must be cells_per_R0 dx_over_R0 lower_deg phi_fed_deg", path);
      continue;
    }
    double c, hh, th, ph;
    if (sscanf(line, "%lf %lf %lf %lf", &c, &hh, &th, &ph) != 4 || !(hh > 0))
      bg_lab_fail("%s: a row is not four numbers with dx_over_R0 > 0: %s", path, line);
    hs[n] = hh;
    off[n++] = ph - th;
  }
  fclose(fp);
  for (int i = 0; i + 1 < n; ++i) {
    double a = fmax(hs[i], hs[i + 1]), b = fmin(hs[i], hs[i + 1]);
    if (h <= a && h >= b) {
      double w = log(h / hs[i]) / log(hs[i + 1] / hs[i]);
      return off[i] + w * (off[i + 1] - off[i]);
    }
  }
  bg_lab_progress(lab, "repose.lower_band: dx/R0 %.4g is outside the baseline's grids (%s): not judged", h, path);
  return NAN;
}

/* max - min of the four estimators; NaN if one failed */
double repose_est_spread(const double *theta) {
  double mn = theta[0], mx = theta[0];
  for (int e = 0; e < N_EST; ++e) {
    if (!isfinite(theta[e])) return NAN;
    mn = fmin(mn, theta[e]);
    mx = fmax(mx, theta[e]);
  }
  return mx - mn;
}

/* the seed's limit claim: the 2-sigma bracket of a found limit lies within
 * phi +- tolerance, i.e. |theta_inf - phi| + 2 sigma; NaN (a fail) when no limit is found */
double repose_limit_reach(const conv_fit *f, double phi) {
  return f->found ? fabs(f->theta_inf - phi) + 2 * f->s_theta : NAN;
}
