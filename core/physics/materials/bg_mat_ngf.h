/* bg_mat_ngf.h: nonlocal granular fluidity (Kamrin & Koval 2012; the
 * three-dimensional form and glass-bead calibration of Henann & Kamrin
 * 2013), a registered model (this header is the whole of it:
 * core/physics/materials/README.md) and the one with a length scale. The plastic shear rate is carried by a per-particle
 * fluidity g (1/s),
 *   gammadot_p = g mu,  mu = sqrt(J2) / p,
 * and g obeys, at steady state, the screened Poisson equation
 *   A^2 d^2 lap g = |mu - mu_s| (g - g_loc),
 *   g_loc = sqrt(p / (rho_s d^2)) (mu - mu_s) / (b mu) for mu > mu_s, else 0,
 * so that flow spreads a cooperativity length xi = A d / sqrt|mu - mu_s|
 * into material below the yield ratio, and homogeneous flow (lap g = 0)
 * follows the local law mu = mu_s + b I. The explicit solver reaches that
 * steady state through a relaxation in time t0 (a numerical device, not a
 * material constant: references/derivations/ngf.md),
 *   t0 dg/dt = A^2 d^2 lap g - |mu - mu_s| (g - g_loc),
 * solved together with the return map (backward Euler in both) and lap g
 * from the grid: the model names the
 * fluidity's state slot (bg_ngf_nonlocal_slot), the backends scatter it to
 * the grid with the mass and write its B-spline Laplacian into the next
 * slot before each update (bg_transfer.h). Tension, the volume correction
 * and the plastic volume are as in bg_mat_dp.h. No lane update: the CPU
 * runs the scalar update, the oracle, on every particle.
 *
 * BG_MATERIAL(2, ngf, NGF, 0, "ngf") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_NGF_PARAMS_H
#define BG_MAT_NGF_PARAMS_H

/* bg_ngf_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_NGF_PARAMS(X)                                                                \
  X(bg_real, mu_s, BG_MATP_REAL)  /* static yield ratio, > 0 */                         \
  X(bg_real, b, BG_MATP_REAL)     /* slope of the local law mu = mu_s + b I, > 0 */     \
  X(bg_real, A, BG_MATP_REAL)     /* nonlocal amplitude, >= 0 (0: the local law alone) */ \
  X(bg_real, d, BG_MATP_REAL)     /* grain diameter, m, > 0: the length scale */        \
  X(bg_real, rho_s, BG_MATP_REAL) /* grain (solid) density, kg/m^3, > 0 */              \
  X(bg_real, t0, BG_MATP_REAL)    /* relaxation time of the fluidity, s, > 0 */
BG_MATERIAL_PARAMS_STRUCT(ngf, BG_NGF_PARAMS)

/* Henann & Kamrin 2013 (PNAS 110, 6730), glass beads
 * (references/literature/ngf.tsv): mu_s and b are Jop et al. 2006's
 * tan 20.9 deg and (mu_2 - mu_s) / I0; A = 0.48. d and rho_s as the mu(I)
 * defaults; t0 = 1 ms (ngf.md: well below the flows' time scales). */
static inline bg_ngf_params bg_ngf_default_params(void) {
  bg_ngf_params p;
  p.mu_s = 0.3819f;
  p.b = 0.9377f;
  p.A = 0.48f;
  p.d = 0.5e-3f;
  p.rho_s = 2450.0f;
  p.t0 = 1e-3f;
  return p;
}

#endif /* BG_MAT_NGF_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_NGF_H)
#define BG_MAT_NGF_H

#include <math.h>
#include <stdio.h>

#include "bg_material_core.h"

/* State slots beyond the shared two: the fluidity, and its grid Laplacian,
 * which the backends write before each update. */
enum { BG_NGF_G = 2, BG_NGF_LAP = 3 };

typedef struct bg_ngf_c {
  bg_real mu_s, b;
  bg_real a2d2;       /* A^2 d^2, m^2 */
  bg_real gloc_scale; /* 1 / (d sqrt(rho_s)): g_loc = gloc_scale sqrt(p) (mu - mu_s) / (b mu) */
  bg_real inv_t0;
} bg_ngf_c;

/* The local fluidity at yield ratio mu and Cauchy pressure p. */
BG_HD bg_real bg_ngf_gloc(const bg_ngf_c *c, bg_real mu, bg_real p) {
  bg_real dmu = mu - c->mu_s;
  return dmu > 0.0f && p > 0.0f ? c->gloc_scale * sqrtf(p) * dmu / (c->b * mu) : 0.0f;
}

/* The fluidity at the end of the step if the step ends at yield ratio mu
 * (and Cauchy pressure p): the relaxation's backward-Euler step, whose
 * Laplacian term (explicit, in g0) the caller has added. */
BG_HD bg_real bg_ngf_relax(const bg_ngf_c *c, bg_real dt, bg_real g0, bg_real mu, bg_real p) {
  bg_real rr = dt * fabsf(mu - c->mu_s) * c->inv_t0;
  return (g0 + rr * bg_ngf_gloc(c, mu, p)) / (1.0f + rr);
}

/* The return map and the fluidity's step, solved together (backward Euler
 * in both, so the step is stable whatever t0 and the rate).
 * A shear return of length x in strain space is a plastic rate
 * gammadot_p = sqrt(2) x / dt (the convention of bg_mat_mui.h) and leaves
 * the yield ratio mu = (|eh| - x) / a, a = sqrt(2) p_K / (2 G). The flow
 * rule at the end of the step, gammadot_p = g mu with g the relaxed
 * fluidity at that mu, is one equation in mu:
 *   H(mu) = sqrt(2) (|eh| - a mu) / dt - mu g(mu) = 0,
 * H strictly decreasing on [0, |eh| / a] (mu g(mu) increases), from
 * H(0) > 0 to H(|eh| / a) <= 0: one root, bracketed, found by regula
 * falsi (Illinois). The Laplacian enters g0 explicitly; bg_ngf_nonlocal_dt
 * bounds dt so that it cannot drive g0 below 0, and the max with 0 guards
 * float round-off only. */
BG_HD bg_return bg_ngf_return(const bg_elasticity_c *el, const bg_ngf_c *c, bg_real dt, bg_vec3 eps, bg_real *st) {
  bg_return r;
  bg_real log_jp = st[BG_STATE_LOG_JP];
  bg_real g0 = fmaxf(st[BG_NGF_G] + dt * c->inv_t0 * c->a2d2 * st[BG_NGF_LAP], 0.0f);
  bg_trial t = bg_trial_split(eps, log_jp, el->volume_correction);
  if (t.tr >= 0.0f) {
    /* no contact pressure: mu is undefined, the fluidity relaxes to 0 at
     * the rate of mu = 0 */
    bg_return_tip(&r, &t);
    st[BG_NGF_G] = bg_ngf_relax(c, dt, g0, 0.0f, 0.0f);
  } else {
    bg_real G = el->lame.mu;
    bg_real K = el->lame.lambda + (2.0f / 3.0f) * G;
    bg_real p_k = -K * t.tr;
    bg_real p_c = p_k * expf(-t.tr); /* Cauchy: Kirchhoff / det F_E */
    bg_real a = 0.7071067811865476f * p_k / G;
    bg_real mu_tr = t.eh_norm / a;
    bg_real k2 = 1.4142135623730951f / dt;
    bg_real lo = 0.0f, hi = mu_tr;
    bg_real h_lo = k2 * t.eh_norm;
    bg_real h_hi = -mu_tr * bg_ngf_relax(c, dt, g0, mu_tr, p_c);
    bg_real mu = mu_tr;
    if (t.eh_norm > 0.0f && dt > 0.0f && h_hi < 0.0f) {
      int side = 0;
      for (int it = 0; it < 64; ++it) {
        mu = (lo * h_hi - hi * h_lo) / (h_hi - h_lo);
        bg_real h = k2 * (t.eh_norm - a * mu) - mu * bg_ngf_relax(c, dt, g0, mu, p_c);
        if (h > 0.0f) {
          lo = mu;
          h_lo = h;
          if (side == 1) h_hi *= 0.5f;
          side = 1;
        } else if (h < 0.0f) {
          hi = mu;
          h_hi = h;
          if (side == -1) h_lo *= 0.5f;
          side = -1;
        } else {
          break;
        }
        if (hi - lo <= 1e-7f * mu_tr) break;
      }
    }
    bg_real x = t.eh_norm - a * mu;
    if (!(x > 0.0f)) {
      r.mode = BG_RM_ELASTIC;
      r.dq = 0.0f;
      r.eps = t.e;
      mu = mu_tr;
    } else {
      r.mode = BG_RM_SHEAR;
      r.dq = x;
      bg_real k = x / t.eh_norm;
      for (int i = 0; i < 3; ++i) r.eps.v[i] = t.e.v[i] - k * t.eh.v[i];
    }
    st[BG_NGF_G] = bg_ngf_relax(c, dt, g0, mu, p_c);
  }
  bg_return_close(&r, &t, log_jp);
  return r;
}

/* bg_ngf_update: the scalar update of one particle (bg_material_core.h). */
BG_MATERIAL_SCALAR_UPDATE(ngf)

/* The nonlocal service (bg_material_core.h): the fluidity's slot. */
BG_HD int bg_ngf_nonlocal_slot(void) { return BG_NGF_G; }

/* The explicit Laplacian's step bound: |lap g| <= 12 max g / dx^2 for the
 * quadratic B-spline stencil (bg_transfer.h), so
 * dt A^2 d^2 / t0 * 12 / dx^2 <= 1 keeps the step from overshooting. */
BG_HD bg_real bg_ngf_nonlocal_dt(const bg_ngf_c *c, bg_real dx) {
  return c->a2d2 > 0.0f ? dx * dx / (12.0f * c->a2d2 * c->inv_t0) : INFINITY;
}

/* Host side: the P wave of the elasticity bounds the step; the state is
 * the sand's (log Jp, q) with the fluidity and its Laplacian. */
static inline bg_real bg_ngf_wave_speed(const bg_material *mat) { return bg_elasticity_wave_speed(mat); }
/* Host side: the elasticity and density a default ngf material starts
 * from (bg_material_default): Klar's sand's, already set, kept. */
static inline void bg_ngf_default_material(bg_material *m) { (void)m; }
static inline bg_state_desc bg_ngf_state(void) {
  bg_state_desc d = bg_sand_state();
  d.name[BG_NGF_G] = "g";
  d.name[BG_NGF_LAP] = "lap_g";
  return d;
}

static inline int bg_ngf_validate(const bg_material *mat, char *msg, size_t len) {
  const bg_ngf_params *m = &mat->ngf;
  int bad = bg_elasticity_validate(mat, msg, len);
  if (bad) return bad;
  const bg_real v[6] = {m->mu_s, m->b, m->A, m->d, m->rho_s, m->t0};
  static const char *const name[6] = {"mu_s", "b", "A", "d", "rho_s", "t0"};
  for (int i = 0; i < 6; ++i)
    if (!isfinite(v[i])) return snprintf(msg, len, "material.ngf.%s is not finite (got %g)", name[i], (double)v[i]), 1;
  if (!(m->mu_s > 0)) return snprintf(msg, len, "material.ngf.mu_s must be > 0 (got %g)", (double)m->mu_s), 2;
  if (!(m->b > 0)) return snprintf(msg, len, "material.ngf.b must be > 0 (got %g)", (double)m->b), 2;
  if (!(m->A >= 0)) return snprintf(msg, len, "material.ngf.A must be >= 0 (got %g)", (double)m->A), 2;
  if (!(m->d > 0)) return snprintf(msg, len, "material.ngf.d must be > 0 m (got %g)", (double)m->d), 2;
  if (!(m->rho_s > 0))
    return snprintf(msg, len, "material.ngf.rho_s must be > 0 kg/m^3 (got %g)", (double)m->rho_s), 2;
  if (!(m->t0 > 0)) return snprintf(msg, len, "material.ngf.t0 must be > 0 s (got %g)", (double)m->t0), 2;
  return 0;
}

static inline void bg_ngf_prepare(const bg_ngf_params *m, bg_ngf_c *c) {
  c->mu_s = m->mu_s;
  c->b = m->b;
  c->a2d2 = (bg_real)((double)m->A * m->A * m->d * m->d);
  c->gloc_scale = (bg_real)(1.0 / ((double)m->d * sqrt((double)m->rho_s)));
  c->inv_t0 = (bg_real)(1.0 / (double)m->t0);
}

#endif /* BG_MAT_NGF_H */
