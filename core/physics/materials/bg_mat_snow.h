/* bg_mat_snow.h: snow (Stomakhin, Schroeder, Chai, Teran & Selle 2013, "A
 * material point method for snow simulation"), a registered model (this
 * header is the whole of it: core/physics/materials/README.md). The
 * deformation splits as F = F_E F_P. Each step the trial F_E's singular
 * values are clamped to [1 - theta_c, 1 + theta_s]; what the clamp removes
 * goes to the plastic part, whose volume ratio Jp = det F_P follows
 *   Jp_new = Jp det(F_E trial) / det(F_E clamped),
 * so that det(F_E) Jp = det F, the total volume, is kept. Compaction
 * (Jp < 1) hardens the elasticity,
 *   mu = mu0 h, lambda = lambda0 h, h = exp(xi (1 - max(Jp, jp_min))),
 * and the stress is fixed-corotated in F_E,
 *   tau = 2 mu (F_E - R_E) F_E^T + lambda (J_E - 1) J_E I.
 * jp_min is this model's one addition to the paper: the hardening saturates
 * there so that the CFL has a wave speed to use (bg_snow_wave_speed); Jp
 * itself stays exact, so the density read-out rho0 / (det F_E Jp) holds.
 * State: log Jp in slot 0; no q (references/derivations/snow.md). No lane
 * update: the CPU runs the scalar update on every particle.
 *
 * BG_MATERIAL(4, snow, SNOW, 0, "snow") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_SNOW_PARAMS_H
#define BG_MAT_SNOW_PARAMS_H

/* bg_snow_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_SNOW_PARAMS(X)                                                                  \
  X(bg_real, hardening, BG_MATP_REAL) /* xi, dimensionless, >= 0 */                       \
  X(bg_real, theta_c, BG_MATP_REAL)   /* critical compression, in (0, 1) */               \
  X(bg_real, theta_s, BG_MATP_REAL)   /* critical stretch, >= 0 */                        \
  X(bg_real, jp_min, BG_MATP_REAL)    /* Jp below which hardening saturates, in (0, 1] */
BG_MATERIAL_PARAMS_STRUCT(snow, BG_SNOW_PARAMS)

/* Stomakhin et al. 2013 Table 2's reference snow, as taichi_mpm's `snow`
 * defaults: xi 10, theta_c 2.5e-2, theta_s 7.5e-3. jp_min 0.6 is the lower
 * Jp clamp of taichi's 88-line MLS-MPM. */
static inline bg_snow_params bg_snow_default_params(void) {
  bg_snow_params p;
  p.hardening = 10.0f;
  p.theta_c = 2.5e-2f;
  p.theta_s = 7.5e-3f;
  p.jp_min = 0.6f;
  return p;
}

#endif /* BG_MAT_SNOW_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_SNOW_H)
#define BG_MAT_SNOW_H

#include <math.h>
#include <stdio.h>

#include "bg_material_core.h"

typedef struct bg_snow_c {
  bg_real xi;
  bg_real lo, hi;     /* the clamp: 1 - theta_c, 1 + theta_s */
  bg_real log_jp_min; /* log jp_min: where the hardening saturates */
} bg_snow_c;

/* The hardening factor h = exp(xi (1 - max(Jp, jp_min))) at log Jp. */
BG_HD bg_real bg_snow_hardening(const bg_snow_c *c, bg_real log_jp) {
  return expf(c->xi * (1.0f - expf(fmaxf(log_jp, c->log_jp_min))));
}

/* The clamp of the trial singular values, in place; returns
 * log det(trial) - log det(clamped), what log Jp gains. A singular value
 * of a crushed or inverted element counts as BG_SIGMA_MIN in that log, as
 * in the strain of the sand models, so log Jp stays finite. */
BG_HD bg_real bg_snow_clamp(const bg_snow_c *c, bg_vec3 *sig) {
  bg_real dlog = 0.0f;
  for (int i = 0; i < 3; ++i) {
    bg_real s = sig->v[i], cl = fminf(fmaxf(s, c->lo), c->hi);
    if (cl != s) dlog += bg_log_stretch(s) - logf(cl);
    sig->v[i] = cl;
  }
  return dlog;
}

/* The scalar update of one particle (the oracle, every backend's): SVD of
 * the trial F, the clamp (mode BG_RM_SHEAR when it removed anything, the
 * plastic mode), log Jp advanced by what it removed, F_E reassembled, and
 * the hardened fixed-corotated stress at the new Jp. el->law is not read:
 * the stress law is the model's (bg_snow_validate requires the material to
 * say fixed-corotated, the law the initial stress of the set-up uses). */
BG_HD int bg_snow_update(const bg_elasticity_c *el, const bg_snow_c *c, bg_update_ctx *u) {
  bg_mat3 uu, v;
  bg_vec3 sig;
  bg_svd3(u->F, &uu, &sig, &v);
  int mode = BG_RM_ELASTIC;
  if (el->plastic) {
    bg_real dlog = bg_snow_clamp(c, &sig);
    if (dlog != 0.0f) {
      mode = BG_RM_SHEAR;
      u->st[BG_STATE_LOG_JP] += dlog;
    }
    *u->F = bg_mat3_usvt(uu, sig, v);
  }
  bg_real h = bg_snow_hardening(c, u->st[BG_STATE_LOG_JP]);
  bg_lame l;
  l.mu = el->lame.mu * h;
  l.lambda = el->lame.lambda * h;
  *u->tau = bg_tau_assemble(uu, bg_tau_fixed_corotated(sig, l));
  return mode;
}

/* The stress from the updated F and state alone: the fixed-corotated law
 * hardened at the stored log Jp, as the update leaves it. Returns 1. */
BG_HD int bg_snow_stress_of_f(const bg_elasticity_c *el, const bg_snow_c *c, const bg_mat3 *F, const bg_real *st,
                              bg_mat3 *tau) {
  bg_mat3 uu, v;
  bg_vec3 sig;
  bg_svd3(F, &uu, &sig, &v);
  bg_real h = bg_snow_hardening(c, st[BG_STATE_LOG_JP]);
  bg_lame l;
  l.mu = el->lame.mu * h;
  l.lambda = el->lame.lambda * h;
  *tau = bg_tau_assemble(uu, bg_tau_fixed_corotated(sig, l));
  return 1;
}

/* Local: no slot of the state needs the grid (bg_material_core.h). */
BG_HD int bg_snow_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_snow_nonlocal_dt(const bg_snow_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the P wave of the hardest elasticity the model reaches, the
 * unhardened one's times sqrt(exp(xi (1 - jp_min))) (xi >= 0, so extension
 * only softens). The clamp keeps F_E within theta of a rotation, where the
 * fixed-corotated tangent differs from its value at F_E = I by O(theta),
 * a few percent that the CFL number's margin covers. */
static inline bg_real bg_snow_wave_speed(const bg_material *mat) {
  return bg_elasticity_wave_speed(mat) * sqrtf(expf(mat->snow.hardening * (1.0f - mat->snow.jp_min)));
}

/* Host side: taichi_mpm's snow, mu0 58333 Pa and lambda0 38889 Pa, is E
 * 1.4e5 Pa and nu 0.2 (E = mu (3 lambda + 2 mu) / (lambda + mu), nu =
 * lambda / (2 (lambda + mu))); the density 400 kg/m^3 is Stomakhin 2013's;
 * the stress law is the model's (fixed-corotated); the sand's volume
 * correction means nothing here and is off. */
static inline void bg_snow_default_material(bg_material *m) {
  m->E = 1.4e5f;
  m->nu = 0.2f;
  m->rho0 = 400.0f;
  m->stress = BG_STRESS_FIXED_COROTATED;
  m->volume_correction = 0;
}

static inline bg_state_desc bg_snow_state(void) {
  bg_state_desc d = {{"log_jp", "", "", ""}, BG_STATE_LOG_JP, -1};
  return d;
}

/* Validation, host side: 0 when valid; else 1 (not finite) or 2 (out of
 * range) with the field and its range in msg. */
static inline int bg_snow_validate(const bg_material *mat, char *msg, size_t len) {
#define BG_SNOW_FAIL(code, ...) return (snprintf(msg, len, __VA_ARGS__), (code))
  const bg_snow_params *m = &mat->snow;
  int bad = bg_elasticity_validate(mat, msg, len);
  if (bad) return bad;
  const bg_real v[4] = {m->hardening, m->theta_c, m->theta_s, m->jp_min};
  static const char *const names[4] = {"hardening", "theta_c", "theta_s", "jp_min"};
  for (int i = 0; i < 4; ++i)
    if (!isfinite(v[i])) BG_SNOW_FAIL(1, "material.snow.%s is not finite (got %g)", names[i], (double)v[i]);
  if (!(m->hardening >= 0))
    BG_SNOW_FAIL(2, "material.snow.hardening must be >= 0: compaction hardens (got %g)", (double)m->hardening);
  if (!(m->theta_c > 0 && m->theta_c < 1))
    BG_SNOW_FAIL(2, "material.snow.theta_c must be in (0, 1) (got %g)", (double)m->theta_c);
  if (!(m->theta_s >= 0)) BG_SNOW_FAIL(2, "material.snow.theta_s must be >= 0 (got %g)", (double)m->theta_s);
  if (!(m->jp_min > 0 && m->jp_min <= 1))
    BG_SNOW_FAIL(2, "material.snow.jp_min must be in (0, 1] (got %g)", (double)m->jp_min);
  if (!(m->hardening * (1.0f - m->jp_min) <= 40.0f))
    BG_SNOW_FAIL(2,
                 "material.snow.hardening * (1 - jp_min) must be <= 40, or the hardest modulus overflows "
                 "(got %g)",
                 (double)(m->hardening * (1.0f - m->jp_min)));
  if (mat->stress != BG_STRESS_FIXED_COROTATED)
    BG_SNOW_FAIL(2, "material.stress must be BG_STRESS_FIXED_COROTATED for snow, the model's law (got %d)",
                 (int)mat->stress);
  return 0;
#undef BG_SNOW_FAIL
}

/* The prepare step: the clamp's bounds and log jp_min. */
static inline void bg_snow_prepare(const bg_snow_params *m, bg_snow_c *c) {
  c->xi = m->hardening;
  c->lo = 1.0f - m->theta_c;
  c->hi = 1.0f + m->theta_s;
  c->log_jp_min = logf(m->jp_min);
}

#endif /* BG_MAT_SNOW_H */
