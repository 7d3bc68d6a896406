/* surrogate_inverse.h: the posterior of the friction angle given a measured
 * deposit, through the GP surrogates of its outputs (demo_surrogate). */
#ifndef SURROGATE_INVERSE_H
#define SURROGATE_INVERSE_H

#include "surrogate_gp.h"

#define DPHI_GRID 0.01 /* the posterior's grid step, deg */

typedef struct post {
  double mean, sd, map, lo95, hi95;
  double ratio_max; /* max over the 2-sd window of sum_j var_j / noise_j */
  double next_phi;  /* where that ratio times the posterior is largest */
} post;

/* Points of the posterior's grid over [phi_lo, phi_hi], DPHI_GRID apart. */
int posterior_grid_points(double phi_lo, double phi_hi);

/* The posterior over phi on the grid, uniform prior over the GPs' range,
 * given the observation yobs of the nout outputs, their GPs g, the run noise
 * sn[j] and the instrument's sm; dens (posterior_grid_points) receives the
 * density per degree when not NULL. noise_ignored: the likelihood with the
 * surrogate's variance alone. */
post posterior_invert(gp *const *g, int nout, const double *yobs, const double *sn, double sm,
                      int noise_ignored, double *dens);

#endif
