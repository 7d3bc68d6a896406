/* surrogate_gp.h: one output's Gaussian process over an angle range, for
 * demo_surrogate: a squared-exponential kernel, a linear mean by generalised
 * least squares, white noise of a given sd, hyperparameters by maximum
 * restricted likelihood. */
#ifndef SURROGATE_GP_H
#define SURROGATE_GP_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#define GP_MAX 96 /* design points a GP holds */

/* On standardised data: x the angle scaled to [0, 1] over [phi_lo, phi_hi],
 * y minus its mean over its sd. */
typedef struct gp {
  double phi_lo, phi_hi; /* the range x is scaled over */
  int n;
  double x[GP_MAX], y[GP_MAX];
  double ym, ys;     /* standardisation */
  double sn2;        /* noise variance, standardised */
  double s2, ell;    /* kernel variance (standardised) and length (in x) */
  gsl_matrix *L;     /* Cholesky factor of K */
  gsl_vector *alpha; /* K^-1 (y - H beta) */
  gsl_matrix *KiH;   /* K^-1 H, n x 2 */
  double beta[2];    /* the linear mean's coefficients */
  double Ainv[2][2]; /* (H^T K^-1 H)^-1 */
  int at_bound;      /* the likelihood's optimum lay on the search box's edge */
  double ell_fixed;  /* > 0: ell held here, s alone by the likelihood */
} gp;

/* A GP over [phi_lo, phi_hi]; fails the run when out of memory. */
gp *gp_new(double phi_lo, double phi_hi);
void gp_free(gp *g);

/* Fits the GP to the n points (phi[i], y[i]) with noise sd sn (in y's
 * units); hyperparameters by maximum restricted likelihood, or ell held at
 * g->ell_fixed > 0. name says which output in a failure's message. */
void gp_fit(gp *g, const double *phi, const double *y, int n, double sn, const char *name);

/* Latent mean and variance at phi, in y's units. */
void gp_predict(const gp *g, double phi, double *mean, double *var);

#endif
