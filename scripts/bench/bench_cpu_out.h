/* bench_cpu_out.h: bench_cpu's private interface between its driver
 * (bench_cpu.c: options, timed blocks, statistics) and its reporting
 * (bench_cpu_out.c: the machine's facts, the table on stdout, the TSV and
 * JSON files). */
#ifndef BENCH_CPU_OUT_H
#define BENCH_CPU_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "bench_common.h"

#define MAX_THREAD_ENTRIES 64
#define N_STAGES 4 /* sort, p2g, grid, g2p: bg_sim_stage_times' order */

typedef struct options {
  uint64_t particles, ppc, steps, warmup, reps;
  int threads[MAX_THREAD_ENTRIES];
  int n_threads;
  const char *out;    /* NULL: no files */
  const char *source; /* where git is asked for the commit */
  bench_kind scene;
} options;

/* One timed block: one thread count in one repetition. */
typedef struct block_result {
  double wall_s;
  double ms[N_STAGES]; /* per step */
  double dt;           /* last dt taken, s */
  double sim_time;     /* simulated time at the end, s */
  size_t n_active;
  double max_speed;
  double shear, tip; /* fractions of active particles in shear / at the tip at the window's end */
} block_result;

/* One thread count over all repetitions. */
typedef struct t_summary {
  int threads;
  double pss_min, pss_med, pss_max; /* particle-steps/s */
  double ms_step_med;               /* wall ms per step, median */
  double stage_med[N_STAGES];       /* ms per step, median */
  int have_speedup;                 /* a 1-thread entry exists */
  double sp_medians;                /* median(T) / median(1) */
  double sp_pair_min, sp_pair_med, sp_pair_max; /* per rep, T vs 1 of the same rep */
} t_summary;

/* The machine and the moment the timings belong to. */
typedef struct bench_cpu_env {
  char commit[128], host[256], cpu[256];
  long nproc;              /* online CPUs, <= 0 when unknown */
  const char *wait_policy; /* OMP_WAIT_POLICY as recorded */
  int passive;             /* OMP_WAIT_POLICY is passive */
  double load0, load1;     /* 1-minute load average before and after, -1 when unknown */
  char date_start[32], date_end[32];
} bench_cpu_env;

/* What the timed window holds, beyond the options. */
typedef struct bench_cpu_window {
  char grid[64];          /* grid nodes as "NXxNYxNZ" */
  uint64_t sort_interval; /* steps between the physical re-sorts */
  uint64_t resorts;       /* re-sorts inside the timed steps */
} bench_cpu_window;

/* Everything a report is written from. */
typedef struct bench_cpu_report {
  const options *o;
  const bench_scene *sc;
  const bench_cpu_env *env;
  const bench_cpu_window *win;
  const block_result *res; /* res[rep * n_threads + t] */
  const t_summary *sum;    /* one per thread count, in the order of o->threads */
  int one, two;            /* indices of the 1- and 2-thread entries, -1 when absent */
} bench_cpu_report;

/* "bench_cpu: error: <message>" on stderr, then exit(code). */
_Noreturn void bench_cpu_die(int code, const char *fmt, ...);

/* mkdir -p; 0, or -1 after saying why on stderr. */
int bench_cpu_mkdir_p(const char *path);
/* Fills commit, host, cpu and nproc (source: the tree git is asked). */
void bench_cpu_env_read(const char *source, bench_cpu_env *env);
void bench_cpu_iso_utc_now(char *out, size_t cap);
/* The 1-minute load average (/proc/loadavg), or -1 where there is none. */
double bench_cpu_load_average(void);

void bench_cpu_print_table(const bench_cpu_report *r);
/* o->out/bench_cpu.tsv and o->out/bench_cpu.json; exit(1) on a write failure. */
void bench_cpu_write_tsv(const bench_cpu_report *r);
void bench_cpu_write_json(const bench_cpu_report *r);

#endif /* BENCH_CPU_OUT_H */
