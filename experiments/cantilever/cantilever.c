/* cantilever.c: a jelly beam (the elastic model, bg_mat_elastic.h)
 * clamped at one end and bent by its own weight, settled quasi-statically,
 * its tip deflection against Euler-Bernoulli's q L^4 / (8 E I) on a series
 * of grids (references/derivations/elastic.md, reports/cantilever.md).
 *
 * Scene, a narrow beam with free sides: the grid is five nodes deep in y
 * with open faces, and the beam one particle layer on the middle node
 * plane, which by symmetry gets no y velocity while the planes beside it
 * move freely: tau_yy relaxes to 0, the bending modulus is E, and the
 * beam's width b is one cell. (Slip faces hold only against approaching
 * velocity: between them the slab ratchets outwards and creeps.) The clamp
 * is a stick halfspace x < 0, its plane midway between node planes, with
 * the beam's root embedded EMBED cells into it; the beam runs L along +x
 * with thickness h = L / aspect along z, 2 x 2 particles per cell in x and
 * z. Gravity -z from the start, the grid damped at zeta times mode 1's
 * critical rate 2 omega_1 (the static state is the same at any damping),
 * run for --periods periods of mode 1 at CFL --cfl (F is float: every
 * step below half an ulp of strain is lost, and the beam creeps; fewer,
 * larger steps creep less). The tip deflection is the mean z displacement
 * of the particles of the last column (initial x = x_col from the clamp),
 * compared with w(x_col).
 *
 * Refinement: --levels grids, h / dx = cells, 2 cells, 4 cells...; the
 * ratio deflection / w_EB(x_col) on them gives the observed order and the
 * extrapolated ratio (cantilever_fit.c). */
#include "cantilever.h"

#include <gsl/gsl_math.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bg_lab.h"

/* The grid's y extent: five nodes, the middle one free (see above). */
#define NY 5
/* Cells of the beam's root inside the clamp. */
#define EMBED 2

/* The options (their defaults first, then the table) and the lab. */
static bg_lab *cant_init(int argc, char **argv, cant_plan *pl) {
  static const char *const mutants[] = {"e-doubled", "i-wrong-axis", "plane-strain-modulus",
                                        "beam-in-cells", NULL};
  pl->L = 0.2;
  pl->aspect = 10;
  pl->E = 7.5e6;
  pl->nu = 0.3;
  pl->rho0 = 1000;
  pl->periods = 1.5;
  pl->cfl = 0.5;
  pl->zeta = 1;
  pl->law = "fixed-corotated";
  /* clang-format off */
  bg_lab_param params[] = {
      {.name = "length", .type = BG_PARAM_DOUBLE, .dest = &pl->L, .lo = 0.01, .hi = 10,
       .help = "beam length L from the clamp, m", .key = "length_m"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &pl->aspect, .lo = 4, .hi = 50,
       .help = "L / h (Euler-Bernoulli needs >= 10)"},
      {.name = "E", .type = BG_PARAM_DOUBLE, .dest = &pl->E, .lo = 1e3, .hi = 1e11,
       .help = "Young's modulus, Pa (default: tip deflection ~4% of L)", .key = "E_Pa"},
      {.name = "nu", .type = BG_PARAM_DOUBLE, .dest = &pl->nu, .lo = 0, .hi = 0.45,
       .help = "Poisson's ratio"},
      {.name = "rho0", .type = BG_PARAM_DOUBLE, .dest = &pl->rho0, .lo = 1, .hi = 1e5,
       .help = "density, kg/m^3 (the jelly's)", .key = "rho0_kg_m3"},
      {.name = "law", .type = BG_PARAM_STRING, .dest = &pl->law,
       .help = "fixed-corotated (taichi_mpm's jelly) or neo-hookean"},
      {.name = "cells", .type = BG_PARAM_INT, .dest = &pl->cells, .lo = 2, .hi = 256,
       .help = "cells through the thickness on the coarsest grid", .quick = "2", .paper = "4"},
      {.name = "levels", .type = BG_PARAM_INT, .dest = &pl->levels, .lo = 2, .hi = CANT_MAX_LEVELS,
       .help = "grids, each halving dx (3 give the observed order)", .quick = "3", .paper = "3"},
      {.name = "periods", .type = BG_PARAM_DOUBLE, .dest = &pl->periods, .lo = 0.1, .hi = 100,
       .help = "settling time, periods of the first bending mode"},
      {.name = "zeta", .type = BG_PARAM_DOUBLE, .dest = &pl->zeta, .lo = 0, .hi = 10,
       .help = "grid damping, fraction of mode 1's critical damping 2 omega_1"},
      {.name = "cfl", .type = BG_PARAM_DOUBLE, .dest = &pl->cfl, .lo = 0.05, .hi = 1,
       .help = "CFL number of the step (fewer steps: less float creep of F)"},
  };
  /* clang-format on */
  bg_lab *lab = bg_lab_init("exp_cantilever",
                            "A jelly cantilever bent by its own weight; tip deflection against "
                            "Euler-Bernoulli on a series of grids.",
                            argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
  if (bg_lab_material_model(lab) != BG_MODEL_DP)
    bg_lab_fail(
        "--material: the cantilever is the elastic model (--law picks its law); it takes no "
        "--material");
  if (!strcmp(pl->law, "fixed-corotated"))
    pl->law_id = BG_ELASTIC_FIXED_COROTATED;
  else if (!strcmp(pl->law, "neo-hookean"))
    pl->law_id = BG_ELASTIC_NEO_HOOKEAN;
  else
    bg_lab_fail("--law: '%s' is not fixed-corotated or neo-hookean", pl->law);
  pl->lab = lab;
  return lab;
}

/* The grid of level k: h / dx cells through the thickness. The mutant
 * beam-in-cells keeps the coarsest grid's cell counts for the beam on every
 * grid, so the beam shrinks with dx while the closed form keeps L and h. */
static int level_cells(const cant_plan *pl, int k) { return pl->cells << k; }

/* The simulation of one grid: the descriptor, the beam's particles, and
 * the indices of its tip column. */
typedef struct cant_scene {
  bg_sim *sim;
  size_t n, n_tip;
  size_t *tip;   /* particle indices of the last column */
  double z0_tip; /* their mean initial z */
  double x_col;  /* their initial x from the root */
  double dx;
} cant_scene;

static cant_scene make_scene(const cant_plan *pl, int k) {
  cant_scene s;
  const int cells = level_cells(pl, k);
  const double h = pl->L / pl->aspect, dx = h / cells;
  const long nl = lround(pl->aspect * cells); /* cells along the beam */
  int beam_cells = cells;
  long beam_nl = nl;
  if (bg_lab_mutant_is(pl->lab, "beam-in-cells")) {
    beam_cells = level_cells(pl, 0);
    beam_nl = lround(pl->aspect * beam_cells);
  }
  /* the clamp: a stick halfspace x < 0, its plane midway between node
   * planes, and the beam's root embedded EMBED cells into it */
  const double x_root = -EMBED * dx;
  /* room below for a sag of 5% of L, and three free cells around */
  const long below = (long)ceil(0.05 * pl->L / dx) + 3;
  bg_sim_desc d = bg_sim_desc_default();
  d.dx = (bg_real)dx;
  d.dims[0] = (size_t)(nl + EMBED + 8);
  d.dims[1] = NY;
  d.dims[2] = (size_t)(below + cells + 8);
  d.origin[0] = (bg_real)(-(EMBED + 2.5) * dx);
  d.origin[1] = (bg_real)(-1.5 * dx);
  d.origin[2] = (bg_real)(-(below + 2.5) * dx);
  bg_collider clamp;
  memset(&clamp, 0, sizeof clamp);
  clamp.shape = BG_SHAPE_HALFSPACE;
  clamp.normal[0] = 1;
  clamp.friction = BG_FRICTION_STICK;
  d.colliders = &clamp;
  d.n_colliders = 1;
  /* the y faces hold nothing: the beam's sides are free (sigma_yy = 0) */
  d.walls[BG_FACE_YLO].friction = d.walls[BG_FACE_YHI].friction = BG_FRICTION_OPEN;
  d.material = bg_material_default(BG_MODEL_ELASTIC);
  d.material.elastic.law = (bg_elastic_law)pl->law_id;
  d.material.E = (bg_real)pl->E;
  d.material.nu = (bg_real)pl->nu;
  d.material.rho0 = (bg_real)pl->rho0;
  /* the beam is twice as stiff as the closed form is told */
  if (bg_lab_mutant_is(pl->lab, "e-doubled")) d.material.E = (bg_real)(2.0 * pl->E);
  d.cfl = (bg_real)pl->cfl;
  d.backend = bg_lab_backend(pl->lab);
  d.threads = bg_lab_threads(pl->lab);
  cant_beam bm = {pl->L, h, dx, pl->E, pl->nu, pl->rho0, -d.gravity[2], 0, 0};
  d.damping = (bg_real)(2.0 * pl->zeta * cant_omega1(&bm));
  char err[512];
  bg_status st = bg_sim_create(&d, &s.sim, err, sizeof err);
  if (st != BG_OK) bg_lab_fail("bg_sim_create (grid %d): %s", k + 1, err);

  /* 2 x 2 particles per cell in x and z, one layer at y = dx / 2 */
  s.n = (size_t)(2 * (beam_nl + EMBED)) * (size_t)(2 * beam_cells);
  bg_real *x = bg_lab_xmalloc(3 * s.n * sizeof *x);
  s.tip = bg_lab_xmalloc((size_t)(2 * beam_cells) * sizeof *s.tip);
  s.n_tip = 0;
  s.z0_tip = 0;
  size_t p = 0;
  for (long i = 0; i < 2 * (beam_nl + EMBED); ++i)
    for (long j = 0; j < 2 * beam_cells; ++j, ++p) {
      x[3 * p] = (bg_real)(x_root + (i + 0.5) * 0.5 * dx);
      x[3 * p + 1] = (bg_real)(0.5 * dx);
      x[3 * p + 2] = (bg_real)((j + 0.5) * 0.5 * dx);
      if (i == 2 * (beam_nl + EMBED) - 1) {
        s.tip[s.n_tip++] = p;
        s.z0_tip += x[3 * p + 2];
      }
    }
  s.z0_tip /= (double)s.n_tip;
  s.x_col = (2 * beam_nl - 0.5) * 0.5 * dx;
  s.dx = dx;
  bg_lab_check(bg_sim_add_particles(s.sim, s.n, x, NULL, 4), s.sim, "adding the beam");
  free(x);
  return s;
}

/* The mean downward displacement of the tip column, m. */
static double tip_deflection(const cant_scene *s, bg_real *buf) {
  bg_lab_check(bg_sim_get(s->sim, BG_FIELD_X, buf, 3 * s->n), s->sim, "reading positions");
  double z = 0;
  for (size_t i = 0; i < s->n_tip; ++i) z += buf[3 * s->tip[i] + 2];
  return s->z0_tip - z / (double)s->n_tip;
}

/* The settling loop's state between rows, for a checkpoint. */
typedef struct settle_loop {
  cant_point *pt;
  int row; /* rows recorded */
} settle_loop;

static void settle_pack(void *ctx, bg_lab_blob *b) {
  const settle_loop *l = ctx;
  int32_t n = l->row;
  bg_lab_blob_put(b, &n, sizeof n);
  bg_lab_blob_put(b, l->pt->hist, (size_t)n * sizeof l->pt->hist[0]);
}

/* Sweep point k: grid k settled, its tip deflection and history. */
static void run_level(void *ctx, int k, bg_lab_blob *result) {
  const cant_plan *pl = ctx;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cant_scene s = make_scene(pl, k);
  static cant_point pt; /* large; points run one at a time (jobs 1) */
  memset(&pt, 0, sizeof pt);
  bg_sim_desc fed;
  bg_lab_check(bg_sim_describe(s.sim, &fed), s.sim, "describing the simulation");
  pt.E = fed.material.E;
  pt.nu = fed.material.nu;
  pt.rho0 = fed.material.rho0;
  pt.g = -fed.gravity[2];
  pt.damping = fed.damping;
  const double h = pl->L / pl->aspect;
  cant_beam bm = {pl->L, h, s.dx, pt.E, pt.nu, pt.rho0, pt.g, 0, 0};
  pt.T1 = 2.0 * M_PI / cant_omega1(&bm);
  const double t_end = pl->periods * pt.T1;
  const int rows = 200; /* history rows over the run */
  bg_real *buf = bg_lab_xmalloc(3 * s.n * sizeof *buf);
  char tag[64];
  snprintf(tag, sizeof tag, "grid %d", k + 1);
  settle_loop sl = {&pt, 0};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(pl->lab, s.sim, tag, &state, &finished);
  if (state.len) {
    int32_t n;
    bg_lab_blob_get(&state, &n, sizeof n);
    if (n < 0 || n > CANT_MAX_HIST)
      bg_lab_fail("%s: the checkpoint's history has %d rows", tag, (int)n);
    bg_lab_blob_get(&state, pt.hist, (size_t)n * sizeof pt.hist[0]);
    sl.row = n;
  }
  bg_lab_blob_free(&state);
  bg_stats stats;
  while (!finished && sl.row < rows) {
    double t_next = t_end * (sl.row + 1) / rows;
    bg_lab_check(bg_sim_advance_to(s.sim, t_next), s.sim, "stepping");
    bg_lab_check(bg_sim_stats(s.sim, &stats), s.sim, "stats");
    pt.hist[sl.row][0] = stats.time;
    pt.hist[sl.row][1] = tip_deflection(&s, buf);
    sl.row++;
    bg_lab_progress_sim(pl->lab, tag, stats.time, t_end, (double)s.n * (double)stats.step);
    bg_lab_sim_tick(ls, settle_pack, &sl);
  }
  bg_lab_sim_end(ls, settle_pack, &sl);
  bg_lab_check(bg_sim_stats(s.sim, &stats), s.sim, "stats");
  pt.n_hist = sl.row;
  pt.dx = s.dx;
  pt.cells = h / s.dx;
  pt.particles = (double)s.n;
  pt.steps = (double)stats.step;
  pt.t_end = stats.time;
  pt.x_col = s.x_col;
  pt.defl = pt.hist[pt.n_hist - 1][1];
  /* the row a quarter period before the end */
  int back = (int)lround(0.25 * rows / pl->periods);
  if (back < 1) back = 1;
  pt.settle = fabs(pt.defl - pt.hist[pt.n_hist - 1 - back][1]) / fabs(pt.defl);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  pt.wall_s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  bg_lab_add_work(pl->lab, pt.particles * pt.steps);
  bg_lab_progress(
      pl->lab, "%s: h/dx %g, %zu particles, %.0f steps, tip deflection %.6g m, settle %.2g, %.1f s",
      tag, pt.cells, s.n, pt.steps, pt.defl, pt.settle, pt.wall_s);
  bg_lab_blob_put(result, &pt, sizeof pt);
  free(buf);
  free(s.tip);
  bg_sim_destroy(s.sim);
}

int main(int argc, char **argv) {
  static cant_plan pl;
  /* scene: the options and the grids */
  bg_lab *lab = cant_init(argc, argv, &pl);
  bg_material m = bg_material_default(BG_MODEL_ELASTIC);
  m.elastic.law = (bg_elastic_law)pl.law_id;
  m.E = (bg_real)pl.E;
  m.nu = (bg_real)pl.nu;
  m.rho0 = (bg_real)pl.rho0;
  bg_lab_manifest_material(lab, &m);
  int n = pl.levels;
  char tags[CANT_MAX_LEVELS][32];
  const char *tagp[CANT_MAX_LEVELS];
  double cost[CANT_MAX_LEVELS];
  for (int k = 0; k < n; ++k) {
    snprintf(tags[k], sizeof tags[k], "grid %d/%d", k + 1, n);
    tagp[k] = tags[k];
    cost[k] = pow(8.0, k); /* particles 4x and steps 2x per halving */
  }
  /* run: each grid a point of one sweep */
  bg_lab_blob *packed = bg_lab_sweep(lab, n, tagp, cost, 1, run_level, &pl);
  static cant_point pts[CANT_MAX_LEVELS];
  for (int k = 0; k < n; ++k) {
    packed[k].pos = 0;
    bg_lab_blob_get(&packed[k], &pts[k], sizeof pts[k]);
  }
  bg_lab_sweep_free(packed, n);
  /* read-out and judge */
  cant_analyse(&pl, pts, n);
  return bg_lab_finish(lab);
}
