/* test_seed.c: bg_seed_lattice. Jitter 0 gives the exact lattice in its
 * documented order; jitter keeps every point inside its own cell of the
 * lattice and draws three numbers per kept point, none for a rejected one;
 * a region keeps what it says; bad arguments name themselves. Host only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bagnold.h"
#include "bg_check.h"

/* a counting linear congruential source: the test needs a stream, not quality */
typedef struct lcg {
  uint64_t s;
  size_t draws;
} lcg;

static double lcg_uniform(void *ctx) {
  lcg *g = ctx;
  g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
  g->draws++;
  return (double)(g->s >> 11) / 9007199254740992.0;
}

/* a ball of radius 0.3 about (0.5, 0.5, 0.5) */
static int in_ball(const double p[3], void *ctx) {
  (void)ctx;
  double dx = p[0] - 0.5, dy = p[1] - 0.5, dz = p[2] - 0.5;
  return dx * dx + dy * dy + dz * dz <= 0.09;
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  enum { NX = 4, NY = 3, NZ = 5, NP = NX * NY * NZ };
  bg_real x[3 * NP];
  char err[256];
  size_t n = 0;
  bg_seed_lattice_desc d;
  memset(&d, 0, sizeof d);
  d.origin[0] = -1.0;
  d.origin[1] = 2.0;
  d.origin[2] = 0.5;
  d.spacing = 0.25;
  d.count[0] = NX;
  d.count[1] = NY;
  d.count[2] = NZ;

  /* jitter 0, no source: the lattice itself, k fastest */
  bg_status s = bg_seed_lattice(&d, x, NP, &n, err, sizeof err);
  bg_check_true(s == BG_OK, "jitter 0 without a source is accepted (%s)", err);
  bg_check_abs((double)n, NP, 0, "jitter 0: every lattice point");
  int exact = 1;
  size_t m = 0;
  for (int i = 0; i < NX; ++i)
    for (int j = 0; j < NY; ++j)
      for (int k = 0; k < NZ; ++k, ++m) {
        exact &= x[3 * m] == (bg_real)(-1.0 + (i + 0.5) * 0.25);
        exact &= x[3 * m + 1] == (bg_real)(2.0 + (j + 0.5) * 0.25);
        exact &= x[3 * m + 2] == (bg_real)(0.5 + (k + 0.5) * 0.25);
      }
  bg_check_true(exact, "jitter 0: point (i, j, k) at origin + (i + 1/2) s, in i-j-k order with k fastest");

  /* full jitter: three draws per point, each point inside its own cell */
  lcg g = {12345u, 0};
  d.jitter = 1.0;
  d.uniform = lcg_uniform;
  d.uniform_ctx = &g;
  s = bg_seed_lattice(&d, x, NP, &n, err, sizeof err);
  bg_check_true(s == BG_OK && n == NP, "jitter 1: every point (%s)", err);
  bg_check_abs((double)g.draws, 3.0 * NP, 0, "jitter 1: three draws per point");
  int in_cell = 1;
  m = 0;
  for (int i = 0; i < NX; ++i)
    for (int j = 0; j < NY; ++j)
      for (int k = 0; k < NZ; ++k, ++m) {
        int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          double lo = d.origin[a] + ijk[a] * 0.25, hi = lo + 0.25;
          in_cell &= x[3 * m + a] >= (bg_real)lo && x[3 * m + a] <= (bg_real)hi;
        }
      }
  bg_check_true(in_cell, "jitter 1: each point stays inside its own lattice cell");
  /* the same stream gives the same points */
  bg_real y[3 * NP];
  lcg g2 = {12345u, 0};
  d.uniform_ctx = &g2;
  bg_seed_lattice(&d, y, NP, &n, err, sizeof err);
  bg_check_true(memcmp(x, y, sizeof x) == 0, "the same uniform stream gives the same points");

  /* a region: only the ball, draws only for kept points, count-only mode agrees */
  memset(&d, 0, sizeof d);
  d.spacing = 0.1;
  d.count[0] = d.count[1] = d.count[2] = 10;
  d.inside = in_ball;
  size_t expect = 0;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j)
      for (int k = 0; k < 10; ++k) {
        double p[3] = {(i + 0.5) * 0.1, (j + 0.5) * 0.1, (k + 0.5) * 0.1};
        expect += in_ball(p, NULL);
      }
  size_t counted = 0;
  bg_seed_lattice(&d, NULL, 0, &counted, err, sizeof err);
  bg_check_abs((double)counted, (double)expect, 0, "x NULL counts the region's points");
  static bg_real big[3 * 1000];
  lcg g3 = {7u, 0};
  d.jitter = 0.5;
  d.uniform = lcg_uniform;
  d.uniform_ctx = &g3;
  s = bg_seed_lattice(&d, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_OK && n == expect, "region: the ball's %zu points (got %zu)", expect, n);
  bg_check_abs((double)g3.draws, 3.0 * expect, 0, "region: no draws for rejected points");
  int inside = 1;
  for (size_t q = 0; q < n; ++q) {
    double r = sqrt(pow(big[3 * q] - 0.5, 2) + pow(big[3 * q + 1] - 0.5, 2) + pow(big[3 * q + 2] - 0.5, 2));
    inside &= r <= 0.3 + 0.5 * 0.5 * 0.1 * sqrt(3.0) + 1e-6;
  }
  bg_check_true(inside, "region: jitter moves a kept point at most jitter s / 2 per axis");

  /* bad arguments */
  s = bg_seed_lattice(&d, big, expect - 1, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "cap"), "a short x: BG_ERR_RANGE naming cap (%s)", err);
  d.spacing = 0;
  s = bg_seed_lattice(&d, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "spacing"), "spacing 0: BG_ERR_RANGE naming spacing (%s)", err);
  d.spacing = 0.1;
  d.jitter = 1.5;
  s = bg_seed_lattice(&d, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "jitter"), "jitter 1.5: BG_ERR_RANGE naming jitter (%s)", err);
  d.jitter = 0.5;
  d.uniform = NULL;
  s = bg_seed_lattice(&d, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_NULL && strstr(err, "uniform"), "jitter without a source: BG_ERR_NULL (%s)", err);
  d.uniform = lcg_uniform;
  d.origin[1] = NAN;
  s = bg_seed_lattice(&d, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_NONFINITE && strstr(err, "origin[1]"), "a NaN origin: BG_ERR_NONFINITE (%s)", err);
  d.origin[1] = 0;
  d.count[0] = d.count[1] = d.count[2] = SIZE_MAX / 2;
  s = bg_seed_lattice(&d, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_OVERFLOW, "a count product past size_t: BG_ERR_OVERFLOW (%s)", err);
  s = bg_seed_lattice(NULL, big, 1000, &n, err, sizeof err);
  bg_check_true(s == BG_ERR_NULL, "desc NULL: BG_ERR_NULL (%s)", err);
  return bg_check_summary();
}
