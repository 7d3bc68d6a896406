/* test_checkpoint: bg_sim_save / bg_sim_load / bg_sim_restore.
 *
 * A collapsing sand column with a Coulomb collider, a node-SDF collider and
 * a sink (so every part of the state is exercised: sort order, parked
 * particles, tallies, colliders' node arrays) is run uninterrupted; then a
 * child process runs the same scene writing a checkpoint every few steps
 * and is killed with SIGKILL at a random moment; the last checkpoint it left
 * is loaded and run on, and every field must equal the uninterrupted run's
 * bit for bit on a backend that repeats itself (the CPU; CUDA's atomics
 * do not, and there the continuation is held to the run-to-run spread).
 * Everywhere the state right after a load is bitwise the state saved. Damaged files (a flipped
 * byte, a truncation, another version, another descriptor) must give their named error and leave
 * the simulation as it was. argv[1]: the backend; argv[2]: an optional seed for the kill. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bagnold.h"
#include "../src/bg_sha256.h" /* to re-seal a rewritten file */
#include "bg_check.h"
#include "bg_test_backend.h"

#define N_STEPS 160
#define EVERY 9
#define NX 28

static const char *backend = "auto";
static bg_real phi_nodes[NX * NX * NX];

static bg_sim_desc scene_desc(bg_collider col[2], bg_sink *sink) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = NX;
  d.dx = 0.01f;
  d.backend = backend;
  d.threads = 2;
  d.sort_interval = 8;
  memset(col, 0, 2 * sizeof *col);
  /* a rough floor plane under the column */
  col[0].shape = BG_SHAPE_HALFSPACE;
  col[0].point[2] = 0.045f;
  col[0].normal[2] = 1.0f;
  col[0].friction = BG_FRICTION_COULOMB;
  col[0].mu = 0.5f;
  /* a wall along x as a signed-distance field on the nodes */
  for (int i = 0; i < NX; ++i)
    for (int j = 0; j < NX; ++j)
      for (int k = 0; k < NX; ++k) phi_nodes[(i * NX + j) * NX + k] = (bg_real)(0.235 - i * 0.01);
  col[1].shape = BG_SHAPE_NODES;
  col[1].phi = phi_nodes;
  col[1].friction = BG_FRICTION_SLIP;
  d.colliders = col;
  d.n_colliders = 2;
  /* a sink the thrown column reaches: parks particles mid-run */
  memset(sink, 0, sizeof *sink);
  sink->lo[0] = 0.15f, sink->hi[0] = 0.3f;
  sink->lo[1] = 0.0f, sink->hi[1] = 0.3f;
  sink->lo[2] = 0.0f, sink->hi[2] = 0.07f;
  d.sinks = sink;
  d.n_sinks = 1;
  return d;
}

static bg_sim *make_scene(void) {
  bg_collider col[2];
  bg_sink sink;
  bg_sim_desc d = scene_desc(col, &sink);
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create: %s\n", err);
    exit(1);
  }
  /* a column 6 x 10 x 12 cells at 2 particles per axis, jittered so the
   * sort has work to do */
  size_t n = 0, cap = 12 * 20 * 24;
  bg_real *x = malloc(3 * cap * sizeof *x), *v = calloc(3 * cap, sizeof *v);
  unsigned r = 12345;
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 20; ++j)
      for (int k = 0; k < 24; ++k) {
        r = r * 1103515245u + 12345u;
        bg_real jit = (bg_real)((r >> 16) & 1023) / 1023.0f * 0.001f;
        x[3 * n] = 0.05f + 0.0025f + 0.005f * i + jit;
        x[3 * n + 1] = 0.04f + 0.0025f + 0.005f * j;
        x[3 * n + 2] = 0.05f + 0.0025f + 0.005f * k;
        v[3 * n] = 1.5f; /* thrown toward the sink and the wall */
        n++;
      }
  bg_status s = bg_sim_add_particles(sim, n, x, v, 8);
  free(x);
  free(v);
  if (s != BG_OK) {
    printf("FAIL: add: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  return sim;
}

/* Every field plus the clock and tallies, for a bitwise comparison. */
typedef struct snap {
  size_t n;
  bg_real *f[BG_FIELD_COUNT];
  bg_stats st;
  double sink;
  double imp[3 * 8], force[3 * 8]; /* 2 colliders + 6 faces */
} snap;

static snap take(bg_sim *sim) {
  snap s;
  memset(&s, 0, sizeof s);
  bg_sim_stats(sim, &s.st);
  s.n = s.st.n_particles;
  for (int f = 0; f < BG_FIELD_COUNT; ++f) {
    size_t w = (size_t)bg_field_width((bg_field)f) * s.n;
    s.f[f] = malloc((w ? w : 1) * sizeof(bg_real));
    if (bg_sim_get(sim, (bg_field)f, s.f[f], w) != BG_OK)
      printf("FAIL: get field %d: %s\n", f, bg_sim_last_error(sim));
  }
  bg_sim_sink_mass(sim, &s.sink, 1);
  bg_sim_wall_impulses(sim, s.imp, 24);
  bg_sim_wall_forces(sim, s.force, 24);
  return s;
}

static void drop(snap *s) {
  for (int f = 0; f < BG_FIELD_COUNT; ++f) free(s->f[f]);
}

static int same(const snap *a, const snap *b, const char *what) {
  int ok = a->n == b->n && a->st.step == b->st.step && a->st.time == b->st.time &&
           a->st.dt == b->st.dt && a->st.n_active == b->st.n_active &&
           a->st.parked_mass == b->st.parked_mass && a->st.total_mass == b->st.total_mass &&
           a->st.max_speed == b->st.max_speed && a->sink == b->sink &&
           !memcmp(a->imp, b->imp, sizeof a->imp) && !memcmp(a->force, b->force, sizeof a->force);
  int bad_field = -1;
  for (int f = 0; ok && f < BG_FIELD_COUNT; ++f)
    if (memcmp(a->f[f], b->f[f], (size_t)bg_field_width((bg_field)f) * a->n * sizeof(bg_real))) {
      ok = 0;
      bad_field = f;
    }
  return bg_check_true(
      ok,
      "%s: bit-identical to the uninterrupted run (step %llu vs %llu, t %.9g vs %.9g, first "
      "differing field %d)",
      what, (unsigned long long)a->st.step, (unsigned long long)b->st.step, a->st.time, b->st.time,
      bad_field);
}

/* Largest position difference between two states, m. */
static double max_dx(const snap *a, const snap *b) {
  double d = 0;
  for (size_t k = 0; k < 3 * a->n; ++k)
    d = fmax(d, fabs((double)a->f[BG_FIELD_X][k] - b->f[BG_FIELD_X][k]));
  return d;
}

/* The state a backend stores, as read back: bitwise equal after a round
 * trip through a file on any backend. The derived fields (Jp, density,
 * stress) go through each backend's own expf and determinant, which differ
 * by an ulp between CPU and GPU, so they are held to 1e-6 relative. */
static int same_stored(const snap *a, const snap *b, const char *what) {
  static const bg_field stored[] = {BG_FIELD_X, BG_FIELD_V,    BG_FIELD_F,      BG_FIELD_C,
                                    BG_FIELD_Q, BG_FIELD_MASS, BG_FIELD_ACTIVE, BG_FIELD_MODE};
  int ok = a->n == b->n && a->st.step == b->st.step && a->st.time == b->st.time &&
           a->st.max_speed == b->st.max_speed && a->st.n_active == b->st.n_active &&
           !memcmp(a->imp, b->imp, sizeof a->imp);
  for (size_t i = 0; ok && i < sizeof stored / sizeof stored[0]; ++i)
    ok = !memcmp(a->f[stored[i]], b->f[stored[i]],
                 (size_t)bg_field_width(stored[i]) * a->n * sizeof(bg_real));
  double worst = 0;
  static const bg_field derived[] = {BG_FIELD_JP, BG_FIELD_DENSITY, BG_FIELD_STRESS};
  for (size_t i = 0; i < 3; ++i) {
    bg_field f = derived[i];
    double scale = 0;
    size_t m = (size_t)bg_field_width(f) * a->n;
    for (size_t k = 0; k < m; ++k) scale = fmax(scale, fabs((double)b->f[f][k]));
    for (size_t k = 0; k < m; ++k)
      worst = fmax(worst, fabs((double)a->f[f][k] - b->f[f][k]) / (scale > 0 ? scale : 1));
  }
  return bg_check_true(
      ok && worst <= 1e-6,
      "%s: the stored state equal bit for bit, Jp, density and stress within 1e-6 (worst %.3g)",
      what, worst);
}

static void run_to(bg_sim *sim, uint64_t steps) {
  bg_stats st;
  bg_sim_stats(sim, &st);
  for (uint64_t k = st.step; k < steps; ++k)
    if (bg_sim_step(sim, NULL) != BG_OK) {
      printf("FAIL: step: %s\n", bg_sim_last_error(sim));
      exit(1);
    }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The child: the scene, a checkpoint every EVERY steps with the step in
 * the user blob, until killed (or done). */
static void child(const char *path, int ready_fd) {
  bg_sim *sim = make_scene();
  for (uint64_t k = 1; k <= N_STEPS; ++k) {
    if (bg_sim_step(sim, NULL) != BG_OK) _exit(3);
    if (k % EVERY == 0 && bg_sim_save(sim, path, &k, sizeof k) != BG_OK) _exit(4);
    /* tell the parent a checkpoint exists: its kill comes after this */
    if (k == EVERY && write(ready_fd, "r", 1) != 1) _exit(5);
  }
  bg_sim_destroy(sim);
  _exit(0);
}

static int file_bytes(const char *path, unsigned char **buf, size_t *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  fseek(fp, 0, SEEK_END);
  *n = (size_t)ftell(fp);
  fseek(fp, 0, SEEK_SET);
  *buf = malloc(*n);
  size_t got = fread(*buf, 1, *n, fp);
  fclose(fp);
  return got == *n ? 0 : -1;
}

/* Rewrites the version word of checkpoint b (n bytes) in place, with its
 * checksum: version 6 differs from 5 only in a mesh body's geometry, so a
 * file without one is a version-5 file under the other number. */
static void set_version(unsigned char *b, size_t n, uint32_t version) {
  memcpy(b + 8, &version, 4);
  bg_sha256 h;
  bg_sha256_init(&h);
  bg_sha256_update(&h, b, n - 32);
  bg_sha256_final(&h, b + n - 32);
}

/* Rewrites a checkpoint b (n bytes) with no user blob in place into the
 * format version before it, when that version lacks only the count (8
 * bytes, 0 here) the newer one appends just before the user blob's length:
 * 5 -> 4 drops the body count (no rigid bodies), 4 -> 3 the source count
 * (no sources). Returns the new length. */
static size_t drop_last_count(unsigned char *b, size_t n, uint32_t version) {
  const size_t head = 8 + 4 + 4 * 6 + 8, at = n - 32 - 8 - 8;
  memmove(b + at, b + at + 8, 8);
  n -= 8;
  memcpy(b + 8, &version, 4);
  uint64_t payload;
  memcpy(&payload, b + head - 8, 8);
  payload -= 8;
  memcpy(b + head - 8, &payload, 8);
  bg_sha256 h;
  bg_sha256_init(&h);
  bg_sha256_update(&h, b, n - 32);
  bg_sha256_final(&h, b + n - 32);
  return n;
}

/* Rewrites the version-3 checkpoint b (n bytes) of a one-material
 * simulation with n_particles particles and no user blob in place into
 * version 2, which lacks the material table and index that version 3
 * appends after the wall tallies (just before the user blob's length);
 * returns the new length. */
static size_t to_version2(unsigned char *b, size_t n, size_t n_particles) {
  const size_t head = 8 + 4 + 4 * 6 + 8;
  const size_t section = 8 + sizeof(bg_material) + n_particles;
  const size_t at = n - 32 - 8 - section;
  memmove(b + at, b + at + section, 8);
  n -= section;
  const uint32_t version = 2;
  memcpy(b + 8, &version, 4);
  uint64_t payload;
  memcpy(&payload, b + head - 8, 8);
  payload -= section;
  memcpy(b + head - 8, &payload, 8);
  bg_sha256 h;
  bg_sha256_init(&h);
  bg_sha256_update(&h, b, n - 32);
  bg_sha256_final(&h, b + n - 32);
  return n;
}

/* Rewrites the version-2 checkpoint b (n bytes) in place into version 1,
 * where the descriptor held the retired cpu_reference (an int32, set to 1
 * here) in place of the backend and properties strings; returns the new
 * length. Offsets follow checkpoint.c's header and put_desc. */
static size_t to_version1(unsigned char *b, size_t n) {
  const size_t head = 8 + 4 + 4 * 6 + 8;
  const size_t at = head + 3 * 8 + 4 + 12 + 12 + sizeof(bg_material) + BG_FACE_COUNT * 8 + 5 * 4;
  uint32_t l1, l2;
  memcpy(&l1, b + at, 4);
  memcpy(&l2, b + at + 4 + l1, 4);
  const size_t strings = 4 + (size_t)l1 + 4 + (size_t)l2;
  const int32_t cpu_reference = 1;
  memmove(b + at + 4, b + at + strings, n - at - strings);
  memcpy(b + at, &cpu_reference, 4);
  n -= strings - 4;
  const uint32_t version = 1;
  memcpy(b + 8, &version, 4);
  uint64_t payload;
  memcpy(&payload, b + head - 8, 8);
  payload -= strings - 4;
  memcpy(b + head - 8, &payload, 8);
  bg_sha256 h;
  bg_sha256_init(&h);
  bg_sha256_update(&h, b, n - 32);
  bg_sha256_final(&h, b + n - 32);
  return n;
}

/* Rewrites the version-1 checkpoint b (n bytes) in place as a build whose
 * material struct ended before dp's cohesion and beta (appended in issue
 * 33) would have written it: the descriptor's material shrinks to
 * `size` bytes and the header's layout word says so; returns the new length. */
static size_t to_smaller_material(unsigned char *b, size_t n, size_t size) {
  const size_t head = 8 + 4 + 4 * 6 + 8;
  const size_t at = head + 3 * 8 + 4 + 12 + 12 + size, cut = sizeof(bg_material) - size;
  memmove(b + at, b + at + cut, n - at - cut);
  n -= cut;
  const uint32_t word = (uint32_t)size;
  memcpy(b + 8 + 4 + 4 * 4, &word, 4);
  uint64_t payload;
  memcpy(&payload, b + head - 8, 8);
  payload -= cut;
  memcpy(b + head - 8, &payload, 8);
  bg_sha256 h;
  bg_sha256_init(&h);
  bg_sha256_update(&h, b, n - 32);
  bg_sha256_final(&h, b + n - 32);
  return n;
}

static void put_file(const char *path, const unsigned char *buf, size_t n) {
  FILE *fp = fopen(path, "wb");
  fwrite(buf, 1, n, fp);
  fclose(fp);
}

int main(int argc, char **argv) {
  if (argc > 1) backend = argv[1];
  /* the child re-executes this program: OpenMP's runtime does not survive a
   * plain fork once its threads exist */
  if (argc == 5 && strcmp(argv[2], "--child") == 0) child(argv[3], atoi(argv[4]));
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  unsigned seed =
      argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
  printf("seed %u (rerun with: test_checkpoint %s %u)\n", seed, backend, seed);
  srand(seed);
  char dir[] = "/tmp/bg_ckpt_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char path[256], bad[256];
  snprintf(path, sizeof path, "%s/run.bgck", dir);
  snprintf(bad, sizeof bad, "%s/bad.bgck", dir);

  /* the run nothing interrupts */
  double t0 = now();
  bg_sim *ref_sim = make_scene();
  run_to(ref_sim, N_STEPS);
  double t_run = now() - t0;
  snap ref = take(ref_sim);
  bg_check_true(ref.st.n_parked_sink > 0 && ref.st.n_parked_sink < ref.n,
                "the scene parks some particles in its sink (%zu of %zu) before the end",
                ref.st.n_parked_sink, ref.n);

  /* kill a checkpointing child at a random moment after its first save */
  double t_first = t_run * EVERY / N_STEPS;
  double delay = (t_run - t_first) * (rand() / (double)RAND_MAX) * 0.9;
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    return 1;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", fds[1]);
    execl(argv[0], argv[0], backend, "--child", path, fd, (char *)NULL);
    _exit(6);
  }
  close(fds[1]);
  char ready;
  if (read(fds[0], &ready, 1) != 1) printf("note: the child ended before its first checkpoint\n");
  close(fds[0]);
  struct timespec ts = {(time_t)delay, (long)((delay - (time_t)delay) * 1e9)};
  nanosleep(&ts, NULL);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  int killed = WIFSIGNALED(status);
  printf("child %s %.3f s after its first checkpoint (uninterrupted run %.3f s)\n",
         killed ? "killed" : "finished first", delay, t_run);
  struct stat sb;
  if (!bg_check_true(stat(path, &sb) == 0, "the killed run left a checkpoint at %s", path))
    return bg_check_summary();
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  remove(tmp); /* a save the kill cut short lives only under .tmp */

  /* resume by loading: a new simulation from the file */
  bg_sim *res = NULL;
  char err[512];
  bg_status s = bg_sim_load(path, backend, 2, &res, err, sizeof err);
  if (!bg_check_true(s == BG_OK, "bg_sim_load of the killed run's checkpoint (%s)", err))
    return bg_check_summary();
  bg_stats st;
  bg_sim_stats(res, &st);
  printf("resuming at step %llu of %d\n", (unsigned long long)st.step, N_STEPS);
  bg_check_true(st.step > 0 && st.step % EVERY == 0,
                "the checkpoint is at a multiple of %d steps (step %llu)", EVERY,
                (unsigned long long)st.step);
  run_to(res, N_STEPS);
  snap got = take(res);
  /* A backend whose P2G sums in a fixed order (the CPU) repeats itself bit
   * for bit, and then so must a continuation. One summing with atomics in
   * the order the hardware picks (CUDA) does not even repeat an
   * uninterrupted run; its continuation is held to what a second
   * uninterrupted run differs by (up to 4x, as in test_parity). */
  bg_sim *again = make_scene();
  run_to(again, N_STEPS);
  snap ref2 = take(again);
  bg_sim_destroy(again);
  int deterministic =
      memcmp(ref.f[BG_FIELD_X], ref2.f[BG_FIELD_X], 3 * ref.n * sizeof(bg_real)) == 0;
  double d_runs = max_dx(&ref2, &ref);
  printf("backend %s: two uninterrupted runs differ by %.3g m at most (%s)\n", backend, d_runs,
         deterministic ? "deterministic" : "not bitwise repeatable");
  if (bg_test_backend_on_host(backend))
    bg_check_true(deterministic, "the host backend %s repeats an uninterrupted run bit for bit", backend);
  if (deterministic)
    same(&got, &ref, "loaded and continued");
  else
    bg_check_le(max_dx(&got, &ref), 4 * d_runs,
                "loaded and continued: within 4x the run-to-run difference of positions (m)");

  /* resume by restoring into a simulation made from the same descriptor,
   * with the user blob carrying the step it was written at */
  bg_sim *into = make_scene();
  uint64_t blob = 0;
  size_t blob_len = 0;
  s = bg_sim_restore(into, path, &blob, sizeof blob, &blob_len);
  bg_check_true(s == BG_OK, "bg_sim_restore (%s)", bg_sim_last_error(into));
  bg_check_true(blob_len == sizeof blob && blob == st.step,
                "the user blob comes back (%llu, %zu bytes)", (unsigned long long)blob, blob_len);
  run_to(into, N_STEPS);
  drop(&got);
  got = take(into);
  if (deterministic)
    same(&got, &ref, "restored and continued");
  else
    bg_check_le(max_dx(&got, &ref), 4 * d_runs,
                "restored and continued: within 4x the run-to-run difference of positions (m)");
  drop(&got);
  drop(&ref2);

  /* the round trip itself is exact on every backend: the state right after
   * a load is the state that was saved */
  {
    bg_sim *a = make_scene();
    run_to(a, 2 * EVERY + 3);
    snap sa = take(a);
    char rt[300];
    snprintf(rt, sizeof rt, "%s/roundtrip.bgck", dir);
    bg_check_true(bg_sim_save(a, rt, NULL, 0) == BG_OK, "a save mid-run (%s)",
                  bg_sim_last_error(a));
    bg_sim *b = NULL;
    bg_sim_load(rt, backend, 2, &b, err, sizeof err);
    snap sl = take(b);
    same(&sl, &sa, "the state right after a load");
    /* files of format versions 5 (no mesh bodies), 4 (no bodies), 3 (no
     * sources), 2 (no material table) and 1 (its cpu_reference ignored)
     * still load */
    unsigned char *v1 = NULL;
    size_t n1 = 0;
    bg_sim *c = NULL;
    if (bg_check_true(file_bytes(rt, &v1, &n1) == 0 && n1 > 200, "read back %s", rt)) {
      set_version(v1, n1, 5);
      put_file(rt, v1, n1);
      bg_status s5 = bg_sim_load(rt, backend, 2, &c, err, sizeof err);
      if (bg_check_true(s5 == BG_OK && c, "a version-5 checkpoint loads (%s: %s)", bg_status_name(s5), err)) {
        snap s5v = take(c);
        same(&s5v, &sa, "the state right after loading the version-5 file");
        drop(&s5v);
      }
      bg_sim_destroy(c);
      c = NULL;
      n1 = drop_last_count(v1, n1, 4);
      put_file(rt, v1, n1);
      bg_status s4 = bg_sim_load(rt, backend, 2, &c, err, sizeof err);
      if (bg_check_true(s4 == BG_OK && c, "a version-4 checkpoint loads (%s: %s)", bg_status_name(s4), err)) {
        snap s4v = take(c);
        same(&s4v, &sa, "the state right after loading the version-4 file");
        drop(&s4v);
      }
      bg_sim_destroy(c);
      c = NULL;
      n1 = drop_last_count(v1, n1, 3);
      put_file(rt, v1, n1);
      bg_status s3 = bg_sim_load(rt, backend, 2, &c, err, sizeof err);
      if (bg_check_true(s3 == BG_OK && c, "a version-3 checkpoint loads (%s: %s)", bg_status_name(s3), err)) {
        snap s3v = take(c);
        same(&s3v, &sa, "the state right after loading the version-3 file");
        drop(&s3v);
      }
      bg_sim_destroy(c);
      c = NULL;
      n1 = to_version2(v1, n1, sa.n);
      put_file(rt, v1, n1);
      bg_status s2 = bg_sim_load(rt, backend, 2, &c, err, sizeof err);
      if (bg_check_true(s2 == BG_OK && c, "a version-2 checkpoint loads (%s: %s)", bg_status_name(s2), err)) {
        snap s2v = take(c);
        same(&s2v, &sa, "the state right after loading the version-2 file");
        drop(&s2v);
      }
      bg_sim_destroy(c);
      c = NULL;
      n1 = to_version1(v1, n1);
      put_file(rt, v1, n1);
      bg_status s1 = bg_sim_load(rt, backend, 2, &c, err, sizeof err);
      if (bg_check_true(s1 == BG_OK && c, "a version-1 checkpoint loads (%s: %s)", bg_status_name(s1), err)) {
        snap s1v = take(c);
        same(&s1v, &sa, "the state right after loading the version-1 file");
        drop(&s1v);
      }
      bg_sim_destroy(c);
      c = NULL;
      /* and a file whose material struct predates dp's cohesion and beta:
       * they come back as the defaults (c 0, beta 1), the sand it was fed */
      n1 = to_smaller_material(v1, n1, offsetof(bg_material, dp) + offsetof(bg_dp_params, cohesion));
      put_file(rt, v1, n1);
      bg_status s0 = bg_sim_load(rt, backend, 2, &c, err, sizeof err);
      if (bg_check_true(s0 == BG_OK && c, "a file with a smaller material struct loads (%s: %s)",
                        bg_status_name(s0), err)) {
        snap s0v = take(c);
        same(&s0v, &sa, "the state right after loading the smaller-struct file");
        drop(&s0v);
        bg_sim_desc gd;
        bg_sim_describe(c, &gd);
        bg_check_true(gd.material.dp.cohesion == 0 && gd.material.dp.beta == 1,
                      "the appended fields take the model's defaults (cohesion %g, beta %g)",
                      (double)gd.material.dp.cohesion, (double)gd.material.dp.beta);
      }
    }
    free(v1);
    bg_sim_destroy(c);
    drop(&sa);
    drop(&sl);
    bg_sim_destroy(a);
    bg_sim_destroy(b);
    remove(rt);
  }

  bg_check_true(bg_checkpoint_verify(path, err, sizeof err) == BG_OK,
                "bg_checkpoint_verify passes the file bg_sim_save wrote (%s)", err);
  /* damaged files: each a named error, the simulation untouched */
  snap before = take(into);
  unsigned char *buf = NULL;
  size_t n = 0;
  file_bytes(path, &buf, &n);
  struct {
    const char *what;
    bg_status want;
  } cases[] = {{"a flipped byte in the particle data", BG_ERR_CORRUPT},
               {"a file cut short", BG_ERR_TRUNCATED},
               {"another format version", BG_ERR_VERSION},
               {"not a checkpoint", BG_ERR_CORRUPT},
               {"a trailing extra byte", BG_ERR_CORRUPT}};
  for (int c = 0; c < 5; ++c) {
    unsigned char *b = malloc(n + 1);
    memcpy(b, buf, n);
    size_t m = n;
    if (c == 0) b[n / 2 + (size_t)rand() % (n / 4)] ^= (unsigned char)(1u << (rand() % 8));
    if (c == 1) m = 40 + (size_t)rand() % (n - 41);
    if (c == 2) b[8] = (unsigned char)(BG_CHECKPOINT_VERSION + 1);
    if (c == 3) memcpy(b, "# vtk Da", 8);
    if (c == 4) b[m++] = 0;
    put_file(bad, b, m);
    free(b);
    s = bg_sim_restore(into, bad, NULL, 0, NULL);
    bg_check_true(s == cases[c].want, "%s: %s (got %s: %s)", cases[c].what,
                  bg_status_name(cases[c].want), bg_status_name(s), bg_sim_last_error(into));
    bg_sim *none = NULL;
    bg_status s2 = bg_sim_load(bad, backend, 2, &none, err, sizeof err);
    bg_check_true(s2 == cases[c].want && none == NULL, "%s: bg_sim_load says %s too (%s)",
                  cases[c].what, bg_status_name(s2), err);
    bg_status s3 = bg_checkpoint_verify(bad, err, sizeof err);
    bg_check_true(s3 == cases[c].want, "%s: bg_checkpoint_verify says %s too (%s)", cases[c].what,
                  bg_status_name(s3), err);
  }
  free(buf);
  got = take(into);
  same(&got, &before, "after five refused files the simulation");
  drop(&got);
  drop(&before);

  /* the wrong descriptor, a short user buffer, a missing file */
  {
    bg_collider col[2];
    bg_sink sink;
    bg_sim_desc d = scene_desc(col, &sink);
    d.walls[BG_FACE_ZLO].friction = BG_FRICTION_STICK;
    bg_sim *other = NULL;
    bg_sim_create(&d, &other, err, sizeof err);
    s = bg_sim_restore(other, path, NULL, 0, NULL);
    bg_check_true(s == BG_ERR_MISMATCH && strstr(bg_sim_last_error(other), "walls[4]"),
                  "a simulation with another floor: BG_ERR_MISMATCH naming walls[4] (%s)",
                  bg_sim_last_error(other));
    bg_sim_destroy(other);
    char small[4];
    s = bg_sim_restore(into, path, small, sizeof small, NULL);
    bg_check_true(s == BG_ERR_RANGE, "a user buffer smaller than the blob: BG_ERR_RANGE (%s)",
                  bg_sim_last_error(into));
    s = bg_sim_restore(into, "/nonexistent/x.bgck", NULL, 0, NULL);
    bg_check_true(s == BG_ERR_IO, "a missing file: BG_ERR_IO (%s)", bg_sim_last_error(into));
    s = bg_sim_save(into, "/nonexistent/dir/x.bgck", NULL, 0);
    bg_check_true(s == BG_ERR_IO, "saving into a missing directory: BG_ERR_IO (%s)",
                  bg_sim_last_error(into));
  }

  /* across backends: a checkpoint from here resumes on every other one */
  for (int i = 0; i < bg_backend_count(); ++i) {
    const char *other = bg_backend_name(i);
    if (strcmp(other, bg_sim_backend(ref_sim)) == 0) continue;
    if (!bg_backend_available(other, why, sizeof why)) {
      printf("note: backend %s not available (%s): the resume there is not checked here\n", other, why);
      continue;
    }
    bg_sim *x = NULL;
    s = bg_sim_load(path, other, 2, &x, err, sizeof err);
    if (bg_check_true(s == BG_OK, "the %s checkpoint loads on %s (%s)", backend, other, err)) {
      bg_sim *y = NULL;
      bg_sim_load(path, backend, 2, &y, err, sizeof err);
      snap a = take(x), b = take(y);
      same_stored(&a, &b, "loaded on the other backend, before a step,");
      run_to(x, N_STEPS);
      bg_stats sx;
      bg_sim_stats(x, &sx);
      bg_check_rel(sx.total_mass, ref.st.total_mass, 0,
                   "on %s the run continues to the end with the same mass", other);
      drop(&a);
      drop(&b);
      bg_sim_destroy(y);
    }
    bg_sim_destroy(x);
  }

  drop(&ref);
  bg_sim_destroy(ref_sim);
  bg_sim_destroy(res);
  bg_sim_destroy(into);
  remove(path);
  remove(bad);
  rmdir(dir);
  return bg_check_summary();
}
