/* bg_stress.h: Kirchhoff stress of the two elastic laws a material may pick,
 * in principal form (tau = U diag(tau_i) U^T for F = U diag(sigma) V^T).
 * StVK-Hencky is the default because the Drucker-Prager return map
 * (core/physics/materials/bg_mat_dp.h) is derived for it; fixed-corotated (Stomakhin 2013) is
 * kept to reproduce the seed, which scattered it as force stress. */
#ifndef BG_STRESS_H
#define BG_STRESS_H

#include "bg_defs.h"

/* Singular values below this are treated as this (an inverted or crushed
 * element): log strain needs sigma > 0, and 1e-4 already means a volume
 * ratio far outside anything sand reaches, so the answer is a huge restoring
 * pressure rather than NaN. */
#define BG_SIGMA_MIN 1e-4f

enum { BG_LAW_HENCKY = 0, BG_LAW_FIXED_COROTATED = 1 };

typedef struct bg_lame {
  bg_real mu, lambda; /* Pa */
} bg_lame;

BG_HD bg_lame bg_lame_from_e_nu(bg_real E, bg_real nu) {
  bg_lame l;
  l.mu = E / (2.0f * (1.0f + nu));
  l.lambda = E * nu / ((1.0f + nu) * (1.0f - 2.0f * nu));
  return l;
}

BG_HD bg_real bg_log_stretch(bg_real sigma) { return logf(fmaxf(sigma, BG_SIGMA_MIN)); }

/* Hencky: tau_i = 2 mu eps_i + lambda tr(eps), eps_i = ln sigma_i. */
BG_HD bg_vec3 bg_tau_hencky(bg_vec3 sigma, bg_lame l) {
  bg_vec3 e, t;
  for (int i = 0; i < 3; ++i) e.v[i] = bg_log_stretch(sigma.v[i]);
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  for (int i = 0; i < 3; ++i) t.v[i] = 2.0f * l.mu * e.v[i] + l.lambda * tr;
  return t;
}

/* Hencky from principal log strains directly (the probe and return map
 * work in strain space). */
BG_HD bg_vec3 bg_tau_hencky_eps(bg_vec3 e, bg_lame l) {
  bg_vec3 t;
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  for (int i = 0; i < 3; ++i) t.v[i] = 2.0f * l.mu * e.v[i] + l.lambda * tr;
  return t;
}

/* Fixed-corotated: tau = P F^T = 2 mu (F - R) F^T + lambda (J - 1) J I,
 * which is U diag(2 mu (sigma_i - 1) sigma_i + lambda (J - 1) J) U^T. */
BG_HD bg_vec3 bg_tau_fixed_corotated(bg_vec3 sigma, bg_lame l) {
  bg_vec3 t;
  bg_real J = sigma.v[0] * sigma.v[1] * sigma.v[2];
  for (int i = 0; i < 3; ++i)
    t.v[i] = 2.0f * l.mu * (sigma.v[i] - 1.0f) * sigma.v[i] + l.lambda * (J - 1.0f) * J;
  return t;
}

BG_HD bg_vec3 bg_tau_principal(int law, bg_vec3 sigma, bg_lame l) {
  return law == BG_LAW_FIXED_COROTATED ? bg_tau_fixed_corotated(sigma, l) : bg_tau_hencky(sigma, l);
}

/* U diag(t) U^T as a full symmetric matrix. */
BG_HD bg_mat3 bg_tau_assemble(bg_mat3 u, bg_vec3 t) { return bg_mat3_usvt(u, t, u); }

#endif /* BG_STRESS_H */
