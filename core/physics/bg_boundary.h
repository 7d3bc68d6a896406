/* bg_boundary.h: the grid-node boundary condition every collider applies
 * (Coulomb friction against a wall moving at constant velocity), and the
 * node update of MLS-MPM. Shared by every backend. */
#ifndef BG_BOUNDARY_H
#define BG_BOUNDARY_H

#include "bg_defs.h"

enum { BG_BC_COULOMB = 0, BG_BC_SLIP = 1, BG_BC_STICK = 2, BG_BC_OPEN = 3 };

/* One solid node: the deepest collider it lies in (with that collider's
 * outward normal), and every domain face whose layers hold it. Faces are a
 * bit mask because edge and corner nodes of the box lie in two or three
 * faces at once and must obey all of them. */
typedef struct bg_bnode {
  int64_t node;
  bg_real n[3];
  bg_real vw[3];    /* the collider's velocity at this node: a rigid body's
                       v + omega x r differs from node to node */
  int32_t collider; /* -1: none */
  int32_t faces;    /* bit f set: face f (-x, +x, -y, +y, -z, +z) applies */
} bg_bnode;

/* Each wall's tally over a step, in doubles: the force the material put on
 * it (3), then that force's moment about the grid's origin (3), from which
 * the front end takes a rigid body's torque about its own centre. */
#define BG_WALL_TALLY 6

typedef struct bg_wallc {
  int type;     /* BG_BC_* */
  bg_real mu;   /* Coulomb coefficient */
  bg_real v[3]; /* wall velocity */
} bg_wallc;

/* The node update of MLS-MPM: g holds mass then momentum; a node with mass
 * gets velocity = momentum / mass plus gravity dt (gdt). Empty nodes keep
 * what they hold (zeros). */
BG_HD void bg_node_update(bg_real g[4], const bg_real gdt[3]) {
  if (g[0] > 0.0f) {
    bg_real inv = 1.0f / g[0];
    g[1] = g[1] * inv + gdt[0];
    g[2] = g[2] * inv + gdt[1];
    g[3] = g[3] * inv + gdt[2];
  }
}

/* Velocity of a solid node after contact. Only an approaching relative
 * velocity (v_n < 0) is touched: sand may separate freely from a wall. The
 * tangential part shrinks by mu |v_n| and stops, never reverses. */
BG_HD void bg_wall_apply(const bg_wallc *w, const bg_real vw[3], const bg_real n[3], bg_real v[3]) {
  if (w->type == BG_BC_OPEN) return;
  if (w->type == BG_BC_STICK) {
    for (int d = 0; d < 3; ++d) v[d] = vw[d];
    return;
  }
  bg_real r[3];
  for (int d = 0; d < 3; ++d) r[d] = v[d] - vw[d];
  bg_real vn = r[0] * n[0] + r[1] * n[1] + r[2] * n[2];
  if (vn >= 0.0f) return;
  bg_real t[3];
  for (int d = 0; d < 3; ++d) t[d] = r[d] - vn * n[d];
  if (w->type == BG_BC_COULOMB && w->mu > 0.0f) {
    bg_real tn = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    bg_real k = tn > 0.0f ? fmaxf(0.0f, 1.0f - w->mu * (-vn) / tn) : 0.0f;
    for (int d = 0; d < 3; ++d) t[d] *= k;
  }
  for (int d = 0; d < 3; ++d) v[d] = vw[d] + t[d];
}

/* Grid damping for quasi-static preparation: the factor a node velocity is
 * multiplied by after the node update, exp(-rate dt) (1 when off). */
BG_HD bg_real bg_damping_factor(bg_real rate, bg_real dt) { return rate > 0.0f ? expf(-rate * dt) : 1.0f; }

/* What one solid node's conditions did: at most its collider and three
 * faces act, each changing the node's velocity by dv. The momentum m dv a
 * wall gives the material is, over dt, minus the force the material puts
 * on that wall (bg_sim_wall_forces). */
#define BG_BNODE_MAX_WALLS 4
typedef struct bg_bnode_effect {
  int n;
  int wall[BG_BNODE_MAX_WALLS]; /* index into walls */
  bg_real dv[BG_BNODE_MAX_WALLS][3];
} bg_bnode_effect;

/* The entry of node in a list ascending in node, or -1: where the rigid
 * bodies' nodes come apart from the walls' (bg_backend_ops.set_body_nodes),
 * a walls' entry that the bodies' list also holds is passed over. */
BG_HD int64_t bg_bnode_find(const bg_bnode *l, int64_t n, int64_t node) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (l[mid].node < node) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && l[lo].node == node ? lo : -1;
}

/* All conditions of one solid node: its collider, then each face. walls
 * holds the user colliders first and the six faces after them. When eff is
 * not NULL it receives each wall's velocity change. */
BG_HD void bg_bnode_apply(const bg_bnode *b, const bg_wallc *walls, int n_colliders, bg_real v[3],
                          bg_bnode_effect *eff) {
  if (eff) eff->n = 0;
  for (int f = -1; f < 6; ++f) {
    int w;
    bg_real n[3] = {0.0f, 0.0f, 0.0f};
    const bg_real *vw;
    if (f < 0) {
      if (b->collider < 0) continue;
      w = b->collider;
      for (int d = 0; d < 3; ++d) n[d] = b->n[d];
      vw = b->vw;
    } else {
      if (!(b->faces & (1 << f))) continue;
      w = n_colliders + f;
      n[f / 2] = (f % 2) ? -1.0f : 1.0f; /* inward, away from the face */
      vw = walls[w].v;
    }
    bg_real v0[3] = {v[0], v[1], v[2]};
    bg_wall_apply(&walls[w], vw, n, v);
    if (eff && eff->n < BG_BNODE_MAX_WALLS) {
      eff->wall[eff->n] = w;
      for (int d = 0; d < 3; ++d) eff->dv[eff->n][d] = v[d] - v0[d];
      eff->n++;
    }
  }
}

/* Adds to tally (BG_WALL_TALLY doubles per wall) what one solid node's
 * conditions did: each wall's force m dv / dt, negated (the momentum the
 * wall gave the node is minus what the node gave the wall), and its moment
 * about the origin, x_node x force. xn: the node's position relative to
 * the grid's origin (the moment is about that point; the front end moves
 * it to a body's centre). */
BG_HD void bg_wall_tally_add(double *tally, const bg_bnode_effect *eff, bg_real m, double inv_dt,
                             const double xn[3]) {
  for (int e = 0; e < eff->n; ++e) {
    double f[3];
    for (int d = 0; d < 3; ++d) f[d] = -(double)m * eff->dv[e][d] * inv_dt;
    double *t = tally + BG_WALL_TALLY * eff->wall[e];
    t[0] += f[0];
    t[1] += f[1];
    t[2] += f[2];
    t[3] += xn[1] * f[2] - xn[2] * f[1];
    t[4] += xn[2] * f[0] - xn[0] * f[2];
    t[5] += xn[0] * f[1] - xn[1] * f[0];
  }
}

/* A node's position relative to the grid's origin, from its index
 * ((i ny + j) nz + k). */
BG_HD void bg_node_offset(int64_t node, const int64_t dims[3], double dx, double xn[3]) {
  const int64_t k = node % dims[2], r = node / dims[2];
  const int64_t j = r % dims[1], i = r / dims[1];
  xn[0] = (double)i * dx;
  xn[1] = (double)j * dx;
  xn[2] = (double)k * dx;
}

#endif /* BG_BOUNDARY_H */
