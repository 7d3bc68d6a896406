/* bench_2d.c: the plane-strain (dim 2) solver against the 3D slab it
 * replaces, as a report, never a gate. One scene, both ways: a square
 * column of Klar sand (W x W cells, against the slip face -x) collapsing on
 * a Coulomb floor (mu 0.5), timed from rest to --time simulated seconds,
 * while it flows. The slab is the thinnest a 3D grid holds between its slip
 * y faces (the mirror planes): dims[1] = 4, the material filling the two
 * interior cells (2 x 2 x 2 particles per cell); the 2D run has 2 x 2 per
 * cell on the plane. test_2d shows the two give the same deposit.
 * Writes --out DIR/bench_2d.tsv: per run the particles, steps, wall time,
 * particle-steps/s and wall seconds per simulated second (the best of
 * --reps), with the machine and commit in its header; prints the speed-up.
 * scripts/lab bench 2d runs it. */
#define _DEFAULT_SOURCE

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bg_version.h"

typedef struct opts {
  const char *out, *backend;
  int threads, width, reps;
  double dx, time;
} opts;

typedef struct run {
  size_t n;
  uint64_t steps;
  double wall, runout;
} run;

static void die(const char *fmt, const char *arg) {
  fprintf(stderr, "bench_2d: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(2);
}

static double wall_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One collapse in dim 2 or 3, timed over bg_sim_advance_to(time). */
static run collapse(const opts *o, int dim) {
  const double dx = o->dx;
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = o->backend;
  d.threads = o->threads;
  d.dx = (bg_real)dx;
  d.dim = dim;
  d.dims[0] = (size_t)o->width * 7 / 2 + 4;
  d.dims[1] = dim == 2 ? 1 : 4;
  d.dims[2] = (size_t)o->width * 6 / 5 + 4;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  char err[512];
  bg_sim *sim;
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) die("%s", err);
  const int per = 2 * o->width, py = dim == 2 ? 1 : 4;
  const size_t n = (size_t)per * (size_t)per * (size_t)py;
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) die("%s", "out of memory");
  size_t p = 0;
  for (int i = 0; i < per; ++i)
    for (int j = 0; j < py; ++j)
      for (int k = 0; k < per; ++k, ++p) {
        x[3 * p + 0] = (bg_real)(0.5 * dx + (i + 0.5) * dx / 2);
        x[3 * p + 1] = dim == 2 ? 0.0f : (bg_real)(0.5 * dx + (j + 0.5) * dx / 2);
        x[3 * p + 2] = (bg_real)(0.5 * dx + (k + 0.5) * dx / 2);
      }
  run r = {n, 0, 0, 0};
  bg_status s = bg_sim_add_particles(sim, n, x, NULL, dim == 2 ? 4 : 8);
  const double t0 = wall_now();
  if (s == BG_OK) s = bg_sim_advance_to(sim, o->time);
  r.wall = wall_now() - t0;
  if (s != BG_OK) die("%s", bg_sim_last_error(sim));
  bg_stats st;
  bg_sim_stats(sim, &st);
  r.steps = st.step;
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  for (size_t q = 0; q < n; ++q)
    if (x[3 * q] - 0.5 * dx > r.runout) r.runout = x[3 * q] - 0.5 * dx;
  free(x);
  bg_sim_destroy(sim);
  return r;
}

static run best_of(const opts *o, int dim) {
  run best = collapse(o, dim);
  for (int k = 1; k < o->reps; ++k) {
    run r = collapse(o, dim);
    if (r.wall < best.wall) best = r;
  }
  return best;
}

static void parse(int argc, char **argv, opts *o) {
  static const struct option lo[] = {{"out", required_argument, 0, 'o'},
                                     {"backend", required_argument, 0, 'b'},
                                     {"threads", required_argument, 0, 't'},
                                     {"width", required_argument, 0, 'w'},
                                     {"dx", required_argument, 0, 'd'},
                                     {"time", required_argument, 0, 'T'},
                                     {"reps", required_argument, 0, 'r'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
      case 'o':
        o->out = optarg;
        break;
      case 'b':
        o->backend = optarg;
        break;
      case 't':
        o->threads = atoi(optarg);
        if (o->threads < 0 || o->threads > 4096)
          die("--threads %s: in [0, 4096] (0: OpenMP's default)", optarg);
        break;
      case 'w':
        o->width = atoi(optarg);
        if (o->width < 4 || o->width > 2000)
          die("--width %s: the column's side in cells, in [4, 2000]", optarg);
        break;
      case 'd':
        o->dx = atof(optarg);
        if (!(o->dx > 0 && o->dx <= 1)) die("--dx %s: in (0, 1] m", optarg);
        break;
      case 'T':
        o->time = atof(optarg);
        if (!(o->time > 0 && o->time <= 10))
          die("--time %s: simulated seconds, in (0, 10]", optarg);
        break;
      case 'r':
        o->reps = atoi(optarg);
        if (o->reps < 1 || o->reps > 20) die("--reps %s: in [1, 20]", optarg);
        break;
      default:
        printf(
            "usage: bench_2d [--out DIR (.)] [--backend NAME (cpu)] [--threads N (0)] [--width "
            "CELLS (40)]\n"
            "                [--dx M (0.005)] [--time S (0.3)] [--reps R (2)]\n");
        exit(c == 'h' ? 0 : 2);
    }
  }
}

int main(int argc, char **argv) {
  opts o = {".", "cpu", 0, 40, 2, 0.005, 0.3};
  parse(argc, argv, &o);
  run r[2] = {best_of(&o, 2), best_of(&o, 3)};
  bg_host h;
  bg_host_describe(&h);
  time_t t = time(NULL);
  char date[32], path[1200];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  snprintf(path, sizeof path, "%s/bench_2d.tsv", o.out);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  const char *wait = getenv("OMP_WAIT_POLICY");
  fprintf(f,
          "# bench_2d, bagnold %s commit %s, host %s (%s, %d cores), %s; backend %s, threads %d, "
          "OMP_WAIT_POLICY %s; column %d x %d cells, dx %g m, timed 0 to %g s, best of %d\n",
          BG_VERSION_STRING, BAGNOLD_GIT_COMMIT, h.name, h.cpu, h.cores, date, o.backend, o.threads,
          wait ? wait : "(unset)", o.width, o.width, o.dx, o.time, o.reps);
  fprintf(f,
          "solver\tparticles_1\tsteps_1\twall_s\tparticle_steps_per_s_1_per_s\twall_per_sim_s_"
          "1\trunout_m\n");
  const char *name[2] = {"2d", "slab3d"};
  for (int i = 0; i < 2; ++i) {
    const double pss = (double)r[i].n * (double)r[i].steps / r[i].wall, wps = r[i].wall / o.time;
    fprintf(f, "%s\t%zu\t%llu\t%.4g\t%.4g\t%.4g\t%.5f\n", name[i], r[i].n,
            (unsigned long long)r[i].steps, r[i].wall, pss, wps, r[i].runout);
    printf(
        "%-6s %8zu particles %6llu steps %8.3f s wall  %.4g particle-steps/s  %.4g wall s per sim "
        "s  runout %.4f m\n",
        name[i], r[i].n, (unsigned long long)r[i].steps, r[i].wall, pss, wps, r[i].runout);
  }
  if (fclose(f)) die("writing %s failed", path);
  printf("speed-up of 2D over the slab: %.2fx in wall time per simulated second\n",
         r[1].wall / r[0].wall);
  return 0;
}
