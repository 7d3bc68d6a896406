/* bg_fit.c: the experiments' least-squares fits (see bg_fit.h). */
#include "bg_fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

#include "bg_lab.h"

bg_fit_result bg_fit_nlinear(const bg_fit_model *m, const double *p0, bg_fit_stop stop) {
  bg_fit_result r;
  memset(&r, 0, sizeof r);
  if (m->np < 1 || m->np > BG_FIT_MAX_PARAMS)
    bg_lab_fail("bg_fit_nlinear: %zu parameters (1 to %d)", m->np, BG_FIT_MAX_PARAMS);
  size_t np = m->np;
  r.dof = (int)m->n - (int)np;
  gsl_multifit_nlinear_fdf fdf = {m->f, m->df, NULL, m->n, np, m->data, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, m->n, np);
  double start[BG_FIT_MAX_PARAMS];
  memcpy(start, p0, np * sizeof *start);
  gsl_vector_view pv = gsl_vector_view_array(start, np);
  gsl_multifit_nlinear_init(&pv.vector, &fdf, w);
  int info;
  r.status = gsl_multifit_nlinear_driver(stop.max_iter, stop.xtol, stop.gtol, stop.ftol, NULL, NULL, &info, w);
  gsl_vector *f = gsl_multifit_nlinear_residual(w);
  gsl_blas_ddot(f, f, &r.chi2);
  gsl_matrix *cov = gsl_matrix_alloc(np, np);
  gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
  for (size_t i = 0; i < np; ++i) {
    r.p[i] = gsl_vector_get(w->x, i);
    for (size_t j = 0; j < np; ++j) r.cov[i][j] = gsl_matrix_get(cov, i, j);
  }
  gsl_matrix_free(cov);
  gsl_multifit_nlinear_free(w);
  return r;
}

double bg_fit_scatter(const bg_fit_result *r) { return r->dof > 0 ? r->chi2 / r->dof : NAN; }

double bg_fit_sigma(const bg_fit_result *r, int i, double scale) { return sqrt(scale * r->cov[i][i]); }

/* ------------------------------------------------------------ refinement */

typedef struct refine_data {
  const double *h, *y;
  size_t n;
} refine_data;

static int refine_f(const gsl_vector *p, void *vd, gsl_vector *f) {
  const refine_data *d = vd;
  double yi = gsl_vector_get(p, 0), c = gsl_vector_get(p, 1), e = gsl_vector_get(p, 2);
  for (size_t i = 0; i < d->n; ++i) gsl_vector_set(f, i, yi + c * pow(d->h[i], e) - d->y[i]);
  return GSL_SUCCESS;
}

static int refine_df(const gsl_vector *p, void *vd, gsl_matrix *J) {
  const refine_data *d = vd;
  double c = gsl_vector_get(p, 1), e = gsl_vector_get(p, 2);
  for (size_t i = 0; i < d->n; ++i) {
    double he = pow(d->h[i], e);
    gsl_matrix_set(J, i, 0, 1.0);
    gsl_matrix_set(J, i, 1, he);
    gsl_matrix_set(J, i, 2, c * he * log(d->h[i]));
  }
  return GSL_SUCCESS;
}

bg_fit_result bg_fit_refine(const double *h, const double *y, size_t n, const double p0[3]) {
  refine_data d = {h, y, n};
  bg_fit_model m = {refine_f, refine_df, &d, n, 3};
  return bg_fit_nlinear(&m, p0, (bg_fit_stop){500, 1e-12, 1e-12, 1e-12});
}

/* ------------------------------------------------------------------ line */

bg_fit_line_result bg_fit_line(const double *x, const double *y, size_t n) {
  bg_fit_line_result r;
  r.status = gsl_fit_linear(x, 1, y, 1, n, &r.c0, &r.c1, &r.cov00, &r.cov01, &r.cov11, &r.sumsq);
  return r;
}

double bg_batch_se(const double *x, size_t stride, size_t n, int batches, double *mean) {
  *mean = n ? gsl_stats_mean(x, stride, n) : NAN;
  double bm[64];
  if (batches < 2 || batches > 64 || n < (size_t)batches) return NAN;
  for (int b = 0; b < batches; ++b) {
    const size_t i0 = (size_t)b * n / (size_t)batches, i1 = (size_t)(b + 1) * n / (size_t)batches;
    bm[b] = gsl_stats_mean(x + i0 * stride, stride, i1 - i0);
  }
  return gsl_stats_sd_m(bm, 1, (size_t)batches, *mean) / sqrt((double)batches);
}
