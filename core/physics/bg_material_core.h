/* bg_material_core.h: what every material model (core/physics/materials/)
 * shares: the elastic coefficients, the per-particle plastic state, the
 * result of a return map, and the one scalar constitutive update skeleton
 * (SVD, return map in principal Hencky strain, reassembly of F, Kirchhoff
 * stress) that each model instantiates with its own return map. Pure
 * functions on POD structs, compiled as C11 and as CUDA from the same text. */
#ifndef BG_MATERIAL_CORE_H
#define BG_MATERIAL_CORE_H

#include "bg_defs.h"
#include "bg_stress.h"
#include "bg_svd.h"

enum { BG_RM_ELASTIC = 0, BG_RM_SHEAR = 1, BG_RM_TIP = 2 };

/* The plastic state of a particle: a small array, the same length for every
 * model, that the backends store, sort and read back without knowing what
 * it means. Slot 0 is log Jp, the plastic volume ratio that the density
 * read-out and the volume correction use; slot 1 the accumulated plastic
 * strain q. Slots 2 and 3 are the model's own (bg_mat_ngf.h: the
 * fluidity and its Laplacian); a model that needs more raises BG_NSTATE.
 *
 * The nonlocal service: a model whose update needs the spatial Laplacian of
 * one of its fields names that slot k (bg_<name>_nonlocal_slot, -1 for a
 * local model). The backends then scatter mass * st[k] to the grid beside
 * the mass in P2G and, in G2P, write the B-spline Laplacian of the nodal
 * mass-weighted mean (bg_transfer.h) into st[k + 1] before the update. */
#define BG_NSTATE 4
enum { BG_STATE_LOG_JP = 0, BG_STATE_Q = 1 };

/* The coefficients every model carries, ready for the inner loop. */
typedef struct bg_elastic_c {
  bg_lame lame;
  bg_real rho0;
  int law;               /* BG_LAW_HENCKY or BG_LAW_FIXED_COROTATED */
  int plastic;           /* 0: purely elastic (verification tests only) */
  int volume_correction; /* Tampubolon 2017: log Jp fed back to tr(eps) */
} bg_elastic_c;

typedef struct bg_return {
  bg_vec3 eps;    /* principal Hencky strain after the projection */
  bg_real dq;     /* plastic increment delta q */
  bg_real log_jp; /* log of the plastic volume ratio after the projection */
  int mode;       /* BG_RM_ELASTIC, BG_RM_SHEAR or BG_RM_TIP */
} bg_return;

/* What every return map starts from: the trial principal log strain eps
 * with, under the volume correction (Tampubolon 2017), the stored plastic
 * volume added back to its trace (sand pulled apart must be compressed by
 * that much before it carries load again), split into trace and deviator. */
typedef struct bg_trial {
  bg_vec3 e;       /* eps, volume-corrected */
  bg_vec3 eh;      /* its deviator */
  bg_real tr_raw;  /* tr(eps) before the correction */
  bg_real tr;      /* tr(e) */
  bg_real eh_norm; /* |eh| */
} bg_trial;

BG_HD bg_trial bg_trial_split(bg_vec3 eps, bg_real log_jp, int volume_correction) {
  bg_trial t;
  t.tr_raw = eps.v[0] + eps.v[1] + eps.v[2];
  t.e = eps;
  if (volume_correction)
    for (int i = 0; i < 3; ++i) t.e.v[i] += log_jp * (1.0f / 3.0f);
  t.tr = t.e.v[0] + t.e.v[1] + t.e.v[2];
  for (int i = 0; i < 3; ++i) t.eh.v[i] = t.e.v[i] - t.tr * (1.0f / 3.0f);
  t.eh_norm = sqrtf(t.eh.v[0] * t.eh.v[0] + t.eh.v[1] * t.eh.v[1] + t.eh.v[2] * t.eh.v[2]);
  return t;
}

/* Expansion (tr >= 0): sand carries no tension, project to the cone's tip. */
BG_HD void bg_return_tip(bg_return *r, const bg_trial *t) {
  r->mode = BG_RM_TIP;
  r->dq = sqrtf(t->e.v[0] * t->e.v[0] + t->e.v[1] * t->e.v[1] + t->e.v[2] * t->e.v[2]);
  for (int i = 0; i < 3; ++i) r->eps.v[i] = 0.0f;
}

/* Every projection conserves the total volume det(F_E) * Jp, which fixes
 * log Jp: log_jp + tr(eps_trial) - tr(eps_new). */
BG_HD void bg_return_close(bg_return *r, const bg_trial *t, bg_real log_jp) {
  r->log_jp = log_jp + t->tr_raw - (r->eps.v[0] + r->eps.v[1] + r->eps.v[2]);
}

/* Current density from particle state: total volume ratio is det(F_E) Jp. */
BG_HD bg_real bg_density(bg_real rho0, bg_real det_f, bg_real log_jp) {
  return rho0 / (det_f * expf(log_jp));
}

/* BG_MATERIAL_SCALAR_UPDATE(name) defines, for the model whose return map
 * is bg_<name>_return(el, c, dt, eps, st) (st writable: a model may
 * advance slots of its own there) and whose coefficients are
 * bg_<name>_c, the whole scalar update of one particle after
 * F_trial = (I + dt C) F: SVD, return map, reassembly of F, and the
 * Kirchhoff stress the next P2G scatters (cached so P2G needs no second
 * SVD). Returns the return-map mode. This is the oracle: the CUDA backend
 * runs it, and the CPU backend's reference mode runs it too. */
#define BG_MATERIAL_SCALAR_UPDATE(name)                                                          \
  BG_HD int bg_##name##_update(const bg_elastic_c *el, const bg_##name##_c *c, bg_real dt,      \
                               bg_mat3 *F, bg_real *st, bg_mat3 *tau) {                         \
    bg_mat3 u, v;                                                                                \
    bg_vec3 sig;                                                                                 \
    bg_svd3(F, &u, &sig, &v);                                                                    \
    int mode = BG_RM_ELASTIC;                                                                    \
    if (el->plastic) {                                                                           \
      bg_vec3 eps;                                                                               \
      for (int i = 0; i < 3; ++i) eps.v[i] = bg_log_stretch(sig.v[i]);                           \
      bg_return r = bg_##name##_return(el, c, dt, eps, st);                                      \
      st[BG_STATE_Q] += r.dq;                                                                    \
      st[BG_STATE_LOG_JP] = r.log_jp;                                                            \
      mode = r.mode;                                                                             \
      for (int i = 0; i < 3; ++i) sig.v[i] = expf(r.eps.v[i]);                                   \
      *F = bg_mat3_usvt(u, sig, v);                                                              \
    }                                                                                            \
    *tau = bg_tau_assemble(u, bg_tau_principal(el->law, sig, el->lame));                        \
    return mode;                                                                                 \
  }

#endif /* BG_MATERIAL_CORE_H */
