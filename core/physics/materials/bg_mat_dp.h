/* bg_mat_dp.h: Drucker-Prager sand in principal Hencky strain (Klar et al.
 * 2016), with Klar's hardening phi_F(q), the Tampubolon et al. 2017 volume
 * correction through log Jp, and a choice of how the cone is matched to
 * Mohr-Coulomb (references/derivations/cone.md). Rate-independent: the
 * return map ignores dt. One of the registered models
 * (bg_material_list.h): parameters, validation, prepare step, the scalar
 * update (the oracle) and a lane update for the CPU's vector loop. */

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

typedef struct bg_dp_params {
  bg_real phi_deg;  /* friction angle, degrees, in (0, 90) */
  bg_dp_cone cone;  /* how phi sets the cone's slope */
  int hardening;    /* 0: phi fixed; 1: phi_F(q) = h0 + (h1 q - h3) exp(-h2 q) */
  bg_real h0, h1, h2, h3; /* hardening parameters: h0,h1,h3 degrees, h2 dimensionless */
} bg_dp_params;

/* Klar et al. 2016's sand: phi 35 deg on the compression cone; hardening
 * off, its parameters set to Klar's sec. 4 values (35, 9, 0.2, 10). */
static inline bg_dp_params bg_dp_default_params(void) {
  bg_dp_params p;
  p.phi_deg = 35.0f;
  p.cone = BG_CONE_COMPRESSION;
  p.hardening = 0;
  p.h0 = 35.0f;
  p.h1 = 9.0f;
  p.h2 = 0.2f;
  p.h3 = 10.0f;
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

/* The return map. eps: trial principal log strain; log_jp: the stored log
 * plastic volume ratio. With volume_correction the stored volume is added
 * back to tr(eps) first (Tampubolon 2017), so sand that was pulled apart must
 * be compressed by that much before it carries load again. In every case the
 * total volume det(F_E) * Jp is conserved by the projection, which fixes
 * log_jp: log_jp + tr(eps_trial) - tr(eps_new). */
BG_HD bg_return bg_dp_return_map(bg_vec3 eps, bg_real log_jp, bg_lame l, bg_real alpha,
                                 int volume_correction) {
  bg_return r;
  bg_real tr_raw = eps.v[0] + eps.v[1] + eps.v[2];
  bg_vec3 e = eps;
  if (volume_correction)
    for (int i = 0; i < 3; ++i) e.v[i] += log_jp * (1.0f / 3.0f);
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  bg_vec3 eh;
  for (int i = 0; i < 3; ++i) eh.v[i] = e.v[i] - tr * (1.0f / 3.0f);
  bg_real eh_norm = sqrtf(eh.v[0] * eh.v[0] + eh.v[1] * eh.v[1] + eh.v[2] * eh.v[2]);
  bg_real dgamma = eh_norm + (3.0f * l.lambda + 2.0f * l.mu) / (2.0f * l.mu) * alpha * tr;
  if (tr >= 0.0f) {
    /* expansion: sand carries no tension, project to the cone's tip */
    r.mode = BG_RM_TIP;
    r.dq = sqrtf(e.v[0] * e.v[0] + e.v[1] * e.v[1] + e.v[2] * e.v[2]);
    for (int i = 0; i < 3; ++i) r.eps.v[i] = 0.0f;
  } else if (dgamma <= 0.0f || eh_norm <= 0.0f) {
    r.mode = BG_RM_ELASTIC;
    r.dq = 0.0f;
    r.eps = e;
  } else {
    /* shear: radial return onto the cone, volume kept */
    r.mode = BG_RM_SHEAR;
    r.dq = dgamma;
    bg_real k = dgamma / eh_norm;
    for (int i = 0; i < 3; ++i) r.eps.v[i] = e.v[i] - k * eh.v[i];
  }
  r.log_jp = log_jp + tr_raw - (r.eps.v[0] + r.eps.v[1] + r.eps.v[2]);
  return r;
}

/* The model's return map, as the registry calls it. */
BG_HD bg_return bg_dp_return(const bg_elastic_c *el, const bg_dp_c *c, bg_real dt, bg_vec3 eps,
                             const bg_real *st) {
  (void)dt;
  return bg_dp_return_map(eps, st[BG_STATE_LOG_JP], el->lame, bg_dp_c_alpha(c, st[BG_STATE_Q]),
                          el->volume_correction);
}

/* bg_dp_update: the scalar update of one particle (bg_material_core.h). */
BG_MATERIAL_SCALAR_UPDATE(dp)

/* Validation, host side: 0 when valid; else 1 (not finite) or 2 (out of
 * range) with the field and its range in msg. */
static inline int bg_dp_validate(const bg_dp_params *m, char *msg, size_t len) {
#define BG_DP_FAIL(code, ...) return (snprintf(msg, len, __VA_ARGS__), (code))
  if (!isfinite(m->phi_deg)) BG_DP_FAIL(1, "material.dp.phi_deg is not finite (got %g)", (double)m->phi_deg);
  if (!(m->phi_deg > 0 && m->phi_deg < 90))
    BG_DP_FAIL(2, "material.dp.phi_deg must be in (0, 90) degrees (got %g)", (double)m->phi_deg);
  if (m->cone != BG_CONE_COMPRESSION && m->cone != BG_CONE_EXTENSION && m->cone != BG_CONE_PLANE_STRAIN)
    BG_DP_FAIL(2,
               "material.dp.cone must be BG_CONE_COMPRESSION, BG_CONE_EXTENSION or BG_CONE_PLANE_STRAIN "
               "(got %d)",
               (int)m->cone);
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

/* The prepare step: the cone's slope from phi. */
static inline void bg_dp_prepare(const bg_dp_params *m, bg_dp_c *c) {
  c->alpha = bg_dp_alpha_cone(m->phi_deg, m->cone);
  c->cone = m->cone;
  c->hardening = m->hardening;
  c->h0 = m->h0;
  c->h1 = m->h1;
  c->h2 = m->h2;
  c->h3 = m->h3;
}

/* ---- the lane update (bg_lane.h): the CPU backend's vector loop ---- */


typedef struct bg_return_lane {
  bg_return r;
  bg_lmask ok; /* clear where a sqrt argument was denormal: r may differ */
} bg_return_lane;

/* bg_dp_return_map with selects for branches, the same operations in the
 * same order, and the correctly rounded sqrt: bit-identical results on
 * every lane whose ok is set (all but denormal deviatoric or total strain
 * norms, where the lane sqrt is not exact). vc: volume correction mask. */
BG_LANE bg_return_lane bg_dp_return_map_lane(bg_vec3 eps, bg_real log_jp, bg_lame l, bg_real alpha,
                                             bg_lmask vc) {
  bg_return_lane o;
  bg_real tr_raw = eps.v[0] + eps.v[1] + eps.v[2];
  bg_vec3 e;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) e.v[i] = bg_lane_sel_(vc, eps.v[i] + log_jp * (1.0f / 3.0f), eps.v[i]);
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  bg_vec3 eh;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) eh.v[i] = e.v[i] - tr * (1.0f / 3.0f);
  bg_lmask tip = bg_lane_ge_(tr, 0.0f);
  /* One square root serves both branches: |eh| is only used off the tip,
   * |e| (the tip's dq) only on it. */
  bg_real x2 = bg_lane_sel_(tip, e.v[0] * e.v[0] + e.v[1] * e.v[1] + e.v[2] * e.v[2],
                            eh.v[0] * eh.v[0] + eh.v[1] * eh.v[1] + eh.v[2] * eh.v[2]);
  o.ok = ~(bg_lane_gt_(x2, 0.0f) & bg_lane_gt_(FLT_MIN, x2));
  bg_real norm = bg_lane_sqrt_cr_(x2);
  bg_real eh_norm = norm;
  bg_real dgamma = eh_norm + (3.0f * l.lambda + 2.0f * l.mu) / (2.0f * l.mu) * alpha * tr;
  bg_lmask elastic = ~tip & (bg_lane_le_(dgamma, 0.0f) | bg_lane_le_(eh_norm, 0.0f));
  bg_lmask shear = ~tip & ~elastic;
  bg_real k = dgamma / bg_lane_sel_(shear, eh_norm, 1.0f);
  o.r.dq = bg_lane_sel_(tip, norm, bg_lane_sel_(shear, dgamma, 0.0f));
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    o.r.eps.v[i] = bg_lane_sel_(tip, 0.0f, bg_lane_sel_(shear, e.v[i] - k * eh.v[i], e.v[i]));
  o.r.mode = (int)((tip & (bg_lmask)BG_RM_TIP) | (shear & (bg_lmask)BG_RM_SHEAR));
  o.r.log_jp = log_jp + tr_raw - (o.r.eps.v[0] + o.r.eps.v[1] + o.r.eps.v[2]);
  return o;
}


/* Material constants of the lane, hoisted out of the chunk loop. */
typedef struct bg_dp_lane_consts {
  bg_lame lame;
  bg_real log_sigma_min; /* logf(BG_SIGMA_MIN), the clamp of bg_log_stretch in strain space */
  bg_lmask plastic, vc, fixed_corotated;
} bg_dp_lane_consts;

BG_HD bg_dp_lane_consts bg_dp_lane_consts_make(const bg_elastic_c *m) {
  bg_dp_lane_consts c;
  c.lame = m->lame;
  c.log_sigma_min = logf(BG_SIGMA_MIN);
  c.plastic = bg_lane_mask_(m->plastic);
  c.vc = bg_lane_mask_(m->volume_correction);
  c.fixed_corotated = bg_lane_mask_(m->law == BG_LAW_FIXED_COROTATED);
  return c;
}

typedef struct bg_dp_lane {
  bg_lane_m3 f;   /* F after the update (F_trial where ok is clear) */
  bg_real tau[6]; /* Kirchhoff stress xx yy zz xy xz yz (meaningless where ok is clear) */
  bg_real log_jp, q; /* updated (the inputs where ok is clear) */
  int mode;          /* BG_RM_* */
  bg_lmask ok;       /* certification: where clear, re-run bg_dp_update on the inputs */
} bg_dp_lane;

/* bg_dp_update for one lane. f: F_trial; alpha: this particle's cone
 * slope (bg_dp_c_alpha). */
BG_LANE bg_dp_lane bg_dp_update_lane(const bg_dp_lane_consts *c, bg_real alpha, bg_lane_m3 f,
                                         bg_real log_jp, bg_real q) {
  bg_dp_lane o;
  bg_lane_svd d = bg_lane_svd_core_(f);
  const bg_real *u = d.u.e, *v = d.v.e, *sg = d.s;
  /* the columns are unsorted, so a reflection could land on any of them:
   * inverted elements (det F < 0) go to the scalar path */
  bg_lmask ok = d.ok & bg_lane_gt_(bg_lane_det3_(u), 0.5f);
  ok &= bg_lane_le_(fabsf(log_jp), FLT_MAX) & bg_lane_le_(fabsf(q), FLT_MAX);

  bg_vec3 eps;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) eps.v[i] = bg_lane_log_(bg_lane_max_(sg[i], BG_SIGMA_MIN));
  bg_return_lane rl = bg_dp_return_map_lane(eps, log_jp, c->lame, alpha, c->vc);
  ok &= rl.ok;

  bg_lmask pl = c->plastic;
  bg_vec3 sn, et;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) {
    ok &= ~pl | bg_lane_le_(fabsf(rl.r.eps.v[i]), BG_BATCH_EPS_MAX);
    sn.v[i] = bg_lane_sel_(pl, bg_lane_exp_(rl.r.eps.v[i]), sg[i]);
    /* Hencky from the strain itself: log(max(exp(eps), SIGMA_MIN)) */
    et.v[i] = bg_lane_sel_(pl, bg_lane_max_(rl.r.eps.v[i], c->log_sigma_min), eps.v[i]);
  }
  bg_vec3 th = bg_tau_hencky_eps_lane(et, c->lame);
  bg_vec3 tf = bg_tau_fixed_corotated_lane(sn, c->lame);
  bg_vec3 t;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) t.v[i] = bg_lane_sel_(c->fixed_corotated, tf.v[i], th.v[i]);

  bg_lmask upd = ok & pl;
  /* U diag(sn) and U diag(t), column by column */
  bg_real us[9], ut[9];
  BG_UNROLL
  for (int e = 0; e < 9; ++e) {
    us[e] = u[e] * sn.v[e % 3];
    ut[e] = u[e] * t.v[e % 3];
  }
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    BG_UNROLL
    for (int j = 0; j < 3; ++j) {
      bg_real x = BG_LANE_FMA(us[3 * i + 0], v[3 * j + 0],
                              BG_LANE_FMA(us[3 * i + 1], v[3 * j + 1], us[3 * i + 2] * v[3 * j + 2]));
      o.f.e[3 * i + j] = bg_lane_sel_(upd, x, f.e[3 * i + j]);
    }
  o.log_jp = bg_lane_sel_(upd, rl.r.log_jp, log_jp);
  o.q = bg_lane_sel_(upd, q + rl.r.dq, q);
  o.mode = (int)((bg_lmask)rl.r.mode & pl);
  /* U diag(t) U^T, upper triangle */
  BG_UNROLL
  for (int k = 0; k < 6; ++k) {
    int i = (k < 3) ? k : (k == 5) ? 1 : 0;
    int j = (k < 3) ? k : (k == 3) ? 1 : 2;
    o.tau[k] = BG_LANE_FMA(ut[3 * i + 0], u[3 * j + 0],
                           BG_LANE_FMA(ut[3 * i + 1], u[3 * j + 1], ut[3 * i + 2] * u[3 * j + 2]));
  }
  o.ok = ok;
  return o;
}

/* bg_dp_update on lanes 0 .. len-1 of c (1 <= len <= BG_BATCH_CHUNK): the
 * vector lanes first, then bg_dp_update itself on every lane they could not
 * certify. Returns the number of fallback lanes. Hardening is evaluated
 * with the shared bg_dp_c_alpha in a scalar pre-pass, since it needs
 * sinf/expf. */
BG_BATCH_DRIVER int bg_dp_update_chunk(const bg_elastic_c *el, const bg_dp_c *m, bg_real dt, bg_mat_chunk *c,
                                       int len) {
  bg_dp_lane_consts k = bg_dp_lane_consts_make(el);
  bg_real alpha[BG_BATCH_CHUNK];
  int bad[BG_BATCH_CHUNK];
  int fell_back = 0;
  if (len <= 0) return 0;
  if (len > BG_BATCH_CHUNK) len = BG_BATCH_CHUNK;
  bg_mat_chunk_pad(c, len);
  if (m->hardening)
    for (int l = 0; l < BG_BATCH_CHUNK; ++l) alpha[l] = bg_dp_c_alpha(m, c->st[BG_STATE_Q][l]);
  else
    for (int l = 0; l < BG_BATCH_CHUNK; ++l) alpha[l] = m->alpha;
  BG_SIMD_LOOP
  for (int l = 0; l < BG_BATCH_CHUNK; ++l) {
    bg_lane_m3 f;
    BG_UNROLL
    for (int e = 0; e < 9; ++e) f.e[e] = c->F[e][l];
    bg_dp_lane o = bg_dp_update_lane(&k, alpha[l], f, c->st[BG_STATE_LOG_JP][l], c->st[BG_STATE_Q][l]);
    BG_UNROLL
    for (int e = 0; e < 9; ++e) c->F[e][l] = o.f.e[e];
    BG_UNROLL
    for (int e = 0; e < 6; ++e) c->tau[e][l] = o.tau[e];
    c->st[BG_STATE_LOG_JP][l] = o.log_jp;
    c->st[BG_STATE_Q][l] = o.q;
    c->mode[l] = o.mode;
    bad[l] = (int)(~o.ok & 1u);
  }
  for (int l = 0; l < len; ++l) {
    if (!bad[l]) continue;
    bg_mat3 Fm, tm;
    bg_real st[BG_NSTATE];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Fm.m[i][j] = c->F[3 * i + j][l];
    for (int s = 0; s < BG_NSTATE; ++s) st[s] = c->st[s][l];
    c->mode[l] = bg_dp_update(el, m, dt, &Fm, st, &tm);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c->F[3 * i + j][l] = Fm.m[i][j];
    for (int s = 0; s < BG_NSTATE; ++s) c->st[s][l] = st[s];
    bg_mat_chunk_put_tau(c, l, &tm);
    ++fell_back;
  }
  return fell_back;
}

#endif /* BG_MAT_DP_H */
