/* test_mesh.c: meshes from files. A unit cube and an icosphere, written by
 * this test as OBJ, ASCII STL and binary STL, read back to the same
 * surface; their signed distance on a grid against the analytic box and
 * sphere (exact for the box; within the facets' sag for the sphere), its
 * sign at every node, the inside test as a seeding region; PLY points
 * (ascii and binary); every malformed file refused with its name and its
 * problem in the message, an open mesh among them. Host only. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"

static char g_dir[64];

static const char *path_of(const char *name) {
  static char p[8][256];
  static int k;
  k = (k + 1) % 8;
  snprintf(p[k], sizeof p[k], "%s/%s", g_dir, name);
  return p[k];
}

static const char *write_file(const char *name, const void *data, size_t n) {
  const char *p = path_of(name);
  FILE *f = fopen(p, "wb");
  if (!f || fwrite(data, 1, n, f) != n) {
    fprintf(stderr, "cannot write %s\n", p);
    exit(1);
  }
  fclose(f);
  return p;
}
static const char *write_text(const char *name, const char *text) {
  return write_file(name, text, strlen(text));
}

/* --------------------------------------------------------------- shapes */

typedef struct shape {
  int nv, nt;
  double v[3 * 700];
  int t[3 * 1300];
} shape;

/* [0,1]^3, outward triangles */
static void make_cube(shape *s) {
  static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                  {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  s->nv = 8;
  for (int i = 0; i < 8; ++i) {
    s->v[3 * i] = (i >> 2) & 1;
    s->v[3 * i + 1] = (i >> 1) & 1;
    s->v[3 * i + 2] = i & 1;
  }
  s->nt = 12;
  for (int q = 0; q < 6; ++q) {
    const int *c = quads[q];
    int *t = s->t + 6 * q;
    t[0] = c[0], t[1] = c[1], t[2] = c[2], t[3] = c[0], t[4] = c[2], t[5] = c[3];
  }
}

static int midpoint(shape *s, int a, int b, int *cache_a, int *cache_b, int *cache_m, int *nc) {
  for (int i = 0; i < *nc; ++i)
    if ((cache_a[i] == a && cache_b[i] == b) || (cache_a[i] == b && cache_b[i] == a))
      return cache_m[i];
  double m[3], r = 0;
  for (int k = 0; k < 3; ++k) {
    m[k] = s->v[3 * a + k] + s->v[3 * b + k];
    r += m[k] * m[k];
  }
  for (int k = 0; k < 3; ++k) s->v[3 * s->nv + k] = m[k] / sqrt(r);
  cache_a[*nc] = a, cache_b[*nc] = b, cache_m[*nc] = s->nv;
  (*nc)++;
  return s->nv++;
}

/* unit-radius icosahedron subdivided 3 times (642 vertices, 1280 faces),
 * coordinates rounded to float so that every format holds the same values */
static void make_icosphere(shape *s) {
  double p = (1 + sqrt(5.0)) / 2;
  double v0[12][3] = {{-1, p, 0},  {1, p, 0},  {-1, -p, 0}, {1, -p, 0}, {0, -1, p},  {0, 1, p},
                      {0, -1, -p}, {0, 1, -p}, {p, 0, -1},  {p, 0, 1},  {-p, 0, -1}, {-p, 0, 1}};
  static const int f0[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  s->nv = 12;
  for (int i = 0; i < 12; ++i) {
    double r = sqrt(v0[i][0] * v0[i][0] + v0[i][1] * v0[i][1] + v0[i][2] * v0[i][2]);
    for (int k = 0; k < 3; ++k) s->v[3 * i + k] = v0[i][k] / r;
  }
  s->nt = 20;
  memcpy(s->t, f0, sizeof f0);
  static int ca[2000], cb[2000], cm[2000], tn[3 * 1300];
  for (int level = 0; level < 3; ++level) {
    int nc = 0, nt = 0;
    for (int f = 0; f < s->nt; ++f) {
      int a = s->t[3 * f], b = s->t[3 * f + 1], c = s->t[3 * f + 2];
      int ab = midpoint(s, a, b, ca, cb, cm, &nc), bc = midpoint(s, b, c, ca, cb, cm, &nc),
          ac = midpoint(s, a, c, ca, cb, cm, &nc);
      int q[4][3] = {{a, ab, ac}, {b, bc, ab}, {c, ac, bc}, {ab, bc, ac}};
      memcpy(tn + 3 * nt, q, sizeof q);
      nt += 4;
    }
    s->nt = nt;
    memcpy(s->t, tn, (size_t)nt * 3 * sizeof *tn);
  }
  for (int i = 0; i < 3 * s->nv; ++i) s->v[i] = (float)s->v[i];
}

/* ------------------------------------------------------------- writers */

static const char *write_obj(const char *name, const shape *s, int skip_tri, int flip_tri) {
  size_t cap = 200000, n = 0;
  char *b = malloc(cap);
  n += (size_t)snprintf(b + n, cap - n, "# written by test_mesh\no shape\n");
  for (int i = 0; i < s->nv; ++i)
    n += (size_t)snprintf(b + n, cap - n, "v %.17g %.17g %.17g\n", s->v[3 * i], s->v[3 * i + 1],
                          s->v[3 * i + 2]);
  for (int f = 0; f < s->nt; ++f) {
    if (f == skip_tri) continue;
    const int *t = s->t + 3 * f;
    if (f == flip_tri)
      n += (size_t)snprintf(b + n, cap - n, "f %d %d %d\n", t[0] + 1, t[2] + 1, t[1] + 1);
    else
      n += (size_t)snprintf(b + n, cap - n, "f %d/%d %d//%d %d\n", t[0] + 1, t[0] + 1, t[1] + 1,
                            t[1] + 1, t[2] + 1);
  }
  const char *p = write_file(name, b, n);
  free(b);
  return p;
}

static const char *write_stl_ascii(const char *name, const shape *s) {
  size_t cap = 600000, n = 0;
  char *b = malloc(cap);
  n += (size_t)snprintf(b + n, cap - n, "solid test\n");
  for (int f = 0; f < s->nt; ++f) {
    n += (size_t)snprintf(b + n, cap - n, "  facet normal 0 0 0\n    outer loop\n");
    for (int k = 0; k < 3; ++k) {
      const double *v = s->v + 3 * s->t[3 * f + k];
      n += (size_t)snprintf(b + n, cap - n, "      vertex %.17g %.17g %.17g\n", v[0], v[1], v[2]);
    }
    n += (size_t)snprintf(b + n, cap - n, "    endloop\n  endfacet\n");
  }
  n += (size_t)snprintf(b + n, cap - n, "endsolid test\n");
  const char *p = write_file(name, b, n);
  free(b);
  return p;
}

/* little-endian float at b */
static void put_f32(unsigned char *b, float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  for (int k = 0; k < 4; ++k) b[k] = (unsigned char)(u >> (8 * k));
}

/* a binary STL; its header begins with "solid" to prove the size decides */
static size_t stl_binary_bytes(const shape *s, unsigned char *b) {
  memset(b, 0, 84);
  memcpy(b, "solid binary header", 19);
  uint32_t n = (uint32_t)s->nt;
  for (int k = 0; k < 4; ++k) b[80 + k] = (unsigned char)(n >> (8 * k));
  for (int f = 0; f < s->nt; ++f) {
    unsigned char *r = b + 84 + 50 * f;
    memset(r, 0, 50);
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a)
        put_f32(r + 12 + 12 * k + 4 * a, (float)s->v[3 * s->t[3 * f + k] + a]);
  }
  return 84 + 50 * (size_t)s->nt;
}

/* ------------------------------------------------------------ analytic */

static double box_sdf(const double p[3]) {
  double q[3], out = 0, in = -INFINITY;
  for (int a = 0; a < 3; ++a) {
    q[a] = fabs(p[a] - 0.5) - 0.5;
    out += fmax(q[a], 0) * fmax(q[a], 0);
    in = fmax(in, q[a]);
  }
  return sqrt(out) + fmin(in, 0);
}

/* the facets' deepest point inside the unit sphere: min over faces of the
 * distance from the centre to the face's plane (every face of an icosphere
 * holds the foot of that perpendicular, its faces being near-equilateral) */
static double icosphere_rmin(const shape *s) {
  double r = INFINITY;
  for (int f = 0; f < s->nt; ++f) {
    const double *a = s->v + 3 * s->t[3 * f], *b = s->v + 3 * s->t[3 * f + 1],
                 *c = s->v + 3 * s->t[3 * f + 2];
    double u[3], w[3], n[3];
    for (int k = 0; k < 3; ++k) u[k] = b[k] - a[k], w[k] = c[k] - a[k];
    n[0] = u[1] * w[2] - u[2] * w[1], n[1] = u[2] * w[0] - u[0] * w[2],
    n[2] = u[0] * w[1] - u[1] * w[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    r = fmin(r, fabs(n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / nn);
  }
  return r;
}

/* ---------------------------------------------------------- grid checks */

typedef double (*sdf_fn)(const double p[3]);

/* max |phi - analytic| over the grid, and sign errors where |analytic| > band */
static void compare_grid(const bg_mesh *m, const size_t dims[3], double dx, const double o[3],
                         sdf_fn f, double band, double *max_err, long *sign_err, bg_real *phi) {
  char err[512];
  size_t nn = dims[0] * dims[1] * dims[2];
  bg_status s = bg_mesh_sdf_grid(m, dims, dx, o, phi, nn, err, sizeof err);
  bg_check_true(s == BG_OK, "bg_mesh_sdf_grid: %s", err);
  *max_err = 0;
  *sign_err = 0;
  for (size_t i = 0; i < dims[0]; ++i)
    for (size_t j = 0; j < dims[1]; ++j)
      for (size_t k = 0; k < dims[2]; ++k) {
        double p[3] = {o[0] + i * dx, o[1] + j * dx, o[2] + k * dx}, want = f(p);
        double got = phi[(i * dims[1] + j) * dims[2] + k];
        *max_err = fmax(*max_err, fabs(got - want));
        if (fabs(want) > band && (got < 0) != (want < 0)) (*sign_err)++;
      }
}

static double sphere_sdf(const double p[3]) {
  return sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - 1;
}

static bg_mesh *load_ok(const char *path, size_t nv, size_t nt) {
  bg_mesh *m = NULL;
  char err[512] = "";
  bg_status s = bg_mesh_load(path, &m, err, sizeof err);
  bg_check_true(s == BG_OK && m, "%s loads (%s)", path, err);
  if (m) {
    bg_check_true(bg_mesh_vertex_count(m) == nv && bg_mesh_triangle_count(m) == nt,
                  "%s: %zu vertices, %zu triangles (want %zu, %zu)", path, bg_mesh_vertex_count(m),
                  bg_mesh_triangle_count(m), nv, nt);
  }
  return m;
}

/* ------------------------------------------------------- malformed files */

static void expect_mesh_error(const char *path, bg_status want, const char *problem) {
  bg_mesh *m = NULL;
  char err[512] = "";
  bg_status s = bg_mesh_load(path, &m, err, sizeof err);
  bg_check_true(s == want && !m && strstr(err, path) && strstr(err, problem),
                "%s refused with %s naming the file and '%s' (got %s: %s)", path,
                bg_status_name(want), problem, bg_status_name(s), err);
  bg_mesh_destroy(m);
}
static void expect_ply_error(const char *path, bg_status want, const char *problem) {
  bg_real *x = NULL;
  size_t n = 0;
  char err[512] = "";
  bg_status s = bg_ply_read_points(path, &x, &n, err, sizeof err);
  bg_check_true(s == want && !x && strstr(err, path) && strstr(err, problem),
                "%s refused with %s naming the file and '%s' (got %s: %s)", path,
                bg_status_name(want), problem, bg_status_name(s), err);
  free(x);
}

static void malformed(const shape *cube) {
  expect_mesh_error(write_text("bad_token.obj", "v 0 0 0\nv 1 0 x1\n"), BG_ERR_CORRUPT,
                    "line 2: vertex coordinate 'x1' is not a number");
  expect_mesh_error(write_text("short_vertex.obj", "v 0 0\n"), BG_ERR_CORRUPT,
                    "line 1: a vertex needs 3 coordinates");
  expect_mesh_error(write_text("nonfinite.obj", "v 0 0 0\nv 1 inf 0\nv 0 1 0\nf 1 2 3\n"),
                    BG_ERR_NONFINITE, "line 2: vertex coordinate 'inf' is not finite");
  expect_mesh_error(write_text("nan.obj", "v 0 0 0\nv 1 0 nan\n"), BG_ERR_NONFINITE,
                    "is not finite");
  expect_mesh_error(write_text("index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"), BG_ERR_RANGE,
                    "line 4: face index 9 is out of range (3 vertices");
  expect_mesh_error(write_text("index0.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), BG_ERR_RANGE,
                    "face index 0 is out of range");
  expect_mesh_error(write_text("index_neg.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n"),
                    BG_ERR_RANGE, "face index -4 is out of range");
  expect_mesh_error(write_text("corner.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n"),
                    BG_ERR_CORRUPT, "line 4: face corner 'a' is not a vertex index");
  expect_mesh_error(write_text("two.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n"), BG_ERR_CORRUPT,
                    "line 3: a face needs at least 3 corners");
  expect_mesh_error(write_text("empty.obj", "# nothing\nv 0 0 0\n"), BG_ERR_CORRUPT,
                    "no triangles");
  expect_mesh_error(write_text("degenerate.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 1 2\n"),
                    BG_ERR_CORRUPT, "triangle 1 (line 4) has two corners at the same point");
  /* the surface: a missing triangle, a flipped one, a third triangle on an edge */
  expect_mesh_error(write_obj("open.obj", cube, 5, -1), BG_ERR_CORRUPT,
                    "has no second triangle: the mesh is not closed");
  expect_mesh_error(write_obj("flipped.obj", cube, -1, 7), BG_ERR_CORRUPT,
                    "inconsistent orientation");
  {
    char text[2048];
    FILE *f = fopen(write_obj("nm_base.obj", cube, -1, -1), "r");
    size_t n = fread(text, 1, sizeof text - 64, f);
    fclose(f);
    text[n] = 0;
    strcat(text, "v 0.5 -1 0.5\nf 1 9 2\nf 2 9 1\n"); /* a fin on the cube's edge 1-2 */
    expect_mesh_error(write_text("nonmanifold.obj", text), BG_ERR_CORRUPT, "triangles");
    expect_mesh_error(path_of("nonmanifold.obj"), BG_ERR_CORRUPT, "the mesh is not manifold");
  }
  expect_mesh_error(path_of("does_not_exist.obj"), BG_ERR_IO, "cannot open");
  expect_mesh_error(write_text("cube.off", "OFF\n"), BG_ERR_RANGE, "unknown mesh format");
  /* ASCII STL */
  expect_mesh_error(
      write_text("cut.stl",
                 "solid a\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0"),
      BG_ERR_TRUNCATED, "line 5: the file ends inside facet 1's vertex");
  expect_mesh_error(
      write_text("token.stl",
                 "solid a\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 zz\n"),
      BG_ERR_CORRUPT, "line 5: facet 1: vertex coordinate 'zz' is not a number");
  expect_mesh_error(write_text("keyword.stl", "solid a\n facet normal 0 0 1\n  outer lop\n"),
                    BG_ERR_CORRUPT, "line 3: facet 1: expected 'loop', found 'lop'");
  expect_mesh_error(write_text("noend.stl", "solid a\n"), BG_ERR_TRUNCATED,
                    "the file ends before 'endsolid'");
  expect_mesh_error(write_text("zero.stl", "solid a\nendsolid a\n"), BG_ERR_CORRUPT,
                    "no triangles");
  expect_mesh_error(
      write_text("nan.stl", "solid a\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 nan\n"),
      BG_ERR_NONFINITE, "line 4: facet 1: vertex coordinate 'nan' is not finite");
  /* binary STL */
  static unsigned char b[84 + 50 * 1300];
  size_t n = stl_binary_bytes(cube, b);
  expect_mesh_error(
      write_file("cut_binary.stl", b, n - 10), BG_ERR_TRUNCATED,
      "declares 12 triangles (684 bytes) but the file has 674 bytes: it ends inside triangle 12");
  expect_mesh_error(write_file("header.stl", b + 4, 40), BG_ERR_TRUNCATED,
                    "ends inside its 84-byte header");
  put_f32(b + 84 + 50 * 2 + 12 + 12 + 4, NAN);
  expect_mesh_error(write_file("nan_binary.stl", b, n), BG_ERR_NONFINITE,
                    "triangle 3: vertex 2 has a non-finite coordinate");
  memset(b + 80, 0, 4);
  expect_mesh_error(write_file("zero_binary.stl", b, 84), BG_ERR_CORRUPT, "no triangles");
  shape open = *cube;
  open.nt = 11;
  n = stl_binary_bytes(&open, b);
  expect_mesh_error(write_file("open_binary.stl", b, n), BG_ERR_CORRUPT, "the mesh is not closed");
  /* PLY */
  expect_ply_error(write_text("notply.ply", "plx\n"), BG_ERR_CORRUPT, "not a PLY file");
  expect_ply_error(write_text("noz.ply",
                              "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty "
                              "float y\nend_header\n0 0\n"),
                   BG_ERR_CORRUPT, "lacks a z property");
  expect_ply_error(write_text("token.ply",
                              "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty "
                              "float y\nproperty float z\nend_header\n0 0 0\n1 q 2\n"),
                   BG_ERR_CORRUPT, "line 9: vertex 2: 'q' is not a number");
  expect_ply_error(write_text("short.ply",
                              "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty "
                              "float y\nproperty float z\nend_header\n0 0 0\n1 2 3\n"),
                   BG_ERR_TRUNCATED, "the file ends before vertex 3 of 3");
  expect_ply_error(write_text("inf.ply",
                              "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty "
                              "float y\nproperty float z\nend_header\n0 inf 0\n"),
                   BG_ERR_NONFINITE, "vertex 1: coordinate y is not finite");
  expect_ply_error(
      write_text("be.ply", "ply\nformat binary_big_endian 1.0\nelement vertex 1\nend_header\n"),
      BG_ERR_RANGE, "format 'binary_big_endian' is not read");
  expect_ply_error(write_text("header.ply", "ply\nformat ascii 1.0\nelement vertex 1\n"),
                   BG_ERR_TRUNCATED, "the header ends before 'end_header'");
  {
    const char *h =
        "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float "
        "y\nproperty float z\nend_header\n";
    unsigned char buf[256];
    size_t hl = strlen(h);
    memcpy(buf, h, hl);
    for (int i = 0; i < 5; ++i) put_f32(buf + hl + 4 * i, (float)i);
    expect_ply_error(write_file("cut.ply", buf, hl + 20), BG_ERR_TRUNCATED,
                     "the file ends inside vertex 2 of 2 (12 bytes each)");
  }
}

/* ------------------------------------------------------------ PLY points */

static void ply_points(void) {
  const char *a = write_text(
      "pts.ply",
      "ply\nformat ascii 1.0\ncomment test\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property uchar red\nproperty double z\nelement face 0\nproperty list uchar int "
      "vertex_indices\n"
      "end_header\n0.5 1.5 7 2.5\n-1 0 255 1e-3\n\n3 4 0 5\n");
  bg_real *x = NULL;
  size_t n = 0;
  char err[512] = "";
  bg_status s = bg_ply_read_points(a, &x, &n, err, sizeof err);
  bg_check_true(s == BG_OK && n == 3, "ascii PLY: 3 points (%s)", err);
  if (x) {
    bg_check_true(
        x[0] == 0.5f && x[1] == 1.5f && x[2] == 2.5f && x[5] == 1e-3f && x[6] == 3 && x[8] == 5,
        "ascii PLY: x, y, z read past the other properties");
    free(x);
  }
  /* binary: x double, an int, y float, z short */
  const char *h =
      "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty double x\nproperty int id\n"
      "property float y\nproperty short z\nend_header\n";
  unsigned char buf[512];
  size_t hl = strlen(h), off = hl;
  memcpy(buf, h, hl);
  for (int i = 0; i < 2; ++i) {
    double xv = 0.25 + i;
    uint64_t u;
    memcpy(&u, &xv, 8);
    for (int k = 0; k < 8; ++k) buf[off++] = (unsigned char)(u >> (8 * k));
    for (int k = 0; k < 4; ++k) buf[off++] = 0xAB;
    put_f32(buf + off, -2.0f * (float)i);
    off += 4;
    int16_t z = (int16_t)(-300 + i);
    buf[off++] = (unsigned char)((uint16_t)z & 0xff);
    buf[off++] = (unsigned char)((uint16_t)z >> 8);
  }
  const char *b = write_file("pts_bin.ply", buf, off);
  s = bg_ply_read_points(b, &x, &n, err, sizeof err);
  bg_check_true(s == BG_OK && n == 2, "binary PLY: 2 points (%s)", err);
  if (x) {
    bg_check_true(
        x[0] == 0.25f && x[1] == 0 && x[2] == -300 && x[3] == 1.25f && x[4] == -2 && x[5] == -299,
        "binary PLY: double x, float y, signed short z past an int");
    free(x);
  }
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  snprintf(g_dir, sizeof g_dir, "/tmp/bg_test_mesh.XXXXXX");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  static shape cube, ico;
  make_cube(&cube);
  make_icosphere(&ico);
  bg_check_true(ico.nv == 642 && ico.nt == 1280, "icosphere: 642 vertices, 1280 triangles");

  /* the cube in three formats: the box's SDF exactly (float storage) */
  static unsigned char bin[84 + 50 * 1300];
  /* copies: path_of's buffers are reused */
  char cube_files[3][256];
  snprintf(cube_files[0], 256, "%s", write_obj("cube.obj", &cube, -1, -1));
  snprintf(cube_files[1], 256, "%s", write_stl_ascii("cube.stl", &cube));
  snprintf(cube_files[2], 256, "%s", write_file("cube_bin.stl", bin, stl_binary_bytes(&cube, bin)));
  size_t cd[3] = {17, 15, 16};
  double co[3] = {-0.37, -0.29, -0.41}, cdx = 0.1;
  static bg_real phi[40 * 40 * 40], phi0[40 * 40 * 40];
  for (int f = 0; f < 3; ++f) {
    bg_mesh *m = load_ok(cube_files[f], 8, 12);
    if (!m) continue;
    double e;
    long se;
    compare_grid(m, cd, cdx, co, box_sdf, 1e-6, &e, &se, phi);
    /* exact up to the float the field is stored in (|phi| < 1: 2^-24) */
    bg_check_le(e, 1e-6, "%s: max |phi - box SDF| over %zu nodes", cube_files[f],
                cd[0] * cd[1] * cd[2]);
    bg_check_true(se == 0, "%s: sign right at every node (%ld wrong)", cube_files[f], se);
    /* nodes on the faces (phi 0) and in the faces' planes outside them,
     * where a triangle's solid angle is 0 from a point in its plane */
    size_t pd[3] = {8, 8, 8};
    double po[3] = {-0.5, -0.5, -0.5};
    compare_grid(m, pd, 0.25, po, box_sdf, 0, &e, &se, phi);
    bg_check_le(e, 1e-7, "%s: nodes on the faces' planes: max |phi - box SDF|", cube_files[f]);
    bg_check_true(se == 0, "%s: nodes on the faces' planes: sign right (%ld wrong)", cube_files[f],
                  se);
    double p[3] = {0.3, 0.6, 0.45}, q[3] = {1.2, 0.5, -0.2};
    bg_check_abs(bg_mesh_sdf(m, p), -0.3, 1e-12, "%s: bg_mesh_sdf inside", cube_files[f]);
    bg_check_abs(bg_mesh_sdf(m, q), sqrt(0.08), 1e-12, "%s: bg_mesh_sdf outside past an edge",
                 cube_files[f]);
    bg_mesh_destroy(m);
  }

  /* the icosphere: within its facets' sag of the sphere */
  char ico_files[3][256];
  snprintf(ico_files[0], 256, "%s", write_obj("ico.obj", &ico, -1, -1));
  snprintf(ico_files[1], 256, "%s", write_stl_ascii("ico.stl", &ico));
  snprintf(ico_files[2], 256, "%s", write_file("ico_bin.stl", bin, stl_binary_bytes(&ico, bin)));
  double sag = 1 - icosphere_rmin(&ico);
  size_t sd[3] = {31, 29, 30};
  double so[3] = {-1.5, -1.4, -1.45}, sdx = 0.1;
  size_t nn = sd[0] * sd[1] * sd[2];
  for (int f = 0; f < 3; ++f) {
    bg_mesh *m = load_ok(ico_files[f], 642, 1280);
    if (!m) continue;
    double e;
    long se;
    compare_grid(m, sd, sdx, so, sphere_sdf, sag, &e, &se, phi);
    /* the two surfaces are within the sag of each other (Hausdorff
     * distance), and distance functions differ by at most that */
    bg_check_le(e, sag + 1e-6, "%s: max |phi - sphere SDF| <= facet sag 1 - r_min = %.4g",
                ico_files[f], sag);
    bg_check_true(se == 0,
                  "%s: sign right at every node farther than the sag from the sphere (%ld wrong)",
                  ico_files[f], se);
    if (f == 0)
      memcpy(phi0, phi, nn * sizeof *phi);
    else {
      double dmax = 0;
      for (size_t i = 0; i < nn; ++i) dmax = fmax(dmax, fabs(phi[i] - phi0[i]));
      bg_check_true(dmax == 0, "%s: the same field as the OBJ's (max diff %g)", ico_files[f], dmax);
    }
    /* every node, brute force: the grid's sign shortcut changes nothing */
    long diff = 0;
    for (size_t i = 0; i < sd[0]; ++i)
      for (size_t j = 0; j < sd[1]; ++j)
        for (size_t k = 0; k < sd[2]; ++k) {
          double p[3] = {so[0] + i * sdx, so[1] + j * sdx, so[2] + k * sdx};
          if ((float)bg_mesh_sdf(m, p) != phi[(i * sd[1] + j) * sd[2] + k]) diff++;
        }
    bg_check_true(diff == 0, "%s: bg_mesh_sdf at every node equals the grid's field (%ld differ)",
                  ico_files[f], diff);
    if (f == 0) {
      /* a seeding region: the lattice inside the mesh fills the polyhedron */
      bg_seed_lattice_desc d = {.origin = {-1.2, -1.2, -1.2},
                                .spacing = 0.04,
                                .count = {60, 60, 60},
                                .inside = bg_mesh_inside,
                                .inside_ctx = m};
      size_t cnt = 0;
      char err[256];
      bg_seed_lattice(&d, NULL, 0, &cnt, err, sizeof err);
      double vol = cnt * 0.04 * 0.04 * 0.04, v_ball = 4 * 3.14159265358979323846 / 3;
      bg_check_rel(vol, v_ball, 0.03, "bg_mesh_inside seeds the icosphere's volume (sag %.3g)",
                   sag);
    }
    bg_mesh_destroy(m);
  }
  /* an inside-out sphere (every triangle flipped) is the same solid */
  shape inv = ico;
  for (int f = 0; f < inv.nt; ++f) {
    int t = inv.t[3 * f + 1];
    inv.t[3 * f + 1] = inv.t[3 * f + 2];
    inv.t[3 * f + 2] = t;
  }
  bg_mesh *m = load_ok(write_obj("ico_flipped.obj", &inv, -1, -1), 642, 1280);
  if (m) {
    double e;
    long se;
    compare_grid(m, sd, sdx, so, sphere_sdf, sag, &e, &se, phi);
    bg_check_true(se == 0 && e <= sag + 1e-6,
                  "inward-facing icosphere: same sign and error (%ld wrong, %g)", se, e);
    char err[256];
    bg_check_true(bg_mesh_sdf_grid(m, sd, 0, so, phi, nn, err, sizeof err) == BG_ERR_RANGE &&
                      strstr(err, "dx"),
                  "bg_mesh_sdf_grid refuses dx 0: %s", err);
    bg_check_true(bg_mesh_sdf_grid(m, sd, sdx, so, phi, nn - 1, err, sizeof err) == BG_ERR_RANGE &&
                      strstr(err, "phi holds"),
                  "bg_mesh_sdf_grid refuses a short phi: %s", err);
    bg_mesh_destroy(m);
  }

  malformed(&cube);
  /* every prefix of a good file is refused, by name, without a crash */
  for (int f = 0; f < 3; ++f) {
    FILE *in = fopen(cube_files[f], "rb");
    static char whole[16384];
    size_t len = fread(whole, 1, sizeof whole, in);
    fclose(in);
    long bad = 0;
    char cut[256];
    snprintf(cut, sizeof cut, "%s", path_of(f == 0 ? "prefix.obj" : "prefix.stl"));
    /* a prefix that lacks only the OBJ's last newline, or the ASCII STL's
     * name after endsolid, is still the whole surface */
    whole[len] = 0;
    size_t complete = f == 0   ? len - 1
                      : f == 1 ? (size_t)(strstr(whole, "endsolid") - whole) + 8
                               : len;
    for (size_t n = 0; n < len; ++n) {
      write_file(f == 0 ? "prefix.obj" : "prefix.stl", whole, n);
      bg_mesh *pm = NULL;
      char err[512] = "";
      bg_status st = bg_mesh_load(cut, &pm, err, sizeof err);
      if (n < complete ? st == BG_OK || !strstr(err, cut) : st != BG_OK) bad++;
      bg_mesh_destroy(pm);
    }
    bg_check_true(
        bad == 0,
        "%s: each of its %zu prefixes shorter than %zu bytes refused with the file named, "
        "the longer ones read (%ld not)",
        cube_files[f], complete, len, bad);
  }
  ply_points();

  /* clean up the files this test wrote */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
  return bg_check_summary();
}
