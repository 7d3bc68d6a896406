/* test_index64.c: particle indices are 64-bit on the device backend. Adds
 * 2^28 (268 M) particles, a dense block at 8 per cell in free fall, sorts
 * them every step for two steps and reads back F (9 floats per particle:
 * 2.4 G floats, offsets past 2^31) and the positions and velocities, each in
 * insertion order. Every particle must be where free fall puts it, with
 * F = I: a wrapped 32-bit offset would misplace, lose or overwrite rows.
 * argv[1] is the backend; exit 77 when it is unavailable, or when the host
 * or the device lacks the memory (about 17 GB of host, 50 GB of device). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_test_backend.h"

#define N_PARTICLES ((size_t)1 << 28)
#define SIDE 512 /* particles per axis in x and y; N / SIDE^2 = 1024 layers in z */
#define HOST_BYTES (N_PARTICLES * (3 + 1 + 9 + 3) * sizeof(bg_real))

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "auto";
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  if (bg_test_backend_on_host(backend)) {
    printf("SKIP: 2^28 particles are a device test (hours on a host backend)\n");
    return BG_CHECK_SKIP;
  }
  double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (host < 1.5 * (double)HOST_BYTES) {
    printf("SKIP: the host has %.3g GB, the test needs %.3g GB\n", host / 1e9, 1.5 * HOST_BYTES / 1e9);
    return BG_CHECK_SKIP;
  }
  /* 512 x 512 x 1024 particles at 2 per axis per cell: 256 x 256 x 512
   * cells, in a grid with 4 free nodes around (the block falls < 1 cell) */
  const size_t n = N_PARTICLES, layers = n / ((size_t)SIDE * SIDE);
  const double dx = 0.01, h = dx / 2;
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = backend;
  d.dims[0] = d.dims[1] = SIDE / 2 + 8;
  d.dims[2] = layers / 2 + 8;
  d.dx = (bg_real)dx;
  d.sort_interval = 1;
  bg_sim *sim = NULL;
  char err[512];
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  if (!bg_check_true(s == BG_OK, "create a %zu x %zu x %zu grid on %s (%s)", d.dims[0], d.dims[1], d.dims[2],
                     backend, err))
    return bg_check_summary();
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) {
    printf("SKIP: no host memory for %zu positions\n", n);
    bg_sim_destroy(sim);
    return BG_CHECK_SKIP;
  }
  for (size_t p = 0; p < n; ++p) {
    size_t i = p / ((size_t)SIDE * layers), j = (p / layers) % SIDE, k = p % layers;
    x[3 * p] = (bg_real)(4 * dx + (i + 0.5) * h);
    x[3 * p + 1] = (bg_real)(4 * dx + (j + 0.5) * h);
    x[3 * p + 2] = (bg_real)(4 * dx + (k + 0.5) * h);
  }
  s = bg_sim_add_particles(sim, n, x, NULL, 8);
  if (s == BG_ERR_NOMEM) {
    printf("SKIP: the device cannot hold %zu particles: %s\n", n, bg_sim_last_error(sim));
    free(x);
    bg_sim_destroy(sim);
    return BG_CHECK_SKIP;
  }
  bg_check_true(s == BG_OK, "add %zu particles (%s)", n, bg_sim_last_error(sim));
  bg_real dt[2] = {0, 0};
  if (s == BG_OK) s = bg_sim_step(sim, &dt[0]);
  if (s == BG_OK) s = bg_sim_step(sim, &dt[1]);
  bg_check_true(s == BG_OK, "two steps, each re-sorting %zu particles (%s)", n, bg_sim_last_error(sim));
  bg_stats st;
  memset(&st, 0, sizeof st);
  bg_sim_stats(sim, &st);
  bg_check_true(st.n_particles == n && st.n_active == n, "stats count %zu particles, %zu active", st.n_particles,
                st.n_active);
  bg_real *f = s == BG_OK ? malloc(9 * n * sizeof *f) : NULL;
  bg_real *xv = s == BG_OK ? malloc(3 * n * sizeof *xv) : NULL;
  if (s == BG_OK && (!f || !xv)) printf("no host memory for the read-back\n");
  if (f && xv) {
    for (size_t i = 0; i < 9 * n; ++i) f[i] = NAN; /* an unwritten row stays NaN */
    s = bg_sim_get(sim, BG_FIELD_F, f, 9 * n);
    bg_check_true(s == BG_OK, "read back F, %zu floats (%s)", 9 * n, bg_sim_last_error(sim));
    double ferr = 0;
    size_t bad = 0;
    for (size_t p = 0; p < n; ++p)
      for (int e = 0; e < 9; ++e) {
        double want = (e % 4 == 0) ? 1.0 : 0.0, err_e = fabs((double)f[9 * p + e] - want);
        if (!(err_e <= 1e-3)) bad++;
        if (!(err_e <= ferr)) ferr = err_e;
      }
    printf("F: max |F - I| %.3g, %zu entries off; last particle F[0] = %g at float offset %zu\n", ferr, bad,
           (double)f[9 * (n - 1)], 9 * (n - 1));
    bg_check_true(bad == 0, "every particle's F is the identity to 1e-3 (free fall, no strain)");
    /* free fall from rest, every particle, in insertion order: v = g t */
    double t = (double)dt[0] + dt[1], g = -9.81, vz = g * t;
    s = bg_sim_get(sim, BG_FIELD_V, xv, 3 * n);
    size_t vbad = 0;
    for (size_t p = 0; p < n && s == BG_OK; ++p)
      if (!(fabs(xv[3 * p + 2] - vz) <= 1e-3 * fabs(vz) && fabs(xv[3 * p]) <= 1e-6 && fabs(xv[3 * p + 1]) <= 1e-6))
        vbad++;
    bg_check_true(s == BG_OK && vbad == 0, "every velocity is (0, 0, g t) to 1e-3 (%zu off)", vbad);
    s = bg_sim_get(sim, BG_FIELD_X, xv, 3 * n);
    size_t xbad = 0;
    double zshift = g * dt[0] * dt[0] + g * t * dt[1]; /* x1 = x0 + dt0 v1, x2 = x1 + dt1 v2 */
    for (size_t p = 0; p < n && s == BG_OK; ++p) {
      double e0 = fabs(xv[3 * p] - x[3 * p]), e1 = fabs(xv[3 * p + 1] - x[3 * p + 1]);
      double e2 = fabs(xv[3 * p + 2] - (x[3 * p + 2] + zshift));
      if (!(e0 <= 1e-6 && e1 <= 1e-6 && e2 <= 1e-3 * fabs(zshift) + 1e-6)) xbad++;
    }
    bg_check_true(s == BG_OK && xbad == 0, "every particle is back in its insertion slot where free fall "
                  "puts it (%zu off)", xbad);
  }
  free(f);
  free(xv);
  free(x);
  bg_sim_destroy(sim);
  return bg_check_summary();
}
