/* silo.h: the parts of the silo discharge experiment (silo.c reads as its
 * table of contents): the Beverloo fits and the resolution criterion
 * (silo_fits.c), and the read-out stages with their claims
 * (silo_stages.c). */
#ifndef SILO_H
#define SILO_H

#include <stddef.h>

#include "bg_lab.h"
#include "bg_silo.h"

#define MAX_AP 12
#define MAX_PTS (MAX_AP + 3)
#define G 9.81

typedef struct bev_fit {
  double C, k, n, sC, sk, sn, rms;
  int status, dof;
} bev_fit;

/* W / (rho_b sqrt g) = C (D - k d_i)^n over (D, y), n fixed at n_fix or
 * free, from start (C, k, n); relative residuals, chi^2/dof scaling */
bev_fit silo_fit_beverloo(const double *D, const double *y, size_t n, const double *d, double n_fix, int free_n,
                          const double *start);
/* C with k d and n fixed: a linear fit through the origin */
bev_fit silo_fit_C_kfixed(const double *D, const double *y, size_t n, double kd, double n_law);
/* n and C with k d fixed: a straight line in logs */
bev_fit silo_fit_n_kfixed(const double *D, const double *y, size_t n, double kd);
/* the resolution criterion per aperture: s (log-slope of u_c), ok; returns the count that pass */
int silo_resolution(const bg_silo_result *rr, int n, double s_max, double *s, int *ok);
/* the joint fit with the rim modelled over the sweep's and the refinement's runs */
bev_fit silo_joint_fit(const bg_silo_result *rr, int nap, int ntot, double min_cells, double off_cells,
                       double n_law, int free_n, int *npts);

/* The options, the scenes of every run (the aperture sweep, then the
 * refinement grids) and their results once run. */
typedef struct silo_plan {
  bg_lab *lab;
  const char *geometry, *apertures;
  double dx, hr, mu_wall, mu_floor, drop_sweep, t_max, sample_dt, jitter, t_win_min, w_rel_se_max, startup_frac,
      plateau_slope, k_fixed, refine, joint_min;
  int silo_cells, floor_cells, gap_cells, slab_cells, jobs;
  int round, nap, nref, ntot, iref;
  double D[MAX_AP], grain_kd, k_bev, n0;
  const char *unit_w;
  bg_silo_scene scs[MAX_PTS];
  char cols[512];       /* the series tables' columns */
  char tags[MAX_PTS][96];
  const char *tagp[MAX_PTS];
  double cost[MAX_PTS]; /* the sweep's order: the longest runs first */
  bg_silo_result rr[MAX_PTS];
} silo_plan;

/* What the read-out measured, stage by stage, for the judgement. */
typedef struct silo_readout {
  double slope_u[MAX_AP];
  int res[MAX_AP];
  /* fit sets: every discharging aperture (all, nfit), those that pass the criterion (resolved, nr) */
  double Da[MAX_AP], ya[MAX_AP], Dr[MAX_AP], yr[MAX_AP], lD[MAX_AP], lW[MAX_AP], rb_mean;
  int nfit, nr;
  double kd, yb[MAX_AP];
  bev_fit c_fix, n_fix, c_free, n_free, c_free_all, n_free_all, c_fix_all, n_fix_all, c_law, n_law;
  bev_fit j_n, j_c, j_n_m, j_c_m;
  int nj, nj_m, iap;
  double ng, sng, lc0;
} silo_readout;

/* 1. rates and the fit sets, 2. the fits, 3. exit profiles and the
 * refinement table; then the judgement: summary.tsv and the claims */
void silo_rates(silo_plan *pl, silo_readout *ro);
void silo_fits(silo_plan *pl, silo_readout *ro);
void silo_profiles(silo_plan *pl);
void silo_judge(silo_plan *pl, silo_readout *ro);

#endif /* SILO_H */
