/* bg_lab.c: the experiment harness (see bg_lab.h): CLI, manifest, TSV,
 * progress, and claims judged against references/claims.tsv.
 *
 * Files: every output is written under a temporary name through a stdio
 * cookie whose write and close are checked (a full disk or a file-size
 * limit ends the run with the path and strerror, exit 2) and renamed into
 * place when closed, so a file that looks complete is complete. The run
 * folder holds a RUNNING marker until the manifest is in place; an error
 * turns it into FAILED, SIGINT or SIGTERM into INTERRUPTED. */
#define _GNU_SOURCE /* fopencookie */
#include "bg_lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_sha256.h"
#include "bg_version.h"

#define MAX_CLAIMS 64
#define MAX_MANIFEST 128
#define MAX_MUTANTS 32
#define MAX_MUTANT_CLAIMS 256
#define MAX_FILES 256
#define MAX_SIM_TAGS 4096

typedef struct claim_row {
  char id[96];
  char compare[8]; /* abs, rel, max, min */
  double expected; /* a number, or for a "fed" row the X of fed+X / fed*X */
  char fed_op;     /* 0: expected is a number; '+' or '*': expected = fed + X or fed * X */
  double tol[2]; /* quick, paper */
  char unit[24];
  char source[64];
  char kind[16];
  int expect[2]; /* per scale (quick, paper): a verdict code; V_FAIL a known, documented miss (the description
                   says why), V_REFUTED (quick only) a quick pass the recorded paper run contradicts */
} claim_row;

typedef struct claim_result {
  char id[96];
  double measured, expected, tol;
  char unit[24], source[64], compare[8];
  int pass;    /* the rule applied to measured */
  int verdict; /* V_PASS, V_FAIL, or V_REFUTED: a quick pass the recorded paper run contradicts */
  int expect;
  char paper[160]; /* the recorded paper run's value and verdict, re-judged by today's row; "-" when none */
  int paper_fails; /* -1: no recorded paper run judges it; 0: it passes there; 1: it fails there */
} claim_result;

/* Verdict codes. A quick-scale pass is only evidence if the paper scale
 * agrees: where the recorded paper run of the same claim fails today's
 * row, the quick verdict is "refuted", and the table must say so. */
enum { V_FAIL = 0, V_PASS = 1, V_REFUTED = 2 };
static const char *const verdict_name[] = {"fail", "pass", "refuted"};

/* A row of references/mutants.tsv for this executable. */
typedef struct mutant_row {
  char name[64];
  char kind[16];     /* model, scene, measurement or protocol */
  char claims[512];  /* comma-separated claim ids it must flip */
  char scale[8];     /* quick: checked by ctest on a quick run; paper: on the recorded paper run */
  char desc[1024];
} mutant_row;

/* A measurement mutant's value, recorded by bg_lab_claim_mutant. */
typedef struct mutant_claim {
  char mutant[64];
  char id[96];
  double measured;
  double fed; /* the input a "fed" row compares with, NaN otherwise */
} mutant_claim;

struct bg_lab {
  const char *name;
  bg_scale scale;
  const char *backend;
  int material; /* bg_material_model of --material */
  int n_unjudged; /* claims measured but not in the table for this model */
  double mu_s;    /* --mu-s (mu(I) only), 0: the model's default */
  double grain_d; /* --grain-d (models with a grain size), 0: the model's default */
  double ngf_a;   /* --ngf-a (ngf only), < 0: the model's default */
  double ngf_t0;  /* --ngf-t0 (ngf only), 0: the model's default */
  /* steps taken by the run's simulations, and those whose dt the nonlocal
   * bound set (bg_stats.steps_nonlocal_dt), with the largest share of one */
  double steps_all, steps_nonlocal, nonlocal_share_max;
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
  char table_sha[65], mutants_sha[65];
  char *files[MAX_FILES]; /* outputs of this run, names inside out */
  int n_files;
  int force;
  double last_progress, progress_every;
  /* per-simulation services (bg_lab_sim_begin): --vtk-every, --checkpoint-every, --resume */
  double vtk_every;  /* simulated s between frames, 0 off */
  double damping;    /* the largest grid damping (1/s) of the run's simulations */
  double ckpt_every; /* wall s between checkpoints, 0 off; < 0 until the scale's default is applied */
  char resume[1024]; /* a previous run's folder, "" when not resuming */
  int resume_inplace; /* --resume names --out itself: its checkpoints/ and vtk/ are kept */
  char identity[8192]; /* what a resumed run must share: checkpoints/run.txt */
  char *sim_tags[2 * MAX_SIM_TAGS]; /* file name, tag as given: pairs */
  int n_sim_tags;
  /* sweeps (bg_lab_sweep): the phase asked for, the point of --point, the
   * sweep's folder (--out; out itself is points/K for --point), the plan's
   * point count (read by --point and --gather), and whether the experiment
   * declared a sweep at all */
  int phase;
  int point;
  char root[1024];
  int plan_n;
  int in_sweep;
};

enum { SW_ALL = 0, SW_PLAN, SW_POINT, SW_GATHER };
static const char *const sweep_opt[] = {"", "--plan", "--point", "--gather"};

/* Work done by the calling thread since the last reset: one point's share
 * of the run's particle-steps (bg_lab_sweep). */
static _Thread_local double tl_work;

/* The one lab of this process, for the error and signal paths. */
static bg_lab *g_lab;
static char g_marker[1200], g_failed[1200], g_interrupted[1200];
static volatile sig_atomic_t g_in_write, g_pending_signal, g_dying;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The commit a run records and a sweep's phases must share: the build's,
 * unless BAGNOLD_COMMIT names another (a binary carried to another machine). */
static const char *run_commit(void) {
  const char *c = getenv("BAGNOLD_COMMIT");
  return c ? c : BAGNOLD_GIT_COMMIT;
}

/* Appends msg to a marker file with async-signal-safe calls only. */
static void marker_append(const char *path, const char *msg) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0666);
  if (fd < 0) return;
  ssize_t ignored = write(fd, msg, strlen(msg));
  (void)ignored;
  close(fd);
}

/* The folder says how the run ended: RUNNING becomes FAILED or INTERRUPTED
 * (a rename needs no free space), then the reason is appended. */
static void mark_folder(const char *to, const char *msg) {
  if (!g_marker[0]) return;
  if (rename(g_marker, to) != 0) marker_append(to, "");
  marker_append(to, msg);
  g_marker[0] = 0;
}

static _Noreturn void die(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "error: %s\n", msg);
  if (g_marker[0]) {
    g_dying = 1;
    char line[2100];
    snprintf(line, sizeof line, "error: %s\n", msg);
    mark_folder(g_failed, line);
    /* no exit(): flushing the other outputs would try to write them again */
    _exit(2);
  }
  exit(2);
}

void bg_lab_fail(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  die("%s", msg);
  abort(); /* die does not return */
}

static void on_signal(int sig) {
  if (g_in_write) {
    g_pending_signal = sig; /* the write finishes first, then the run stops */
    return;
  }
  mark_folder(g_interrupted, sig == SIGINT ? "interrupted by SIGINT\n" : "interrupted by SIGTERM\n");
  _exit(128 + sig);
}

/* ------------------------------------------------------ checked outputs */

typedef struct out_file {
  int fd;
  char final[1400], tmp[1420];
} out_file;

static ssize_t of_write(void *cookie, const char *buf, size_t n) {
  out_file *o = cookie;
  if (g_dying) return 0;
  g_in_write = 1;
  size_t done = 0;
  while (done < n) {
    ssize_t k = write(o->fd, buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      int e = errno;
      g_in_write = 0;
      die("writing %s: %s", o->final, strerror(e));
    }
    done += (size_t)k;
  }
  g_in_write = 0;
  if (g_pending_signal) on_signal(g_pending_signal);
  return (ssize_t)n;
}

static int of_close(void *cookie) {
  out_file *o = cookie;
  if (close(o->fd) != 0) die("closing %s: %s", o->final, strerror(errno));
  if (rename(o->tmp, o->final) != 0) die("renaming %s to %s: %s", o->tmp, o->final, strerror(errno));
  free(o);
  return 0;
}

static void add_file(bg_lab *lab, const char *file) {
  for (int i = 0; i < lab->n_files; ++i)
    if (!strcmp(lab->files[i], file)) return;
  if (lab->n_files == MAX_FILES) die("more than %d output files in one run", MAX_FILES);
  lab->files[lab->n_files] = strdup(file);
  if (!lab->files[lab->n_files]) die("out of memory");
  lab->n_files++;
}

/* OUT/file opened for writing through the checked cookie. */
static FILE *open_output(bg_lab *lab, const char *file) {
  out_file *o = calloc(1, sizeof *o);
  if (!o) die("out of memory");
  if (snprintf(o->final, sizeof o->final, "%s/%s", lab->out, file) >= (int)sizeof o->final)
    die("output path %s/%s is too long", lab->out, file);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp", o->final);
  o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (o->fd < 0) die("cannot write %s: %s", o->tmp, strerror(errno));
  cookie_io_functions_t io = {NULL, of_write, NULL, of_close};
  FILE *fp = fopencookie(o, "w", io);
  if (!fp) die("cannot write %s: %s", o->final, strerror(errno));
  add_file(lab, file);
  return fp;
}

/* fclose with the error turned into an exit: a stream's buffered tail is
 * written here, and ferror catches a failed fprintf that wrote nothing */
static void close_output(FILE *fp, const char *what) {
  if (ferror(fp)) die("writing %s failed", what);
  if (fclose(fp) != 0) die("closing %s: %s", what, strerror(errno));
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

/* A field of the claims table as a finite number, all of it: "1.5deg",
 * "abc", "nan" and "" are errors naming the file, line and column. */
static double table_number(const char *path, int ln, const char *col, const char *s) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v))
    die("%s:%d: column %s: '%s' is not a finite number", path, ln, col, s);
  return v;
}

static int split_tabs(char *line, char **f, int max);

static void load_claims(bg_lab *lab) {
  char path[1200];
  snprintf(path, sizeof path, "%s/claims.tsv", lab->refs);
  struct stat st;
  if (stat(path, &st) != 0) die("cannot read the claims table %s: %s (set --references DIR)", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) die("the claims table %s is not a regular file", path);
  FILE *fp = fopen(path, "r");
  if (!fp) die("cannot read the claims table %s: %s (set --references DIR)", path, strerror(errno));
  static const char *cols[] = {"claim", "compare", "expected", "tol_quick", "tol_paper",
                               "unit",  "source",  "kind",     "expect",    "description"};
  char line[8192];
  int cap = 64, ln = 0, seen_header = 0;
  lab->table = calloc((size_t)cap, sizeof *lab->table);
  if (!lab->table) die("out of memory");
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (!strchr(line, '\n') && !feof(fp)) die("%s:%d: line longer than %zu characters", path, ln, sizeof line - 1);
    if (line[0] == '#' || line[0] == '\n') continue;
    char *f[11];
    int nf = split_tabs(line, f, 11);
    if (!seen_header) {
      /* the first line that is not a comment names the columns (pandas and
       * gnuplot read it as the header), so a missing or reordered column is
       * an error here, not a shifted value later */
      for (int i = 0; i < 10; ++i)
        if (nf != 10 || strcmp(f[i], cols[i]))
          die("%s:%d: the header must be the 10 columns 'claim compare expected tol_quick tol_paper unit source kind "
              "expect description', tab-separated", path, ln);
      seen_header = 1;
      continue;
    }
    if (nf != 10) die("%s:%d: %d tab-separated fields, the table has 10 (claim compare expected tol_quick tol_paper unit source kind expect description)", path, ln, nf);
    for (int i = 0; i < 10; ++i)
      if (!f[i][0]) die("%s:%d: column %s is empty", path, ln, cols[i]);
    if (lab->n_table == cap) {
      cap *= 2;
      claim_row *t = realloc(lab->table, (size_t)cap * sizeof *lab->table);
      if (!t) die("out of memory");
      lab->table = t;
    }
    claim_row *r = &lab->table[lab->n_table];
    if (strlen(f[0]) >= sizeof r->id || strlen(f[5]) >= sizeof r->unit || strlen(f[6]) >= sizeof r->source ||
        strlen(f[7]) >= sizeof r->kind)
      die("%s:%d: claim, unit, source or kind is too long", path, ln);
    for (int i = 0; i < lab->n_table; ++i)
      if (!strcmp(lab->table[i].id, f[0])) die("%s:%d: claim %s is listed twice (a second row would judge it silently)", path, ln, f[0]);
    lab->n_table++;
    memcpy(r->id, f[0], strlen(f[0]) + 1);
    if (strcmp(f[1], "abs") && strcmp(f[1], "rel") && strcmp(f[1], "max") && strcmp(f[1], "min"))
      die("%s:%d: claim %s: compare must be abs, rel, max or min (got %s)", path, ln, r->id, f[1]);
    memcpy(r->compare, f[1], strlen(f[1]) + 1);
    r->fed_op = 0;
    if (!strncmp(f[2], "fed", 3)) {
      /* fed, fed+X, fed-X or fed*X: the expected value is the run's input */
      const char *x = f[2] + 3;
      if (!*x) {
        r->fed_op = '+';
        r->expected = 0;
      } else if (*x == '+' || *x == '-' || *x == '*') {
        r->fed_op = *x == '*' ? '*' : '+';
        r->expected = table_number(path, ln, "expected", x + 1) * (*x == '-' ? -1 : 1);
      } else {
        die("%s:%d: claim %s: expected must be a number, fed, fed+X, fed-X or fed*X (got %s)", path, ln, r->id, f[2]);
      }
    } else {
      r->expected = table_number(path, ln, "expected", f[2]);
    }
    r->tol[0] = table_number(path, ln, "tol_quick", f[3]);
    r->tol[1] = table_number(path, ln, "tol_paper", f[4]);
    if ((!strcmp(f[1], "abs") || !strcmp(f[1], "rel")) && (r->tol[0] < 0 || r->tol[1] < 0))
      die("%s:%d: claim %s: an abs or rel tolerance must be >= 0", path, ln, r->id);
    memcpy(r->unit, f[5], strlen(f[5]) + 1);
    memcpy(r->source, f[6], strlen(f[6]) + 1);
    memcpy(r->kind, f[7], strlen(f[7]) + 1);
    if (strcmp(r->kind, "analytic") && strcmp(r->kind, "literature") && strcmp(r->kind, "seed") &&
        strcmp(r->kind, "baseline"))
      die("%s:%d: claim %s: kind must be analytic, literature, seed or baseline (got %s)", path, ln, r->id, r->kind);
    /* expect: pass or fail for both scales, or quick=V,paper=V where a
     * miss is known at one resolution only; quick=refuted where the quick
     * run passes and the recorded paper run does not */
    if (!strcmp(f[8], "pass") || !strcmp(f[8], "fail")) {
      r->expect[0] = r->expect[1] = !strcmp(f[8], "pass") ? V_PASS : V_FAIL;
    } else {
      char q[8], pp[8], tail;
      if (sscanf(f[8], "quick=%7[a-z],paper=%4[a-z]%c", q, pp, &tail) != 2 ||
          (strcmp(q, "pass") && strcmp(q, "fail") && strcmp(q, "refuted")) || (strcmp(pp, "pass") && strcmp(pp, "fail")))
        die("%s:%d: claim %s: expect must be pass, fail or quick=pass|fail|refuted,paper=pass|fail (got %s)", path,
            ln, r->id, f[8]);
      r->expect[0] = !strcmp(q, "pass") ? V_PASS : !strcmp(q, "fail") ? V_FAIL : V_REFUTED;
      r->expect[1] = !strcmp(pp, "pass") ? V_PASS : V_FAIL;
      if (r->expect[0] == V_REFUTED && r->expect[1] == V_PASS)
        die("%s:%d: claim %s: quick=refuted means the paper run fails, so paper=pass contradicts it", path, ln, r->id);
    }
  }
  if (ferror(fp)) die("reading the claims table %s: %s", path, strerror(errno));
  fclose(fp);
  if (lab->n_table == 0) die("the claims table %s has no claims", path);
  if (bg_sha256_file(path, lab->table_sha) != 0) die("cannot hash %s: %s", path, strerror(errno));
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

/* references/mutants.tsv: mutant, executable, kind, claims, scale, description. The
 * rows of this executable must be exactly the mutants its code implements. */
static void load_mutants(bg_lab *lab, const char *const *implemented) {
  char path[1200];
  snprintf(path, sizeof path, "%s/mutants.tsv", lab->refs);
  FILE *fp = fopen(path, "r");
  if (!fp) die("cannot read the mutant registry %s: %s", path, strerror(errno));
  char line[4096];
  int ln = 0, seen_header = 0;
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (line[0] == '#' || line[0] == '\n') continue;
    char *f[7];
    int nf = split_tabs(line, f, 7);
    if (!seen_header) {
      static const char *mcols[] = {"mutant", "executable", "kind", "claims", "scale", "description"};
      for (int i = 0; i < 6; ++i)
        if (nf != 6 || strcmp(f[i], mcols[i]))
          die("%s:%d: the header must be the 6 columns 'mutant executable kind claims scale description', "
              "tab-separated", path, ln);
      seen_header = 1;
      continue;
    }
    if (nf != 6)
      die("%s:%d: need 6 tab-separated fields (mutant, executable, kind, claims, scale, description), got %d", path,
          ln, nf);
    for (int i = 0; i < 6; ++i)
      if (!f[i][0]) die("%s:%d: field %d is empty", path, ln, i + 1);
    if (strcmp(f[2], "model") && strcmp(f[2], "scene") && strcmp(f[2], "measurement") && strcmp(f[2], "protocol"))
      die("%s:%d: kind must be model, scene, measurement or protocol (got %s)", path, ln, f[2]);
    if (strcmp(f[4], "quick") && strcmp(f[4], "paper"))
      die("%s:%d: scale must be quick or paper (got %s)", path, ln, f[4]);
    if (!strcmp(f[4], "paper") && strcmp(f[2], "measurement"))
      die("%s:%d: a paper-scale mutant is checked on a recorded plain run, so it must be a measurement mutant", path, ln);
    if (strcmp(f[1], lab->name)) continue;
    int known = 0;
    for (const char *const *m = implemented; m && *m; ++m) known |= !strcmp(*m, f[0]);
    if (!known) die("%s:%d: mutant %s is not implemented by %s", path, ln, f[0], lab->name);
    for (int i = 0; i < lab->n_mutants; ++i)
      if (!strcmp(lab->mutants[i].name, f[0])) die("%s:%d: mutant %s is listed twice", path, ln, f[0]);
    if (lab->n_mutants == MAX_MUTANTS) die("%s: more than %d mutants for %s", path, MAX_MUTANTS, lab->name);
    mutant_row *r = &lab->mutants[lab->n_mutants++];
    if (strlen(f[0]) >= sizeof r->name || strlen(f[3]) >= sizeof r->claims || strlen(f[5]) >= sizeof r->desc)
      die("%s:%d: a field is too long (name < %zu, claims < %zu, description < %zu characters)", path, ln,
          sizeof r->name, sizeof r->claims, sizeof r->desc);
    memcpy(r->name, f[0], strlen(f[0]) + 1);
    memcpy(r->kind, f[2], strlen(f[2]) + 1);
    memcpy(r->claims, f[3], strlen(f[3]) + 1);
    memcpy(r->scale, f[4], strlen(f[4]) + 1);
    memcpy(r->desc, f[5], strlen(f[5]) + 1);
  }
  fclose(fp);
  for (const char *const *m = implemented; m && *m; ++m) {
    int listed = 0;
    for (int i = 0; i < lab->n_mutants; ++i) listed |= !strcmp(lab->mutants[i].name, *m);
    if (!listed) die("%s implements mutant %s, which %s does not list", lab->name, *m, path);
  }
}

static int scoped_id(const bg_lab *lab, const char *id, char *out, size_t n);

static const claim_row *find_claim(const bg_lab *lab, const char *id) {
  for (int i = 0; i < lab->n_table; ++i)
    if (strcmp(lab->table[i].id, id) == 0) return &lab->table[i];
  return NULL;
}

int bg_lab_claim_ref(bg_lab *lab, const char *id_as_written, double *expected, double *tolerance) {
  char id[96];
  if (!scoped_id(lab, id_as_written, id, sizeof id)) return 0;
  const claim_row *r = find_claim(lab, id);
  if (!r) return 0;
  if (expected) *expected = r->expected;
  if (tolerance) *tolerance = r->tol[lab->scale];
  return 1;
}

/* The expected value of row r for a run fed 'fed' (NaN for a numeric row). */
static double row_expected(const claim_row *r, double fed) {
  if (!r->fed_op) return r->expected;
  return r->fed_op == '*' ? fed * r->expected : fed + r->expected;
}

static int judge_at(const claim_row *r, double expected, double tol, double measured) {
  /* NaN measured (or a NaN fed input) never passes: every comparison with NaN is false */
  if (!strcmp(r->compare, "abs")) return fabs(measured - expected) <= tol;
  if (!strcmp(r->compare, "rel")) return fabs(measured - expected) <= tol * fabs(expected);
  if (!strcmp(r->compare, "max")) return measured <= tol;
  return measured >= tol;
}

const char *bg_lab_mutant(const bg_lab *lab) { return lab->active ? lab->active->name : NULL; }

/* The claim a run judges under id. Drucker-Prager (the default model) is
 * judged on the ids as written; a run of another model on
 * "exe.<model label>.rest" (e.g. runout.mu-i.small_a_slope), and only where
 * claims.tsv has such a row: one model's expectations do not carry over to
 * another. Returns 0 when the claim does not apply to this run's model. */
static int scoped_id(const bg_lab *lab, const char *id, char *out, size_t n) {
  if (lab->material == BG_MODEL_DP) {
    snprintf(out, n, "%s", id);
    return 1;
  }
  const char *dot = strchr(id, '.');
  if (!dot) die("claim id '%s' has no '.'", id);
  snprintf(out, n, "%.*s.%s%s", (int)(dot - id), id, bg_material_model_name((bg_material_model)lab->material), dot);
  return find_claim(lab, out) != NULL;
}

int bg_lab_mutant_is(const bg_lab *lab, const char *mutant) {
  return lab->active && !strcmp(lab->active->name, mutant);
}

int bg_lab_needed(const bg_lab *lab, const char *claim_id) {
  char sid[96];
  /* a claim this run's model has no row for is not judged: not needed */
  if (!scoped_id(lab, claim_id, sid, sizeof sid)) return 0;
  return !lab->active || in_list(lab->active->claims, sid);
}

static void claim_mutant(bg_lab *lab, const char *mutant, const char *id, double measured, int has_fed, double fed) {
  int known = 0;
  for (int i = 0; i < lab->n_mutants; ++i)
    known |= !strcmp(lab->mutants[i].name, mutant) && !strcmp(lab->mutants[i].kind, "measurement");
  if (!known) die("bg_lab_claim_mutant: %s is not a measurement mutant of %s in mutants.tsv", mutant, lab->name);
  char sid[96];
  if (!scoped_id(lab, id, sid, sizeof sid)) return;
  const claim_row *r = find_claim(lab, sid);
  if (r && !r->fed_op != !has_fed)
    die("mutant %s of claim %s: the table's expected column %s, so call %s", mutant, sid,
        r->fed_op ? "reads fed (the run's input)" : "is a number", r->fed_op ? "bg_lab_claim_mutant_fed" : "bg_lab_claim_mutant");
  if (lab->n_mclaims == MAX_MUTANT_CLAIMS) die("too many mutant claims in one run (max %d)", MAX_MUTANT_CLAIMS);
  mutant_claim *m = &lab->mclaims[lab->n_mclaims++];
  snprintf(m->mutant, sizeof m->mutant, "%s", mutant);
  snprintf(m->id, sizeof m->id, "%s", sid);
  m->measured = measured;
  m->fed = has_fed ? fed : NAN;
}

void bg_lab_claim_mutant(bg_lab *lab, const char *mutant, const char *id, double measured) {
  claim_mutant(lab, mutant, id, measured, 0, NAN);
}

void bg_lab_claim_mutant_fed(bg_lab *lab, const char *mutant, const char *id, double measured, double fed) {
  claim_mutant(lab, mutant, id, measured, 1, fed);
}

static int claim(bg_lab *lab, const char *id_as_written, double measured, int has_fed, double fed) {
  char id[96];
  if (!scoped_id(lab, id_as_written, id, sizeof id)) {
    /* measured, not judged: the value still goes into the manifest */
    char key[128];
    snprintf(key, sizeof key, "unjudged.%s", id);
    lab->n_unjudged++;
    bg_lab_manifest_num(lab, key, measured);
    if (!lab->quiet)
      fprintf(stderr, "  %-32s measured %g, not a claim for %s (claims.tsv has no %s row)\n", id_as_written, measured,
              bg_lab_material_name(lab), id);
    return 0;
  }
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
    c->expect = V_PASS;
    return 0;
  }
  /* a claim whose table row names the run's input must be handed that
   * input, and one with a fixed expected value must not pretend to see one */
  if (!r->fed_op != !has_fed)
    die("claim %s: the table's expected column %s, so the experiment must call %s", id,
        r->fed_op ? "reads fed (the run's input)" : "is a number", r->fed_op ? "bg_lab_claim_fed" : "bg_lab_claim");
  c->expect = r->expect[lab->scale];
  c->expected = row_expected(r, fed);
  c->tol = r->tol[lab->scale];
  snprintf(c->unit, sizeof c->unit, "%s", r->unit);
  snprintf(c->source, sizeof c->source, "%s", r->source);
  snprintf(c->compare, sizeof c->compare, "%s", r->compare);
  c->pass = judge_at(r, c->expected, c->tol, measured);
  return c->pass;
}

int bg_lab_claim(bg_lab *lab, const char *id, double measured) { return claim(lab, id, measured, 0, NAN); }

int bg_lab_claim_fed(bg_lab *lab, const char *id, double measured, double fed) {
  return claim(lab, id, measured, 1, fed);
}

/* ------------------------------------------------------------------- CLI */

static void usage(const bg_lab *lab, const char *name, const char *summary, const bg_lab_param *p, int n,
                  FILE *fp) {
  fprintf(fp, "usage: %s [options]\n%s\n\ncommon options:\n", name, summary);
  fprintf(fp,
          "  --scale quick|paper   quick: CPU minutes (default); paper: the seed's resolution (GPU)\n"
          "  --backend NAME        cpu, cuda or auto (default auto)\n"
          "  --out DIR             output directory, new or empty (default out/%s)\n"
          "  --force               --out may hold an earlier run's files: they are removed first\n"
          "  --threads N           CPU threads, 0 = all, at most the %ld cores here (default 0)\n"
          "  --seed S              random seed (default 1)\n"
          "  --references DIR      claims table and literature data (default: the source tree's)\n"
          "  --quiet               no progress on stderr\n"
          "  --mutant NAME         apply a mutant: a change a correct lab must detect (below)\n"
          "  --material MODEL      drucker-prager (Klar 2016 sand, default), mu-i (Jop 2006) or ngf\n"
          "                        (nonlocal fluidity, Henann & Kamrin 2013; grain size as length scale),\n"
          "                        each with its default parameters (core/physics/materials/)\n"
          "  --mu-s X              mu-i only: static friction mu_s = X, in [0.05, 2], with mu_2 - mu_s kept\n"
          "                        (Jop's 0.26); 3 alpha / sqrt 2 of a Drucker-Prager cone gives the same cone\n"
          "  --grain-d X           mu-i and ngf: grain diameter d = X m, in [1e-5, 0.05] (default 5e-4);\n"
          "                        for ngf it sets the cooperativity length xi = A d / sqrt|mu - mu_s|\n"
          "  --ngf-a X             ngf only: nonlocal amplitude A = X, in [0, 5] (default 0.48); 0 leaves the\n"
          "                        local law mu_s + b I alone, the control of what the length does\n"
          "  --ngf-t0 T            ngf only: relaxation time t0 = T s of the fluidity, in [1e-6, 1] (default 1e-3);\n"
          "                        a numerical device: the steady state does not depend on it, and the step\n"
          "                        bound of the explicit Laplacian, t0 dx^2 / (12 A^2 d^2), grows with it\n"
          "  --vtk-every T         ParaView frames of every simulation into OUT/vtk/<sim>.pvd every T simulated\n"
          "                        seconds, in [0, 1e4] (0 = off, the default): the initial state, then the first\n"
          "                        loop time >= k T (the loops advance in steps of their own, so a frame may come\n"
          "                        late by up to one of them), and the final state\n"
          "  --checkpoint-every S  checkpoint every simulation into OUT/checkpoints/<sim>.bgck every S wall-clock\n"
          "                        seconds, in [0, 86400] (0 = off; default: quick 0, paper 120); a finished\n"
          "                        simulation keeps its final checkpoint, so a resumed run skips it\n"
          "  --resume DIR          continue the run in DIR from its checkpoints (same experiment, scale, material,\n"
          "                        seed, mutant and parameters, else refused); --out defaults to DIR, which then\n"
          "                        keeps its checkpoints/ and vtk/ and has its other files rewritten\n"
          "  --plan                a sweep's first phase: OUT/plan.tsv, one row per independent simulation\n"
          "                        (point), and nothing simulated (experiments with a sweep only)\n"
          "  --point K             run point K of the plan in OUT alone, into OUT/points/K/; it resumes from its\n"
          "                        own checkpoints there (give --checkpoint-every), a complete one is not rerun\n"
          "  --gather              check that every point in OUT is complete and from the same commit, claims\n"
          "                        table and parameters, then analyse, judge and write as a one-process run\n"
          "                        (which is the three phases in a row); scripts/lab sweep runs them\n"
          "  --version             the version and commit\n"
          "  -h, --help            this text\n"
          "exit code: 0 every verdict as references/claims.tsv expects (documented misses included),\n"
          "           1 an unexpected verdict, 2 an error (bad input, a failed write, no device)\n",
          name, sysconf(_SC_NPROCESSORS_ONLN));
  if (n) fprintf(fp, "\n%s options:\n", name);
  for (int i = 0; i < n; ++i) {
    char now[64], def[200];
    if (p[i].type == BG_PARAM_DOUBLE) snprintf(now, sizeof now, "%g", *(double *)p[i].dest);
    else if (p[i].type == BG_PARAM_INT) snprintf(now, sizeof now, "%d", *(int *)p[i].dest);
    else snprintf(now, sizeof now, "%s", *(const char **)p[i].dest ? *(const char **)p[i].dest : "none");
    /* a value outside the accepted range is a sentinel: the experiment derives it */
    if (p[i].type != BG_PARAM_STRING) {
      double v = p[i].type == BG_PARAM_INT ? *(int *)p[i].dest : *(double *)p[i].dest;
      if (v < p[i].lo || v > p[i].hi) snprintf(now, sizeof now, "derived");
    }
    const char *q = p[i].quick ? p[i].quick : now, *pp = p[i].paper ? p[i].paper : now;
    if (!strcmp(q, pp)) snprintf(def, sizeof def, "default %s", q);
    else snprintf(def, sizeof def, "by scale: quick %s, paper %s", q, pp);
    if (p[i].type == BG_PARAM_STRING)
      fprintf(fp, "  --%-18s %s (%s)\n", p[i].name, p[i].help, def);
    else
      fprintf(fp, "  --%-18s %s, in [%g, %g] (%s)\n", p[i].name, p[i].help, p[i].lo, p[i].hi, def);
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

/* One argument, quoted for a POSIX shell when it needs it, appended to buf. */
static size_t append_quoted(char *buf, size_t off, size_t n, const char *arg) {
  int plain = arg[0] != 0;
  for (const char *p = arg; *p; ++p)
    plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             strchr("-_./=:,+@%", *p) != NULL;
  if (off >= n) return off;
  if (plain) return off + (size_t)snprintf(buf + off, n - off, "%s", arg);
  off += (size_t)snprintf(buf + off, n - off, "'");
  for (const char *p = arg; *p && off < n; ++p)
    off += (size_t)(*p == '\'' ? snprintf(buf + off, n - off, "'\\''") : snprintf(buf + off, n - off, "%c", *p));
  if (off < n) off += (size_t)snprintf(buf + off, n - off, "'");
  return off;
}

/* Sets an unset parameter from its per-scale default text. */
static void apply_default(bg_lab_param *p, const char *text) {
  if (!text) return;
  if (p->type == BG_PARAM_STRING) *(const char **)p->dest = text;
  else if (p->type == BG_PARAM_INT) *(int *)p->dest = (int)parse_number(p->name, text, p->lo, p->hi, 1);
  else *(double *)p->dest = parse_number(p->name, text, p->lo, p->hi, 0);
}

/* What a run writes into its folder; --force clears exactly these. */
static int is_run_file(const char *f) {
  static const char *exact[] = {"RUNNING", "FAILED", "INTERRUPTED", "sweep.txt", "point.txt", "result.bin"};
  static const char *ext[] = {".tsv", ".json", ".vtk", ".vtu", ".pvd", ".ply", ".tmp"};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; ++i)
    if (!strcmp(f, exact[i])) return 1;
  size_t n = strlen(f);
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; ++i) {
    size_t k = strlen(ext[i]);
    if (n > k && !strcmp(f + n - k, ext[i])) return 1;
  }
  return 0;
}

/* The run's own subfolders (checkpoints/, vtk/): 1 when name is one and
 * f a file that belongs in it. */
static int is_run_subdir(const char *name) {
  return !strcmp(name, "checkpoints") || !strcmp(name, "vtk") || !strcmp(name, "logs");
}

static void scan_subdir(const char *path, const char *name, int clear, int keep, char *foreign, size_t nf);

/* points/ of a sweep: one folder per point, named by its number, holding a
 * run's files and subfolders. *foreign gets the first entry that is not a
 * run's; with clear, everything of it is removed, and the folder itself. */
static void scan_points(const char *path, int clear, char *foreign, size_t nf) {
  DIR *d = opendir(path);
  if (!d) die("--out: cannot list %s: %s", path, strerror(errno));
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char kp[1700];
    snprintf(kp, sizeof kp, "%s/%s", path, e->d_name);
    struct stat ks;
    int numeric = e->d_name[strspn(e->d_name, "0123456789")] == 0;
    if (!numeric || lstat(kp, &ks) != 0 || !S_ISDIR(ks.st_mode)) {
      if (!foreign[0]) snprintf(foreign, nf, "points/%s", e->d_name);
      continue;
    }
    DIR *kd = opendir(kp);
    if (!kd) die("--out: cannot list %s: %s", kp, strerror(errno));
    struct dirent *f;
    while ((f = readdir(kd))) {
      if (!strcmp(f->d_name, ".") || !strcmp(f->d_name, "..")) continue;
      char fp[2200];
      snprintf(fp, sizeof fp, "%s/%s", kp, f->d_name);
      struct stat fs;
      int is_stat = lstat(fp, &fs) == 0;
      if (is_stat && S_ISDIR(fs.st_mode) && is_run_subdir(f->d_name)) {
        scan_subdir(fp, f->d_name, clear, 0, foreign, nf);
      } else if (!(is_stat && S_ISREG(fs.st_mode) && is_run_file(f->d_name))) {
        if (!foreign[0]) snprintf(foreign, nf, "points/%s/%s", e->d_name, f->d_name);
      } else if (clear && unlink(fp) != 0) {
        die("--force: cannot remove %s: %s", fp, strerror(errno));
      }
    }
    closedir(kd);
    if (clear && rmdir(kp) != 0) die("--force: cannot remove %s: %s", kp, strerror(errno));
  }
  closedir(d);
  if (clear && rmdir(path) != 0) die("--force: cannot remove %s: %s", path, strerror(errno));
}

static int is_subdir_file(const char *dir, const char *f) {
  size_t n = strlen(f);
  const char *ext = strrchr(f, '.');
  if (!ext || ext == f) return 0;
  if (!strcmp(ext, ".tmp")) return 1;
  if (!strcmp(dir, "checkpoints")) return !strcmp(ext, ".bgck") || !strcmp(f, "run.txt");
  /* a sweep driver's (scripts/sweep): point and Slurm logs, job scripts, job ids */
  if (!strcmp(dir, "logs")) return !strcmp(ext, ".log") || !strcmp(ext, ".sh") || !strcmp(ext, ".txt");
  return n > 4 && (!strcmp(ext, ".vtu") || !strcmp(ext, ".pvd"));
}

/* A run subfolder: *foreign gets the first entry that is not a run's; with
 * clear, its files are removed (only the .tmp ones when keep) and, unless
 * keep, the folder itself. */
static void scan_subdir(const char *path, const char *name, int clear, int keep, char *foreign, size_t nf) {
  DIR *d = opendir(path);
  if (!d) die("--out: cannot list %s: %s", path, strerror(errno));
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char fp[1700];
    snprintf(fp, sizeof fp, "%s/%s", path, e->d_name);
    struct stat fs;
    int regular = lstat(fp, &fs) == 0 && S_ISREG(fs.st_mode);
    if (!regular || !is_subdir_file(name, e->d_name)) {
      if (!foreign[0]) snprintf(foreign, nf, "%s/%s", name, e->d_name);
      continue;
    }
    int is_tmp = strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".tmp");
    if (clear && (!keep || is_tmp) && unlink(fp) != 0) die("--force: cannot remove %s: %s", fp, strerror(errno));
  }
  closedir(d);
  if (clear && !keep && rmdir(path) != 0) die("--force: cannot remove %s: %s", path, strerror(errno));
}

/* --out: created if missing; an existing one must be an empty, writable
 * directory, or with --force one that holds only a run's files, which are
 * removed, so that no file of an earlier run is left beside this one's.
 * A run resumed in place (--resume naming --out) keeps its checkpoints/ and
 * vtk/ (less any .tmp a killed write left) and has every other file of the
 * earlier run removed, as --force would. */
static void prepare_outdir(bg_lab *lab) {
  struct stat st;
  if (stat(lab->out, &st) != 0) {
    if (errno != ENOENT) die("--out: %s: %s", lab->out, strerror(errno));
    if (make_dirs(lab->out) != 0) die("--out: cannot create directory %s: %s", lab->out, strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    die("--out: %s exists and is not a directory", lab->out);
  }
  if (access(lab->out, W_OK | X_OK) != 0) die("--out: %s is not writable: %s", lab->out, strerror(errno));
  int inplace = lab->resume_inplace || lab->phase == SW_GATHER;
  /* two passes: nothing is removed from a folder that will be refused */
  for (int pass = 0; pass < 2; ++pass) {
    DIR *d = opendir(lab->out);
    if (!d) die("--out: cannot list %s: %s", lab->out, strerror(errno));
    struct dirent *e;
    char first[256] = "", foreign[600] = "";
    int n = 0;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      if (!n++) snprintf(first, sizeof first, "%s", e->d_name);
      char path[1400];
      snprintf(path, sizeof path, "%s/%s", lab->out, e->d_name);
      struct stat fs;
      int is_stat = lstat(path, &fs) == 0;
      if (is_stat && S_ISDIR(fs.st_mode) && is_run_subdir(e->d_name)) {
        scan_subdir(path, e->d_name, pass == 1, inplace, foreign, sizeof foreign);
        continue;
      }
      /* a sweep's points (and its plan) stay where the run goes on with them */
      if (is_stat && S_ISDIR(fs.st_mode) && !strcmp(e->d_name, "points")) {
        scan_points(path, pass == 1 && !inplace, foreign, sizeof foreign);
        continue;
      }
      int keep = inplace && (!strcmp(e->d_name, "plan.tsv") || !strcmp(e->d_name, "sweep.txt"));
      int regular = is_stat && S_ISREG(fs.st_mode);
      if (!regular || !is_run_file(e->d_name)) {
        if (!foreign[0]) snprintf(foreign, sizeof foreign, "%s", e->d_name);
      } else if (pass == 1 && !keep && unlink(path) != 0) {
        die("--force: cannot remove %s: %s", path, strerror(errno));
      }
    }
    closedir(d);
    if (pass == 1 || n == 0) break;
    if (!lab->force && !inplace)
      die("--out: %s is not empty (it holds %s%s): give --force to clear an earlier run's files, or another "
          "directory",
          lab->out, first, n > 1 ? ", ..." : "");
    if (foreign[0])
      die("--out: %s holds %s, which is not a run's file: %s clears only a run's files; clear it or choose "
          "another directory",
          lab->out, foreign, inplace ? "--resume in place" : "--force");
  }
}

/* ------------------------------------------------------- resume identity */

/* What a checkpoint's loop state means depends on these: the experiment,
 * scale, material, seed, mutant and every parameter. The per-simulation
 * services' own options (--vtk-every, --checkpoint-every), --threads,
 * --backend and --quiet change no result and are not part of it. */
static void build_identity(bg_lab *lab, const bg_lab_param *p, int n) {
  size_t o = 0, cap = sizeof lab->identity;
  o += (size_t)snprintf(lab->identity + o, cap - o, "experiment\t%s\nscale\t%s\nmaterial\t%s\n", lab->name,
                        bg_lab_scale_name(lab), bg_lab_material_name(lab));
  o += (size_t)snprintf(lab->identity + o, cap - o, "mu_s\t%.17g\ngrain_d\t%.17g\nngf_a\t%.17g\nngf_t0\t%.17g\nseed\t%lu\n",
                        lab->mu_s, lab->grain_d, lab->ngf_a, lab->ngf_t0, lab->seed);
  o += (size_t)snprintf(lab->identity + o, cap - o, "mutant\t%s\n", lab->active ? lab->active->name : "none");
  for (int i = 0; i < n && o < cap; ++i) {
    if (p[i].type == BG_PARAM_STRING)
      o += (size_t)snprintf(lab->identity + o, cap - o, "--%s\t%s\n", p[i].name,
                            *(const char *const *)p[i].dest ? *(const char *const *)p[i].dest : "(none)");
    else if (p[i].type == BG_PARAM_INT)
      o += (size_t)snprintf(lab->identity + o, cap - o, "--%s\t%d\n", p[i].name, *(const int *)p[i].dest);
    else
      o += (size_t)snprintf(lab->identity + o, cap - o, "--%s\t%.17g\n", p[i].name, *(const double *)p[i].dest);
  }
  if (o >= cap) die("the run's parameters are longer than %zu characters", cap - 1);
}

/* The text of a small file (at most cap - 1 bytes), or NULL when it cannot
 * be opened (errno says why); a longer file is an error. */
static char *read_small(const char *path, char *buf, size_t cap) {
  FILE *fp = fopen(path, "r");
  if (!fp) return NULL;
  size_t n = fread(buf, 1, cap - 1, fp);
  int bad = ferror(fp) || (n == cap - 1 && fgetc(fp) != EOF);
  fclose(fp);
  if (bad) die("%s: unreadable or longer than %zu bytes", path, cap - 1);
  buf[n] = 0;
  return buf;
}

/* Compares two identities line by line; ends the run, naming the first
 * setting that differs, when they are not the same. */
static void same_identity(const char *there, const char *here, const char *opt, const char *what, const char *hint) {
  const char *a = there, *b = here;
  while (*a || *b) {
    size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
    if (la != lb || strncmp(a, b, la)) {
      char key[96];
      size_t k = strcspn(b, "\t\n");
      snprintf(key, sizeof key, "%.*s", (int)(k < sizeof key ? k : sizeof key - 1), b);
      die("%s: %s has other settings: its %.*s, this run's %.*s (%s); %s", opt, what, (int)la, a, (int)lb, b,
          key[0] ? key : "end of list", hint);
    }
    a += la + (a[la] == '\n');
    b += lb + (b[lb] == '\n');
  }
}

/* --resume DIR: DIR must be a run of this experiment with the same identity
 * (checkpoints/run.txt, written when the run started). */
static void check_resume(bg_lab *lab) {
  struct stat st;
  if (stat(lab->resume, &st) != 0 || !S_ISDIR(st.st_mode))
    die("--resume: %s is not a directory: %s", lab->resume, stat(lab->resume, &st) ? strerror(errno) : "a file");
  char path[1200], there[8192];
  snprintf(path, sizeof path, "%s/checkpoints/run.txt", lab->resume);
  if (!read_small(path, there, sizeof there))
    die("--resume: %s has no checkpoints/run.txt (%s): it is not a run folder written with --checkpoint-every",
        lab->resume, strerror(errno));
  char what[1100];
  snprintf(what, sizeof what, "the run in %s", lab->resume);
  same_identity(there, lab->identity, "--resume", what, "resume with the same experiment, scale and parameters");
  char ro[PATH_MAX], rr[PATH_MAX];
  lab->resume_inplace = realpath(lab->out, ro) && realpath(lab->resume, rr) && !strcmp(ro, rr);
}

/* checkpoints/run.txt: written when checkpoints will be (and when resuming
 * in place, where the folder exists already). */
static void write_identity(bg_lab *lab) {
  if (!(lab->ckpt_every > 0) && !lab->resume_inplace) return;
  char dir[1200];
  snprintf(dir, sizeof dir, "%s/checkpoints", lab->out);
  if (make_dirs(dir) != 0) die("cannot create %s: %s", dir, strerror(errno));
  FILE *fp = open_output(lab, "checkpoints/run.txt");
  fputs(lab->identity, fp);
  close_output(fp, "checkpoints/run.txt");
}

/* The run is in progress until the manifest is in place. */
static void start_marker(bg_lab *lab) {
  snprintf(g_marker, sizeof g_marker, "%s/RUNNING", lab->out);
  snprintf(g_failed, sizeof g_failed, "%s/FAILED", lab->out);
  snprintf(g_interrupted, sizeof g_interrupted, "%s/INTERRUPTED", lab->out);
  char msg[2300];
  snprintf(msg, sizeof msg, "%s\npid %ld\n", lab->argv_line, (long)getpid());
  marker_append(g_marker, msg);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* past a file-size limit write() then fails with EFBIG, which is reported */
  signal(SIGXFSZ, SIG_IGN);
}

/* ------------------------------------------------------------- sweeps */

static void write_manifest(bg_lab *lab, double wall);

/* What every point of a sweep and its gather must share: the run's
 * identity (the experiment, scale, material, seed, mutant, parameters), the
 * commit and the claims table. */
static void sweep_identity(const bg_lab *lab, char *buf, size_t n) {
  const char *commit = run_commit();
  if ((size_t)snprintf(buf, n, "%scommit\t%s\nclaims_table_sha256\t%s\n", lab->identity, commit, lab->table_sha) >= n)
    die("the run's identity is longer than %zu characters", n - 1);
}

static void sha_hex(const char *text, char hex[65]) {
  bg_sha256 c;
  unsigned char d[32];
  bg_sha256_init(&c);
  bg_sha256_update(&c, text, strlen(text));
  bg_sha256_final(&c, d);
  for (int i = 0; i < 32; ++i) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* The value of key in a file of "key<TAB>value" lines, into val; 0 when
 * the key is not there. */
static int kv_get(const char *text, const char *key, char *val, size_t n) {
  size_t k = strlen(key);
  for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
    if (!strncmp(l, key, k) && l[k] == '\t') {
      size_t m = strcspn(l + k + 1, "\n");
      snprintf(val, n, "%.*s", (int)(m < n ? m : n - 1), l + k + 1);
      return 1;
    }
  }
  return 0;
}

/* The number of points in ROOT/plan.tsv (its data rows). */
static int plan_points(const bg_lab *lab, const char *opt) {
  char path[1200];
  snprintf(path, sizeof path, "%s/plan.tsv", lab->root);
  FILE *fp = fopen(path, "r");
  if (!fp)
    die("%s: %s: %s: write the plan first (%s --plan --out %s, with the same parameters)", opt, path, strerror(errno),
        lab->name, lab->root);
  char line[512];
  int n = 0, header = 0;
  while (fgets(line, sizeof line, fp)) {
    if (line[0] == '#') continue;
    if (!header++) continue;
    if (atoi(line) != n) die("%s: %s: row %d is point %d: the plan is damaged; write it again with --plan --force", opt, path, n, atoi(line));
    n++;
  }
  fclose(fp);
  if (n < 1) die("%s: %s holds no points", opt, path);
  return n;
}

/* Whether point k's folder holds a complete result of this sweep; when not,
 * why (into why, for the gather's message). */
static int point_complete(const bg_lab *lab, int k, const char *sweep_id, char *why, size_t n) {
  char dir[1200], path[1300], text[4096], v[128], want[65];
  snprintf(dir, sizeof dir, "%s/points/%d", lab->root, k);
  static const char *const marks[] = {"RUNNING", "FAILED", "INTERRUPTED"};
  for (int i = 0; i < 3; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, marks[i]);
    if (access(path, F_OK) == 0) {
      snprintf(why, n, "%s (points/%d/%s)", i == 0 ? "running or killed" : i == 1 ? "failed" : "interrupted", k,
               marks[i]);
      return 0;
    }
  }
  snprintf(path, sizeof path, "%s/point.txt", dir);
  if (!read_small(path, text, sizeof text)) {
    snprintf(why, n, "not run (no points/%d/point.txt)", k);
    return 0;
  }
  const char *commit = run_commit();
  sha_hex(sweep_id, want);
  if (!kv_get(text, "status", v, sizeof v) || strcmp(v, "done")) {
    snprintf(why, n, "not complete (points/%d/point.txt)", k);
    return 0;
  }
  if (!kv_get(text, "commit", v, sizeof v) || strcmp(v, commit)) {
    snprintf(why, n, "from commit %s, this is %s", v, commit);
    return 0;
  }
  if (!kv_get(text, "identity_sha256", v, sizeof v) || strcmp(v, want)) {
    snprintf(why, n, "from another claims table or other parameters (points/%d/point.txt)", k);
    return 0;
  }
  struct stat st;
  snprintf(path, sizeof path, "%s/result.bin", dir);
  if (!kv_get(text, "result_bytes", v, sizeof v) || stat(path, &st) != 0 || (long long)st.st_size != atoll(v)) {
    snprintf(why, n, "its result.bin is missing or not the size its point.txt records");
    return 0;
  }
  return 1;
}

/* --plan, --point K, --gather: where the run writes, and the checks that
 * can be made before any work. */
static void sweep_setup(bg_lab *lab) {
  snprintf(lab->root, sizeof lab->root, "%s", lab->out);
  if (lab->phase == SW_ALL || lab->phase == SW_PLAN) return;
  const char *opt = sweep_opt[lab->phase];
  if (lab->resume[0])
    die("--resume with %s: a sweep's point resumes from its own checkpoints by itself; leave --resume out", opt);
  /* the plan must be this run's */
  char path[1200], there[8192], here[8192], what[1300];
  snprintf(path, sizeof path, "%s/sweep.txt", lab->root);
  if (!read_small(path, there, sizeof there))
    die("%s: %s: %s: write the plan first (%s --plan --out %s, with the same parameters)", opt, path, strerror(errno),
        lab->name, lab->root);
  sweep_identity(lab, here, sizeof here);
  snprintf(what, sizeof what, "the plan in %s", lab->root);
  same_identity(there, here, opt, what, "run every phase of a sweep with the same build, claims table and parameters");
  lab->plan_n = plan_points(lab, opt);
  if (lab->phase == SW_GATHER) return;
  if (lab->point >= lab->plan_n)
    die("--point %d: the plan in %s has %d points, 0 to %d", lab->point, lab->root, lab->plan_n, lab->plan_n - 1);
  char why[300];
  if (point_complete(lab, lab->point, here, why, sizeof why)) {
    fprintf(stderr, "%s: point %d of %s is complete already: nothing to do\n", lab->name, lab->point, lab->root);
    exit(0);
  }
  if (snprintf(lab->out, sizeof lab->out, "%s/points/%d", lab->root, lab->point) >= (int)sizeof lab->out - 64)
    die("--out: %s/points/%d is too long", lab->root, lab->point);
  if (make_dirs(lab->out) != 0) die("cannot create %s: %s", lab->out, strerror(errno));
  /* a point that checkpointed resumes in place; one stopped before its
   * first checkpoint left only run files, which go */
  snprintf(path, sizeof path, "%s/checkpoints/run.txt", lab->out);
  if (access(path, F_OK) == 0) snprintf(lab->resume, sizeof lab->resume, "%s", lab->out);
  else lab->force = 1;
}

/* data into path, through a temporary file renamed into place: a file that
 * is there is whole. Every call checked (exit 2 naming the path). */
static void write_whole(const char *path, const void *data, size_t len) {
  char tmp[1500];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) die("cannot write %s: %s", tmp, strerror(errno));
  size_t done = 0;
  while (done < len) {
    ssize_t k = write(fd, (const char *)data + done, len - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) die("writing %s: %s", tmp, strerror(errno));
    done += (size_t)k;
  }
  if (close(fd) != 0) die("closing %s: %s", tmp, strerror(errno));
  if (rename(tmp, path) != 0) die("renaming %s to %s: %s", tmp, path, strerror(errno));
}

/* Point k's result and record into dir: result.bin, then point.txt, which
 * says it is complete. */
static void write_point(const bg_lab *lab, const char *dir, int k, const char *tag, const bg_lab_blob *b,
                        double work, const char *sweep_id) {
  char path[1300], text[2048], idsha[65];
  snprintf(path, sizeof path, "%s/result.bin", dir);
  write_whole(path, b->data ? (const void *)b->data : "", b->len);
  sha_hex(sweep_id, idsha);
  const char *commit = run_commit();
  int m = snprintf(text, sizeof text,
                   "point\t%d\ntag\t%s\nstatus\tdone\ncommit\t%s\nclaims_table_sha256\t%s\nidentity_sha256\t%s\n"
                   "result_bytes\t%zu\nparticle_steps\t%.17g\n",
                   k, tag, commit, lab->table_sha, idsha, b->len, work);
  if (m < 0 || (size_t)m >= sizeof text) die("point %d: its record is too long", k);
  snprintf(path, sizeof path, "%s/point.txt", dir);
  write_whole(path, text, (size_t)m);
}

static void write_plan(bg_lab *lab, int n, const char *const *tags, const double *cost, const char *sweep_id) {
  FILE *fp = bg_lab_tsv(lab, "plan.tsv",
                        "the sweep's points, each an independent simulation: run each with --point K --out this "
                        "folder (same parameters), then --gather",
                        "point\ttag\tcost");
  for (int k = 0; k < n; ++k) {
    if (strchr(tags[k], '\t') || strchr(tags[k], '\n')) die("point %d: its tag holds a tab or a newline", k);
    fprintf(fp, "%d\t%s\t%.6g\n", k, tags[k], cost ? cost[k] : 1.0);
  }
  close_output(fp, "plan.tsv");
  FILE *id = open_output(lab, "sweep.txt");
  fputs(sweep_id, id);
  close_output(id, "sweep.txt");
}

/* The steps this process's simulations took, and how many of them the
 * nonlocal model's step bound chose (bg_lab_sim_end adds them up); counted
 * from a restore on, and zero in a gather, whose points ran elsewhere (each
 * point's manifest has its own). */
static void manifest_steps(bg_lab *lab) {
  bg_lab_manifest_num(lab, "dt_steps", lab->steps_all);
  bg_lab_manifest_num(lab, "dt_steps_nonlocal_bound", lab->steps_nonlocal);
  bg_lab_manifest_num(lab, "dt_nonlocal_bound_share_max", lab->nonlocal_share_max);
}

bg_lab_blob *bg_lab_sweep(bg_lab *lab, int n, const char *const *tags, const double *cost, int jobs,
                          bg_lab_point_fn run, void *ctx) {
  if (n < 1) die("a sweep needs at least one point");
  if (jobs < 1) jobs = 1;
  lab->in_sweep = 1;
  char sweep_id[8192];
  sweep_identity(lab, sweep_id, sizeof sweep_id);
  if (lab->phase == SW_PLAN || lab->phase == SW_ALL) write_plan(lab, n, tags, cost, sweep_id);
  if (lab->phase == SW_PLAN) {
    fprintf(stderr, "%s: plan of %d points in %s/plan.tsv; next: --point K (K = 0..%d), then --gather, each with "
                    "--out %s and the same parameters\n",
            lab->name, n, lab->root, n - 1, lab->root);
    if (g_marker[0] && unlink(g_marker) != 0) die("removing %s: %s", g_marker, strerror(errno));
    g_marker[0] = 0;
    exit(0);
  }
  if (lab->phase != SW_ALL && n != lab->plan_n)
    die("%s: the plan in %s has %d points, this run's parameters make %d", sweep_opt[lab->phase], lab->root,
        lab->plan_n, n);
  if (lab->phase == SW_POINT) {
    int k = lab->point;
    bg_lab_progress(lab, "point %d of %d: %s", k, n, tags[k]);
    bg_lab_blob b = {0};
    tl_work = 0;
    run(ctx, k, &b);
    write_point(lab, lab->out, k, tags[k], &b, tl_work, sweep_id);
    bg_lab_blob_free(&b);
    bg_lab_manifest_num(lab, "sweep_point", k);
    bg_lab_manifest_str(lab, "sweep_tag", tags[k]);
    bg_lab_manifest_num(lab, "damping_per_s", lab->damping);
    manifest_steps(lab);
    write_manifest(lab, now_s() - lab->t0);
    if (g_marker[0] && unlink(g_marker) != 0) die("removing %s: %s", g_marker, strerror(errno));
    g_marker[0] = 0;
    exit(0);
  }
  if (lab->phase == SW_ALL) {
    /* every point in this process, the costliest first so that --jobs
     * drains evenly; with jobs > 1 each gets one CPU thread */
    int *order = malloc((size_t)n * sizeof *order);
    if (!order) die("out of memory");
    for (int k = 0; k < n; ++k) order[k] = k;
    for (int k = 1; k < n && cost; ++k)
      for (int m = k; m > 0 && cost[order[m]] > cost[order[m - 1]]; --m) {
        int t = order[m];
        order[m] = order[m - 1];
        order[m - 1] = t;
      }
    char dir0[1200];
    snprintf(dir0, sizeof dir0, "%s/points", lab->root);
    if (make_dirs(dir0) != 0) die("cannot create %s: %s", dir0, strerror(errno));
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs) if (jobs > 1)
#endif
    for (int i = 0; i < n; ++i) {
      int k = order[i];
      /* a resumed run goes through every point: its simulations restore
       * from their checkpoints (a finished one is not run again) */
      char dir[1300];
      snprintf(dir, sizeof dir, "%s/points/%d", lab->root, k);
      if (make_dirs(dir) != 0) die("cannot create %s: %s", dir, strerror(errno));
      bg_lab_blob b = {0};
      tl_work = 0;
      run(ctx, k, &b);
      write_point(lab, dir, k, tags[k], &b, tl_work, sweep_id);
      bg_lab_blob_free(&b);
    }
    free(order);
  }
  /* the gather: every point complete and this sweep's, then read back */
  int bad = 0;
  char list[2048] = "";
  size_t o = 0;
  for (int k = 0; k < n; ++k) {
    char why[300];
    if (point_complete(lab, k, sweep_id, why, sizeof why)) continue;
    if (bad++ < 8 && o < sizeof list) o += (size_t)snprintf(list + o, sizeof list - o, "\n  point %d (%s): %s", k, tags[k], why);
  }
  if (bad)
    die("%s: %d of %d points of %s are not complete:%s%s", lab->phase == SW_GATHER ? "--gather" : "sweep", bad, n,
        lab->root, list, bad > 8 ? "\n  ..." : "");
  bg_lab_blob *res = calloc((size_t)n, sizeof *res);
  if (!res) die("out of memory");
  for (int k = 0; k < n; ++k) {
    char path[1300], text[4096], v[64];
    snprintf(path, sizeof path, "%s/points/%d/result.bin", lab->root, k);
    struct stat st;
    FILE *fp = fopen(path, "rb");
    if (!fp || fstat(fileno(fp), &st) != 0) die("--gather: %s: %s", path, strerror(errno));
    res[k].len = res[k].cap = (size_t)st.st_size;
    res[k].data = malloc(res[k].cap ? res[k].cap : 1);
    if (!res[k].data) die("out of memory reading %s", path);
    if (fread(res[k].data, 1, res[k].len, fp) != res[k].len) die("--gather: reading %s failed", path);
    fclose(fp);
    if (lab->phase == SW_GATHER) {
      /* the points' work, for the manifest's throughput */
      snprintf(path, sizeof path, "%s/points/%d/point.txt", lab->root, k);
      if (read_small(path, text, sizeof text) && kv_get(text, "particle_steps", v, sizeof v)) lab->work += atof(v);
    }
  }
  bg_lab_manifest_num(lab, "sweep_points", n);
  bg_lab_manifest_str(lab, "sweep_phase", lab->phase == SW_GATHER ? "gather" : "all");
  return res;
}

void bg_lab_sweep_free(bg_lab_blob *results, int n) {
  if (!results) return;
  for (int k = 0; k < n; ++k) bg_lab_blob_free(&results[k]);
  free(results);
}

bg_lab *bg_lab_init(const char *name, const char *summary, int argc, char **argv,
                    bg_lab_param *params, int n_params, const char *const *mutants) {
  bg_lab *lab = calloc(1, sizeof *lab);
  if (!lab) die("out of memory");
  g_lab = lab;
  lab->name = name;
  lab->scale = BG_SCALE_QUICK;
  lab->backend = "auto";
  lab->seed = 1;
  lab->ngf_a = -1;
  lab->ngf_t0 = 0;
  lab->ckpt_every = -1;
  lab->t0 = now_s();
  /* progress interval, s: BAGNOLD_PROGRESS_S changes it (tests use a short one) */
  lab->progress_every = 10.0;
  const char *pe = getenv("BAGNOLD_PROGRESS_S");
  if (pe && *pe) {
    char *end;
    double v = strtod(pe, &end);
    if (*end || !(v > 0 && v <= 3600)) die("BAGNOLD_PROGRESS_S: '%s' is not a number of seconds in (0, 3600]", pe);
    lab->progress_every = v;
  }
  snprintf(lab->out, sizeof lab->out, "out/%s", name);
  const char *env_refs = getenv("BAGNOLD_REFERENCES");
  snprintf(lab->refs, sizeof lab->refs, "%s", env_refs ? env_refs : BAGNOLD_SOURCE_DIR "/references");
  size_t off = 0;
  for (int i = 0; i < argc; ++i) {
    if (i && off < sizeof lab->argv_line) off += (size_t)snprintf(lab->argv_line + off, sizeof lab->argv_line - off, " ");
    off = append_quoted(lab->argv_line, off, sizeof lab->argv_line, argv[i]);
  }
  if (off >= sizeof lab->argv_line) die("the command line is longer than %zu characters", sizeof lab->argv_line - 1);

  enum { O_SCALE = 1000, O_BACKEND, O_OUT, O_THREADS, O_SEED, O_QUIET, O_REFS, O_HELP, O_MUTANT, O_FORCE, O_VERSION,
         O_MATERIAL, O_MU_S, O_GRAIN_D, O_NGF_A, O_NGF_T0, O_VTK_EVERY, O_CKPT_EVERY, O_RESUME, O_PLAN, O_POINT, O_GATHER,
         O_PARAM };
  static const char *common[] = {"scale", "backend", "out", "threads", "seed", "quiet",
                                 "references", "help", "mutant", "force", "version", "material", "mu-s",
                                 "grain-d", "ngf-a", "ngf-t0", "vtk-every", "checkpoint-every", "resume", "plan", "point",
                                 "gather"};
  const int n_common = (int)(sizeof common / sizeof common[0]);
  struct option *opts = calloc((size_t)(n_common + n_params + 1), sizeof *opts);
  if (!opts) die("out of memory");
  const char *mutant_arg = NULL;
  int want_help = 0, out_given = 0;
  for (int i = 0; i < n_common; ++i) {
    opts[i].name = common[i];
    int flag = O_SCALE + i == O_QUIET || O_SCALE + i == O_HELP || O_SCALE + i == O_FORCE || O_SCALE + i == O_VERSION ||
               O_SCALE + i == O_PLAN || O_SCALE + i == O_GATHER;
    opts[i].has_arg = flag ? no_argument : required_argument;
    opts[i].val = O_SCALE + i;
  }
  for (int i = 0; i < n_params; ++i) {
    opts[n_common + i].name = params[i].name;
    opts[n_common + i].has_arg = required_argument;
    opts[n_common + i].val = O_PARAM + i;
    params[i].set = 0;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == '?' || c == ':') {
      fprintf(stderr, "error: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
      load_mutants(lab, mutants);
      usage(lab, name, summary, params, n_params, stderr);
      exit(2);
    }
    /* a value that is itself an option means the value was forgotten */
    if (c != 'h' && optarg && optarg[0] == '-' && optarg[1] == '-')
      die("--%s: '%s' looks like an option, not a value", c >= O_PARAM ? params[c - O_PARAM].name : common[c - O_SCALE], optarg);
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
      case O_OUT:
        out_given = 1;
        /* room for the longest file name a run writes inside it */
        if (strlen(optarg) + 64 >= sizeof lab->out)
          die("--out: the path is %zu characters long, at most %zu are accepted", strlen(optarg), sizeof lab->out - 65);
        snprintf(lab->out, sizeof lab->out, "%s", optarg);
        break;
      case O_THREADS: lab->threads = (int)parse_number("threads", optarg, 0, (double)cores, 1); break;
      case O_SEED: lab->seed = (unsigned long)parse_number("seed", optarg, 0, 4294967295.0, 1); break;
      case O_QUIET: lab->quiet = 1; break;
      case O_REFS:
        if (strlen(optarg) + 64 >= sizeof lab->refs) die("--references: the path is too long (%zu characters)", strlen(optarg));
        snprintf(lab->refs, sizeof lab->refs, "%s", optarg);
        break;
      case 'h':
      case O_HELP: want_help = 1; break;
      case O_MUTANT: mutant_arg = optarg; break;
      case O_FORCE: lab->force = 1; break;
      case O_MATERIAL: {
        int m = bg_material_model_from_name(optarg);
        if (m < 0) {
          char names[256] = "";
          size_t o = 0;
          for (int k = 0; k < BG_MODEL_COUNT && o < sizeof names; ++k)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                                  bg_material_model_name((bg_material_model)k));
          die("--material: '%s' is not a registered material model (%s)", optarg, names);
        }
        lab->material = m;
        break;
      }
      case O_MU_S: lab->mu_s = parse_number("mu-s", optarg, 0.05, 2.0, 0); break;
      case O_GRAIN_D: lab->grain_d = parse_number("grain-d", optarg, 1e-5, 0.05, 0); break;
      case O_NGF_A: lab->ngf_a = parse_number("ngf-a", optarg, 0, 5, 0); break;
      case O_NGF_T0: lab->ngf_t0 = parse_number("ngf-t0", optarg, 1e-6, 1, 0); break;
      case O_VTK_EVERY: lab->vtk_every = parse_number("vtk-every", optarg, 0, 1e4, 0); break;
      case O_CKPT_EVERY: lab->ckpt_every = parse_number("checkpoint-every", optarg, 0, 86400, 0); break;
      case O_RESUME:
        if (!optarg[0] || strlen(optarg) + 64 >= sizeof lab->resume)
          die("--resume: the path is empty or too long (%zu characters)", strlen(optarg));
        snprintf(lab->resume, sizeof lab->resume, "%s", optarg);
        break;
      case O_PLAN:
      case O_POINT:
      case O_GATHER: {
        int ph = c == O_PLAN ? SW_PLAN : c == O_POINT ? SW_POINT : SW_GATHER;
        if (lab->phase && lab->phase != ph)
          die("%s and %s: a run is one phase of a sweep (--plan, --point K or --gather), or all of them (none "
              "given)",
              sweep_opt[lab->phase], sweep_opt[ph]);
        lab->phase = ph;
        if (c == O_POINT) lab->point = (int)parse_number("point", optarg, 0, 1e6, 1);
        break;
      }
      case O_VERSION:
        printf("%s (bagnold %s, commit %s)\n", name, BG_VERSION_STRING, BAGNOLD_GIT_COMMIT);
        exit(0);
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
  if (lab->mu_s > 0 && lab->material != BG_MODEL_MUI) die("--mu-s: only mu-i has a static friction mu_s (add --material mu-i)");
  if (lab->grain_d > 0 && lab->material != BG_MODEL_MUI && lab->material != BG_MODEL_NGF)
    die("--grain-d: only mu-i and ngf have a grain size (add --material mu-i or ngf)");
  if (lab->ngf_a >= 0 && lab->material != BG_MODEL_NGF) die("--ngf-a: only ngf has a nonlocal amplitude (add --material ngf)");
  if (lab->ngf_t0 > 0 && lab->material != BG_MODEL_NGF) die("--ngf-t0: only ngf has a fluidity relaxation time (add --material ngf)");
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
  for (int i = 0; i < n_params; ++i)
    if (!params[i].set) apply_default(&params[i], lab->scale == BG_SCALE_PAPER ? params[i].paper : params[i].quick);
  if (strcmp(lab->backend, "cpu") != 0) {
    char why[256] = "";
    if (!bg_backend_available(lab->backend, why, sizeof why))
      die("--backend %s: not available here: %s", lab->backend, why);
  }
  if (lab->scale == BG_SCALE_PAPER && !lab->quiet &&
      (!strcmp(lab->backend, "cpu") || !bg_backend_available("cuda", NULL, 0)))
    fprintf(stderr, "warning: %s at paper scale on the CPU: the seed's resolution takes hours here (minutes on a "
                    "GPU); progress and the time left follow every %.0f s\n",
            name, lab->progress_every);
  lab->mclaims = calloc(MAX_MUTANT_CLAIMS, sizeof *lab->mclaims);
  if (!lab->mclaims) die("out of memory");
  load_claims(lab);
  if (lab->ckpt_every < 0) lab->ckpt_every = lab->scale == BG_SCALE_PAPER ? 120.0 : 0.0;
  if (lab->resume[0] && !out_given) snprintf(lab->out, sizeof lab->out, "%s", lab->resume);
  build_identity(lab, params, n_params);
  sweep_setup(lab);
  if (lab->resume[0]) check_resume(lab);
  prepare_outdir(lab);
  start_marker(lab);
  write_identity(lab);
  bg_lab_manifest_num(lab, "vtk_every", lab->vtk_every);
  bg_lab_manifest_num(lab, "checkpoint_every_s", lab->ckpt_every);
  if (lab->resume[0]) bg_lab_manifest_str(lab, "resumed_from", lab->resume);
  /* every parameter goes into the manifest under its key */
  for (int i = 0; i < n_params; ++i) {
    char key[96];
    snprintf(key, sizeof key, "%s", params[i].key ? params[i].key : params[i].name);
    for (char *k = key; *k; ++k)
      if (*k == '-') *k = '_';
    if (params[i].type == BG_PARAM_STRING) bg_lab_manifest_str(lab, key, *(const char **)params[i].dest);
    else if (params[i].type == BG_PARAM_INT) bg_lab_manifest_num(lab, key, *(int *)params[i].dest);
    else bg_lab_manifest_num(lab, key, *(double *)params[i].dest);
  }
  return lab;
}

bg_scale bg_lab_scale(const bg_lab *lab) { return lab->scale; }
int bg_lab_material_model(const bg_lab *lab) { return lab->material; }
const char *bg_lab_material_name(const bg_lab *lab) { return bg_material_model_name((bg_material_model)lab->material); }
bg_material bg_lab_material(const bg_lab *lab) {
  bg_material m = bg_material_default((bg_material_model)lab->material);
  if (lab->mu_s > 0 && m.model == BG_MODEL_MUI) {
    bg_real dmu = m.mui.mu_2 - m.mui.mu_s;
    m.mui.mu_s = (bg_real)lab->mu_s;
    m.mui.mu_2 = (bg_real)lab->mu_s + dmu;
  }
  if (lab->grain_d > 0 && m.model == BG_MODEL_MUI) m.mui.d = (bg_real)lab->grain_d;
  if (lab->grain_d > 0 && m.model == BG_MODEL_NGF) m.ngf.d = (bg_real)lab->grain_d;
  if (lab->ngf_a >= 0 && m.model == BG_MODEL_NGF) m.ngf.A = (bg_real)lab->ngf_a;
  if (lab->ngf_t0 > 0 && m.model == BG_MODEL_NGF) m.ngf.t0 = (bg_real)lab->ngf_t0;
  return m;
}

double bg_lab_static_friction(const bg_material *m) {
  if (m->model == BG_MODEL_MUI) return m->mui.mu_s;
  if (m->model == BG_MODEL_NGF) return m->ngf.mu_s;
  return -1;
}

double bg_lab_grain_d(const bg_material *m) {
  if (m->model == BG_MODEL_MUI) return m->mui.d;
  if (m->model == BG_MODEL_NGF) return m->ngf.d;
  return -1;
}

void bg_lab_manifest_material(bg_lab *lab, const bg_material *m) {
  static const char *const cones[] = {"compression", "extension", "plane-strain"};
  char buf[512];
  int o = snprintf(buf, sizeof buf, "%s: E %g Pa, nu %g, rho0 %g kg/m^3, %s stress, volume correction %s; ",
                   bg_material_model_name(m->model) ? bg_material_model_name(m->model) : "?", (double)m->E,
                   (double)m->nu, (double)m->rho0, m->stress == BG_STRESS_HENCKY ? "Hencky" : "fixed-corotated",
                   m->volume_correction ? "on" : "off");
  if (m->model == BG_MODEL_DP)
    snprintf(buf + o, sizeof buf - (size_t)o, "phi %g deg on the %s cone, hardening %s", (double)m->dp.phi_deg,
             (int)m->dp.cone >= 0 && (int)m->dp.cone < 3 ? cones[m->dp.cone] : "?", m->dp.hardening ? "on" : "off");
  else if (m->model == BG_MODEL_MUI)
    snprintf(buf + o, sizeof buf - (size_t)o, "mu_s %g, mu_2 %g, I0 %g, grain d %g m, rho_s %g kg/m^3",
             (double)m->mui.mu_s, (double)m->mui.mu_2, (double)m->mui.I0, (double)m->mui.d, (double)m->mui.rho_s);
  else if (m->model == BG_MODEL_NGF)
    snprintf(buf + o, sizeof buf - (size_t)o, "mu_s %g, b %g, A %g, grain d %g m, rho_s %g kg/m^3, relaxation t0 %g s",
             (double)m->ngf.mu_s, (double)m->ngf.b, (double)m->ngf.A, (double)m->ngf.d, (double)m->ngf.rho_s,
             (double)m->ngf.t0);
  bg_lab_manifest_str(lab, "material", buf);
}
const char *bg_lab_scale_name(const bg_lab *lab) { return lab->scale == BG_SCALE_PAPER ? "paper" : "quick"; }
const char *bg_lab_backend(const bg_lab *lab) { return lab->backend; }
int bg_lab_threads(const bg_lab *lab) { return lab->threads; }
unsigned long bg_lab_seed(const bg_lab *lab) { return lab->seed; }
int bg_lab_quiet(const bg_lab *lab) { return lab->quiet; }
const char *bg_lab_references(const bg_lab *lab) { return lab->refs; }
const char *bg_lab_outdir(const bg_lab *lab) { return lab->out; }

FILE *bg_lab_tsv(bg_lab *lab, const char *file, const char *comment, const char *columns) {
  FILE *fp = open_output(lab, file);
  /* one '#' provenance line, then a plain header that gnuplot's columnheader
   * and pandas.read_csv(comment='#') both take as the column names */
  if (comment && comment[0]) fprintf(fp, "# %s\n", comment);
  fprintf(fp, "%s\n", columns);
  return fp;
}

const char *bg_lab_output(bg_lab *lab, const char *file, char *path, size_t n) {
  if (snprintf(path, n, "%s/%s", lab->out, file) >= (int)n) die("output path %s/%s is too long", lab->out, file);
  add_file(lab, file);
  return path;
}

const char *bg_lab_reference(bg_lab *lab, const char *file, char *path, size_t n) {
  if (snprintf(path, n, "%s/%s", lab->refs, file) >= (int)n) die("reference path %s/%s is too long", lab->refs, file);
  FILE *fp = fopen(path, "r");
  if (!fp) die("cannot read the reference file %s: %s", path, strerror(errno));
  fclose(fp);
  return path;
}

double bg_lab_ref_value(bg_lab *lab, const char *file, const char *key, const char *column) {
  char path[1200], line[2048];
  bg_lab_reference(lab, file, path, sizeof path);
  FILE *fp = fopen(path, "r");
  if (!fp) die("cannot read the reference file %s: %s", path, strerror(errno));
  int col = -1, ln = 0;
  double v = NAN;
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\r\n")] = 0;
    char *f[32];
    int nf = split_tabs(line, f, 32);
    if (col < 0) { /* the plain header */
      for (int i = 0; i < nf; ++i)
        if (!strcmp(f[i], column)) col = i;
      if (col < 0) die("%s:%d: no column '%s' in the header", path, ln, column);
      continue;
    }
    if (nf > col && !strcmp(f[0], key)) {
      char *end;
      v = strtod(f[col], &end);
      if (end == f[col] || *end || !isfinite(v)) die("%s:%d: %s of '%s' is not a finite number ('%s')", path, ln, column, key, f[col]);
      break;
    }
  }
  fclose(fp);
  if (isnan(v)) die("%s: no row '%s'", path, key);
  return v;
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

/* A key given twice keeps its last value: JSON objects have unique keys. */
static void manifest_add(bg_lab *lab, const char *key, const char *json_value) {
  char k[256];
  json_escape(k, sizeof k, key);
  size_t n = strlen(k) + strlen(json_value) + 8;
  char *e = malloc(n);
  if (!e) die("out of memory");
  snprintf(e, n, "\"%s\": %s", k, json_value);
  size_t kl = strlen(k) + 3; /* "key": */
  for (int i = 0; i < lab->n_manifest; ++i)
    if (!strncmp(lab->manifest[i], e, kl)) {
      free(lab->manifest[i]);
      lab->manifest[i] = e;
      return;
    }
  if (lab->n_manifest == MAX_MANIFEST) die("too many manifest entries (max %d)", MAX_MANIFEST);
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
  tl_work += particle_steps;
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

/* Per simulation (by tag): where the last progress line left it. */
typedef struct progress_mark {
  char tag[64];
  double wall, t, work;
} progress_mark;

void bg_lab_progress_sim(bg_lab *lab, const char *tag, double t, double t_total, double particle_steps) {
  if (lab->quiet) return;
  static progress_mark marks[64];
  static int n_marks;
  double now = now_s();
#ifdef _OPENMP
#pragma omp critical(bg_lab_progress)
#endif
  {
    progress_mark *m = NULL;
    for (int i = 0; i < n_marks && !m; ++i)
      if (!strncmp(marks[i].tag, tag, sizeof marks[i].tag - 1)) m = &marks[i];
    if (!m && n_marks < 64) {
      m = &marks[n_marks++];
      snprintf(m->tag, sizeof m->tag, "%s", tag);
      m->wall = now;
      m->t = t;
      m->work = particle_steps;
    } else if (m && now - m->wall >= lab->progress_every) {
      double dw = now - m->wall, rate = (particle_steps - m->work) / dw, speed = (t - m->t) / dw;
      double left = speed > 0 ? (t_total - t) / speed : INFINITY;
      char eta[32];
      if (!isfinite(left)) snprintf(eta, sizeof eta, "unknown");
      else if (left >= 3600) snprintf(eta, sizeof eta, "%dh%02dm", (int)(left / 3600), (int)fmod(left / 60, 60));
      else snprintf(eta, sizeof eta, "%dm%02ds", (int)(left / 60), (int)fmod(left, 60));
      bg_lab_progress(lab, "%s: t %.3f of %.3g s simulated (%.0f%%), %.3g M particle-steps/s, at most %s left",
                      tag, t, t_total, t_total > 0 ? 100 * t / t_total : 0.0, rate * 1e-6, eta);
      m->wall = now;
      m->t = t;
      m->work = particle_steps;
    }
  }
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
  FILE *fp = open_output(lab, "manifest.json");
  char cpu[256], host[256] = "unknown", esc[2200], date[64];
  cpu_model(cpu, sizeof cpu);
  gethostname(host, sizeof host - 1);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  const char *commit = run_commit();
  fprintf(fp, "{\n  \"experiment\": \"%s\",\n", lab->name);
  json_escape(esc, sizeof esc, lab->argv_line);
  fprintf(fp, "  \"command\": \"%s\",\n", esc);
  fprintf(fp, "  \"commit\": \"%s\",\n  \"version\": \"%s\",\n", commit, BG_VERSION_STRING);
  fprintf(fp, "  \"date\": \"%s\",\n  \"host\": \"%s\",\n", date, host);
  json_escape(esc, sizeof esc, cpu);
  fprintf(fp, "  \"cpu\": \"%s\",\n  \"cores\": %ld,\n", esc, sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(fp, "  \"scale\": \"%s\",\n  \"material_model\": \"%s\",\n  \"backend_requested\": \"%s\",\n",
          bg_lab_scale_name(lab), bg_lab_material_name(lab), lab->backend);
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
  /* the backend's tuning knobs change speed (BAGNOLD_CPU_REFERENCE the rounding), never the physics; recorded so a
   * timing can be traced to the kernel variant that made it */
  static const char *knobs[] = {"BAGNOLD_CUDA_P2G", "BAGNOLD_CUDA_BLOCK", "BAGNOLD_CUDA_P2G_THREADS", "BAGNOLD_CUDA_SORT",
                                "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "BAGNOLD_CPU_REFERENCE"};
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
  /* which table judged the run: a report judged against an edited table says so */
  char tpath[1200];
  snprintf(tpath, sizeof tpath, "%s/claims.tsv", lab->refs);
  json_escape(esc, sizeof esc, tpath);
  fprintf(fp, ",\n  \"claims_table\": \"%s\",\n  \"claims_table_sha256\": \"%s\"", esc, lab->table_sha);
  snprintf(tpath, sizeof tpath, "%s/mutants.tsv", lab->refs);
  json_escape(esc, sizeof esc, tpath);
  fprintf(fp, ",\n  \"mutants_table\": \"%s\",\n  \"mutants_table_sha256\": \"%s\"", esc, lab->mutants_sha);
  for (int i = 0; i < lab->n_manifest; ++i) fprintf(fp, ",\n  %s", lab->manifest[i]);
  fprintf(fp, ",\n  \"files\": [");
  for (int i = 0; i < lab->n_files; ++i) {
    json_escape(esc, sizeof esc, lab->files[i]);
    fprintf(fp, "%s\"%s\"", i ? ", " : "", esc);
  }
  fprintf(fp, "]\n}\n");
  close_output(fp, path);
}

/* The recorded paper runs: reports/results/h200/ENTRY/claims.tsv beside the
 * references, one folder per entry of experiments/registry.tsv (the
 * variants in other folders are studies, not the entry's record). */
#define PAPER_RECORD "reports/results/h200"

/* Finds claim id in the recorded paper runs and re-judges the recorded value
 * by today's row r: 1 when it fails there, 0 when it passes, -1 when no
 * recorded run has it. what gets "value verdict (ENTRY)". */
static int recorded_paper(const bg_lab *lab, const claim_row *r, char *what, size_t n) {
  char path[1400], line[8192];
  snprintf(what, n, "-");
  snprintf(path, sizeof path, "%s/../experiments/registry.tsv", lab->refs);
  FILE *reg = fopen(path, "r");
  if (!reg) return -1;
  int found = -1;
  while (found < 0 && fgets(line, sizeof line, reg)) {
    if (line[0] == '#' || line[0] == '\n' || !strncmp(line, "name\t", 5)) continue;
    char entry[128];
    snprintf(entry, sizeof entry, "%.*s", (int)strcspn(line, "\t\n"), line);
    char cpath[1400];
    snprintf(cpath, sizeof cpath, "%s/../" PAPER_RECORD "/%s/claims.tsv", lab->refs, entry);
    FILE *fp = fopen(cpath, "r");
    if (!fp) continue;
    char row[8192];
    while (fgets(row, sizeof row, fp)) {
      char *f[10];
      if (row[0] == '#') continue;
      int nf = split_tabs(row, f, 10);
      if (nf < 6 || strcmp(f[0], r->id)) continue;
      char *end;
      double measured = strtod(f[1], &end);
      if (end == f[1]) measured = NAN;
      /* a fed row is judged against the input that run was fed, which its
       * expected column holds */
      double expected = r->fed_op ? strtod(f[2], NULL) : r->expected;
      int pass = judge_at(r, expected, r->tol[BG_SCALE_PAPER], measured);
      snprintf(what, n, "%.4g %s (%s)", measured, pass ? "pass" : "fail", entry);
      found = !pass;
      break;
    }
    fclose(fp);
  }
  fclose(reg);
  return found;
}

/* The verdict of a raw pass/fail at this run's scale: at quick scale a pass
 * the recorded paper run contradicts is refuted. */
static int settle(const bg_lab *lab, int pass, int paper_fails) {
  if (lab->scale == BG_SCALE_QUICK && pass && paper_fails == 1) return V_REFUTED;
  return pass ? V_PASS : V_FAIL;
}

static void settle_claims(bg_lab *lab) {
  for (int i = 0; i < lab->n_claims; ++i) {
    claim_result *c = &lab->claims[i];
    const claim_row *r = find_claim(lab, c->id);
    c->paper_fails = r ? recorded_paper(lab, r, c->paper, sizeof c->paper) : -1;
    if (!r) snprintf(c->paper, sizeof c->paper, "-");
    c->verdict = settle(lab, c->pass, c->paper_fails);
  }
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
  FILE *fp = open_output(lab, "mutants.tsv");
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
    int pass = r ? judge_at(r, row_expected(r, m->fed), r->tol[lab->scale], m->measured) : 0;
    int v = settle(lab, pass, c ? c->paper_fails : -1);
    fprintf(fp, "%s\t%s\t%.6g\t%s\t%s\t%s\n", m->mutant, m->id, m->measured, verdict_name[v],
            c ? verdict_name[c->verdict] : "-", r ? verdict_name[r->expect[lab->scale]] : "-");
  }
  close_output(fp, path);
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
      if (r) c->expected = row_expected(r, m->fed);
      c->pass = r ? judge_at(r, c->expected, c->tol, m->measured) : 0;
      c->verdict = settle(lab, c->pass, c->paper_fails);
    }
  }
}

static void need_sweep(const bg_lab *lab);

int bg_lab_finish(bg_lab *lab) {
  need_sweep(lab);
  double wall = now_s() - lab->t0;
  bg_lab_manifest_num(lab, "damping_per_s", lab->damping);
  manifest_steps(lab);
  /* a run of a model the table has no claims for measures, and says so */
  if (lab->n_claims == 0 && lab->n_unjudged == 0) die("%s made no claims", lab->name);
  settle_claims(lab);
  write_mutants(lab);
  apply_measurement_mutant(lab);
  if (lab->active) bg_lab_manifest_str(lab, "mutant", lab->active->name);
  FILE *fp = open_output(lab, "claims.tsv");
  fprintf(fp, "# claims of %s at scale %s%s%s, judged by %s/claims.tsv (sha256 %s)\n", lab->name,
          bg_lab_scale_name(lab), lab->active ? ", MUTANT " : "", lab->active ? lab->active->name : "", lab->refs,
          lab->table_sha);
  fprintf(fp, "claim\tmeasured\texpected\ttolerance\tunit\tverdict\tsource\texpect\tcompare\tpaper_record\n");
  int unexpected = 0, misses = 0;
  if (!lab->quiet) fprintf(stderr, "claims of %s (%s scale%s%s):\n", lab->name, bg_lab_scale_name(lab),
                           lab->active ? ", mutant " : "", lab->active ? lab->active->name : "");
  for (int i = 0; i < lab->n_claims; ++i) {
    claim_result *c = &lab->claims[i];
    unexpected += c->verdict != c->expect;
    misses += c->verdict != V_PASS && c->verdict == c->expect;
    fprintf(fp, "%s\t%.6g\t%.6g\t%.3g\t%s\t%s\t%s\t%s\t%s\t%s\n", c->id, c->measured, c->expected, c->tol,
            c->unit, verdict_name[c->verdict], c->source, verdict_name[c->expect], c->compare, c->paper);
    const char *tag = c->verdict == c->expect
                          ? (c->verdict == V_PASS      ? ""
                             : c->verdict == V_REFUTED ? "  (passes here, refuted by the recorded paper run: expected)"
                                                       : "  (documented miss: expected)")
                      : c->verdict == V_REFUTED ? "  [UNEXPECTED: passes here, but the recorded paper run fails it]"
                      : c->verdict == V_PASS    ? "  [UNEXPECTED pass: the table expects a miss]"
                                                : "  [UNEXPECTED fail]";
    fprintf(stderr, "  %-32s %-4s measured %.6g %s (expected %.6g, %s tolerance %.3g; paper %s)%s\n", c->id,
            c->pass ? "pass" : "FAIL", c->measured, c->unit, c->expected, c->compare, c->tol, c->paper, tag);
  }
  close_output(fp, "claims.tsv");
  fprintf(stderr, "%s: %d claims, %d documented misses, %d unexpected verdicts: exit %d\n", lab->name,
          lab->n_claims, misses, unexpected, unexpected ? 1 : 0);
  write_manifest(lab, wall);
  /* complete: the marker goes once the manifest is in place */
  if (g_marker[0] && unlink(g_marker) != 0) die("removing %s: %s", g_marker, strerror(errno));
  g_marker[0] = 0;
  for (int i = 0; i < lab->n_manifest; ++i) free(lab->manifest[i]);
  for (int i = 0; i < lab->n_files; ++i) free(lab->files[i]);
  for (int i = 0; i < 2 * lab->n_sim_tags; ++i) free(lab->sim_tags[i]);
  free(lab->table);
  free(lab->mclaims);
  free(lab);
  g_lab = NULL;
  return unexpected ? 1 : 0;
}

/* ------------------------------------------- per-simulation services */

void bg_lab_blob_put(bg_lab_blob *b, const void *p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    unsigned char *d = realloc(b->data, cap);
    if (!d) die("out of memory for a checkpoint's loop state (%zu bytes)", cap);
    b->data = d;
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
}

void bg_lab_blob_get(bg_lab_blob *b, void *p, size_t n) {
  /* a checkpoint of another build of the loop: its state cannot be read */
  if (n > b->len - b->pos)
    die("a checkpoint's loop state ends after %zu bytes, %zu more were expected (written by another version of "
        "this experiment?)",
        b->len, b->pos + n - b->len);
  memcpy(p, b->data + b->pos, n);
  b->pos += n;
}

void bg_lab_blob_free(bg_lab_blob *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* The harness's part of every checkpoint's user blob, before the loop's. */
#define LAB_CKPT_MAGIC "bglab-1"
typedef struct lab_ckpt_head {
  char magic[8];
  uint32_t finished;  /* the loop had ended: a resumed run skips it */
  uint32_t has_frame; /* a frame was written; last_frame_t is its time */
  uint64_t next_k;    /* the next frame is due at next_k * --vtk-every */
  double last_frame_t;
} lab_ckpt_head;

struct bg_lab_sim {
  bg_lab *lab;
  bg_sim *sim;
  char name[128]; /* the tag as a file name */
  char tag[128];
  bg_pvd *pvd;
  lab_ckpt_head head;
  int restored_finished;
  double last_save; /* wall clock of the last checkpoint (or the start) */
};

/* A tag as a file name: letters, digits, '.', '-' kept, runs of anything
 * else become one '_' ("a 0.5 (1/4)" -> "a_0.5_1_4"). */
static void tag_file_name(const char *tag, char *out, size_t n) {
  size_t k = 0;
  for (const char *c = tag; *c && k + 1 < n; ++c) {
    int keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
               *c == '-';
    if (keep) out[k++] = *c;
    else if (k && out[k - 1] != '_') out[k++] = '_';
  }
  while (k && out[k - 1] == '_') k--;
  out[k] = 0;
  if (!k) snprintf(out, n, "sim");
}

/* Two simulations of one run must not share a file name: checkpoints and
 * frames would overwrite each other (called inside --jobs regions). */
static void register_tag(bg_lab *lab, const char *name, const char *tag) {
  int clash = -1;
#ifdef _OPENMP
#pragma omp critical(bg_lab_tags)
#endif
  {
    for (int i = 0; i < lab->n_sim_tags && clash < 0; ++i)
      if (!strcmp(lab->sim_tags[2 * i], name)) clash = i;
    if (clash < 0 && lab->n_sim_tags < MAX_SIM_TAGS) {
      lab->sim_tags[2 * lab->n_sim_tags] = strdup(name);
      lab->sim_tags[2 * lab->n_sim_tags + 1] = strdup(tag);
      lab->n_sim_tags++;
    }
  }
  if (clash >= 0)
    die("two simulations of this run have the file name %s (tags '%s' and '%s'): their checkpoints and frames "
        "would collide",
        name, lab->sim_tags[2 * clash + 1], tag);
}

static void lab_sim_frame(bg_lab_sim *ls) {
  bg_status s = bg_pvd_frame(ls->pvd, ls->sim);
  if (s != BG_OK) die("%s: writing a VTU frame: %s (%s)", ls->tag, bg_status_name(s), bg_pvd_last_error(ls->pvd));
  bg_stats st;
  bg_sim_stats(ls->sim, &st);
  ls->head.has_frame = 1;
  ls->head.last_frame_t = st.time;
  ls->head.next_k = (uint64_t)floor(st.time / ls->lab->vtk_every) + 1;
}

static void lab_sim_frames_due(bg_lab_sim *ls) {
  if (!ls->pvd) return;
  bg_stats st;
  bg_sim_stats(ls->sim, &st);
  if (st.time >= (double)ls->head.next_k * ls->lab->vtk_every) lab_sim_frame(ls);
}

static void lab_sim_save(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx) {
  char dir[1200], path[1400];
  snprintf(dir, sizeof dir, "%s/checkpoints", ls->lab->out);
  if (make_dirs(dir) != 0) die("cannot create %s: %s", dir, strerror(errno));
  snprintf(path, sizeof path, "%s/%s.bgck", dir, ls->name);
  bg_lab_blob b = {0};
  bg_lab_blob_put(&b, &ls->head, sizeof ls->head);
  if (pack) pack(ctx, &b);
  bg_status s = bg_sim_save(ls->sim, path, b.data, b.len);
  bg_lab_blob_free(&b);
  if (s != BG_OK) die("%s: checkpoint %s: %s (%s)", ls->tag, path, bg_status_name(s), bg_sim_last_error(ls->sim));
  ls->last_save = now_s();
}

/* tag's checkpoint in the --resume folder into sim; 0 when there is none */
static int lab_sim_restore(bg_lab_sim *ls, bg_lab_blob *state) {
  char path[1400];
  snprintf(path, sizeof path, "%s/checkpoints/%s.bgck", ls->lab->resume, ls->name);
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) return 0; /* this simulation had not checkpointed: from scratch */
    die("--resume: %s: %s", path, strerror(errno));
  }
  /* the blob cannot be larger than the file that holds it */
  size_t cap = (size_t)st.st_size, len = 0;
  unsigned char *buf = malloc(cap ? cap : 1);
  if (!buf) die("out of memory reading %s", path);
  bg_status s = bg_sim_restore(ls->sim, path, buf, cap, &len);
  if (s != BG_OK) die("--resume: %s: %s (%s)", path, bg_status_name(s), bg_sim_last_error(ls->sim));
  if (len < sizeof ls->head || memcmp(buf, LAB_CKPT_MAGIC, sizeof LAB_CKPT_MAGIC))
    die("--resume: %s holds no loop state of this harness (%zu bytes of user data)", path, len);
  memcpy(&ls->head, buf, sizeof ls->head);
  state->data = buf;
  state->len = len;
  state->cap = cap;
  state->pos = sizeof ls->head;
  return 1;
}

static void need_sweep(const bg_lab *lab) {
  if (lab->phase != SW_ALL && !lab->in_sweep)
    die("%s: %s has no sweep of independent simulations; run it without --plan, --point or --gather",
        sweep_opt[lab->phase], lab->name);
}

bg_lab_sim *bg_lab_sim_begin(bg_lab *lab, bg_sim *sim, const char *tag, bg_lab_blob *state, int *finished) {
  need_sweep(lab);
  bg_lab_sim *ls = calloc(1, sizeof *ls);
  if (!ls) die("out of memory");
  ls->lab = lab;
  ls->sim = sim;
  snprintf(ls->tag, sizeof ls->tag, "%s", tag);
  /* damping changes the physics: the manifest says whether any simulation had it */
  bg_sim_desc desc;
  if (bg_sim_describe(sim, &desc) == BG_OK) {
#ifdef _OPENMP
#pragma omp critical(bg_lab_damping)
#endif
    if (desc.damping > lab->damping) lab->damping = desc.damping;
  }
  tag_file_name(tag, ls->name, sizeof ls->name);
  memcpy(ls->head.magic, LAB_CKPT_MAGIC, sizeof LAB_CKPT_MAGIC);
  memset(state, 0, sizeof *state);
  *finished = 0;
  if (lab->vtk_every > 0 || lab->ckpt_every > 0 || lab->resume[0]) register_tag(lab, ls->name, tag);
  int restored = lab->resume[0] && lab_sim_restore(ls, state);
  if (restored) {
    *finished = ls->restored_finished = ls->head.finished != 0;
    bg_stats st;
    bg_sim_stats(sim, &st);
    bg_lab_progress(lab, "%s: resumed from %s/checkpoints/%s.bgck at t %.4g s, step %llu%s", tag, lab->resume,
                    ls->name, st.time, (unsigned long long)st.step, *finished ? " (finished: not run again)" : "");
  }
  if (lab->vtk_every > 0 && !ls->restored_finished) {
    char dir[1200], file[300];
    snprintf(dir, sizeof dir, "%s/vtk", lab->out);
    bg_status s = bg_pvd_open(dir, ls->name, lab->resume[0] ? 1 : 0, &ls->pvd);
    if (s != BG_OK) die("%s: opening the series %s/%s.pvd: %s", tag, dir, ls->name, bg_pvd_last_error(NULL));
    snprintf(file, sizeof file, "vtk/%s.pvd", ls->name);
#ifdef _OPENMP
#pragma omp critical(bg_lab_files)
#endif
    add_file(lab, file);
    if (!restored) lab_sim_frame(ls); /* the initial state */
  }
  ls->last_save = now_s();
  return ls;
}

void bg_lab_sim_tick(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx) {
  lab_sim_frames_due(ls);
  if (ls->lab->ckpt_every > 0 && now_s() - ls->last_save >= ls->lab->ckpt_every) lab_sim_save(ls, pack, ctx);
}

void bg_lab_sim_end(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx) {
  /* a step the fluidity's explicit bound chose is reported, never silent */
  bg_stats ss;
  if (bg_sim_stats(ls->sim, &ss) == BG_OK && ss.step > 0) {
    double share = (double)ss.steps_nonlocal_dt / (double)ss.step;
#ifdef _OPENMP
#pragma omp critical(bg_lab_dt)
#endif
    {
      ls->lab->steps_all += (double)ss.step;
      ls->lab->steps_nonlocal += (double)ss.steps_nonlocal_dt;
      if (share > ls->lab->nonlocal_share_max) ls->lab->nonlocal_share_max = share;
    }
    if (ss.steps_nonlocal_dt > 0)
      bg_lab_progress(ls->lab, "%s: the nonlocal model's step bound set dt in %llu of %llu steps (%.0f%%; bound/CFL %.2f at the end)",
                      ls->tag, (unsigned long long)ss.steps_nonlocal_dt, (unsigned long long)ss.step, 100 * share,
                      (double)ss.nonlocal_dt_ratio);
  }
  if (ls->pvd) {
    bg_stats st;
    bg_sim_stats(ls->sim, &st);
    if (!ls->head.has_frame || ls->head.last_frame_t != st.time) lab_sim_frame(ls); /* the final state */
    bg_pvd_close(ls->pvd);
  }
  /* the final checkpoint marks the simulation finished; one restored as
   * finished into its own folder is there already */
  ls->head.finished = 1;
  if (ls->lab->ckpt_every > 0 && !(ls->restored_finished && ls->lab->resume_inplace)) lab_sim_save(ls, pack, ctx);
  free(ls);
}
