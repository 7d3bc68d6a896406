/* bg_bspline.h: quadratic B-spline weights and gradients, the MLS-MPM
 * interpolation kernel (support 3 nodes per axis). */
#ifndef BG_BSPLINE_H
#define BG_BSPLINE_H

#include "bg_defs.h"

/* Per-axis weights for a particle at grid coordinate xg (position in units of
 * dx from node 0). base is the lowest stencil node, fx = xg - base in
 * [0.5, 1.5), so the three nodes base, base+1, base+2 lie at distances
 * fx, fx-1, fx-2. */
typedef struct bg_bspline {
  int base[3];
  bg_real fx[3];
  bg_real w[3][3];  /* w[axis][node] */
  bg_real dw[3][3]; /* d w / d xg, per axis and node (multiply by 1/dx for d/dx) */
} bg_bspline;

BG_HD void bg_bspline_axis(bg_real fx, bg_real *w, bg_real *dw) {
  bg_real a = 1.5f - fx, b = fx - 1.0f, c = fx - 0.5f;
  w[0] = 0.5f * a * a;
  w[1] = 0.75f - b * b;
  w[2] = 0.5f * c * c;
  dw[0] = -a;
  dw[1] = -2.0f * b;
  dw[2] = c;
}

BG_HD bg_bspline bg_bspline_eval(const bg_real xg[3]) {
  bg_bspline s;
  for (int d = 0; d < 3; ++d) {
    /* floor(xg - 0.5) puts fx in [0.5, 1.5): the particle sits nearest node base+1 */
    s.base[d] = bg_floor_int(xg[d] - 0.5f);
    s.fx[d] = xg[d] - (bg_real)s.base[d];
    bg_bspline_axis(s.fx[d], s.w[d], s.dw[d]);
  }
  return s;
}

/* Plane strain (a 2D simulation in x-z): the y axis collapses onto the
 * plane's one node layer. The particle sits on stencil node b = 1 (grid
 * node base[1] + 1 = 0) with weight 1, zero gradient and zero offset
 * (fx = 1), so the 3D formulas give the 9-node 2D stencil when the loops
 * over b visit only b = 1 (bg_stencil_b0/b1). */
BG_HD void bg_bspline_plane(bg_bspline *s) {
  s->base[1] = -1;
  s->fx[1] = 1.0f;
  for (int k = 0; k < 3; ++k) {
    s->w[1][k] = k == 1 ? 1.0f : 0.0f;
    s->dw[1][k] = 0.0f;
  }
}

/* The stencil in dim 3, or 2 (plane strain, bg_bspline_plane). */
BG_HD bg_bspline bg_bspline_eval_dim(const bg_real xg[3], int dim) {
  bg_bspline s = bg_bspline_eval(xg);
  if (dim == 2) bg_bspline_plane(&s);
  return s;
}

/* Weight of stencil node (a, b, c), each in {0,1,2}. */
BG_HD bg_real bg_bspline_weight(const bg_bspline *s, int a, int b, int c) {
  return s->w[0][a] * s->w[1][b] * s->w[2][c];
}

/* Gradient of that weight with respect to xg (divide by dx for 1/m). */
BG_HD bg_vec3 bg_bspline_grad(const bg_bspline *s, int a, int b, int c) {
  bg_vec3 g;
  g.v[0] = s->dw[0][a] * s->w[1][b] * s->w[2][c];
  g.v[1] = s->w[0][a] * s->dw[1][b] * s->w[2][c];
  g.v[2] = s->w[0][a] * s->w[1][b] * s->dw[2][c];
  return g;
}

#endif /* BG_BSPLINE_H */
