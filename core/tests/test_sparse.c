/* test_sparse: the block-sparse grid (a backend property grid=sparse) holds
 * memory in proportion to the material, not the box, and computes the same
 * grid and the same motion as the dense grid.
 *
 * A sand column of 6 cm radius collapses on a Coulomb floor in a box of
 * 96 x 96 x 64 nodes (the material fills a few hundredth of it; the sort
 * interval of 8 lets particles drift out of their sorted blocks, so the
 * marking of drifted stencils is exercised). The same start runs on the
 * dense and the sparse grid:
 *   - before any step the sparse grid holds its block table alone, and
 *     after the steps under a twentieth of the dense grid's bytes;
 *   - the grid read back (bg_sim_grid_mass, every node of the box) has the
 *     particles' mass, node by node as the dense grid's to float round-off;
 *   - positions agree to float round-off of the scatter's order;
 *   - grid=sparse with deterministic=1, and with a G2P register bound
 *     (compiled for the dense grid only), is refused, naming both;
 *   - a 2D collapse (plane strain, one node layer) does the same on both.
 * A backend without the property skips (77). argv[1]: the backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_test_backend.h"
#include "bg_test_scene.h"

#define N_STEPS 40
#define NX 96
#define NZ 64

static const char *backend = "cuda";

static bg_sim_desc desc(const char *props) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = NX;
  d.dims[2] = NZ;
  d.dx = 0.01f;
  d.backend = backend;
  d.sort_interval = 8;
  d.properties = props;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  return d;
}

static bg_sim *make(const char *props, size_t *count) {
  bg_sim_desc d = desc(props);
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create (%s, '%s'): %s\n", backend, props, err);
    exit(1);
  }
  *count = bg_test_column(sim, 0.3, 0.36);
  return sim;
}

static size_t grid_bytes(bg_sim *sim);

/* 2D: a block of 12 x 12 cells, 2 x 2 particles each, in a 128 x 64 plane. */
static bg_sim *make_2d(const char *props, size_t *count) {
  bg_sim_desc d = desc(props);
  d.dim = 2;
  d.dims[0] = 128;
  d.dims[1] = 1;
  d.dims[2] = 64;
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create 2D (%s, '%s'): %s\n", backend, props, err);
    exit(1);
  }
  size_t n = 0;
  bg_real x[3 * 24 * 24];
  for (int i = 0; i < 24; ++i)
    for (int k = 0; k < 24; ++k, ++n) {
      x[3 * n] = (bg_real)(0.3 + (i + 0.5) * 0.005);
      x[3 * n + 1] = 0;
      x[3 * n + 2] = (bg_real)(0.02 + (k + 0.5) * 0.005);
    }
  if (bg_sim_add_particles(sim, n, x, NULL, 4) != BG_OK) {
    printf("FAIL: bg_sim_add_particles 2D: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  *count = n;
  return sim;
}

static void check_2d(void) {
  size_t n = 0, n2 = 0;
  bg_sim *dense = make_2d("grid=dense", &n), *sparse = make_2d("grid=sparse", &n2);
  if (bg_sim_run(dense, N_STEPS) != BG_OK || bg_sim_run(sparse, N_STEPS) != BG_OK) {
    printf("FAIL: 2D bg_sim_run: %s / %s\n", bg_sim_last_error(dense), bg_sim_last_error(sparse));
    exit(1);
  }
  const size_t nodes = 128 * 64, gd = grid_bytes(dense), gs = grid_bytes(sparse);
  bg_real md[128 * 64], ms[128 * 64];
  bg_check_true(bg_sim_grid_mass(dense, md, nodes) == BG_OK && bg_sim_grid_mass(sparse, ms, nodes) == BG_OK,
                "2D: the grid mass reads back from both");
  double sum = 0, mmax = 0, dmax = 0;
  for (size_t i = 0; i < nodes; ++i) {
    sum += ms[i];
    if (md[i] > mmax) mmax = md[i];
    if (fabs((double)md[i] - ms[i]) > dmax) dmax = fabs((double)md[i] - ms[i]);
  }
  bg_stats st;
  bg_sim_stats(sparse, &st);
  bg_real xd[3 * 24 * 24], xs[3 * 24 * 24];
  bg_sim_get(dense, BG_FIELD_X, xd, 3 * n);
  bg_sim_get(sparse, BG_FIELD_X, xs, 3 * n);
  double xmax = 0;
  for (size_t i = 0; i < 3 * n; ++i)
    if (fabs((double)xd[i] - xs[i]) > xmax) xmax = fabs((double)xd[i] - xs[i]);
  printf("2D: %zu particles, grid bytes dense %zu, sparse %zu; grid mass %.9g of %.9g kg; node difference %.3g of "
         "%.3g kg; positions %.3g m\n",
         n, gd, gs, sum, st.total_mass, dmax, mmax, xmax);
  bg_check_true(2 * gs < gd, "2D: the sparse grid holds under half the dense grid's bytes");
  bg_check_true(fabs(sum - st.total_mass) < 1e-5 * st.total_mass && dmax <= 1e-5 * mmax,
                "2D: the sparse grid holds the particles' mass, node by node as the dense grid");
  bg_check_true(st.max_speed > 0.05 && xmax < 1e-5, "2D: the block moves (%.3g m/s) and positions agree (%.3g m)",
                st.max_speed, xmax);
  bg_sim_destroy(dense);
  bg_sim_destroy(sparse);
}

static size_t grid_bytes(bg_sim *sim) {
  bg_memory m;
  return bg_sim_memory(sim, &m) == BG_OK ? m.grid_bytes : (size_t)-1;
}

int main(int argc, char **argv) {
  if (argc > 1) backend = argv[1];
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  if (!bg_test_has_property_value(backend, "grid", "sparse")) {
    printf("SKIP: backend %s has no property grid=sparse\n", backend);
    return BG_CHECK_SKIP;
  }
  size_t n = 0, n2 = 0;
  bg_sim *dense = make("grid=dense", &n), *sparse = make("grid=sparse", &n2);
  const size_t nodes = (size_t)NX * NX * NZ, blocks = nodes / 64;
  const size_t gd0 = grid_bytes(dense), gs0 = grid_bytes(sparse);
  printf("%zu particles; grid bytes before a step: dense %zu, sparse %zu\n", n, gd0, gs0);
  bg_check_true(gd0 >= 16 * nodes, "the dense grid holds 16 bytes per node (%zu for %zu nodes)", gd0, nodes);
  /* the table (two ints per block) and the scan's scratch: no pool yet */
  bg_check_true(gs0 < 8 * blocks + 64 * 1024, "before a step the sparse grid holds its table alone (%zu bytes)", gs0);

  if (bg_sim_run(dense, N_STEPS) != BG_OK || bg_sim_run(sparse, N_STEPS) != BG_OK) {
    printf("FAIL: bg_sim_run: %s / %s\n", bg_sim_last_error(dense), bg_sim_last_error(sparse));
    return 1;
  }
  const size_t gd = grid_bytes(dense), gs = grid_bytes(sparse);
  printf("after %d steps: dense %zu bytes, sparse %zu (%.2f%%)\n", N_STEPS, gd, gs, 100.0 * gs / gd);
  bg_check_true(gs > gs0 && 20 * gs < gd, "the sparse grid holds its blocks, under 1/20 of the dense grid's bytes");
  {
    /* the nodes each says it holds: the box's, and whole blocks of the pool */
    bg_memory md_, ms_;
    bg_check_true(bg_sim_memory(dense, &md_) == BG_OK && bg_sim_memory(sparse, &ms_) == BG_OK, "memory reads");
    bg_check_true(md_.grid_nodes == nodes && ms_.grid_nodes > 0 && ms_.grid_nodes % 64 == 0 &&
                      ms_.grid_nodes * 16 <= gs && 20 * ms_.grid_nodes < nodes,
                  "grid_nodes: dense %zu of %zu, sparse %zu (whole 4^3 blocks, 16 bytes each within its bytes)",
                  md_.grid_nodes, nodes, ms_.grid_nodes);
  }

  bg_real *md = malloc(nodes * sizeof *md), *ms = malloc(nodes * sizeof *ms);
  bg_check_true(bg_sim_grid_mass(dense, md, nodes) == BG_OK && bg_sim_grid_mass(sparse, ms, nodes) == BG_OK,
                "the grid mass reads back from both");
  double sum_d = 0, sum_s = 0, mmax = 0, dmax = 0;
  for (size_t i = 0; i < nodes; ++i) {
    sum_d += md[i];
    sum_s += ms[i];
    if (md[i] > mmax) mmax = md[i];
    if (fabs((double)md[i] - ms[i]) > dmax) dmax = fabs((double)md[i] - ms[i]);
  }
  bg_stats st;
  bg_sim_stats(sparse, &st);
  printf("grid mass: dense %.9g kg, sparse %.9g kg, particles %.9g kg; largest node difference %.3g of %.3g kg\n",
         sum_d, sum_s, st.total_mass, dmax, mmax);
  bg_check_true(fabs(sum_s - st.total_mass) < 1e-5 * st.total_mass, "the sparse grid holds the particles' mass");
  bg_check_true(dmax <= 1e-5 * mmax, "node by node, the sparse grid's mass is the dense grid's to round-off");

  bg_real *xd = malloc(3 * n * sizeof *xd), *xs = malloc(3 * n * sizeof *xs);
  bg_sim_get(dense, BG_FIELD_X, xd, 3 * n);
  bg_sim_get(sparse, BG_FIELD_X, xs, 3 * n);
  double xmax = 0;
  for (size_t i = 0; i < 3 * n; ++i)
    if (fabs((double)xd[i] - xs[i]) > xmax) xmax = fabs((double)xd[i] - xs[i]);
  printf("largest position difference after %d steps: %.3g m (max speed %.3g m/s)\n", N_STEPS, xmax, st.max_speed);
  bg_check_true(st.max_speed > 0.05, "the column is moving (%.3g m/s)", st.max_speed);
  bg_check_true(xmax < 1e-5, "positions agree with the dense grid's to round-off (%.3g m)", xmax);

  /* the combination the sparse grid does not cover is refused, naming both */
  bg_sim_desc d = desc("grid=sparse,deterministic=1");
  bg_sim *bad = NULL;
  char err[512] = "";
  bg_status s = bg_sim_create(&d, &bad, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && !bad && strstr(err, "grid=sparse") && strstr(err, "deterministic=1"),
                "grid=sparse with deterministic=1 is refused (%s: \"%s\")", bg_status_name(s), err);
  d = desc("grid=sparse,g2p_minblocks=8");
  s = bg_sim_create(&d, &bad, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && !bad && strstr(err, "grid=sparse") && strstr(err, "g2p_minblocks"),
                "grid=sparse with g2p_minblocks=8 is refused (%s: \"%s\")", bg_status_name(s), err);
  check_2d();
  free(md);
  free(ms);
  free(xd);
  free(xs);
  bg_sim_destroy(dense);
  bg_sim_destroy(sparse);
  return bg_check_summary();
}
