/* lab_output.c: what a run writes and how it ends on an error.
 *
 * Every output is written under a temporary name through a stdio cookie
 * whose write and close are checked (a full disk or a file-size limit ends
 * the run with the path and strerror, exit 2) and renamed into place when
 * closed, so a file that looks complete is complete. The run folder holds
 * a RUNNING marker until the manifest is in place; an error turns it into
 * FAILED, SIGINT or SIGTERM into INTERRUPTED. */
#define _GNU_SOURCE /* fopencookie, lstat, strdup */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bg_version.h"
#include "lab_internal.h"

_Thread_local double lab_tl_work;

/* The run folder's markers, for the error and signal paths. */
static char lab_marker[1200], g_failed[1200], g_interrupted[1200];
static volatile sig_atomic_t g_in_write, g_pending_signal, g_dying;

double lab_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The commit a run records and a sweep's phases must share: the build's,
 * unless BAGNOLD_COMMIT names another (a binary carried to another machine). */
const char *lab_commit(void) {
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
  if (!lab_marker[0]) return;
  if (rename(lab_marker, to) != 0) marker_append(to, "");
  marker_append(to, msg);
  lab_marker[0] = 0;
}

_Noreturn void lab_die(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "error: %s\n", msg);
  if (lab_marker[0]) {
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
  lab_die("%s", msg);
  abort(); /* die does not return */
}

void bg_lab_check(bg_status s, bg_sim *sim, const char *what) {
  if (s != BG_OK) bg_lab_fail("%s: %s", what, sim ? bg_sim_last_error(sim) : bg_status_str(s));
}

bg_sim *bg_lab_create_sim(bg_lab *lab, bg_sim_desc *d) {
  d->backend = bg_lab_backend(lab);
  d->threads = bg_lab_threads(lab);
  char err[512];
  bg_sim *sim = NULL;
  if (bg_sim_create(d, &sim, err, sizeof err) != BG_OK) bg_lab_fail("bg_sim_create: %s", err);
  return sim;
}

void *bg_lab_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) bg_lab_fail("out of memory (%zu bytes)", n);
  return p;
}

static void on_signal(int sig) {
  if (g_in_write) {
    g_pending_signal = sig; /* the write finishes first, then the run stops */
    return;
  }
  mark_folder(g_interrupted,
              sig == SIGINT ? "interrupted by SIGINT\n" : "interrupted by SIGTERM\n");
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
      lab_die("writing %s: %s", o->final, strerror(e));
    }
    done += (size_t)k;
  }
  g_in_write = 0;
  if (g_pending_signal) on_signal(g_pending_signal);
  return (ssize_t)n;
}

static int of_close(void *cookie) {
  out_file *o = cookie;
  if (close(o->fd) != 0) lab_die("closing %s: %s", o->final, strerror(errno));
  if (rename(o->tmp, o->final) != 0)
    lab_die("renaming %s to %s: %s", o->tmp, o->final, strerror(errno));
  free(o);
  return 0;
}

void lab_add_file(bg_lab *lab, const char *file) {
  for (int i = 0; i < lab->n_files; ++i)
    if (!strcmp(lab->files[i], file)) return;
  if (lab->n_files == MAX_FILES) lab_die("more than %d output files in one run", MAX_FILES);
  lab->files[lab->n_files] = strdup(file);
  if (!lab->files[lab->n_files]) lab_die("out of memory");
  lab->n_files++;
}

/* OUT/file opened for writing through the checked cookie. */
FILE *lab_open_output(bg_lab *lab, const char *file) {
  out_file *o = calloc(1, sizeof *o);
  if (!o) lab_die("out of memory");
  if (snprintf(o->final, sizeof o->final, "%s/%s", lab->out, file) >= (int)sizeof o->final)
    lab_die("output path %s/%s is too long", lab->out, file);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp", o->final);
  o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (o->fd < 0) lab_die("cannot write %s: %s", o->tmp, strerror(errno));
  cookie_io_functions_t io = {NULL, of_write, NULL, of_close};
  FILE *fp = fopencookie(o, "w", io);
  if (!fp) lab_die("cannot write %s: %s", o->final, strerror(errno));
  lab_add_file(lab, file);
  return fp;
}

/* fclose with the error turned into an exit: a stream's buffered tail is
 * written here, and ferror catches a failed fprintf that wrote nothing */
void lab_close_output(FILE *fp, const char *what) {
  if (ferror(fp)) lab_die("writing %s failed", what);
  if (fclose(fp) != 0) lab_die("closing %s: %s", what, strerror(errno));
}

/* mkdir -p */
int lab_make_dirs(const char *path) {
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

/* data into path, through a temporary file renamed into place: a file that
 * is there is whole. Every call checked (exit 2 naming the path). */
void lab_write_whole(const char *path, const void *data, size_t len) {
  char tmp[1500];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) lab_die("cannot write %s: %s", tmp, strerror(errno));
  size_t done = 0;
  while (done < len) {
    ssize_t k = write(fd, (const char *)data + done, len - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) lab_die("writing %s: %s", tmp, strerror(errno));
    done += (size_t)k;
  }
  if (close(fd) != 0) lab_die("closing %s: %s", tmp, strerror(errno));
  if (rename(tmp, path) != 0) lab_die("renaming %s to %s: %s", tmp, path, strerror(errno));
}

/* The text of a small file (at most cap - 1 bytes), or NULL when it cannot
 * be opened (errno says why); a longer file is an error. */
char *lab_read_small(const char *path, char *buf, size_t cap) {
  FILE *fp = fopen(path, "r");
  if (!fp) return NULL;
  size_t n = fread(buf, 1, cap - 1, fp);
  int bad = ferror(fp) || (n == cap - 1 && fgetc(fp) != EOF);
  fclose(fp);
  if (bad) lab_die("%s: unreadable or longer than %zu bytes", path, cap - 1);
  buf[n] = 0;
  return buf;
}

/* Splits a line at tabs in place, keeping empty fields; returns the count. */
int lab_split_tabs(char *line, char **f, int max) {
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

/* exit() while RUNNING is still there: an experiment ended the run by
 * itself after the folder was prepared (an option checked late). The folder
 * says FAILED, not RUNNING, so no one waits for it. */
static void marker_at_exit(void) {
  mark_folder(g_failed, "error: the run exited before it finished (its stderr says why)\n");
}

void lab_start_marker(bg_lab *lab) {
  static int registered;
  if (!registered++) atexit(marker_at_exit);
  snprintf(lab_marker, sizeof lab_marker, "%s/RUNNING", lab->out);
  snprintf(g_failed, sizeof g_failed, "%s/FAILED", lab->out);
  snprintf(g_interrupted, sizeof g_interrupted, "%s/INTERRUPTED", lab->out);
  char msg[2300];
  snprintf(msg, sizeof msg, "%s\npid %ld\n", lab->argv_line, (long)getpid());
  marker_append(lab_marker, msg);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* past a file-size limit write() then fails with EFBIG, which is reported */
  signal(SIGXFSZ, SIG_IGN);
}

void lab_end_marker(void) {
  if (lab_marker[0] && unlink(lab_marker) != 0)
    lab_die("removing %s: %s", lab_marker, strerror(errno));
  lab_marker[0] = 0;
}

/* ------------------------------------------------------------- run folder */

/* What a run writes into its folder; --force clears exactly these. */
static int is_run_file(const char *f) {
  static const char *exact[] = {"RUNNING",   "FAILED",    "INTERRUPTED",
                                "sweep.txt", "point.txt", "result.bin"};
  static const char *ext[] = {".tsv", ".json", ".vtk", ".vtu", ".pvd", ".ply", ".tmp"};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; ++i)
    if (!strcmp(f, exact[i])) return 1;
  /* the contact split's scratch state (bg_contact.h), left behind by an interrupted run */
  if (!strncmp(f, ".split-", 7)) return 1;
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

static void scan_subdir(const char *path, const char *name, int clear, int keep, char *foreign,
                        size_t nf);

/* points/ of a sweep: one folder per point, named by its number, holding a
 * run's files and subfolders. *foreign gets the first entry that is not a
 * run's; with clear, everything of it is removed, and the folder itself. */
static void scan_points(const char *path, int clear, char *foreign, size_t nf) {
  DIR *d = opendir(path);
  if (!d) lab_die("--out: cannot list %s: %s", path, strerror(errno));
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
    if (!kd) lab_die("--out: cannot list %s: %s", kp, strerror(errno));
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
        lab_die("--force: cannot remove %s: %s", fp, strerror(errno));
      }
    }
    closedir(kd);
    if (clear && rmdir(kp) != 0) lab_die("--force: cannot remove %s: %s", kp, strerror(errno));
  }
  closedir(d);
  if (clear && rmdir(path) != 0) lab_die("--force: cannot remove %s: %s", path, strerror(errno));
}

static int is_subdir_file(const char *dir, const char *f) {
  size_t n = strlen(f);
  const char *ext = strrchr(f, '.');
  if (!ext || ext == f) return 0;
  if (!strcmp(ext, ".tmp")) return 1;
  if (!strcmp(dir, "checkpoints")) return !strcmp(ext, ".bgck") || !strcmp(f, "run.txt") || !strcmp(f, "services.txt");
  /* a sweep driver's (scripts/sweep): point and Slurm logs, job scripts, job ids */
  if (!strcmp(dir, "logs"))
    return !strcmp(ext, ".log") || !strcmp(ext, ".sh") || !strcmp(ext, ".txt");
  return n > 4 && (!strcmp(ext, ".vtu") || !strcmp(ext, ".pvd"));
}

/* A run subfolder: *foreign gets the first entry that is not a run's; with
 * clear, its files are removed (only the .tmp ones when keep) and, unless
 * keep, the folder itself. */
static void scan_subdir(const char *path, const char *name, int clear, int keep, char *foreign,
                        size_t nf) {
  DIR *d = opendir(path);
  if (!d) lab_die("--out: cannot list %s: %s", path, strerror(errno));
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
    if (clear && (!keep || is_tmp) && unlink(fp) != 0)
      lab_die("--force: cannot remove %s: %s", fp, strerror(errno));
  }
  closedir(d);
  if (clear && !keep && rmdir(path) != 0)
    lab_die("--force: cannot remove %s: %s", path, strerror(errno));
}

/* --out: created if missing; an existing one must be an empty, writable
 * directory, or with --force one that holds only a run's files, which are
 * removed, so that no file of an earlier run is left beside this one's.
 * A run resumed in place (--resume naming --out) keeps its checkpoints/ and
 * vtk/ (less any .tmp a killed write left) and has every other file of the
 * earlier run removed, as --force would. */
void lab_prepare_outdir(bg_lab *lab) {
  struct stat st;
  if (stat(lab->out, &st) != 0) {
    if (errno != ENOENT) lab_die("--out: %s: %s", lab->out, strerror(errno));
    if (lab_make_dirs(lab->out) != 0)
      lab_die("--out: cannot create directory %s: %s", lab->out, strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    lab_die("--out: %s exists and is not a directory", lab->out);
  }
  if (access(lab->out, W_OK | X_OK) != 0)
    lab_die("--out: %s is not writable: %s", lab->out, strerror(errno));
  int inplace = lab->resume_inplace || lab->phase == SW_GATHER;
  /* two passes: nothing is removed from a folder that will be refused */
  for (int pass = 0; pass < 2; ++pass) {
    DIR *d = opendir(lab->out);
    if (!d) lab_die("--out: cannot list %s: %s", lab->out, strerror(errno));
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
        lab_die("--force: cannot remove %s: %s", path, strerror(errno));
      }
    }
    closedir(d);
    if (pass == 1 || n == 0) break;
    if (!lab->force && !inplace) {
      /* a run that can go on is pointed at --resume before --force, which
       * would remove what it finished */
      char ck[1300], hint[1400] = "";
      snprintf(ck, sizeof ck, "%s/checkpoints/run.txt", lab->out);
      if (access(ck, F_OK) == 0)
        snprintf(hint, sizeof hint, "; --resume %s goes on with that run instead", lab->out);
      lab_die(
          "--out: %s is not empty (it holds %s%s): give --force to clear an earlier run's files, "
          "or another directory%s",
          lab->out, first, n > 1 ? ", ..." : "", hint);
    }
    if (foreign[0])
      lab_die(
          "--out: %s holds %s, which is not a run's file: %s clears only a run's files; clear it "
          "or choose "
          "another directory",
          lab->out, foreign, inplace ? "--resume in place" : "--force");
  }
}

FILE *bg_lab_tsv(bg_lab *lab, const char *file, const char *comment, const char *columns) {
  FILE *fp = lab_open_output(lab, file);
  /* one '#' provenance line, then a plain header that gnuplot's columnheader
   * and pandas.read_csv(comment='#') both take as the column names */
  if (comment && comment[0]) fprintf(fp, "# %s\n", comment);
  fprintf(fp, "%s\n", columns);
  return fp;
}

const char *bg_lab_output(bg_lab *lab, const char *file, char *path, size_t n) {
  if (snprintf(path, n, "%s/%s", lab->out, file) >= (int)n)
    lab_die("output path %s/%s is too long", lab->out, file);
  lab_add_file(lab, file);
  return path;
}
