/* bg_material_core.h: what every material model (core/physics/materials/)
 * shares: the elastic coefficients, the per-particle plastic state, the
 * result of a return map, and the one scalar constitutive update skeleton
 * (SVD, return map in principal Hencky strain, reassembly of F, Kirchhoff
 * stress) that each model instantiates with its own return map. Pure
 * functions on POD structs, compiled as C11 and as CUDA from the same text. */
#ifndef BG_MATERIAL_CORE_H
#define BG_MATERIAL_CORE_H

#include <stdio.h>

#include "bagnold.h"
#include "bg_defs.h"
#include "bg_stress.h"
#include "bg_svd.h"

enum { BG_RM_ELASTIC = 0, BG_RM_SHEAR = 1, BG_RM_TIP = 2 };

/* The state of a particle: a small array, the same length for every
 * model, that the backends store, sort and read back without knowing what
 * it means; each model says what its slots hold (bg_<name>_state, a
 * bg_state_desc). The elastic-plastic sand models (bg_mat_dp.h,
 * bg_mat_mui.h, bg_mat_ngf.h) keep log Jp, the plastic volume ratio that
 * the density read-out and the volume correction use, in slot 0 and the
 * accumulated plastic strain q in slot 1 (BG_STATE_*, the layout the lane
 * update of bg_lane.h assumes); slots 2 and 3 are a model's own
 * (bg_mat_ngf.h: the fluidity and its Laplacian). A model that needs more
 * raises BG_NSTATE.
 *
 * The nonlocal service: a model whose update needs the spatial Laplacian of
 * one of its fields names that slot k (bg_<name>_nonlocal_slot, -1 for a
 * local model). The backends then scatter mass * st[k] to the grid beside
 * the mass in P2G and, in G2P, write the B-spline Laplacian of the nodal
 * mass-weighted mean (bg_transfer.h) into st[k + 1] before the update. */
#define BG_NSTATE 4
enum { BG_STATE_LOG_JP = 0, BG_STATE_Q = 1 };

/* What a model's state slots mean: a name per slot ("" for an unused one)
 * and the slots of the two quantities the library itself reads back, -1
 * where the model has none: log Jp (BG_FIELD_JP, the density and the
 * Cauchy stress; none means Jp = 1) and q (BG_FIELD_Q; none reads 0). */
typedef struct bg_state_desc {
  const char *name[BG_NSTATE];
  int log_jp, q;
} bg_state_desc;

/* The state of the sand models: log Jp and q in slots 0 and 1. */
static inline bg_state_desc bg_sand_state(void) {
  bg_state_desc d = {{"log_jp", "q", "", ""}, BG_STATE_LOG_JP, BG_STATE_Q};
  return d;
}

/* What one particle's constitutive update receives and returns, so that a
 * model that needs more of the motion (a viscous or rate-form model reads
 * the velocity gradient) needs no new signature. */
typedef struct bg_update_ctx {
  bg_mat3 *F;       /* in: F_trial = (I + dt C) F; out: F after the update */
  const bg_mat3 *C; /* in: the step's velocity gradient (the APIC C), read-only */
  bg_real dt;       /* the step, s */
  bg_real *st;      /* in/out: the BG_NSTATE state slots */
  bg_mat3 *tau;     /* out: the Kirchhoff stress the next P2G scatters */
} bg_update_ctx;

/* The coefficients every model carries, ready for the inner loop. */
typedef struct bg_elasticity_c {
  bg_lame lame;
  bg_real rho0;
  int law;               /* BG_LAW_HENCKY or BG_LAW_FIXED_COROTATED */
  int plastic;           /* 0: purely elastic (verification tests only) */
  int volume_correction; /* Tampubolon 2017: log Jp fed back to tr(eps) */
} bg_elasticity_c;

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

/* The Kirchhoff stress of the elastic law at F, as the scalar update below
 * leaves it: what a backend that does not keep tau (the CUDA backend's
 * layout=compact) recomputes from the stored F. Equal to the cached stress
 * up to the round-off of a second SVD (test_physics checks how close). */
BG_HD bg_mat3 bg_elastic_law_stress(const bg_elasticity_c *el, const bg_mat3 *F) {
  bg_mat3 uu, v;
  bg_vec3 sig;
  bg_svd3(F, &uu, &sig, &v);
  return bg_tau_assemble(uu, bg_tau_principal(el->law, sig, el->lame));
}

/* BG_MATERIAL_SCALAR_UPDATE(name) defines, for the model whose return map
 * is bg_<name>_return(el, c, dt, eps, st) (st writable: a model may
 * advance slots of its own there) and whose coefficients are
 * bg_<name>_c, the whole scalar update bg_<name>_update(el, c, u) of one
 * particle after F_trial = (I + dt C) F: SVD, return map, reassembly of F,
 * and the Kirchhoff stress the next P2G scatters (cached so P2G needs no
 * second SVD). Returns the return-map mode. This is the oracle: cpu/ref and
 * the CUDA backends run it. It also defines bg_<name>_stress_of_f(el, c,
 * F, st, tau), the same stress from the updated F alone (returns 1: these
 * models' stress is their elastic law's). */
#define BG_MATERIAL_SCALAR_UPDATE(name)                                                          \
  BG_HD int bg_##name##_update(const bg_elasticity_c *el, const bg_##name##_c *c,                \
                               bg_update_ctx *u) {                                               \
    bg_mat3 uu, v;                                                                               \
    bg_vec3 sig;                                                                                 \
    bg_real *st = u->st;                                                                         \
    bg_svd3(u->F, &uu, &sig, &v);                                                                \
    int mode = BG_RM_ELASTIC;                                                                    \
    if (el->plastic) {                                                                           \
      bg_vec3 eps;                                                                               \
      for (int i = 0; i < 3; ++i) eps.v[i] = bg_log_stretch(sig.v[i]);                           \
      bg_return r = bg_##name##_return(el, c, u->dt, eps, st);                                   \
      st[BG_STATE_Q] += r.dq;                                                                    \
      st[BG_STATE_LOG_JP] = r.log_jp;                                                            \
      mode = r.mode;                                                                             \
      for (int i = 0; i < 3; ++i) sig.v[i] = expf(r.eps.v[i]);                                   \
      *u->F = bg_mat3_usvt(uu, sig, v);                                                          \
    }                                                                                            \
    *u->tau = bg_tau_assemble(uu, bg_tau_principal(el->law, sig, el->lame));                     \
    return mode;                                                                                 \
  }                                                                                              \
  BG_HD int bg_##name##_stress_of_f(const bg_elasticity_c *el, const bg_##name##_c *c,           \
                                    const bg_mat3 *F, const bg_real *st, bg_mat3 *tau) {         \
    (void)c;                                                                                     \
    (void)st;                                                                                    \
    *tau = bg_elastic_law_stress(el, F);                                                          \
    return 1;                                                                                    \
  }

/* Host side: the hooks the elastic-plastic models share. bg_material is
 * the public struct (bagnold.h). */

/* The fastest elastic wave, the P wave sqrt((lambda + 2 mu) / rho0) of the
 * isotropic elasticity from E and nu, m/s: what the CFL bound uses. */
static inline bg_real bg_elasticity_wave_speed(const bg_material *m) {
  bg_lame l = bg_lame_from_e_nu(m->E, m->nu);
  return sqrtf((l.lambda + 2.0f * l.mu) / m->rho0);
}

/* Poisson's ratio in (-1, 0.5): the bulk modulus of a compressible solid
 * is positive and finite. 0 when valid, else 2 with the range in msg. */
static inline int bg_elasticity_validate(const bg_material *m, char *msg, size_t len) {
  if (!(m->nu > -1 && m->nu < 0.5f))
    return snprintf(msg, len, "material.nu must be in (-1, 0.5) (got %g)", (double)m->nu), 2;
  return 0;
}

#endif /* BG_MATERIAL_CORE_H */
