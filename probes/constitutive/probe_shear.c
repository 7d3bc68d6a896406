/* probe_shear.c: one element of a rate-dependent material in steady simple
 * shear at imposed inertial numbers (see probe_shear.h). At steady state the
 * stress must sit on the model's law at the inertial number of the element's
 * own plastic shear rate (sqrt 2 dq / dt), to float round-off, and that rate
 * must be the imposed one. */
#include "probe_shear.h"

#include <math.h>
#include <stdio.h>

#include "bg_materials.h"
#include "bg_stress.h"

/* Confining pressure of the simple shear, Pa: low, so that the elastic
 * strain mu p / (2 G) ~ 1e-4 that separates the plastic rate from the
 * imposed one stays small. */
#ifndef P_SHEAR
#define P_SHEAR 1e3
#endif

/* Steady simple shear of one element at the imposed inertial number I
 * (confining pressure p_conf, grains d, rho_s), through the full scalar
 * update (bg_material_update, the oracle both backends share): F grows by
 * (I + dt L) with L = gammadot e_x e_y^T each step. Returns the last
 * step's return-map mode and gives the shear rate, the Cauchy pressure,
 * the inertial number of the element's own plastic rate (sqrt 2 dq / dt)
 * and the measured sqrt(J2) / p. */
typedef struct shear_result {
  double gd, pc, Ip, mu;
  int mode;
} shear_result;

static shear_result steady_shear(const bg_mat *m, double I, double p_conf, double d, double rho_s,
                                 int n_steps) {
  shear_result r;
  r.gd = I * sqrt(p_conf / rho_s) / d;
  /* the shear strain per step is set by accuracy, not stability: the
   * elastic strain at yield, mu p / (2 G) ~ 1e-3, in ~50 steps */
  double dt = 2e-5 / r.gd;
  bg_real e0 = (bg_real)(-p_conf / (2.0 * m->el.lame.mu + 3.0 * m->el.lame.lambda));
  bg_mat3 F = bg_mat3_identity(), tau;
  for (int i = 0; i < 3; ++i) F.m[i][i] = expf(e0);
  bg_real st[BG_NSTATE] = {0, 0, 0, 0};
  bg_mat3 Lm = bg_mat3_zero(), L = bg_mat3_zero();
  Lm.m[0][1] = (bg_real)(r.gd * dt);
  L.m[0][1] = (bg_real)r.gd; /* the velocity gradient, for the update context */
  bg_update_ctx u = {&F, &L, (bg_real)dt, st, &tau};
  r.mode = 0;
  for (int k = 0; k < n_steps; ++k) {
    bg_mat3 Ft = bg_mat3_mul(Lm, F);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F.m[i][j] += Ft.m[i][j];
    /* q plays no part in either law; zeroing it before the last step reads
     * that step's dq without the cancellation of q_after - q_before */
    if (k == n_steps - 1) st[BG_STATE_Q] = 0;
    r.mode = bg_material_update(m, &u);
  }
  double dq = st[BG_STATE_Q];
  double pk = -((double)tau.m[0][0] + tau.m[1][1] + tau.m[2][2]) / 3.0, j2 = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double sij = tau.m[i][j] - (i == j ? -pk : 0.0);
      j2 += 0.5 * sij * sij;
    }
  r.pc = pk / (double)bg_mat3_det(F);
  r.Ip = sqrt(2.0) * dq / dt * d / sqrt(r.pc / rho_s);
  r.mu = sqrt(j2) / pk;
  return r;
}

/* The friction law a model's steady stress must sit on, at inertial number I. */
typedef double (*mu_law)(const bg_material *mm, double I);

static double mu_of_I(const bg_material *mm, double I) {
  return bg_mui_mu(mm->mui.mu_s, mm->mui.mu_2, mm->mui.I0, (bg_real)I);
}

static double mu_local(const bg_material *mm, double I) { return mm->ngf.mu_s + mm->ngf.b * I; }

/* The table over the imposed rates, one row each, into f. */
static shear_check shear_table(FILE *f, const bg_material *mm, const bg_mat *m, mu_law law,
                               double d, double rho_s) {
  shear_check c = {0, 0};
  const double p_conf = P_SHEAR, I_targets[] = {1e-3, 1e-2, 0.05, 0.2, 1.0, 3.0};
  const int n_steps = 4000;
  for (size_t it = 0; it < sizeof I_targets / sizeof I_targets[0]; ++it) {
    shear_result sr = steady_shear(m, I_targets[it], p_conf, d, rho_s, n_steps);
    double mu_law_I = law(mm, sr.Ip);
    double err = sr.mode == BG_RM_SHEAR ? fabs(sr.mu - mu_law_I) : NAN;
    double rel = fabs(sr.Ip / I_targets[it] - 1.0);
    fprintf(f, "%g\t%.6g\t%.6g\t%.7g\t%.8f\t%.8f\t%.3g\t%.3g\t%d\n", I_targets[it], sr.gd, sr.pc,
            sr.Ip, sr.mu, mu_law_I, err, rel, n_steps);
    c.max_err = (isnan(err) || err > c.max_err) ? err : c.max_err;
    c.max_rate = (isnan(rel) || rel > c.max_rate) ? rel : c.max_rate;
  }
  return c;
}

/* The inner-loop coefficients exactly as bg_sim_create derives them. */
static bg_mat params_of(const bg_material *m) {
  bg_mat c;
  char err[512];
  if (bg_material_params(m, &c, err, sizeof err) != BG_OK) bg_lab_fail("material: %s", err);
  return c;
}

shear_check probe_shear_mui(bg_lab *lab) {
  FILE *f = bg_lab_tsv(
      lab, "mu_i.tsv",
      "steady simple shear of mu(I) sand (Jop et al. 2006), confining pressure p_conf, imposed "
      "rate",
      "I_imposed\tgammadot_per_s\tp_Pa\tI_plastic\tmu_measured\tmu_of_I\terr\trate_rel_err\tsteps");
  bg_material mm = bg_material_mui();
  bg_mat m = params_of(&mm);
  /* the mutant converts the plastic strain increment to a rate without
   * the sqrt 2 of engineering shear, inside the model's solve */
  if (bg_lab_mutant_is(lab, "mui-rate-sqrt2")) m.c.mui.beta_scale *= 1.4142135623730951f;
  shear_check c = shear_table(f, &mm, &m, mu_of_I, mm.mui.d, mm.mui.rho_s);
  bg_lab_progress(lab, "mu(I) simple shear: max |mu - mu(I)| %.3g, max rate error %.3g", c.max_err,
                  c.max_rate);
  fclose(f);
  return c;
}

/* The flow is homogeneous, so the Laplacian slot stays 0 and the fluidity
 * must settle on g_loc: the stress then sits on the local law mu_s + b I.
 * The relaxation time t0 sets only how fast that state is reached (its
 * local term is implicit), so the probe takes t0 = 1 ns, which makes the
 * lag behind the slowly drifting pressure negligible at every rate. */
shear_check probe_shear_ngf(bg_lab *lab) {
  FILE *f = bg_lab_tsv(
      lab, "ngf.tsv",
      "steady simple shear of nonlocal fluidity sand (Henann & Kamrin 2013), homogeneous, t0 1 ns",
      "I_imposed\tgammadot_per_s\tp_Pa\tI_plastic\tmu_measured\tmu_local\terr\trate_rel_"
      "err\tsteps");
  bg_material mm = bg_material_default(BG_MODEL_NGF);
  mm.ngf.t0 = 1e-9f;
  bg_mat m = params_of(&mm);
  /* the mutant converts the fluidity to a local rate without the sqrt 2
   * of engineering shear */
  if (bg_lab_mutant_is(lab, "ngf-rate-sqrt2")) m.c.ngf.gloc_scale *= 1.4142135623730951f;
  shear_check c = shear_table(f, &mm, &m, mu_local, mm.ngf.d, mm.ngf.rho_s);
  bg_lab_progress(
      lab, "nonlocal fluidity simple shear: max |mu - (mu_s + b I)| %.3g, max rate error %.3g",
      c.max_err, c.max_rate);
  fclose(f);
  return c;
}
