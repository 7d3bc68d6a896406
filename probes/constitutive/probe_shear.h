/* probe_shear.h: steady simple shear of one element of a rate-dependent
 * material (mu(I), nonlocal fluidity) through the full scalar update, for
 * probe_constitutive. */
#ifndef PROBE_SHEAR_H
#define PROBE_SHEAR_H

#include "bg_lab.h"

/* What one model's simple-shear section measured over its imposed rates. */
typedef struct shear_check {
  double max_err;  /* max |mu measured - the model's law| (NaN: off the yield surface) */
  double max_rate; /* max |I plastic / I imposed - 1| */
} shear_check;

/* mu(I) sand (Jop et al. 2006): writes mu_i.tsv. */
shear_check probe_shear_mui(bg_lab *lab);

/* Nonlocal fluidity sand (Henann & Kamrin 2013), homogeneous: writes ngf.tsv. */
shear_check probe_shear_ngf(bg_lab *lab);

#endif
