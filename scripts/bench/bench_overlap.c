/* bench_overlap.c: how much of a step's work can share the GPU's SMs. K
 * copies of the benchmark scene (bench_common.h) step at once, each from
 * its own host thread (each simulation has its own CUDA stream), against
 * one copy alone, in one run. P2G is bound by shared-memory atomics and G2P
 * by instruction issue (reports/results/h200/issue36-g2p), so two copies
 * whose stages fall out of step can run one's scatter beside the other's
 * gather. The aggregate rate over the single rate is the head room a fused
 * G2P2G kernel, which puts both in one kernel, could take; at 8M particles
 * the host's per-step wait is a few percent of a step, so little of the
 * gain is idle time filled. A benchmark, never a test: it asserts nothing.
 *
 * usage: bench_overlap [--particles N] [--scene freefall|collapse]
 *                      [--copies K] [--steps S] [--warmup W] [--reps R]
 *                      [--backend NAME] [--tsv PATH] */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bench_common.h"
#include "bg_version.h"

#define MAX_COPIES 8

typedef struct options {
  uint64_t particles, steps, warmup;
  int copies, reps;
  bench_kind scene;
  const char *backend, *tsv;
} options;

typedef struct job {
  const bench_scene *sc;
  const options *o;
  bg_sim *sim;
  bg_status st;
  char err[512];
} job;

static void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_overlap: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static uint64_t parse_count(const char *opt, const char *s, uint64_t lo, uint64_t hi) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  uint64_t mul = 1;
  if (end && (*end == 'M' || *end == 'K')) mul = *end++ == 'M' ? 1048576u : 1024u;
  if (errno || !end || *end || s[0] == '-' || v * mul < lo || v * mul > hi)
    die(2, "%s: '%s' is not a whole number in [%llu, %llu] (K and M suffixes: 2^10, 2^20)", opt, s,
        (unsigned long long)lo, (unsigned long long)hi);
  return (uint64_t)v * mul;
}

static void parse(int argc, char **argv, options *o) {
  static const struct option longs[] = {
      {"particles", required_argument, NULL, 'n'}, {"scene", required_argument, NULL, 's'},
      {"copies", required_argument, NULL, 'k'},    {"steps", required_argument, NULL, 't'},
      {"warmup", required_argument, NULL, 'w'},    {"reps", required_argument, NULL, 'r'},
      {"backend", required_argument, NULL, 'b'},   {"tsv", required_argument, NULL, 'o'},
      {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
  *o = (options){8388608, 40, 10, 2, 2, BENCH_FREEFALL, "cuda", NULL};
  int c;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (c) {
    case 'n': o->particles = parse_count("--particles", optarg, 1, 268435456); break;
    case 's': {
      int k = bench_kind_from_name(optarg);
      if (k < 0) die(2, "--scene: '%s' is neither freefall nor collapse", optarg);
      o->scene = (bench_kind)k;
      break;
    }
    case 'k': o->copies = (int)parse_count("--copies", optarg, 2, MAX_COPIES); break;
    case 't': o->steps = parse_count("--steps", optarg, 1, 100000); break;
    case 'w': o->warmup = parse_count("--warmup", optarg, 0, 100000); break;
    case 'r': o->reps = (int)parse_count("--reps", optarg, 1, 100); break;
    case 'b': o->backend = optarg; break;
    case 'o': o->tsv = optarg; break;
    case 'h':
      puts("usage: bench_overlap [--particles N (8M)] [--scene freefall|collapse] [--copies K (2, at most 8)]\n"
           "                     [--steps S (40)] [--warmup W (10)] [--reps R (2)] [--backend NAME (cuda)]\n"
           "                     [--tsv PATH]\n"
           "K copies of the benchmark scene stepping at once, each from its own thread, against one alone.");
      exit(0);
    default: die(2, "unknown option (--help lists them)");
    }
  }
  if (optind < argc) die(2, "unexpected argument '%s'", argv[optind]);
}

static void *prepare(void *arg) {
  job *j = arg;
  bg_sim_desc d = bench_scene_desc(j->sc, j->o->backend, 0);
  j->st = bg_sim_create(&d, &j->sim, j->err, sizeof j->err);
  if (j->st == BG_OK) j->st = bench_scene_prepare(j->sim, j->sc, 8, j->o->warmup);
  if (j->st != BG_OK && j->sim) snprintf(j->err, sizeof j->err, "%s", bg_sim_last_error(j->sim));
  return NULL;
}

static void *step(void *arg) {
  job *j = arg;
  j->st = bg_sim_run(j->sim, j->o->steps);
  if (j->st == BG_OK) j->st = bg_sim_stage_times(j->sim, (double[4]){0});
  if (j->st != BG_OK) snprintf(j->err, sizeof j->err, "%s", bg_sim_last_error(j->sim));
  return NULL;
}

/* k copies prepared one after the other (untimed), then stepped at once;
 * returns the aggregate particle-steps per second. */
static double run_copies(const bench_scene *sc, const options *o, int k) {
  job jobs[MAX_COPIES];
  pthread_t th[MAX_COPIES];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < k; ++i) {
    jobs[i] = (job){sc, o, NULL, BG_OK, ""};
    prepare(&jobs[i]);
    if (jobs[i].st != BG_OK) die(1, "copy %d: %s: %s", i, bg_status_name(jobs[i].st), jobs[i].err);
  }
  const double t0 = now_s();
  for (int i = 0; i < k; ++i)
    if (pthread_create(&th[i], NULL, step, &jobs[i]) != 0) die(1, "cannot start thread %d", i);
  for (int i = 0; i < k; ++i) pthread_join(th[i], NULL);
  const double wall = now_s() - t0;
  for (int i = 0; i < k; ++i) {
    if (jobs[i].st != BG_OK) die(1, "copy %d: %s: %s", i, bg_status_name(jobs[i].st), jobs[i].err);
    bg_sim_destroy(jobs[i].sim);
  }
  return (double)sc->n * (double)o->steps * k / wall;
}

int main(int argc, char **argv) {
  options o;
  parse(argc, argv, &o);
  bench_scene sc;
  if (!bench_scene_build_kind(&sc, o.particles, 8, o.scene)) die(1, "no host memory for the scene");
  FILE *tsv = NULL;
  if (o.tsv) {
    tsv = fopen(o.tsv, "a");
    if (!tsv) die(1, "cannot open %s: %s", o.tsv, strerror(errno));
    if (ftell(tsv) == 0) fputs("commit\tbackend\tscene\tparticles\tcopies\trep\tsteps\trate_one\trate_all\tratio\n", tsv);
  }
  printf("%9s %12s %6s %4s %14s %14s %7s\n", "scene", "particles", "copies", "rep", "one Mps/s", "all Mps/s", "ratio");
  for (int r = 0; r < o.reps; ++r) {
    /* alone, then together, then alone again: a drift of the card shows as two different single rates */
    const double one_a = run_copies(&sc, &o, 1);
    const double all = run_copies(&sc, &o, o.copies);
    const double one_b = run_copies(&sc, &o, 1);
    const double one = 0.5 * (one_a + one_b);
    printf("%9s %12llu %6d %4d %14.1f %14.1f %7.3f   (alone before %.1f, after %.1f)\n", bench_kind_name(o.scene),
           (unsigned long long)sc.n, o.copies, r, one / 1e6, all / 1e6, all / one, one_a / 1e6, one_b / 1e6);
    if (tsv)
      fprintf(tsv, "%s\t%s\t%s\t%llu\t%d\t%d\t%llu\t%.6g\t%.6g\t%.4f\n", BAGNOLD_GIT_COMMIT, o.backend,
              bench_kind_name(o.scene), (unsigned long long)sc.n, o.copies, r, (unsigned long long)o.steps, one, all,
              all / one);
  }
  free(sc.x);
  if (tsv && fclose(tsv) != 0) die(1, "writing %s failed", o.tsv);
  return 0;
}
