/* wall.c: active earth pressure on a thin retaining wall. A sand fill of
 * height H rests against a vertical plate of no thickness (a BG_BODY_PLATE
 * body: the material sees it through the cut transfers, bg_cut.h); the
 * wall then moves slowly away from the fill, the fill behind it fails in a
 * sliding wedge, and the horizontal force on the wall per metre falls to
 * the active thrust
 *   F_x = K_a gamma H^2 / 2,
 *   smooth wall (Rankine 1857):  K_a = (1 - sin phi) / (1 + sin phi),
 *   wall friction delta (Coulomb 1776), horizontal component:
 *     K_a cos delta = cos^2 phi / (1 + sqrt(sin(phi + delta) sin phi / cos delta))^2,
 * (references/derivations/wall.md). phi is the plane-strain friction angle
 * of the fill: the Drucker-Prager cone is matched for plane strain at zero
 * dilatancy (material.dp.cone = plane-strain, sqrt(J2) = sin(phi) p), the
 * cone whose plane-strain failure is Mohr-Coulomb's at phi.
 *
 * Scene (2D plane strain, x-z): the fill occupies the particles' block from
 * the -x face's last solid node to half a cell before the plate and from
 * the floor's last solid node to H; the floor sticks (the wedge slides in
 * the fill, not on the floor), the back wall is a slip face. The plate
 * stands at x = dx / 2, midway between node planes, from below the floor
 * to above the fill. Phases: settle under gravity with grid damping, rest
 * undamped, then the wall moves at v = speed H / s along +x. Read-out: the
 * plate's force (bg_sim_body_state: its contact nodes and its cut
 * transfers), averaged over the displacement window, over gamma H^2 / 2
 * with gamma = M g / (L H) from the block's own mass, extent and the
 * gravity the simulation holds. The claims' expectations come from phi and
 * the wall's mu read back from the simulation (bg_sim_describe). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"

static const double PI = 3.14159265358979323846;

typedef struct options {
  const char *cells;     /* H / dx, comma-separated, coarse to fine */
  double speed;          /* wall speed, H per second */
  double fill;           /* fill length L / H */
  double wall_mu;        /* the rough wall's Coulomb mu */
  double win_lo, win_hi; /* the displacement window, in H */
  double settle, rest;   /* damped settling and undamped rest, s */
  double phi;            /* the fill's friction angle, deg */
  double disp;           /* the wall's travel, in H */
} options;

typedef struct run_result {
  int cells;
  double mu;               /* the wall's mu as the simulation holds it (0: smooth) */
  double phi_deg;          /* the fill's friction angle as held */
  double K_rest, K_active; /* force over gamma H^2 / 2: at rest, over the window */
  double H, L, gamma;      /* the block's height, length (m), unit weight (N/m^3) */
  double K_active_h;       /* the same over 0.5 gamma h^2, h the fill's height at the wall */
  double *curve;           /* displacement / H, K, h / H, K at h: CURVE_W per row */
  int n_curve;
  size_t n_particles;
  uint64_t steps;
} run_result;

#define CURVE_W 4

/* The loop's state between rows, for a checkpoint. */
typedef struct loop {
  run_result *r;
  int row;
  double f_rest, t_rest, f_win, t_win; /* impulse and time: at rest, in the window */
  double imp_prev, t_prev; /* the plate's x impulse and the time at the last row's end */
  double kh_win;           /* the window's K at the wall's fill height, times time */
} loop;

static void loop_pack(void *ctx, bg_lab_blob *b) {
  const loop *l = ctx;
  int32_t row = l->row;
  bg_lab_blob_put(b, &row, sizeof row);
  bg_lab_blob_put(b, &l->f_rest, 7 * sizeof l->f_rest);
  bg_lab_blob_put(b, l->r->curve, CURVE_W * (size_t)l->r->n_curve * sizeof *l->r->curve);
}

static void loop_unpack(loop *l, bg_lab_blob *b) {
  int32_t row;
  bg_lab_blob_get(b, &row, sizeof row);
  bg_lab_blob_get(b, &l->f_rest, 7 * sizeof l->f_rest);
  bg_lab_blob_get(b, l->r->curve, CURVE_W * (size_t)l->r->n_curve * sizeof *l->r->curve);
  l->row = row;
}

/* Rankine's smooth-wall coefficient and Coulomb's horizontal one. */
static double rankine(double phi_deg) {
  const double s = sin(phi_deg * PI / 180.0);
  return (1.0 - s) / (1.0 + s);
}
static double coulomb_x(double phi_deg, double mu) {
  const double p = phi_deg * PI / 180.0, d = atan(mu);
  const double r = 1.0 + sqrt(sin(p + d) * sin(p) / cos(d));
  return cos(p) * cos(p) / (r * r);
}

/* One wall: H / dx = cells, wall friction mu (0: a smooth wall); phi_fed
 * is the fill's angle; held says whether the wall stays put (the mutant
 * wall-held). */
static run_result wall_run(bg_lab *lab, const options *o, int cells, double mu, double phi_fed,
                           int cone, int held, const char *tag) {
  run_result r;
  memset(&r, 0, sizeof r);
  r.cells = cells;
  const double H0 = 0.2, dx = H0 / cells; /* m: the claims are ratios, the scene scales with H */
  const int nl = (int)lround(o->fill * cells);
  bg_sim_desc desc = bg_sim_desc_default();
  desc.dim = 2;
  desc.material = bg_lab_material(lab);
  desc.material.dp.phi_deg = (bg_real)phi_fed;
  desc.material.dp.cone = cone;
  desc.dx = (bg_real)dx;
  /* the -x face midway between node planes 1 and 2; room for the wall's
   * travel and its band beyond the fill; node planes on whole cells in z */
  const int nr = (int)ceil(o->disp * cells) + 6;
  desc.dims[0] = (size_t)(nl + nr + 4);
  desc.dims[1] = 1;
  desc.dims[2] = (size_t)cells + 8;
  desc.origin[0] = (bg_real)(-nl * dx - 1.5 * dx);
  desc.origin[2] = (bg_real)(-2.0 * dx);
  desc.walls[BG_FACE_ZLO].friction = BG_FRICTION_STICK;
  bg_body w = bg_body_default();
  w.shape = BG_BODY_PLATE;
  w.half[0] = (bg_real)(0.5 * (H0 + 4 * dx)); /* from below the floor's plane to above the fill */
  w.half[1] = 1.0f;
  w.half[2] = 0.001f;
  w.density = 7800.0f;
  w.q[0] = (bg_real)sqrt(0.5), w.q[2] = (bg_real)sqrt(0.5); /* normal +x: +90 degrees about y */
  w.x[0] = (bg_real)(0.5 * dx);
  w.x[2] = (bg_real)(0.5 * (H0 + 4 * dx) - 2.0 * dx);
  w.kinematic = 1;
  w.friction = mu > 0 ? BG_FRICTION_COULOMB : BG_FRICTION_SLIP;
  w.mu = (bg_real)mu;
  desc.bodies = &w;
  desc.n_bodies = 1;
  bg_sim *sim = bg_lab_create_sim(lab, &desc);
  bg_sim_desc held_desc;
  bg_lab_check(bg_sim_describe(sim, &held_desc), sim, "bg_sim_describe");
  r.phi_deg = held_desc.material.dp.phi_deg;
  r.mu = held_desc.bodies[0].friction == BG_FRICTION_COULOMB ? held_desc.bodies[0].mu : 0.0;
  const double g = -held_desc.gravity[2];

  /* the block: 2 x 2 per cell from the -x face's and the floor's last
   * solid nodes (where a loaded wall acts, references/walls.md) to half a
   * cell before the plate and to H */
  const double sp = 0.5 * dx, x0 = -nl * dx - 0.5 * dx, z0 = -dx;
  const int ni = (int)lround((0.0 - x0) / sp), nk = (int)lround((H0 - z0) / sp);
  r.L = ni * sp;
  r.H = nk * sp;
  const size_t n = (size_t)ni * nk;
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x);
  size_t p = 0;
  for (int i = 0; i < ni; ++i)
    for (int k = 0; k < nk; ++k) {
      x[3 * p] = (bg_real)(x0 + (i + 0.5) * sp);
      x[3 * p + 1] = 0.0f;
      x[3 * p + 2] = (bg_real)(z0 + (k + 0.5) * sp);
      p++;
    }
  bg_lab_check(bg_sim_add_particles(sim, n, x, NULL, 4), sim, "bg_sim_add_particles");
  free(x);
  r.n_particles = n;
  bg_real *m = bg_lab_xmalloc(n * sizeof *m);
  bg_lab_check(bg_sim_get(sim, BG_FIELD_MASS, m, n), sim, "bg_sim_get mass");
  double M = 0;
  for (size_t q = 0; q < n; ++q) M += m[q];
  free(m);
  r.gamma = M * g / (r.L * r.H);
  const double scale = 0.5 * r.gamma * r.H * r.H; /* K = F_x / scale */

  /* rows: settling and rest in steps of 0.05 s, then the travel in rows of
   * 0.005 H of displacement */
  const double v = o->speed * H0, t_row = 0.005 * H0 / v;
  const int n_settle = (int)lround(o->settle / 0.05), n_rest = (int)lround(o->rest / 0.05);
  const int n_move = (int)lround(o->disp / 0.005);
  r.n_curve = n_move;
  r.curve = bg_lab_xmalloc(CURVE_W * (size_t)n_move * sizeof *r.curve);
  loop l = {&r, 0, 0, 0, 0, 0, 0, 0, 0};
  bg_real *pos = bg_lab_xmalloc(3 * n * sizeof *pos);
  const size_t nw = bg_sim_wall_count(sim);
  double *imp = bg_lab_xmalloc(3 * nw * sizeof *imp);
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) loop_unpack(&l, &state);
  bg_lab_blob_free(&state);
  bg_lab_progress(lab, "%s: H/dx %d, wall mu %g, phi %g deg, %zu particles, grid %zux%zu", tag,
                  cells, r.mu, r.phi_deg, n, desc.dims[0], desc.dims[2]);
  const int n_rows = n_settle + n_rest + n_move;
  const double t_move0 = 0.05 * (n_settle + n_rest), t_end = t_move0 + n_move * t_row;
  while (!finished && l.row < n_rows) {
    const int row = l.row;
    /* the settling's damping and the wall's motion are set at each row's
     * start, so that a resumed run sets them as the run itself did */
    bg_lab_check(bg_sim_set_damping(sim, row < n_settle ? 20.0f : 0.0f), sim, "bg_sim_set_damping");
    if (row == n_settle + n_rest) {
      const bg_real vv[3] = {(bg_real)(held ? 0.0 : v), 0, 0}, ww[3] = {0, 0, 0};
      bg_lab_check(bg_sim_set_body_velocity(sim, 0, vv, ww), sim, "bg_sim_set_body_velocity");
    }
    const double t1 = row < n_settle + n_rest ? 0.05 * (row + 1)
                                              : t_move0 + (row - n_settle - n_rest + 1) * t_row;
    bg_lab_check(bg_sim_advance_to(sim, t1), sim, "bg_sim_advance_to");
    bg_lab_check(bg_sim_wall_impulses(sim, imp, 3 * nw), sim, "bg_sim_wall_impulses");
    const double f = imp[0] - l.imp_prev, t = t1 - l.t_prev; /* the plate is wall 0: no colliders */
    l.imp_prev = imp[0];
    l.t_prev = t1;
    if (row >= n_settle && row < n_settle + n_rest) {
      l.f_rest += f;
      l.t_rest += t;
    }
    if (row >= n_settle + n_rest) {
      const int k = row - n_settle - n_rest;
      const double d = 0.005 * (k + 1);
      /* the fill's height at the wall: its top particle within two cells
       * of the plate (the force's own H once the fill slumps behind it) */
      const double xw = w.x[0] + (held ? 0.0 : v * (t1 - t_move0));
      bg_lab_check(bg_sim_get(sim, BG_FIELD_X, pos, 3 * n), sim, "bg_sim_get positions");
      double top = -INFINITY;
      for (size_t q = 0; q < n; ++q)
        if (pos[3 * q] > xw - 2.0 * dx && pos[3 * q] < xw && pos[3 * q + 2] > top) top = pos[3 * q + 2];
      const double h = top + 0.5 * sp - z0, Kf = t > 0 ? fabs(f / t) / scale : 0.0;
      double *c = r.curve + CURVE_W * k;
      c[0] = d;
      c[1] = Kf;
      c[2] = h / r.H;
      c[3] = Kf * (r.H * r.H) / (h * h);
      if (d > o->win_lo + 1e-9 && d <= o->win_hi + 1e-9) {
        l.f_win += f;
        l.t_win += t;
        l.kh_win += c[3] * t;
      }
    }
    l.row++;
    bg_stats st;
    if (bg_sim_stats(sim, &st) == BG_OK)
      bg_lab_progress_sim(lab, tag, st.time, t_end, (double)n * (double)st.step);
    bg_lab_sim_tick(ls, loop_pack, &l);
  }
  bg_lab_sim_end(ls, loop_pack, &l);
  free(imp);
  free(pos);
  r.K_rest = l.t_rest > 0 ? fabs(l.f_rest / l.t_rest) / scale : NAN;
  r.K_active = l.t_win > 0 ? fabs(l.f_win / l.t_win) / scale : NAN;
  r.K_active_h = l.t_win > 0 ? l.kh_win / l.t_win : NAN;
  bg_stats st;
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  r.steps = st.step;
  bg_lab_add_work(lab, (double)n * (double)st.step);
  bg_sim_destroy(sim);
  bg_lab_progress(lab, "%s: K at rest %.4f, active %.4f (at the wall's fill height %.4f; Rankine %.4f, Coulomb %.4f)",
                  tag, r.K_rest, r.K_active, r.K_active_h, rankine(r.phi_deg), coulomb_x(r.phi_deg, r.mu));
  return r;
}

/* The comma-separated list of H / dx, in [6, 256], coarse to fine. */
static int parse_cells(const char *s, int *out, int cap) {
  int n = 0;
  const char *c = s;
  while (*c) {
    char *end;
    long v = strtol(c, &end, 10);
    if (end == c || v < 6 || v > 256 || n == cap)
      bg_lab_fail(
          "--cells: '%s' must be up to %d numbers of cells across H in [6, 256], coarse to fine", s,
          cap);
    if (n > 0 && v <= out[n - 1]) bg_lab_fail("--cells: '%s' must increase (coarse to fine)", s);
    out[n++] = (int)v;
    if (*end && *end != ',') bg_lab_fail("--cells: '%s' is not a comma-separated list", s);
    c = *end == ',' ? end + 1 : end;
  }
  if (n < 2)
    bg_lab_fail(
        "--cells: '%s' needs two resolutions at least (the finest is judged, the others show the "
        "trend)",
        s);
  return n;
}

static void check_options(void *ctx) {
  const options *o = ctx;
  int cells[16];
  parse_cells(o->cells, cells, 16);
  if (!(o->win_lo < o->win_hi))
    bg_lab_fail("--window-lo %g must be below --window-hi %g (H)", o->win_lo, o->win_hi);
  if (o->win_hi > o->disp + 1e-9)
    bg_lab_fail("--window-hi %g H lies beyond the wall's travel --travel %g H", o->win_hi, o->disp);
}

static bg_lab *parse_options(int argc, char **argv, options *o) {
  /* clang-format off */
  static bg_lab_param params[] = {
      {.name = "cells", .type = BG_PARAM_STRING, .help = "H / dx, comma-separated, coarse to fine", .quick = "12,24",
       .paper = "24,48,96"},
      {.name = "speed", .type = BG_PARAM_DOUBLE, .lo = 0.01, .hi = 1.0,
       .help = "the wall's speed away from the fill, H per second", .quick = "0.1", .paper = "0.1"},
      {.name = "fill", .type = BG_PARAM_DOUBLE, .lo = 1.0, .hi = 6.0,
       .help = "fill length L / H (the active wedge reaches H tan(45 - phi / 2) behind the wall)", .quick = "2",
       .paper = "2"},
      {.name = "wall-mu", .type = BG_PARAM_DOUBLE, .lo = 0.05, .hi = 1.0,
       .help = "the rough wall's Coulomb friction mu = tan delta (the smooth wall slips)", .quick = "0.3",
       .paper = "0.3"},
      {.name = "window-lo", .type = BG_PARAM_DOUBLE, .lo = 0.0, .hi = 1.0,
       .help = "the active window's start, wall displacement in H", .quick = "0.015", .paper = "0.015"},
      {.name = "window-hi", .type = BG_PARAM_DOUBLE, .lo = 0.0, .hi = 1.0,
       .help = "the active window's end, wall displacement in H", .quick = "0.05", .paper = "0.05"},
      {.name = "travel", .type = BG_PARAM_DOUBLE, .lo = 0.01, .hi = 0.5,
       .help = "the wall's travel, in H (the curve's extent)", .quick = "0.08", .paper = "0.08"},
      {.name = "settle", .type = BG_PARAM_DOUBLE, .lo = 0.1, .hi = 10.0,
       .help = "settling time under gravity with grid damping 20 /s, s", .quick = "0.6", .paper = "0.6"},
      {.name = "rest", .type = BG_PARAM_DOUBLE, .lo = 0.05, .hi = 10.0,
       .help = "undamped rest before the wall moves (the at-rest force), s", .quick = "0.1", .paper = "0.1"},
      {.name = "phi", .type = BG_PARAM_DOUBLE, .lo = 20.0, .hi = 45.0,
       .help = "the fill's friction angle, deg (its cone matched for plane strain)", .quick = "35", .paper = "35"},
  };
  /* clang-format on */
  params[0].dest = &o->cells;
  params[1].dest = &o->speed;
  params[2].dest = &o->fill;
  params[3].dest = &o->wall_mu;
  params[4].dest = &o->win_lo;
  params[5].dest = &o->win_hi;
  params[6].dest = &o->disp;
  params[7].dest = &o->settle;
  params[8].dest = &o->rest;
  params[9].dest = &o->phi;
  static const char *const mutants[] = {"phi-fed-other", "rankine-for-rough", "wall-held",
                                        "compression-cone", NULL};
  bg_lab_accept_materials("drucker-prager",
                          "a Mohr-Coulomb fill (Rankine's and Coulomb's earth pressures)");
  bg_lab_sets_cone("plane-strain, Rankine's and Coulomb's match; the mutant compression-cone gives Klar's");
  bg_lab_check_options(check_options, o);
  return bg_lab_init("exp_wall",
                     "Active earth pressure on a thin retaining wall (a cutting plate) against "
                     "Rankine and Coulomb "
                     "(plane strain).",
                     argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
}

static void write_outputs(bg_lab *lab, const options *o, const run_result *rs, int n) {
  FILE *c = bg_lab_tsv(
      lab, "curves.tsv",
      "the wall's horizontal force over gamma H^2 / 2 against its displacement, each row the mean "
      "over 0.005 H of travel; h the fill's height at the wall at the row's end (its top particle "
      "within 2 dx of the plate) and K_h the force over gamma h^2 / 2; blank lines separate runs",
      "cells\twall_mu\tdisplacement_over_H\tK\th_wall_over_H\tK_h");
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < rs[k].n_curve; ++i)
      fprintf(c, "%d\t%g\t%.4f\t%.6g\t%.6g\t%.6g\n", rs[k].cells, rs[k].mu, rs[k].curve[CURVE_W * i],
              rs[k].curve[CURVE_W * i + 1], rs[k].curve[CURVE_W * i + 2], rs[k].curve[CURVE_W * i + 3]);
    fprintf(c, "\n\n");
  }
  fclose(c);
  FILE *s = bg_lab_tsv(
      lab, "active.tsv",
      "per run: the force coefficient at rest and over the active window, against Rankine's and "
      "Coulomb's for the phi and mu the simulation holds",
      "cells\twall_mu\tphi_deg\tK_rest\tK_active\tK_active_h\tK_rankine\tK_coulomb_x\twindow_lo_H\twindow_hi_"
      "H\tH_m\t"
      "L_m\tgamma_N_m3\tparticles\tsteps");
  for (int k = 0; k < n; ++k)
    fprintf(s, "%d\t%g\t%g\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%g\t%g\t%.6g\t%.6g\t%.6g\t%zu\t%llu\n",
            rs[k].cells, rs[k].mu, rs[k].phi_deg, rs[k].K_rest, rs[k].K_active, rs[k].K_active_h,
            rankine(rs[k].phi_deg), coulomb_x(rs[k].phi_deg, rs[k].mu), o->win_lo, o->win_hi,
            rs[k].H, rs[k].L, rs[k].gamma, rs[k].n_particles, (unsigned long long)rs[k].steps);
  fclose(s);
}

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  bg_lab *lab = parse_options(argc, argv, &o);
  int cells[16];
  const int nc = parse_cells(o.cells, cells, 16);
  bg_material mat = bg_lab_material(lab);
  /* the fill's friction angle (--phi), matched for plane strain; the
   * mutant compression-cone leaves Klar's compression match */
  const double phi = o.phi;
  const int cone =
      bg_lab_mutant_is(lab, "compression-cone") ? BG_CONE_COMPRESSION : BG_CONE_PLANE_STRAIN;
  const double phi_fed = phi + (bg_lab_mutant_is(lab, "phi-fed-other") ? 5.0 : 0.0);
  const int held = bg_lab_mutant_is(lab, "wall-held");
  mat.dp.cone = cone;
  mat.dp.phi_deg = (bg_real)phi_fed;
  bg_lab_manifest_material(lab, &mat);

  /* every resolution with the smooth wall, then the finest with the rough one */
  run_result rs[17];
  int n = 0;
  for (int k = 0; k < nc; ++k) {
    char tag[64];
    snprintf(tag, sizeof tag, "smooth H/dx %d", cells[k]);
    rs[n++] = wall_run(lab, &o, cells[k], 0.0, phi_fed, cone, held, tag);
  }
  char tag[64];
  snprintf(tag, sizeof tag, "rough H/dx %d", cells[nc - 1]);
  rs[n++] = wall_run(lab, &o, cells[nc - 1], o.wall_mu, phi_fed, cone, held, tag);
  write_outputs(lab, &o, rs, n);

  /* judge the finest grid; the expectations from the phi and mu the
   * simulations hold (the mutant phi-fed-other: from the lab's own copy) */
  const run_result *smooth = &rs[nc - 1], *rough = &rs[nc];
  const double phi_judged = bg_lab_mutant_is(lab, "phi-fed-other") ? phi : smooth->phi_deg;
  bg_lab_claim_fed(lab, "wall.active_rankine", smooth->K_active, rankine(phi_judged));
  bg_lab_claim_fed(lab, "wall.active_coulomb", rough->K_active, coulomb_x(phi_judged, rough->mu));
  bg_lab_claim_mutant_fed(lab, "rankine-for-rough", "wall.active_coulomb", rough->K_active,
                          rankine(phi_judged));
  bg_lab_manifest_num(lab, "K_rest_finest", smooth->K_rest);
  for (int k = 0; k < n; ++k) free(rs[k].curve);
  return bg_lab_finish(lab);
}
