/* bg_lane.h: the "lane" toolkit shared by every vectorised constitutive
 * update: branch-free float selects, square roots, log and exp, the
 * certified fast-path 3x3 SVD and the elastic laws restated for lanes, plus
 * the fixed-size chunk of particles the drivers work on
 * (bg_constitutive_batch.h). A material model's optional lane update
 * (core/physics/materials/) is written with these and nothing else.
 *
 * The basics are in bg_lane_math.h, the fast SVD in bg_lane_svd.h; this
 * header adds the elastic laws, the chunk and the lane update.
 *
 * A lane update restates its model's scalar return map with its branches
 * turned into selects, operation for operation in the same order, and with
 * the correctly rounded sqrt, so it reproduces the scalar map bit for bit on
 * every lane it accepts; the elastic laws below are bg_tau_hencky_eps and
 * bg_tau_fixed_corotated restated the same way (test_svd checks them bit for
 * bit over random inputs). What differs from the scalar update is the SVD
 * itself and one-ulp log/exp, i.e. float round-off. */
#ifndef BG_LANE_H
#define BG_LANE_H

#include "bg_lane_math.h"
#include "bg_lane_svd.h"
#include "bg_material_core.h"
#include "bg_stress.h"

/* Particles per inner vector loop: 17 floats of state per particle, so a
 * chunk's working set (~5 KiB) stays in L1; a multiple of 16 lanes. */
#define BG_BATCH_CHUNK 64

/* The vector loop pragma: OpenMP simd where OpenMP is on, gcc's ivdep
 * otherwise (both say: no dependence between iterations). Nothing on nvcc,
 * where the drivers are host reference code only. */
#if defined(__CUDACC__)
#define BG_SIMD_LOOP
#elif defined(_OPENMP)
#define BG_SIMD_LOOP _Pragma("omp simd")
#elif defined(__GNUC__) && !defined(__clang__)
#define BG_SIMD_LOOP _Pragma("GCC ivdep")
#else
#define BG_SIMD_LOOP
#endif

/* The two chunk drivers are compiled three times on gcc/x86-64/Linux, for
 * x86-64-v4 (AVX-512), x86-64-v3 (AVX2) and the baseline, and the loader
 * picks one for the CPU it runs on (ifunc): the project builds without
 * -march, and the vector loop is 2.5-3.5x faster with the wider ISAs. The
 * clones compute bit-identical results (same operations; ISO C mode does not
 * contract a * b + c, and BG_LANE_FMA follows the translation unit's flags,
 * not the clone's). Define BG_BATCH_NO_CLONES to switch this off; a
 * translation unit built with -march=...AVX-512 has nothing to gain. */
#if !defined(BG_BATCH_NO_CLONES) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \
    defined(__x86_64__) && defined(__linux__) && !defined(__AVX512F__)
#define BG_BATCH_DRIVER __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) static inline
#else
#define BG_BATCH_DRIVER BG_HD
#endif

/* ------------------------------------------------------ elastic laws */

/* bg_tau_hencky_eps and bg_tau_fixed_corotated (bg_stress.h), the same
 * expressions evaluated in the same order, hence bit-identical (test_svd
 * checks it). Restated only because their 3-iteration loops are not
 * unrolled at -O2, which would keep the whole chunk loop scalar there. */
BG_LANE bg_vec3 bg_tau_hencky_eps_lane(bg_vec3 e, bg_lame l) {
  bg_vec3 t;
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  BG_UNROLL
  for (int i = 0; i < 3; ++i) t.v[i] = 2.0f * l.mu * e.v[i] + l.lambda * tr;
  return t;
}

BG_LANE bg_vec3 bg_tau_fixed_corotated_lane(bg_vec3 sigma, bg_lame l) {
  bg_vec3 t;
  bg_real J = sigma.v[0] * sigma.v[1] * sigma.v[2];
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    t.v[i] = 2.0f * l.mu * (sigma.v[i] - 1.0f) * sigma.v[i] + l.lambda * (J - 1.0f) * J;
  return t;
}

/* ------------------------------------------------------------- chunk */

/* One chunk of particles in structure-of-arrays scratch, whatever the
 * material: fixed arrays (not pointers) so that every access in a vector
 * loop is base + lane. */
typedef struct bg_mat_chunk {
  bg_real F[9][BG_BATCH_CHUNK];          /* in: F_trial, F[3*i+j] = F_ij; out: F */
  bg_real st[BG_NSTATE][BG_BATCH_CHUNK]; /* in/out: the plastic state (bg_material_core.h) */
  bg_real tau[6][BG_BATCH_CHUNK];        /* out: Kirchhoff stress xx yy zz xy xz yz */
  int mode[BG_BATCH_CHUNK];              /* out: BG_RM_* of each particle */
  /* in: the lanes' velocity gradients C[3*i+j][l] in the caller's storage,
   * or NULL (read as zero): read by the scalar updates (bg_update_ctx) only */
  const bg_real (*C)[BG_BATCH_CHUNK];
} bg_mat_chunk;

/* A symmetric matrix into the chunk's six-entry storage (the CPU backend's
 * store_sym), for lanes a scalar update computed. */
BG_HD void bg_mat_chunk_put_tau(bg_mat_chunk *c, int l, const bg_mat3 *t) {
  c->tau[0][l] = t->m[0][0];
  c->tau[1][l] = t->m[1][1];
  c->tau[2][l] = t->m[2][2];
  c->tau[3][l] = 0.5f * (t->m[0][1] + t->m[1][0]);
  c->tau[4][l] = 0.5f * (t->m[0][2] + t->m[2][0]);
  c->tau[5][l] = 0.5f * (t->m[1][2] + t->m[2][1]);
}

/* The scalar update's context for lane l (bg_update_ctx): F, C and the
 * state copied out of the chunk into the caller's F, C, st; tau is the
 * caller's. bg_mat_chunk_lane_put copies the results back. */
BG_HD bg_update_ctx bg_mat_chunk_lane_ctx(const bg_mat_chunk *c, int l, bg_mat3 *F, bg_mat3 *C, bg_real *st,
                                          bg_mat3 *tau) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      F->m[i][j] = c->F[3 * i + j][l];
      C->m[i][j] = c->C ? c->C[3 * i + j][l] : 0.0f;
    }
  for (int s = 0; s < BG_NSTATE; ++s) st[s] = c->st[s][l];
  bg_update_ctx u = {F, C, 0.0f, st, tau};
  return u;
}

BG_HD void bg_mat_chunk_lane_put(bg_mat_chunk *c, int l, const bg_update_ctx *u) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c->F[3 * i + j][l] = u->F->m[i][j];
  for (int s = 0; s < BG_NSTATE; ++s) c->st[s][l] = u->st[s];
  bg_mat_chunk_put_tau(c, l, u->tau);
}

/* Lanes len .. BG_BATCH_CHUNK-1 are scratch: padded with the identity and
 * a zero state, so a vector loop always has its full fixed length. */
BG_HD void bg_mat_chunk_pad(bg_mat_chunk *c, int len) {
  for (int l = len; l < BG_BATCH_CHUNK; ++l) {
    for (int e = 0; e < 9; ++e) c->F[e][l] = (e % 4 == 0) ? 1.0f : 0.0f;
    for (int k = 0; k < BG_NSTATE; ++k) c->st[k][l] = 0.0f;
  }
}

/* ------------------------------------------------------- lane update */

typedef struct bg_return_lane {
  bg_return r;
  bg_lmask ok; /* clear where a sqrt argument was denormal: r may differ */
} bg_return_lane;

/* Material constants of the lane, hoisted out of the chunk loop. */
typedef struct bg_lane_consts {
  bg_lame lame;
  bg_real log_sigma_min; /* logf(BG_SIGMA_MIN), the clamp of bg_log_stretch in strain space */
  bg_lmask plastic, vc, fixed_corotated;
} bg_lane_consts;

BG_HD bg_lane_consts bg_lane_consts_make(const bg_elasticity_c *m) {
  bg_lane_consts c;
  c.lame = m->lame;
  c.log_sigma_min = logf(BG_SIGMA_MIN);
  c.plastic = bg_lane_mask_(m->plastic);
  c.vc = bg_lane_mask_(m->volume_correction);
  c.fixed_corotated = bg_lane_mask_(m->law == BG_LAW_FIXED_COROTATED);
  return c;
}

typedef struct bg_lane_out {
  bg_lane_m3 f;   /* F after the update (F_trial where ok is clear) */
  bg_real tau[6]; /* Kirchhoff stress xx yy zz xy xz yz (meaningless where ok is clear) */
  bg_real log_jp, q; /* updated (the inputs where ok is clear) */
  int mode;          /* BG_RM_* */
  bg_lmask ok;       /* certification: where clear, re-run the scalar update on the inputs */
} bg_lane_out;

/* BG_MATERIAL_LANE_UPDATE(name) defines, for a model with the lane hooks
 *   bg_<name>_lane_aux(c, q)  a per-particle scalar evaluated in a scalar
 *                             pre-pass (what needs libm calls; 0 if unused),
 *   bg_<name>_return_lane(k, c, dt, aux, eps, log_jp)  its return map on lanes,
 * the one-lane update bg_<name>_update_lane (SVD, log strain, return map,
 * exp, stress, reassembly, restated from BG_MATERIAL_SCALAR_UPDATE) and the
 * chunk driver bg_<name>_update_chunk: the vector lanes first, then the
 * model's scalar bg_<name>_update on every lane they could not certify.
 * The lanes carry the sand layout of the state (BG_STATE_LOG_JP, BG_STATE_Q)
 * (returns how many). Lanes len .. BG_BATCH_CHUNK-1 are scratch. */
#define BG_MATERIAL_LANE_UPDATE(name) \
BG_LANE bg_lane_out bg_##name##_update_lane(const bg_lane_consts *c, const bg_##name##_c *mc, bg_real dt,            \
                                            bg_real aux, bg_lane_m3 f, bg_real log_jp, bg_real q) {                  \
  bg_lane_out o;                                                                                                     \
  bg_lane_svd d = bg_lane_svd_core_(f);                                                                              \
  const bg_real *u = d.u.e, *v = d.v.e, *sg = d.s;                                                                   \
  /* the columns are unsorted, so a reflection could land on any of them:                                            \
   * inverted elements (det F < 0) go to the scalar path */                                                          \
  bg_lmask ok = d.ok & bg_lane_gt_(bg_lane_det3_(u), 0.5f);                                                          \
  ok &= bg_lane_le_(fabsf(log_jp), FLT_MAX) & bg_lane_le_(fabsf(q), FLT_MAX);                                        \
                                                                                                                     \
  bg_vec3 eps;                                                                                                       \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i) eps.v[i] = bg_lane_log_(bg_lane_max_(sg[i], BG_SIGMA_MIN));                            \
  bg_return_lane rl = bg_##name##_return_lane(c, mc, dt, aux, eps, log_jp);                                          \
  ok &= rl.ok;                                                                                                       \
                                                                                                                     \
  bg_lmask pl = c->plastic;                                                                                          \
  bg_vec3 sn, et;                                                                                                    \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i) {                                                                                      \
    ok &= ~pl | bg_lane_le_(fabsf(rl.r.eps.v[i]), BG_BATCH_EPS_MAX);                                                 \
    sn.v[i] = bg_lane_sel_(pl, bg_lane_exp_(rl.r.eps.v[i]), sg[i]);                                                  \
    /* Hencky from the strain itself: log(max(exp(eps), SIGMA_MIN)) */                                               \
    et.v[i] = bg_lane_sel_(pl, bg_lane_max_(rl.r.eps.v[i], c->log_sigma_min), eps.v[i]);                             \
  }                                                                                                                  \
  bg_vec3 th = bg_tau_hencky_eps_lane(et, c->lame);                                                                  \
  bg_vec3 tf = bg_tau_fixed_corotated_lane(sn, c->lame);                                                             \
  bg_vec3 t;                                                                                                         \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i) t.v[i] = bg_lane_sel_(c->fixed_corotated, tf.v[i], th.v[i]);                           \
                                                                                                                     \
  bg_lmask upd = ok & pl;                                                                                            \
  /* U diag(sn) and U diag(t), column by column */                                                                   \
  bg_real us[9], ut[9];                                                                                              \
  BG_UNROLL                                                                                                          \
  for (int e = 0; e < 9; ++e) {                                                                                      \
    us[e] = u[e] * sn.v[e % 3];                                                                                      \
    ut[e] = u[e] * t.v[e % 3];                                                                                       \
  }                                                                                                                  \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i)                                                                                        \
    BG_UNROLL                                                                                                        \
    for (int j = 0; j < 3; ++j) {                                                                                    \
      bg_real x = BG_LANE_FMA(us[3 * i + 0], v[3 * j + 0],                                                           \
                              BG_LANE_FMA(us[3 * i + 1], v[3 * j + 1], us[3 * i + 2] * v[3 * j + 2]));               \
      o.f.e[3 * i + j] = bg_lane_sel_(upd, x, f.e[3 * i + j]);                                                       \
    }                                                                                                                \
  o.log_jp = bg_lane_sel_(upd, rl.r.log_jp, log_jp);                                                                 \
  o.q = bg_lane_sel_(upd, q + rl.r.dq, q);                                                                           \
  o.mode = (int)((bg_lmask)rl.r.mode & pl);                                                                          \
  /* U diag(t) U^T, upper triangle */                                                                                \
  BG_UNROLL                                                                                                          \
  for (int k = 0; k < 6; ++k) {                                                                                      \
    int i = (k < 3) ? k : (k == 5) ? 1 : 0;                                                                          \
    int j = (k < 3) ? k : (k == 3) ? 1 : 2;                                                                          \
    o.tau[k] = BG_LANE_FMA(ut[3 * i + 0], u[3 * j + 0],                                                              \
                           BG_LANE_FMA(ut[3 * i + 1], u[3 * j + 1], ut[3 * i + 2] * u[3 * j + 2]));                  \
  }                                                                                                                  \
  o.ok = ok;                                                                                                         \
  return o;                                                                                                          \
}                                                                                                                    \
                                                                                                                     \
BG_BATCH_DRIVER int bg_##name##_update_chunk(const bg_elasticity_c *el, const bg_##name##_c *m, bg_real dt,          \
                                             bg_mat_chunk *c, int len) {                                             \
  bg_lane_consts k = bg_lane_consts_make(el);                                                                        \
  bg_real aux[BG_BATCH_CHUNK];                                                                                       \
  int bad[BG_BATCH_CHUNK];                                                                                           \
  int fell_back = 0;                                                                                                 \
  if (len <= 0) return 0;                                                                                            \
  if (len > BG_BATCH_CHUNK) len = BG_BATCH_CHUNK;                                                                    \
  bg_mat_chunk_pad(c, len);                                                                                          \
  for (int l = 0; l < BG_BATCH_CHUNK; ++l) aux[l] = bg_##name##_lane_aux(m, c->st[BG_STATE_Q][l]);                   \
  BG_SIMD_LOOP                                                                                                       \
  for (int l = 0; l < BG_BATCH_CHUNK; ++l) {                                                                         \
    bg_lane_m3 f;                                                                                                    \
    BG_UNROLL                                                                                                        \
    for (int e = 0; e < 9; ++e) f.e[e] = c->F[e][l];                                                                 \
    bg_lane_out o = bg_##name##_update_lane(&k, m, dt, aux[l], f, c->st[BG_STATE_LOG_JP][l], c->st[BG_STATE_Q][l]);  \
    BG_UNROLL                                                                                                        \
    for (int e = 0; e < 9; ++e) c->F[e][l] = o.f.e[e];                                                               \
    BG_UNROLL                                                                                                        \
    for (int e = 0; e < 6; ++e) c->tau[e][l] = o.tau[e];                                                             \
    c->st[BG_STATE_LOG_JP][l] = o.log_jp;                                                                            \
    c->st[BG_STATE_Q][l] = o.q;                                                                                      \
    c->mode[l] = o.mode;                                                                                             \
    bad[l] = (int)(~o.ok & 1u);                                                                                      \
  }                                                                                                                  \
  for (int l = 0; l < len; ++l) {                                                                                    \
    if (!bad[l]) continue;                                                                                           \
    bg_mat3 Fm, Cm, tm;                                                                                              \
    bg_real st[BG_NSTATE];                                                                                           \
    bg_update_ctx u = bg_mat_chunk_lane_ctx(c, l, &Fm, &Cm, st, &tm);                                                \
    u.dt = dt;                                                                                                       \
    c->mode[l] = bg_##name##_update(el, m, &u);                                                                      \
    bg_mat_chunk_lane_put(c, l, &u);                                                                                 \
    ++fell_back;                                                                                                     \
  }                                                                                                                  \
  return fell_back;                                                                                                  \
}                                                                                                                    \
  /* end of BG_MATERIAL_LANE_UPDATE */

#endif /* BG_LANE_H */
