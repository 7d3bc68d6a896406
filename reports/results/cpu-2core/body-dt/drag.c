#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "bagnold.h"
/* drag cfl speed: a 2D box plate (L 0.05, T L/6) at depth 2L dragged at speed through a bed */
int main(int argc, char **argv) {
  double cfl = atof(argv[1]), sp = atof(argv[2]);
  double L = 0.05, dx = L / 10, W = 0.6, D = 0.25;
  bg_sim_desc d = bg_sim_desc_default();
  d.dim = 2; d.dx = dx; d.cfl = cfl; d.backend = "cpu"; d.threads = 1;
  d.dims[0] = (size_t)(W / dx) + 4; d.dims[1] = 1; d.dims[2] = (size_t)((D + 0.1) / dx) + 4;
  d.origin[0] = -1.5 * dx; d.origin[2] = -1.5 * dx;
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX; b.half[0] = L / 12; b.half[2] = L / 2; b.kinematic = 1;
  b.x[0] = 0.15; b.x[2] = D - 2 * L;
  d.bodies = &b; d.n_bodies = 1;
  char err[512]; bg_sim *sim;
  if (bg_sim_create(&d, &sim, err, sizeof err)) { puts(err); return 1; }
  double h = dx / 2; size_t ni = (size_t)(W / h), nk = (size_t)(D / h), n = 0;
  bg_real *x = malloc(3 * ni * nk * sizeof *x);
  for (size_t i = 0; i < ni; ++i) for (size_t k = 0; k < nk; ++k) {
    double xx = -0.5 * dx + (i + .5) * h, zz = -0.5 * dx + (k + .5) * h;
    if (fabs(xx - 0.15) < L / 12 + 0.5 * dx && fabs(zz - (D - 2 * L)) < L / 2 + 0.5 * dx) continue;
    x[3*n] = xx; x[3*n+1] = 0; x[3*n+2] = zz; n++; }
  bg_sim_add_particles(sim, n, x, NULL, 4);
  bg_sim_advance_to(sim, 0.3);
  bg_real v[3] = {(bg_real)sp, 0, 0}, w[3] = {0, 0, 0};
  bg_sim_set_body_velocity(sim, 0, v, w);
  double t0 = 0.3, t1 = t0 + 0.06 / sp, t2 = t0 + 0.2 / sp; /* window: travel 0.06..0.2 m */
  bg_sim_advance_to(sim, t1);
  size_t nw = bg_sim_wall_count(sim); double *imp = malloc(3 * nw * sizeof *imp);
  bg_sim_wall_impulses(sim, imp, 3 * nw); double i1 = imp[0], j1 = imp[2];
  bg_sim_advance_to(sim, t2);
  bg_sim_wall_impulses(sim, imp, 3 * nw);
  printf("cfl %.3f speed %.3f: F_x %.4f N/m F_z %.4f N/m\n", cfl, sp, (imp[0] - i1) / (t2 - t1), (imp[2] - j1) / (t2 - t1));
  return 0;
}
