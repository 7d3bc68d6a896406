/* test_cut.c: thin plates that cut the material (BG_BODY_PLATE, bg_cut.h),
 * on one backend (argv[1]), against what compatibility implies exactly:
 *  - bad input is refused before the simulation exists, named: a plate
 *    without extent; on the device, a plate with the sparse grid (its cut
 *    kernels scatter to the dense one);
 *  - Hu et al. 2018's compatibility test: a block thrown at a fixed plate,
 *    with a block at rest on its other side, a grid cell away. Nothing
 *    crosses: the far block's velocities stay 0 exactly (not small: no
 *    node it reads ever holds the near block's momentum), no particle of
 *    the near block ends beyond the plate, and the momentum the near block
 *    loses is the impulse the plate reads (through its contact nodes and
 *    the cut transfers both). The same run without the plate (the
 *    control) moves the far block, so the check sees the plate. In 2D and
 *    in 3D;
 *  - the plate's edge cuts nothing beyond it: a block thrown at a plate
 *    that covers its lower half only passes over it with its upper half;
 *  - a blade pulled edge first down through a block under gravity cuts
 *    it: no particle that started more than a cell from its plane ends on
 *    the other side (within a cell the edge pushes material either way),
 *    and the block pushes back;
 *  - a free plate hit by a thrown block in zero gravity: block and plate
 *    keep the block's momentum between them, in 2D and 3D. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_test_backend.h"

static const char *g_backend = "cpu/ref";

/* A plate whose normal is world x (the body's z turned +90 degrees about
 * y): its half[0] runs along world z, half[1] along y. */
static bg_body x_plate(double x, double z, double half_z, double half_y) {
  bg_body b = bg_body_default();
  b.shape = BG_BODY_PLATE;
  b.half[0] = (bg_real)half_z;
  b.half[1] = (bg_real)half_y;
  b.half[2] = 0.002f;
  b.density = 7800.0f;
  b.q[0] = (bg_real)sqrt(0.5), b.q[2] = (bg_real)sqrt(0.5); /* +90 degrees about y */
  b.x[0] = (bg_real)x, b.x[2] = (bg_real)z;
  b.kinematic = 1;
  return b;
}

static bg_sim_desc desc(int dim, size_t nx, size_t ny, size_t nz, double dx) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dim = dim;
  d.dims[0] = nx, d.dims[1] = dim == 2 ? 1 : ny, d.dims[2] = nz;
  d.dx = (bg_real)dx;
  d.gravity[2] = 0.0f;
  d.backend = g_backend;
  return d;
}

/* A block on a lattice of spacing dx/2 filling [lo, hi) (y ignored in 2D). */
static size_t add_block(bg_sim *sim, int dim, double dx, const double lo[3], const double hi[3]) {
  const double h = 0.5 * dx;
  const size_t nx = (size_t)lround((hi[0] - lo[0]) / h), nz = (size_t)lround((hi[2] - lo[2]) / h),
               ny = dim == 2 ? 1 : (size_t)lround((hi[1] - lo[1]) / h);
  bg_real *x = malloc(3 * nx * ny * nz * sizeof *x);
  size_t n = 0;
  for (size_t i = 0; i < nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t l = 0; l < nz; ++l) {
        x[3 * n] = (bg_real)(lo[0] + (i + 0.5) * h);
        x[3 * n + 1] = dim == 2 ? 0.0f : (bg_real)(lo[1] + (j + 0.5) * h);
        x[3 * n + 2] = (bg_real)(lo[2] + (l + 0.5) * h);
        ++n;
      }
  const bg_status s = bg_sim_add_particles(sim, n, x, NULL, dim == 2 ? 4 : 8);
  free(x);
  if (s != BG_OK) {
    printf("FAIL: add particles: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  return n;
}

static bg_sim *make(const bg_sim_desc *d) {
  char err[512];
  bg_sim *sim = NULL;
  if (bg_sim_create(d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create: %s\n", err);
    exit(1);
  }
  return sim;
}

static void test_errors(void) {
  printf(
      "-- a plate without extent is refused, named; so is a plate on a backend without the cut "
      "transfers\n");
  bg_sim_desc d = desc(3, 16, 16, 16, 0.01);
  bg_body b = x_plate(0.08, 0.08, 0.04, 0.04);
  b.x[1] = 0.08f;
  b.half[1] = 0.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  char err[512] = "";
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && sim == NULL && strstr(err, "bodies[0].half[1]"),
                "a 3D plate of no width: refused naming bodies[0].half[1] (%s)", err);
  b.half[1] = 0.04f;
  err[0] = 0;
  s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_check_true(s == BG_OK, "a plate on %s: created (%s)", g_backend, err);
  bg_sim_destroy(sim);
  if (!bg_test_backend_on_host(g_backend)) {
    /* the device's cut kernels scatter to the dense float grid */
    d.properties = "grid=sparse";
    sim = NULL;
    s = bg_sim_create(&d, &sim, err, sizeof err);
    bg_check_true(s != BG_OK && sim == NULL && strstr(err, "plate") && strstr(err, "grid=dense"),
                  "a plate with grid=sparse on %s: refused, naming what it needs (%s)", g_backend,
                  err);
  }
}

/* A free plate hit by a thrown block in zero gravity: the momentum of
 * block and plate together is what the block had (the plate takes what
 * its contact nodes and its cut transfers give the material, opposite),
 * and the plate moves off along +x. */
static void test_free(int dim) {
  printf("-- %dD: a free plate hit by a thrown block\n", dim);
  const double dx = 0.01;
  const size_t ny = 12;
  bg_sim_desc d = desc(dim, 48, ny, 32, dx);
  bg_body b = x_plate(0.245, 0.16, 0.1, dim == 2 ? 0.2 : 0.04);
  b.x[1] = dim == 2 ? 0.0f : (bg_real)(0.5 * (ny - 1) * dx);
  b.kinematic = 0;
  b.density = 2000.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double ylo = dim == 2 ? 0.0 : 0.02, yhi = dim == 2 ? 0.0 : (ny - 3) * dx;
  const double lo[3] = {0.10, ylo, 0.08}, hi[3] = {0.24, yhi, 0.24};
  const size_t n = add_block(sim, dim, dx, lo, hi);
  bg_real *v = calloc(3 * n, sizeof *v), *m = calloc(n, sizeof *m);
  for (size_t p = 0; p < n; ++p) v[3 * p] = 0.5f;
  bg_sim_set(sim, BG_FIELD_V, v, 3 * n);
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  double p0 = 0, M = 0;
  for (size_t p = 0; p < n; ++p) {
    p0 += (double)m[p] * v[3 * p];
    M += m[p];
  }
  bg_sim_run(sim, dim == 2 ? 300 : 120);
  bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  double pm[3] = {0, 0, 0};
  for (size_t p = 0; p < n; ++p)
    for (int a = 0; a < 3; ++a) pm[a] += (double)m[p] * v[3 * p + a];
  const double pb = st.mass * st.v[0];
  printf(
      "   block %.6g -> %.6g kg m/s, plate (%.4g kg) %.6g, sum %.6g; the plate's z momentum %.3g "
      "against the "
      "block's %.3g\n",
      p0, pm[0], st.mass, pb, pm[0] + pb, st.mass * st.v[2], pm[2]);
  bg_check_rel(pm[0] + pb, p0, 1e-4, "x momentum of block and plate: %.7g kg m/s of %.7g",
               pm[0] + pb, p0);
  bg_check_abs(pm[2] + st.mass * st.v[2], 0.0, 1e-4 * p0, "z momentum stays 0 (%.3g)",
               pm[2] + st.mass * st.v[2]);
  bg_check_true(st.v[0] > 0.05, "the plate is pushed along +x (%.4g m/s)", st.v[0]);
  (void)M;
  free(v);
  free(m);
  bg_sim_destroy(sim);
}

typedef struct outcome {
  double vmax_far;   /* the far block's largest speed over the run */
  double x_near_max; /* the near block's largest x at the end */
  double p0, p1;     /* the near block's x momentum per particle mass, start and end */
  double impulse;    /* the plate's x impulse from the material */
} outcome;

/* A block thrown at 0.5 m/s along +x at a fixed plate at x = x0 (or no
 * plate), a block at rest beyond it. The plate lies midway between node
 * planes, a grid cell from each block's nearest particles. */
static outcome thrown(int dim, int plate, int steps) {
  const double dx = 0.01, x0 = 0.245;
  const size_t ny = 12;
  bg_sim_desc d = desc(dim, 48, ny, 32, dx);
  const double yc = dim == 2 ? 0.0 : 0.5 * (ny - 1) * dx;
  bg_body b = x_plate(x0, 0.16, 0.2, 0.2);
  b.x[1] = (bg_real)yc;
  if (plate) {
    d.bodies = &b;
    d.n_bodies = 1;
  }
  bg_sim *sim = make(&d);
  const double ylo = dim == 2 ? 0.0 : 0.02, yhi = dim == 2 ? 0.0 : (ny - 3) * dx;
  const double alo[3] = {0.10, ylo, 0.04}, ahi[3] = {0.24, yhi, 0.28};
  const double blo[3] = {0.25, ylo, 0.04}, bhi[3] = {0.38, yhi, 0.28};
  const size_t na = add_block(sim, dim, dx, alo, ahi), nb = add_block(sim, dim, dx, blo, bhi),
               n = na + nb;
  bg_real *v = calloc(3 * n, sizeof *v), *x = calloc(3 * n, sizeof *x);
  for (size_t p = 0; p < na; ++p) v[3 * p] = 0.5f;
  if (bg_sim_set(sim, BG_FIELD_V, v, 3 * n) != BG_OK)
    printf("FAIL: set v: %s\n", bg_sim_last_error(sim));
  outcome o = {0, -1e30, 0.5, 0, 0};
  for (int k = 0; k < steps; ++k) {
    bg_real dt;
    if (bg_sim_step(sim, &dt) != BG_OK) {
      printf("FAIL: step %d: %s\n", k, bg_sim_last_error(sim));
      break;
    }
    if (plate) {
      bg_body_state st;
      bg_sim_body_state(sim, 0, &st);
      o.impulse += st.force[0] * dt;
    }
    bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
    for (size_t p = na; p < n; ++p)
      o.vmax_far = fmax(o.vmax_far, sqrt(v[3 * p] * v[3 * p] + v[3 * p + 1] * v[3 * p + 1] +
                                         v[3 * p + 2] * v[3 * p + 2]));
  }
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  for (size_t p = 0; p < na; ++p) {
    o.x_near_max = fmax(o.x_near_max, x[3 * p]);
    o.p1 += v[3 * p] / (double)na;
  }
  /* the impulse per particle mass: every particle has the same mass */
  bg_real *mass = calloc(n, sizeof *mass);
  if (bg_sim_get(sim, BG_FIELD_MASS, mass, n) == BG_OK) o.impulse /= (double)mass[0] * (double)na;
  free(mass);
  free(v);
  free(x);
  bg_sim_destroy(sim);
  return o;
}

static void test_compatibility(int dim) {
  printf("-- %dD: a block thrown at a plate, a block at rest beyond it\n", dim);
  const int steps = dim == 2 ? 300 : 120;
  const outcome with = thrown(dim, 1, steps), without = thrown(dim, 0, steps);
  printf(
      "   with the plate: far block max speed %.3g m/s, near block max x %.5f m, its mean v_x %.4f "
      "-> %.4f m/s, "
      "plate impulse per near-block mass %.4f m/s\n",
      with.vmax_far, with.x_near_max, with.p0, with.p1, with.impulse);
  printf("   without it (the control): far block max speed %.3g m/s\n", without.vmax_far);
  bg_check_true(with.vmax_far == 0.0, "the far block never moves: max speed %.3g m/s, exactly 0",
                with.vmax_far);
  bg_check_true(without.vmax_far > 1e-3,
                "the control: without the plate the far block moves (%.3g m/s)", without.vmax_far);
  bg_check_le(with.x_near_max, 0.245,
              "no particle of the near block crosses the plate (max x %.5f m)", with.x_near_max);
  /* the near block touches no face: what it lost went to the plate, through
   * the contact of the nodes beside it and through the cut transfers */
  bg_check_abs(
      with.p0 - with.p1, with.impulse, 1e-4 * with.p0,
      "momentum: the near block's loss per unit mass %.6f m/s is the plate's impulse %.6f m/s",
      with.p0 - with.p1, with.impulse);
}

/* A plate that covers the block's lower half (z < 0.16): the upper half
 * is not behind it and passes; the lower half is held. */
static void test_edge(void) {
  printf("-- 2D: a plate's edge: the half of the block above it passes over\n");
  const double dx = 0.01;
  bg_sim_desc d = desc(2, 48, 1, 32, dx);
  bg_body b = x_plate(0.245, 0.08, 0.08, 0.2);
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double lo[3] = {0.10, 0, 0.04}, hi[3] = {0.24, 0, 0.28};
  const size_t n = add_block(sim, 2, dx, lo, hi);
  bg_real *v = calloc(3 * n, sizeof *v), *x0 = calloc(3 * n, sizeof *x0),
          *x = calloc(3 * n, sizeof *x);
  for (size_t p = 0; p < n; ++p) v[3 * p] = 0.5f;
  bg_sim_set(sim, BG_FIELD_V, v, 3 * n);
  bg_sim_get(sim, BG_FIELD_X, x0, 3 * n);
  bg_sim_advance_to(sim, 0.2);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  size_t low = 0, low_across = 0, high = 0, high_across = 0;
  for (size_t p = 0; p < n; ++p) {
    if (x0[3 * p + 2] < 0.14) {
      low++;
      low_across += x[3 * p] > 0.245;
    } else if (x0[3 * p + 2] > 0.18) {
      high++;
      high_across += x[3 * p] > 0.245;
    }
  }
  printf(
      "   after 0.2 s: %zu of %zu particles from below z 0.14 m beyond the plate, %zu of %zu from "
      "above 0.18 m\n",
      low_across, low, high_across, high);
  bg_check_true(low_across == 0, "none of the lower part crosses the plate (%zu)", low_across);
  bg_check_true(high_across > high / 2, "most of the upper part passes over its edge (%zu of %zu)",
                high_across, high);
  free(v);
  free(x0);
  free(x);
  bg_sim_destroy(sim);
}

/* A blade (normal x) pulled down edge first at 0.3 m/s through a block at
 * rest under gravity: it cuts the block, the two sides do not mix. */
static void test_blade(void) {
  printf("-- 2D: a blade pulled edge first through a block cuts it\n");
  const double dx = 0.01;
  bg_sim_desc d = desc(2, 48, 1, 40, dx);
  d.gravity[2] = -9.81f;
  bg_body b = x_plate(0.205, 0.33, 0.06, 0.2);
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double lo[3] = {0.06, 0, 0.02}, hi[3] = {0.36, 0, 0.22};
  const size_t n = add_block(sim, 2, dx, lo, hi);
  const bg_real bv[3] = {0, 0, -0.3f}, bw[3] = {0, 0, 0};
  bg_sim_set_body_velocity(sim, 0, bv, bw);
  bg_real *x0 = calloc(3 * n, sizeof *x0), *x = calloc(3 * n, sizeof *x);
  bg_sim_get(sim, BG_FIELD_X, x0, 3 * n);
  bg_sim_advance_to(sim, 0.5);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  size_t sw[4] = {0, 0, 0, 0}, in[4] = {0, 0, 0, 0};
  for (size_t p = 0; p < n; ++p) {
    const double off = fabs(x0[3 * p] - 0.205);
    for (int k = 0; k < 4; ++k)
      if (off > k * dx) {
        in[k]++;
        sw[k] += (x0[3 * p] < 0.205) != (x[3 * p] < 0.205);
      }
  }
  printf("   the blade's lower edge at z %.3f m (the block's top 0.22 m)\n", st.x[2] - 0.06);
  for (int k = 0; k < 4; ++k)
    printf("   particles that started more than %d dx from its plane: %zu of %zu changed side\n", k,
           sw[k], in[k]);
  printf("   the material's force on it: %.4g, %.4g N/m\n", st.force[0], st.force[2]);
  bg_check_true(st.x[2] - 0.06 < 0.15, "the blade's edge is deep in the block (z %.3f m)",
                st.x[2] - 0.06);
  /* within a cell of its plane the edge pushes material aside, to either side */
  bg_check_true(
      sw[1] == 0,
      "no particle that started more than a cell from its plane changed side (%zu of %zu)", sw[1],
      in[1]);
  bg_check_true(st.force[2] > 0,
                "the block resists the blade: the force on it points up (%.4g N/m)", st.force[2]);
  free(x0);
  free(x);
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  if (argc > 1) g_backend = argv[1];
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[512];
  if (!bg_backend_available(g_backend, why, sizeof why)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", g_backend, why);
    return BG_CHECK_SKIP;
  }
  test_errors();
  test_compatibility(2);
  test_compatibility(3);
  test_edge();
  test_blade();
  test_free(2);
  test_free(3);
  return bg_check_summary();
}
