/* bg_fit.h: the experiments' least-squares fits, one place for GSL's set-up.
 *
 * bg_fit_nlinear: nonlinear least squares (gsl_multifit_nlinear, trust
 * region, default parameters) of a model given as residual and Jacobian
 * callbacks; it returns the parameters, the unscaled covariance
 * (J^T J)^-1, chi^2 (sum of squared residuals), the degrees of freedom and
 * the driver's status. The caller scales the covariance: bg_fit_scatter
 * (chi^2 / dof, for data without known errors) and bg_fit_sigma.
 *
 * bg_fit_refine: the refinement model y(h) = y_inf + c h^p (h = dx / L,
 * p free) that a convergence study fits, through bg_fit_nlinear.
 *
 * bg_fit_line: a straight line y = c0 + c1 x (gsl_fit_linear), its
 * covariance already scaled by the scatter. */
#ifndef BG_FIT_H
#define BG_FIT_H

#include <stddef.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#define BG_FIT_MAX_PARAMS 8

/* residuals r_i(p) and their Jacobian J_ij = d r_i / d p_j (GSL's fdf) */
typedef int (*bg_fit_residual_fn)(const gsl_vector *p, void *data, gsl_vector *r);
typedef int (*bg_fit_jacobian_fn)(const gsl_vector *p, void *data, gsl_matrix *J);

typedef struct bg_fit_model {
  bg_fit_residual_fn f;
  bg_fit_jacobian_fn df;
  void *data;
  size_t n;  /* residuals (data points) */
  size_t np; /* parameters, at most BG_FIT_MAX_PARAMS */
} bg_fit_model;

/* the driver's stopping rule (gsl_multifit_nlinear_driver) */
typedef struct bg_fit_stop {
  size_t max_iter;
  double xtol, gtol, ftol;
} bg_fit_stop;

typedef struct bg_fit_result {
  double p[BG_FIT_MAX_PARAMS];
  double cov[BG_FIT_MAX_PARAMS][BG_FIT_MAX_PARAMS]; /* (J^T J)^-1, unscaled */
  double chi2;                                      /* sum of squared residuals */
  int dof;                                          /* n - np */
  int status;                                       /* the driver's GSL status */
} bg_fit_result;

/* Fits m from p0 (np values) under stop. */
bg_fit_result bg_fit_nlinear(const bg_fit_model *m, const double *p0, bg_fit_stop stop);

/* chi^2 / dof, NaN without degrees of freedom: the variance unit of data
 * whose errors are unknown, which the scatter about the fit sets */
double bg_fit_scatter(const bg_fit_result *r);

/* sqrt(scale cov_ii): parameter i's standard error */
double bg_fit_sigma(const bg_fit_result *r, int i, double scale);

/* y_i = y_inf + c h_i^p, parameters (y_inf, c, p) from the start p0[3],
 * stopped after 500 iterations or at tolerance 1e-12 */
bg_fit_result bg_fit_refine(const double *h, const double *y, size_t n, const double p0[3]);

typedef struct bg_fit_line_result {
  double c0, c1;            /* intercept, slope */
  double cov00, cov01, cov11; /* covariance, scaled by the scatter */
  double sumsq;             /* sum of squared residuals */
  int status;               /* gsl_fit_linear's */
} bg_fit_line_result;

/* y = c0 + c1 x through n points (x and y with stride 1) */
bg_fit_line_result bg_fit_line(const double *x, const double *y, size_t n);

/* The mean of n samples x[0], x[stride], ... of a correlated series and
 * the standard error of that mean from batch means: the samples cut into
 * `batches` consecutive batches (sizes differing by at most one), the
 * spread of the batch means over sqrt(batches). Batches longer than the
 * series' correlation make the error honest where the plain sd / sqrt(n)
 * would be too small. NaN for n < batches, or batches outside [2, 64]. */
double bg_batch_se(const double *x, size_t stride, size_t n, int batches, double *mean);

#endif /* BG_FIT_H */
