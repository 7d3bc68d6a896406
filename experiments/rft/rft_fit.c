/* rft_fit.c: the generic RFT form of Li, Zhang & Goldman 2013 and the fits
 * the claims read: the scale zeta and the shape's misfit, the line of force
 * against depth. The coefficients live in
 * references/literature/li2013_rft.tsv; main reads them into g_coef
 * (rft_read_coefficients) before any analysis. */
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>

#include "rft.h"

/* A00 A10 B11 B01 Bm11 C11 C01 Cm11 D10, in units of zeta */
static double g_coef[9] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};

void rft_set_coefficients(const double c[9]) {
  for (int k = 0; k < 9; ++k) g_coef[k] = c[k];
}

void rft_read_coefficients(bg_lab *lab) {
  static const char *const key[9] = {"A00", "A10", "B11",  "B01", "Bm11",
                                     "C11", "C01", "Cm11", "D10"};
  double c[9];
  char path[1024];
  bg_lab_reference(lab, "literature/li2013_rft.tsv", path, sizeof path);
  for (int k = 0; k < 9; ++k)
    c[k] = bg_lab_ref_value(lab, "literature/li2013_rft.tsv", key[k], "value");
  rft_set_coefficients(c);
}

/* Li et al. 2013's discrete Fourier fit, beta the angle of attack and gamma
 * the direction of motion below the horizontal (both rad). */
void rft_generic(double beta, double gamma, double *az, double *ax) {
  const double *c = g_coef;
  *az = c[0] + c[1] * cos(2 * beta) + c[2] * sin(2 * beta + gamma) + c[3] * sin(gamma) +
        c[4] * sin(-2 * beta + gamma);
  *ax = c[5] * cos(2 * beta + gamma) + c[6] * cos(gamma) + c[7] * cos(-2 * beta + gamma) +
        c[8] * sin(2 * beta);
}

/* zeta: y = zeta g through the origin (gsl_fit_mul) over both components of
 * every run; the misfits normalised by the rms of the fitted model. The
 * resolution (mirror) is the same distance from g(beta) to g(-beta): what
 * the generic form tells apart from a plate turned the other way. */
rft_shape rft_fit_shape(const rft_run *r, int n, double sign) {
  rft_shape s = {NAN, NAN, NAN, NAN, NAN};
  if (n < 1 || n > 256) return s;
  double g[512], y[512], gm[512];
  for (int k = 0; k < n; ++k) {
    rft_generic(sign * r[k].beta_fed, r[k].gamma_fed, &g[2 * k], &g[2 * k + 1]);
    rft_generic(-sign * r[k].beta_fed, r[k].gamma_fed, &gm[2 * k], &gm[2 * k + 1]);
    y[2 * k] = r[k].alpha_z, y[2 * k + 1] = r[k].alpha_x;
  }
  double zeta, cov, sumsq;
  if (gsl_fit_mul(g, 1, y, 1, (size_t)(2 * n), &zeta, &cov, &sumsq)) return s;
  s.zeta = zeta;
  double e[2] = {0, 0}, m[2] = {0, 0}, d = 0;
  for (int i = 0; i < 2 * n; ++i) {
    double f = zeta * g[i];
    e[i % 2] += (y[i] - f) * (y[i] - f);
    m[i % 2] += f * f;
    d += (g[i] - gm[i]) * (g[i] - gm[i]);
  }
  s.misfit_z = sqrt(e[0] / m[0]);
  s.misfit_x = sqrt(e[1] / m[1]);
  s.misfit = sqrt((e[0] + e[1]) / (m[0] + m[1]));
  s.mirror = 0.5 * sqrt(d / ((m[0] + m[1]) / (zeta * zeta)));
  return s;
}

/* The same resolution from angles alone (degrees; a run that simulates no
 * shape set: its claims still compare with it). */
double rft_resolution(const double *betas, int nb, const double *gammas, int ng) {
  const double r = 3.14159265358979323846 / 180.0;
  double d = 0, m = 0;
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < ng; ++j) {
      double az, ax, bz, bx;
      rft_generic(betas[i] * r, gammas[j] * r, &az, &ax);
      rft_generic(-betas[i] * r, gammas[j] * r, &bz, &bx);
      d += (az - bz) * (az - bz) + (ax - bx) * (ax - bx);
      m += az * az + ax * ax;
    }
  return 0.5 * sqrt(d / m);
}

double rft_fit_depth(const rft_run *r, int n, const double *depth_used, double L, double *k, double *c,
                     double *sigma) {
  double f[64], w[64], c00, c01, c11, chisq;
  *sigma = NAN;
  if (n < 2 || n > 64) return NAN;
  for (int i = 0; i < n; ++i) {
    f[i] = r[i].alpha_ahead * L * r[i].depth_ahead;
    const double se = r[i].alpha_ahead_se * L * r[i].depth_ahead;
    w[i] = 1.0 / (se * se); /* NaN or inf where no error is known: the fit gives NaN */
  }
  if (gsl_fit_wlinear(depth_used, 1, w, 1, f, 1, (size_t)n, c, k, &c00, &c01, &c11, &chisq)) return NAN;
  /* the covariance from the forces' errors alone (not scaled by the scatter,
   * which three points cannot estimate), carried to -c / k to first order */
  const double kk = *k, cc = *c;
  double var = c00 / (kk * kk) + cc * cc * c11 / (kk * kk * kk * kk) - 2 * cc * c01 / (kk * kk * kk);
  *sigma = var >= 0 ? sqrt(var) : NAN;
  return -cc / kk;
}
