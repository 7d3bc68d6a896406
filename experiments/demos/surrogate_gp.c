/* surrogate_gp.c: one output's Gaussian process for demo_surrogate (see
 * surrogate_gp.h); the factorisations are GSL Cholesky, the likelihood's
 * optimum gsl_multimin_fminimizer_nmsimplex2 from three length scales. */
#include "surrogate_gp.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_lab.h"

static double xof(const gp *g, double phi) { return (phi - g->phi_lo) / (g->phi_hi - g->phi_lo); }

static double kern(const gp *g, double a, double b) {
  double d = (a - b) / g->ell;
  return g->s2 * exp(-0.5 * d * d);
}

/* Factorises K for the current s2, ell and computes the GLS mean; returns the
 * negative restricted log likelihood, or +inf when K or H^T K^-1 H is not
 * positive definite. */
static double gp_factor(gp *g) {
  int n = g->n;
  gsl_matrix_view Lv = gsl_matrix_submatrix(g->L, 0, 0, (size_t)n, (size_t)n);
  gsl_matrix *L = &Lv.matrix;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      gsl_matrix_set(L, (size_t)i, (size_t)j, kern(g, g->x[i], g->x[j]) + (i == j ? g->sn2 : 0));
  if (gsl_linalg_cholesky_decomp1(L) != GSL_SUCCESS) return INFINITY;
  gsl_matrix_view KiHv = gsl_matrix_submatrix(g->KiH, 0, 0, (size_t)n, 2);
  for (int i = 0; i < n; ++i) {
    gsl_matrix_set(&KiHv.matrix, (size_t)i, 0, 1.0);
    gsl_matrix_set(&KiHv.matrix, (size_t)i, 1, g->x[i]);
  }
  for (int k = 0; k < 2; ++k) {
    gsl_vector_view col = gsl_matrix_column(&KiHv.matrix, (size_t)k);
    gsl_linalg_cholesky_svx(L, &col.vector);
  }
  double yv[GP_MAX];
  memcpy(yv, g->y, sizeof(double) * (size_t)n);
  gsl_vector_view Kiy = gsl_vector_view_array(yv, (size_t)n);
  gsl_linalg_cholesky_svx(L, &Kiy.vector);
  double A[2][2] = {{0, 0}, {0, 0}}, b[2] = {0, 0};
  for (int i = 0; i < n; ++i) {
    double h[2] = {1.0, g->x[i]};
    for (int k = 0; k < 2; ++k) {
      b[k] += h[k] * yv[i];
      for (int l = 0; l < 2; ++l)
        A[k][l] += h[k] * gsl_matrix_get(&KiHv.matrix, (size_t)i, (size_t)l);
    }
  }
  double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
  if (!(det > 0)) return INFINITY;
  g->Ainv[0][0] = A[1][1] / det;
  g->Ainv[1][1] = A[0][0] / det;
  g->Ainv[0][1] = g->Ainv[1][0] = -A[0][1] / det;
  for (int k = 0; k < 2; ++k) g->beta[k] = g->Ainv[k][0] * b[0] + g->Ainv[k][1] * b[1];
  double quad = 0, logdet = 0;
  for (int i = 0; i < n; ++i) {
    double ri = g->y[i] - g->beta[0] - g->beta[1] * g->x[i];
    gsl_vector_set(g->alpha, (size_t)i, ri);
    logdet += 2 * log(gsl_matrix_get(L, (size_t)i, (size_t)i));
  }
  gsl_vector_view av = gsl_vector_subvector(g->alpha, 0, (size_t)n);
  double rv[GP_MAX];
  memcpy(rv, av.vector.data, sizeof(double) * (size_t)n);
  gsl_linalg_cholesky_svx(L, &av.vector);
  for (int i = 0; i < n; ++i) quad += rv[i] * gsl_vector_get(g->alpha, (size_t)i);
  return 0.5 * quad + 0.5 * logdet + 0.5 * log(det) + 0.5 * (n - 2) * log(2 * M_PI);
}

/* the search box of the hyperparameters, in standardised units */
#define LN_ELL_LO log(0.03)
#define LN_ELL_HI log(1.0)
#define LN_S2_LO log(1e-6)
#define LN_S2_HI log(1e3)

static double nll(const gsl_vector *t, void *vp) {
  gp *g = vp;
  double ls2 = gsl_vector_get(t, 0), lell = gsl_vector_get(t, 1);
  if (ls2 < LN_S2_LO || ls2 > LN_S2_HI || lell < LN_ELL_LO || lell > LN_ELL_HI) return 1e300;
  g->s2 = exp(ls2);
  g->ell = g->ell_fixed > 0 ? g->ell_fixed : exp(lell);
  double f = gp_factor(g);
  return isfinite(f) ? f : 1e300;
}

void gp_fit(gp *g, const double *phi, const double *y, int n, double sn, const char *name) {
  g->n = n;
  double ys[GP_MAX] = {0};
  for (int i = 0; i < n; ++i) ys[i] = y[i];
  g->ym = gsl_stats_mean(ys, 1, (size_t)n);
  g->ys = gsl_stats_sd(ys, 1, (size_t)n);
  if (!(g->ys > 0)) g->ys = sn > 0 ? sn : 1;
  for (int i = 0; i < n; ++i) {
    g->x[i] = xof(g, phi[i]);
    g->y[i] = (ys[i] - g->ym) / g->ys;
  }
  g->sn2 = (sn / g->ys) * (sn / g->ys);
  const gsl_multimin_fminimizer_type *T = gsl_multimin_fminimizer_nmsimplex2;
  gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(T, 2);
  gsl_vector *t = gsl_vector_alloc(2), *step = gsl_vector_alloc(2);
  gsl_multimin_function F = {nll, 2, g};
  double best = INFINITY, bt[2] = {0, log(0.3)};
  const double starts[3] = {0.1, 0.3, 1.0};
  for (int s = 0; s < 3; ++s) {
    gsl_vector_set(t, 0, 0.0);
    gsl_vector_set(t, 1, log(starts[s]));
    gsl_vector_set_all(step, 0.7);
    gsl_multimin_fminimizer_set(m, &F, t, step);
    for (int it = 0; it < 400; ++it) {
      if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS) break;
      if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-5) == GSL_SUCCESS) break;
    }
    if (m->fval < best) {
      best = m->fval;
      bt[0] = gsl_vector_get(m->x, 0);
      bt[1] = gsl_vector_get(m->x, 1);
    }
  }
  gsl_multimin_fminimizer_free(m);
  gsl_vector_free(t);
  gsl_vector_free(step);
  if (!(best < 1e299))
    bg_lab_fail("GP of %s: no hyperparameters with a positive-definite covariance", name);
  g->s2 = exp(bt[0]);
  g->ell = g->ell_fixed > 0 ? g->ell_fixed : exp(bt[1]);
  const double edge = 0.05;
  g->at_bound = (g->ell_fixed <= 0 && (bt[1] < LN_ELL_LO + edge || bt[1] > LN_ELL_HI - edge)) ||
                bt[0] < LN_S2_LO + edge || bt[0] > LN_S2_HI - edge;
  if (!isfinite(gp_factor(g)))
    bg_lab_fail("GP of %s: the covariance lost positive definiteness", name);
}

void gp_predict(const gp *g, double phi, double *mean, double *var) {
  int n = g->n;
  double xs = xof(g, phi), k[GP_MAX], v[GP_MAX];
  for (int i = 0; i < n; ++i) v[i] = k[i] = kern(g, xs, g->x[i]);
  gsl_vector_view vv = gsl_vector_view_array(v, (size_t)n);
  gsl_matrix_const_view Lv = gsl_matrix_const_submatrix(g->L, 0, 0, (size_t)n, (size_t)n);
  gsl_linalg_cholesky_svx(&Lv.matrix, &vv.vector);
  double mu = g->beta[0] + g->beta[1] * xs, kv = 0, R[2] = {1.0, xs};
  for (int i = 0; i < n; ++i) {
    mu += k[i] * gsl_vector_get(g->alpha, (size_t)i);
    kv += k[i] * v[i];
    R[0] -= gsl_matrix_get(g->KiH, (size_t)i, 0) * k[i];
    R[1] -= gsl_matrix_get(g->KiH, (size_t)i, 1) * k[i];
  }
  double va = g->s2 - kv;
  va += R[0] * (g->Ainv[0][0] * R[0] + g->Ainv[0][1] * R[1]) +
        R[1] * (g->Ainv[1][0] * R[0] + g->Ainv[1][1] * R[1]);
  if (va < 0) va = 0; /* round-off at a design point: the exact value is >= 0 */
  *mean = g->ym + g->ys * mu;
  *var = va * g->ys * g->ys;
}

gp *gp_new(double phi_lo, double phi_hi) {
  gp *g = calloc(1, sizeof *g);
  if (!g) bg_lab_fail("out of memory for a GP");
  g->phi_lo = phi_lo;
  g->phi_hi = phi_hi;
  g->L = gsl_matrix_alloc(GP_MAX, GP_MAX);
  g->KiH = gsl_matrix_alloc(GP_MAX, 2);
  g->alpha = gsl_vector_alloc(GP_MAX);
  return g;
}

void gp_free(gp *g) {
  gsl_matrix_free(g->L);
  gsl_matrix_free(g->KiH);
  gsl_vector_free(g->alpha);
  free(g);
}
