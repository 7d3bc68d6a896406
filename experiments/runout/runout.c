/* runout.c: the axisymmetric granular column collapse against the laws of
 * Lube et al. (2004) and Lajeunesse et al. (2004), and against what the model
 * implies for the scene (references/derivations/runout.md).
 *
 * Scene (bg_column.c): a quarter cylinder of Klar's sand, radius R0 and
 * height H0 = a R0, released at rest on a Coulomb floor, run until its
 * kinetic energy falls below ke_frac M g R0. Per aspect ratio a the deposit
 * gives the runout R_inf as the toe extrapolated from the mass distribution
 * (bg_column front; the old 1-dx thickness edge is kept beside it), the
 * central height H_inf (columns within dx of the axis), the morphology and
 * the time to rest.
 *
 * Morphology: Lube's small-a deposits keep an undisturbed summit; here a
 * deposit is "summit" when H_inf >= H0 - dx, else "conical".
 *
 * Law: y = (R_inf - R0) / R0 against a, fitted (GSL, nonlinear least
 * squares, unweighted) over the seed's range a <= fit_amax with y = c1 a
 * below the break a_b and y = c1 a_b (a / a_b)^p above it (continuous, three
 * free parameters); the break counts only if it survives dropping the
 * range's largest aspect. The large-a regime is its own fit, y = c2 a^p over
 * a >= large_amin. Uncertainties: covariances scaled by chi^2 / dof.
 *
 * Origin: the definition itself fixes y(0) = 0 (no column, no runout); a
 * straight line over the static bound's summit regime a <= sqrt(3) tan phi
 * must meet a = 0 within the curvature and one cell (runout.origin; the
 * planted R_inf / R0 of mutant runout-over-r0 meets it near 1).
 *
 * Refinement: at a = conv_aspect on four grids (1, 1.5, 2, 3 x conv_cells),
 * the observed order and limit from y = y_inf + C h^q. Floor friction: at
 * a = mu_aspect the runout for floor mu from mu_lo to mu_hi. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"
#include "runout.h"

const int runout_conv_factor2[N_CONV] = {2, 3, 4, 6};

/* a macro's value as a string literal, for --help */
#define RUNOUT_STR(x) #x
#define RUNOUT_XSTR(x) RUNOUT_STR(x)

static void runout_check_options(void *ctx);

/* The options (their defaults first, then the table) and the lab. */
static bg_lab *runout_init(int argc, char **argv, runout_plan *pl) {
  static const char *const mutants[] = {"runout-1dx-threshold",
                                        "aspect-as-diameter",
                                        "lube-law-data", "converging-runout", "runout-over-r0", NULL};
  pl->phi = 33;
  pl->mu_floor = 0.6;
  pl->R0 = 0.05;
  pl->t_max = 6.0;
  pl->jitter = 0.5;
  pl->conv_aspect = 0.5;
  pl->mu_aspect = 2.0;
  pl->mu_lo = 0.3;
  pl->mu_hi = 1.0;
  pl->fit_amax = 4;
  pl->large_amin = 0;
  pl->cells = pl->conv_cells = 0;
  pl->jobs = 1;
  pl->aspects_s = NULL;
  bg_lab_param params[] = {
      {.name = "phi", .type = BG_PARAM_DOUBLE, .dest = &pl->phi, .lo = 20, .hi = 45, .help = "fed friction angle, deg",
       .key = "phi_deg"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_floor, .lo = 0.05, .hi = 5,
       .help = "floor Coulomb coefficient of the aspect sweep"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &pl->R0, .lo = 0.01, .hi = 0.5, .help = "column radius R0, m",
       .key = "radius_m"},
      {.name = "cells", .type = BG_PARAM_INT, .dest = &pl->cells, .lo = 4, .hi = 256,
       .help = "cells per R0 of the aspect and floor sweeps", .quick = "8", .paper = "30", .key = "cells_per_R0"},
      {.name = "aspects", .type = BG_PARAM_STRING, .dest = &pl->aspects_s, .lo = 0, .hi = 0,
       .help = "aspect ratios a = H0/R0, comma-separated, increasing, in [0.25, 12]: "
               RUNOUT_XSTR(RUNOUT_MIN_ASPECTS) " to " RUNOUT_XSTR(MAX_ASPECTS) " values (the three-parameter fit "
               "needs " RUNOUT_XSTR(RUNOUT_MIN_ASPECTS) ")", .quick = "0.5,0.75,1,1.5,2,3,4,6",
       .paper = "0.5,0.75,1,1.5,2,3,4,6,8,10"},
      {.name = "conv-cells", .type = BG_PARAM_INT, .dest = &pl->conv_cells, .lo = 4, .hi = 256,
       .help = "cells per R0 of the coarsest refinement grid", .quick = "8", .paper = "16", .key = "conv_cells_coarse"},
      {.name = "conv-aspect", .type = BG_PARAM_DOUBLE, .dest = &pl->conv_aspect, .lo = 0.25, .hi = 12,
       .help = "aspect ratio of the refinement runs"},
      {.name = "mu-aspect", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_aspect, .lo = 0.25, .hi = 12,
       .help = "aspect ratio of the floor-friction sweep"},
      {.name = "mu-lo", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_lo, .lo = 0.05, .hi = 5,
       .help = "lowest floor mu of the sweep"},
      {.name = "mu-hi", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_hi, .lo = 0.05, .hi = 5,
       .help = "highest floor mu of the sweep"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &pl->t_max, .lo = 0.1, .hi = 30,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &pl->jitter, .lo = 0, .hi = 1,
       .help = "lattice jitter, fraction of the particle spacing"},
      {.name = "fit-amax", .type = BG_PARAM_DOUBLE, .dest = &pl->fit_amax, .lo = 1, .hi = 12,
       .help = "largest aspect of the two-regime fit (the seed's range: 4)"},
      {.name = "large-amin", .type = BG_PARAM_DOUBLE, .dest = &pl->large_amin, .lo = 0.25, .hi = 12,
       .help = "smallest aspect of the large-a power-law fit", .quick = "3", .paper = "6"},
      {.name = "jobs", .type = BG_PARAM_INT, .service = 1, .dest = &pl->jobs, .lo = 1, .hi = 64,
       .help = "runs simulated at once, each its own simulation with one CPU thread, or on cuda its own stream; "
               "results do not depend on it"},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab_accept_materials("drucker-prager,mu-i,ngf", "a granular model");
  bg_lab_check_options(runout_check_options, pl);
  bg_lab_takes_seeding();
  return bg_lab_init("exp_runout",
                     "Axisymmetric column collapse: runout vs aspect ratio against Lube 2004 and "
                     "Lajeunesse 2004, a two-regime GSL fit, refinement and floor friction.",
                     argc, argv, params, np, mutants);
}

/* The options no range in the table can check, by bg_lab_init before the
 * run folder is touched: the floor sweep's ends in order, the refinement's
 * grids, and the aspect list (parsed, and long enough for the fit). */
static void runout_check_options(void *ctx) {
  const runout_plan *pl = ctx;
  if (!(pl->mu_lo < pl->mu_hi)) bg_lab_fail("--mu-lo %g must be below --mu-hi %g", pl->mu_lo, pl->mu_hi);
  if (pl->conv_cells % 2)
    bg_lab_fail("--conv-cells %d: must be even (the grids are 1, 1.5, 2 and 3 times it)", pl->conv_cells);
  if (pl->conv_cells * 3 > 1024)
    bg_lab_fail("--conv-cells %d: the finest grid (x3) must stay at or below 1024 cells per R0", pl->conv_cells);
  double aspects[MAX_ASPECTS];
  int na = runout_parse_list(pl->aspects_s, aspects, MAX_ASPECTS, 0.25, 12, "aspects");
  if (na < RUNOUT_MIN_ASPECTS)
    bg_lab_fail("--aspects: at least %d values are needed for a three-parameter fit (got %d)", RUNOUT_MIN_ASPECTS,
                na);
}

/* The scene and its plan: the checks of the options, the aspects the
 * claims need, the column every run shares and the runs (the aspect sweep,
 * the refinement, the floor sweep: independent, so built first as the
 * points of one sweep, then read in order). Exits 2 on a bad option. */
static void runout_plan_runs(runout_plan *pl) {
  bg_lab *lab = pl->lab;
  const double phi = pl->phi;
  const double mu_floor = pl->mu_floor;
  const double R0 = pl->R0;
  const double t_max = pl->t_max;
  const double jitter = pl->jitter;
  const double conv_aspect = pl->conv_aspect;
  const double mu_aspect = pl->mu_aspect;
  const double mu_lo = pl->mu_lo;
  const double mu_hi = pl->mu_hi;
  const double fit_amax = pl->fit_amax;
  const double large_amin = pl->large_amin;
  const int cells = pl->cells, conv_cells = pl->conv_cells;
  const char *aspects_s = pl->aspects_s;
  /* every reference file the analysis reads, checked before any simulation */
  char ref_path[1400];
  bg_lab_reference(lab, LAWS, ref_path, sizeof ref_path);
  bg_lab_reference(lab, SEED, ref_path, sizeof ref_path);
  double aspects[MAX_ASPECTS];
  int na = runout_parse_list(aspects_s, aspects, MAX_ASPECTS, 0.25, 12, "aspects");
  /* a mutant run simulates only the stages its claims need */
  int need_small = bg_lab_needed(lab, "runout.break") || bg_lab_needed(lab, "runout.small_a_slope");
  int need_large = bg_lab_needed(lab, "runout.large_a_exponent");
  int need_conv = bg_lab_needed(lab, "runout.converged_dx"), need_floor = bg_lab_needed(lab, "runout.floor_mu");
  /* the origin claim's range: the static bound keeps its summit up to a = sqrt(3) tan phi (derivation section 1) */
  double origin_amax = sqrt(3.0) * tan(phi * M_PI / 180.0);
  int need_origin = bg_lab_needed(lab, "runout.origin");
  {
    int m = 0;
    for (int i = 0; i < na; ++i)
      if ((need_small && aspects[i] <= fit_amax * (1 + 1e-9)) || (need_large && aspects[i] >= large_amin * (1 - 1e-9)) ||
          (need_origin && aspects[i] <= origin_amax * (1 + 1e-9)))
        aspects[m++] = aspects[i];
    na = m;
  }
  gsl_set_error_handler_off();
  bg_lab_manifest_num(lab, "radius_m", R0);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "ke_threshold_over_MgR0", KE_FRAC);
  bg_lab_manifest_num(lab, "runout_threshold_over_dx", 1.0);
  bg_lab_manifest_num(lab, "fit_amax", fit_amax);
  bg_lab_manifest_num(lab, "large_amin", large_amin);
  bg_lab_manifest_str(lab, "runout_estimator", "toe extrapolated from the mass fractions 0.80-0.99 against sqrt(1-F)");
  bg_lab_manifest_str(lab, "symmetry", "quarter cylinder, slip faces at x = 0 and y = 0 as mirror planes");

  bg_column_scene base = bg_column_scene_lab(lab, R0, phi);
  bg_lab_manifest_material(lab, &base.material);
  base.t_max_s = t_max;
  base.jitter = jitter;
  base.cells = cells;
  base.floor = BG_FRICTION_COULOMB;
  base.mu = mu_floor;
  base.ke_frac = KE_FRAC;
  base.check_frac = CHECK_DT_FRAC;
  base.runout_h = 1.0;
  double dx = R0 / cells;
  lit_law lube = runout_read_law(lab, LAWS, "lube2004");

  bg_column_scene *scenes = pl->scenes;
  char(*tags)[64] = pl->tags;
  int *skip = pl->skip;
  int nr = 0;
  for (int i = 0; i < na; ++i, ++nr) {
    scenes[nr] = base;
    scenes[nr].aspect = aspects[i];
    scenes[nr].L_over_R0 = runout_domain_for(&lube, aspects[i]);
    snprintf(tags[nr], sizeof tags[nr], "a %.3g (%d/%d)", aspects[i], i + 1, na);
  }
  for (int gi = 0; gi < N_CONV; ++gi, ++nr) {
    scenes[nr] = base;
    scenes[nr].aspect = conv_aspect;
    scenes[nr].cells = conv_cells * runout_conv_factor2[gi] / 2;
    scenes[nr].L_over_R0 = runout_domain_for(&lube, conv_aspect);
    snprintf(tags[nr], sizeof tags[nr], "refinement %d/%d", gi + 1, N_CONV);
    skip[nr] = !need_conv;
  }
  for (int i = 0; i < N_MU; ++i, ++nr) {
    scenes[nr] = base;
    scenes[nr].aspect = mu_aspect;
    scenes[nr].mu = mu_lo + (mu_hi - mu_lo) * i / (N_MU - 1);
    scenes[nr].L_over_R0 = runout_domain_for(&lube, mu_aspect);
    snprintf(tags[nr], sizeof tags[nr], "floor mu %.3g", scenes[nr].mu);
    skip[nr] = !need_floor;
  }
  /* work per run ~ particles x steps ~ a cells^4: the order to start them */
  double *cost = pl->cost;
  const char **tagp = pl->tagp;
  for (int k = 0; k < nr; ++k) {
    cost[k] = scenes[k].aspect * pow(scenes[k].cells, 4);
    tagp[k] = tags[k];
  }
  memcpy(pl->aspects, aspects, sizeof aspects);
  pl->na = na;
  pl->origin_amax = origin_amax;
  pl->need_conv = need_conv;
  pl->need_floor = need_floor;
  pl->base = base;
  pl->dx = dx;
  pl->lube = lube;
  pl->nr = nr;
}

/* a stage a mutant run leaves out: every measurement NaN */
static bg_column_result skipped_result(void) {
  bg_column_result r;
  memset(&r, 0, sizeof r);
  r.runout = r.front = r.r99 = r.h_center = r.dx = r.H0 = NAN;
  return r;
}

/* One point of the sweep: a column run to rest (or a placeholder for a
 * stage this mutant run does not need), packed for the gather. */
typedef struct run_ctx {
  bg_lab *lab;
  const bg_column_scene *scenes;
  const char (*tags)[64];
  const int *skip;
} run_ctx;

static void run_point(void *vctx, int k, bg_lab_blob *out) {
  const run_ctx *c = vctx;
  bg_column_result r = c->skip[k] ? skipped_result() : bg_column_run(c->lab, &c->scenes[k], c->tags[k]);
  bg_column_result_pack(&r, out);
  bg_column_result_free(&r);
}

/* Every run, in this process --jobs at a time, or one point per process
 * with --point K and then --gather (bg_lab_sweep). With jobs > 1 each
 * simulation gets one CPU thread (nested parallelism is off), which is why
 * the results do not depend on jobs. */
static void runout_run(runout_plan *pl) {
  run_ctx rc = {pl->lab, pl->scenes, (const char(*)[64])pl->tags, pl->skip};
  bg_lab_blob *packed = bg_lab_sweep(pl->lab, pl->nr, pl->tagp, pl->cost, pl->jobs, run_point, &rc);
  for (int k = 0; k < pl->nr; ++k) pl->results[k] = bg_column_result_unpack(&packed[k]);
  bg_lab_sweep_free(packed, pl->nr);
  pl->next = 0;
}

int main(int argc, char **argv) {
  static runout_plan pl; /* large: not on the stack */
  static runout_readout ro;
  /* scene */
  pl.lab = runout_init(argc, argv, &pl);
  runout_plan_runs(&pl);
  /* run */
  runout_run(&pl);
  /* read-out, stage by stage */
  runout_aspect_sweep(&pl, &ro);
  runout_law_fits(&pl, &ro);
  runout_refinement(&pl, &ro);
  runout_floor(&pl, &ro);
  /* judge */
  runout_judge(&pl, &ro);
  return bg_lab_finish(pl.lab);
}
