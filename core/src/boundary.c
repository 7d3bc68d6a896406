/* boundary.c: turns colliders and domain faces into the list of solid grid
 * nodes (phi < 0) with outward normals that every backend's grid update
 * applies. Signed distances are sampled on nodes; where colliders overlap a
 * node belongs to the deepest one, while domain faces all apply (a box edge
 * is in two faces, a corner in three). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

/* Signed distance of an analytic shape at p (m), solid where < 0. */
static double shape_phi(const bg_collider *c, const double p[3]) {
  double phi = 0;
  switch (c->shape) {
    case BG_SHAPE_HALFSPACE: {
      double nn = sqrt((double)c->normal[0] * c->normal[0] + (double)c->normal[1] * c->normal[1] +
                       (double)c->normal[2] * c->normal[2]);
      phi = 0;
      for (int a = 0; a < 3; ++a) phi += (p[a] - c->point[a]) * c->normal[a] / nn;
      break;
    }
    case BG_SHAPE_BOX: {
      double out = 0, in = -1e300;
      for (int a = 0; a < 3; ++a) {
        double h = 0.5 * ((double)c->hi[a] - c->lo[a]);
        double q = fabs(p[a] - 0.5 * ((double)c->hi[a] + c->lo[a])) - h;
        out += q > 0 ? q * q : 0;
        in = q > in ? q : in;
      }
      phi = sqrt(out) + (in < 0 ? in : 0);
      break;
    }
    case BG_SHAPE_CYLINDER: {
      double dxp = p[0] - c->center[0], dyp = p[1] - c->center[1];
      double r = sqrt(dxp * dxp + dyp * dyp) - c->radius;
      double zl = c->lo[2] - p[2], zh = p[2] - c->hi[2];
      phi = r;
      if (zl > phi) phi = zl;
      if (zh > phi) phi = zh;
      break;
    }
    default: break;
  }
  return c->invert ? -phi : phi;
}

/* Outward unit normal of an analytic shape by central differences, which
 * covers boxes and cylinders (piecewise gradients) with one code path. */
static void shape_normal(const bg_collider *c, const double p[3], double h, bg_real n[3]) {
  double g[3], nn = 0;
  for (int a = 0; a < 3; ++a) {
    double q0[3] = {p[0], p[1], p[2]}, q1[3] = {p[0], p[1], p[2]};
    q0[a] -= h;
    q1[a] += h;
    g[a] = shape_phi(c, q1) - shape_phi(c, q0);
    nn += g[a] * g[a];
  }
  nn = sqrt(nn);
  for (int a = 0; a < 3; ++a) n[a] = nn > 0 ? (bg_real)(g[a] / nn) : 0;
}

static void node_normal(const bg_collider *c, const bg_config *cfg, int64_t i, int64_t j, int64_t k,
                        bg_real n[3]) {
  int64_t ny = cfg->dims[1], nz = cfg->dims[2];
  int64_t idx = (i * ny + j) * nz + k;
  if (c->normals) {
    double nn = 0;
    for (int a = 0; a < 3; ++a) nn += (double)c->normals[3 * idx + a] * c->normals[3 * idx + a];
    nn = sqrt(nn);
    for (int a = 0; a < 3; ++a) n[a] = nn > 0 ? (bg_real)(c->normals[3 * idx + a] / nn) : 0;
  } else {
    int64_t ijk[3] = {i, j, k};
    double g[3], nn = 0;
    for (int a = 0; a < 3; ++a) {
      int64_t lo[3] = {i, j, k}, hi[3] = {i, j, k};
      if (ijk[a] > 0) lo[a]--;
      if (ijk[a] < cfg->dims[a] - 1) hi[a]++;
      double pl = c->phi[(lo[0] * ny + lo[1]) * nz + lo[2]];
      double ph = c->phi[(hi[0] * ny + hi[1]) * nz + hi[2]];
      g[a] = hi[a] > lo[a] ? (ph - pl) / (double)(hi[a] - lo[a]) : 0;
      nn += g[a] * g[a];
    }
    nn = sqrt(nn);
    for (int a = 0; a < 3; ++a) n[a] = nn > 0 ? (bg_real)(g[a] / nn) : 0;
  }
  if (c->invert)
    for (int a = 0; a < 3; ++a) n[a] = -n[a];
}

bg_status bg_boundary_build(bg_sim *sim, double t) {
  const bg_config *cfg = &sim->cfg;
  int64_t nx = cfg->dims[0], ny = cfg->dims[1], nz = cfg->dims[2];
  size_t cap = sim->n_bnodes ? sim->n_bnodes : 1024, n = 0;
  bg_bnode *list = malloc(cap * sizeof *list);
  double *lphi = malloc(cap * sizeof *lphi);
  if (!list || !lphi) {
    free(list);
    free(lphi);
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the solid-node list");
  }
  /* the faces' walls follow the colliders' and the bodies' */
  const size_t face0 = sim->n_colliders + sim->n_bodies;
  double dx = cfg->dx;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) {
        int64_t ijk[3] = {i, j, k};
        int faces = 0;
        /* domain faces: BG_FACE_LAYERS solid layers on each side */
        for (int f = 0; f < BG_FACE_COUNT; ++f) {
          const bg_wallc *w = &cfg->walls[face0 + (size_t)f];
          if (w->type == BG_BC_OPEN) continue;
          int a = f / 2, hi = f % 2;
          if (a == 1 && cfg->dim == 2) continue; /* the plane has no y faces */
          int64_t depth = hi ? cfg->dims[a] - 1 - ijk[a] : ijk[a];
          if (depth < BG_FACE_LAYERS) faces |= 1 << f;
        }
        double best = 0;
        int who = -1;
        bg_real nrm[3] = {0, 0, 0};
        double p[3];
        for (int a = 0; a < 3; ++a) p[a] = cfg->origin[a] + (double)ijk[a] * dx;
        for (size_t c = 0; c < sim->n_colliders; ++c) {
          const bg_collider *col = &sim->colliders[c];
          double phi;
          if (col->shape == BG_SHAPE_NODES) {
            phi = col->phi[(i * ny + j) * nz + k];
            if (col->invert) phi = -phi;
          } else {
            double q[3];
            for (int a = 0; a < 3; ++a) q[a] = p[a] - col->velocity[a] * t;
            phi = shape_phi(col, q);
            if (phi < best) shape_normal(col, q, 0.25 * dx, nrm);
          }
          if (phi < best) {
            best = phi;
            who = (int)c;
            if (col->shape == BG_SHAPE_NODES) node_normal(col, cfg, i, j, k, nrm);
          }
        }
        if (who < 0 && !faces) continue;
        if (cfg->dim == 2) {
          /* in the plane: a normal's y part (a cylinder's, a box's corner)
           * would push material out of it */
          double nn = sqrt((double)nrm[0] * nrm[0] + (double)nrm[2] * nrm[2]);
          nrm[1] = 0;
          for (int a = 0; a < 3; a += 2) nrm[a] = nn > 0 ? (bg_real)(nrm[a] / nn) : 0;
        }
        if (n == cap) {
          cap *= 2;
          bg_bnode *grown = realloc(list, cap * sizeof *list);
          if (grown) list = grown;
          double *pgrown = grown ? realloc(lphi, cap * sizeof *lphi) : NULL;
          if (!pgrown) {
            free(list);
            free(lphi);
            return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the solid-node list");
          }
          lphi = pgrown;
        }
        list[n].node = (i * ny + j) * nz + k;
        lphi[n] = best;
        for (int a = 0; a < 3; ++a) {
          list[n].n[a] = nrm[a];
          list[n].vw[a] = who >= 0 ? sim->colliders[who].velocity[a] : 0;
        }
        list[n].collider = who;
        list[n].faces = faces;
        n++;
      }
  free(sim->bnodes);
  free(sim->bphi);
  sim->bnodes = list;
  sim->bphi = lphi;
  sim->n_bnodes = n;
  sim->walls_sent = 0;
  bg_status s = bg_boundary_commit(sim);
  if (s != BG_OK && !sim->err[0])
    return bg_fail(sim, s, "backend %s could not take the solid-node list", bg_backend_ops_name(sim->ops));
  return s;
}

/* The last solid node lies below the plane (phi < 0 there, a node on the
 * plane is free); a loaded wall acts at that node when the material's edge
 * starts on it (references/walls.md). */
double bg_wall_edge_offset(bg_friction kind, double plane_cells) {
  if (kind == BG_FRICTION_OPEN || !isfinite(plane_cells)) return 0.0;
  return (ceil(plane_cells) - 1.0) - plane_cells;
}
