/* bg_cut.h: thin rigid plates that cut the material, by compatible
 * particle-in-cell (CPIC, Hu et al. 2018, "A moving least squares material
 * point method with displacement discontinuity and two-way rigid body
 * coupling", sec. 4). A plate has no thickness on the grid: no node lies
 * inside it, so the solid-node contact of thick bodies cannot hold material
 * back. Instead a particle and a node whose joining segment crosses the
 * plate do not exchange anything:
 *   - P2G skips the pair (no mass, momentum or stress reaches the node);
 *   - G2P reads, in place of such a node's velocity, the particle's own
 *     velocity after the plate's contact law (a "ghost" node: the
 *     particle's approach toward the plate removed, friction applied);
 *   - the nodes beside the plate, on either side, get the plate's contact
 *     with the normal of their own side (the front end lists them with the
 *     bodies' solid nodes), which stops the material that reaches them and
 *     gives the plate its force.
 * The rule is geometric and stateless (no side is stored per particle), so
 * material flows round a plate's free edges. Shared by the CPU backends;
 * the same text compiles for CUDA (BG_HD). */
#ifndef BG_CUT_H
#define BG_CUT_H

#include "bg_boundary.h"
#include "bg_bspline.h"
#include "bg_defs.h"

/* At most this many plates per simulation: every particle near one tests
 * each, and a stencil node records which plate cut it in a byte. */
#define BG_CUT_MAX 16

/* One plate as a step sees it (the front end fills it from the body's pose
 * before each step). */
typedef struct bg_cut {
  bg_real c[3];       /* centre, m */
  bg_real n[3];       /* unit normal: its + side is where n points */
  bg_real u[3], t[3]; /* in-plane unit axes */
  bg_real hu, ht;     /* half-extents along u and t, m; ht < 0: unbounded (2D: the plate spans y) */
  bg_real v[3], w[3]; /* the centre's velocity (m/s) and the angular velocity (rad/s) */
  int32_t wall;       /* its entry in the walls (the contact law: friction, mu) */
} bg_cut;

/* The grid a stencil lives on, as the transfers need it. */
typedef struct bg_cut_grid {
  int64_t dims[3];
  bg_real origin[3];
  bg_real dx;
  int dim; /* 3, or 2: the plane's one node layer in y */
} bg_cut_grid;

BG_HD bg_real bg_cut_dot(const bg_real a[3], const bg_real b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Signed distance of x from the plate's plane. */
BG_HD bg_real bg_cut_dist(const bg_cut *k, const bg_real x[3]) {
  const bg_real q[3] = {x[0] - k->c[0], x[1] - k->c[1], x[2] - k->c[2]};
  return bg_cut_dot(k->n, q);
}

/* Whether the point x of the plate's plane lies on the plate (within slack
 * of its edges). */
BG_HD int bg_cut_on(const bg_cut *k, const bg_real x[3], bg_real slack) {
  const bg_real q[3] = {x[0] - k->c[0], x[1] - k->c[1], x[2] - k->c[2]};
  if (fabsf(bg_cut_dot(k->u, q)) > k->hu + slack) return 0;
  return k->ht < 0.0f || fabsf(bg_cut_dot(k->t, q)) <= k->ht + slack;
}

/* Whether the plate separates a (at signed distance da) from b (db): they
 * lie on different sides (0 counts as the + side) and the segment between
 * them meets the plane on the plate. */
BG_HD int bg_cut_separates(const bg_cut *k, const bg_real a[3], bg_real da, const bg_real b[3],
                           bg_real db) {
  if ((da >= 0.0f) == (db >= 0.0f)) return 0;
  const bg_real s = da / (da - db);
  const bg_real x[3] = {a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]),
                        a[2] + s * (b[2] - a[2])};
  return bg_cut_on(k, x, 0.0f);
}

/* Whether a plate can cut any node of the stencil of a particle at x: its
 * nodes lie within 1.5 dx of it per axis. */
BG_HD int bg_cut_near(const bg_cut *k, const bg_real x[3], bg_real dx) {
  const bg_real reach = 1.5f * dx * (fabsf(k->n[0]) + fabsf(k->n[1]) + fabsf(k->n[2]));
  if (fabsf(bg_cut_dist(k, x)) > reach) return 0;
  return bg_cut_on(k, x, 2.6f * dx); /* 1.5 sqrt(3) dx: the farthest node */
}

/* The plate's velocity at x: v + w x (x - c). */
BG_HD void bg_cut_velocity(const bg_cut *k, const bg_real x[3], bg_real out[3]) {
  const bg_real r[3] = {x[0] - k->c[0], x[1] - k->c[1], x[2] - k->c[2]};
  out[0] = k->v[0] + k->w[1] * r[2] - k->w[2] * r[1];
  out[1] = k->v[1] + k->w[2] * r[0] - k->w[0] * r[2];
  out[2] = k->v[2] + k->w[0] * r[1] - k->w[1] * r[0];
}

/* The ghost velocity a particle at xp moving at vp reads at the nodes a
 * plate cuts off: vp under the plate's contact law with the normal of the
 * particle's side, so that it may slide along the plate or leave it, never
 * approach it. */
BG_HD void bg_cut_ghost(const bg_cut *k, const bg_wallc *walls, const bg_real xp[3],
                        const bg_real vp[3], bg_real g[3]) {
  const bg_real sgn = bg_cut_dist(k, xp) >= 0.0f ? 1.0f : -1.0f;
  const bg_real n[3] = {sgn * k->n[0], sgn * k->n[1], sgn * k->n[2]};
  bg_real vw[3];
  bg_cut_velocity(k, xp, vw);
  for (int d = 0; d < 3; ++d) g[d] = vp[d];
  bg_wall_apply(&walls[k->wall], vw, n, g);
}

/* Which of the particle's 27 stencil nodes (bit 9 a + 3 b + k) some plate
 * separates from it, and by[] which plate (the first in the list that
 * does). 0 when none is near: the transfers then take their usual path. */
typedef struct bg_cut_stencil {
  uint32_t cut;
  int8_t by[27];
} bg_cut_stencil;

BG_HD void bg_cut_stencil_eval(const bg_cut *cuts, int n_cuts, const bg_cut_grid *G,
                               const bg_bspline *w, const bg_real xp[3], bg_cut_stencil *out) {
  out->cut = 0;
  const int b0 = G->dim == 2 ? 1 : 0, b1 = G->dim == 2 ? 1 : 2;
  for (int j = 0; j < n_cuts; ++j) {
    const bg_cut *k = &cuts[j];
    if (!bg_cut_near(k, xp, G->dx)) continue;
    const bg_real dp = bg_cut_dist(k, xp);
    for (int a = 0; a < 3; ++a)
      for (int b = b0; b <= b1; ++b)
        for (int c = 0; c < 3; ++c) {
          const int bit = 9 * a + 3 * b + c;
          if (out->cut & (1u << bit)) continue;
          const int o[3] = {a, b, c};
          bg_real xi[3];
          for (int d = 0; d < 3; ++d) xi[d] = xp[d] + ((bg_real)o[d] - w->fx[d]) * G->dx;
          if (bg_cut_separates(k, xp, dp, xi, bg_cut_dist(k, xi))) {
            out->cut |= 1u << bit;
            out->by[bit] = (int8_t)j;
          }
        }
  }
}

/* Whether any plate is near the particle at xp (the cheap test first). */
BG_HD int bg_cut_any_near(const bg_cut *cuts, int n_cuts, const bg_real xp[3], bg_real dx) {
  for (int j = 0; j < n_cuts; ++j)
    if (bg_cut_near(&cuts[j], xp, dx)) return 1;
  return 0;
}

BG_HD int64_t bg_cut_node(const bg_cut_grid *G, const bg_bspline *w, int a, int b, int c) {
  return ((int64_t)(w->base[0] + a) * G->dims[1] + (w->base[1] + b)) * G->dims[2] +
         (w->base[2] + c);
}

/* A sum that threads share (a grid node, a tally): atomic on the device. */
BG_HD void bg_cut_addf(bg_real *a, bg_real v) {
#ifdef __CUDA_ARCH__
  atomicAdd(a, v);
#else
  *a += v;
#endif
}
BG_HD void bg_cut_addd(double *a, double v) {
#ifdef __CUDA_ARCH__
  atomicAdd(a, v);
#else
  *a += v;
#endif
}

/* Adds to plate j's wall tally (BG_WALL_TALLY doubles per wall, as
 * bg_wall_tally_add) the force f at stencil node (a, b, c): its moment is
 * taken about the grid's origin, from the node's offset. */
BG_HD void bg_cut_tally(double *tally, const bg_cut *k, const bg_cut_grid *G, const bg_bspline *w,
                        int a, int b, int c, const double f[3]) {
  if (!tally) return;
  const int o[3] = {a, b, c};
  double xn[3];
  for (int d = 0; d < 3; ++d) xn[d] = (double)(w->base[d] + o[d]) * (double)G->dx;
  double *t = tally + BG_WALL_TALLY * k->wall;
  bg_cut_addd(&t[0], f[0]);
  bg_cut_addd(&t[1], f[1]);
  bg_cut_addd(&t[2], f[2]);
  bg_cut_addd(&t[3], xn[1] * f[2] - xn[2] * f[1]);
  bg_cut_addd(&t[4], xn[2] * f[0] - xn[0] * f[2]);
  bg_cut_addd(&t[5], xn[0] * f[1] - xn[1] * f[0]);
}

/* P2G of one particle whose stencil a plate cuts (cs.cut != 0): the usual
 * scatter of mass m and momentum m vp + A dpos (A from bg_p2g_affine) to
 * the nodes on its side only; grid holds (mass, momentum) per node. With
 * gs not NULL, the nonlocal service's sums too (gs += w m s, gm += w m).
 * What the cut nodes would have received stays with the plate: over dt it
 * is a force on it, added to tally (NULL: not kept); with what G2P's
 * ghosts give back (bg_cut_g2p), the momentum of material and plate is
 * conserved. */
BG_HD void bg_cut_p2g(const bg_cut_grid *G, const bg_cut_stencil *cs, const bg_bspline *w,
                      bg_real (*grid)[4], bg_real m, const bg_real vp[3], const bg_mat3 *A,
                      bg_real *gs, bg_real *gm, bg_real sval, const bg_cut *cuts, double *tally,
                      double inv_dt) {
  const int b0 = G->dim == 2 ? 1 : 0, b1 = G->dim == 2 ? 1 : 2;
  for (int a = 0; a < 3; ++a)
    for (int b = b0; b <= b1; ++b)
      for (int c = 0; c < 3; ++c) {
        const int bit = 9 * a + 3 * b + c, o[3] = {a, b, c};
        bg_real dpos[3];
        for (int d = 0; d < 3; ++d) dpos[d] = ((bg_real)o[d] - w->fx[d]) * G->dx;
        if (cs->cut & (1u << bit)) {
          const bg_real wt = bg_bspline_weight(w, a, b, c);
          double f[3];
          for (int d = 0; d < 3; ++d)
            f[d] =
                (double)wt *
                (m * vp[d] + A->m[d][0] * dpos[0] + A->m[d][1] * dpos[1] + A->m[d][2] * dpos[2]) *
                inv_dt;
          bg_cut_tally(tally, &cuts[cs->by[bit]], G, w, a, b, c, f);
          continue;
        }
        const int64_t i = bg_cut_node(G, w, a, b, c);
        const bg_real wt = bg_bspline_weight(w, a, b, c);
        bg_cut_addf(&grid[i][0], wt * m);
        for (int d = 0; d < 3; ++d)
          bg_cut_addf(&grid[i][1 + d], wt * (m * vp[d] + A->m[d][0] * dpos[0] +
                                             A->m[d][1] * dpos[1] + A->m[d][2] * dpos[2]));
        if (gs) bg_cut_addf(&gs[i], wt * m * sval);
        if (gs && gm) bg_cut_addf(&gm[i], wt * m);
      }
}

/* G2P's gather for the same particle (mass m): the new velocity v and the
 * APIC matrix C = (4 / dx^2) sum w v dpos^T, each cut node read as the
 * ghost velocity of the plate that cut it; the momentum the ghosts give
 * the particle, over dt, is minus a force on that plate (tally). */
BG_HD void bg_cut_g2p(const bg_cut_grid *G, const bg_cut_stencil *cs, const bg_bspline *w,
                      const bg_real (*grid)[4], const bg_cut *cuts, const bg_wallc *walls,
                      const bg_real xp[3], const bg_real vp[3], bg_real m, bg_real v[3], bg_mat3 *C,
                      double *tally, double inv_dt) {
  const int b0 = G->dim == 2 ? 1 : 0, b1 = G->dim == 2 ? 1 : 2;
  const bg_real k4 = 4.0f / (G->dx * G->dx);
  bg_real ghost[BG_CUT_MAX][3];
  uint32_t have = 0;
  for (int d = 0; d < 3; ++d) v[d] = 0.0f;
  *C = bg_mat3_zero();
  for (int a = 0; a < 3; ++a)
    for (int b = b0; b <= b1; ++b)
      for (int c = 0; c < 3; ++c) {
        const int bit = 9 * a + 3 * b + c, o[3] = {a, b, c};
        bg_real dpos[3];
        for (int d = 0; d < 3; ++d) dpos[d] = ((bg_real)o[d] - w->fx[d]) * G->dx;
        const bg_real *gv;
        if (cs->cut & (1u << bit)) {
          const int j = cs->by[bit];
          if (!(have & (1u << j))) {
            bg_cut_ghost(&cuts[j], walls, xp, vp, ghost[j]);
            have |= 1u << j;
          }
          gv = ghost[j];
          const double wm = (double)bg_bspline_weight(w, a, b, c) * m * inv_dt;
          const double f[3] = {-wm * gv[0], -wm * gv[1], -wm * gv[2]};
          bg_cut_tally(tally, &cuts[j], G, w, a, b, c, f);
        } else {
          gv = grid[bg_cut_node(G, w, a, b, c)] + 1;
        }
        const bg_real wt = bg_bspline_weight(w, a, b, c);
        for (int d = 0; d < 3; ++d) {
          const bg_real wv = wt * gv[d];
          v[d] += wv;
          for (int e = 0; e < 3; ++e) C->m[d][e] += wv * dpos[e];
        }
      }
  for (int e = 0; e < 9; ++e) C->m[e / 3][e % 3] *= k4;
}

#endif /* BG_CUT_H */
