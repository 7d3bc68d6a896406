/* cantilever_fit.c: the cantilever's closed forms, its refinement (the
 * ratio r = deflection / w_EB(x_col) on each grid, extrapolated as
 * r(dx) = r_inf + c (dx / h)^p through the grids), its files and its
 * claims (references/derivations/elastic.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bg_fit.h"
#include "cantilever.h"

/* Timoshenko's shear coefficient of a rectangular section. */
#define KAPPA (5.0 / 6.0)

double cant_modulus(const cant_beam *bm) {
  return bm->plane_strain ? bm->E / (1.0 - bm->nu * bm->nu) : bm->E;
}

double cant_inertia(const cant_beam *bm) {
  return bm->wrong_axis ? bm->h * bm->b * bm->b * bm->b / 12.0
                        : bm->b * bm->h * bm->h * bm->h / 12.0;
}

/* q x^2 (6 L^2 - 4 L x + x^2) / (24 E I), q = rho0 g b h */
double cant_w_eb(const cant_beam *bm, double x) {
  double q = bm->rho0 * bm->g * bm->b * bm->h;
  return q * x * x * (6.0 * bm->L * bm->L - 4.0 * bm->L * x + x * x) /
         (24.0 * cant_modulus(bm) * cant_inertia(bm));
}

/* q (L x - x^2 / 2) / (kappa G b h) */
double cant_w_shear(const cant_beam *bm, double x) {
  double q = bm->rho0 * bm->g * bm->b * bm->h, G = bm->E / (2.0 * (1.0 + bm->nu));
  return q * (bm->L * x - 0.5 * x * x) / (KAPPA * G * bm->b * bm->h);
}

double cant_omega1(const cant_beam *bm) {
  const double beta = 1.8751040687119611; /* the first root of 1 + cos b cosh b = 0 */
  return beta * beta * sqrt(cant_modulus(bm) * cant_inertia(bm) / (bm->rho0 * bm->b * bm->h)) /
         (bm->L * bm->L);
}

/* The closed-form beam of grid pt as the simulation holds its material. */
static cant_beam beam_of(const cant_plan *pl, const cant_point *pt) {
  cant_beam bm = {pl->L, pl->L / pl->aspect, pt->dx, pt->E, pt->nu, pt->rho0, pt->g, 0, 0};
  /* the mutant e-doubled: the expected value from the experiment's own E,
   * not the E the simulation was given */
  if (bg_lab_mutant_is(pl->lab, "e-doubled")) bm.E = pl->E;
  return bm;
}

/* The refinement: r_inf, the order p and c of r = r_inf + c (dx/h)^p
 * through the grids. Three grids determine it (Richardson's closed form
 * for halvings of dx; NaN when the differences change sign, i.e. no
 * monotone convergence); more are fitted (GSL, from the three finest
 * grids' values); with two, p = 1. */
typedef struct refine {
  double r_inf, c, p;
  int method; /* 2: two grids, p = 1; 3: three, closed form; 4: the fit over more (-4: it failed) */
} refine;

/* Through the last three grids, whose dx halve. */
static refine richardson3(const double *hx, const double *r, int n) {
  refine f;
  double d1 = r[n - 3] - r[n - 2], d2 = r[n - 2] - r[n - 1];
  f.p = d2 / d1 > 0 ? log(d1 / d2) / log(hx[n - 3] / hx[n - 2]) : NAN;
  f.c = d2 / (pow(hx[n - 2], f.p) - pow(hx[n - 1], f.p));
  f.r_inf = r[n - 1] - f.c * pow(hx[n - 1], f.p);
  f.method = 3;
  return f;
}

static refine refine_ratio(const double *hx, const double *r, int n) {
  refine f;
  if (n == 2) {
    f.p = 1.0;
    f.c = (r[0] - r[1]) / (hx[0] - hx[1]);
    f.r_inf = r[1] - f.c * hx[1];
    f.method = 2;
    return f;
  }
  f = richardson3(hx, r, n);
  if (n == 3 || !isfinite(f.p)) return f;
  double start[3] = {f.r_inf, f.c, f.p};
  bg_fit_result fr = bg_fit_refine(hx, r, (size_t)n, start);
  f.r_inf = fr.p[0];
  f.c = fr.p[1];
  f.p = fr.p[2];
  f.method = fr.status == 0 ? 4 : -4;
  return f;
}

void cant_analyse(const cant_plan *pl, const cant_point *pt, int n) {
  bg_lab *lab = pl->lab;
  double hx[CANT_MAX_LEVELS], r[CANT_MAX_LEVELS], r_ps[CANT_MAX_LEVELS], r_ax[CANT_MAX_LEVELS];
  const cant_point *fine = &pt[n - 1];
  cant_beam bm = beam_of(pl, fine);
  const double w_L = cant_w_eb(&bm, bm.L), shear = cant_w_shear(&bm, bm.L) / w_L;
  FILE *f = bg_lab_tsv(
      lab, "levels.tsv",
      "cantilever under its own weight, free sides, one row per grid: the tip column's "
      "mean deflection against Euler-Bernoulli w_EB(x_col) and Timoshenko's shear term",
      "cells_per_h\tdx_m\tparticles\tsteps\tx_col_m\tdeflection_m\tw_eb_m\tw_shear_m\tratio\t"
      "settle\twall_s");
  for (int k = 0; k < n; ++k) {
    cant_beam b = beam_of(pl, &pt[k]);
    double w = cant_w_eb(&b, pt[k].x_col), ws = cant_w_shear(&b, pt[k].x_col);
    hx[k] = 1.0 / pt[k].cells;
    r[k] = pt[k].defl / w;
    b.plane_strain = 1;
    r_ps[k] = pt[k].defl / cant_w_eb(&b, pt[k].x_col);
    b.plane_strain = 0;
    b.wrong_axis = 1;
    r_ax[k] = pt[k].defl / cant_w_eb(&b, pt[k].x_col);
    fprintf(f, "%g\t%.6g\t%.0f\t%.0f\t%.6g\t%.8g\t%.8g\t%.6g\t%.6f\t%.3g\t%.1f\n", pt[k].cells,
            pt[k].dx, pt[k].particles, pt[k].steps, pt[k].x_col, pt[k].defl, w, ws, r[k],
            pt[k].settle, pt[k].wall_s);
  }
  fclose(f);
  f = bg_lab_tsv(
      lab, "history.tsv",
      "tip deflection while the beam settles, per grid, over w_EB(L) and in periods T1 of mode 1",
      "cells_per_h\tt_over_T1\tdeflection_over_w_eb");
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < pt[k].n_hist; ++i)
      fprintf(f, "%g\t%.5f\t%.6f\n", pt[k].cells, pt[k].hist[i][0] / pt[k].T1,
              pt[k].hist[i][1] / w_L);
  fclose(f);

  refine rf = refine_ratio(hx, r, n);
  refine rps = refine_ratio(hx, r_ps, n), rax = refine_ratio(hx, r_ax, n);
  f = bg_lab_tsv(
      lab, "refinement.tsv",
      "the ratio deflection / w_EB fitted as r_inf + c (dx/h)^p over the grids, and Timoshenko's "
      "ratio 1 + shear term at the tip",
      "r_inf\tc\torder_p\tmethod\tr_timoshenko\tw_eb_tip_m");
  fprintf(f, "%.6f\t%.6g\t%.4f\t%d\t%.6f\t%.8g\n", rf.r_inf, rf.c, rf.p, rf.method, 1.0 + shear,
          w_L);
  fclose(f);
  bg_lab_progress(
      lab, "ratio deflection / w_EB: r_inf %.5f (order %.3f), finest %.5f; Timoshenko 1 + %.4f",
      rf.r_inf, rf.p, r[n - 1], shear);
  bg_lab_manifest_num(lab, "ratio_extrapolated", rf.r_inf);
  bg_lab_manifest_num(lab, "ratio_finest", r[n - 1]);
  bg_lab_manifest_num(lab, "observed_order", rf.p);
  bg_lab_manifest_num(lab, "refinement_method", rf.method);
  bg_lab_manifest_num(lab, "timoshenko_shear_ratio", shear);
  bg_lab_manifest_num(lab, "w_eb_tip_m", w_L);
  bg_lab_manifest_num(lab, "tip_over_length", w_L / bm.L);
  double worst_settle = 0;
  for (int k = 0; k < n; ++k) worst_settle = fmax(worst_settle, pt[k].settle);
  bg_lab_manifest_num(lab, "settle_worst", worst_settle);

  /* the extrapolated tip deflection against the closed form of the fed
   * material; the mutants' closed forms on the same data */
  bg_lab_claim_fed(lab, "cantilever.tip_deflection", rf.r_inf * w_L, w_L);
  cant_beam b2 = bm;
  b2.plane_strain = 1;
  bg_lab_claim_mutant_fed(lab, "plane-strain-modulus", "cantilever.tip_deflection",
                          rps.r_inf * cant_w_eb(&b2, b2.L), cant_w_eb(&b2, b2.L));
  b2 = bm;
  b2.wrong_axis = 1;
  bg_lab_claim_mutant_fed(lab, "i-wrong-axis", "cantilever.tip_deflection",
                          rax.r_inf * cant_w_eb(&b2, b2.L), cant_w_eb(&b2, b2.L));
  /* convergence: the finest grid's error against the coarsest's, both
   * from Timoshenko's ratio */
  double e0 = fabs(r[0] - (1.0 + shear)), e1 = fabs(r[n - 1] - (1.0 + shear));
  bg_lab_manifest_num(lab, "error_coarsest", e0);
  bg_lab_manifest_num(lab, "error_finest", e1);
  bg_lab_claim(lab, "cantilever.convergence", e1 / e0);
}
