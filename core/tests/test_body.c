/* test_body.c: rigid bodies coupled both ways (bagnold.h's bg_body), on one
 * backend (argv[1]), against closed forms:
 *  - bad input is refused before the simulation exists, naming the field;
 *  - a free body in empty space follows the discrete ballistic law of the
 *    step exactly, and a torque-free spin about a principal axis keeps its
 *    rate and turns the body by omega t;
 *  - a sphere thrown into a block of sand in zero gravity: the momentum of
 *    sand plus body stays what it was (the impulse the contact gives the
 *    sand is the one the body loses) while the body slows;
 *  - a kinematic body keeps its scripted velocity through the sand and
 *    reads the sand's drag;
 *  - a run saved and resumed from its checkpoint continues with the body
 *    as the run itself does;
 *  - in 2D plane strain: a body off the plane, moving or turning out of it
 *    is refused, named; its mass and inertia are per metre of depth; a free
 *    body falls and spins exactly; a kinematic plate dragged through a sand
 *    bed reads the bed's drag (test_body_2d.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_check_resume.h"

static const char *g_backend = "cpu/ref";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bg_sim_desc base_desc(size_t n, double dx) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = n;
  d.dx = (bg_real)dx;
  d.backend = g_backend;
  return d;
}

static bg_sim *make(const bg_sim_desc *d) {
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(d, &sim, err, sizeof err);
  if (s != BG_OK) {
    printf("FAIL: bg_sim_create: %s\n", err);
    exit(1);
  }
  return sim;
}

/* A block of particles on a lattice of spacing dx/2 (8 per cell) filling
 * [lo, hi), at rest, of the simulation's material k. */
static size_t add_block(bg_sim *sim, double dx, const double lo[3], const double hi[3], int k) {
  double h = 0.5 * dx;
  size_t nx = (size_t)lround((hi[0] - lo[0]) / h), ny = (size_t)lround((hi[1] - lo[1]) / h),
         nz = (size_t)lround((hi[2] - lo[2]) / h), n = 0;
  bg_real *x = malloc(3 * nx * ny * nz * sizeof *x);
  for (size_t i = 0; i < nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t l = 0; l < nz; ++l) {
        x[3 * n] = (bg_real)(lo[0] + (i + 0.5) * h);
        x[3 * n + 1] = (bg_real)(lo[1] + (j + 0.5) * h);
        x[3 * n + 2] = (bg_real)(lo[2] + (l + 0.5) * h);
        ++n;
      }
  bg_status s = bg_sim_add_particles_material(sim, n, x, NULL, 8, k);
  free(x);
  if (s != BG_OK) {
    printf("FAIL: add particles: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  return n;
}

/* Each refusal names its field; the descriptor is refused whole. */
static void test_errors(void) {
  printf("-- bad bodies are refused, named\n");
  bg_sim_desc d = base_desc(24, 0.01);
  bg_body b[2] = {bg_body_default(), bg_body_default()};
  for (int k = 0; k < 2; ++k) b[k].x[0] = b[k].x[1] = b[k].x[2] = 0.12f;
  d.bodies = b;
  d.n_bodies = 2;
  struct {
    const char *want;
    int field; /* which spoil below */
  } tests[] = {{"bodies[1].density must be > 0", 0}, {"bodies[1].radius must be > 0", 1},
               {"bodies[1].x[2] = ", 2},            {"bodies[1].q must be a nonzero", 3},
               {"bodies[1].v[0] is not finite", 4}, {"bodies[1].half[1] must be > 0", 5},
               {"bodies[1].friction must be", 6}};
  for (size_t t = 0; t < sizeof tests / sizeof tests[0]; ++t) {
    bg_body bad = bg_body_default();
    bad.x[0] = bad.x[1] = bad.x[2] = 0.12f;
    bg_sim_desc dd = d;
    switch (tests[t].field) {
      case 0: bad.density = -1; break;
      case 1: bad.radius = 0; break;
      case 2: bad.x[2] = 0.3f; break;
      case 3: bad.q[0] = 0; break;
      case 4: bad.v[0] = NAN; break;
      case 5:
        bad.shape = BG_BODY_BOX;
        bad.half[0] = bad.half[2] = 0.02f;
        bad.half[1] = 0;
        break;
      case 6: bad.friction = BG_FRICTION_OPEN; break;
    }
    bg_body pair[2] = {b[0], bad};
    dd.bodies = pair;
    char err[512] = "";
    bg_sim *sim = NULL;
    bg_status s = bg_sim_create(&dd, &sim, err, sizeof err);
    const char *want = tests[t].want;
    bg_check_true(s != BG_OK && sim == NULL && strstr(err, want) != NULL, "refused: \"%s\" (said: %s)", want, err);
    bg_sim_destroy(sim);
  }
  /* a good pair is taken, and the walls list it between colliders and faces */
  bg_sim *sim = make(&d);
  bg_check_true(bg_sim_wall_count(sim) == 2 + 6, "the walls: 2 bodies then 6 faces (%zu)", bg_sim_wall_count(sim));
  bg_body_state st;
  bg_check_true(bg_sim_body_state(sim, 2, &st) == BG_ERR_RANGE, "body 2 of 2: BG_ERR_RANGE");
  const bg_real nanv[3] = {NAN, 0, 0}, zero[3] = {0, 0, 0};
  bg_check_true(bg_sim_set_body_velocity(sim, 0, nanv, zero) == BG_ERR_NONFINITE, "a NaN velocity is refused");
  bg_sim_body_state(sim, 0, &st);
  const double r = (double)b[0].radius;
  bg_check_rel(st.mass, 1000.0 * 4.0 / 3.0 * 3.14159265358979 * r * r * r, 1e-12, "the sphere's mass, rho 4/3 pi r^3");
  bg_check_rel(st.inertia[0], 0.4 * st.mass * r * r, 1e-12, "its inertia, 2/5 m r^2");
  bg_check_true(st.v[0] == 0 && st.x[0] == (double)0.12f, "the refused velocity left the body as it was");
  bg_sim_destroy(sim);
}

/* No material: gravity alone, dt fixed. Semi-implicit Euler gives
 * x_n = x_0 + n dt v_0 + dt^2 g n (n + 1) / 2 exactly. */
static void test_free_flight(void) {
  printf("-- a free body in empty space\n");
  bg_sim_desc d = base_desc(40, 0.01);
  d.fixed_dt = 1e-4f;
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX;
  b.half[0] = 0.03f, b.half[1] = 0.02f, b.half[2] = 0.01f;
  b.x[0] = 0.1f, b.x[1] = 0.2f, b.x[2] = 0.3f;
  b.v[0] = 0.5f, b.v[2] = 1.0f;
  b.w[2] = 3.0f; /* about the box's z axis, a principal one */
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const int n = 300;
  if (bg_sim_run(sim, n) != BG_OK) printf("FAIL: run: %s\n", bg_sim_last_error(sim));
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  const double dt = (double)(bg_real)1e-4f;
  bg_check_abs(st.x[0], (double)0.1f + n * dt * (double)0.5f, 1e-9, "x after %d steps, x0 + n dt v0", n);
  bg_check_abs(st.x[2], (double)0.3f + n * dt * 1.0 + dt * dt * (double)(bg_real)-9.81f * n * (n + 1) / 2, 1e-9,
               "z after %d steps, z0 + n dt v0 + dt^2 g n(n+1)/2", n);
  bg_check_abs(st.v[2], 1.0 + n * dt * (double)(bg_real)-9.81f, 1e-9, "v_z, v0 + n dt g");
  bg_check_abs(st.w[2], 3.0, 1e-12, "a torque-free spin about a principal axis keeps its rate");
  /* the quaternion turns by omega t about z: q = (cos(wt/2), 0, 0, sin(wt/2)) */
  const double ang = 2.0 * atan2(st.q[3], st.q[0]);
  bg_check_abs(ang, 3.0 * n * dt, 1e-4, "and turns the box by omega t (first-order quaternion step)");
  bg_check_abs(st.force[2], 0.0, 0.0, "with no material, no force");
  /* the surface file: a box's 8 corners, the first (-hx, -hy, -hz) turned with it */
  char path[256];
  const char *dir = getenv("BAGNOLD_TEST_OUT");
  snprintf(path, sizeof path, "%s/test_body_%d.vtu", dir && *dir ? dir : "/tmp", (int)getpid());
  bg_check_true(bg_sim_write_bodies_vtu(sim, path) == BG_OK, "bg_sim_write_bodies_vtu (%s)", bg_sim_last_error(sim));
  FILE *fp = fopen(path, "r");
  char line[256];
  int np = -1, nc = -1;
  double p0[3] = {NAN, NAN, NAN};
  while (fp && fgets(line, sizeof line, fp)) {
    const char *at = strstr(line, "NumberOfPoints=");
    if (at) sscanf(at, "NumberOfPoints=\"%d\" NumberOfCells=\"%d\"", &np, &nc);
    if (strstr(line, "<DataArray type=\"Float64\" NumberOfComponents=\"3\"") && isnan(p0[0]) &&
        fgets(line, sizeof line, fp))
      sscanf(line, "%lf %lf %lf", &p0[0], &p0[1], &p0[2]);
  }
  if (fp) fclose(fp);
  remove(path);
  bg_check_true(np == 8 && nc == 12, "the file holds the box: 8 points, 12 triangles (%d, %d)", np, nc);
  const double c = cos(ang), s2 = sin(ang);
  bg_check_abs(p0[0], st.x[0] + (-0.03f) * c - (-0.02f) * s2, 1e-6, "its first corner turned with it: x");
  bg_check_abs(p0[1], st.x[1] + (-0.03f) * s2 + (-0.02f) * c, 1e-6, "and y");
  bg_sim_destroy(sim);
}

/* Zero gravity: a sand block at rest and a sphere thrown into it. */
static void test_momentum(void) {
  printf("-- momentum of sand plus body in free space\n");
  const double dx = 0.01;
  bg_sim_desc d = base_desc(32, dx);
  d.gravity[2] = 0;
  bg_body b = bg_body_default();
  b.radius = 0.03f;
  b.density = 1500.0f;
  b.x[0] = 0.09f, b.x[1] = 0.16f, b.x[2] = 0.16f;
  b.v[0] = 2.0f;
  b.v[1] = 0.3f;
  b.w[2] = 5.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double lo[3] = {0.13, 0.08, 0.08}, hi[3] = {0.23, 0.24, 0.24};
  size_t n = add_block(sim, dx, lo, hi, 0);
  bg_real *v = malloc(3 * n * sizeof *v), *m = malloc(n * sizeof *m);
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  bg_body_state st0, st;
  bg_sim_body_state(sim, 0, &st0);
  double p0[3];
  for (int a = 0; a < 3; ++a) p0[a] = st0.mass * st0.v[a];
  double worst = 0, sand = 0;
  for (int step = 0; step < 150; ++step) {
    if (bg_sim_step(sim, NULL) != BG_OK) {
      printf("FAIL: step: %s\n", bg_sim_last_error(sim));
      break;
    }
    if (step % 10 != 9) continue;
    bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
    bg_sim_body_state(sim, 0, &st);
    double p[3] = {0, 0, 0};
    for (size_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) p[a] += (double)m[i] * v[3 * i + a];
    sand = p[0];
    for (int a = 0; a < 3; ++a) {
      double e = fabs(p[a] + st.mass * st.v[a] - p0[a]);
      if (e > worst) worst = e;
    }
  }
  bg_sim_body_state(sim, 0, &st);
  const double P = st0.mass * 2.0;
  printf("   body v_x %.4f -> %.4f m/s, sand p_x %.5g kg m/s, worst |dP| %.3g of %.4g\n", st0.v[0], st.v[0], sand,
         worst, P);
  bg_check_le(st.v[0], 0.8 * st0.v[0], "the sand slowed the body (v_x at most 0.8 of its start)");
  bg_check_true(sand > 0.2 * P, "and took its momentum (sand p_x %.4g > 0.2 of %.4g)", sand, P);
  /* float sums over ~30k particles: 1e-5 of the momentum is round-off */
  bg_check_le(worst, 1e-5 * P, "sand + body momentum kept to 1e-5 of the body's initial (every 10 steps)");
  free(v);
  free(m);
  bg_sim_destroy(sim);
}

/* A scripted body dragged through sand. */
static void test_kinematic(void) {
  printf("-- a kinematic body keeps its script\n");
  const double dx = 0.01;
  bg_sim_desc d = base_desc(24, dx);
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX;
  b.half[0] = 0.015f, b.half[1] = 0.03f, b.half[2] = 0.03f;
  b.x[0] = 0.05f, b.x[1] = 0.12f, b.x[2] = 0.08f;
  b.kinematic = 1;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double lo[3] = {0.02, 0.02, 0.02}, hi[3] = {0.22, 0.22, 0.08};
  add_block(sim, dx, lo, hi, 0);
  const bg_real v[3] = {0.2f, 0, 0}, w[3] = {0, 0, 0};
  bg_sim_set_body_velocity(sim, 0, v, w);
  double t = 0;
  for (int step = 0; step < 60; ++step) {
    bg_real dt;
    bg_sim_step(sim, &dt);
    t += dt;
  }
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  bg_check_abs(st.v[0], (double)0.2f, 0.0, "its velocity is the script's");
  bg_check_abs(st.x[0], (double)0.05f + (double)0.2f * t, 1e-6, "and its position x0 + v t");
  bg_check_true(st.force[0] < 0, "the sand drags it back (force_x %.4g N)", st.force[0]);
  double wf[3 * 7];
  bg_sim_wall_forces(sim, wf, 21);
  bg_check_abs(wf[0], st.force[0], 0.0, "bg_sim_wall_forces lists it first, the same force");
  bg_sim_destroy(sim);
}

/* A sled of friction mu on an elastic slab fixed to the floor, gravity
 * tilted by theta: below tan theta = mu it stays (static friction holds
 * it), above it slides down the slope with a = g (sin theta - mu cos
 * theta). The slab's top nodes carry the sled: the friction is the body's
 * own Coulomb law, node by node, capped at mu times each node's normal
 * impulse. The sled overhangs the slab at both ends: a face across the
 * motion whose nodes lie within the material's reach (its B-splines reach
 * 1.5 cells above the surface) would plough it, a resistance on top of
 * friction (measured: a 5.5 x 5.5 x 4 cm box at 1 cm cells, at 40 deg,
 * stopped with force ratio 0.76-0.83 for mu 0.5). It is 4 cells tall so
 * that the nodes the material reaches take its bottom's normal. Returns the
 * measured acceleration along the slope. */
static double incline_run(double theta_deg, double mu, double *x_moved) {
  const double dx = 0.01, th = theta_deg * 3.14159265358979 / 180.0, g = 9.81;
  bg_sim_desc d = base_desc(40, dx);
  d.dims[1] = 16;
  d.dims[2] = 12;
  d.material = bg_material_default(BG_MODEL_ELASTIC);
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_STICK;
  /* the floor's plane lies 1.5 cells up, midway between node planes: the
   * slab's edge starts on its last solid node (bg_wall_edge_offset), so
   * from z = dx to the top at 4 dx; the box's bottom lies midway between
   * node planes half a cell below that top, where it acts */
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX;
  b.half[0] = 0.25f;
  b.half[1] = 0.0275f; /* its y faces 0.25 cells off the node planes: none on a node */
  b.half[2] = 0.02f;
  b.density = 1000.0f;
  b.mu = (bg_real)mu;
  b.x[0] = 0.20f, b.x[1] = 0.08f, b.x[2] = (bg_real)(3.5 * dx + 0.02);
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double lo[3] = {0.02, 0.015, dx}, hi[3] = {0.38, 0.145, 4 * dx};
  add_block(sim, dx, lo, hi, 0);
  /* settled level and damped first (placed at rest, the sled would bounce on
   * the slab and creep down in its light phases), then tilted: fit
   * x(t) = x0 + v0 t + a t^2 / 2 over the window */
  bg_sim_set_damping(sim, 200.0f);
  bg_sim_advance_to(sim, 0.08);
  bg_sim_set_damping(sim, 0.0f);
  const bg_real gt[3] = {(bg_real)(g * sin(th)), 0, (bg_real)(-g * cos(th))};
  bg_sim_set_gravity(sim, gt);
  double t = 0, sx = 0, st = 0, st2 = 0, st3 = 0, st4 = 0, sxt = 0, sxt2 = 0, x0 = -1;
  int n = 0;
  while (t < 0.13) {
    bg_real dt;
    if (bg_sim_step(sim, &dt) != BG_OK) {
      printf("FAIL: step: %s\n", bg_sim_last_error(sim));
      break;
    }
    t += dt;
    if (t < 0.03) continue;
    bg_body_state bs;
    bg_sim_body_state(sim, 0, &bs);
    if (x0 < 0) x0 = bs.x[0];
    double u = t - 0.03, x = bs.x[0] - x0;
    sx += x, st += u, st2 += u * u, st3 += u * u * u, st4 += u * u * u * u, sxt += x * u, sxt2 += x * u * u;
    n++;
  }
  bg_body_state bs;
  bg_sim_body_state(sim, 0, &bs);
  *x_moved = bs.x[0] - x0;
  bg_sim_destroy(sim);
  /* least squares for (c0, c1, c2) in x = c0 + c1 u + c2 u^2: the normal equations */
  double A[3][4] = {{n, st, st2, sx}, {st, st2, st3, sxt}, {st2, st3, st4, sxt2}};
  for (int i = 0; i < 3; ++i)
    for (int k = i + 1; k < 3; ++k) {
      double f = A[k][i] / A[i][i];
      for (int j = i; j < 4; ++j) A[k][j] -= f * A[i][j];
    }
  double c[3];
  for (int i = 2; i >= 0; --i) {
    double r = A[i][3];
    for (int j = i + 1; j < 3; ++j) r -= A[i][j] * c[j];
    c[i] = r / A[i][i];
  }
  return 2.0 * c[2];
}

static void test_incline(void) {
  printf("-- a sled on a frictional incline\n");
  const double mu = 0.5, g = 9.81;
  /* atan 0.5 = 26.57 deg: 20 sticks; 30 and 40 slide. (At 24 deg it
   * creeps 0.8 mm: the tilt, sudden, sets the slab ringing, and in the light
   * phases of the normal force, 11% below its mean, friction lets go.) */
  const double angles[3] = {20.0, 30.0, 40.0};
  for (int k = 0; k < 3; ++k) {
    double moved, acc = incline_run(angles[k], mu, &moved);
    const double th = angles[k] * 3.14159265358979 / 180.0, want = g * (sin(th) - mu * cos(th));
    printf("   theta %.0f deg: moved %.4g m in 0.1 s, a %.4g m/s^2 (Coulomb %.4g)\n", angles[k], moved, acc, want);
    if (want <= 0) {
      /* a slide at the 30 deg rate would move it 3.3 mm in the window */
      bg_check_le(fabs(moved), 1e-4, "theta %.0f deg < atan mu: it stays (under 0.1 mm in 0.1 s)", angles[k]);
    } else {
      /* the slab's residual vibration after the tilt moves the normal force: 3% */
      bg_check_rel(acc, want, 0.03, "theta %.0f deg > atan mu: it slides at g (sin theta - mu cos theta)", angles[k]);
    }
  }
}

/* A run with a body saved mid-way and resumed from the file continues as
 * the run itself did: bit for bit on a host backend (sums in a fixed
 * order), within float round-off on a device. */
static void test_checkpoint(void) {
  printf("-- a checkpoint carries the body\n");
  const double dx = 0.01;
  bg_sim_desc d = base_desc(24, dx);
  bg_body b = bg_body_default();
  b.radius = 0.025f;
  b.density = 3000.0f;
  b.x[0] = b.x[1] = 0.12f, b.x[2] = 0.13f;
  b.v[2] = -1.0f;
  b.w[0] = 4.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *a = make(&d);
  const double lo[3] = {0.02, 0.02, 0.02}, hi[3] = {0.22, 0.22, 0.09};
  size_t n = add_block(a, dx, lo, hi, 0);
  bg_sim_run(a, 30);
  char path[256];
  const char *dir = getenv("BAGNOLD_TEST_OUT");
  snprintf(path, sizeof path, "%s/test_body_%d.bgck", dir && *dir ? dir : "/tmp", (int)getpid());
  if (!bg_check_true(bg_sim_save(a, path, NULL, 0) == BG_OK, "saved with a body (%s)", bg_sim_last_error(a))) {
    bg_sim_destroy(a);
    return;
  }
  bg_check_resume_body(a, path, g_backend, 30, n);
}

/* ------------------------------------------------------------ 2D */

static bg_sim_desc plane_desc(size_t n, double dx) {
  bg_sim_desc d = base_desc(n, dx);
  d.dim = 2;
  d.dims[1] = 1;
  return d;
}

/* A body in the plane must stay in it; each way out is refused, named. */
static void test_plane_errors(void) {
  printf("-- 2D: bodies off the plane are refused, named\n");
  const char *want[] = {"bodies[0].x[1] = ", "bodies[0].v[1] = ", "bodies[0].w must be about y",
                        "bodies[0].q must be a rotation about y", "bodies[0].axis must be 0 or along y"};
  for (int t = 0; t < 5; ++t) {
    bg_sim_desc d = plane_desc(24, 0.01);
    bg_body b = bg_body_default();
    b.x[0] = b.x[2] = 0.12f;
    switch (t) {
      case 0: b.x[1] = 0.01f; break;
      case 1: b.v[1] = 0.1f; break;
      case 2: b.w[2] = 1.0f; break;
      case 3: b.q[0] = 0.9f, b.q[1] = 0.1f; break;
      case 4: b.axis[0] = 1.0f; break;
    }
    d.bodies = &b;
    d.n_bodies = 1;
    char err[512] = "";
    bg_sim *sim = NULL;
    bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
    bg_check_true(s != BG_OK && sim == NULL && strstr(err, want[t]) != NULL, "refused: \"%s\" (said: %s)", want[t],
                  err);
    bg_sim_destroy(sim);
  }
  /* per metre of depth: a box is a prism (half[1] unread), a sphere a cylinder */
  bg_sim_desc d = plane_desc(24, 0.01);
  bg_body b[2] = {bg_body_default(), bg_body_default()};
  b[0].shape = BG_BODY_BOX;
  b[0].half[0] = 0.03f, b[0].half[1] = 0, b[0].half[2] = 0.01f;
  b[0].q[0] = (bg_real)cos(0.3), b[0].q[2] = (bg_real)sin(0.3);
  b[1].radius = 0.02f;
  for (int k = 0; k < 2; ++k) b[k].x[0] = b[k].x[2] = 0.12f;
  d.bodies = b;
  d.n_bodies = 2;
  bg_sim *sim = make(&d);
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  const double hx = (double)0.03f, hz = (double)0.01f, r = (double)0.02f;
  bg_check_rel(st.mass, 1000.0 * 4 * hx * hz, 1e-12, "a 2D box's mass, rho 4 hx hz (kg/m)");
  bg_check_rel(st.inertia[1], st.mass * (4 * hx * hx + 4 * hz * hz) / 12, 1e-12, "its I_y, m (4hx^2 + 4hz^2)/12");
  bg_sim_body_state(sim, 1, &st);
  bg_check_rel(st.mass, 1000.0 * 3.14159265358979 * r * r, 1e-12, "a 2D sphere is a cylinder: rho pi r^2");
  bg_check_rel(st.inertia[1], 0.5 * st.mass * r * r, 1e-12, "its I_y, m r^2 / 2");
  const bg_real vy[3] = {0, 0.1f, 0}, wx[3] = {1, 0, 0}, zero[3] = {0, 0, 0};
  bg_check_true(bg_sim_set_body_velocity(sim, 0, vy, zero) == BG_ERR_RANGE, "a scripted v[1] is refused");
  bg_check_true(bg_sim_set_body_velocity(sim, 0, zero, wx) == BG_ERR_RANGE, "a scripted w[0] is refused");
  bg_sim_destroy(sim);
}

/* Gravity alone in the plane, dt fixed: the discrete ballistic law exactly,
 * and a spin about y (a principal axis of the prism) kept. */
static void test_plane_flight(void) {
  printf("-- 2D: a free body in empty space\n");
  bg_sim_desc d = plane_desc(40, 0.01);
  d.fixed_dt = 1e-4f;
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX;
  b.half[0] = 0.03f, b.half[2] = 0.01f;
  b.q[0] = (bg_real)cos(0.2), b.q[2] = (bg_real)sin(0.2);
  b.x[0] = 0.1f, b.x[2] = 0.3f;
  b.v[0] = 0.5f, b.v[2] = 1.0f;
  b.w[1] = 3.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const int n = 100;
  if (bg_sim_run(sim, n) != BG_OK) printf("FAIL: run: %s\n", bg_sim_last_error(sim));
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  const double dt = (double)(bg_real)1e-4f;
  bg_check_abs(st.x[0], (double)0.1f + n * dt * (double)0.5f, 1e-9, "x after %d steps, x0 + n dt v0", n);
  bg_check_abs(st.x[2], (double)0.3f + n * dt * 1.0 + dt * dt * (double)(bg_real)-9.81f * n * (n + 1) / 2, 1e-9,
               "z after %d steps, z0 + n dt v0 + dt^2 g n(n+1)/2", n);
  bg_check_abs(st.x[1], 0.0, 0.0, "y stays on the plane");
  bg_check_abs(st.w[1], 3.0, 1e-12, "the spin about y keeps its rate");
  bg_check_true(st.q[1] == 0 && st.q[3] == 0, "and the rotation stays about y (q %g %g)", st.q[1], st.q[3]);
  const double ang = 2.0 * atan2(st.q[2], st.q[0]);
  bg_check_abs(ang, 0.4 + 3.0 * n * dt, 1e-5, "it turns by omega t from its start");
  bg_sim_destroy(sim);
}

/* A plate 6 cells long and 4 thick, tilted 20 degrees about y, dragged
 * sideways through a 2D sand bed: the script holds, the bed drags it back
 * and pushes it up, and the walls' list carries that force, per metre. */
static void test_plane_plate(void) {
  printf("-- 2D: a kinematic plate dragged through sand\n");
  const double dx = 0.01;
  bg_sim_desc d = plane_desc(32, dx);
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX;
  b.half[0] = 0.03f, b.half[2] = 0.02f;
  b.q[0] = (bg_real)cos(0.5 * 0.349), b.q[2] = (bg_real)sin(0.5 * 0.349);
  b.x[0] = 0.08f, b.x[2] = 0.12f;
  b.kinematic = 1;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *sim = make(&d);
  const double lo[3] = {0.02, 0, 0.02}, hi[3] = {0.30, 0, 0.16};
  double h = 0.5 * dx;
  size_t nx = (size_t)lround((hi[0] - lo[0]) / h), nz = (size_t)lround((hi[2] - lo[2]) / h), n = 0;
  bg_real *x = malloc(3 * nx * nz * sizeof *x);
  for (size_t i = 0; i < nx; ++i)
    for (size_t l = 0; l < nz; ++l) {
      x[3 * n] = (bg_real)(lo[0] + (i + 0.5) * h), x[3 * n + 1] = 0, x[3 * n + 2] = (bg_real)(lo[2] + (l + 0.5) * h);
      ++n;
    }
  bg_check_true(bg_sim_add_particles(sim, n, x, NULL, 4) == BG_OK, "a 2D bed of %zu particles", n);
  free(x);
  const bg_real v[3] = {0.1f, 0, 0}, w[3] = {0, 0, 0};
  bg_sim_set_body_velocity(sim, 0, v, w);
  double t = 0, fx = 0, fz = 0;
  const int steps = 200;
  for (int step = 0; step < steps; ++step) {
    bg_real dt;
    bg_sim_step(sim, &dt);
    t += dt;
    if (step < steps / 2) continue;
    double wf[3 * 7]; /* the body, then the 6 faces */
    if (bg_sim_wall_forces(sim, wf, 21) != BG_OK) printf("FAIL: wall forces: %s\n", bg_sim_last_error(sim));
    fx += wf[0] / (steps / 2), fz += wf[2] / (steps / 2);
  }
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  printf("   mean force over the second half: %.4g, %.4g N/m\n", fx, fz);
  bg_check_abs(st.x[0], (double)0.08f + (double)0.1f * t, 1e-6, "its position is x0 + v t");
  bg_check_true(fx < 0, "the bed drags it back (F_x %.4g N/m)", fx);
  /* turned +20 deg about y its leading edge points down: the face that
   * pushes the sand faces up, so the sand presses it down */
  bg_check_true(fz < 0, "and presses its upward-facing leading face down (F_z %.4g N/m)", fz);
  bg_check_abs(st.force[1], 0.0, 0.0, "no force out of the plane");
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
  double t0 = now_s(), t = t0;
  void (*tests[])(void) = {test_errors,  test_free_flight, test_momentum,      test_kinematic,
                           test_incline, test_checkpoint,  test_plane_errors, test_plane_flight,
                           test_plane_plate};
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; ++i) {
    tests[i]();
    double t1 = now_s();
    printf("   (%.1f s)\n", t1 - t);
    t = t1;
  }
  printf("total %.1f s\n", now_s() - t0);
  return bg_check_summary();
}
