/* body_plate.c: the thin plates (BG_BODY_PLATE) of the rigid bodies. A
 * plate has no nodes inside it; what it does to the material is split in
 * two (bg_cut.h):
 *   - the transfers do not cross it: the front end hands the backends each
 *     plate's pose as a bg_cut before every step (bg_plates_commit);
 *   - the nodes beside it, within the reach of a stencil on either side,
 *     take its contact with the normal of their own side: they join the
 *     bodies' solid nodes (bg_plate_node), so the material that reaches
 *     the plate stops there and the plate's force is tallied as a body's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

bg_status bg_plates_init(bg_sim *sim) {
  int n = 0;
  for (size_t k = 0; k < sim->n_bodies; ++k) n += sim->body_desc[k].shape == BG_BODY_PLATE;
  sim->cfg.n_cuts = 0;
  sim->cfg.cuts = NULL;
  if (!n) return BG_OK;
  if (n > BG_CUT_MAX)
    return bg_fail(sim, BG_ERR_RANGE, "%d plate bodies (BG_BODY_PLATE): at most %d are supported",
                   n, BG_CUT_MAX);
  sim->cuts = calloc((size_t)n, sizeof *sim->cuts);
  if (!sim->cuts) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the plates");
  sim->cfg.n_cuts = n;
  sim->cfg.cuts = sim->cuts;
  bg_plates_commit(sim);
  return BG_OK;
}

/* The band of nodes beside a plate with normal n that take its contact: a
 * stencil's nodes lie within 1.5 dx of the particle per axis, so a
 * particle next to the plate has every node of its own side in the band,
 * and none of them carries it toward the plate. */
static double band(const bg_config *c, const double n[3]) {
  return 1.5 * c->dx * (fabs(n[0]) + fabs(n[1]) + fabs(n[2]));
}

void bg_plates_commit(bg_sim *sim) {
  int j = 0;
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    const bg_body *d = &sim->body_desc[k];
    if (d->shape != BG_BODY_PLATE) continue;
    const bg_rbody *r = &sim->bodies[k];
    bg_cut *cut = &sim->cuts[j++];
    double R[3][3];
    bg_quat_matrix(r->q, R);
    for (int a = 0; a < 3; ++a) {
      cut->c[a] = (bg_real)r->x[a];
      cut->u[a] = (bg_real)R[a][0];
      cut->t[a] = (bg_real)R[a][1];
      cut->n[a] = (bg_real)R[a][2];
      cut->v[a] = (bg_real)r->v[a];
      cut->w[a] = (bg_real)r->w[a];
    }
    cut->hu = d->half[0];
    cut->ht = sim->cfg.dim == 2 ? -1.0f : d->half[1];
    cut->wall = (int32_t)(sim->n_colliders + k);
    /* a parked plate is out of the grid's interior: it cuts nothing */
    if (r->parked) cut->hu = -1.0f;
  }
}

int bg_plate_node(const bg_sim *sim, size_t k, double R[3][3], const double rw[3], bg_bnode *out,
                  double *phi) {
  const bg_config *c = &sim->cfg;
  const bg_rbody *r = &sim->bodies[k];
  const bg_body *d = &sim->body_desc[k];
  const double n[3] = {R[0][2], R[1][2], R[2][2]};
  const double dist = n[0] * rw[0] + n[1] * rw[1] + n[2] * rw[2];
  const double b = band(c, n);
  if (fabs(dist) > b) return 0;
  /* the node's foot on the plane must lie on the plate */
  const double pu = R[0][0] * rw[0] + R[1][0] * rw[1] + R[2][0] * rw[2];
  const double pt = R[0][1] * rw[0] + R[1][1] * rw[1] + R[2][1] * rw[2];
  if (fabs(pu) > d->half[0]) return 0;
  if (c->dim != 2 && fabs(pt) > d->half[1]) return 0;
  /* the side rule of the transfers (bg_cut_separates): 0 is the + side */
  const double sgn = dist >= 0 ? 1.0 : -1.0;
  double wr[3];
  wr[0] = r->w[1] * rw[2] - r->w[2] * rw[1];
  wr[1] = r->w[2] * rw[0] - r->w[0] * rw[2];
  wr[2] = r->w[0] * rw[1] - r->w[1] * rw[0];
  for (int a = 0; a < 3; ++a) {
    out->n[a] = (bg_real)(sgn * n[a]);
    out->vw[a] = (bg_real)(r->v[a] + wr[a]);
  }
  if (c->dim == 2) out->n[1] = 0.0f;
  out->collider = (int32_t)(sim->n_colliders + k);
  out->faces = 0;
  *phi = fabs(dist) - b;
  return 1;
}
