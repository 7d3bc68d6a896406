#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bagnold.h"
/* drag_shapes CFL SPEED ASPECT box|plate [SETTLE]: an intruder L = 0.05 m tall and L / ASPECT
 * thick (a kinematic box), or a CPIC plate of the same height (BG_BODY_PLATE, its normal along
 * world x), centred 2 L deep in a 2D bed of Klar's sand 0.25 m deep (dx = L / 10, 4 particles per
 * cell, cpu backend on one thread), settled SETTLE s (default 0.3) and dragged in +x at SPEED m/s.
 * Prints the mean force over 0.06-0.2 m of travel (N per metre of depth, from the wall impulses)
 * and the particles inside the box's footprint at the window's ends. BACKEND=cpu/ref picks the
 * oracle. Build: cc -O2 drag_shapes.c -I core/include -I core/physics -I BUILD/generated/public
 * BUILD/libbagnold.a (and the CUDA runtime when the library was built with it) -lgsl -lgslcblas
 * -lm -fopenmp */
static size_t inside(bg_sim *sim, size_t n, double xc, double zc, double hx, double hz, size_t *behind) {
  bg_real *x = malloc(3 * n * sizeof *x);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  size_t c = 0;
  *behind = 0;
  for (size_t p = 0; p < n; ++p) {
    double dxp = x[3*p] - xc, dzp = x[3*p+2] - zc;
    if (fabs(dxp) < hx && fabs(dzp) < hz) c++;
  }
  free(x); return c;
}
int main(int argc, char **argv) {
  double cfl = atof(argv[1]), sp = atof(argv[2]), aspect = atof(argv[3]);
  int plate = argc > 4 && !strcmp(argv[4], "plate");
  double settle = argc > 5 ? atof(argv[5]) : 0.3;
  double L = 0.05, dx = L / 10, W = 0.6, D = 0.25, hx = L / aspect / 2, hz = L / 2;
  bg_sim_desc d = bg_sim_desc_default();
  d.dim = 2; d.dx = dx; d.cfl = cfl; d.backend = getenv("BACKEND") ? getenv("BACKEND") : "cpu"; d.threads = 1;
  d.dims[0] = (size_t)(W / dx) + 4; d.dims[1] = 1; d.dims[2] = (size_t)((D + 0.1) / dx) + 4;
  d.origin[0] = -1.5 * dx; d.origin[2] = -1.5 * dx;
  bg_body b = bg_body_default();
  b.kinematic = 1; b.x[0] = 0.15; b.x[2] = D - 2 * L;
  if (plate) { /* normal along body z -> rotate so the normal is world x: quaternion about y by 90 deg */
    b.shape = BG_BODY_PLATE; b.half[0] = hz; b.half[1] = hz; b.half[2] = hx;
    b.q[0] = cos(M_PI / 4); b.q[1] = 0; b.q[2] = sin(M_PI / 4); b.q[3] = 0;
  } else { b.shape = BG_BODY_BOX; b.half[0] = hx; b.half[2] = hz; }
  d.bodies = &b; d.n_bodies = 1;
  char err[512]; bg_sim *sim;
  if (bg_sim_create(&d, &sim, err, sizeof err)) { puts(err); return 1; }
  double h = dx / 2; size_t ni = (size_t)(W / h), nk = (size_t)(D / h), n = 0;
  bg_real *x = malloc(3 * ni * nk * sizeof *x);
  double skip = plate ? 0.0 : hx;
  for (size_t i = 0; i < ni; ++i) for (size_t k = 0; k < nk; ++k) {
    double xx = -0.5 * dx + (i + .5) * h, zz = -0.5 * dx + (k + .5) * h;
    if (!plate && fabs(xx - 0.15) < skip + 0.5 * dx && fabs(zz - (D - 2 * L)) < hz + 0.5 * dx) continue;
    x[3*n] = xx; x[3*n+1] = 0; x[3*n+2] = zz; n++; }
  if (bg_sim_add_particles(sim, n, x, NULL, 4)) { printf("add: %s\n", bg_sim_last_error(sim)); return 1; }
  bg_sim_advance_to(sim, settle);
  bg_real v[3] = {(bg_real)sp, 0, 0}, w[3] = {0, 0, 0};
  bg_sim_set_body_velocity(sim, 0, v, w);
  double t0 = settle, t1 = t0 + 0.06 / sp, t2 = t0 + 0.2 / sp;
  bg_sim_advance_to(sim, t1);
  size_t nw = bg_sim_wall_count(sim); double *imp = malloc(3 * nw * sizeof *imp);
  bg_sim_wall_impulses(sim, imp, 3 * nw); double i1 = imp[0], j1 = imp[2];
  size_t beh; size_t in1 = inside(sim, n, 0.15 + 0.06, D - 2 * L, hx, hz, &beh);
  bg_sim_advance_to(sim, t2);
  bg_sim_wall_impulses(sim, imp, 3 * nw);
  size_t in2 = inside(sim, n, 0.15 + 0.2, D - 2 * L, hx, hz, &beh);
  printf("%s aspect %.1f cfl %.3f speed %.3f settle %.2f: F_x %.2f F_z %.2f N/m  inside %zu -> %zu\n", plate ? "plate" : "box", aspect, cfl, sp, settle,
         (imp[0] - i1) / (t2 - t1), (imp[2] - j1) / (t2 - t1), in1, in2);
  return 0;
}
