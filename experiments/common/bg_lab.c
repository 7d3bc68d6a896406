/* bg_lab.c: the experiment harness (see bg_lab.h): CLI, manifest, TSV,
 * progress, and claims judged against references/claims.tsv. */
#define _POSIX_C_SOURCE 200809L
#include "bg_lab.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_version.h"

#define MAX_CLAIMS 64
#define MAX_MANIFEST 128
#define MAX_MUTANTS 32
#define MAX_MUTANT_CLAIMS 256

typedef struct claim_row {
  char id[96];
  char compare[8]; /* abs, rel, max, min */
  double expected;
  double tol[2]; /* quick, paper */
  char unit[24];
  char source[64];
  char kind[16];
  int expect_pass[2]; /* per scale (quick, paper); 0: a known, documented miss (the description says why) */
} claim_row;

typedef struct claim_result {
  char id[96];
  double measured, expected, tol;
  char unit[24], source[64], compare[8];
  int pass, expect_pass;
} claim_result;

/* A row of references/mutants.tsv for this executable. */
typedef struct mutant_row {
  char name[64];
  char kind[16];     /* model, scene or measurement */
  char claims[512];  /* comma-separated claim ids it must flip */
  char desc[1024];
} mutant_row;

/* A measurement mutant's value, recorded by bg_lab_claim_mutant. */
typedef struct mutant_claim {
  char mutant[64];
  char id[96];
  double measured;
} mutant_claim;

struct bg_lab {
  const char *name;
  bg_scale scale;
  const char *backend;
  char out[1024];
  char refs[1024];
  int threads;
  unsigned long seed;
  int quiet;
  double t0;
  double work;
  claim_row *table;
  int n_table;
  claim_result claims[MAX_CLAIMS];
  int n_claims;
  char *manifest[MAX_MANIFEST]; /* "\"key\": value" */
  int n_manifest;
  char argv_line[2048];
  mutant_row mutants[MAX_MUTANTS];
  int n_mutants;
  const mutant_row *active; /* --mutant, or NULL */
  mutant_claim *mclaims;
  int n_mclaims;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; ++p)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  return 0;
}

/* ------------------------------------------------------------ claims table */

static void load_claims(bg_lab *lab) {
  char path[1200];
  snprintf(path, sizeof path, "%s/claims.tsv", lab->refs);
  FILE *fp = fopen(path, "r");
  if (!fp) die("cannot read the claims table %s (set --references DIR)", path);
  char line[2048];
  int cap = 64;
  lab->table = calloc((size_t)cap, sizeof *lab->table);
  while (fgets(line, sizeof line, fp)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    /* claim compare expected tol_quick tol_paper unit source kind expect description */
    char *f[10] = {0};
    int nf = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, "\t\n", &save); tok && nf < 10; tok = strtok_r(NULL, "\t\n", &save))
      f[nf++] = tok;
    if (nf < 9) die("%s: malformed row (need 9+ tab-separated fields): %s", path, line);
    if (lab->n_table == cap) {
      cap *= 2;
      lab->table = realloc(lab->table, (size_t)cap * sizeof *lab->table);
    }
    claim_row *r = &lab->table[lab->n_table++];
    snprintf(r->id, sizeof r->id, "%s", f[0]);
    snprintf(r->compare, sizeof r->compare, "%s", f[1]);
    r->expected = strtod(f[2], NULL);
    r->tol[0] = strtod(f[3], NULL);
    r->tol[1] = strtod(f[4], NULL);
    snprintf(r->unit, sizeof r->unit, "%s", f[5]);
    snprintf(r->source, sizeof r->source, "%s", f[6]);
    snprintf(r->kind, sizeof r->kind, "%s", f[7]);
    /* expect: pass or fail for both scales, or quick=V,paper=V where a
     * miss is known at one resolution only */
    if (!strcmp(f[8], "pass") || !strcmp(f[8], "fail")) {
      r->expect_pass[0] = r->expect_pass[1] = !strcmp(f[8], "pass");
    } else {
      char q[8], pp[8];
      if (sscanf(f[8], "quick=%4[a-z],paper=%4[a-z]", q, pp) != 2 || (strcmp(q, "pass") && strcmp(q, "fail")) ||
          (strcmp(pp, "pass") && strcmp(pp, "fail")))
        die("%s: claim %s: expect must be pass, fail or quick=pass|fail,paper=pass|fail (got %s)", path, r->id,
            f[8]);
      r->expect_pass[0] = !strcmp(q, "pass");
      r->expect_pass[1] = !strcmp(pp, "pass");
    }
    if (strcmp(r->compare, "abs") && strcmp(r->compare, "rel") && strcmp(r->compare, "max") &&
        strcmp(r->compare, "min"))
      die("%s: claim %s: compare must be abs, rel, max or min (got %s)", path, r->id, r->compare);
  }
  fclose(fp);
}

/* Splits a line at tabs in place, keeping empty fields; returns the count. */
static int split_tabs(char *line, char **f, int max) {
  int n = 0;
  line[strcspn(line, "\r\n")] = 0;
  for (char *p = line; n < max;) {
    f[n++] = p;
    char *t = strchr(p, '\t');
    if (!t) break;
    *t = 0;
    p = t + 1;
  }
  return n;
}

static int in_list(const char *list, const char *item) {
  size_t n = strlen(item);
  for (const char *p = list; *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && !strncmp(p, item, n)) return 1;
    p += k;
    if (*p == ',') p++;
  }
  return 0;
}

/* references/mutants.tsv: mutant, executable, kind, claims, description. The
 * rows of this executable must be exactly the mutants its code implements. */
static void load_mutants(bg_lab *lab, const char *const *implemented) {
  char path[1200];
  snprintf(path, sizeof path, "%s/mutants.tsv", lab->refs);
  FILE *fp = fopen(path, "r");
  if (!fp) die("cannot read the mutant registry %s: %s", path, strerror(errno));
  char line[4096];
  int ln = 0;
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (line[0] == '#' || line[0] == '\n') continue;
    char *f[6];
    int nf = split_tabs(line, f, 6);
    if (nf != 5) die("%s:%d: need 5 tab-separated fields (mutant, executable, kind, claims, description), got %d", path, ln, nf);
    for (int i = 0; i < 5; ++i)
      if (!f[i][0]) die("%s:%d: field %d is empty", path, ln, i + 1);
    if (strcmp(f[2], "model") && strcmp(f[2], "scene") && strcmp(f[2], "measurement"))
      die("%s:%d: kind must be model, scene or measurement (got %s)", path, ln, f[2]);
    if (strcmp(f[1], lab->name)) continue;
    int known = 0;
    for (const char *const *m = implemented; m && *m; ++m) known |= !strcmp(*m, f[0]);
    if (!known) die("%s:%d: mutant %s is not implemented by %s", path, ln, f[0], lab->name);
    for (int i = 0; i < lab->n_mutants; ++i)
      if (!strcmp(lab->mutants[i].name, f[0])) die("%s:%d: mutant %s is listed twice", path, ln, f[0]);
    if (lab->n_mutants == MAX_MUTANTS) die("%s: more than %d mutants for %s", path, MAX_MUTANTS, lab->name);
    mutant_row *r = &lab->mutants[lab->n_mutants++];
    if (strlen(f[0]) >= sizeof r->name || strlen(f[3]) >= sizeof r->claims || strlen(f[4]) >= sizeof r->desc)
      die("%s:%d: a field is too long (name < %zu, claims < %zu, description < %zu characters)", path, ln,
          sizeof r->name, sizeof r->claims, sizeof r->desc);
    memcpy(r->name, f[0], strlen(f[0]) + 1);
    memcpy(r->kind, f[2], strlen(f[2]) + 1);
    memcpy(r->claims, f[3], strlen(f[3]) + 1);
    memcpy(r->desc, f[4], strlen(f[4]) + 1);
  }
  fclose(fp);
  for (const char *const *m = implemented; m && *m; ++m) {
    int listed = 0;
    for (int i = 0; i < lab->n_mutants; ++i) listed |= !strcmp(lab->mutants[i].name, *m);
    if (!listed) die("%s implements mutant %s, which %s does not list", lab->name, *m, path);
  }
}

static const claim_row *find_claim(const bg_lab *lab, const char *id) {
  for (int i = 0; i < lab->n_table; ++i)
    if (strcmp(lab->table[i].id, id) == 0) return &lab->table[i];
  return NULL;
}

int bg_lab_claim_ref(bg_lab *lab, const char *id, double *expected, double *tolerance) {
  const claim_row *r = find_claim(lab, id);
  if (!r) return 0;
  if (expected) *expected = r->expected;
  if (tolerance) *tolerance = r->tol[lab->scale];
  return 1;
}

static int judge(const claim_row *r, double tol, double measured) {
  /* NaN measured never passes: every comparison with NaN is false */
  if (!strcmp(r->compare, "abs")) return fabs(measured - r->expected) <= tol;
  if (!strcmp(r->compare, "rel")) return fabs(measured - r->expected) <= tol * fabs(r->expected);
  if (!strcmp(r->compare, "max")) return measured <= tol;
  return measured >= tol;
}

const char *bg_lab_mutant(const bg_lab *lab) { return lab->active ? lab->active->name : NULL; }

int bg_lab_mutant_is(const bg_lab *lab, const char *mutant) {
  return lab->active && !strcmp(lab->active->name, mutant);
}

int bg_lab_needed(const bg_lab *lab, const char *claim_id) {
  return !lab->active || in_list(lab->active->claims, claim_id);
}

void bg_lab_claim_mutant(bg_lab *lab, const char *mutant, const char *id, double measured) {
  int known = 0;
  for (int i = 0; i < lab->n_mutants; ++i)
    known |= !strcmp(lab->mutants[i].name, mutant) && !strcmp(lab->mutants[i].kind, "measurement");
  if (!known) die("bg_lab_claim_mutant: %s is not a measurement mutant of %s in mutants.tsv", mutant, lab->name);
  if (lab->n_mclaims == MAX_MUTANT_CLAIMS) die("too many mutant claims in one run (max %d)", MAX_MUTANT_CLAIMS);
  mutant_claim *m = &lab->mclaims[lab->n_mclaims++];
  snprintf(m->mutant, sizeof m->mutant, "%s", mutant);
  snprintf(m->id, sizeof m->id, "%s", id);
  m->measured = measured;
}

int bg_lab_claim(bg_lab *lab, const char *id, double measured) {
  if (lab->n_claims == MAX_CLAIMS) die("too many claims in one run (max %d)", MAX_CLAIMS);
  claim_result *c = &lab->claims[lab->n_claims++];
  memset(c, 0, sizeof *c);
  snprintf(c->id, sizeof c->id, "%s", id);
  c->measured = measured;
  const claim_row *r = find_claim(lab, id);
  if (!r) {
    fprintf(stderr, "claim %s is not in %s/claims.tsv: counted as failed\n", id, lab->refs);
    c->expected = NAN;
    c->tol = NAN;
    snprintf(c->unit, sizeof c->unit, "-");
    snprintf(c->source, sizeof c->source, "missing");
    snprintf(c->compare, sizeof c->compare, "-");
    c->pass = 0;
    c->expect_pass = 1;
    return 0;
  }
  c->expect_pass = r->expect_pass[lab->scale];
  c->expected = r->expected;
  c->tol = r->tol[lab->scale];
  snprintf(c->unit, sizeof c->unit, "%s", r->unit);
  snprintf(c->source, sizeof c->source, "%s", r->source);
  snprintf(c->compare, sizeof c->compare, "%s", r->compare);
  c->pass = judge(r, c->tol, measured);
  return c->pass;
}

/* ------------------------------------------------------------------- CLI */

static void usage(const bg_lab *lab, const char *name, const char *summary, const bg_lab_param *p, int n,
                  FILE *fp) {
  fprintf(fp, "usage: %s [options]\n%s\n\ncommon options:\n", name, summary);
  fprintf(fp,
          "  --scale quick|paper   quick: CPU minutes (default); paper: the seed's resolution (GPU)\n"
          "  --backend NAME        cpu, cuda or auto (default auto)\n"
          "  --out DIR             output directory (default out/%s)\n"
          "  --threads N           CPU threads, 0 = all (default 0)\n"
          "  --seed S              random seed (default 1)\n"
          "  --references DIR      claims table and literature data (default: the source tree's)\n"
          "  --quiet               no progress on stderr\n"
          "  --mutant NAME         apply a mutant: a change a correct lab must detect (below)\n"
          "  --help                this text\n",
          name);
  if (n) fprintf(fp, "\n%s options:\n", name);
  for (int i = 0; i < n; ++i) {
    char def[64];
    if (p[i].type == BG_PARAM_DOUBLE) snprintf(def, sizeof def, "%g", *(double *)p[i].dest);
    else if (p[i].type == BG_PARAM_INT) snprintf(def, sizeof def, "%d", *(int *)p[i].dest);
    else snprintf(def, sizeof def, "%s", *(const char **)p[i].dest ? *(const char **)p[i].dest : "");
    if (p[i].type == BG_PARAM_STRING)
      fprintf(fp, "  --%-18s %s (default %s)\n", p[i].name, p[i].help, def);
    else
      fprintf(fp, "  --%-18s %s, in [%g, %g] (default %s)\n", p[i].name, p[i].help, p[i].lo, p[i].hi,
              def);
  }
  if (lab->n_mutants) fprintf(fp, "\nmutants (references/mutants.tsv):\n");
  for (int i = 0; i < lab->n_mutants; ++i)
    fprintf(fp, "  %-22s %s; must flip %s\n", lab->mutants[i].name, lab->mutants[i].desc, lab->mutants[i].claims);
}

static double parse_number(const char *opt, const char *arg, double lo, double hi, int integer) {
  char *end = NULL;
  errno = 0;
  double v = strtod(arg, &end);
  if (errno || !end || *end || end == arg || !isfinite(v))
    die("--%s: '%s' is not a number", opt, arg);
  if (integer && v != floor(v)) die("--%s: '%s' is not an integer", opt, arg);
  if (v < lo || v > hi) die("--%s: %s is outside the accepted range [%g, %g]", opt, arg, lo, hi);
  return v;
}

bg_lab *bg_lab_init(const char *name, const char *summary, int argc, char **argv,
                    bg_lab_param *params, int n_params, const char *const *mutants) {
  bg_lab *lab = calloc(1, sizeof *lab);
  if (!lab) die("out of memory");
  lab->name = name;
  lab->scale = BG_SCALE_QUICK;
  lab->backend = "auto";
  lab->seed = 1;
  lab->t0 = now_s();
  snprintf(lab->out, sizeof lab->out, "out/%s", name);
  const char *env_refs = getenv("BAGNOLD_REFERENCES");
  snprintf(lab->refs, sizeof lab->refs, "%s", env_refs ? env_refs : BAGNOLD_SOURCE_DIR "/references");
  size_t off = 0;
  for (int i = 0; i < argc && off < sizeof lab->argv_line - 1; ++i)
    off += (size_t)snprintf(lab->argv_line + off, sizeof lab->argv_line - off, "%s%s", i ? " " : "",
                            argv[i]);

  enum { O_SCALE = 1000, O_BACKEND, O_OUT, O_THREADS, O_SEED, O_QUIET, O_REFS, O_HELP, O_MUTANT, O_PARAM };
  int n_common = 9;
  struct option *opts = calloc((size_t)(n_common + n_params + 1), sizeof *opts);
  const char *common[] = {"scale", "backend", "out", "threads", "seed", "quiet", "references", "help", "mutant"};
  const char *mutant_arg = NULL;
  int want_help = 0;
  for (int i = 0; i < n_common; ++i) {
    opts[i].name = common[i];
    opts[i].has_arg = (i == 5 || i == 7) ? no_argument : required_argument;
    opts[i].val = O_SCALE + i;
  }
  for (int i = 0; i < n_params; ++i) {
    opts[n_common + i].name = params[i].name;
    opts[n_common + i].has_arg = required_argument;
    opts[n_common + i].val = O_PARAM + i;
    params[i].set = 0;
  }
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    if (c == '?' || c == ':') {
      fprintf(stderr, "error: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
      load_mutants(lab, mutants);
      usage(lab, name, summary, params, n_params, stderr);
      exit(2);
    }
    switch (c) {
      case O_SCALE:
        if (!strcmp(optarg, "quick")) lab->scale = BG_SCALE_QUICK;
        else if (!strcmp(optarg, "paper")) lab->scale = BG_SCALE_PAPER;
        else die("--scale: '%s' is not one of quick, paper", optarg);
        break;
      case O_BACKEND:
        if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda") && strcmp(optarg, "auto"))
          die("--backend: '%s' is not one of cpu, cuda, auto", optarg);
        lab->backend = optarg;
        break;
      case O_OUT: snprintf(lab->out, sizeof lab->out, "%s", optarg); break;
      case O_THREADS: lab->threads = (int)parse_number("threads", optarg, 0, 4096, 1); break;
      case O_SEED: lab->seed = (unsigned long)parse_number("seed", optarg, 0, 4294967295.0, 1); break;
      case O_QUIET: lab->quiet = 1; break;
      case O_REFS: snprintf(lab->refs, sizeof lab->refs, "%s", optarg); break;
      case O_HELP: want_help = 1; break;
      case O_MUTANT: mutant_arg = optarg; break;
      default: {
        bg_lab_param *p = &params[c - O_PARAM];
        if (p->type == BG_PARAM_STRING) *(const char **)p->dest = optarg;
        else if (p->type == BG_PARAM_INT)
          *(int *)p->dest = (int)parse_number(p->name, optarg, p->lo, p->hi, 1);
        else *(double *)p->dest = parse_number(p->name, optarg, p->lo, p->hi, 0);
        p->set = 1;
      }
    }
  }
  if (optind < argc) die("unexpected argument '%s' (options start with --; see --help)", argv[optind]);
  free(opts);
  load_mutants(lab, mutants);
  if (want_help) {
    usage(lab, name, summary, params, n_params, stdout);
    exit(0);
  }
  if (mutant_arg) {
    for (int i = 0; i < lab->n_mutants; ++i)
      if (!strcmp(lab->mutants[i].name, mutant_arg)) lab->active = &lab->mutants[i];
    if (!lab->active) {
      fprintf(stderr, "error: --mutant: '%s' is not a mutant of %s; it has:", mutant_arg, name);
      for (int i = 0; i < lab->n_mutants; ++i) fprintf(stderr, " %s", lab->mutants[i].name);
      fprintf(stderr, "%s\n", lab->n_mutants ? "" : " none");
      exit(2);
    }
  }
  lab->mclaims = calloc(MAX_MUTANT_CLAIMS, sizeof *lab->mclaims);
  if (!lab->mclaims) die("out of memory");
  if (make_dirs(lab->out) != 0) die("--out: cannot create directory %s: %s", lab->out, strerror(errno));
  load_claims(lab);
  return lab;
}

bg_scale bg_lab_scale(const bg_lab *lab) { return lab->scale; }
const char *bg_lab_scale_name(const bg_lab *lab) { return lab->scale == BG_SCALE_PAPER ? "paper" : "quick"; }
const char *bg_lab_backend(const bg_lab *lab) { return lab->backend; }
int bg_lab_threads(const bg_lab *lab) { return lab->threads; }
unsigned long bg_lab_seed(const bg_lab *lab) { return lab->seed; }
int bg_lab_quiet(const bg_lab *lab) { return lab->quiet; }
const char *bg_lab_references(const bg_lab *lab) { return lab->refs; }
const char *bg_lab_outdir(const bg_lab *lab) { return lab->out; }

FILE *bg_lab_tsv(bg_lab *lab, const char *file, const char *comment, const char *columns) {
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", lab->out, file);
  FILE *fp = fopen(path, "w");
  if (!fp) die("cannot write %s: %s", path, strerror(errno));
  if (comment && comment[0]) fprintf(fp, "# %s\n", comment);
  fprintf(fp, "# %s\n", columns);
  return fp;
}

/* ---------------------------------------------------------------- manifest */

static void json_escape(char *dst, size_t n, const char *src) {
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

static void manifest_add(bg_lab *lab, const char *key, const char *json_value) {
  if (lab->n_manifest == MAX_MANIFEST) die("too many manifest entries (max %d)", MAX_MANIFEST);
  char k[256];
  json_escape(k, sizeof k, key);
  size_t n = strlen(k) + strlen(json_value) + 8;
  char *e = malloc(n);
  snprintf(e, n, "\"%s\": %s", k, json_value);
  lab->manifest[lab->n_manifest++] = e;
}

void bg_lab_manifest_num(bg_lab *lab, const char *key, double value) {
  char v[64];
  if (isfinite(value)) snprintf(v, sizeof v, "%.10g", value);
  else snprintf(v, sizeof v, "null");
  manifest_add(lab, key, v);
}

void bg_lab_manifest_str(bg_lab *lab, const char *key, const char *value) {
  char esc[2048], q[2060];
  json_escape(esc, sizeof esc, value ? value : "");
  snprintf(q, sizeof q, "\"%s\"", esc);
  manifest_add(lab, key, q);
}

void bg_lab_add_work(bg_lab *lab, double particle_steps) {
  /* experiments may run simulations side by side (--jobs) */
#ifdef _OPENMP
#pragma omp atomic
#endif
  lab->work += particle_steps;
}

void bg_lab_progress(bg_lab *lab, const char *fmt, ...) {
  if (lab->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  /* one line at a time when experiments run simulations side by side */
  flockfile(stderr);
  fprintf(stderr, "[%s %7.1fs] ", lab->name, now_s() - lab->t0);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  funlockfile(stderr);
  va_end(ap);
}

static void cpu_model(char *buf, size_t n) {
  snprintf(buf, n, "unknown cpu");
  FILE *fp = fopen("/proc/cpuinfo", "r");
  if (!fp) return;
  char line[512];
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c++;
        while (*c == ' ') c++;
        c[strcspn(c, "\n")] = 0;
        snprintf(buf, n, "%s", c);
      }
      break;
    }
  fclose(fp);
}

static int manifest_has(const bg_lab *lab, const char *key) {
  size_t n = strlen(key);
  for (int i = 0; i < lab->n_manifest; ++i)
    if (lab->manifest[i][0] == '"' && !strncmp(lab->manifest[i] + 1, key, n) && lab->manifest[i][n + 1] == '"')
      return 1;
  return 0;
}

static void write_manifest(bg_lab *lab, double wall) {
  char path[1400];
  snprintf(path, sizeof path, "%s/manifest.json", lab->out);
  FILE *fp = fopen(path, "w");
  if (!fp) die("cannot write %s", path);
  char cpu[256], host[256] = "unknown", esc[2200], date[64];
  cpu_model(cpu, sizeof cpu);
  gethostname(host, sizeof host - 1);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  const char *commit = getenv("BAGNOLD_COMMIT") ? getenv("BAGNOLD_COMMIT") : BAGNOLD_GIT_COMMIT;
  fprintf(fp, "{\n  \"experiment\": \"%s\",\n", lab->name);
  json_escape(esc, sizeof esc, lab->argv_line);
  fprintf(fp, "  \"command\": \"%s\",\n", esc);
  fprintf(fp, "  \"commit\": \"%s\",\n  \"version\": \"%s\",\n", commit, BG_VERSION_STRING);
  fprintf(fp, "  \"date\": \"%s\",\n  \"host\": \"%s\",\n", date, host);
  json_escape(esc, sizeof esc, cpu);
  fprintf(fp, "  \"cpu\": \"%s\",\n  \"cores\": %ld,\n", esc, sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(fp, "  \"scale\": \"%s\",\n  \"backend_requested\": \"%s\",\n", bg_lab_scale_name(lab),
          lab->backend);
  /* what "auto" (or "cuda") ran on: the experiments' simulations all take
   * the lab's backend, and auto picks cuda wherever cuda is available */
  const char *used = "cpu";
  char dev[256] = "";
  if (strcmp(lab->backend, "cpu") != 0 && bg_backend_available("cuda", dev, sizeof dev)) used = "cuda";
  else snprintf(dev, sizeof dev, "%s", cpu);
  json_escape(esc, sizeof esc, dev);
  /* an experiment that states its own (the probe runs no simulation) wins */
  if (!manifest_has(lab, "backend")) fprintf(fp, "  \"backend\": \"%s\",\n", used);
  if (!manifest_has(lab, "device")) fprintf(fp, "  \"device\": \"%s\",\n", esc);
  fprintf(fp, "  \"threads\": %d,\n  \"seed\": %lu,\n", lab->threads, lab->seed);
  fprintf(fp, "  \"wall_s\": %.3f,\n  \"particle_steps\": %.6g,\n", wall, lab->work);
  fprintf(fp, "  \"particle_steps_per_s\": %.6g", wall > 0 ? lab->work / wall : 0.0);
  /* the backend's tuning knobs change speed, never results; recorded so a
   * timing can be traced to the kernel variant that made it */
  static const char *knobs[] = {"BAGNOLD_CUDA_P2G", "BAGNOLD_CUDA_BLOCK", "BAGNOLD_CUDA_P2G_THREADS",
                                "OMP_NUM_THREADS", "OMP_WAIT_POLICY"};
  fprintf(fp, ",\n  \"environment\": {");
  int first = 1;
  for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; ++i) {
    const char *v = getenv(knobs[i]);
    if (!v) continue;
    json_escape(esc, sizeof esc, v);
    fprintf(fp, "%s\"%s\": \"%s\"", first ? "" : ", ", knobs[i], esc);
    first = 0;
  }
  fprintf(fp, "}");
  for (int i = 0; i < lab->n_manifest; ++i) fprintf(fp, ",\n  %s", lab->manifest[i]);
  fprintf(fp, "\n}\n");
  fclose(fp);
}

/* mutants.tsv: each measurement mutant's value on this run's data, its
 * verdict, and the claim's own verdict beside it. */
static void write_mutants(bg_lab *lab) {
  char path[1400];
  snprintf(path, sizeof path, "%s/mutants.tsv", lab->out);
  if (lab->n_mclaims == 0) {
    remove(path);
    return;
  }
  FILE *fp = fopen(path, "w");
  if (!fp) die("cannot write %s: %s", path, strerror(errno));
  fprintf(fp, "# measurement mutants of %s at scale %s, evaluated on this run's data; claim_verdict: the "
              "claim's own verdict in this run\n",
          lab->name, bg_lab_scale_name(lab));
  fprintf(fp, "mutant\tclaim\tmeasured\tverdict\tclaim_verdict\texpect\n");
  for (int i = 0; i < lab->n_mclaims; ++i) {
    const mutant_claim *m = &lab->mclaims[i];
    const claim_row *r = find_claim(lab, m->id);
    const claim_result *c = NULL;
    for (int k = 0; k < lab->n_claims; ++k)
      if (!strcmp(lab->claims[k].id, m->id)) c = &lab->claims[k];
    int pass = r ? judge(r, r->tol[lab->scale], m->measured) : 0;
    fprintf(fp, "%s\t%s\t%.6g\t%s\t%s\t%s\n", m->mutant, m->id, m->measured, pass ? "pass" : "fail",
            c ? (c->pass ? "pass" : "fail") : "-", r ? (r->expect_pass[lab->scale] ? "pass" : "fail") : "-");
  }
  if (fclose(fp) != 0) die("cannot write %s: %s", path, strerror(errno));
}

/* In a run with --mutant M (a measurement mutant), M's values replace the
 * claims' own, so that every kind of mutant is judged the same way. */
static void apply_measurement_mutant(bg_lab *lab) {
  if (!lab->active || strcmp(lab->active->kind, "measurement")) return;
  for (int i = 0; i < lab->n_mclaims; ++i) {
    const mutant_claim *m = &lab->mclaims[i];
    if (strcmp(m->mutant, lab->active->name)) continue;
    for (int k = 0; k < lab->n_claims; ++k) {
      claim_result *c = &lab->claims[k];
      if (strcmp(c->id, m->id)) continue;
      const claim_row *r = find_claim(lab, c->id);
      c->measured = m->measured;
      c->pass = r ? judge(r, c->tol, m->measured) : 0;
    }
  }
}

int bg_lab_finish(bg_lab *lab) {
  double wall = now_s() - lab->t0;
  char path[1400];
  write_mutants(lab);
  apply_measurement_mutant(lab);
  if (lab->active) bg_lab_manifest_str(lab, "mutant", lab->active->name);
  snprintf(path, sizeof path, "%s/claims.tsv", lab->out);
  FILE *fp = fopen(path, "w");
  if (!fp) die("cannot write %s", path);
  fprintf(fp, "# claims of %s at scale %s%s%s; tolerance as in references/claims.tsv (compare rule in "
              "column 'compare' there)\n",
          lab->name, bg_lab_scale_name(lab), lab->active ? ", MUTANT " : "", lab->active ? lab->active->name : "");
  fprintf(fp, "claim\tmeasured\texpected\ttolerance\tunit\tverdict\tsource\texpect\n");
  int all = lab->n_claims > 0;
  if (!lab->quiet) fprintf(stderr, "claims of %s (%s scale):\n", lab->name, bg_lab_scale_name(lab));
  for (int i = 0; i < lab->n_claims; ++i) {
    claim_result *c = &lab->claims[i];
    all &= c->pass;
    fprintf(fp, "%s\t%.6g\t%.6g\t%.3g\t%s\t%s\t%s\t%s\n", c->id, c->measured, c->expected, c->tol,
            c->unit, c->pass ? "pass" : "fail", c->source, c->expect_pass ? "pass" : "fail");
    fprintf(stderr, "  %-32s %-4s measured %.6g %s (expected %.6g, %s tolerance %.3g)%s\n", c->id,
            c->pass ? "pass" : "FAIL", c->measured, c->unit, c->expected, c->compare, c->tol,
            c->pass == c->expect_pass ? "" : c->pass ? "  [unexpected pass: update the table]"
                                                     : "  [unexpected]");
  }
  fclose(fp);
  write_manifest(lab, wall);
  for (int i = 0; i < lab->n_manifest; ++i) free(lab->manifest[i]);
  free(lab->table);
  free(lab->mclaims);
  free(lab);
  return all ? 0 : 1;
}
