/* heap.h: the parts of the poured-heap experiment (heap.c reads as its
 * table of contents): the poured ridge run to rest with its flank angle over
 * time (heap_pour.c), and the read-out stages with their claims, beside the
 * collapse deposit of the same sand (heap_stages.c). */
#ifndef HEAP_H
#define HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "../repose/repose.h"
#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"

#define HEAP_MAX_GRIDS 4
#define HEAP_N_WIN 5 /* fit windows of the identifiability scan */
extern const double heap_win_lo[HEAP_N_WIN], heap_win_hi[HEAP_N_WIN];
#define HEAP_WIN_MAIN 1 /* 0.2-0.8 h_max: the repose estimator's band */

/* The poured ridge: a plane-strain slab (ridge_cells thick between slip
 * walls, the x = 0 face a mirror plane: half a ridge), a BOX source of
 * half-width funnel_w against the mirror at height funnel_z pouring the
 * mass of the collapse column R0 x H0 (per unit slab thickness) in t_pour
 * at speed v_out downward, onto a floor of Coulomb friction mu (or stick). */
typedef struct heap_scene {
  bg_material material; /* the sand; Drucker-Prager's phi_deg already set */
  double R0, H0;         /* m: the collapse column whose mass is poured */
  double L_over_R0;      /* domain length along x, of R0 */
  int cells;             /* cells per R0 */
  int ridge_cells;       /* slab thickness, cells */
  double funnel_w;       /* m: the outlet covers 0 <= x <= funnel_w */
  double funnel_z;       /* m: the outlet's height above the floor */
  double v_out;          /* m/s: the outlet speed, downward */
  double t_pour;         /* s */
  double t_max;          /* s: the run's limit */
  bg_friction floor;
  double mu;
  double ke_frac, check_frac; /* the settle rule of bg_column, after the pour */
  const char *backend;
  int threads;
  unsigned long seed;
} heap_scene;

/* one row of the angle's history (the fit window 0.2-0.8 of the heap's
 * height, columns outside the funnel's footprint) */
typedef struct heap_row {
  double t, mass, h_max, theta, toe, ke;
} heap_row;

typedef struct heap_result {
  bg_column_result col; /* the settled surface (bg_column_surface), H0 = the scene's */
  double mass_poured, mass_target, phi_fed, mu_s_fed;
  int settled, n_rows;
  heap_row *rows;
} heap_result;

heap_result heap_pour_run(bg_lab *lab, const heap_scene *sc, const char *tag);
void heap_result_pack(const heap_result *r, bg_lab_blob *b);
heap_result heap_result_unpack(bg_lab_blob *b);
void heap_result_free(heap_result *r);

/* the angle of a line fit to the profile bins whose height lies in
 * [lo, hi] h_max (the repose estimator E1's fit, any window), deg; NaN with
 * fewer than 3 bins */
double heap_window_angle(const double *r, const double *h, int n, double lo, double hi, double h_max);

/* What the run simulates and how it judges it. */
typedef struct heap_plan {
  bg_lab *lab;
  int grids;
  int gcells[HEAP_MAX_GRIDS];
  double R0, H0, phi;
  double theta_flow;  /* the flow angle of the sand the lab compares with, deg */
  heap_scene heap[HEAP_MAX_GRIDS];
  bg_column_scene collapse[HEAP_MAX_GRIDS];
  int n_pts;
  char tags[2 * HEAP_MAX_GRIDS][64];
  const char *tagp[2 * HEAP_MAX_GRIDS];
  double cost[2 * HEAP_MAX_GRIDS];
  bg_lab_blob *packed;
} heap_plan;

/* The read-out: the final angles on every grid, the history, the windows,
 * the convergence verdict and the claims. */
void heap_readout(heap_plan *pl);

#endif /* HEAP_H */
