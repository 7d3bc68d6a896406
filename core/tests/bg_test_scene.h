/* bg_test_scene.h: the scenes more than one test builds. */
#ifndef BG_TEST_SCENE_H
#define BG_TEST_SCENE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bagnold.h"

/* A sand column of radius 6 cm and height 6 cm on the floor (z from 2 cm),
 * a jittered ppc-8 lattice of 5 mm spacing in a fixed pattern, its lattice
 * starting at (lo, lo) and its axis at (axis, axis); added to sim. Returns
 * the particle count, or exits with a FAIL line. */
static inline size_t bg_test_column(bg_sim *sim, double lo, double axis) {
  size_t cap = 24 * 24 * 24, n = 0;
  bg_real *x = malloc(3 * cap * sizeof *x);
  if (!x) {
    printf("FAIL: out of memory for the column\n");
    exit(1);
  }
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 24; ++j)
      for (int k = 0; k < 24; ++k) {
        double px = lo + (i + 0.5) * 0.005 + 0.001 * sin(1.7 * i + 2.3 * j + 0.9 * k);
        double py = lo + (j + 0.5) * 0.005 + 0.001 * sin(0.7 * i + 1.3 * j + 2.9 * k);
        double pz = 0.02 + (k + 0.5) * 0.005;
        if (hypot(px - axis, py - axis) >= 0.06) continue;
        x[3 * n] = (bg_real)px, x[3 * n + 1] = (bg_real)py, x[3 * n + 2] = (bg_real)pz;
        ++n;
      }
  bg_status s = bg_sim_add_particles(sim, n, x, NULL, 8);
  free(x);
  if (s != BG_OK) {
    printf("FAIL: bg_sim_add_particles: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  return n;
}

#endif /* BG_TEST_SCENE_H */
