/* dambreak.h: what the dam break's scene runs (dambreak.c) and its judging
 * (dambreak_judge.c) share. */
#ifndef DAMBREAK_H
#define DAMBREAK_H

#include <stddef.h>

#include "bg_lab.h"

#define DB_MAX_GRIDS 6

/* The options. */
typedef struct db_options {
  double a;      /* column width, m */
  double n2;     /* column height over width */
  int cells;     /* cells per a on the coarsest grid */
  int grids;     /* number of grids */
  double refine; /* cells per a grow by this factor from grid to grid */
  double tank;   /* tank length, in a */
  double T_end;  /* last Martin & Moyce time T = t sqrt(n2 g / a) */
  double dT;     /* front sampling interval in T */
  int slab;      /* plane-strain slab thickness, cells */
  double settle; /* hydrostatic column: time before the window, s */
  double window; /* hydrostatic column: averaging window, s */
} db_options;

/* One grid's surge front: T and Z = (x_front - x_wall) / a, with two
 * estimators: the toe (the floor layer's farthest particle) and the floor
 * layer's mean x (the front-mean mutant). */
typedef struct db_front {
  int cells;
  double dx;
  size_t n; /* samples */
  double *T, *Z, *Zmean;
  size_t particles;
  double steps;
} db_front;

/* The settled column: floor force and what it is held to. */
typedef struct db_hydro {
  double dx, M, g, rho0, area, h_mean, h_nominal;
  double p_floor;       /* |F_z| / area over the window, Pa */
  double p_fed;         /* rho0 g h_mean = M g / area, Pa (fed rho0 and g) */
  double force_rms_rel; /* rms of the per-step floor force about its mean, of M g */
} db_hydro;

/* dambreak_judge.c: the literature file's points of one series. */
typedef struct db_points {
  int n;
  double T[64], Z[64];
} db_points;
db_points db_read_points(bg_lab *lab, const char *series);
/* Z of a front at time T, linear between samples; NaN outside. */
double db_front_at(const double *T, const double *Z, size_t n, double t);
/* Writes front.tsv, mm_compare.tsv and convergence.tsv, and makes the
 * claims dambreak.front and dambreak.hydrostatic. */
void db_judge(bg_lab *lab, const db_options *o, const db_front *f, int nf, const db_hydro *h);

#endif
