/* demo_surrogate.c: learn phi -> (pile height, runout) from simulations,
 * then invert a held-out measured deposit.
 *
 * The simulation: the collapse of a column of Drucker-Prager sand (aspect a,
 * radius R0, Coulomb floor), the same scene as demo_calibrate; its outputs
 * the central pile height h_c and the runout R (the extrapolated toe). Each
 * design run has its own seed (its own jittered lattice), so the outputs
 * carry independent run-to-run noise.
 *
 * The surrogate: one Gaussian process per output, on x = the angle scaled to
 * [0, 1] over the range, with a linear mean (its two coefficients by
 * generalised least squares inside the likelihood, their uncertainty carried
 * into the prediction), a squared-exponential kernel s^2 exp(-dx^2 / 2 l^2)
 * and white noise sigma_n^2. sigma_n is measured, not fitted: the first
 * interior design point is run K times with other seeds and sigma_n is the
 * sample standard deviation of those runs. s and l maximise the restricted
 * likelihood (gsl_multimin_fminimizer_nmsimplex2 on ln s, ln l, from three
 * starting length scales); the factorisations are GSL Cholesky. l is
 * searched up to the range's width: a smooth map on a few points cannot tell
 * a longer scale from the linear mean, and the likelihood then runs to the
 * edge (recorded as hyper_at_bound). Whether the inverse hangs on l is
 * measured: the final design refitted with each l halved.
 *
 * The inverse: the measured deposit (phi_true, its own seed, each output
 * read with the instrument's Gaussian noise sigma_m, --meas-sd) has the
 * posterior p(phi | y) on a 0.01 deg grid, uniform prior over the range,
 * likelihood the product over outputs of N(y_j; mu_j(phi), var_j(phi) +
 * sigma_n,j^2 + sigma_m^2): the surrogate's own variance, the realisation
 * noise of the deposit's run and the instrument. Estimate: the posterior
 * mean; interval: mean +- 2 sd.
 *
 * Active design: after the initial design, each next run goes where the
 * surrogate is least certain relative to the noise, r(phi) = sum_j var_j /
 * (sigma_n,j^2 + sigma_m^2), weighted by the posterior: the maximum of
 * r p(phi | y) over the posterior's 2-sd window. The loop stops when the posterior's 2 sd is at
 * most --target (the stated tolerance) and that ratio is at most 1/4 everywhere in the window (the
 * surrogate adds at most ~12% to the width), or at --max-sims.
 *
 * Comparison: the same count of runs on a fixed uniform design over the
 * range, its own GP and inverse (the seed's design is a fixed set).
 *
 * Claims: demo.surrogate.coverage = |phi_est - phi_true| / 2 sd <= 1;
 * demo.surrogate.error = |phi_est - phi_true| within the stated tolerance;
 * demo.surrogate.certain = 2 sd at the stop within the same tolerance. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"

#define MAX_SIM 96
#define NOUT 2
#define RATIO_STOP 0.25
#define DPHI_GRID 0.01

static const char *const out_name[NOUT] = {"h_center", "runout"};

typedef struct run {
  double phi, y[NOUT];
  unsigned long seed;
  const char *role;
} run;

/* One output's GP on standardised data (x in [0, 1], y - mean over sd). */
typedef struct gp {
  int n;
  double x[MAX_SIM], y[MAX_SIM];
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

typedef struct post {
  double mean, sd, map, lo95, hi95;
  double ratio_max; /* max over the 2-sd window of sum_j var_j / noise_j */
  double next_phi;  /* where that ratio times the posterior is largest */
} post;

typedef struct ctx {
  bg_lab *lab;
  bg_column_scene base;
  double phi_lo, phi_hi;
  run r[MAX_SIM];
  int n;
  int max_sims;
} ctx;

static double xof(const ctx *c, double phi) { return (phi - c->phi_lo) / (c->phi_hi - c->phi_lo); }

static run simulate(ctx *c, double phi, unsigned long seed, double mu_floor, const char *role) {
  bg_column_scene sc = c->base;
  sc.phi = phi;
  sc.material.dp.phi_deg = (bg_real)phi;
  sc.seed = seed;
  sc.mu = mu_floor;
  char tag[80];
  snprintf(tag, sizeof tag, "sim %d (%s, phi %.3f)", c->n + 1, role, phi);
  bg_column_result res = bg_column_run(c->lab, &sc, tag);
  bg_lab_add_work(c->lab, (double)res.n_particles * (double)res.steps);
  if (res.runout_wall)
    bg_lab_fail("%s: the deposit reached the domain's far wall: raise --domain", tag);
  if (!res.settled)
    bg_lab_progress(c->lab,
                    "%s: did not settle within t_max (kinetic energy %.3g of the threshold)", tag,
                    res.ke_end / res.ke_thresh);
  run o = {phi, {res.h_center, res.front}, seed, role};
  bg_column_result_free(&res);
  bg_lab_progress(c->lab, "sim %d (%s): phi %.3f deg: pile height %.2f mm, runout %.2f mm",
                  c->n + 1, role, phi, o.y[0] * 1e3, o.y[1] * 1e3);
  return o;
}

static void add_run(ctx *c, run o) {
  if (c->n >= MAX_SIM) bg_lab_fail("more than %d simulations", MAX_SIM);
  c->r[c->n++] = o;
}

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
  double yv[MAX_SIM];
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
  double rv[MAX_SIM];
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

/* Builds the GP of output j over runs[0..n) with noise sd sn (in the
 * output's units); hyperparameters by maximum restricted likelihood, or ell
 * held at ell_fixed > 0. */
static void gp_fit(gp *g, const ctx *c, const run *runs, int n, int j, double sn) {
  g->n = n;
  double ys[MAX_SIM] = {0};
  for (int i = 0; i < n; ++i) ys[i] = runs[i].y[j];
  g->ym = gsl_stats_mean(ys, 1, (size_t)n);
  g->ys = gsl_stats_sd(ys, 1, (size_t)n);
  if (!(g->ys > 0)) g->ys = sn > 0 ? sn : 1;
  for (int i = 0; i < n; ++i) {
    g->x[i] = xof(c, runs[i].phi);
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
    bg_lab_fail("GP of %s: no hyperparameters with a positive-definite covariance", out_name[j]);
  g->s2 = exp(bt[0]);
  g->ell = g->ell_fixed > 0 ? g->ell_fixed : exp(bt[1]);
  const double edge = 0.05;
  g->at_bound = (g->ell_fixed <= 0 && (bt[1] < LN_ELL_LO + edge || bt[1] > LN_ELL_HI - edge)) ||
                bt[0] < LN_S2_LO + edge || bt[0] > LN_S2_HI - edge;
  if (!isfinite(gp_factor(g)))
    bg_lab_fail("GP of %s: the covariance lost positive definiteness", out_name[j]);
}

/* Latent mean and variance at phi, in the output's units. */
static void gp_predict(const gp *g, const ctx *c, double phi, double *mean, double *var) {
  int n = g->n;
  double xs = xof(c, phi), k[MAX_SIM], v[MAX_SIM];
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

static gp *gp_new(void) {
  gp *g = calloc(1, sizeof *g);
  if (!g) bg_lab_fail("out of memory for a GP");
  g->L = gsl_matrix_alloc(MAX_SIM, MAX_SIM);
  g->KiH = gsl_matrix_alloc(MAX_SIM, 2);
  g->alpha = gsl_vector_alloc(MAX_SIM);
  return g;
}

static void gp_free(gp *g) {
  gsl_matrix_free(g->L);
  gsl_matrix_free(g->KiH);
  gsl_vector_free(g->alpha);
  free(g);
}

/* The posterior over phi on the grid, given the observation yobs, the GPs,
 * the run noise sn[j] and the instrument's sm; dens (ngrid) receives the
 * density per degree when not NULL. noise_ignored: the likelihood with the
 * surrogate's variance alone. */
static post invert(const ctx *c, gp *const g[NOUT], const double *yobs, const double *sn, double sm,
                   int noise_ignored, double *dens) {
  int ng = (int)lround((c->phi_hi - c->phi_lo) / DPHI_GRID) + 1;
  double *lw = malloc(sizeof(double) * (size_t)ng), *ratio = malloc(sizeof(double) * (size_t)ng);
  if (!lw || !ratio) bg_lab_fail("out of memory for the posterior grid");
  double lmax = -INFINITY;
  for (int i = 0; i < ng; ++i) {
    double phi = c->phi_lo + i * DPHI_GRID, l = 0, rs = 0;
    for (int j = 0; j < NOUT; ++j) {
      double mu, var;
      gp_predict(g[j], c, phi, &mu, &var);
      double noise = sn[j] * sn[j] + sm * sm, v = var + (noise_ignored ? 0 : noise);
      if (!(v > 0)) v = 1e-30; /* a noise-free surrogate at a design point */
      double d = yobs[j] - mu;
      l += -0.5 * d * d / v - 0.5 * log(v);
      rs += var / noise;
    }
    lw[i] = l;
    ratio[i] = rs;
    if (l > lmax) lmax = l;
  }
  double Z = 0, m1 = 0, m2 = 0, best = -INFINITY;
  post p;
  memset(&p, 0, sizeof p);
  for (int i = 0; i < ng; ++i) {
    double phi = c->phi_lo + i * DPHI_GRID, w = exp(lw[i] - lmax);
    lw[i] = w;
    Z += w;
    m1 += w * phi;
    m2 += w * phi * phi;
    if (w > best) {
      best = w;
      p.map = phi;
    }
  }
  p.mean = m1 / Z;
  p.sd = sqrt(fmax(m2 / Z - p.mean * p.mean, 0));
  double cum = 0;
  p.lo95 = c->phi_lo;
  p.hi95 = c->phi_hi;
  int lo_set = 0, hi_set = 0;
  for (int i = 0; i < ng; ++i) {
    cum += lw[i] / Z;
    if (!lo_set && cum >= 0.025) {
      p.lo95 = c->phi_lo + i * DPHI_GRID;
      lo_set = 1;
    }
    if (!hi_set && cum >= 0.975) {
      p.hi95 = c->phi_lo + i * DPHI_GRID;
      hi_set = 1;
    }
    if (dens) dens[i] = lw[i] / (Z * DPHI_GRID);
  }
  p.ratio_max = -1;
  p.next_phi = p.mean;
  double acq_max = -1;
  for (int i = 0; i < ng; ++i) {
    double phi = c->phi_lo + i * DPHI_GRID;
    if (fabs(phi - p.mean) > 2 * p.sd + 0.5 * DPHI_GRID) continue;
    if (ratio[i] > p.ratio_max) p.ratio_max = ratio[i];
    if (ratio[i] * lw[i] > acq_max) { /* uncertain where the posterior holds mass */
      acq_max = ratio[i] * lw[i];
      p.next_phi = phi;
    }
  }
  free(lw);
  free(ratio);
  return p;
}

static void fit_all(gp *g[NOUT], const ctx *c, const run *runs, int n, const double *sn) {
  for (int j = 0; j < NOUT; ++j) gp_fit(g[j], c, runs, n, j, sn[j]);
}

static const char *const surrogate_mutants[] = {"noise-ignored", "scanner-coarse", "floor-mu-wrong",
                                                NULL};

int main(int argc, char **argv) {
  double phi_true = 32.4, phi_lo = 20, phi_hi = 45, aspect = 2, R0 = 0.05, mu_floor = 0.6,
         jitter = 0.5, meas_sd = 0.2e-3, target = 0, t_max = 6, domain = 5.5;
  int cells = 0, n_init = 4, reps = 3, max_sims = 24;
  bg_lab_param params[] = {
      {"phi-true", BG_PARAM_DOUBLE, &phi_true, 20, 45, "the held-out deposit's friction angle, deg",
       0, NULL, NULL, "phi_true_deg"},
      {"phi-lo", BG_PARAM_DOUBLE, &phi_lo, 10, 60, "lower end of the design range, deg", 0, NULL,
       NULL, "phi_lo_deg"},
      {"phi-hi", BG_PARAM_DOUBLE, &phi_hi, 10, 60, "upper end of the design range, deg", 0, NULL,
       NULL, "phi_hi_deg"},
      {"aspect", BG_PARAM_DOUBLE, &aspect, 0.25, 12, "column aspect ratio H0 / R0", 0, NULL, NULL,
       NULL},
      {"radius", BG_PARAM_DOUBLE, &R0, 0.01, 0.5, "column radius R0, m", 0, NULL, NULL, "radius_m"},
      {"cells", BG_PARAM_INT, &cells, 4, 256, "cells per R0", 0, "8", "24", "cells_per_R0"},
      {"mu-floor", BG_PARAM_DOUBLE, &mu_floor, 0.05, 5,
       "floor Coulomb coefficient (the deposit's and the model's)", 0, NULL, NULL, NULL},
      {"domain", BG_PARAM_DOUBLE, &domain, 2, 20, "quarter-domain extent, in R0", 0, NULL, NULL,
       "domain_over_R0"},
      {"jitter", BG_PARAM_DOUBLE, &jitter, 0, 1, "lattice jitter, fraction of the particle spacing",
       0, NULL, NULL, NULL},
      {"meas-sd", BG_PARAM_DOUBLE, &meas_sd, 0, 0.05,
       "the instrument's Gaussian noise on each measured output, m", 0, NULL, NULL, "meas_sd_m"},
      {"target", BG_PARAM_DOUBLE, &target, 0.01, 10,
       "the stated tolerance: the loop stops when the inverse's 2 sd is below it, deg", 0, "0.3",
       "0.25", "target_2sd_deg"},
      {"initial", BG_PARAM_INT, &n_init, 3, 16, "initial design points, uniform over the range", 0,
       NULL, NULL, "initial_points"},
      {"replicates", BG_PARAM_INT, &reps, 2, 16,
       "extra runs (other seeds) at the first interior design point, "
       "for the noise",
       0, NULL, NULL, NULL},
      {"max-sims", BG_PARAM_INT, &max_sims, 6, MAX_SIM / 2 - 1,
       "most design simulations (initial, replicates, "
       "active)",
       0, NULL, NULL, NULL},
      {"t-max", BG_PARAM_DOUBLE, &t_max, 0.1, 30, "maximum simulated time per run, s", 0, NULL,
       NULL, "t_max_s"},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab *lab = bg_lab_init(
      "demo_surrogate",
      "Surrogate: a Gaussian process learns phi -> (pile height, runout) from collapse runs "
      "placed where it is least certain, and inverts a held-out deposit with its 2-sigma "
      "interval.",
      argc, argv, params, np, surrogate_mutants);
  if (phi_lo >= phi_hi) {
    fprintf(stderr, "error: --phi-lo %g must be below --phi-hi %g\n", phi_lo, phi_hi);
    return 2;
  }
  if (phi_true <= phi_lo || phi_true >= phi_hi) {
    fprintf(stderr, "error: --phi-true %g must lie inside the design range (%g, %g)\n", phi_true,
            phi_lo, phi_hi);
    return 2;
  }
  if (n_init + reps > max_sims) {
    fprintf(stderr, "error: --max-sims %d must hold the %d initial points and %d replicates\n",
            max_sims, n_init, reps);
    return 2;
  }
  if (bg_lab_material_model(lab) != BG_MODEL_DP) {
    fprintf(stderr, "error: --material %s: the demo learns Drucker-Prager's friction angle\n",
            bg_lab_material_name(lab));
    return 2;
  }
  gsl_set_error_handler_off();
  const double mu_model = bg_lab_mutant_is(lab, "floor-mu-wrong") ? 0.5 * mu_floor : mu_floor;
  ctx c;
  memset(&c, 0, sizeof c);
  c.lab = lab;
  c.phi_lo = phi_lo;
  c.phi_hi = phi_hi;
  c.max_sims = max_sims;
  bg_column_scene base = bg_column_scene_default();
  base.R0 = R0;
  base.aspect = aspect;
  base.material = bg_lab_material(lab);
  base.L_over_R0 = domain;
  base.t_max_s = t_max;
  base.jitter = jitter;
  base.cells = cells;
  base.mu = mu_model; /* on the default Coulomb floor, settle rule and runout threshold */
  base.backend = bg_lab_backend(lab);
  base.threads = bg_lab_threads(lab);
  base.seed = bg_lab_seed(lab);
  c.base = base;
  bg_lab_manifest_material(lab, &base.material);
  bg_lab_manifest_num(lab, "mu_floor_model", mu_model);
  bg_lab_manifest_str(lab, "surrogate",
                      "Gaussian process per output: SE kernel, linear GLS mean, noise measured "
                      "from replicates; hyperparameters by restricted likelihood "
                      "(gsl_multimin_fminimizer_nmsimplex2), GSL Cholesky");

  /* 1. the held-out measured deposit: its own seed and the instrument */
  const unsigned long seed_meas = bg_lab_seed(lab) * 1000003ul + 29ul;
  run truth = simulate(&c, phi_true, seed_meas, mu_floor, "measured deposit");
  double yobs[NOUT];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed_meas + 11ul);
  for (int j = 0; j < NOUT; ++j) yobs[j] = truth.y[j] + gsl_ran_gaussian(rng, meas_sd);
  gsl_rng_free(rng);

  /* 2. the initial design and the replicates that measure the run noise */
  unsigned long next_seed = base.seed;
  for (int i = 0; i < n_init; ++i) {
    double phi = phi_lo + (phi_hi - phi_lo) * i / (n_init - 1);
    add_run(&c, simulate(&c, phi, next_seed++, mu_model, "initial"));
  }
  const double phi_rep = c.r[1].phi;
  double rep_y[NOUT][17];
  for (int j = 0; j < NOUT; ++j) rep_y[j][0] = c.r[1].y[j];
  for (int k = 1; k <= reps; ++k) {
    run o = simulate(&c, phi_rep, next_seed++, mu_model, "replicate");
    add_run(&c, o);
    for (int j = 0; j < NOUT; ++j) rep_y[j][k] = o.y[j];
  }
  double sn[NOUT];
  for (int j = 0; j < NOUT; ++j) sn[j] = gsl_stats_sd(rep_y[j], 1, (size_t)reps + 1);
  bg_lab_progress(lab,
                  "run noise at phi %.3f deg from %d runs: pile height %.3f mm, runout %.3f mm",
                  phi_rep, reps + 1, sn[0] * 1e3, sn[1] * 1e3);

  /* 3. the active loop */
  gp *g[NOUT];
  for (int j = 0; j < NOUT; ++j) g[j] = gp_new();
  FILE *fi = bg_lab_tsv(
      lab, "iterations.tsv",
      "the active loop: after each design run, the GPs' hyperparameters (ell in degrees, s in the "
      "output's units) and the inverse; ratio_max: the largest surrogate-to-noise variance ratio "
      "in the posterior's 2-sd window, next_phi where it lies",
      "sims\tell_h_deg\ts_h_m\tell_R_deg\ts_R_m\tphi_mean_deg\ttwo_sd_deg\tratio_max\tnext_phi_"
      "deg");
  post p;
  int certain = 0;
  for (;;) {
    fit_all(g, &c, c.r, c.n, sn);
    p = invert(&c, g, yobs, sn, meas_sd, 0, NULL);
    fprintf(fi, "%d\t%.5g\t%.5g\t%.5g\t%.5g\t%.5f\t%.5f\t%.5g\t%.3f\n", c.n,
            g[0]->ell * (phi_hi - phi_lo), sqrt(g[0]->s2) * g[0]->ys, g[1]->ell * (phi_hi - phi_lo),
            sqrt(g[1]->s2) * g[1]->ys, p.mean, 2 * p.sd, p.ratio_max, p.next_phi);
    bg_lab_progress(
        lab,
        "%d sims: phi %.3f +- %.3f deg (2 sd), surrogate/noise variance up to %.3g, next at %.2f",
        c.n, p.mean, 2 * p.sd, p.ratio_max, p.next_phi);
    certain = 2 * p.sd <= target && p.ratio_max <= RATIO_STOP;
    if (certain || c.n >= max_sims) break;
    add_run(&c, simulate(&c, p.next_phi, next_seed++, mu_model, "active"));
  }
  fclose(fi);
  const int n_design = c.n;
  if (!certain)
    bg_lab_progress(
        lab,
        "the loop used its %d simulations (--max-sims) before the inverse was certain to %.3g deg",
        max_sims, target);
  const double err = p.mean - phi_true;
  /* a posterior against an end of the range: the deposit lies at or beyond
   * it for this model, which the interval (cut by the prior) understates */
  const int at_edge =
      p.mean - 2 * p.sd <= phi_lo + DPHI_GRID || p.mean + 2 * p.sd >= phi_hi - DPHI_GRID;
  if (at_edge)
    bg_lab_progress(
        lab,
        "the posterior's 2-sd interval reaches an end of the range [%g, %g] deg: the model matches "
        "this deposit only at or beyond it",
        phi_lo, phi_hi);
  /* the same inverse on this run's surrogate, had the instrument been ten times noisier */
  post p10 = invert(&c, g, yobs, sn, 10 * meas_sd, 0, NULL);
  /* and had the inverse ignored the run and instrument noise (the surrogate's variance alone) */
  post pni = invert(&c, g, yobs, sn, meas_sd, 1, NULL);
  /* identifiability: the same data with each length scale held at half its
   * likelihood optimum (s refitted); the inverse should not move by much of
   * its own sd if the answer does not hang on l */
  gp *gh[NOUT];
  for (int j = 0; j < NOUT; ++j) {
    gh[j] = gp_new();
    gh[j]->ell_fixed = 0.5 * g[j]->ell;
    gp_fit(gh[j], &c, c.r, n_design, j, sn[j]);
  }
  post ph = invert(&c, gh, yobs, sn, meas_sd, 0, NULL);
  bg_lab_progress(
      lab,
      "with each l halved the inverse reads %.3f +- %.3f deg (shift %+.3f deg, %.2f of its sd)",
      ph.mean, 2 * ph.sd, ph.mean - p.mean, (ph.mean - p.mean) / p.sd);

  /* 4. the comparison: a fixed uniform design of the same count */
  int have_uniform = bg_lab_mutant(lab) == NULL;
  post pu;
  memset(&pu, 0, sizeof pu);
  int ng = (int)lround((phi_hi - phi_lo) / DPHI_GRID) + 1;
  double *dens = calloc((size_t)ng, sizeof *dens), *dens_u = calloc((size_t)ng, sizeof *dens_u);
  if (!dens || !dens_u) bg_lab_fail("out of memory for the posterior grid");
  invert(&c, g, yobs, sn, meas_sd, 0, dens);
  gp *gu[NOUT];
  for (int j = 0; j < NOUT; ++j) gu[j] = gp_new();
  if (have_uniform) {
    for (int i = 0; i < n_design; ++i) {
      double phi = phi_lo + (phi_hi - phi_lo) * i / (n_design - 1);
      add_run(&c, simulate(&c, phi, next_seed++, mu_model, "uniform"));
    }
    fit_all(gu, &c, c.r + n_design, n_design, sn);
    pu = invert(&c, gu, yobs, sn, meas_sd, 0, dens_u);
  }

  /* 5. outputs */
  FILE *fd = bg_lab_tsv(
      lab, "design.tsv",
      "every simulation: the held-out deposit (true outputs and as measured), the active design "
      "(initial, replicate, active) and the uniform comparison design",
      "sim\trole\tphi_deg\tseed\th_center_m\trunout_m");
  fprintf(fd, "0\tmeasured_true\t%.6f\t%lu\t%.6g\t%.6g\n", phi_true, seed_meas, truth.y[0],
          truth.y[1]);
  fprintf(fd, "0\tmeasured\tnan\t%lu\t%.6g\t%.6g\n", seed_meas, yobs[0], yobs[1]);
  for (int i = 0; i < c.n; ++i)
    fprintf(fd, "%d\t%s\t%.6f\t%lu\t%.6g\t%.6g\n", i + 1, c.r[i].role, c.r[i].phi, c.r[i].seed,
            c.r[i].y[0], c.r[i].y[1]);
  fclose(fd);
  FILE *fs = bg_lab_tsv(
      lab, "surrogate.tsv",
      "the surrogates over the range: latent mean and sd of each output (active design; _u the "
      "uniform design's), and the posterior density of phi given the measured deposit",
      "phi_deg\th_mean_m\th_sd_m\tR_mean_m\tR_sd_m\tposterior_per_deg\th_mean_u_m\th_sd_u_m\t"
      "R_mean_u_m\tR_sd_u_m\tposterior_u_per_deg");
  for (int i = 0; i < ng; ++i) {
    double phi = phi_lo + i * DPHI_GRID, m[NOUT], v[NOUT], mu[NOUT] = {NAN, NAN},
           vu[NOUT] = {NAN, NAN};
    for (int j = 0; j < NOUT; ++j) {
      gp_predict(g[j], &c, phi, &m[j], &v[j]);
      if (have_uniform) gp_predict(gu[j], &c, phi, &mu[j], &vu[j]);
    }
    fprintf(fs, "%.4f\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", phi, m[0],
            sqrt(v[0]), m[1], sqrt(v[1]), dens[i], mu[0], sqrt(vu[0]), mu[1], sqrt(vu[1]),
            have_uniform ? dens_u[i] : NAN);
  }
  fclose(fs);
  FILE *fm = bg_lab_tsv(lab, "summary.tsv",
                        "the inverse, its interval, the noise and the simulation counts",
                        "quantity\tvalue\tunit");
  fprintf(fm, "phi_true\t%.6g\tdeg\n", phi_true);
  fprintf(fm, "phi_estimate\t%.6g\tdeg\n", p.mean);
  fprintf(fm, "phi_map\t%.6g\tdeg\n", p.map);
  fprintf(fm, "error\t%.6g\tdeg\n", err);
  fprintf(fm, "two_sd\t%.6g\tdeg\n", 2 * p.sd);
  fprintf(fm, "interval95_lo\t%.6g\tdeg\n", p.lo95);
  fprintf(fm, "interval95_hi\t%.6g\tdeg\n", p.hi95);
  fprintf(fm, "target_two_sd\t%.6g\tdeg\n", target);
  fprintf(fm, "certain\t%d\t1\n", certain);
  fprintf(fm, "posterior_at_range_end\t%d\t1\n", at_edge);
  fprintf(fm, "ratio_max\t%.6g\t1\n", p.ratio_max);
  fprintf(fm, "simulations_design\t%d\t1\n", n_design);
  fprintf(fm, "simulations_active\t%d\t1\n", n_design - n_init - reps);
  fprintf(fm, "simulations_total\t%d\t1\n", c.n + 1);
  for (int j = 0; j < NOUT; ++j) {
    fprintf(fm, "sigma_run_%s\t%.6g\tm\n", out_name[j], sn[j]);
    fprintf(fm, "ell_%s\t%.6g\tdeg\n", out_name[j], g[j]->ell * (phi_hi - phi_lo));
    fprintf(fm, "s_%s\t%.6g\tm\n", out_name[j], sqrt(g[j]->s2) * g[j]->ys);
    fprintf(fm, "hyper_at_bound_%s\t%d\t1\n", out_name[j], g[j]->at_bound);
    fprintf(fm, "measured_%s\t%.6g\tm\n", out_name[j], yobs[j]);
  }
  fprintf(fm, "sigma_meas\t%.6g\tm\n", meas_sd);
  fprintf(fm, "two_sd_scanner_x10\t%.6g\tdeg\n", 2 * p10.sd);
  fprintf(fm, "ell_half_phi_shift\t%.6g\tdeg\n", ph.mean - p.mean);
  fprintf(fm, "ell_half_two_sd\t%.6g\tdeg\n", 2 * ph.sd);
  fprintf(fm, "noise_ignored_phi_estimate\t%.6g\tdeg\n", pni.mean);
  fprintf(fm, "noise_ignored_two_sd\t%.6g\tdeg\n", 2 * pni.sd);
  if (have_uniform) {
    fprintf(fm, "uniform_phi_estimate\t%.6g\tdeg\n", pu.mean);
    fprintf(fm, "uniform_error\t%.6g\tdeg\n", pu.mean - phi_true);
    fprintf(fm, "uniform_two_sd\t%.6g\tdeg\n", 2 * pu.sd);
    fprintf(fm, "uniform_ratio_max\t%.6g\t1\n", pu.ratio_max);
  }
  fclose(fm);
  bg_lab_manifest_num(lab, "phi_estimate_deg", p.mean);
  bg_lab_manifest_num(lab, "simulations_design", n_design);
  bg_lab_progress(lab,
                  "inverse: %.3f deg (true %.3f): error %+.3f, 2 sd %.3f deg; %d design "
                  "simulations (%d active)",
                  p.mean, phi_true, err, 2 * p.sd, n_design, n_design - n_init - reps);
  if (have_uniform)
    bg_lab_progress(lab, "uniform design of %d: %.3f deg, error %+.3f, 2 sd %.3f deg", n_design,
                    pu.mean, pu.mean - phi_true, 2 * pu.sd);
  bg_lab_claim(lab, "demo.surrogate.coverage", fabs(err) / (2 * p.sd));
  bg_lab_claim_mutant(lab, "noise-ignored", "demo.surrogate.coverage",
                      fabs(pni.mean - phi_true) / (2 * pni.sd));
  bg_lab_claim(lab, "demo.surrogate.error", fabs(err));
  bg_lab_claim(lab, "demo.surrogate.certain", certain ? 2 * p.sd : NAN);
  bg_lab_claim_mutant(lab, "scanner-coarse", "demo.surrogate.certain", 2 * p10.sd);
  for (int j = 0; j < NOUT; ++j) {
    gp_free(g[j]);
    gp_free(gu[j]);
    gp_free(gh[j]);
  }
  free(dens);
  free(dens_u);
  return bg_lab_finish(lab);
}
