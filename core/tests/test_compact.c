/* test_compact: the CUDA backend's layout=compact (cuda_backend.cu) holds
 * fewer bytes per particle and keeps what the full layout keeps.
 *
 * A sand column (bg_test_column) collapses in a 96 x 96 x 64 box on the
 * full and on the compact layout, and on the compact layout with the sparse
 * grid (the billion-particle configuration):
 *   - the particle arrays hold exactly 40 bytes per slot fewer: tau (6
 *     floats), the mass and the volume, and the two state slots Drucker-
 *     Prager leaves unnamed;
 *   - positions agree with the full layout's within the bound test_sparse
 *     holds the dense and sparse grids to (the order of float atomics);
 *   - the stress read back is the stress of each particle's own F, as
 *     bg_material_stress_of_f gives it on the host: derived on the compact
 *     layout, cached by G2P on the full one. The bound is test_stress_of_f's
 *     (a strain of K ulps) with K = 64, since host and device round the SVD
 *     differently (contraction into FMAs, the device's rsqrt). Comparing
 *     the two runs' stresses directly would not do: their F differ by the
 *     order of float atomics (1e-7), i.e. by E 1e-7 in stress, which is
 *     larger than the stress of a near-free column's top;
 *   - a second add of another particle volume is refused, naming the
 *     layout, and leaves the particles as they were;
 *   - a checkpoint of the compact run restored into a fresh compact
 *     simulation reads back the same positions and stress bit for bit.
 * Parity with cpu/ref on every scene is test_parity's (layout=compact is
 * one of its property variants). A backend without the property skips (77).
 * argv[1]: the backend. */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_materials.h"
#include "bg_test_backend.h"
#include "bg_test_scene.h"

#define N_STEPS 40
#define NX 96
#define NZ 64
#define ULPS 64.0

static const char *backend = "cuda";

static bg_sim *make(const char *props, size_t *count) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = NX;
  d.dims[2] = NZ;
  d.dx = 0.01f;
  d.backend = backend;
  d.sort_interval = 8;
  d.properties = props;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create (%s, '%s'): %s\n", backend, props, err);
    exit(1);
  }
  *count = bg_test_column(sim, 0.3, 0.36);
  return sim;
}

static bg_real *field(bg_sim *sim, bg_field f, size_t n, int width) {
  bg_real *out = malloc((size_t)width * n * sizeof *out);
  if (!out || bg_sim_get(sim, f, out, (size_t)width * n) != BG_OK) {
    printf("FAIL: bg_sim_get: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  return out;
}

static double max_abs_diff(const bg_real *a, const bg_real *b, size_t m, double *amax) {
  double d = 0;
  *amax = 0;
  for (size_t i = 0; i < m; ++i) {
    if (fabs((double)a[i] - b[i]) > d) d = fabs((double)a[i] - b[i]);
    if (fabs((double)a[i]) > *amax) *amax = fabs((double)a[i]);
  }
  return d;
}

/* The worst ratio, over particles, of |stress read back - stress of the
 * particle's own F (host)| to the round-off bound (see the header), with
 * the material the simulation reports it holds. */
static double worst_of_f(bg_sim *sim, size_t n) {
  bg_sim_desc desc;
  if (bg_sim_describe(sim, &desc) != BG_OK) {
    printf("FAIL: bg_sim_describe: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  const bg_mat m = bg_material_prepare(&desc.material);
  const double scale = 3.0 * m.el.lame.lambda + 2.0 * m.el.lame.mu;
  bg_real *F = field(sim, BG_FIELD_F, n, 9), *S = field(sim, BG_FIELD_STRESS, n, 9);
  bg_real st[BG_NSTATE] = {0};
  double worst = 0;
  for (size_t p = 0; p < n; ++p) {
    bg_mat3 f, tau;
    memcpy(f.m, F + 9 * p, sizeof f.m);
    if (!bg_material_stress_of_f(&m, &f, st, &tau)) {
      worst = INFINITY;
      break;
    }
    const double J = bg_mat3_det(f);
    double d2 = 0, t2 = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double d = S[9 * p + 3 * i + j] - tau.m[i][j] / J;
        d2 += d * d;
        t2 += (double)tau.m[i][j] * tau.m[i][j];
      }
    const double bound = ULPS * FLT_EPSILON * scale * (1.0 + sqrt(t2) / m.el.lame.mu) / J;
    if (!(sqrt(d2) / bound <= worst)) worst = sqrt(d2) / bound;
  }
  free(F);
  free(S);
  return worst;
}

/* Save, restore into a fresh compact simulation, compare bit for bit. */
static void check_checkpoint(bg_sim *comp, size_t n) {
  char path[] = "/tmp/bg_test_compact_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    printf("FAIL: mkstemp\n");
    exit(1);
  }
  close(fd);
  size_t n2 = 0;
  bg_sim *again = make("layout=compact", &n2);
  bg_check_true(bg_sim_save(comp, path, NULL, 0) == BG_OK, "the compact run saves (%s)",
                bg_sim_last_error(comp));
  bg_check_true(bg_sim_restore(again, path, NULL, 0, NULL) == BG_OK,
                "a compact simulation restores it (%s)", bg_sim_last_error(again));
  bg_real *xa = field(comp, BG_FIELD_X, n, 3), *xb = field(again, BG_FIELD_X, n, 3);
  bg_real *sa = field(comp, BG_FIELD_STRESS, n, 9), *sb = field(again, BG_FIELD_STRESS, n, 9);
  bg_check_true(memcmp(xa, xb, 3 * n * sizeof *xa) == 0 && memcmp(sa, sb, 9 * n * sizeof *sa) == 0,
                "restored: positions and the derived stress equal bit for bit");
  free(xa);
  free(xb);
  free(sa);
  free(sb);
  bg_sim_destroy(again);
  remove(path);
}

int main(int argc, char **argv) {
  if (argc > 1) backend = argv[1];
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  if (!bg_test_has_property_value(backend, "layout", "compact")) {
    printf("SKIP: backend %s has no property layout=compact\n", backend);
    return BG_CHECK_SKIP;
  }
  {
    /* a resource of the backend that does not take it (cuda/global) says so by name */
    bg_sim_desc d = bg_sim_desc_default();
    d.backend = backend;
    d.properties = "layout=compact";
    bg_sim *probe = NULL;
    char err[512] = "";
    bg_status s = bg_sim_create(&d, &probe, err, sizeof err);
    bg_sim_destroy(probe);
    if (s != BG_OK) {
      if (s == BG_ERR_RANGE && strstr(err, "layout=compact")) {
        printf("SKIP: %s refuses layout=compact by name: %s\n", backend, err);
        return BG_CHECK_SKIP;
      }
      printf("FAIL: %s refuses layout=compact without naming it: %s: %s\n", backend,
             bg_status_name(s), err);
      return 1;
    }
  }
  size_t n = 0, n2 = 0, n3 = 0;
  bg_sim *full = make("layout=full", &n), *comp = make("layout=compact", &n2);
  bg_sim *sparse = make("layout=compact,grid=sparse", &n3);
  bg_memory mf, mc;
  bg_check_true(bg_sim_memory(full, &mf) == BG_OK && bg_sim_memory(comp, &mc) == BG_OK,
                "memory reads");
  printf("%zu particles: particle bytes full %zu, compact %zu (%.1f and %.1f per particle)\n", n,
         mf.particle_bytes, mc.particle_bytes, (double)mf.particle_bytes / n,
         (double)mc.particle_bytes / n);
  bg_check_true(
      mf.particle_bytes - mc.particle_bytes == 40 * n,
      "compact holds 40 bytes per particle fewer (tau, mass, volume, two unused state slots)");

  /* another volume: refused by name, nothing added */
  bg_real x1[3] = {0.2f, 0.2f, 0.2f};
  char err[512] = "";
  bg_status s = bg_sim_add_particles(comp, 1, x1, NULL, 27);
  snprintf(err, sizeof err, "%s", bg_sim_last_error(comp));
  bg_stats st;
  bg_sim_stats(comp, &st);
  bg_check_true(
      s == BG_ERR_RANGE && strstr(err, "layout=compact") && st.n_particles == n,
      "an add of another volume is refused by name and adds nothing (%s: \"%s\"; %zu particles)",
      bg_status_name(s), err, st.n_particles);

  if (bg_sim_run(full, N_STEPS) != BG_OK || bg_sim_run(comp, N_STEPS) != BG_OK ||
      bg_sim_run(sparse, N_STEPS) != BG_OK) {
    printf("FAIL: bg_sim_run: %s / %s / %s\n", bg_sim_last_error(full), bg_sim_last_error(comp),
           bg_sim_last_error(sparse));
    return 1;
  }
  bg_real *xf = field(full, BG_FIELD_X, n, 3), *xc = field(comp, BG_FIELD_X, n, 3),
          *xs = field(sparse, BG_FIELD_X, n, 3);
  double amax;
  const double dx_c = max_abs_diff(xf, xc, 3 * n, &amax), dx_s = max_abs_diff(xf, xs, 3 * n, &amax);
  const double wf = worst_of_f(full, n), wc = worst_of_f(comp, n), ws = worst_of_f(sparse, n);
  bg_sim_stats(comp, &st);
  printf(
      "after %d steps: positions vs full: compact %.3g m, compact+sparse %.3g m; stress of F, "
      "worst over the %.0f-ulp bound: full %.3g, compact %.3g, compact+sparse %.3g; max speed "
      "%.3g m/s\n",
      N_STEPS, dx_c, dx_s, ULPS, wf, wc, ws, st.max_speed);
  bg_check_true(st.max_speed > 0.05, "the column moves (%.3g m/s)", st.max_speed);
  bg_check_true(dx_c < 1e-5 && dx_s < 1e-5, "positions agree with the full layout's (%.3g, %.3g m)",
                dx_c, dx_s);
  bg_check_true(wf <= 1, "full: the cached stress is the stress of F (%.3g of the bound)", wf);
  bg_check_true(
      wc <= 1 && ws <= 1,
      "compact: the derived stress is the stress of F (%.3g, with sparse %.3g of the bound)", wc,
      ws);
  check_checkpoint(comp, n);
  free(xf);
  free(xc);
  free(xs);
  bg_sim_destroy(full);
  bg_sim_destroy(comp);
  bg_sim_destroy(sparse);
  return bg_check_summary();
}
