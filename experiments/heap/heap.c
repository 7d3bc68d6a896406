/* heap.c: the poured heap beside the collapse deposit of the same sand.
 *
 * Scene: sand poured from a funnel at a fixed height onto a rough floor
 * (Coulomb mu, or stick), the mass of the repose experiment's collapse
 * column (R0 x H0 per unit slab thickness) in a set time, then run until it
 * settles. Geometry: a plane-strain ridge, half of it against a mirror
 * plane, in a slab ridge_cells thick between slip walls, fed by a BOX source
 * line (the slab of the repose experiment's ridge, bg_column's ridge): an
 * axisymmetric heap costs ~L/dx times more particles for the same flank,
 * and the ridge's collapse is already the lab's plane-strain reference. The
 * flank angle is read while the heap grows (a line fit of the profile
 * between 0.2 and 0.8 of its height, clear of the funnel's footprint, sand
 * in flight left out) and on the settled deposit
 * by the repose experiment's estimator (repose_measure: E1, the profile's
 * line fit over 0.2-0.8 h_max), with the fit window scanned to show how far
 * the angle is identified; on two to four grids, with a convergence verdict;
 * beside the collapse of the same column of the same sand on the same grids
 * (bg_column_run, the repose experiment's ridge). What each model implies:
 * references/derivations/poured_heap.md. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

static const char *const mutants[] = {"heights-doubled", "straight-flank", "settled-for-pour", "protocols-swapped",
                                      "converging-sequence", NULL};

typedef struct heap_opts {
  double phi, mu_floor, R0, aspect, domain, funnel_w, funnel_h, v_out, t_pour, t_max, ratio;
  int cells, grids, ridge_cells, stick;
} heap_opts;

static void heap_init(int argc, char **argv, heap_opts *o, heap_plan *pl) {
  *o = (heap_opts){.phi = 35, .mu_floor = 1.0, .R0 = 0.1, .aspect = 1.0, .domain = 4.0, .funnel_w = 0.25,
                   .funnel_h = 2.0, .v_out = 0.5, .t_pour = 1.5, .t_max = 4.0, .grids = 3, .ridge_cells = 4};
  bg_lab_param params[] = {
      {.name = "phi", .type = BG_PARAM_DOUBLE, .dest = &o->phi, .lo = 20, .hi = 45,
       .help = "Drucker-Prager friction angle fed to the sand, deg", .key = "phi_deg"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &o->mu_floor, .lo = 0.05, .hi = 5,
       .help = "floor Coulomb coefficient (both protocols)"},
      {.name = "stick", .type = BG_PARAM_INT, .dest = &o->stick, .lo = 0, .hi = 1,
       .help = "1: a stick floor instead of Coulomb"},
      {.name = "radius", .type = BG_PARAM_DOUBLE, .dest = &o->R0, .lo = 0.02, .hi = 0.5,
       .help = "collapse column half-width R0, m (the poured mass is its column's)", .key = "radius_m"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &o->aspect, .lo = 0.5, .hi = 3,
       .help = "collapse column aspect H0 / R0"},
      {.name = "cells-coarse", .type = BG_PARAM_INT, .dest = &o->cells, .lo = 4, .hi = 256,
       .help = "cells per R0 on the coarsest grid", .quick = "7", .paper = "16"},
      {.name = "grids", .type = BG_PARAM_INT, .dest = &o->grids, .lo = 2, .hi = HEAP_MAX_GRIDS,
       .help = "number of grids (3 for a Richardson verdict)"},
      {.name = "grid-ratio", .type = BG_PARAM_DOUBLE, .dest = &o->ratio, .lo = 1.2, .hi = 2,
       .help = "refinement ratio between grids (cells rounded)", .quick = "1.4142135623730951", .paper = "2"},
      {.name = "ridge-cells", .type = BG_PARAM_INT, .dest = &o->ridge_cells, .lo = 2, .hi = 64,
       .help = "slab thickness, cells"},
      {.name = "domain", .type = BG_PARAM_DOUBLE, .dest = &o->domain, .lo = 2, .hi = 10,
       .help = "domain length L / R0 (the heap's toe must stay clear of the far wall)", .key = "domain_over_R0"},
      {.name = "funnel-width", .type = BG_PARAM_DOUBLE, .dest = &o->funnel_w, .lo = 0.05, .hi = 1,
       .help = "outlet half-width against the mirror plane, of R0"},
      {.name = "funnel-height", .type = BG_PARAM_DOUBLE, .dest = &o->funnel_h, .lo = 0.3, .hi = 3,
       .help = "outlet height above the floor, of H0"},
      {.name = "outlet-speed", .type = BG_PARAM_DOUBLE, .dest = &o->v_out, .lo = 0.05, .hi = 5,
       .help = "downward speed of the sand leaving the outlet, m/s"},
      {.name = "pour-time", .type = BG_PARAM_DOUBLE, .dest = &o->t_pour, .lo = 0.1, .hi = 20,
       .help = "time over which the column's mass is poured, s"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &o->t_max, .lo = 0.2, .hi = 40,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab_accept_materials("drucker-prager,mu-i,ngf", "a granular model");
  bg_lab *lab = bg_lab_init("exp_heap",
                            "The poured heap: a ridge built by a funnel on a rough floor, its flank angle over time "
                            "and settled, on two to four grids, beside the collapse deposit of the same sand.",
                            argc, argv, params, np, mutants);
  gsl_set_error_handler_off();
  if (o->t_max <= o->t_pour) {
    fprintf(stderr, "error: --t-max %g must exceed --pour-time %g (the heap settles after the pour)\n", o->t_max,
            o->t_pour);
    exit(2);
  }
  /* the outlet's stream may not be denser than the sand: rate / (w v) per unit slab <= rho0 */
  double H0 = o->aspect * o->R0, w = o->funnel_w * o->R0;
  if (o->R0 * H0 / o->t_pour > w * o->v_out) {
    fprintf(stderr, "error: the stream from --funnel-width %g R0 at --outlet-speed %g m/s would be %.2f times as dense "
                    "as the sand for the column's mass in --pour-time %g s: widen, speed up or pour longer\n",
            o->funnel_w, o->v_out, o->R0 * H0 / o->t_pour / (w * o->v_out), o->t_pour);
    exit(2);
  }
  pl->lab = lab;
  pl->grids = o->grids;
  for (int gi = 0; gi < o->grids; ++gi) {
    pl->gcells[gi] = (int)lround(o->cells * pow(o->ratio, gi));
    if (pl->gcells[gi] > 512 || (gi > 0 && pl->gcells[gi] <= pl->gcells[gi - 1])) {
      fprintf(stderr, "error: --cells-coarse %d, --grids %d, --grid-ratio %g give grid %d with %d cells per R0 "
                      "(grids must be distinct, at most 512)\n", o->cells, o->grids, o->ratio, gi + 1, pl->gcells[gi]);
      exit(2);
    }
  }
}

/* The sand's friction as the lab holds it, and the flow angle it implies
 * (references/derivations/poured_heap.md sec. 1): Drucker-Prager's
 * surface-shear angle, or atan(mu_s) for mu(I) and nonlocal fluidity. */
static double flow_angle(const bg_material *m, double phi) {
  double ms = bg_lab_static_friction(m);
  return ms > 0 ? atan(ms) * DEG : repose_flow_angle(phi);
}

/* The scenes: the poured ridge and the collapsed column on each grid. */
static void heap_plan_runs(heap_plan *pl, const heap_opts *o) {
  bg_lab *lab = pl->lab;
  bg_column_scene col = bg_column_scene_lab(lab, o->R0, o->phi);
  bg_material sand = col.material;
  pl->theta_flow = flow_angle(&sand, o->phi); /* the scene's copy, for the manifest: claims read the simulation's */
  bg_lab_manifest_material(lab, &sand);
  bg_lab_manifest_num(lab, "theta_flow_deg", pl->theta_flow);
  bg_lab_manifest_str(lab, "geometry", "plane-strain half ridge: slab between slip walls, x = 0 a mirror plane");
  pl->R0 = o->R0;
  pl->H0 = o->aspect * o->R0;
  pl->phi = o->phi;
  col.aspect = o->aspect;
  col.ridge = 1;
  col.ridge_cells = o->ridge_cells;
  col.L_over_R0 = o->domain;
  col.t_max_s = o->t_max;
  col.floor = o->stick ? BG_FRICTION_STICK : BG_FRICTION_COULOMB;
  col.mu = o->stick ? 0 : o->mu_floor;
  heap_scene hs = {.material = sand, .R0 = o->R0, .H0 = pl->H0, .L_over_R0 = o->domain,
                   .ridge_cells = o->ridge_cells, .funnel_w = o->funnel_w * o->R0,
                   .funnel_z = o->funnel_h * pl->H0, .v_out = o->v_out, .t_pour = o->t_pour, .t_max = o->t_max,
                   .floor = col.floor, .mu = col.mu, .ke_frac = col.ke_frac, .check_frac = col.check_frac,
                   .backend = col.backend, .threads = col.threads, .seed = col.seed};
  bg_lab_manifest_num(lab, "funnel_half_width_m", hs.funnel_w);
  bg_lab_manifest_num(lab, "funnel_height_m", hs.funnel_z);
  bg_lab_manifest_num(lab, "outlet_speed_m_s", hs.v_out);
  bg_lab_manifest_num(lab, "pour_time_s", hs.t_pour);
  pl->n_pts = 0;
  for (int gi = 0; gi < pl->grids; ++gi) {
    pl->heap[gi] = hs;
    pl->heap[gi].cells = pl->gcells[gi];
    pl->collapse[gi] = col;
    pl->collapse[gi].cells = pl->gcells[gi];
  }
  /* points 0..grids-1 the pours, then the collapses; cost ~ cells^4, the
   * pour about three times a collapse (its longer run) */
  for (int k = 0; k < 2 * pl->grids; ++k) {
    int gi = k % pl->grids, pour = k < pl->grids;
    snprintf(pl->tags[k], sizeof pl->tags[k], "%s %d/%d", pour ? "pour" : "collapse", gi + 1, pl->grids);
    pl->tagp[k] = pl->tags[k];
    pl->cost[k] = (pour ? 3.0 : 1.0) * pow(pl->gcells[gi], 4);
  }
  pl->n_pts = 2 * pl->grids;
}

static void run_point(void *ctx, int k, bg_lab_blob *out) {
  heap_plan *pl = ctx;
  if (k < pl->grids) {
    heap_result r = heap_pour_run(pl->lab, &pl->heap[k], pl->tags[k]);
    heap_result_pack(&r, out);
    heap_result_free(&r);
  } else {
    bg_column_result r = bg_column_run(pl->lab, &pl->collapse[k - pl->grids], pl->tags[k]);
    bg_column_result_pack(&r, out);
    bg_column_result_free(&r);
  }
}

int main(int argc, char **argv) {
  static heap_plan pl; /* large: not on the stack */
  heap_opts o;
  /* scene: the options, the sand and the plan of runs */
  heap_init(argc, argv, &o, &pl);
  heap_plan_runs(&pl, &o);
  /* run: every simulation as a point of one sweep */
  pl.packed = bg_lab_sweep(pl.lab, pl.n_pts, pl.tagp, pl.cost, 1, run_point, &pl);
  /* read-out and judge */
  heap_readout(&pl);
  bg_lab_sweep_free(pl.packed, pl.n_pts);
  return bg_lab_finish(pl.lab);
}
