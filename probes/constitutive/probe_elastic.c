/* probe_elastic.c: one element of the elastic model (bg_mat_elastic.h) in
 * uniaxial stress, through the library's scalar update (bg_material_update
 * on the coefficients bg_material_params derives, the oracle both backends
 * run), against the hyperelastic closed forms of
 * references/derivations/elastic.md evaluated in double.
 *
 * F = diag(s, t, t): s is imposed along x, and the lateral stretch t is the
 * root (GSL Brent) of the lateral Kirchhoff stress, once through the
 * library (float) and once through the closed form (double). In uniaxial
 * stress the axial Kirchhoff stress is then, with J = s t^2,
 *   neo-Hookean:     tau_xx = mu (s^2 - t^2),   0 = mu (t^2 - 1) + lambda ln J;
 *   fixed corotated: tau_xx = 2 mu (s (s - 1) - t (t - 1)),
 *                    0 = 2 mu t (t - 1) + lambda (J - 1) J.
 * The claim is the largest |tau_xx(library) - tau_xx(closed form)| / E over
 * stretches 0.6 to 1.6. */
#include "probe_elastic.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>

#include "bg_materials.h"

/* The imposed axial stretches: compression to 0.6 and extension to 1.6,
 * well into the range where the two laws and their small-strain limit
 * part. */
#define N_STRETCH 21
#define S_LO 0.6
#define S_HI 1.6

typedef struct uniaxial {
  const bg_mat *m;   /* the library's coefficients */
  double mu, lambda; /* the closed form's, from the fed E and nu in double */
  int law;           /* bg_elastic_law */
  int log_j_linear;  /* the mutant nh-log-j-linear: lambda ln J as lambda (J - 1) */
  double s;
} uniaxial;

/* The library's Kirchhoff stress of F = diag(s, t, t). */
static bg_mat3 library_tau(const uniaxial *u, double t) {
  bg_mat3 F = bg_mat3_identity(), C = bg_mat3_zero(), tau;
  F.m[0][0] = (bg_real)u->s;
  F.m[1][1] = F.m[2][2] = (bg_real)t;
  bg_real st[BG_NSTATE] = {0, 0, 0, 0};
  bg_update_ctx ctx = {&F, &C, 1e-4f, st, &tau};
  bg_material_update(u->m, &ctx);
  return tau;
}

static double library_lateral(double t, void *p) {
  bg_mat3 tau = library_tau(p, t);
  return 0.5 * ((double)tau.m[1][1] + tau.m[2][2]);
}

/* The closed form's lateral and axial Kirchhoff stresses. */
static double closed_lateral(double t, void *p) {
  const uniaxial *u = p;
  double J = u->s * t * t;
  if (u->law == BG_ELASTIC_NEO_HOOKEAN)
    return u->mu * (t * t - 1.0) + u->lambda * (u->log_j_linear ? J - 1.0 : log(J));
  return 2.0 * u->mu * t * (t - 1.0) + u->lambda * (J - 1.0) * J;
}

static double closed_axial(const uniaxial *u, double t) {
  if (u->law == BG_ELASTIC_NEO_HOOKEAN) return u->mu * (u->s * u->s - t * t);
  return 2.0 * u->mu * (u->s * (u->s - 1.0) - t * (t - 1.0));
}

/* The root of f in t, bracketed around 1 (the lateral stretch of a
 * uniaxial stretch s lies between s^(-1/2) and 1). */
static double lateral_root(gsl_root_fsolver *solver, double (*f)(double, void *), uniaxial *u,
                           double tol) {
  gsl_function fn = {f, u};
  double a = 0.3, b = 1.7;
  if (f(a, u) * f(b, u) > 0)
    bg_lab_fail("elastic probe: no lateral stretch in [%g, %g] at s = %g", a, b, u->s);
  gsl_root_fsolver_set(solver, &fn, a, b);
  for (int it = 0; it < 200; ++it) {
    gsl_root_fsolver_iterate(solver);
    a = gsl_root_fsolver_x_lower(solver);
    b = gsl_root_fsolver_x_upper(solver);
    if (gsl_root_test_interval(a, b, tol, 0) == GSL_SUCCESS) break;
  }
  return gsl_root_fsolver_root(solver);
}

/* One law over the stretches, rows into f; returns max |error| / E, and
 * in *mutant the same against the neo-Hookean closed form with lambda
 * (J - 1) for lambda ln J (the measurement mutant nh-log-j-linear). */
static double uniaxial_law(bg_lab *lab, FILE *f, gsl_root_fsolver *solver, int law,
                           double *mutant) {
  bg_material mm = bg_material_default(BG_MODEL_ELASTIC);
  mm.elastic.law = (bg_elastic_law)law;
  bg_mat m;
  char err[512];
  if (bg_material_params(&mm, &m, err, sizeof err) != BG_OK) bg_lab_fail("material: %s", err);
  /* the closed form's constants from the fed E and nu, in double */
  const double E = mm.E, nu = mm.nu;
  uniaxial u = {&m, E / (2.0 * (1.0 + nu)), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), law, 0, 1.0};
  /* the model mutant: the library's update with mu and lambda exchanged */
  if (bg_lab_mutant_is(lab, "lame-swapped")) {
    bg_real t = m.el.lame.mu;
    m.el.lame.mu = m.el.lame.lambda;
    m.el.lame.lambda = t;
  }
  const char *name = law == BG_ELASTIC_NEO_HOOKEAN ? "neo-hookean" : "fixed-corotated";
  double max_err = 0;
  *mutant = 0;
  for (int k = 0; k < N_STRETCH; ++k) {
    u.s = S_LO + (S_HI - S_LO) * k / (N_STRETCH - 1);
    /* float's resolution of t near 1 is ~6e-8: a finer bracket is noise */
    double t_lib = lateral_root(solver, library_lateral, &u, 1e-7);
    double t_ref = lateral_root(solver, closed_lateral, &u, 1e-14);
    double tau_lib = library_tau(&u, t_lib).m[0][0], tau_ref = closed_axial(&u, t_ref);
    double e = fabs(tau_lib - tau_ref) / E;
    if (!(e <= max_err)) max_err = e; /* NaN sticks */
    u.log_j_linear = 1;
    double em =
        fabs(tau_lib - closed_axial(&u, lateral_root(solver, closed_lateral, &u, 1e-14))) / E;
    u.log_j_linear = 0;
    if (!(em <= *mutant)) *mutant = em;
    fprintf(f, "%s\t%.6f\t%.9f\t%.12f\t%.8g\t%.12g\t%.8g\t%.3g\n", name, u.s, t_lib, t_ref, tau_lib,
            tau_ref, tau_ref / (u.s * t_ref * t_ref), e);
  }
  return max_err;
}

void probe_elastic(bg_lab *lab) {
  FILE *f = bg_lab_tsv(
      lab, "elastic.tsv",
      "uniaxial stress of the elastic model (taichi_mpm's jelly, E 1e5 Pa, nu 0.3) through "
      "bg_material_update against the closed forms of references/derivations/elastic.md",
      "law\tstretch\tlateral_lib\tlateral_closed\ttau_xx_lib_Pa\ttau_xx_closed_Pa\t"
      "sigma_xx_closed_Pa\terr_over_E");
  gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  double nh_mut, fc_mut;
  double nh = uniaxial_law(lab, f, solver, BG_ELASTIC_NEO_HOOKEAN, &nh_mut);
  double fc = uniaxial_law(lab, f, solver, BG_ELASTIC_FIXED_COROTATED, &fc_mut);
  gsl_root_fsolver_free(solver);
  fclose(f);
  bg_lab_progress(
      lab,
      "elastic uniaxial stress: max |tau - closed form| / E %.3g (neo-Hookean), %.3g (fixed "
      "corotated)",
      nh, fc);
  bg_lab_claim(lab, "probe.uniaxial.neo_hookean", nh);
  bg_lab_claim(lab, "probe.uniaxial.fixed_corotated", fc);
  bg_lab_claim_mutant(lab, "nh-log-j-linear", "probe.uniaxial.neo_hookean", nh_mut);
}
