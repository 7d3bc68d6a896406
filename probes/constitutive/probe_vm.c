/* probe_vm.c: von Mises elements driven through the library's own scalar
 * update (bg_material_update, the oracle every backend runs) along two
 * paths whose yield stress is a closed form of the fed sigma_y
 * (references/derivations/von_mises.md):
 *   simple shear, F <- (I + dgamma e_x e_y^T) F: the in-plane Mohr radius
 *     of the Kirchhoff stress flows at sigma_y / sqrt 3;
 *   uniaxial tension, F = diag(a, l, l) with l found (GSL Brent) so that
 *     the lateral stress is zero: the axial minus lateral stress flows at
 *     sigma_y(q) = sigma_y + H eps_p, eps_p the plastic axial strain
 *     measured as the total axial log strain minus the elastic one, so the
 *     definition of q is checked against a strain the probe knows apart.
 * Both differences of stresses are pressure-free, as the von Mises
 * cylinder is, so the lateral root's float residual does not enter them.
 * Each step the return's own volume change, log det F after the update
 * minus log det F_trial, must vanish: plastic flow is isochoric. */
#include "probe_vm.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bg_materials.h"
#include "bg_stress.h"

/* Steps per elastic strain at yield: fine enough that the first plastic
 * step lands close to the yield point, few enough to run in milliseconds. */
#define STEPS_PER_YIELD 40
/* Path length, in yield strains. */
#define PATH_YIELDS 20

/* The elements: taichi_mpm's defaults (E 5e3 Pa, nu 0.4, sigma_y 1 Pa: an
 * elastic strain at yield of 2e-4, the least float resolves here), the
 * footing's stiffness ratio (E / sigma_y = 100) and that with hardening. */
typedef struct vm_case {
  const char *name;
  double e_over_sy, hardening_over_e; /* 0: taichi_mpm's sigma_y */
} vm_case;
static const vm_case cases[] = {{"taichi", 0, 0}, {"footing", 100, 0}, {"hardening", 100, 0.05}};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

typedef struct vm_el {
  bg_mat3 F;
  bg_real st[BG_NSTATE];
} vm_el;

/* The scalar update, or a mutant of it: vm-volumetric-return projects the
 * whole trial strain, trace included, by the factor the radial return
 * applies to its deviator; vm-q-unscaled accumulates dgamma in q, not
 * sqrt(2/3) dgamma. The mutants run the skeleton of bg_material_core.h
 * with the model's own return map. */
static int vm_update(const bg_lab *lab, const bg_mat *m, bg_update_ctx *u) {
  int vol = bg_lab_mutant_is(lab, "vm-volumetric-return"), qun = bg_lab_mutant_is(lab, "vm-q-unscaled");
  if (!vol && !qun) return bg_material_update(m, u);
  bg_mat3 uu, v;
  bg_vec3 sig, eps;
  bg_svd3(u->F, &uu, &sig, &v);
  for (int i = 0; i < 3; ++i) eps.v[i] = bg_log_stretch(sig.v[i]);
  bg_return r = bg_vm_return(&m->el, &m->c.vm, u->dt, eps, u->st);
  if (vol && r.mode == BG_RM_SHEAR) {
    bg_trial t = bg_trial_split(eps, 0.0f, 0), tn = bg_trial_split(r.eps, 0.0f, 0);
    bg_real s = tn.eh_norm / t.eh_norm;
    for (int i = 0; i < 3; ++i) r.eps.v[i] = s * eps.v[i];
  }
  u->st[BG_STATE_Q] += qun ? r.dq * 1.2247448713915890f : r.dq;
  for (int i = 0; i < 3; ++i) sig.v[i] = expf(r.eps.v[i]);
  *u->F = bg_mat3_usvt(uu, sig, v);
  *u->tau = bg_tau_assemble(uu, bg_tau_principal(m->el.law, sig, m->el.lame));
  return r.mode;
}

static double log_det(const bg_mat3 *F) { return log((double)bg_mat3_det(*F)); }

/* The material of a case, through the library's public mapping. */
static bg_material case_material(const bg_lab *lab, const vm_case *c) {
  bg_material mm = bg_material_default(BG_MODEL_VM);
  if (c->e_over_sy > 0) mm.vm.yield_stress = (bg_real)(mm.E / c->e_over_sy);
  mm.vm.hardening = (bg_real)(c->hardening_over_e * mm.E);
  (void)lab;
  return mm;
}

static bg_mat case_coeffs(const bg_lab *lab, const bg_material *mm) {
  bg_mat c;
  char err[512];
  if (bg_material_params(mm, &c, err, sizeof err) != BG_OK) bg_lab_fail("von-mises material: %s", err);
  /* the Tresca mutant: the return map's sigma_y scaled so that the shear
   * yield is sigma_y / 2 (Tresca) where von Mises has sigma_y / sqrt 3 */
  if (bg_lab_mutant_is(lab, "vm-tresca")) c.c.vm.sigma_y *= 0.8660254037844386f;
  return c;
}

/* What one path measured. */
typedef struct vm_path {
  double max_yield_err; /* max |measured / closed form - 1| over plastic steps; NaN: never yielded */
  double max_dlogj;     /* max |log det F - log det F_trial| over plastic steps */
  int plastic_steps;
} vm_path;

static void path_note(vm_path *p, double err, double dlogj) {
  p->plastic_steps++;
  if (isnan(err) || err > p->max_yield_err) p->max_yield_err = err;
  if (dlogj > p->max_dlogj) p->max_dlogj = dlogj;
}

/* Simple shear to PATH_YIELDS shear strains at yield; rows into f. */
static vm_path simple_shear(const bg_lab *lab, const vm_case *c, FILE *f) {
  bg_material mm = case_material(lab, c);
  bg_mat m = case_coeffs(lab, &mm);
  double sy = mm.vm.yield_stress, tau_y = sy / sqrt(3.0);
  double gamma_y = tau_y / (double)m.el.lame.mu, dg = gamma_y / STEPS_PER_YIELD;
  vm_el e = {bg_mat3_identity(), {0, 0, 0, 0}};
  bg_mat3 L = bg_mat3_zero(), tau;
  L.m[0][1] = (bg_real)dg; /* the velocity gradient times dt = 1 s */
  vm_path p = {0, 0, 0};
  int n = STEPS_PER_YIELD * PATH_YIELDS;
  for (int k = 1; k <= n; ++k) {
    bg_mat3 Ft = bg_mat3_mul(L, e.F);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) e.F.m[i][j] += Ft.m[i][j];
    double lj_trial = log_det(&e.F);
    bg_update_ctx u = {&e.F, &L, 1.0f, e.st, &tau};
    int mode = vm_update(lab, &m, &u);
    double a = 0.5 * ((double)tau.m[0][0] - tau.m[1][1]), radius = sqrt(a * a + (double)tau.m[0][1] * tau.m[0][1]);
    /* with hardening, the radius the model's own q gives (a consistency
     * check, tabulated: the claims use the H = 0 elements) */
    tau_y = (sy + mm.vm.hardening * (double)e.st[BG_STATE_Q]) / sqrt(3.0);
    double dlogj = fabs(log_det(&e.F) - lj_trial);
    if (mode == BG_RM_SHEAR) path_note(&p, fabs(radius / tau_y - 1.0), dlogj);
    if (k % 10 == 0 || k == n)
      fprintf(f, "%s\tshear\t%.6g\t%.8g\t%.8g\t%.3g\t%.3g\t%.6g\t%d\n", c->name, k * dg / gamma_y, radius / sy,
              tau_y / sy, fabs(radius / tau_y - 1.0), dlogj, (double)e.st[BG_STATE_Q], mode);
  }
  if (!p.plastic_steps) p.max_yield_err = NAN;
  return p;
}

/* Uniaxial tension: one step of axial log strain d_ax with lateral log
 * strain d_lat, from e (not changed); the result in *out, the lateral
 * Kirchhoff stress returned. */
typedef struct tension {
  const bg_lab *lab;
  const bg_mat *m;
  vm_el e;
  double d_ax;
  vm_el out;
  bg_mat3 tau;
  int mode;
  double lj_trial;
} tension;

static double lateral_stress(double d_lat, void *param) {
  tension *t = param;
  t->out = t->e;
  t->out.F.m[0][0] *= expf((bg_real)t->d_ax);
  t->out.F.m[1][1] *= expf((bg_real)d_lat);
  t->out.F.m[2][2] *= expf((bg_real)d_lat);
  t->lj_trial = log_det(&t->out.F);
  bg_mat3 L = bg_mat3_zero();
  L.m[0][0] = (bg_real)t->d_ax;
  L.m[1][1] = L.m[2][2] = (bg_real)d_lat;
  bg_update_ctx u = {&t->out.F, &L, 1.0f, t->out.st, &t->tau};
  t->mode = vm_update(t->lab, t->m, &u);
  return 0.5 * ((double)t->tau.m[1][1] + t->tau.m[2][2]);
}

static int tension_step(tension *t, gsl_root_fsolver *solver) {
  gsl_function fn = {lateral_stress, t};
  double a = -2.0 * t->d_ax, b = 0.0;
  double fa = lateral_stress(a, t), fb = lateral_stress(b, t);
  for (int k = 0; k < 20 && fa * fb > 0; ++k) {
    a *= 2;
    fa = lateral_stress(a, t);
  }
  if (fa * fb > 0) return -1;
  gsl_root_fsolver_set(solver, &fn, a, b);
  int status = GSL_CONTINUE;
  for (int it = 0; it < 200 && status == GSL_CONTINUE; ++it) {
    gsl_root_fsolver_iterate(solver);
    /* float F: increments below ~1e-9 are not resolved */
    status = gsl_root_test_interval(gsl_root_fsolver_x_lower(solver), gsl_root_fsolver_x_upper(solver), 1e-13, 1e-9);
  }
  lateral_stress(gsl_root_fsolver_root(solver), t); /* leaves out, tau and mode at the root */
  t->e = t->out;
  return 0;
}

/* Tension to PATH_YIELDS axial yield strains; rows into f. The hardening
 * case is held to sigma_y + H eps_p. */
static vm_path uniaxial_tension(const bg_lab *lab, const vm_case *c, FILE *f, gsl_root_fsolver *solver) {
  bg_material mm = case_material(lab, c);
  bg_mat m = case_coeffs(lab, &mm);
  double sy = mm.vm.yield_stress, H = mm.vm.hardening, eps_y = sy / mm.E, d = eps_y / STEPS_PER_YIELD;
  tension t = {lab, &m, {bg_mat3_identity(), {0, 0, 0, 0}}, d, {bg_mat3_identity(), {0, 0, 0, 0}}, bg_mat3_zero(), 0, 0};
  vm_path p = {0, 0, 0};
  int n = STEPS_PER_YIELD * PATH_YIELDS;
  double ax_total = 0;
  for (int k = 1; k <= n; ++k) {
    if (tension_step(&t, solver) != 0) {
      p.max_yield_err = NAN;
      break;
    }
    /* the axial stretch the update saw, accumulated in double */
    ax_total += log((double)expf((bg_real)d));
    double eps_p = ax_total - log((double)t.e.F.m[0][0]);
    double s_eq = (double)t.tau.m[0][0] - 0.5 * ((double)t.tau.m[1][1] + t.tau.m[2][2]);
    double s_y = sy + H * eps_p, err = fabs(s_eq / s_y - 1.0);
    double dlogj = fabs(log_det(&t.e.F) - t.lj_trial);
    if (t.mode == BG_RM_SHEAR) path_note(&p, err, dlogj);
    if (k % 10 == 0 || k == n)
      fprintf(f, "%s\ttension\t%.6g\t%.8g\t%.8g\t%.3g\t%.3g\t%.6g\t%d\n", c->name, ax_total / eps_y, s_eq / sy,
              s_y / sy, err, dlogj, (double)t.e.st[BG_STATE_Q], t.mode);
  }
  if (!p.plastic_steps) p.max_yield_err = NAN;
  return p;
}

void probe_vm(bg_lab *lab) {
  FILE *f = bg_lab_tsv(lab, "vm.tsv",
                       "von Mises elements through the library's scalar update: simple shear (in-plane Mohr radius of "
                       "the Kirchhoff stress) and uniaxial tension (axial minus lateral Kirchhoff stress), every 10th step",
                       "case\tpath\tstrain_over_yield_strain\tstress_over_sigma_y\tclosed_form_over_sigma_y\trel_err\t"
                       "abs_dlogJ_return\tq\tmode");
  gsl_set_error_handler_off();
  gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  double shear = 0, tens = 0, hard = 0, dlogj = 0;
  for (int ic = 0; ic < N_CASES; ++ic) {
    vm_path s = simple_shear(lab, &cases[ic], f), t = uniaxial_tension(lab, &cases[ic], f, solver);
    int hardening = cases[ic].hardening_over_e > 0;
    /* shear and tension are claimed on the cases without hardening; the
     * hardening case's tension is the hardening claim (its shear path,
     * held to the model's own q, is tabulated only) */
    if (!hardening && (isnan(s.max_yield_err) || s.max_yield_err > shear)) shear = s.max_yield_err;
    double *tt = hardening ? &hard : &tens;
    if (isnan(t.max_yield_err) || t.max_yield_err > *tt) *tt = t.max_yield_err;
    dlogj = fmax(dlogj, fmax(s.max_dlogj, t.max_dlogj));
    bg_lab_progress(lab, "von Mises %s: shear %d plastic steps, max err %.3g; tension %d, max err %.3g; max |dlogJ| %.3g",
                    cases[ic].name, s.plastic_steps, s.max_yield_err, t.plastic_steps, t.max_yield_err,
                    fmax(s.max_dlogj, t.max_dlogj));
  }
  gsl_root_fsolver_free(solver);
  fclose(f);
  bg_lab_claim(lab, "probe.vm.shear_yield", shear);
  bg_lab_claim(lab, "probe.vm.tension_yield", tens);
  bg_lab_claim(lab, "probe.vm.hardening", hard);
  bg_lab_claim(lab, "probe.vm.incompressible", dlogj);
}
