/* bg_plasticity.h: Drucker-Prager sand plasticity in principal Hencky strain
 * (Klar et al. 2016), with Klar's hardening phi_F(q), the Tampubolon et al.
 * 2017 volume correction through log Jp, and the density read-out
 * rho0 / (det F * Jp). Pure functions on POD structs, shared by every
 * backend and by the constitutive probe. */
#ifndef BG_PLASTICITY_H
#define BG_PLASTICITY_H

#include "bg_defs.h"
#include "bg_stress.h"
#include "bg_svd.h"

enum { BG_RM_ELASTIC = 0, BG_RM_SHEAR = 1, BG_RM_TIP = 2 };

/* Cone slope that makes the Drucker-Prager cone pass through Mohr-Coulomb
 * on the triaxial-compression meridian (Klar 2016, eq. for alpha). */
BG_HD bg_real bg_dp_alpha(bg_real phi_deg) {
  bg_real s = sinf(bg_deg2rad(phi_deg));
  return 0.8164965809277260f * 2.0f * s / (3.0f - s); /* sqrt(2/3) 2 sin / (3 - sin) */
}

/* Klar 2016 sec. 4: phi_F(q) = h0 + (h1 q - h3) exp(-h2 q), angles in degrees. */
BG_HD bg_real bg_hardening_phi_deg(bg_real q, bg_real h0, bg_real h1, bg_real h2, bg_real h3) {
  return h0 + (h1 * q - h3) * expf(-h2 * q);
}

typedef struct bg_return {
  bg_vec3 eps;    /* principal Hencky strain after the projection */
  bg_real dq;     /* plastic increment delta q */
  bg_real log_jp; /* log of the plastic volume ratio after the projection */
  int mode;       /* BG_RM_ELASTIC, BG_RM_SHEAR or BG_RM_TIP */
} bg_return;

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

/* Per-material coefficients, ready for the inner loop. */
typedef struct bg_sand {
  bg_lame lame;
  bg_real rho0;
  bg_real alpha; /* from phi when hardening is off */
  int law;       /* BG_LAW_HENCKY or BG_LAW_FIXED_COROTATED */
  int plastic;   /* 0: purely elastic (verification tests only) */
  int hardening;
  bg_real h0, h1, h2, h3;
  int volume_correction;
} bg_sand;

BG_HD bg_real bg_sand_alpha(const bg_sand *m, bg_real q) {
  return m->hardening ? bg_dp_alpha(bg_hardening_phi_deg(q, m->h0, m->h1, m->h2, m->h3)) : m->alpha;
}

/* The whole constitutive update of one particle after F_trial = (I + dt C) F:
 * SVD, return map, reassembly of F, and the Kirchhoff stress the next P2G
 * scatters (cached so P2G needs no second SVD). Returns the return-map mode. */
BG_HD int bg_sand_update(const bg_sand *m, bg_mat3 *F, bg_real *log_jp, bg_real *q, bg_mat3 *tau) {
  bg_mat3 u, v;
  bg_vec3 sig;
  bg_svd3(F, &u, &sig, &v);
  int mode = BG_RM_ELASTIC;
  if (m->plastic) {
    bg_vec3 eps;
    for (int i = 0; i < 3; ++i) eps.v[i] = bg_log_stretch(sig.v[i]);
    bg_return r = bg_dp_return_map(eps, *log_jp, m->lame, bg_sand_alpha(m, *q), m->volume_correction);
    *q += r.dq;
    *log_jp = r.log_jp;
    mode = r.mode;
    for (int i = 0; i < 3; ++i) sig.v[i] = expf(r.eps.v[i]);
    *F = bg_mat3_usvt(u, sig, v);
  }
  *tau = bg_tau_assemble(u, bg_tau_principal(m->law, sig, m->lame));
  return mode;
}

/* Current density from particle state: total volume ratio is det(F_E) Jp. */
BG_HD bg_real bg_density(bg_real rho0, bg_real det_f, bg_real log_jp) {
  return rho0 / (det_f * expf(log_jp));
}

#endif /* BG_PLASTICITY_H */
