/* mesh_sdf.c: the exact signed distance of a closed triangle mesh
 * (bagnold.h, "meshes"). The distance is to the nearest triangle (closest
 * point on a triangle by its Voronoi regions, after Ericson, Real-Time
 * Collision Detection, 5.1.5), found through a median-split bounding-volume
 * hierarchy; the sign is the generalized winding number (Jacobson et al.
 * 2013): the sum of the triangles' solid angles seen from the point (van
 * Oosterom and Strackee 1983) over 4 pi, 1 inside a closed surface and 0
 * outside whatever the surface's small defects, so no ray or normal has to
 * be trusted. On a grid the winding number is needed only near the surface:
 * a node whose neighbour is farther than dx from the surface lies in that
 * neighbour's empty ball, on the same side. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "mesh_internal.h"

#define LEAF_MAX 4
#define STACK_MAX 128
#define PI_ 3.14159265358979323846

static bg_status sfail(char *err, size_t err_len, bg_status s, const char *fmt, ...) {
  if (err && err_len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
  }
  return s;
}

static const double *corner(const struct bg_mesh *m, uint32_t tri, int k) {
  return m->v + 3 * (size_t)m->t[3 * (size_t)tri + k];
}

/* ------------------------------------------------------------ hierarchy */

typedef struct build {
  struct bg_mesh *m;
  double *cent; /* 3 per triangle */
} build;

/* Hoare-style selection: tri_order[first..first+count) split so that the
 * element at mid has every smaller centroid (along axis) before it. */
static void select_median(const build *b, uint32_t *o, size_t count, size_t mid, int axis) {
  size_t lo = 0, hi = count - 1;
  while (lo < hi) {
    double pivot = b->cent[3 * (size_t)o[(lo + hi) / 2] + axis];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (b->cent[3 * (size_t)o[i] + axis] < pivot) i++;
      while (b->cent[3 * (size_t)o[j] + axis] > pivot) j--;
      if (i <= j) {
        uint32_t tmp = o[i];
        o[i] = o[j];
        o[j] = tmp;
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (mid <= j)
      hi = j;
    else if (mid >= i)
      lo = i;
    else
      break;
  }
}

static uint32_t build_node(build *b, uint32_t first, uint32_t count) {
  struct bg_mesh *m = b->m;
  uint32_t id = (uint32_t)m->n_nodes++;
  bg_bvh_node *n = &m->bvh[id];
  double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int a = 0; a < 3; ++a) {
    n->lo[a] = INFINITY;
    n->hi[a] = -INFINITY;
  }
  for (uint32_t i = first; i < first + count; ++i) {
    uint32_t t = m->tri_order[i];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) {
        double x = corner(m, t, k)[a];
        n->lo[a] = fmin(n->lo[a], x);
        n->hi[a] = fmax(n->hi[a], x);
      }
    for (int a = 0; a < 3; ++a) {
      clo[a] = fmin(clo[a], b->cent[3 * (size_t)t + a]);
      chi[a] = fmax(chi[a], b->cent[3 * (size_t)t + a]);
    }
  }
  n->first = first;
  n->count = count;
  n->right = 0;
  if (count <= LEAF_MAX) return id;
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (chi[a] - clo[a] > chi[axis] - clo[axis]) axis = a;
  uint32_t half = count / 2;
  select_median(b, m->tri_order + first, count, half, axis);
  build_node(b, first, half); /* the left child is id + 1 */
  uint32_t right = build_node(b, first + half, count - half);
  m->bvh[id].right = right;
  m->bvh[id].count = 0;
  return id;
}

int bg_mesh_build_bvh_(struct bg_mesh *m) {
  m->bvh = malloc(2 * m->nt * sizeof *m->bvh);
  m->tri_order = malloc(m->nt * sizeof *m->tri_order);
  build b = {m, malloc(3 * m->nt * sizeof(double))};
  if (!m->bvh || !m->tri_order || !b.cent) {
    free(b.cent);
    return -1;
  }
  for (size_t t = 0; t < m->nt; ++t) {
    m->tri_order[t] = (uint32_t)t;
    for (int a = 0; a < 3; ++a)
      b.cent[3 * t + a] = (corner(m, (uint32_t)t, 0)[a] + corner(m, (uint32_t)t, 1)[a] +
                           corner(m, (uint32_t)t, 2)[a]) /
                          3;
  }
  m->n_nodes = 0;
  build_node(&b, 0, (uint32_t)m->nt);
  free(b.cent);
  for (int a = 0; a < 3; ++a) {
    m->lo[a] = m->bvh[0].lo[a];
    m->hi[a] = m->bvh[0].hi[a];
  }
  return 0;
}

/* ------------------------------------------------------------- distance */

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void sub3(const double *a, const double *b, double *o) {
  for (int k = 0; k < 3; ++k) o[k] = a[k] - b[k];
}

/* Squared distance from p to triangle abc: the closest point lies in one
 * of seven Voronoi regions (a corner, an edge, the face), told apart by the
 * signs of dot products, with no square root and no division on the
 * common corner and edge paths. */
static double tri_dist2(const double *p, const double *a, const double *b, const double *c) {
  double ab[3], ac[3], ap[3], q[3];
  sub3(b, a, ab);
  sub3(c, a, ac);
  sub3(p, a, ap);
  double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) return dot3(ap, ap); /* corner a */
  double bp[3];
  sub3(p, b, bp);
  double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) return dot3(bp, bp); /* corner b */
  double cp[3];
  sub3(p, c, cp);
  double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) return dot3(cp, cp); /* corner c */
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) { /* edge ab */
    double s = d1 / (d1 - d3);
    for (int k = 0; k < 3; ++k) q[k] = a[k] + s * ab[k];
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) { /* edge ac */
    double s = d2 / (d2 - d6);
    for (int k = 0; k < 3; ++k) q[k] = a[k] + s * ac[k];
  } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) { /* edge bc */
    double s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; ++k) q[k] = b[k] + s * (c[k] - b[k]);
  } else { /* the face: barycentric (1 - v - w, v, w) */
    double sum = va + vb + vc, v = vb / sum, w = vc / sum;
    for (int k = 0; k < 3; ++k) q[k] = a[k] + v * ab[k] + w * ac[k];
  }
  double d[3];
  sub3(p, q, d);
  return dot3(d, d);
}

static double box_dist2(const bg_bvh_node *n, const double *p) {
  double s = 0;
  for (int a = 0; a < 3; ++a) {
    double e = fmax(fmax(n->lo[a] - p[a], p[a] - n->hi[a]), 0.0);
    s += e * e;
  }
  return s;
}

/* distance from p to the surface: the nearer child first, and any box no
 * nearer than the best triangle so far skipped */
static double mesh_udist(const struct bg_mesh *m, const double *p) {
  uint32_t stack[STACK_MAX];
  int top = 0;
  double best = INFINITY;
  stack[top++] = 0;
  while (top) {
    const bg_bvh_node *n = &m->bvh[stack[--top]];
    if (box_dist2(n, p) >= best) continue;
    if (!n->right) {
      for (uint32_t i = n->first; i < n->first + n->count; ++i) {
        uint32_t t = m->tri_order[i];
        double d = tri_dist2(p, corner(m, t, 0), corner(m, t, 1), corner(m, t, 2));
        if (d < best) best = d;
      }
      continue;
    }
    uint32_t l = (uint32_t)(n - m->bvh) + 1, r = n->right;
    double dl = box_dist2(&m->bvh[l], p), dr = box_dist2(&m->bvh[r], p);
    if (dl < dr) { /* pushed last, visited first */
      uint32_t s = l;
      l = r;
      r = s;
    }
    if (top + 2 > STACK_MAX) return NAN; /* deeper than a median split can make */
    stack[top++] = l;
    stack[top++] = r;
  }
  return sqrt(best);
}

/* ---------------------------------------------------------------- sign */

/* The generalized winding number at p: each triangle's signed solid angle,
 * tan(Omega / 2) = a.(b x c) / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|)
 * with a, b, c the corners seen from p, summed over 4 pi. */
static double winding(const struct bg_mesh *m, const double *p) {
  double sum = 0;
  for (size_t t = 0; t < m->nt; ++t) {
    double a[3], b[3], c[3];
    sub3(corner(m, (uint32_t)t, 0), p, a);
    sub3(corner(m, (uint32_t)t, 1), p, b);
    sub3(corner(m, (uint32_t)t, 2), p, c);
    double la = sqrt(dot3(a, a)), lb = sqrt(dot3(b, b)), lc = sqrt(dot3(c, c));
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                 a[2] * (b[0] * c[1] - b[1] * c[0]);
    double den = la * lb * lc + dot3(a, b) * lc + dot3(b, c) * la + dot3(c, a) * lb;
    sum += 2 * atan2(det, den);
  }
  return sum / (4 * PI_);
}

/* |w| > 1/2: inside whichever way the surface is oriented */
static int inside_w(const struct bg_mesh *m, const double *p) {
  for (int a = 0; a < 3; ++a)
    if (p[a] < m->lo[a] || p[a] > m->hi[a]) return 0;
  return fabs(winding(m, p)) > 0.5;
}

int bg_mesh_inside(const double p[3], void *mesh) { return mesh && p ? inside_w(mesh, p) : 0; }

double bg_mesh_sdf(const bg_mesh *m, const double p[3]) {
  if (!m || !p) return NAN;
  double d = mesh_udist(m, p);
  return d > 0 && inside_w(m, p) ? -d : d;
}

/* --------------------------------------------------------------- grid */

bg_status bg_mesh_sdf_grid(const bg_mesh *m, const size_t dims[3], double dx,
                           const double origin[3], bg_real *phi, size_t cap, char *err,
                           size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!m || !dims || !origin || !phi)
    return sfail(err, err_len, BG_ERR_NULL,
                 "bg_mesh_sdf_grid: mesh, dims, origin and phi must not be NULL");
  if (!isfinite(dx) || !isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2]))
    return sfail(err, err_len, BG_ERR_NONFINITE, "bg_mesh_sdf_grid: dx and origin must be finite");
  if (!(dx > 0))
    return sfail(err, err_len, BG_ERR_RANGE, "bg_mesh_sdf_grid: dx must be > 0, got %g", dx);
  size_t nx = dims[0], ny = dims[1], nz = dims[2];
  if (!nx || !ny || !nz)
    return sfail(err, err_len, BG_ERR_RANGE,
                 "bg_mesh_sdf_grid: dims must be >= 1, got %zu x %zu x %zu", nx, ny, nz);
  if (ny > SIZE_MAX / nz || nx > SIZE_MAX / (ny * nz) || nx * ny * nz > SIZE_MAX / sizeof(double))
    return sfail(err, err_len, BG_ERR_OVERFLOW,
                 "bg_mesh_sdf_grid: %zu x %zu x %zu nodes overflow size_t", nx, ny, nz);
  size_t nn = nx * ny * nz;
  if (cap < nn)
    return sfail(err, err_len, BG_ERR_RANGE,
                 "bg_mesh_sdf_grid: phi holds %zu values, the grid has %zu nodes", cap, nn);
  double *d = malloc(nn * sizeof *d);
  signed char *sg = malloc(nn);
  size_t *todo = malloc(nn * sizeof *todo);
  if (!d || !sg || !todo) {
    free(d);
    free(sg);
    free(todo);
    return sfail(err, err_len, BG_ERR_NOMEM, "bg_mesh_sdf_grid: out of memory for %zu nodes", nn);
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (long long i = 0; i < (long long)nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t k = 0; k < nz; ++k) {
        double p[3] = {origin[0] + (double)i * dx, origin[1] + (double)j * dx,
                       origin[2] + (double)k * dx};
        d[((size_t)i * ny + j) * nz + k] = mesh_udist(m, p);
      }
  /* which nodes no neighbour before them (in node order) settles: there
   * the winding number decides; the rule depends on distances alone */
  const double far = dx * (1 + 1e-9);
  const size_t step[3] = {ny * nz, nz, 1};
  size_t nt = 0;
  for (size_t i = 0; i < nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t k = 0; k < nz; ++k) {
        size_t n = (i * ny + j) * nz + k, idx[3] = {i, j, k};
        sg[n] = 0;
        if (d[n] == 0) continue;
        int settled = 0;
        for (int a = 0; a < 3 && !settled; ++a)
          if (idx[a] > 0 && d[n - step[a]] > 0 && (d[n - step[a]] > far || d[n] > far)) settled = 1;
        if (!settled) todo[nt++] = n;
      }
#pragma omp parallel for schedule(dynamic, 16)
  for (long long q = 0; q < (long long)nt; ++q) {
    size_t n = todo[q], i = n / (ny * nz), j = (n / nz) % ny, k = n % nz;
    double p[3] = {origin[0] + (double)i * dx, origin[1] + (double)j * dx,
                   origin[2] + (double)k * dx};
    sg[n] = inside_w(m, p) ? -1 : 1;
  }
  for (size_t i = 0; i < nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t k = 0; k < nz; ++k) {
        size_t n = (i * ny + j) * nz + k, idx[3] = {i, j, k};
        if (d[n] > 0 && !sg[n])
          for (int a = 0; a < 3 && !sg[n]; ++a)
            if (idx[a] > 0 && d[n - step[a]] > 0 && (d[n - step[a]] > far || d[n] > far))
              sg[n] = sg[n - step[a]];
        phi[n] = (bg_real)(sg[n] < 0 ? -d[n] : d[n]);
      }
  free(d);
  free(sg);
  free(todo);
  return BG_OK;
}
