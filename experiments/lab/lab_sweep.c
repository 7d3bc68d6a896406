/* lab_sweep.c: sweeps of independent simulations (see bg_lab.h): the plan,
 * one point alone, every point in one process, and the gather, all through
 * the same files so that the ways of running a sweep agree byte for byte. */
#define _GNU_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_internal.h"

const char *const lab_sweep_opt[] = {"", "--plan", "--point", "--gather"};

/* What every point of a sweep and its gather must share: the run's
 * identity (the experiment, scale, material, seed, mutant, parameters), the
 * commit and the claims table. */
static void sweep_identity(const bg_lab *lab, char *buf, size_t n) {
  const char *commit = lab_commit();
  if ((size_t)snprintf(buf, n, "%scommit\t%s\nclaims_table_sha256\t%s\n", lab->identity, commit,
                       lab->table_sha) >= n)
    lab_die("the run's identity is longer than %zu characters", n - 1);
}

static void sha_hex(const char *text, char hex[65]) { bg_sha256_hex(text, strlen(text), hex); }

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
    lab_die("%s: %s: %s: write the plan first (%s --plan --out %s, with the same parameters)", opt,
            path, strerror(errno), lab->name, lab->root);
  char line[512];
  int n = 0, header = 0;
  while (fgets(line, sizeof line, fp)) {
    if (line[0] == '#') continue;
    if (!header++) continue;
    if (atoi(line) != n)
      lab_die("%s: %s: row %d is point %d: the plan is damaged; write it again with --plan --force",
              opt, path, n, atoi(line));
    n++;
  }
  fclose(fp);
  if (n < 1) lab_die("%s: %s holds no points", opt, path);
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
      snprintf(why, n, "%s (points/%d/%s)",
               i == 0   ? "running or killed"
               : i == 1 ? "failed"
                        : "interrupted",
               k, marks[i]);
      return 0;
    }
  }
  snprintf(path, sizeof path, "%s/point.txt", dir);
  if (!lab_read_small(path, text, sizeof text)) {
    snprintf(why, n, "not run (no points/%d/point.txt)", k);
    return 0;
  }
  const char *commit = lab_commit();
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
  if (!kv_get(text, "result_bytes", v, sizeof v) || stat(path, &st) != 0 ||
      (long long)st.st_size != atoll(v)) {
    snprintf(why, n, "its result.bin is missing or not the size its point.txt records");
    return 0;
  }
  return 1;
}

/* --reuse DIR: never this run's own folder (a copy onto itself would empty
 * the file it reads); --plan and --gather simulate nothing and ignore it, so
 * scripts/lab sweep may pass it to every phase. */
static void check_reuse(const bg_lab *lab) {
  if (lab->vtk_every > 0)
    lab_die("--reuse with --vtk-every: a copied point has no frames; leave one of them out");
  char a[PATH_MAX], b[PATH_MAX], path[1200];
  snprintf(path, sizeof path, "%s/points", lab->reuse);
  if (!realpath(path, a)) return; /* nothing there: reuse_build says so */
  snprintf(path, sizeof path, "%s/points", lab->root);
  if (realpath(path, b) && !strcmp(a, b))
    lab_die("--reuse %s is this run's own folder", lab->reuse);
}

/* --plan, --point K, --gather: where the run writes, and the checks that
 * can be made before any work. */
void lab_sweep_setup(bg_lab *lab) {
  snprintf(lab->root, sizeof lab->root, "%s", lab->out);
  if (lab->reuse[0]) check_reuse(lab);
  if (lab->phase == SW_ALL || lab->phase == SW_PLAN) return;
  const char *opt = lab_sweep_opt[lab->phase];
  if (lab->resume[0])
    lab_die(
        "--resume with %s: a sweep's point resumes from its own checkpoints by itself; leave "
        "--resume out",
        opt);
  /* the plan must be this run's */
  char path[1200], there[8192], here[8192], what[1300];
  snprintf(path, sizeof path, "%s/sweep.txt", lab->root);
  if (!lab_read_small(path, there, sizeof there))
    lab_die("%s: %s: %s: write the plan first (%s --plan --out %s, with the same parameters)", opt,
            path, strerror(errno), lab->name, lab->root);
  sweep_identity(lab, here, sizeof here);
  snprintf(what, sizeof what, "the plan in %s", lab->root);
  lab_same_identity(there, here, opt, what,
                    "run every phase of a sweep with the same build, claims table and parameters");
  lab->plan_n = plan_points(lab, opt);
  if (lab->phase == SW_GATHER) return;
  if (lab->point >= lab->plan_n)
    lab_die("--point %d: the plan in %s has %d points, 0 to %d", lab->point, lab->root, lab->plan_n,
            lab->plan_n - 1);
  char why[300];
  if (point_complete(lab, lab->point, here, why, sizeof why)) {
    fprintf(stderr, "%s: point %d of %s is complete already: nothing to do\n", lab->name,
            lab->point, lab->root);
    exit(0);
  }
  if (snprintf(lab->out, sizeof lab->out, "%s/points/%d", lab->root, lab->point) >=
      (int)sizeof lab->out - 64)
    lab_die("--out: %s/points/%d is too long", lab->root, lab->point);
  if (lab_make_dirs(lab->out) != 0) lab_die("cannot create %s: %s", lab->out, strerror(errno));
  /* a point that checkpointed resumes in place; one stopped before its
   * first checkpoint left only run files, which go */
  snprintf(path, sizeof path, "%s/checkpoints/run.txt", lab->out);
  if (access(path, F_OK) == 0)
    snprintf(lab->resume, sizeof lab->resume, "%s", lab->out);
  else
    lab->force = 1;
}

/* Reuse (bg_lab_sweep_keys, --reuse DIR): the hash of each point's key,
 * and the complete points of DIR by theirs. */
typedef struct reuse_index {
  const char *const *keys; /* NULL: the experiment keys no points */
  char (*own)[65];         /* this sweep's points' key hashes */
  int n_there;
  char (*there)[65]; /* DIR's complete points' key hashes ... */
  int *there_k;      /* ... and their numbers */
} reuse_index;

/* The hash of this executable's bytes: two builds of one dirty commit
 * differ here, so a point is reused only from the very same program. */
static void exe_sha(char hex[65]) {
  snprintf(hex, 65, "unknown");
  FILE *fp = fopen("/proc/self/exe", "rb");
  if (!fp) return;
  size_t cap = 1 << 20, len = 0, got;
  unsigned char *buf = malloc(cap);
  while (buf && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
    len += got;
    if (len == cap) {
      unsigned char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  if (buf && !ferror(fp)) bg_sha256_hex(buf, len, hex);
  free(buf);
  fclose(fp);
}

/* The point keys' hashes, over the executable, its bytes and the commit as
 * well as the experiment's key; with --reuse, the index of DIR's points. */
static void reuse_build(bg_lab *lab, int n, reuse_index *ri) {
  memset(ri, 0, sizeof *ri);
  ri->keys = lab->sweep_keys;
  if (!ri->keys) {
    if (lab->reuse[0]) lab_die("--reuse: %s does not key its sweep points, so none can be reused", lab->name);
    return;
  }
  char exe[65], *text;
  exe_sha(exe);
  if (lab->reuse[0] && !strcmp(exe, "unknown")) lab_die("--reuse: cannot read this executable (/proc/self/exe)");
  ri->own = malloc((size_t)n * sizeof *ri->own);
  if (!ri->own) lab_die("out of memory");
  for (int k = 0; k < n; ++k) {
    size_t len = strlen(ri->keys[k]) + 512;
    if (!(text = malloc(len))) lab_die("out of memory");
    snprintf(text, len, "executable\t%s\nexecutable_sha256\t%s\ncommit\t%s\nkey\t%s\n", lab->name, exe,
             lab_commit(), ri->keys[k]);
    sha_hex(text, ri->own[k]);
    free(text);
  }
  if (!lab->reuse[0]) return;
  char dir[1200], path[1400], rec[4096], v[128];
  snprintf(dir, sizeof dir, "%s/points", lab->reuse);
  DIR *d = opendir(dir);
  if (!d) {
    /* copying is a saving, never a need: with nothing to copy every point runs */
    fprintf(stderr, "%s: warning: --reuse: %s: %s: every point is simulated\n", lab->name, dir, strerror(errno));
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long j = strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end || j < 0 || j > 1000000) continue;
    snprintf(path, sizeof path, "%s/%ld/point.txt", dir, j);
    if (!lab_read_small(path, rec, sizeof rec) || !kv_get(rec, "status", v, sizeof v) || strcmp(v, "done") ||
        !kv_get(rec, "commit", v, sizeof v) || strcmp(v, lab_commit()) ||
        !kv_get(rec, "point_key_sha256", v, sizeof v) || strlen(v) != 64)
      continue;
    char bytes[64];
    struct stat st;
    snprintf(path, sizeof path, "%s/%ld/result.bin", dir, j);
    if (!kv_get(rec, "result_bytes", bytes, sizeof bytes) || stat(path, &st) != 0 ||
        (long long)st.st_size != atoll(bytes))
      continue;
    ri->there = realloc(ri->there, (size_t)(ri->n_there + 1) * sizeof *ri->there);
    ri->there_k = realloc(ri->there_k, (size_t)(ri->n_there + 1) * sizeof *ri->there_k);
    if (!ri->there || !ri->there_k) lab_die("out of memory");
    memcpy(ri->there[ri->n_there], v, 65);
    ri->there_k[ri->n_there++] = (int)j;
  }
  closedir(d);
}

static void reuse_free(reuse_index *ri) {
  free(ri->own);
  free(ri->there);
  free(ri->there_k);
}

/* Point k's result copied from DIR when a point there has its key: the
 * path it came from into from, 1; else 0. */
static int reuse_point(bg_lab *lab, const reuse_index *ri, int k, const char *tag, bg_lab_blob *b,
                       char *from, size_t n) {
  for (int i = 0; i < ri->n_there; ++i) {
    if (strcmp(ri->there[i], ri->own[k])) continue;
    snprintf(from, n, "%s/points/%d", lab->reuse, ri->there_k[i]);
    char path[1400];
    snprintf(path, sizeof path, "%s/result.bin", from);
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st) != 0) lab_die("--reuse: %s: %s", path, strerror(errno));
    b->len = b->cap = (size_t)st.st_size;
    b->data = malloc(b->cap ? b->cap : 1);
    if (!b->data) lab_die("out of memory reading %s", path);
    if (fread(b->data, 1, b->len, fp) != b->len) lab_die("--reuse: reading %s failed", path);
    fclose(fp);
    bg_lab_progress(lab, "point %d (%s): the same simulation as %s: copied", k, tag, from);
#ifdef _OPENMP
#pragma omp atomic
#endif
    lab->reused++;
    return 1;
  }
  return 0;
}

/* Point k's result and record into dir: result.bin, then point.txt, which
 * says it is complete. */
static void write_point(const bg_lab *lab, const char *dir, int k, const char *tag,
                        const bg_lab_blob *b, double work, const char *sweep_id,
                        const reuse_index *ri, const char *from) {
  char path[1300], text[4096], idsha[65];
  snprintf(path, sizeof path, "%s/result.bin", dir);
  lab_write_whole(path, b->data ? (const void *)b->data : "", b->len);
  sha_hex(sweep_id, idsha);
  const char *commit = lab_commit();
  int m = snprintf(
      text, sizeof text,
      "point\t%d\ntag\t%s\nstatus\tdone\ncommit\t%s\nclaims_table_sha256\t%s\nidentity_sha256\t%s\n"
      "result_bytes\t%zu\nparticle_steps\t%.17g\n",
      k, tag, commit, lab->table_sha, idsha, b->len, work);
  if (m >= 0 && ri->keys)
    m += snprintf(text + m, sizeof text - (size_t)m, "point_key_sha256\t%s\n", ri->own[k]);
  if (m >= 0 && (size_t)m < sizeof text && from)
    m += snprintf(text + m, sizeof text - (size_t)m, "reused_from\t%s\n", from);
  if (m < 0 || (size_t)m >= sizeof text) lab_die("point %d: its record is too long", k);
  snprintf(path, sizeof path, "%s/point.txt", dir);
  lab_write_whole(path, text, (size_t)m);
}

/* Point k: copied (--reuse) or simulated, then its result and record into dir. */
static void do_point(bg_lab *lab, const char *dir, int k, const char *tag, bg_lab_point_fn run, void *ctx,
                     const char *sweep_id, const reuse_index *ri) {
  bg_lab_blob b = {0};
  char from[1300];
  int copied = ri->n_there && reuse_point(lab, ri, k, tag, &b, from, sizeof from);
  lab_tl_work = 0;
  if (!copied) run(ctx, k, &b);
  write_point(lab, dir, k, tag, &b, lab_tl_work, sweep_id, ri, copied ? from : NULL);
  bg_lab_blob_free(&b);
}

static void write_plan(bg_lab *lab, int n, const char *const *tags, const double *cost,
                       const char *sweep_id) {
  FILE *fp = bg_lab_tsv(
      lab, "plan.tsv",
      "the sweep's points, each an independent simulation: run each with --point K --out this "
      "folder (same parameters), then --gather",
      "point\ttag\tcost");
  for (int k = 0; k < n; ++k) {
    if (strchr(tags[k], '\t') || strchr(tags[k], '\n'))
      lab_die("point %d: its tag holds a tab or a newline", k);
    fprintf(fp, "%d\t%s\t%.6g\n", k, tags[k], cost ? cost[k] : 1.0);
  }
  lab_close_output(fp, "plan.tsv");
  FILE *id = lab_open_output(lab, "sweep.txt");
  fputs(sweep_id, id);
  lab_close_output(id, "sweep.txt");
}

/* --point K: the point alone, its result and its manifest; then exit 0. */
static _Noreturn void run_point(bg_lab *lab, int n, const char *const *tags, bg_lab_point_fn run,
                                void *ctx, const char *sweep_id, const reuse_index *ri) {
  int k = lab->point;
  bg_lab_progress(lab, "point %d of %d: %s", k, n, tags[k]);
  do_point(lab, lab->out, k, tags[k], run, ctx, sweep_id, ri);
  if (lab->reuse[0]) bg_lab_manifest_num(lab, "sweep_points_reused", lab->reused);
  bg_lab_manifest_num(lab, "sweep_point", k);
  bg_lab_manifest_str(lab, "sweep_tag", tags[k]);
  bg_lab_manifest_num(lab, "damping_per_s", lab->damping);
  lab_manifest_steps(lab);
  lab_write_manifest(lab, lab_now() - lab->t0);
  lab_end_marker();
  exit(0);
}

/* Every point in this process, the costliest first so that --jobs drains
 * evenly; with jobs > 1 each gets one CPU thread. */
static void run_all(bg_lab *lab, int n, const char *const *tags, const double *cost, int jobs,
                    bg_lab_point_fn run, void *ctx, const char *sweep_id, const reuse_index *ri) {
  int *order = malloc((size_t)n * sizeof *order);
  if (!order) lab_die("out of memory");
  for (int k = 0; k < n; ++k) order[k] = k;
  for (int k = 1; k < n && cost; ++k)
    for (int m = k; m > 0 && cost[order[m]] > cost[order[m - 1]]; --m) {
      int t = order[m];
      order[m] = order[m - 1];
      order[m - 1] = t;
    }
  char dir0[1200];
  snprintf(dir0, sizeof dir0, "%s/points", lab->root);
  if (lab_make_dirs(dir0) != 0) lab_die("cannot create %s: %s", dir0, strerror(errno));
  /* a resumed run keeps the points that are complete (a cut device call's
   * folder comes back without its checkpoints, so they could not be
   * restored), and the others restore from their checkpoints if they have any */
  int kept = 0;
  char *done = calloc((size_t)n, 1);
  if (!done) lab_die("out of memory");
  for (int k = 0; k < n && lab->resume[0]; ++k) {
    char why[300];
    done[k] = (char)point_complete(lab, k, sweep_id, why, sizeof why);
    kept += done[k];
  }
  if (lab->resume[0])
    bg_lab_progress(lab, "resumed: %d of %d points complete already, %d to run", kept, n, n - kept);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs) if (jobs > 1)
#endif
  for (int i = 0; i < n; ++i) {
    int k = order[i];
    if (done[k]) continue;
    char dir[1300];
    snprintf(dir, sizeof dir, "%s/points/%d", lab->root, k);
    if (lab_make_dirs(dir) != 0) lab_die("cannot create %s: %s", dir, strerror(errno));
    do_point(lab, dir, k, tags[k], run, ctx, sweep_id, ri);
  }
  free(done);
  free(order);
  bg_lab_manifest_num(lab, "sweep_points_kept", kept);
}

/* The gather: every point complete and this sweep's, then read back. */
static bg_lab_blob *gather(bg_lab *lab, int n, const char *const *tags, const char *sweep_id) {
  int bad = 0;
  char list[2048] = "";
  size_t o = 0;
  for (int k = 0; k < n; ++k) {
    char why[300];
    if (point_complete(lab, k, sweep_id, why, sizeof why)) continue;
    if (bad++ < 8 && o < sizeof list)
      o += (size_t)snprintf(list + o, sizeof list - o, "\n  point %d (%s): %s", k, tags[k], why);
  }
  if (bad)
    lab_die("%s: %d of %d points of %s are not complete:%s%s",
            lab->phase == SW_GATHER ? "--gather" : "sweep", bad, n, lab->root, list,
            bad > 8 ? "\n  ..." : "");
  bg_lab_blob *res = calloc((size_t)n, sizeof *res);
  if (!res) lab_die("out of memory");
  for (int k = 0; k < n; ++k) {
    char path[1300], text[4096], v[64];
    snprintf(path, sizeof path, "%s/points/%d/result.bin", lab->root, k);
    struct stat st;
    FILE *fp = fopen(path, "rb");
    if (!fp || fstat(fileno(fp), &st) != 0) lab_die("--gather: %s: %s", path, strerror(errno));
    res[k].len = res[k].cap = (size_t)st.st_size;
    res[k].data = malloc(res[k].cap ? res[k].cap : 1);
    if (!res[k].data) lab_die("out of memory reading %s", path);
    if (fread(res[k].data, 1, res[k].len, fp) != res[k].len)
      lab_die("--gather: reading %s failed", path);
    fclose(fp);
    if (lab->phase == SW_GATHER) {
      /* the points' work, for the manifest's throughput */
      snprintf(path, sizeof path, "%s/points/%d/point.txt", lab->root, k);
      if (lab_read_small(path, text, sizeof text) && kv_get(text, "particle_steps", v, sizeof v))
        lab->work += atof(v);
    }
  }
  return res;
}

bg_lab_blob *bg_lab_sweep(bg_lab *lab, int n, const char *const *tags, const double *cost, int jobs,
                          bg_lab_point_fn run, void *ctx) {
  if (n < 1) lab_die("a sweep needs at least one point");
  if (jobs < 1) jobs = 1;
  lab->in_sweep = 1;
  char sweep_id[8192];
  sweep_identity(lab, sweep_id, sizeof sweep_id);
  if (lab->phase == SW_PLAN || lab->phase == SW_ALL) write_plan(lab, n, tags, cost, sweep_id);
  /* checkpoints/run.txt: what --resume reads, so that a stopped sweep
   * goes on from its complete points, checkpoints or not */
  if (lab->phase == SW_ALL) lab_write_identity(lab, 1);
  if (lab->phase == SW_PLAN) {
    fprintf(stderr,
            "%s: plan of %d points in %s/plan.tsv; next: --point K (K = 0..%d), then --gather, "
            "each with "
            "--out %s and the same parameters\n",
            lab->name, n, lab->root, n - 1, lab->root);
    lab_end_marker();
    exit(0);
  }
  if (lab->phase != SW_ALL && n != lab->plan_n)
    lab_die("%s: the plan in %s has %d points, this run's parameters make %d",
            lab_sweep_opt[lab->phase], lab->root, lab->plan_n, n);
  reuse_index ri;
  if (lab->phase == SW_POINT || lab->phase == SW_ALL) reuse_build(lab, n, &ri);
  if (lab->phase == SW_POINT) run_point(lab, n, tags, run, ctx, sweep_id, &ri);
  if (lab->phase == SW_ALL) {
    run_all(lab, n, tags, cost, jobs, run, ctx, sweep_id, &ri);
    reuse_free(&ri);
  }
  bg_lab_blob *res = gather(lab, n, tags, sweep_id);
  bg_lab_manifest_num(lab, "sweep_points", n);
  /* how many points --reuse copied from another run instead of simulating */
  if (lab->reuse[0]) bg_lab_manifest_num(lab, "sweep_points_reused", lab->reused);
  bg_lab_manifest_str(lab, "sweep_phase", lab->phase == SW_GATHER ? "gather" : "all");
  return res;
}

void bg_lab_sweep_keys(bg_lab *lab, const char *const *keys) { lab->sweep_keys = keys; }

void bg_lab_sweep_free(bg_lab_blob *results, int n) {
  if (!results) return;
  for (int k = 0; k < n; ++k) bg_lab_blob_free(&results[k]);
  free(results);
}

void lab_need_sweep(const bg_lab *lab) {
  if (lab->reuse[0] && !lab->in_sweep)
    lab_die("--reuse: %s has no sweep of independent simulations to copy", lab->name);
  if (lab->phase != SW_ALL && !lab->in_sweep)
    lab_die(
        "%s: %s has no sweep of independent simulations; run it without --plan, --point or "
        "--gather",
        lab_sweep_opt[lab->phase], lab->name);
}
