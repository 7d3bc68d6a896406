/* test_body_mesh.c: rigid bodies shaped by a closed triangle mesh
 * (BG_BODY_MESH), on one backend (argv[1]):
 *  - a NULL mesh and a mesh body in 2D are refused, named;
 *  - a box written as an OBJ, turned and moved in the file, has the box's
 *    mass and principal moments (exact for a polyhedron), its centre of
 *    mass where the file puts it, and reports the orientation it was given;
 *  - dropped onto sand beside the analytic box of the same pose, it sinks
 *    as that box does (the two shapes differ only by the distance lattice's
 *    interpolation);
 *  - its VTU holds the mesh's own triangles;
 *  - a run saved with a mesh body and loaded (the caller's mesh destroyed
 *    by then) continues as the run itself does, and a file of another mesh
 *    is refused as another descriptor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_check_resume.h"

static const char *g_backend = "cpu/ref";
static char g_dir[200];

/* A box of half-extents h, turned by the rotation about z by az then about
 * x by ax, centred at c, as an OBJ at path (outward triangles). */
static void write_box_obj(const char *path, const double h[3], double az, double ax, const double c[3]) {
  FILE *fp = fopen(path, "w");
  if (!fp) {
    printf("FAIL: cannot write %s\n", path);
    exit(1);
  }
  const double cz = cos(az), sz = sin(az), cx = cos(ax), sx = sin(ax);
  for (int v = 0; v < 8; ++v) {
    double p[3], q[3], r[3];
    for (int a = 0; a < 3; ++a) p[a] = ((v >> a) & 1 ? 1.0 : -1.0) * h[a];
    q[0] = cz * p[0] - sz * p[1], q[1] = sz * p[0] + cz * p[1], q[2] = p[2];
    r[0] = q[0], r[1] = cx * q[1] - sx * q[2], r[2] = sx * q[1] + cx * q[2];
    fprintf(fp, "v %.17g %.17g %.17g\n", r[0] + c[0], r[1] + c[1], r[2] + c[2]);
  }
  /* the twelve triangles of bagnold's own box (body_vtu.c), 1-based */
  static const int f[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                               {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  for (int t = 0; t < 12; ++t) fprintf(fp, "f %d %d %d\n", f[t][0] + 1, f[t][1] + 1, f[t][2] + 1);
  fclose(fp);
}

static bg_mesh *load(const char *path) {
  char err[512];
  bg_mesh *m = NULL;
  if (bg_mesh_load(path, &m, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_mesh_load: %s\n", err);
    exit(1);
  }
  return m;
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
  if (bg_sim_create(d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: bg_sim_create: %s\n", err);
    exit(1);
  }
  return sim;
}

/* A sand layer of 8 particles per cell filling [lo, hi). */
static size_t add_layer(bg_sim *sim, double dx, const double lo[3], const double hi[3]) {
  const double h = 0.5 * dx;
  size_t nx = (size_t)lround((hi[0] - lo[0]) / h), ny = (size_t)lround((hi[1] - lo[1]) / h),
         nz = (size_t)lround((hi[2] - lo[2]) / h), n = 0;
  bg_real *x = malloc(3 * nx * ny * nz * sizeof *x);
  for (size_t i = 0; i < nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t l = 0; l < nz; ++l, ++n) {
        x[3 * n] = (bg_real)(lo[0] + (i + 0.5) * h);
        x[3 * n + 1] = (bg_real)(lo[1] + (j + 0.5) * h);
        x[3 * n + 2] = (bg_real)(lo[2] + (l + 0.5) * h);
      }
  if (bg_sim_add_particles(sim, n, x, NULL, 8) != BG_OK) {
    printf("FAIL: add particles: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  free(x);
  return n;
}

static void test_errors(void) {
  printf("-- a mesh body's refusals\n");
  bg_sim_desc d = base_desc(16, 0.01);
  bg_body b = bg_body_default();
  b.shape = BG_BODY_MESH;
  b.x[0] = b.x[1] = b.x[2] = 0.08f;
  d.bodies = &b;
  d.n_bodies = 1;
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_check_true(s == BG_ERR_NULL && strstr(err, "bodies[0].mesh") && !sim, "a NULL mesh: %s", err);
  char path[300];
  snprintf(path, sizeof path, "%s/mesh_err_%d.obj", g_dir, (int)getpid());
  const double h[3] = {0.02, 0.02, 0.02}, c[3] = {0, 0, 0};
  write_box_obj(path, h, 0, 0, c);
  bg_mesh *m = load(path);
  remove(path);
  b.mesh = m;
  d.dim = 2;
  d.dims[1] = 1;
  b.x[1] = d.origin[1];
  s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "3D only") && !sim, "a mesh body in 2D: %s", err);
  bg_mesh_destroy(m);
}

/* The turned box: mass, moments and centre exact, orientation as given. */
static void test_mass(void) {
  printf("-- a box from a mesh: mass, principal moments, centre, orientation\n");
  char path[300];
  snprintf(path, sizeof path, "%s/mesh_box_%d.obj", g_dir, (int)getpid());
  const double h[3] = {0.03, 0.02, 0.01}, c[3] = {0.5, -0.2, 0.1}, rho = 2500;
  write_box_obj(path, h, 0.5, 0.3, c);
  bg_mesh *m = load(path);
  remove(path);
  bg_sim_desc d = base_desc(24, 0.01);
  bg_body b = bg_body_default();
  b.shape = BG_BODY_MESH;
  b.mesh = m;
  b.density = (bg_real)rho;
  b.x[0] = b.x[1] = b.x[2] = 0.12f;
  const double q0[4] = {0.9, 0.1, -0.3, 0.2};
  double qn = 0;
  for (int a = 0; a < 4; ++a) qn += q0[a] * q0[a];
  for (int a = 0; a < 4; ++a) b.q[a] = (bg_real)(q0[a] / sqrt(qn));
  d.bodies = &b;
  d.n_bodies = 1;
  d.gravity[2] = 0;
  bg_sim *sim = make(&d);
  bg_mesh_destroy(m); /* the simulation holds its own copy */
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  const double mass = rho * 8 * h[0] * h[1] * h[2];
  double want[3] = {mass / 3 * (h[1] * h[1] + h[2] * h[2]), mass / 3 * (h[0] * h[0] + h[2] * h[2]),
                    mass / 3 * (h[0] * h[0] + h[1] * h[1])};
  double got[3] = {st.inertia[0], st.inertia[1], st.inertia[2]};
  /* principal moments in any order: compare sorted */
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      if (want[j] < want[i]) { double t = want[i]; want[i] = want[j]; want[j] = t; }
      if (got[j] < got[i]) { double t = got[i]; got[i] = got[j]; got[j] = t; }
    }
  printf("   mass %.9g kg (box %.9g); moments %.6g %.6g %.6g (box %.6g %.6g %.6g) kg m^2\n", st.mass, mass, got[0],
         got[1], got[2], want[0], want[1], want[2]);
  bg_check_rel(st.mass, mass, 1e-12, "the mesh box's mass is the box's");
  for (int a = 0; a < 3; ++a) bg_check_rel(got[a], want[a], 1e-9, "principal moment %d", a);
  /* the orientation reported is the one given (the principal frame is inside) */
  double dq = 0, sgn = st.q[0] * b.q[0] + st.q[1] * b.q[1] + st.q[2] * b.q[2] + st.q[3] * b.q[3] < 0 ? -1 : 1;
  for (int a = 0; a < 4; ++a) dq = fmax(dq, fabs(sgn * st.q[a] - b.q[a]));
  bg_check_abs(dq, 0.0, 1e-6, "the orientation reads back as given");
  bg_check_abs(st.x[2], 0.12, 1e-6, "the centre of mass stands at x");
  bg_sim_destroy(sim);
}

/* The mesh box and the analytic box, each alone on a sand layer, dropped
 * at 1 m/s; returns the body's height after t_end, and writes the VTU. */
static double drop(int mesh, double *sand_mass_moved, const char *vtu) {
  const double dx = 0.01, h[3] = {0.02, 0.02, 0.02}, c0[3] = {0, 0, 0};
  bg_sim_desc d = base_desc(20, dx);
  bg_body b = bg_body_default();
  bg_mesh *m = NULL;
  if (mesh) {
    char path[300];
    snprintf(path, sizeof path, "%s/mesh_drop_%d.obj", g_dir, (int)getpid());
    write_box_obj(path, h, 0, 0, c0);
    m = load(path);
    remove(path);
    b.shape = BG_BODY_MESH;
    b.mesh = m;
  } else {
    b.shape = BG_BODY_BOX;
    for (int a = 0; a < 3; ++a) b.half[a] = (bg_real)h[a];
  }
  b.density = 4000;
  b.x[0] = b.x[1] = 0.1f, b.x[2] = 0.115f;
  b.v[2] = -1.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  bg_sim *sim = make(&d);
  bg_mesh_destroy(m);
  const double lo[3] = {0.02, 0.02, 0.02}, hi[3] = {0.18, 0.18, 0.08};
  add_layer(sim, dx, lo, hi);
  bg_sim_advance_to(sim, 0.06);
  bg_body_state st;
  bg_sim_body_state(sim, 0, &st);
  bg_stats s;
  bg_sim_stats(sim, &s);
  *sand_mass_moved = s.total_mass;
  if (vtu) bg_check_true(bg_sim_write_bodies_vtu(sim, vtu) == BG_OK, "the VTU (%s)", bg_sim_last_error(sim));
  bg_sim_destroy(sim);
  return st.x[2];
}

static void test_drop(void) {
  printf("-- a mesh box sinks into sand as the analytic box does\n");
  char vtu[300];
  snprintf(vtu, sizeof vtu, "%s/mesh_drop_%d.vtu", g_dir, (int)getpid());
  double ma, mm;
  const double za = drop(0, &ma, NULL), zm = drop(1, &mm, vtu);
  const double z0 = 0.08 + 0.02; /* the box's centre with its bottom on the surface */
  printf("   after 0.06 s: analytic box centre %.5f m (%.2f mm below touching), mesh box %.5f m\n", za,
         1e3 * (z0 - za), zm);
  bg_check_true(za < z0 - 0.002, "the analytic box sinks into the sand (%.2f mm)", 1e3 * (z0 - za));
  /* a quarter cell: the lattice's interpolation moves the surface by far less */
  bg_check_abs(zm, za, 0.25 * 0.01, "the mesh box's height is the analytic box's");
  FILE *fp = fopen(vtu, "r");
  char buf[4096] = "";
  if (fp) {
    size_t got = fread(buf, 1, sizeof buf - 1, fp);
    buf[got] = 0;
    fclose(fp);
  }
  remove(vtu);
  bg_check_true(strstr(buf, "NumberOfPoints=\"8\" NumberOfCells=\"12\"") != NULL,
                "the VTU holds the mesh's 8 vertices and 12 triangles");
}

/* Saved with a mesh body, loaded, continued: as the run itself. */
static void test_checkpoint(void) {
  printf("-- a checkpoint carries the mesh body\n");
  const double dx = 0.01, h[3] = {0.03, 0.015, 0.02}, c0[3] = {0.01, 0.02, -0.03};
  char obj[300], path[300], other[300];
  snprintf(obj, sizeof obj, "%s/mesh_ck_%d.obj", g_dir, (int)getpid());
  snprintf(path, sizeof path, "%s/mesh_ck_%d.bgck", g_dir, (int)getpid());
  snprintf(other, sizeof other, "%s/mesh_ck2_%d.bgck", g_dir, (int)getpid());
  write_box_obj(obj, h, 0.4, 0.2, c0);
  bg_mesh *m = load(obj);
  remove(obj);
  bg_sim_desc d = base_desc(20, dx);
  bg_body b = bg_body_default();
  b.shape = BG_BODY_MESH;
  b.mesh = m;
  b.density = 3000;
  b.x[0] = b.x[1] = 0.1f, b.x[2] = 0.12f;
  b.v[2] = -1.0f;
  b.w[0] = 5.0f;
  d.bodies = &b;
  d.n_bodies = 1;
  bg_sim *a = make(&d);
  const double lo[3] = {0.02, 0.02, 0.02}, hi[3] = {0.18, 0.18, 0.08};
  size_t n = add_layer(a, dx, lo, hi);
  bg_sim_run(a, 30);
  bg_check_true(bg_sim_save(a, path, NULL, 0) == BG_OK, "saved with a mesh body (%s)", bg_sim_last_error(a));
  /* another mesh, otherwise the same: its file is another descriptor's */
  const double h2[3] = {0.03, 0.015, 0.021};
  write_box_obj(obj, h2, 0.4, 0.2, c0);
  bg_mesh *m2 = load(obj);
  remove(obj);
  b.mesh = m2;
  bg_sim *o = make(&d);
  bg_mesh_destroy(m2);
  bg_mesh_destroy(m);
  add_layer(o, dx, lo, hi);
  bg_sim_run(o, 30);
  bg_sim_save(o, other, NULL, 0);
  bg_status rs = bg_sim_restore(a, other, NULL, 0, NULL);
  bg_check_true(rs == BG_ERR_MISMATCH && strstr(bg_sim_last_error(a), "bodies[0]"),
                "a file of another mesh is another descriptor (%s)", bg_sim_last_error(a));
  remove(other);
  bg_sim_destroy(o);
  bg_check_resume_body(a, path, g_backend, 30, n);
}

int main(int argc, char **argv) {
  if (argc > 1) g_backend = argv[1];
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[512];
  if (!bg_backend_available(g_backend, why, sizeof why)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", g_backend, why);
    return BG_CHECK_SKIP;
  }
  const char *dir = getenv("BAGNOLD_TEST_OUT");
  snprintf(g_dir, sizeof g_dir, "%s", dir && *dir ? dir : "/tmp");
  test_errors();
  test_mass();
  test_drop();
  test_checkpoint();
  return bg_check_summary();
}
