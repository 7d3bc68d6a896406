/* bench_common.c: the benchmark scene (see bench_common.h). */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>

uint64_t bench_scene_side(uint64_t n, int ppc) {
  uint64_t c = (uint64_t)cbrt((double)n / (double)ppc);
  if (c < 1) c = 1;
  while (c > 1 && (c - 1) * (c - 1) * (c - 1) * (uint64_t)ppc >= n) c--;
  while (c * c * c * (uint64_t)ppc < n) c++;
  return c;
}

void bench_scene_dims(uint64_t side, size_t dims[3]) {
  dims[0] = dims[1] = (size_t)(side + 2 * BENCH_MARGIN_CELLS + 1);
  /* room for the block to spread and for two face layers above it */
  dims[2] = (size_t)(BENCH_FLOOR_CELLS + (uint64_t)ceil(1.6 * (double)side) + 4 + 1);
}

int bench_scene_build(bench_scene *sc, uint64_t n, int ppc) {
  sc->n = n;
  sc->k = ppc == 1 ? 1 : ppc == 8 ? 2 : ppc == 27 ? 3 : 4;
  uint64_t c = bench_scene_side(n, ppc);
  sc->side = c;
  sc->height = (double)n / ((double)ppc * (double)(c * c));
  bench_scene_dims(c, sc->dims);
  sc->x = malloc(3 * (size_t)n * sizeof *sc->x);
  if (!sc->x) return 0;
  uint64_t lat = (uint64_t)sc->k * c; /* particle sites per lateral axis */
  size_t p = 0;
  for (uint64_t l = 0; p < n; ++l) /* particle layers from the bottom */
    for (uint64_t j = 0; j < lat && p < n; ++j)
      for (uint64_t i = 0; i < lat && p < n; ++i, ++p) {
        sc->x[3 * p + 0] = (bg_real)((BENCH_MARGIN_CELLS + ((double)i + 0.5) / sc->k) * BENCH_DX);
        sc->x[3 * p + 1] = (bg_real)((BENCH_MARGIN_CELLS + ((double)j + 0.5) / sc->k) * BENCH_DX);
        sc->x[3 * p + 2] = (bg_real)((BENCH_FLOOR_CELLS + ((double)l + 0.5) / sc->k) * BENCH_DX);
      }
  return 1;
}

bg_sim_desc bench_scene_desc(const bench_scene *sc, const char *backend, int threads) {
  bg_sim_desc d = bg_sim_desc_default();
  for (int a = 0; a < 3; ++a) {
    d.dims[a] = sc->dims[a];
    d.origin[a] = 0;
  }
  d.dx = BENCH_DX;
  d.gravity[0] = d.gravity[1] = 0;
  d.gravity[2] = -9.81f;
  d.material = bg_material_sand(); /* Klar 2016: E 3.537e5, nu 0.3, rho 2200, phi 35 */
  for (int f = 0; f < BG_FACE_COUNT; ++f) {
    d.walls[f].friction = BG_FRICTION_SLIP;
    d.walls[f].mu = 0;
  }
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = BENCH_FLOOR_MU;
  d.backend = backend;
  d.threads = threads;
  return d;
}
