/* test_vtu.c: the binary VTU writer and the .pvd series, as a C user meets
 * them. A small sand column collapses on the backend named by argv[1]; each
 * frame goes through bg_pvd_frame into OUT/series/collapse.pvd, and beside
 * it the same state from bg_sim_get is dumped raw (OUT/dump_NNNNNN.bin, one
 * field after another, native Float32) with OUT/dump.tsv naming frame, time
 * and particle count. core/tests/read_vtu.py (the ctest test_vtu.read)
 * then re-reads every file with an independent parser and compares.
 *
 * Checked here: the directory is created (two levels), the index lists the
 * frames on disk after every frame, a resumed series drops the frames at
 * and after the first new frame's time (their files too) and continues the
 * numbering, a corrupt index is refused, a write into a missing or
 * unwritable place is BG_ERR_IO naming the path, a zero-particle sim writes
 * a valid file (OUT/empty.vtu). Usage: test_vtu BACKEND OUTDIR. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"

#define N_FRAMES 6
#define FRAME_DT 0.02

/* the fields the dump holds, in its order */
static const bg_field k_dump[] = {BG_FIELD_X,      BG_FIELD_V,   BG_FIELD_F,       BG_FIELD_STRESS,
                                  BG_FIELD_Q,      BG_FIELD_JP,  BG_FIELD_DENSITY, BG_FIELD_MASS,
                                  BG_FIELD_ACTIVE, BG_FIELD_MODE, BG_FIELD_MATERIAL};

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* A column of Klar sand, 6 x 6 x 10 cells at ppc 8, on a slip floor in a
 * 20 x 20 x 16 grid: it slumps within a tenth of a second, so the frames
 * differ in every field (stress, plastic state, mode). */
static bg_sim *make_column(const char *backend) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = 20;
  d.dims[2] = 16;
  d.dx = 0.01f;
  d.backend = backend;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("bg_sim_create: %s\n", err);
    return NULL;
  }
  enum { NI = 12, NJ = 12, NK = 20 };
  static bg_real x[3 * NI * NJ * NK];
  size_t n = 0;
  for (int i = 0; i < NI; ++i)
    for (int j = 0; j < NJ; ++j)
      for (int k = 0; k < NK; ++k) {
        /* a deterministic sub-cell offset, so particles are not on a lattice */
        unsigned h = (unsigned)(i * 73856093) ^ (unsigned)(j * 19349663) ^ (unsigned)(k * 83492791);
        x[3 * n] = (bg_real)(0.07 + 0.005 * (i + 0.25 + 0.5 * (h % 97) / 97.0));
        x[3 * n + 1] = (bg_real)(0.07 + 0.005 * (j + 0.25 + 0.5 * (h % 89) / 89.0));
        x[3 * n + 2] = (bg_real)(0.005 + 0.005 * (k + 0.25 + 0.5 * (h % 83) / 83.0));
        n++;
      }
  if (bg_sim_add_particles(sim, n, x, NULL, 8) != BG_OK) {
    printf("bg_sim_add_particles: %s\n", bg_sim_last_error(sim));
    bg_sim_destroy(sim);
    return NULL;
  }
  return sim;
}

/* OUT/dump_NNNNNN.bin: every dumped field of every particle, raw */
static int dump_frame(bg_sim *sim, const char *out, int frame) {
  bg_stats st;
  if (bg_sim_stats(sim, &st) != BG_OK) return 0;
  size_t n = st.n_particles;
  bg_real *buf = malloc(9 * (n ? n : 1) * sizeof *buf);
  char path[1024];
  snprintf(path, sizeof path, "%s/dump_%06d.bin", out, frame);
  FILE *fp = fopen(path, "wb");
  int ok = buf && fp;
  for (size_t f = 0; ok && f < sizeof k_dump / sizeof k_dump[0]; ++f) {
    size_t w = (size_t)bg_field_width(k_dump[f]);
    ok = bg_sim_get(sim, k_dump[f], buf, w * n) == BG_OK &&
         fwrite(buf, sizeof *buf, w * n, fp) == w * n;
  }
  if (fp && fclose(fp) != 0) ok = 0;
  free(buf);
  return ok;
}

/* The dump index: one row per frame of the final series. */
static int write_dump_index(const char *out, const double *t, int n_frames, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dump.tsv", out);
  FILE *fp = fopen(path, "w");
  if (!fp) return 0;
  fprintf(fp, "frame\tt_s\tparticles\n");
  for (int f = 0; f < n_frames; ++f) fprintf(fp, "%d\t%.17g\t%zu\n", f, t[f], n);
  return fclose(fp) == 0;
}

static int frame(bg_pvd *p, bg_sim *sim, const char *out, int k, double *t) {
  if (bg_sim_advance_to(sim, k * FRAME_DT) != BG_OK) {
    printf("advance: %s\n", bg_sim_last_error(sim));
    return 0;
  }
  bg_stats st;
  bg_sim_stats(sim, &st);
  t[k] = st.time;
  bg_status s = bg_pvd_frame(p, sim);
  if (!bg_check_true(s == BG_OK, "frame %d at t %.3f written (%s)", k, st.time,
                     s == BG_OK ? "ok" : bg_pvd_last_error(p)))
    return 0;
  return bg_check_true(dump_frame(sim, out, k), "frame %d dumped from bg_sim_get", k);
}

static int index_has(const char *pvd, const char *needle) {
  FILE *fp = fopen(pvd, "r");
  if (!fp) return 0;
  char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = 0;
  return strstr(buf, needle) != NULL;
}

static int count_entries(const char *pvd) {
  FILE *fp = fopen(pvd, "r");
  if (!fp) return -1;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, fp)) n += strstr(line, "<DataSet ") != NULL;
  fclose(fp);
  return n;
}

static void check_errors(const char *out, const char *backend) {
  bg_sim *sim = make_column(backend);
  if (!sim) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/no_such_dir/particles.vtu", out);
  bg_status s = bg_sim_write_vtu(sim, path);
  const char *msg = bg_sim_last_error(sim);
  bg_check_true(s == BG_ERR_IO, "a VTU into a missing directory: BG_ERR_IO (got %s)",
                bg_status_name(s));
  bg_check_true(strstr(msg, "no_such_dir/particles.vtu.tmp") && strstr(msg, strerror(ENOENT)),
                "the message names the path and the system's error: %s", msg);
  bg_check_true(!exists(path), "no file under the final name");
  /* a directory where the series' directory should be a file */
  snprintf(path, sizeof path, "%s/a_file", out);
  FILE *fp = fopen(path, "w");
  if (fp) fclose(fp);
  bg_pvd *p = NULL;
  s = bg_pvd_open(path, "x", 0, &p);
  bg_check_true(s == BG_ERR_IO && !p, "a series directory that is a file: BG_ERR_IO (got %s)",
                bg_status_name(s));
  bg_check_true(strstr(bg_pvd_last_error(NULL), "a_file") != NULL,
                "bg_pvd_last_error(NULL) names it: %s", bg_pvd_last_error(NULL));
  s = bg_pvd_open(out, "a/b", 0, &p);
  bg_check_true(s == BG_ERR_RANGE && !p, "a prefix with '/': BG_ERR_RANGE (got %s)",
                bg_status_name(s));
  /* an index that is not ours is refused on resume, never overwritten */
  snprintf(path, sizeof path, "%s/bad.pvd", out);
  fp = fopen(path, "w");
  if (fp) {
    fputs(
        "<VTKFile type=\"Collection\"><Collection><DataSet timestep=\"0\" file=\"other_1.vtu\"/>"
        "</Collection></VTKFile>\n",
        fp);
    fclose(fp);
  }
  s = bg_pvd_open(out, "bad", 1, &p);
  bg_check_true(s == BG_ERR_CORRUPT && !p,
                "a resumed index naming another series' file: BG_ERR_CORRUPT (got %s: %s)",
                bg_status_name(s), bg_pvd_last_error(NULL));
  /* an unwritable directory (root ignores permissions: skipped then) */
  snprintf(path, sizeof path, "%s/ro", out);
  mkdir(path, 0555);
  if (access(path, W_OK) != 0) {
    s = bg_pvd_open(path, "x", 0, &p);
    bg_check_true(s == BG_OK, "a read-only directory opens (nothing is written yet)");
    if (s == BG_OK) {
      s = bg_pvd_frame(p, sim);
      bg_check_true(s == BG_ERR_IO && strstr(bg_pvd_last_error(p), "ro/x_000000.vtu"),
                    "a frame into a read-only directory: BG_ERR_IO naming the file (%s)",
                    bg_pvd_last_error(p));
      bg_pvd_close(p);
    }
  }
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "auto";
  if (argc < 3) {
    printf("usage: test_vtu BACKEND OUTDIR\n");
    return 2;
  }
  const char *out = argv[2];
  char why[256] = "";
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("backend %s unavailable: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
  if (system(cmd) != 0) {
    bg_check_true(0, "clear %s", out);
    return bg_check_summary();
  }
  char dir[1100], pvd[1200], f[1200];
  snprintf(dir, sizeof dir, "%s/series/frames", out);
  snprintf(pvd, sizeof pvd, "%s/collapse.pvd", dir);

  /* a zero-particle sim: a valid, empty file */
  {
    bg_sim_desc d = bg_sim_desc_default();
    d.dims[0] = d.dims[1] = d.dims[2] = 8;
    d.backend = backend;
    bg_sim *e = NULL;
    char err[256];
    if (bg_sim_create(&d, &e, err, sizeof err) == BG_OK) {
      snprintf(f, sizeof f, "%s/empty.vtu", out);
      bg_check_true(bg_sim_write_vtu(e, f) == BG_OK, "a VTU of 0 particles");
      bg_sim_destroy(e);
    }
  }

  bg_sim *sim = make_column(backend);
  if (!sim) return bg_check_summary();
  double t[N_FRAMES];
  bg_pvd *p = NULL;
  bg_status s = bg_pvd_open(dir, "collapse", 0, &p);
  bg_check_true(s == BG_OK, "bg_pvd_open creates %s (%s)", dir,
                s == BG_OK ? "" : bg_pvd_last_error(NULL));
  if (s != BG_OK) return bg_check_summary();
  for (int k = 0; k < N_FRAMES; ++k) {
    if (!frame(p, sim, out, k, t)) return bg_check_summary();
    bg_check_true(count_entries(pvd) == k + 1, "after frame %d the index lists %d frames", k,
                  k + 1);
  }
  bg_pvd_close(p);
  bg_sim_destroy(sim);

  /* a restart from t = 2 dt: frames 2.. are rewritten, numbering continues
   * from 2 and the old frames 3.. vanish until they are written again */
  sim = make_column(backend);
  if (!sim) return bg_check_summary();
  s = bg_pvd_open(dir, "collapse", 1, &p);
  bg_check_true(s == BG_OK, "resume: bg_pvd_open reads the index (%s)",
                s == BG_OK ? "" : bg_pvd_last_error(NULL));
  if (s != BG_OK) return bg_check_summary();
  if (!frame(p, sim, out, 2, t)) return bg_check_summary();
  bg_check_true(count_entries(pvd) == 3, "resume: frames 0, 1 kept and the new frame 2 listed (%d)",
                count_entries(pvd));
  bg_check_true(index_has(pvd, "file=\"collapse_000002.vtu\""),
                "resume: the new frame is number 2");
  snprintf(f, sizeof f, "%s/collapse_000004.vtu", dir);
  bg_check_true(!exists(f), "resume: a dropped frame's file is removed");
  for (int k = 3; k < N_FRAMES; ++k)
    if (!frame(p, sim, out, k, t)) return bg_check_summary();
  bg_pvd_close(p);
  bg_stats st;
  bg_sim_stats(sim, &st);
  bg_check_true(write_dump_index(out, t, N_FRAMES, st.n_particles), "dump.tsv written");
  bg_sim_destroy(sim);
  snprintf(f, sizeof f, "%s/collapse.pvd.tmp", dir);
  bg_check_true(!exists(f), "no index .tmp left behind");

  check_errors(out, backend);
  return bg_check_summary();
}
