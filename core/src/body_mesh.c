/* body_mesh.c: rigid bodies shaped by a closed triangle mesh
 * (BG_BODY_MESH): the mesh's volume, centre of mass and inertia tensor,
 * exact for a polyhedron (the divergence theorem over the signed tetrahedra
 * each triangle makes with the origin); its principal axes, which become
 * the body's own frame so that the spin is integrated as for a sphere or a
 * box; and a signed-distance lattice at a quarter cell, sampled for the
 * node test and the normals each step (a query of the mesh's hierarchy per
 * node would cost more than the step). The simulation keeps its own copy of
 * the mesh, for the VTU surface and the checkpoint. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"
#include "mesh_internal.h"

/* Cyclic Jacobi on a symmetric 3 x 3: A = V diag(e) V^T, V's columns the
 * eigenvectors. 3 x 3 converges in a few sweeps; 50 is far beyond need. */
static void jacobi3(double A[3][3], double e[3], double V[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) V[i][j] = i == j;
  for (int sweep = 0; sweep < 50; ++sweep) {
    const double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
    const double scale = fabs(A[0][0]) + fabs(A[1][1]) + fabs(A[2][2]);
    if (off <= 1e-15 * scale) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (A[p][q] == 0) continue;
        const double th = 0.5 * (A[q][q] - A[p][p]) / A[p][q];
        const double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) { /* A <- J^T A J */
          const double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - s * akq;
          A[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {
          const double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - s * aqk;
          A[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          const double vkp = V[k][p], vkq = V[k][q];
          V[k][p] = c * vkp - s * vkq;
          V[k][q] = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < 3; ++i) e[i] = A[i][i];
}

/* The unit quaternion (w, x, y, z) of a proper rotation matrix (Shepperd:
 * from its largest diagonal term, so no division by a small number). */
static void matrix_quat(double R[3][3], double q[4]) {
  const double t = R[0][0] + R[1][1] + R[2][2];
  if (t >= R[0][0] && t >= R[1][1] && t >= R[2][2]) {
    const double s = 2 * sqrt(1 + t);
    q[0] = 0.25 * s;
    q[1] = (R[2][1] - R[1][2]) / s;
    q[2] = (R[0][2] - R[2][0]) / s;
    q[3] = (R[1][0] - R[0][1]) / s;
  } else if (R[0][0] >= R[1][1] && R[0][0] >= R[2][2]) {
    const double s = 2 * sqrt(1 + R[0][0] - R[1][1] - R[2][2]);
    q[0] = (R[2][1] - R[1][2]) / s;
    q[1] = 0.25 * s;
    q[2] = (R[0][1] + R[1][0]) / s;
    q[3] = (R[0][2] + R[2][0]) / s;
  } else if (R[1][1] >= R[2][2]) {
    const double s = 2 * sqrt(1 + R[1][1] - R[0][0] - R[2][2]);
    q[0] = (R[0][2] - R[2][0]) / s;
    q[1] = (R[0][1] + R[1][0]) / s;
    q[2] = 0.25 * s;
    q[3] = (R[1][2] + R[2][1]) / s;
  } else {
    const double s = 2 * sqrt(1 + R[2][2] - R[0][0] - R[1][1]);
    q[0] = (R[1][0] - R[0][1]) / s;
    q[1] = (R[0][2] + R[2][0]) / s;
    q[2] = (R[1][2] + R[2][1]) / s;
    q[3] = 0.25 * s;
  }
}

void bg_quat_mul(const double a[4], const double b[4], double out[4]) {
  const double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  const double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  const double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  const double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  out[0] = w, out[1] = x, out[2] = y, out[3] = z;
}

/* Volume, first and second moments of the solid a closed, consistently
 * oriented surface bounds: per triangle (a, b, c) the tetrahedron with the
 * origin, of signed volume det/6 (det = a . (b x c)), centroid (a+b+c)/4,
 * and second moment det/120 (a a^T + b b^T + c c^T + s s^T), s = a+b+c.
 * The triangles' winding fixes the sign; an inward mesh comes out negative
 * throughout and is flipped. */
static void moments(const struct bg_mesh *m, double *vol, double c[3], double S[3][3]) {
  double v6 = 0, f[3] = {0, 0, 0}, M[3][3] = {{0}};
  for (size_t t = 0; t < m->nt; ++t) {
    const double *a = m->v + 3 * m->t[3 * t], *b = m->v + 3 * m->t[3 * t + 1], *cc = m->v + 3 * m->t[3 * t + 2];
    const double det = a[0] * (b[1] * cc[2] - b[2] * cc[1]) - a[1] * (b[0] * cc[2] - b[2] * cc[0]) +
                       a[2] * (b[0] * cc[1] - b[1] * cc[0]);
    double s[3];
    for (int i = 0; i < 3; ++i) s[i] = a[i] + b[i] + cc[i];
    v6 += det;
    for (int i = 0; i < 3; ++i) f[i] += det * s[i];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) M[i][j] += det * (a[i] * a[j] + b[i] * b[j] + cc[i] * cc[j] + s[i] * s[j]);
  }
  const double sg = v6 < 0 ? -1.0 : 1.0;
  *vol = sg * v6 / 6;
  for (int i = 0; i < 3; ++i) c[i] = v6 != 0 ? f[i] / (4 * v6) : 0; /* (sum det s / 24) / (sum det / 6) */
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) S[i][j] = sg * M[i][j] / 120 - *vol * c[i] * c[j]; /* about the centre */
}

bg_status bg_body_mesh_make(bg_sim *sim, size_t k, const struct bg_mesh *src, double dx, bg_body_mesh *bm) {
  memset(bm, 0, sizeof *bm);
  struct bg_mesh *m = calloc(1, sizeof *m);
  if (!m) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for body %zu's mesh", k);
  bm->mesh = m;
  m->nv = src->nv;
  m->nt = src->nt;
  m->v = malloc(3 * m->nv * sizeof *m->v);
  m->t = malloc(3 * m->nt * sizeof *m->t);
  if (!m->v || !m->t) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for body %zu's mesh", k);
  memcpy(m->v, src->v, 3 * m->nv * sizeof *m->v);
  memcpy(m->t, src->t, 3 * m->nt * sizeof *m->t);
  memcpy(m->lo, src->lo, sizeof m->lo);
  memcpy(m->hi, src->hi, sizeof m->hi);
  if (bg_mesh_build_bvh_(m)) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for body %zu's mesh", k);
  double S[3][3], A[3][3];
  moments(m, &bm->vol, bm->c, S);
  if (!(bm->vol > 0) || !isfinite(bm->vol))
    return bg_fail(sim, BG_ERR_RANGE, "bodies[%zu].mesh encloses no volume (%g m^3)", k, bm->vol);
  /* the inertia tensor per unit density: tr(S) 1 - S */
  const double tr = S[0][0] + S[1][1] + S[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = (i == j ? tr : 0) - S[i][j];
  jacobi3(A, bm->I, bm->P);
  const double det = bm->P[0][0] * (bm->P[1][1] * bm->P[2][2] - bm->P[1][2] * bm->P[2][1]) -
                     bm->P[0][1] * (bm->P[1][0] * bm->P[2][2] - bm->P[1][2] * bm->P[2][0]) +
                     bm->P[0][2] * (bm->P[1][0] * bm->P[2][1] - bm->P[1][1] * bm->P[2][0]);
  if (det < 0) /* a right-handed frame: a rotation, so a quaternion */
    for (int i = 0; i < 3; ++i) bm->P[i][2] = -bm->P[i][2];
  matrix_quat(bm->P, bm->qp);
  for (size_t v = 0; v < m->nv; ++v) {
    double r2 = 0;
    for (int a = 0; a < 3; ++a) r2 += (m->v[3 * v + a] - bm->c[a]) * (m->v[3 * v + a] - bm->c[a]);
    if (r2 > bm->reach * bm->reach) bm->reach = sqrt(r2);
  }
  /* the distance lattice: a quarter cell over the box and two cells around */
  bm->h = 0.25 * dx;
  size_t nn = 1;
  for (int a = 0; a < 3; ++a) {
    bm->lo[a] = m->lo[a] - 2 * dx;
    bm->n[a] = (size_t)ceil((m->hi[a] + 2 * dx - bm->lo[a]) / bm->h) + 1;
    nn *= bm->n[a];
  }
  if (nn > ((size_t)1 << 28))
    return bg_fail(sim, BG_ERR_RANGE,
                   "bodies[%zu].mesh spans %zu x %zu x %zu quarter cells; scale it in metres or use a coarser dx", k,
                   bm->n[0], bm->n[1], bm->n[2]);
  bm->phi = malloc(nn * sizeof *bm->phi);
  if (!bm->phi) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for body %zu's distance lattice", k);
  char err[256];
  bg_status s = bg_mesh_sdf_grid(m, bm->n, bm->h, bm->lo, bm->phi, nn, err, sizeof err);
  if (s != BG_OK) return bg_fail(sim, s, "bodies[%zu].mesh: %s", k, err);
  return BG_OK;
}

void bg_body_mesh_free(bg_body_mesh *bm) {
  if (!bm) return;
  bg_mesh_destroy(bm->mesh);
  free(bm->phi);
  memset(bm, 0, sizeof *bm);
}

double bg_body_mesh_phi(const bg_body_mesh *bm, const double p[3]) {
  /* the file's frame: the centre plus the principal axes */
  double g[3], out2 = 0;
  size_t i0[3];
  double f[3];
  for (int a = 0; a < 3; ++a) {
    const double x = bm->c[a] + bm->P[a][0] * p[0] + bm->P[a][1] * p[1] + bm->P[a][2] * p[2];
    g[a] = (x - bm->lo[a]) / bm->h;
    /* outside the lattice: its edge's value plus the way to it (an upper
     * bound of the distance; only the sign and the nearby values matter) */
    const double top = (double)(bm->n[a] - 1);
    double gc = g[a] < 0 ? 0 : g[a] > top ? top : g[a];
    out2 += (g[a] - gc) * (g[a] - gc);
    if (gc >= top) gc = top - 1e-9;
    i0[a] = (size_t)gc;
    f[a] = gc - (double)i0[a];
  }
  double v = 0;
  for (int c = 0; c < 8; ++c) {
    const size_t i = i0[0] + (c >> 2 & 1), j = i0[1] + (c >> 1 & 1), kk = i0[2] + (c & 1);
    const double w = (c >> 2 & 1 ? f[0] : 1 - f[0]) * (c >> 1 & 1 ? f[1] : 1 - f[1]) * (c & 1 ? f[2] : 1 - f[2]);
    v += w * (double)bm->phi[(i * bm->n[1] + j) * bm->n[2] + kk];
  }
  return v + sqrt(out2) * bm->h;
}

struct bg_mesh *bg_mesh_from_arrays_(const double *v, size_t nv, const uint32_t *t, size_t nt) {
  struct bg_mesh *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->nv = nv;
  m->nt = nt;
  m->v = malloc(3 * nv * sizeof *m->v);
  m->t = malloc(3 * nt * sizeof *m->t);
  if (!m->v || !m->t || !nv || !nt) {
    bg_mesh_destroy(m);
    return NULL;
  }
  memcpy(m->v, v, 3 * nv * sizeof *v);
  memcpy(m->t, t, 3 * nt * sizeof *t);
  for (int a = 0; a < 3; ++a) m->lo[a] = m->hi[a] = v[a];
  for (size_t i = 0; i < nv; ++i)
    for (int a = 0; a < 3; ++a) {
      if (v[3 * i + a] < m->lo[a]) m->lo[a] = v[3 * i + a];
      if (v[3 * i + a] > m->hi[a]) m->hi[a] = v[3 * i + a];
    }
  for (size_t i = 0; i < 3 * nt; ++i)
    if (t[i] >= nv) {
      bg_mesh_destroy(m);
      return NULL;
    }
  if (bg_mesh_build_bvh_(m)) {
    bg_mesh_destroy(m);
    return NULL;
  }
  return m;
}
