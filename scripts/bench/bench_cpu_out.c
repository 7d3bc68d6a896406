/* bench_cpu_out.c: bench_cpu's reporting (see bench_cpu_out.h): the
 * machine's facts (commit, host, load, dates), the table on stdout and the
 * files DIR/bench_cpu.tsv (one row per rep and thread count) and
 * DIR/bench_cpu.json (the summary with commit, machine and scene). */
#define _POSIX_C_SOURCE 200809L

#include "bench_cpu_out.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include "bagnold.h"

#ifndef __VERSION__
#define __VERSION__ "unknown"
#endif

static const char *const stage_names[N_STAGES] = {"sort", "p2g", "grid", "g2p"};

void bench_cpu_die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_cpu: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

/* ----------------------------------------------------------- environment */

/* mkdir -p: every missing component is created; existing directories are fine. */
int bench_cpu_mkdir_p(const char *path) {
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

void bench_cpu_env_read(const char *source, bench_cpu_env *env) {
  get_commit(source, env->commit, sizeof env->commit);
  get_host(env->host, env->cpu, sizeof env->host, &env->nproc);
}

void bench_cpu_iso_utc_now(char *out, size_t cap) {
  time_t t = time(NULL);
  struct tm tm;
  if (!gmtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf(out, cap, "unknown");
}

double bench_cpu_load_average(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double la = -1;
  if (f) {
    if (fscanf(f, "%lf", &la) != 1) la = -1;
    fclose(f);
  }
  return la;
}

/* ------------------------------------------------------------------ table */

static void print_header(const bench_cpu_report *r) {
  const options *o = r->o;
  const bench_scene *sc = r->sc;
  const bench_cpu_env *e = r->env;
  printf("bagnold bench_cpu: commit %s, host %s, %s (%ld online CPUs), %s\n", e->commit, e->host,
         e->cpu, e->nproc, __VERSION__);
  printf("measured %s .. %s; OMP_WAIT_POLICY %s; load average %.2f before, %.2f after\n",
         e->date_start, e->date_end, e->wait_policy, e->load0, e->load1);
  printf("scene %s (at the window's end %.1f%% of particles in shear, %.1f%% at the tip): %llu "
         "particles, ppc %llu, sand block %llu x %llu x %.2f cells (dx %.3g m), "
         "grid %s nodes, Klar sand, floor Coulomb mu %.2f\n",
         bench_kind_name(o->scene), 100 * r->res[0].shear, 100 * r->res[0].tip,
         (unsigned long long)sc->n, (unsigned long long)o->ppc, (unsigned long long)sc->side,
         (unsigned long long)sc->side, sc->height, (double)BENCH_DX, r->win->grid,
         (double)BENCH_FLOOR_MU);
  printf("protocol: %llu warm-up + %llu timed steps per block, fresh sim per block, "
         "%llu reps interleaved over threads, dt %.3g s\n",
         (unsigned long long)o->warmup, (unsigned long long)o->steps, (unsigned long long)o->reps,
         r->res[0].dt);
  printf("re-sorts (every %llu steps) inside the timed window: %llu%s\n\n",
         (unsigned long long)r->win->sort_interval, (unsigned long long)r->win->resorts,
         r->win->resorts ? "" : " (the sort column then excludes the re-sort's amortized cost)");
}

void bench_cpu_print_table(const bench_cpu_report *r) {
  print_header(r);
  printf("threads | M particle-steps/s        | ms/step (median)                          | speedup vs 1\n");
  printf("        |     min   median     max  |    wall    sort     p2g    grid     g2p  | medians (paired min..max)\n");
  printf("--------+---------------------------+-------------------------------------------+--------------------------\n");
  for (int t = 0; t < r->o->n_threads; ++t) {
    const t_summary *u = &r->sum[t];
    printf("%7d | %7.3f  %7.3f %7.3f  | %7.2f %7.2f %7.2f %7.2f %7.2f  |", u->threads,
           u->pss_min * 1e-6, u->pss_med * 1e-6, u->pss_max * 1e-6, u->ms_step_med,
           u->stage_med[0], u->stage_med[1], u->stage_med[2], u->stage_med[3]);
    if (u->have_speedup)
      printf(" %5.2fx (%.2f..%.2f)\n", u->sp_medians, u->sp_pair_min, u->sp_pair_max);
    else
      printf(" n/a (no 1-thread run)\n");
  }
  if (r->one >= 0 && r->two >= 0) {
    const t_summary *u = &r->sum[r->two];
    printf("\nspeedup 2 threads over 1 (same run): %.3fx from the medians; per rep %.3f / %.3f / %.3f "
           "(min / median / max)\n",
           u->sp_medians, u->sp_pair_min, u->sp_pair_med, u->sp_pair_max);
  }
  fflush(stdout);
}

/* ------------------------------------------------------------------ files */

/* Writes to path.tmp, then renames, so a reader never sees half a file. */
static FILE *open_out(const char *dir, const char *name, char *path, size_t cap, char *tmp,
                      size_t tcap) {
  snprintf(path, cap, "%s/%s", dir, name);
  snprintf(tmp, tcap, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) bench_cpu_die(1, "cannot write '%s': %s", tmp, strerror(errno));
  return f;
}

static void close_out(FILE *f, const char *path, const char *tmp) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) bench_cpu_die(1, "writing '%s' failed", tmp);
  if (rename(tmp, path) != 0)
    bench_cpu_die(1, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  fprintf(stderr, "bench_cpu: wrote %s\n", path);
}

void bench_cpu_write_tsv(const bench_cpu_report *r) {
  const options *o = r->o;
  const bench_scene *sc = r->sc;
  const bench_cpu_env *e = r->env;
  char path[4096], tpath[4200];
  FILE *f = open_out(o->out, "bench_cpu.tsv", path, sizeof path, tpath, sizeof tpath);
  fprintf(f, "commit\tmachine\tcpu_model\tscene\tthreads\tparticles\tppc\tgrid (nodes nx x ny x nz)\t"
             "steps\trep\twall_s (s)\tparticle_steps_per_s (1/s)\tms_sort (ms/step)\t"
             "ms_p2g (ms/step)\tms_grid (ms/step)\tms_g2p (ms/step)\tshear_fraction\ttip_fraction\n");
  size_t nt = (size_t)o->n_threads, nr = (size_t)o->reps;
  for (size_t rep = 0; rep < nr; ++rep)
    for (size_t t = 0; t < nt; ++t) {
      const block_result *b = &r->res[rep * nt + t];
      fprintf(f,
              "%s\t%s\t%s\t%s\t%d\t%llu\t%llu\t%s\t%llu\t%zu\t%.6f\t%.6g\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n",
              e->commit, e->host, e->cpu, bench_kind_name(o->scene), o->threads[t],
              (unsigned long long)sc->n, (unsigned long long)o->ppc, r->win->grid,
              (unsigned long long)o->steps, rep + 1, b->wall_s,
              (double)sc->n * (double)o->steps / b->wall_s, b->ms[0], b->ms[1], b->ms[2],
              b->ms[3], b->shear, b->tip);
    }
  close_out(f, path, tpath);
}

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

/* The build, the machine and the moment. */
static void json_machine(FILE *f, const bench_cpu_env *e) {
  fprintf(f, "{\n  \"benchmark\": \"bench_cpu\",\n  \"bagnold_version\": ");
  json_str(f, BG_VERSION_STRING);
  fprintf(f, ",\n  \"backend\": ");
  json_str(f, bench_first_backend(0));
  fprintf(f, ",\n  \"commit\": ");
  json_str(f, e->commit);
  fprintf(f, ",\n  \"machine\": ");
  json_str(f, e->host);
  fprintf(f, ",\n  \"cpu_model\": ");
  json_str(f, e->cpu);
  fprintf(f, ",\n  \"nproc\": %ld,\n  \"omp_wait_policy\": ", e->nproc);
  json_str(f, e->wait_policy);
  fprintf(f, ",\n  \"load_average_before\": %.2f,\n  \"load_average_after\": %.2f,\n  \"date_utc\": ",
          e->load0, e->load1);
  json_str(f, e->date_start);
  fprintf(f, ",\n  \"date_end_utc\": ");
  json_str(f, e->date_end);
  fprintf(f, ",\n  \"compiler\": ");
  json_str(f, __VERSION__);
  fprintf(f, ",\n  \"units\": {\"particle_steps_per_s\": \"1/s\", \"ms\": \"ms per step\", "
             "\"wall_s\": \"s\"},\n");
}

static void json_scene(FILE *f, const bench_cpu_report *r) {
  const options *o = r->o;
  const bench_scene *sc = r->sc;
  const bg_material mat = bg_material_sand();
  fprintf(f, "  \"scene\": {\n    \"kind\": \"%s\",\n    \"shear_fraction\": %.4f,\n"
             "    \"tip_fraction\": %.4f,\n    \"particles\": %llu,\n    \"ppc\": %llu,\n"
             "    \"particles_per_cell_per_axis\": %d,\n    \"dx_m\": %.9g,\n"
             "    \"block_cells\": [%llu, %llu, %.6g],\n    \"block_origin_cells\": [%d, %d, %d],\n"
             "    \"grid_nodes\": [%zu, %zu, %zu],\n    \"gravity_m_s2\": [0, 0, -9.81],\n",
          bench_kind_name(o->scene), r->res[0].shear, r->res[0].tip, (unsigned long long)sc->n,
          (unsigned long long)o->ppc, sc->k, (double)BENCH_DX, (unsigned long long)sc->side,
          (unsigned long long)sc->side, sc->height, (int)((sc->dims[0] - 1 - sc->side) / 2),
          (int)((sc->dims[1] - 1 - sc->side) / 2), BENCH_FLOOR_CELLS, sc->dims[0], sc->dims[1],
          sc->dims[2]);
  fprintf(f, "    \"material\": {\"name\": \"bg_material_sand (Klar 2016)\", \"E_Pa\": %.9g, "
             "\"nu\": %.9g, \"rho0_kg_m3\": %.9g, \"phi_deg\": %.9g, \"hardening\": %d, "
             "\"volume_correction\": %d},\n",
          (double)mat.E, (double)mat.nu, (double)mat.rho0, (double)mat.dp.phi_deg, mat.dp.hardening,
          mat.volume_correction);
  fprintf(f, "    \"walls\": {\"zlo\": {\"friction\": \"coulomb\", \"mu\": %.9g}, \"others\": "
             "\"slip\"},\n    \"initial_velocity_m_s\": 0,\n    \"cfl\": 0.3,\n"
             "    \"dt_s\": %.9g,\n    \"sim_time_end_s\": %.9g\n  },\n",
          (double)BENCH_FLOOR_MU, r->res[0].dt, r->res[0].sim_time);
}

static void json_protocol(FILE *f, const bench_cpu_report *r) {
  const options *o = r->o;
  fprintf(f, "  \"protocol\": {\"steps\": %llu, \"warmup\": %llu, \"reps\": %llu, \"threads\": [",
          (unsigned long long)o->steps, (unsigned long long)o->warmup, (unsigned long long)o->reps);
  for (int t = 0; t < o->n_threads; ++t) fprintf(f, "%s%d", t ? ", " : "", o->threads[t]);
  fprintf(f, "], \"order\": \"for rep: for threads (interleaved)\", \"fresh_sim_per_block\": true, "
             "\"clock\": \"CLOCK_MONOTONIC\", \"sort_interval\": %llu, "
             "\"resorts_in_timed_window\": %llu},\n",
          (unsigned long long)r->win->sort_interval, (unsigned long long)r->win->resorts);
}

/* u's speedups over one thread as an object, or null when u is NULL. */
static void json_speedup(FILE *f, const t_summary *u) {
  if (!u) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"of_medians\": ");
  json_num(f, u->sp_medians);
  fprintf(f, ", \"paired_min\": ");
  json_num(f, u->sp_pair_min);
  fprintf(f, ", \"paired_median\": ");
  json_num(f, u->sp_pair_med);
  fprintf(f, ", \"paired_max\": ");
  json_num(f, u->sp_pair_max);
  fputc('}', f);
}

/* One thread count's entry of "results" (t: its index). */
static void json_result(FILE *f, const bench_cpu_report *r, size_t t) {
  const t_summary *u = &r->sum[t];
  size_t nt = (size_t)r->o->n_threads, nr = (size_t)r->o->reps;
  fprintf(f, "    {\"threads\": %d,\n     \"particle_steps_per_s\": {\"min\": ", u->threads);
  json_num(f, u->pss_min);
  fprintf(f, ", \"median\": ");
  json_num(f, u->pss_med);
  fprintf(f, ", \"max\": ");
  json_num(f, u->pss_max);
  fprintf(f, "},\n     \"wall_s\": [");
  for (size_t rep = 0; rep < nr; ++rep) {
    if (rep) fputs(", ", f);
    json_num(f, r->res[rep * nt + t].wall_s);
  }
  fprintf(f, "],\n     \"ms_per_step_median\": ");
  json_num(f, u->ms_step_med);
  fprintf(f, ",\n     \"stage_ms_per_step_median\": {");
  for (int s = 0; s < N_STAGES; ++s) {
    fprintf(f, "%s\"%s\": ", s ? ", " : "", stage_names[s]);
    json_num(f, u->stage_med[s]);
  }
  fprintf(f, "},\n     \"speedup_vs_1_thread\": ");
  json_speedup(f, u->have_speedup ? u : NULL);
  fprintf(f, "}%s\n", t + 1 < nt ? "," : "");
}

void bench_cpu_write_json(const bench_cpu_report *r) {
  char path[4096], tpath[4200];
  FILE *f = open_out(r->o->out, "bench_cpu.json", path, sizeof path, tpath, sizeof tpath);
  json_machine(f, r->env);
  json_scene(f, r);
  json_protocol(f, r);
  fprintf(f, "  \"results\": [\n");
  for (size_t t = 0; t < (size_t)r->o->n_threads; ++t) json_result(f, r, t);
  fprintf(f, "  ],\n  \"speedup_2_over_1\": ");
  json_speedup(f, r->one >= 0 && r->two >= 0 ? &r->sum[r->two] : NULL);
  fputs("\n}\n", f);
  close_out(f, path, tpath);
}
