/* bg_mat_water.h: weakly compressible water, taichi_mpm's `water` particle
 * (Tait's equation of state) with an optional Newtonian viscosity; a
 * registered model (this header is the whole of it:
 * core/physics/materials/README.md). With J = det F the volume ratio,
 *   p = k ((1/J)^gamma - 1),                       (Cauchy pressure)
 *   tau = -J p I + J mu dev(C + C^T),               (Kirchhoff stress)
 * C the step's velocity gradient (the APIC matrix), mu the dynamic
 * viscosity. The state is J alone: after each update F = J^(1/3) I. A fluid
 * has no shear memory: kept whole, F would accumulate the flow's shear as
 * if it were elastic (read back as BG_FIELD_F, stretched without bound in a
 * long flow, its float determinant losing the volume). Reduced to J, det F
 * is the volume and BG_FIELD_DENSITY's rho0 / det F reads rho0 / J. No
 * state slot is used.
 * references/derivations/water.md derives it, the wave speed and the
 * hydrostatic column.
 *
 * BG_MATERIAL(5, water, WATER, 0, "water") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_WATER_PARAMS_H
#define BG_MAT_WATER_PARAMS_H

/* bg_water_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_WATER_PARAMS(X)                                                              \
  X(bg_real, bulk_modulus, BG_MATP_REAL) /* k, Pa, > 0 (taichi_mpm's k) */              \
  X(bg_real, gamma, BG_MATP_REAL)        /* Tait exponent, >= 1 (taichi_mpm's gamma) */ \
  X(bg_real, viscosity, BG_MATP_REAL)    /* dynamic viscosity mu, Pa s, >= 0 (0: inviscid) */
BG_MATERIAL_PARAMS_STRUCT(water, BG_WATER_PARAMS)

/* taichi_mpm's water defaults, k 1e5 and gamma 7, taken as 1e5 Pa and 7:
 * its scenes are a unit box under gravity 10, lengths and times near SI, so
 * k is kept in Pa (water.md sec. 4 for why not water's real 2.2e9 Pa);
 * inviscid, as taichi_mpm's water is. */
static inline bg_water_params bg_water_default_params(void) {
  bg_water_params p;
  p.bulk_modulus = 1e5f;
  p.gamma = 7.0f;
  p.viscosity = 0.0f;
  return p;
}

#endif /* BG_MAT_WATER_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_WATER_H)
#define BG_MAT_WATER_H

#include <math.h>
#include <stdio.h>

#include "bg_material_core.h"

/* The smallest volume ratio the CFL's wave speed is taken at (water.md
 * sec. 3): the speed grows as J^((1 - gamma) / 2) under compression. */
#define BG_WATER_J_CFL 0.9f

typedef struct bg_water_c {
  bg_real k, gamma, mu;
} bg_water_c;

/* The Cauchy pressure at volume ratio J (Tait). */
BG_HD bg_real bg_water_pressure(const bg_water_c *c, bg_real J) {
  return c->k * (powf(J, -c->gamma) - 1.0f);
}

/* One particle's update: the pressure of the trial volume, the viscous
 * stress of this step's velocity gradient, and F reduced to its volume. */
BG_HD int bg_water_update(const bg_elasticity_c *el, const bg_water_c *c, bg_update_ctx *u) {
  (void)el;
  bg_real J = bg_mat3_det(*u->F);
  bg_real jp = J * bg_water_pressure(c, J);
  const bg_mat3 *C = u->C;
  bg_real tr = C->m[0][0] + C->m[1][1] + C->m[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      bg_real visc = C->m[i][j] + C->m[j][i] - (i == j ? (2.0f / 3.0f) * tr : 0.0f);
      u->tau->m[i][j] = J * c->mu * visc - (i == j ? jp : 0.0f);
    }
  bg_real s = cbrtf(J);
  *u->F = bg_mat3_zero();
  u->F->m[0][0] = u->F->m[1][1] = u->F->m[2][2] = s;
  return BG_RM_ELASTIC;
}

/* The stress is not a function of F alone: its viscous part is the
 * step's velocity gradient's, and F is reduced to its volume. Returns 0,
 * so a backend that does not keep tau refuses water (bg_materials.h). */
BG_HD int bg_water_stress_of_f(const bg_elasticity_c *el, const bg_water_c *c, const bg_mat3 *F, const bg_real *st,
                               bg_mat3 *tau) {
  (void)el;
  (void)c;
  (void)F;
  (void)st;
  *tau = bg_mat3_zero();
  return 0;
}

/* Local: no slot needs the grid. The viscous term's explicit bound,
 * dt < rho dx^2 / (6 mu), holds under the wave CFL whenever mu is below
 * rho c dx / 1.8 (water.md sec. 3), which water's 1e-3 Pa s is by four
 * orders at the lab's cells; it is not imposed here. */
BG_HD int bg_water_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_water_nonlocal_dt(const bg_water_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the sound speed sqrt(k gamma / rho0) at J = 1, raised to its
 * value at J = BG_WATER_J_CFL, the compression the CFL is safe to
 * (water.md sec. 3). E and nu play no part. */
static inline bg_real bg_water_wave_speed(const bg_material *m) {
  bg_real c0 = sqrtf(m->water.bulk_modulus * m->water.gamma / m->rho0);
  return c0 * powf(BG_WATER_J_CFL, 0.5f * (1.0f - m->water.gamma));
}

/* Host side: water's density, and an E whose isotropic solid (nu 0.3, kept)
 * has the water's tangent bulk modulus k gamma at J = 1: E = 3 k gamma (1 -
 * 2 nu). The stress and the CFL never read E or nu; E only has to pass
 * bg_sim_create's E > 0. */
static inline void bg_water_default_material(bg_material *m) {
  m->rho0 = 1000.0f;
  m->E = 3.0f * m->water.bulk_modulus * m->water.gamma * (1.0f - 2.0f * m->nu);
}

/* No slot: F holds J, the density is rho0 / det F, Jp = 1, q = 0. */
static inline bg_state_desc bg_water_state(void) {
  bg_state_desc d = {{"", "", "", ""}, -1, -1};
  return d;
}

/* Validation, host side: 0 when valid; else 1 (not finite) or 2 (out of
 * range) with the field and its range in msg. nu is not the water's. */
static inline int bg_water_validate(const bg_material *mat, char *msg, size_t len) {
#define BG_WATER_FAIL(code, ...) return (snprintf(msg, len, __VA_ARGS__), (code))
  const bg_water_params *w = &mat->water;
  const char *names[3] = {"bulk_modulus", "gamma", "viscosity"};
  const bg_real vals[3] = {w->bulk_modulus, w->gamma, w->viscosity};
  for (int i = 0; i < 3; ++i)
    if (!isfinite(vals[i]))
      BG_WATER_FAIL(1, "material.water.%s is not finite (got %g)", names[i], (double)vals[i]);
  if (!(w->bulk_modulus > 0))
    BG_WATER_FAIL(2, "material.water.bulk_modulus must be > 0 Pa (got %g)",
                  (double)w->bulk_modulus);
  if (!(w->gamma >= 1))
    BG_WATER_FAIL(2, "material.water.gamma must be >= 1 (got %g)", (double)w->gamma);
  if (!(w->viscosity >= 0))
    BG_WATER_FAIL(2, "material.water.viscosity must be >= 0 Pa s (got %g)", (double)w->viscosity);
  return 0;
#undef BG_WATER_FAIL
}

static inline void bg_water_prepare(const bg_water_params *m, bg_water_c *c) {
  c->k = m->bulk_modulus;
  c->gamma = m->gamma;
  c->mu = m->viscosity;
}

#endif /* BG_MAT_WATER_H */
