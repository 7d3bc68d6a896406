/* checkpoint_write.c: bg_sim_save, the checkpoint writer (the format is
 * described at the top of checkpoint.c, the shared constants are in
 * checkpoint_format.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bg_internal.h"
#include "bg_sha256.h"

#include "checkpoint_format.h"
#include "mesh_internal.h"

/* ------------------------------------------------------------------ writer */

typedef struct writer {
  FILE *fp;
  bg_sha256 h;
  uint64_t bytes;
  int bad;
} writer;

static void put(writer *w, const void *p, size_t n) {
  if (w->bad || n == 0) return;
  w->bytes += n;
  if (!w->fp) return; /* counting only */
  if (fwrite(p, 1, n, w->fp) != n) w->bad = errno ? errno : EIO;
  bg_sha256_update(&w->h, p, n);
}
static void put_u32(writer *w, uint32_t v) { put(w, &v, sizeof v); }
static void put_i32(writer *w, int32_t v) { put(w, &v, sizeof v); }
static void put_u64(writer *w, uint64_t v) { put(w, &v, sizeof v); }
static void put_f64(writer *w, double v) { put(w, &v, sizeof v); }
static void put_real(writer *w, bg_real v) { put(w, &v, sizeof v); }
static void put_reals(writer *w, const bg_real *v, size_t n) { put(w, v, n * sizeof *v); }
static void put_str(writer *w, const char *t) {
  put_u32(w, (uint32_t)strlen(t));
  put(w, t, strlen(t));
}

static void put_desc(writer *w, const bg_sim *sim) {
  const bg_sim_desc *d = &sim->desc;
  for (int a = 0; a < 3; ++a) put_u64(w, d->dims[a]);
  put_real(w, d->dx);
  put_reals(w, d->origin, 3);
  put_reals(w, sim->cfg.gravity, 3);
  put(w, &d->material, sizeof d->material);
  for (int f = 0; f < BG_FACE_COUNT; ++f) {
    put_i32(w, (int32_t)d->walls[f].friction);
    put_real(w, d->walls[f].mu);
  }
  put_i32(w, d->threads);
  put_real(w, d->cfl);
  put_real(w, d->fixed_dt);
  put_i32(w, d->force_dt);
  put_i32(w, d->sort_interval);
  /* the backend that wrote it and its resolved properties (a load on the
   * same backend keeps them; version 1 held the retired cpu_reference here) */
  put_str(w, bg_backend_ops_name(sim->ops));
  put_str(w, sim->properties);
  put_real(w, sim->cfg.damping);
  put_u64(w, d->n_colliders);
  size_t nn = (size_t)sim->cfg.n_nodes;
  for (size_t i = 0; i < d->n_colliders; ++i) {
    const bg_collider *c = &d->colliders[i];
    put_i32(w, (int32_t)c->shape);
    put_reals(w, c->point, 3);
    put_reals(w, c->normal, 3);
    put_reals(w, c->lo, 3);
    put_reals(w, c->hi, 3);
    put_reals(w, c->center, 2);
    put_real(w, c->radius);
    put_i32(w, c->invert);
    put_i32(w, (int32_t)c->friction);
    put_real(w, c->mu);
    put_reals(w, c->velocity, 3);
    put_i32(w, c->phi != NULL);
    put_i32(w, c->normals != NULL);
    if (c->phi) put_reals(w, c->phi, nn);
    if (c->normals) put_reals(w, c->normals, 3 * nn);
  }
  put_u64(w, d->n_sinks);
  for (size_t i = 0; i < d->n_sinks; ++i) {
    put_reals(w, d->sinks[i].lo, 3);
    put_reals(w, d->sinks[i].hi, 3);
  }
}

static void put_state(writer *w, const bg_sim *sim, const bg_raw *r) {
  put_u64(w, sim->step);
  put_f64(w, sim->time);
  put_real(w, sim->last_dt);
  put_u64(w, r->n);
  for (int k = 0; k < BG_RAW_NF; ++k) put_reals(w, r->f[k], r->n);
  put(w, r->id, r->n * sizeof *r->id);
  put(w, r->park, r->n * sizeof *r->park);
  put_f64(w, r->parked_mass);
  put_f64(w, r->total_mass);
  put_f64(w, r->max_speed);
  put(w, r->sink_mass, ((size_t)sim->cfg.n_sinks + 1) * sizeof *r->sink_mass);
  put(w, &r->n_runs, sizeof r->n_runs);
  if (r->n_runs > 0) {
    put(w, r->runstart, (size_t)r->n_runs * sizeof *r->runstart);
    put(w, r->runkey, (size_t)r->n_runs * sizeof *r->runkey);
  }
  /* the colliders' and the faces' tallies (the bodies' follow their state) */
  const size_t nc = 3 * sim->n_colliders, nf = 3 * BG_FACE_COUNT, nb = 3 * sim->n_bodies;
  put(w, sim->wall_force, nc * sizeof *sim->wall_force);
  put(w, sim->wall_force + nc + nb, nf * sizeof *sim->wall_force);
  put(w, sim->wall_impulse, nc * sizeof *sim->wall_impulse);
  put(w, sim->wall_impulse + nc + nb, nf * sizeof *sim->wall_impulse);
  /* version 3: the material table, then the index of every particle (one
   * byte each, in the memory order above) */
  put_u64(w, sim->n_materials);
  put(w, sim->materials, sim->n_materials * sizeof *sim->materials);
  put(w, r->mat, r->n * sizeof *r->mat);
  /* version 4: the sources, field by field, each with its state */
  put_u64(w, sim->n_sources);
  for (size_t i = 0; i < sim->n_sources; ++i) {
    const bg_src *q = &sim->sources[i];
    put_i32(w, (int32_t)q->d.shape);
    put_reals(w, q->d.center, 3);
    put_real(w, q->d.radius);
    put_reals(w, q->d.half, 3);
    put_reals(w, q->d.velocity, 3);
    put_f64(w, q->d.mass_rate);
    put_f64(w, q->d.t_start);
    put_f64(w, q->d.t_stop);
    put_i32(w, q->d.material);
    put_real(w, q->d.ppc);
    put_u64(w, q->d.seed);
    put_f64(w, q->owed);
    put_u64(w, q->n_emitted);
    put_f64(w, q->mass_emitted);
    put_u64(w, q->counter);
  }
  /* version 5: the rigid bodies as created (bg_body's fields, the mesh
   * pointer left out), each with its state now and its two wall tallies;
   * version 6: a mesh body's vertices and triangles after them */
  put_u64(w, sim->n_bodies);
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    const bg_rbody *rb = &sim->bodies[k];
    put(w, &sim->body_desc[k], BG_BODY_FIELD_BYTES);
    put(w, rb->x, sizeof rb->x);
    put(w, rb->q, sizeof rb->q);
    put(w, rb->v, sizeof rb->v);
    put(w, rb->w, sizeof rb->w);
    put(w, rb->f, sizeof rb->f);
    put(w, rb->tau, sizeof rb->tau);
    put_i32(w, rb->parked);
    put(w, sim->wall_force + nc + 3 * k, 3 * sizeof *sim->wall_force);
    put(w, sim->wall_impulse + nc + 3 * k, 3 * sizeof *sim->wall_impulse);
    if (sim->body_desc[k].shape == BG_BODY_MESH) {
      const struct bg_mesh *m = sim->body_mesh[k].mesh;
      put_u64(w, m->nv);
      put_u64(w, m->nt);
      put(w, m->v, 3 * m->nv * sizeof *m->v);
      put(w, m->t, 3 * m->nt * sizeof *m->t);
    }
  }
}

/* Payload bytes: a dry run of the writer (no file: it only counts), so the
 * header can give the length before the payload follows. */
static uint64_t payload_bytes(const bg_sim *sim, const bg_raw *r, size_t user_len) {
  writer w;
  memset(&w, 0, sizeof w);
  put_desc(&w, sim);
  put_state(&w, sim, r);
  put_u64(&w, user_len);
  return w.bytes + user_len;
}

bg_status bg_sim_save(bg_sim *sim, const char *path, const void *user, size_t user_len) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  if (!path) return bg_fail(sim, BG_ERR_NULL, "path is NULL");
  if (user_len && !user)
    return bg_fail(sim, BG_ERR_NULL, "user is NULL with user_len = %zu", user_len);
  bg_raw r;
  bg_status s = bg_raw_export(sim, &r);
  if (s != BG_OK) return s;
  bg_out f;
  if (bg_out_open(&f, path, "wb") != 0) {
    bg_raw_free(&r);
    return bg_fail(sim, BG_ERR_IO, "cannot open %s.tmp for writing: %s", path, strerror(errno));
  }
  writer w;
  memset(&w, 0, sizeof w);
  w.fp = f.fp;
  bg_sha256_init(&w.h);
  uint32_t lw[LAYOUT_WORDS];
  layout_words(lw);
  uint64_t expect = payload_bytes(sim, &r, user_len);
  put(&w, BG_CKPT_MAGIC, sizeof BG_CKPT_MAGIC);
  put_u32(&w, BG_CHECKPOINT_VERSION);
  for (int k = 0; k < LAYOUT_WORDS; ++k) put_u32(&w, lw[k]);
  put_u64(&w, expect);
  put_desc(&w, sim);
  put_state(&w, sim, &r);
  put_u64(&w, user_len);
  put(&w, user, user_len);
  bg_raw_free(&r);
  unsigned char digest[32];
  bg_sha256_final(&w.h, digest);
  if (!w.bad && fwrite(digest, 1, 32, w.fp) != 32) w.bad = errno ? errno : EIO;
  if (!w.bad && w.bytes != HEADER_BYTES + expect) {
    bg_out_abort(&f);
    return bg_fail(sim, BG_ERR_INTERNAL, "checkpoint writer: %llu payload bytes written, %llu announced",
                   (unsigned long long)(w.bytes - HEADER_BYTES), (unsigned long long)expect);
  }
  int e = bg_out_commit(&f, 1, w.bad);
  return e ? bg_fail(sim, BG_ERR_IO, "writing %s failed: %s", path, strerror(e)) : BG_OK;
}
