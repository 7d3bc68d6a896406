/* probe_water.h: the water model's closed forms for probe_constitutive: the
 * Tait pressure through the model's own update, and the sound speed of a
 * pulse in a small simulation through the public API. */
#ifndef PROBE_WATER_H
#define PROBE_WATER_H

#include "bg_lab.h"

/* Runs both sections (writing water_p.tsv and water_pulse.tsv) and
 * makes the claims probe.tait.pressure and probe.tait.sound_speed. */
void probe_water(bg_lab *lab);

#endif
