/* probe_source.h: an emitter (bg_sim_add_source) against free fall's closed
 * forms, for probe_constitutive: a vertical disc jet of sand with no floor. */
#ifndef PROBE_SOURCE_H
#define PROBE_SOURCE_H

#include "bg_lab.h"

/* The mutants it implements (probe_constitutive's list). */
#define PROBE_SOURCE_MUTANTS "source-gravity-half", "source-dense-rate", "source-arrival-no-v0",

/* Runs the jet (writing source_jet.tsv) and makes the claims
 * source.mass_rate and source.arrival. */
void probe_source(bg_lab *lab);

#endif
