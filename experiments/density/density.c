/* density.c: a block of Klar's sand dropped onto a rough floor, left to
 * settle, and its density read out three ways.
 *
 * Particle state: rho = the library's read-out BG_FIELD_DENSITY per
 * particle, which every density claim judges; density.readout holds it to
 * its closed form rho0 / (det F_E * Jp) (the seed's read-out) of the
 * fields F and Jp, rho0 as the simulation holds it; and rho0 / det F_E
 * alone for comparison. With the volume correction the
 * return map keeps log Jp = 0 for every particle that carries load (the
 * stored dilation is folded back into F_E before the elastic/shear return)
 * and projects unloaded particles to the cone's tip with F_E = rotation,
 * det F_E = 1: so rho0 / det F_E never reads below rho0, and only Jp records
 * where the sand was pulled apart.
 *
 * Independent grid estimate: after the last P2G the node mass m_i is the
 * B-spline-weighted particle mass around node i, so m_i / dx^3 is the local
 * mass density wherever the node's whole support (+-1.5 dx) lies inside the
 * sand. Nodes near the surface carry partial mass, so counting every node
 * with mass as "occupied volume" underestimates the density. A node is
 * interior here when every node within +-3 along each axis (7^3 cube) has
 * mass: in 1D a node at distance s from a flat surface has mass iff
 * s > -1.5 dx, so the +-3 rule admits exactly the nodes with s >= 1.5 dx,
 * whose support is full. The bulk grid density is sum(m_i) / (N dx^3) over
 * interior nodes; the particle estimate of the same bulk is
 * sum(m_p) / sum(m_p / rho_p) over particles whose nearest node is
 * interior (V0 det F_E Jp = m_p / rho_p, the library's read-out). Their
 * relative difference is claim density.grid_vs_particles.
 *
 * Compaction: per particle c = rho/rho0 - 1, and per grid cell the
 * continuum's -ln det F_E averaged by volume over the particles nearest a
 * node. The floor layer (particles whose stencil reaches a solid floor node)
 * is reported apart from the bulk (references/derivations/density.md).
 *
 * At rest: kinetic energy below --rest-ke times M g H (H the block's
 * initial height), checked every series row after the block first touched
 * the floor; the run stops there, or at --time. Rest is a precondition: off
 * rest every claim is judged on NaN. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"
#include "density.h"

/* The drop loop's state between rows, for a checkpoint: the series rows
 * so far, the last kinetic energy, whether it came to rest, and the next
 * progress mark. */
typedef struct drop_loop {
  double *rows; /* 8 per row */
  size_t n_rows, cap_rows;
  double ke, next_progress;
  int at_rest;
  /* the grid's node mass after the last step: read after the loop, and not
   * part of a simulation's checkpoint (the next step rebuilds it), so the
   * final checkpoint carries it for a resumed run that skips the loop */
  bg_sim *sim;
  size_t n_grid;
  bg_real *grid; /* restored from a final checkpoint, else NULL */
} drop_loop;

#define DROP_STATE_MAGIC 0x64726f31u /* "dro1": the layout below */

static void drop_pack(void *ctx, bg_lab_blob *b) {
  const drop_loop *d = ctx;
  uint32_t magic = DROP_STATE_MAGIC;
  int32_t at_rest = d->at_rest;
  uint64_t nr = d->n_rows;
  bg_lab_blob_put(b, &magic, sizeof magic);
  bg_lab_blob_put(b, &at_rest, sizeof at_rest);
  bg_lab_blob_put(b, &nr, sizeof nr);
  bg_lab_blob_put(b, &d->ke, sizeof d->ke);
  bg_lab_blob_put(b, &d->next_progress, sizeof d->next_progress);
  bg_lab_blob_put(b, d->rows, 8 * d->n_rows * sizeof *d->rows);
}

static void drop_pack_final(void *ctx, bg_lab_blob *b) {
  drop_loop *d = ctx;
  drop_pack(ctx, b);
  uint64_t ng = d->n_grid;
  bg_real *gm = density_xmalloc(ng * sizeof *gm);
  density_check(bg_sim_grid_mass(d->sim, gm, ng), d->sim, "reading grid mass");
  bg_lab_blob_put(b, &ng, sizeof ng);
  bg_lab_blob_put(b, gm, ng * sizeof *gm);
  free(gm);
}

static void drop_push(drop_loop *d, const double row[8]) {
  if (d->n_rows == d->cap_rows) {
    d->cap_rows = d->cap_rows ? 2 * d->cap_rows : 256;
    d->rows = realloc(d->rows, 8 * d->cap_rows * sizeof *d->rows);
    if (!d->rows) bg_lab_fail("out of memory for the series rows");
  }
  memcpy(d->rows + 8 * d->n_rows++, row, 8 * sizeof *row);
}

static void drop_unpack(drop_loop *d, bg_lab_blob *b) {
  uint32_t magic;
  int32_t at_rest;
  uint64_t nr;
  bg_lab_blob_get(b, &magic, sizeof magic);
  if (magic != DROP_STATE_MAGIC) bg_lab_fail("drop: the checkpoint holds another loop's state");
  bg_lab_blob_get(b, &at_rest, sizeof at_rest);
  bg_lab_blob_get(b, &nr, sizeof nr);
  bg_lab_blob_get(b, &d->ke, sizeof d->ke);
  bg_lab_blob_get(b, &d->next_progress, sizeof d->next_progress);
  if (nr > (b->len - b->pos) / (8 * sizeof(double))) bg_lab_fail("drop: the checkpoint's series is cut short");
  d->at_rest = at_rest;
  for (uint64_t i = 0; i < nr; ++i) {
    double row[8];
    bg_lab_blob_get(b, row, sizeof row);
    drop_push(d, row);
  }
  if (b->pos == b->len) return; /* a checkpoint of the loop under way: no grid */
  uint64_t ng;
  bg_lab_blob_get(b, &ng, sizeof ng);
  if (ng != d->n_grid) bg_lab_fail("drop: the checkpoint's grid has %llu nodes, this scene's %zu",
                                   (unsigned long long)ng, d->n_grid);
  d->grid = density_xmalloc(ng * sizeof *d->grid);
  bg_lab_blob_get(b, d->grid, ng * sizeof *d->grid);
}

/* The options no range can check, by bg_lab_init before the run folder is
 * touched: ppc a cube, the block whole cells of at least 4 a side. */
static void density_check_options(void *ctx) {
  const density_run *r = ctx;
  int side = (int)lround(cbrt((double)r->ppc));
  if (side * side * side != r->ppc) bg_lab_fail("--ppc: %d is not a cube (1, 8, 27 or 64)", r->ppc);
  long nb = lround(r->block / r->dx), nh = lround(r->block_h / r->dx);
  if (nb < 4 || nh < 4)
    bg_lab_fail("the block must be at least 4 cells on a side (--block/--dx = %ld, --block-height/--dx = %ld)", nb,
                nh);
}

/* The options (their defaults first, then the table) and the lab; exits 2
 * when --ppc is not a cube. */
static bg_lab *density_init(int argc, char **argv, density_run *r) {
  r->dx = 0;
  r->block = 0.16;
  r->block_h = 0.10;
  r->drop = 0.05;
  r->t_max = 2.0;
  r->rest_ke = 1e-6;
  r->floor_mu = 0.5;
  r->jitter = 0.5;
  r->bin_w = 5.0;
  r->floor_shift = 0;
  r->ppc = 8;
  r->vtk = 0;
  bg_lab_param params[] = {
      {.name = "dx", .type = BG_PARAM_DOUBLE, .dest = &r->dx, .lo = 5e-4, .hi = 0.05,
       .help = "grid spacing, m (paper: 0.16 m / 96)", .quick = "0.01", .paper = "0.0016666666666666668",
       .key = "dx_m"},
      {.name = "ppc", .type = BG_PARAM_INT, .dest = &r->ppc, .lo = 1, .hi = 64,
       .help = "particles per cell, a cube: 1, 8, 27 or 64"},
      {.name = "block", .type = BG_PARAM_DOUBLE, .dest = &r->block, .lo = 0.02, .hi = 1.0,
       .help = "block side length in x and y, m", .key = "block_m"},
      {.name = "block-height", .type = BG_PARAM_DOUBLE, .dest = &r->block_h, .lo = 0.02, .hi = 1.0,
       .help = "block height H, m", .key = "block_height_m"},
      {.name = "drop-height", .type = BG_PARAM_DOUBLE, .dest = &r->drop, .lo = 0.0, .hi = 1.0,
       .help = "gap between floor and block bottom at t = 0, m", .key = "drop_height_m"},
      {.name = "time", .type = BG_PARAM_DOUBLE, .dest = &r->t_max, .lo = 0.05, .hi = 20.0,
       .help = "maximum simulated time, s", .key = "time_max_s"},
      {.name = "rest-ke", .type = BG_PARAM_DOUBLE, .dest = &r->rest_ke, .lo = 1e-9, .hi = 1e-2,
       .help = "at rest when kinetic energy < this x M g H", .key = "rest_ke_fraction"},
      {.name = "floor-mu", .type = BG_PARAM_DOUBLE, .dest = &r->floor_mu, .lo = 0.0, .hi = 2.0,
       .help = "Coulomb friction of the floor (0: slip)"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &r->jitter, .lo = 0.0, .hi = 1.0,
       .help = "random offset of each particle, fraction of its sub-cell"},
      {.name = "bin", .type = BG_PARAM_DOUBLE, .dest = &r->bin_w, .lo = 0.5, .hi = 200.0,
       .help = "histogram bin width, kg/m^3", .key = "hist_bin_kg_m3"},
      {.name = "vtk", .type = BG_PARAM_INT, .dest = &r->vtk, .lo = 0, .hi = 1,
       .help = "1: write particles.vtk of the settled state", .quick = "1", .paper = "0"},
      {.name = "floor-shift", .type = BG_PARAM_DOUBLE, .dest = &r->floor_shift, .lo = -0.5, .hi = 0.5,
       .help = "solid floor nodes moved up by this many dx (0: z = 0 midway between the last solid and first free node; "
               "0.5: the last solid node at z = 0)"},
  };
  const int n_params = (int)(sizeof params / sizeof params[0]);
  static const char *const mutants[] = {"volume-correction-off", "detF-density", "erosion-radius-2", "particle-max",
                                        "gravity-doubled", "readout-jp-squared", NULL};
  bg_lab_accept_materials("drucker-prager,mu-i,ngf", "a granular model");
  bg_lab_check_options(density_check_options, r);
  bg_lab *lab = bg_lab_init("exp_density",
                            "A sand block dropped onto a floor; density at rest from the library's "
                            "read-out (held to rho0/(det F Jp)), rho0/det F and the grid.",
                            argc, argv, params, n_params, mutants);
  r->side = (int)lround(cbrt((double)r->ppc));
  return lab;
}

/* The scene: a block of whole cells of particles above the floor (the -z
 * domain face), its simulation and its jittered particles, and the scales
 * the run uses (total mass, M g H, the series interval, first contact). */
static void density_scene(density_run *r) {
  bg_lab *lab = r->lab;
  const double dx = r->dx;
  double block = r->block;
  double block_h = r->block_h;
  const double drop = r->drop;
  const double floor_mu = r->floor_mu;
  const double jitter = r->jitter;
  const double floor_shift = r->floor_shift;
  const int ppc = r->ppc;
  const int side = r->side;
  /* geometry: whole cells of particles; the floor is the -z domain face,
   * effective between node 1 and node 2 (two solid layers), put at z = 0 */
  long nb = lround(block / dx), nh = lround(block_h / dx); /* >= 4: density_check_options */
  block = nb * dx;
  block_h = nh * dx;
  double margin = 1.5 * block + 6 * dx; /* room to spread on each side */
  size_t nxy = (size_t)ceil((block + 2 * margin) / dx) + 4;
  size_t nz = (size_t)ceil((block_h + drop) / dx) + 10;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.dims[0] = desc.dims[1] = nxy;
  desc.dims[2] = nz;
  desc.dx = (bg_real)dx;
  desc.origin[0] = desc.origin[1] = 0;
  desc.origin[2] = (bg_real)((-1.5 + floor_shift) * dx);
  desc.material = bg_lab_material(lab);
  if (bg_lab_mutant_is(lab, "volume-correction-off")) desc.material.volume_correction = 0;
  /* the sand feels 2 g while the oedometric estimate still assumes g */
  if (bg_lab_mutant_is(lab, "gravity-doubled")) desc.gravity[2] = (bg_real)(-2.0 * G);
  desc.backend = bg_lab_backend(lab);
  desc.threads = bg_lab_threads(lab);
  desc.walls[BG_FACE_ZLO].friction = floor_mu > 0 ? BG_FRICTION_COULOMB : BG_FRICTION_SLIP;
  desc.walls[BG_FACE_ZLO].mu = (bg_real)floor_mu;
  char err[512];
  bg_sim *sim = NULL;
  bg_status st = bg_sim_create(&desc, &sim, err, sizeof err);
  if (st != BG_OK) {
    fprintf(stderr, "error: bg_sim_create: %s\n", err);
    exit(2);
  }
  /* the material as the simulation holds it: rho0 of the closed-form
   * read-out (density.readout) and M of the oedometric estimate */
  bg_sim_desc fed;
  density_check(bg_sim_describe(sim, &fed), sim, "describing the simulation");
  const double rho0 = fed.material.rho0;
  const double M_mod = rho0 * pow(bg_material_pwave_speed(&fed.material), 2); /* lambda + 2 mu */

  /* particles: a side^3 lattice per cell, each jittered in its sub-cell */
  size_t n = (size_t)nb * (size_t)nb * (size_t)nh * (size_t)ppc;
  bg_real *x = density_xmalloc(3 * n * sizeof *x);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, bg_lab_seed(lab));
  double sub = dx / side, x0 = 0.5 * (nxy - 1) * dx - 0.5 * block, z0 = drop;
  size_t p = 0;
  for (long i = 0; i < nb * side; ++i)
    for (long j = 0; j < nb * side; ++j)
      for (long k = 0; k < nh * side; ++k) {
        double off[3];
        for (int a = 0; a < 3; ++a) off[a] = 0.5 + jitter * (gsl_rng_uniform(rng) - 0.5);
        x[3 * p] = (bg_real)(x0 + (i + off[0]) * sub);
        x[3 * p + 1] = (bg_real)(x0 + (j + off[1]) * sub);
        x[3 * p + 2] = (bg_real)(z0 + (k + off[2]) * sub);
        ++p;
      }
  gsl_rng_free(rng);
  density_check(bg_sim_add_particles(sim, n, x, NULL, (bg_real)ppc), sim, "adding particles");

  bg_real *mass = density_xmalloc(n * sizeof *mass);
  density_check(bg_sim_get(sim, BG_FIELD_MASS, mass, n), sim, "reading masses");
  bg_stats stats;
  density_check(bg_sim_stats(sim, &stats), sim, "stats");
  const double M = stats.total_mass; /* the library's sum of the particle masses */
  const double E_scale = M * G * block_h;

  bg_real dt0 = 0, bound = 0;
  density_check(bg_sim_next_dt(sim, &dt0, &bound), sim, "timestep");
  /* a series row (and a rest check) every ~2.5 ms of simulated time */
  uint64_t every = (uint64_t)ceil(2.5e-3 / dt0);
  if (every < 1) every = 1;
  double t_fall = sqrt(2.0 * drop / G); /* first contact */

  bg_lab_manifest_num(lab, "dx_m", dx);
  bg_lab_manifest_num(lab, "block_m", block);
  bg_lab_manifest_num(lab, "block_height_m", block_h);
  bg_lab_manifest_num(lab, "floor_shift_dx", floor_shift);
  bg_lab_manifest_num(lab, "particles", (double)n);
  bg_lab_manifest_num(lab, "grid_nx", (double)nxy);
  bg_lab_manifest_num(lab, "grid_ny", (double)nxy);
  bg_lab_manifest_num(lab, "grid_nz", (double)nz);
  bg_lab_manifest_num(lab, "rho0_kg_m3", rho0);
  bg_lab_manifest_num(lab, "total_mass_kg", M);
  bg_lab_manifest_num(lab, "dt_initial_s", dt0);
  bg_lab_manifest_material(lab, &desc.material);
  bg_lab_progress(lab, "%zu particles, grid %zux%zux%zu, dx %.4g m, backend %s, dt %.3g s", n, nxy, nxy,
                  nz, dx, bg_sim_backend(sim), (double)dt0);
  r->block = block;
  r->block_h = block_h;
  r->desc = desc;
  r->sim = sim;
  r->nxy = nxy;
  r->nz = nz;
  r->n = n;
  r->x0 = x0;
  r->rho0 = rho0;
  r->M_mod = M_mod;
  r->M = M;
  r->E_scale = E_scale;
  r->t_fall = t_fall;
  r->every = every;
  r->x = x;
  r->mass = mass;
}

/* The drop: a series row (and a rest check) every interval until the block
 * is at rest or the time is up, resumable; series.tsv at the end. */
static void density_drop(density_run *r) {
  bg_stats stats;
  bg_lab *lab = r->lab;
  const double t_max = r->t_max;
  const double rest_ke = r->rest_ke;
  const bg_sim_desc desc = r->desc;
  bg_sim *sim = r->sim;
  const size_t n = r->n;
  const double E_scale = r->E_scale;
  const double t_fall = r->t_fall;
  const uint64_t every = r->every;
  char path[1400];
  bg_lab_output(lab, "series.tsv", path, sizeof path);
  bg_series *series = NULL;
  density_check(bg_sim_series_open(path, "dropped block: standard per-step series, one row per series interval",
                           &series),
        NULL, "opening series.tsv");

  /* the rows are kept (a checkpoint carries them) and written at the end */
  double row[8];
  drop_loop dl = {NULL, 0, 0, 0, 0.1 * t_max, 0, sim, desc.dims[0] * desc.dims[1] * desc.dims[2], NULL};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, "drop", &state, &finished);
  if (state.len) {
    drop_unpack(&dl, &state);
  } else {
    density_check(bg_sim_series_values(sim, row), sim, "series row");
    drop_push(&dl, row);
  }
  bg_lab_blob_free(&state);
  while (!finished) {
    density_check(bg_sim_run(sim, every), sim, "stepping");
    density_check(bg_sim_series_values(sim, row), sim, "series row");
    drop_push(&dl, row);
    density_check(bg_sim_stats(sim, &stats), sim, "stats");
    dl.ke = row[6]; /* the library's kinetic energy of the active particles (series column 7) */
    if (stats.time > t_fall + 0.05 && dl.ke < rest_ke * E_scale) {
      dl.at_rest = 1;
      break;
    }
    if (stats.time >= t_max) break;
    bg_lab_progress_sim(lab, "drop", stats.time, t_max, (double)n * (double)stats.step);
    if (stats.time >= dl.next_progress) {
      bg_lab_progress(lab, "t %.3f s of at most %.3g, step %llu, KE/(MgH) %.3g, max speed %.3g m/s",
                      stats.time, t_max, (unsigned long long)stats.step, dl.ke / E_scale, stats.max_speed);
      dl.next_progress += 0.1 * t_max;
    }
    bg_lab_sim_tick(ls, drop_pack, &dl);
  }
  bg_lab_sim_end(ls, drop_pack_final, &dl);
  density_check(bg_sim_stats(sim, &stats), sim, "stats");
  for (size_t i = 0; i < dl.n_rows; ++i) density_check(bg_series_row(series, dl.rows + 8 * i, 8), NULL, "series row");
  free(dl.rows);
  double ke = dl.ke;
  int at_rest = dl.at_rest;
  density_check(bg_series_close(series), NULL, "closing series.tsv");
  bg_lab_add_work(lab, (double)n * (double)stats.step);
  bg_lab_progress(lab, "%s at t %.3f s (step %llu): KE/(MgH) %.3g", at_rest ? "at rest" : "NOT at rest",
                  stats.time, (unsigned long long)stats.step, ke / E_scale);
  bg_lab_manifest_num(lab, "steps", (double)stats.step);
  bg_lab_manifest_num(lab, "t_end_s", stats.time);
  bg_lab_manifest_num(lab, "at_rest", at_rest);
  bg_lab_manifest_num(lab, "ke_over_mgh", ke / E_scale);
  bg_lab_manifest_num(lab, "parked", (double)stats.n_parked);
  r->grid = dl.grid;
  r->stats = stats;
  r->ke = ke;
  r->at_rest = at_rest;
}

int main(int argc, char **argv) {
  static density_run r;
  /* scene */
  r.lab = density_init(argc, argv, &r);
  density_scene(&r);
  /* run */
  density_drop(&r);
  /* read-out and judge */
  density_readout(&r);
  free(r.x);
  free(r.mass);
  bg_sim_destroy(r.sim);
  return bg_lab_finish(r.lab);
}
