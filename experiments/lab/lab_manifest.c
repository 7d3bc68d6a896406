/* lab_manifest.c: manifest.json, the record of a run: what ran (command,
 * commit, host, backend), with which tables, its parameters and results as
 * the experiment records them, and its files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bg_version.h"
#include "lab_internal.h"

void lab_json_escape(char *dst, size_t n, const char *src) {
  size_t k = 0;
  for (; *src && k + 7 < n; ++src) {
    unsigned char ch = (unsigned char)*src;
    if (ch == '"' || ch == '\\') {
      dst[k++] = '\\';
      dst[k++] = (char)ch;
    } else if (ch < 0x20) {
      k += (size_t)snprintf(dst + k, n - k, "\\u%04x", ch);
    } else {
      dst[k++] = (char)ch;
    }
  }
  dst[k] = 0;
}

/* A key given twice keeps its last value: JSON objects have unique keys. */
static void manifest_add(bg_lab *lab, const char *key, const char *json_value) {
  char k[256];
  lab_json_escape(k, sizeof k, key);
  size_t n = strlen(k) + strlen(json_value) + 8;
  char *e = malloc(n);
  if (!e) lab_die("out of memory");
  snprintf(e, n, "\"%s\": %s", k, json_value);
  size_t kl = strlen(k) + 3; /* "key": */
  for (int i = 0; i < lab->n_manifest; ++i)
    if (!strncmp(lab->manifest[i], e, kl)) {
      free(lab->manifest[i]);
      lab->manifest[i] = e;
      return;
    }
  if (lab->n_manifest == MAX_MANIFEST) lab_die("too many manifest entries (max %d)", MAX_MANIFEST);
  lab->manifest[lab->n_manifest++] = e;
}

void bg_lab_manifest_num(bg_lab *lab, const char *key, double value) {
  char v[64];
  if (isfinite(value))
    snprintf(v, sizeof v, "%.10g", value);
  else
    snprintf(v, sizeof v, "null");
  manifest_add(lab, key, v);
}

void bg_lab_manifest_str(bg_lab *lab, const char *key, const char *value) {
  char esc[2048], q[2060];
  lab_json_escape(esc, sizeof esc, value ? value : "");
  snprintf(q, sizeof q, "\"%s\"", esc);
  manifest_add(lab, key, q);
}

void bg_lab_add_work(bg_lab *lab, double particle_steps) {
  /* experiments may run simulations side by side (--jobs) */
#ifdef _OPENMP
#pragma omp atomic
#endif
  lab->work += particle_steps;
  lab_tl_work += particle_steps;
}

/* Any other model's parameters, "name value" each, read through the
 * registry (bg_material_param_info): a new model's header is enough. */
static void material_params_text(const bg_material *m, char *out, size_t n) {
  /* every member of the union starts where the first does */
  const char *base = (const char *)&m->dp;
  size_t o = 0;
  out[0] = 0;
  for (int i = 0; i < bg_material_param_count(m->model) && o < n; ++i) {
    const char *name;
    size_t off;
    bg_matp_kind kind;
    if (bg_material_param_info(m->model, i, &name, &off, &kind) != BG_OK) break;
    double v = kind == BG_MATP_REAL ? (double)*(const bg_real *)(base + off)
                                    : (double)*(const int *)(base + off);
    o += (size_t)snprintf(out + o, n - o, "%s%s %g", i ? ", " : "", name, v);
  }
}

/* The names of bg_dp_cone, in its order: --cone's words and the manifest's. */
static const char *const cones[] = {"compression", "extension", "plane-strain"};
const char *bg_lab_cone_name(int cone) { return cone >= 0 && cone < 3 ? cones[cone] : "?"; }
int bg_lab_cone_parse(const char *name) {
  for (int k = 0; k < 3; ++k)
    if (!strcmp(name, cones[k])) return k;
  return -1;
}

void bg_lab_manifest_material(bg_lab *lab, const bg_material *m) {
  char buf[512];
  int o = snprintf(
      buf, sizeof buf, "%s: E %g Pa, nu %g, rho0 %g kg/m^3, %s stress, volume correction %s; ",
      bg_material_model_name(m->model) ? bg_material_model_name(m->model) : "?", (double)m->E,
      (double)m->nu, (double)m->rho0, m->stress == BG_STRESS_HENCKY ? "Hencky" : "fixed-corotated",
      m->volume_correction ? "on" : "off");
  if (m->model == BG_MODEL_DP)
    snprintf(buf + o, sizeof buf - (size_t)o, "phi %g deg on the %s cone, hardening %s",
             (double)m->dp.phi_deg,
             bg_lab_cone_name((int)m->dp.cone),
             m->dp.hardening ? "on" : "off");
  else if (m->model == BG_MODEL_MUI)
    snprintf(buf + o, sizeof buf - (size_t)o,
             "mu_s %g, mu_2 %g, I0 %g, grain d %g m, rho_s %g kg/m^3", (double)m->mui.mu_s,
             (double)m->mui.mu_2, (double)m->mui.I0, (double)m->mui.d, (double)m->mui.rho_s);
  else if (m->model == BG_MODEL_NGF)
    snprintf(buf + o, sizeof buf - (size_t)o,
             "mu_s %g, b %g, A %g, grain d %g m, rho_s %g kg/m^3, relaxation t0 %g s",
             (double)m->ngf.mu_s, (double)m->ngf.b, (double)m->ngf.A, (double)m->ngf.d,
             (double)m->ngf.rho_s, (double)m->ngf.t0);
  else
    material_params_text(m, buf + o, sizeof buf - (size_t)o);
  bg_lab_manifest_str(lab, "material", buf);
}

/* The steps this process's simulations took, and how many of them the
 * nonlocal model's step bound chose (bg_lab_sim_end adds them up); counted
 * from a restore on, and zero in a gather, whose points ran elsewhere (each
 * point's manifest has its own). */
void lab_manifest_steps(bg_lab *lab) {
  bg_lab_manifest_num(lab, "dt_steps", lab->steps_all);
  bg_lab_manifest_num(lab, "dt_steps_nonlocal_bound", lab->steps_nonlocal);
  bg_lab_manifest_num(lab, "dt_nonlocal_bound_share_max", lab->nonlocal_share_max);
}

int lab_manifest_has(const bg_lab *lab, const char *key) {
  size_t n = strlen(key);
  for (int i = 0; i < lab->n_manifest; ++i)
    if (lab->manifest[i][0] == '"' && !strncmp(lab->manifest[i] + 1, key, n) &&
        lab->manifest[i][n + 1] == '"')
      return 1;
  return 0;
}

void lab_write_manifest(bg_lab *lab, double wall) {
  char path[1400];
  snprintf(path, sizeof path, "%s/manifest.json", lab->out);
  FILE *fp = lab_open_output(lab, "manifest.json");
  char esc[2200], date[64];
  bg_host host;
  bg_host_describe(&host);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  const char *commit = lab_commit();
  fprintf(fp, "{\n  \"experiment\": \"%s\",\n", lab->name);
  lab_json_escape(esc, sizeof esc, lab->argv_line);
  fprintf(fp, "  \"command\": \"%s\",\n", esc);
  fprintf(fp, "  \"commit\": \"%s\",\n  \"version\": \"%s\",\n", commit, BG_VERSION_STRING);
  lab_json_escape(esc, sizeof esc, host.name);
  fprintf(fp, "  \"date\": \"%s\",\n  \"host\": \"%s\",\n", date, esc);
  lab_json_escape(esc, sizeof esc, host.cpu);
  fprintf(fp, "  \"cpu\": \"%s\",\n  \"cores\": %d,\n", esc, host.cores);
  fprintf(fp,
          "  \"scale\": \"%s\",\n  \"material_model\": \"%s\",\n  \"backend_requested\": \"%s\",\n",
          bg_lab_scale_name(lab), bg_lab_material_name(lab), lab->backend);
  bglab_manifest_backend(fp, lab, host.cpu);
  fprintf(fp, "  \"threads\": %d,\n  \"seed\": %lu,\n", lab->threads, lab->seed);
  fprintf(fp, "  \"omp_wait_policy\": \"%s\",\n", bg_thread_wait_policy());
  fprintf(fp, "  \"seeding\": \"%s\",\n", lab->seeding == BG_SEEDING_POISSON ? "poisson" : "lattice");
  fprintf(fp, "  \"wall_s\": %.3f,\n  \"particle_steps\": %.6g,\n", wall, lab->work);
  fprintf(fp, "  \"particle_steps_per_s\": %.6g", wall > 0 ? lab->work / wall : 0.0);
  /* the OpenMP runtime's settings change speed, never the physics: a timing
   * is traced to them */
  static const char *knobs[] = {"OMP_NUM_THREADS", "OMP_WAIT_POLICY"};
  fprintf(fp, ",\n  \"environment\": {");
  int first = 1;
  for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; ++i) {
    const char *v = getenv(knobs[i]);
    if (!v) continue;
    lab_json_escape(esc, sizeof esc, v);
    fprintf(fp, "%s\"%s\": \"%s\"", first ? "" : ", ", knobs[i], esc);
    first = 0;
  }
  fprintf(fp, "}");
  /* which table judged the run: a report judged against an edited table says so */
  char tpath[1200];
  snprintf(tpath, sizeof tpath, "%s/claims.tsv", lab->refs);
  lab_json_escape(esc, sizeof esc, tpath);
  fprintf(fp, ",\n  \"claims_table\": \"%s\",\n  \"claims_table_sha256\": \"%s\"", esc,
          lab->table_sha);
  snprintf(tpath, sizeof tpath, "%s/mutants.tsv", lab->refs);
  lab_json_escape(esc, sizeof esc, tpath);
  fprintf(fp, ",\n  \"mutants_table\": \"%s\",\n  \"mutants_table_sha256\": \"%s\"", esc,
          lab->mutants_sha);
  for (int i = 0; i < lab->n_manifest; ++i) fprintf(fp, ",\n  %s", lab->manifest[i]);
  fprintf(fp, ",\n  \"files\": [");
  for (int i = 0; i < lab->n_files; ++i) {
    lab_json_escape(esc, sizeof esc, lab->files[i]);
    fprintf(fp, "%s\"%s\"", i ? ", " : "", esc);
  }
  fprintf(fp, "]\n}\n");
  lab_close_output(fp, path);
}
