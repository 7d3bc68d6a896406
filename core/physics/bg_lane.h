/* bg_lane.h: the "lane" toolkit shared by every vectorised constitutive
 * update: branch-free float selects, square roots, log and exp, the
 * certified fast-path 3x3 SVD and the elastic laws restated for lanes, plus
 * the fixed-size chunk of particles the drivers work on
 * (bg_constitutive_batch.h). A material model's optional lane update
 * (core/physics/materials/) is written with these and nothing else.
 *
 * Why lanes, and why so odd-looking. gcc vectorises a loop only when its
 * body is straight-line code. At the project's flags (no -ffast-math, so
 * -fmath-errno and -ftrapping-math are on) it keeps if/else *and* ternaries
 * on floats as control flow whenever one side contains float arithmetic
 * (which "could trap"), it never vectorises sqrtf (errno), and fmaxf/fminf
 * are library calls on baseline x86-64. Hence, in the lane code only:
 *   - selects are integer bit masks (bg_lane_sel_), never ?: on floats;
 *   - square roots come from a bit-trick estimate and Newton steps
 *     (bg_lane_rsqrt_), with a correctly rounded variant (bg_lane_sqrt_cr_)
 *     where results must match sqrtf bit for bit;
 *   - log and exp are short polynomial kernels (bg_lane_log_, bg_lane_exp_),
 *     accurate to about one ulp over the ranges the fast path admits;
 *   - every lane function is forced inline (an out-of-line call blocks
 *     vectorisation) and loops have compile-time trip counts.
 * With these, gcc -O2 and -O3 vectorise the chunk loops with plain SSE2,
 * and the drivers carry AVX2 and AVX-512 clones picked at load time (see
 * BG_BATCH_DRIVER). Under nvcc the same lane code compiles as ordinary
 * per-thread code (with hardware sqrt on the device).
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
 * the scalar code.
 *
 * A lane update restates its model's scalar return map with its branches
 * turned into selects, operation for operation in the same order, and with
 * the correctly rounded sqrt, so it reproduces the scalar map bit for bit on
 * every lane it accepts; the elastic laws below are bg_tau_hencky_eps and
 * bg_tau_fixed_corotated restated the same way (test_svd checks them bit for
 * bit over random inputs). What differs from the scalar update is the SVD
 * itself and one-ulp log/exp, i.e. float round-off. */
#ifndef BG_LANE_H
#define BG_LANE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bg_defs.h"
#include "bg_material_core.h"
#include "bg_stress.h"
#include "bg_svd.h"

/* Particles per inner vector loop: 17 floats of state per particle, so a
 * chunk's working set (~5 KiB) stays in L1; a multiple of 16 lanes. */
#define BG_BATCH_CHUNK 64

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

/* Principal log strains the fast exp accepts, |eps| <= this. */
#define BG_BATCH_EPS_MAX 80.0f

#if defined(__CUDACC__)
#define BG_LANE static __forceinline__ __host__ __device__
#elif defined(__GNUC__)
#define BG_LANE static inline __attribute__((always_inline))
#else
#define BG_LANE static inline
#endif

/* The vector loop pragma: OpenMP simd where OpenMP is on, gcc's ivdep
 * otherwise (both say: no dependence between iterations). Nothing on nvcc,
 * where the drivers are host reference code only. */
#if defined(__CUDACC__)
#define BG_SIMD_LOOP
#elif defined(_OPENMP)
#define BG_SIMD_LOOP _Pragma("omp simd")
#elif defined(__GNUC__) && !defined(__clang__)
#define BG_SIMD_LOOP _Pragma("GCC ivdep")
#else
#define BG_SIMD_LOOP
#endif

/* The two chunk drivers are compiled three times on gcc/x86-64/Linux, for
 * x86-64-v4 (AVX-512), x86-64-v3 (AVX2) and the baseline, and the loader
 * picks one for the CPU it runs on (ifunc): the project builds without
 * -march, and the vector loop is 2.5-3.5x faster with the wider ISAs. The
 * clones compute bit-identical results (same operations; ISO C mode does not
 * contract a * b + c, and BG_LANE_FMA follows the translation unit's flags,
 * not the clone's). Define BG_BATCH_NO_CLONES to switch this off; a
 * translation unit built with -march=...AVX-512 has nothing to gain. */
#if !defined(BG_BATCH_NO_CLONES) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \
    defined(__x86_64__) && defined(__linux__) && !defined(__AVX512F__)
#define BG_BATCH_DRIVER __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) static inline
#else
#define BG_BATCH_DRIVER BG_HD
#endif

/* Complete unrolling of the fixed-count loops whose bodies are too large
 * for the compiler's default heuristics (a loop left inside the lane body
 * stops the vectoriser). */
#if defined(__CUDA_ARCH__)
#define BG_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define BG_UNROLL /* nvcc's host pass: neither it nor gcc behind it takes both */
#elif defined(__GNUC__) && !defined(__clang__)
#define BG_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define BG_UNROLL _Pragma("unroll")
#else
#define BG_UNROLL
#endif

/* ------------------------------------------------------------ lane basics */

/* a * b + c, fused where the target has FMA (x86-64-v3 and up; nvcc fuses
 * on its own). Used in the SVD, log/exp and reassembly arithmetic only,
 * never in the return map, which must match the scalar code bit for bit. */
#if defined(__FMA__) && !defined(__CUDACC__)
#define BG_LANE_FMA(a, b, c) fmaf((a), (b), (c))
#else
#define BG_LANE_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* All-ones (true) or all-zeros (false) per lane. */
typedef uint32_t bg_lmask;

BG_LANE uint32_t bg_lane_bits_(bg_real x) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(x);
#else
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
#endif
}

BG_LANE bg_real bg_lane_float_(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  bg_real x;
  memcpy(&x, &u, sizeof x);
  return x;
#endif
}

/* Comparisons as masks; false whenever an operand is NaN. */
BG_LANE bg_lmask bg_lane_gt_(bg_real a, bg_real b) { return (bg_lmask)0 - (bg_lmask)(a > b); }
BG_LANE bg_lmask bg_lane_ge_(bg_real a, bg_real b) { return (bg_lmask)0 - (bg_lmask)(a >= b); }
BG_LANE bg_lmask bg_lane_le_(bg_real a, bg_real b) { return (bg_lmask)0 - (bg_lmask)(a <= b); }
BG_LANE bg_lmask bg_lane_mask_(int c) { return (bg_lmask)0 - (bg_lmask)(c != 0); }

/* m ? a : b, bit for bit. */
BG_LANE bg_real bg_lane_sel_(bg_lmask m, bg_real a, bg_real b) {
  return bg_lane_float_((bg_lane_bits_(a) & m) | (bg_lane_bits_(b) & ~m));
}

/* max/min against a bound that is never NaN (a NaN x yields the bound). */
BG_LANE bg_real bg_lane_max_(bg_real x, bg_real lo) { return bg_lane_sel_(bg_lane_gt_(x, lo), x, lo); }
BG_LANE bg_real bg_lane_min_(bg_real x, bg_real hi) { return bg_lane_sel_(bg_lane_gt_(hi, x), x, hi); }

/* x with the sign of x xor the sign of y: sign(y) * x without a multiply. */
BG_LANE bg_real bg_lane_mulsign_(bg_real x, bg_real y) {
  return bg_lane_float_(bg_lane_bits_(x) ^ (bg_lane_bits_(y) & 0x80000000u));
}

/* 1/sqrt(x) for x > 0 normal, ~1 ulp: bit-trick estimate (3.5e-2 relative),
 * two Newton steps (4.7e-6), and a last step in correction form
 * y + y (1/2 - x/2 y^2), whose rounding error stays near half an ulp.
 * x = 0 (and denormal x) are taken as FLT_MIN: a large finite value, so
 * x * rsqrt(x) = 0 at x = 0. */
BG_LANE bg_real bg_lane_rsqrt_(bg_real x) {
#ifdef __CUDA_ARCH__
  return 1.0f / sqrtf(x);
#else
  x = bg_lane_max_(x, FLT_MIN);
  bg_real y = bg_lane_float_(0x5f3759dfu - (bg_lane_bits_(x) >> 1));
  bg_real hx = 0.5f * x;
  y = y * BG_LANE_FMA(-hx, y * y, 1.5f);
  y = y * BG_LANE_FMA(-hx, y * y, 1.5f);
  return BG_LANE_FMA(y, BG_LANE_FMA(-hx, y * y, 0.5f), y);
#endif
}

/* Correctly rounded sqrt(x) (= sqrtf(x) bit for bit) for x = 0 or
 * FLT_MIN <= x < +inf (denormal x comes back unchanged). An estimate
 * r = x y, y ~ 1/sqrt(x), refined by one Heron step r + (y/2)(x - r^2) to
 * within an ulp, is moved to a neighbour
 * when x lies beyond the midpoint between them. Midpoints have 25
 * significant bits, their squares at most 50, so the tests in double are
 * exact (and no tie is possible: x has 24 bits). */
BG_LANE bg_real bg_lane_sqrt_cr_(bg_real x0) {
#ifdef __CUDA_ARCH__
  return sqrtf(x0);
#else
  /* x = 0: r = 0, whose neighbour above is a denormal, and a denormal
   * operand costs a microcode assist on x86 (per instruction, so one such
   * lane slows the whole vector); the tip case of the return map sees x = 0
   * whenever sigma = 1 exactly, i.e. for most particles at rest. Those
   * lanes (and denormal x) run on x = 1 and return x itself. */
  bg_lmask tiny = bg_lane_gt_(FLT_MIN, x0);
  bg_real x = bg_lane_sel_(tiny, 1.0f, x0);
  bg_real y = bg_lane_rsqrt_(x);
  bg_real r = x * y;
  r = BG_LANE_FMA(0.5f * y, BG_LANE_FMA(-r, r, x), r);
  uint32_t rb = bg_lane_bits_(r);
  bg_real up = bg_lane_float_(rb + 1u);
  bg_real dn = bg_lane_float_(rb - (uint32_t)(rb != 0u)); /* r = 0: no neighbour below */
  double xd = (double)x, rd = (double)r;
  double mu = 0.5 * (rd + (double)up), md = 0.5 * (rd + (double)dn);
  /* The signs of x - mu^2 and x - md^2 (never zero), read from the sign
   * bit after rounding to float, which keeps it even on underflow: a double
   * comparison would give 64-bit masks that SSE2 cannot narrow. */
  uint32_t above = (bg_lane_bits_((bg_real)(xd - mu * mu)) >> 31) ^ 1u;
  uint32_t below = bg_lane_bits_((bg_real)(xd - md * md)) >> 31;
  bg_lmask go_up = (bg_lmask)0 - above;
  bg_lmask go_dn = (bg_lmask)0 - below;
  return bg_lane_sel_(tiny, x0, bg_lane_sel_(go_up, up, bg_lane_sel_(go_dn, dn, r)));
#endif
}

#define BG_LANE_LN2_HI 0.693145751953125f        /* 15 significant bits: k*hi exact */
#define BG_LANE_LN2_LO 1.428606765330187045e-06f /* ln 2 - hi */

/* log(x) for positive normal finite x, ~1 ulp. x = 2^k m with m in
 * [sqrt(1/2), sqrt(2)), f = m - 1 (exact), z = f / (2 + f), and
 * log m = 2 atanh z = f - z (f - R), R = sum_{j>=1} 2 z^{2j} / (2j + 1),
 * truncated after z^8 (|z| <= 0.172: relative error < 3e-9). */
BG_LANE bg_real bg_lane_log_(bg_real x) {
  /* adding 2^30 - bits(sqrt(1/2)) puts the mantissa boundary at sqrt(1/2)
   * and keeps the sum positive, so the exponent is a plain shift */
  uint32_t t = bg_lane_bits_(x) + 0x00cafb0du;
  bg_real kf = (bg_real)((int32_t)(t >> 23) - 128);
  bg_real m = bg_lane_float_((t & 0x007fffffu) + 0x3f3504f3u);
  bg_real f = m - 1.0f;
  bg_real z = f / (2.0f + f);
  bg_real w = z * z;
  bg_real r = BG_LANE_FMA(w, 0.22222222222222222f, 0.28571428571428571f);
  r = BG_LANE_FMA(w, r, 0.4f);
  r = BG_LANE_FMA(w, r, 0.66666666666666667f);
  r = w * r;
  bg_real lm = BG_LANE_FMA(-z, f - r, f);
  return BG_LANE_FMA(kf, BG_LANE_LN2_HI, BG_LANE_FMA(kf, BG_LANE_LN2_LO, lm));
}

/* exp(x), ~1 ulp, for |x| <= 87 (clamped to [-87, 88] beyond: callers keep
 * their arguments inside BG_BATCH_EPS_MAX). x = k ln2 + r, |r| <= ln2 / 2,
 * exp(r) by its Taylor polynomial to degree 7 (truncation < 1e-8). */
BG_LANE bg_real bg_lane_exp_(bg_real x) {
  x = bg_lane_min_(bg_lane_max_(x, -87.0f), 88.0f);
  bg_real j = x * 1.44269504088896341f;
  bg_real kf = (j + 12582912.0f) - 12582912.0f; /* round to nearest, |j| < 2^22 */
  bg_real r = BG_LANE_FMA(-kf, BG_LANE_LN2_LO, BG_LANE_FMA(-kf, BG_LANE_LN2_HI, x));
  bg_real p = BG_LANE_FMA(r, 1.9841269841269841e-4f, 0.0013888888888888889f);
  p = BG_LANE_FMA(r, p, 0.0083333333333333333f);
  p = BG_LANE_FMA(r, p, 0.041666666666666667f);
  p = BG_LANE_FMA(r, p, 0.16666666666666667f);
  p = BG_LANE_FMA(r, p, 0.5f);
  p = BG_LANE_FMA(r, p, 1.0f);
  bg_real two_k = bg_lane_float_((uint32_t)((int32_t)kf + 127) << 23);
  return BG_LANE_FMA(r, p, 1.0f) * two_k;
}

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

/* ------------------------------------------------------ elastic laws */

/* bg_tau_hencky_eps and bg_tau_fixed_corotated (bg_stress.h), the same
 * expressions evaluated in the same order, hence bit-identical (test_svd
 * checks it). Restated only because their 3-iteration loops are not
 * unrolled at -O2, which would keep the whole chunk loop scalar there. */
BG_LANE bg_vec3 bg_tau_hencky_eps_lane(bg_vec3 e, bg_lame l) {
  bg_vec3 t;
  bg_real tr = e.v[0] + e.v[1] + e.v[2];
  BG_UNROLL
  for (int i = 0; i < 3; ++i) t.v[i] = 2.0f * l.mu * e.v[i] + l.lambda * tr;
  return t;
}

BG_LANE bg_vec3 bg_tau_fixed_corotated_lane(bg_vec3 sigma, bg_lame l) {
  bg_vec3 t;
  bg_real J = sigma.v[0] * sigma.v[1] * sigma.v[2];
  BG_UNROLL
  for (int i = 0; i < 3; ++i)
    t.v[i] = 2.0f * l.mu * (sigma.v[i] - 1.0f) * sigma.v[i] + l.lambda * (J - 1.0f) * J;
  return t;
}

/* ------------------------------------------------------------- chunk */

/* One chunk of particles in structure-of-arrays scratch, whatever the
 * material: fixed arrays (not pointers) so that every access in a vector
 * loop is base + lane. */
typedef struct bg_mat_chunk {
  bg_real F[9][BG_BATCH_CHUNK];          /* in: F_trial, F[3*i+j] = F_ij; out: F */
  bg_real st[BG_NSTATE][BG_BATCH_CHUNK]; /* in/out: the plastic state (bg_material_core.h) */
  bg_real tau[6][BG_BATCH_CHUNK];        /* out: Kirchhoff stress xx yy zz xy xz yz */
  int mode[BG_BATCH_CHUNK];              /* out: BG_RM_* of each particle */
  /* in: the lanes' velocity gradients C[3*i+j][l] in the caller's storage,
   * or NULL (read as zero): read by the scalar updates (bg_update_ctx) only */
  const bg_real (*C)[BG_BATCH_CHUNK];
} bg_mat_chunk;

/* A symmetric matrix into the chunk's six-entry storage (the CPU backend's
 * store_sym), for lanes a scalar update computed. */
BG_HD void bg_mat_chunk_put_tau(bg_mat_chunk *c, int l, const bg_mat3 *t) {
  c->tau[0][l] = t->m[0][0];
  c->tau[1][l] = t->m[1][1];
  c->tau[2][l] = t->m[2][2];
  c->tau[3][l] = 0.5f * (t->m[0][1] + t->m[1][0]);
  c->tau[4][l] = 0.5f * (t->m[0][2] + t->m[2][0]);
  c->tau[5][l] = 0.5f * (t->m[1][2] + t->m[2][1]);
}

/* The scalar update's context for lane l (bg_update_ctx): F, C and the
 * state copied out of the chunk into the caller's F, C, st; tau is the
 * caller's. bg_mat_chunk_lane_put copies the results back. */
BG_HD bg_update_ctx bg_mat_chunk_lane_ctx(const bg_mat_chunk *c, int l, bg_mat3 *F, bg_mat3 *C, bg_real *st,
                                          bg_mat3 *tau) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      F->m[i][j] = c->F[3 * i + j][l];
      C->m[i][j] = c->C ? c->C[3 * i + j][l] : 0.0f;
    }
  for (int s = 0; s < BG_NSTATE; ++s) st[s] = c->st[s][l];
  bg_update_ctx u = {F, C, 0.0f, st, tau};
  return u;
}

BG_HD void bg_mat_chunk_lane_put(bg_mat_chunk *c, int l, const bg_update_ctx *u) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c->F[3 * i + j][l] = u->F->m[i][j];
  for (int s = 0; s < BG_NSTATE; ++s) c->st[s][l] = u->st[s];
  bg_mat_chunk_put_tau(c, l, u->tau);
}

/* Lanes len .. BG_BATCH_CHUNK-1 are scratch: padded with the identity and
 * a zero state, so a vector loop always has its full fixed length. */
BG_HD void bg_mat_chunk_pad(bg_mat_chunk *c, int len) {
  for (int l = len; l < BG_BATCH_CHUNK; ++l) {
    for (int e = 0; e < 9; ++e) c->F[e][l] = (e % 4 == 0) ? 1.0f : 0.0f;
    for (int k = 0; k < BG_NSTATE; ++k) c->st[k][l] = 0.0f;
  }
}

/* ------------------------------------------------------- lane update */

typedef struct bg_return_lane {
  bg_return r;
  bg_lmask ok; /* clear where a sqrt argument was denormal: r may differ */
} bg_return_lane;

/* Material constants of the lane, hoisted out of the chunk loop. */
typedef struct bg_lane_consts {
  bg_lame lame;
  bg_real log_sigma_min; /* logf(BG_SIGMA_MIN), the clamp of bg_log_stretch in strain space */
  bg_lmask plastic, vc, fixed_corotated;
} bg_lane_consts;

BG_HD bg_lane_consts bg_lane_consts_make(const bg_elasticity_c *m) {
  bg_lane_consts c;
  c.lame = m->lame;
  c.log_sigma_min = logf(BG_SIGMA_MIN);
  c.plastic = bg_lane_mask_(m->plastic);
  c.vc = bg_lane_mask_(m->volume_correction);
  c.fixed_corotated = bg_lane_mask_(m->law == BG_LAW_FIXED_COROTATED);
  return c;
}

typedef struct bg_lane_out {
  bg_lane_m3 f;   /* F after the update (F_trial where ok is clear) */
  bg_real tau[6]; /* Kirchhoff stress xx yy zz xy xz yz (meaningless where ok is clear) */
  bg_real log_jp, q; /* updated (the inputs where ok is clear) */
  int mode;          /* BG_RM_* */
  bg_lmask ok;       /* certification: where clear, re-run the scalar update on the inputs */
} bg_lane_out;

/* BG_MATERIAL_LANE_UPDATE(name) defines, for a model with the lane hooks
 *   bg_<name>_lane_aux(c, q)  a per-particle scalar evaluated in a scalar
 *                             pre-pass (what needs libm calls; 0 if unused),
 *   bg_<name>_return_lane(k, c, dt, aux, eps, log_jp)  its return map on lanes,
 * the one-lane update bg_<name>_update_lane (SVD, log strain, return map,
 * exp, stress, reassembly, restated from BG_MATERIAL_SCALAR_UPDATE) and the
 * chunk driver bg_<name>_update_chunk: the vector lanes first, then the
 * model's scalar bg_<name>_update on every lane they could not certify.
 * The lanes carry the sand layout of the state (BG_STATE_LOG_JP, BG_STATE_Q)
 * (returns how many). Lanes len .. BG_BATCH_CHUNK-1 are scratch. */
#define BG_MATERIAL_LANE_UPDATE(name) \
BG_LANE bg_lane_out bg_##name##_update_lane(const bg_lane_consts *c, const bg_##name##_c *mc, bg_real dt,            \
                                            bg_real aux, bg_lane_m3 f, bg_real log_jp, bg_real q) {                  \
  bg_lane_out o;                                                                                                     \
  bg_lane_svd d = bg_lane_svd_core_(f);                                                                              \
  const bg_real *u = d.u.e, *v = d.v.e, *sg = d.s;                                                                   \
  /* the columns are unsorted, so a reflection could land on any of them:                                            \
   * inverted elements (det F < 0) go to the scalar path */                                                          \
  bg_lmask ok = d.ok & bg_lane_gt_(bg_lane_det3_(u), 0.5f);                                                          \
  ok &= bg_lane_le_(fabsf(log_jp), FLT_MAX) & bg_lane_le_(fabsf(q), FLT_MAX);                                        \
                                                                                                                     \
  bg_vec3 eps;                                                                                                       \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i) eps.v[i] = bg_lane_log_(bg_lane_max_(sg[i], BG_SIGMA_MIN));                            \
  bg_return_lane rl = bg_##name##_return_lane(c, mc, dt, aux, eps, log_jp);                                          \
  ok &= rl.ok;                                                                                                       \
                                                                                                                     \
  bg_lmask pl = c->plastic;                                                                                          \
  bg_vec3 sn, et;                                                                                                    \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i) {                                                                                      \
    ok &= ~pl | bg_lane_le_(fabsf(rl.r.eps.v[i]), BG_BATCH_EPS_MAX);                                                 \
    sn.v[i] = bg_lane_sel_(pl, bg_lane_exp_(rl.r.eps.v[i]), sg[i]);                                                  \
    /* Hencky from the strain itself: log(max(exp(eps), SIGMA_MIN)) */                                               \
    et.v[i] = bg_lane_sel_(pl, bg_lane_max_(rl.r.eps.v[i], c->log_sigma_min), eps.v[i]);                             \
  }                                                                                                                  \
  bg_vec3 th = bg_tau_hencky_eps_lane(et, c->lame);                                                                  \
  bg_vec3 tf = bg_tau_fixed_corotated_lane(sn, c->lame);                                                             \
  bg_vec3 t;                                                                                                         \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i) t.v[i] = bg_lane_sel_(c->fixed_corotated, tf.v[i], th.v[i]);                           \
                                                                                                                     \
  bg_lmask upd = ok & pl;                                                                                            \
  /* U diag(sn) and U diag(t), column by column */                                                                   \
  bg_real us[9], ut[9];                                                                                              \
  BG_UNROLL                                                                                                          \
  for (int e = 0; e < 9; ++e) {                                                                                      \
    us[e] = u[e] * sn.v[e % 3];                                                                                      \
    ut[e] = u[e] * t.v[e % 3];                                                                                       \
  }                                                                                                                  \
  BG_UNROLL                                                                                                          \
  for (int i = 0; i < 3; ++i)                                                                                        \
    BG_UNROLL                                                                                                        \
    for (int j = 0; j < 3; ++j) {                                                                                    \
      bg_real x = BG_LANE_FMA(us[3 * i + 0], v[3 * j + 0],                                                           \
                              BG_LANE_FMA(us[3 * i + 1], v[3 * j + 1], us[3 * i + 2] * v[3 * j + 2]));               \
      o.f.e[3 * i + j] = bg_lane_sel_(upd, x, f.e[3 * i + j]);                                                       \
    }                                                                                                                \
  o.log_jp = bg_lane_sel_(upd, rl.r.log_jp, log_jp);                                                                 \
  o.q = bg_lane_sel_(upd, q + rl.r.dq, q);                                                                           \
  o.mode = (int)((bg_lmask)rl.r.mode & pl);                                                                          \
  /* U diag(t) U^T, upper triangle */                                                                                \
  BG_UNROLL                                                                                                          \
  for (int k = 0; k < 6; ++k) {                                                                                      \
    int i = (k < 3) ? k : (k == 5) ? 1 : 0;                                                                          \
    int j = (k < 3) ? k : (k == 3) ? 1 : 2;                                                                          \
    o.tau[k] = BG_LANE_FMA(ut[3 * i + 0], u[3 * j + 0],                                                              \
                           BG_LANE_FMA(ut[3 * i + 1], u[3 * j + 1], ut[3 * i + 2] * u[3 * j + 2]));                  \
  }                                                                                                                  \
  o.ok = ok;                                                                                                         \
  return o;                                                                                                          \
}                                                                                                                    \
                                                                                                                     \
BG_BATCH_DRIVER int bg_##name##_update_chunk(const bg_elasticity_c *el, const bg_##name##_c *m, bg_real dt,          \
                                             bg_mat_chunk *c, int len) {                                             \
  bg_lane_consts k = bg_lane_consts_make(el);                                                                        \
  bg_real aux[BG_BATCH_CHUNK];                                                                                       \
  int bad[BG_BATCH_CHUNK];                                                                                           \
  int fell_back = 0;                                                                                                 \
  if (len <= 0) return 0;                                                                                            \
  if (len > BG_BATCH_CHUNK) len = BG_BATCH_CHUNK;                                                                    \
  bg_mat_chunk_pad(c, len);                                                                                          \
  for (int l = 0; l < BG_BATCH_CHUNK; ++l) aux[l] = bg_##name##_lane_aux(m, c->st[BG_STATE_Q][l]);                   \
  BG_SIMD_LOOP                                                                                                       \
  for (int l = 0; l < BG_BATCH_CHUNK; ++l) {                                                                         \
    bg_lane_m3 f;                                                                                                    \
    BG_UNROLL                                                                                                        \
    for (int e = 0; e < 9; ++e) f.e[e] = c->F[e][l];                                                                 \
    bg_lane_out o = bg_##name##_update_lane(&k, m, dt, aux[l], f, c->st[BG_STATE_LOG_JP][l], c->st[BG_STATE_Q][l]);  \
    BG_UNROLL                                                                                                        \
    for (int e = 0; e < 9; ++e) c->F[e][l] = o.f.e[e];                                                               \
    BG_UNROLL                                                                                                        \
    for (int e = 0; e < 6; ++e) c->tau[e][l] = o.tau[e];                                                             \
    c->st[BG_STATE_LOG_JP][l] = o.log_jp;                                                                            \
    c->st[BG_STATE_Q][l] = o.q;                                                                                      \
    c->mode[l] = o.mode;                                                                                             \
    bad[l] = (int)(~o.ok & 1u);                                                                                      \
  }                                                                                                                  \
  for (int l = 0; l < len; ++l) {                                                                                    \
    if (!bad[l]) continue;                                                                                           \
    bg_mat3 Fm, Cm, tm;                                                                                              \
    bg_real st[BG_NSTATE];                                                                                           \
    bg_update_ctx u = bg_mat_chunk_lane_ctx(c, l, &Fm, &Cm, st, &tm);                                                \
    u.dt = dt;                                                                                                       \
    c->mode[l] = bg_##name##_update(el, m, &u);                                                                      \
    bg_mat_chunk_lane_put(c, l, &u);                                                                                 \
    ++fell_back;                                                                                                     \
  }                                                                                                                  \
  return fell_back;                                                                                                  \
}                                                                                                                    \
  /* end of BG_MATERIAL_LANE_UPDATE */

#endif /* BG_LANE_H */
