/* snow.c: oedometric (laterally confined, uniaxial-strain) compression of a
 * block of snow (Stomakhin et al. 2013, taichi_mpm's defaults) between two
 * plates, against the model's own law integrated along the same path.
 *
 * No closed form exists for a scene, and no published curve of this model
 * is in references/literature/: the reference is the model's own law,
 * integrated along the homogeneous path the scene imposes (a 0-D element
 * through the library's update, bg_material_update, as the probe drives
 * it). What the claims test is therefore the solver, not the model: that
 * the grid, the transfers, the moving plate and the wall-force read-out
 * reproduce the element's stress-strain curve when the scene's deformation
 * is the element's, and that compaction hardens the scene as
 * exp(xi (1 - Jp)).
 *
 * The scene: a W x W x H0 block fills the cross-section between the four
 * lateral domain faces (slip) on the -z face (slip); a slip box collider,
 * the top plate, moves down at constant speed v. Gravity is off, so the
 * path is homogeneous: F = diag(1, 1, s), s = 1 - v t / H0
 * (references/derivations/snow.md sec. 5). Every face and the plate carry
 * the load at their last solid node, where the block's edges start
 * (bg_wall_edge_offset), so H0 is the distance between the floor's and the
 * plate's last solid nodes. The stress is the plate's force over W^2, from
 * the wall impulses over each sample's window (bg_sim_wall_impulses: a
 * contact's force comes in impulses); the floor's is reported beside it.
 * The block starts in the velocity field of the homogeneous compression,
 * so the plate's start sends no wave (started at rest, the block rings
 * between plate and floor with amplitude rho0 c0 v, 10% of the yield
 * stress at 5 cm/s, and period 2 H0 / c0); what ringing the yield itself
 * starts, windows of whole periods average out, so the loading lasts a
 * whole number of windows, as close to the asked strain as that allows. */
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"
#include "bg_materials.h"

typedef struct snow_run {
  int cells, width_cells, ppc_side;
  double speed, strain, window_periods;
  int samples; /* windows over the loading, from the strain and the window */
  bg_lab *lab;
} snow_run;

/* One sample of the scene, a window of plate travel: its mid time; the
 * plate's and the floor's stress over it (compression > 0, Pa); at its end
 * the particles' mean total volume ratio det(F_E) Jp, the volume-weighted
 * mean Cauchy stress (compression > 0, Pa), the gauge's stretch s and the
 * gauge particles' mean Jp; and the gauge's s and Jp at mid-window (the
 * mean of the window's two ends). */
enum { R_T, R_SIG_PLATE, R_SIG_FLOOR, R_J, R_SIG_PART, R_S_END, R_JP_END, R_S, R_JP, R_NCOL };

/* The gauge, an extensometer on the block's bulk: two groups of particles
 * by reference height, [0.2, 0.4] H0 and [0.6, 0.8] H0, away from the
 * walls' first cells; their mean heights' distance over its reference
 * value is the bulk's stretch s (the floor does not move, the lateral
 * faces hold x and y). */
typedef struct gauge {
  unsigned char *group; /* per particle: 0 none, 1 lower, 2 upper */
  double ref;           /* reference distance of the two groups' mean heights, m */
} gauge;

static bg_lab *snow_init(int argc, char **argv, snow_run *r) {
  /* clang-format off */
  bg_lab_param params[] = {
      {.name = "cells", .type = BG_PARAM_INT, .dest = &r->cells, .lo = 4, .hi = 1024,
       .help = "cells over the block's height H0 = 5 cm", .quick = "16", .paper = "64"},
      {.name = "width-cells", .type = BG_PARAM_INT, .dest = &r->width_cells, .lo = 2, .hi = 1024,
       .help = "cells across the block (its width W; lateral faces are slip, so W only averages)",
       .quick = "4", .paper = "16"},
      {.name = "speed", .type = BG_PARAM_DOUBLE, .dest = &r->speed, .lo = 1e-4, .hi = 10,
       .help = "plate speed v, m/s", .quick = "0.05", .paper = "0.05", .key = "speed_m_s"},
      {.name = "strain", .type = BG_PARAM_DOUBLE, .dest = &r->strain, .lo = 0.01, .hi = 0.4,
       .help = "final nominal strain v t / H0 (Jp must stay above jp_min: 0.6 at the default)",
       .quick = "0.25", .paper = "0.25"},
      {.name = "ppc-side", .type = BG_PARAM_INT, .dest = &r->ppc_side, .lo = 1, .hi = 4,
       .help = "particles per cell along each axis", .quick = "2", .paper = "2"},
      {.name = "window-periods", .type = BG_PARAM_DOUBLE, .dest = &r->window_periods, .lo = 0.25, .hi = 100,
       .help = "a force sample's window, in periods 2 H0 / c0 of the block's elastic ringing",
       .quick = "1", .paper = "1"},
  };
  /* clang-format on */
  static const char *const mutants[] = {"snow-hardening-0", "plate-speed-doubled", NULL};
  bg_lab *lab = bg_lab_init("exp_snow",
                            "Oedometric compression of a snow block between plates against the model's own "
                            "law integrated along the same path.",
                            argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
  int model = bg_lab_material_model(lab);
  if (model != BG_MODEL_DP && model != BG_MODEL_SNOW)
    bg_lab_fail("--material: this experiment validates the snow model; it takes only --material snow");
  r->lab = lab;
  return lab;
}

static gauge gauge_make(const bg_real *x, size_t n, double H0) {
  gauge g = {bg_lab_xmalloc(n), 0};
  double z[3] = {0, 0, 0}, c[3] = {0, 0, 0};
  for (size_t p = 0; p < n; ++p) {
    double zr = x[3 * p + 2] / H0;
    g.group[p] = zr >= 0.2 && zr <= 0.4 ? 1 : zr >= 0.6 && zr <= 0.8 ? 2 : 0;
    z[g.group[p]] += x[3 * p + 2];
    c[g.group[p]] += 1;
  }
  if (c[1] < 1 || c[2] < 1) bg_lab_fail("the gauge needs particles in both groups: raise --cells");
  g.ref = z[2] / c[2] - z[1] / c[1];
  return g;
}

/* The scene (see the file's comment); returns the simulation and the
 * gauge on its particles. */
static bg_sim *snow_scene(snow_run *r, double H0, double dx, double W, size_t *n_out, gauge *gauge_out) {
  bg_lab *lab = r->lab;
  const size_t nw = (size_t)r->width_cells, nh = (size_t)r->cells;
  bg_sim_desc d = bg_sim_desc_default();
  /* node i at -dx + i dx: node 1 (x, y, z = 0) is the -face's last solid
   * node, node nw + 1 (x = W) the +face's */
  d.dims[0] = d.dims[1] = nw + 3;
  d.dims[2] = nh + 8; /* room above the plate's last solid node */
  d.dx = (bg_real)dx;
  for (int a = 0; a < 3; ++a) d.origin[a] = (bg_real)-dx;
  for (int a = 0; a < 3; ++a) d.gravity[a] = 0;
  d.material = bg_material_default(BG_MODEL_SNOW);
  /* the scene runs without hardening while the lab still expects it */
  if (bg_lab_mutant_is(lab, "snow-hardening-0")) d.material.snow.hardening = 0;
  d.backend = bg_lab_backend(lab);
  d.threads = bg_lab_threads(lab);
  for (int f = 0; f < BG_FACE_COUNT; ++f) d.walls[f].friction = BG_FRICTION_SLIP;
  /* the plate: its plane half a cell below the node at z = H0, so that
   * node is its last solid node, where the block's top starts */
  bg_collider plate;
  memset(&plate, 0, sizeof plate);
  plate.shape = BG_SHAPE_BOX;
  for (int a = 0; a < 2; ++a) {
    plate.lo[a] = (bg_real)(-10 * dx);
    plate.hi[a] = (bg_real)(W + 10 * dx);
  }
  plate.lo[2] = (bg_real)(H0 + bg_wall_edge_offset(BG_FRICTION_SLIP, 0.5) * dx);
  plate.hi[2] = (bg_real)(H0 + 20 * dx);
  plate.friction = BG_FRICTION_SLIP;
  plate.velocity[2] = (bg_real)-r->speed;
  d.colliders = &plate;
  d.n_colliders = 1;
  char err[512];
  bg_sim *sim = NULL;
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) bg_lab_fail("bg_sim_create: %s", err);
  bg_lab_manifest_material(lab, &d.material);
  /* particles: a regular lattice filling the block, ppc_side^3 per cell */
  const int side = r->ppc_side;
  bg_seed_lattice_desc sd;
  memset(&sd, 0, sizeof sd);
  sd.spacing = dx / side;
  sd.count[0] = sd.count[1] = nw * (size_t)side;
  sd.count[2] = nh * (size_t)side;
  size_t n = 0;
  bg_lab_check(bg_seed_lattice(&sd, NULL, 0, &n, err, sizeof err), NULL, "counting the lattice");
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x);
  if (bg_seed_lattice(&sd, x, n, &n, err, sizeof err) != BG_OK) bg_lab_fail("seeding: %s", err);
  /* the block starts in the homogeneous compression's own velocity field,
   * v_z = -v z / H0, so the plate's start sends no wave through it */
  bg_real *vel = bg_lab_xmalloc(3 * n * sizeof *vel);
  for (size_t p = 0; p < n; ++p) {
    vel[3 * p] = vel[3 * p + 1] = 0;
    vel[3 * p + 2] = (bg_real)(-r->speed * x[3 * p + 2] / H0);
  }
  bg_lab_check(bg_sim_add_particles(sim, n, x, vel, (bg_real)(side * side * side)), sim, "adding particles");
  free(vel);
  *gauge_out = gauge_make(x, n, H0);
  free(x);
  *n_out = n;
  return sim;
}


/* The particles' read-out at a window's end into row: mean det(F_E) Jp
 * (rho0 / rho, the library's density read-out; the particles carry equal
 * V0), the mean of -sigma_zz weighted by the current volume V0 det(F_E) Jp,
 * the gauge's stretch and its particles' mean Jp. buf holds 9 n values. */
static void particle_read(bg_sim *sim, size_t n, double rho0, const gauge *g, bg_real *buf, double *rho,
                          double *row) {
  bg_lab_check(bg_sim_get(sim, BG_FIELD_DENSITY, buf, n), sim, "reading densities");
  double sj = 0, ss = 0, z[3] = {0, 0, 0}, c[3] = {0, 0, 0}, jp = 0;
  for (size_t p = 0; p < n; ++p) rho[p] = buf[p];
  for (size_t p = 0; p < n; ++p) sj += rho0 / rho[p];
  bg_lab_check(bg_sim_get(sim, BG_FIELD_STRESS, buf, 9 * n), sim, "reading stresses");
  for (size_t p = 0; p < n; ++p) ss += -(double)buf[9 * p + 8] * rho0 / rho[p];
  bg_lab_check(bg_sim_get(sim, BG_FIELD_X, buf, 3 * n), sim, "reading positions");
  for (size_t p = 0; p < n; ++p) {
    z[g->group[p]] += buf[3 * p + 2];
    c[g->group[p]] += 1;
  }
  bg_lab_check(bg_sim_get(sim, BG_FIELD_JP, buf, n), sim, "reading Jp");
  for (size_t p = 0; p < n; ++p)
    if (g->group[p]) jp += buf[p];
  row[R_J] = sj / (double)n;
  row[R_SIG_PART] = ss / sj;
  row[R_S_END] = (z[2] / c[2] - z[1] / c[1]) / g->ref;
  row[R_JP_END] = jp / (c[1] + c[2]);
}

/* The loading loop's state between windows, for a checkpoint: the
 * samples done and their rows (the wall impulses are part of the
 * simulation's own checkpoint, so a resumed window starts from them). */
typedef struct load_loop {
  int32_t done;
  int samples;
  double *rows;
} load_loop;

static void load_pack(void *ctx, bg_lab_blob *b) {
  const load_loop *l = ctx;
  bg_lab_blob_put(b, &l->done, sizeof l->done);
  bg_lab_blob_put(b, l->rows, (size_t)R_NCOL * (size_t)l->done * sizeof *l->rows);
}

static void load_unpack(load_loop *l, bg_lab_blob *b) {
  bg_lab_blob_get(b, &l->done, sizeof l->done);
  if (l->done < 0 || l->done > l->samples) bg_lab_fail("compression: the checkpoint holds another loading");
  bg_lab_blob_get(b, l->rows, (size_t)R_NCOL * (size_t)l->done * sizeof *l->rows);
}

/* The loading: samples windows of equal plate travel; rows gets R_NCOL
 * values per sample. */
static void snow_load(snow_run *r, bg_sim *sim, size_t n, const gauge *g, double t_end, double area, double rho0,
                      double *rows) {
  bg_lab *lab = r->lab;
  size_t nw = bg_sim_wall_count(sim);
  double *imp0 = bg_lab_xmalloc(3 * nw * sizeof *imp0), *imp1 = bg_lab_xmalloc(3 * nw * sizeof *imp1);
  bg_real *buf = bg_lab_xmalloc(9 * n * sizeof *buf);
  double *rho = bg_lab_xmalloc(n * sizeof *rho);
  const size_t floor_wall = 1 + BG_FACE_ZLO; /* after the one collider */
  load_loop l = {0, r->samples, rows};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, "compression", &state, &finished);
  if (state.len) load_unpack(&l, &state);
  bg_lab_blob_free(&state);
  bg_lab_check(bg_sim_wall_impulses(sim, imp0, 3 * nw), sim, "wall impulses");
  while (!finished && l.done < r->samples) {
    int k = l.done;
    double t0 = t_end * k / r->samples, t1 = t_end * (k + 1) / r->samples;
    bg_lab_check(bg_sim_advance_to(sim, t1), sim, "stepping");
    bg_lab_check(bg_sim_wall_impulses(sim, imp1, 3 * nw), sim, "wall impulses");
    double *row = rows + (size_t)R_NCOL * k;
    row[R_T] = 0.5 * (t0 + t1);
    /* the material pushes the plate up and the floor down */
    row[R_SIG_PLATE] = (imp1[2] - imp0[2]) / (t1 - t0) / area;
    row[R_SIG_FLOOR] = -(imp1[3 * floor_wall + 2] - imp0[3 * floor_wall + 2]) / (t1 - t0) / area;
    particle_read(sim, n, rho0, g, buf, rho, row);
    /* the window's start: the previous window's end, or the reference */
    double s0 = k ? row[R_S_END - R_NCOL] : 1.0, jp0 = k ? row[R_JP_END - R_NCOL] : 1.0;
    row[R_S] = 0.5 * (s0 + row[R_S_END]);
    row[R_JP] = 0.5 * (jp0 + row[R_JP_END]);
    memcpy(imp0, imp1, 3 * nw * sizeof *imp0);
    bg_stats st;
    bg_lab_check(bg_sim_stats(sim, &st), sim, "stats");
    bg_lab_progress_sim(lab, "compression", st.time, t_end, (double)n * (double)st.step);
    l.done = k + 1;
    bg_lab_sim_tick(ls, load_pack, &l);
  }
  bg_lab_sim_end(ls, load_pack, &l);
  bg_stats st;
  bg_lab_check(bg_sim_stats(sim, &st), sim, "stats");
  bg_lab_add_work(lab, (double)n * (double)st.step);
  bg_lab_manifest_num(lab, "steps", (double)st.step);
  bg_lab_manifest_num(lab, "dt_last_s", st.dt);
  free(imp0);
  free(imp1);
  free(buf);
  free(rho);
}

/* The model's law along the path, as a table: one element through the
 * library's update (bg_material_update, the oracle every backend runs),
 * F = diag(1, 1, s) stepped from s = 1 down to s_min by ds, with the
 * velocity gradient the step implies; at each s its Cauchy sigma_zz
 * (compression > 0) = -tau_zz / s and its Jp. */
typedef struct law_table {
  double s_min, ds;
  int n;
  double *sig, *jp;
} law_table;

static law_table law_make(const bg_material *mat, double s_min, double ds) {
  bg_mat m;
  char err[512];
  if (bg_material_params(mat, &m, err, sizeof err) != BG_OK) bg_lab_fail("law: %s", err);
  law_table L = {s_min, ds, (int)ceil((1 - s_min) / ds) + 1, NULL, NULL};
  L.sig = bg_lab_xmalloc((size_t)L.n * sizeof *L.sig);
  L.jp = bg_lab_xmalloc((size_t)L.n * sizeof *L.jp);
  bg_mat3 F = bg_mat3_identity(), tau = bg_mat3_zero(), C = bg_mat3_zero();
  bg_real st[BG_NSTATE] = {0, 0, 0, 0};
  /* a unit time per step: C is the step's strain rate */
  bg_update_ctx u = {&F, &C, 1.0f, st, &tau};
  L.sig[0] = 0;
  L.jp[0] = 1;
  for (int j = 1; j < L.n; ++j) {
    double s0 = 1 - (j - 1) * ds, s1 = 1 - j * ds;
    C.m[2][2] = (bg_real)(s1 / s0 - 1);
    F.m[2][2] = (bg_real)(s1 / s0 * F.m[2][2]);
    bg_material_update(&m, &u);
    L.sig[j] = -(double)tau.m[2][2] / s1;
    L.jp[j] = exp((double)st[BG_STATE_LOG_JP]);
  }
  return L;
}

/* The table at stretch s, linear between its rows (NaN outside). */
static double law_at(const law_table *L, const double *col, double s) {
  double x = (1 - s) / L->ds;
  int j = (int)floor(x);
  if (!(j >= 0 && j + 1 < L->n)) return NAN;
  return col[j] + (x - j) * (col[j + 1] - col[j]);
}

static void law_free(law_table *L) {
  free(L->sig);
  free(L->jp);
}

/* The curve's misfit: max over the samples of |sigma_plate - sigma_law(s)|
 * over max(sigma_law, sigma_y) (relative past the elastic limit, in units
 * of the yield stress before it), s the gauge's stretch. */
static double curve_misfit(const double *rows, const law_table *L, int samples, double sig_y, double *rel) {
  double worst = 0;
  for (int k = 0; k < samples; ++k) {
    const double *row = rows + (size_t)R_NCOL * k;
    double sl = law_at(L, L->sig, row[R_S]);
    double d = fabs(row[R_SIG_PLATE] - sl) / fmax(sl, sig_y);
    if (rel) rel[k] = d;
    worst = (isnan(d) || d > worst) ? d : worst;
  }
  return worst;
}

/* The plate against the gauge: max over the samples of |s_gauge - s_plate|
 * in cells of the block's height, s_plate = 1 - v t / H0 the stretch the
 * plate's travel implies (v as read). */
static double plate_lag_cells(const double *rows, int samples, double v, double H0, double cells) {
  double worst = 0;
  for (int k = 0; k < samples; ++k) {
    const double *row = rows + (size_t)R_NCOL * k;
    double d = fabs(row[R_S] - (1 - v * row[R_T] / H0)) * cells;
    worst = (isnan(d) || d > worst) ? d : worst;
  }
  return worst;
}

/* The hardening rate the scene shows: the slope of log tau_zz = log(sigma
 * s) against the gauge particles' mean Jp over the samples past the
 * elastic limit (Jp < 0.99), which the law makes -xi while F_E stays on
 * the clamp (snow.md sec. 5); returns -slope, NaN with fewer than 5
 * samples. */
static double hardening_rate(const double *rows, int samples) {
  double *x = bg_lab_xmalloc((size_t)samples * sizeof *x), *y = bg_lab_xmalloc((size_t)samples * sizeof *y);
  size_t m = 0;
  for (int k = 0; k < samples; ++k) {
    const double *row = rows + (size_t)R_NCOL * k;
    if (row[R_JP] < 0.99 && row[R_SIG_PLATE] > 0) {
      x[m] = row[R_JP];
      y[m] = log(row[R_SIG_PLATE] * row[R_S]);
      m++;
    }
  }
  double xi = NAN, c0, c1, cov00, cov01, cov11, ss;
  if (m >= 5 && gsl_fit_linear(x, 1, y, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &ss) == 0) xi = -c1;
  free(x);
  free(y);
  return xi;
}

/* What the run compares with, from what the scene was fed (read back
 * through bg_sim_describe): the material the law runs, the plate's speed,
 * the windows, the elastic limit. */
typedef struct snow_plan {
  bg_material expect;
  double H0, W, v, rho0, sig_y, window, t_end;
} snow_plan;

static snow_plan snow_read_back(snow_run *r, bg_sim *sim, double H0, double W, size_t n) {
  bg_lab *lab = r->lab;
  snow_plan pl;
  bg_sim_desc fed;
  bg_lab_check(bg_sim_describe(sim, &fed), sim, "describing the simulation");
  pl.expect = fed.material;
  /* the lab expects the hardening it meant to feed, not the mutant's 0 */
  if (bg_lab_mutant_is(lab, "snow-hardening-0"))
    pl.expect.snow.hardening = bg_material_default(BG_MODEL_SNOW).snow.hardening;
  pl.H0 = H0;
  pl.W = W;
  pl.v = -fed.colliders[0].velocity[2];
  pl.rho0 = fed.material.rho0;
  const double nu = pl.expect.nu, E = pl.expect.E;
  const double mu0 = E / (2 * (1 + nu)), la0 = E * nu / ((1 + nu) * (1 - 2 * nu));
  /* whole windows of the unhardened block's ringing period */
  const double period = 2 * H0 / sqrt((la0 + 2 * mu0) / pl.rho0);
  pl.window = r->window_periods * period;
  r->samples = (int)lround(r->strain * H0 / pl.v / pl.window);
  if (r->samples < 10)
    bg_lab_fail("--strain %g at --speed %g m/s lasts %.3g windows of %.3g s; at least 10 are needed (lower the speed)",
                r->strain, pl.v, r->strain * H0 / pl.v / pl.window, pl.window);
  pl.t_end = r->samples * pl.window;
  /* the law's stress at the elastic limit, F_E = diag(1, 1, 1 - theta_c) */
  pl.sig_y = (la0 + 2 * mu0) * pl.expect.snow.theta_c;
  bg_real dt0 = 0, bound = 0;
  bg_lab_check(bg_sim_next_dt(sim, &dt0, &bound), sim, "timestep");
  bg_lab_manifest_num(lab, "H0_m", H0);
  bg_lab_manifest_num(lab, "dx_m", H0 / r->cells);
  bg_lab_manifest_num(lab, "width_m", W);
  bg_lab_manifest_num(lab, "particles", (double)n);
  bg_lab_manifest_num(lab, "t_end_s", pl.t_end);
  bg_lab_manifest_num(lab, "window_s", pl.window);
  bg_lab_manifest_num(lab, "windows", r->samples);
  bg_lab_manifest_num(lab, "final_strain_plate", pl.v * pl.t_end / H0);
  bg_lab_manifest_num(lab, "dt_initial_s", dt0);
  bg_lab_manifest_num(lab, "sigma_yield_Pa", pl.sig_y);
  bg_lab_manifest_num(lab, "pwave_bound_m_s", bg_material_pwave_speed(&fed.material));
  bg_lab_progress(lab, "%zu particles, grid %zux%zux%zu, dx %.4g m, plate %.4g m/s for %.4g s, dt %.3g s", n,
                  fed.dims[0], fed.dims[1], fed.dims[2], H0 / r->cells, pl.v, pl.t_end, (double)dt0);
  return pl;
}

/* The law along the path, curve.tsv, and the claims. */
static void snow_judge(const snow_run *r, const snow_plan *pl, const double *rows) {
  bg_lab *lab = r->lab;
  const double v = pl->v, H0 = pl->H0;
  /* the law past the scene's and the plate's deepest stretch (and the
   * plate-speed mutant's, 1 - 2 strain) */
  law_table L = law_make(&pl->expect, fmax(1 - 2 * v * pl->t_end / H0 - 0.02, 0.05), 1e-5);
  double *rel = bg_lab_xmalloc((size_t)r->samples * sizeof *rel);
  double misfit = curve_misfit(rows, &L, r->samples, pl->sig_y, rel);
  FILE *f = bg_lab_tsv(lab, "curve.tsv",
                       "oedometric compression of snow: the plate's and the floor's stress (windowed wall "
                       "impulses over W^2), the gauge's stretch s and Jp, and the model's law at s",
                       "t_s\tstrain_plate\tstrain_gauge\tsigma_plate_Pa\tsigma_floor_Pa\tsigma_particles_Pa\t"
                       "sigma_law_Pa\tsigma_law_plate_strain_Pa\tJ_mean\tJp_gauge\tJp_law\trel_diff");
  for (int k = 0; k < r->samples; ++k) {
    const double *row = rows + (size_t)R_NCOL * k;
    double sp = 1 - v * row[R_T] / H0;
    fprintf(f, "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4g\n", row[R_T], 1 - sp,
            1 - row[R_S], row[R_SIG_PLATE], row[R_SIG_FLOOR], row[R_SIG_PART], law_at(&L, L.sig, row[R_S]),
            law_at(&L, L.sig, sp), row[R_J], row[R_JP], law_at(&L, L.jp, row[R_S]), rel[k]);
  }
  fclose(f);
  bg_lab_claim(lab, "snow.curve", misfit);
  bg_lab_claim_fed(lab, "snow.hardening", hardening_rate(rows, r->samples), pl->expect.snow.hardening);
  bg_lab_claim(lab, "snow.plate_strain", plate_lag_cells(rows, r->samples, v, H0, r->cells));
  /* the plate's speed read as twice what the scene was fed */
  bg_lab_claim_mutant(lab, "plate-speed-doubled", "snow.plate_strain",
                      plate_lag_cells(rows, r->samples, 2 * v, H0, r->cells));
  law_free(&L);
  free(rel);
}

int main(int argc, char **argv) {
  static snow_run r;
  bg_lab *lab = snow_init(argc, argv, &r);
  /* scene: H0 = 5 cm between the floor's and the plate's last solid nodes */
  const double H0 = 0.05, dx = H0 / r.cells, W = r.width_cells * dx;
  size_t n = 0;
  gauge g;
  bg_sim *sim = snow_scene(&r, H0, dx, W, &n, &g);
  snow_plan pl = snow_read_back(&r, sim, H0, W, n);
  /* run */
  double *rows = bg_lab_xmalloc((size_t)R_NCOL * (size_t)r.samples * sizeof *rows);
  snow_load(&r, sim, n, &g, pl.t_end, W * W, pl.rho0, rows);
  bg_sim_destroy(sim);
  free(g.group);
  /* read out and judge */
  snow_judge(&r, &pl, rows);
  free(rows);
  return bg_lab_finish(lab);
}
