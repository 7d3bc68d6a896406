/* probe_snow.h: one element of snow (Stomakhin et al. 2013) driven through
 * the library's update by known deformations, for probe_constitutive. */
#ifndef PROBE_SNOW_H
#define PROBE_SNOW_H

#include "bg_lab.h"

/* What the snow section measured over its deformations. */
typedef struct snow_check {
  double clamp_err; /* max |sigma_E - its closed form| (clamped: the bound itself) */
  double jp_err;    /* max |Jp / closed form - 1| */
  double lame_err;  /* max |mu / (mu0 h) - 1|, |lambda / (lambda0 h) - 1| */
} snow_check;

/* Writes snow.tsv. */
snow_check probe_snow(bg_lab *lab);

#endif
