/* silo_fits.c: the Beverloo fits of the silo experiment (GSL through
 * bg_fit: nonlinear least squares on relative residuals, covariance scaled
 * by chi^2/dof; straight lines) and the resolution criterion. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdlib.h>

#include "bg_fit.h"
#include "silo.h"

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

bev_fit silo_fit_beverloo(const double *D, const double *y, size_t n, const double *d, double n_fix, int free_n,
                          const double *start) {
  bev_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, 0};
  size_t np = free_n ? 3 : 2;
  r.dof = (int)n - (int)np;
  if (n < np + 1 || !isfinite(start[0])) return r;
  bev_data bd = {D, y, n, d, n_fix, free_n};
  bg_fit_model m = {bev_f, bev_df, &bd, n, np};
  double p0[3] = {start[0], start[1], free_n ? start[2] : n_fix};
  bg_fit_result f = bg_fit_nlinear(&m, p0, (bg_fit_stop){500, 1e-12, 1e-12, 1e-12});
  r.status = f.status;
  /* residuals are relative with no known sigma: scale by chi^2/dof */
  double sc = bg_fit_scatter(&f);
  r.C = f.p[0];
  r.k = f.p[1];
  r.n = free_n ? f.p[2] : n_fix;
  r.sC = bg_fit_sigma(&f, 0, sc);
  r.sk = bg_fit_sigma(&f, 1, sc);
  r.sn = free_n ? bg_fit_sigma(&f, 2, sc) : 0;
  r.rms = sqrt(f.chi2 / n);
  return r;
}

/* C of W / (rho_b sqrt g) = C (D - kd)^n_law with k fixed: a linear fit
 * through the origin of the relative residuals, C x_i - 1 with
 * x_i = (D_i - kd)^n_law / y_i (GSL, variance from the scatter) */
bev_fit silo_fit_C_kfixed(const double *D, const double *y, size_t n, double kd, double n_law) {
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
bev_fit silo_fit_n_kfixed(const double *D, const double *y, size_t n, double kd) {
  bev_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, (int)n - 2};
  if (n < 3) return r;
  double lx[MAX_AP + 3], ly[MAX_AP + 3];
  for (size_t i = 0; i < n; ++i) {
    if (D[i] - kd <= 0) return r;
    lx[i] = log(D[i] - kd);
    ly[i] = log(y[i]);
  }
  bg_fit_line_result l = bg_fit_line(lx, ly, n);
  r.status = l.status;
  r.C = exp(l.c0);
  r.sC = r.C * sqrt(l.cov00);
  r.n = l.c1;
  r.sn = sqrt(l.cov11);
  r.rms = sqrt(l.sumsq / n);
  return r;
}

/* Resolution criterion: an aperture's run has reached its steady exit speed
 * when u_c = v_c / sqrt(g D) has levelled off against D. s_i is the local
 * log-slope d ln u_c / d ln D to the next larger aperture (the largest: to
 * the one below); W ~ u_c D^(n_law) in the law's dimensions, so the drift of
 * u_c adds s_i to the local exponent of W, and an aperture passes when
 * |s_i| <= s_max. Runs that did not discharge never pass. */
int silo_resolution(const bg_silo_result *rr, int n, double s_max, double *s, int *ok) {
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
bev_fit silo_joint_fit(const bg_silo_result *rr, int nap, int ntot, double min_cells, double off_cells, double n_law,
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
  bev_fit f = silo_fit_beverloo(D, y, (size_t)n, d, n_law, 0, st);
  if (!free_n) return f;
  double st1[3] = {f.C, f.k, n_law};
  return silo_fit_beverloo(D, y, (size_t)n, d, n_law, 1, st1);
}
