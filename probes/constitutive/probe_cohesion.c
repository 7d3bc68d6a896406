/* probe_cohesion.c: cohesive Drucker-Prager sand (bg_mat_dp.h, material.dp
 * cohesion c and beta) through the solver's own return map, against the
 * closed forms of references/derivations/cohesion.md:
 *   - unconfined (zero-confinement triaxial) compression to critical state
 *     stops at the Mohr-Coulomb unconfined strength q_u = 2 c cos phi /
 *     (1 - sin phi) on the compression cone (cohesion.tsv, cohesion_paths.tsv);
 *   - isotropic extension stops at the tip, the mean tension c cot phi;
 *   - past the tip, log Jp stores the share beta of the imposed dilation.
 * Stresses are Kirchhoff, as the model's yield surface is. */
#include <gsl/gsl_math.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>

#include "bg_lab.h"
#include "bg_materials.h"
#include "bg_stress.h"
#include "probe_triax.h"

/* Consecutive shear increments that count as critical state (as the
 * cohesionless triaxial section). */
#define COH_RUN 100

static const double coh_phis[] = {20, 30, 35, 40, 45};
static const double coh_cs[] = {100, 1000, 5000}; /* Pa */
static const double coh_betas[] = {0, 0.25, 0.5, 1};
#define N_COH_PHI ((int)(sizeof coh_phis / sizeof coh_phis[0]))
#define N_COH_C ((int)(sizeof coh_cs / sizeof coh_cs[0]))
#define N_COH_BETA ((int)(sizeof coh_betas / sizeof coh_betas[0]))

/* Klar's sand with cohesion c and taichi_mpm's beta, through the library's
 * own mapping to inner-loop coefficients; the model mutants then change
 * those coefficients as a wrong implementation would. */
static bg_mat cohesive_sand(const bg_lab *lab, bg_material *fed, double phi, double c, double beta) {
  bg_material m = bg_material_sand();
  m.dp.phi_deg = (bg_real)phi;
  m.dp.cohesion = (bg_real)c;
  m.dp.beta = (bg_real)beta;
  bg_mat k;
  char err[512];
  if (bg_material_params(&m, &k, err, sizeof err) != BG_OK) bg_lab_fail("cohesive material: %s", err);
  *fed = m;
  if (bg_lab_mutant_is(lab, "cohesion-tip-c")) k.c.dp.ccot = m.dp.cohesion;
  if (bg_lab_mutant_is(lab, "cohesion-alpha-extension")) k.c.dp.alpha = bg_dp_alpha_cone(m.dp.phi_deg, BG_CONE_EXTENSION);
  if (bg_lab_mutant_is(lab, "cohesion-ignored")) k.c.dp.cohesion = k.c.dp.ccot = 0;
  if (bg_lab_mutant_is(lab, "cohesion-beta-ignored")) k.c.dp.beta_loss = 0;
  return k;
}

static double rad(double deg) { return deg * M_PI / 180.0; }

/* The closed forms, from what the material was fed. */
static double q_u_of(const bg_material *m) {
  double s = sin(rad(m->dp.phi_deg));
  return 2.0 * m->dp.cohesion * cos(rad(m->dp.phi_deg)) / (1.0 - s);
}
static double tip_of(const bg_material *m) { return m->dp.cohesion / tan(rad(m->dp.phi_deg)); }

/* Unconfined compression from zero stress to critical state: the axial
 * Kirchhoff stress there, NaN if the element never flows on the cone.
 * Writes the path (every increment up to 200, then every 10th). */
static double unconfined(const bg_mat *m, gsl_root_fsolver *solver, double d_step, double strain_end, FILE *paths,
                         double phi, double c) {
  element e0 = {{{0, 0, 0}}, 0, 0};
  drive d = {m, e0, -d_step, 0.0, AXES_TRIAXIAL, {{{0}}, 0, 0, 0}, 0};
  int n_inc = (int)ceil(strain_end / d_step), run = 0;
  double q = NAN;
  for (int k = 1; k <= n_inc && run < COH_RUN; ++k) {
    if (drive_step(&d, solver) != 0) return NAN;
    run = d.r.mode == BG_RM_SHEAR ? run + 1 : 0;
    bg_vec3 tau = bg_tau_hencky_eps(d.e.eps, m->el.lame);
    q = 0.5 * ((double)tau.v[1] + tau.v[2]) - tau.v[0];
    if (k <= 200 || k % 10 == 0 || run == COH_RUN)
      fprintf(paths, "%g\t%g\t%.6g\t%.7g\t%.7g\t%d\n", phi, c, k * d_step,
              -((double)tau.v[0] + tau.v[1] + tau.v[2]) / 3.0, q, d.r.mode);
  }
  fprintf(paths, "\n\n");
  return d.r.mode == BG_RM_SHEAR ? q : NAN;
}

/* Isotropic extension, d_step per axis and increment, to a volumetric log
 * strain of 3 tip strains plus 0.01, through the registry's return map: the
 * largest |p / (c cot phi) - 1| over the increments that reached the tip
 * (NaN if none did), and log Jp at the end. p: mean Kirchhoff tension. */
typedef struct tip_run {
  double err, log_jp, imposed, tr_tip;
} tip_run;

static tip_run extension(const bg_mat *m, double d_step, double tip) {
  tip_run t = {NAN, 0, 0, 0};
  double K3 = 3.0 * m->el.lame.lambda + 2.0 * m->el.lame.mu;
  t.tr_tip = 3.0 * tip / K3;
  int n = (int)ceil((3.0 * t.tr_tip + 0.01) / (3.0 * d_step));
  bg_vec3 eps = {{0, 0, 0}};
  bg_real st[BG_NSTATE] = {0};
  for (int k = 1; k <= n; ++k) {
    for (int i = 0; i < 3; ++i) eps.v[i] += (bg_real)d_step;
    bg_return r = bg_dp_return(&m->el, &m->c.dp, 0.0f, eps, st);
    st[BG_STATE_LOG_JP] = r.log_jp;
    st[BG_STATE_Q] += r.dq;
    eps = r.eps;
    if (r.mode != BG_RM_TIP) continue;
    bg_vec3 tau = bg_tau_hencky_eps(r.eps, m->el.lame);
    double p = ((double)tau.v[0] + tau.v[1] + tau.v[2]) / 3.0;
    double err = fabs(p / tip - 1.0);
    if (isnan(t.err) || err > t.err || isnan(err)) t.err = err;
  }
  t.log_jp = st[BG_STATE_LOG_JP];
  t.imposed = 3.0 * d_step * n;
  return t;
}

void probe_cohesion(bg_lab *lab, gsl_root_fsolver *solver, double d_step, double strain_end) {
  FILE *tab = bg_lab_tsv(lab, "cohesion.tsv",
                         "cohesive Drucker-Prager (compression cone): unconfined compression to critical state and "
                         "isotropic extension to the tip, Kirchhoff stresses",
                         "phi_deg\tc_Pa\tq_u_Pa\tq_crit_Pa\tq_rel_err\ttip_Pa\ttip_rel_err");
  FILE *paths = bg_lab_tsv(lab, "cohesion_paths.tsv",
                           "unconfined compression paths from zero stress: every increment up to 200, then every "
                           "10th; blank lines separate paths",
                           "phi_deg\tc_Pa\taxial_strain\tp_Pa\tq_Pa\tmode");
  double max_q = 0, max_tip = 0;
  for (int ip = 0; ip < N_COH_PHI; ++ip)
    for (int ic = 0; ic < N_COH_C; ++ic) {
      bg_material fed;
      bg_mat m = cohesive_sand(lab, &fed, coh_phis[ip], coh_cs[ic], 1.0);
      double qu = q_u_of(&fed), tip = tip_of(&fed);
      double q = unconfined(&m, solver, d_step, strain_end, paths, coh_phis[ip], coh_cs[ic]);
      double qe = fabs(q / qu - 1.0);
      tip_run t = extension(&m, d_step, tip);
      fprintf(tab, "%g\t%g\t%.7g\t%.7g\t%.3g\t%.7g\t%.3g\n", coh_phis[ip], coh_cs[ic], qu, q, qe, tip, t.err);
      max_q = (isnan(qe) || qe > max_q) ? qe : max_q;
      max_tip = (isnan(t.err) || t.err > max_tip) ? t.err : max_tip;
    }
  fclose(paths);
  fclose(tab);
  /* beta: past the tip each increment adds beta times its dilation to log
   * Jp, so log Jp = beta (imposed - tr_tip) at the end (derivation sec. 4) */
  FILE *bt = bg_lab_tsv(lab, "cohesion_beta.tsv",
                        "log Jp after isotropic extension past the tip, phi 35 deg, c 1 kPa, volume correction on",
                        "beta\timposed_volumetric_strain\ttr_tip\tlog_jp\tlog_jp_expected\trel_err");
  double max_beta = 0;
  for (int ib = 0; ib < N_COH_BETA; ++ib) {
    bg_material fed;
    bg_mat m = cohesive_sand(lab, &fed, 35, 1000, coh_betas[ib]);
    tip_run t = extension(&m, d_step, tip_of(&fed));
    double want = fed.dp.beta * (t.imposed - t.tr_tip), err = fabs(t.log_jp - want) / t.imposed;
    fprintf(bt, "%g\t%.7g\t%.7g\t%.7g\t%.7g\t%.3g\n", (double)fed.dp.beta, t.imposed, t.tr_tip, t.log_jp, want, err);
    max_beta = (isnan(err) || err > max_beta) ? err : max_beta;
  }
  fclose(bt);
  bg_lab_progress(lab, "cohesion: max |q/q_u - 1| %.3g, max |p_tip/(c cot phi) - 1| %.3g, beta %.3g", max_q, max_tip,
                  max_beta);
  bg_lab_claim(lab, "probe.cohesion.ucs", max_q);
  bg_lab_claim(lab, "probe.cohesion.tip", max_tip);
  bg_lab_claim(lab, "probe.cohesion.beta", max_beta);
}
