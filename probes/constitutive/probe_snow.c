/* probe_snow.c: one element of snow (Stomakhin et al. 2013, taichi_mpm's
 * defaults) through the library's own update (bg_material_update, the
 * oracle every backend runs) under known deformations, against closed
 * forms (references/derivations/snow.md sec. 4). Every path is coaxial
 * and monotone, so each principal stretch of F_E is clamp(lambda_i), the
 * total stretch clamped to [1 - theta_c, 1 + theta_s], and Jp = det F /
 * det F_E; the stress is then the fixed-corotated one of F_E with mu0 h,
 * lambda0 h, h = exp(xi (1 - max(Jp, jp_min))). The probe recovers mu and
 * lambda from the returned stress and compares them with that. */
#include "probe_snow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bg_materials.h"
#include "bg_stress.h"
#include "bg_svd.h"

/* One deformation: each of steps steps multiplies F by R diag(s) R^T (R a
 * rotation by rot_deg about (1, 2, 3)): principal stretches s_i^steps. */
typedef struct snow_case {
  const char *name;
  double s[3];
  int steps;
  double rot_deg;
} snow_case;

static const snow_case cases[] = {
    {"isotropic_elastic", {0.99, 0.99, 0.99}, 1, 0},    {"isotropic", {0.95, 0.95, 0.95}, 1, 0},
    {"isotropic_deep", {0.85, 0.85, 0.85}, 1, 0},       {"isotropic_saturated", {0.8, 0.8, 0.8}, 1, 0},
    {"uniaxial", {1, 1, 0.9}, 1, 0},                    {"uniaxial_10_steps", {1, 1, 0.96}, 10, 0},
    {"stretch", {1.02, 1, 1}, 1, 0},                    {"mixed_rotated", {0.9, 1.01, 1.003}, 1, 30},
    {"uniaxial_rotated_5_steps", {1, 1, 0.95}, 5, 40},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* Rotation by deg about the unit axis (1, 2, 3) / sqrt 14 (Rodrigues). */
static void rotation(double deg, double R[3][3]) {
  double n[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, a = deg * 0.017453292519943295;
  double c = cos(a), s = sin(a);
  double K[3][3] = {{0, -n[2], n[1]}, {n[2], 0, -n[0]}, {-n[1], n[0], 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double kk = 0;
      for (int k = 0; k < 3; ++k) kk += K[i][k] * K[k][j];
      R[i][j] = (i == j) + s * K[i][j] + (1 - c) * kk;
    }
}

static void sort_desc(double v[3]) {
  for (int i = 0; i < 2; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (v[j] > v[i]) {
        double x = v[i];
        v[i] = v[j];
        v[j] = x;
      }
}

/* The fed material (read back through the library's own prepare step,
 * bg_material_params) and the mutants that change the model. */
static bg_mat snow_params(bg_lab *lab, const bg_material *fed) {
  bg_material run = *fed;
  /* the clamp's bounds exchanged: compression clamps at 1 - theta_s */
  if (bg_lab_mutant_is(lab, "snow-theta-swapped")) {
    run.snow.theta_c = fed->snow.theta_s;
    run.snow.theta_s = fed->snow.theta_c;
  }
  bg_mat m;
  char err[512];
  if (bg_material_params(&run, &m, err, sizeof err) != BG_OK) bg_lab_fail("snow material: %s", err);
  /* compaction softens: h = exp(-xi (1 - Jp)) */
  if (bg_lab_mutant_is(lab, "snow-hardening-sign")) m.c.snow.xi = -m.c.snow.xi;
  return m;
}

snow_check probe_snow(bg_lab *lab) {
  FILE *f = bg_lab_tsv(
      lab, "snow.tsv",
      "snow (Stomakhin 2013, taichi_mpm defaults) under known coaxial deformations: principal "
      "stretches of F_E, Jp and the hardened Lame parameters recovered from the stress, against "
      "their closed forms (mu, lambda: NaN where the singular values coincide; the stress itself "
      "is then compared)",
      "case\tsteps\tsE0_expected\tsE1_expected\tsE2_expected\tsE0\tsE1\tsE2\tJp_expected\tJp\t"
      "h_expected\tmu_Pa\tmu_expected_Pa\tlambda_Pa\tlambda_expected_Pa\tclamp_err\tjp_rel_err\tlame_rel_err");
  const bg_material fed = bg_material_default(BG_MODEL_SNOW);
  const bg_mat m = snow_params(lab, &fed);
  /* the closed forms take what was fed, in double */
  const double E = fed.E, nu = fed.nu, xi = fed.snow.hardening, jp_min = fed.snow.jp_min;
  const double mu0 = E / (2 * (1 + nu)), la0 = E * nu / ((1 + nu) * (1 - 2 * nu));
  const double lo = 1 - (double)fed.snow.theta_c, hi = 1 + (double)fed.snow.theta_s;
  snow_check out = {0, 0, 0};
  for (int ic = 0; ic < N_CASES; ++ic) {
    const snow_case *sc = &cases[ic];
    double R[3][3];
    rotation(sc->rot_deg, R);
    bg_mat3 step = bg_mat3_zero(), F = bg_mat3_identity(), tau = bg_mat3_zero(), C = bg_mat3_zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double a = 0;
        for (int k = 0; k < 3; ++k) a += R[i][k] * sc->s[k] * R[j][k];
        step.m[i][j] = (bg_real)a;
      }
    bg_real st[BG_NSTATE] = {0, 0, 0, 0};
    bg_update_ctx u = {&F, &C, 1e-4f, st, &tau};
    for (int k = 0; k < sc->steps; ++k) {
      F = bg_mat3_mul(step, F);
      double log_jp0 = st[BG_STATE_LOG_JP], det_trial = bg_mat3_det(F);
      bg_material_update(&m, &u);
      /* Jp taking the whole trial volume, det F_E trial, instead of the
       * ratio trial / clamped */
      if (bg_lab_mutant_is(lab, "snow-jp-trial")) st[BG_STATE_LOG_JP] = (bg_real)(log_jp0 + log(det_trial));
    }
    /* closed forms: each principal stretch clamped, Jp = det F / det F_E */
    double se[3], lam_tot = 1, det_e = 1;
    for (int i = 0; i < 3; ++i) {
      double l = pow(sc->s[i], sc->steps);
      se[i] = fmin(fmax(l, lo), hi);
      lam_tot *= l;
      det_e *= se[i];
    }
    double jp_exp = lam_tot / det_e, h = exp(xi * (1 - fmax(jp_exp, jp_min)));
    double mu_exp = mu0 * h, la_exp = la0 * h;
    sort_desc(se);
    /* measured: F_E's singular values, Jp, and the principal stresses of
     * tau in F_E's left singular frame */
    bg_mat3 uu, vv;
    bg_vec3 sig;
    bg_svd3(&F, &uu, &sig, &vv);
    double sm[3] = {sig.v[0], sig.v[1], sig.v[2]}, t[3], a[3];
    double jp = exp((double)st[BG_STATE_LOG_JP]), J = sm[0] * sm[1] * sm[2], b = (J - 1) * J;
    for (int i = 0; i < 3; ++i) {
      t[i] = 0;
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) t[i] += (double)uu.m[p][i] * tau.m[p][q] * uu.m[q][i];
      a[i] = (sm[i] - 1) * sm[i];
    }
    double clamp_err = 0;
    for (int i = 0; i < 3; ++i) clamp_err = fmax(clamp_err, fabs(sm[i] - se[i]));
    double jp_err = fabs(jp / jp_exp - 1);
    /* t_i = 2 mu a_i + lambda b: mu from the pair of most different a_i,
     * then lambda from the mean; with all a_i equal only the stress can be
     * compared */
    int pi = 0, pj = 1;
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j)
        if (fabs(a[i] - a[j]) > fabs(a[pi] - a[pj])) pi = i, pj = j;
    double mu = NAN, la = NAN, lame_err;
    if (fabs(a[pi] - a[pj]) > 1e-3 * fabs(a[pi])) {
      mu = (t[pi] - t[pj]) / (2 * (a[pi] - a[pj]));
      la = 0;
      for (int i = 0; i < 3; ++i) la += (t[i] - 2 * mu * a[i]) / b / 3;
      lame_err = fmax(fabs(mu / mu_exp - 1), fabs(la / la_exp - 1));
    } else {
      lame_err = 0;
      for (int i = 0; i < 3; ++i) {
        double te = 2 * mu_exp * a[i] + la_exp * b;
        lame_err = fmax(lame_err, fabs(t[i] / te - 1));
      }
    }
    /* an elastic step has no hardening to recover but the same closed form */
    fprintf(f, "%s\t%d\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.3g\t%.3g\t%.3g\n",
            sc->name, sc->steps, se[0], se[1], se[2], sm[0], sm[1], sm[2], jp_exp, jp, h, mu, mu_exp, la, la_exp,
            clamp_err, jp_err, lame_err);
    out.clamp_err = (isnan(clamp_err) || clamp_err > out.clamp_err) ? clamp_err : out.clamp_err;
    out.jp_err = (isnan(jp_err) || jp_err > out.jp_err) ? jp_err : out.jp_err;
    out.lame_err = (isnan(lame_err) || lame_err > out.lame_err) ? lame_err : out.lame_err;
  }
  fclose(f);
  bg_lab_progress(lab, "snow: max |sigma_E - clamp| %.3g, max |Jp/closed - 1| %.3g, max Lame rel err %.3g",
                  out.clamp_err, out.jp_err, out.lame_err);
  return out;
}
