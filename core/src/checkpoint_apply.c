/* checkpoint_apply.c: what a parsed checkpoint (checkpoint.c reads it) is
 * compared with and how it is moved into a simulation: the descriptor's
 * fields one by one, then the particles, tallies, sources, bodies and
 * clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

#include "checkpoint_format.h"
#include "mesh_internal.h"

static int same_reals(const bg_real *a, const bg_real *b, size_t n) {
  return (!a && !b) || (a && b && memcmp(a, b, n * sizeof *a) == 0);
}

/* Two mesh bodies' shapes: the same vertices and triangles (both NULL for
 * the other shapes). */
static int same_mesh(const struct bg_mesh *a, const struct bg_mesh *b) {
  if (!a || !b) return !a && !b;
  return a->nv == b->nv && a->nt == b->nt && memcmp(a->v, b->v, 3 * a->nv * sizeof *a->v) == 0 &&
         memcmp(a->t, b->t, 3 * a->nt * sizeof *a->t) == 0;
}

/* The first descriptor field in which a checkpoint differs from sim, or NULL. */
const char *bg_ckpt_mismatch(const bg_sim *sim, const ckpt *c, char *buf, size_t len) {
  const bg_sim_desc *a = &sim->desc, *b = &c->desc;
  const int da = a->dim == 2 ? 2 : 3, db = b->dim == 2 ? 2 : 3;
  if (da != db) return snprintf(buf, len, "dim (%dD here, %dD in the file)", da, db), buf;
  for (int k = 0; k < 3; ++k)
    if (a->dims[k] != b->dims[k])
      return snprintf(buf, len, "dims[%d] (%zu here, %zu in the file)", k, a->dims[k], b->dims[k]),
             buf;
  if (a->dx != b->dx) return "dx";
  if (memcmp(a->origin, b->origin, sizeof a->origin)) return "origin";
  /* the material table: {material} for a file before version 3 */
  size_t nb = b->n_materials ? b->n_materials : 1;
  const bg_material *tb = b->n_materials ? b->materials : &b->material;
  if (nb != (size_t)sim->cfg.n_mats)
    return snprintf(buf, len, "material table (%d entries here, %zu in the file)", sim->cfg.n_mats, nb), buf;
  for (size_t k = 0; k < nb; ++k) {
    bg_mat mb;
    if (bg_material_params(&tb[k], &mb, NULL, 0) != BG_OK)
      return nb == 1 ? "material (invalid in the file)" : (snprintf(buf, len, "materials[%zu] (invalid in the file)", k), buf);
    if (memcmp(&sim->cfg.mats[k], &mb, sizeof mb)) return nb == 1 ? "material" : (snprintf(buf, len, "materials[%zu]", k), buf);
  }
  for (int f = 0; f < BG_FACE_COUNT; ++f)
    if (a->walls[f].friction != b->walls[f].friction || a->walls[f].mu != b->walls[f].mu)
      return snprintf(buf, len, "walls[%d]", f), buf;
  if (a->cfl != b->cfl) return "cfl";
  if (a->fixed_dt != b->fixed_dt) return "fixed_dt";
  if (a->force_dt != b->force_dt) return "force_dt";
  if (a->sort_interval != b->sort_interval) return "sort_interval";
  if (a->n_colliders != b->n_colliders) return "n_colliders";
  size_t nn = (size_t)sim->cfg.n_nodes;
  for (size_t i = 0; i < a->n_colliders; ++i) {
    const bg_collider *x = &a->colliders[i], *y = &b->colliders[i];
    if (x->shape != y->shape || x->invert != y->invert || x->friction != y->friction ||
        x->mu != y->mu || memcmp(x->point, y->point, sizeof x->point) ||
        memcmp(x->normal, y->normal, sizeof x->normal) || memcmp(x->lo, y->lo, sizeof x->lo) ||
        memcmp(x->hi, y->hi, sizeof x->hi) || memcmp(x->center, y->center, sizeof x->center) ||
        x->radius != y->radius || memcmp(x->velocity, y->velocity, sizeof x->velocity) ||
        !same_reals(x->phi, y->phi, nn) || !same_reals(x->normals, y->normals, 3 * nn))
      return snprintf(buf, len, "colliders[%zu]", i), buf;
  }
  if (a->n_bodies != b->n_bodies)
    return snprintf(buf, len, "n_bodies (%zu here, %zu in the file)", a->n_bodies, b->n_bodies), buf;
  for (size_t i = 0; i < a->n_bodies; ++i)
    if (memcmp(&a->bodies[i], &b->bodies[i], BG_BODY_FIELD_BYTES) || !same_mesh(a->bodies[i].mesh, b->bodies[i].mesh))
      return snprintf(buf, len, "bodies[%zu]", i), buf;
  if (a->n_sinks != b->n_sinks) return "n_sinks";
  for (size_t i = 0; i < a->n_sinks; ++i)
    if (memcmp(&a->sinks[i], &b->sinks[i], sizeof a->sinks[i]))
      return snprintf(buf, len, "sinks[%zu]", i), buf;
  return NULL;
}

/* Moves a parsed checkpoint into sim: the backend's particles, then the
 * clock, gravity and damping; the walls are rebuilt for the file's time. */
bg_status bg_ckpt_apply(bg_sim *sim, ckpt *c) {
  bg_raw *r = &c->raw;
  if (!r->runstart) r->n_runs = -1;
  /* the file's sources replace the simulation's (none before version 4),
   * each checked against this simulation as bg_sim_add_source checks it */
  for (size_t i = 0; i < c->n_sources; ++i) {
    bg_status q = bg_check_source(sim, &c->sources[i].d);
    if (q != BG_OK) {
      char why[sizeof sim->err];
      snprintf(why, sizeof why, "%s", sim->err);
      return bg_fail(sim, BG_ERR_CORRUPT, "the checkpoint's source %zu is invalid here: %s", i, why);
    }
    if (!(c->sources[i].owed >= 0) || c->sources[i].counter != 3 * c->sources[i].n_emitted)
      return bg_fail(sim, BG_ERR_CORRUPT, "the checkpoint's source %zu has an impossible state", i);
  }
  bg_status s = sim->ops->import_raw(sim->state, r);
  if (s != BG_OK) {
    if (!sim->err[0])
      bg_fail(sim, s, "backend %s could not take the checkpoint's particles", bg_backend_ops_name(sim->ops));
    return s;
  }
  /* the file keeps colliders and faces together, the bodies apart */
  const size_t nc = 3 * sim->n_colliders, nf = 3 * BG_FACE_COUNT, nb = 3 * sim->n_bodies, nw = nc + nf;
  memcpy(sim->wall_force, c->wall, nc * sizeof *c->wall);
  memcpy(sim->wall_force + nc + nb, c->wall + nc, nf * sizeof *c->wall);
  memcpy(sim->wall_impulse, c->wall + nw, nc * sizeof *c->wall);
  memcpy(sim->wall_impulse + nc + nb, c->wall + nw + nc, nf * sizeof *c->wall);
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    bg_rbody *rb = &sim->bodies[k];
    const bg_rbody *q = &c->bstate[k];
    memcpy(rb->x, q->x, sizeof rb->x);
    memcpy(rb->q, q->q, sizeof rb->q);
    memcpy(rb->v, q->v, sizeof rb->v);
    memcpy(rb->w, q->w, sizeof rb->w);
    memcpy(rb->f, q->f, sizeof rb->f);
    memcpy(rb->tau, q->tau, sizeof rb->tau);
    rb->parked = q->parked;
    memcpy(sim->wall_force + nc + 3 * k, c->bwall + 6 * k, 3 * sizeof *c->bwall);
    memcpy(sim->wall_impulse + nc + 3 * k, c->bwall + 6 * k + 3, 3 * sizeof *c->bwall);
  }
  free(sim->sources);
  sim->sources = c->sources;
  sim->n_sources = c->n_sources;
  c->sources = NULL;
  c->n_sources = 0;
  sim->step = c->step;
  sim->time = c->time;
  sim->last_dt = c->last_dt;
  for (int d = 0; d < 3; ++d) sim->cfg.gravity[d] = sim->desc.gravity[d] = c->desc.gravity[d];
  sim->cfg.damping = sim->desc.damping = c->desc.damping;
  if (sim->moving) return bg_boundary_build(sim, sim->time);
  if (sim->n_bodies) return bg_boundary_commit(sim);
  return BG_OK;
}

