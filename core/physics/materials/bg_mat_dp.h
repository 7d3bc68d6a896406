/* bg_mat_dp.h: Drucker-Prager sand in principal Hencky strain (Klar et al.
 * 2016), with Klar's hardening phi_F(q), the Tampubolon et al. 2017 volume
 * correction through log Jp, and a choice of how the cone is matched to
 * Mohr-Coulomb (references/derivations/cone.md). Rate-independent: the
 * return map ignores dt. A registered model (this header is the whole of
 * it: core/physics/materials/README.md): parameters, validation, wave
 * speed, state, prepare step, the scalar update (the oracle) and a lane
 * update for the CPU's vector loop. Cohesion c moves the cone's tip to the
 * mean tension c cot phi (Mohr-Coulomb's); taichi_mpm's `cohesion` is the
 * same shift written as a log strain eps_c per axis, c = 3 K eps_c tan phi,
 * and its `beta` the share of the dilation a tip projection stores in
 * log Jp (references/derivations/cohesion.md).
 *
 * BG_MATERIAL(0, dp, DP, 1, "drucker-prager") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_DP_PARAMS_H
#define BG_MAT_DP_PARAMS_H

/* Where the Drucker-Prager cone meets the Mohr-Coulomb pyramid of the
 * same friction angle phi. */
typedef enum bg_dp_cone {
  BG_CONE_COMPRESSION = 0,  /* triaxial-compression meridian (Klar 2016; the default) */
  BG_CONE_EXTENSION = 1,    /* triaxial-extension meridian (the larger cone) */
  BG_CONE_PLANE_STRAIN = 2  /* plane strain at zero dilatancy: sqrt(J2) = sin(phi) p */
} bg_dp_cone;

/* bg_dp_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_DP_PARAMS(X)                                                                          \
  X(bg_real, phi_deg, BG_MATP_REAL) /* friction angle, degrees, in (0, 90) */                   \
  X(bg_dp_cone, cone, BG_MATP_ENUM) /* how phi sets the cone's slope */                         \
  X(int, hardening, BG_MATP_INT)    /* 0: phi fixed; 1: phi_F(q) = h0 + (h1 q - h3) exp(-h2 q) */ \
  X(bg_real, h0, BG_MATP_REAL)      /* hardening parameters: h0, h1, h3 degrees, */             \
  X(bg_real, h1, BG_MATP_REAL)      /* h2 dimensionless */                                      \
  X(bg_real, h2, BG_MATP_REAL)                                                                  \
  X(bg_real, h3, BG_MATP_REAL)                                                                  \
  X(bg_real, cohesion, BG_MATP_REAL) /* Mohr-Coulomb cohesion c, Pa, >= 0: the tip at tension c cot phi */ \
  X(bg_real, beta, BG_MATP_REAL)     /* taichi_mpm's beta: share of the tip's dilation kept in log Jp, [0, 1] */
BG_MATERIAL_PARAMS_STRUCT(dp, BG_DP_PARAMS)

/* Klar et al. 2016's sand: phi 35 deg on the compression cone; hardening
 * off, its parameters set to Klar's sec. 4 values (35, 9, 0.2, 10);
 * cohesionless with taichi_mpm's beta 1 (all of the tip's dilation kept). */
static inline bg_dp_params bg_dp_default_params(void) {
  bg_dp_params p;
  p.phi_deg = 35.0f;
  p.cone = BG_CONE_COMPRESSION;
  p.hardening = 0;
  p.h0 = 35.0f;
  p.h1 = 9.0f;
  p.h2 = 0.2f;
  p.h3 = 10.0f;
  p.cohesion = 0.0f;
  p.beta = 1.0f;
  return p;
}

#endif /* BG_MAT_DP_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_DP_H)
#define BG_MAT_DP_H

#include <stdio.h>

#include "bg_lane.h"
#include "bg_material_core.h"

/* The coefficients of the inner loop. */
typedef struct bg_dp_c {
  bg_real alpha; /* from phi and the cone when hardening is off */
  int cone;
  int hardening;
  bg_real h0, h1, h2, h3;
  bg_real cohesion;  /* c, Pa */
  bg_real ccot;      /* c cot phi, Pa: the tip's mean tension when hardening is off */
  bg_real beta_loss; /* 1 - beta, so that a zeroed struct is today's cohesionless sand */
} bg_dp_c;

/* Cone slope that makes the Drucker-Prager cone pass through Mohr-Coulomb
 * on the triaxial-compression meridian (Klar 2016, eq. for alpha). In this
 * form the yield condition is |dev tau| <= 3 alpha p, i.e.
 * sqrt(J2) <= (3 alpha / sqrt 2) p. */
BG_HD bg_real bg_dp_alpha(bg_real phi_deg) {
  bg_real s = sinf(bg_deg2rad(phi_deg));
  return 0.8164965809277260f * 2.0f * s / (3.0f - s); /* sqrt(2/3) 2 sin / (3 - sin) */
}

/* The slope for each matching (references/derivations/cone.md):
 * extension sqrt(2/3) 2 sin / (3 + sin); plane strain sqrt(2) sin / 3. */
BG_HD bg_real bg_dp_alpha_cone(bg_real phi_deg, int cone) {
  if (cone == BG_CONE_COMPRESSION) return bg_dp_alpha(phi_deg);
  bg_real s = sinf(bg_deg2rad(phi_deg));
  if (cone == BG_CONE_EXTENSION) return 0.8164965809277260f * 2.0f * s / (3.0f + s);
  return 0.4714045207910317f * s; /* sqrt(2) / 3 sin */
}

/* Klar 2016 sec. 4: phi_F(q) = h0 + (h1 q - h3) exp(-h2 q), angles in degrees. */
BG_HD bg_real bg_hardening_phi_deg(bg_real q, bg_real h0, bg_real h1, bg_real h2, bg_real h3) {
  return h0 + (h1 * q - h3) * expf(-h2 * q);
}

/* This particle's cone slope at accumulated plastic strain q. */
BG_HD bg_real bg_dp_c_alpha(const bg_dp_c *c, bg_real q) {
  return c->hardening ? bg_dp_alpha_cone(bg_hardening_phi_deg(q, c->h0, c->h1, c->h2, c->h3), c->cone)
                      : c->alpha;
}

/* The tip's mean tension c cot phi at plastic strain q, Pa (hardening moves
 * phi; cohesionless sand skips the angle: its ccot is 0). */
BG_HD bg_real bg_dp_c_tip(const bg_dp_c *c, bg_real q) {
  return c->hardening && c->cohesion != 0.0f ? c->cohesion / tanf(bg_deg2rad(bg_hardening_phi_deg(q, c->h0, c->h1, c->h2, c->h3)))
                      : c->ccot;
}

/* The tip's principal Hencky strain, per axis: the isotropic strain whose
 * Hencky stress (3 lambda + 2 mu) e is the tension tip_p. */
BG_HD bg_real bg_dp_tip_strain(bg_real tip_p, bg_lame l) { return tip_p / (3.0f * l.lambda + 2.0f * l.mu); }

/* The return map of cohesive sand. eps: trial principal log strain;
 * log_jp: the stored log plastic volume ratio (bg_trial_split); tip_p:
 * the tip's mean tension c cot phi, Pa; beta_loss: 1 - beta. The cone is
 * the cohesionless one in the strain shifted by the tip's, so the shear
 * return is unchanged and a trial at or past the tip's trace lands on the
 * tip (references/derivations/cohesion.md). tip_p = beta_loss = 0 is the
 * cohesionless map to the bit. */
BG_HD bg_return bg_dp_return_map_coh(bg_vec3 eps, bg_real log_jp, bg_lame l, bg_real alpha, bg_real tip_p,
                                     bg_real beta_loss, int volume_correction) {
  bg_return r;
  bg_trial t = bg_trial_split(eps, log_jp, volume_correction);
  bg_real et = bg_dp_tip_strain(tip_p, l);
  bg_real trs = t.tr - 3.0f * et; /* the trace past the tip's */
  bg_real dgamma = t.eh_norm + (3.0f * l.lambda + 2.0f * l.mu) / (2.0f * l.mu) * alpha * trs;
  if (trs >= 0.0f) {
    /* past the tip: to the tip, log Jp keeps the share beta of the dilation */
    r.mode = BG_RM_TIP;
    bg_real d0 = t.e.v[0] - et, d1 = t.e.v[1] - et, d2 = t.e.v[2] - et;
    r.dq = sqrtf(d0 * d0 + d1 * d1 + d2 * d2);
    for (int i = 0; i < 3; ++i) r.eps.v[i] = et;
    bg_real dil = t.tr_raw - (r.eps.v[0] + r.eps.v[1] + r.eps.v[2]);
    r.log_jp = log_jp + (dil - beta_loss * dil);
    return r;
  } else if (dgamma <= 0.0f || t.eh_norm <= 0.0f) {
    r.mode = BG_RM_ELASTIC;
    r.dq = 0.0f;
    r.eps = t.e;
  } else {
    /* shear: radial return onto the cone, volume kept */
    r.mode = BG_RM_SHEAR;
    r.dq = dgamma;
    bg_real k = dgamma / t.eh_norm;
    for (int i = 0; i < 3; ++i) r.eps.v[i] = t.e.v[i] - k * t.eh.v[i];
  }
  bg_return_close(&r, &t, log_jp);
  return r;
}

/* The cohesionless return map (tip at zero stress, beta 1). */
BG_HD bg_return bg_dp_return_map(bg_vec3 eps, bg_real log_jp, bg_lame l, bg_real alpha,
                                 int volume_correction) {
  return bg_dp_return_map_coh(eps, log_jp, l, alpha, 0.0f, 0.0f, volume_correction);
}

/* The model's return map, as the registry calls it. */
BG_HD bg_return bg_dp_return(const bg_elasticity_c *el, const bg_dp_c *c, bg_real dt, bg_vec3 eps,
                             const bg_real *st) {
  (void)dt;
  bg_real q = st[BG_STATE_Q];
  return bg_dp_return_map_coh(eps, st[BG_STATE_LOG_JP], el->lame, bg_dp_c_alpha(c, q), bg_dp_c_tip(c, q),
                              c->beta_loss, el->volume_correction);
}

/* bg_dp_update: the scalar update of one particle (bg_material_core.h). */
BG_MATERIAL_SCALAR_UPDATE(dp)

/* Local: no slot of the state needs the grid (bg_material_core.h). */
BG_HD int bg_dp_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_dp_nonlocal_dt(const bg_dp_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the P wave of the elasticity bounds the step; the state is
 * the sand's (log Jp, q). */
static inline bg_real bg_dp_wave_speed(const bg_material *mat) { return bg_elasticity_wave_speed(mat); }
/* Host side: the elasticity and density a default dp material starts
 * from (bg_material_default): Klar's sand's, already set, kept. */
static inline void bg_dp_default_material(bg_material *m) { (void)m; }
static inline bg_state_desc bg_dp_state(void) { return bg_sand_state(); }

/* Validation, host side: 0 when valid; else 1 (not finite) or 2 (out of
 * range) with the field and its range in msg. */
static inline int bg_dp_validate(const bg_material *mat, char *msg, size_t len) {
#define BG_DP_FAIL(code, ...) return (snprintf(msg, len, __VA_ARGS__), (code))
  const bg_dp_params *m = &mat->dp;
  int bad = bg_elasticity_validate(mat, msg, len);
  if (bad) return bad;
  if (!isfinite(m->phi_deg)) BG_DP_FAIL(1, "material.dp.phi_deg is not finite (got %g)", (double)m->phi_deg);
  if (!(m->phi_deg > 0 && m->phi_deg < 90))
    BG_DP_FAIL(2, "material.dp.phi_deg must be in (0, 90) degrees (got %g)", (double)m->phi_deg);
  if (m->cone != BG_CONE_COMPRESSION && m->cone != BG_CONE_EXTENSION && m->cone != BG_CONE_PLANE_STRAIN)
    BG_DP_FAIL(2,
               "material.dp.cone must be BG_CONE_COMPRESSION, BG_CONE_EXTENSION or BG_CONE_PLANE_STRAIN "
               "(got %d)",
               (int)m->cone);
  if (!isfinite(m->cohesion))
    BG_DP_FAIL(1, "material.dp.cohesion is not finite (got %g)", (double)m->cohesion);
  if (!isfinite(m->beta)) BG_DP_FAIL(1, "material.dp.beta is not finite (got %g)", (double)m->beta);
  if (!(m->beta >= 0 && m->beta <= 1))
    BG_DP_FAIL(2, "material.dp.beta must be in [0, 1], the share of the tip's dilation kept in log Jp (got %g)",
               (double)m->beta);
  if (!(m->cohesion >= 0)) BG_DP_FAIL(2, "material.dp.cohesion must be >= 0 Pa (got %g)", (double)m->cohesion);
  {
    /* the tip's volumetric Hencky strain c cot(phi) / K at most 0.1, at the
     * smallest angle the cone takes: an elastic tension beyond any sand's */
    double phi_min = m->hardening ? fmin((double)m->h0, (double)m->h0 - m->h3) : (double)m->phi_deg;
    double K = (double)mat->E / (3.0 * (1.0 - 2.0 * mat->nu));
    double cmax = 0.1 * K * tan(phi_min * 0.017453292519943295);
    if (phi_min > 0 && phi_min < 90 && !(m->cohesion <= cmax))
      BG_DP_FAIL(2,
                 "material.dp.cohesion must be in [0, %g] Pa: c cot(phi) at most 0.1 of the bulk modulus %g Pa "
                 "(got %g)",
                 cmax, K, (double)m->cohesion);
  }
  if (m->hardening) {
    const bg_real h[4] = {m->h0, m->h1, m->h2, m->h3};
    for (int i = 0; i < 4; ++i)
      if (!isfinite(h[i])) BG_DP_FAIL(1, "material.dp.h%d is not finite (got %g)", i, (double)h[i]);
    if (!(m->h2 > 0 || m->h1 == 0))
      BG_DP_FAIL(2, "material.dp.h2 must be > 0 when h1 != 0, or phi_F grows without bound (got h2 %g)",
                 (double)m->h2);
    if (!(m->h2 >= 0)) BG_DP_FAIL(2, "material.dp.h2 must be >= 0 (got %g)", (double)m->h2);
    /* phi_F(0) = h0 - h3, phi_F(inf) = h0 and the one turning point
     * q* = (h1 + h2 h3) / (h1 h2) must all be admissible angles */
    if (!(m->h0 > 0 && m->h0 < 90 && m->h0 - m->h3 > 0 && m->h0 - m->h3 < 90))
      BG_DP_FAIL(2, "hardening needs material.dp.h0 and h0 - h3 in (0, 90) degrees (got h0 %g, h3 %g)",
                 (double)m->h0, (double)m->h3);
    if (m->h1 != 0) {
      double qs = ((double)m->h1 + (double)m->h2 * m->h3) / ((double)m->h1 * m->h2);
      if (qs > 0) {
        double ps = m->h0 + ((double)m->h1 * qs - m->h3) * exp(-(double)m->h2 * qs);
        if (!(ps > 0 && ps < 90))
          BG_DP_FAIL(2,
                     "hardening: phi_F peaks (or dips) at %g degrees at q = %g, outside (0, 90); "
                     "adjust material.dp.h1/h2",
                     ps, qs);
      }
    }
  }
  return 0;
#undef BG_DP_FAIL
}

/* The prepare step: the cone's slope from phi, the tip from c and phi. */
static inline void bg_dp_prepare(const bg_dp_params *m, bg_dp_c *c) {
  c->alpha = bg_dp_alpha_cone(m->phi_deg, m->cone);
  c->cone = m->cone;
  c->hardening = m->hardening;
  c->h0 = m->h0;
  c->h1 = m->h1;
  c->h2 = m->h2;
  c->h3 = m->h3;
  c->cohesion = m->cohesion;
  c->ccot = (bg_real)((double)m->cohesion / tan((double)m->phi_deg * 0.017453292519943295));
  c->beta_loss = 1.0f - m->beta;
}

/* ---- the lane update (bg_lane.h): the CPU backend's vector loop ---- */


/* bg_dp_return_map_coh with selects for branches, the same operations in
 * the same order, and the correctly rounded sqrt: bit-identical results on
 * every lane whose ok is set (all but denormal deviatoric or total strain
 * norms, where the lane sqrt is not exact). vc: volume correction mask. */
BG_LANE bg_return_lane bg_dp_return_map_coh_lane(bg_vec3 eps, bg_real log_jp, bg_lame l, bg_real alpha,
                                                 bg_real tip_p, bg_real beta_loss, bg_lmask vc) {
  bg_return_lane o;
  bg_real tr_raw = eps.v[0] + eps.v[1] + eps.v[2];
  bg_vec3 e;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) e.v[i] = bg_lane_sel_(vc, eps.v[i] + log_jp * (1.0f / 3.0f), eps.v[i]);
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  bg_vec3 eh;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) eh.v[i] = e.v[i] - tr * (1.0f / 3.0f);
  bg_real et = bg_dp_tip_strain(tip_p, l);
  bg_real trs = tr - 3.0f * et;
  bg_lmask tip = bg_lane_ge_(trs, 0.0f);
  /* One square root serves both branches: |eh| is only used off the tip,
   * |e - e_tip| (the tip's dq) only on it. */
  bg_real d0 = e.v[0] - et, d1 = e.v[1] - et, d2 = e.v[2] - et;
  bg_real x2 = bg_lane_sel_(tip, d0 * d0 + d1 * d1 + d2 * d2,
                            eh.v[0] * eh.v[0] + eh.v[1] * eh.v[1] + eh.v[2] * eh.v[2]);
  o.ok = ~(bg_lane_gt_(x2, 0.0f) & bg_lane_gt_(FLT_MIN, x2));
  bg_real norm = bg_lane_sqrt_cr_(x2);
  bg_real eh_norm = norm;
  bg_real dgamma = eh_norm + (3.0f * l.lambda + 2.0f * l.mu) / (2.0f * l.mu) * alpha * trs;
  bg_lmask elastic = ~tip & (bg_lane_le_(dgamma, 0.0f) | bg_lane_le_(eh_norm, 0.0f));
  bg_lmask shear = ~tip & ~elastic;
  bg_real k = dgamma / bg_lane_sel_(shear, eh_norm, 1.0f);
  o.r.dq = bg_lane_sel_(tip, norm, bg_lane_sel_(shear, dgamma, 0.0f));
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    o.r.eps.v[i] = bg_lane_sel_(tip, et, bg_lane_sel_(shear, e.v[i] - k * eh.v[i], e.v[i]));
  o.r.mode = (int)((tip & (bg_lmask)BG_RM_TIP) | (shear & (bg_lmask)BG_RM_SHEAR));
  bg_real tr_new = o.r.eps.v[0] + o.r.eps.v[1] + o.r.eps.v[2];
  bg_real dil = tr_raw - tr_new;
  o.r.log_jp = bg_lane_sel_(tip, log_jp + (dil - beta_loss * dil), log_jp + tr_raw - tr_new);
  return o;
}

/* The cohesionless lane map (tip at zero stress, beta 1). */
BG_LANE bg_return_lane bg_dp_return_map_lane(bg_vec3 eps, bg_real log_jp, bg_lame l, bg_real alpha,
                                             bg_lmask vc) {
  return bg_dp_return_map_coh_lane(eps, log_jp, l, alpha, 0.0f, 0.0f, vc);
}

/* The model's lane hooks for BG_MATERIAL_LANE_UPDATE (bg_lane.h): the cone
 * slope at the particle's q, evaluated in a scalar pre-pass (hardening needs
 * sinf/expf), and the return map on it. Cohesion with hardening moves the
 * tip with q too, a second per-particle scalar the one aux slot cannot
 * carry: those lanes are left uncertified, so the scalar update runs them. */
BG_HD bg_real bg_dp_lane_aux(const bg_dp_c *c, bg_real q) { return bg_dp_c_alpha(c, q); }

BG_LANE bg_return_lane bg_dp_return_lane(const bg_lane_consts *k, const bg_dp_c *c, bg_real dt, bg_real alpha,
                                         bg_vec3 eps, bg_real log_jp) {
  (void)dt;
  bg_return_lane o = bg_dp_return_map_coh_lane(eps, log_jp, k->lame, alpha, c->ccot, c->beta_loss, k->vc);
  /* & rather than &&: a short-circuit makes the load of c->cohesion
   * conditional, gcc turns it into a masked load of an invariant address it
   * cannot vectorise, and the whole chunk loop then runs scalar */
  o.ok &= ~(bg_lane_mask_(c->hardening) & bg_lane_mask_(c->cohesion != 0.0f));
  return o;
}

/* bg_dp_update_lane and bg_dp_update_chunk */
BG_MATERIAL_LANE_UPDATE(dp)

#endif /* BG_MAT_DP_H */
