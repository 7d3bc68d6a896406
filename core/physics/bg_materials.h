/* bg_materials.h: the material models of the registry
 * (materials/bg_material_list.h, generated from the model headers by
 * core/cmake/bg_material_list.cmake) behind one interface: the coefficients of
 * the inner loop as a tagged union, and the scalar constitutive update both
 * backends run through one switch. The CPU's chunked vector path is in
 * bg_constitutive_batch.h. */
#ifndef BG_MATERIALS_H
#define BG_MATERIALS_H

#include <stdio.h>
#include <string.h>

#include "bagnold.h"
#include "bg_material_core.h"
/* bagnold.h included the generated list with BG_MAT_PARAMS_ONLY, which kept
 * the model headers to their parameters: included again, it brings the
 * models themselves (the list's includes sit outside its guard) */
#include "materials/bg_material_list.h"

/* The coefficients of a material, ready for the inner loop. */
typedef struct bg_mat {
  int model; /* bg_material_model */
  bg_elasticity_c el;
  int slot_log_jp, slot_q; /* the model's bg_state_desc: where log Jp and q live, -1: nowhere */
  union {
#define BG_X_(n, N, lane, label) bg_##n##_c n;
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
  } c;
} bg_mat;

/* The scalar update of one particle (the oracle), through the model's
 * bg_<name>_update on the context u (bg_update_ctx: F in/out, C, dt, the
 * state in/out, tau out). Returns the return-map mode. */
BG_HD int bg_material_update(const bg_mat *m, bg_update_ctx *u) {
  switch (m->model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_update(&m->el, &m->c.n, u);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: break;
  }
  /* an unknown model cannot get past bg_sim_create; NaN makes a bug loud */
  *u->tau = bg_mat3_zero();
  for (int i = 0; i < 3; ++i) u->tau->m[i][i] = NAN;
  return BG_RM_ELASTIC;
}

/* The Kirchhoff stress of a particle from its updated F and state alone,
 * as bg_material_update left it (up to a second SVD's round-off), for a
 * backend that does not store tau. Returns 1, or 0 for a model whose
 * stress needs more than F and the state (water: the velocity gradient),
 * which such a backend must refuse. */
BG_HD int bg_material_stress_of_f(const bg_mat *m, const bg_mat3 *F, const bg_real *st, bg_mat3 *tau) {
  switch (m->model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_stress_of_f(&m->el, &m->c.n, F, st, tau);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: break;
  }
  *tau = bg_mat3_zero();
  return 0;
}

/* log Jp and q of particle p, whose state slot k is st[k][p], where the
 * model keeps them (bg_state_desc); 0 for a model without them. */
BG_HD bg_real bg_mat_log_jp(const bg_mat *m, bg_real *const *st, int64_t p) {
  return m->slot_log_jp >= 0 ? st[m->slot_log_jp][p] : 0.0f;
}
BG_HD bg_real bg_mat_q(const bg_mat *m, bg_real *const *st, int64_t p) {
  return m->slot_q >= 0 ? st[m->slot_q][p] : 0.0f;
}

/* 1 when the model has a lane update the CPU's vector loop can run. */
BG_HD int bg_material_has_lane(int model) {
  switch (model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return lane;
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: return 0;
  }
}

/* The state slot whose grid Laplacian the model needs (bg_material_core.h),
 * or -1 for a local model. */
BG_HD int bg_material_nonlocal_slot(int model) {
  switch (model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_nonlocal_slot();
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: return -1;
  }
}

/* The largest dt the model's explicit nonlocal term allows at cell size dx
 * (INFINITY for a local model); the step takes the smaller of it and the
 * elastic CFL bound. */
BG_HD bg_real bg_material_nonlocal_dt(const bg_mat *m, bg_real dx) {
  switch (m->model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_nonlocal_dt(&m->c.n, dx);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: return INFINITY;
  }
}

/* Host side. The model's own checks of the whole material (bg_sim_create
 * checks only that E, nu and rho0 are finite and E, rho0 > 0): 0 when
 * valid; else 1 (not finite) or 2 (out of range) with the field and its
 * range in msg. */
static inline int bg_material_validate_model(const bg_material *m, char *msg, size_t len) {
  switch (m->model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_validate(m, msg, len);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: break;
  }
  snprintf(msg, len, "material.model must be one of the %d registered models (got %d)", (int)BG_MODEL_COUNT,
           (int)m->model);
  return 2;
}

/* Host side. The model's fastest signal speed (bg_<name>_wave_speed), m/s:
 * the CFL bound's; 0 for an unknown model. */
static inline bg_real bg_material_wave_speed(const bg_material *m) {
  switch (m->model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_wave_speed(m);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: return 0;
  }
}

/* Host side. What the model's state slots mean (bg_<name>_state); all
 * slots unnamed and no log Jp or q for an unknown model. */
static inline bg_state_desc bg_material_state(int model) {
  switch (model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: return bg_##n##_state();
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: break;
  }
  bg_state_desc d;
  for (int k = 0; k < BG_NSTATE; ++k) d.name[k] = "";
  d.log_jp = d.q = -1;
  return d;
}

/* The prepare step: the coefficients of the inner loop from a material
 * (Lame from E and nu, the model's own constants). */
static inline bg_mat bg_material_prepare(const bg_material *m) {
  bg_mat c;
  memset(&c, 0, sizeof c);
  c.model = (int)m->model;
  c.el.lame = bg_lame_from_e_nu(m->E, m->nu);
  c.el.rho0 = m->rho0;
  c.el.law = m->stress == BG_STRESS_FIXED_COROTATED ? BG_LAW_FIXED_COROTATED : BG_LAW_HENCKY;
  c.el.plastic = !m->elastic_only;
  c.el.volume_correction = m->volume_correction;
  bg_state_desc sd = bg_material_state(m->model);
  c.slot_log_jp = sd.log_jp;
  c.slot_q = sd.q;
  switch (m->model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N: bg_##n##_prepare(&m->n, &c.c.n); break;
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: break;
  }
  return c;
}

#endif /* BG_MATERIALS_H */
