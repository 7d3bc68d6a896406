/* bg_svd.h: the single-precision 3x3 singular value decomposition used by
 * the constitutive models (return mapping, fixed-corotated stress), and the
 * polar rotation built from it. Shared by the host oracle (C11, gcc
 * -pedantic) and the CUDA kernels (nvcc), so only the common subset of C and
 * C++ appears here, and only float math functions are called.
 *
 * Convention ("rotation-variant" SVD, Irving et al. 2004): A = U diag(s) V^T
 * with U and V proper rotations (det +1), s0 >= s1 >= |s2|, s0, s1 >= 0, and
 * s2 carrying the sign of det A. Inverted elements therefore show up as a
 * negative s2 and never as a reflection hidden in U or V.
 *
 * Method:
 *  1. Scale A by a power of two so its largest entry lies in [0.5, 1): exact,
 *     and it keeps the squared column norms below from over- or underflowing
 *     across a large dynamic range. (A multiply by 2^-e built from the
 *     exponent bits; frexpf/ldexpf only for denormal or >= 2^126 input.)
 *  2. One-sided (Hestenes) cyclic Jacobi: rotate pairs of columns of B = A V
 *     until they are mutually orthogonal, accumulating the exact rotations
 *     into V. This is Jacobi on S = A^T A, but with the entries of S
 *     recomputed from the current columns at every step instead of being
 *     formed once and updated. Forming A^T A in float buries singular values
 *     below sqrt(eps) * s0 in its round-off, which costs ~1e-4 relative
 *     reconstruction error; the one-sided form keeps each column's error
 *     relative to that column's own norm.
 *  3. Sort the columns of B by norm, descending, so that the QR below sees
 *     the dominant directions first and its R comes out (near) diagonal even
 *     for rank-deficient A.
 *  4. QR of B by Givens rotations: U is a product of rotations (det +1) and
 *     diag(R) is sigma; the off-diagonal of R is at the convergence
 *     tolerance and is dropped.
 *  5. Sign and order fix-ups that keep det U = det V = +1. */
#ifndef BG_SVD_H
#define BG_SVD_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bg_defs.h"

/* Columns p and q of B count as orthogonal once |b_p . b_q| is below this
 * fraction of |b_p| |b_q|. A few ulps: tighter is unreachable in float
 * (the dot product itself carries ~3 eps of round-off), looser shows up
 * directly as reconstruction error. */
#define BG_SVD_ORTHO_TOL (4.0f * FLT_EPSILON)

/* One-sided Jacobi converges quadratically: over 2e6 stress matrices
 * (uniform, entries spread over 1e+-30, column/row scalings of 1e+-12) no
 * matrix needed more than 4 sweeps with rotations plus the confirming one.
 * The cap is the guarantee that the loop ends whatever the input. */
#define BG_SVD_MAX_SWEEPS 12

/* Squared column norm (of the scaled matrix, whose largest entry is in
 * [0.5, 1), so ||A||_F >= 0.5) below which a column is left out of the
 * Jacobi rotations. Such a column is < 1e-12 * ||A||: leaving it
 * unorthogonalised costs at most that much reconstruction error, far below
 * float resolution, while rotating against it is pointless (its norm and dot
 * products sit in the denormal range, the orthogonality test can never be
 * met, and every sweep up to the cap would be spent on it). */
#define BG_SVD_TINY_NORM2 1.0e-24f

/* Rotate columns p and q of m by [[c, s], [-s, c]]:
 * m_p <- c m_p - s m_q, m_q <- s m_p + c m_q. A rotation, so applying it to
 * V keeps det V = +1. */
BG_HD void bg_svd_rotate_cols_(bg_mat3 *m, int p, int q, bg_real c, bg_real s) {
  for (int i = 0; i < 3; ++i) {
    bg_real mp = m->m[i][p];
    bg_real mq = m->m[i][q];
    m->m[i][p] = c * mp - s * mq;
    m->m[i][q] = s * mp + c * mq;
  }
}

/* Rotate rows p and q of m by the Givens pair (c, s):
 * m_p <- c m_p + s m_q, m_q <- -s m_p + c m_q. */
BG_HD void bg_svd_rotate_rows_(bg_mat3 *m, int p, int q, bg_real c, bg_real s) {
  for (int j = 0; j < 3; ++j) {
    bg_real mp = m->m[p][j];
    bg_real mq = m->m[q][j];
    m->m[p][j] = c * mp + s * mq;
    m->m[q][j] = -s * mp + c * mq;
  }
}

/* Swap columns p and q of m and negate column p afterwards: a swap alone is
 * a reflection, the extra negation turns it back into a rotation. */
BG_HD void bg_svd_swap_cols_(bg_mat3 *m, int p, int q) {
  for (int i = 0; i < 3; ++i) {
    bg_real t = m->m[i][p];
    m->m[i][p] = -m->m[i][q];
    m->m[i][q] = t;
  }
}

BG_HD void bg_svd_negate_col_(bg_mat3 *m, int p) {
  for (int i = 0; i < 3; ++i) m->m[i][p] = -m->m[i][p];
}

BG_HD bg_real bg_svd_col_norm2_(const bg_mat3 *m, int p) {
  return m->m[0][p] * m->m[0][p] + m->m[1][p] * m->m[1][p] + m->m[2][p] * m->m[2][p];
}

/* cos(atan t) = 1 / sqrt(1 + t^2), |t| <= 1, as 1 - t^2 / (r (1 + r)) with
 * r = sqrt(1 + t^2): one rounding of a value near 1, so c is within an ulp
 * and the error is unbiased. The textbook 1 / sqrtf(1 + t * t) is not: for
 * t^2 below ~1.8e-7 (|t| < 4e-4, the small angles of the converging sweeps
 * and of nearly diagonal matrices) it returns exactly 1 while s = t, so
 * c^2 + s^2 = 1 + t^2 > 1 and every such rotation stretches V (or U) a
 * little, always outward. Those stretches made U diag(s) V^T carry
 * det F (1 + 1.9e-7) on MPM states near a rotation, a volume gain of 1.6
 * ulp per step in every particle's F that the vectorised path (V from a
 * quaternion) does not have; it is what set the CUDA backend (scalar
 * update) apart from the CPU (batch update) in test_parity's silo. */
BG_HD bg_real bg_svd_cos_of_tan_(bg_real t) {
  bg_real t2 = t * t;
  bg_real r = sqrtf(1.0f + t2);
  return 1.0f - t2 / (r * (1.0f + r));
}

/* Givens pair (c, s) with c a + s b = r >= 0 and -s a + c b = 0, from the
 * tangent of the smaller entry over the larger (|t| <= 1, so neither
 * overflows; a square that underflows means c = 1 to float precision) with
 * the unbiased cosine above, which keeps c^2 + s^2 = 1 to round-off and
 * without a drift in either direction. Both zero: identity, nothing to
 * eliminate. */
BG_HD void bg_svd_givens_(bg_real a, bg_real b, bg_real *c, bg_real *s) {
  if (!(fmaxf(fabsf(a), fabsf(b)) > 0.0f)) {
    *c = 1.0f;
    *s = 0.0f;
    return;
  }
  if (fabsf(a) >= fabsf(b)) {
    bg_real t = b / a, k = bg_svd_cos_of_tan_(t);
    *c = a < 0.0f ? -k : k; /* c a >= 0 */
    *s = *c * t;
  } else {
    bg_real t = a / b, k = bg_svd_cos_of_tan_(t);
    *s = b < 0.0f ? -k : k; /* s b >= 0 */
    *c = *s * t;
  }
}

/* For normal finite x: the e of x = m 2^e, m in [0.5, 1), read from the
 * exponent bits (frexpf without the library call). */
BG_HD int bg_svd_exponent_(bg_real x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return (int)((u >> 23) & 0xffu) - 126;
}

/* 2^e as a float, for -126 <= e <= 127 (normal range). */
BG_HD bg_real bg_svd_pow2_(int e) {
  uint32_t u = (uint32_t)(e + 127) << 23;
  bg_real x;
  memcpy(&x, &u, sizeof x);
  return x;
}

BG_HD void bg_svd3(const bg_mat3 *a, bg_mat3 *u, bg_vec3 *sigma, bg_mat3 *v) {
  /* Work on a copy so callers may alias a with u or v. */
  bg_mat3 b = *a;
  bg_mat3 vv = bg_mat3_identity();
  bg_mat3 uu = bg_mat3_identity();
  bg_real sg[3];

  /* 1. Power-of-two scaling (exact) of the largest entry into [0.5, 1).
   * x * 0 is 0 for finite x and NaN for NaN/Inf, so `bad` flags and
   * carries non-finite input; fmaxf alone would silently skip NaNs. (Under
   * -ffast-math / finite-math-only this detection is compiled away.) */
  bg_real amax = 0.0f;
  bg_real bad = 0.0f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      amax = fmaxf(amax, fabsf(b.m[i][j]));
      bad += b.m[i][j] * 0.0f;
    }
  if (bad != 0.0f || amax == 0.0f) {
    /* Zero matrix: any pair of rotations is a valid answer; identity is the
     * natural one. Non-finite input: nothing meaningful to compute, so hand
     * back rotations and let sigma = NaN make the problem visible. */
    for (int k = 0; k < 3; ++k) sigma->v[k] = bad;
    *u = uu;
    *v = vv;
    return;
  }
  /* expo as frexpf(amax) gives it. For amax in [2^-126, 2^126) both 2^-expo
   * and 2^expo are normal floats, so multiplying by them is exact scaling,
   * bit for bit what ldexpf does (including a rounding into the denormal
   * range), at the cost of a multiply instead of a library call; the rest
   * (denormal amax, amax >= 2^126) keeps frexpf/ldexpf. */
  int expo = 0;
  bg_real down = 0.0f, up = 0.0f;
  int fast_scale = amax >= FLT_MIN && amax < 8.507059173023462e37f; /* [2^-126, 2^126) */
  if (fast_scale) {
    expo = bg_svd_exponent_(amax);
    down = bg_svd_pow2_(-expo);
    up = bg_svd_pow2_(expo);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) b.m[i][j] *= down;
  } else {
    (void)frexpf(amax, &expo);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) b.m[i][j] = ldexpf(b.m[i][j], -expo);
  }

  /* 2. One-sided cyclic Jacobi on the column pairs (0,1), (0,2), (1,2). */
  for (int sweep = 0; sweep < BG_SVD_MAX_SWEEPS; ++sweep) {
    int rotated = 0;
    for (int pair = 0; pair < 3; ++pair) {
      int p = (pair == 2) ? 1 : 0;
      int q = (pair == 0) ? 1 : 2;
      bg_real alpha = bg_svd_col_norm2_(&b, p);
      bg_real beta = bg_svd_col_norm2_(&b, q);
      bg_real gamma = b.m[0][p] * b.m[0][q] + b.m[1][p] * b.m[1][q] + b.m[2][p] * b.m[2][q];
      /* Negligible columns (zero ones included) take no part; see
       * BG_SVD_TINY_NORM2. This also guarantees gamma != 0 below is not a
       * denormal artefact. */
      if (alpha < BG_SVD_TINY_NORM2 || beta < BG_SVD_TINY_NORM2) continue;
      /* Already orthogonal to working precision. sqrt of each factor
       * separately keeps the bound itself out of underflow; also skips
       * gamma == 0, so the division below is safe. */
      if (!(fabsf(gamma) > BG_SVD_ORTHO_TOL * sqrtf(alpha) * sqrtf(beta))) continue;
      /* Exact Jacobi rotation making the new columns orthogonal:
       * t = tan(theta) is the smaller root of t^2 + 2 zeta t - 1 = 0. */
      bg_real zeta = (beta - alpha) / (2.0f * gamma);
      bg_real t;
      if (fabsf(zeta) > 1.0e15f) {
        /* zeta^2 would overflow; the root is 1/(2 zeta) to float precision. */
        t = 0.5f / zeta;
      } else {
        t = 1.0f / (fabsf(zeta) + sqrtf(1.0f + zeta * zeta));
        if (zeta < 0.0f) t = -t;
      }
      bg_real c = bg_svd_cos_of_tan_(t); /* not 1 / sqrtf(1 + t t): see there */
      bg_real s = c * t;
      bg_svd_rotate_cols_(&b, p, q, c, s);
      bg_svd_rotate_cols_(&vv, p, q, c, s);
      rotated = 1;
    }
    /* A full sweep with every pair already orthogonal: converged. */
    if (!rotated) break;
  }

  /* 3. Sort the columns of B (and V with them) by norm, descending. Three
   * compare-and-swaps; each swap carries a negation so det V stays +1, and
   * B = A V stays true because B gets the identical operation. Strict
   * comparisons leave equal columns where they are (identity stays exact). */
  {
    bg_real n0 = bg_svd_col_norm2_(&b, 0);
    bg_real n1 = bg_svd_col_norm2_(&b, 1);
    bg_real n2 = bg_svd_col_norm2_(&b, 2);
    bg_real tn;
    if (n1 > n0) {
      bg_svd_swap_cols_(&b, 0, 1);
      bg_svd_swap_cols_(&vv, 0, 1);
      tn = n0; n0 = n1; n1 = tn;
    }
    if (n2 > n0) {
      bg_svd_swap_cols_(&b, 0, 2);
      bg_svd_swap_cols_(&vv, 0, 2);
      tn = n0; n0 = n2; n2 = tn;
    }
    if (n2 > n1) {
      bg_svd_swap_cols_(&b, 1, 2);
      bg_svd_swap_cols_(&vv, 1, 2);
    }
  }

  /* 4. QR of B by Givens rotations, B = U R. Each G = [[c, s], [-s, c]] is
   * applied to B's rows (B <- G B) and U accumulates U <- U G^T, which is the
   * column rotation with angle -s; U is a product of rotations, det U = +1. */
  {
    bg_real c, s;
    /* Eliminate B[1][0] against B[0][0]. */
    bg_svd_givens_(b.m[0][0], b.m[1][0], &c, &s);
    bg_svd_rotate_rows_(&b, 0, 1, c, s);
    bg_svd_rotate_cols_(&uu, 0, 1, c, -s);
    /* Eliminate B[2][0] against B[0][0]. */
    bg_svd_givens_(b.m[0][0], b.m[2][0], &c, &s);
    bg_svd_rotate_rows_(&b, 0, 2, c, s);
    bg_svd_rotate_cols_(&uu, 0, 2, c, -s);
    /* Eliminate B[2][1] against B[1][1]. */
    bg_svd_givens_(b.m[1][1], b.m[2][1], &c, &s);
    bg_svd_rotate_rows_(&b, 1, 2, c, s);
    bg_svd_rotate_cols_(&uu, 1, 2, c, -s);
  }
  /* The columns of B were orthogonal, so R is diagonal up to the Jacobi
   * tolerance; its diagonal is sigma (still scaled). */
  for (int k = 0; k < 3; ++k) sg[k] = b.m[k][k];

  /* 5a. The Givens pairs above already leave R[0][0], R[1][1] >= 0; this is
   * the guard for the degenerate paths. Flipping sigma_k together with
   * sigma_2 (U column k and column 2, the matching rows of R) keeps
   * det U = +1 and U diag(sigma) unchanged. */
  for (int k = 0; k < 2; ++k) {
    if (sg[k] < 0.0f) {
      sg[k] = -sg[k];
      sg[2] = -sg[2];
      bg_svd_negate_col_(&uu, k);
      bg_svd_negate_col_(&uu, 2);
    }
  }

  /* 5b. Repeated singular values may come out of the QR out of order by a
   * few ulps. Restore the ordering by swapping the pair in both U and V
   * (the same sign-carrying swap as step 3 applied to both, so U diag(s) V^T
   * is unchanged and both determinants stay +1). Pairs (0,1), (1,2), (0,1):
   * a complete sort of three. */
  for (int step = 0; step < 3; ++step) {
    int p = (step == 1) ? 1 : 0;
    int q = p + 1;
    if (fabsf(sg[q]) > sg[p]) {
      bg_real t = sg[p];
      sg[p] = sg[q];
      sg[q] = t;
      bg_svd_swap_cols_(&uu, p, q);
      bg_svd_swap_cols_(&vv, p, q);
      /* Only slot 2 may be negative, so only the (1,2) swap can move a
       * negative value up; the pair flip of 5a sends the sign back down. */
      if (sg[p] < 0.0f) {
        sg[p] = -sg[p];
        sg[2] = -sg[2];
        bg_svd_negate_col_(&uu, p);
        bg_svd_negate_col_(&uu, 2);
      }
    }
  }

  /* Undo the power-of-two scaling (exact again). */
  for (int k = 0; k < 3; ++k) sigma->v[k] = fast_scale ? sg[k] * up : ldexpf(sg[k], expo);
  *u = uu;
  *v = vv;
}

/* R = U V^T, the rotation of the polar decomposition A = R S (S = V diag(s)
 * V^T symmetric). With the rotation-variant convention R is always proper,
 * which is what the fixed-corotated stress P = 2 mu (F - R) + ... needs. */
BG_HD bg_mat3 bg_polar_rotation(const bg_mat3 *u, const bg_mat3 *v) {
  return bg_mat3_mul(*u, bg_mat3_transpose(*v));
}

#endif /* BG_SVD_H */
