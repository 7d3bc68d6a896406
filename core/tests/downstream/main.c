/* main.c: a program outside the project using the installed library, the
 * README's minimal C program made small and checked: a block of sand falls
 * for 200 steps on the CPU backend, and the program exits 0 only if every
 * call succeeded, every particle is there and the block moved down. */
#include <stdio.h>
#include <stdlib.h>

#include <bagnold.h>

int main(void) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = 24;
  d.dx = 0.01f;
  d.backend = "auto";
  bg_sim *sim;
  char err[256];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    fprintf(stderr, "bg_sim_create: %s\n", err);
    return 1;
  }
  const size_t m = 12, n = m * m * m;
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) return 1;
  for (size_t i = 0; i < n; ++i) {
    x[3 * i + 0] = 0.06f + 0.005f * (bg_real)(i % m);
    x[3 * i + 1] = 0.06f + 0.005f * (bg_real)(i / m % m);
    x[3 * i + 2] = 0.08f + 0.005f * (bg_real)(i / (m * m));
  }
  double z0 = 0, z1 = 0;
  for (size_t i = 0; i < n; ++i) z0 += x[3 * i + 2] / (double)n;
  bg_status s = bg_sim_add_particles(sim, n, x, NULL, 8.0f);
  if (s == BG_OK) s = bg_sim_run(sim, 200);
  if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_stats st;
  if (s == BG_OK) s = bg_sim_stats(sim, &st);
  if (s != BG_OK) {
    fprintf(stderr, "%s: %s\n", bg_status_name(s), bg_sim_last_error(sim));
    return 1;
  }
  for (size_t i = 0; i < n; ++i) z1 += x[3 * i + 2] / (double)n;
  printf("downstream: %zu particles, t = %.4f s, centre of mass z %.4f -> %.4f m\n", st.n_particles, st.time, z0,
         z1);
  free(x);
  bg_sim_destroy(sim);
  return st.n_particles == n && z1 < z0 ? 0 : 1;
}
