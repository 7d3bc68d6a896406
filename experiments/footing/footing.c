/* footing.c: Prandtl's strip footing. A rigid, smooth footing of width B
 * is pushed at constant speed into a weightless von Mises half-space in
 * plane strain; its pressure q = F / (B w) levels off at
 *   q_ult = (2 + pi) c,  c = sigma_y / sqrt 3
 * (Prandtl 1920; references/derivations/von_mises.md sec. 4).
 *
 * Scene: the whole footing. The material fills -L < x < L, 0 < y < w,
 * 0 < z < D, each edge on its wall's last solid node (half a cell beyond
 * the wall's plane, where a loaded wall acts: references/walls.md); the
 * faces y = 0 and y = w are slip walls (plane strain), the far walls
 * x = +-L and the floor are slip faces, gravity is 0. The footing is a box
 * collider (slip: a smooth footing) over |x| < B / 2, its edges midway
 * between node planes, moving down at v. A half footing against a slip
 * mirror face at x = 0 is not used: a slip face holds only an approaching
 * normal velocity at zero, and the material under a footing moves away
 * from the centre line, so the mirror would not hold it.
 * Every length is a whole number of cells (dx = B / cells) and the
 * footing's bottom starts midway between node planes, half a cell below
 * the surface, so the surface starts on its last solid node
 * (bg_wall_edge_offset: where a loaded wall acts).
 *
 * Read-out: the footing's force is its entry in bg_sim_wall_impulses (the
 * colliders come first), so the mean force over a settlement window is the
 * impulse difference over the window's duration. The collider loads the
 * material one node row at a time, so the load oscillates with period dx of
 * settlement; the plateau is the mean over the same settlements (in B) at
 * every grid, a whole number of rows at each. Each edge of the footing acts
 * within a cell of its last solid node, an O(dx / B) error in the width, so
 * the claim extrapolates the two finest plateaus linearly in dx to dx = 0
 * and compares that with (2 + pi) sigma_y / sqrt 3 for the sigma_y the
 * simulation holds (bg_sim_describe). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"

/* (2 + pi) / sqrt 3: q_ult over sigma_y (claims.tsv holds it as fed*X). */
#define PRANDTL_VM 2.9685003607531606

typedef struct options {
  const char *cells; /* B / dx, comma-separated, coarse to fine */
  double speed;      /* v / c_p */
  double sy_over_e;  /* sigma_y / E */
  double half_width; /* L / B */
  double depth;      /* D / B */
  double window_start, window_len; /* plateau window: start and length, in B */
  int slab;          /* slab thickness, cells */
  int samples;       /* curve rows per cell of settlement */
} options;

typedef struct run_result {
  int cells;
  double speed; /* v / c_p */
  double dx, sigma_y_fed, q_plateau, q_over_qult, window_lo, window_hi; /* window in B */
  double q_floor;  /* the same window's pressure read from the floor face: a mutant's wrong wall */
  size_t n_particles;
  uint64_t steps;
  double *curve; /* settlement / B, q / q_ult: 2 per row */
  int n_curve;
} run_result;

/* The loop's state between rows, for a checkpoint: rows so far and the
 * impulses at the window's start. */
typedef struct loop {
  run_result *r;
  int row;
  double imp_lo[2]; /* footing z and floor z impulses at the window start */
} loop;

static void loop_pack(void *ctx, bg_lab_blob *b) {
  const loop *l = ctx;
  int32_t row = l->row;
  bg_lab_blob_put(b, &row, sizeof row);
  bg_lab_blob_put(b, l->imp_lo, sizeof l->imp_lo);
  bg_lab_blob_put(b, l->r->curve, 2 * (size_t)l->row * sizeof *l->r->curve);
}

static void loop_unpack(loop *l, bg_lab_blob *b) {
  int32_t row;
  bg_lab_blob_get(b, &row, sizeof row);
  bg_lab_blob_get(b, l->imp_lo, sizeof l->imp_lo);
  if (row < 0 || row > l->r->n_curve) bg_lab_fail("footing: the checkpoint holds another loop's state");
  l->row = row;
  bg_lab_blob_get(b, l->r->curve, 2 * (size_t)row * sizeof *l->r->curve);
}

/* One footing run at cells = B / dx and v = speed c_p; fed_scale scales
 * the sigma_y the simulation is fed (the mutant sigma-y-fed-twice). */
static run_result footing_run(bg_lab *lab, const options *o, int cells, double speed, double fed_scale,
                              const char *tag) {
  run_result r;
  memset(&r, 0, sizeof r);
  r.cells = cells;
  r.speed = speed;
  const double B = 0.1; /* m: the scene scales with B, sigma_y and v / c_p alone */
  double dx = B / cells;
  r.dx = dx;
  int nl = (int)lround(o->half_width * cells), nd = (int)lround(o->depth * cells), hc = cells / 2;
  double L = nl * dx;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.material = bg_material_default(BG_MODEL_VM);
  desc.material.vm.yield_stress = (bg_real)(o->sy_over_e * desc.material.E * fed_scale);
  desc.dx = (bg_real)dx;
  desc.gravity[2] = 0;
  /* faces midway between node planes 1 and 2 from each end in x and y; in z
   * the node planes fall on whole cells so that the surface z = D is one */
  desc.dims[0] = (size_t)(2 * nl) + 4;
  desc.dims[1] = (size_t)o->slab + 4;
  desc.dims[2] = (size_t)nd + 8;
  desc.origin[0] = (bg_real)(-L - 1.5 * dx);
  desc.origin[1] = (bg_real)(-1.5 * dx);
  desc.origin[2] = (bg_real)(-2.0 * dx);
  double D = nd * dx, w = o->slab * dx;
  double cp = bg_material_pwave_speed(&desc.material), v = speed * cp;
  bg_collider f;
  memset(&f, 0, sizeof f);
  f.shape = BG_SHAPE_BOX;
  f.lo[0] = (bg_real)(-hc * dx); /* +-B / 2: midway between node planes */
  f.hi[0] = (bg_real)(hc * dx);
  f.lo[1] = (bg_real)(-4 * dx);
  f.hi[1] = (bg_real)(w + 4 * dx);
  f.lo[2] = (bg_real)(D - 0.5 * dx);
  f.hi[2] = (bg_real)(D + 1000 * dx);
  f.friction = BG_FRICTION_SLIP;
  f.velocity[2] = (bg_real)(-v);
  desc.colliders = &f;
  desc.n_colliders = 1;
  bg_sim *sim = bg_lab_create_sim(lab, &desc);
  bg_sim_desc held;
  bg_lab_check(bg_sim_describe(sim, &held), sim, "bg_sim_describe");
  r.sigma_y_fed = held.material.vm.yield_stress;
  /* the sigma_y the lab holds itself: what a claim handed the lab's copy
   * would compare with (the mutant sigma-y-fed-twice shows why it must not) */
  if (bg_lab_mutant_is(lab, "sigma-y-fed-twice")) r.sigma_y_fed = o->sy_over_e * desc.material.E;

  /* particles: a regular lattice of 2 per cell per axis. Every face is a
   * loaded wall whose plane lies midway between node planes, so the
   * material's edge starts on its last solid node (bg_wall_edge_offset),
   * where the wall then acts (placed on the plane, it would act 1.1 cells
   * beyond it, a softer wall: references/walls.md). The edges are then half
   * a cell outside the x and y planes and, in z, a cell below the floor
   * plane z = -dx / 2. */
  double off = -bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * dx; /* 0.5 dx */
  double x0 = -L - off, y0 = -off, z0 = -0.5 * dx - off;
  w += 2 * off; /* the slab's thickness between the walls' acting planes */
  double sp = 0.5 * dx;
  int ni = (int)lround((2 * L + 2 * off) / sp), nj = (int)lround(w / sp), nk = (int)lround((D - z0) / sp);
  size_t n = (size_t)ni * nj * nk, p = 0;
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x);
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j)
      for (int k = 0; k < nk; ++k) {
        x[3 * p] = (bg_real)(x0 + (i + 0.5) * sp);
        x[3 * p + 1] = (bg_real)(y0 + (j + 0.5) * sp);
        x[3 * p + 2] = (bg_real)(z0 + (k + 0.5) * sp);
        p++;
      }
  bg_lab_check(bg_sim_add_particles(sim, n, x, NULL, 8), sim, "bg_sim_add_particles");
  free(x);
  r.n_particles = n;

  /* the window, the same settlements in B at every resolution, a whole
   * number of rows at each (parse_options checked it) */
  int rows_lo = (int)lround(o->window_start * cells);
  int rows_w = (int)lround(o->window_len * cells);
  r.window_lo = (double)rows_lo / cells;
  r.window_hi = (double)(rows_lo + rows_w) / cells;
  int n_rows = (rows_lo + rows_w) * o->samples;
  r.n_curve = n_rows;
  r.curve = bg_lab_xmalloc(2 * (size_t)n_rows * sizeof *r.curve);
  double t_row = dx / (o->samples * v), q_ult = PRANDTL_VM * r.sigma_y_fed, area = B * w;
  size_t nw = bg_sim_wall_count(sim);
  double *imp = bg_lab_xmalloc(3 * nw * sizeof *imp);
  const size_t floor_wall = 1 + BG_FACE_ZLO; /* the colliders come first */
  loop l = {&r, 0, {0, 0}};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) loop_unpack(&l, &state);
  bg_lab_blob_free(&state);
  bg_lab_progress(lab, "%s: B/dx %d, v/c_p %.3g, %zu particles, grid %zux%zux%zu, window %.3f-%.3f B", tag, cells,
                  speed, n, desc.dims[0], desc.dims[1], desc.dims[2], r.window_lo, r.window_hi);
  double imp_prev_row = 0;
  if (l.row > 0) {
    bg_lab_check(bg_sim_wall_impulses(sim, imp, 3 * nw), sim, "bg_sim_wall_impulses");
    imp_prev_row = imp[2];
  }
  while (!finished && l.row < n_rows) {
    double t = (l.row + 1) * t_row;
    bg_lab_check(bg_sim_advance_to(sim, t), sim, "bg_sim_advance_to");
    bg_lab_check(bg_sim_wall_impulses(sim, imp, 3 * nw), sim, "bg_sim_wall_impulses");
    double q = (imp[2] - imp_prev_row) / (t_row * area);
    imp_prev_row = imp[2];
    r.curve[2 * l.row] = v * t / B;
    r.curve[2 * l.row + 1] = q / q_ult;
    l.row++;
    if (l.row == rows_lo * o->samples) {
      l.imp_lo[0] = imp[2];
      l.imp_lo[1] = imp[3 * floor_wall + 2];
    }
    bg_stats st;
    if (bg_sim_stats(sim, &st) == BG_OK)
      bg_lab_progress_sim(lab, tag, t, n_rows * t_row, (double)n * (double)st.step);
    bg_lab_sim_tick(ls, loop_pack, &l);
  }
  bg_lab_sim_end(ls, loop_pack, &l);
  bg_lab_check(bg_sim_wall_impulses(sim, imp, 3 * nw), sim, "bg_sim_wall_impulses");
  double t_win = (r.window_hi - r.window_lo) * B / v;
  r.q_plateau = (imp[2] - l.imp_lo[0]) / (t_win * area);
  r.q_floor = (imp[3 * floor_wall + 2] - l.imp_lo[1]) / (t_win * area);
  r.q_over_qult = r.q_plateau / q_ult;
  bg_stats st;
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  r.steps = st.step;
  bg_lab_add_work(lab, (double)n * (double)st.step);
  free(imp);
  bg_sim_destroy(sim);
  bg_lab_progress(lab, "%s: plateau q %.5g Pa = %.4f q_ult (%zu particles, %llu steps)", tag, r.q_plateau,
                  r.q_over_qult, n, (unsigned long long)r.steps);
  return r;
}

/* The comma-separated list of B / dx; each even (the footing's half width
 * is whole cells) and in [4, 256]. */
static int parse_cells(const char *s, int *out, int cap) {
  int n = 0;
  const char *c = s;
  while (*c) {
    char *end;
    long v = strtol(c, &end, 10);
    if (end == c || v < 4 || v > 256 || v % 2 || n == cap)
      bg_lab_fail("--cells: '%s' must be up to %d even numbers of cells across B in [4, 256], coarse to fine", s,
                  cap);
    if (n > 0 && v <= out[n - 1]) bg_lab_fail("--cells: '%s' must increase (coarse to fine)", s);
    out[n++] = (int)v;
    c = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') bg_lab_fail("--cells: '%s' is not a comma-separated list", s);
  }
  if (n < 2) bg_lab_fail("--cells: '%s' needs at least two resolutions (the convergence claim)", s);
  return n;
}

static bg_lab *parse_options(int argc, char **argv, options *o) {
  /* clang-format off */
  bg_lab_param params[] = {
      {.name = "cells", .type = BG_PARAM_STRING, .dest = &o->cells, .help = "B / dx, comma-separated, coarse to fine",
       .quick = "6,12", .paper = "6,12,24,48"},
      {.name = "speed", .type = BG_PARAM_DOUBLE, .dest = &o->speed, .lo = 1e-5, .hi = 0.1,
       .help = "footing speed over the P-wave speed", .quick = "2e-3", .paper = "5e-4"},
      {.name = "yield-strain", .type = BG_PARAM_DOUBLE, .dest = &o->sy_over_e, .lo = 1e-4, .hi = 0.1,
       .help = "sigma_y / E (E, nu, rho0: taichi_mpm's von_mises)", .quick = "0.01", .paper = "0.0033333333",
       .key = "sigma_y_over_E"},
      {.name = "half-width", .type = BG_PARAM_DOUBLE, .dest = &o->half_width, .lo = 1.0, .hi = 10.0,
       .help = "domain half width L / B (Prandtl's mechanism reaches 1.5 B from the centre)", .quick = "2.5", .paper = "2.5"},
      {.name = "depth", .type = BG_PARAM_DOUBLE, .dest = &o->depth, .lo = 0.75, .hi = 10.0,
       .help = "depth D / B (the mechanism reaches B / sqrt 2)", .quick = "1.5", .paper = "1.5"},
      {.name = "window-start", .type = BG_PARAM_DOUBLE, .dest = &o->window_start, .lo = 0.0, .hi = 1.0,
       .help = "settlement where the plateau window starts, in B (whole rows at every B/dx)", .quick = "0.16666667",
       .paper = "0.16666667"},
      {.name = "window", .type = BG_PARAM_DOUBLE, .dest = &o->window_len, .lo = 0.01, .hi = 1.0,
       .help = "plateau window's length, in B (whole rows at every B/dx)", .quick = "0.16666667", .paper = "0.16666667"},
      {.name = "slab", .type = BG_PARAM_INT, .dest = &o->slab, .lo = 1, .hi = 64,
       .help = "plane-strain slab thickness, cells", .quick = "2", .paper = "2"},
      {.name = "samples", .type = BG_PARAM_INT, .dest = &o->samples, .lo = 1, .hi = 64,
       .help = "load-settlement rows per cell of settlement", .quick = "4", .paper = "4"},
  };
  /* clang-format on */
  static const char *const mutants[] = {"sigma-y-fed-twice", "tresca-expectation", "floor-wall", "fast-footing",
                                        "grids-reversed", NULL};
  bg_lab *lab = bg_lab_init("exp_footing",
                            "Prandtl's strip footing on a weightless von Mises half-space (plane strain).", argc,
                            argv, params, (int)(sizeof params / sizeof params[0]), mutants);
  if (bg_lab_material_model(lab) != BG_MODEL_DP)
    bg_lab_fail("--material: the footing is von Mises by definition (Prandtl's (2 + pi) c); it takes no --material");
  return lab;
}

static void write_outputs(bg_lab *lab, const run_result *rs, int n) {
  FILE *c = bg_lab_tsv(lab, "curves.tsv", "load-settlement curves, q averaged over each row's settlement; blank lines "
                                           "separate runs",
                       "cells\tspeed_over_cp\tsettlement_over_B\tq_over_qult");
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < rs[k].n_curve; ++i)
      fprintf(c, "%d\t%g\t%.6g\t%.6g\n", rs[k].cells, rs[k].speed, rs[k].curve[2 * i], rs[k].curve[2 * i + 1]);
    fprintf(c, "\n\n");
  }
  fclose(c);
  FILE *s = bg_lab_tsv(lab, "plateau.tsv", "plateau pressure per run: the mean over a whole number of node rows",
                       "cells\tdx_over_B\tspeed_over_cp\tsigma_y_Pa\tq_ult_Pa\tq_plateau_Pa\tq_over_qult\twindow_lo_B\t"
                       "window_hi_B\tparticles\tsteps");
  for (int k = 0; k < n; ++k)
    fprintf(s, "%d\t%.6g\t%g\t%.6g\t%.6g\t%.6g\t%.6f\t%.4f\t%.4f\t%zu\t%llu\n", rs[k].cells, 1.0 / rs[k].cells,
            rs[k].speed, rs[k].sigma_y_fed, PRANDTL_VM * rs[k].sigma_y_fed, rs[k].q_plateau, rs[k].q_over_qult,
            rs[k].window_lo, rs[k].window_hi, rs[k].n_particles, (unsigned long long)rs[k].steps);
  fclose(s);
}

/* The plateau extrapolated to dx = 0 from the two finest grids. */
static void write_limit(bg_lab *lab, const run_result *fine, const run_result *coarse, double q_inf) {
  FILE *f = bg_lab_tsv(lab, "limit.tsv",
                       "plateau extrapolated linearly in dx to dx = 0 from the two finest grids (the edge error is O(dx))",
                       "cells_coarse\tcells_fine\tsigma_y_Pa\tq_ult_Pa\tq_limit_Pa\tq_limit_over_qult");
  double q_ult = PRANDTL_VM * fine->sigma_y_fed;
  fprintf(f, "%d\t%d\t%.6g\t%.6g\t%.6g\t%.6f\n", coarse->cells, fine->cells, fine->sigma_y_fed, q_ult, q_inf,
          q_inf / q_ult);
  fclose(f);
  bg_lab_manifest_num(lab, "q_limit_over_qult", q_inf / q_ult);
}

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  bg_lab *lab = parse_options(argc, argv, &o);
  int cells[16];
  int nc = parse_cells(o.cells, cells, 16);
  /* the load comes in steps of one node row (dx of settlement): a window of
   * whole rows at every resolution averages the same settlements */
  for (int k = 0; k < nc; ++k) {
    double a = o.window_start * cells[k], b = o.window_len * cells[k];
    if (fabs(a - lround(a)) > 1e-3 || fabs(b - lround(b)) > 1e-3 || lround(b) < 1)
      bg_lab_fail("--window-start %g / --window %g: at B/dx %d they are %.4g and %.4g node rows; both must be whole "
                  "numbers of rows (the window at least one) at every resolution of --cells",
                  o.window_start, o.window_len, cells[k], a, b);
  }
  bg_material vm = bg_material_default(BG_MODEL_VM);
  vm.vm.yield_stress = (bg_real)(o.sy_over_e * vm.E);
  bg_lab_manifest_material(lab, &vm);
  bg_lab_manifest_num(lab, "prandtl_q_over_sigma_y", PRANDTL_VM);

  /* run: every resolution at v, then the coarsest again at v / 2 (the
   * quasi-static check). fast-footing runs both 30x faster */
  double v = o.speed * (bg_lab_mutant_is(lab, "fast-footing") ? 30.0 : 1.0);
  double fed = bg_lab_mutant_is(lab, "sigma-y-fed-twice") ? 2.0 : 1.0;
  int need_speed = bg_lab_needed(lab, "footing.quasi_static");
  int need_grids = bg_lab_needed(lab, "footing.q_ult") || bg_lab_needed(lab, "footing.convergence");
  run_result rs[17];
  int n = 0;
  for (int k = 0; k < nc; ++k) {
    if (!need_grids && k > 0) break;
    char tag[64];
    snprintf(tag, sizeof tag, "B/dx %d", cells[k]);
    rs[n++] = footing_run(lab, &o, cells[k], v, fed, tag);
  }
  run_result half = {0};
  if (need_speed) {
    char tag[64];
    snprintf(tag, sizeof tag, "B/dx %d half speed", cells[0]);
    half = footing_run(lab, &o, cells[0], 0.5 * v, fed, tag);
    rs[n++] = half;
  }
  write_outputs(lab, rs, n);

  /* judge: the finest plateau against (2 + pi) sigma_y / sqrt 3 of the
   * sigma_y the simulation holds; the trend from coarse to fine; the
   * coarsest grid's plateau unmoved by halving the speed */
  if (need_grids) {
    const run_result *fine = &rs[nc - 1], *coarse = &rs[nc - 2];
    /* the footing's edges act within a cell of their last solid nodes, an
     * error of order dx / B in the width: the two finest plateaus,
     * extrapolated linearly in dx to dx = 0, remove it */
    double ext = (double)coarse->cells / (fine->cells - coarse->cells);
    double q_inf = fine->q_plateau + ext * (fine->q_plateau - coarse->q_plateau);
    double q_floor_inf = fine->q_floor + ext * (fine->q_floor - coarse->q_floor);
    write_limit(lab, fine, coarse, q_inf);
    bg_lab_claim_fed(lab, "footing.q_ult", q_inf, fine->sigma_y_fed);
    bg_lab_claim_mutant_fed(lab, "tresca-expectation", "footing.q_ult", q_inf,
                            fine->sigma_y_fed * 0.8660254037844386);
    bg_lab_claim_mutant_fed(lab, "floor-wall", "footing.q_ult", q_floor_inf, fine->sigma_y_fed);
    /* each refinement must bring the plateau closer to q_ult: the largest
     * change of |q / q_ult - 1| from one grid to the next finer (<= 0) */
    double worst = -INFINITY, worst_rev = -INFINITY;
    for (int k = 1; k < nc; ++k) {
      double a = fabs(rs[k - 1].q_over_qult - 1), b = fabs(rs[k].q_over_qult - 1);
      worst = fmax(worst, b - a);
      worst_rev = fmax(worst_rev, a - b);
    }
    bg_lab_claim(lab, "footing.convergence", worst);
    bg_lab_claim_mutant(lab, "grids-reversed", "footing.convergence", worst_rev);
    bg_lab_manifest_num(lab, "q_over_qult_finest", fine->q_over_qult);
  }
  if (need_speed) {
    double shift = fabs(half.q_plateau / rs[0].q_plateau - 1);
    bg_lab_claim(lab, "footing.quasi_static", shift);
  }
  for (int k = 0; k < n; ++k) free(rs[k].curve);
  return bg_lab_finish(lab);
}
