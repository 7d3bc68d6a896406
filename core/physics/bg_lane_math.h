/* bg_lane_math.h: the lane basics every vectorised constitutive update is
 * written with (bg_lane.h gathers the toolkit): branch-free float selects,
 * square roots, log and exp.
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
 * per-thread code (with hardware sqrt on the device); the drivers and the
 * chunk are in bg_lane.h. */
#ifndef BG_LANE_MATH_H
#define BG_LANE_MATH_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bg_defs.h"

/* Principal log strains the fast exp accepts, |eps| <= this. */
#define BG_BATCH_EPS_MAX 80.0f

#if defined(__CUDACC__)
#define BG_LANE static __forceinline__ __host__ __device__
#elif defined(__GNUC__)
#define BG_LANE static inline __attribute__((always_inline))
#else
#define BG_LANE static inline
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

#endif /* BG_LANE_MATH_H */
