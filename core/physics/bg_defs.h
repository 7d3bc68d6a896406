/* bg_defs.h: the one place where host/device qualifiers and the POD types
 * shared by every physics header live. Compiled as C11 (gcc -pedantic) and
 * as CUDA (nvcc) from the same text, so nothing C-only (restrict, VLAs,
 * compound literals) and nothing C++-only may appear here. */
#ifndef BG_DEFS_H
#define BG_DEFS_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define BG_HD static inline __host__ __device__
#else
#define BG_HD static inline
#endif

#ifndef BG_REAL_DEFINED
#define BG_REAL_DEFINED
/* float on both backends: the GPU's working precision defines the oracle's. */
typedef float bg_real;
#endif

/* Row-major 3x3 matrix, m[row][col]. */
typedef struct bg_mat3 {
  bg_real m[3][3];
} bg_mat3;

typedef struct bg_vec3 {
  bg_real v[3];
} bg_vec3;

BG_HD bg_mat3 bg_mat3_zero(void) {
  bg_mat3 a;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.m[i][j] = 0.0f;
  return a;
}

BG_HD bg_mat3 bg_mat3_identity(void) {
  bg_mat3 a = bg_mat3_zero();
  a.m[0][0] = a.m[1][1] = a.m[2][2] = 1.0f;
  return a;
}

BG_HD bg_mat3 bg_mat3_mul(bg_mat3 a, bg_mat3 b) {
  bg_mat3 c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      c.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
  return c;
}

BG_HD bg_mat3 bg_mat3_transpose(bg_mat3 a) {
  bg_mat3 t;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t.m[i][j] = a.m[j][i];
  return t;
}

BG_HD bg_real bg_mat3_det(bg_mat3 a) {
  return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
         a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
         a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}

/* U diag(s) V^T, the reassembly used after every return map. */
BG_HD bg_mat3 bg_mat3_usvt(bg_mat3 u, bg_vec3 s, bg_mat3 v) {
  bg_mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = u.m[i][0] * s.v[0] * v.m[j][0] + u.m[i][1] * s.v[1] * v.m[j][1] +
                  u.m[i][2] * s.v[2] * v.m[j][2];
  return r;
}

/* floor to int without a libm call (floorf is not inlined on baseline
 * x86-64): truncate, then step down for negative non-integers. Exact for
 * |x| < 2^31. */
BG_HD int bg_floor_int(bg_real x) {
  int i = (int)x;
  return i - ((bg_real)i > x);
}

BG_HD bg_real bg_deg2rad(bg_real deg) { return deg * 0.017453292519943295f; }
BG_HD bg_real bg_rad2deg(bg_real rad) { return rad * 57.29577951308232f; }

#endif /* BG_DEFS_H */
