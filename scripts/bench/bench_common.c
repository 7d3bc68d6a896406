/* bench_common.c: the benchmark scene (see bench_common.h). */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t bench_scene_side(uint64_t n, int ppc) {
  uint64_t c = (uint64_t)cbrt((double)n / (double)ppc);
  if (c < 1) c = 1;
  while (c > 1 && (c - 1) * (c - 1) * (c - 1) * (uint64_t)ppc >= n) c--;
  while (c * c * c * (uint64_t)ppc < n) c++;
  return c;
}

static const char *const kind_names[] = {"freefall", "collapse"};

const char *bench_kind_name(bench_kind k) { return (int)k >= 0 && (int)k < 2 ? kind_names[k] : "?"; }

int bench_kind_from_name(const char *name) {
  for (int k = 0; name && k < 2; ++k)
    if (!strcmp(name, kind_names[k])) return k;
  return -1;
}

/* Free cells on each lateral side of the block. */
static uint64_t margin(bench_kind kind, uint64_t side) {
  return kind == BENCH_COLLAPSE ? (side + 1) / 2 + BENCH_MARGIN_CELLS : BENCH_MARGIN_CELLS;
}

void bench_scene_dims(uint64_t side, size_t dims[3]) { bench_scene_dims_kind(BENCH_FREEFALL, side, dims); }

void bench_scene_dims_kind(bench_kind kind, uint64_t side, size_t dims[3]) {
  dims[0] = dims[1] = (size_t)(side + 2 * margin(kind, side) + 1);
  /* room for the block to spread and for two face layers above it */
  dims[2] = (size_t)(BENCH_FLOOR_CELLS + (uint64_t)ceil(1.6 * (double)side) + 4 + 1);
}

int bench_scene_build(bench_scene *sc, uint64_t n, int ppc) {
  return bench_scene_build_kind(sc, n, ppc, BENCH_FREEFALL);
}

/* splitmix64: a fixed, portable shuffle */
static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int bench_scene_build_kind(bench_scene *sc, uint64_t n, int ppc, bench_kind kind) {
  return bench_scene_build_at(sc, n, ppc, kind, 0);
}

int bench_scene_build_at(bench_scene *sc, uint64_t n, int ppc, bench_kind kind, int at_rest) {
  sc->kind = kind;
  sc->at_rest = kind == BENCH_COLLAPSE && at_rest;
  sc->n = n;
  sc->k = ppc == 1 ? 1 : ppc == 8 ? 2 : ppc == 27 ? 3 : 4;
  uint64_t c = bench_scene_side(n, ppc);
  sc->side = c;
  sc->height = (double)n / ((double)ppc * (double)(c * c));
  bench_scene_dims_kind(kind, c, sc->dims);
  sc->x = malloc(3 * (size_t)n * sizeof *sc->x);
  if (!sc->x) return 0;
  double m0 = (double)margin(kind, c);
  /* the column stands on the floor: the -z face's plane is 1.5 cells above
   * node 0 and the material's edge half a cell below it (bg_wall_edge_offset) */
  double z0 = kind == BENCH_COLLAPSE ? 1.0 : BENCH_FLOOR_CELLS;
  uint64_t lat = (uint64_t)sc->k * c; /* particle sites per lateral axis */
  size_t p = 0;
  for (uint64_t l = 0; p < n; ++l) /* particle layers from the bottom */
    for (uint64_t j = 0; j < lat && p < n; ++j)
      for (uint64_t i = 0; i < lat && p < n; ++i, ++p) {
        sc->x[3 * p + 0] = (bg_real)((m0 + ((double)i + 0.5) / sc->k) * BENCH_DX);
        sc->x[3 * p + 1] = (bg_real)((m0 + ((double)j + 0.5) / sc->k) * BENCH_DX);
        sc->x[3 * p + 2] = (bg_real)((z0 + ((double)l + 0.5) / sc->k) * BENCH_DX);
      }
  if (kind == BENCH_COLLAPSE && !sc->at_rest) {
    /* Fisher-Yates: insertion order carries no spatial order (from rest,
     * the lattice order is kept: the shuffle of 10^9 particles alone takes
     * minutes of random host memory access) */
    uint64_t seed = 20261203u;
    for (size_t q = (size_t)n; q > 1; --q) {
      size_t r = (size_t)(mix(&seed) % q);
      for (int a = 0; a < 3; ++a) {
        bg_real t = sc->x[3 * (q - 1) + a];
        sc->x[3 * (q - 1) + a] = sc->x[3 * r + a];
        sc->x[3 * r + a] = t;
      }
    }
  }
  return 1;
}

const char *bench_scene_label(const bench_scene *sc) {
  return sc->kind == BENCH_COLLAPSE && sc->at_rest ? "collapse@start" : bench_kind_name(sc->kind);
}

double bench_scene_window_start(const bench_scene *sc) {
  if (sc->kind != BENCH_COLLAPSE || sc->at_rest) return 0;
  /* a column of aspect ~1 spreads over ~3 sqrt(h / g): the middle of it */
  return 1.5 * sqrt(sc->height * BENCH_DX / 9.81);
}

bg_status bench_scene_prepare(bg_sim *sim, const bench_scene *sc, int ppc, uint64_t warmup) {
  bg_status s = bg_sim_add_particles(sim, (size_t)sc->n, sc->x, NULL, (bg_real)ppc);
  if (s == BG_OK && sc->kind == BENCH_COLLAPSE) s = bg_sim_advance_to(sim, bench_scene_window_start(sc));
  if (s == BG_OK && warmup) s = bg_sim_run(sim, warmup);
  return s;
}

void bench_yield_fraction(bg_sim *sim, double *shear, double *tip) {
  *shear = *tip = -1;
  bg_stats st;
  if (bg_sim_stats(sim, &st) != BG_OK || st.n_particles == 0) return;
  size_t n = st.n_particles, cnt[3] = {0, 0, 0}, active = 0;
  bg_real *mode = malloc(n * sizeof *mode), *act = malloc(n * sizeof *act);
  int ok = mode && act && bg_sim_get(sim, BG_FIELD_MODE, mode, n) == BG_OK &&
           bg_sim_get(sim, BG_FIELD_ACTIVE, act, n) == BG_OK;
  for (size_t p = 0; ok && p < n; ++p)
    if (act[p] > 0) {
      active++;
      int m = (int)mode[p];
      if (m >= 0 && m < 3) cnt[m]++;
    }
  free(mode);
  free(act);
  if (ok && active) {
    *shear = (double)cnt[1] / (double)active;
    *tip = (double)cnt[2] / (double)active;
  }
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

const char *bench_first_backend(int device) {
  for (int i = 0; i < bg_backend_count(); ++i)
    if (bg_backend_on_device(bg_backend_name(i)) == device) return bg_backend_name(i);
  return NULL;
}
