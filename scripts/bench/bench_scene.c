/* bench_scene.c: bagnold's side of the head-to-head benchmark against Taichi
 * and Warp (scripts/baselines/compare.py drives it). A benchmark, never a
 * test: it measures and reports, it asserts nothing about time.
 *
 * The scene is bench_common.c's, shared with bench_cpu and bench_gpu so every
 * benchmark times the same work: a dense block of Klar sand on
 * a regular lattice of ppc = k^3 particles per cell at cell offsets
 * (i + 0.5) / k, dx = 1 cm, C x C cells laterally (C the smallest side with
 * C^3 ppc >= N, filled layer by layer from the bottom until exactly N
 * particles), 4 free cells on every lateral side, its bottom 4 cells above
 * the -z face, the grid 1.6 C + 8 cells tall; the -z face is a Coulomb floor
 * (mu 0.5), the other faces slip; gravity -9.81 m/s^2; adaptive dt (cfl 0.3).
 * The peers (scripts/baselines/scene.py) build the identical lattice.
 *
 * It is a worker: after creating nothing it prints "ready ..." and then reads
 * one command per line on stdin, answering each with one line on stdout, so
 * the driver can interleave repetitions of the three solvers while each keeps
 * its process (and, for the peers, its compiled kernels):
 *   run W S        fresh simulation, W untimed warm-up steps, S timed steps;
 *                  answers "result wall_s=.. steps=S dt=.. n_active=.."
 *   check T PATH   fresh simulation advanced to simulated time T s (the last
 *                  step shortened to land on T, bg_sim_advance_to); writes the
 *                  particle positions (float32 x y z per particle, insertion
 *                  order) to PATH; answers "checked time=.. steps=.. ..."
 *   quit
 * Errors answer "error MESSAGE" (and exit 1 when the simulation cannot run).
 * Every run starts from the same state, like bench_cpu's blocks. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bg_version.h"
#include "bench_common.h"

#define MAX_PARTICLES 268435456ull
#define MAX_STEPS 1000000ull

typedef struct options {
  uint64_t particles, ppc;
  int threads;
  const char *backend;
  bench_kind scene;
  int body; /* --body: one rigid sphere falls onto the sand */
} options;


static void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_scene: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_scene [options]   (then commands on stdin)\n"
          "\n"
          "bagnold's worker for the head-to-head benchmark (scripts/lab bench compare).\n"
          "Commands, one per line: 'run W S' (W warm-up + S timed steps on a fresh\n"
          "simulation), 'check T PATH' (advance a fresh simulation to T s, write the\n"
          "positions as float32 x y z to PATH), 'quit'.\n"
          "\n"
          "options:\n"
          "  --particles N  particles, in [1, %llu] (default 32768)\n"
          "  --ppc K        particles per cell: 1, 8, 27 or 64 (default 8)\n"
          "  --threads T    CPU threads, in [0, 4096], 0 = OpenMP's default (default 2)\n"
          "  --backend B    a backend of the library (bg_backend_name), auto, or host / device\n"
          "                 (the first backend of the list that runs there)\n"
          "                 (default); another fails with the library's reason\n"
          "  --scene NAME   freefall (default) or collapse: 'run' then first advances\n"
          "                 the column untimed to mid-runout (bench_common.h);\n"
          "                 'check' always starts at t = 0\n"
          "  --body         add a rigid sphere (bg_body, 3x the sand's density, radius a\n"
          "                 quarter of the block's side, at least 2 cells) two cells above\n"
          "                 the block's top centre, falling at 1 m/s onto the sand: the\n"
          "                 cost of a coupled body, side by side with the run without\n"
          "  -h, --help     show this text\n",
          MAX_PARTICLES);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!s || !*s) return 0;
  for (const char *c = s; *c; ++c)
    if (*c < '0' || *c > '9') return 0;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno == ERANGE || *end || v < lo || v > hi) return 0;
  *out = (uint64_t)v;
  return 1;
}

static void parse_args(int argc, char **argv, options *o) {
  enum { O_PARTICLES = 256, O_PPC, O_THREADS, O_BACKEND, O_SCENE, O_BODY };
  static const struct option longs[] = {{"particles", required_argument, NULL, O_PARTICLES},
                                        {"ppc", required_argument, NULL, O_PPC},
                                        {"threads", required_argument, NULL, O_THREADS},
                                        {"backend", required_argument, NULL, O_BACKEND},
                                        {"scene", required_argument, NULL, O_SCENE},
                                        {"body", no_argument, NULL, O_BODY},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  o->particles = 32768;
  o->ppc = 8;
  o->threads = 2;
  o->backend = "auto";
  o->scene = BENCH_FREEFALL;
  o->body = 0;
  int c;
  uint64_t v;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (c) {
      case O_PARTICLES:
        if (!parse_u64(optarg, 1, MAX_PARTICLES, &v))
          die(2, "--particles must be an integer in [1, %llu] (got '%s')", MAX_PARTICLES, optarg);
        o->particles = v;
        break;
      case O_PPC:
        if (!parse_u64(optarg, 1, 64, &v) || (v != 1 && v != 8 && v != 27 && v != 64))
          die(2, "--ppc must be 1, 8, 27 or 64 (got '%s')", optarg);
        o->ppc = v;
        break;
      case O_THREADS:
        if (!parse_u64(optarg, 0, 4096, &v)) die(2, "--threads must be an integer in [0, 4096] (got '%s')", optarg);
        o->threads = (int)v;
        break;
      case O_BACKEND:
        /* the library judges the name (bg_sim_create's message lists the
         * compiled backends, or says what this build lacks) */
        o->backend = optarg;
        /* a placement instead of a name: the list's first backend there */
        if (!strcmp(optarg, "host") || !strcmp(optarg, "device")) {
          o->backend = bench_first_backend(!strcmp(optarg, "device"));
          if (!o->backend) die(2, "--backend %s: this build has no backend that runs on the %s", optarg, optarg);
        }
        break;
      case O_SCENE: {
        int k = bench_kind_from_name(optarg);
        if (k < 0) die(2, "--scene must be freefall or collapse (got '%s')", optarg);
        o->scene = (bench_kind)k;
        break;
      }
      case O_BODY: o->body = 1; break;
      case 'h': usage(stdout); exit(0);
      default: fprintf(stderr, "bench_scene: see --help\n"); exit(2);
    }
  }
  if (optind < argc) die(2, "unexpected argument '%s' (see --help)", argv[optind]);
}


static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A fresh simulation of the scene, or NULL with the library's message in err. */
static bg_sim *fresh(const options *o, const bench_scene *sc, char *err, size_t len) {
  bg_sim_desc d = bench_scene_desc(sc, o->backend, o->threads);
  bg_body b = bg_body_default();
  if (o->body) {
    /* over the block's top centre: its extent from the particles */
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (uint64_t p = 0; p < sc->n; ++p)
      for (int a = 0; a < 3; ++a) {
        lo[a] = fmin(lo[a], sc->x[3 * p + a]);
        hi[a] = fmax(hi[a], sc->x[3 * p + a]);
      }
    double r = fmax(2.0, (double)sc->side / 4.0) * BENCH_DX;
    b.radius = (bg_real)r;
    b.density = 3.0f * d.material.rho0;
    b.x[0] = (bg_real)(0.5 * (lo[0] + hi[0]));
    b.x[1] = (bg_real)(0.5 * (lo[1] + hi[1]));
    b.x[2] = (bg_real)(hi[2] + r + 2.0 * BENCH_DX);
    b.v[2] = -1.0f;
    d.bodies = &b;
    d.n_bodies = 1;
  }
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(&d, &sim, err, len);
  if (s != BG_OK) return NULL;
  s = bg_sim_add_particles(sim, (size_t)sc->n, sc->x, NULL, (bg_real)o->ppc);
  if (s != BG_OK) {
    snprintf(err, len, "bg_sim_add_particles: %s: %s", bg_status_name(s), bg_sim_last_error(sim));
    bg_sim_destroy(sim);
    return NULL;
  }
  return sim;
}

static void fail_line(const char *what, bg_sim *sim, bg_status s) {
  printf("error %s: %s: %s\n", what, bg_status_name(s), sim ? bg_sim_last_error(sim) : "");
  fflush(stdout);
}

static void cmd_run(const options *o, const bench_scene *sc, uint64_t warm, uint64_t steps) {
  char err[512] = "";
  double a = now_s();
  bg_sim *sim = fresh(o, sc, err, sizeof err);
  if (!sim) {
    printf("error %s\n", err);
    fflush(stdout);
    return;
  }
  bg_status s = BG_OK;
  double t_create = now_s() - a;
  /* the collapse is timed mid-runout: the advance there is untimed */
  if (sc->kind == BENCH_COLLAPSE) s = bg_sim_advance_to(sim, bench_scene_window_start(sc));
  if (s != BG_OK) {
    fail_line("bg_sim_advance_to (the collapse's window start)", sim, s);
    bg_sim_destroy(sim);
    return;
  }
  double t_first = 0; /* creation and the first step, as the peers' reset and first step */
  if (warm) {
    double b = now_s();
    s = bg_sim_run(sim, 1);
    t_first = t_create + (now_s() - b);
    if (s == BG_OK && warm > 1) s = bg_sim_run(sim, warm - 1);
  }
  if (s != BG_OK) {
    fail_line("bg_sim_run (warm-up)", sim, s);
    bg_sim_destroy(sim);
    return;
  }
  double t0 = now_s();
  s = bg_sim_run(sim, steps);
  double t1 = now_s();
  if (s != BG_OK) {
    fail_line("bg_sim_run (timed)", sim, s);
    bg_sim_destroy(sim);
    return;
  }
  bg_stats st;
  bg_sim_stats(sim, &st);
  printf("result wall_s=%.9g steps=%llu first_step_s=%.9g dt=%.9g n_active=%zu max_speed=%.9g backend=%s on_device=%d\n",
         t1 - t0, (unsigned long long)steps, t_first, (double)st.dt, st.n_active, st.max_speed,
         bg_sim_backend(sim), bg_backend_on_device(bg_sim_backend(sim)));
  fflush(stdout);
  bg_sim_destroy(sim);
}

static void cmd_check(const options *o, const bench_scene *sc, double t_end, const char *path) {
  char err[512] = "";
  bg_sim *sim = fresh(o, sc, err, sizeof err);
  if (!sim) {
    printf("error %s\n", err);
    fflush(stdout);
    return;
  }
  double t0 = now_s();
  bg_status s = t_end > 0 ? bg_sim_advance_to(sim, t_end) : BG_OK;
  double t1 = now_s();
  if (s != BG_OK) {
    fail_line("bg_sim_advance_to", sim, s);
    bg_sim_destroy(sim);
    return;
  }
  size_t n = (size_t)sc->n;
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) die(1, "out of memory");
  if ((s = bg_sim_get(sim, BG_FIELD_X, x, 3 * n)) != BG_OK) {
    fail_line("bg_sim_get", sim, s);
    free(x);
    bg_sim_destroy(sim);
    return;
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(x, sizeof *x, 3 * n, f) != 3 * n || fclose(f) != 0) {
    printf("error cannot write '%s': %s\n", path, strerror(errno));
  } else {
    bg_stats st;
    bg_sim_stats(sim, &st);
    printf("checked time=%.9g steps=%llu wall_s=%.9g n_active=%zu\n", st.time, (unsigned long long)st.step,
           t1 - t0, st.n_active);
  }
  fflush(stdout);
  free(x);
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  options o;
  parse_args(argc, argv, &o);
  bench_scene sc;
  if (!bench_scene_build_kind(&sc, o.particles, (int)o.ppc, o.scene))
    die(1, "out of memory for %llu particle positions", (unsigned long long)o.particles);
  /* Probe the backend once, so an unavailable one (cuda in a CPU-only build)
   * is said at once, with the library's reason, instead of being replaced. */
  char err[512] = "";
  bg_sim *probe = fresh(&o, &sc, err, sizeof err);
  if (!probe) {
    printf("error backend %s: %s\n", o.backend, err);
    fflush(stdout);
    free(sc.x);
    return 1;
  }
  printf("ready solver=bagnold version=%s commit=%s backend=%s scene=%s threads=%d particles=%llu ppc=%llu "
         "grid=%zux%zux%zu side=%llu\n",
         BG_VERSION_STRING, BAGNOLD_GIT_COMMIT, bg_sim_backend(probe), bench_kind_name(o.scene), o.threads, (unsigned long long)sc.n,
         (unsigned long long)o.ppc, sc.dims[0], sc.dims[1], sc.dims[2], (unsigned long long)sc.side);
  fflush(stdout);
  bg_sim_destroy(probe);

  char line[4096];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    char cmd[16] = "", a[64] = "", b[4000] = "";
    int k = sscanf(line, "%15s %63s %3999[^\n]", cmd, a, b);
    if (k <= 0) continue;
    if (!strcmp(cmd, "quit")) break;
    uint64_t w, s;
    if (!strcmp(cmd, "run") && k == 3 && parse_u64(a, 0, MAX_STEPS, &w) && parse_u64(b, 1, MAX_STEPS, &s)) {
      cmd_run(&o, &sc, w, s);
    } else if (!strcmp(cmd, "check") && k == 3) {
      char *end = NULL;
      double t = strtod(a, &end);
      if (!end || *end || !isfinite(t) || t < 0 || t > 100)
        printf("error check: T must be a time in [0, 100] s (got '%s')\n", a);
      else
        cmd_check(&o, &sc, t, b);
    } else {
      printf("error unknown command '%s' (expected 'run W S', 'check T PATH' or 'quit')\n", line);
    }
    fflush(stdout);
  }
  free(sc.x);
  return 0;
}
