/* heap_stages.c: the read-out of the poured heap and the collapse on each
 * grid, the flank's history, the fit-window scan, the convergence verdict
 * and the claims (see heap.c). */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

/* the windows of the identifiability scan, of the deposit's height; the
 * second is the repose estimator's band */
const double heap_win_lo[HEAP_N_WIN] = {0.1, 0.2, 0.3, 0.2, 0.5}, heap_win_hi[HEAP_N_WIN] = {0.5, 0.8, 0.9, 0.5, 0.8};

/* Three grids, refinement ratio r: the Richardson estimate from the last
 * three angles. Converging when the two steps have one sign and shrink;
 * then p = ln(e1 / e2) / ln r and theta_inf = theta_3 + e2 / (r^p - 1). */
typedef struct heap_conv {
  double last_step, p, theta_inf;
  const char *verdict;
} heap_conv;

static heap_conv richardson(const double *th, const int *cells, int n) {
  heap_conv c = {NAN, NAN, NAN, "two grids: last step only"};
  if (n < 2) return c;
  c.last_step = th[n - 1] - th[n - 2];
  if (n < 3) return c;
  double e1 = th[n - 2] - th[n - 3], e2 = th[n - 1] - th[n - 2];
  double r = sqrt((double)cells[n - 1] / cells[n - 3]);
  if (!isfinite(e1) || !isfinite(e2)) {
    c.verdict = "not measured";
  } else if (e1 * e2 > 0 && fabs(e2) < fabs(e1)) {
    c.p = log(e1 / e2) / log(r);
    c.theta_inf = th[n - 1] + e2 / (pow(r, c.p) - 1);
    c.verdict = "converging (monotone, shrinking steps)";
  } else if (e1 * e2 < 0) {
    c.verdict = "oscillating";
  } else {
    c.verdict = "not converging (steps grow)";
  }
  return c;
}

/* heap.converged's measure: the last step |theta_finest - theta_next| of a
 * sequence whose last steps shrink with one sign (richardson), NaN for any
 * other (no convergence seen) */
static double converged_step(const double *th, const int *cells, int n) {
  heap_conv c = richardson(th, cells, n);
  return isfinite(c.theta_inf) ? fabs(c.last_step) : NAN;
}

static void write_profile(bg_lab *lab, const result *r, const char *what, int cells, double H0, const char *fn) {
  char cm[256];
  snprintf(cm, sizeof cm, "%s deposit profile along x (mean over the slab), dx = %.4g m (%d cells per R0)", what,
           r->dx, cells);
  FILE *fp = bg_lab_tsv(lab, fn, cm, "x_m\th_m\th_over_H0");
  for (int b = 0; b < r->nbins; ++b) fprintf(fp, "%.6g\t%.6g\t%.6g\n", r->rbin[b], r->hbin[b], r->hbin[b] / H0);
  fclose(fp);
}

static void write_series(bg_lab *lab, const heap_result *h, int cells, const char *fn) {
  char cm[256];
  snprintf(cm, sizeof cm, "the poured heap while it grows, %d cells per R0: flank angle = line fit of the profile over "
                          "0.2-0.8 h_max, columns outside the funnel's footprint; mass = the source's emitted mass",
           cells);
  FILE *fp = bg_lab_tsv(lab, fn, cm, "t_s\tmass_kg\tmass_frac\th_max_m\ttheta_deg\ttoe_m\tke_J");
  for (int i = 0; i < h->n_rows; ++i) {
    const heap_row *r = &h->rows[i];
    fprintf(fp, "%.5f\t%.6g\t%.5f\t%.6g\t%.4f\t%.6g\t%.5g\n", r->t, r->mass, r->mass / h->mass_target, r->h_max,
            r->theta, r->toe, r->ke);
  }
  fclose(fp);
}

/* the mean flank angle of the history rows with t0 <= t < t1; NaN if a row
 * in it has no angle or none is in it */
static double series_mean(const heap_result *h, double t0, double t1) {
  double sum = 0;
  int k = 0;
  for (int i = 0; i < h->n_rows; ++i)
    if (h->rows[i].t >= t0 && h->rows[i].t < t1) {
      sum += h->rows[i].theta;
      k++;
    }
  return k ? sum / k : NAN;
}

static const bg_column_scene *ridge_scene(const heap_plan *pl, int gi) { return &pl->collapse[gi]; }

/* What the read-out gathers from the grids before it judges. */
typedef struct heap_angles {
  double th_h[HEAP_MAX_GRIDS], th_c[HEAP_MAX_GRIDS]; /* settled flank, heap and collapse, deg */
  double win_h[HEAP_MAX_GRIDS][HEAP_N_WIN];          /* the heap's flank per fit window */
  double win_s[HEAP_N_WIN], straight_main;           /* the straight-flank control's, finest grid */
  double pour_mean[HEAP_MAX_GRIDS], after_mean[HEAP_MAX_GRIDS];
  double flow_fed; /* the flow angle of the friction the simulation holds, deg */
} heap_angles;

/* 1. each grid's pour and collapse: the settled angles, the windows, the
 * history and the profiles */
static void read_grids(heap_plan *pl, heap_angles *A) {
  bg_lab *lab = pl->lab;
  const int n = pl->grids;
  double *th_h = A->th_h, *th_c = A->th_c, *pour_mean = A->pour_mean, *after_mean = A->after_mean;
  FILE *ff = bg_lab_tsv(lab, "final.tsv",
                        "settled flank angle per grid, the repose estimator (profile line fit, 0.2-0.8 h_max) on the "
                        "poured heap and on the collapsed column of the same sand and mass",
                        "cells_per_R0\tdx_m\ttheta_heap_deg\ttheta_collapse_deg\theap_minus_collapse_deg\th_max_heap_m\t"
                        "h_max_collapse_m\ttoe_heap_m\ttoe_collapse_m\tmass_poured_kg\tmass_target_kg\tsettled_heap\t"
                        "settled_collapse\tt_end_heap_s\tparticles_heap\ttheta_flow_fed_deg\toutlet_buried");
  FILE *fw = bg_lab_tsv(lab, "windows.tsv",
                        "the settled flank angle by fit window (fractions of h_max): how far the angle is identified",
                        "cells_per_R0\twin_lo\twin_hi\ttheta_heap_deg\ttheta_collapse_deg");
  for (int gi = 0; gi < n; ++gi) {
    heap_result hr = heap_result_unpack(&pl->packed[gi]);
    bg_column_result cc = bg_column_result_unpack(&pl->packed[n + gi]);
    const bg_column_scene *sc = ridge_scene(pl, gi);
    char tag[64];
    snprintf(tag, sizeof tag, "pour %d/%d", gi + 1, n);
    /* the flow angle of the sand as the simulation holds it */
    double flow = hr.mu_s_fed > 0 ? atan(hr.mu_s_fed) * DEG : repose_flow_angle(hr.phi_fed);
    if (gi == n - 1) A->flow_fed = flow;
    char sfn[64];
    snprintf(sfn, sizeof sfn, "series_g%d.tsv", gi);
    write_series(lab, &hr, pl->gcells[gi], sfn);
    /* the growing heap's flank over the second half of the pour, and over
     * the settling after it (reported) */
    pour_mean[gi] = series_mean(&hr, 0.5 * pl->heap[gi].t_pour, pl->heap[gi].t_pour);
    after_mean[gi] = series_mean(&hr, pl->heap[gi].t_pour, INFINITY);
    int settled_h = hr.settled;
    double mp = hr.mass_poured, mt = hr.mass_target, t_end = hr.col.t_end;
    size_t np = hr.col.n_particles;
    result rh = repose_measure(lab, sc, tag, hr.col); /* takes the column's arrays */
    hr.col.hf = hr.col.rbin = hr.col.hbin = NULL;
    free(hr.rows);
    snprintf(tag, sizeof tag, "collapse %d/%d", gi + 1, n);
    result rc = repose_measure(lab, sc, tag, cc);
    th_h[gi] = rh.theta[0];
    th_c[gi] = rc.theta[0];
    for (int w = 0; w < HEAP_N_WIN; ++w) {
      A->win_h[gi][w] = heap_window_angle(rh.rbin, rh.hbin, rh.nbins, heap_win_lo[w], heap_win_hi[w], rh.h_max);
      fprintf(fw, "%d\t%.2f\t%.2f\t%.4f\t%.4f\n", pl->gcells[gi], heap_win_lo[w], heap_win_hi[w], A->win_h[gi][w],
              heap_window_angle(rc.rbin, rc.hbin, rc.nbins, heap_win_lo[w], heap_win_hi[w], rc.h_max));
    }
    /* a heap that reached the outlet was fed from inside it: not a poured heap */
    int buried = rh.h_max >= pl->heap[gi].funnel_z - 2 * rh.dx;
    if (buried)
      bg_lab_progress(lab, "pour %d/%d: the heap (%.1f mm) reached the outlet (%.1f mm): raise --funnel-height", gi + 1,
                      n, rh.h_max * 1e3, pl->heap[gi].funnel_z * 1e3);
    if (gi == n - 1) {
      /* the straight-flank control: the profile replaced by a straight flank
       * at the fed flow angle from the summit, on the same bins */
      double *hs = malloc((size_t)(rh.nbins > 0 ? rh.nbins : 1) * sizeof *hs);
      if (!hs) bg_lab_fail("out of memory for a profile");
      double t = tan(flow / DEG);
      for (int b = 0; b < rh.nbins; ++b) hs[b] = fmax(0.0, rh.h_max - t * rh.rbin[b]);
      for (int w = 0; w < HEAP_N_WIN; ++w)
        A->win_s[w] = heap_window_angle(rh.rbin, hs, rh.nbins, heap_win_lo[w], heap_win_hi[w], rh.h_max);
      A->straight_main = A->win_s[HEAP_WIN_MAIN];
      free(hs);
    }
    fprintf(ff, "%d\t%.6g\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%d\t%.4f\t%zu\t%.4f\t%d\n",
            pl->gcells[gi], rh.dx, th_h[gi], th_c[gi], th_h[gi] - th_c[gi], rh.h_max, rc.h_max, rh.runout,
            rc.runout, mp, mt, settled_h, rc.settled, t_end, np, flow, buried);
    if (buried) th_h[gi] = NAN; /* every claim on it then fails */
    char pfn[64];
    snprintf(pfn, sizeof pfn, "profile_heap_g%d.tsv", gi);
    write_profile(lab, &rh, "poured heap", pl->gcells[gi], pl->H0, pfn);
    snprintf(pfn, sizeof pfn, "profile_collapse_g%d.tsv", gi);
    write_profile(lab, &rc, "collapse", pl->gcells[gi], pl->H0, pfn);
    bg_lab_progress(lab, "grid %d/%d (%d cells per R0): heap %.2f deg, collapse %.2f deg, flow angle %.2f deg", gi + 1,
                    n, pl->gcells[gi], th_h[gi], th_c[gi], flow);
    free(rh.rbin);
    free(rh.hbin);
    free(rc.rbin);
    free(rc.hbin);
  }
  fclose(ff);
  fclose(fw);
}

/* 2. each protocol's convergence in dx */
static heap_conv write_convergence(heap_plan *pl, const heap_angles *A) {
  bg_lab *lab = pl->lab;
  const int n = pl->grids;
  const double *th_h = A->th_h, *th_c = A->th_c;
  heap_conv ch = richardson(th_h, pl->gcells, n), cv = richardson(th_c, pl->gcells, n);
  FILE *fc = bg_lab_tsv(lab, "convergence.tsv",
                        "dx convergence of the settled angle: last step (finest minus next), Richardson order and "
                        "limit from the last three grids when the steps shrink with one sign",
                        "protocol\ttheta_finest_deg\tlast_step_deg\tp\ttheta_inf_deg\tverdict");
  fprintf(fc, "heap\t%.4f\t%.4f\t%.4f\t%.4f\t%s\n", th_h[n - 1], ch.last_step, ch.p, ch.theta_inf, ch.verdict);
  fprintf(fc, "collapse\t%.4f\t%.4f\t%.4f\t%.4f\t%s\n", th_c[n - 1], cv.last_step, cv.p, cv.theta_inf, cv.verdict);
  fclose(fc);
  bg_lab_progress(lab, "heap: %s (last step %+.2f deg); collapse: %s (last step %+.2f deg)", ch.verdict,
                  ch.last_step, cv.verdict, cv.last_step);
  bg_lab_manifest_num(lab, "theta_heap_finest_deg", th_h[n - 1]);
  bg_lab_manifest_num(lab, "theta_collapse_finest_deg", th_c[n - 1]);
  bg_lab_manifest_str(lab, "heap_convergence", ch.verdict);
  bg_lab_manifest_str(lab, "collapse_convergence", cv.verdict);
  return ch;
}

/* 3. the claims, with the mutants' and controls' values */
static void judge(heap_plan *pl, const heap_angles *A, double *spread) {
  bg_lab *lab = pl->lab;
  const int n = pl->grids;
  const double *th_h = A->th_h, *th_c = A->th_c, *pour_mean = A->pour_mean, flow_fed = A->flow_fed;
  /* the claims, on the finest grid. The flow angle the heap is held to is
   * the simulation's own (read back from it) */
  const int f = n - 1;
  bg_lab_claim(lab, "heap.below_flow", th_h[f] - flow_fed);
  /* the height field's vertical scale read 2x: the flank reads atan(2 tan theta) */
  bg_lab_claim_mutant(lab, "heights-doubled", "heap.below_flow", atan(2 * tan(th_h[f] / DEG)) * DEG - flow_fed);
  bg_lab_claim_fed(lab, "heap.at_flow", th_h[f], flow_fed);
  /* positive control: the repose estimator on a straight flank at the fed flow angle */
  bg_lab_claim_mutant_fed(lab, "straight-flank", "heap.at_flow", A->straight_main, flow_fed);
  /* while the sand flows: the flank over the second half of the pour */
  bg_lab_claim(lab, "heap.pour_vs_flow", pour_mean[f] - flow_fed);
  /* the settled deposit's angle read in place of the growing heap's */
  bg_lab_claim_mutant(lab, "settled-for-pour", "heap.pour_vs_flow", th_h[f] - flow_fed);
  bg_lab_claim(lab, "heap.above_collapse", th_h[f] - th_c[f]);
  bg_lab_claim_mutant(lab, "protocols-swapped", "heap.above_collapse", th_c[f] - th_h[f]);
  double wmin = INFINITY, wmax = -INFINITY, smin = INFINITY, smax = -INFINITY;
  for (int w = 0; w < HEAP_N_WIN; ++w) {
    wmin = fmin(wmin, A->win_h[f][w]);
    wmax = fmax(wmax, A->win_h[f][w]);
    if (!isfinite(A->win_h[f][w])) wmin = wmax = NAN;
    smin = fmin(smin, A->win_s[w]);
    smax = fmax(smax, A->win_s[w]);
    if (!isfinite(A->win_s[w])) smin = smax = NAN;
  }
  bg_lab_claim(lab, "heap.window_spread", wmax - wmin);
  /* positive control: the same window scan on a straight flank at the fed flow angle */
  bg_lab_claim_mutant(lab, "straight-flank", "heap.window_spread", smax - smin);
  /* converged: the last three grids' steps shrink with one sign and the
   * last one is within the tolerance; NaN (a fail) otherwise */
  bg_lab_claim(lab, "heap.converged", converged_step(th_h, pl->gcells, n));
  /* positive control: a sequence converging at order 2, theta_flow - 2 (dx / dx_coarse)^2 */
  {
    double thc[HEAP_MAX_GRIDS] = {0};
    for (int gi = 0; gi < n; ++gi) {
      double q = (double)pl->gcells[0] / pl->gcells[gi];
      thc[gi] = flow_fed - 2 * q * q;
    }
    bg_lab_claim_mutant(lab, "converging-sequence", "heap.converged", converged_step(thc, pl->gcells, n));
  }
  *spread = wmax - wmin;
}

/* 4. the run's numbers in one table */
static void write_summary(heap_plan *pl, const heap_angles *A, const heap_conv *ch, double spread) {
  bg_lab *lab = pl->lab;
  const int n = pl->grids;
  const double *th_h = A->th_h, *th_c = A->th_c, flow_fed = A->flow_fed;
  double th_max = -INFINITY;
  for (int gi = 0; gi < n; ++gi) th_max = fmax(th_max, th_h[gi]);
  heap_conv cv = richardson(th_c, pl->gcells, n);
  FILE *fs = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
  fprintf(fs, "theta_flow_fed\t%.4f\tdeg\n", flow_fed);
  fprintf(fs, "theta_heap_finest\t%.4f\tdeg\n", th_h[n - 1]);
  fprintf(fs, "theta_collapse_finest\t%.4f\tdeg\n", th_c[n - 1]);
  fprintf(fs, "heap_minus_collapse_finest\t%.4f\tdeg\n", th_h[n - 1] - th_c[n - 1]);
  fprintf(fs, "window_spread_finest\t%.4f\tdeg\n", spread);
  fprintf(fs, "theta_heap_max_over_grids_minus_flow\t%.4f\tdeg\n", th_max - flow_fed);
  fprintf(fs, "heap_last_step\t%.4f\tdeg\n", ch->last_step);
  for (int gi = 0; gi < n; ++gi) {
    fprintf(fs, "pour_mean_theta_g%d\t%.4f\tdeg\n", gi, A->pour_mean[gi]);
    fprintf(fs, "after_pour_mean_theta_g%d\t%.4f\tdeg\n", gi, A->after_mean[gi]);
  }
  fprintf(fs, "collapse_last_step\t%.4f\tdeg\n", cv.last_step);
  fclose(fs);
}

void heap_readout(heap_plan *pl) {
  static heap_angles A; /* large: not on the stack */
  memset(&A, 0, sizeof A);
  A.flow_fed = A.straight_main = NAN;
  read_grids(pl, &A);
  heap_conv ch = write_convergence(pl, &A);
  double spread = NAN;
  judge(pl, &A, &spread);
  write_summary(pl, &A, &ch, spread);
}
