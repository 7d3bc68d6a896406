/* probe_constitutive.c: one material element driven to critical state in
 * triaxial compression through the solver's own return map (the functions
 * of core/physics, not a copy), to check that the Drucker-Prager cone with
 * Klar's alpha mobilises the fed friction angle, what the fixed-corotated
 * force stress would change, and that hardening moves phi as phi_F(q).
 *
 * The loading is coaxial, so the element lives in principal Hencky strain:
 * each increment adds (d_axial, d_lat, d_lat) to the elastic strain, and
 * d_lat is found (GSL Brent) so that the lateral Kirchhoff stress after the
 * return map equals the confining pressure. Compression is negative.
 * The rate-dependent models' simple shear is in probe_shear.c. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_lab.h"
#include "bg_materials.h"
#include "bg_stress.h"
#include "probe_elastic.h"
#include "probe_shear.h"
#include "probe_snow.h"
#include "probe_triax.h"
#include "probe_source.h"
#include "probe_vm.h"
#include "probe_water.h"

/* Consecutive shear increments that count as critical state. */
#define CRIT_RUN 100

/* The force-stress gap grows with elastic strain, i.e. with p / E; it is
 * claimed at the pressures the lab's scenes reach: rho0 g H for columns up
 * to ~0.23 m of Klar's sand is 5 kPa. Higher pressures are reported. */
#define SCENE_PRESSURE 5e3

static bg_vec3 trial_strain(const drive *d, double d_lat) {
  bg_vec3 t = d->e.eps;
  t.v[0] += (bg_real)d->d_axial;
  if (d->axes == AXES_TRIAXIAL) t.v[1] += (bg_real)d_lat;
  t.v[2] += (bg_real)d_lat;
  return t;
}

/* Lateral stress after the return map, plus the confining pressure: the
 * root is the lateral strain increment that keeps the cell pressure. */
static double lateral_residual(double d_lat, void *param) {
  drive *d = param;
  d->alpha_used = bg_dp_c_alpha(&d->m->c.dp, d->e.q);
  d->r = bg_dp_return_map_coh(trial_strain(d, d_lat), d->e.log_jp, d->m->el.lame, d->alpha_used,
                              bg_dp_c_tip(&d->m->c.dp, d->e.q), d->m->c.dp.beta_loss, d->m->el.volume_correction);
  bg_vec3 tau = bg_tau_hencky_eps(d->r.eps, d->m->el.lame);
  if (d->axes == AXES_PLANE) return (double)tau.v[2] + d->p_conf;
  return 0.5 * ((double)tau.v[1] + tau.v[2]) + d->p_conf;
}

/* One increment; returns 0 on success. */
int drive_step(drive *d, gsl_root_fsolver *solver) {
  gsl_function f = {lateral_residual, d};
  double a = -fabs(d->d_axial) * 2.0, b = fabs(d->d_axial) * 2.0;
  double fa = lateral_residual(a, d), fb = lateral_residual(b, d);
  for (int k = 0; k < 20 && fa * fb > 0; ++k) {
    a *= 2;
    b *= 2;
    fa = lateral_residual(a, d);
    fb = lateral_residual(b, d);
  }
  if (fa * fb > 0) return -1;
  gsl_root_fsolver_set(solver, &f, a, b);
  int status = GSL_CONTINUE;
  for (int it = 0; it < 200 && status == GSL_CONTINUE; ++it) {
    gsl_root_fsolver_iterate(solver);
    double lo = gsl_root_fsolver_x_lower(solver), hi = gsl_root_fsolver_x_upper(solver);
    /* float state: the residual cannot resolve increments below ~1e-9 */
    status = gsl_root_test_interval(lo, hi, 1e-13, 1e-9);
  }
  double root = gsl_root_fsolver_root(solver);
  lateral_residual(root, d); /* leaves d->r at the root */
  d->e.eps = d->r.eps;
  d->e.log_jp = d->r.log_jp;
  d->e.q += d->r.dq;
  return 0;
}

/* Mobilised friction angle from principal Kirchhoff stresses: the most and
 * least compressive give sin phi = (t1 - t3) / (t1 + t3), compression < 0. */
static double phi_mob_deg(bg_vec3 tau) {
  double lo = tau.v[0], hi = tau.v[0];
  for (int i = 1; i < 3; ++i) {
    if (tau.v[i] < lo) lo = tau.v[i];
    if (tau.v[i] > hi) hi = tau.v[i];
  }
  if (!(lo + hi < 0)) return 0.0;
  return asin((lo - hi) / (lo + hi)) * 180.0 / M_PI;
}

/* The probe's mutants (references/mutants.tsv says what each must flip). */
static const char *const mutants[] = {"alpha-extension", "stiff-sand", "hardening-off", "cone-swapped",
                                      "mui-rate-sqrt2", "ngf-rate-sqrt2",
                                      /* the other models' probes (probe_<model>.c) */
                                      "water-gamma-6", "water-cfl-speed", "water-viscosity-half", "lame-swapped",
                                      "nh-log-j-linear", "cohesion-tip-c", "cohesion-alpha-extension",
                                      "cohesion-ignored", "cohesion-beta-ignored", "snow-theta-swapped",
                                      "snow-hardening-sign", "snow-jp-trial", PROBE_VM_MUTANTS PROBE_SOURCE_MUTANTS NULL};

/* Klar 2016's sand through the registry's own prepare step, on the given
 * cone. The stiff-sand mutant takes E ten times larger, which shrinks the
 * elastic strain at the same pressure; alpha-extension puts the cone of the
 * triaxial-compression test through the extension meridian, and
 * cone-swapped gives every test a cone matched to another stress state: a
 * wrong alpha a correct probe must catch. */
/* The inner-loop coefficients exactly as bg_sim_create derives them (the
 * library's public mapping), with its checks. */
static bg_mat params_of(const bg_material *m) {
  bg_mat c;
  char err[512];
  if (bg_material_params(m, &c, err, sizeof err) != BG_OK) bg_lab_fail("material: %s", err);
  return c;
}

static bg_mat make_sand(const bg_lab *lab, double phi, int hardening, bg_dp_cone cone) {
  bg_material m = bg_material_sand();
  if (bg_lab_mutant_is(lab, "stiff-sand")) m.E = 3.537e6f;
  m.dp.phi_deg = (bg_real)phi;
  if (bg_lab_mutant_is(lab, "alpha-extension") && cone == BG_CONE_COMPRESSION) cone = BG_CONE_EXTENSION;
  if (bg_lab_mutant_is(lab, "cone-swapped"))
    cone = cone == BG_CONE_COMPRESSION ? BG_CONE_EXTENSION : BG_CONE_COMPRESSION;
  m.dp.cone = cone;
  m.dp.hardening = hardening && !bg_lab_mutant_is(lab, "hardening-off");
  return params_of(&m);
}

/* Isotropic consolidation to p_conf: tau_i = (2 mu + 3 lambda) e0 = -p. */
element consolidated(const bg_mat *m, double p_conf) {
  element e;
  double e0 = -p_conf / (2.0 * m->el.lame.mu + 3.0 * m->el.lame.lambda);
  for (int i = 0; i < 3; ++i) e.eps.v[i] = (bg_real)e0;
  e.log_jp = 0;
  e.q = 0;
  return e;
}

/* alpha that puts the Drucker-Prager cone through the Mohr-Coulomb
 * compression-meridian point (a, b, b), found by root finding on the yield
 * function in stress form, ||dev tau|| + alpha tr tau = 0, in double, from
 * the Mohr-Coulomb condition alone (no use of Klar's closed form). */
typedef struct mc_point {
  double dev, tr;
} mc_point;

static double dp_yield(double alpha, void *p) {
  const mc_point *s = p;
  return s->dev + alpha * s->tr;
}

static double alpha_from_mc(double phi_deg, gsl_root_fsolver *solver) {
  double s = sin(phi_deg * M_PI / 180.0);
  /* Mohr-Coulomb in compression: (a - b) = s (a + b) with b = -1 */
  double b = -1.0, a = -(1.0 + s) / (1.0 - s);
  double mean = (a + 2 * b) / 3.0;
  mc_point pt = {sqrt((a - mean) * (a - mean) + 2 * (b - mean) * (b - mean)), a + 2 * b};
  gsl_function f = {dp_yield, &pt};
  gsl_root_fsolver_set(solver, &f, 0.0, 2.0);
  int status = GSL_CONTINUE;
  for (int it = 0; it < 200 && status == GSL_CONTINUE; ++it) {
    gsl_root_fsolver_iterate(solver);
    status = gsl_root_test_interval(gsl_root_fsolver_x_lower(solver), gsl_root_fsolver_x_upper(solver),
                                    1e-15, 1e-14);
  }
  return gsl_root_fsolver_root(solver);
}

typedef struct options {
  double strain_end, d_step, q_end;
} options;

/* The confining pressures every cone is driven at. */
typedef struct pressures {
  const double *p;
  int n;
} pressures;

static const double phis[] = {20, 25, 30, 35, 40, 45};
#define N_PHI ((int)(sizeof phis / sizeof phis[0]))

/* The Drucker-Prager cone in triaxial compression: its fed phi, and the gap
 * to the fixed-corotated force stress. */
typedef struct triaxial {
  double max_err, max_gap, max_gap_all;
} triaxial;

/* Parses the options; the probe runs each model in its own section, so it
 * takes no --material. */
static bg_lab *parse_options(int argc, char **argv, options *o) {
  /* clang-format off */
  *o = (options){0, 0, 0};
  bg_lab_param params[] = {
      {.name = "axial-strain", .type = BG_PARAM_DOUBLE, .dest = &o->strain_end, .lo = 1e-3,
       .hi = 1.0, .help = "final axial log strain (magnitude)", .quick = "1", .paper = "1",
       .key = "axial_strain_end"},
      {.name = "increment", .type = BG_PARAM_DOUBLE, .dest = &o->d_step, .lo = 1e-6, .hi = 1e-1,
       .help = "axial strain per increment", .quick = "2e-4", .paper = "2.5e-5"},
      {.name = "hardening-q", .type = BG_PARAM_DOUBLE, .dest = &o->q_end, .lo = 1.0, .hi = 100.0,
       .help = "plastic strain q reached with hardening on", .quick = "30", .paper = "30",
       .key = "hardening_q_end"},
  };
  /* clang-format on */
  bg_lab *lab = bg_lab_init("probe_constitutive",
                            "Triaxial compression of one element through the solver's return map.",
                            argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
  if (bg_lab_material_model(lab) != BG_MODEL_DP)
    bg_lab_fail("--material: the probe runs each model in its own section (Drucker-Prager's cones, mu(I)'s and "
                "nonlocal fluidity's "
                "simple shear); it takes no --material");
  return lab;
}

static pressures confining_pressures(const bg_lab *lab) {
  static const double pconf_quick[] = {1e3, 5e3, 5e4};
  static const double pconf_paper[] = {1e2, 1e3, 2e3, 5e3, 2e4, 5e4};
  int paper = bg_lab_scale(lab) == BG_SCALE_PAPER;
  return (pressures){paper ? pconf_paper : pconf_quick, paper ? 6 : 3};
}

/* Triaxial compression of the compression cone at every (phi, p_conf) to
 * critical state; paths.tsv and critical.tsv. */
static triaxial triaxial_compression(bg_lab *lab, gsl_root_fsolver *solver, const options *o,
                                     pressures pc) {
  const double *pconf = pc.p, d_step = o->d_step, strain_end = o->strain_end;
  FILE *paths = bg_lab_tsv(lab, "paths.tsv",
                           "triaxial compression paths: every increment up to 200, then every 10th; blank lines separate paths",
                           "phi_deg\tp_conf_Pa\taxial_strain\tp_Pa\tq_Pa\tphi_mob_deg\tphi_mob_fcr_deg\tmode");
  FILE *crit = bg_lab_tsv(lab, "critical.tsv", "critical state per (phi, confining pressure)",
                          "phi_deg\tp_conf_Pa\tphi_mob_deg\terr_deg\tphi_mob_fcr_deg\tgap_fcr_deg\tshear_steps");
  double max_err = 0, max_gap = 0, max_gap_all = 0;
  int failures = 0;
  for (int ip = 0; ip < N_PHI; ++ip) {
    for (int ic = 0; ic < pc.n; ++ic) {
      bg_mat m = make_sand(lab, phis[ip], 0, BG_CONE_COMPRESSION);
      drive d = {&m, consolidated(&m, pconf[ic]), -d_step, pconf[ic], AXES_TRIAXIAL, {{{0}}, 0, 0, 0}, 0};
      /* critical state: CRIT_RUN consecutive increments flowing on the cone;
       * strain_end bounds the path for elements that never get there */
      int n_inc = (int)ceil(strain_end / d_step), shear = 0, run = 0;
      double last_phi = 0, last_fcr = 0;
      for (int k = 1; k <= n_inc && run < CRIT_RUN; ++k) {
        if (drive_step(&d, solver) != 0) {
          failures++;
          break;
        }
        bg_vec3 tau = bg_tau_hencky_eps(d.e.eps, m.el.lame);
        bg_vec3 sig;
        for (int i = 0; i < 3; ++i) sig.v[i] = expf(d.e.eps.v[i]);
        bg_vec3 tfc = bg_tau_fixed_corotated(sig, m.el.lame);
        last_phi = phi_mob_deg(tau);
        last_fcr = phi_mob_deg(tfc);
        if (d.r.mode == BG_RM_SHEAR) {
          shear++;
          run++;
        } else {
          run = 0;
        }
        if (k <= 200 || k % 10 == 0 || k == n_inc || run == CRIT_RUN) {
          double tr = (double)tau.v[0] + tau.v[1] + tau.v[2], mean = tr / 3.0, dev2 = 0;
          for (int i = 0; i < 3; ++i) dev2 += (tau.v[i] - mean) * (tau.v[i] - mean);
          fprintf(paths, "%g\t%g\t%.6g\t%.6g\t%.6g\t%.7f\t%.7f\t%d\n", phis[ip], pconf[ic],
                  k * d_step, -mean, sqrt(1.5 * dev2), last_phi, last_fcr, d.r.mode);
        }
      }
      fprintf(paths, "\n\n");
      /* critical state: the element flows on the cone at the end of the path */
      double err = fabs(last_phi - phis[ip]), gap = fabs(last_fcr - last_phi);
      if (d.r.mode != BG_RM_SHEAR) err = NAN; /* never reached the cone: the claim fails */
      fprintf(crit, "%g\t%g\t%.7f\t%.3g\t%.7f\t%.3g\t%d\n", phis[ip], pconf[ic], last_phi, err, last_fcr,
              gap, shear);
      max_err = (isnan(err) || err > max_err) ? err : max_err;
      if (pconf[ic] <= SCENE_PRESSURE && gap > max_gap) max_gap = gap;
      /* NaN: the fixed-corotated stress left the compression regime (a
       * principal stress turned tensile), the worst case there is */
      if (isnan(gap) || gap > max_gap_all) max_gap_all = isnan(max_gap_all) ? max_gap_all : gap;
    }
    bg_lab_progress(lab, "phi %g: %d confining pressures done, max |phi_mob - phi| so far %.3g deg",
                    phis[ip], pc.n, max_err);
  }
  fclose(paths);
  fclose(crit);
  if (failures) max_err = NAN;
  return (triaxial){max_err, max_gap, max_gap_all};
}

/* Klar's alpha against the one fitted to the Mohr-Coulomb compression
 * meridian (alpha.tsv); returns the largest relative difference. */
static double alpha_table(bg_lab *lab, gsl_root_fsolver *solver) {
  FILE *al = bg_lab_tsv(lab, "alpha.tsv", "Klar alpha vs alpha fitted to Mohr-Coulomb (compression)",
                        "phi_deg\talpha_klar\talpha_mc\trel_diff");
  double max_alpha = 0;
  for (double phi = 5; phi <= 60.0001; phi += 2.5) {
    double ak = bg_dp_alpha((bg_real)phi), am = alpha_from_mc(phi, solver);
    double rel = fabs(ak - am) / am;
    fprintf(al, "%g\t%.9g\t%.9g\t%.3g\n", phi, ak, am, rel);
    if (rel > max_alpha) max_alpha = rel;
  }
  fclose(al);
  return max_alpha;
}

/* Hardening on: phi_mob at critical state against phi_F(q) up to q_end
 * (hardening.tsv); returns the largest difference, deg. */
static double hardening_path(bg_lab *lab, gsl_root_fsolver *solver, const options *o) {
  FILE *hd = bg_lab_tsv(lab, "hardening.tsv", "hardening on (h0 35, h1 9, h2 0.2, h3 10 deg), confining pressure 10 kPa; every 25th increment, shear increments only",
                        "q\tphi_F_deg\tphi_mob_deg\terr_deg");
  double max_hard = 0;
  bg_mat m = make_sand(lab, 35, 1, BG_CONE_COMPRESSION);
  const double p = 1e4;
  drive d = {&m, consolidated(&m, p), -o->d_step * 5, p, AXES_TRIAXIAL, {{{0}}, 0, 0, 0}, 0};
  int k = 0, reached = 0;
  while (d.e.q < o->q_end && k < 10000000) {
    bg_real q_before = d.e.q;
    if (drive_step(&d, solver) != 0) {
      max_hard = NAN;
      break;
    }
    k++;
    if (d.r.mode != BG_RM_SHEAR) continue;
    reached = 1;
    /* the return map used alpha(phi_F(q before the increment)) */
    double phif = bg_hardening_phi_deg(q_before, m.c.dp.h0, m.c.dp.h1, m.c.dp.h2, m.c.dp.h3);
    double pm = phi_mob_deg(bg_tau_hencky_eps(d.e.eps, m.el.lame));
    double err = fabs(pm - phif);
    if (err > max_hard) max_hard = err;
    if (k % 25 == 0) fprintf(hd, "%.6g\t%.7f\t%.7f\t%.3g\n", (double)q_before, phif, pm, err);
  }
  if (!reached) max_hard = NAN;
  bg_lab_progress(lab, "hardening: q = %.2f after %d increments, max |phi_mob - phi_F| %.3g deg",
                  (double)d.e.q, k, max_hard);
  fclose(hd);
  return max_hard;
}

/* One cone matching driven to critical state in its own stress state: the
 * extension cone in triaxial extension (which == 0), the plane-strain cone
 * in plane-strain compression (which == 1); one row of cones.tsv. Returns
 * |phi_mob - phi|, NaN when it never flowed on the cone. */
static double cone_critical(bg_lab *lab, gsl_root_fsolver *solver, const options *o, FILE *cn, int which,
                            double phi, double p_conf) {
  const double d_step = o->d_step;
  bg_mat m = make_sand(lab, phi, 0, which == 0 ? BG_CONE_EXTENSION : BG_CONE_PLANE_STRAIN);
  drive d = {&m, consolidated(&m, p_conf), which == 0 ? d_step : -d_step, p_conf,
             which == 0 ? AXES_TRIAXIAL : AXES_PLANE, {{{0}}, 0, 0, 0}, 0};
  /* plane strain approaches its critical state only exponentially:
   * each increment removes about d / |eh| of the out-of-plane deviator,
   * |eh| = sin(phi) p / (sqrt(2) G) on this cone, and the float
   * rounding of every increment is amplified by |eh| / d. So the
   * increment is at least |eh| / 50 and the path runs for 40
   * e-foldings (and at least strain_end); triaxial extension keeps
   * d_step and stops at CRIT_RUN */
  double eh_cone = sin(phi * M_PI / 180.0) * p_conf / (sqrt(2.0) * m.el.lame.mu);
  double d_inc = which == 1 ? fmax(d_step, eh_cone / 50.0) : d_step;
  d.d_axial = which == 0 ? d_inc : -d_inc;
  int n_inc = (int)ceil(fmax(o->strain_end, which == 1 ? 40.0 * eh_cone : 0.0) / d_inc), run = 0, k = 0, bad = 0;
  for (k = 1; k <= n_inc && (which == 1 || run < CRIT_RUN); ++k) {
    if (drive_step(&d, solver) != 0) {
      bad = 1;
      break;
    }
    run = d.r.mode == BG_RM_SHEAR ? run + 1 : 0;
  }
  bg_vec3 tau = bg_tau_hencky_eps(d.e.eps, m.el.lame);
  double pm = phi_mob_deg(tau);
  double err = (bad || d.r.mode != BG_RM_SHEAR) ? NAN : fabs(pm - phi);
  /* Lode parameter b = (s2 - s3) / (s1 - s3): 0 in triaxial
   * compression, 1 in extension, 1/2 at the plane-strain critical state */
  double t[3] = {tau.v[0], tau.v[1], tau.v[2]};
  for (int i = 0; i < 2; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (t[j] < t[i]) {
        double x = t[i];
        t[i] = t[j];
        t[j] = x;
      }
  double b = (t[1] - t[0]) / (t[2] - t[0]);
  fprintf(cn, "%s\t%g\t%g\t%.7f\t%.3g\t%.6f\t%d\n", which == 0 ? "extension" : "plane_strain", phi, p_conf, pm,
          err, b, k - 1);
  return err;
}

/* The other two cone matchings, each in the stress state it is matched to
 * (references/derivations/cone.md): at the plane-strain critical state the
 * out-of-plane stress settles at the mean of the other two because the
 * plastic flow is deviatoric. Each must mobilise phi; cones.tsv. */
static void other_cones(bg_lab *lab, gsl_root_fsolver *solver, const options *o, pressures pc,
                        double *max_ext, double *max_ps) {
  FILE *cn = bg_lab_tsv(lab, "cones.tsv", "critical state of each cone matching in its own stress state",
                        "cone\tphi_deg\tp_conf_Pa\tphi_mob_deg\terr_deg\tb_lode\tincrements");
  *max_ext = 0;
  *max_ps = 0;
  for (int which = 0; which < 2; ++which) {
    double *mx = which == 0 ? max_ext : max_ps;
    for (int ip = 0; ip < N_PHI; ++ip)
      for (int ic = 0; ic < pc.n; ++ic) {
        double err = cone_critical(lab, solver, o, cn, which, phis[ip], pc.p[ic]);
        *mx = (isnan(err) || err > *mx) ? err : *mx;
      }
    bg_lab_progress(lab, "%s cone: max |phi_mob - phi| %.3g deg", which == 0 ? "extension" : "plane-strain",
                    *mx);
  }
  fclose(cn);
}

int main(int argc, char **argv) {
  options o;
  bg_lab *lab = parse_options(argc, argv, &o);
  const pressures pc = confining_pressures(lab);
  bg_lab_manifest_str(lab, "device", "host: header functions only, no grid");
  bg_lab_manifest_str(lab, "material", "Klar 2016 sand: E 3.537e5 Pa, nu 0.3, Hencky, volume correction on");

  /* run and read out, one element per section: Drucker-Prager's cones first */
  gsl_set_error_handler_off();
  gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  triaxial tx = triaxial_compression(lab, solver, &o, pc);
  double max_alpha = alpha_table(lab, solver);
  double max_hard = hardening_path(lab, solver, &o);
  double max_ext, max_ps;
  other_cones(lab, solver, &o, pc, &max_ext, &max_ps);
  probe_cohesion(lab, solver, o.d_step, o.strain_end); /* cohesive sand: q_u, the tip, beta */
  gsl_root_fsolver_free(solver);
  /* then the rate-dependent models in steady simple shear */
  shear_check mui = probe_shear_mui(lab);
  shear_check ngf = probe_shear_ngf(lab);
  /* the other models, each judged in its own file, snow below */
  probe_water(lab);   /* Tait's pressure and the sound speed of a pulse */
  probe_elastic(lab); /* uniaxial stress against the hyperelastic closed forms */
  probe_vm(lab);      /* von Mises' yield stresses and plastic incompressibility */
  probe_source(lab);  /* an emitter's jet in free fall: its rate and arrival */
  snow_check snow = probe_snow(lab); /* snow under known compressions */

  /* judge. Klar's closed form against the Mohr-Coulomb meridian is an
   * identity, so it is tabulated (alpha.tsv) and not claimed:
   * probe.triaxial.phi checks the alpha the return map actually uses, end
   * to end */
  bg_lab_manifest_num(lab, "alpha_max_rel_diff_mc", max_alpha);
  bg_lab_manifest_num(lab, "max_err_deg", tx.max_err);
  bg_lab_manifest_num(lab, "force_stress_gap_all_pressures_deg", tx.max_gap_all);
  bg_lab_manifest_num(lab, "scene_pressure_Pa", SCENE_PRESSURE);
  bg_lab_claim(lab, "probe.triaxial.phi", tx.max_err);
  bg_lab_claim(lab, "probe.force_stress_gap", tx.max_gap);
  bg_lab_claim(lab, "probe.hardening", max_hard);
  bg_lab_claim(lab, "probe.extension.phi", max_ext);
  bg_lab_claim(lab, "probe.plane_strain.phi", max_ps);
  bg_lab_claim(lab, "probe.mui.simple_shear", mui.max_err);
  bg_lab_claim(lab, "probe.ngf.simple_shear", ngf.max_err);
  bg_lab_manifest_num(lab, "ngf_max_rate_rel_err", ngf.max_rate);
  bg_lab_claim(lab, "probe.snow_clamp", snow.clamp_err);
  bg_lab_claim(lab, "probe.snow_jp", snow.jp_err);
  bg_lab_claim(lab, "probe.snow_lame", snow.lame_err);
  /* the plastic rate against the imposed one is tabulated, not claimed: it
   * differs by terms of the order of the elastic strain (the logarithmic
   * rate, the pressure's drift in shear), which no claim here bounds */
  bg_lab_manifest_num(lab, "mui_max_rate_rel_err", mui.max_rate);
  return bg_lab_finish(lab);
}
