/* paddle.c: a paddle wheel turned by a motor in sand (issue 37 part 6), the
 * demo scene. Four arms (two crossing kinematic boxes) buried in a 2D
 * (plane-strain) bed of Drucker-Prager sand are spun at a fixed angular
 * velocity omega, the motor (paddle_spin.c); the torque the sand opposes
 * is read through the public API and tabulated against omega, the arms'
 * tip speed and the Froude number tip^2 / (g depth).
 *
 * Claims (references/claims.tsv):
 *   paddle.rate_independent  over the slow points (Froude below --slow-froude,
 *                            from the omega read back from the bodies), the
 *                            range over the mean of the torque's stress part
 *                            (bg_contact.h: the part that does not move with
 *                            the step), held to the range
 *                            two window means reach at 2 sigma (the table's
 *                            tolerance; the run records its own estimate,
 *                            2 sqrt 2 max SE / mean);
 *   paddle.rft_torque        the slow points' mean stress torque against resistive
 *                            force theory's (paddle_rft.c) at the same
 *                            read-back poses, depth and omega, with zeta
 *                            measured in the run's sand by two plate drags. */
#include "paddle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXW 16
#define FAST_MOTOR 20.0 /* the fast-motor mutant's factor on the fed omega */

static paddle_options g_o;
static double g_omega[MAXW];
static int g_nw;

/* The omega list, checked before the run folder is made (exit 2). */
static void check_options(void *ctx) {
  (void)ctx;
  const char *c = g_o.omegas;
  g_nw = 0;
  while (*c) {
    char *end;
    double v = strtod(c, &end);
    if (end == c || !(v > 0 && v <= 1000) || g_nw == MAXW)
      bg_lab_fail("--omegas: '%s' must be up to %d comma-separated numbers in (0, 1000] rad/s",
                  g_o.omegas, MAXW);
    g_omega[g_nw++] = v;
    if (*end && *end != ',')
      bg_lab_fail("--omegas: '%s' is not a comma-separated list", g_o.omegas);
    c = *end == ',' ? end + 1 : end;
  }
  if (g_o.arms != 2 && g_o.arms != 4) bg_lab_fail("--arms %d must be 2 or 4", g_o.arms);
  if (g_nw < 2) bg_lab_fail("--omegas: '%s' needs at least two rates", g_o.omegas);
  /* an arm thinner than 4 cells meets the sand with its far face's normal
   * (core/README.md, rigid bodies) */
  if (g_o.thickness * g_o.cells / g_o.radius < 4 - 1e-9)
    bg_lab_fail("--cells %g: the arms are %.3g cells thick; they must be at least 4", g_o.cells,
                g_o.thickness * g_o.cells / g_o.radius);
  if (g_o.thickness >= g_o.radius)
    bg_lab_fail("--thickness %g must be less than --radius %g", g_o.thickness, g_o.radius);
  if (g_o.depth < 1 + 0.5 * g_o.thickness / g_o.radius)
    bg_lab_fail("--depth %g R: the arms would break the surface", g_o.depth);
}

static bg_lab *parse_options(int argc, char **argv) {
  /* clang-format off */
  static bg_lab_param params[] = {
      {.name = "arms", .type = BG_PARAM_INT, .dest = &g_o.arms, .lo = 2, .hi = 4,
       .help = "4: the paddle, two crossing boxes; 2: one bar (a check; its period is a half turn)", .quick = "4", .paper = "4"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &g_o.radius, .lo = 0.01, .hi = 1.0,
       .help = "an arm's reach from the axis R, m", .quick = "0.05", .paper = "0.05", .key = "radius_m"},
      {.name = "thickness", .type = BG_PARAM_DOUBLE, .dest = &g_o.thickness, .lo = 0.002, .hi = 0.5,
       .help = "an arm's thickness T, m", .quick = "0.02", .paper = "0.02", .key = "thickness_m"},
      {.name = "cells", .type = BG_PARAM_DOUBLE, .dest = &g_o.cells, .lo = 4, .hi = 200,
       .help = "R / dx", .quick = "10", .paper = "20"},
      {.name = "depth", .type = BG_PARAM_DOUBLE, .dest = &g_o.depth, .lo = 1, .hi = 10,
       .help = "the axis below the free surface, in R", .quick = "1.5", .paper = "1.5"},
      {.name = "below", .type = BG_PARAM_DOUBLE, .dest = &g_o.below, .lo = 0.2, .hi = 10,
       .help = "bed below the arms' lowest reach, in R (the floor's distance)", .quick = "0.5", .paper = "0.5"},
      {.name = "half-width", .type = BG_PARAM_DOUBLE, .dest = &g_o.half_width, .lo = 2, .hi = 20,
       .help = "bed from the axis to each side face, in R", .quick = "4", .paper = "4"},
      {.name = "omegas", .type = BG_PARAM_STRING, .dest = &g_o.omegas,
       .help = "the motor's angular velocities, rad/s, comma-separated", .quick = "2,4,8,16,32",
       .paper = "1,2,4,8,16,32,64"},
      {.name = "slow-froude", .type = BG_PARAM_DOUBLE, .dest = &g_o.slow_froude, .lo = 1e-4, .hi = 10,
       .help = "the rate claim's points: (omega R)^2 / (g depth) below this", .quick = "0.1", .paper = "0.1"},
      {.name = "startup", .type = BG_PARAM_INT, .dest = &g_o.startup, .lo = 1, .hi = 8,
       .help = "quarter turns before the window (the start-up)", .quick = "1", .paper = "1"},
      {.name = "window", .type = BG_PARAM_INT, .dest = &g_o.window, .lo = 1, .hi = 8,
       .help = "quarter turns averaged (the paddle's period is one)", .quick = "1", .paper = "2"},
      {.name = "wall-mu", .type = BG_PARAM_DOUBLE, .dest = &g_o.wall_mu, .lo = 0, .hi = 2,
       .help = "arm-sand and floor Coulomb friction", .quick = "0.5", .paper = "0.5"},
      {.name = "settle", .type = BG_PARAM_DOUBLE, .dest = &g_o.settle, .lo = 0, .hi = 2,
       .help = "settling time with the paddle at rest, s", .quick = "0.05", .paper = "0.05"},
      {.name = "cal-speed", .type = BG_PARAM_DOUBLE, .dest = &g_o.cal_speed, .lo = 1e-3, .hi = 10,
       .help = "speed of the two plate drags that measure zeta, m/s", .quick = "0.1", .paper = "0.05"},
      {.name = "cfl", .type = BG_PARAM_DOUBLE, .dest = &g_o.cfl, .lo = 0.02, .hi = 1,
       .help = "the spins' CFL number (the library's default 0.3): the contact torque's residue, the "
               "transfers' part, grows as it shrinks; the stress part the claims read does not "
               "(bg_contact.h, reports/results/cpu-2core/contact-split)",
       .quick = "0.3", .paper = "0.15"},
  };
  /* clang-format on */
  static const char *const mutants[] = {"fast-motor", "rft-data", NULL};
  bg_lab_accept_materials("drucker-prager", "a rate-independent sand (RFT's frictional regime)");
  bg_lab_check_options(check_options, NULL);
  return bg_lab_init(
      "exp_paddle", "A paddle wheel turned by a motor in 2D sand: torque against angular velocity.",
      argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
}

typedef struct plan {
  paddle_zeta z;
  paddle_run run[MAXW];
  int ran[MAXW];
} plan;

/* The Froude number the lab expects of omega before running it. */
static double nominal_froude(double omega) {
  const double tip = omega * g_o.radius;
  return tip * tip / (9.81 * g_o.depth * g_o.radius);
}

/* Every simulation the wanted claims need; a mutant run skips the rest. */
static void run_all(bg_lab *lab, plan *p) {
  p->z.zeta = NAN;
  if (bg_lab_needed(lab, "paddle.rft_torque")) p->z = paddle_calibrate(lab, &g_o);
  /* fast-motor: the motor fed 20 times the omega the lab lists and reports */
  const double fed = bg_lab_mutant_is(lab, "fast-motor") ? FAST_MOTOR : 1.0;
  const int slow_only = !bg_lab_needed(lab, "paddle.rft_torque");
  for (int k = 0; k < g_nw; ++k) {
    if (slow_only && nominal_froude(g_omega[k]) >= g_o.slow_froude) continue;
    char tag[64];
    snprintf(tag, sizeof tag, "omega %g", g_omega[k]);
    p->run[k] = paddle_spin(lab, &g_o, g_omega[k] * fed, p->z.zeta, tag);
    p->run[k].omega_nom = g_omega[k]; /* the lab's list, whatever the motor was fed */
    p->ran[k] = 1;
  }
}

/* Whether a point is one of the rate claim's slow points: the real lab
 * selects by the omega it reads back; fast-motor's believes its list. */
static int in_slow_set(bg_lab *lab, const paddle_run *r) {
  const double fr = bg_lab_mutant_is(lab, "fast-motor") ? nominal_froude(r->omega_nom) : r->froude;
  return fr < g_o.slow_froude;
}

static void write_outputs(bg_lab *lab, const plan *p) {
  FILE *f = bg_lab_tsv(
      lab, "torque.tsv",
      "one row per omega: omega read back from the bodies, tip speed omega R, tip^2 / (g depth), "
      "the resisting torque per metre of depth over the window (mean, sd of the samples, standard "
      "error of the mean from 4 batch means), RFT's torque at the same poses, the first quarter "
      "turn's (fresh sand) torques, the bed's stress ratios, and the window's torque split into the part "
      "the stress carries and the part the transfers leave every step (bg_contact.h: "
      "torque = stress + residue, the residue growing as dt shrinks)",
      "omega_nominal_rad_s\tomega_rad_s\ttip_speed_m_s\tfroude\ttorque_N_m_m\ttorque_sd_N_m_m\t"
      "torque_se_N_m_m\trft_torque_N_m_m\ttorque_first_N_m_m\trft_first_N_m_m\tdepth_m\t"
      "sigma_v_over_rho_g_z\tp_swept_over_settled\tdx_m\twindow_from_turns\twindow_turns\t"
      "in_rate_claim\tparticles\tsteps\ttorque_stress_N_m_m\ttorque_stress_se_N_m_m\t"
      "torque_residue_N_m_m\tsplit_probes\tsplit_nonlinearity");
  for (int k = 0; k < g_nw; ++k) {
    const paddle_run *r = &p->run[k];
    if (!p->ran[k]) continue;
    fprintf(
        f,
        "%g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4g\t%.4g\t%.6g\t%g\t%"
        "g\t%d\t%zu\t%llu\t%.6g\t%.6g\t%.6g\t%d\t%.3g\n",
        r->omega_nom, r->omega_fed, r->tip_speed, r->froude, r->torque, r->sd, r->se, r->rft,
        r->torque_first, r->rft_first, r->depth, r->sigma_v_ratio, r->p_swept_ratio, r->dx,
        0.25 * g_o.startup, 0.25 * g_o.window, in_slow_set(lab, r), r->n_particles,
        (unsigned long long)r->steps, r->torque_stress, r->stress_se, r->torque_residue, r->split_n,
        r->split_nonlinearity);
  }
  fclose(f);
  FILE *s = bg_lab_tsv(lab, "series.tsv",
                       "the torque per sample of the spin (1/24 of a quarter turn), per omega, and in the "
                       "window its stress part at the sample's last pose (bg_contact.h; NaN before); "
                       "blank lines separate the omegas",
                       "omega_nominal_rad_s\tturns\ttorque_N_m_m\trft_torque_N_m_m\ttorque_stress_N_m_m");
  for (int k = 0; k < g_nw; ++k) {
    const paddle_run *r = &p->run[k];
    for (int i = 0; p->ran[k] && i < r->n_series; ++i)
      fprintf(s, "%g\t%.5f\t%.6g\t%.6g\t%.6g\n", r->omega_nom, r->series[4 * i], r->series[4 * i + 1],
              r->series[4 * i + 2], r->series[4 * i + 3]);
    if (p->ran[k]) fprintf(s, "\n\n");
  }
  fclose(s);
  if (!p->z.n) return;
  FILE *c = bg_lab_tsv(lab, "zeta.tsv",
                       "the two plate drags that measure zeta in the run's sand (exp_rft's "
                       "rft_drag), alpha against zeta times the generic form",
                       "beta_deg\tgamma_deg\tdepth_m\talpha_z_N_cm3\talpha_x_N_cm3\t"
                       "generic_z_N_cm3\tgeneric_x_N_cm3");
  for (int k = 0; k < p->z.n; ++k) {
    const rft_run *d = &p->z.drag[k];
    double gz, gx;
    rft_generic(d->beta_fed, d->gamma_fed, &gz, &gx);
    fprintf(c, "%.4g\t%.4g\t%.5g\t%.5g\t%.5g\t%.5g\t%.5g\n", d->beta_fed * 90 / 1.5707963267948966,
            d->gamma_fed * 90 / 1.5707963267948966, d->depth, d->alpha_z * 1e-6, d->alpha_x * 1e-6,
            p->z.zeta * gz * 1e-6, p->z.zeta * gx * 1e-6);
  }
  fclose(c);
}

/* The slow points' torque: range, mean and this run's 2-sigma allowance. */
typedef struct slow_set {
  int n;
  double mean, range, allow, rft_mean, froude_max;
} slow_set;

static slow_set slow_points(bg_lab *lab, const plan *p) {
  slow_set s = {0, 0, 0, 0, 0, 0};
  double lo = INFINITY, hi = -INFINITY, se = 0;
  for (int k = 0; k < g_nw; ++k) {
    const paddle_run *r = &p->run[k];
    if (!p->ran[k] || !in_slow_set(lab, r)) continue;
    s.n++, s.mean += r->torque_stress, s.rft_mean += r->rft;
    lo = fmin(lo, r->torque_stress), hi = fmax(hi, r->torque_stress), se = fmax(se, r->stress_se);
    s.froude_max = fmax(s.froude_max, r->froude);
  }
  if (s.n < 2) return (slow_set){s.n, NAN, NAN, NAN, NAN, NAN};
  s.mean /= s.n, s.rft_mean /= s.n;
  s.range = (hi - lo) / s.mean;
  s.allow = 2 * sqrt(2.0) * se / s.mean;
  return s;
}

static void judge(bg_lab *lab, const plan *p) {
  const slow_set s = slow_points(lab, p);
  if (bg_lab_needed(lab, "paddle.rate_independent")) {
    bg_lab_claim(lab, "paddle.rate_independent", s.range);
    bg_lab_manifest_num(lab, "slow_points", s.n);
    bg_lab_manifest_num(lab, "slow_torque_range_over_mean", s.range);
    bg_lab_manifest_num(lab, "slow_torque_allowance", s.allow);
    bg_lab_manifest_num(lab, "slow_froude_max", s.froude_max);
  }
  if (bg_lab_needed(lab, "paddle.rft_torque")) {
    bg_lab_claim_fed(lab, "paddle.rft_torque", s.mean, s.rft_mean);
    /* positive control: RFT's own torque at the same poses, through the same
     * windows, slow set and comparison, must pass: the miss is the model's */
    bg_lab_claim_mutant_fed(lab, "rft-data", "paddle.rft_torque", s.rft_mean, s.rft_mean);
    bg_lab_manifest_num(lab, "slow_torque_N_m_m", s.mean);
    bg_lab_manifest_num(lab, "rft_torque_N_m_m", s.rft_mean);
    bg_lab_manifest_num(lab, "zeta_N_cm3", p->z.zeta * 1e-6);
    bg_lab_manifest_num(lab, "zeta_over_rho0_g", p->z.zeta / p->z.rho0_g);
    bg_lab_manifest_num(lab, "zeta_calibration_misfit", p->z.misfit);
  }
  write_outputs(lab, p);
}

int main(int argc, char **argv) {
  bg_lab *lab = parse_options(argc, argv);
  rft_read_coefficients(lab);
  bg_material m = bg_lab_material(lab);
  bg_lab_manifest_material(lab, &m);
  plan *p = calloc(1, sizeof *p);
  if (!p) bg_lab_fail("out of memory");
  run_all(lab, p);
  judge(lab, p);
  for (int k = 0; k < g_nw; ++k) free(p->run[k].series);
  for (int k = 0; k < p->z.n; ++k) free(p->z.drag[k].series);
  free(p);
  return bg_lab_finish(lab);
}
