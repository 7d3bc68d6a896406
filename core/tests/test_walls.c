/* test_walls.c: where a loaded wall acts (references/walls.md). An elastic
 * column (nu 0, so confinement does not matter and M = E) rests under
 * gravity on a wall; its particles' time-mean positions over whole ringing
 * periods are compared with the exact finite-strain column on a rigid plane
 * (Hencky: M ln s / s = -rho0 g (H - Z)). A column on a plane at z_w, edge
 * at e, sits where a column H + delta long on a plane at e - delta would, to
 * first order: the particles sink by delta * eps_w, eps_w = rho0 g H / M. The
 * test solves for delta, the elastic offset (cells from the material edge to
 * where the loaded wall acts), and the plane z_eff = e - delta:
 *   1. bg_wall_edge_offset's placement (edge on the last solid node):
 *      the wall acts at the edge, for a slip -z face, a stick HALFSPACE with
 *      its plane a quarter cell off midway, and a Coulomb +x face;
 *   2. the edge midway (the plane of a midway wall): the wall acts ~1.1
 *      cells beyond the edge (1.6 below the plane);
 *   3. the same in cells at half the dx;
 *   4. bg_wall_edge_offset's values.
 * argv[1] is the backend (a name of bg_backend_name); 77 when it is unavailable. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bg_check.h"

static const char *g_backend = "auto";
static const double G = 9.81, RHO = 2000.0, EPS_W = 0.04;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Stretch s of a laterally fixed Hencky column under Kirchhoff stress
 * M ln s = -a M s (Cauchy = Piola for uniaxial strain), by Newton. */
static double stretch(double a) {
  double s = 1;
  for (int i = 0; i < 30; ++i) s -= (log(s) / s + a) / ((1 - log(s)) / (s * s));
  return s;
}

/* Current height above the plane of reference height Z (Simpson). */
static double column_u(double Z, double H, double rg_M) {
  const int n = 200;
  double h = Z / n, u = 0;
  for (int i = 0; i < n; ++i) {
    double z0 = i * h;
    u += h / 6 *
         (stretch(rg_M * (H - z0)) + 4 * stretch(rg_M * (H - z0 - 0.5 * h)) +
          stretch(rg_M * (H - z0 - h)));
  }
  return u;
}

/* Mean of a ringing series over the whole periods between its first and
 * last upward crossings of its plain mean (linear interpolation between
 * samples); the plain mean when fewer than two periods are seen. */
static double whole_period_mean(const double *w, int n) {
  double m = 0;
  for (int s = 0; s < n; ++s) m += w[s];
  m /= n;
  int first = -1, last = -1, nc = 0;
  for (int s = 0; s + 1 < n; ++s)
    if (w[s] < m && w[s + 1] >= m) {
      if (first < 0) first = s;
      last = s;
      nc++;
    }
  if (nc < 3) return m;
  double fa = first + (m - w[first]) / (w[first + 1] - w[first]);
  double fb = last + (m - w[last]) / (w[last + 1] - w[last]), acc = 0;
  for (int s = first; s <= last; ++s) {
    double lo = s < fa ? fa : s, hi = s + 1 > fb ? fb : s + 1;
    if (hi <= lo) continue;
    double wl = w[s] + (w[s + 1] - w[s]) * (lo - s), wh = w[s] + (w[s + 1] - w[s]) * (hi - s);
    acc += 0.5 * (wl + wh) * (hi - lo);
  }
  return acc / (fb - fa);
}

typedef enum { WALL_FACE, WALL_HALFSPACE } wall_kind;

/* One column: wall along axis (high side when hi), plane P cells from the
 * wall's outer node, material edge at P + e, height Hc cells, lateral 4
 * cells between slip faces. Returns the time-mean plane implied by every
 * particle (cells from P, + toward the material), NaN on failure. */
static double column_plane(wall_kind kind, bg_friction fr, int axis, int hi, double P, double e,
                           double dx, int Hc) {
  const int nlat = 8;
  double H = Hc * dx, M = RHO * G * H / EPS_W;
  int nax = (int)ceil(P) + Hc + 6;
  bg_sim_desc d = bg_sim_desc_default();
  d.threads = 1; /* results do not depend on it; one thread is steadier on shared cores */
  d.backend = g_backend;
  d.dx = (bg_real)dx;
  for (int a = 0; a < 3; ++a) d.dims[a] = (size_t)nlat;
  d.dims[axis] = (size_t)nax;
  d.gravity[2] = 0;
  d.gravity[axis] = (bg_real)(hi ? G : -G);
  d.material = bg_material_sand();
  d.material.rho0 = (bg_real)RHO;
  d.material.nu = 0;
  d.material.E = (bg_real)M;
  d.material.elastic_only = 1;
  d.material.volume_correction = 0;
  int face = 2 * axis + hi;
  double Pg = hi ? (nax - 1) - P : P; /* grid coordinate of the plane */
  bg_collider c;
  memset(&c, 0, sizeof c);
  d.walls[face].friction = fr;
  d.walls[face].mu = 0.3f;
  if (kind == WALL_HALFSPACE) {
    d.walls[face].friction = BG_FRICTION_OPEN;
    c.shape = BG_SHAPE_HALFSPACE;
    c.point[axis] = (bg_real)(Pg * dx);
    c.normal[axis] = hi ? -1.0f : 1.0f;
    c.friction = fr;
    c.mu = 0.3f;
    d.colliders = &c;
    d.n_colliders = 1;
  }
  bg_sim *sim = NULL;
  char err[512];
  bg_status st = bg_sim_create(&d, &sim, err, sizeof err);
  if (st != BG_OK) {
    bg_check_true(0, "bg_sim_create: %s (%s)", bg_status_name(st), err);
    return NAN;
  }
  int nl = 2 * (nlat - 4), nh = 2 * Hc, la[2], q = 0;
  for (int a = 0; a < 3; ++a)
    if (a != axis) la[q++] = a;
  size_t n = (size_t)nl * nl * nh, p = 0;
  bg_real *x = malloc(3 * n * sizeof *x);
  double *u = malloc(nh * sizeof *u);
  if (!x || !u) {
    free(x);
    free(u);
    bg_sim_destroy(sim);
    bg_check_true(0, "out of memory");
    return NAN;
  }
  for (int i = 0; i < nl; ++i)
    for (int j = 0; j < nl; ++j)
      for (int k = 0; k < nh; ++k, ++p) {
        double ga = P + e + (k + 0.5) * 0.5; /* from the wall's side */
        x[3 * p + la[0]] = (bg_real)((1.5 + (i + 0.5) * 0.5) * dx);
        x[3 * p + la[1]] = (bg_real)((1.5 + (j + 0.5) * 0.5) * dx);
        x[3 * p + axis] = (bg_real)((hi ? (nax - 1) - ga : ga) * dx);
      }
  for (int k = 0; k < nh; ++k) u[k] = column_u((k + 0.5) * 0.5 * dx, H, RHO * G / M) / dx;
  st = bg_sim_add_particles(sim, n, x, NULL, 8);
  /* the column starts unstressed and rings about its static state (period
   * ~4 H / c_p): the mean is taken over the whole periods between the first
   * and last upward crossings of the sampled mean, within 2-9 T */
  double T = 4 * H / sqrt(M / RHO);
  enum { NS = 240 };
  double ws[NS + 1];
  for (int s = 0; s <= NS && st == BG_OK; ++s) {
    st = bg_sim_advance_to(sim, 2 * T + 7 * T * s / NS);
    if (st == BG_OK) st = bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
    double acc = 0;
    for (p = 0; p < n; ++p) {
      double ga = x[3 * p + axis] / dx;
      acc += (hi ? (nax - 1) - ga : ga) - u[p % (size_t)nh];
    }
    ws[s] = acc / (double)n;
  }
  double mean = st == BG_OK ? whole_period_mean(ws, NS + 1) : NAN;
  if (st != BG_OK) bg_check_true(0, "column run: %s (%s)", bg_status_name(st), bg_sim_last_error(sim));
  bg_sim_destroy(sim);
  free(x);
  free(u);
  return mean - P;
}

/* Elastic offset delta (cells from the material edge to where the loaded
 * wall acts) and that plane from P, for an edge at P + e. */
static void wall_acts(const char *what, wall_kind kind, bg_friction fr, int axis, int hi, double P,
                      double e, double dx, int Hc, double *delta, double *z_eff) {
  double w = column_plane(kind, fr, axis, hi, P, e, dx, Hc);
  *delta = (e - w) / EPS_W;
  *z_eff = e - *delta;
  printf("  %s: dx %.4g m, H %d cells, edge at plane %+.3f: column sits as on a plane at %+.4f "
         "cells; elastic offset %.3f cells, the loaded wall acts at plane %+.3f cells\n",
         what, dx, Hc, e, w, *delta, *z_eff);
}

static void test_helper_placement(void) {
  printf("== 1. bg_wall_edge_offset's placement: the wall acts at the edge\n");
  double dl, z;
  double e = bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5);
  wall_acts("slip -z face", WALL_FACE, BG_FRICTION_SLIP, 2, 0, 1.5, e, 0.005, 12, &dl, &z);
  /* 0.25 cells: measured |delta| <= 0.03 (walls.md); midway gives 1.1 */
  bg_check_abs(dl, 0.0, 0.25, "slip -z face, edge on the last solid node: wall acts at the edge");
  e = bg_wall_edge_offset(BG_FRICTION_STICK, 4.25);
  wall_acts("stick halfspace z > 4.25 cells", WALL_HALFSPACE, BG_FRICTION_STICK, 2, 0, 4.25, e,
            0.005, 12, &dl, &z);
  bg_check_abs(dl, 0.0, 0.25, "stick halfspace off midway, helper placement: wall acts at the edge");
  e = bg_wall_edge_offset(BG_FRICTION_COULOMB, 1.5);
  wall_acts("coulomb +x face", WALL_FACE, BG_FRICTION_COULOMB, 0, 1, 1.5, e, 0.005, 12, &dl, &z);
  bg_check_abs(dl, 0.0, 0.25, "coulomb +x face, helper placement: wall acts at the edge");
}

static void test_midway(void) {
  printf("== 2-3. edge midway (on the plane of a midway wall), two dx\n");
  double d1, z1, d2, z2;
  wall_acts("slip -z face", WALL_FACE, BG_FRICTION_SLIP, 2, 0, 1.5, 0.0, 0.005, 12, &d1, &z1);
  /* walls.md: 0.95-1.16 cells over eps 0.005-0.05, dx 5 and 2.5 mm */
  bg_check_abs(d1, 1.1, 0.3, "slip -z face, edge midway: loaded wall acts ~1.1 cells beyond it");
  wall_acts("slip -z face", WALL_FACE, BG_FRICTION_SLIP, 2, 0, 1.5, 0.0, 0.0025, 24, &d2, &z2);
  bg_check_abs(d2, d1, 0.2, "slip -z face, edge midway: the same offset in cells at half the dx");
}

static void test_offset_values(void) {
  printf("== 4. bg_wall_edge_offset\n");
  bg_check_abs(bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5), -0.5, 1e-12, "midway plane: -0.5");
  bg_check_abs(bg_wall_edge_offset(BG_FRICTION_STICK, 4.25), -0.25, 1e-12, "plane 4.25: -0.25");
  bg_check_abs(bg_wall_edge_offset(BG_FRICTION_COULOMB, 4.75), -0.75, 1e-12, "plane 4.75: -0.75");
  bg_check_abs(bg_wall_edge_offset(BG_FRICTION_SLIP, 4.0), -1.0, 1e-12,
               "plane on node 4: node 4 is free, node 3 the last solid one");
  bg_check_abs(bg_wall_edge_offset(BG_FRICTION_OPEN, 1.5), 0.0, 0.0, "open face: no offset");
}

int main(int argc, char **argv) {
  if (argc > 1) g_backend = argv[1];
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[512];
  if (!bg_backend_available(g_backend, why, sizeof why)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", g_backend, why);
    return BG_CHECK_SKIP;
  }
  double t0 = now_s(), t = t0;
  void (*tests[])(void) = {test_offset_values, test_helper_placement, test_midway};
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; ++i) {
    tests[i]();
    double t1 = now_s();
    printf("   (%.1f s)\n", t1 - t);
    t = t1;
  }
  printf("total %.1f s\n", now_s() - t0);
  return bg_check_summary();
}
