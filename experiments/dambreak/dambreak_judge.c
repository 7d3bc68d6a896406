/* dambreak_judge.c: the dam break's fronts against Martin & Moyce's points,
 * and the settled column's floor load against rho0 g h; the output tables
 * and the claims (see dambreak.c for the scene). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dambreak.h"

#define MM_FILE "literature/martin_moyce1952.tsv"

db_points db_read_points(bg_lab *lab, const char *series) {
  char path[4096], line[1024];
  bg_lab_reference(lab, MM_FILE, path, sizeof path);
  FILE *fp = fopen(path, "r");
  if (!fp) bg_lab_fail("%s: cannot open", path);
  db_points p = {0};
  int header = 0, ln = 0;
  while (fgets(line, sizeof line, fp)) {
    ++ln;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (!header) {
      if (strncmp(line, "series\ta_m\tn2\tT\tZ", 16) != 0)
        bg_lab_fail("%s:%d: header must be series a_m n2 T Z", path, ln);
      header = 1;
      continue;
    }
    char name[64];
    double a, n2, T, Z;
    if (sscanf(line, "%63[^\t]\t%lf\t%lf\t%lf\t%lf", name, &a, &n2, &T, &Z) != 5 || !isfinite(T) ||
        !isfinite(Z))
      bg_lab_fail("%s:%d: a row is series, a_m, n2, T, Z (numbers)", path, ln);
    if (strcmp(name, series) != 0) continue;
    if (p.n == 64) bg_lab_fail("%s: more than 64 points in series %s", path, series);
    p.T[p.n] = T;
    p.Z[p.n++] = Z;
  }
  fclose(fp);
  if (p.n < 2) bg_lab_fail("%s: series %s has %d points, at least 2 needed", path, series, p.n);
  return p;
}

double db_front_at(const double *T, const double *Z, size_t n, double t) {
  for (size_t i = 1; i < n; ++i)
    if (T[i] >= t && T[i - 1] <= t) {
      double w = T[i] > T[i - 1] ? (t - T[i - 1]) / (T[i] - T[i - 1]) : 0;
      return Z[i - 1] + w * (Z[i] - Z[i - 1]);
    }
  return NAN;
}

/* rms and max of |Z(T_i - lag) - Z_i| over the points, for the front
 * (T, Z) of n samples; points outside the front's range are skipped, and
 * fewer than half of them inside reads NaN. */
static double rms_lag(const double *T, const double *Z, size_t n, const db_points *p, double lag,
                      double *max_abs) {
  double s = 0, mx = 0;
  int k = 0;
  for (int i = 0; i < p->n; ++i) {
    double d = db_front_at(T, Z, n, p->T[i] - lag) - p->Z[i];
    if (isnan(d)) continue;
    s += d * d;
    mx = fabs(d) > mx ? fabs(d) : mx;
    ++k;
  }
  if (max_abs) *max_abs = k ? mx : NAN;
  return 2 * k >= p->n ? sqrt(s / k) : NAN;
}

static double rms_against(const db_front *f, const double *Z, const db_points *p, double *max_abs) {
  return rms_lag(f->T, Z, f->n, p, 0, max_abs);
}

/* The least rms over lags 0 to LAG_MAX in T (the experiment's clock starting
 * before its water moved: the gate's removal), on a grid of 0.005. */
#define LAG_MAX 0.5
static double best_lag(const double *T, const double *Z, size_t n, const db_points *p,
                       double *rms_best) {
  double best = NAN, lag_best = 0;
  for (int i = 0; i <= (int)lround(LAG_MAX / 0.005); ++i) {
    double lag = 0.005 * i, r = rms_lag(T, Z, n, p, lag, NULL);
    if (!isnan(r) && !(r >= best)) {
      best = r;
      lag_best = lag;
    }
  }
  *rms_best = best;
  return lag_best;
}

/* The experiment's own spread: rms of the small column's points against
 * the Table 2 column's front, linearly interpolated, where both exist. */
static double own_spread(const db_points *big, const db_points *small) {
  double s = 0;
  int n = 0;
  for (int i = 0; i < small->n; ++i) {
    double z = db_front_at(big->T, big->Z, (size_t)big->n, small->T[i]);
    if (isnan(z)) continue;
    s += (z - small->Z[i]) * (z - small->Z[i]);
    ++n;
  }
  return n ? sqrt(s / n) : NAN;
}

static void write_fronts(bg_lab *lab, const db_front *f, int nf) {
  FILE *fp = bg_lab_tsv(
      lab, "front.tsv",
      "dam break: surge front Z = (x_toe - x_wall)/a against T = t sqrt(n^2 g/a), per grid",
      "cells_per_a\tdx_m\tT\tZ_toe\tZ_floor_mean");
  for (int k = 0; k < nf; ++k) {
    for (size_t i = 0; i < f[k].n; ++i)
      fprintf(fp, "%d\t%.6g\t%.6g\t%.6g\t%.6g\n", f[k].cells, f[k].dx, f[k].T[i], f[k].Z[i],
              f[k].Zmean[i]);
  }
  fclose(fp);
}

static void write_points(bg_lab *lab, const db_points *big, const db_points *small) {
  FILE *fp = bg_lab_tsv(
      lab, "mm_points.tsv",
      "Martin & Moyce 1952 (references/literature/martin_moyce1952.tsv): table2 their Table 2 "
      "(a 2.25 in), fig3_small their Fig. 3 (a 1.125 in), both n^2 = 2",
      "series\tT\tZ");
  for (int i = 0; i < big->n; ++i) fprintf(fp, "table2\t%.6g\t%.6g\n", big->T[i], big->Z[i]);
  for (int i = 0; i < small->n; ++i)
    fprintf(fp, "fig3_small\t%.6g\t%.6g\n", small->T[i], small->Z[i]);
  fclose(fp);
}

void db_judge(bg_lab *lab, const db_options *o, const db_front *f, int nf, const db_hydro *h) {
  db_points big = db_read_points(lab, "table2"), small = db_read_points(lab, "fig3_small");
  write_fronts(lab, f, nf);
  write_points(lab, &big, &small);
  FILE *cv = bg_lab_tsv(
      lab, "convergence.tsv", "dam break: the front against Martin & Moyce's Table 2, per grid",
      "cells_per_a\tdx_m\tparticles\tsteps\trms_dZ\tmax_abs_dZ\tbest_lag_T\trms_dZ_lagged\t"
      "rms_dZ_floor_mean\tZ_at_T_last_point");
  for (int k = 0; k < nf; ++k) {
    double mx, rms = rms_against(&f[k], f[k].Z, &big, &mx), rl,
               lag = best_lag(f[k].T, f[k].Z, f[k].n, &big, &rl);
    double rms_mean = rms_against(&f[k], f[k].Zmean, &big, NULL);
    fprintf(cv, "%d\t%.6g\t%zu\t%.0f\t%.6g\t%.6g\t%.4g\t%.6g\t%.6g\t%.6g\n", f[k].cells, f[k].dx,
            f[k].particles, f[k].steps, rms, mx, lag, rl, rms_mean,
            db_front_at(f[k].T, f[k].Z, f[k].n, big.T[big.n - 1]));
  }
  fclose(cv);
  const db_front *fine = &f[nf - 1];
  double mx, rms = rms_against(fine, fine->Z, &big, &mx);
  bg_lab_manifest_num(lab, "front_rms_finest", rms);
  bg_lab_manifest_num(lab, "front_max_abs_finest", mx);
  bg_lab_manifest_num(lab, "experiment_own_spread_rms", own_spread(&big, &small));
  if (nf > 1) {
    const db_front *c = &f[nf - 2];
    double dmax = 0;
    for (int i = 0; i < big.n; ++i)
      dmax = fmax(dmax, fabs(db_front_at(fine->T, fine->Z, fine->n, big.T[i]) -
                             db_front_at(c->T, c->Z, c->n, big.T[i])));
    bg_lab_manifest_num(lab, "front_max_change_last_refinement", dmax);
  }
  bg_lab_claim(lab, "dambreak.front", rms);
  /* positive control: the experiment's other column through the same comparison */
  bg_lab_claim_mutant(lab, "front-small-column", "dambreak.front",
                      rms_lag(small.T, small.Z, (size_t)small.n, &big, 0, NULL));
  double rms_lagged, lag = best_lag(fine->T, fine->Z, fine->n, &big, &rms_lagged), rms_mean_lagged;
  bg_lab_manifest_num(lab, "front_best_lag_T", lag);
  bg_lab_claim(lab, "dambreak.front_lagged", rms_lagged);
  best_lag(fine->T, fine->Zmean, fine->n, &big, &rms_mean_lagged);
  bg_lab_claim_mutant(lab, "front-mean", "dambreak.front_lagged", rms_mean_lagged);

  bg_lab_manifest_num(lab, "hydro_dx_m", h->dx);
  bg_lab_manifest_num(lab, "hydro_mass_kg", h->M);
  bg_lab_manifest_num(lab, "hydro_h_mean_m", h->h_mean);
  bg_lab_manifest_num(lab, "hydro_h_nominal_m", h->h_nominal);
  bg_lab_manifest_num(lab, "hydro_force_rms_of_Mg", h->force_rms_rel);
  bg_lab_manifest_num(lab, "column_T_scale_per_s", sqrt(o->n2 * h->g / o->a));
  FILE *hy =
      bg_lab_tsv(lab, "hydrostatic.tsv",
                 "settled column: floor pressure against rho0 g h_mean (h_mean = M / (rho0 A))",
                 "dx_m\tmass_kg\tarea_m2\th_mean_m\tp_floor_Pa\tp_fed_Pa\tforce_rms_of_Mg");
  fprintf(hy, "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.3g\n", h->dx, h->M, h->area, h->h_mean,
          h->p_floor, h->p_fed, h->force_rms_rel);
  fclose(hy);
  bg_lab_claim_fed(lab, "dambreak.hydrostatic", h->p_floor, h->p_fed);
  /* taichi_mpm's gravity 10 in place of the fed 9.81: a unit slip */
  bg_lab_claim_mutant_fed(lab, "g-taichi", "dambreak.hydrostatic", h->p_floor,
                          h->rho0 * 10.0 * h->h_mean);
}
