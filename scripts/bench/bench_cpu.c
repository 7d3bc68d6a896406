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
 * and DIR/bench_cpu.json (the summary with commit, machine and scene). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bagnold.h"
#include "bench_common.h"

#ifndef __VERSION__
#define __VERSION__ "unknown"
#endif

/* ------------------------------------------------------------- parameters */

#define MAX_PARTICLES 268435456ull /* 2^28: about 40 GiB of solver state */
#define MAX_STEPS 1000000ull
#define MAX_REPS 1000ull
#define MAX_THREAD_ENTRIES 64
#define MAX_THREADS 4096ull /* the library's own bound on desc.threads */
#define N_STAGES 4

static const char *const stage_names[N_STAGES] = {"sort", "p2g", "grid", "g2p"};

typedef struct options {
  uint64_t particles, ppc, steps, warmup, reps;
  int threads[MAX_THREAD_ENTRIES];
  int n_threads;
  const char *out;    /* NULL: no files */
  const char *source; /* where git is asked for the commit */
  bench_kind scene;
} options;


typedef struct block_result {
  double wall_s;
  double ms[N_STAGES]; /* per step */
  double dt;           /* last dt taken, s */
  double sim_time;     /* simulated time at the end, s */
  size_t n_active;
  double max_speed;
  double shear, tip; /* fractions of active particles in shear / at the tip at the window's end */
} block_result;

/* --------------------------------------------------------------- messages */

static void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_cpu: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

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
    die(2, "--%s must be an integer in [%llu, %llu] (got '%s')", name, (unsigned long long)lo,
        (unsigned long long)hi, arg ? arg : "");
  return v;
}

static void parse_threads(const char *arg, options *o) {
  const char *rule = "a comma-separated list of distinct integers, each in [1, 4096], at most 64";
  if (!arg || !*arg) die(2, "--threads must be %s (got an empty list)", rule);
  o->n_threads = 0;
  const char *p = arg;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[32];
    if (len == 0 || len >= sizeof item)
      die(2, "--threads must be %s (got '%s': entry %d is %s)", rule, arg, o->n_threads + 1,
          len == 0 ? "empty" : "too long");
    memcpy(item, p, len);
    item[len] = 0;
    uint64_t v;
    if (!parse_u64(item, 1, MAX_THREADS, &v))
      die(2, "--threads must be %s (got '%s': entry '%s')", rule, arg, item);
    for (int i = 0; i < o->n_threads; ++i)
      if (o->threads[i] == (int)v) die(2, "--threads must be %s (got '%s': %d twice)", rule, arg, (int)v);
    if (o->n_threads == MAX_THREAD_ENTRIES)
      die(2, "--threads must be %s (got '%s': more than %d entries)", rule, arg, MAX_THREAD_ENTRIES);
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
          die(2, "--ppc must be 1, 8, 27 or 64 (a cube k^3, k = 1..4 per axis) (got '%s')", optarg);
        o->ppc = v;
        break;
      }
      case O_STEPS: o->steps = opt_u64("steps", optarg, 1, MAX_STEPS); break;
      case O_WARMUP: o->warmup = opt_u64("warmup", optarg, 0, MAX_STEPS); break;
      case O_REPS: o->reps = opt_u64("reps", optarg, 1, MAX_REPS); break;
      case O_THREADS: parse_threads(optarg, o); break;
      case O_OUT:
        if (!*optarg) die(2, "--out must be a non-empty directory path");
        o->out = optarg;
        break;
      case O_SOURCE:
        if (!*optarg) die(2, "--source must be a non-empty directory path");
        o->source = optarg;
        break;
      case O_SCENE: {
        int k = bench_kind_from_name(optarg);
        if (k < 0) die(2, "--scene must be freefall or collapse (got '%s')", optarg);
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
    die(2, "unexpected argument '%s' (every option is --name VALUE; see --help)", argv[optind]);
  struct stat st;
  if (stat(o->source, &st) != 0 || !S_ISDIR(st.st_mode))
    die(2, "--source must be an existing directory (got '%s')", o->source);
}

/* ----------------------------------------------------------- environment */

/* mkdir -p: every missing component is created; existing directories are fine. */
static int mkdir_p(const char *path) {
  size_t len = strlen(path);
  char *buf = malloc(len + 1);
  if (!buf) return -1;
  memcpy(buf, path, len + 1);
  for (size_t i = 1; i <= len; ++i) {
    if (buf[i] != '/' && buf[i] != 0) continue;
    char keep = buf[i];
    buf[i] = 0;
    if (mkdir(buf, 0777) != 0) {
      int e = errno;
      struct stat st;
      if (e != EEXIST || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "bench_cpu: error: cannot create directory '%s': %s\n", buf,
                e == EEXIST ? "exists and is not a directory" : strerror(e));
        free(buf);
        return -1;
      }
    }
    buf[i] = keep;
  }
  free(buf);
  return 0;
}

/* Characters that would break a TSV cell or a JSON string become spaces,
 * and trailing whitespace goes. */
static void sanitize(char *s) {
  for (char *c = s; *c; ++c)
    if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\') *c = ' ';
  size_t n = strlen(s);
  while (n && s[n - 1] == ' ') s[--n] = 0;
}

/* Runs a shell command; its first output line goes into out. Returns 1 if
 * the command exited with status 0. */
static int run_capture(const char *cmd, char *out, size_t cap) {
  out[0] = 0;
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  if (!fgets(out, (int)cap, p)) out[0] = 0;
  char sink[256];
  while (fgets(sink, sizeof sink, p)) {
  }
  int st = pclose(p);
  out[strcspn(out, "\r\n")] = 0;
  return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The path in single quotes for /bin/sh ('\'' for each quote inside). */
static char *shell_quote(const char *s) {
  size_t n = 3;
  for (const char *c = s; *c; ++c) n += *c == '\'' ? 4 : 1;
  char *q = malloc(n), *w = q;
  if (!q) return NULL;
  *w++ = '\'';
  for (const char *c = s; *c; ++c) {
    if (*c == '\'') {
      memcpy(w, "'\\''", 4);
      w += 4;
    } else {
      *w++ = *c;
    }
  }
  *w++ = '\'';
  *w = 0;
  return q;
}

/* BAGNOLD_COMMIT if set, else git's short HEAD (+ "-dirty" when
 * `git status --porcelain` prints anything), else "unknown". git is only
 * read: --no-optional-locks keeps status from refreshing the index. */
static void get_commit(const char *source, char *out, size_t cap) {
  const char *env = getenv("BAGNOLD_COMMIT");
  if (env && *env) {
    snprintf(out, cap, "%s", env);
    sanitize(out);
    return;
  }
  snprintf(out, cap, "unknown");
  char *q = shell_quote(source);
  if (!q) return;
  size_t len = strlen(q) + 128;
  char *cmd = malloc(len);
  if (!cmd) {
    free(q);
    return;
  }
  char line[96]; /* a short hash; out (128) must hold it plus "-dirty" */
  snprintf(cmd, len, "git -C %s rev-parse --short HEAD 2>/dev/null", q);
  if (run_capture(cmd, line, sizeof line) && line[0]) {
    sanitize(line);
    char dirty[256];
    snprintf(cmd, len, "git --no-optional-locks -C %s status --porcelain 2>/dev/null", q);
    int ok = run_capture(cmd, dirty, sizeof dirty);
    snprintf(out, cap, "%s%s", line, ok && dirty[0] ? "-dirty" : "");
  }
  free(cmd);
  free(q);
}

/* The host as every record of the project names it (bg_host_describe),
 * made safe for a TSV field. */
static void get_host(char *host, char *cpu, size_t cap, long *nproc) {
  bg_host h;
  bg_host_describe(&h);
  snprintf(host, cap, "%s", h.name);
  snprintf(cpu, cap, "%s", h.cpu);
  sanitize(host);
  sanitize(cpu);
  *nproc = h.cores;
}

static void iso_utc_now(char *out, size_t cap) {
  time_t t = time(NULL);
  struct tm tm;
  if (!gmtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf(out, cap, "unknown");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ scene */



/* ---------------------------------------------------------------- running */

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
    die(1, "bg_sim_create (threads %d) failed: %s (%s): %s", threads, bg_status_name(s),
        bg_status_str(s), err);
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
    die(1, "the simulation diverged (max speed %g m/s, threads %d); the timings mean nothing",
        r->max_speed, threads);
  if (r->n_active != (size_t)sc->n)
    fprintf(stderr, "bench_cpu: warning: %zu of %llu particles parked during the run (threads %d)\n",
            (size_t)sc->n - r->n_active, (unsigned long long)sc->n, threads);
}

/* ------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* min, median, max of n values (n >= 1); v is left untouched. */
static void summarize(const double *v, size_t n, double *mn, double *med, double *mx) {
  double *t = malloc(n * sizeof *t);
  if (!t) die(1, "out of memory");
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

typedef struct t_summary {
  int threads;
  double pss_min, pss_med, pss_max; /* particle-steps/s */
  double ms_step_med;               /* wall ms per step, median */
  double stage_med[N_STAGES];       /* ms per step, median */
  int have_speedup;                 /* a 1-thread entry exists */
  double sp_medians;                /* median(T) / median(1) */
  double sp_pair_min, sp_pair_med, sp_pair_max; /* per rep, T vs 1 of the same rep */
} t_summary;

/* ----------------------------------------------------------------- output */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.9g", v);
  else
    fputs("null", f);
}

/* Writes to path.tmp, then renames, so a reader never sees half a file. */
static FILE *open_out(const char *dir, const char *name, char *path, size_t cap, char *tmp,
                      size_t tcap) {
  snprintf(path, cap, "%s/%s", dir, name);
  snprintf(tmp, tcap, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) die(1, "cannot write '%s': %s", tmp, strerror(errno));
  return f;
}

static void close_out(FILE *f, const char *path, const char *tmp) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) die(1, "writing '%s' failed", tmp);
  if (rename(tmp, path) != 0) die(1, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
}

/* The 1-minute load average (/proc/loadavg), or -1 where there is none. */
static double load_average(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double la = -1;
  if (f) {
    if (fscanf(f, "%lf", &la) != 1) la = -1;
    fclose(f);
  }
  return la;
}

int main(int argc, char **argv) {
  options o;
  parse_args(argc, argv, &o);
  if (o.out && mkdir_p(o.out) != 0) return 1;

  char commit[128], host[256], cpu[256], date_start[32], date_end[32];
  get_commit(o.source, commit, sizeof commit);
  long nproc;
  get_host(host, cpu, sizeof host, &nproc);
  for (int i = 0; i < o.n_threads; ++i)
    if (nproc > 0 && o.threads[i] > nproc)
      fprintf(stderr, "bench_cpu: warning: %d threads on %ld online CPUs (oversubscribed)\n",
              o.threads[i], nproc);
  /* Other work on the machine: with libgomp's default (spinning) waits, a
   * thread that loses its core to another process stalls its partner at
   * every barrier, which cut the 2-thread rate here from 7.8 to 0.33 M/s.
   * Passive waiting (the lab's default, scripts/lab) degrades gracefully. */
  const char *wait_env = getenv("OMP_WAIT_POLICY");
  const char *wait_policy = wait_env && *wait_env ? wait_env : "unset (libgomp: spin, then sleep)";
  const int passive = wait_env && (strcasecmp(wait_env, "passive") == 0);
  int max_threads = 1;
  for (int i = 0; i < o.n_threads; ++i) max_threads = o.threads[i] > max_threads ? o.threads[i] : max_threads;
  const double load0 = load_average();
  if (load0 >= 0 && nproc > 0 && load0 > 0.5 && load0 + max_threads > (double)nproc + 0.25)
    fprintf(stderr,
            "bench_cpu: warning: the load average is %.2f on %ld CPUs before the benchmark: other processes will "
            "share the cores with its %d threads, so the timings are not the machine's%s\n",
            load0, nproc, max_threads,
            passive ? "" : "; OpenMP waits are not passive (OMP_WAIT_POLICY), which makes that far worse: "
                           "set OMP_WAIT_POLICY=passive");

  bench_scene sc;
  if (!bench_scene_build_kind(&sc, o.particles, (int)o.ppc, o.scene))
    die(1, "out of memory for %llu particle positions", (unsigned long long)o.particles);
  /* The physical re-sort runs on steps that are multiples of sort_interval;
   * count how many fall in the timed window, since its cost is only in the
   * sort column when one does (with the defaults, 5 + 20 < 32: none). */
  const uint64_t sort_interval = (uint64_t)bg_sim_desc_default().sort_interval;
  uint64_t resorts = 0;
  for (uint64_t s = o.warmup; s < o.warmup + o.steps; ++s) resorts += s % sort_interval == 0;
  char grid[64];
  snprintf(grid, sizeof grid, "%zux%zux%zu", sc.dims[0], sc.dims[1], sc.dims[2]);
  bg_material mat = bg_material_sand();

  iso_utc_now(date_start, sizeof date_start);
  fprintf(stderr,
          "bench_cpu: %llu particles (ppc %llu), block %llu x %llu x %.2f cells, grid %s nodes, "
          "%llu warm-up + %llu timed steps, %llu reps x %d thread counts, commit %s, %s\n",
          (unsigned long long)sc.n, (unsigned long long)o.ppc, (unsigned long long)sc.side,
          (unsigned long long)sc.side, sc.height, grid, (unsigned long long)o.warmup,
          (unsigned long long)o.steps, (unsigned long long)o.reps, o.n_threads, commit, date_start);

  size_t nt = (size_t)o.n_threads, nr = (size_t)o.reps;
  block_result *res = calloc(nt * nr, sizeof *res); /* res[rep * nt + t] */
  if (!res) die(1, "out of memory");
  for (size_t rep = 0; rep < nr; ++rep)
    for (size_t t = 0; t < nt; ++t) {
      block_result *r = &res[rep * nt + t];
      run_block(&o, &sc, o.threads[t], r);
      fprintf(stderr,
              "bench_cpu: rep %zu/%zu threads %d: %llu steps in %.3f s, %.3f M particle-steps/s "
              "(ms/step: sort %.2f p2g %.2f grid %.2f g2p %.2f; dt %.3g s)\n",
              rep + 1, nr, o.threads[t], (unsigned long long)o.steps, r->wall_s,
              (double)sc.n * (double)o.steps / r->wall_s * 1e-6, r->ms[0], r->ms[1], r->ms[2],
              r->ms[3], r->dt);
    }
  iso_utc_now(date_end, sizeof date_end);

  /* summaries per thread count */
  t_summary *sum = calloc(nt, sizeof *sum);
  double *tmp = malloc(nr * sizeof *tmp);
  if (!sum || !tmp) die(1, "out of memory");
  int one = -1;
  for (size_t t = 0; t < nt; ++t)
    if (o.threads[t] == 1) one = (int)t;
  for (size_t t = 0; t < nt; ++t) {
    t_summary *u = &sum[t];
    u->threads = o.threads[t];
    for (size_t rep = 0; rep < nr; ++rep)
      tmp[rep] = (double)sc.n * (double)o.steps / res[rep * nt + t].wall_s;
    summarize(tmp, nr, &u->pss_min, &u->pss_med, &u->pss_max);
    for (size_t rep = 0; rep < nr; ++rep) tmp[rep] = 1e3 * res[rep * nt + t].wall_s / (double)o.steps;
    u->ms_step_med = median_of(tmp, nr);
    for (int s = 0; s < N_STAGES; ++s) {
      for (size_t rep = 0; rep < nr; ++rep) tmp[rep] = res[rep * nt + t].ms[s];
      u->stage_med[s] = median_of(tmp, nr);
    }
  }
  for (size_t t = 0; t < nt && one >= 0; ++t) {
    t_summary *u = &sum[t];
    u->have_speedup = 1;
    u->sp_medians = u->pss_med / sum[one].pss_med;
    for (size_t rep = 0; rep < nr; ++rep)
      tmp[rep] = res[rep * nt + (size_t)one].wall_s / res[rep * nt + t].wall_s;
    summarize(tmp, nr, &u->sp_pair_min, &u->sp_pair_med, &u->sp_pair_max);
  }

  /* table */
  printf("bagnold bench_cpu: commit %s, host %s, %s (%ld online CPUs), %s\n", commit, host, cpu,
         nproc, __VERSION__);
  const double load1 = load_average();
  printf("measured %s .. %s; OMP_WAIT_POLICY %s; load average %.2f before, %.2f after\n", date_start, date_end,
         wait_policy, load0, load1);
  printf("scene %s (at the window's end %.1f%% of particles in shear, %.1f%% at the tip): %llu particles, ppc %llu, sand block %llu x %llu x %.2f cells (dx %.3g m), "
         "grid %s nodes, Klar sand, floor Coulomb mu %.2f\n",
         bench_kind_name(o.scene), 100 * res[0].shear, 100 * res[0].tip, (unsigned long long)sc.n, (unsigned long long)o.ppc,
         (unsigned long long)sc.side, (unsigned long long)sc.side, sc.height, (double)BENCH_DX, grid,
         (double)BENCH_FLOOR_MU);
  printf("protocol: %llu warm-up + %llu timed steps per block, fresh sim per block, "
         "%llu reps interleaved over threads, dt %.3g s\n",
         (unsigned long long)o.warmup, (unsigned long long)o.steps, (unsigned long long)o.reps,
         res[0].dt);
  printf("re-sorts (every %llu steps) inside the timed window: %llu%s\n\n",
         (unsigned long long)sort_interval, (unsigned long long)resorts,
         resorts ? "" : " (the sort column then excludes the re-sort's amortized cost)");
  printf("threads | M particle-steps/s        | ms/step (median)                          | speedup vs 1\n");
  printf("        |     min   median     max  |    wall    sort     p2g    grid     g2p  | medians (paired min..max)\n");
  printf("--------+---------------------------+-------------------------------------------+--------------------------\n");
  for (size_t t = 0; t < nt; ++t) {
    const t_summary *u = &sum[t];
    printf("%7d | %7.3f  %7.3f %7.3f  | %7.2f %7.2f %7.2f %7.2f %7.2f  |", u->threads,
           u->pss_min * 1e-6, u->pss_med * 1e-6, u->pss_max * 1e-6, u->ms_step_med,
           u->stage_med[0], u->stage_med[1], u->stage_med[2], u->stage_med[3]);
    if (u->have_speedup)
      printf(" %5.2fx (%.2f..%.2f)\n", u->sp_medians, u->sp_pair_min, u->sp_pair_max);
    else
      printf(" n/a (no 1-thread run)\n");
  }
  int two = -1;
  for (size_t t = 0; t < nt; ++t)
    if (o.threads[t] == 2) two = (int)t;
  if (one >= 0 && two >= 0)
    printf("\nspeedup 2 threads over 1 (same run): %.3fx from the medians; per rep %.3f / %.3f / %.3f "
           "(min / median / max)\n",
           sum[two].sp_medians, sum[two].sp_pair_min, sum[two].sp_pair_med, sum[two].sp_pair_max);
  fflush(stdout);

  if (!o.out) {
    fprintf(stderr, "bench_cpu: no --out given; no files written\n");
  } else {
    char path[4096], tpath[4200];
    FILE *f = open_out(o.out, "bench_cpu.tsv", path, sizeof path, tpath, sizeof tpath);
    fprintf(f, "commit\tmachine\tcpu_model\tscene\tthreads\tparticles\tppc\tgrid (nodes nx x ny x nz)\t"
               "steps\trep\twall_s (s)\tparticle_steps_per_s (1/s)\tms_sort (ms/step)\t"
               "ms_p2g (ms/step)\tms_grid (ms/step)\tms_g2p (ms/step)\tshear_fraction\ttip_fraction\n");
    for (size_t rep = 0; rep < nr; ++rep)
      for (size_t t = 0; t < nt; ++t) {
        const block_result *r = &res[rep * nt + t];
        fprintf(f, "%s\t%s\t%s\t%s\t%d\t%llu\t%llu\t%s\t%llu\t%zu\t%.6f\t%.6g\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n",
                commit, host, cpu, bench_kind_name(o.scene), o.threads[t], (unsigned long long)sc.n, (unsigned long long)o.ppc,
                grid, (unsigned long long)o.steps, rep + 1, r->wall_s,
                (double)sc.n * (double)o.steps / r->wall_s, r->ms[0], r->ms[1], r->ms[2], r->ms[3], r->shear, r->tip);
      }
    close_out(f, path, tpath);
    fprintf(stderr, "bench_cpu: wrote %s\n", path);

    f = open_out(o.out, "bench_cpu.json", path, sizeof path, tpath, sizeof tpath);
    fprintf(f, "{\n  \"benchmark\": \"bench_cpu\",\n  \"bagnold_version\": ");
    json_str(f, BG_VERSION_STRING);
    fprintf(f, ",\n  \"backend\": ");
    json_str(f, bench_first_backend(0));
    fprintf(f, ",\n  \"commit\": ");
    json_str(f, commit);
    fprintf(f, ",\n  \"machine\": ");
    json_str(f, host);
    fprintf(f, ",\n  \"cpu_model\": ");
    json_str(f, cpu);
    fprintf(f, ",\n  \"nproc\": %ld,\n  \"omp_wait_policy\": ", nproc);
    json_str(f, wait_policy);
    fprintf(f, ",\n  \"load_average_before\": %.2f,\n  \"load_average_after\": %.2f,\n  \"date_utc\": ", load0,
            load1);
    json_str(f, date_start);
    fprintf(f, ",\n  \"date_end_utc\": ");
    json_str(f, date_end);
    fprintf(f, ",\n  \"compiler\": ");
    json_str(f, __VERSION__);
    fprintf(f, ",\n  \"units\": {\"particle_steps_per_s\": \"1/s\", \"ms\": \"ms per step\", "
               "\"wall_s\": \"s\"},\n");
    fprintf(f, "  \"scene\": {\n    \"kind\": \"%s\",\n    \"shear_fraction\": %.4f,\n    \"tip_fraction\": %.4f,\n    \"particles\": %llu,\n    \"ppc\": %llu,\n"
               "    \"particles_per_cell_per_axis\": %d,\n    \"dx_m\": %.9g,\n"
               "    \"block_cells\": [%llu, %llu, %.6g],\n    \"block_origin_cells\": [%d, %d, %d],\n"
               "    \"grid_nodes\": [%zu, %zu, %zu],\n    \"gravity_m_s2\": [0, 0, -9.81],\n",
            bench_kind_name(o.scene), res[0].shear, res[0].tip, (unsigned long long)sc.n, (unsigned long long)o.ppc, sc.k,
            (double)BENCH_DX,
            (unsigned long long)sc.side, (unsigned long long)sc.side, sc.height,
            (int)((sc.dims[0] - 1 - sc.side) / 2), (int)((sc.dims[1] - 1 - sc.side) / 2), BENCH_FLOOR_CELLS, sc.dims[0], sc.dims[1], sc.dims[2]);
    fprintf(f, "    \"material\": {\"name\": \"bg_material_sand (Klar 2016)\", \"E_Pa\": %.9g, "
               "\"nu\": %.9g, \"rho0_kg_m3\": %.9g, \"phi_deg\": %.9g, \"hardening\": %d, "
               "\"volume_correction\": %d},\n",
            (double)mat.E, (double)mat.nu, (double)mat.rho0, (double)mat.dp.phi_deg, mat.dp.hardening,
            mat.volume_correction);
    fprintf(f, "    \"walls\": {\"zlo\": {\"friction\": \"coulomb\", \"mu\": %.9g}, \"others\": "
               "\"slip\"},\n    \"initial_velocity_m_s\": 0,\n    \"cfl\": 0.3,\n"
               "    \"dt_s\": %.9g,\n    \"sim_time_end_s\": %.9g\n  },\n",
            (double)BENCH_FLOOR_MU, res[0].dt, res[0].sim_time);
    fprintf(f, "  \"protocol\": {\"steps\": %llu, \"warmup\": %llu, \"reps\": %llu, \"threads\": [",
            (unsigned long long)o.steps, (unsigned long long)o.warmup, (unsigned long long)o.reps);
    for (size_t t = 0; t < nt; ++t) fprintf(f, "%s%d", t ? ", " : "", o.threads[t]);
    fprintf(f, "], \"order\": \"for rep: for threads (interleaved)\", \"fresh_sim_per_block\": true, "
               "\"clock\": \"CLOCK_MONOTONIC\", \"sort_interval\": %llu, "
               "\"resorts_in_timed_window\": %llu},\n  \"results\": [\n",
            (unsigned long long)sort_interval, (unsigned long long)resorts);
    for (size_t t = 0; t < nt; ++t) {
      const t_summary *u = &sum[t];
      fprintf(f, "    {\"threads\": %d,\n     \"particle_steps_per_s\": {\"min\": ", u->threads);
      json_num(f, u->pss_min);
      fprintf(f, ", \"median\": ");
      json_num(f, u->pss_med);
      fprintf(f, ", \"max\": ");
      json_num(f, u->pss_max);
      fprintf(f, "},\n     \"wall_s\": [");
      for (size_t rep = 0; rep < nr; ++rep) {
        if (rep) fputs(", ", f);
        json_num(f, res[rep * nt + t].wall_s);
      }
      fprintf(f, "],\n     \"ms_per_step_median\": ");
      json_num(f, u->ms_step_med);
      fprintf(f, ",\n     \"stage_ms_per_step_median\": {");
      for (int s = 0; s < N_STAGES; ++s) {
        fprintf(f, "%s\"%s\": ", s ? ", " : "", stage_names[s]);
        json_num(f, u->stage_med[s]);
      }
      fprintf(f, "},\n     \"speedup_vs_1_thread\": ");
      if (u->have_speedup) {
        fprintf(f, "{\"of_medians\": ");
        json_num(f, u->sp_medians);
        fprintf(f, ", \"paired_min\": ");
        json_num(f, u->sp_pair_min);
        fprintf(f, ", \"paired_median\": ");
        json_num(f, u->sp_pair_med);
        fprintf(f, ", \"paired_max\": ");
        json_num(f, u->sp_pair_max);
        fputc('}', f);
      } else {
        fputs("null", f);
      }
      fprintf(f, "}%s\n", t + 1 < nt ? "," : "");
    }
    fprintf(f, "  ],\n  \"speedup_2_over_1\": ");
    if (one >= 0 && two >= 0) {
      fprintf(f, "{\"of_medians\": ");
      json_num(f, sum[two].sp_medians);
      fprintf(f, ", \"paired_min\": ");
      json_num(f, sum[two].sp_pair_min);
      fprintf(f, ", \"paired_median\": ");
      json_num(f, sum[two].sp_pair_med);
      fprintf(f, ", \"paired_max\": ");
      json_num(f, sum[two].sp_pair_max);
      fputs("}\n}\n", f);
    } else {
      fputs("null\n}\n", f);
    }
    close_out(f, path, tpath);
    fprintf(stderr, "bench_cpu: wrote %s\n", path);
  }

  free(tmp);
  free(sum);
  free(res);
  free(sc.x);
  return 0;
}
