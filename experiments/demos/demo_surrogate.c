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
 * demo.surrogate.certain = 2 sd at the stop within the same tolerance.
 *
 * The GP is surrogate_gp.c, the posterior surrogate_inverse.c. */
#include <gsl/gsl_errno.h>
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
#include "surrogate_gp.h"
#include "surrogate_inverse.h"

#define MAX_SIM GP_MAX
#define NOUT 2
#define RATIO_STOP 0.25

static const char *const out_name[NOUT] = {"h_center", "runout"};

typedef struct run {
  double phi, y[NOUT];
  unsigned long seed;
  const char *role;
} run;

typedef struct ctx {
  bg_lab *lab;
  bg_column_scene base;
  double mu_model; /* the model's floor: the deposit's, or half of it (floor-mu-wrong) */
  run r[MAX_SIM];
  int n;
  unsigned long next_seed; /* every design run its own */
} ctx;

typedef struct options {
  double phi_true, phi_lo, phi_hi, aspect, R0, mu_floor, jitter, meas_sd, target, t_max, domain;
  int cells, n_init, reps, max_sims;
} options;

/* The held-out deposit: its outputs as they are and as measured. */
typedef struct deposit {
  run truth;
  double yobs[NOUT];
  unsigned long seed;
} deposit;

/* The inverse under the variations that test it. */
typedef struct checks {
  post p10; /* the instrument ten times noisier */
  post pni; /* the run and instrument noise ignored */
  post ph;  /* each length scale halved */
  gp *gh[NOUT];
} checks;

/* The same count of runs on a fixed uniform design. */
typedef struct uniform {
  int have; /* not in a mutant's run */
  post p;
  gp *g[NOUT];
  double *dens;
} uniform;

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

/* A design run at phi with the next seed, added to the design. */
static run add_run(ctx *c, double phi, const char *role) {
  run o = simulate(c, phi, c->next_seed++, c->mu_model, role);
  if (c->n >= MAX_SIM) bg_lab_fail("more than %d simulations", MAX_SIM);
  c->r[c->n++] = o;
  return o;
}

/* The GP of output j over runs[0..n) with run noise sd sn. */
static void fit_one(gp *g, const run *runs, int n, int j, double sn) {
  double phi[MAX_SIM], y[MAX_SIM];
  for (int i = 0; i < n; ++i) {
    phi[i] = runs[i].phi;
    y[i] = runs[i].y[j];
  }
  gp_fit(g, phi, y, n, sn, out_name[j]);
}

static void fit_all(gp *g[NOUT], const run *runs, int n, const double *sn) {
  for (int j = 0; j < NOUT; ++j) fit_one(g[j], runs, n, j, sn[j]);
}

static post invert(gp *const g[NOUT], const double *yobs, const double *sn, double sm,
                   int noise_ignored, double *dens) {
  return posterior_invert(g, NOUT, yobs, sn, sm, noise_ignored, dens);
}

static const char *const surrogate_mutants[] = {"noise-ignored", "scanner-coarse", "floor-mu-wrong",
                                                NULL};

/* The options no range can check, by bg_lab_init before the run folder is
 * touched (a bad one: exit 2, no folder, no marker). */
static void check_options(void *arg) {
  const options *o = arg;
  if (o->phi_lo >= o->phi_hi) {
    bg_lab_fail("--phi-lo %g must be below --phi-hi %g", o->phi_lo, o->phi_hi);
  }
  if (o->phi_true <= o->phi_lo || o->phi_true >= o->phi_hi) {
    bg_lab_fail("--phi-true %g must lie inside the design range (%g, %g)", o->phi_true,
            o->phi_lo, o->phi_hi);
  }
  if (o->n_init + o->reps > o->max_sims) {
    bg_lab_fail("--max-sims %d must hold the %d initial points and %d replicates",
            o->max_sims, o->n_init, o->reps);
  }
}

/* Parses and checks the options; exits 2 on a bad one. */
static bg_lab *parse_options(int argc, char **argv, options *o) {
  /* clang-format off */
  *o = (options){.phi_true = 32.4, .phi_lo = 20, .phi_hi = 45, .aspect = 2, .R0 = 0.05,
                 .mu_floor = 0.6, .jitter = 0.5, .meas_sd = 0.2e-3, .t_max = 6, .domain = 5.5,
                 .n_init = 4, .reps = 3, .max_sims = 24};
  bg_lab_param params[] = {
      {.name = "phi-true", .type = BG_PARAM_DOUBLE, .dest = &o->phi_true, .lo = 20, .hi = 45,
       .help = "the held-out deposit's friction angle, deg", .key = "phi_true_deg"},
      {.name = "phi-lo", .type = BG_PARAM_DOUBLE, .dest = &o->phi_lo, .lo = 10, .hi = 60,
       .help = "lower end of the design range, deg", .key = "phi_lo_deg"},
      {.name = "phi-hi", .type = BG_PARAM_DOUBLE, .dest = &o->phi_hi, .lo = 10, .hi = 60,
       .help = "upper end of the design range, deg", .key = "phi_hi_deg"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &o->aspect, .lo = 0.25, .hi = 12,
       .help = "column aspect ratio H0 / R0"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &o->R0, .lo = 0.01, .hi = 0.5,
       .help = "column radius R0, m", .key = "radius_m"},
      {.name = "cells", .type = BG_PARAM_INT, .dest = &o->cells, .lo = 4, .hi = 256,
       .help = "cells per R0", .quick = "8", .paper = "24", .key = "cells_per_R0"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &o->mu_floor, .lo = 0.05, .hi = 5,
       .help = "floor Coulomb coefficient (the deposit's and the model's)"},
      {.name = "domain", .type = BG_PARAM_DOUBLE, .dest = &o->domain, .lo = 2, .hi = 20,
       .help = "quarter-domain extent, in R0", .key = "domain_over_R0"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &o->jitter, .lo = 0, .hi = 1,
       .help = "lattice jitter, fraction of the particle spacing"},
      {.name = "meas-sd", .type = BG_PARAM_DOUBLE, .dest = &o->meas_sd, .lo = 0, .hi = 0.05,
       .help = "the instrument's Gaussian noise on each measured output, m", .key = "meas_sd_m"},
      {.name = "target", .type = BG_PARAM_DOUBLE, .dest = &o->target, .lo = 0.01, .hi = 10,
       .help = "the stated tolerance: the loop stops when the inverse's 2 sd is below it, deg",
       .quick = "0.3", .paper = "0.25", .key = "target_2sd_deg"},
      {.name = "initial", .type = BG_PARAM_INT, .dest = &o->n_init, .lo = 3, .hi = 16,
       .help = "initial design points, uniform over the range", .key = "initial_points"},
      {.name = "replicates", .type = BG_PARAM_INT, .dest = &o->reps, .lo = 2, .hi = 16,
       .help = "extra runs (other seeds) at the first interior design point, for the noise"},
      {.name = "max-sims", .type = BG_PARAM_INT, .dest = &o->max_sims, .lo = 6,
       .hi = MAX_SIM / 2 - 1, .help = "most design simulations (initial, replicates, active)"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &o->t_max, .lo = 0.1, .hi = 30,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
  };
  /* clang-format on */
  bg_lab_accept_materials("drucker-prager", "Drucker-Prager, whose friction angle it learns");
  bg_lab_check_options(check_options, o);
  bg_lab *lab = bg_lab_init(
      "demo_surrogate",
      "Surrogate: a Gaussian process learns phi -> (pile height, runout) from collapse runs "
      "placed where it is least certain, and inverts a held-out deposit with its 2-sigma "
      "interval.",
      argc, argv, params, (int)(sizeof params / sizeof params[0]), surrogate_mutants);
  return lab;
}

static void setup_scene(ctx *c, bg_lab *lab, const options *o) {
  memset(c, 0, sizeof *c);
  c->lab = lab;
  c->mu_model = bg_lab_mutant_is(lab, "floor-mu-wrong") ? 0.5 * o->mu_floor : o->mu_floor;
  bg_column_scene base = bg_column_scene_default();
  base.R0 = o->R0;
  base.aspect = o->aspect;
  base.material = bg_lab_material(lab);
  base.L_over_R0 = o->domain;
  base.t_max_s = o->t_max;
  base.jitter = o->jitter;
  base.cells = o->cells;
  base.mu = c->mu_model; /* on the default Coulomb floor, settle rule and runout threshold */
  base.backend = bg_lab_backend(lab);
  base.threads = bg_lab_threads(lab);
  base.seed = bg_lab_seed(lab);
  c->base = base;
  c->next_seed = base.seed;
  bg_lab_manifest_material(lab, &base.material);
  bg_lab_manifest_num(lab, "mu_floor_model", c->mu_model);
  bg_lab_manifest_str(lab, "surrogate",
                      "Gaussian process per output: SE kernel, linear GLS mean, noise measured "
                      "from replicates; hyperparameters by restricted likelihood "
                      "(gsl_multimin_fminimizer_nmsimplex2), GSL Cholesky");
}

/* The held-out measured deposit: its own seed and the instrument. */
static deposit measure_deposit(ctx *c, const options *o) {
  deposit d;
  d.seed = bg_lab_seed(c->lab) * 1000003ul + 29ul;
  d.truth = simulate(c, o->phi_true, d.seed, o->mu_floor, "measured deposit");
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, d.seed + 11ul);
  for (int j = 0; j < NOUT; ++j) d.yobs[j] = d.truth.y[j] + gsl_ran_gaussian(rng, o->meas_sd);
  gsl_rng_free(rng);
  return d;
}

/* The initial design and the replicates at its first interior point, whose
 * spread is the run noise sn of each output. */
static void initial_design(ctx *c, const options *o, double sn[NOUT]) {
  for (int i = 0; i < o->n_init; ++i)
    add_run(c, o->phi_lo + (o->phi_hi - o->phi_lo) * i / (o->n_init - 1), "initial");
  const double phi_rep = c->r[1].phi;
  double rep_y[NOUT][17];
  for (int j = 0; j < NOUT; ++j) rep_y[j][0] = c->r[1].y[j];
  for (int k = 1; k <= o->reps; ++k) {
    run q = add_run(c, phi_rep, "replicate");
    for (int j = 0; j < NOUT; ++j) rep_y[j][k] = q.y[j];
  }
  for (int j = 0; j < NOUT; ++j) sn[j] = gsl_stats_sd(rep_y[j], 1, (size_t)o->reps + 1);
  bg_lab_progress(c->lab,
                  "run noise at phi %.3f deg from %d runs: pile height %.3f mm, runout %.3f mm",
                  phi_rep, o->reps + 1, sn[0] * 1e3, sn[1] * 1e3);
}

/* Refits and inverts after each run, the next run where the surrogate is
 * least certain under the posterior, until the inverse is certain or the
 * runs are spent; iterations.tsv. Returns the last inverse. */
static post active_loop(ctx *c, const options *o, gp *g[NOUT], const double *sn, const double *yobs,
                        int *certain) {
  FILE *fi = bg_lab_tsv(
      c->lab, "iterations.tsv",
      "the active loop: after each design run, the GPs' hyperparameters (ell in degrees, s in the "
      "output's units) and the inverse; ratio_max: the largest surrogate-to-noise variance ratio "
      "in the posterior's 2-sd window, next_phi where it lies",
      "sims\tell_h_deg\ts_h_m\tell_R_deg\ts_R_m\tphi_mean_deg\ttwo_sd_deg\tratio_max\tnext_phi_"
      "deg");
  const double width = o->phi_hi - o->phi_lo;
  post p;
  for (;;) {
    fit_all(g, c->r, c->n, sn);
    p = invert(g, yobs, sn, o->meas_sd, 0, NULL);
    fprintf(fi, "%d\t%.5g\t%.5g\t%.5g\t%.5g\t%.5f\t%.5f\t%.5g\t%.3f\n", c->n, g[0]->ell * width,
            sqrt(g[0]->s2) * g[0]->ys, g[1]->ell * width, sqrt(g[1]->s2) * g[1]->ys, p.mean,
            2 * p.sd, p.ratio_max, p.next_phi);
    bg_lab_progress(
        c->lab,
        "%d sims: phi %.3f +- %.3f deg (2 sd), surrogate/noise variance up to %.3g, next at %.2f",
        c->n, p.mean, 2 * p.sd, p.ratio_max, p.next_phi);
    *certain = 2 * p.sd <= o->target && p.ratio_max <= RATIO_STOP;
    if (*certain || c->n >= o->max_sims) break;
    add_run(c, p.next_phi, "active");
  }
  fclose(fi);
  if (!*certain)
    bg_lab_progress(
        c->lab,
        "the loop used its %d simulations (--max-sims) before the inverse was certain to %.3g deg",
        o->max_sims, o->target);
  return p;
}

/* A posterior against an end of the range: the deposit lies at or beyond
 * it for this model, which the interval (cut by the prior) understates. */
static int at_range_end(bg_lab *lab, const options *o, const post *p) {
  const int at_edge =
      p->mean - 2 * p->sd <= o->phi_lo + DPHI_GRID || p->mean + 2 * p->sd >= o->phi_hi - DPHI_GRID;
  if (at_edge)
    bg_lab_progress(
        lab,
        "the posterior's 2-sd interval reaches an end of the range [%g, %g] deg: the model matches "
        "this deposit only at or beyond it",
        o->phi_lo, o->phi_hi);
  return at_edge;
}

/* The posterior density of phi on its grid, per degree. */
static double *posterior_density(gp *g[NOUT], const options *o, const double *sn,
                                 const double *yobs) {
  double *dens = calloc((size_t)posterior_grid_points(o->phi_lo, o->phi_hi), sizeof *dens);
  if (!dens) bg_lab_fail("out of memory for the posterior grid");
  invert(g, yobs, sn, o->meas_sd, 0, dens);
  return dens;
}

/* The inverse on this design had the instrument been ten times noisier,
 * had it ignored the run and instrument noise, and with each length scale
 * held at half its likelihood optimum (s refitted): the answer should not
 * move by much of its own sd if it does not hang on l. */
static checks check_inverse(const ctx *c, const options *o, gp *g[NOUT], const double *sn,
                            const double *yobs, const post *p) {
  checks k;
  k.p10 = invert(g, yobs, sn, 10 * o->meas_sd, 0, NULL);
  k.pni = invert(g, yobs, sn, o->meas_sd, 1, NULL);
  for (int j = 0; j < NOUT; ++j) {
    k.gh[j] = gp_new(o->phi_lo, o->phi_hi);
    k.gh[j]->ell_fixed = 0.5 * g[j]->ell;
    fit_one(k.gh[j], c->r, c->n, j, sn[j]);
  }
  k.ph = invert(k.gh, yobs, sn, o->meas_sd, 0, NULL);
  bg_lab_progress(
      c->lab,
      "with each l halved the inverse reads %.3f +- %.3f deg (shift %+.3f deg, %.2f of its sd)",
      k.ph.mean, 2 * k.ph.sd, k.ph.mean - p->mean, (k.ph.mean - p->mean) / p->sd);
  return k;
}

/* The comparison: n_design runs on a fixed uniform design, its own GPs and
 * inverse (the real lab's runs only). */
static uniform uniform_design(ctx *c, const options *o, int n_design, const double *sn,
                              const double *yobs) {
  uniform u;
  memset(&u, 0, sizeof u);
  u.have = bg_lab_mutant(c->lab) == NULL;
  u.dens = calloc((size_t)posterior_grid_points(o->phi_lo, o->phi_hi), sizeof *u.dens);
  if (!u.dens) bg_lab_fail("out of memory for the posterior grid");
  for (int j = 0; j < NOUT; ++j) u.g[j] = gp_new(o->phi_lo, o->phi_hi);
  if (u.have) {
    for (int i = 0; i < n_design; ++i)
      add_run(c, o->phi_lo + (o->phi_hi - o->phi_lo) * i / (n_design - 1), "uniform");
    fit_all(u.g, c->r + n_design, n_design, sn);
    u.p = invert(u.g, yobs, sn, o->meas_sd, 0, u.dens);
  }
  return u;
}

static void write_design(const ctx *c, const options *o, const deposit *d) {
  FILE *fd = bg_lab_tsv(
      c->lab, "design.tsv",
      "every simulation: the held-out deposit (true outputs and as measured), the active design "
      "(initial, replicate, active) and the uniform comparison design",
      "sim\trole\tphi_deg\tseed\th_center_m\trunout_m");
  fprintf(fd, "0\tmeasured_true\t%.6f\t%lu\t%.6g\t%.6g\n", o->phi_true, d->seed, d->truth.y[0],
          d->truth.y[1]);
  fprintf(fd, "0\tmeasured\tnan\t%lu\t%.6g\t%.6g\n", d->seed, d->yobs[0], d->yobs[1]);
  for (int i = 0; i < c->n; ++i)
    fprintf(fd, "%d\t%s\t%.6f\t%lu\t%.6g\t%.6g\n", i + 1, c->r[i].role, c->r[i].phi, c->r[i].seed,
            c->r[i].y[0], c->r[i].y[1]);
  fclose(fd);
}

/* The surrogates and the posteriors over the range; dens the active design's. */
static void write_surrogates(bg_lab *lab, const options *o, gp *g[NOUT], const double *dens,
                             const uniform *u) {
  FILE *fs = bg_lab_tsv(
      lab, "surrogate.tsv",
      "the surrogates over the range: latent mean and sd of each output (active design; _u the "
      "uniform design's), and the posterior density of phi given the measured deposit",
      "phi_deg\th_mean_m\th_sd_m\tR_mean_m\tR_sd_m\tposterior_per_deg\th_mean_u_m\th_sd_u_m\t"
      "R_mean_u_m\tR_sd_u_m\tposterior_u_per_deg");
  const int ng = posterior_grid_points(o->phi_lo, o->phi_hi);
  for (int i = 0; i < ng; ++i) {
    double phi = o->phi_lo + i * DPHI_GRID, m[NOUT], v[NOUT], mu[NOUT] = {NAN, NAN},
           vu[NOUT] = {NAN, NAN};
    for (int j = 0; j < NOUT; ++j) {
      gp_predict(g[j], phi, &m[j], &v[j]);
      if (u->have) gp_predict(u->g[j], phi, &mu[j], &vu[j]);
    }
    fprintf(fs, "%.4f\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", phi, m[0],
            sqrt(v[0]), m[1], sqrt(v[1]), dens[i], mu[0], sqrt(vu[0]), mu[1], sqrt(vu[1]),
            u->have ? u->dens[i] : NAN);
  }
  fclose(fs);
}

static void write_summary(const ctx *c, const options *o, gp *g[NOUT], const double *sn,
                          const deposit *d, const post *p, int certain, int at_edge, int n_design,
                          const checks *k, const uniform *u) {
  const double width = o->phi_hi - o->phi_lo;
  FILE *fm = bg_lab_tsv(c->lab, "summary.tsv",
                        "the inverse, its interval, the noise and the simulation counts",
                        "quantity\tvalue\tunit");
  fprintf(fm, "phi_true\t%.6g\tdeg\n", o->phi_true);
  fprintf(fm, "phi_estimate\t%.6g\tdeg\n", p->mean);
  fprintf(fm, "phi_map\t%.6g\tdeg\n", p->map);
  fprintf(fm, "error\t%.6g\tdeg\n", p->mean - o->phi_true);
  fprintf(fm, "two_sd\t%.6g\tdeg\n", 2 * p->sd);
  fprintf(fm, "interval95_lo\t%.6g\tdeg\n", p->lo95);
  fprintf(fm, "interval95_hi\t%.6g\tdeg\n", p->hi95);
  fprintf(fm, "target_two_sd\t%.6g\tdeg\n", o->target);
  fprintf(fm, "certain\t%d\t1\n", certain);
  fprintf(fm, "posterior_at_range_end\t%d\t1\n", at_edge);
  fprintf(fm, "ratio_max\t%.6g\t1\n", p->ratio_max);
  fprintf(fm, "simulations_design\t%d\t1\n", n_design);
  fprintf(fm, "simulations_active\t%d\t1\n", n_design - o->n_init - o->reps);
  fprintf(fm, "simulations_total\t%d\t1\n", c->n + 1);
  for (int j = 0; j < NOUT; ++j) {
    fprintf(fm, "sigma_run_%s\t%.6g\tm\n", out_name[j], sn[j]);
    fprintf(fm, "ell_%s\t%.6g\tdeg\n", out_name[j], g[j]->ell * width);
    fprintf(fm, "s_%s\t%.6g\tm\n", out_name[j], sqrt(g[j]->s2) * g[j]->ys);
    fprintf(fm, "hyper_at_bound_%s\t%d\t1\n", out_name[j], g[j]->at_bound);
    fprintf(fm, "measured_%s\t%.6g\tm\n", out_name[j], d->yobs[j]);
  }
  fprintf(fm, "sigma_meas\t%.6g\tm\n", o->meas_sd);
  fprintf(fm, "two_sd_scanner_x10\t%.6g\tdeg\n", 2 * k->p10.sd);
  fprintf(fm, "ell_half_phi_shift\t%.6g\tdeg\n", k->ph.mean - p->mean);
  fprintf(fm, "ell_half_two_sd\t%.6g\tdeg\n", 2 * k->ph.sd);
  fprintf(fm, "noise_ignored_phi_estimate\t%.6g\tdeg\n", k->pni.mean);
  fprintf(fm, "noise_ignored_two_sd\t%.6g\tdeg\n", 2 * k->pni.sd);
  if (u->have) {
    fprintf(fm, "uniform_phi_estimate\t%.6g\tdeg\n", u->p.mean);
    fprintf(fm, "uniform_error\t%.6g\tdeg\n", u->p.mean - o->phi_true);
    fprintf(fm, "uniform_two_sd\t%.6g\tdeg\n", 2 * u->p.sd);
    fprintf(fm, "uniform_ratio_max\t%.6g\t1\n", u->p.ratio_max);
  }
  fclose(fm);
}

int main(int argc, char **argv) {
  options o;
  bg_lab *lab = parse_options(argc, argv, &o);
  gsl_set_error_handler_off();

  /* scene: the model's column, and the held-out deposit to invert */
  ctx c;
  setup_scene(&c, lab, &o);
  deposit d = measure_deposit(&c, &o);

  /* run: the initial design, its noise, then the active loop */
  double sn[NOUT];
  initial_design(&c, &o, sn);
  gp *g[NOUT];
  for (int j = 0; j < NOUT; ++j) g[j] = gp_new(o.phi_lo, o.phi_hi);
  int certain = 0;
  post p = active_loop(&c, &o, g, sn, d.yobs, &certain);
  const int n_design = c.n;
  const double err = p.mean - o.phi_true;
  const int at_edge = at_range_end(lab, &o, &p);
  checks k = check_inverse(&c, &o, g, sn, d.yobs, &p);
  double *dens = posterior_density(g, &o, sn, d.yobs);
  uniform u = uniform_design(&c, &o, n_design, sn, d.yobs);

  /* read-out */
  write_design(&c, &o, &d);
  write_surrogates(lab, &o, g, dens, &u);
  write_summary(&c, &o, g, sn, &d, &p, certain, at_edge, n_design, &k, &u);
  bg_lab_manifest_num(lab, "phi_estimate_deg", p.mean);
  bg_lab_manifest_num(lab, "simulations_design", n_design);
  bg_lab_progress(lab,
                  "inverse: %.3f deg (true %.3f): error %+.3f, 2 sd %.3f deg; %d design "
                  "simulations (%d active)",
                  p.mean, o.phi_true, err, 2 * p.sd, n_design, n_design - o.n_init - o.reps);
  if (u.have)
    bg_lab_progress(lab, "uniform design of %d: %.3f deg, error %+.3f, 2 sd %.3f deg", n_design,
                    u.p.mean, u.p.mean - o.phi_true, 2 * u.p.sd);

  /* judge */
  bg_lab_claim(lab, "demo.surrogate.coverage", fabs(err) / (2 * p.sd));
  bg_lab_claim_mutant(lab, "noise-ignored", "demo.surrogate.coverage",
                      fabs(k.pni.mean - o.phi_true) / (2 * k.pni.sd));
  bg_lab_claim(lab, "demo.surrogate.error", fabs(err));
  bg_lab_claim(lab, "demo.surrogate.certain", certain ? 2 * p.sd : NAN);
  bg_lab_claim_mutant(lab, "scanner-coarse", "demo.surrogate.certain", 2 * k.p10.sd);
  for (int j = 0; j < NOUT; ++j) {
    gp_free(g[j]);
    gp_free(u.g[j]);
    gp_free(k.gh[j]);
  }
  free(dens);
  free(u.dens);
  return bg_lab_finish(lab);
}
