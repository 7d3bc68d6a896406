/* bg_mat_lin.h: a test-only material model, linear elasticity in small
 * strain, kept as the fixture that proves a model is one header: a build
 * that scans this folder (BAGNOLD_EXTRA_MATERIAL_DIRS, the test
 * material.one_header) has the model, any other build does not. With H =
 * F - I the displacement gradient,
 *   eps = (H + H^T) / 2,  sigma = lambda tr(eps) I + 2 mu eps - p0 I,
 * and the Kirchhoff stress is sigma (J = 1 to first order). No state.
 *
 * BG_MATERIAL(900, lin, LIN, 0, "linear-elastic") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_LIN_PARAMS_H
#define BG_MAT_LIN_PARAMS_H

#define BG_LIN_PARAMS(X) X(bg_real, p0, BG_MATP_REAL) /* prestress pressure, Pa, finite */
BG_MATERIAL_PARAMS_STRUCT(lin, BG_LIN_PARAMS)

static inline bg_lin_params bg_lin_default_params(void) {
  bg_lin_params p;
  p.p0 = 0.0f;
  return p;
}

#endif /* BG_MAT_LIN_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_LIN_H)
#define BG_MAT_LIN_H

#include <math.h>
#include <stdio.h>

#include "bg_material_core.h"

typedef struct bg_lin_c {
  bg_real p0;
} bg_lin_c;

BG_HD int bg_lin_update(const bg_elasticity_c *el, const bg_lin_c *c, bg_update_ctx *u) {
  const bg_mat3 *F = u->F;
  bg_real tr = F->m[0][0] + F->m[1][1] + F->m[2][2] - 3.0f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      bg_real eps = 0.5f * (F->m[i][j] + F->m[j][i]) - (i == j ? 1.0f : 0.0f);
      u->tau->m[i][j] = 2.0f * el->lame.mu * eps + (i == j ? el->lame.lambda * tr - c->p0 : 0.0f);
    }
  return BG_RM_ELASTIC;
}

BG_HD int bg_lin_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_lin_nonlocal_dt(const bg_lin_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the P wave bounds the step; no state slot is used. */
static inline bg_real bg_lin_wave_speed(const bg_material *m) { return bg_elasticity_wave_speed(m); }
/* Host side: a default material keeps Klar's elasticity (bg_material_default). */
static inline void bg_lin_default_material(bg_material *m) { (void)m; }
static inline bg_state_desc bg_lin_state(void) {
  bg_state_desc d = {{"", "", "", ""}, -1, -1};
  return d;
}

static inline int bg_lin_validate(const bg_material *m, char *msg, size_t len) {
  int bad = bg_elasticity_validate(m, msg, len);
  if (bad) return bad;
  if (!isfinite(m->lin.p0))
    return snprintf(msg, len, "material.lin.p0 is not finite (got %g)", (double)m->lin.p0), 1;
  return 0;
}

static inline void bg_lin_prepare(const bg_lin_params *m, bg_lin_c *c) { c->p0 = m->p0; }

#endif /* BG_MAT_LIN_H */
