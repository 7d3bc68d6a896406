/* rft.c: intrusion against resistive force theory (issue 37 part 4). A thin
 * plate dragged at fixed attack angle beta and direction gamma through a 2D
 * (plane-strain) bed of sand, scripted, its force read each step
 * (rft_drag.c), tabulated as alpha_z(beta, gamma) and alpha_x(beta, gamma)
 * against the generic form of Li, Zhang & Goldman 2013 scaled by a fitted
 * zeta (rft_fit.c), and the two claims RFT rests on tested: the force grows
 * linearly with depth, and does not depend on a low speed.
 *
 * Runs: the shape set (every beta x gamma at --shape-depth, with its own
 * travel, window and floor); the reference configuration (the last beta,
 * the first gamma) at every depth of --depths, at the first of them at
 * twice the speed, on the finer grid (the dx check), and at the control
 * friction angle (zeta must grow with phi, Askari & Kamrin 2016). Claims (references/claims.tsv):
 *   rft.shape           misfit of alpha against zeta g(beta, gamma), less
 *                       the generic form's own resolution (g against its
 *                       mirror image g(-beta, gamma)), <= 0;
 *   rft.depth_linear    the depth at which the line |F| = k |z| + c meets
 *                       zero force, over the mean depth, less the same
 *                       resolution, <= 0;
 *   rft.rate_independent |F(2v) / F(v) - 1| less the same resolution, <= 0. */
#include "rft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (180.0 / 3.14159265358979323846)
#define MAXN 16

typedef struct lists {
  double cells[MAXN], betas[MAXN], gammas[MAXN], depths[MAXN];
  int nc, nb, ng, nd;
} lists;

static rft_options g_o;
static int g_jobs = 1;
static lists g_l;

static int parse_list(const char *opt, const char *s, double *out, double lo, double hi) {
  int n = 0;
  const char *c = s;
  while (*c) {
    char *end;
    double v = strtod(c, &end);
    if (end == c || !(v >= lo && v <= hi) || n == MAXN)
      bg_lab_fail("--%s: '%s' must be up to %d comma-separated numbers in [%g, %g]", opt, s, MAXN,
                  lo, hi);
    out[n++] = v;
    if (*end && *end != ',') bg_lab_fail("--%s: '%s' is not a comma-separated list", opt, s);
    c = *end == ',' ? end + 1 : end;
  }
  if (!n) bg_lab_fail("--%s: empty list", opt);
  return n;
}

/* Lists and geometry, checked before the run folder is made (exit 2). */
static void check_options(void *ctx) {
  (void)ctx;
  g_l.nc = parse_list("cells", g_o.cells, g_l.cells, 3, 256);
  g_l.nb = parse_list("betas", g_o.betas, g_l.betas, -90, 90);
  g_l.ng = parse_list("gammas", g_o.gammas, g_l.gammas, 0, 90);
  g_l.nd = parse_list("depths", g_o.depths, g_l.depths, 0.75, 5);
  if (g_l.nc != 2 || g_l.cells[1] <= g_l.cells[0])
    bg_lab_fail(
        "--cells: '%s' must be two grids, L / dx, coarse then fine (the run's, then the dx "
        "check's)",
        g_o.cells);
  if (g_l.nd < 2)
    bg_lab_fail("--depths: '%s' needs at least two depths (the linearity claim)", g_o.depths);
  /* a plate thinner than 4 cells meets the sand with its far face's normal
   * (core/README.md, rigid bodies) */
  if (g_l.cells[0] / g_o.aspect < 4 - 1e-9)
    bg_lab_fail("--cells %g with --aspect %g: the plate is %.3g cells thick; it must be at least 4",
                g_l.cells[0], g_o.aspect, g_l.cells[0] / g_o.aspect);
  if (g_o.width > 0 && g_o.width < 0.1)
    bg_lab_fail("--width %g: a 3D plate must be at least 0.1 L wide (0: plane strain)", g_o.width);
  if (g_o.width > 0 && g_l.cells[0] * g_o.width < 4 - 1e-9)
    bg_lab_fail("--width %g with --cells %g: the plate is %.3g cells wide; it must be at least 4", g_o.width,
                g_l.cells[0], g_l.cells[0] * g_o.width);
  for (int k = 0; k < 2; ++k)
    if (g_o.width > 0 && g_o.across == 0 && fabs(remainder(0.5 * g_l.cells[k] * g_o.width, 1.0)) > 1e-9)
      bg_lab_fail("--width %g with --across 0 and --cells %g: the slab must be a whole number of cell pairs "
                  "wide (width x L/dx even), lest sand lie beside the plate", g_o.width, g_l.cells[k]);
  if (g_o.window >= g_o.travel || g_o.shape_window >= g_o.shape_travel)
    bg_lab_fail(
        "--window %g and --shape-window %g must be shorter than --travel %g and "
        "--shape-travel %g (the start-up must be left out)",
        g_o.window, g_o.shape_window, g_o.travel, g_o.shape_travel);
}

static bg_lab *parse_options(int argc, char **argv) {
  rft_options *o = &g_o;
  /* clang-format off */
  static bg_lab_param params[] = {
      {.name = "length", .type = BG_PARAM_DOUBLE, .dest = &g_o.length, .lo = 0.005, .hi = 1.0,
       .help = "plate length L, m (Li et al.'s plate: 3.81 cm)", .quick = "0.04", .paper = "0.04", .key = "length_m"},
      {.name = "aspect", .type = BG_PARAM_DOUBLE, .dest = &g_o.aspect, .lo = 2, .hi = 20,
       .help = "plate length over thickness", .quick = "3", .paper = "6"},
      {.name = "cells", .type = BG_PARAM_STRING, .dest = &g_o.cells,
       .help = "L / dx: the run's grid, then the finer grid of the dx check", .quick = "12,16", .paper = "24,36"},
      {.name = "betas", .type = BG_PARAM_STRING, .dest = &g_o.betas,
       .help = "angles of attack, deg in [-90, 90]", .quick = "-45,0,45,90", .paper = "-90,-60,-30,0,30,60,90"},
      {.name = "gammas", .type = BG_PARAM_STRING, .dest = &g_o.gammas,
       .help = "directions of motion below the horizontal, deg in [0, 90]", .quick = "0,90",
       .paper = "0,30,60,90"},
      {.name = "depths", .type = BG_PARAM_STRING, .dest = &g_o.depths,
       .help = "depths of the plate's centre for the linearity claim, in L (the first: the rate pair's, dx check's, control's)",
       .quick = "1.5,2.5,3.5", .paper = "1.5,2.5,3.5"},
      {.name = "shape-depth", .type = BG_PARAM_DOUBLE, .dest = &g_o.shape_depth, .lo = 0.75, .hi = 5,
       .help = "depth of the plate's centre for the shape set, in L (RFT: well below the surface)", .quick = "2", .paper = "2"},
      {.name = "speed", .type = BG_PARAM_DOUBLE, .dest = &g_o.speed, .lo = 1e-3, .hi = 10,
       .help = "plate speed, m/s (the rate claim doubles it)", .quick = "0.1", .paper = "0.05"},
      {.name = "travel", .type = BG_PARAM_DOUBLE, .dest = &g_o.travel, .lo = 0.05, .hi = 3,
       .help = "distance the plate moves, in L", .quick = "2", .paper = "3"},
      {.name = "window", .type = BG_PARAM_DOUBLE, .dest = &g_o.window, .lo = 0.01, .hi = 3,
       .help = "the steady window: the travel's last part, in L", .quick = "1.2", .paper = "2"},
      {.name = "shape-travel", .type = BG_PARAM_DOUBLE, .dest = &g_o.shape_travel, .lo = 0.05, .hi = 3,
       .help = "distance the shape set's plates move, in L", .quick = "1.6", .paper = "3"},
      {.name = "shape-window", .type = BG_PARAM_DOUBLE, .dest = &g_o.shape_window, .lo = 0.01, .hi = 3,
       .help = "the shape set's steady window, in L", .quick = "1", .paper = "2"},
      {.name = "wall-mu", .type = BG_PARAM_DOUBLE, .dest = &g_o.wall_mu, .lo = 0, .hi = 2,
       .help = "plate-sand Coulomb friction", .quick = "0.5", .paper = "0.5"},
      {.name = "phi-control", .type = BG_PARAM_DOUBLE, .dest = &g_o.phi_control, .lo = 0, .hi = 60,
       .help = "friction angle of the zeta control run, deg (0: none)", .quick = "30", .paper = "30"},
      {.name = "settle", .type = BG_PARAM_DOUBLE, .dest = &g_o.settle, .lo = 0, .hi = 2,
       .help = "settling time with the plate at rest, s", .quick = "0.05", .paper = "0.05"},
      {.name = "ahead", .type = BG_PARAM_DOUBLE, .dest = &g_o.ahead, .lo = 1, .hi = 10,
       .help = "bed ahead of the plate's final position, in depths of its centre: the passive wedge, which reaches "
               "further in those depths the shallower the plate, must end inside it (reports/rft.md)",
       .quick = "5", .paper = "5"},
      {.name = "side", .type = BG_PARAM_DOUBLE, .dest = &g_o.side, .lo = 1, .hi = 10,
       .help = "bed beside a plate moving down, on each side, in depths of its centre (scaled by sin "
               "gamma); such a plate's force still depends on it (reports/rft.md)", .quick = "3", .paper = "3"},
      {.name = "below", .type = BG_PARAM_DOUBLE, .dest = &g_o.below, .lo = 0.5, .hi = 10,
       .help = "bed below the plate's final reach (centre + L/2), in L: the floor's distance", .quick = "1", .paper = "1"},
      {.name = "width", .type = BG_PARAM_DOUBLE, .dest = &g_o.width, .lo = 0, .hi = 5,
       .help = "the plate's width across the motion, in L: 0 a plane-strain bed (2D); > 0 a 3D bed, every "
               "force divided by the width (Li et al.'s plate: 2.54 / 3.81 = 0.667), at least 0.1 when given",
       .quick = "0", .paper = "0"},
      {.name = "across", .type = BG_PARAM_DOUBLE, .dest = &g_o.across, .lo = 0, .hi = 10,
       .help = "3D: bed beside the plate's width on each side, in depths of its centre; 0: none, the plate "
               "spans the bed between its slip faces, a slab in plane strain (the 2D result's check)",
       .quick = "2", .paper = "2"},
      {.name = "shape-below", .type = BG_PARAM_DOUBLE, .dest = &g_o.shape_below, .lo = 0.5, .hi = 10,
       .help = "the same for the shape set", .quick = "2", .paper = "2"},
      {.name = "jobs", .type = BG_PARAM_INT, .service = 1, .dest = &g_jobs, .lo = 1, .hi = 64,
       .help = "drags simulated at once, each with one CPU thread; results do not depend on it"},
      {.name = "cfl", .type = BG_PARAM_DOUBLE, .dest = &g_o.cfl, .lo = 0.02, .hi = 1,
       .help = "the drags' CFL number (the library's default 0.3): a force that moves with it is the "
               "discretisation's, not the sand's", .quick = "0.3", .paper = "0.3"},
  };
  /* clang-format on */
  (void)o;
  static const char *const mutants[] = {"generic-data", "depth-fed-deeper", "depth-undisturbed", "fast-plate",
                                        NULL};
  bg_lab_accept_materials("drucker-prager", "a rate-independent sand (RFT's frictional regime)");
  bg_lab_check_options(check_options, NULL);
  return bg_lab_init("exp_rft",
                     "A thin plate dragged through 2D sand (3D with --width) against resistive force theory.", argc,
                     argv, params, (int)(sizeof params / sizeof params[0]), mutants);
}

typedef struct plan {
  rft_run shape[MAXN * MAXN];
  int ns;
  rft_run depth[MAXN]; /* the reference configuration at every depth, the first the shape set's */
  rft_run fast, fine, control;
  int ref; /* index of the reference configuration in the shape set */
} plan;

/* One drag of the sweep: what it is fed, and where its result goes. */
typedef struct point {
  double cells, beta, gamma, depth_l, v, phi; /* deg, deg, in L, m/s, deg */
  const char *what;
  rft_run *dest;
  char tag[96];
} point;

typedef struct sweep {
  bg_lab *lab;
  point pt[MAXN * MAXN + MAXN + 3];
  int n;
} sweep;

static void add_point(sweep *w, rft_run *dest, double cells, double b, double g, double depth_l, double v,
                      double phi, const char *what) {
  point *q = &w->pt[w->n++];
  *q = (point){cells, b, g, depth_l, v, phi, what, dest, ""};
  snprintf(q->tag, sizeof q->tag, "%s beta %g gamma %g depth %gL", what, b, g, depth_l);
}

/* A point's drag, packed whole: the run, then its series. */
static void run_point(void *ctx, int k, bg_lab_blob *out) {
  const sweep *w = ctx;
  const point *q = &w->pt[k];
  bg_lab *lab = w->lab;
  rft_options o = g_o;
  if (!strcmp(q->what, "shape")) /* the shape set's scene: its own depth, travel, window and floor */
    o.travel = g_o.shape_travel, o.window = g_o.shape_window, o.below = g_o.shape_below;
  rft_run r = rft_drag(lab, &o, q->cells, q->beta / DEG, q->gamma / DEG, q->depth_l * g_o.length, q->v, q->phi, q->tag);
  double *series = r.series;
  r.series = NULL;
  bg_lab_blob_put(out, &r, sizeof r);
  bg_lab_blob_put(out, series, (size_t)r.n_series * RFT_SERIES_COLS * sizeof *series);
  free(series);
}

/* Every simulation the wanted claims need, as the points of a sweep (run
 * --jobs at a time, or point by point: bg_lab.h); a mutant run skips the rest. */
static void run_all(bg_lab *lab, plan *p) {
  const double phi = bg_lab_material(lab).dp.phi_deg, v = g_o.speed, c0 = g_l.cells[0];
  const double b0 = g_l.betas[g_l.nb - 1],
               g0 = g_l.gammas[0]; /* reference: the last beta, the first gamma */
  /* depth-fed-deeper: the plates' top edges, not their centres, at the
   * depths the lab believes (the reference plate is vertical: L / 2 deeper) */
  const double deeper = bg_lab_mutant_is(lab, "depth-fed-deeper") ? 0.5 : 0.0;
  const double vf = bg_lab_mutant_is(lab, "fast-plate") ? 20.0 : 1.0;
  static sweep w;
  w.lab = lab, w.n = 0;
  p->ref = -1;
  if (bg_lab_needed(lab, "rft.shape"))
    for (int i = 0; i < g_l.nb; ++i)
      for (int j = 0; j < g_l.ng; ++j) {
        if (g_l.betas[i] == b0 && g_l.gammas[j] == g0) p->ref = p->ns;
        add_point(&w, &p->shape[p->ns++], c0, g_l.betas[i], g_l.gammas[j], g_o.shape_depth, v, phi, "shape");
      }
  if (bg_lab_needed(lab, "rft.depth_linear") || bg_lab_needed(lab, "rft.rate_independent"))
    add_point(&w, &p->depth[0], c0, b0, g0, g_l.depths[0] + deeper, v * vf, phi, "ref");
  if (bg_lab_needed(lab, "rft.depth_linear"))
    for (int k = 1; k < g_l.nd; ++k) add_point(&w, &p->depth[k], c0, b0, g0, g_l.depths[k] + deeper, v, phi, "depth");
  if (bg_lab_needed(lab, "rft.rate_independent"))
    add_point(&w, &p->fast, c0, b0, g0, g_l.depths[0], 2 * v * vf, phi, "2v");
  if (!bg_lab_mutant(lab)) {
    add_point(&w, &p->fine, g_l.cells[1], b0, g0, g_l.depths[0], v, phi, "fine dx");
    if (g_o.phi_control > 0) add_point(&w, &p->control, c0, b0, g0, g_l.depths[0], v, g_o.phi_control, "control phi");
  }
  const char *tags[MAXN * MAXN + MAXN + 3];
  double cost[MAXN * MAXN + MAXN + 3];
  for (int k = 0; k < w.n; ++k) {
    /* particles grow with the bed, about (depth)^2 (L / dx)^2; steps with L / dx */
    const double d = w.pt[k].depth_l + 1, c = w.pt[k].cells;
    tags[k] = w.pt[k].tag, cost[k] = d * d * c * c * c;
  }
  bg_lab_blob *res = bg_lab_sweep(lab, w.n, tags, cost, g_jobs, run_point, &w);
  for (int k = 0; k < w.n; ++k) {
    rft_run *r = w.pt[k].dest;
    bg_lab_blob_get(&res[k], r, sizeof *r);
    r->series = bg_lab_xmalloc((size_t)r->n_series * RFT_SERIES_COLS * sizeof *r->series);
    bg_lab_blob_get(&res[k], r->series, (size_t)r->n_series * RFT_SERIES_COLS * sizeof *r->series);
  }
  bg_lab_sweep_free(res, w.n);
}

static void write_run(FILE *f, const char *set, const rft_run *r) {
  fprintf(f,
          "%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%."
          "4g\t%.4g\t%zu\t%llu\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%.3g\t%.6g\t%.6g\t%.6g\n",
          set, r->beta_fed * DEG, r->gamma_fed * DEG, r->depth_nom, r->depth, r->surface, r->dx,
          r->phi_deg, r->speed_fed, r->fx, r->fz, r->alpha_z * 1e-6, r->alpha_x * 1e-6,
          r->rate_number, r->beta_nom * DEG, r->gamma_nom * DEG, r->n_particles,
          (unsigned long long)r->steps, r->contact_fx, r->contact_fz, r->residue_fx, r->residue_fz, r->split_n,
          r->split_nonlinearity, r->depth_ahead, r->alpha_ahead * 1e-6, r->alpha_ahead_se * 1e-6);
}

static void write_outputs(bg_lab *lab, const plan *p, const rft_shape *s) {
  FILE *f = bg_lab_tsv(
      lab, "alpha.tsv",
      "one row per drag: angles and speed read back from the body, depth below the read surface, "
      "the force's stress part over the window (N per m of depth; bg_contact.h), alpha = F / (L |z|), "
      "and the whole contact force (time mean over the window) with its transfers' part, the residue, "
      "which grows as dt shrinks; depth_ahead: the centre's depth below the surface the drag leaves ahead "
      "of the plate (one depth long); alpha_ahead: the window rows' mean of |F| / (L depth_ahead), with its "
      "standard error from batch means of the rows: what the depth and rate claims read",
      "set\tbeta_deg\tgamma_deg\tdepth_nominal_m\tdepth_m\tsurface_m\tdx_m\tphi_deg\tspeed_m_s\tfx_"
      "N_m\t"
      "fz_N_m\talpha_z_N_cm3\talpha_x_N_cm3\tv2_over_gz\tbeta_nominal_deg\tgamma_nominal_"
      "deg\tparticles\t"
      "steps\tcontact_fx_N_m\tcontact_fz_N_m\tresidue_fx_N_m\tresidue_fz_N_m\tsplit_probes\tsplit_nonlinearity\tdepth_ahead_m\talpha_ahead_N_cm3\talpha_ahead_se_N_cm3");
  for (int k = 0; k < p->ns; ++k) write_run(f, "shape", &p->shape[k]);
  for (int k = 0; k < g_l.nd; ++k)
    if (p->depth[k].steps) write_run(f, "depth", &p->depth[k]);
  if (p->fast.steps) write_run(f, "rate", &p->fast);
  if (p->fine.steps) write_run(f, "fine", &p->fine);
  if (p->control.steps) write_run(f, "control", &p->control);
  fclose(f);
  /* the generic curves at the fitted zeta, for the figure */
  FILE *c = bg_lab_tsv(lab, "generic.tsv",
                       "zeta * the generic form of Li et al. 2013 at the fitted zeta, per gamma "
                       "(rows of one gamma in a run)",
                       "gamma_deg\tbeta_deg\talpha_z_N_cm3\talpha_x_N_cm3");
  for (int j = 0; j < g_l.ng && isfinite(s->zeta); ++j) {
    for (int i = 0; i <= 90; ++i) {
      double b = -90.0 + 2.0 * i, az, ax;
      rft_generic(b / DEG, g_l.gammas[j] / DEG, &az, &ax);
      fprintf(c, "%g\t%g\t%.6g\t%.6g\n", g_l.gammas[j], b, s->zeta * az * 1e-6,
              s->zeta * ax * 1e-6);
    }
  }
  fclose(c);
  FILE *t = bg_lab_tsv(
      lab, "series.tsv",
      "force and free surface per sample of the travel, every drag (sets as in alpha.tsv); blank lines "
      "separate runs; the surface over the plate's span and ahead of it, 0.5, 1 and 2 depths long; "
      "in the window the force's stress part at the row's end (bg_contact.h); depth_ahead: the centre's "
      "depth below the surface ahead (one depth long)",
      "set\tbeta_deg\tgamma_deg\tdepth_nominal_m\ttravel_L\tdepth_m\tfx_N_m\tfz_N_m\tsurface_over_m\t"
      "surface_ahead_half_m\tsurface_ahead_m\tsurface_ahead_two_m\tstress_fx_N_m\tstress_fz_N_m\tdepth_ahead_m");
  const rft_run *rs[MAXN * MAXN + MAXN + 3];
  const char *sets[MAXN * MAXN + MAXN + 3];
  int nr = 0;
  for (int k = 0; k < p->ns; ++k) rs[nr] = &p->shape[k], sets[nr++] = "shape";
  for (int k = 0; k < g_l.nd; ++k) rs[nr] = &p->depth[k], sets[nr++] = "depth";
  rs[nr] = &p->fast, sets[nr++] = "rate";
  rs[nr] = &p->fine, sets[nr++] = "fine";
  rs[nr] = &p->control, sets[nr++] = "control";
  for (int k = 0; k < nr; ++k) {
    const rft_run *r = rs[k];
    if (!r->steps || !r->series) continue;
    for (int i = 0; i < r->n_series; ++i) {
      const double *q = r->series + RFT_SERIES_COLS * i;
      fprintf(t, "%s\t%g\t%g\t%g\t%.4f", sets[k], r->beta_nom * DEG, r->gamma_nom * DEG, r->depth_nom, q[0]);
      for (int j = 1; j < RFT_SERIES_COLS; ++j) fprintf(t, "\t%.5g", q[j]);
      fprintf(t, "\n");
    }
    fprintf(t, "\n\n");
  }
  fclose(t);
}

static void judge(bg_lab *lab, const plan *p) {
  rft_shape s = {NAN, NAN, NAN, NAN, NAN};
  if (p->ns) {
    s = rft_fit_shape(p->shape, p->ns, 1.0);
    rft_shape m = rft_fit_shape(p->shape, p->ns, -1.0);
    bg_lab_claim(lab, "rft.shape", s.misfit - s.mirror);
    /* positive control: the generic form's own values at the fed angles, as
     * a run would read them with zeta = 1 N/cm^3, through the same fit */
    rft_run gen[MAXN * MAXN];
    for (int k = 0; k < p->ns; ++k) {
      gen[k] = p->shape[k];
      rft_generic(gen[k].beta_fed, gen[k].gamma_fed, &gen[k].alpha_z, &gen[k].alpha_x);
      gen[k].alpha_z *= 1e6, gen[k].alpha_x *= 1e6;
    }
    rft_shape gs = rft_fit_shape(gen, p->ns, 1.0);
    bg_lab_claim_mutant(lab, "generic-data", "rft.shape", gs.misfit - gs.mirror);
    bg_lab_manifest_num(lab, "zeta_N_cm3", s.zeta * 1e-6);
    bg_lab_manifest_num(lab, "misfit", s.misfit);
    bg_lab_manifest_num(lab, "misfit_z", s.misfit_z);
    bg_lab_manifest_num(lab, "misfit_x", s.misfit_x);
    bg_lab_manifest_num(lab, "resolution", s.mirror);
    /* the other reading of beta's sign (references/literature/li2013_rft.md) */
    bg_lab_manifest_num(lab, "misfit_beta_mirrored", m.misfit);
    const double rho_g = bg_lab_material(lab).rho0 * 9.81;
    bg_lab_manifest_num(lab, "zeta_over_rho0_g", s.zeta / rho_g);
  }
  /* the generic form's resolution: from the fed angles, else the nominal ones */
  const double res =
      isfinite(s.mirror) ? s.mirror : rft_resolution(g_l.betas, g_l.nb, g_l.gammas, g_l.ng);
  if (bg_lab_needed(lab, "rft.depth_linear")) {
    double z[MAXN], zn[MAXN], k, c, kn, cn, zbar = 0, zbar_n = 0;
    /* the depth read back below the surface ahead of the plate, which the
     * heap it pushes up deepens (reports/rft.md); depth-undisturbed reads it
     * below the surface before the drag, depth-fed-deeper takes the listed one */
    double zu[MAXN], ku, cu, zbar_u = 0;
    for (int i = 0; i < g_l.nd; ++i) {
      z[i] = p->depth[i].depth_ahead, zu[i] = p->depth[i].depth;
      zn[i] = g_l.depths[i] * g_o.length; /* as listed */
      zbar += z[i] / g_l.nd, zbar_n += zn[i] / g_l.nd, zbar_u += zu[i] / g_l.nd;
    }
    double sg, sg_nom, sg_u;
    double off = rft_fit_depth(p->depth, g_l.nd, z, g_o.length, &k, &c, &sg);
    double off_nom = rft_fit_depth(p->depth, g_l.nd, zn, g_o.length, &kn, &cn, &sg_nom);
    double off_u = rft_fit_depth(p->depth, g_l.nd, zu, g_o.length, &ku, &cu, &sg_u);
    /* the line's zero-force depth relative to the mean depth, |c| / (k zbar),
     * with two standard errors of it: the whole bracket must lie inside */
    double rel = bg_lab_mutant_is(lab, "depth-fed-deeper") ? (fabs(off_nom) + 2 * sg_nom) / zbar_n
                                                          : (fabs(off) + 2 * sg) / zbar;
    bg_lab_claim(lab, "rft.depth_linear", rel - res);
    bg_lab_claim_mutant(lab, "depth-undisturbed", "rft.depth_linear", (fabs(off_u) + 2 * sg_u) / zbar_u - res);
    bg_lab_manifest_num(lab, "depth_offset_sigma_over_mean_depth", sg / zbar);
    bg_lab_manifest_num(lab, "depth_offset_undisturbed_over_mean_depth", fabs(off_u) / zbar_u);
    bg_lab_manifest_num(lab, "depth_slope_N_m3", k);
    bg_lab_manifest_num(lab, "depth_intercept_N_m", c);
    bg_lab_manifest_num(lab, "depth_offset_m", off);
    bg_lab_manifest_num(lab, "depth_offset_over_mean_depth", fabs(off) / zbar);
  }
  if (bg_lab_needed(lab, "rft.rate_independent")) {
    /* the force per unit overburden at 2v over that at v, with its
     * standard error from the two drags' */
    const rft_run *a = &p->depth[0], *b = &p->fast;
    const double q = b->alpha_ahead / a->alpha_ahead,
                 sr = q * hypot(a->alpha_ahead_se / a->alpha_ahead, b->alpha_ahead_se / b->alpha_ahead);
    bg_lab_claim(lab, "rft.rate_independent", fabs(q - 1) + 2 * sr - res);
    bg_lab_manifest_num(lab, "rate_ratio", q);
    bg_lab_manifest_num(lab, "rate_ratio_sigma", sr);
    bg_lab_manifest_num(lab, "rate_force_ratio", hypot(b->fx, b->fz) / hypot(a->fx, a->fz));
    bg_lab_manifest_num(lab, "rate_number_2v", p->fast.rate_number);
  }
  if (p->fine.steps) {
    const rft_run *a = &p->depth[0], *b = &p->fine;
    bg_lab_manifest_num(lab, "dx_change_alpha_z", b->alpha_z / a->alpha_z - 1);
    bg_lab_manifest_num(lab, "dx_change_alpha_x", b->alpha_x / a->alpha_x - 1);
  }
  if (p->control.steps) /* Askari & Kamrin 2016: zeta grows with the friction angle */
    bg_lab_manifest_num(
        lab, "control_force_ratio",
        hypot(p->control.fx, p->control.fz) / hypot(p->depth[0].fx, p->depth[0].fz));
  write_outputs(lab, p, &s);
}

int main(int argc, char **argv) {
  bg_lab *lab = parse_options(argc, argv);
  rft_read_coefficients(lab);
  bg_material m = bg_lab_material(lab);
  bg_lab_manifest_material(lab, &m);
  plan *p = calloc(1, sizeof *p);
  if (!p) bg_lab_fail("out of memory");
  run_all(lab, p);
  judge(lab, p);
  for (int k = 0; k < p->ns; ++k) free(p->shape[k].series);
  for (int k = 0; k < g_l.nd; ++k) free(p->depth[k].series);
  free(p->fast.series), free(p->fine.series), free(p->control.series);
  free(p);
  return bg_lab_finish(lab);
}
