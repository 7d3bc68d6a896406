/* repose.c: the angle of repose of a collapsed sand column.
 *
 * Scene: a cylinder of Klar's sand (radius R0, height H0 = a R0, fed friction
 * angle phi) released at rest on a floor with Coulomb friction mu_floor (or a
 * stick floor), run until it settles; the deposit's flank angle is read by
 * four surface estimators, on a sequence of grids refined by a constant ratio
 * (2 at paper scale, sqrt 2 at quick scale), and extrapolated to dx -> 0 with
 * an unweighted GSL fit theta(h) = theta_inf + c h^p (h = dx / R0, p free,
 * covariance scaled by chi^2 / dof, so at least four grids). A floor-friction
 * sweep measures runout; a plane-strain ridge (a slab between slip walls) is
 * compared with the axisymmetric pile. With --dim 2 the run is the ridge
 * alone on the 2D plane-strain solver, held to the slab it replaces within
 * the slab's own dx error (the slab at the finest and the next grid). Expected values that follow from the
 * model (the flow angle bound) are derived in references/derivations/repose.md.
 *
 * The scene, its symmetry (a quarter cylinder between slip mirror planes),
 * the settling rule, the height field and the runout are bg_column.c's,
 * shared with the runout experiment; see bg_column.h.
 * Estimators use the mid-flank band 0.2 h_max <= h <= 0.8 h_max, h_max the
 * highest column:
 *   E1 profile: line fit to the radially averaged profile h(r) (annuli dx wide)
 *   E2 cone: nonlinear fit z = z0 - t sqrt((x-x0)^2 + (y-y0)^2) to the columns
 *   E3 sectors: line fits h(r) in N_SECTORS azimuth sectors of the quarter, averaged
 *   E4 slope: median of atan |grad h| (central differences of the height field)
 * Runout: the outermost radius where the annular mean thickness crosses
 * RUNOUT_H dx, linearly interpolated between annulus centres. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"
#include "repose.h"

static const char *const mutants[] = {"grids-fine-to-coarse", "converging-sequence", "slope-over-dx",
                                      "heights-doubled",      "ridge-ruler-on-pile", "slick-floor",
                                      "phi-fed-40",           "phi-read-stale",      "ridge-2d-phi-30",
                                      NULL};

/* the run's options (the table in repose_init) and the grids they give */
typedef struct repose_opts {
  double phi, mu_floor, aspect, R0, domain, t_max, jitter, ratio;
  int cells, grids, mu_cells, ridge_cells, dim;
  int gcells[MAX_GRIDS]; /* cells per R0 of each refinement grid */
} repose_opts;

/* The refinement's grids from --cells-coarse, --grids and --grid-ratio,
 * checked by bg_lab_init before the run folder is touched: distinct, at
 * most 1024 cells per R0. */
static void repose_check_options(void *ctx) {
  repose_opts *o = ctx;
  for (int gi = 0; gi < o->grids; ++gi) {
    o->gcells[gi] = (int)lround(o->cells * pow(o->ratio, gi));
    if (o->gcells[gi] > 1024 || (gi > 0 && o->gcells[gi] <= o->gcells[gi - 1]))
      bg_lab_fail("--cells-coarse %d, --grids %d, --grid-ratio %g give grid %d with %d cells per R0 "
                  "(grids must be distinct, at most 1024)", o->cells, o->grids, o->ratio, gi + 1, o->gcells[gi]);
  }
}

/* The options, the lab and the refinement grids; exits 2 on grids that
 * are not distinct or too fine. */
static bg_lab *repose_init(int argc, char **argv, repose_opts *o) {
  *o = (repose_opts){.phi = 35, .mu_floor = 1.0, .aspect = 1.0, .R0 = 0.1, .domain = 2.5, .t_max = 3.0,
                     .jitter = 0.5, .grids = 5, .ridge_cells = 4, .dim = 3};
  bg_lab_param params[] = {
      {.name = "phi", .type = BG_PARAM_DOUBLE, .dest = &o->phi, .lo = 20, .hi = 45, .help = "fed friction angle, deg",
       .key = "phi_deg"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &o->mu_floor, .lo = 0.05, .hi = 5,
       .help = "floor Coulomb coefficient of the refinement runs"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &o->aspect, .lo = 0.5, .hi = 3,
       .help = "column aspect ratio a = H0 / R0"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &o->R0, .lo = 0.02, .hi = 0.5, .help = "column radius R0, m",
       .key = "radius_m"},
      {.name = "cells-coarse", .type = BG_PARAM_INT, .dest = &o->cells, .lo = 4, .hi = 256,
       .help = "cells per R0 on the coarsest grid (dx-coarse = R0 / this)", .quick = "6", .paper = "8"},
      {.name = "grids", .type = BG_PARAM_INT, .dest = &o->grids, .lo = 4, .hi = MAX_GRIDS,
       .help = "number of grids (the fit needs >= 4)"},
      {.name = "mu-cells", .type = BG_PARAM_INT, .dest = &o->mu_cells, .lo = 4, .hi = 256,
       .help = "cells per R0 of the floor-friction sweep", .quick = "12", .paper = "32"},
      {.name = "ridge-cells", .type = BG_PARAM_INT, .dest = &o->ridge_cells, .lo = 2, .hi = 64,
       .help = "plane-strain slab thickness, cells"},
      {.name = "dim", .type = BG_PARAM_INT, .dest = &o->dim, .lo = 2, .hi = 3,
       .help = "3: the run as ever; 2: only the ridge on the 2D plane-strain solver against the slab it replaces"},
      {.name = "domain", .type = BG_PARAM_DOUBLE, .dest = &o->domain, .lo = 1.5, .hi = 10,
       .help = "quarter-domain extent L / R0", .key = "domain_over_R0"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &o->t_max, .lo = 0.1, .hi = 20,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &o->jitter, .lo = 0, .hi = 1,
       .help = "lattice jitter, fraction of the particle spacing"},
      {.name = "grid-ratio", .type = BG_PARAM_DOUBLE, .dest = &o->ratio, .lo = 1.2, .hi = 2,
       .help = "refinement ratio between grids (cells rounded)", .quick = "1.4142135623730951", .paper = "2"},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab_accept_materials("drucker-prager,mu-i,ngf", "a granular model");
  bg_lab_takes_seeding();
  bg_lab_check_options(repose_check_options, o);
  bg_lab *lab = bg_lab_init("exp_repose",
                            "Angle of repose of a released sand cylinder: four surface estimators, "
                            "refinement in dx, floor friction sweep, plane-strain ridge.",
                            argc, argv, params, np, mutants);
  gsl_set_error_handler_off();
  return lab;
}

static int add_point(sweep_pts *pts, const bg_column_scene *sc, const char *tag) {
  int k = pts->n++;
  pts->scenes[k] = *sc;
  snprintf(pts->tags[k], sizeof pts->tags[k], "%s", tag);
  pts->tagp[k] = pts->tags[k];
  bg_column_scene_key(sc, pts->keys[k], sizeof pts->keys[k]);
  pts->keyp[k] = pts->keys[k];
  /* work ~ particles x steps ~ cells^4: the costliest first */
  pts->cost[k] = pow(sc->cells, 4);
  return k;
}

static void run_point(void *ctx, int k, bg_lab_blob *out) {
  sweep_pts *pts = ctx;
  bg_column_result r = bg_column_run(pts->lab, &pts->scenes[k], pts->tags[k]);
  bg_column_result_pack(&r, out);
  bg_column_result_free(&r);
}

/* The scene and its plan: the column every run shares, the angles the
 * flank is judged against, the stages the claims need and the sweep's
 * points (grids, floor frictions, the ridge). */
static void repose_plan_runs(repose_plan *pl, const repose_opts *o) {
  bg_lab *lab = pl->lab;
  const double phi = o->phi, mu_floor = o->mu_floor, aspect = o->aspect, R0 = o->R0, domain = o->domain;
  const double t_max = o->t_max, jitter = o->jitter;
  const int cells = o->cells, grids = o->grids, mu_cells = o->mu_cells, ridge_cells = o->ridge_cells;
  const int *gcells = o->gcells;
  double tanphi = tan(phi / DEG), phi_flow = repose_flow_angle(phi);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "ke_threshold_over_MgR0", KE_FRAC);
  bg_lab_manifest_num(lab, "band_lo_over_hmax", BAND_LO);
  bg_lab_manifest_num(lab, "band_hi_over_hmax", BAND_HI);
  bg_lab_manifest_num(lab, "runout_threshold_over_dx", RUNOUT_H);
  bg_lab_manifest_num(lab, "phi_flow_deg", phi_flow);
  bg_lab_manifest_str(lab, "symmetry", "quarter cylinder, slip faces at x = 0 and y = 0 as mirror planes");

  bg_column_scene base = bg_column_scene_lab(lab, R0, phi);
  base.aspect = aspect;
  /* the planted bug of issue 31: the sand fed 5 deg more than the lab's
   * phi, while the claims compare with the lab's copy */
  int fed_off = bg_lab_mutant_is(lab, "phi-fed-40");
  if (fed_off && base.material.model == BG_MODEL_DP) {
    base.phi = phi + 5; /* what bg_column feeds the simulation */
    base.material.dp.phi_deg = (bg_real)(phi + 5);
  }
  bg_lab_manifest_material(lab, &base.material);
  /* the angle the flank is judged against: the fed phi for Drucker-Prager;
   * for mu(I) the Mohr-Coulomb angle whose compression cone is mu(I)'s
   * static cone, sqrt(J2) = mu_s p (6 sin / (sqrt 3 (3 - sin)) = mu_s), and
   * its flow angle atan(mu_s) (references/derivations/mu_i.md) */
  double phi_ref = phi;
  if (bg_lab_static_friction(&base.material) > 0) {
    double ms = bg_lab_static_friction(&base.material);
    phi_ref = asin(3 * sqrt(3.0) * ms / (6 + sqrt(3.0) * ms)) * DEG;
    phi_flow = atan(ms) * DEG;
    bg_lab_manifest_num(lab, "phi_ref_deg", phi_ref);
    bg_lab_manifest_num(lab, "phi_flow_deg_mu_s", phi_flow);
  }
  base.L_over_R0 = domain;
  base.t_max_s = t_max;
  base.jitter = jitter;
  base.cells = cells;
  base.ridge_cells = ridge_cells;
  base.floor = BG_FRICTION_COULOMB;
  base.mu = mu_floor;
  base.ke_frac = KE_FRAC;
  base.check_frac = CHECK_DT_FRAC;
  base.runout_h = RUNOUT_H;

  if (bg_lab_needed(lab, "repose.lower_band")) {
    char bpath[1200];
    bg_lab_reference(lab, "baselines/repose_lower_band.tsv", bpath, sizeof bpath);
  }
  /* which stages this run needs (a mutant run skips the others) */
  int need_ridge = bg_lab_needed(lab, "repose.ridge_vs_pile");
  /* the 2D ridge's parity with the slab: a --dim 2 run (nothing else), or
   * a mutant run of its claims */
  int need_plane = (o->dim == 2 || bg_lab_mutant(lab) != NULL) &&
                   (bg_lab_needed(lab, "repose.ridge_2d_parity") || bg_lab_needed(lab, "repose.ridge_2d_runout"));
  if (o->dim == 2) need_ridge = 0;
  int need_conv = need_ridge || bg_lab_needed(lab, "repose.estimators_agree") ||
                  bg_lab_needed(lab, "repose.monotone") || bg_lab_needed(lab, "repose.limit") ||
                  bg_lab_needed(lab, "repose.limit_width") || bg_lab_needed(lab, "repose.flank_below_flow");
  /* the lower band is read on the finest grid: a run that needs nothing
   * else of the refinement (the phi-fed-40 mutant's) runs that grid alone */
  int lower_only = !need_conv && bg_lab_needed(lab, "repose.lower_band");
  need_conv = need_conv || lower_only;
  int need_hi = bg_lab_needed(lab, "repose.floor_mu"); /* the mu = 1 and 1.4 tan phi runs */
  int need_stick = bg_lab_needed(lab, "repose.stick_runout");
  int need_low = need_stick || bg_lab_needed(lab, "repose.floor_mu_low_grows");
  int plain = bg_lab_mutant(lab) == NULL && o->dim == 3;
  if (o->dim == 2) need_conv = need_hi = need_stick = need_low = 0;

  /* Every simulation of the run is built first, as the points of one sweep
   * (bg_lab_sweep: in this process one after another, or one point per
   * process with --point K, then --gather); the stages below measure them
   * in order. The floor sweep's plan: which mu each run has, and which runs
   * this run needs (the slick-floor control makes its low floor nearly
   * frictionless and reuses that run for mu = tan phi). */
  const double mu_fac[] = {0.4, 0.7, 1.0, 1.4, 2.0};
  int need_ref = need_hi || need_low; /* the mu = 2 tan phi reference */
  double *mus = pl->mus;
  int *ran = pl->ran, *slick_reuse = pl->slick_reuse;
  for (int i = 0; i <= N_MU; ++i) {
    ran[i] = i == N_MU ? need_stick : i == I_LOW ? need_low : i == I_MID ? plain : i == N_MU - 1 ? need_ref : need_hi;
    mus[i] = i < N_MU ? mu_fac[i] * tanphi : NAN;
    int slick = bg_lab_mutant_is(lab, "slick-floor") && (i == I_LOW || i == I_TAN);
    if (slick) mus[i] = SLICK_MU;
    slick_reuse[i] = slick && i == I_TAN;
  }
  sweep_pts *pts = &pl->pts;
  pts->lab = lab;
  pts->n = 0;
  int *conv_pt = pl->conv_pt, *mu_pt = pl->mu_pt;
  pl->ridge_pt = -1;
  for (int gi = 0; gi < (need_conv ? grids : 0); ++gi) {
    conv_pt[gi] = -1;
    if (lower_only && gi < grids - 1) continue;
    bg_column_scene sc = base;
    sc.cells = gcells[gi];
    char tag[64];
    snprintf(tag, sizeof tag, "grid %d/%d", gi + 1, grids);
    conv_pt[gi] = add_point(pts, &sc, tag);
  }
  for (int i = 0; i <= N_MU; ++i) {
    mu_pt[i] = -1;
    if (!need_ref || slick_reuse[i] || !ran[i]) continue;
    bg_column_scene sc = base;
    sc.cells = mu_cells;
    char tag[64];
    if (i < N_MU) {
      sc.mu = mus[i];
      snprintf(tag, sizeof tag, "floor mu %.3g", mus[i]);
    } else {
      sc.floor = BG_FRICTION_STICK;
      sc.mu = 0;
      snprintf(tag, sizeof tag, "floor stick");
    }
    mu_pt[i] = add_point(pts, &sc, tag);
  }
  if (need_ridge) {
    bg_column_scene sr = base;
    sr.ridge = 1;
    sr.cells = gcells[grids - 1];
    pl->ridge_pt = add_point(pts, &sr, "ridge");
  }
  pl->plane_pt = pl->slab_pt[0] = pl->slab_pt[1] = -1;
  if (need_plane) {
    /* the 2D ridge at the finest grid's dx, and the slab at that dx and the
     * next coarser one: its dx error is the parity's tolerance */
    bg_column_scene sr = base;
    sr.ridge = 1;
    sr.cells = gcells[grids - 1];
    sr.dim = 2;
    /* the scene mutant: the 2D ridge's sand fed 5 deg less than the slab's */
    if (bg_lab_mutant_is(lab, "ridge-2d-phi-30")) {
      sr.phi -= 5;
      sr.material.dp.phi_deg -= 5;
    }
    pl->plane_pt = add_point(pts, &sr, "ridge 2D");
    sr = base;
    sr.ridge = 1;
    for (int k = 0; k < 2; ++k) {
      sr.cells = gcells[grids - 1 - k];
      pl->slab_pt[k] = add_point(pts, &sr, k ? "ridge slab, next grid" : "ridge slab");
    }
  }
  pl->phi = phi;
  pl->R0 = R0;
  pl->aspect = aspect;
  pl->tanphi = tanphi;
  pl->phi_ref = phi_ref;
  pl->phi_flow = phi_flow;
  pl->grids = grids;
  pl->fed_off = fed_off;
  pl->plain = plain;
  pl->need_conv = need_conv;
  pl->lower_only = lower_only;
  pl->need_ridge = need_ridge;
  pl->need_plane = need_plane;
  pl->need_hi = need_hi;
  pl->need_stick = need_stick;
  pl->need_low = need_low;
  pl->need_ref = need_ref;
}

int main(int argc, char **argv) {
  static repose_plan pl; /* large: not on the stack */
  repose_opts o;
  /* scene: the options, the column and the plan of runs */
  pl.lab = repose_init(argc, argv, &o);
  repose_plan_runs(&pl, &o);
  /* run: every simulation as a point of one sweep (bg_lab_sweep: in this
   * process one after another, or one point per process with --point K,
   * then --gather) */
  bg_lab_sweep_keys(pl.lab, pl.pts.keyp);
  pl.pts.packed = bg_lab_sweep(pl.lab, pl.pts.n, pl.pts.tagp, pl.pts.cost, 1, run_point, &pl.pts);
  /* read-out and judge, stage by stage */
  result conv[MAX_GRIDS], rmu[N_MU + 1], rr;
  memset(conv, 0, sizeof conv);
  memset(rmu, 0, sizeof rmu);
  memset(&rr, 0, sizeof rr);
  repose_refinement(&pl, conv);
  repose_floor(&pl, rmu);
  repose_ridge(&pl, conv, &rr);
  repose_ridge_2d(&pl);

  for (int gi = 0; gi < (pl.need_conv ? pl.grids : 0); ++gi) {
    free(conv[gi].rbin);
    free(conv[gi].hbin);
  }
  for (int i = 0; i <= N_MU; ++i) {
    free(rmu[i].rbin);
    free(rmu[i].hbin);
  }
  free(rr.rbin);
  free(rr.hbin);
  bg_lab_sweep_free(pl.pts.packed, pl.pts.n);
  return bg_lab_finish(pl.lab);
}
