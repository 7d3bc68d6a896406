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

typedef struct bench_scene {
  uint64_t n;     /* particles placed (exactly the requested count) */
  int k;          /* particles per cell per axis */
  uint64_t side;  /* block side in cells */
  double height;  /* filled height in cells (<= side) */
  size_t dims[3]; /* grid nodes */
  bg_real *x;     /* 3 n positions */
} bench_scene;

/* The block side for n particles at ppc per cell, and the grid around it. */
uint64_t bench_scene_side(uint64_t n, int ppc);
void bench_scene_dims(uint64_t side, size_t dims[3]);

/* Builds the scene (ppc 1, 8, 27 or 64); 0 when the positions do not fit in
 * host memory (sc->x is then NULL). */
int bench_scene_build(bench_scene *sc, uint64_t n, int ppc);

/* The simulation descriptor of the scene. */
bg_sim_desc bench_scene_desc(const bench_scene *sc, const char *backend, int threads);

#endif /* BENCH_COMMON_H */
