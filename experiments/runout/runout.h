/* runout.h: the parts of the column-collapse runout experiment (runout.c
 * reads as its table of contents): the fits (runout_fits.c), the reference
 * laws and the rows of the run tables (runout_rows.c), and the read-out
 * stages with their claims (runout_stages.c). */
#ifndef RUNOUT_H
#define RUNOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bg_column.h"
#include "bg_lab.h"

#define MAX_ASPECTS 32
/* the two-regime fit has three parameters: one degree of freedom at least */
#define RUNOUT_MIN_ASPECTS 4
#define N_CONV 4
#define N_MU 5
#define KE_FRAC 1e-4
#define CHECK_DT_FRAC 0.1
#define LAWS "literature/column_collapse_laws.tsv"
#define SEED "seed/seed_results.tsv"

/* ------------------------------------------------------------ fits */

/* the two-regime law y = c1 a below a_b, c1 a_b (a / a_b)^p above */
double runout_law(double a, double c1, double ab, double p);

typedef struct law_fit {
  double c1, ab, p, c2, s_c1, s_ab, s_p, s_c2, chi2;
  int dof, status, n_below, n_above;
} law_fit;

/* The fit that is kept: lowest chi^2 over starts between the aspects, with
 * at least one point on each side of the break. */
law_fit runout_fit_law(const double *a, const double *y, size_t n);
/* the two-regime fit over the aspects a <= amax */
law_fit runout_fit_law_upto(const double *a, const double *y, size_t n, double amax);

typedef struct power_fit {
  double p, s_p, c2;
  int n;
} power_fit;

/* the large-a power law y = c2 a^p over a >= amin (NaN below 3 points) */
power_fit runout_fit_power(const double *a, const double *y, size_t n, double amin);

typedef struct origin_fit {
  double b, s_b, c;
  int n;
} origin_fit;

/* the straight line y = b + c a over a <= amax (NaN below 3 points) */
origin_fit runout_fit_origin(const double *a, const double *y, size_t n, double amax);

/* the static bound's y at aspect a (derivation section 1) */
double runout_y_static(double a, double phi_deg);

typedef struct conv_fit {
  double y_inf, C, q, s_y_inf, s_C, s_q, chi2;
  int dof, status;
} conv_fit;

/* y(h) = y_inf + C h^q over the refinement grids (NaN below 4) */
conv_fit runout_fit_conv(const double *h, const double *y, size_t n);
/* the refinement claim's error of the finest grid against the limit */
double runout_conv_error(const conv_fit *c, double y_finest);

/* ------------------------------------------------------- laws and rows */

/* A row of a references table: the literature laws or the seed's results */
typedef struct lit_law {
  double c1, ab, c2, p;
  int found;
} lit_law;

lit_law runout_read_law(bg_lab *lab, const char *file, const char *source);
double runout_lit_value(const lit_law *l, double a);
/* L / R0 that leaves room for Lube's runout with a margin of half again */
double runout_domain_for(const lit_law *lube_law, double a);
/* parses "0.5,1,2" into v (sorted ascending, distinct), range-checked; exits 2 on a bad list */
int runout_parse_list(const char *s, double *v, int max, double lo, double hi, const char *opt);

typedef struct run_row {
  double a, runout, y, h_center, t_rest, r99, thr, y_thr;
  int summit, settled, wall;
  size_t particles;
  uint64_t steps;
} run_row;

run_row runout_row_of(const bg_column_result *r, const bg_column_scene *sc);
void runout_write_row(FILE *f, const run_row *w, double R0, double dx, double mu, int cells);

#define ROW_COLUMNS                                                                                       \
  "aspect\tmu_floor\tcells_per_R0\tdx_m\trunout_m\trunout_norm\th_center_m\th_center_over_H0\tmorphology\t" \
  "t_rest_s\tt_rest_over_sqrt_H0_g\tsettled\treaches_wall\tparticles\tsteps\tr99_m\tthreshold_m\tthreshold_norm"

/* ------------------------------------------------------------ the run */

enum { N_RUNS = MAX_ASPECTS + N_CONV + N_MU };

/* the refinement grids, in multiples of --conv-cells / 2 */
extern const int runout_conv_factor2[N_CONV];

/* The options, the scenes of every run (aspect sweep, refinement, floor
 * sweep, in that order) and their results once run. */
typedef struct runout_plan {
  bg_lab *lab;
  double phi, mu_floor, R0, t_max, jitter, conv_aspect, mu_aspect, mu_lo, mu_hi, fit_amax, large_amin;
  int cells, conv_cells, jobs;
  const char *aspects_s;
  double aspects[MAX_ASPECTS], origin_amax, dx;
  int na, need_conv, need_floor;
  lit_law lube;
  bg_column_scene base, scenes[N_RUNS];
  char tags[N_RUNS][64];
  int skip[N_RUNS], nr;
  double cost[N_RUNS];
  const char *tagp[N_RUNS];
  bg_column_result results[N_RUNS];
  int next; /* the runs are read back in the order they were built */
} runout_plan;

/* What the read-out measured, stage by stage, for the judgement. */
typedef struct runout_readout {
  run_row rows[MAX_ASPECTS];
  double phi_fed, c1_bound, ab_claim, ab_claim_r;
  int n_bad; /* runs that did not settle or reached the wall */
  law_fit lf, lf_prev, lf_dia, lf_thr, lf_lube, lf_r;
  power_fit pw, pw_thr, pw_lube, pw_r;
  origin_fit of, of_r;
  conv_fit cf;
  double conv_err, conv_err_thr, conv_err_R, conv_change, conv_err_pc;
  double mu_effect, mu_effect_r99, mu_effect_thr;
} runout_readout;

/* 1. the aspect sweep, 2. the law, 3. the refinement, 4. the floor
 * friction: each reads its runs from pl (in order) and writes its tables;
 * then the judgement: summary.tsv and the claims */
void runout_aspect_sweep(runout_plan *pl, runout_readout *ro);
void runout_law_fits(runout_plan *pl, runout_readout *ro);
void runout_refinement(runout_plan *pl, runout_readout *ro);
void runout_floor(runout_plan *pl, runout_readout *ro);
void runout_judge(runout_plan *pl, runout_readout *ro);

#endif /* RUNOUT_H */
