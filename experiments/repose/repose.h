/* repose.h: the parts of the angle-of-repose experiment (repose.c reads as
 * its table of contents): the flank estimators on one deposit
 * (repose_measure.c), the refinement fits (repose_fit.c) and the three
 * read-out stages with their claims (repose_stages.c). */
#ifndef REPOSE_H
#define REPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "bg_column.h"
#include "bg_lab.h"

#define N_EST 4
#define N_SECTORS 6
#define BAND_LO 0.2
#define BAND_HI 0.8
#define KE_FRAC 1e-4
#define CHECK_DT_FRAC 0.1
#define RUNOUT_H 1.0 /* runout thickness threshold, in dx */
#define MAX_GRIDS 8
#define SLICK_MU 0.05 /* the slick-floor control's floor: nearly frictionless */
#define DEG (180.0 / M_PI)
/* Fixed height bands of the deposit, in units of the column's height H0:
 * the flank's parts behave differently under refinement (the foot flattens,
 * the upper flank steepens), so each gets its own angle and fit; see
 * references/derivations/repose.md sec. 6. */
#define N_BANDS 3
extern const double repose_band_lo[N_BANDS], repose_band_hi[N_BANDS];
extern const char *const repose_band_names[N_BANDS];
enum { BAND_LOWER = 1 };

/* the floor sweep: mu = fac tan phi, then the stick floor */
enum { N_MU = 5, I_LOW = 0, I_MID = 1, I_TAN = 2 };

typedef struct result {
  double dx;
  size_t n_particles;
  uint64_t steps;
  double t_end, ke_end, ke_thresh;
  int settled;
  double theta[N_EST]; /* deg; the ridge fills theta[0] only */
  double theta_mean, theta_sd;
  double theta_strip; /* pile only: the ridge's ruler (x-profile of a strip along y = 0) on the pile */
  double band[N_BANDS]; /* profile line fit in each fixed height band, deg (NaN: fewer than 3 annuli) */
  double phi_fed;       /* the angle the simulation was fed, read back from it (bg_column_result) */
  double h_max, runout, runout_wall; /* m; runout_wall: runout that touches the far wall */
  int nbins;
  double *rbin, *hbin; /* radial (or x) profile: centres and mean heights, m */
} result;

/* A scene run to rest (bg_column.c, a point of the run's sweep): the flank
 * angle from its deposit. Takes col's arrays. */
result repose_measure(bg_lab *lab, const bg_column_scene *sc, const char *tag, bg_column_result col);

typedef struct conv_fit {
  double theta_inf, c, p, s_theta, s_c, s_p, chi2;
  int dof, status, found;
} conv_fit;

conv_fit repose_fit_convergence(const double *h, const double *theta, size_t n);
int repose_steps_away(const double *th, int n, double phi, int reversed);
double repose_flow_angle(double phi_deg);
double repose_baseline_offset(bg_lab *lab, double h);
double repose_est_spread(const double *theta);
double repose_limit_reach(const conv_fit *f, double phi);

/* The run's simulations, the points of its sweep (bg_lab_sweep): each is a
 * column run to rest, packed for the gather, which measures it. */
#define MAX_POINTS (MAX_GRIDS + 8)
typedef struct sweep_pts {
  bg_lab *lab;
  bg_column_scene scenes[MAX_POINTS];
  char tags[MAX_POINTS][64];
  const char *tagp[MAX_POINTS];
  char keys[MAX_POINTS][1024]; /* each scene in full: --reuse copies another run's same simulation */
  const char *keyp[MAX_POINTS];
  double cost[MAX_POINTS];
  int n;
  bg_lab_blob *packed;
} sweep_pts;

/* What the run simulates and how it judges: the options, the angles it
 * compares with, the stages its claims need and the sweep's points. */
typedef struct repose_plan {
  bg_lab *lab;
  double phi, R0, aspect, tanphi, phi_ref, phi_flow;
  int grids, fed_off, plain;
  int need_conv, need_ridge, need_hi, need_stick, need_low, need_ref, need_plane;
  int lower_only; /* of the refinement only the finest grid's lower band is needed */
  double mus[N_MU + 1];
  int ran[N_MU + 1], slick_reuse[N_MU + 1];
  sweep_pts pts;
  int conv_pt[MAX_GRIDS], mu_pt[N_MU + 1], ridge_pt;
  int plane_pt, slab_pt[2]; /* the 2D ridge; the slab at the finest grid and the next (-1: not run) */
} repose_plan;

result repose_measure_point(sweep_pts *pts, int k);

/* The read-out stages, in order: 1. refinement (fills conv[grids]), 2. the
 * floor friction sweep, 3. the plane-strain ridge against conv's finest,
 * 4. the 2D ridge against the slab. */
void repose_refinement(repose_plan *pl, result *conv);
void repose_floor(repose_plan *pl, result *rmu);
void repose_ridge(repose_plan *pl, const result *conv, result *rr);
/* 4. the ridge on the 2D solver against the slab (--dim 2) */
void repose_ridge_2d(repose_plan *pl);

#endif /* REPOSE_H */
