#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* silo.c: discharge of a flat-bottomed silo through an orifice (Beverloo).
 *
 * Scene: a silo of width (slot) or diameter (round) L, filled with Klar's
 * sand at rest to H = (H/R) L/2 (H/R >= 5, tall enough for Janssen
 * saturation), walls with Coulomb friction mu_wall. The floor (top face at
 * z = 0, floor_cells thick) is a user node field (BG_SHAPE_NODES): the slab
 * minus the aperture, phi = max(|z + t/2| - t/2, D/2 - rho), rho = |x - xc|
 * for the planar slot and the distance from the axis for the round orifice.
 * Material that falls gap_cells below the floor's underside enters a sink
 * box and is parked, so nothing piles back up under the outlet. The orifice
 * is open from t = 0: the sand settles elastically while it starts to flow.
 *
 * Geometries:
 *   slot  a slab slab_cells thick between slip faces (y), the silo walls are
 *         the x domain faces (Coulomb mu_wall): a planar silo, W per unit
 *         width ~ (D - k d)^(3/2). The quick preset uses it: 3D is ~50x the
 *         particles at the same cells per aperture, beyond 3 CPU minutes.
 *   round an inverted z-cylinder (Coulomb mu_wall) of diameter L with a
 *         circular orifice: W ~ (D - k d)^(5/2), Beverloo's law.
 *
 * Apertures are resolved on the grid, not at the nominal D: a floor node is
 * free when it lies in the hole, so the geometric aperture is counted from
 * the free nodes of the floor plane (slot: N dx; round: sqrt(4 N dx^2 / pi))
 * of the floor field as the library holds it, read back through
 * bg_sim_describe (bg_silo.c, fed_aperture). Every fit uses this counted
 * aperture; silo.aperture ties it to the library's (expected: fed). A
 * continuum has no grain size, so Beverloo's k d is 0; the grid's rim is
 * a dead zone of a fixed number of cells (references/derivations/silo.md,
 * section 6), so the claims' fit is the joint one, W = C rho_b sqrt(g)
 * (D - k dx)^n with C, k (cells of each run's dx) and n free, over the
 * apertures of >= joint-min-cells cells and the refinement runs.
 *
 * Resolution criterion: only apertures whose centreline exit speed over
 * sqrt(g D) has levelled off against D (|d ln u_c / d ln D| <= plateau_slope)
 * enter the Beverloo fits; the claims are NaN (fail) when too few pass.
 * --refine D runs one physical aperture on three grids (dx x 2, dx, dx / 2).
 *
 * Measurements, one run per aperture, sampled every sample_dt:
 *   parked mass in the sink (the discharge, W its slope), mass below the
 *   orifice plane z = 0 (the plane-flux check), mass above it and the bulk
 *   density rho_b: mass-weighted mean of rho0 / (det F Jp) over particles in
 *   the bulk (z from L/2 to h - 2 dx, at least 2 dx from the wall), so the
 *   fill height h = M_above / (rho_b A) is measured, not assumed (A: the
 *   initial lattice's volume over H, M0 / (rho0 H)).
 *   Steady window: start-up ends when h has dropped by startup_frac (0.05) of
 *   (H - 1.2 L) and t >= STARTUP_PERIODS x 4 H / c_p: the column starts
 *   stress-free and rings in its fundamental elastic mode (period 4 H / c_p)
 *   while it settles onto the floor, which holds the rate low for ~2 periods
 *   whatever the aperture (seen in the rate series: a fill criterion alone
 *   let the large apertures' windows start inside it). The window then runs
 *   until h has dropped a further drop (H - 1.2 L), capped at h = 1.2 L: the
 *   rate run (largest aperture) drains to 1.2 L, the sweep runs a fraction
 *   of that, or less: a sweep run also ends once its window has lasted
 *   t_win_min with W's relative standard error <= rel_se_max (see main).
 *   W: GSL linear fit of the
 *   parked mass over the window; flatness: the same fit on N_SUB equal
 *   sub-windows, max |W_k / W - 1|.
 *   Exit profile: particles in the band -dx <= z < 0 (the orifice's top cell),
 *   binned across the aperture (dx/2 bins), over every sample of the window:
 *   mass flux j = sum m v_z / (V_bin n_samples), exit speed v = sum m v_z /
 *   sum m, local density from particle state rho = sum m rho_p / sum m. The
 *   closure integrates rho v over the exit and compares it with W.
 * Fits (GSL nonlinear least squares, relative residuals, covariance scaled
 * by chi^2/dof): W / (rho_b sqrt(g)) = C (D - k dx)^n with n fixed (3/2 slot,
 * 5/2 round), then with n free; and the geometric power law W ~ D^n_geo (a
 * linear fit in logs). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"
#include "bg_silo.h"
#include "silo.h"

/* measurement mutants (references/mutants.tsv), evaluated on the plain run's data */
static const char *const silo_mutants[] = {"criterion-off", "startup-included", "density-rho0", "beverloo-law-data",
                                           "unresolved-in", "aperture-one-cell-small",
                                           "rim-unmodelled-law-data", NULL};

static int parse_apertures(const char *s, double *out, int max, double lo, double hi) {
  int n = 0;
  const char *c = s;
  while (*c) {
    char *end;
    double v = strtod(c, &end);
    if (end == c || !isfinite(v)) {
      bg_lab_fail("--apertures: '%s' is not a comma-separated list of numbers", s);
    }
    if (v < lo || v > hi) {
      bg_lab_fail("--apertures: %g cells is outside the accepted range [%g, %g] "
                  "(at least 3 cells, at most silo-cells / 2.5)", v, lo, hi);
    }
    if (n == max) {
      bg_lab_fail("--apertures: more than %d values", max);
    }
    out[n++] = v;
    c = end;
    if (*c == ',') c++;
    else if (*c) {
      bg_lab_fail("--apertures: unexpected '%c' in '%s'", *c, s);
    }
  }
  for (int i = 1; i < n; ++i)
    if (out[i] <= out[i - 1]) {
      bg_lab_fail("--apertures: values must increase (got %g after %g)", out[i], out[i - 1]);
    }
  return n;
}

/* The options no range can check, by bg_lab_init before the run folder is
 * touched: the geometry's name and the aperture list (parsed, at least 4). */
static void silo_check_options(void *ctx) {
  const silo_plan *pl = ctx;
  if (strcmp(pl->geometry, "slot") && strcmp(pl->geometry, "round"))
    bg_lab_fail("--geometry: '%s' is not one of slot, round", pl->geometry);
  double D[MAX_AP];
  int nap = parse_apertures(pl->apertures, D, MAX_AP, 3, pl->silo_cells / 2.5);
  if (nap < 4) bg_lab_fail("--apertures: %d values, the fits need at least 4", nap);
}

/* The options (their defaults first, then the table) and the lab. */
static bg_lab *silo_init(int argc, char **argv, silo_plan *pl) {
  pl->geometry = pl->apertures = NULL;
  pl->dx = 0;
  pl->hr = 5.5;
  pl->mu_wall = 0.5;
  pl->mu_floor = 0.5;
  pl->drop_sweep = 0;
  pl->t_max = 20;
  pl->sample_dt = 0;
  pl->jitter = 0.5;
  pl->t_win_min = 0;
  pl->w_rel_se_max = 0.01;
  pl->startup_frac = 0.05;
  pl->plateau_slope = 0.1;
  pl->k_fixed = 0;
  pl->refine = 0;
  pl->joint_min = 14;
  pl->silo_cells = 0;
  pl->floor_cells = 2;
  pl->gap_cells = 3;
  pl->slab_cells = 1;
  pl->jobs = 1;
  bg_lab_param params[] = {
      {.name = "geometry", .type = BG_PARAM_STRING, .dest = &pl->geometry, .lo = 0, .hi = 0,
       .help = "slot (planar, W ~ D^3/2) or round (W ~ D^5/2)", .quick = "slot", .paper = "round"},
      {.name = "dx", .type = BG_PARAM_DOUBLE, .dest = &pl->dx, .lo = 1e-4, .hi = 0.1, .help = "grid spacing, m",
       .quick = "0.01", .paper = "0.005", .key = "dx_m"},
      {.name = "silo-cells", .type = BG_PARAM_INT, .dest = &pl->silo_cells, .lo = 8, .hi = 512,
       .help = "silo width (slot) or diameter (round) L, cells", .quick = "20", .paper = "60"},
      {.name = "apertures", .type = BG_PARAM_STRING, .dest = &pl->apertures, .lo = 0, .hi = 0,
       .help = "orifice sizes D, cells, comma-separated, increasing", .quick = "4,5,6,7", .paper = "14,17,20,22,24",
       .key = "apertures_cells"},
      {.name = "h-over-r", .type = BG_PARAM_DOUBLE, .dest = &pl->hr, .lo = 5, .hi = 20,
       .help = "fill height over silo half-width H / R (Janssen: >= 5)"},
      {.name = "mu-wall", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_wall, .lo = 0, .hi = 2,
       .help = "silo wall Coulomb coefficient"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &pl->mu_floor, .lo = 0, .hi = 2,
       .help = "floor Coulomb coefficient"},
      {.name = "floor-cells", .type = BG_PARAM_INT, .dest = &pl->floor_cells, .lo = 2, .hi = 8,
       .help = "floor thickness, cells"},
      {.name = "gap-cells", .type = BG_PARAM_INT, .dest = &pl->gap_cells, .lo = 1, .hi = 32,
       .help = "distance from the floor's underside to the sink, cells"},
      {.name = "slab-cells", .type = BG_PARAM_INT, .dest = &pl->slab_cells, .lo = 1, .hi = 32,
       .help = "slot silo thickness between the slip walls, cells"},
      {.name = "drop-sweep", .type = BG_PARAM_DOUBLE, .dest = &pl->drop_sweep, .lo = 0.1, .hi = 1,
       .help = "fraction of the fill range H to 1.2 L the sweep runs drain inside their steady window (the largest aperture drains to 1.2 L)",
       .quick = "0.2", .paper = "0.5"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &pl->t_max, .lo = 0.01, .hi = 100,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
      {.name = "sample-dt", .type = BG_PARAM_DOUBLE, .dest = &pl->sample_dt, .lo = 1e-4, .hi = 0.1,
       .help = "sampling interval, s (default: derived, 0.25 sqrt(dx / g))", .key = "sample_dt_s"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &pl->jitter, .lo = 0, .hi = 1,
       .help = "lattice jitter, fraction of the particle spacing"},
      {.name = "t-window-min", .type = BG_PARAM_DOUBLE, .dest = &pl->t_win_min, .lo = 0.01, .hi = 100,
       .help = "steady-window rule for the sweep runs: the shortest window, s (unset: 2 x 5 = 10 elastic periods 4 H / c_p)",
       .key = "t_window_min_s"},
      {.name = "w-rel-se", .type = BG_PARAM_DOUBLE, .dest = &pl->w_rel_se_max, .lo = 1e-4, .hi = 0.5,
       .help = "steady-window rule: a sweep run ends once its window lasts t-window-min and W's relative standard error is at most this",
       .key = "w_rel_se_max"},
      {.name = "startup-frac", .type = BG_PARAM_DOUBLE, .dest = &pl->startup_frac, .lo = 0.005, .hi = 0.5,
       .help = "start-up exclusion: the window opens once the fill has dropped this fraction of H - 1.2 L (and t >= 2 x 4 H / c_p)"},
      {.name = "jobs", .type = BG_PARAM_INT, .service = 1, .dest = &pl->jobs, .lo = 1, .hi = MAX_AP,
       .help = "apertures simulated at once, each its own simulation with one CPU thread, or on cuda its own stream (which "
               "hides every run's host-side sampling behind the others' kernels); results do not depend on it"},
      {.name = "plateau-slope", .type = BG_PARAM_DOUBLE, .dest = &pl->plateau_slope, .lo = 0.01, .hi = 1,
       .help = "resolution criterion: an aperture enters the Beverloo fits when |d ln u_c / d ln D| <= this, u_c = v_c / sqrt(g D) its centreline exit speed (slope to the next larger aperture; the largest: to the one below)"},
      {.name = "k-fixed", .type = BG_PARAM_DOUBLE, .dest = &pl->k_fixed, .lo = 0, .hi = 10,
       .help = "k of the fixed-k Beverloo fits, cells (0: a continuum has no grain size, see references/derivations/silo.md)",
       .key = "k_fixed_cells"},
      {.name = "refine", .type = BG_PARAM_DOUBLE, .dest = &pl->refine, .lo = 0, .hi = 1,
       .help = "dx refinement at a fixed physical aperture D (m; 0: off): the same silo geometry with L = 2.5 D at dx x 2, dx, dx / 2, one run each, W, u_c and C(k=0) per grid in refine.tsv; the runs join the joint Beverloo fit (paper: 8 cm, the recorded h200/silo-refine)",
       .paper = "0.08", .key = "refine_D_m"},
      {.name = "joint-min-cells", .type = BG_PARAM_DOUBLE, .dest = &pl->joint_min, .lo = 0, .hi = 64,
       .help = "the joint Beverloo fit with the rim modelled (C, k, n free): sweep apertures of at least this many cells enter, with every refinement run (references/derivations/silo.md)"},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab_accept_materials("drucker-prager,mu-i,ngf", "a granular model");
  bg_lab_check_options(silo_check_options, pl);
  return bg_lab_init("exp_silo",
                     "Silo discharge through a floor orifice: rate against fill height, Beverloo "
                     "aperture sweep with GSL fits, exit profiles and flux closure.",
                     argc, argv, params, np, silo_mutants);
}

/* The scene and its plan: the checks of the options, the derived sampling
 * and window, the silo every run shares, and the runs (the aperture sweep,
 * then --refine's grids) with their tags and order. Exits 2 on a bad option. */
static void silo_plan_runs(silo_plan *pl) {
  bg_lab *lab = pl->lab;
  const char *geometry = pl->geometry, *apertures = pl->apertures;
  const double dx = pl->dx;
  const double hr = pl->hr;
  const double mu_wall = pl->mu_wall;
  const double mu_floor = pl->mu_floor;
  const double drop_sweep = pl->drop_sweep;
  const double t_max = pl->t_max;
  const double jitter = pl->jitter;
  const double w_rel_se_max = pl->w_rel_se_max;
  const double startup_frac = pl->startup_frac;
  const double refine = pl->refine;
  double sample_dt = pl->sample_dt, t_win_min = pl->t_win_min;
  const int silo_cells = pl->silo_cells, floor_cells = pl->floor_cells, gap_cells = pl->gap_cells,
            slab_cells = pl->slab_cells;
  int jobs = pl->jobs;
  int round = !strcmp(geometry, "round");
  /* paper: apertures of 14-24 cells (L/D >= 2.5), where u_c levels off in the recorded round runs */
  /* 0 (below the accepted range): derived from the grid and the column */
  const int derive_sample_dt = sample_dt == 0, derive_t_win = t_win_min == 0;
  if (derive_sample_dt) sample_dt = 0.25 * sqrt(dx / G);
  /* Sweep runs (every aperture but the largest) end on whichever comes first:
   * the fill-drop target (drop-sweep), or the steady-window rule: the window
   * has lasted t-window-min AND W's relative standard error (w_rel_se: the
   * larger of the GSL fit's and the sub-window rates') is <= w-rel-se.
   * Default t-window-min: 2 BG_SILO_N_SUB = 10 periods of the column's fundamental
   * elastic mode 4 H / c_p (0.15 s at H = 0.55 m, c_p 14.7 m/s, so 1.5 s), so
   * that each of the BG_SILO_N_SUB sub-windows spans two periods of the ringing that
   * start-up leaves, and the window is long against the flow's own time at
   * the orifice, sqrt(D / g) = 0.03-0.09 s for D = 1-8 cm (T_min is >= 16 of
   * them, >= 250 samples at the paper's sample_dt). Default w-rel-se 1%:
   * across six apertures with D - k dx spanning a factor ~4 (ln 4 = 1.4),
   * independent 1% errors in W alone would move a two-parameter power-law
   * exponent by ~0.01; the three-parameter fit amplifies that (not measured
   * here), and 1% should keep it well below the claims' tolerance of 0.2.
   * The rate run is not affected: it drains to 1.2 L for silo.rate_flat.
   * The quick preset's sweep windows (0.45-1.28 s) are shorter than 1.5 s,
   * so there the fill drop ends them as before.
   * Paper preset (round, 60 cells, 14-24-cell apertures): 3.7M particles;
   * the recorded 56-cell run with 8-22 cells took 262 s on an H200 at
   * --jobs 6, so expect ~5 min. See reports/silo.md. */
  bg_material sand = bg_lab_material(lab);
  double period = 4 * (hr * 0.5 * silo_cells * dx) / (double)bg_material_pwave_speed(&sand);
  if (derive_t_win) t_win_min = 2.0 * BG_SILO_N_SUB * period;
  double *D = pl->D;
  int nap = parse_apertures(apertures, D, MAX_AP, 3, silo_cells / 2.5); /* checked: silo_check_options */
  gsl_set_error_handler_off();
  /* the derived values, as used */
  bg_lab_manifest_num(lab, "sample_dt_s", sample_dt);
  bg_lab_manifest_num(lab, "t_window_min_s", t_win_min);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "startup_periods_4H_over_cp", BG_SILO_STARTUP_PERIODS);
  bg_lab_manifest_num(lab, "h_end_over_L", BG_SILO_H_END_OVER_L);
  bg_lab_manifest_num(lab, "elastic_period_4H_over_cp_s", period);
  bg_lab_manifest_str(lab, "sweep_stop_rule",
                      "first of: fill drop of drop_sweep x (H - 1.2 L) inside the window; window >= t_window_min_s "
                      "and relative s.e. of W <= w_rel_se_max (max of the GSL fit's and the 5 sub-window rates')");
  bg_lab_manifest_material(lab, &sand);
  /* Beverloo's k d: a model with a grain size (mu(I), nonlocal fluidity)
   * takes k d from it, with Beverloo's k (references/literature/beverloo.tsv);
   * Drucker-Prager has no length but dx, and k-fixed counts cells of it */
  const double grain_d = bg_lab_grain_d(&sand);
  const int grain = grain_d > 0;
  const double k_bev = bg_lab_ref_value(lab, "literature/beverloo.tsv", "k", "value");
  const double grain_kd = grain ? k_bev * grain_d : -1;
  if (grain) bg_lab_manifest_num(lab, "beverloo_kd_m", grain_kd);
  bg_lab_manifest_str(lab, "beverloo_length_d", grain ? "the model's grain diameter d, k from references/literature/beverloo.tsv" : "grid spacing dx (a continuum has no grain size)");

  bg_silo_scene base = {round, dx, silo_cells, hr, 0, floor_cells, gap_cells, slab_cells, mu_wall, mu_floor, 1.0,
                0, t_win_min, w_rel_se_max, startup_frac, t_max, sample_dt, jitter, bg_lab_backend(lab), bg_lab_threads(lab), bg_lab_seed(lab),
                sand, NULL};
  double n0 = round ? 2.5 : 1.5;
  const char *unit_w = round ? "kg_per_s" : "kg_per_m_s";
  /* runs: the aperture sweep, then (--refine) one fixed physical aperture on three grids */
  int nref = refine > 0 ? 3 : 0, ntot = nap + nref;
  bg_silo_scene *scs = pl->scs;
  int iref = nap - 1; /* the largest aperture drains the whole window: the rate run */
  char *cols = pl->cols;
  snprintf(cols, sizeof pl->cols,
           "t_s\tparked_%s\tbelow_plane_%s\tW_sink_%s\tW_plane_%s\tfill_m\tfill_over_L\tfill_over_H\trho_b_kg_m3\tin_window",
           round ? "kg" : "kg_per_m", round ? "kg" : "kg_per_m", unit_w, unit_w);
  for (int i = 0; i < nap; ++i) {
    scs[i] = base;
    scs[i].D_cells = D[i];
    scs[i].drop = i == iref ? 1.0 : drop_sweep;
    scs[i].steady_stop = i != iref;
  }
  /* refinement: L = 2.5 D (Mankoc 2007: wider does not matter) in whole even cells of the coarsest grid */
  int rlc0 = refine > 0 ? 2 * (int)ceil(1.25 * refine / (2 * dx) - 1e-9) : 0;
  for (int j = 0; j < nref; ++j) {
    bg_silo_scene *sc = &scs[nap + j];
    *sc = base;
    sc->dx = 2 * dx / (1 << j);
    sc->silo_cells = rlc0 << j;
    sc->D_cells = refine / sc->dx;
    sc->drop = drop_sweep;
    sc->steady_stop = 1;
    if (derive_sample_dt) sc->sample_dt = 0.25 * sqrt(sc->dx / G);
    if (derive_t_win) sc->t_win_min = 2.0 * BG_SILO_N_SUB * 4 * (hr * 0.5 * rlc0 * 2 * dx) / (double)bg_material_pwave_speed(&sand);
    if (sc->D_cells < 3 || sc->silo_cells > 1024) {
      fprintf(stderr, "error: --refine %g m: %.2f cells on the coarsest grid (dx %g m) and %d silo cells on the finest; "
                      "need >= 3 and <= 1024\n", refine, refine / (2 * dx), 2 * dx, rlc0 << 2);
      exit(2);
    }
  }
  /* Each aperture is an independent simulation: the points of one sweep
   * (bg_lab_sweep: in this process --jobs at a time, the smallest aperture
   * and the finest refinement grid first as they run the longest, or one
   * point per process with --point K and then --gather). Inside a --jobs
   * region the CPU backend's own parallel loops get one thread each (nested
   * parallelism is off), which is why the CPU keeps 1. */
  if (jobs > ntot) jobs = ntot; /* the manifest keeps the value asked for */
  char(*tags)[96] = pl->tags;
  const char **tagp = pl->tagp;
  double *cost = pl->cost;
  for (int i = 0; i < ntot; ++i) {
    if (i < nap) snprintf(tags[i], sizeof tags[i], "D %g cells (%d/%d)", D[i], i + 1, nap);
    else snprintf(tags[i], sizeof tags[i], "refine D %g m, dx %g m (%d/%d)", refine, scs[i].dx, i - nap + 1, nref);
    tagp[i] = tags[i];
    /* the order they ran in before: refinement finest first, then the apertures smallest first */
    cost[i] = i >= nap ? 2.0 * ntot + i : (double)(ntot - i);
  }
  pl->round = round;
  pl->nap = nap;
  pl->nref = nref;
  pl->ntot = ntot;
  pl->iref = iref;
  pl->grain_kd = grain_kd;
  pl->k_bev = k_bev;
  pl->n0 = n0;
  pl->unit_w = unit_w;
  pl->jobs = jobs;
}

/* One point of the sweep: an aperture (or a refinement grid) run until its
 * stop rule, with its series rows, packed for the gather. */
typedef struct silo_ctx {
  bg_lab *lab;
  const bg_silo_scene *scenes;
  const char (*tags)[96];
} silo_ctx;

static void silo_point(void *vctx, int k, bg_lab_blob *out) {
  const silo_ctx *c = vctx;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) bg_lab_fail("%s: cannot open a memory stream for the series: %s", c->tags[k], strerror(errno));
  bg_silo_result r = bg_silo_run(c->lab, &c->scenes[k], c->tags[k], mem);
  bg_lab_add_work(c->lab, (double)r.n_particles * (double)r.steps);
  if (fclose(mem) != 0) bg_lab_fail("%s: the series stream failed: %s", c->tags[k], strerror(errno));
  bg_silo_result_pack(&r, text, len, out);
  free(text);
  bg_silo_result_free(&r);
}

/* Every run (bg_lab_sweep), and each run's series table. */
static void silo_run(silo_plan *pl) {
  bg_lab *lab = pl->lab;
  const char *geometry = pl->geometry;
  const int round = pl->round, nap = pl->nap, ntot = pl->ntot;
  const bg_silo_scene *scs = pl->scs;
  bg_silo_result *rr = pl->rr;
  silo_ctx ctx = {lab, scs, (const char(*)[96])pl->tags};
  bg_lab_blob *packed = bg_lab_sweep(lab, ntot, pl->tagp, pl->cost, pl->jobs, silo_point, &ctx);
  for (int i = 0; i < ntot; ++i) {
    char fn[64], cm[256], *series;
    size_t series_len;
    rr[i] = bg_silo_result_unpack(&packed[i], &series, &series_len);
    if (i < nap) snprintf(fn, sizeof fn, "series_D%d.tsv", i);
    else snprintf(fn, sizeof fn, "series_R%d.tsv", i - nap);
    snprintf(cm, sizeof cm, "%s silo, aperture %g cells nominal, dx %g m, L %d cells; W per %s; local rates over +-5 samples; fill = mass above z=0 / (rho_b A)",
             geometry, scs[i].D_cells, scs[i].dx, scs[i].silo_cells, round ? "silo" : "unit slot width");
    FILE *f = bg_lab_tsv(lab, fn, cm, pl->cols);
    fwrite(series, 1, series_len, f);
    fclose(f);
    free(series);
  }
  bg_lab_sweep_free(packed, ntot);
}

int main(int argc, char **argv) {
  static silo_plan pl; /* large: not on the stack */
  static silo_readout ro;
  /* scene */
  pl.lab = silo_init(argc, argv, &pl);
  silo_plan_runs(&pl);
  /* run */
  silo_run(&pl);
  /* read-out, stage by stage */
  silo_rates(&pl, &ro);
  silo_fits(&pl, &ro);
  silo_profiles(&pl);
  /* judge */
  silo_judge(&pl, &ro);
  for (int i = 0; i < pl.ntot; ++i) bg_silo_result_free(&pl.rr[i]);
  return bg_lab_finish(pl.lab);
}
