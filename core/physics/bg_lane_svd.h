/* bg_lane_svd.h: the certified fast-path 3x3 SVD of the lane toolkit
 * (bg_lane.h), in bg_svd3's convention.
 *
 * Fast path SVD (bg_lane_svd_core_): one-sided Jacobi like bg_svd3, but
 * with a fixed number of sweeps (BG_BATCH_SWEEPS), no power-of-two scaling,
 * rotations in rational half-angle form accumulated as a quaternion (V is a
 * rotation by construction), and U obtained by normalising the columns of
 * B = A V instead of a QR. Every lane is then certified a posteriori, on
 * the factors it returns and nothing else (bg_lane_svd_certify_):
 * U^T U = I and V^T V = I entry by entry to BG_BATCH_COS_TOL and
 * ||A V - U S||_F <= BG_BATCH_RECON_TOL ||A||_F, which together bound
 * ||U S V^T - A||_F by ~7e-6 ||A||_F; besides, entries must lie in
 * [2^-20, 2^20] in magnitude (no square over- or underflows) and no column
 * may fall below 2^-20 of the largest (so the normalisation is well
 * defined). The certificate assumes nothing about how the factors were
 * computed, so a lane the sweeps got wrong (as once for F = I + tiny E:
 * an angle and a quaternion out of range, V at odds with B) fails it rather
 * than returning garbage. A lane that fails any test (not converged in the
 * fixed sweeps, near-singular beyond the ratio, huge/tiny/non-finite
 * entries, and, in the constitutive update, det F < 0) is recomputed by
 * the scalar code. */
#ifndef BG_LANE_SVD_H
#define BG_LANE_SVD_H

#include "bg_lane_math.h"
#include "bg_svd.h"

/* Fixed Jacobi sweeps of the fast SVD: the last with accurate angles, the
 * others with cheap ones (bg_lane_jacobi_). Three take F near a rotation to
 * round-off (about 1 lane in 10^4-10^5 of sand-like states falls back, 0.4%
 * of states with stretches spread over [0.3, 3]); four would leave no
 * fallback there but cost 13% more than the fallbacks they save. */
#ifndef BG_BATCH_SWEEPS
#define BG_BATCH_SWEEPS 3
#endif

/* The certificate of a fast lane (bg_lane_svd_certify_), checked on the
 * very U, s, V it returns: every entry of U^T U - I and of V^T V - I at
 * most BG_BATCH_COS_TOL in magnitude (so ||U^T U - I||_F <= 3 tol, the same
 * for V), and ||A V - U diag(s)||_F <= BG_BATCH_RECON_TOL ||A||_F. Together
 * ||U diag(s) V^T - A||_F <= (BG_BATCH_RECON_TOL + 3 BG_BATCH_COS_TOL)
 * ||A||_F + round-off, about 7e-6 ||A||_F. */
#ifndef BG_BATCH_COS_TOL
#define BG_BATCH_COS_TOL (8.0f * FLT_EPSILON)
#endif
#ifndef BG_BATCH_RECON_TOL
#define BG_BATCH_RECON_TOL (32.0f * FLT_EPSILON)
#endif

/* Entry range of the fast path: |a_ij| <= 2^20 and max |a_ij| >= 2^-20. */
#define BG_BATCH_AMAX_HI 1048576.0f
#define BG_BATCH_AMAX_LO 9.5367431640625e-07f
/* Smallest certified column norm, squared, relative to the largest
 * (sigma_min / sigma_max >= 2^-20). */
#define BG_BATCH_NORM2_RATIO 9.094947017729282e-13f

/* ------------------------------------------------------ fast path SVD */

/* A 3x3 matrix of one lane, row-major (e[3*i+j] = M_ij). Lane functions
 * take and return these by value: a vector loop body must not take the
 * address of its locals (OpenMP simd turns such locals into per-lane arrays
 * the vectoriser then cannot handle). */
typedef struct bg_lane_m3 {
  bg_real e[9];
} bg_lane_m3;

typedef struct bg_lane_svd {
  bg_lane_m3 u, v;
  bg_real s[3];
  bg_lmask ok; /* certification mask: where clear, the rest is meaningless */
} bg_lane_svd;

/* tan(x/2) / tan(x) = 1 / (1 + sqrt(1 + tan^2 x)) as a polynomial in
 * tan^2 x on [0, 1] (least squares on Chebyshev nodes): cubic, relative
 * error 1.3e-4, for the early sweeps; quartic, 1.7e-5, for the last. Only
 * the Jacobi angle's accuracy depends on them, never the orthogonality of
 * the rotation. */
#define BG_LANE_HT3_0 0.49993554176428906f
#define BG_LANE_HT3_1 (-0.12285267231516192f)
#define BG_LANE_HT3_2 0.05035582584186992f
#define BG_LANE_HT3_3 (-0.013266205810013157f)
#define BG_LANE_HT4_0 0.4999915470769127f
#define BG_LANE_HT4_1 (-0.12456337001288639f)
#define BG_LANE_HT4_2 0.05869256755928057f
#define BG_LANE_HT4_3 (-0.02638593589505147f)
#define BG_LANE_HT4_4 0.0064840770738401575f

/* Dot product of columns p and q of the row-major b. */
BG_LANE bg_real bg_lane_dot_cols_(const bg_real b[9], int p, int q) {
  return BG_LANE_FMA(b[p], b[q], BG_LANE_FMA(b[3 + p], b[3 + q], b[6 + p] * b[6 + q]));
}

/* One Jacobi rotation of columns p < q of b, making them (nearly)
 * orthogonal. n: the squared column norms; qv: the unnormalised quaternion
 * (w, x, y, z) of V, which accumulates V <- V G.
 *
 * Angle: the rotation of bg_svd3 step 2, t = tan(theta) the smaller root,
 * written homogeneously, t = sign(h) 2 gamma / (|h| + sqrt(h^2 + 4 gamma^2)),
 * h = beta - alpha (gamma = 0 needs no special case; 4 FLT_MIN keeps 0/0
 * away when also h = 0), negligible gammas skipped and t clamped to
 * [-1, 1] (see below). The rotation itself comes from the half-angle
 * tangent tau = tan(theta/2) in rational form, c = (1 - tau^2) / (1 + tau^2),
 * s = 2 tau / (1 + tau^2), which is orthogonal to round-off for any tau:
 * approximations in the angle cost convergence speed only, never accuracy.
 * And tau is what the quaternion update needs: the plane rotation G is the
 * axis rotation with quaternion (1, tau e_axis) up to sign and norm -- which
 * stays in range only while |tau| is bounded, hence the clamp on t.
 *
 * acc = 0 (early sweeps): the norms are tracked through the rotations
 * (alpha - t gamma, beta + t gamma), sqrt is a one-step Newton estimate
 * (2e-3), tau a cubic; together ~2e-3 relative angle error, which the
 * quadratic convergence shrugs off. acc = 1 (the last sweep): norms
 * recomputed from the columns, two Newton steps (5e-6), quartic tau (2e-5),
 * so the last sweep lands at round-off. (acc is a compile-time constant
 * after unrolling.) */
BG_LANE void bg_lane_jacobi_(bg_real b[9], bg_real n[3], bg_real qv[4], int p, int q, int acc) {
  if (acc) {
    n[p] = bg_lane_dot_cols_(b, p, p);
    n[q] = bg_lane_dot_cols_(b, q, q);
  }
  bg_real gamma = bg_lane_dot_cols_(b, p, q);
  bg_real h = n[q] - n[p];
  /* Pairs already orthogonal to float precision are left alone, as bg_svd3
   * leaves them: |gamma| <= eps min(n_p, n_q) (<= eps |b_p| |b_q|) zeroes y,
   * hence t, tau and s, and with c = 1 the update below is the identity
   * bit for bit. F = I + E with tiny E (MPM's F = (I + dt C) F) has exactly
   * equal norms, where a negligible gamma has a 45 degree Jacobi angle:
   * rotating there only adds round-off to U and V. It also keeps the
   * squares of tiny gammas (denormal arithmetic, slow) out of r2. */
  bg_lmask rot = bg_lane_gt_(fabsf(gamma), FLT_EPSILON * bg_lane_min_(n[p], n[q]));
  bg_real y = bg_lane_float_(bg_lane_bits_(gamma + gamma) & rot);
  bg_real r2 = BG_LANE_FMA(y, y, h * h);
  /* 1/sqrt(r2): bit-trick estimate and Newton steps, each as
   * 1.5 ir - (r2/2 ir) ir^2 so that two of its three products overlap.
   * 4 FLT_MIN keeps r2 = 0 (orthogonal columns of equal norm) away from
   * 0/0, its half normal, and changes nothing for r2 > 2^-100. */
  bg_real r2s = r2 + 4.0f * FLT_MIN;
  bg_real ir = bg_lane_float_(0x5f3759dfu - (bg_lane_bits_(r2s) >> 1));
  bg_real hr2 = 0.5f * r2s;
  ir = BG_LANE_FMA(-(hr2 * ir), ir * ir, 1.5f * ir);
  if (acc) ir = BG_LANE_FMA(-(hr2 * ir), ir * ir, 1.5f * ir);
  /* |t| <= 1 (the smaller root): the tau polynomial is fitted on t^2 in
   * [0, 1], and |tau| <= tan(pi/8) bounds the quaternion's norm by
   * (1 + tan^2(pi/8))^(9/2) ~ 2. r2s * ir is sqrt(r2) (to the Newton
   * steps' accuracy, so |t| may exceed 1 by 2e-3) only for r2 > 2^-100:
   * where h^2 + y^2 underflows (tiny columns, or a tiny gamma that is not
   * negligible against them) the quotient can be anything up to
   * y / sqrt(4 FLT_MIN). Unclamped (then up to y / FLT_MIN), F = I + E with
   * |E| ~ 1e-24 and the skip above not yet there gave t ~ 1e3, tau ~ 1e19,
   * a half turn applied to b but an overflowing quaternion (|q|^2 = inf,
   * V = I) -- certified, since only b's columns were checked. The clamp is
   * on the bits (non-negative floats order as their bits): one integer op,
   * where a float min would put a compare on the sweeps' latency chain. */
  uint32_t tb = bg_lane_bits_(fabsf(y) / BG_LANE_FMA(r2s, ir, fabsf(h)));
  tb = (tb < 0x3f800000u) ? tb : 0x3f800000u;
  bg_real t = bg_lane_float_(tb | ((bg_lane_bits_(y) ^ bg_lane_bits_(h)) & 0x80000000u));
  bg_real t2 = t * t;
  /* Estrin's scheme: the polynomial in two levels instead of Horner's chain */
  bg_real t4 = t2 * t2;
  bg_real g;
  if (acc) {
    bg_real lo = BG_LANE_FMA(t2, BG_LANE_HT4_1, BG_LANE_HT4_0);
    bg_real hi = BG_LANE_FMA(t4, BG_LANE_HT4_4, BG_LANE_FMA(t2, BG_LANE_HT4_3, BG_LANE_HT4_2));
    g = BG_LANE_FMA(t4, hi, lo);
  } else {
    bg_real lo = BG_LANE_FMA(t2, BG_LANE_HT3_1, BG_LANE_HT3_0);
    bg_real hi = BG_LANE_FMA(t2, BG_LANE_HT3_3, BG_LANE_HT3_2);
    g = BG_LANE_FMA(t4, hi, lo);
  }
  bg_real tau = t * g;
  bg_real tt = tau * tau;
  /* c = (1 - tau^2) d, s = 2 tau d, d = 1 / (1 + tau^2); d applied last,
   * so the division overlaps the multiplies */
  bg_real d = 1.0f / (1.0f + tt);
  bg_real cu = 1.0f - tt;
  bg_real su = tau + tau;
  /* the norms after an exact Jacobi rotation: alpha - t gamma, beta + t gamma */
  if (!acc) {
    n[p] = BG_LANE_FMA(-t, gamma, n[p]);
    n[q] = BG_LANE_FMA(t, gamma, n[q]);
  }
  BG_UNROLL
  for (int i = 0; i < 3; ++i) {
    bg_real bp = b[3 * i + p], bq = b[3 * i + q];
    b[3 * i + p] = d * BG_LANE_FMA(cu, bp, -(su * bq));
    b[3 * i + q] = d * BG_LANE_FMA(su, bp, cu * bq);
  }
  /* qv <- qv (x) (1, k e_axis): pair (0,1) is a rotation about z by
   * -theta, (0,2) about y by +theta, (1,2) about x by -theta */
  bg_real w = qv[0], x = qv[1], yq = qv[2], z = qv[3];
  if (p == 0 && q == 1) {
    bg_real k = -tau;
    qv[0] = BG_LANE_FMA(-z, k, w);
    qv[1] = BG_LANE_FMA(yq, k, x);
    qv[2] = BG_LANE_FMA(-x, k, yq);
    qv[3] = BG_LANE_FMA(w, k, z);
  } else if (p == 0) {
    bg_real k = tau;
    qv[0] = BG_LANE_FMA(-yq, k, w);
    qv[1] = BG_LANE_FMA(-z, k, x);
    qv[2] = BG_LANE_FMA(w, k, yq);
    qv[3] = BG_LANE_FMA(x, k, z);
  } else {
    bg_real k = -tau;
    qv[0] = BG_LANE_FMA(-x, k, w);
    qv[1] = BG_LANE_FMA(w, k, x);
    qv[2] = BG_LANE_FMA(z, k, yq);
    qv[3] = BG_LANE_FMA(-yq, k, z);
  }
}

/* Rotation matrix (row-major) of the unnormalised quaternion (w, x, y, z). */
BG_LANE bg_lane_m3 bg_lane_quat_matrix_(const bg_real qv[4]) {
  bg_real w = qv[0], x = qv[1], y = qv[2], z = qv[3];
  bg_real s = 2.0f / BG_LANE_FMA(w, w, BG_LANE_FMA(x, x, BG_LANE_FMA(y, y, z * z)));
  bg_real xs = x * s, ys = y * s, zs = z * s;
  bg_real wx = w * xs, wy = w * ys, wz = w * zs;
  bg_real xx = x * xs, xy = x * ys, xz = x * zs;
  bg_real yy = y * ys, yz = y * zs, zz = z * zs;
  bg_lane_m3 m;
  m.e[0] = 1.0f - (yy + zz);
  m.e[1] = xy - wz;
  m.e[2] = xz + wy;
  m.e[3] = xy + wz;
  m.e[4] = 1.0f - (xx + zz);
  m.e[5] = yz - wx;
  m.e[6] = xz - wy;
  m.e[7] = yz + wx;
  m.e[8] = 1.0f - (xx + yy);
  return m;
}

/* The a-posteriori check of a factorisation A ~ U diag(s) V^T (row-major
 * a, u, v): U^T U ~ I, V^T V ~ I and A V ~ U diag(s) column by column, to
 * the tolerances above. It looks at nothing but the returned factors, so
 * whatever goes wrong inside the fast path (an angle out of range, an
 * overflowing quaternion, a V that disagrees with the rotations applied to
 * B, a bad rsqrt) shows up here as a clear mask, never as a certified lane.
 * Scale-free: U and V have unit columns whatever A's size, and the
 * reconstruction residual is compared with ||A||_F^2 (both within range
 * for the entries the fast path admits). NaN anywhere clears the mask. */
BG_LANE bg_lmask bg_lane_svd_certify_(const bg_real a[9], const bg_real u[9], const bg_real s[3],
                                      const bg_real v[9]) {
  bg_lmask ok = ~(bg_lmask)0;
  BG_UNROLL
  for (int k = 0; k < 6; ++k) {
    int p = (k < 3) ? k : (k == 5) ? 1 : 0;
    int q = (k < 3) ? k : (k == 3) ? 1 : 2;
    bg_real one = (k < 3) ? 1.0f : 0.0f;
    ok &= bg_lane_le_(fabsf(bg_lane_dot_cols_(u, p, q) - one), BG_BATCH_COS_TOL);
    ok &= bg_lane_le_(fabsf(bg_lane_dot_cols_(v, p, q) - one), BG_BATCH_COS_TOL);
  }
  bg_real d2 = 0.0f, a2 = 0.0f;
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    BG_UNROLL
    for (int j = 0; j < 3; ++j) {
      bg_real av =
          BG_LANE_FMA(a[3 * i], v[j], BG_LANE_FMA(a[3 * i + 1], v[3 + j], a[3 * i + 2] * v[6 + j]));
      bg_real d = BG_LANE_FMA(-u[3 * i + j], s[j], av);
      d2 = BG_LANE_FMA(d, d, d2);
      a2 = BG_LANE_FMA(a[3 * i + j], a[3 * i + j], a2);
    }
  ok &= bg_lane_le_(d2, (BG_BATCH_RECON_TOL * BG_BATCH_RECON_TOL) * a2);
  return ok;
}

/* Unsorted fast SVD: u gets the normalised columns of B = A V
 * (det u = sign det a, not fixed up here), s their norms (all >= 0), v the
 * accumulated rotation (det +1), ok the domain tests (entry range, sigma
 * ratio) and the certificate (bg_lane_svd_certify_). */
BG_LANE bg_lane_svd bg_lane_svd_core_(bg_lane_m3 a) {
  bg_lane_svd r;
  bg_real b[9];
  bg_real amax = 0.0f;
  bg_lmask ok = ~(bg_lmask)0;
  BG_UNROLL
  for (int k = 0; k < 9; ++k) {
    b[k] = a.e[k];
    bg_real x = fabsf(a.e[k]);
    ok &= bg_lane_le_(x, BG_BATCH_AMAX_HI); /* also rejects NaN */
    amax = bg_lane_max_(x, amax);
  }
  ok &= bg_lane_ge_(amax, BG_BATCH_AMAX_LO);
  bg_real n[3], qv[4] = {1.0f, 0.0f, 0.0f, 0.0f};
  BG_UNROLL
  for (int j = 0; j < 3; ++j) n[j] = bg_lane_dot_cols_(b, j, j);
  BG_UNROLL
  for (int sweep = 0; sweep < BG_BATCH_SWEEPS; ++sweep) {
    int acc = sweep == BG_BATCH_SWEEPS - 1;
    bg_lane_jacobi_(b, n, qv, 0, 1, acc);
    bg_lane_jacobi_(b, n, qv, 0, 2, acc);
    bg_lane_jacobi_(b, n, qv, 1, 2, acc);
  }
  r.v = bg_lane_quat_matrix_(qv);
  BG_UNROLL
  for (int j = 0; j < 3; ++j) n[j] = bg_lane_dot_cols_(b, j, j);
  bg_real nmax = bg_lane_max_(bg_lane_max_(n[0], n[1]), n[2]);
  BG_UNROLL
  for (int j = 0; j < 3; ++j) {
    ok &= bg_lane_ge_(n[j], BG_BATCH_NORM2_RATIO * nmax);
    bg_real rs = bg_lane_rsqrt_(n[j]);
    r.s[j] = n[j] * rs;
    BG_UNROLL
    for (int i = 0; i < 3; ++i) r.u.e[3 * i + j] = b[3 * i + j] * rs;
  }
  r.ok = ok & bg_lane_svd_certify_(a.e, r.u.e, r.s, r.v.e);
  return r;
}

BG_LANE bg_real bg_lane_det3_(const bg_real m[9]) {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
         m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* Swap columns p, q of u and v, negating the new column p of both (so
 * U diag(s) V^T and both determinants are unchanged), where m is set. */
BG_LANE void bg_lane_swap_cols_(bg_lmask m, bg_real u[9], bg_real v[9], int p, int q) {
  BG_UNROLL
  for (int i = 0; i < 3; ++i) {
    bg_real up = u[3 * i + p], uq = u[3 * i + q];
    u[3 * i + p] = bg_lane_sel_(m, -uq, up);
    u[3 * i + q] = bg_lane_sel_(m, up, uq);
    bg_real vp = v[3 * i + p], vq = v[3 * i + q];
    v[3 * i + p] = bg_lane_sel_(m, -vq, vp);
    v[3 * i + q] = bg_lane_sel_(m, vp, vq);
  }
}

/* The fast SVD in bg_svd3's convention: U, V proper rotations,
 * s0 >= s1 >= |s2|, s2 with the sign of det A. Lanes whose ok is clear must
 * be recomputed by bg_svd3 (bg_svd3_chunk does that). The certificate is
 * the core's: the fix-ups below only permute and negate columns and values
 * (exactly), which leaves U^T U, V^T V and U S V^T as they were. */
BG_LANE bg_lane_svd bg_svd3_lane(bg_lane_m3 a) {
  bg_lane_svd r = bg_lane_svd_core_(a);
  bg_real *s = r.s;
  /* sort descending: the compare-and-swaps of bg_svd3 step 3 */
  BG_UNROLL
  for (int step = 0; step < 3; ++step) {
    int p = (step == 2) ? 1 : 0;
    int q = (step == 0) ? 1 : 2;
    bg_lmask m = bg_lane_gt_(s[q], s[p]);
    bg_real sp = s[p];
    s[p] = bg_lane_sel_(m, s[q], sp);
    s[q] = bg_lane_sel_(m, sp, s[q]);
    bg_lane_swap_cols_(m, r.u.e, r.v.e, p, q);
  }
  /* det U = sign det A: a reflection goes into s2 and U's last column */
  bg_lmask neg = bg_lane_gt_(0.0f, bg_lane_det3_(r.u.e));
  s[2] = bg_lane_sel_(neg, -s[2], s[2]);
  BG_UNROLL
  for (int i = 0; i < 3; ++i) r.u.e[3 * i + 2] = bg_lane_sel_(neg, -r.u.e[3 * i + 2], r.u.e[3 * i + 2]);
  return r;
}
#endif /* BG_LANE_SVD_H */
