/* dambreak.c: Martin & Moyce's (1952) collapse of a water column, in plane
 * strain, against their surge front; and the same column at rest behind a
 * wall, against the hydrostatic floor load.
 *
 * Scene: taichi_mpm's water (bg_mat_water.h: k 1e5 Pa, gamma 7, rho0 1000,
 * inviscid) in a column a wide and n^2 a high (n^2 = 2: the column their
 * Table 2 tabulates, references/literature/martin_moyce1952.tsv) in the
 * corner of a tank, a slab a few cells thick between frictionless walls (the
 * plane strain of the repose ridge), every wall frictionless. The material's
 * edges start on the walls' last solid nodes (bg_wall_edge_offset), where a
 * loaded wall acts at once, so the wall, the floor and the column's width
 * are where the scene says. Released at rest, no gate.
 *
 * Front: every dT of T = t sqrt(n^2 g / a) (g as the simulation holds it),
 * the toe: the farthest particle of the floor layer (centres within two
 * cells of the floor) plus a quarter cell (half the particle spacing:
 * the material a particle stands for), Z = (x_toe - x_wall) / a.
 *
 * Hydrostatic: the same column between four walls (the tank a wide),
 * started with the hydrostatic volume ratio J(z) of Tait's pressure
 * rho0 g (h - z) in F so that it starts near rest, settled, and the floor's
 * force averaged over a window from the difference of its impulses
 * (bg_sim_wall_impulses).
 *
 * Every grid runs the dam break (cells per a: cells refine^k), the
 * coarsest also the hydrostatic column. dambreak_judge.c compares. */
#include "dambreak.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"

static const char *const mutants[] = {"front-mean", "front-small-column", "g-taichi", NULL};

static void check(bg_sim *sim, bg_status s, const char *what) {
  if (s != BG_OK) bg_lab_fail("%s: %s", what, sim ? bg_sim_last_error(sim) : bg_status_str(s));
}

static bg_lab *parse_options(int argc, char **argv, db_options *o) {
  *o = (db_options){.a = 0.05715,
                    .n2 = 2,
                    .refine = 1.5,
                    .tank = 6,
                    .T_end = 3.4,
                    .dT = 0.05,
                    .slab = 2,
                    .settle = 0.1,
                    .window = 0.1};
  /* clang-format off */
  bg_lab_param params[] = {
      {.name = "a", .type = BG_PARAM_DOUBLE, .dest = &o->a, .lo = 1e-3, .hi = 10, .key = "a_m",
       .help = "column width a, m (Martin & Moyce's 2.25 in)"},
      {.name = "n2", .type = BG_PARAM_DOUBLE, .dest = &o->n2, .lo = 0.25, .hi = 8,
       .help = "column height over width, n^2 (their Table 2: 2)"},
      {.name = "cells", .type = BG_PARAM_INT, .dest = &o->cells, .lo = 4, .hi = 1024,
       .help = "cells per a on the coarsest grid", .quick = "8", .paper = "16"},
      {.name = "grids", .type = BG_PARAM_INT, .dest = &o->grids, .lo = 1, .hi = DB_MAX_GRIDS,
       .help = "number of grids", .quick = "3", .paper = "3"},
      {.name = "refine", .type = BG_PARAM_DOUBLE, .dest = &o->refine, .lo = 1.1, .hi = 4,
       .help = "cells per a grow by this factor from grid to grid", .quick = "1.5", .paper = "2"},
      {.name = "tank", .type = BG_PARAM_DOUBLE, .dest = &o->tank, .lo = 2, .hi = 50,
       .help = "tank length, in a (the far wall must stay clear of the front until T-end)"},
      {.name = "T-end", .type = BG_PARAM_DOUBLE, .dest = &o->T_end, .lo = 0.5, .hi = 20,
       .help = "last time, in T = t sqrt(n^2 g / a)", .key = "T_end"},
      {.name = "dT", .type = BG_PARAM_DOUBLE, .dest = &o->dT, .lo = 1e-3, .hi = 1,
       .help = "front sampling interval in T", .key = "dT"},
      {.name = "slab", .type = BG_PARAM_INT, .dest = &o->slab, .lo = 1, .hi = 64,
       .help = "plane-strain slab thickness between the side walls, cells", .key = "slab_cells"},
      {.name = "settle", .type = BG_PARAM_DOUBLE, .dest = &o->settle, .lo = 0, .hi = 10,
       .help = "hydrostatic column: time before the averaging window, s", .key = "settle_s"},
      {.name = "window", .type = BG_PARAM_DOUBLE, .dest = &o->window, .lo = 1e-3, .hi = 10,
       .help = "hydrostatic column: averaging window of the floor force, s", .key = "window_s"},
  };
  /* clang-format on */
  bg_lab *lab = bg_lab_init(
      "exp_dambreak",
      "Martin & Moyce's water column collapse (surge front) and the hydrostatic floor load, "
      "taichi_mpm's water in plane strain.",
      argc, argv, params, (int)(sizeof params / sizeof params[0]), mutants);
  int mdl = bg_lab_material_model(lab);
  if (mdl != BG_MODEL_DP && mdl != BG_MODEL_WATER)
    bg_lab_fail(
        "--material: the dam break is water's experiment; it takes --material water or none");
  return lab;
}

/* The tank: x from the wall at 0 to length, a slab of o->slab cells in y,
 * the floor at z = 0, the lid at height + 4 cells; every face a slip wall
 * midway between node planes. */
static bg_sim *make_tank(bg_lab *lab, const db_options *o, double dx, double length,
                         double height) {
  bg_sim_desc d = bg_sim_desc_default();
  d.material = bg_material_default(BG_MODEL_WATER);
  d.dx = (bg_real)dx;
  d.dims[0] = (size_t)lround(length / dx) + 4;
  d.dims[1] = (size_t)o->slab + 4;
  d.dims[2] = (size_t)ceil(height / dx) + 8;
  for (int i = 0; i < 3; ++i) d.origin[i] = (bg_real)(-1.5 * dx);
  bg_sim *sim = bg_lab_create_sim(lab, &d);
  return sim;
}

/* The column, a lattice of spacing dx/2 (8 per cell), from the walls'
 * last solid nodes (off, negative) over width w and height h; the lateral
 * extent reaches the far side wall's last solid node. Returns the count. */
static size_t fill_column(bg_sim *sim, const db_options *o, double dx, double off, double w,
                          double h) {
  double sp = 0.5 * dx, ly = o->slab * dx - 2 * off;
  bg_seed_lattice_desc ld = {
      .origin = {off, off, off},
      .spacing = sp,
      .count = {(size_t)lround(w / sp), (size_t)lround(ly / sp), (size_t)lround(h / sp)}};
  size_t cap = ld.count[0] * ld.count[1] * ld.count[2], n = 0;
  bg_real *x = bg_lab_xmalloc(3 * cap * sizeof *x);
  char err[512];
  if (bg_seed_lattice(&ld, x, cap, &n, err, sizeof err) != BG_OK)
    bg_lab_fail("bg_seed_lattice: %s", err);
  check(sim, bg_sim_add_particles(sim, n, x, NULL, 8), "bg_sim_add_particles");
  free(x);
  return n;
}

/* The loop's state for a checkpoint: the samples so far. */
typedef struct front_loop {
  db_front *f;
  size_t cap;
} front_loop;

static void front_push(front_loop *l, double T, double Z, double Zm) {
  db_front *f = l->f;
  if (f->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 128;
    f->T = realloc(f->T, l->cap * sizeof *f->T);
    f->Z = realloc(f->Z, l->cap * sizeof *f->Z);
    f->Zmean = realloc(f->Zmean, l->cap * sizeof *f->Zmean);
    if (!f->T || !f->Z || !f->Zmean) bg_lab_fail("out of memory for the front samples");
  }
  f->T[f->n] = T;
  f->Z[f->n] = Z;
  f->Zmean[f->n++] = Zm;
}

static void front_pack(void *ctx, bg_lab_blob *b) {
  const front_loop *l = ctx;
  uint64_t n = l->f->n;
  bg_lab_blob_put(b, &n, sizeof n);
  bg_lab_blob_put(b, l->f->T, n * sizeof(double));
  bg_lab_blob_put(b, l->f->Z, n * sizeof(double));
  bg_lab_blob_put(b, l->f->Zmean, n * sizeof(double));
}

static void front_unpack(front_loop *l, bg_lab_blob *b) {
  uint64_t n;
  bg_lab_blob_get(b, &n, sizeof n);
  if (n > (b->len - b->pos) / (3 * sizeof(double)))
    bg_lab_fail("dam break: the checkpoint's samples are cut short");
  double *buf = bg_lab_xmalloc(3 * n * sizeof *buf + 1);
  bg_lab_blob_get(b, buf, 3 * n * sizeof *buf);
  for (uint64_t i = 0; i < n; ++i) front_push(l, buf[i], buf[n + i], buf[2 * n + i]);
  free(buf);
}

/* The toe and the floor layer's mean x, from the wall, in a. */
static void measure_front(bg_sim *sim, size_t n, bg_real *x, double dx, double off, double a,
                          double *Z, double *Zm) {
  check(sim, bg_sim_get(sim, BG_FIELD_X, x, 3 * n), "bg_sim_get x");
  double toe = -INFINITY, sum = 0;
  size_t cnt = 0;
  for (size_t p = 0; p < n; ++p) {
    if (x[3 * p + 2] > off + 2 * dx) continue;
    toe = fmax(toe, x[3 * p]);
    sum += x[3 * p];
    ++cnt;
  }
  *Z = (toe + 0.25 * dx - off) / a;
  *Zm = cnt ? (sum / cnt - off) / a : NAN;
}

static double gravity_norm(bg_sim *sim) {
  bg_sim_desc held;
  check(sim, bg_sim_describe(sim, &held), "bg_sim_describe");
  return sqrt((double)held.gravity[0] * held.gravity[0] +
              (double)held.gravity[1] * held.gravity[1] +
              (double)held.gravity[2] * held.gravity[2]);
}

/* The dam break on the grid of `cells` cells per a. */
static void dam_break(bg_lab *lab, const db_options *o, int cells, db_front *f) {
  const double a = o->a, dx = a / cells, h = o->n2 * a;
  const double off = bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * dx;
  memset(f, 0, sizeof *f);
  f->cells = cells;
  f->dx = dx;
  bg_sim *sim = make_tank(lab, o, dx, o->tank * a, h);
  size_t n = fill_column(sim, o, dx, off, a, h);
  f->particles = n;
  const double g = gravity_norm(sim), tscale = sqrt(o->n2 * g / a); /* T = t tscale */
  char tag[64];
  snprintf(tag, sizeof tag, "break %d cells", cells);
  front_loop l = {f, 0};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x);
  if (state.len) front_unpack(&l, &state);
  bg_lab_blob_free(&state);
  if (!f->n) {
    double Z, Zm;
    measure_front(sim, n, x, dx, off, a, &Z, &Zm);
    front_push(&l, 0, Z, Zm);
  }
  bg_stats st;
  while (!finished && f->T[f->n - 1] < o->T_end - 1e-9) {
    double T = fmin(f->T[f->n - 1] + o->dT, o->T_end), Z, Zm;
    check(sim, bg_sim_advance_to(sim, T / tscale), "bg_sim_advance_to");
    measure_front(sim, n, x, dx, off, a, &Z, &Zm);
    front_push(&l, T, Z, Zm);
    check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
    bg_lab_progress_sim(lab, tag, st.time, o->T_end / tscale, (double)n * (double)st.step);
    bg_lab_sim_tick(ls, front_pack, &l);
  }
  bg_lab_sim_end(ls, front_pack, &l);
  check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
  if (st.n_parked) bg_lab_progress(lab, "%s: %zu particles parked", tag, st.n_parked);
  f->steps = (double)st.step;
  bg_lab_add_work(lab, (double)n * (double)st.step);
  bg_lab_progress(lab, "%s: Z %.3f at T %.2f (%zu particles, %llu steps)", tag, f->Z[f->n - 1],
                  f->T[f->n - 1], n, (unsigned long long)st.step);
  free(x);
  bg_sim_destroy(sim);
}

static void hydro_pack(void *ctx, bg_lab_blob *b) { bg_lab_blob_put(b, ctx, sizeof(db_hydro)); }

/* The column at rest between four walls: started in hydrostatic
 * equilibrium, J = (1 + p/k)^(-1/gamma) with p = rho0 g (h_top - z) (the
 * Lagrangian balance: each particle's z is its reference position),
 * settled, then the floor's force over the window. */
static void hydrostatic(bg_lab *lab, const db_options *o, int cells, db_hydro *r) {
  const double a = o->a, dx = a / cells, h = o->n2 * a;
  const double off = bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * dx;
  memset(r, 0, sizeof *r);
  bg_sim *sim = make_tank(lab, o, dx, a, h);
  /* the tank's far wall at x = a: the column reaches its last solid node */
  const double w = a - 2 * off;
  size_t n = fill_column(sim, o, dx, off, w, h);
  bg_sim_desc held;
  check(sim, bg_sim_describe(sim, &held), "bg_sim_describe");
  const double g = gravity_norm(sim), rho0 = held.material.rho0;
  const double k = held.material.water.bulk_modulus, gam = held.material.water.gamma;
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x), *F = bg_lab_xmalloc(9 * n * sizeof *F),
          *m = bg_lab_xmalloc(n * sizeof *m);
  check(sim, bg_sim_get(sim, BG_FIELD_X, x, 3 * n), "bg_sim_get x");
  check(sim, bg_sim_get(sim, BG_FIELD_MASS, m, n), "bg_sim_get mass");
  const double top = off + h;
  double M = 0;
  for (size_t p = 0; p < n; ++p) {
    double pr = rho0 * g * (top - x[3 * p + 2]), J = pow(1 + pr / k, -1 / gam), s = cbrt(J);
    for (int e = 0; e < 9; ++e) F[9 * p + e] = (bg_real)(e % 4 == 0 ? s : 0);
    M += m[p];
  }
  /* the first step's stress follows bg_sim_set's elastic law, whose bulk
   * modulus bg_water_default_material makes k gamma, the water's tangent
   * one: the same to first order in 1 - J (1.6e-3 here) */
  check(sim, bg_sim_set(sim, BG_FIELD_F, F, 9 * n), "bg_sim_set F");
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, "hydrostatic", &state, &finished);
  if (finished && state.len) {
    /* a resumed run whose column had finished: its result, as measured */
    bg_lab_blob_get(&state, r, sizeof *r);
    bg_lab_blob_free(&state);
    bg_lab_sim_end(ls, hydro_pack, r);
    free(x);
    free(F);
    free(m);
    bg_sim_destroy(sim);
    return;
  }
  bg_lab_blob_free(&state);
  size_t nw = bg_sim_wall_count(sim);
  double *imp0 = bg_lab_xmalloc(3 * nw * sizeof *imp0), *imp1 = bg_lab_xmalloc(3 * nw * sizeof *imp1);
  double *fw = bg_lab_xmalloc(3 * nw * sizeof *fw);
  const size_t floor_z = 3 * (nw - 6 + BG_FACE_ZLO) + 2;
  check(sim, bg_sim_advance_to(sim, o->settle), "bg_sim_advance_to");
  check(sim, bg_sim_wall_impulses(sim, imp0, 3 * nw), "bg_sim_wall_impulses");
  bg_stats st;
  check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
  const double t0 = st.time;
  double s1 = 0, s2 = 0;
  size_t ns = 0;
  while (st.time < t0 + o->window - 1e-12) {
    bg_real dt;
    check(sim, bg_sim_step(sim, &dt), "bg_sim_step");
    check(sim, bg_sim_wall_forces(sim, fw, 3 * nw), "bg_sim_wall_forces");
    s1 += fw[floor_z];
    s2 += fw[floor_z] * fw[floor_z];
    ++ns;
    check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
  }
  check(sim, bg_sim_wall_impulses(sim, imp1, 3 * nw), "bg_sim_wall_impulses");
  r->dx = dx;
  r->M = M;
  r->g = g;
  r->rho0 = rho0;
  r->area = w * (o->slab * dx - 2 * off);
  r->h_mean = M / (rho0 * r->area);
  r->h_nominal = h;
  r->p_floor = fabs(imp1[floor_z] - imp0[floor_z]) / (st.time - t0) / r->area;
  r->p_fed = rho0 * g * r->h_mean;
  double mean = s1 / ns;
  r->force_rms_rel = sqrt(fmax(s2 / ns - mean * mean, 0)) / (M * g);
  bg_lab_sim_end(ls, hydro_pack, r);
  bg_lab_add_work(lab, (double)n * (double)st.step);
  bg_lab_progress(lab, "hydrostatic (%d cells per a): floor %.2f Pa against rho0 g h %.2f Pa",
                  cells, r->p_floor, r->p_fed);
  free(x);
  free(F);
  free(m);
  free(imp0);
  free(imp1);
  free(fw);
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  db_options o;
  bg_lab *lab = parse_options(argc, argv, &o);
  bg_material water = bg_material_default(BG_MODEL_WATER);
  bg_lab_manifest_material(lab, &water);
  /* run: the dam break on every grid, the hydrostatic column on the coarsest */
  static db_front f[DB_MAX_GRIDS];
  for (int k = 0; k < o.grids; ++k)
    dam_break(lab, &o, (int)lround(o.cells * pow(o.refine, k)), &f[k]);
  db_hydro h;
  hydrostatic(lab, &o, o.cells, &h);
  /* judge */
  db_judge(lab, &o, f, o.grids, &h);
  for (int k = 0; k < o.grids; ++k) {
    free(f[k].T);
    free(f[k].Z);
    free(f[k].Zmean);
  }
  return bg_lab_finish(lab);
}
