/* probe_elastic.h: uniaxial stress of one element of the elastic model
 * (taichi_mpm's jelly) through the library's own update, for
 * probe_constitutive. */
#ifndef PROBE_ELASTIC_H
#define PROBE_ELASTIC_H

#include "bg_lab.h"

/* Both laws of the elastic model in uniaxial stress against their closed
 * forms: writes elastic.tsv and judges probe.uniaxial.neo_hookean and
 * probe.uniaxial.fixed_corotated. */
void probe_elastic(bg_lab *lab);

#endif
