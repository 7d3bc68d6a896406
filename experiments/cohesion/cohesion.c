/* cohesion.c: cohesion in the axisymmetric column collapse. One aspect
 * ratio a = H0/R0, a sweep of the cohesion number c* = c / (rho0 g H0) of
 * Drucker-Prager sand (material.dp.cohesion); per column the runout
 * (R_inf - R0)/R0 and whether it stands (references/derivations/cohesion.md
 * sec. 6).
 *
 * Scene (bg_column.c, the runout experiment's column): the whole cylinder
 * (not the runout experiment's quarter: a slip mirror plane holds no
 * tension, and a cohesive quarter column pulls away from it) of Klar's sand
 * with the cohesion fed, released at rest on a Coulomb floor and
 * run for a fixed time t_max (no kinetic-energy stop: a standing column
 * rings elastically, and a rest test sampled at a node of that ringing
 * would stop a marginal column before it fails). Runout: the toe
 * extrapolated from the mass distribution (bg_column front, the runout
 * experiment's estimator), which reads a standing cylinder within a third of
 * a cell of R0; the 1-dx edge of the height field is tabulated beside it
 * (it reads a standing column 1.4 dx wide of R0: the annuli's interpolation).
 *
 * Claims: the runout does not grow with c* (cohesion.trend), and the
 * smallest c* from which every column stands, (R_inf - R0) < dx, lies in the
 * closed-form bracket [c*_s / 2, c*_s], c*_s = (1 - sin phi) / (2 cos phi)
 * from the fed phi: at c*_s the uniaxial gravity stress of the column's base
 * reaches the unconfined strength q_u; at c*_s / 2 the column is Terzaghi's
 * critical height of a vertical cut, H_c = 2 q_u / (rho g) (cohesion.threshold). */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"

#define G 9.81
/* the rest threshold, of M g R0, so small that no column reaches it: every
 * column runs t_max, and ke_thresh / KE_NEVER is M g R0 for the read-out */
#define KE_NEVER 1e-12
#define MAX_C 32

typedef struct plan {
  bg_lab *lab;
  double phi, aspect, R0, t_max, mu_floor, domain;
  int cells, jobs, n;
  const char *cstars_s;
  double cstar[MAX_C];
  bg_column_scene scenes[MAX_C];
  char tags[MAX_C][64];
  const char *tagp[MAX_C];
  char keys[MAX_C][1024]; /* each column's scene in full: --reuse copies another run's same column */
  const char *keyp[MAX_C];
  double cost[MAX_C];
  bg_column_result res[MAX_C];
} plan;

static int parse_cstars(const char *s, double *v, int max);

/* The c* list, parsed by bg_lab_init before the run folder is touched. */
static void cohesion_check_options(void *ctx) {
  const plan *pl = ctx;
  double v[MAX_C];
  parse_cstars(pl->cstars_s, v, MAX_C);
}

static bg_lab *cohesion_init(int argc, char **argv, plan *pl) {
  static const char *const mutants[] = {"cohesion-fed-reversed", "cohesion-dropped", NULL};
  pl->phi = 33;
  pl->aspect = 2;
  pl->R0 = 0.2;
  pl->mu_floor = 0.6;
  pl->domain = 5;
  pl->jobs = 1;
  bg_lab_param params[] = {
      {.name = "phi", .type = BG_PARAM_DOUBLE, .dest = &pl->phi, .lo = 20, .hi = 45,
       .help = "fed friction angle, deg (the runout experiment's 33)", .key = "phi_deg"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &pl->aspect, .lo = 0.5, .hi = 4,
       .help = "aspect ratio a = H0 / R0 of every column"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &pl->R0, .lo = 0.01, .hi = 0.5,
       .help = "column radius R0, m", .key = "radius_m"},
      {.name = "cells", .type = BG_PARAM_INT, .dest = &pl->cells, .lo = 4, .hi = 256, .help = "cells per R0",
       .quick = "5", .paper = "32", .key = "cells_per_R0"},
      {.name = "cstars", .type = BG_PARAM_STRING, .dest = &pl->cstars_s, .lo = 0, .hi = 0,
       .help = "cohesion numbers c / (rho0 g H0), comma-separated, increasing, in [0, 2]",
       .quick = "0,0.1,0.15,0.2,0.25,0.3",
       .paper = "0,0.025,0.05,0.075,0.1,0.125,0.15,0.175,0.2,0.225,0.25,0.275,0.3,0.35,0.4"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &pl->t_max, .lo = 0.1, .hi = 30,
       .help = "simulated time of every column, s", .quick = "0.9", .paper = "1.4", .key = "t_max_s"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_floor, .lo = 0.05, .hi = 5,
       .help = "floor Coulomb coefficient"},
      {.name = "domain", .type = BG_PARAM_DOUBLE, .dest = &pl->domain, .lo = 2, .hi = 20,
       .help = "quarter-domain extent, in R0"},
      {.name = "jobs", .type = BG_PARAM_INT, .service = 1, .dest = &pl->jobs, .lo = 1, .hi = 64,
       .help = "columns simulated at once, each with one CPU thread; results do not depend on it"},
  };
  bg_lab_takes_seeding();
  bg_lab_check_options(cohesion_check_options, pl);
  return bg_lab_init("exp_cohesion",
                     "Cohesion in the column collapse: runout against c / (rho g H) and the threshold "
                     "from which the column stands, against the closed-form bracket.",
                     argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
}

/* "0,0.1,0.2" into v, increasing, in [0, 2]; exits 2 on a bad list. */
static int parse_cstars(const char *s, double *v, int max) {
  int n = 0;
  const char *p = s;
  while (p && *p) {
    char *end;
    double x = strtod(p, &end);
    if (end == p || (*end && *end != ',') || !(x >= 0 && x <= 2) || n == max || (n && !(x > v[n - 1]))) {
      bg_lab_fail("--cstars '%s': numbers in [0, 2], increasing, at most %d", s, max);
    }
    v[n++] = x;
    p = *end ? end + 1 : end;
  }
  if (n < 3) {
    bg_lab_fail("--cstars '%s': at least 3 values are needed for a trend (got %d)", s, n);
  }
  return n;
}

/* The closed-form bracket's upper end: ρ g H = q_u at c* = (1 - sin φ) / (2 cos φ). */
static double cstar_static(double phi_deg) {
  double f = phi_deg * M_PI / 180.0;
  return (1.0 - sin(f)) / (2.0 * cos(f));
}

/* The columns: one per c*, the cohesion c = c* rho0 g H0 fed to the
 * material (the scene mutants feed the list reversed, or no cohesion). */
static void plan_runs(plan *pl) {
  bg_lab *lab = pl->lab;
  pl->n = parse_cstars(pl->cstars_s, pl->cstar, MAX_C);
  bg_column_scene base = bg_column_scene_lab(lab, pl->R0, pl->phi);
  if (base.material.model != BG_MODEL_DP)
    bg_lab_fail("--material: cohesion is a Drucker-Prager parameter (material.dp.cohesion); run the default model");
  base.aspect = pl->aspect;
  base.cells = pl->cells;
  base.t_max_s = pl->t_max;
  base.floor = BG_FRICTION_COULOMB;
  base.mu = pl->mu_floor;
  base.L_over_R0 = pl->domain;
  base.full = 1; /* a cohesive quarter would pull away from the slip mirrors */
  base.ke_frac = KE_NEVER;
  base.runout_h = 1.0;
  double H0 = pl->aspect * pl->R0, rgh = (double)base.material.rho0 * G * H0;
  for (int k = 0; k < pl->n; ++k) {
    double cs = bg_lab_mutant_is(lab, "cohesion-fed-reversed") ? pl->cstar[pl->n - 1 - k] : pl->cstar[k];
    if (bg_lab_mutant_is(lab, "cohesion-dropped")) cs = 0;
    pl->scenes[k] = base;
    pl->scenes[k].material.dp.cohesion = (bg_real)(cs * rgh);
    snprintf(pl->tags[k], sizeof pl->tags[k], "c* %.3g (%d/%d)", pl->cstar[k], k + 1, pl->n);
    pl->tagp[k] = pl->tags[k];
    bg_column_scene_key(&pl->scenes[k], pl->keys[k], sizeof pl->keys[k]);
    pl->keyp[k] = pl->keys[k];
    pl->cost[k] = 1.0;
  }
  bg_lab_manifest_material(lab, &base.material);
  bg_lab_manifest_str(lab, "cohesion", "swept: c = c* rho0 g H0 per column (sweep.tsv), beta 1");
  bg_lab_manifest_num(lab, "rho0_g_H0_Pa", rgh);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "runout_threshold_over_dx", 1.0);
  bg_lab_manifest_str(lab, "symmetry", "none: the whole cylinder, centred on the axis");
}

typedef struct run_ctx {
  bg_lab *lab;
  const plan *pl;
} run_ctx;

static void run_point(void *vctx, int k, bg_lab_blob *out) {
  const run_ctx *c = vctx;
  bg_column_result r = bg_column_run(c->lab, &c->pl->scenes[k], c->pl->tags[k]);
  bg_column_result_pack(&r, out);
  bg_column_result_free(&r);
}

static void run_all(plan *pl) {
  run_ctx rc = {pl->lab, pl};
  bg_lab_sweep_keys(pl->lab, pl->keyp);
  bg_lab_blob *packed = bg_lab_sweep(pl->lab, pl->n, pl->tagp, pl->cost, pl->jobs, run_point, &rc);
  for (int k = 0; k < pl->n; ++k) pl->res[k] = bg_column_result_unpack(&packed[k]);
  bg_lab_sweep_free(packed, pl->n);
}

/* sweep.tsv and the profiles; the claims. c* and the bracket come from
 * what each simulation holds (cohesion, density, phi: bg_sim_describe). */
static void read_out(plan *pl) {
  bg_lab *lab = pl->lab;
  FILE *sw = bg_lab_tsv(lab, "sweep.tsv", "column collapse with cohesion: one row per column, runout after t_max",
                        "c_star\tc_Pa\tq_u_Pa\trunout_m\tdR_over_R0\tdR_over_dx\tedge_m\tedge_dR_over_R0\t"
                        "h_center_over_H0\tstands\tke_end_over_MgR0\tt_end_s");
  FILE *pf = bg_lab_tsv(lab, "profiles.tsv", "radial deposit profiles after t_max, one block per c*",
                        "c_star\tr_over_R0\th_over_H0");
  int increases = 0, stand_from = -1;
  double phi_fed = pl->res[0].phi_fed, prev = NAN;
  for (int k = 0; k < pl->n; ++k) {
    const bg_column_result *r = &pl->res[k];
    const double R0 = pl->R0, H0 = r->H0, dx = r->dx;
    double cs = r->cohesion_fed / (r->rho0_fed * G * H0);
    double s = sin(r->phi_fed * M_PI / 180.0), qu = 2.0 * r->cohesion_fed * cos(r->phi_fed * M_PI / 180.0) / (1.0 - s);
    double y = (r->front - R0) / R0;
    int stands = r->front - R0 < dx;
    /* a standing column's runout is its own edge, read to the height field's half-dx layers */
    if (k > 0 && y > prev + 0.5 * dx / R0) increases++;
    prev = y;
    if (stands && stand_from < 0) stand_from = k;
    if (!stands) stand_from = -1;
    fprintf(sw, "%.4g\t%.6g\t%.6g\t%.6g\t%.5f\t%.4f\t%.6g\t%.5f\t%.5f\t%d\t%.3g\t%.4g\n", cs,
            r->cohesion_fed, qu, r->front, y, (r->front - R0) / dx, r->runout, (r->runout - R0) / R0,
            r->h_center / H0, stands, r->ke_end * KE_NEVER / r->ke_thresh, r->t_end);
    for (int b = 0; b < r->nbins; ++b)
      fprintf(pf, "%.4g\t%.6g\t%.6g\n", cs, r->rbin[b] / R0, r->hbin[b] / H0);
    fprintf(pf, "\n\n");
  }
  fclose(sw);
  fclose(pf);
  double css = cstar_static(phi_fed);
  double c_stand = NAN;
  if (stand_from >= 0) {
    const bg_column_result *r = &pl->res[stand_from];
    c_stand = r->cohesion_fed / (r->rho0_fed * G * r->H0);
  }
  FILE *bk = bg_lab_tsv(lab, "bracket.tsv", "the closed-form bracket of the standing threshold from the fed phi, and the sweep's",
                        "phi_deg\tcstar_vertical_cut\tcstar_static\tcstar_stands_from\tdx_over_R0");
  fprintf(bk, "%g\t%.6g\t%.6g\t%.6g\t%.6g\n", phi_fed, css / 2, css, c_stand, pl->res[0].dx / pl->R0);
  fclose(bk);
  bg_lab_manifest_num(lab, "cstar_static", css);
  bg_lab_manifest_num(lab, "cstar_vertical_cut", css / 2);
  bg_lab_manifest_num(lab, "cstar_stands_from", c_stand);
  bg_lab_manifest_num(lab, "runout_increases", increases);
  bg_lab_progress(lab, "stands from c* = %.4g; bracket [%.4g, %.4g]; runout increases %d", c_stand, css / 2, css,
                  increases);
  bg_lab_claim(lab, "cohesion.trend", increases);
  bg_lab_claim(lab, "cohesion.threshold", c_stand / css);
}

int main(int argc, char **argv) {
  static plan pl; /* large: not on the stack */
  pl.lab = cohesion_init(argc, argv, &pl);
  plan_runs(&pl);
  run_all(&pl);
  read_out(&pl);
  for (int k = 0; k < pl.n; ++k) bg_column_result_free(&pl.res[k]);
  return bg_lab_finish(pl.lab);
}
