/* test_seed.c: bg_seed_lattice, bg_seed_poisson and bg_seed_volume.
 * Lattice: jitter 0 gives the exact lattice in its documented order; jitter
 * keeps every point inside its own cell of the lattice and draws three
 * numbers per kept point, none for a rejected one; a region keeps what it
 * says. Poisson disk: no pair nearer than r (across periodic faces too),
 * no point of the region farther than 2r from a sample, the same stream
 * gives the same points, the count follows the volume and ppc, disjoint
 * components are all filled. Volume: within its stated error of a ball's.
 * Bad arguments name themselves. Host only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

static void test_lattice(void) {
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
}

/* ------------------------------------------------------------ Poisson disk */

/* points binned into cells of edge >= reach, for neighbour searches */
typedef struct bins {
  double lo[3], len[3];
  int nc[3], per[3];
  size_t *head, *next; /* head[cell]: first point + 1; next[p]: following + 1 */
} bins;

static bins bins_make(const bg_real *x, size_t n, const double lo[3], const double hi[3], const int per[3],
                      double reach) {
  bins b;
  size_t cells = 1;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = lo[a];
    b.len[a] = hi[a] - lo[a];
    b.per[a] = per[a];
    b.nc[a] = (int)floor(b.len[a] / reach);
    if (b.nc[a] < 1) b.nc[a] = 1;
    cells *= (size_t)b.nc[a];
  }
  b.head = calloc(cells, sizeof *b.head);
  b.next = calloc(n ? n : 1, sizeof *b.next);
  for (size_t p = 0; p < n; ++p) {
    size_t c = 0;
    for (int a = 0; a < 3; ++a) {
      int i = (int)floor((x[3 * p + a] - b.lo[a]) / b.len[a] * b.nc[a]);
      i = i < 0 ? 0 : i >= b.nc[a] ? b.nc[a] - 1 : i;
      c = c * (size_t)b.nc[a] + (size_t)i;
    }
    b.next[p] = b.head[c];
    b.head[c] = p + 1;
  }
  return b;
}

static void bins_free(bins *b) {
  free(b->head);
  free(b->next);
}

/* distance from q to the nearest point other than skip (SIZE_MAX: none),
 * searching the cells within one of q's (nearest image on periodic axes);
 * INFINITY when none is that near */
static double bins_nearest(const bins *b, const bg_real *x, const double q[3], size_t skip) {
  int c[3];
  for (int a = 0; a < 3; ++a) {
    c[a] = (int)floor((q[a] - b->lo[a]) / b->len[a] * b->nc[a]);
    c[a] = c[a] < 0 ? 0 : c[a] >= b->nc[a] ? b->nc[a] - 1 : c[a];
  }
  double best = INFINITY;
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj)
      for (int dk = -1; dk <= 1; ++dk) {
        int o[3] = {c[0] + di, c[1] + dj, c[2] + dk}, skipc = 0;
        for (int a = 0; a < 3; ++a) {
          if (o[a] >= 0 && o[a] < b->nc[a]) continue;
          if (!b->per[a] || b->nc[a] < 3) skipc = 1;
          o[a] = (o[a] + b->nc[a]) % b->nc[a];
        }
        if (skipc) continue;
        size_t cell = ((size_t)o[0] * (size_t)b->nc[1] + (size_t)o[1]) * (size_t)b->nc[2] + (size_t)o[2];
        for (size_t p1 = b->head[cell]; p1; p1 = b->next[p1 - 1]) {
          if (p1 - 1 == skip) continue;
          double r2 = 0;
          for (int a = 0; a < 3; ++a) {
            double e = q[a] - x[3 * (p1 - 1) + a];
            if (b->per[a]) e -= b->len[a] * nearbyint(e / b->len[a]);
            r2 += e * e;
          }
          if (r2 < best * best) best = sqrt(r2);
        }
      }
  return best;
}

/* the smallest distance between two of the n points */
static double min_pair(const bg_real *x, size_t n, const double lo[3], const double hi[3], const int per[3],
                       double r) {
  bins b = bins_make(x, n, lo, hi, per, r);
  double m = INFINITY;
  for (size_t p = 0; p < n; ++p) {
    double q[3] = {x[3 * p], x[3 * p + 1], x[3 * p + 2]};
    double d = bins_nearest(&b, x, q, p);
    if (d < m) m = d;
  }
  bins_free(&b);
  return m;
}

/* the largest distance from a point of a probe lattice (spacing h) inside
 * the region to its nearest sample; cells of 2r, so INFINITY past 2r */
static double max_gap(const bg_real *x, size_t n, const double lo[3], const double hi[3], const int per[3],
                      double r, double h, bg_region_fn inside, void *ctx) {
  bins b = bins_make(x, n, lo, hi, per, 2 * r);
  double m = 0;
  int np[3];
  for (int a = 0; a < 3; ++a) np[a] = (int)floor((hi[a] - lo[a]) / h);
  for (int i = 0; i < np[0]; ++i)
    for (int j = 0; j < np[1]; ++j)
      for (int k = 0; k < np[2]; ++k) {
        double q[3] = {lo[0] + (i + 0.5) * h, lo[1] + (j + 0.5) * h, lo[2] + (k + 0.5) * h};
        if (inside && !inside(q, ctx)) continue;
        double d = bins_nearest(&b, x, q, SIZE_MAX);
        if (d > m) m = d;
      }
  bins_free(&b);
  return m;
}

/* two balls of radius 0.15 about (0.25, 0.5, 0.5) and (0.75, 0.5, 0.5) */
static int in_two_balls(const double p[3], void *ctx) {
  (void)ctx;
  double dy = p[1] - 0.5, dz = p[2] - 0.5, a = p[0] - 0.25, b = p[0] - 0.75;
  return a * a + dy * dy + dz * dz <= 0.0225 || b * b + dy * dy + dz * dz <= 0.0225;
}

static bg_real *sample(bg_seed_poisson_desc *d, uint64_t seed, size_t *n) {
  char err[256];
  lcg g = {seed, 0};
  d->uniform = lcg_uniform;
  d->uniform_ctx = &g;
  size_t need = 0;
  bg_status s = bg_seed_poisson(d, NULL, 0, &need, err, sizeof err);
  bg_check_true(s == BG_OK, "counting the points (%s)", err);
  bg_real *x = malloc(3 * (need ? need : 1) * sizeof *x);
  g.s = seed;
  s = bg_seed_poisson(d, x, need, n, err, sizeof err);
  bg_check_true(s == BG_OK && *n == need, "the counted %zu points fit cap %zu (%s)", *n, need, err);
  return x;
}

static void test_poisson(void) {
  char err[256];
  bg_seed_poisson_desc d;
  memset(&d, 0, sizeof d);
  for (int a = 0; a < 3; ++a) d.hi[a] = 1.0;
  d.dx = 0.1;
  d.ppc = 4;
  d.inside = in_ball;
  double r = bg_seed_poisson_radius(d.dx, d.ppc);
  bg_check_rel(r, cbrt(6 * BG_SEED_POISSON_PACKING * 1e-3 / (3.14159265358979323846 * 4)), 1e-12, "r from ppc and the packing");

  /* a ball: spacing, maximality, its count */
  size_t n = 0;
  bg_real *x = sample(&d, 11, &n);
  int none[3] = {0, 0, 0};
  double mp = min_pair(x, n, d.lo, d.hi, none, r);
  bg_check_true(mp >= r * (1 - 1e-6), "ball: every pair at least r = %.5g apart (nearest pair %.5g)", r, mp);
  double gap = max_gap(x, n, d.lo, d.hi, none, r, r / 4, in_ball, NULL);
  bg_check_true(gap <= 2 * r, "ball: no probe point of the region farther than 2r from a sample (%.3g r)",
                gap / r);
  double vball = 4.0 / 3.0 * 3.14159265358979323846 * 0.027;
  /* away from the surface (which gathers a denser layer) the density is ppc / dx^3 */
  size_t core = 0;
  double rc = 0.3 - 2 * r;
  for (size_t p = 0; p < n; ++p)
    core += pow(x[3 * p] - 0.5, 2) + pow(x[3 * p + 1] - 0.5, 2) + pow(x[3 * p + 2] - 0.5, 2) < rc * rc;
  bg_check_rel((double)core, d.ppc * 4.0 / 3.0 * 3.14159265358979323846 * rc * rc * rc / 1e-3, 0.10,
               "ball: ppc points per dx^3 deeper than 2r (%zu of %zu)", core, n);

  /* the same stream gives the same points, another stream others */
  size_t n2 = 0;
  bg_real *y = sample(&d, 11, &n2);
  bg_check_true(n2 == n && memcmp(x, y, 3 * n * sizeof *x) == 0, "the same seed gives the same points");
  free(y);
  y = sample(&d, 12, &n2);
  bg_check_true(n2 != n || memcmp(x, y, 3 * n * sizeof *x) != 0, "another seed gives other points");
  free(y);

  /* the volume helper: within 4 of its stated errors of the ball's volume */
  bg_seed_volume_desc vd = {.lo = {0, 0, 0}, .hi = {1, 1, 1}, .h = 0.01, .inside = in_ball, .uniform = lcg_uniform};
  lcg gv = {5, 0};
  vd.uniform_ctx = &gv;
  bg_seed_volume_result vr;
  bg_status s = bg_seed_volume(&vd, n, &vr, err, sizeof err);
  bg_check_true(s == BG_OK, "volume of the ball (%s)", err);
  bg_check_abs(vr.volume, vball, 4 * vr.sigma, "ball volume within 4 sigma (sigma %.3g m^3)", vr.sigma);
  bg_check_true(vr.sigma > 0 && vr.sigma < 1e-3 * vball, "its sigma is below 1e-3 of the volume (%.3g)",
                vr.sigma / vball);
  bg_check_rel(vr.per_particle, vr.volume / (double)n, 1e-12, "volume per particle = volume / n");
  bg_check_abs((double)gv.draws, 6e6, 0, "volume: six draws per cell");
  free(x);

  /* periodic in x and y: no pair nearer than r through a face either */
  memset(&d, 0, sizeof d);
  d.hi[0] = d.hi[1] = 0.8;
  d.hi[2] = 0.5;
  d.dx = 0.1;
  d.ppc = 4;
  d.periodic[0] = d.periodic[1] = 1;
  x = sample(&d, 3, &n);
  int per[3] = {1, 1, 0};
  mp = min_pair(x, n, d.lo, d.hi, per, r);
  bg_check_true(mp >= r * (1 - 1e-6), "periodic: nearest images at least r apart (%.5g r)", mp / r);
  gap = max_gap(x, n, d.lo, d.hi, per, r, r / 4, NULL, NULL);
  bg_check_true(gap <= 2 * r, "periodic: no probe point farther than 2r from a sample (%.3g r)", gap / r);
  /* the same box without wrap: some pair is nearer than r through a face */
  memset(d.periodic, 0, sizeof d.periodic);
  bg_real *z = sample(&d, 3, &n2);
  double mpw = min_pair(z, n2, d.lo, d.hi, per, r);
  bg_check_true(mpw < r, "open faces measured through the wrap: some pair nearer than r (%.3g r)", mpw / r);
  free(z);
  free(x);

  /* the count follows the volume: periodic boxes of 1 and 2 units */
  size_t na = 0, nb = 0;
  memset(&d, 0, sizeof d);
  d.dx = 0.1;
  d.ppc = 2;
  d.periodic[0] = d.periodic[1] = d.periodic[2] = 1;
  d.hi[0] = d.hi[1] = d.hi[2] = 1.0;
  x = sample(&d, 21, &na);
  free(x);
  d.hi[0] = 2.0;
  x = sample(&d, 22, &nb);
  free(x);
  bg_check_rel((double)nb / (double)na, 2.0, 0.02, "periodic: twice the volume, twice the points (%zu, %zu)", na,
               nb);
  bg_check_rel((double)na, 2000, 0.03, "periodic: ppc 2 in 1000 dx^3 gives %zu points", na);

  /* two separate balls: the sweep fills both */
  memset(&d, 0, sizeof d);
  d.hi[0] = d.hi[1] = d.hi[2] = 1.0;
  d.dx = 0.1;
  d.ppc = 4;
  d.inside = in_two_balls;
  x = sample(&d, 9, &n);
  size_t left = 0;
  for (size_t p = 0; p < n; ++p) left += x[3 * p] < 0.5;
  bg_check_true(left > 0.4 * n && left < 0.6 * n, "two balls: both filled (%zu of %zu on the left)", left, n);
  gap = max_gap(x, n, d.lo, d.hi, none, r, r / 4, in_two_balls, NULL);
  bg_check_true(gap <= 2 * r, "two balls: no probe point farther than 2r (%.3g r)", gap / r);

  /* a short x: BG_ERR_RANGE with the count needed */
  lcg g = {9, 0};
  d.uniform = lcg_uniform;
  d.uniform_ctx = &g;
  size_t got = 0;
  s = bg_seed_poisson(&d, x, n - 1, &got, err, sizeof err);
  char want[64];
  snprintf(want, sizeof want, "%zu points", n);
  bg_check_true(s == BG_ERR_RANGE && got == n && strstr(err, want) && strstr(err, "cap"),
                "a short x: BG_ERR_RANGE naming the %zu needed and cap (%s)", n, err);
  free(x);

  /* bad arguments: named, and refused before any draw */
  struct {
    const char *what, *field;
    bg_status want;
  } bad[] = {{"dx 0", "dx", BG_ERR_RANGE},
             {"ppc 0", "ppc", BG_ERR_RANGE},
             {"k -1", "k", BG_ERR_RANGE},
             {"box z empty", "box z", BG_ERR_RANGE},
             {"lo NaN", "box y", BG_ERR_NONFINITE},
             {"periodic x shorter than 2r", "periodic axis x", BG_ERR_RANGE},
             {"no uniform source", "uniform", BG_ERR_NULL}};
  for (int c = 0; c < (int)(sizeof bad / sizeof bad[0]); ++c) {
    bg_seed_poisson_desc e;
    memset(&e, 0, sizeof e);
    e.hi[0] = e.hi[1] = e.hi[2] = 1;
    e.dx = 0.1;
    e.ppc = 4;
    lcg ge = {1, 0};
    e.uniform = lcg_uniform;
    e.uniform_ctx = &ge;
    if (c == 0) e.dx = 0;
    if (c == 1) e.ppc = 0;
    if (c == 2) e.k = -1;
    if (c == 3) e.hi[2] = 0;
    if (c == 4) e.lo[1] = NAN;
    if (c == 5) {
      e.hi[0] = 0.05;
      e.periodic[0] = 1;
    }
    if (c == 6) e.uniform = NULL;
    s = bg_seed_poisson(&e, NULL, 0, &got, err, sizeof err);
    bg_check_true(s == bad[c].want && strstr(err, bad[c].field) && ge.draws == 0,
                  "%s: %s naming '%s', no draws (%s)", bad[c].what, bg_status_name(bad[c].want), bad[c].field, err);
  }
  s = bg_seed_poisson(NULL, NULL, 0, &got, err, sizeof err);
  bg_check_true(s == BG_ERR_NULL, "desc NULL: BG_ERR_NULL (%s)", err);
  vd.h = 0;
  s = bg_seed_volume(&vd, 1, &vr, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "h"), "volume h 0: BG_ERR_RANGE naming h (%s)", err);
  vd.h = 0.01;
  vd.inside = NULL;
  s = bg_seed_volume(&vd, 1, &vr, err, sizeof err);
  bg_check_true(s == BG_ERR_NULL && strstr(err, "region"), "volume without a region: BG_ERR_NULL (%s)", err);
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  test_lattice();
  test_poisson();
  return bg_check_summary();
}
