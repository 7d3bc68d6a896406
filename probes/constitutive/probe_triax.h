/* probe_triax.h: one Drucker-Prager element driven in principal Hencky
 * strain through the solver's own return map (probe_constitutive.c), for
 * the probe's sections in other files (probe_cohesion.c). */
#ifndef PROBE_TRIAX_H
#define PROBE_TRIAX_H

#include <gsl/gsl_roots.h>

#include "bg_lab.h"
#include "bg_materials.h"

typedef struct element {
  bg_vec3 eps; /* elastic principal Hencky strain */
  bg_real log_jp, q;
} element;

/* How the lateral strain follows the axial one: both lateral axes alike
 * (triaxial compression or extension), or the second axis held fixed and
 * the third confined (plane strain). */
enum { AXES_TRIAXIAL = 0, AXES_PLANE = 1 };

typedef struct drive {
  const bg_mat *m;
  element e;
  double d_axial; /* < 0 compression, > 0 extension */
  double p_conf;  /* Pa, >= 0 */
  int axes;
  /* outputs of the last evaluation */
  bg_return r;
  bg_real alpha_used;
} drive;

/* One increment: the lateral strain (GSL Brent) that holds the lateral
 * Kirchhoff stress at -p_conf after the return map; 0 on success. */
int drive_step(drive *d, gsl_root_fsolver *solver);

/* Isotropic consolidation to p_conf: tau_i = (2 mu + 3 lambda) e0 = -p. */
element consolidated(const bg_mat *m, double p_conf);

/* Cohesive sand's section (probe_cohesion.c): unconfined compression, the
 * tip and beta, judged as probe.cohesion.* (ucs, tip, beta). */
void probe_cohesion(bg_lab *lab, gsl_root_fsolver *solver, double d_step, double strain_end);

#endif
