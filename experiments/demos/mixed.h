/* mixed.h: what the mixed-material demo's scenes (demo_mixed.c) and its
 * judging (mixed_judge.c) share. */
#ifndef MIXED_H
#define MIXED_H

#include <stddef.h>

#include "bg_lab.h"

/* The options (metres, seconds). */
typedef struct mx_options {
  double dx;                       /* grid spacing */
  int slab;                        /* plane-strain slab thickness, cells */
  double mu_floor;                 /* the floor's Coulomb coefficient (both scenes) */
  double bed_w, bed_h, block, gap; /* jelly scene: sand bed, jelly block, drop height */
  double res_w, dam_h, water_h, crest, slope, apron; /* dam scene */
  double t_jelly, t_dam, window, sample; /* run lengths, averaging window, sampling interval */
} mx_options;

/* The material table's entries in either scene: sand first, then the
 * other material (jelly or water). */
enum { MX_SAND = 0, MX_OTHER = 1, MX_NMAT = 2 };

/* One sample: the time; the cumulative impulses (N s) on the floor and on
 * the left wall; the other body's centre of mass (the block or the water:
 * the particles added after the sand, whatever entry they were given); its least, largest
 * and mean volume ratio J = det F; the sand's centre of mass x. */
typedef struct mx_sample {
  double t, I_floor[3], I_left[3], com_x, com_z, J_min, J_max, J_mean, sand_com_x;
  double z_min, z_max; /* the other material's lowest and highest particle */
  double all_com_z;    /* every particle's centre of mass z (the rest-height-all mutant) */
} mx_sample;

#define MX_SNAPS 3

/* One scene's run, as the judge needs it. */
typedef struct mx_scene {
  const char *name;        /* "jelly" or "dam" */
  double dx, ly;           /* grid spacing; slab width the material fills, m */
  double z_floor;          /* where the floor carries the load (its last solid node), m */
  double x_left;           /* the same for the left wall, m */
  double g, rho0[MX_NMAT]; /* fed: gravity and each entry's density (bg_sim_describe) */
  double V_fed[MX_NMAT];   /* fed volume of each entry: particles added x volume each, m^3 */
  double M_read[MX_NMAT];  /* mass read back by BG_FIELD_MATERIAL, kg */
  double M_swap[MX_NMAT];  /* the mass-index-swap read-out: entry k summed over 1 - k */
  size_t n_particles, n_mat[MX_NMAT];
  size_t n_samples;
  mx_sample *s;
  /* snapshots: the y-first-layer particles' x, z and entry at MX_SNAPS times */
  size_t n_snap_p;
  double snap_t[MX_SNAPS];
  float *snap; /* MX_SNAPS x n_snap_p x 3 (x, z, entry) */
  double steps;
} mx_scene;

/* mixed_judge.c: the output tables and the claims. */
void mx_judge(bg_lab *lab, const mx_options *o, const mx_scene *jelly, const mx_scene *dam);
/* The water depth against the dam at rest from the fed water volume: the
 * reservoir's cross-section W h + s h^2 / 2 = V / ly. */
double mx_water_depth(const mx_options *o, const mx_scene *dam);

#endif
