/* bg_contact.h: the contact load on kinematic bodies, split by how it
 * depends on the step.
 *
 * A body's contact impulse over one step of length h, from a given state,
 * is J(h) = a + b h, and each split checks that this holds (nonlinearity,
 * below). b is the load of the stress and gravity that the grid carries
 * onto the body's nodes. a is the momentum the transfers leave on those
 * nodes: the body puts a kink into the grid's velocity, APIC carries only
 * its affine part through the particles, and the contact removes the rest
 * in every step, however short. A run's load is then b + a / dt, so at a
 * fixed dx its second part grows as dt shrinks (and with the body's
 * speed) while b does not (reports/results/cpu-2core/contact-split). A
 * claim about the sand reads b.
 *
 * bg_contact_split_at measures both at the present state through the
 * public API: it saves the simulation, steps a copy of it three times from
 * the file (one step each of 0.9 dt, 0.9 dt / 8 and 0.9 dt / 2, dt the
 * run's next step), reads the copy's body loads, and removes the file. The
 * run itself is not touched. a and b come from the first two steps; the
 * third tests the line. */
#ifndef BG_CONTACT_H
#define BG_CONTACT_H

#include <stddef.h>

#include "bagnold.h"

/* The loads summed over bodies[0..n_bodies), each a force (N) then its
 * torque about that body's centre (N m), in the world frame. */
typedef struct bg_contact_split {
  double stress[6];    /* b: the load carried by the stress, at any step */
  double residue[6];   /* a / dt: the transfers' part at the run's next step dt */
  double dt;           /* that step, s */
  double nonlinearity; /* the middle step's impulse off the line through the other two, rms over the
                          six components, over its rms */
} bg_contact_split;

/* The simulation the splits step: loaded from the file at a split's first
 * step and restored into (bg_sim_restore) at every later one, so that a
 * backend's set-up (a GPU's allocations) is paid once per run, not three
 * times per split. Zero it before the first split, free it after the last. */
typedef struct bg_contact_copy {
  bg_sim *sim;
} bg_contact_copy;
void bg_contact_copy_free(bg_contact_copy *copy);

/* At sim's present state; path: a scratch file (removed after). threads:
 * the copies' CPU threads. copy: the simulation to step, kept between
 * splits (NULL: a new one loaded for each step). Ends the run (bg_lab_fail,
 * exit 2) on any failure of the solver calls. */
bg_contact_split bg_contact_split_at(bg_sim *sim, const size_t *bodies, size_t n_bodies,
                                     const char *path, int threads, bg_contact_copy *copy);

#endif
