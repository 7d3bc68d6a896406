/* bench_cpu.c: throughput benchmark of bagnold's CPU backend. A benchmark,
 * never a test: it measures and reports, it asserts nothing about time.
 *
 * Scene: a dense block of Klar sand on a regular lattice (ppc = k^3
 * particles per cell, k per axis at cell offsets (i + 0.5) / k, i.e. 0.25
 * and 0.75 for the default ppc 8), dx = 1 cm, at rest a little above the
 * floor (the -z domain face, Coulomb mu 0.5; the other faces slip), gravity
 * -9.81 m/s^2. The block is C x C cells laterally, C the smallest side with
 * C^3 * ppc >= N, and is filled layer by layer from the bottom until exactly
 * N particles are placed (so the count is exact; when N is not ppc times a
 * cube, the top particle layer is partly filled and the block is a little
 * shorter than C). The grid is the block plus 4 cells on every lateral side,
 * the block starts 4 cells above the -z face, and the grid is 1.6 C + 8
 * cells tall.
 *
 * Protocol (shared/PERFORMANCE.md): for rep in 1..R, for T in the thread
 * list: create a fresh simulation with desc.threads = T, add the particles,
 * run the warm-up steps untimed, then time the steps with CLOCK_MONOTONIC
 * and read bg_sim_stage_times before and after. Every timed block runs on a
 * FRESH simulation, so every block of every thread count starts from the
 * same physical state (same particle order, same dt sequence, same work):
 * comparisons between thread counts are then like for like, which a
 * persistent simulation advanced between reps would not give (the sand
 * moves, the dt changes, the particle order drifts between re-sorts).
 * Interleaving the thread counts inside each repetition spreads machine
 * drift over all of them; the speedup is measured inside this one run.
 *
 * Output: a table on stdout, one progress line per timed block on stderr,
 * and with --out DIR: DIR/bench_cpu.tsv (one row per rep and thread count)
 * and DIR/bench_cpu.json (the summary with commit, machine and scene); they
 * are written by bench_cpu_out.c. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "bagnold.h"
#include "bench_common.h"
#include "bench_cpu_out.h"

/* ------------------------------------------------------------- parameters */

#define MAX_PARTICLES 268435456ull /* 2^28: about 40 GiB of solver state */
#define MAX_STEPS 1000000ull
#define MAX_REPS 1000ull
#define MAX_THREADS 4096ull /* the library's own bound on desc.threads */

/* ------------------------------------------------------------------ usage */

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_cpu [options]\n"
          "\n"
          "Throughput of the CPU backend (particle-steps per second) on a block of sand\n"
          "resting above a floor, for each thread count, interleaved over repetitions.\n"
          "\n"
          "options:\n"
          "  --particles N   particles, in [1, %llu] (default 1048576)\n"
          "  --ppc K         particles per cell: 1, 8, 27 or 64 (a cube, default 8)\n"
          "  --steps S       timed steps per repetition, in [1, %llu] (default 20)\n"
          "  --warmup W      untimed steps before each timed block, in [0, %llu] (default 5;\n"
          "                  collapse: after the untimed advance to mid-collapse)\n"
          "  --scene NAME    freefall (the block timed from rest, default) or collapse (a\n"
          "                  column with room to spread, particles in shuffled order, timed\n"
          "                  at 1.5 sqrt(h/g), mid-runout, while it flows and yields)\n"
          "  --reps R        interleaved repetitions, in [1, %llu] (default 3)\n"
          "  --threads LIST  comma-separated thread counts, each in [1, %llu], distinct,\n"
          "                  at most %d of them (default 1,2)\n"
          "  --out DIR       write DIR/bench_cpu.tsv and DIR/bench_cpu.json (DIR is\n"
          "                  created like mkdir -p); without it nothing is written\n"
          "  --source DIR    source tree asked for the git commit (default .);\n"
          "                  the environment variable BAGNOLD_COMMIT overrides it\n"
          "  -h, --help      show this text\n"
          "\n"
          "Every timed block runs on a fresh simulation, so all thread counts start from\n"
          "the same physical state. Exit status: 0 done, 1 runtime failure, 2 bad usage.\n",
          MAX_PARTICLES, MAX_STEPS, MAX_STEPS, MAX_REPS, MAX_THREADS, MAX_THREAD_ENTRIES);
}

/* ---------------------------------------------------------------- parsing */

/* Strict unsigned decimal in [lo, hi]: digits only, no sign, no suffix. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!s || !*s) return 0;
  for (const char *c = s; *c; ++c)
    if (*c < '0' || *c > '9') return 0;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno == ERANGE || *end) return 0;
  if (v < lo || v > hi) return 0;
  *out = (uint64_t)v;
  return 1;
}

static uint64_t opt_u64(const char *name, const char *arg, uint64_t lo, uint64_t hi) {
  uint64_t v;
  if (!parse_u64(arg, lo, hi, &v))
    bench_cpu_die(2, "--%s must be an integer in [%llu, %llu] (got '%s')", name,
                  (unsigned long long)lo, (unsigned long long)hi, arg ? arg : "");
  return v;
}

static void parse_threads(const char *arg, options *o) {
  const char *rule = "a comma-separated list of distinct integers, each in [1, 4096], at most 64";
  if (!arg || !*arg) bench_cpu_die(2, "--threads must be %s (got an empty list)", rule);
  o->n_threads = 0;
  const char *p = arg;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[32];
    if (len == 0 || len >= sizeof item)
      bench_cpu_die(2, "--threads must be %s (got '%s': entry %d is %s)", rule, arg,
                    o->n_threads + 1, len == 0 ? "empty" : "too long");
    memcpy(item, p, len);
    item[len] = 0;
    uint64_t v;
    if (!parse_u64(item, 1, MAX_THREADS, &v))
      bench_cpu_die(2, "--threads must be %s (got '%s': entry '%s')", rule, arg, item);
    for (int i = 0; i < o->n_threads; ++i)
      if (o->threads[i] == (int)v)
        bench_cpu_die(2, "--threads must be %s (got '%s': %d twice)", rule, arg, (int)v);
    if (o->n_threads == MAX_THREAD_ENTRIES)
      bench_cpu_die(2, "--threads must be %s (got '%s': more than %d entries)", rule, arg,
                    MAX_THREAD_ENTRIES);
    o->threads[o->n_threads++] = (int)v;
    if (!comma) break;
    p = comma + 1;
  }
}

static void parse_args(int argc, char **argv, options *o) {
  enum { O_PARTICLES = 256, O_PPC, O_STEPS, O_WARMUP, O_REPS, O_THREADS, O_OUT, O_SOURCE, O_SCENE };
  static const struct option longs[] = {
      {"particles", required_argument, NULL, O_PARTICLES},
      {"ppc", required_argument, NULL, O_PPC},
      {"steps", required_argument, NULL, O_STEPS},
      {"warmup", required_argument, NULL, O_WARMUP},
      {"reps", required_argument, NULL, O_REPS},
      {"threads", required_argument, NULL, O_THREADS},
      {"out", required_argument, NULL, O_OUT},
      {"source", required_argument, NULL, O_SOURCE},
      {"scene", required_argument, NULL, O_SCENE},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  o->particles = 1048576;
  o->ppc = 8;
  o->steps = 20;
  o->warmup = 5;
  o->reps = 3;
  o->threads[0] = 1;
  o->threads[1] = 2;
  o->n_threads = 2;
  o->out = NULL;
  o->source = ".";
  o->scene = BENCH_FREEFALL;
  int c;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (c) {
      case O_PARTICLES: o->particles = opt_u64("particles", optarg, 1, MAX_PARTICLES); break;
      case O_PPC: {
        uint64_t v;
        if (!parse_u64(optarg, 1, 64, &v) || (v != 1 && v != 8 && v != 27 && v != 64))
          bench_cpu_die(2, "--ppc must be 1, 8, 27 or 64 (a cube k^3, k = 1..4 per axis) (got '%s')",
                        optarg);
        o->ppc = v;
        break;
      }
      case O_STEPS: o->steps = opt_u64("steps", optarg, 1, MAX_STEPS); break;
      case O_WARMUP: o->warmup = opt_u64("warmup", optarg, 0, MAX_STEPS); break;
      case O_REPS: o->reps = opt_u64("reps", optarg, 1, MAX_REPS); break;
      case O_THREADS: parse_threads(optarg, o); break;
      case O_OUT:
        if (!*optarg) bench_cpu_die(2, "--out must be a non-empty directory path");
        o->out = optarg;
        break;
      case O_SOURCE:
        if (!*optarg) bench_cpu_die(2, "--source must be a non-empty directory path");
        o->source = optarg;
        break;
      case O_SCENE: {
        int k = bench_kind_from_name(optarg);
        if (k < 0) bench_cpu_die(2, "--scene must be freefall or collapse (got '%s')", optarg);
        o->scene = (bench_kind)k;
        break;
      }
      case 'h': usage(stdout); exit(0);
      default: /* getopt_long has printed what was wrong */
        fprintf(stderr, "bench_cpu: see --help for the options and their ranges\n");
        exit(2);
    }
  }
  if (optind < argc)
    bench_cpu_die(2, "unexpected argument '%s' (every option is --name VALUE; see --help)",
                  argv[optind]);
  struct stat st;
  if (stat(o->source, &st) != 0 || !S_ISDIR(st.st_mode))
    bench_cpu_die(2, "--source must be an existing directory (got '%s')", o->source);
}

/* ----------------------------------------------------------- environment */

/* Oversubscription and other work on the machine make the timings not the
 * machine's: say so before they are taken. Records the wait policy and the
 * load average before. */
static void warn_about_load(const options *o, bench_cpu_env *env) {
  const long nproc = env->nproc;
  for (int i = 0; i < o->n_threads; ++i)
    if (nproc > 0 && o->threads[i] > nproc)
      fprintf(stderr, "bench_cpu: warning: %d threads on %ld online CPUs (oversubscribed)\n",
              o->threads[i], nproc);
  /* Other work on the machine: with libgomp's default (spinning) waits, a
   * thread that loses its core to another process stalls its partner at
   * every barrier, which cut the 2-thread rate here from 7.8 to 0.33 M/s.
   * Passive waiting (the lab's default, scripts/lab) degrades gracefully. */
  const char *wait_env = getenv("OMP_WAIT_POLICY");
  env->wait_policy = wait_env && *wait_env ? wait_env : "unset (libgomp: spin, then sleep)";
  env->passive = wait_env && (strcasecmp(wait_env, "passive") == 0);
  int max_threads = 1;
  for (int i = 0; i < o->n_threads; ++i)
    max_threads = o->threads[i] > max_threads ? o->threads[i] : max_threads;
  const double load0 = env->load0 = bench_cpu_load_average();
  if (load0 >= 0 && nproc > 0 && load0 > 0.5 && load0 + max_threads > (double)nproc + 0.25)
    fprintf(stderr,
            "bench_cpu: warning: the load average is %.2f on %ld CPUs before the benchmark: other processes will "
            "share the cores with its %d threads, so the timings are not the machine's%s\n",
            load0, nproc, max_threads,
            env->passive ? "" : "; OpenMP waits are not passive (OMP_WAIT_POLICY), which makes that far worse: "
                                "set OMP_WAIT_POLICY=passive");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- running */

/* The grid as text and the re-sorts inside the timed window: the physical
 * re-sort runs on steps that are multiples of sort_interval, and its cost is
 * only in the sort column when one falls in the window (with the defaults,
 * 5 + 20 < 32: none). */
static void describe_window(const options *o, const bench_scene *sc, bench_cpu_window *w) {
  w->sort_interval = (uint64_t)bg_sim_desc_default().sort_interval;
  w->resorts = 0;
  for (uint64_t s = o->warmup; s < o->warmup + o->steps; ++s)
    w->resorts += s % w->sort_interval == 0;
  snprintf(w->grid, sizeof w->grid, "%zux%zux%zu", sc->dims[0], sc->dims[1], sc->dims[2]);
}

static void sim_fail(bg_sim *sim, const char *call, bg_status s) {
  fprintf(stderr, "bench_cpu: error: %s failed: %s (%s): %s\n", call, bg_status_name(s),
          bg_status_str(s), sim ? bg_sim_last_error(sim) : "");
  bg_sim_destroy(sim);
  exit(1);
}

/* One timed block on a fresh simulation. */
static void run_block(const options *o, const bench_scene *sc, int threads, block_result *r) {
  bg_sim_desc d = bench_scene_desc(sc, bench_first_backend(0), threads);
  bg_sim *sim = NULL;
  char err[512] = "";
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  if (s != BG_OK)
    bench_cpu_die(1, "bg_sim_create (threads %d) failed: %s (%s): %s", threads,
                  bg_status_name(s), bg_status_str(s), err);
  if ((s = bench_scene_prepare(sim, sc, (int)o->ppc, o->warmup)) != BG_OK)
    sim_fail(sim, "adding particles and the untimed warm-up", s);

  double ms0[N_STAGES], ms1[N_STAGES];
  if ((s = bg_sim_stage_times(sim, ms0)) != BG_OK) sim_fail(sim, "bg_sim_stage_times", s);
  double t0 = now_s();
  s = bg_sim_run(sim, o->steps);
  double t1 = now_s();
  if (s != BG_OK) sim_fail(sim, "bg_sim_run (timed)", s);
  if ((s = bg_sim_stage_times(sim, ms1)) != BG_OK) sim_fail(sim, "bg_sim_stage_times", s);

  bg_stats st;
  if ((s = bg_sim_stats(sim, &st)) != BG_OK) sim_fail(sim, "bg_sim_stats", s);
  r->wall_s = t1 - t0;
  for (int i = 0; i < N_STAGES; ++i) r->ms[i] = (ms1[i] - ms0[i]) / (double)o->steps;
  r->dt = (double)st.dt;
  r->sim_time = st.time;
  r->n_active = st.n_active;
  r->max_speed = st.max_speed;
  bench_yield_fraction(sim, &r->shear, &r->tip);
  bg_sim_destroy(sim);

  /* A blown-up state would time the wrong work: refuse to report it. */
  if (!isfinite(r->max_speed))
    bench_cpu_die(1,
                  "the simulation diverged (max speed %g m/s, threads %d); the timings mean nothing",
                  r->max_speed, threads);
  if (r->n_active != (size_t)sc->n)
    fprintf(stderr, "bench_cpu: warning: %zu of %llu particles parked during the run (threads %d)\n",
            (size_t)sc->n - r->n_active, (unsigned long long)sc->n, threads);
}

/* Every repetition, each thread count in turn inside it; the dates bracket
 * the timed work. Returns res[rep * n_threads + t]. */
static block_result *run_reps(const options *o, const bench_scene *sc, const bench_cpu_window *w,
                              bench_cpu_env *env) {
  bench_cpu_iso_utc_now(env->date_start, sizeof env->date_start);
  fprintf(stderr,
          "bench_cpu: %llu particles (ppc %llu), block %llu x %llu x %.2f cells, grid %s nodes, "
          "%llu warm-up + %llu timed steps, %llu reps x %d thread counts, commit %s, %s\n",
          (unsigned long long)sc->n, (unsigned long long)o->ppc, (unsigned long long)sc->side,
          (unsigned long long)sc->side, sc->height, w->grid, (unsigned long long)o->warmup,
          (unsigned long long)o->steps, (unsigned long long)o->reps, o->n_threads, env->commit,
          env->date_start);
  size_t nt = (size_t)o->n_threads, nr = (size_t)o->reps;
  block_result *res = calloc(nt * nr, sizeof *res);
  if (!res) bench_cpu_die(1, "out of memory");
  for (size_t rep = 0; rep < nr; ++rep)
    for (size_t t = 0; t < nt; ++t) {
      block_result *r = &res[rep * nt + t];
      run_block(o, sc, o->threads[t], r);
      fprintf(stderr,
              "bench_cpu: rep %zu/%zu threads %d: %llu steps in %.3f s, %.3f M particle-steps/s "
              "(ms/step: sort %.2f p2g %.2f grid %.2f g2p %.2f; dt %.3g s)\n",
              rep + 1, nr, o->threads[t], (unsigned long long)o->steps, r->wall_s,
              (double)sc->n * (double)o->steps / r->wall_s * 1e-6, r->ms[0], r->ms[1], r->ms[2],
              r->ms[3], r->dt);
    }
  bench_cpu_iso_utc_now(env->date_end, sizeof env->date_end);
  return res;
}

/* ------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* min, median, max of n values (n >= 1); v is left untouched. */
static void summarize(const double *v, size_t n, double *mn, double *med, double *mx) {
  double *t = malloc(n * sizeof *t);
  if (!t) bench_cpu_die(1, "out of memory");
  memcpy(t, v, n * sizeof *t);
  qsort(t, n, sizeof *t, cmp_double);
  *mn = t[0];
  *mx = t[n - 1];
  *med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  free(t);
}

static double median_of(const double *v, size_t n) {
  double a, b, c;
  summarize(v, n, &a, &b, &c);
  return b;
}

/* The index of the thread count in o->threads, or -1. */
static int thread_index(const options *o, int threads) {
  int at = -1;
  for (int t = 0; t < o->n_threads; ++t)
    if (o->threads[t] == threads) at = t;
  return at;
}

/* Per thread count: rates, medians, and the speedups over one thread both of
 * the medians and paired within each repetition (paired, the drift of the
 * machine between repetitions cancels). */
static t_summary *summarize_threads(const options *o, const bench_scene *sc,
                                    const block_result *res) {
  size_t nt = (size_t)o->n_threads, nr = (size_t)o->reps;
  t_summary *sum = calloc(nt, sizeof *sum);
  double *tmp = malloc(nr * sizeof *tmp);
  if (!sum || !tmp) bench_cpu_die(1, "out of memory");
  for (size_t t = 0; t < nt; ++t) {
    t_summary *u = &sum[t];
    u->threads = o->threads[t];
    for (size_t rep = 0; rep < nr; ++rep)
      tmp[rep] = (double)sc->n * (double)o->steps / res[rep * nt + t].wall_s;
    summarize(tmp, nr, &u->pss_min, &u->pss_med, &u->pss_max);
    for (size_t rep = 0; rep < nr; ++rep)
      tmp[rep] = 1e3 * res[rep * nt + t].wall_s / (double)o->steps;
    u->ms_step_med = median_of(tmp, nr);
    for (int s = 0; s < N_STAGES; ++s) {
      for (size_t rep = 0; rep < nr; ++rep) tmp[rep] = res[rep * nt + t].ms[s];
      u->stage_med[s] = median_of(tmp, nr);
    }
  }
  const int one = thread_index(o, 1);
  for (size_t t = 0; t < nt && one >= 0; ++t) {
    t_summary *u = &sum[t];
    u->have_speedup = 1;
    u->sp_medians = u->pss_med / sum[one].pss_med;
    for (size_t rep = 0; rep < nr; ++rep)
      tmp[rep] = res[rep * nt + (size_t)one].wall_s / res[rep * nt + t].wall_s;
    summarize(tmp, nr, &u->sp_pair_min, &u->sp_pair_med, &u->sp_pair_max);
  }
  free(tmp);
  return sum;
}

int main(int argc, char **argv) {
  options o;
  parse_args(argc, argv, &o);
  if (o.out && bench_cpu_mkdir_p(o.out) != 0) return 1;

  bench_cpu_env env;
  bench_cpu_env_read(o.source, &env);
  warn_about_load(&o, &env);

  bench_scene sc;
  if (!bench_scene_build_kind(&sc, o.particles, (int)o.ppc, o.scene))
    bench_cpu_die(1, "out of memory for %llu particle positions", (unsigned long long)o.particles);
  bench_cpu_window win;
  describe_window(&o, &sc, &win);

  block_result *res = run_reps(&o, &sc, &win, &env);
  t_summary *sum = summarize_threads(&o, &sc, res);
  env.load1 = bench_cpu_load_average();

  const bench_cpu_report report = {.o = &o, .sc = &sc, .env = &env, .win = &win, .res = res,
                                   .sum = sum, .one = thread_index(&o, 1),
                                   .two = thread_index(&o, 2)};
  bench_cpu_print_table(&report);
  if (o.out) {
    bench_cpu_write_tsv(&report);
    bench_cpu_write_json(&report);
  } else {
    fprintf(stderr, "bench_cpu: no --out given; no files written\n");
  }

  free(sum);
  free(res);
  free(sc.x);
  return 0;
}
