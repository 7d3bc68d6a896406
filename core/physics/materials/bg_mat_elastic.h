/* bg_mat_elastic.h: a hyperelastic solid with no plasticity, taichi_mpm's
 * "jelly", a registered model (this header is the whole of it:
 * core/physics/materials/README.md). Two laws, in Kirchhoff stress
 * tau = P F^T (references/derivations/elastic.md):
 *   neo-Hookean (compressible): tau = mu (F F^T - I) + lambda ln J I;
 *   fixed corotated (Stomakhin et al. 2013): tau = 2 mu (F - R) F^T
 *     + lambda (J - 1) J I, with R the rotation of F's polar decomposition.
 * F is the whole deformation gradient (nothing is returned to a yield
 * surface) and no state slot is used. E, nu and rho0 are the common
 * material's; a default jelly has taichi_mpm's E 1e5 and nu 0.3, read as
 * Pa, and rho0 1000 kg/m^3 (bg_elastic_default_material).
 *
 * BG_MATERIAL(3, elastic, ELASTIC, 0, "elastic") */

/* ---- parameters (public: bagnold.h includes this part alone) ---- */
#ifndef BG_MAT_ELASTIC_PARAMS_H
#define BG_MAT_ELASTIC_PARAMS_H

/* The hyperelastic law of the elastic model. */
typedef enum bg_elastic_law {
  BG_ELASTIC_NEO_HOOKEAN = 0,    /* mu (F F^T - I) + lambda ln J I */
  BG_ELASTIC_FIXED_COROTATED = 1 /* Stomakhin 2013: taichi_mpm's jelly (the default) */
} bg_elastic_law;

/* bg_elastic_params, one X(type, name, kind) per field (bagnold.h) */
#define BG_ELASTIC_PARAMS(X) X(bg_elastic_law, law, BG_MATP_ENUM) /* the Kirchhoff stress of F */
BG_MATERIAL_PARAMS_STRUCT(elastic, BG_ELASTIC_PARAMS)

/* taichi_mpm's JellyParticle is fixed corotated (src/particles.cpp). */
static inline bg_elastic_params bg_elastic_default_params(void) {
  bg_elastic_params p;
  p.law = BG_ELASTIC_FIXED_COROTATED;
  return p;
}

#endif /* BG_MAT_ELASTIC_PARAMS_H */

/* ---- the model ---- */
#if !defined(BG_MAT_PARAMS_ONLY) && !defined(BG_MAT_ELASTIC_H)
#define BG_MAT_ELASTIC_H

#include <math.h>
#include <stdio.h>

#include "bg_material_core.h"

/* The coefficients of the inner loop: the law alone (the Lame constants are
 * the common bg_elasticity_c's). */
typedef struct bg_elastic_c {
  int law; /* bg_elastic_law */
} bg_elastic_c;

/* Neo-Hookean Kirchhoff stress of F, from B = F F^T without an SVD. J is
 * floored at BG_SIGMA_MIN, as the Hencky law floors each stretch: an
 * inverted or crushed particle gets a huge restoring pressure, not NaN. */
BG_HD bg_mat3 bg_elastic_tau_neo_hookean(const bg_mat3 *F, bg_lame l) {
  bg_mat3 t;
  bg_real lnj = logf(fmaxf(bg_mat3_det(*F), BG_SIGMA_MIN));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      bg_real b = F->m[i][0] * F->m[j][0] + F->m[i][1] * F->m[j][1] + F->m[i][2] * F->m[j][2];
      t.m[i][j] = l.mu * (b - (i == j ? 1.0f : 0.0f)) + (i == j ? l.lambda * lnj : 0.0f);
    }
  return t;
}

/* The scalar update of one particle: F is kept as it came (no return map),
 * the stress is the law's; the common law switch (material.stress) and the
 * plastic switches are not read. */
BG_HD int bg_elastic_update(const bg_elasticity_c *el, const bg_elastic_c *c, bg_update_ctx *u) {
  if (c->law == BG_ELASTIC_NEO_HOOKEAN) {
    *u->tau = bg_elastic_tau_neo_hookean(u->F, el->lame);
  } else {
    bg_mat3 uu, v;
    bg_vec3 sig;
    bg_svd3(u->F, &uu, &sig, &v);
    *u->tau = bg_tau_assemble(uu, bg_tau_fixed_corotated(sig, el->lame));
  }
  return BG_RM_ELASTIC;
}

/* The stress from F alone, as the update leaves it (F is not changed
 * there): the model's law at F. Returns 1 (bg_materials.h). */
BG_HD int bg_elastic_stress_of_f(const bg_elasticity_c *el, const bg_elastic_c *c, const bg_mat3 *F,
                                 const bg_real *st, bg_mat3 *tau) {
  (void)st;
  bg_mat3 f = *F;
  bg_update_ctx u = {&f, NULL, 0.0f, NULL, tau};
  (void)bg_elastic_update(el, c, &u);
  return 1;
}

/* Local: no slot of the state needs the grid (bg_material_core.h). */
BG_HD int bg_elastic_nonlocal_slot(void) { return -1; }
BG_HD bg_real bg_elastic_nonlocal_dt(const bg_elastic_c *c, bg_real dx) {
  (void)c;
  (void)dx;
  return INFINITY;
}

/* Host side: the P wave of the reference state, sqrt((lambda + 2 mu) /
 * rho0), bounds the step. Neo-Hookean stiffens in compression (elastic.md:
 * in uniaxial strain c^2 = (mu (s^2 + 1) + lambda (1 - ln s)) / rho0, 1.08x
 * the reference speed at s = 0.5), which the CFL number's margin covers for
 * the strains a solid scene reaches; fixed corotated softens. */
static inline bg_real bg_elastic_wave_speed(const bg_material *m) {
  return bg_elasticity_wave_speed(m);
}

/* Host side: taichi_mpm's jelly (src/particles.cpp, JellyParticle: E 1e5,
 * nu 0.3 in its own units), read as Pa; rho0 1000 kg/m^3, a water-based
 * gel's (taichi_mpm gives the jelly no density in SI). material.stress is
 * set to fixed corotated so that bg_sim_set(BG_FIELD_STRESS), which solves
 * Hencky's law for F, refuses this model; no plastic volume to correct. */
static inline void bg_elastic_default_material(bg_material *m) {
  m->E = 1e5f;
  m->nu = 0.3f;
  m->rho0 = 1000.0f;
  m->stress = BG_STRESS_FIXED_COROTATED;
  m->volume_correction = 0;
}

/* No state: Jp reads 1 and q 0. */
static inline bg_state_desc bg_elastic_state(void) {
  bg_state_desc d = {{"", "", "", ""}, -1, -1};
  return d;
}

/* Validation, host side: 0 when valid; else 2 with the field and its range. */
static inline int bg_elastic_validate(const bg_material *m, char *msg, size_t len) {
  int bad = bg_elasticity_validate(m, msg, len);
  if (bad) return bad;
  if (m->elastic.law != BG_ELASTIC_NEO_HOOKEAN && m->elastic.law != BG_ELASTIC_FIXED_COROTATED)
    return snprintf(msg, len,
                    "material.elastic.law must be BG_ELASTIC_NEO_HOOKEAN or "
                    "BG_ELASTIC_FIXED_COROTATED (got %d)",
                    (int)m->elastic.law),
           2;
  if (m->stress != BG_STRESS_FIXED_COROTATED)
    return snprintf(msg, len,
                    "material.stress must be BG_STRESS_FIXED_COROTATED for the elastic model "
                    "(its law is material.elastic.law; a Hencky stress would let "
                    "bg_sim_set(BG_FIELD_STRESS) solve the wrong law) (got %d)",
                    (int)m->stress),
           2;
  return 0;
}

/* The prepare step: the law. */
static inline void bg_elastic_prepare(const bg_elastic_params *m, bg_elastic_c *c) {
  c->law = (int)m->law;
}

#endif /* BG_MAT_ELASTIC_H */
