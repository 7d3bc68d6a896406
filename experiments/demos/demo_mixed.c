/* demo_mixed.c: several materials in one simulation (bg_sim_desc.materials),
 * two scenes in plane strain (a slab a few cells thick between slip side
 * walls), each a table of two entries, sand first:
 *
 *  jelly: a block of taichi_mpm's jelly (bg_mat_elastic.h: E 1e5 Pa, nu
 *    0.3, rho0 1000) dropped from a gap onto a bed of Klar's sand
 *    (Drucker-Prager, rho0 2200) that fills the tank wall to wall. At rest
 *    the floor carries the weight of both, (m_sand + m_jelly) g, and the
 *    block, elastic and whole, rests with its centre half its height above
 *    the bed's top.
 *  dam: taichi_mpm's water (bg_mat_water.h: k 1e5 Pa, gamma 7, rho0 1000)
 *    released against a trapezoidal sand dam on a Coulomb floor: the
 *    reservoir reaches from the left wall up the dam's upstream slope. At
 *    rest the water pushes the dam downstream with the hydrostatic thrust
 *    1/2 rho_w g h^2 per unit width (whatever the face's slope: the
 *    horizontal projection of the pressure), and the dam's horizontal
 *    balance puts that force on the floor's friction under it: the water
 *    itself lays no shear on the floor at rest. The floor's horizontal
 *    force is therefore the thrust on the dam, read through
 *    bg_sim_wall_impulses; the left wall's, the thrust on the water's other
 *    side, is recorded beside it.
 *
 * Every wall plane lies midway between node planes and the material starts
 * on the walls' last solid nodes (bg_wall_edge_offset), where a loaded wall
 * acts. Particles are a lattice of dx/2 (8 per cell) without jitter. The
 * water starts in Tait's hydrostatic J (as exp_dambreak's column); the
 * sand starts unstressed and settles. Forces at rest are impulse
 * differences over the last --window of each run (a contact's force comes
 * in impulses). mixed_judge.c writes the tables and makes the claims. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"
#include "mixed.h"

static const char *const mixed_mutants[] = {"mass-index-swap", "jelly-as-sand",
                                            "rest-height-all", "thrust-full-column",
                                            "dam-slick-floor", NULL};

static void check(bg_sim *sim, bg_status s, const char *what) {
  if (s != BG_OK) bg_lab_fail("%s: %s", what, sim ? bg_sim_last_error(sim) : bg_status_str(s));
}

static bg_lab *parse_options(int argc, char **argv, mx_options *o) {
  *o = (mx_options){.mu_floor = 0.5,
                    .bed_w = 0.4,
                    .bed_h = 0.08,
                    .block = 0.08,
                    .gap = 0.04,
                    .res_w = 0.12,
                    .dam_h = 0.1,
                    .water_h = 0.07,
                    .crest = 0.03,
                    .slope = 2,
                    .apron = 0.05,
                    .window = 0.25,
                    .sample = 0.005};
  /* clang-format off */
  bg_lab_param params[] = {
      {.name = "dx", .type = BG_PARAM_DOUBLE, .dest = &o->dx, .lo = 5e-4, .hi = 0.02, .key = "dx_m",
       .help = "grid spacing, m", .quick = "0.01", .paper = "0.0025"},
      {.name = "slab", .type = BG_PARAM_INT, .dest = &o->slab, .lo = 1, .hi = 64, .key = "slab_cells",
       .help = "plane-strain slab thickness between the slip side walls, cells", .quick = "2", .paper = "4"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &o->mu_floor, .lo = 0.01, .hi = 2,
       .help = "the floor's Coulomb coefficient (it holds the dam)"},
      {.name = "bed-width", .type = BG_PARAM_DOUBLE, .dest = &o->bed_w, .lo = 0.05, .hi = 5,
       .key = "bed_width_m", .help = "jelly scene: sand bed width (wall to wall), m"},
      {.name = "bed-height", .type = BG_PARAM_DOUBLE, .dest = &o->bed_h, .lo = 0.01, .hi = 2,
       .key = "bed_height_m", .help = "jelly scene: sand bed height, m"},
      {.name = "block", .type = BG_PARAM_DOUBLE, .dest = &o->block, .lo = 0.01, .hi = 2,
       .key = "block_m", .help = "jelly scene: the jelly block's width and height, m"},
      {.name = "gap", .type = BG_PARAM_DOUBLE, .dest = &o->gap, .lo = 0, .hi = 2, .key = "gap_m",
       .help = "jelly scene: drop height of the block above the bed, m"},
      {.name = "reservoir", .type = BG_PARAM_DOUBLE, .dest = &o->res_w, .lo = 0.02, .hi = 5,
       .key = "reservoir_m", .help = "dam scene: reservoir floor length, left wall to the dam's upstream toe, m"},
      {.name = "dam-height", .type = BG_PARAM_DOUBLE, .dest = &o->dam_h, .lo = 0.02, .hi = 2,
       .key = "dam_height_m", .help = "dam scene: dam height, m"},
      {.name = "water-height", .type = BG_PARAM_DOUBLE, .dest = &o->water_h, .lo = 0.01, .hi = 2,
       .key = "water_height_m", .help = "dam scene: water depth released, m (below the crest)"},
      {.name = "crest", .type = BG_PARAM_DOUBLE, .dest = &o->crest, .lo = 0.01, .hi = 2,
       .key = "crest_m", .help = "dam scene: crest width, m"},
      {.name = "slope", .type = BG_PARAM_DOUBLE, .dest = &o->slope, .lo = 1.8, .hi = 10,
       .help = "dam scene: both faces' run over rise (2: 26.6 deg, below sand's 30 deg)"},
      {.name = "apron", .type = BG_PARAM_DOUBLE, .dest = &o->apron, .lo = 0.02, .hi = 5,
       .key = "apron_m", .help = "dam scene: free floor between the dam's toe and the right wall, m"},
      {.name = "t-jelly", .type = BG_PARAM_DOUBLE, .dest = &o->t_jelly, .lo = 0.1, .hi = 20,
       .key = "t_jelly_s", .help = "jelly scene: simulated time, s", .quick = "1.0", .paper = "1.5"},
      {.name = "t-dam", .type = BG_PARAM_DOUBLE, .dest = &o->t_dam, .lo = 0.1, .hi = 20,
       .key = "t_dam_s", .help = "dam scene: simulated time, s", .quick = "1.0", .paper = "1.5"},
      {.name = "window", .type = BG_PARAM_DOUBLE, .dest = &o->window, .lo = 0.01, .hi = 10,
       .key = "window_s", .help = "averaging window at the end of each run, s"},
      {.name = "sample", .type = BG_PARAM_DOUBLE, .dest = &o->sample, .lo = 1e-4, .hi = 1,
       .key = "sample_s", .help = "sampling interval of the time series, s"},
  };
  /* clang-format on */
  bg_lab_accept_materials("drucker-prager", "the sand of both scenes (jelly and water are fixed)");
  bg_lab *lab = bg_lab_init(
      "demo_mixed",
      "Several materials in one simulation: a jelly block dropped onto a sand bed (the floor "
      "carries both weights, the block rests whole on the bed) and water released against a "
      "sand dam (the floor's friction carries the hydrostatic thrust), plane strain.",
      argc, argv, params, (int)(sizeof params / sizeof params[0]), mixed_mutants);
  if (o->water_h >= o->dam_h - 2 * o->dx)
    bg_lab_fail("--water-height %g m must stay two cells below --dam-height %g m (no overtopping)",
                o->water_h, o->dam_h);
  if (o->window >= fmin(o->t_jelly, o->t_dam) / 2)
    bg_lab_fail("--window %g s must be below half of --t-jelly and --t-dam", o->window);
  if (o->sample > o->window / 5)
    bg_lab_fail("--sample %g s must be at most a fifth of --window %g s", o->sample, o->window);
  if (o->block >= o->bed_w - 4 * o->dx)
    bg_lab_fail("--block %g m must be narrower than --bed-width %g m less four cells", o->block,
                o->bed_w);
  return lab;
}

/* A tank from x = 0 to length, a slab of o->slab cells in y, the floor at
 * z = 0 and the lid 6 cells above height; walls midway between node planes,
 * the floor Coulomb (mu), the other faces slip. */
static bg_sim *make_tank(bg_lab *lab, const mx_options *o, const bg_material *table, double length,
                         double height, double mu) {
  bg_sim_desc d = bg_sim_desc_default();
  d.materials = table;
  d.n_materials = MX_NMAT;
  d.dx = (bg_real)o->dx;
  d.dims[0] = (size_t)lround(length / o->dx) + 4;
  d.dims[1] = (size_t)o->slab + 4;
  d.dims[2] = (size_t)ceil(height / o->dx) + 10;
  for (int i = 0; i < 3; ++i) d.origin[i] = (bg_real)(-1.5 * o->dx);
  d.walls[BG_FACE_ZLO].friction = mu > 0 ? BG_FRICTION_COULOMB : BG_FRICTION_SLIP;
  d.walls[BG_FACE_ZLO].mu = (bg_real)mu;
  bg_sim *sim = bg_lab_create_sim(lab, &d);
  return sim;
}

/* A region of the x-z plane, by the lattice point's (x, z). */
typedef struct region {
  int kind; /* 0 box; 1 dam; 2 water behind the dam */
  double x0, toe, h, crest, slope, z0;
} region;

static int inside(const double p[3], void *ctx) {
  const region *r = ctx;
  double dz = p[2] - r->z0;
  if (r->kind == 1) /* between the upstream face and the downstream one */
    return p[0] >= r->toe + r->slope * dz && p[0] <= r->toe + r->slope * (2 * r->h - dz) + r->crest;
  if (r->kind == 2) return p[0] < r->toe + r->slope * dz;
  return 1;
}

/* Adds a lattice of spacing dx/2 over [x_lo, x_hi] x slab x [z_lo, z_hi]
 * (kept where the region says) as particles of entry k; returns the count. */
static size_t fill(bg_sim *sim, const mx_options *o, double off, double x_lo, double x_hi,
                   double z_lo, double z_hi, region *r, int k) {
  double sp = 0.5 * o->dx, ly = o->slab * o->dx - 2 * off;
  bg_seed_lattice_desc ld = {.origin = {x_lo, off, z_lo},
                             .spacing = sp,
                             .count = {(size_t)lround((x_hi - x_lo) / sp), (size_t)lround(ly / sp),
                                       (size_t)lround((z_hi - z_lo) / sp)},
                             .inside = r ? inside : NULL,
                             .inside_ctx = r};
  size_t n = 0;
  char err[512];
  if (bg_seed_lattice(&ld, NULL, 0, &n, err, sizeof err) != BG_OK)
    bg_lab_fail("bg_seed_lattice: %s", err);
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x);
  if (bg_seed_lattice(&ld, x, n, &n, err, sizeof err) != BG_OK)
    bg_lab_fail("bg_seed_lattice: %s", err);
  check(sim, bg_sim_add_particles_material(sim, n, x, NULL, 8, k), "bg_sim_add_particles_material");
  free(x);
  return n;
}

/* The loop's state for a checkpoint: the samples and the snapshots. */
typedef struct loop {
  mx_scene *sc;
  size_t cap;
  int snaps;
} loop;

static void loop_pack(void *ctx, bg_lab_blob *b) {
  const loop *l = ctx;
  uint64_t n = l->sc->n_samples, k = (uint64_t)l->snaps;
  bg_lab_blob_put(b, &n, sizeof n);
  bg_lab_blob_put(b, l->sc->s, n * sizeof *l->sc->s);
  bg_lab_blob_put(b, &k, sizeof k);
  bg_lab_blob_put(b, l->sc->snap_t, sizeof l->sc->snap_t);
  bg_lab_blob_put(b, l->sc->snap, (size_t)MX_SNAPS * l->sc->n_snap_p * 3 * sizeof(float));
}

static void push(loop *l, const mx_sample *s) {
  mx_scene *sc = l->sc;
  if (sc->n_samples == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 256;
    sc->s = realloc(sc->s, l->cap * sizeof *sc->s);
    if (!sc->s) bg_lab_fail("out of memory for the samples");
  }
  sc->s[sc->n_samples++] = *s;
}

static void loop_unpack(loop *l, bg_lab_blob *b) {
  uint64_t n, k;
  bg_lab_blob_get(b, &n, sizeof n);
  for (uint64_t i = 0; i < n; ++i) {
    mx_sample s;
    bg_lab_blob_get(b, &s, sizeof s);
    push(l, &s);
  }
  bg_lab_blob_get(b, &k, sizeof k);
  l->snaps = (int)k;
  bg_lab_blob_get(b, l->sc->snap_t, sizeof l->sc->snap_t);
  bg_lab_blob_get(b, l->sc->snap, (size_t)MX_SNAPS * l->sc->n_snap_p * 3 * sizeof(float));
}

/* Particle arrays the measurements read. */
typedef struct fields {
  bg_real *x, *F, *mat, *m;
  unsigned char *layer; /* 1: in the slab's first lattice layer (the snapshots) */
} fields;

static void measure(bg_sim *sim, mx_scene *sc, fields *f, mx_sample *s) {
  size_t n = sc->n_particles, nw = bg_sim_wall_count(sim);
  check(sim, bg_sim_get(sim, BG_FIELD_X, f->x, 3 * n), "bg_sim_get x");
  check(sim, bg_sim_get(sim, BG_FIELD_F, f->F, 9 * n), "bg_sim_get F");
  double *imp = bg_lab_xmalloc(3 * nw * sizeof *imp);
  check(sim, bg_sim_wall_impulses(sim, imp, 3 * nw), "bg_sim_wall_impulses");
  bg_stats st;
  check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
  memset(s, 0, sizeof *s);
  s->t = st.time;
  for (int c = 0; c < 3; ++c) {
    s->I_floor[c] = imp[3 * (nw - 6 + BG_FACE_ZLO) + c];
    s->I_left[c] = imp[3 * (nw - 6 + BG_FACE_XLO) + c];
  }
  free(imp);
  check(sim, bg_sim_get(sim, BG_FIELD_MASS, f->m, n), "bg_sim_get mass");
  double sx = 0, sz = 0, ssx = 0, mz = 0, M = 0;
  size_t no = 0, ns = 0;
  s->J_min = s->z_min = INFINITY;
  s->J_max = s->z_max = -INFINITY;
  for (size_t p = 0; p < n; ++p) {
    mz += f->m[p] * f->x[3 * p + 2];
    M += f->m[p];
    if (p < sc->n_mat[MX_SAND]) { /* the sand was added first: the bodies by insertion order */
      ssx += f->x[3 * p];
      ++ns;
      continue;
    }
    const bg_real *F = f->F + 9 * p;
    double J = (double)F[0] * (F[4] * F[8] - F[5] * F[7]) -
               (double)F[1] * (F[3] * F[8] - F[5] * F[6]) +
               (double)F[2] * (F[3] * F[7] - F[4] * F[6]);
    s->J_min = fmin(s->J_min, J);
    s->J_max = fmax(s->J_max, J);
    s->J_mean += J;
    sx += f->x[3 * p];
    sz += f->x[3 * p + 2];
    s->z_min = fmin(s->z_min, f->x[3 * p + 2]);
    s->z_max = fmax(s->z_max, f->x[3 * p + 2]);
    ++no;
  }
  s->J_mean = no ? s->J_mean / no : NAN;
  s->com_x = no ? sx / no : NAN; /* equal masses within an entry: the mean is the centre */
  s->com_z = no ? sz / no : NAN;
  s->sand_com_x = ns ? ssx / ns : NAN;
  s->all_com_z = mz / M;
}

static void snapshot(mx_scene *sc, const fields *f, int k, double t) {
  size_t q = 0;
  sc->snap_t[k] = t;
  float *out = sc->snap + (size_t)k * sc->n_snap_p * 3;
  for (size_t p = 0; p < sc->n_particles; ++p) {
    if (!f->layer[p]) continue;
    out[3 * q] = (float)f->x[3 * p];
    out[3 * q + 1] = (float)f->x[3 * p + 2];
    out[3 * q++ + 2] = (float)f->mat[p];
  }
}

/* What the run was fed and what its masses read back: rho0 and g through
 * bg_sim_describe, volumes from the particles added (dx^3 / 8 each). */
static void read_fed(bg_sim *sim, mx_scene *sc, fields *f) {
  bg_sim_desc held;
  check(sim, bg_sim_describe(sim, &held), "bg_sim_describe");
  if (held.n_materials != MX_NMAT)
    bg_lab_fail("the simulation holds %zu materials, not 2", held.n_materials);
  sc->g =
      sqrt((double)held.gravity[0] * held.gravity[0] + (double)held.gravity[1] * held.gravity[1] +
           (double)held.gravity[2] * held.gravity[2]);
  size_t n = sc->n_particles;
  bg_real *m = bg_lab_xmalloc(n * sizeof *m);
  check(sim, bg_sim_get(sim, BG_FIELD_MASS, m, n), "bg_sim_get mass");
  check(sim, bg_sim_get(sim, BG_FIELD_MATERIAL, f->mat, n), "bg_sim_get material");
  const double vol = pow((double)held.dx, 3) / 8;
  for (int k = 0; k < MX_NMAT; ++k) {
    sc->rho0[k] = held.materials[k].rho0;
    sc->V_fed[k] = (double)sc->n_mat[k] * vol;
    sc->M_read[k] = sc->M_swap[k] = 0;
  }
  for (size_t p = 0; p < n; ++p) {
    int k = (int)f->mat[p];
    if (k < 0 || k >= MX_NMAT)
      bg_lab_fail("particle %zu reads material %d, outside the table", p, k);
    sc->M_read[k] += m[p];
    sc->M_swap[1 - k] += m[p];
  }
  free(m);
}

/* Runs a scene to t_end, sampling; snapshots at the three times snap_at. */
static void run_scene(bg_lab *lab, const mx_options *o, bg_sim *sim, mx_scene *sc, double t_end,
                      const double snap_at[MX_SNAPS], double off) {
  size_t n = sc->n_particles;
  fields f = {bg_lab_xmalloc(3 * n * sizeof(bg_real)), bg_lab_xmalloc(9 * n * sizeof(bg_real)),
              bg_lab_xmalloc(n * sizeof(bg_real)), bg_lab_xmalloc(n * sizeof(bg_real)), bg_lab_xmalloc(n)};
  read_fed(sim, sc, &f);
  check(sim, bg_sim_get(sim, BG_FIELD_X, f.x, 3 * n), "bg_sim_get x");
  sc->n_snap_p = 0;
  for (size_t p = 0; p < n; ++p) {
    f.layer[p] = f.x[3 * p + 1] < off + 0.5 * o->dx; /* the lattice's first y layer */
    sc->n_snap_p += f.layer[p];
  }
  sc->snap = bg_lab_xmalloc((size_t)MX_SNAPS * sc->n_snap_p * 3 * sizeof(float));
  loop l = {sc, 0, 0};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, sc->name, &state, &finished);
  if (state.len) loop_unpack(&l, &state);
  bg_lab_blob_free(&state);
  mx_sample s;
  if (!sc->n_samples) {
    measure(sim, sc, &f, &s);
    push(&l, &s);
  }
  while (!finished && sc->s[sc->n_samples - 1].t < t_end - 1e-9) {
    double t = fmin(sc->s[sc->n_samples - 1].t + o->sample, t_end);
    check(sim, bg_sim_advance_to(sim, t), "bg_sim_advance_to");
    measure(sim, sc, &f, &s);
    push(&l, &s);
    while (l.snaps < MX_SNAPS && s.t >= snap_at[l.snaps] - 1e-9) snapshot(sc, &f, l.snaps++, s.t);
    bg_stats st;
    check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
    bg_lab_progress_sim(lab, sc->name, st.time, t_end, (double)n * (double)st.step);
    bg_lab_sim_tick(ls, loop_pack, &l);
  }
  bg_lab_sim_end(ls, loop_pack, &l);
  bg_stats st;
  check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
  if (st.n_parked) bg_lab_progress(lab, "%s: %zu particles parked", sc->name, st.n_parked);
  sc->steps = (double)st.step;
  bg_lab_add_work(lab, (double)n * (double)st.step);
  free(f.x);
  free(f.F);
  free(f.mat);
  free(f.m);
  free(f.layer);
}

/* The jelly block dropped onto the sand bed. */
static void jelly_scene(bg_lab *lab, const mx_options *o, mx_scene *sc) {
  const double dx = o->dx, off = bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * dx;
  bg_material table[MX_NMAT] = {bg_lab_material(lab), bg_material_default(BG_MODEL_ELASTIC)};
  const double top = off + o->bed_h + o->gap + o->block;
  bg_sim *sim = make_tank(lab, o, table, o->bed_w, top, o->mu_floor);
  memset(sc, 0, sizeof *sc);
  sc->name = "jelly";
  sc->dx = dx;
  sc->ly = o->slab * dx - 2 * off;
  sc->z_floor = sc->x_left = off;
  sc->n_mat[MX_SAND] = fill(sim, o, off, off, o->bed_w - off, off, off + o->bed_h, NULL, MX_SAND);
  /* the block centred over the bed */
  const double x0 = off + 0.5 * o->bed_w - 0.5 * o->block, z0 = off + o->bed_h + o->gap;
  const int k = bg_lab_mutant_is(lab, "jelly-as-sand") ? MX_SAND : MX_OTHER;
  size_t nb = fill(sim, o, off, x0, x0 + o->block, z0, z0 + o->block, NULL, k);
  sc->n_mat[MX_OTHER] = nb; /* the block's volume, which the claims expect as jelly's */
  sc->n_particles = sc->n_mat[MX_SAND] + nb;
  const double t_hit = sqrt(2 * o->gap / 9.81);
  const double snap_at[MX_SNAPS] = {0, t_hit + 0.01, o->t_jelly};
  run_scene(lab, o, sim, sc, o->t_jelly, snap_at, off);
  bg_sim_destroy(sim);
}

/* The water released against the sand dam, started in Tait's hydrostatic
 * J (p = rho_w g (h - z), J = (1 + p/k)^(-1/gamma)), the sand unstressed. */
static void dam_scene(bg_lab *lab, const mx_options *o, mx_scene *sc) {
  const double dx = o->dx, off = bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * dx;
  bg_material table[MX_NMAT] = {bg_lab_material(lab), bg_material_default(BG_MODEL_WATER)};
  const double toe = off + o->res_w, base = 2 * o->slope * o->dam_h + o->crest;
  const double length = o->res_w + base + o->apron;
  const double mu = bg_lab_mutant_is(lab, "dam-slick-floor") ? 0 : o->mu_floor;
  bg_sim *sim = make_tank(lab, o, table, length, o->dam_h, mu);
  memset(sc, 0, sizeof *sc);
  sc->name = "dam";
  sc->dx = dx;
  sc->ly = o->slab * dx - 2 * off;
  sc->z_floor = sc->x_left = off;
  region dam = {1, off, toe, o->dam_h, o->crest, o->slope, off};
  region water = {2, off, toe, o->dam_h, o->crest, o->slope, off};
  sc->n_mat[MX_SAND] = fill(sim, o, off, toe, toe + base, off, off + o->dam_h, &dam, MX_SAND);
  sc->n_mat[MX_OTHER] =
      fill(sim, o, off, off, toe + o->slope * o->water_h, off, off + o->water_h, &water, MX_OTHER);
  sc->n_particles = sc->n_mat[MX_SAND] + sc->n_mat[MX_OTHER];
  bg_sim_desc held;
  check(sim, bg_sim_describe(sim, &held), "bg_sim_describe");
  const bg_material *w = &held.materials[MX_OTHER];
  const double g = fabs((double)held.gravity[2]), top = off + o->water_h;
  size_t n = sc->n_particles;
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x), *F = bg_lab_xmalloc(9 * n * sizeof *F);
  check(sim, bg_sim_get(sim, BG_FIELD_X, x, 3 * n), "bg_sim_get x");
  for (size_t p = 0; p < n; ++p) {
    double s = 1;
    if (p >= sc->n_mat[MX_SAND]) {
      double pr = w->rho0 * g * (top - x[3 * p + 2]);
      s = cbrt(pow(1 + pr / w->water.bulk_modulus, -1 / (double)w->water.gamma));
    }
    for (int e = 0; e < 9; ++e) F[9 * p + e] = (bg_real)(e % 4 == 0 ? s : 0);
  }
  check(sim, bg_sim_set(sim, BG_FIELD_F, F, 9 * n), "bg_sim_set F");
  free(x);
  free(F);
  const double snap_at[MX_SNAPS] = {0, 0.1, o->t_dam};
  run_scene(lab, o, sim, sc, o->t_dam, snap_at, off);
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  mx_options o;
  bg_lab *lab = parse_options(argc, argv, &o);
  bg_material sand = bg_lab_material(lab);
  bg_lab_manifest_material(lab, &sand);
  bg_lab_manifest_str(lab, "materials", "jelly scene: {sand, jelly}; dam scene: {sand, water}");
  /* run: each scene where a wanted claim needs it */
  static mx_scene jelly, dam;
  int need_jelly = bg_lab_needed(lab, "mixed.mass") ||
                   bg_lab_needed(lab, "mixed.jelly.floor_load") ||
                   bg_lab_needed(lab, "mixed.jelly.rest_height") ||
                   bg_lab_needed(lab, "mixed.jelly.block_height");
  int need_dam = bg_lab_needed(lab, "mixed.mass") || bg_lab_needed(lab, "mixed.dam.thrust");
  if (need_jelly) jelly_scene(lab, &o, &jelly);
  if (need_dam) dam_scene(lab, &o, &dam);
  /* judge */
  mx_judge(lab, &o, need_jelly ? &jelly : NULL, need_dam ? &dam : NULL);
  mx_scene *scs[2] = {&jelly, &dam};
  for (int i = 0; i < 2; ++i) {
    free(scs[i]->s);
    free(scs[i]->snap);
  }
  return bg_lab_finish(lab);
}
