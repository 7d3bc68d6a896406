/* bg_mat_vm.h: von Mises (J2) plasticity with linear isotropic hardening,
 * radial return in principal Hencky strain (references/derivations/
 * von_mises.md). A metal or an undrained clay: the yield stress does not
 * depend on pressure, the plastic flow is deviatoric (isochoric), and
 * there is no tension cut-off. A registered model (this header is the whole
 * of it: core/physics/materials/README.md); taichi_mpm's `von_mises`.
 *
 * Yield: |dev tau| <= sqrt(2/3) sigma_y(q), sigma_y(q) = yield_stress +
 * hardening q, on the Kirchhoff stress tau of the Hencky law; sigma_y is the
 * uniaxial yield stress, sigma_y / sqrt 3 the yield stress in shear.
 * State: slot 1 holds q, the accumulated equivalent plastic strain
 * sum sqrt(2/3) |d eps_p| (d eps_p the deviatoric plastic Hencky strain of
 * a step), which in uniaxial tension is the plastic axial strain. Slot 0
 * (log Jp) is unused and stays 0: the return leaves tr(eps), so J, alone,
 * the plastic volume ratio is 1 by construction, and the volume correction
 * (a sand's dilation memory) does not apply and is ignored. Rate-independent:
 * the return map ignores dt. A lane update (bg_lane.h) runs the same
 * operations on the CPU's vector loop.
 *
 * BG_MATERIAL(6, vm, VM, 1, "von-mises") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_VM_PARAMS_H
#define BG_MAT_VM_PARAMS_H

/* bg_vm_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_VM_PARAMS(X)                                                                             \
  X(bg_real, yield_stress, BG_MATP_REAL) /* uniaxial yield stress sigma_y at q = 0, Pa, > 0 */      \
  X(bg_real, hardening, BG_MATP_REAL)    /* linear isotropic modulus H, Pa, >= 0: sigma_y + H q */
BG_MATERIAL_PARAMS_STRUCT(vm, BG_VM_PARAMS)

/* taichi_mpm's von_mises: yield stress 1.0 (its README's default; read as
 * 1 Pa, see bg_vm_default_material), no hardening (taichi_mpm has none). */
static inline bg_vm_params bg_vm_default_params(void) {
  bg_vm_params p;
  p.yield_stress = 1.0f;
  p.hardening = 0.0f;
  return p;
}

#endif /* BG_MAT_VM_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_VM_H)
#define BG_MAT_VM_H

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "bg_lane.h"
#include "bg_material_core.h"

typedef struct bg_vm_c {
  bg_real sigma_y; /* Pa */
  bg_real H;       /* Pa */
} bg_vm_c;

/* sqrt(2/3): the radius of the von Mises cylinder per unit sigma_y, and the
 * equivalent plastic strain per unit deviatoric strain norm. */
#define BG_VM_SQRT_2_3 0.8164965809277260f

/* The return map at the stored equivalent plastic strain q, shear modulus
 * mu: the deviatoric trial strain eh is projected radially onto the
 * cylinder |eh| = sqrt(2/3) sigma_y(q + dq) / (2 mu), where hardening moves
 * the radius by the step's own dq = sqrt(2/3) dgamma, so
 *   dgamma = (|eh| - sqrt(2/3) sigma_y(q) / (2 mu)) / (1 + H / (3 mu)).
 * The trace is kept: the return is isochoric. */
BG_HD bg_return bg_vm_return_map(bg_vec3 eps, bg_real q, bg_real mu, bg_real sigma_y, bg_real H) {
  bg_return r;
  bg_trial t = bg_trial_split(eps, 0.0f, 0);
  bg_real f = t.eh_norm - BG_VM_SQRT_2_3 * (sigma_y + H * q) / (2.0f * mu);
  r.log_jp = 0.0f;
  if (f <= 0.0f || t.eh_norm <= 0.0f) {
    r.mode = BG_RM_ELASTIC;
    r.dq = 0.0f;
    r.eps = eps;
    return r;
  }
  bg_real dgamma = f / (1.0f + H / (3.0f * mu));
  bg_real k = dgamma / t.eh_norm;
  r.mode = BG_RM_SHEAR;
  r.dq = BG_VM_SQRT_2_3 * dgamma;
  for (int i = 0; i < 3; ++i) r.eps.v[i] = eps.v[i] - k * t.eh.v[i];
  return r;
}

/* The model's return map, as the registry calls it. */
BG_HD bg_return bg_vm_return(const bg_elasticity_c *el, const bg_vm_c *c, bg_real dt, bg_vec3 eps,
                             const bg_real *st) {
  (void)dt;
  return bg_vm_return_map(eps, st[BG_STATE_Q], el->lame.mu, c->sigma_y, c->H);
}

/* bg_vm_update: the scalar update of one particle (bg_material_core.h). */
BG_MATERIAL_SCALAR_UPDATE(vm)

/* Local: no slot of the state needs the grid. */
BG_HD int bg_vm_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_vm_nonlocal_dt(const bg_vm_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the P wave of the elasticity bounds the step (plastic flow
 * only slows waves down). */
static inline bg_real bg_vm_wave_speed(const bg_material *mat) { return bg_elasticity_wave_speed(mat); }

/* Host side: taichi_mpm's von_mises elasticity (E 5e3, nu 0.4) and its
 * default particle density 400 for a solid (not thin-shell) object, in
 * taichi_mpm's units read as SI (m, kg, s: its grid spans 1 unit with
 * gravity 10, i.e. metres and m/s^2), so E 5e3 Pa and rho0 400 kg/m^3; no
 * volume correction (no dilation memory); Hencky stress, the law the yield
 * surface is written in. */
static inline void bg_vm_default_material(bg_material *m) {
  m->E = 5e3f;
  m->nu = 0.4f;
  m->rho0 = 400.0f;
  m->volume_correction = 0;
  m->stress = BG_STRESS_HENCKY;
}

/* Slot 0 unused (the plastic volume ratio is 1), q in slot 1. */
static inline bg_state_desc bg_vm_state(void) {
  bg_state_desc d = {{"", "q", "", ""}, -1, BG_STATE_Q};
  return d;
}

/* Validation, host side: 0 when valid; else 1 (not finite) or 2 (out of
 * range) with the field and its range in msg. */
static inline int bg_vm_validate(const bg_material *mat, char *msg, size_t len) {
  const bg_vm_params *m = &mat->vm;
  int bad = bg_elasticity_validate(mat, msg, len);
  if (bad) return bad;
  if (!isfinite(m->yield_stress))
    return snprintf(msg, len, "material.vm.yield_stress is not finite (got %g)", (double)m->yield_stress), 1;
  if (!(m->yield_stress > 0))
    return snprintf(msg, len, "material.vm.yield_stress must be > 0 Pa (got %g)", (double)m->yield_stress), 2;
  if (!isfinite(m->hardening))
    return snprintf(msg, len, "material.vm.hardening is not finite (got %g)", (double)m->hardening), 1;
  if (!(m->hardening >= 0))
    return snprintf(msg, len, "material.vm.hardening must be >= 0 Pa (got %g)", (double)m->hardening), 2;
  if (mat->stress != BG_STRESS_HENCKY)
    return snprintf(msg, len,
                    "material.stress must be BG_STRESS_HENCKY for von-mises: its yield surface is written "
                    "on the Hencky stress (got %d)",
                    (int)mat->stress),
           2;
  return 0;
}

/* The prepare step. */
static inline void bg_vm_prepare(const bg_vm_params *m, bg_vm_c *c) {
  c->sigma_y = m->yield_stress;
  c->H = m->hardening;
}

/* ---- the lane update (bg_lane.h): the CPU backend's vector loop ---- */

/* The cylinder's radius in stress, sqrt(2/3) sigma_y(q), from the
 * particle's q in the scalar pre-pass; the lane divides by 2 mu, the
 * scalar map's operations in its order. */
BG_HD bg_real bg_vm_lane_aux(const bg_vm_c *c, bg_real q) { return BG_VM_SQRT_2_3 * (c->sigma_y + c->H * q); }

/* bg_vm_return_map with selects for branches, the same operations in the
 * same order and the correctly rounded sqrt: bit-identical results on every
 * lane whose ok is set (all but a denormal deviatoric strain norm). */
BG_LANE bg_return_lane bg_vm_return_lane(const bg_lane_consts *k, const bg_vm_c *c, bg_real dt, bg_real aux,
                                         bg_vec3 eps, bg_real log_jp) {
  (void)dt;
  (void)log_jp;
  bg_return_lane o;
  bg_real mu = k->lame.mu;
  bg_real tr = eps.v[0] + eps.v[1] + eps.v[2];
  bg_vec3 eh;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) eh.v[i] = eps.v[i] - tr * (1.0f / 3.0f);
  bg_real x2 = eh.v[0] * eh.v[0] + eh.v[1] * eh.v[1] + eh.v[2] * eh.v[2];
  o.ok = ~(bg_lane_gt_(x2, 0.0f) & bg_lane_gt_(FLT_MIN, x2));
  bg_real norm = bg_lane_sqrt_cr_(x2);
  bg_real f = norm - aux / (2.0f * mu);
  bg_lmask shear = bg_lane_gt_(f, 0.0f) & bg_lane_gt_(norm, 0.0f);
  bg_real dgamma = f / (1.0f + c->H / (3.0f * mu));
  bg_real kk = dgamma / bg_lane_sel_(shear, norm, 1.0f);
  o.r.dq = bg_lane_sel_(shear, BG_VM_SQRT_2_3 * dgamma, 0.0f);
  BG_UNROLL
  for (int i = 0; i < 3; ++i) o.r.eps.v[i] = bg_lane_sel_(shear, eps.v[i] - kk * eh.v[i], eps.v[i]);
  o.r.mode = (int)(shear & (bg_lmask)BG_RM_SHEAR);
  o.r.log_jp = 0.0f;
  return o;
}

/* bg_vm_update_lane and bg_vm_update_chunk */
BG_MATERIAL_LANE_UPDATE(vm)

#endif /* BG_MAT_VM_H */
