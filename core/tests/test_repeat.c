/* test_repeat: a run repeats itself bit for bit, and so does its
 * checkpointed continuation.
 *
 * A sand column collapsing on a Coulomb floor (particles drift out of
 * their sorted blocks between sorts, so every path of the scatter runs)
 * is run twice from the same start, and a third time to half way, saved,
 * restored into a fresh simulation and run on; every field of all three
 * must be equal bit for bit. A host backend does so as it is (its sums
 * follow the particle order alone); a device backend is run with its
 * property deterministic=1 (the grid summed in 64-bit fixed point), and
 * with the default (float atomics) the spread between two runs is printed
 * beside it, not judged. argv[1]: the backend. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_test_scene.h"
#include "bg_test_backend.h"

#define N_STEPS 120
#define NX 32

static const char *backend = "cpu";

static bg_sim *make(const char *props) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = NX;
  d.dx = 0.01f;
  d.backend = backend;
  d.threads = 2;
  d.sort_interval = 8;
  d.properties = props;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create (%s, properties '%s'): %s\n", backend, props ? props : "", err);
    exit(1);
  }
  (void)bg_test_column(sim, 0.1, 0.16);
  return sim;
}

static void run_to(bg_sim *sim, uint64_t step) {
  bg_stats st;
  bg_sim_stats(sim, &st);
  if (step > st.step && bg_sim_run(sim, step - st.step) != BG_OK) {
    printf("FAIL: bg_sim_run: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
}

static const bg_field FIELDS[] = {BG_FIELD_X, BG_FIELD_V, BG_FIELD_F, BG_FIELD_C, BG_FIELD_JP, BG_FIELD_Q};
static const char *NAMES[] = {"x", "v", "F", "C", "Jp", "q"};
#define NF (sizeof FIELDS / sizeof FIELDS[0])

/* Values of field f that differ bitwise between a and b, and their largest
 * absolute difference. */
static size_t differ(bg_sim *a, bg_sim *b, bg_field f, double *maxdiff) {
  bg_stats st;
  bg_sim_stats(a, &st);
  size_t m = st.n_particles * (size_t)bg_field_width(f);
  bg_real *va = malloc(m * sizeof *va), *vb = malloc(m * sizeof *vb);
  bg_sim_get(a, f, va, m);
  bg_sim_get(b, f, vb, m);
  size_t nd = 0;
  *maxdiff = 0;
  for (size_t i = 0; i < m; ++i)
    if (memcmp(&va[i], &vb[i], sizeof va[i]) != 0) {
      ++nd;
      *maxdiff = fmax(*maxdiff, fabs((double)va[i] - vb[i]));
    }
  free(va);
  free(vb);
  return nd;
}

static void same(bg_sim *a, bg_sim *b, const char *what) {
  for (size_t k = 0; k < NF; ++k) {
    double md;
    size_t nd = differ(a, b, FIELDS[k], &md);
    bg_check_true(nd == 0, "%s: field %s bit for bit (%zu values differ, by at most %.3g)", what, NAMES[k], nd, md);
  }
  bg_stats sa, sb;
  bg_sim_stats(a, &sa);
  bg_sim_stats(b, &sb);
  bg_check_true(sa.step == sb.step && sa.time == sb.time, "%s: the same step and clock (%llu, %.17g s / %llu, %.17g s)",
                what, (unsigned long long)sa.step, sa.time, (unsigned long long)sb.step, sb.time);
}

int main(int argc, char **argv) {
  if (argc > 1) backend = argv[1];
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  const int host = bg_test_backend_on_host(backend);
  const char *props = host ? NULL : "deterministic=1";
  printf("backend %s%s%s\n", backend, props ? ", properties " : "", props ? props : "");

  bg_sim *a = make(props), *b = make(props);
  run_to(a, N_STEPS);
  run_to(b, N_STEPS);
  bg_stats st;
  bg_sim_stats(a, &st);
  bg_check_true(st.max_speed > 0.05, "the column is still moving at step %d (%.3g m/s): the runs are not at rest",
                N_STEPS, st.max_speed);
  same(a, b, "two runs");

  /* half way, saved, restored into a fresh simulation, run on */
  char path[] = "/tmp/bg_repeat_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  bg_sim *c = make(props);
  run_to(c, N_STEPS / 2);
  bg_check_true(bg_sim_save(c, path, NULL, 0) == BG_OK, "bg_sim_save at step %d", N_STEPS / 2);
  bg_sim_destroy(c);
  bg_sim *d = make(props);
  bg_check_true(bg_sim_restore(d, path, NULL, 0, NULL) == BG_OK, "bg_sim_restore: %s", bg_sim_last_error(d));
  run_to(d, N_STEPS);
  same(a, d, "a run and its checkpointed continuation");
  remove(path);

  if (!host) {
    /* the default, for scale: float atomics in hardware order */
    bg_sim *e = make(NULL), *f = make(NULL);
    run_to(e, N_STEPS);
    run_to(f, N_STEPS);
    double md;
    size_t nd = differ(e, f, BG_FIELD_X, &md);
    printf("note: deterministic=0, two runs: %zu position values differ, by at most %.3g m\n", nd, md);
    nd = differ(a, e, BG_FIELD_X, &md);
    printf("note: deterministic=1 against 0: %zu position values differ, by at most %.3g m\n", nd, md);
    bg_sim_destroy(e);
    bg_sim_destroy(f);
  }
  bg_sim_destroy(a);
  bg_sim_destroy(b);
  bg_sim_destroy(d);
  return bg_check_summary();
}
