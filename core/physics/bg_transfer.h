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

/* The Laplacian weight of stencil node (a, b, c) at the particle, times
 * dx^2: the Laplacian of the node's quadratic B-spline, whose second
 * derivative per axis is 1, -2, 1 on the three nodes. Applied to nodal
 * values f_i = (sum_p w_ip m_p f_p) / m_i it gives the nonlocal service's
 * Laplacian (bg_material_core.h). For particles on a lattice commensurate
 * with the grid (the scenes' seeding before jitter) it is exact for any
 * quadratic field: the nodal mean of a quadratic is then the same quadratic
 * plus a linear part and a constant, the B-splines reproduce quadratics up
 * to a constant, and the weights sum to zero. Jitter adds sampling noise.
 * The weights' absolute values sum to at most 12, which bounds
 * |lap f| dx^2 by 12 max|f|. */
BG_HD bg_real bg_bspline_lap_weight(const bg_real w[3][3], int a, int b, int c) {
  const bg_real d2a = a == 1 ? -2.0f : 1.0f, d2b = b == 1 ? -2.0f : 1.0f, d2c = c == 1 ? -2.0f : 1.0f;
  return d2a * w[1][b] * w[2][c] + w[0][a] * d2b * w[2][c] + w[0][a] * w[1][b] * d2c;
}

/* The same in plane strain (2D in x-z): the y axis carries no curvature,
 * so only the x and z terms remain (their sum of absolute values is at
 * most 8, bounding |lap f| dx^2 by 8 max|f|). w[1] is the collapsed axis
 * (bg_bspline_plane), b = 1. */
BG_HD bg_real bg_bspline_lap_weight_plane(const bg_real w[3][3], int a, int c) {
  const bg_real d2a = a == 1 ? -2.0f : 1.0f, d2c = c == 1 ? -2.0f : 1.0f;
  return d2a * w[2][c] + w[0][a] * d2c;
}

/* Plane strain keeps F and tau block-diagonal, [[xz block, 0], [0, yy]]:
 * C has a zero y row and column, so (I + dt C) F keeps the blocks, and an
 * isotropic material maps a block-diagonal F to a block-diagonal F and
 * tau. Rounding in the SVD can leave ~1e-8 in the zero entries; clearing
 * them keeps v_y and the y momentum exactly 0. F_yy, the out-of-plane
 * elastic stretch, stays: the return map changes it (plane strain holds
 * the total out-of-plane stretch at 1, not the elastic one). */
BG_HD void bg_plane_strain_clear(bg_mat3 *m) {
  m->m[0][1] = m->m[1][0] = m->m[1][2] = m->m[2][1] = 0.0f;
}

/* The same on one particle's F (9 row-major entries) and Kirchhoff stress
 * (symmetric storage xx yy zz xy xz yz) laid out stride floats apart, as a
 * lane of a chunk holds them. */
BG_HD void bg_plane_strain_clear_strided(bg_real *F, bg_real *tau, int stride) {
  F[1 * stride] = F[3 * stride] = F[5 * stride] = F[7 * stride] = 0.0f; /* xy yx yz zy */
  tau[3 * stride] = tau[5 * stride] = 0.0f;                               /* xy yz */
}

#endif /* BG_TRANSFER_H */
