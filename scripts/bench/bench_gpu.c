/* bench_gpu.c: throughput benchmark of bagnold's CUDA backend. A benchmark,
 * never a test: it measures and reports, it asserts nothing about time.
 *
 * Scene (as bench_cpu): a dense block of Klar sand on a regular lattice
 * (ppc = k^3, k per axis at cell offsets (i + 0.5) / k), dx = 1 cm, resting
 * 4 cells above the floor (the -z face, Coulomb mu 0.5; the other faces
 * slip). The block is C x C cells laterally, C the smallest side with
 * C^3 ppc >= N, filled layer by layer until exactly N particles are placed;
 * the grid is the block plus 4 cells on each lateral side and 1.6 C + 8
 * cells tall.
 *
 * Particle counts: 1 M, 2 M, 4 M, ... doubling while the estimated device
 * footprint (state, sort buffers, grid) fits in 85% of the free memory, or
 * the list given with --particles. For each count and repetition: a fresh
 * simulation, warm-up steps untimed, then timed steps (wall clock around
 * bg_sim_run, which includes the one host wait per step for the dt) and the
 * per-stage device times from CUDA events (bg_sim_stage_times).
 *
 * Effective bandwidth: bytes moved per step counted by hand (below), over
 * the device time of P2G + grid + G2P (the sort, every K steps, is reported
 * on its own), set against the device-to-device copy bandwidth measured in
 * the same run before and after the sweep.
 *
 * The backend (--backend, a GPU resource of bg_backend_name) and its tuning
 * (--property name=value, the descriptor's properties) are what the sims
 * are created with; what the TSV records is what bg_sim_describe reports
 * back: the backend's full name and every property with its value.
 *
 * The cost of the per-particle material (several materials in one
 * simulation) on a one-material scene: --material-table on runs the same
 * scene through a table of two equal entries (Klar sand twice, every
 * particle of entry 0), which takes the table path (the index loaded per
 * particle, the entry read from the device's table, the index sorted);
 * --material-table both runs the two in turn within each repetition and
 * prints the ratio of their medians (table over one material), the
 * throughput cost in one command.
 *
 * Output: a table on stdout, progress on stderr, with --out DIR the TSV
 * DIR/bench_gpu.tsv (one row per count and repetition, with commit,
 * device, backend and properties). Exit 77 when the backend cannot run
 * here (no CUDA device, or not in this build). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bagnold.h"
#include "bench_common.h"
#include "bench_gpu_device.h"
#include "bg_version.h"

#define MAX_COUNTS 32
#define PROPS_LEN 512
#define N_STAGES 4
/* Device bytes per particle: 37 floats of state (BG_RAW_NF), a 64-bit id, a material index,
 * a park code, and the sort's 32-bit key and permutation double buffers; layout=compact
 * holds 27 of the floats for sand (no tau, mass, volume or unused state slots). */
#define DEVICE_BYTES_PER_PARTICLE (37 * 4 + 8 + 4 + 1 + 2 * (4 + 4))
#define COMPACT_BYTES_PER_PARTICLE (27 * 4 + 8 + 4 + 1 + 2 * (4 + 4))
/* The least DRAM traffic of each stage, counted by hand, per particle and
 * per node of one step: what a stage must read and write at least once.
 * The 27-node gathers and scatters are served by L2 and the shared tile
 * and count once per node; the fixed-point scatter's second read of its
 * block's particles (its first pass computes the scales) is an L1/L2 hit
 * and is not counted, so a variant that re-reads pays in its fraction.
 * - sort, once per sort interval: keys (x, park read, key and index
 *   written: 24 B), CUB's radix sort (about 3 passes of 8-bit digits, key
 *   and index read and written: 3 x 16 B), the gather of 37 float arrays,
 *   the park codes and the ids (index, source and destination: 12 B each,
 *   28 B for the ids in two halves and their join) and the run list;
 * - P2G: x, v, C, tau, mass, volume (23 floats) and the park code read;
 *   the grid cleared and each node's sum added once (2 x 16 B per node);
 * - grid: each node read and written (32 B);
 * - G2P: x, F and the plastic state (16 floats) and the park code read,
 *   x, v, C, F, tau, the state and the mode (35 floats) written, each node
 *   read once (16 B).
 * layout=compact (sand): P2G reads x, v, C, F and the two state slots
 * (26 floats: tau derived from F), G2P reads x, F and the two slots (14)
 * and writes x, v, C, F, the slots and the mode (27); the sort gathers 27
 * float arrays. */
#define SORT_BYTES_PER_PARTICLE (24 + 3 * 16 + 38 * 12 + 28)
#define P2G_BYTES_PER_PARTICLE (23 * 4 + 4)
#define G2P_BYTES_PER_PARTICLE ((16 + 35) * 4 + 4)
#define COMPACT_SORT_BYTES_PER_PARTICLE (24 + 3 * 16 + 28 * 12 + 28)
#define COMPACT_P2G_BYTES_PER_PARTICLE (26 * 4 + 4)
#define COMPACT_G2P_BYTES_PER_PARTICLE ((14 + 27) * 4 + 4)
#define P2G_BYTES_PER_NODE 32
#define GRID_BYTES_PER_NODE 32
#define G2P_BYTES_PER_NODE 16
/* The whole step, as the TSV's bytes_per_step has always counted it: the
 * three per-step stages (the sort reported on its own). */
#define BYTES_PER_PARTICLE_STEP (P2G_BYTES_PER_PARTICLE + G2P_BYTES_PER_PARTICLE)
#define BYTES_PER_NODE_STEP (P2G_BYTES_PER_NODE + GRID_BYTES_PER_NODE + G2P_BYTES_PER_NODE)
/* g2p2g=fused (cuda_g2p2g.cu): P2G moves nothing; the fused kernel reads
 * what G2P reads plus the mass and volume (2 floats) and adds each node's
 * seven sums once to the next grid (32 B per node, beside G2P's 16 B read);
 * the grid stage reads those 32 B, writes the grid (16 B) and clears the
 * 32 B: 80 B per node. */
#define FUSED_BYTES_PER_PARTICLE (G2P_BYTES_PER_PARTICLE + 2 * 4)
#define FUSED_BYTES_PER_NODE (G2P_BYTES_PER_NODE + 32)
#define FUSED_GRID_BYTES_PER_NODE 80
#define COPY_BYTES ((size_t)1 << 30)

static const char *const stage_names[N_STAGES] = {"sort", "p2g", "grid", "g2p"};

/* The least bytes of each stage per step (above) for n particles and a
 * grid of gn nodes, the nodes the grid holds (the box on a dense grid, the
 * allocated blocks on a sparse one, whose stages visit only those); the
 * sort's over the sorts the timed window held (sorts_per_step: a window
 * shorter than the interval may hold none), as its time is. Returns the three
 * per-step stages' sum (BYTES_PER_*_STEP). */
static double stage_bytes(double n, double gn, double sorts_per_step, int fused, int compact,
                          double sbytes[N_STAGES]) {
  sbytes[0] = n * (compact ? COMPACT_SORT_BYTES_PER_PARTICLE : SORT_BYTES_PER_PARTICLE) * sorts_per_step;
  if (fused) {
    sbytes[1] = 0;
    sbytes[2] = gn * FUSED_GRID_BYTES_PER_NODE;
    sbytes[3] = n * FUSED_BYTES_PER_PARTICLE + gn * FUSED_BYTES_PER_NODE;
    return sbytes[1] + sbytes[2] + sbytes[3];
  }
  sbytes[1] = n * (compact ? COMPACT_P2G_BYTES_PER_PARTICLE : P2G_BYTES_PER_PARTICLE) + gn * P2G_BYTES_PER_NODE;
  sbytes[2] = gn * GRID_BYTES_PER_NODE;
  sbytes[3] = n * (compact ? COMPACT_G2P_BYTES_PER_PARTICLE : G2P_BYTES_PER_PARTICLE) + gn * G2P_BYTES_PER_NODE;
  return n * BYTES_PER_PARTICLE_STEP + gn * BYTES_PER_NODE_STEP;
}

typedef struct options {
  uint64_t counts[MAX_COUNTS];
  int n_counts;
  uint64_t max_particles;
  int ppc, steps, warmup, reps, sort_interval;
  const char *out;
  const char *tag;
  const char *backend;     /* --backend: a name of bg_backend_name */
  char props[PROPS_LEN];   /* --property, joined: "name=value,..." */
  int scenes[2], n_scenes; /* bench_kind, in the order timed */
  int table;               /* --material-table: 0 off, 1 on, 2 both (interleaved, with the ratio) */
  int at_rest;             /* --collapse-at start: the collapse timed from rest */
} options;

static void die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_gpu: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_gpu [options]\n"
          "\n"
          "Throughput of a GPU backend (particle-steps per second) on a dense block of\n"
          "sand, from 1 M particles doubling up to what the device holds, on two scenes:\n"
          "freefall (the block timed from rest: an ordered lattice falling, the friendliest\n"
          "case) and collapse (the block as a column with room to spread, particles added\n"
          "in shuffled order, timed at 1.5 sqrt(h/g), mid-runout, while it flows and yields;\n"
          "the fractions of particles in shear and at the tip are reported).\n"
          "\n"
          "options:\n"
          "  --particles LIST   comma-separated counts (suffix M = 2^20), default: 1M, 2M, ...\n"
          "  --max-particles N  stop the doubling at N (default: device memory decides)\n"
          "  --ppc K            particles per cell: 1, 8, 27 or 64 (default 8)\n"
          "  --steps S          timed steps per repetition, in [1, 100000] (default 50)\n"
          "  --warmup W         untimed steps first, in [0, 100000] (default 10; collapse: after\n"
          "                     the untimed advance to mid-collapse)\n"
          "  --scene LIST       freefall, collapse or both (comma-separated; default both)\n"
          "  --collapse-at W    mid (default): the collapse timed mid-runout; start: timed from rest,\n"
          "                     its particles in lattice order (no advance and no shuffle: at 10^9\n"
          "                     particles those take tens of minutes), the scene 'collapse@start'\n"
          "  --reps R           repetitions per count, in [1, 100] (default 3)\n"
          "  --sort-interval K  re-sort every K steps, >= 1 (default 32)\n"
          "  --backend NAME     the backend to time (default: the first device backend of the list, below)\n"
          "  --property N=V     a tuning property of that backend (repeatable; see below);\n"
          "                     the TSV records every property as the sim reports it\n"
          "  --material-table M off (one material, the default), on (the scene through a table of\n"
          "                     two equal entries: the per-particle material's path) or both (in\n"
          "                     turn per repetition, with the ratio of the rates; the TSV's tag\n"
          "                     gains material_table=on on the table's rows)\n"
          "  --tag TEXT         free text for the TSV's tag column (e.g. what is swept)\n"
          "  --out DIR          write DIR/bench_gpu.tsv (appends; header when new)\n"
          "  --help             this text\n"
          "\n"
          "environment:\n"
          "  BAGNOLD_COMMIT     overrides the commit recorded at build time\n"
          "\n"
          "exit status: 0 done, 2 bad usage, 3 a run failed, 77 the backend cannot run here.\n"
          "\n"
          "backends of this build and their properties (values, default):\n");
  for (int i = 0; i < bg_backend_count(); ++i) {
    const char *b = bg_backend_name(i);
    fprintf(f, "  %s\n", b);
    for (int k = 0; k < bg_backend_property_count(b); ++k) {
      const char *name, *values, *def, *doc;
      if (bg_backend_property(b, k, &name, &values, &def, &doc) == BG_OK)
        fprintf(f, "    %s=%s (default %s): %s\n", name, values, def, doc);
    }
  }
}

/* --property N=V: appended to the descriptor's list; the library checks
 * the name and the value against the backend's table at creation. */
static void add_property(options *o, const char *nv) {
  const char *eq = strchr(nv, '=');
  if (!eq || eq == nv || !eq[1] || strchr(nv, ','))
    die(2, "--property: '%s' must be NAME=VALUE (one property per option)", nv);
  size_t used = strlen(o->props);
  int w = snprintf(o->props + used, sizeof o->props - used, "%s%s", used ? "," : "", nv);
  if (w < 0 || (size_t)w >= sizeof o->props - used) die(2, "--property: the properties exceed %d characters", PROPS_LEN - 1);
}

static long long parse_int(const char *s, long long lo, long long hi, const char *what) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) die(2, "%s must be an integer in [%lld, %lld] (got '%s')", what, lo, hi, s);
  return v;
}

static uint64_t parse_count(const char *s) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) die(2, "--particles: '%s' is not a count", s);
  if (*end == 'M' || *end == 'm') {
    v <<= 20;
    end++;
  }
  if (*end || v < 1 || v > (1ull << 34)) die(2, "--particles: '%s' must be in [1, 2^34]", s);
  return v;
}

static void parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->ppc = 8;
  o->steps = 50;
  o->warmup = 10;
  o->reps = 3;
  o->sort_interval = 32;
  o->tag = "";
  o->backend = bench_first_backend(1) ? bench_first_backend(1) : "auto";
  o->scenes[0] = BENCH_FREEFALL;
  o->scenes[1] = BENCH_COLLAPSE;
  o->n_scenes = 2;
  enum { O_PART = 1, O_MAX, O_PPC, O_STEPS, O_WARM, O_REPS, O_SORT, O_TAG, O_OUT, O_SCENE, O_BACKEND, O_PROP, O_TABLE, O_AT, O_HELP };
  static const struct option lo[] = {{"particles", required_argument, NULL, O_PART},
                                     {"max-particles", required_argument, NULL, O_MAX},
                                     {"ppc", required_argument, NULL, O_PPC},
                                     {"steps", required_argument, NULL, O_STEPS},
                                     {"warmup", required_argument, NULL, O_WARM},
                                     {"reps", required_argument, NULL, O_REPS},
                                     {"sort-interval", required_argument, NULL, O_SORT},
                                     {"tag", required_argument, NULL, O_TAG},
                                     {"out", required_argument, NULL, O_OUT},
                                     {"scene", required_argument, NULL, O_SCENE},
                                     {"backend", required_argument, NULL, O_BACKEND},
                                     {"property", required_argument, NULL, O_PROP},
                                     {"material-table", required_argument, NULL, O_TABLE},
                                     {"collapse-at", required_argument, NULL, O_AT},
                                     {"help", no_argument, NULL, O_HELP},
                                     {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (c) {
      case O_PART: {
        char *copy = strdup(optarg), *save = NULL;
        if (!copy) die(1, "out of memory");
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
          if (o->n_counts == MAX_COUNTS) die(2, "--particles: at most %d counts", MAX_COUNTS);
          o->counts[o->n_counts++] = parse_count(t);
        }
        free(copy);
        if (!o->n_counts) die(2, "--particles: empty list");
        break;
      }
      case O_MAX: o->max_particles = parse_count(optarg); break;
      case O_PPC:
        o->ppc = (int)parse_int(optarg, 1, 64, "--ppc");
        if (o->ppc != 1 && o->ppc != 8 && o->ppc != 27 && o->ppc != 64) die(2, "--ppc must be 1, 8, 27 or 64");
        break;
      case O_STEPS: o->steps = (int)parse_int(optarg, 1, 100000, "--steps"); break;
      case O_WARM: o->warmup = (int)parse_int(optarg, 0, 100000, "--warmup"); break;
      case O_REPS: o->reps = (int)parse_int(optarg, 1, 100, "--reps"); break;
      case O_SORT: o->sort_interval = (int)parse_int(optarg, 1, 1 << 30, "--sort-interval"); break;
      case O_TAG: o->tag = optarg; break;
      case O_OUT: o->out = optarg; break;
      case O_BACKEND: o->backend = optarg; break;
      case O_PROP: add_property(o, optarg); break;
      case O_TABLE:
        if (!strcmp(optarg, "off")) o->table = 0;
        else if (!strcmp(optarg, "on")) o->table = 1;
        else if (!strcmp(optarg, "both")) o->table = 2;
        else die(2, "--material-table: '%s' is not off, on or both", optarg);
        break;
      case O_SCENE: {
        o->n_scenes = 0;
        char *copy = strdup(optarg), *save = NULL;
        if (!copy) die(1, "out of memory");
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
          int k = !strcmp(t, "both") ? 2 : bench_kind_from_name(t);
          if (k < 0) die(2, "--scene: '%s' is not freefall, collapse or both", t);
          if (k == 2) {
            o->scenes[0] = BENCH_FREEFALL;
            o->scenes[1] = BENCH_COLLAPSE;
            o->n_scenes = 2;
          } else if (o->n_scenes < 2 && (o->n_scenes == 0 || o->scenes[0] != k)) {
            o->scenes[o->n_scenes++] = k;
          }
        }
        free(copy);
        if (!o->n_scenes) die(2, "--scene: empty list");
        break;
      }
      case O_AT:
        if (strcmp(optarg, "mid") != 0 && strcmp(optarg, "start") != 0)
          die(2, "--collapse-at must be mid or start (got '%s')", optarg);
        o->at_rest = optarg[0] == 's';
        break;
      case O_HELP: usage(stdout); exit(0);
      default: usage(stderr); exit(2);
    }
  }
  if (optind < argc) die(2, "unexpected argument '%s' (see --help)", argv[optind]);
}

/* ------------------------------------------------------------------ scene */



/* What a count needs on the device, to size the doubling sweep: with
 * grid=sparse the grid is 8 bytes per 4^3 block of the box plus the pool,
 * bounded here by 16 bytes per node of the material's cells with a
 * halo of 2x (a block per axis beyond a 4-cell-thick slab at least). */
static double device_bytes(const bench_scene *s, int sparse, int compact, int ppc) {
  const double box = (double)s->dims[0] * s->dims[1] * s->dims[2];
  const double grid = sparse ? 8.0 * box / 64.0 + 16.0 * 2.0 * (double)s->n / ppc : 16.0 * box;
  return (double)s->n * (compact ? COMPACT_BYTES_PER_PARTICLE : DEVICE_BYTES_PER_PARTICLE) + grid;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct result {
  double wall_s, ms[N_STAGES];
  double shear, tip; /* fractions of active particles in shear / at the tip at the window's end */
  double mem_pp, mem_grid_pp; /* device bytes held per particle (bg_sim_memory), and of them the grid's */
  double grid_nodes;          /* the nodes the grid holds (bg_memory.grid_nodes): the box's, or a sparse pool's */
  double sorts_per_step;      /* periodic sorts in the timed window (steps a multiple of the interval), per step */
  int ok;
} result;

/* One timed block; table 1: through a table of two equal entries, every
 * particle of entry 0 (the per-particle material's path on the same scene). */
static result run_once(const bench_scene *sc, const options *o, int table) {
  result r;
  memset(&r, 0, sizeof r);
  bg_sim_desc d = bench_scene_desc(sc, o->backend, 0);
  d.sort_interval = o->sort_interval;
  d.properties = o->props;
  bg_material two[2] = {d.material, d.material};
  if (table) {
    d.materials = two;
    d.n_materials = 2;
  }
  bg_sim *sim = NULL;
  char err[512];
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  if (s != BG_OK) {
    fprintf(stderr, "bench_gpu: create (%llu particles): %s: %s\n", (unsigned long long)sc->n, bg_status_name(s), err);
    return r;
  }
  s = bench_scene_prepare(sim, sc, o->ppc, (uint64_t)o->warmup);
  double ms0[N_STAGES], ms1[N_STAGES];
  if (s == BG_OK) s = bg_sim_stage_times(sim, ms0);
  bg_stats st0;
  if (s == BG_OK) s = bg_sim_stats(sim, &st0);
  if (s == BG_OK) {
    const uint64_t k = (uint64_t)o->sort_interval, a = st0.step, b = st0.step + (uint64_t)o->steps;
    r.sorts_per_step = (double)((b + k - 1) / k - (a + k - 1) / k) / o->steps;
  }
  double t0 = now_s();
  if (s == BG_OK) s = bg_sim_run(sim, (uint64_t)o->steps);
  /* the last step's tally wait: stage times are complete after it */
  if (s == BG_OK) s = bg_sim_stage_times(sim, ms1);
  r.wall_s = now_s() - t0;
  if (s != BG_OK) {
    fprintf(stderr, "bench_gpu: %llu particles: %s: %s\n", (unsigned long long)sc->n, bg_status_name(s),
            bg_sim_last_error(sim));
  } else {
    for (int k = 0; k < N_STAGES; ++k) r.ms[k] = (ms1[k] - ms0[k]) / o->steps;
    bench_yield_fraction(sim, &r.shear, &r.tip);
    bg_memory mem;
    if (bg_sim_memory(sim, &mem) == BG_OK) {
      r.mem_pp = mem.per_particle;
      r.mem_grid_pp = mem.particles ? (double)mem.grid_bytes / (double)mem.particles : 0;
      r.grid_nodes = (double)mem.grid_nodes;
    }
    r.ok = 1;
  }
  bg_sim_destroy(sim);
  return r;
}

/* --backend: a name of this build's list (bg_backend_name), else usage. */
static void check_backend_name(const char *name) {
  char list[512] = "";
  for (int i = 0; i < bg_backend_count(); ++i) {
    if (strcmp(name, bg_backend_name(i)) == 0) return;
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", bg_backend_name(i));
  }
  die(2, "--backend: '%s' is not a backend of this build (%s)", name, list);
}

/* What the library runs for these options, as bg_sim_describe reports it:
 * the backend's full name and every property with its value. A small sim
 * (the default grid, no particles) checks the options before the sweep. */
static void describe_backend(const options *o, char *backend, size_t blen, char *props, size_t plen) {
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = o->backend;
  d.properties = o->props;
  bg_sim *sim = NULL;
  char err[512];
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  if (s != BG_OK) die(2, "--backend %s, properties '%s': %s: %s", o->backend, o->props, bg_status_name(s), err);
  bg_sim_desc got;
  if (bg_sim_describe(sim, &got) != BG_OK) die(3, "bg_sim_describe: %s", bg_sim_last_error(sim));
  snprintf(backend, blen, "%s", got.backend);
  snprintf(props, plen, "%s", got.properties ? got.properties : "");
  bg_sim_destroy(sim);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  options o;
  parse(argc, argv, &o);
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[256], dev[256];
  double free_b = 0, total_b = 0;
  check_backend_name(o.backend);
  /* dev: the reason when unavailable, else the device's description (the
   * one every manifest carries) */
  if (!bg_backend_available(o.backend, dev, sizeof dev)) {
    fprintf(stderr, "bench_gpu: backend %s cannot run here: %s\n", o.backend, dev);
    return 77;
  }
  if (!bench_gpu_device_memory(&free_b, &total_b, why, sizeof why)) {
    fprintf(stderr, "bench_gpu: no CUDA device to benchmark: %s\n", why);
    return 77;
  }
  const char *commit = getenv("BAGNOLD_COMMIT");
  if (!commit || !*commit) commit = BAGNOLD_GIT_COMMIT;
  char backend[64], props[PROPS_LEN];
  describe_backend(&o, backend, sizeof backend, props, sizeof props);
  if (!o.n_counts) {
    uint64_t cap = o.max_particles ? o.max_particles : (1ull << 34);
    for (uint64_t n = 1ull << 20; n <= cap && o.n_counts < MAX_COUNTS; n <<= 1) {
      bench_scene probe;
      memset(&probe, 0, sizeof probe);
      probe.n = n;
      /* the larger grid of the scenes asked for decides */
      bench_scene_dims_kind(o.scenes[o.n_scenes - 1], bench_scene_side(n, o.ppc), probe.dims);
      if (device_bytes(&probe, strstr(o.props, "grid=sparse") != NULL, strstr(o.props, "layout=compact") != NULL,
                       o.ppc) > 0.85 * free_b)
        break;
      o.counts[o.n_counts++] = n;
    }
  }
  double copy0 = bench_gpu_copy_bandwidth(COPY_BYTES, 10);
  printf("bagnold bench_gpu: commit %s, device %s, copy bandwidth %.0f GB/s\n", commit, dev, copy0 / 1e9);
  printf("backend %s (%s), sort every %d; ppc %d, %d warm-up + %d timed steps, %d reps\n", backend,
         *props ? props : "no properties", o.sort_interval, o.ppc, o.warmup, o.steps, o.reps);
  FILE *tsv = NULL;
  if (o.out) {
    mkdir(o.out, 0777);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_gpu.tsv", o.out);
    struct stat st;
    int fresh = stat(path, &st) != 0 || st.st_size == 0;
    tsv = fopen(path, "a");
    if (!tsv) die(1, "cannot open %s: %s", path, strerror(errno));
    if (fresh)
      fprintf(tsv, "commit\tdevice\ttag\tscene\tparticles\tppc\tnodes\tbackend\tproperties\tsort_interval\trep\t"
                   "steps\twall_s\tparticle_steps_per_s\tms_sort\tms_p2g\tms_grid\tms_g2p\tbytes_per_step\t"
                   "effective_GBps\tcopy_GBps\tfraction_of_copy\tshear_fraction\ttip_fraction\t"
                   "B_sort\tB_p2g\tB_grid\tB_g2p\tcopy_frac_sort\tcopy_frac_p2g\tcopy_frac_grid\tcopy_frac_g2p\t"
                   "mem_B_per_particle\tmem_grid_B_per_particle\tgrid_nodes\n");
  }
  printf("%9s %12s %10s %14s %9s %9s %9s %9s %10s %7s %7s %7s\n", "scene", "particles", "nodes", "Mpsteps/s",
         "sort ms", "p2g ms", "grid ms", "g2p ms", "eff GB/s", "of copy", "shear", "tip");
  int failed = 0;
  for (int si = 0; si < o.n_scenes && !failed; ++si) {
    bench_kind kind = (bench_kind)o.scenes[si];
    for (int c = 0; c < o.n_counts; ++c) {
      bench_scene sc;
      if (!bench_scene_build_at(&sc, o.counts[c], o.ppc, kind, o.at_rest)) {
        fprintf(stderr, "bench_gpu: no host memory for %llu particles; stopping\n", (unsigned long long)o.counts[c]);
        break;
      }
      double nodes = (double)sc.dims[0] * sc.dims[1] * sc.dims[2];
      double rate[100], trate[100];
      result rr[100];
      int nr = 0, nt = 0;
      /* --material-table both: one material and the table in turn, each repetition */
      const int passes = o.table == 2 ? 2 : 1;
      for (int it = 0; it < o.reps * passes; ++it) {
        const int rep = it / passes, pass = o.table == 2 ? it % passes : o.table;
        fprintf(stderr, "bench_gpu: %s, %llu particles, rep %d/%d%s\n", bench_scene_label(&sc),
                (unsigned long long)sc.n, rep + 1, o.reps, pass ? ", material table" : "");
        result r = run_once(&sc, &o, pass);
        if (!r.ok) {
          failed = 1;
          break;
        }
        char tag[600];
        snprintf(tag, sizeof tag, "%s%s%s", o.tag, pass && *o.tag ? "," : "", pass ? "material_table=on" : "");
        double sbytes[N_STAGES];
        const double bytes = stage_bytes((double)sc.n, r.grid_nodes > 0 ? r.grid_nodes : nodes, r.sorts_per_step,
                                         strstr(props, "g2p2g=fused") != NULL,
                                         strstr(props, "layout=compact") != NULL, sbytes);
        double ps = (double)sc.n * o.steps / r.wall_s;
        double dev_ms = r.ms[1] + r.ms[2] + r.ms[3];
        double eff = dev_ms > 0 ? bytes / (dev_ms * 1e-3) : 0;
        double frac[N_STAGES];
        for (int k = 0; k < N_STAGES; ++k)
          frac[k] = r.ms[k] > 0 && copy0 > 0 ? sbytes[k] / (r.ms[k] * 1e-3) / copy0 : 0;
        if (tsv)
          fprintf(tsv,
                  "%s\t%s\t%s\t%s\t%llu\t%d\t%.0f\t%s\t%s\t%d\t%d\t%d\t%.6f\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t"
                  "%.6g\t%.6g\t%.4f\t%.4f\t%.4f\t%.2f\t%.2f\t%.2f\t%.2f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%.1f\t%.0f\n",
                  commit, dev, tag, bench_scene_label(&sc), (unsigned long long)sc.n, o.ppc, nodes, backend, props,
                  o.sort_interval, rep, o.steps, r.wall_s, ps, r.ms[0], r.ms[1], r.ms[2], r.ms[3], bytes, eff / 1e9,
                  copy0 / 1e9, copy0 > 0 ? eff / copy0 : 0, r.shear, r.tip, sbytes[0] / sc.n, sbytes[1] / sc.n,
                  sbytes[2] / sc.n, sbytes[3] / sc.n, frac[0], frac[1], frac[2], frac[3], r.mem_pp, r.mem_grid_pp,
                  r.grid_nodes > 0 ? r.grid_nodes : nodes);
        if (pass && o.table == 2) {
          trate[nt++] = ps;
          continue;
        }
        rate[nr] = ps;
        rr[nr++] = r;
      }
      free(sc.x);
      if (nr == 0) break;
      /* the median repetition by rate */
      double sorted[100];
      memcpy(sorted, rate, nr * sizeof *rate);
      qsort(sorted, nr, sizeof *sorted, cmp_double);
      double med = sorted[nr / 2];
      int m = 0;
      for (int k = 0; k < nr; ++k)
        if (rate[k] == med) m = k;
      double sbytes[N_STAGES];
      const double bytes =
          stage_bytes((double)sc.n, rr[m].grid_nodes > 0 ? rr[m].grid_nodes : nodes, rr[m].sorts_per_step,
                      strstr(props, "g2p2g=fused") != NULL, strstr(props, "layout=compact") != NULL, sbytes);
      double dev_ms = rr[m].ms[1] + rr[m].ms[2] + rr[m].ms[3], eff = bytes / (dev_ms * 1e-3);
      printf("%9s %12llu %10.0f %14.1f %9.3f %9.3f %9.3f %9.3f %10.0f %6.1f%% %6.1f%% %6.1f%%   (min %.1f, max %.1f)\n",
             bench_scene_label(&sc), (unsigned long long)sc.n, nodes, med / 1e6, rr[m].ms[0], rr[m].ms[1],
             rr[m].ms[2], rr[m].ms[3], eff / 1e9, copy0 > 0 ? 100 * eff / copy0 : 0, 100 * rr[m].shear, 100 * rr[m].tip,
             sorted[0] / 1e6, sorted[nr - 1] / 1e6);
      printf("%9s bytes per particle-step and fraction of the copy bandwidth:", "");
      for (int k = 0; k < N_STAGES; ++k) {
        if (k == 0 && rr[m].sorts_per_step == 0)
          printf(" sort none in the window,");
        else
          printf(" %s %.0f B %.1f%%%s", stage_names[k], sbytes[k] / sc.n,
                 rr[m].ms[k] > 0 && copy0 > 0 ? 100 * sbytes[k] / (rr[m].ms[k] * 1e-3) / copy0 : 0,
                 k + 1 < N_STAGES ? "," : "\n");
      }
      printf("%9s device memory %.1f B per particle, the grid's share %.1f B\n", "", rr[m].mem_pp,
             rr[m].mem_grid_pp);
      if (nt > 0) {
        qsort(trate, nt, sizeof *trate, cmp_double);
        printf("%9s material table (two equal entries, the index per particle): median %.1f Mpsteps/s, "
               "ratio to one material %.4f (cost %.2f%%)\n", "", trate[nt / 2] / 1e6, trate[nt / 2] / med,
               100 * (1 - trate[nt / 2] / med));
      }
      if (failed) break;
    }
  }
  double copy1 = bench_gpu_copy_bandwidth(COPY_BYTES, 10);
  printf("copy bandwidth after the sweep %.0f GB/s (before %.0f); stages: %s %s %s %s (ms per step)\n", copy1 / 1e9,
         copy0 / 1e9, stage_names[0], stage_names[1], stage_names[2], stage_names[3]);
  if (tsv && fclose(tsv) != 0) die(1, "writing the TSV failed");
  return failed ? 3 : 0;
}
