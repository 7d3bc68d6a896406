/* bench_seed.c: the seeding patterns side by side, as a report, never a
 * gate. Writes into --out DIR:
 *   seed_nn.tsv    the nearest-neighbour distance distribution, normalised
 *                  by the lattice spacing s = dx / ppc^(1/3), of the lab's
 *                  jittered lattice (jitter 0.5) and of bg_seed_poisson at
 *                  the same ppc, in a periodic cube (no faces to bias it);
 *   seed_stats.tsv their mean, spread, minimum and 1% quantile, and
 *                  Poisson's packing fraction n pi r^3 / 6;
 *   seed_rate.tsv  particles per second of each pattern for 10^4 .. 2x10^6
 *                  particles in a periodic cube (one thread: seeding is
 *                  serial), the best of --reps in CPU seconds of the
 *                  process (other load on a shared machine left out).
 * Draw with reports/seed_spacing.gp. scripts/lab bench seed runs it. */
#define _DEFAULT_SOURCE

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_version.h"

#define PI 3.14159265358979323846
#define NN_BINS 100
#define NN_MAX 2.0 /* histogram range in lattice spacings */

typedef struct rng {
  uint64_t s;
} rng;

/* splitmix64: a stream, not a study of generators */
static double uniform(void *ctx) {
  rng *g = ctx;
  uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

/* the process's CPU time: a shared machine's other load does not count */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench_seed: %s\n", what);
  exit(2);
}

/* a periodic cube of side cells (dx 1) seeded by pattern: 0 lattice, 1 Poisson */
static bg_real *seed_cube(int pattern, int side, double ppc, uint64_t seed, size_t *n) {
  char err[256];
  rng g = {seed};
  bg_real *x = NULL;
  if (pattern == 0) {
    size_t per = (size_t)llround(cbrt(ppc)) * (size_t)side;
    bg_seed_lattice_desc d = {.spacing = (double)side / (double)per,
                              .count = {per, per, per},
                              .jitter = 0.5,
                              .uniform = uniform,
                              .uniform_ctx = &g};
    x = malloc(3 * per * per * per * sizeof *x);
    if (!x || bg_seed_lattice(&d, x, per * per * per, n, err, sizeof err) != BG_OK) die(err);
  } else {
    bg_seed_poisson_desc d = {.hi = {side, side, side},
                              .dx = 1,
                              .ppc = ppc,
                              .periodic = {1, 1, 1},
                              .uniform = uniform,
                              .uniform_ctx = &g};
    /* the packing bound with room: Poisson holds about ppc per cell */
    size_t cap = (size_t)(1.2 * ppc * pow(side, 3)) + 64;
    x = malloc(3 * cap * sizeof *x);
    if (!x || bg_seed_poisson(&d, x, cap, n, err, sizeof err) != BG_OK) die(err);
  }
  return x;
}

/* nearest-neighbour distance of every point (periodic cube of side L), by
 * a cell list of edge >= reach; points with none within reach get reach */
static void nearest(const bg_real *x, size_t n, double L, double reach, double *out) {
  int nc = (int)floor(L / reach);
  if (nc < 3) nc = 3;
  size_t cells = (size_t)nc * nc * nc;
  size_t *head = calloc(cells, sizeof *head), *next = calloc(n, sizeof *next);
  int *cid = malloc(3 * n * sizeof *cid);
  if (!head || !next || !cid) die("out of memory");
  for (size_t p = 0; p < n; ++p) {
    size_t c = 0;
    for (int a = 0; a < 3; ++a) {
      int i = (int)floor(x[3 * p + a] / L * nc);
      i = i < 0 ? 0 : i >= nc ? nc - 1 : i;
      cid[3 * p + a] = i;
      c = c * (size_t)nc + (size_t)i;
    }
    next[p] = head[c];
    head[c] = p + 1;
  }
  for (size_t p = 0; p < n; ++p) {
    double best = reach * reach;
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj)
        for (int dk = -1; dk <= 1; ++dk) {
          int i = (cid[3 * p] + di + nc) % nc, j = (cid[3 * p + 1] + dj + nc) % nc,
              k = (cid[3 * p + 2] + dk + nc) % nc;
          for (size_t q = head[((size_t)i * nc + j) * nc + k]; q; q = next[q - 1]) {
            if (q - 1 == p) continue;
            double r2 = 0;
            for (int a = 0; a < 3; ++a) {
              double e = (double)x[3 * p + a] - x[3 * (q - 1) + a];
              e -= L * nearbyint(e / L);
              r2 += e * e;
            }
            if (r2 < best) best = r2;
          }
        }
    out[p] = sqrt(best);
  }
  free(head);
  free(next);
  free(cid);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* the distribution and its summary for both patterns */
static void spacing(const char *out, int side, double ppc, const char *prov) {
  double s = 1.0 / cbrt(ppc), hist[2][NN_BINS], stat[2][5];
  for (int pat = 0; pat < 2; ++pat) {
    size_t n = 0;
    bg_real *x = seed_cube(pat, side, ppc, 7, &n);
    double *d = malloc(n * sizeof *d);
    if (!d) die("out of memory");
    nearest(x, n, side, 2.0 * s, d);
    double sum = 0, sum2 = 0;
    memset(hist[pat], 0, sizeof hist[pat]);
    for (size_t p = 0; p < n; ++p) {
      double u = d[p] / s;
      sum += u;
      sum2 += u * u;
      int b = (int)(u / NN_MAX * NN_BINS);
      if (b >= 0 && b < NN_BINS) hist[pat][b] += 1;
    }
    for (int b = 0; b < NN_BINS; ++b) hist[pat][b] /= (double)n * (NN_MAX / NN_BINS);
    qsort(d, n, sizeof *d, cmp_double);
    double mean = sum / (double)n;
    stat[pat][0] = (double)n;
    stat[pat][1] = mean;
    stat[pat][2] = sqrt(fmax(0, sum2 / (double)n - mean * mean));
    stat[pat][3] = d[0] / s;
    stat[pat][4] = d[n / 100] / s;
    free(d);
    free(x);
  }
  char path[1200];
  snprintf(path, sizeof path, "%s/seed_nn.tsv", out);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write seed_nn.tsv");
  fprintf(f,
          "# %s; nearest-neighbour distance over s = dx / ppc^(1/3), periodic cube of %d^3 cells, "
          "ppc %g\n",
          prov, side, ppc);
  fprintf(f, "d_over_s\tpdf_lattice_1\tpdf_poisson_1\n");
  for (int b = 0; b < NN_BINS; ++b)
    fprintf(f, "%.4f\t%.6g\t%.6g\n", (b + 0.5) * NN_MAX / NN_BINS, hist[0][b], hist[1][b]);
  if (fclose(f)) die("writing seed_nn.tsv failed");
  snprintf(path, sizeof path, "%s/seed_stats.tsv", out);
  f = fopen(path, "w");
  if (!f) die("cannot write seed_stats.tsv");
  double r = bg_seed_poisson_radius(1, ppc);
  fprintf(
      f,
      "# %s; nearest-neighbour distance over s, periodic cube of %d^3 cells, ppc %g; r = %.6g s\n",
      prov, side, ppc, r / s);
  fprintf(f,
          "pattern\tparticles_1\tppc_reached_1\tmean_over_s_1\tsd_over_s_1\tmin_over_s_1\tq01_over_"
          "s_1\t"
          "packing_fraction_1\n");
  static const char *names[2] = {"lattice_jitter_0.5", "poisson"};
  for (int pat = 0; pat < 2; ++pat) {
    double vol = pow(side, 3), phi = stat[pat][0] * PI * r * r * r / 6 / vol;
    fprintf(f, "%s\t%.0f\t%.5g\t%.5g\t%.5g\t%.5g\t%.5g\t%.5g\n", names[pat], stat[pat][0],
            stat[pat][0] / vol, stat[pat][1], stat[pat][2], stat[pat][3], stat[pat][4],
            pat ? phi : NAN);
  }
  if (fclose(f)) die("writing seed_stats.tsv failed");
  printf("spacing: lattice mean %.3f s (min %.3f), poisson mean %.3f s (min %.3f), packing %.4f\n",
         stat[0][1], stat[0][3], stat[1][1], stat[1][3],
         stat[1][0] * PI * r * r * r / 6 / pow(side, 3));
}

static void rates(const char *out, double ppc, double max_n, int reps, const char *prov) {
  char path[1200];
  snprintf(path, sizeof path, "%s/seed_rate.tsv", out);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write seed_rate.tsv");
  fprintf(f, "# %s; periodic cube at ppc %g, one thread, best of %d in process CPU time\n", prov,
          ppc, reps);
  fprintf(f, "pattern\tparticles_1\tcpu_seconds_s\tparticles_per_cpu_s_1_per_s\n");
  for (double target = 1e4; target <= max_n * 1.001; target *= target < 1e6 ? sqrt(10.0) : 2) {
    int side = (int)llround(cbrt(target / ppc));
    for (int pat = 0; pat < 2; ++pat) {
      double best = INFINITY;
      size_t n = 0;
      for (int k = 0; k < reps; ++k) {
        double t0 = now();
        bg_real *x = seed_cube(pat, side, ppc, 100 + (uint64_t)k, &n);
        double t = now() - t0;
        free(x);
        if (t < best) best = t;
      }
      fprintf(f, "%s\t%zu\t%.4g\t%.4g\n", pat ? "poisson" : "lattice", n, best, (double)n / best);
      printf("rate: %-8s %9zu particles %8.3f s %10.4g /s\n", pat ? "poisson" : "lattice", n, best,
             (double)n / best);
      fflush(stdout);
    }
  }
  if (fclose(f)) die("writing seed_rate.tsv failed");
}

int main(int argc, char **argv) {
  const char *out = ".";
  double ppc = 8, max_n = 2e6;
  int side = 24, reps = 2;
  static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                       {"ppc", required_argument, 0, 'p'},
                                       {"max", required_argument, 0, 'm'},
                                       {"side", required_argument, 0, 's'},
                                       {"reps", required_argument, 0, 'r'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'o':
        out = optarg;
        break;
      case 'p':
        ppc = atof(optarg);
        if (!(ppc == 1 || ppc == 8 || ppc == 27 || ppc == 64))
          die("--ppc: one of 1, 8, 27, 64 (the lattice's cubes)");
        break;
      case 'm':
        max_n = atof(optarg);
        if (!(max_n >= 1e4 && max_n <= 1e8)) die("--max: in [1e4, 1e8] particles");
        break;
      case 's':
        side = atoi(optarg);
        if (side < 4 || side > 200) die("--side: in [4, 200] cells");
        break;
      case 'r':
        reps = atoi(optarg);
        if (reps < 1 || reps > 20) die("--reps: in [1, 20]");
        break;
      default:
        printf(
            "usage: bench_seed [--out DIR] [--ppc 1|8|27|64 (8)] [--side CELLS (24)] [--max N "
            "(2e6)] "
            "[--reps R (2)]\n");
        return c == 'h' ? 0 : 2;
    }
  }
  char prov[512], host[128] = "?";
  gethostname(host, sizeof host);
  time_t t = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  snprintf(prov, sizeof prov, "bench_seed, bagnold %s commit %s, host %s, %s", BG_VERSION_STRING,
           BAGNOLD_GIT_COMMIT, host, date);
  spacing(out, side, ppc, prov);
  rates(out, ppc, max_n, reps, prov);
  return 0;
}
