/* bg_mat_mui.h: rate-dependent mu(I) sand (Jop, Forterre & Pouliquen 2006)
 * in principal Hencky strain, a registered model (this header is the whole
 * of it: core/physics/materials/README.md). The yield condition is the Drucker-Prager cone with
 * a friction that depends on the inertial number,
 *   sqrt(J2) <= mu(I) p,  mu(I) = mu_s + (mu_2 - mu_s) / (I0 / I + 1),
 *   I = gammadot_p d / sqrt(p / rho_s),
 * where gammadot_p is the plastic shear rate (engineering, so that simple
 * shear at rate gammadot gives gammadot_p = gammadot at steady state) and p
 * the Cauchy pressure. The plastic rate is the return map's own: the radial
 * return of this step sets it, and the friction at that rate sets how far
 * the return goes, so the two are solved together (a quadratic, solved in
 * closed form: references/derivations/mu_i.md). With mu_2 = mu_s it is the
 * Drucker-Prager cone of slope alpha = sqrt(2) mu_s / 3. Tension, the
 * volume correction and the plastic volume are as in bg_mat_dp.h. The
 * grain size d is a physical length, independent of the grid. The lane
 * update (the CPU's vector loop) restates the return map with selects; it
 * differs from the scalar map by the one-ulp lane exp in the Cauchy
 * pressure, i.e. by round-off.
 *
 * BG_MATERIAL(1, mui, MUI, 1, "mu-i") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_MUI_PARAMS_H
#define BG_MAT_MUI_PARAMS_H

/* bg_mui_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_MUI_PARAMS(X)                                                      \
  X(bg_real, mu_s, BG_MATP_REAL)  /* friction at I -> 0, > 0 */               \
  X(bg_real, mu_2, BG_MATP_REAL)  /* friction at I -> infinity, >= mu_s */    \
  X(bg_real, I0, BG_MATP_REAL)    /* inertial number of the mid-point, > 0 */ \
  X(bg_real, d, BG_MATP_REAL)     /* grain diameter, m, > 0 */                \
  X(bg_real, rho_s, BG_MATP_REAL) /* grain (solid) density, kg/m^3, > 0 */
BG_MATERIAL_PARAMS_STRUCT(mui, BG_MUI_PARAMS)

/* Jop, Forterre & Pouliquen 2006 (Nature 441, 727), glass beads
 * (references/literature/mu_i.tsv). */
static inline bg_mui_params bg_mui_default_params(void) {
  bg_mui_params p;
  p.mu_s = 0.38186f; /* tan 20.9 deg */
  p.mu_2 = 0.64347f; /* tan 32.76 deg */
  p.I0 = 0.279f;
  p.d = 0.5e-3f;
  p.rho_s = 2450.0f;
  return p;
}

#endif /* BG_MAT_MUI_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_MUI_H)
#define BG_MAT_MUI_H

#include <stdio.h>

#include "bg_lane.h"
#include "bg_material_core.h"

typedef struct bg_mui_c {
  bg_real mu_s, dmu, I0;
  bg_real beta_scale; /* I0 / (sqrt(2) d sqrt(rho_s)): beta = beta_scale dt sqrt(p) */
} bg_mui_c;

/* The friction law itself, for the probe and the tests. */
BG_HD bg_real bg_mui_mu(bg_real mu_s, bg_real mu_2, bg_real I0, bg_real I) {
  return I > 0.0f ? mu_s + (mu_2 - mu_s) / (I0 / I + 1.0f) : mu_s;
}

/* The return map with the inertial number of the step's own plastic rate.
 * In strain space the cone at friction mu has radius a mu, with
 * a = sqrt(2) p_K / (2 G) (p_K the Kirchhoff pressure, -K tr eps). A shear
 * return of length x (so gammadot_p = sqrt(2) x / dt) lands on the cone
 * when |eh| - x = a mu(I(x)), and I(x) = I0 x / beta with
 * beta = I0 dt sqrt(p / rho_s) / (sqrt(2) d). Multiplying out,
 *   x^2 + (beta + a dmu - b) x - b beta = 0,  b = |eh| - a mu_s > 0,
 * whose one positive root is taken in the form that does not cancel. */
BG_HD bg_return bg_mui_return(const bg_elasticity_c *el, const bg_mui_c *c, bg_real dt, bg_vec3 eps,
                              const bg_real *st) {
  bg_return r;
  bg_real log_jp = st[BG_STATE_LOG_JP];
  bg_trial t = bg_trial_split(eps, log_jp, el->volume_correction);
  if (t.tr >= 0.0f) {
    bg_return_tip(&r, &t);
  } else {
    bg_real G = el->lame.mu;
    bg_real K = el->lame.lambda + (2.0f / 3.0f) * G;
    bg_real p_k = -K * t.tr;
    bg_real p_c = p_k * expf(-t.tr); /* Cauchy: Kirchhoff / det F_E, det F_E = exp(tr) */
    bg_real a = 0.7071067811865476f * p_k / G;
    bg_real b = t.eh_norm - a * c->mu_s;
    if (b <= 0.0f || t.eh_norm <= 0.0f) {
      r.mode = BG_RM_ELASTIC;
      r.dq = 0.0f;
      r.eps = t.e;
    } else {
      bg_real beta = dt > 0.0f ? c->beta_scale * dt * sqrtf(p_c) : 0.0f;
      bg_real B = beta + a * c->dmu - b;
      bg_real disc = sqrtf(B * B + 4.0f * b * beta);
      bg_real x = B > 0.0f ? 2.0f * b * beta / (B + disc) : 0.5f * (disc - B);
      x = fminf(fmaxf(x, 0.0f), b);
      r.mode = BG_RM_SHEAR;
      r.dq = x;
      bg_real k = x / t.eh_norm;
      for (int i = 0; i < 3; ++i) r.eps.v[i] = t.e.v[i] - k * t.eh.v[i];
    }
  }
  bg_return_close(&r, &t, log_jp);
  return r;
}

/* bg_mui_update: the scalar update of one particle (bg_material_core.h). */
BG_MATERIAL_SCALAR_UPDATE(mui)

/* Local: no slot of the state needs the grid (bg_material_core.h). */
BG_HD int bg_mui_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_mui_nonlocal_dt(const bg_mui_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the P wave of the elasticity bounds the step; the state is
 * the sand's (log Jp, q). */
static inline bg_real bg_mui_wave_speed(const bg_material *mat) { return bg_elasticity_wave_speed(mat); }
/* Host side: the elasticity and density a default mui material starts
 * from (bg_material_default): Klar's sand's, already set, kept. */
static inline void bg_mui_default_material(bg_material *m) { (void)m; }
static inline bg_state_desc bg_mui_state(void) { return bg_sand_state(); }

static inline int bg_mui_validate(const bg_material *mat, char *msg, size_t len) {
  const bg_mui_params *m = &mat->mui;
  int bad = bg_elasticity_validate(mat, msg, len);
  if (bad) return bad;
  const bg_real v[5] = {m->mu_s, m->mu_2, m->I0, m->d, m->rho_s};
  static const char *const name[5] = {"mu_s", "mu_2", "I0", "d", "rho_s"};
  for (int i = 0; i < 5; ++i)
    if (!isfinite(v[i])) return snprintf(msg, len, "material.mui.%s is not finite (got %g)", name[i], (double)v[i]), 1;
  if (!(m->mu_s > 0)) return snprintf(msg, len, "material.mui.mu_s must be > 0 (got %g)", (double)m->mu_s), 2;
  if (!(m->mu_2 >= m->mu_s))
    return snprintf(msg, len, "material.mui.mu_2 must be >= mu_s = %g (got %g)", (double)m->mu_s, (double)m->mu_2),
           2;
  if (!(m->I0 > 0)) return snprintf(msg, len, "material.mui.I0 must be > 0 (got %g)", (double)m->I0), 2;
  if (!(m->d > 0)) return snprintf(msg, len, "material.mui.d must be > 0 m (got %g)", (double)m->d), 2;
  if (!(m->rho_s > 0))
    return snprintf(msg, len, "material.mui.rho_s must be > 0 kg/m^3 (got %g)", (double)m->rho_s), 2;
  return 0;
}

static inline void bg_mui_prepare(const bg_mui_params *m, bg_mui_c *c) {
  c->mu_s = m->mu_s;
  c->dmu = m->mu_2 - m->mu_s;
  c->I0 = m->I0;
  c->beta_scale = (bg_real)((double)m->I0 / (1.4142135623730951 * (double)m->d * sqrt((double)m->rho_s)));
}

/* ---- the lane update (bg_lane.h): the CPU backend's vector loop ---- */

BG_HD bg_real bg_mui_lane_aux(const bg_mui_c *c, bg_real q) {
  (void)c;
  (void)q;
  return 0.0f;
}

/* bg_mui_return with selects for its branches, in the same order, the
 * correctly rounded sqrt and the lane exp. ok is clear where a sqrt
 * argument is denormal or the pressure's exp is out of the lane exp's range. */
BG_LANE bg_return_lane bg_mui_return_lane(const bg_lane_consts *k, const bg_mui_c *c, bg_real dt, bg_real aux,
                                          bg_vec3 eps, bg_real log_jp) {
  (void)aux;
  bg_return_lane o;
  bg_real tr_raw = eps.v[0] + eps.v[1] + eps.v[2];
  bg_vec3 e;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) e.v[i] = bg_lane_sel_(k->vc, eps.v[i] + log_jp * (1.0f / 3.0f), eps.v[i]);
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  bg_vec3 eh;
  BG_UNROLL
  for (int i = 0; i < 3; ++i) eh.v[i] = e.v[i] - tr * (1.0f / 3.0f);
  bg_lmask tip = bg_lane_ge_(tr, 0.0f);
  bg_real x2 = bg_lane_sel_(tip, e.v[0] * e.v[0] + e.v[1] * e.v[1] + e.v[2] * e.v[2],
                            eh.v[0] * eh.v[0] + eh.v[1] * eh.v[1] + eh.v[2] * eh.v[2]);
  bg_lmask ok = ~(bg_lane_gt_(x2, 0.0f) & bg_lane_gt_(FLT_MIN, x2));
  bg_real norm = bg_lane_sqrt_cr_(x2);
  bg_real eh_norm = norm;
  bg_real G = k->lame.mu;
  bg_real K = k->lame.lambda + (2.0f / 3.0f) * G;
  bg_real p_k = -K * tr;
  ok &= tip | bg_lane_le_(-tr, BG_BATCH_EPS_MAX);
  bg_real p_c = p_k * bg_lane_exp_(bg_lane_min_(-tr, BG_BATCH_EPS_MAX));
  bg_real a = 0.7071067811865476f * p_k / G;
  bg_real b = eh_norm - a * c->mu_s;
  bg_lmask elastic = ~tip & (bg_lane_le_(b, 0.0f) | bg_lane_le_(eh_norm, 0.0f));
  bg_lmask shear = ~tip & ~elastic;
  bg_real pc_pos = bg_lane_max_(p_c, 0.0f);
  ok &= ~shear | ~(bg_lane_gt_(pc_pos, 0.0f) & bg_lane_gt_(FLT_MIN, pc_pos));
  bg_real beta = bg_lane_sel_(bg_lane_gt_(dt, 0.0f), c->beta_scale * dt * bg_lane_sqrt_cr_(pc_pos), 0.0f);
  bg_real B = beta + a * c->dmu - b;
  bg_real d2 = bg_lane_max_(B * B + 4.0f * b * beta, 0.0f);
  ok &= ~shear | ~(bg_lane_gt_(d2, 0.0f) & bg_lane_gt_(FLT_MIN, d2));
  bg_real disc = bg_lane_sqrt_cr_(d2);
  bg_real den = bg_lane_sel_(shear & bg_lane_gt_(B, 0.0f), B + disc, 1.0f);
  bg_real x = bg_lane_sel_(bg_lane_gt_(B, 0.0f), 2.0f * b * beta / den, 0.5f * (disc - B));
  x = bg_lane_min_(bg_lane_max_(x, 0.0f), b);
  bg_real kk = x / bg_lane_sel_(shear, eh_norm, 1.0f);
  o.r.dq = bg_lane_sel_(tip, norm, bg_lane_sel_(shear, x, 0.0f));
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    o.r.eps.v[i] = bg_lane_sel_(tip, 0.0f, bg_lane_sel_(shear, e.v[i] - kk * eh.v[i], e.v[i]));
  o.r.mode = (int)((tip & (bg_lmask)BG_RM_TIP) | (shear & (bg_lmask)BG_RM_SHEAR));
  o.r.log_jp = log_jp + tr_raw - (o.r.eps.v[0] + o.r.eps.v[1] + o.r.eps.v[2]);
  o.ok = ok;
  return o;
}

/* bg_mui_update_lane and bg_mui_update_chunk */
BG_MATERIAL_LANE_UPDATE(mui)

#endif /* BG_MAT_MUI_H */
