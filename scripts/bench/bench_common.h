/* bench_common.h: the benchmark scene, defined once for bench_cpu, bench_gpu
 * and bench_scene (the head-to-head worker; the Taichi and Warp peers in
 * scripts/baselines/scene.py rebuild it rule for rule): a block of Klar sand,
 * ppc particles per cell on a regular lattice, resting just above a Coulomb
 * floor (mu BENCH_FLOOR_MU) with slip faces elsewhere, dx BENCH_DX, gravity
 * -z. The block is side^3 cells, side the smallest with side^3 ppc >= n,
 * filled layer by layer from the bottom with exactly n particles. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "bagnold.h"

#define BENCH_DX 0.01f
#define BENCH_MARGIN_CELLS 4 /* free cells between the block and each lateral face */
#define BENCH_FLOOR_CELLS 4  /* the block's bottom, in cells above the -z face */
#define BENCH_FLOOR_MU 0.5f

/* The two scenes every benchmark can time:
 *  freefall  the block above, timed from rest after a few warm-up steps: a
 *            perfectly ordered lattice falling onto the floor, the friendliest
 *            case for a sorted scatter;
 *  collapse  the same block as a column standing on the floor in a grid with
 *            room to spread (half its side of free cells on every lateral
 *            side), its particles added in a shuffled order, advanced untimed
 *            to 1.5 sqrt(h / g), the middle of its runout, and timed there: sand that flows, shears and yields,
 *            in the memory order flow leaves behind. The fractions of particles
 *            in shear and at the tip at the window's end are reported. */
typedef enum bench_kind { BENCH_FREEFALL = 0, BENCH_COLLAPSE = 1 } bench_kind;
const char *bench_kind_name(bench_kind k);
/* The kind of a name ("freefall", "collapse"), or -1. */
int bench_kind_from_name(const char *name);

typedef struct bench_scene {
  bench_kind kind;
  uint64_t n;     /* particles placed (exactly the requested count) */
  int k;          /* particles per cell per axis */
  uint64_t side;  /* block side in cells */
  double height;  /* filled height in cells (<= side) */
  size_t dims[3]; /* grid nodes */
  bg_real *x;     /* 3 n positions */
  int at_rest;    /* collapse only: timed from rest, with no advance, lattice order (bench_scene_build_at) */
} bench_scene;

/* The scene's name for tables: its kind's, "collapse@start" when timed from rest. */
const char *bench_scene_label(const bench_scene *sc);

/* The block side for n particles at ppc per cell, and the grid around it. */
uint64_t bench_scene_side(uint64_t n, int ppc);
void bench_scene_dims(uint64_t side, size_t dims[3]);
void bench_scene_dims_kind(bench_kind kind, uint64_t side, size_t dims[3]);

/* Builds the free-fall scene (ppc 1, 8, 27 or 64); 0 when the positions do
 * not fit in host memory (sc->x is then NULL). */
int bench_scene_build(bench_scene *sc, uint64_t n, int ppc);
int bench_scene_build_kind(bench_scene *sc, uint64_t n, int ppc, bench_kind kind);
/* at_rest 1 (collapse only): the column timed from rest, its particles in
 * lattice order, not shuffled (bench_gpu --collapse-at start). */
int bench_scene_build_at(bench_scene *sc, uint64_t n, int ppc, bench_kind kind, int at_rest);

/* Adds the particles to sim and brings it to where timing starts:
 * warmup steps (freefall) or the untimed advance to mid-collapse
 * (collapse, then warmup steps more). */
bg_status bench_scene_prepare(bg_sim *sim, const bench_scene *sc, int ppc, uint64_t warmup);
/* Simulated time the collapse scene is advanced to before timing, s. */
double bench_scene_window_start(const bench_scene *sc);
/* Fraction of the active particles whose last update projected onto the
 * yield cone (BG_FIELD_MODE 1: shear, the flowing state) and to its tip
 * (mode 2: stress-free or pulled apart, e.g. in free fall); -1 when they
 * cannot be read. */
void bench_yield_fraction(bg_sim *sim, double *shear, double *tip);

/* The simulation descriptor of the scene. */
bg_sim_desc bench_scene_desc(const bench_scene *sc, const char *backend, int threads);
/* The first backend of the library's list that runs on the host (device 0)
 * or on a device (device 1): what bench_cpu and bench_gpu time by default;
 * NULL when the build has none. */
const char *bench_first_backend(int device);

#endif /* BENCH_COMMON_H */
