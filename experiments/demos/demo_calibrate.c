/* demo_calibrate.c: recover a hidden friction angle from a measured deposit.
 *
 * The "measured" deposit: a column of Drucker-Prager sand (aspect a, radius
 * R0, floor Coulomb mu) collapsed with the hidden angle phi_true, from its
 * own seed (its own jittered lattice), its profile read by a scanner with
 * its own noise: every annulus height rounded to the scanner's step
 * (--scan-step) plus Gaussian noise (--scan-sd, GSL RNG, its own seed). The
 * search never sees phi_true: it only reads the scanned profile.
 *
 * Search: a GSL minimiser (gsl_min_fminimizer_goldensection) over phi in
 * [phi_lo, phi_hi] on the misfit S(phi), the RMS difference between the
 * simulated and the measured radial profiles (annuli dx wide, out to the
 * last annulus either holds material), each evaluation one full 3D collapse
 * at the model's own fixed seed (common random numbers, so S is a
 * deterministic function of phi). The bracket starts from the range's ends
 * and its golden-section point; until the interval is below --xtol.
 *
 * Tolerance, derived from the run's own measurements (no fixed number):
 *  - sensitivity: two runs at phi_rec +- delta give the profile's derivative
 *    s(r) = dh/dphi and the runout's dR/dphi;
 *  - run-to-run noise: K replicate runs at phi_rec with other seeds; each
 *    replicate's profile difference from the model's run, projected on s
 *    (the Gauss-Newton step that would fit it), is the phi shift that
 *    realisation alone causes: sigma_run their standard deviation;
 *  - scanner: the height noise sigma_h (sd plus step / sqrt 12) moves phi
 *    by sigma_h / |s|;
 *  - the error phi_rec - phi_true carries the measured deposit's realisation
 *    and the model's (one each), and the scanner's:
 *    sigma_phi = sqrt(2 sigma_run^2 + sigma_scan^2); tolerance
 *    3 sigma_phi + half the minimiser's final interval.
 * Claims: demo.calibrate.error = |phi_rec - phi_true| / tolerance <= 1;
 * demo.calibrate.tolerance <= 1 deg (a tolerance too wide to say anything
 * fails); demo.calibrate.misfit = S(phi_rec) over the misfit noise alone
 * implies, sqrt(S_run^2 + sigma_h^2) with S_run the replicates' RMS profile
 * difference from the model's run: a model that cannot reproduce the
 * deposit's shape at any phi leaves a misfit above its noise. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"

#define MAX_EVAL 96
#define MAX_REP 16

typedef struct profile {
  int n;
  double *h; /* annulus heights, m; n bins dx wide from the axis */
  double runout, h_center;
} profile;

typedef struct eval {
  double phi, S, runout, h_center;
  const char *role;
  unsigned long seed;
} eval;

typedef struct ctx {
  bg_lab *lab;
  bg_column_scene base;
  profile meas;
  int nb; /* bins of every profile (the same domain and dx) */
  eval ev[MAX_EVAL];
  profile evp[MAX_EVAL];
  int n, max_sims, n_search;
  const char *role;
} ctx;

static profile run_profile(ctx *c, double phi, unsigned long seed, double mu_floor,
                           const char *tag) {
  bg_column_scene sc = c->base;
  sc.phi = phi;
  sc.material.dp.phi_deg = (bg_real)phi;
  sc.seed = seed;
  sc.mu = mu_floor;
  bg_column_result r = bg_column_run(c->lab, &sc, tag);
  bg_lab_add_work(c->lab, (double)r.n_particles * (double)r.steps);
  profile p;
  p.n = c->nb;
  p.h = calloc((size_t)c->nb, sizeof *p.h);
  if (!p.h) bg_lab_fail("out of memory for a profile");
  for (int b = 0; b < r.nbins; ++b) {
    int k = (int)floor(r.rbin[b] / r.dx);
    if (k >= 0 && k < c->nb) p.h[k] = r.hbin[b];
  }
  p.runout = r.front;
  p.h_center = r.h_center;
  if (!r.settled)
    bg_lab_progress(c->lab,
                    "%s: did not settle within t_max (kinetic energy %.3g of the threshold)", tag,
                    r.ke_end / r.ke_thresh);
  if (r.runout_wall)
    bg_lab_fail("%s: the deposit reached the domain's far wall: raise --domain", tag);
  bg_column_result_free(&r);
  return p;
}

/* RMS of a - b over the annuli either holds material in */
static double rms_diff(const profile *a, const profile *b) {
  double s = 0;
  int m = 0;
  for (int k = 0; k < a->n; ++k) {
    if (a->h[k] <= 0 && b->h[k] <= 0) continue;
    double d = a->h[k] - b->h[k];
    s += d * d;
    m++;
  }
  return m ? sqrt(s / m) : NAN;
}

static double objective(double phi, void *vp) {
  ctx *c = vp;
  /* the minimiser asks again for points it has, recomputed to the last bits
   * (a float angle gives the same run for any phi within ~1e-6 deg) */
  for (int i = 0; i < c->n; ++i)
    if (fabs(c->ev[i].phi - phi) < 1e-9 * fabs(phi) && !strcmp(c->ev[i].role, c->role))
      return c->ev[i].S;
  if (c->n >= c->max_sims || c->n >= MAX_EVAL)
    bg_lab_fail("the search used its %d simulations (--max-sims) without converging", c->max_sims);
  char tag[64];
  snprintf(tag, sizeof tag, "sim %d (phi %.3f)", c->n + 1, phi);
  profile p = run_profile(c, phi, c->base.seed, c->base.mu, tag);
  double S = rms_diff(&p, &c->meas);
  eval e = {phi, S, p.runout, p.h_center, c->role, c->base.seed};
  c->ev[c->n] = e;
  c->evp[c->n] = p;
  c->n++;
  c->n_search++;
  bg_lab_progress(c->lab, "sim %d: phi %.4f deg: misfit %.3f mm, runout %.2f mm", c->n, phi,
                  S * 1e3, p.runout * 1e3);
  return S;
}

static const char *const calibrate_mutants[] = {"floor-mu-wrong", "scanner-coarse", NULL};

typedef struct options {
  double phi_true, phi_lo, phi_hi, aspect, R0, mu_floor, jitter, scan_step, scan_sd, xtol, delta,
      t_max, domain;
  int cells, reps, max_sims;
} options;

/* What the minimiser found. */
typedef struct search {
  double phi, S, interval;
  int at_edge, n_sims;
  int i_rec; /* the evaluation at phi */
} search;

/* The tolerance's parts, measured at the recovered angle. */
typedef struct noise {
  profile pp, pm;    /* the sensitivity runs at phi +- delta */
  double *sv;        /* dh/dphi per annulus */
  double ss, dRdphi; /* |dh/dphi|^2 and the runout's derivative */
  double sigma_run, sigma_R, sigma_scan, sigma_phi, tol, tol10, S_noise;
} noise;

/* The options no range can check, by bg_lab_init before the run folder is
 * touched (a bad one: exit 2, no folder, no marker). */
static void check_options(void *arg) {
  const options *o = arg;
  if (o->phi_lo >= o->phi_hi) {
    bg_lab_fail("--phi-lo %g must be below --phi-hi %g", o->phi_lo, o->phi_hi);
  }
  if (o->phi_true <= o->phi_lo || o->phi_true >= o->phi_hi) {
    bg_lab_fail("--phi-true %g must lie inside the search range (%g, %g)", o->phi_true,
            o->phi_lo, o->phi_hi);
  }
}

/* Parses and checks the options; exits 2 on a bad one. */
static bg_lab *parse_options(int argc, char **argv, options *o) {
  /* clang-format off */
  *o = (options){.phi_true = 31.7, .phi_lo = 20, .phi_hi = 45, .aspect = 2, .R0 = 0.05,
                 .mu_floor = 0.6, .jitter = 0.5, .scan_step = 0.5e-3, .scan_sd = 0.5e-3,
                 .xtol = 0.05, .delta = 1.0, .t_max = 6, .domain = 5.5, .max_sims = 40};
  bg_lab_param params[] = {
      {.name = "phi-true", .type = BG_PARAM_DOUBLE, .dest = &o->phi_true, .lo = 20, .hi = 45,
       .help = "the hidden friction angle of the measured deposit, deg", .key = "phi_true_deg"},
      {.name = "phi-lo", .type = BG_PARAM_DOUBLE, .dest = &o->phi_lo, .lo = 10, .hi = 60,
       .help = "lower end of the search range, deg", .key = "phi_lo_deg"},
      {.name = "phi-hi", .type = BG_PARAM_DOUBLE, .dest = &o->phi_hi, .lo = 10, .hi = 60,
       .help = "upper end of the search range, deg", .key = "phi_hi_deg"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &o->aspect, .lo = 0.25, .hi = 12,
       .help = "column aspect ratio H0 / R0"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &o->R0, .lo = 0.01, .hi = 0.5,
       .help = "column radius R0, m", .key = "radius_m"},
      {.name = "cells", .type = BG_PARAM_INT, .dest = &o->cells, .lo = 4, .hi = 256,
       .help = "cells per R0", .quick = "8", .paper = "24", .key = "cells_per_R0"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &o->mu_floor, .lo = 0.05, .hi = 5,
       .help = "floor Coulomb coefficient (the measured deposit's and the model's)"},
      {.name = "domain", .type = BG_PARAM_DOUBLE, .dest = &o->domain, .lo = 2, .hi = 20,
       .help = "quarter-domain extent, in R0", .key = "domain_over_R0"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &o->jitter, .lo = 0, .hi = 1,
       .help = "lattice jitter, fraction of the particle spacing"},
      {.name = "scan-step", .type = BG_PARAM_DOUBLE, .dest = &o->scan_step, .lo = 0, .hi = 0.05,
       .help = "the scanner's height step, m", .key = "scan_step_m"},
      {.name = "scan-sd", .type = BG_PARAM_DOUBLE, .dest = &o->scan_sd, .lo = 0, .hi = 0.05,
       .help = "the scanner's Gaussian height noise, m", .key = "scan_sd_m"},
      {.name = "xtol", .type = BG_PARAM_DOUBLE, .dest = &o->xtol, .lo = 1e-3, .hi = 5,
       .help = "the minimiser stops when its interval is below this, deg", .key = "xtol_deg"},
      {.name = "delta", .type = BG_PARAM_DOUBLE, .dest = &o->delta, .lo = 0.05, .hi = 5,
       .help = "half step of the sensitivity runs, deg", .key = "delta_deg"},
      {.name = "replicates", .type = BG_PARAM_INT, .dest = &o->reps, .lo = 2, .hi = MAX_REP,
       .help = "replicate runs (other seeds) at the recovered phi", .quick = "4", .paper = "6"},
      {.name = "max-sims", .type = BG_PARAM_INT, .dest = &o->max_sims, .lo = 4,
       .hi = MAX_EVAL - MAX_REP - 3, .help = "most simulations the search may use"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &o->t_max, .lo = 0.1, .hi = 30,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
  };
  /* clang-format on */
  bg_lab_accept_materials("drucker-prager", "Drucker-Prager, whose friction angle it calibrates");
  bg_lab_check_options(check_options, o);
  bg_lab *lab = bg_lab_init(
      "demo_calibrate",
      "Calibration: recover a hidden friction angle from a scanned deposit by GSL golden-section "
      "minimisation over full 3D collapses, with a tolerance from the measured sensitivity "
      "and run-to-run noise.",
      argc, argv, params, (int)(sizeof params / sizeof params[0]), calibrate_mutants);
  return lab;
}

/* The model's column; mu_model is its floor (the deposit's, or half of it
 * in the floor-mu-wrong mutant). */
static void setup_scene(ctx *c, bg_lab *lab, const options *o, double mu_model) {
  memset(c, 0, sizeof *c);
  c->lab = lab;
  c->max_sims = o->max_sims;
  bg_column_scene base = bg_column_scene_default();
  base.R0 = o->R0;
  base.aspect = o->aspect;
  base.material = bg_lab_material(lab);
  base.L_over_R0 = o->domain;
  base.t_max_s = o->t_max;
  base.jitter = o->jitter;
  base.cells = o->cells;
  base.mu = mu_model; /* on the default Coulomb floor, settle rule and runout threshold */
  base.backend = bg_lab_backend(lab);
  base.threads = bg_lab_threads(lab);
  base.seed = bg_lab_seed(lab);
  c->base = base;
  c->nb = (int)ceil(o->domain * o->cells) + 8;
  bg_lab_manifest_material(lab, &base.material);
  bg_lab_manifest_num(lab, "mu_floor_model", mu_model);
  bg_lab_manifest_str(lab, "minimiser",
                      "gsl_min_fminimizer_goldensection on the RMS profile misfit");
}

/* The measured deposit: its own seed, then the scanner (c->meas); returns
 * the deposit as it lay. */
static profile measure_deposit(ctx *c, const options *o) {
  const unsigned long seed_meas = bg_lab_seed(c->lab) * 1000003ul + 17ul;
  profile truth = run_profile(c, o->phi_true, seed_meas, o->mu_floor, "measured deposit");
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed_meas + 5ul);
  c->meas.n = c->nb;
  c->meas.h = calloc((size_t)c->nb, sizeof *c->meas.h);
  for (int k = 0; k < c->nb; ++k) {
    if (truth.h[k] <= 0) continue; /* the scanner sees the floor as zero */
    double h = truth.h[k] + gsl_ran_gaussian(rng, o->scan_sd);
    if (o->scan_step > 0) h = o->scan_step * round(h / o->scan_step);
    c->meas.h[k] = h > 0 ? h : 0;
  }
  gsl_rng_free(rng);
  return truth;
}

/* Golden-section minimisation of the misfit over [phi_lo, phi_hi]. */
static search minimise(ctx *c, const options *o) {
  const double phi_lo = o->phi_lo, phi_hi = o->phi_hi;
  gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_goldensection);
  gsl_function F = {objective, c};
  c->role = "search";
  double a = phi_lo, b = phi_hi, x = phi_lo + (3 - sqrt(5)) / 2 * (phi_hi - phi_lo);
  double fa = objective(a, c), fb = objective(b, c), fx = objective(x, c);
  /* a misfit not lower inside than at both ends: look for a bracket on a
   * grid over the range; a grid whose lowest point is an end of the range
   * says the best fit lies at that end (or beyond it): no interior minimum */
  double fend = fmin(fa, fb), pend = fa <= fb ? phi_lo : phi_hi;
  int at_edge = 0;
  for (int tries = 0; !(fx < fa && fx < fb) && tries < 3; ++tries) {
    int ng = 4 << tries, best = -1;
    double fbest = INFINITY;
    for (int i = 1; i < ng; ++i) {
      double p = phi_lo + (phi_hi - phi_lo) * i / ng, f = objective(p, c);
      if (f < fbest) {
        fbest = f;
        best = i;
      }
    }
    if (!(fbest < fend)) {
      at_edge = 1;
      break;
    }
    x = phi_lo + (phi_hi - phi_lo) * best / ng;
    fx = fbest;
    a = phi_lo + (phi_hi - phi_lo) * (best - 1) / ng;
    b = phi_lo + (phi_hi - phi_lo) * (best + 1) / ng;
    fa = objective(a, c);
    fb = objective(b, c);
  }
  if (!at_edge && !(fx < fa && fx < fb)) at_edge = 1;
  search s = {.at_edge = at_edge};
  if (at_edge) {
    /* reported, not refused: the demo's answer is then "the model cannot
     * match this deposit inside the range", which its claims show */
    s.phi = pend;
    s.S = fend;
    s.interval = 0;
    bg_lab_progress(
        c->lab,
        "no interior minimum: the misfit is lowest at the range's end, %g deg (misfit %.3f mm)",
        pend, fend * 1e3);
  } else {
    int st = gsl_min_fminimizer_set_with_values(m, &F, x, fx, a, fa, b, fb);
    if (st != GSL_SUCCESS) bg_lab_fail("gsl_min_fminimizer_set: %s", gsl_strerror(st));
    int converged = 0;
    while (!converged) {
      st = gsl_min_fminimizer_iterate(m);
      if (st != GSL_SUCCESS) bg_lab_fail("gsl_min_fminimizer_iterate: %s", gsl_strerror(st));
      converged = gsl_min_test_interval(gsl_min_fminimizer_x_lower(m),
                                        gsl_min_fminimizer_x_upper(m), o->xtol, 0) == GSL_SUCCESS;
    }
    s.phi = gsl_min_fminimizer_x_minimum(m);
    s.S = gsl_min_fminimizer_f_minimum(m);
    s.interval = gsl_min_fminimizer_x_upper(m) - gsl_min_fminimizer_x_lower(m);
  }
  gsl_min_fminimizer_free(m);
  s.n_sims = c->n_search;
  s.i_rec = -1;
  for (int i = 0; i < c->n; ++i)
    if (fabs(c->ev[i].phi - s.phi) < 1e-9 * fabs(s.phi)) s.i_rec = i;
  if (s.i_rec < 0) bg_lab_fail("the minimiser's best point %.6g deg has no run", s.phi);
  bg_lab_progress(c->lab,
                  "search: phi %.4f deg after %d simulations (interval %.4f deg), misfit %.3f mm",
                  s.phi, s.n_sims, s.interval, s.S * 1e3);
  return s;
}

/* Sensitivity and run-to-run noise at the recovered angle, the tolerance
 * they make, and replicates.tsv. */
static noise measure_noise(ctx *c, const options *o, const search *s, double mu_model) {
  const double delta = o->delta, phi_rec = s->phi;
  const int reps = o->reps;
  const profile *model = &c->evp[s->i_rec];
  noise z;
  memset(&z, 0, sizeof z);
  c->role = "sensitivity";
  z.pp = run_profile(c, phi_rec + delta, c->base.seed, mu_model, "sensitivity +");
  z.pm = run_profile(c, phi_rec - delta, c->base.seed, mu_model, "sensitivity -");
  z.dRdphi = (z.pp.runout - z.pm.runout) / (2 * delta);
  z.sv = calloc((size_t)c->nb, sizeof *z.sv);
  for (int k = 0; k < c->nb; ++k) {
    if (z.pp.h[k] <= 0 && z.pm.h[k] <= 0 && model->h[k] <= 0) continue;
    z.sv[k] = (z.pp.h[k] - z.pm.h[k]) / (2 * delta);
    z.ss += z.sv[k] * z.sv[k];
  }
  double dphi[MAX_REP + 1], Rrep[MAX_REP + 1], Srep2 = 0;
  dphi[0] = 0;
  Rrep[0] = model->runout;
  FILE *fr = bg_lab_tsv(
      c->lab, "replicates.tsv",
      "the model at the recovered phi: its own seed (replicate 0, the search's run) and other "
      "seeds; dphi: the phi shift the replicate's profile difference projects to on dh/dphi",
      "replicate\tseed\tphi_deg\trunout_m\th_center_m\trms_vs_model_m\tdphi_deg");
  fprintf(fr, "0\t%lu\t%.6f\t%.6g\t%.6g\t0\t0\n", c->base.seed, phi_rec, model->runout,
          model->h_center);
  for (int k = 1; k <= reps; ++k) {
    char tag[48];
    snprintf(tag, sizeof tag, "replicate %d/%d", k, reps);
    unsigned long sd = c->base.seed + 104729ul * (unsigned long)k;
    profile q = run_profile(c, phi_rec, sd, mu_model, tag);
    double dot = 0;
    for (int j = 0; j < c->nb; ++j) dot += (q.h[j] - model->h[j]) * z.sv[j];
    dphi[k] = z.ss > 0 ? -dot / z.ss : NAN;
    Rrep[k] = q.runout;
    double r = rms_diff(&q, model);
    Srep2 += r * r / reps;
    fprintf(fr, "%d\t%lu\t%.6f\t%.6g\t%.6g\t%.6g\t%.6g\n", k, sd, phi_rec, q.runout, q.h_center, r,
            dphi[k]);
    free(q.h);
  }
  fclose(fr);
  const double sigma_h = sqrt(o->scan_sd * o->scan_sd + o->scan_step * o->scan_step / 12);
  z.sigma_run = gsl_stats_sd(dphi, 1, (size_t)reps + 1);
  z.sigma_R = gsl_stats_sd(Rrep, 1, (size_t)reps + 1);
  /* the scanner's noise, white over the annuli, projected on s */
  z.sigma_scan = z.ss > 0 ? sigma_h / sqrt(z.ss) : NAN;
  z.sigma_phi = sqrt(2 * z.sigma_run * z.sigma_run + z.sigma_scan * z.sigma_scan);
  z.tol = 3 * z.sigma_phi + 0.5 * s->interval;
  /* the same tolerance had the scanner been ten times noisier (a measurement mutant) */
  const double sigma_scan10 = z.ss > 0 ? 10 * sigma_h / sqrt(z.ss) : NAN;
  z.tol10 =
      3 * sqrt(2 * z.sigma_run * z.sigma_run + sigma_scan10 * sigma_scan10) + 0.5 * s->interval;
  z.S_noise = sqrt(Srep2 + sigma_h * sigma_h);
  return z;
}

static void write_evaluations(const ctx *c, const search *s, const noise *z, double delta) {
  FILE *fe = bg_lab_tsv(
      c->lab, "evaluations.tsv",
      "every simulation of the search and the sensitivity runs, in order; misfit: RMS profile "
      "difference from the scanned deposit",
      "sim\trole\tphi_deg\tmisfit_m\trunout_m\th_center_m");
  for (int i = 0; i < c->n; ++i)
    fprintf(fe, "%d\t%s\t%.6f\t%.6g\t%.6g\t%.6g\n", i + 1, c->ev[i].role, c->ev[i].phi, c->ev[i].S,
            c->ev[i].runout, c->ev[i].h_center);
  fprintf(fe, "%d\tsensitivity\t%.6f\t%.6g\t%.6g\t%.6g\n", c->n + 1, s->phi + delta,
          rms_diff(&z->pp, &c->meas), z->pp.runout, z->pp.h_center);
  fprintf(fe, "%d\tsensitivity\t%.6f\t%.6g\t%.6g\t%.6g\n", c->n + 2, s->phi - delta,
          rms_diff(&z->pm, &c->meas), z->pm.runout, z->pm.h_center);
  fclose(fe);
}

static void write_profiles(const ctx *c, const profile *truth, const search *s, const noise *z,
                           double dx) {
  const profile *model = &c->evp[s->i_rec];
  FILE *fp = bg_lab_tsv(
      c->lab, "profiles.tsv",
      "radial profiles: the measured deposit before and after the scanner, the model at the "
      "recovered phi, and dh/dphi there",
      "r_m\th_true_m\th_scanned_m\th_model_m\tdh_dphi_m_per_deg");
  for (int k = 0; k < c->nb; ++k) {
    if (truth->h[k] <= 0 && model->h[k] <= 0 && c->meas.h[k] <= 0) continue;
    fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", (k + 0.5) * dx, truth->h[k], c->meas.h[k],
            model->h[k], z->sv[k]);
  }
  fclose(fp);
}

static void write_summary(bg_lab *lab, const options *o, const search *s, const noise *z) {
  const double sigma_h = sqrt(o->scan_sd * o->scan_sd + o->scan_step * o->scan_step / 12);
  FILE *fs =
      bg_lab_tsv(lab, "summary.tsv", "the recovered angle, its error and the tolerance's parts",
                 "quantity\tvalue\tunit");
  fprintf(fs, "phi_true\t%.6g\tdeg\n", o->phi_true);
  fprintf(fs, "phi_recovered\t%.6g\tdeg\n", s->phi);
  fprintf(fs, "error\t%.6g\tdeg\n", s->phi - o->phi_true);
  fprintf(fs, "tolerance\t%.6g\tdeg\n", z->tol);
  fprintf(fs, "simulations_search\t%d\t1\n", s->n_sims);
  fprintf(fs, "simulations_total\t%d\t1\n", s->n_sims + 3 + o->reps);
  fprintf(fs, "minimiser_interval\t%.6g\tdeg\n", s->interval);
  fprintf(fs, "minimum_at_range_end\t%d\t1\n", s->at_edge);
  fprintf(fs, "dR_dphi\t%.6g\tm/deg\n", z->dRdphi);
  fprintf(fs, "sigma_R_run\t%.6g\tm\n", z->sigma_R);
  fprintf(fs, "sigma_phi_runout_only\t%.6g\tdeg\n", fabs(z->sigma_R / z->dRdphi));
  fprintf(fs, "profile_sensitivity_norm\t%.6g\tm/deg\n", sqrt(z->ss));
  fprintf(fs, "sigma_phi_run\t%.6g\tdeg\n", z->sigma_run);
  fprintf(fs, "sigma_phi_scanner\t%.6g\tdeg\n", z->sigma_scan);
  fprintf(fs, "sigma_phi\t%.6g\tdeg\n", z->sigma_phi);
  fprintf(fs, "sigma_h_scanner\t%.6g\tm\n", sigma_h);
  fprintf(fs, "misfit_min\t%.6g\tm\n", s->S);
  fprintf(fs, "misfit_noise\t%.6g\tm\n", z->S_noise);
  fclose(fs);
}

int main(int argc, char **argv) {
  options o;
  bg_lab *lab = parse_options(argc, argv, &o);
  gsl_set_error_handler_off();
  /* the model's floor in the floor-mu-wrong mutant: half the deposit's */
  const double mu_model = bg_lab_mutant_is(lab, "floor-mu-wrong") ? 0.5 * o.mu_floor : o.mu_floor;

  /* scene: the model's column, and the measured deposit the search must match */
  ctx c;
  setup_scene(&c, lab, &o, mu_model);
  profile truth = measure_deposit(&c, &o);

  /* run: the search, then the sensitivity and noise at its answer */
  search s = minimise(&c, &o);
  noise z = measure_noise(&c, &o, &s, mu_model);

  /* read-out */
  const double err = s.phi - o.phi_true;
  write_evaluations(&c, &s, &z, o.delta);
  write_profiles(&c, &truth, &s, &z, o.R0 / o.cells);
  write_summary(lab, &o, &s, &z);
  bg_lab_manifest_num(lab, "phi_recovered_deg", s.phi);
  bg_lab_manifest_num(lab, "simulations_search", s.n_sims);
  bg_lab_progress(
      lab,
      "recovered %.4f deg (true %.4f): error %+.4f deg, tolerance %.3f deg = 3 x %.3f (run %.3f, "
      "scanner %.3f) + %.3f; dR/dphi %.3f mm/deg, sigma_R %.3f mm; %d search simulations",
      s.phi, o.phi_true, err, z.tol, z.sigma_phi, z.sigma_run, z.sigma_scan, 0.5 * s.interval,
      z.dRdphi * 1e3, z.sigma_R * 1e3, s.n_sims);

  /* judge */
  bg_lab_claim(lab, "demo.calibrate.error", fabs(err) / z.tol);
  bg_lab_claim(lab, "demo.calibrate.tolerance", z.tol);
  bg_lab_claim_mutant(lab, "scanner-coarse", "demo.calibrate.tolerance", z.tol10);
  bg_lab_claim(lab, "demo.calibrate.misfit", s.S / z.S_noise);
  free(z.sv);
  free(z.pp.h);
  free(z.pm.h);
  free(truth.h);
  free(c.meas.h);
  for (int i = 0; i < c.n; ++i) free(c.evp[i].h);
  return bg_lab_finish(lab);
}
