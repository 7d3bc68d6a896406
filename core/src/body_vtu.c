/* body_vtu.c: the rigid bodies as surface meshes in one VTU file (VTK XML
 * UnstructuredGrid of triangles, ASCII: a few hundred vertices a body),
 * posed as they are now, with each vertex's rigid velocity v + w x r and
 * each triangle's body index: what ParaView shows beside the particles'
 * series. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"
#include "mesh_internal.h"

static const double PI = 3.14159265358979323846;

/* A sphere as latitude-longitude bands; a box as 12 triangles. */
enum { SPH_LAT = 12, SPH_LON = 24 };

/* A mesh body as its own triangles. */
static size_t body_verts(const bg_body *b) {
  return b->shape == BG_BODY_MESH ? b->mesh->nv : b->shape == BG_BODY_SPHERE ? 2 + (SPH_LAT - 1) * SPH_LON : 8;
}
static size_t body_tris(const bg_body *b) {
  return b->shape == BG_BODY_MESH ? b->mesh->nt : b->shape == BG_BODY_SPHERE ? 2 * SPH_LON * (SPH_LAT - 1) : 12;
}

/* Vertex v of body b in its own frame (a mesh's: the principal one of bm). */
static void vert(const bg_body *b, const bg_body_mesh *bm, size_t v, double p[3]) {
  if (b->shape == BG_BODY_MESH) { /* P^T (v - c) */
    double d[3];
    for (int a = 0; a < 3; ++a) d[a] = b->mesh->v[3 * v + a] - bm->c[a];
    for (int a = 0; a < 3; ++a) p[a] = bm->P[0][a] * d[0] + bm->P[1][a] * d[1] + bm->P[2][a] * d[2];
    return;
  }
  if (b->shape == BG_BODY_BOX || b->shape == BG_BODY_PLATE) { /* a plate drawn at its nominal thickness */
    for (int a = 0; a < 3; ++a) p[a] = ((v >> a) & 1 ? 1.0 : -1.0) * b->half[a];
    return;
  }
  if (v < 2) {
    p[0] = p[1] = 0;
    p[2] = v == 0 ? b->radius : -b->radius;
    return;
  }
  size_t i = (v - 2) / SPH_LON + 1, j = (v - 2) % SPH_LON;
  double th = PI * (double)i / SPH_LAT, ph = 2 * PI * (double)j / SPH_LON;
  p[0] = b->radius * sin(th) * cos(ph);
  p[1] = b->radius * sin(th) * sin(ph);
  p[2] = b->radius * cos(th);
}

/* Triangle t's vertices, outward by the right-hand rule. */
static void tri(const bg_body *b, size_t t, size_t v[3]) {
  if (b->shape == BG_BODY_MESH) {
    for (int k = 0; k < 3; ++k) v[k] = b->mesh->t[3 * t + k];
    return;
  }
  if (b->shape == BG_BODY_BOX || b->shape == BG_BODY_PLATE) { /* a plate drawn at its nominal thickness */
    /* each face: its two triangles over corners with one axis fixed */
    static const unsigned char faces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                                               {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    for (int k = 0; k < 3; ++k) v[k] = faces[t][k];
    return;
  }
  const size_t ring = SPH_LON;
#define RV(i, j) (2 + ((i) - 1) * ring + ((j) % ring))
  if (t < ring) { /* the north cap */
    v[0] = 0, v[1] = RV(1, t), v[2] = RV(1, t + 1);
    return;
  }
  t -= ring;
  if (t < ring) { /* the south cap */
    v[0] = 1, v[1] = RV(SPH_LAT - 1, t + 1), v[2] = RV(SPH_LAT - 1, t);
    return;
  }
  t -= ring;
  size_t i = 1 + t / (2 * ring), j = (t % (2 * ring)) / 2;
  if (t % 2 == 0) v[0] = RV(i, j), v[1] = RV(i + 1, j), v[2] = RV(i + 1, j + 1);
  else v[0] = RV(i, j), v[1] = RV(i + 1, j + 1), v[2] = RV(i, j + 1);
#undef RV
}

static void rotate(const double q[4], const double p[3], double out[3]) {
  double R[3][3];
  bg_quat_matrix(q, R);
  for (int a = 0; a < 3; ++a) out[a] = R[a][0] * p[0] + R[a][1] * p[1] + R[a][2] * p[2];
}

bg_status bg_sim_write_bodies_vtu(bg_sim *sim, const char *path) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  if (!path) return bg_fail(sim, BG_ERR_NULL, "path is NULL");
  size_t nv = 0, nt = 0;
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    nv += body_verts(&sim->body_desc[k]);
    nt += body_tris(&sim->body_desc[k]);
  }
  bg_out o;
  if (bg_out_open(&o, path, "w") != 0) return bg_fail(sim, BG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  FILE *fp = o.fp;
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
              "<UnstructuredGrid>\n<Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n<Points>\n"
              "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n",
          nv, nt);
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    const bg_rbody *r = &sim->bodies[k];
    for (size_t v = 0; v < body_verts(&sim->body_desc[k]); ++v) {
      double p[3], w[3];
      vert(&sim->body_desc[k], &sim->body_mesh[k], v, p);
      rotate(r->q, p, w);
      fprintf(fp, "%.9g %.9g %.9g\n", r->x[0] + w[0], r->x[1] + w[1], r->x[2] + w[2]);
    }
  }
  fprintf(fp, "</DataArray>\n</Points>\n<Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  size_t base = 0;
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    for (size_t t = 0; t < body_tris(&sim->body_desc[k]); ++t) {
      size_t v[3];
      tri(&sim->body_desc[k], t, v);
      fprintf(fp, "%zu %zu %zu\n", base + v[0], base + v[1], base + v[2]);
    }
    base += body_verts(&sim->body_desc[k]);
  }
  fprintf(fp, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (size_t t = 1; t <= nt; ++t) fprintf(fp, "%zu\n", 3 * t);
  fprintf(fp, "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (size_t t = 0; t < nt; ++t) fprintf(fp, "5\n"); /* VTK_TRIANGLE */
  fprintf(fp, "</DataArray>\n</Cells>\n<CellData Scalars=\"body\">\n<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">\n");
  for (size_t k = 0; k < sim->n_bodies; ++k)
    for (size_t t = 0; t < body_tris(&sim->body_desc[k]); ++t) fprintf(fp, "%zu\n", k);
  fprintf(fp, "</DataArray>\n</CellData>\n<PointData Vectors=\"velocity\">\n"
              "<DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    const bg_rbody *r = &sim->bodies[k];
    for (size_t v = 0; v < body_verts(&sim->body_desc[k]); ++v) {
      double p[3], rw[3];
      vert(&sim->body_desc[k], &sim->body_mesh[k], v, p);
      rotate(r->q, p, rw);
      const double u[3] = {r->v[0] + r->w[1] * rw[2] - r->w[2] * rw[1], r->v[1] + r->w[2] * rw[0] - r->w[0] * rw[2],
                           r->v[2] + r->w[0] * rw[1] - r->w[1] * rw[0]};
      fprintf(fp, "%.9g %.9g %.9g\n", u[0], u[1], u[2]);
    }
  }
  fprintf(fp, "</DataArray>\n</PointData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
  int e = bg_out_commit(&o, 0, ferror(fp) ? (errno ? errno : EIO) : 0);
  if (e) return bg_fail(sim, BG_ERR_IO, "writing %s: %s", path, strerror(e));
  return BG_OK;
}
