/* bg_transfer.h: the per-particle pieces of the MLS-MPM transfers (Hu et al.
 * 2018) with APIC (Jiang et al. 2015) that both backends call inside their
 * own loops over the 27 stencil nodes. */
#ifndef BG_TRANSFER_H
#define BG_TRANSFER_H

#include "bg_defs.h"

/* The affine momentum a particle scatters: m C - dt V0 (4/dx^2) tau. With
 * quadratic B-splines the APIC inertia is D = dx^2/4 I, hence the 4/dx^2;
 * tau is the Kirchhoff stress (P F^T), so the reference volume V0 is used. */
BG_HD bg_mat3 bg_p2g_affine(bg_real mass, bg_real vol0, const bg_mat3 *C, const bg_mat3 *tau,
                            bg_real dt, bg_real inv_dx) {
  bg_mat3 a;
  bg_real k = -dt * vol0 * 4.0f * inv_dx * inv_dx;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.m[i][j] = mass * C->m[i][j] + k * tau->m[i][j];
  return a;
}

/* F_trial = (I + dt C) F, the MLS-MPM deformation update. */
BG_HD bg_mat3 bg_f_update(const bg_mat3 *C, const bg_mat3 *F, bg_real dt) {
  bg_mat3 g = bg_mat3_identity();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) g.m[i][j] += dt * C->m[i][j];
  return bg_mat3_mul(g, *F);
}

#endif /* BG_TRANSFER_H */
