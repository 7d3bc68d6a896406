/* bg_constitutive_batch.h: the drivers of the CPU backend's constitutive
 * update over chunks of particles (bg_mat_chunk, bg_lane.h). A model with a
 * lane update (bg_material_list.h, lane = 1) runs its vector loop, and its
 * own scalar update on every lane the loop cannot certify; any other model
 * runs the scalar update (bg_material_update, what cpu/ref and the CUDA
 * backend run) on each particle.
 *
 * Contract: for every input the lane drivers return what the scalar update
 * returns, up to float round-off (the SVD and one-ulp log/exp; the return
 * maps and elastic laws are bit-identical, test_svd). */
#ifndef BG_CONSTITUTIVE_BATCH_H
#define BG_CONSTITUTIVE_BATCH_H

#include "bg_lane.h"
#include "bg_materials.h"

/* The update of lanes 0 .. len-1 of c (1 <= len <= BG_BATCH_CHUNK).
 * Returns the number of lanes a vector loop handed to the scalar update (0
 * for models without lanes). */
static inline int bg_material_update_chunk(const bg_mat *m, bg_real dt, bg_mat_chunk *c, int len) {
  if (len <= 0) return 0;
  if (len > BG_BATCH_CHUNK) len = BG_BATCH_CHUNK;
  switch (m->model) {
#define BG_LANE_CASE_0_(n, N)
#define BG_LANE_CASE_1_(n, N) \
  case BG_MODEL_##N: return bg_##n##_update_chunk(&m->el, &m->c.n, dt, c, len);
#define BG_X_(n, N, lane, label) BG_LANE_CASE_##lane##_(n, N)
      BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
#undef BG_LANE_CASE_0_
#undef BG_LANE_CASE_1_
      default: break;
    }
  for (int l = 0; l < len; ++l) {
    bg_mat3 Fm, Cm, tm;
    bg_real st[BG_NSTATE];
    bg_update_ctx u = bg_mat_chunk_lane_ctx(c, l, &Fm, &Cm, st, &tm);
    u.dt = dt;
    c->mode[l] = bg_material_update(m, &u);
    bg_mat_chunk_lane_put(c, l, &u);
  }
  return 0;
}

/* bg_material_update_chunk over n particles held in caller-owned SoA arrays
 * (F[3*i+j][p] and st[k][p] in/out; tau[k][p] out, symmetric as in
 * bg_mat_chunk; mode[p] out, may be NULL), through a chunk on the stack.
 * Returns the number of fallback lanes. */
static inline int bg_material_update_soa(const bg_mat *m, bg_real dt, int n, bg_real *const *F, bg_real *const *st,
                                         bg_real *const *tau, int *mode) {
  bg_mat_chunk c;
  int fell_back = 0;
  c.C = NULL; /* no velocity gradient outside a step */
  for (int base = 0; base < n; base += BG_BATCH_CHUNK) {
    int len = (n - base < BG_BATCH_CHUNK) ? n - base : BG_BATCH_CHUNK;
    for (int e = 0; e < 9; ++e)
      for (int l = 0; l < len; ++l) c.F[e][l] = F[e][base + l];
    for (int k = 0; k < BG_NSTATE; ++k)
      for (int l = 0; l < len; ++l) c.st[k][l] = st[k][base + l];
    fell_back += bg_material_update_chunk(m, dt, &c, len);
    for (int e = 0; e < 9; ++e)
      for (int l = 0; l < len; ++l) F[e][base + l] = c.F[e][l];
    for (int e = 0; e < 6; ++e)
      for (int l = 0; l < len; ++l) tau[e][base + l] = c.tau[e][l];
    for (int k = 0; k < BG_NSTATE; ++k)
      for (int l = 0; l < len; ++l) st[k][base + l] = c.st[k][l];
    if (mode)
      for (int l = 0; l < len; ++l) mode[base + l] = c.mode[l];
  }
  return fell_back;
}

/* A chunk of 3x3 SVDs in SoA scratch, row-major entries. */
typedef struct bg_svd_chunk {
  bg_real a[9][BG_BATCH_CHUNK]; /* in */
  bg_real u[9][BG_BATCH_CHUNK]; /* out */
  bg_real s[3][BG_BATCH_CHUNK]; /* out */
  bg_real v[9][BG_BATCH_CHUNK]; /* out */
} bg_svd_chunk;

/* bg_svd3 on lanes 0 .. len-1 of c, in bg_svd3's convention; lanes the
 * fast path cannot certify are recomputed by bg_svd3. Lanes len and above
 * are scratch. Returns the number of fallback lanes. */
BG_BATCH_DRIVER int bg_svd3_chunk(bg_svd_chunk *c, int len) {
  int bad[BG_BATCH_CHUNK];
  int fell_back = 0;
  if (len <= 0) return 0;
  if (len > BG_BATCH_CHUNK) len = BG_BATCH_CHUNK;
  for (int l = len; l < BG_BATCH_CHUNK; ++l)
    for (int e = 0; e < 9; ++e) c->a[e][l] = (e % 4 == 0) ? 1.0f : 0.0f;
  BG_SIMD_LOOP
  for (int l = 0; l < BG_BATCH_CHUNK; ++l) {
    bg_lane_m3 x;
    BG_UNROLL
    for (int e = 0; e < 9; ++e) x.e[e] = c->a[e][l];
    bg_lane_svd r = bg_svd3_lane(x);
    BG_UNROLL
    for (int e = 0; e < 9; ++e) {
      c->u[e][l] = r.u.e[e];
      c->v[e][l] = r.v.e[e];
    }
    BG_UNROLL
    for (int e = 0; e < 3; ++e) c->s[e][l] = r.s[e];
    bad[l] = (int)(~r.ok & 1u);
  }
  for (int l = 0; l < len; ++l) {
    if (!bad[l]) continue;
    bg_mat3 am, um, vm;
    bg_vec3 sv;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) am.m[i][j] = c->a[3 * i + j][l];
    bg_svd3(&am, &um, &sv, &vm);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        c->u[3 * i + j][l] = um.m[i][j];
        c->v[3 * i + j][l] = vm.m[i][j];
      }
    for (int e = 0; e < 3; ++e) c->s[e][l] = sv.v[e];
    ++fell_back;
  }
  return fell_back;
}

#endif /* BG_CONSTITUTIVE_BATCH_H */
