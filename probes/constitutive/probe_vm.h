/* probe_vm.h: the von Mises model's closed forms, one element through the
 * library's own scalar update, for probe_constitutive. */
#ifndef PROBE_VM_H
#define PROBE_VM_H

#include "bg_lab.h"

/* The mutants probe_vm implements (references/mutants.tsv), for the
 * probe's list. */
#define PROBE_VM_MUTANTS "vm-tresca", "vm-volumetric-return", "vm-q-unscaled",

/* Simple shear and uniaxial tension of von Mises elements: writes vm.tsv
 * and judges probe.vm.shear_yield, probe.vm.tension_yield,
 * probe.vm.incompressible and probe.vm.hardening. */
void probe_vm(bg_lab *lab);

#endif
