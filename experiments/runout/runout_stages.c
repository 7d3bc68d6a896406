/* runout_stages.c: the read-out of the runout experiment's runs, stage by
 * stage (runout.c's header says what each measures), and the judgement:
 * summary.tsv and the claims, with their mutants. */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runout.h"

void runout_aspect_sweep(runout_plan *pl, runout_readout *ro) {
  bg_lab *lab = pl->lab;
  const int na = pl->na;
  const double *aspects = pl->aspects;
  const bg_column_scene *scenes = pl->scenes;
  char(*tags)[64] = pl->tags;
  bg_column_result *results = pl->results;
  const int cells = pl->cells;
  const double R0 = pl->R0;
  const double dx = pl->dx;
  const double mu_floor = pl->mu_floor;
  /* 1. the aspect sweep */
  run_row *rows = ro->rows;
  FILE *fs = bg_lab_tsv(lab, "sweep.tsv",
                        "one run per aspect ratio a = H0/R0; runout_norm = (R_inf - R0)/R0; morphology summit when "
                        "H_inf >= H0 - dx; t_rest: kinetic energy below 1e-4 M g R0",
                        ROW_COLUMNS);
  int n_bad = 0;
  /* the friction angle the closed forms use is the one the simulations
   * hold, read back from them (Drucker-Prager; the other models have no
   * phi, and their claims do not use it) */
  double phi_fed = NAN;
  for (int i = 0; i < na; ++i) {
    const bg_column_scene sc = scenes[pl->next];
    const char *tag = tags[pl->next];
    bg_column_result r = results[pl->next++];
    if (i == 0) phi_fed = r.phi_fed;
    rows[i] = runout_row_of(&r, &sc);
    bg_lab_progress(lab, "%s: %s at t = %.3f s; runout %.1f mm, (R-R0)/R0 %.3f, H_inf/H0 %.3f (%s)%s", tag,
                    r.settled ? "settled" : "NOT settled", r.t_end, r.runout * 1e3, rows[i].y,
                    rows[i].h_center / r.H0, rows[i].summit ? "summit" : "conical",
                    r.runout_wall ? ", REACHES THE WALL" : "");
    runout_write_row(fs, &rows[i], R0, dx, mu_floor, cells);
    fflush(fs);
    char fn[64], cm[160];
    snprintf(fn, sizeof fn, "profile_a%02d.tsv", i);
    snprintf(cm, sizeof cm, "final radially averaged profile, a = %g, dx = %.4g m, R0 %.3g m", aspects[i], dx, R0);
    bg_column_write_profile(lab, &r, &sc, fn, cm);
    if (!r.settled || r.runout_wall) n_bad++;
    bg_column_result_free(&r);
  }
  fclose(fs);
  ro->phi_fed = phi_fed;
  ro->n_bad = n_bad;
}

void runout_law_fits(runout_plan *pl, runout_readout *ro) {
  bg_lab *lab = pl->lab;
  const int na = pl->na;
  const lit_law lube = pl->lube;
  const double R0 = pl->R0;
  const double fit_amax = pl->fit_amax;
  const double large_amin = pl->large_amin;
  const double phi = pl->phi;
  const double origin_amax = pl->origin_amax;
  const run_row *rows = ro->rows;
  const double phi_fed = ro->phi_fed;
  const int n_bad = ro->n_bad;
  /* 2. the law */
  double av[MAX_ASPECTS] = {0}, yv[MAX_ASPECTS] = {0}, yt[MAX_ASPECTS] = {0};
  for (int i = 0; i < na; ++i) {
    av[i] = rows[i].a;
    yv[i] = rows[i].y;
    yt[i] = rows[i].y_thr;
  }
  law_fit lf = runout_fit_law_upto(av, yv, (size_t)na, fit_amax);
  /* the break is measured only if it stays within the claim's tolerance
   * when the fitted range loses its largest aspect */
  int n_fit = 0;
  while (n_fit < na && av[n_fit] <= fit_amax * (1 + 1e-9)) n_fit++;
  double ab_tol = NAN;
  law_fit lf_prev = runout_fit_law(av, yv, (size_t)(n_fit > 0 ? n_fit - 1 : 0));
  bg_lab_claim_ref(lab, "runout.break", NULL, &ab_tol);
  double ab_claim = fabs(lf.ab - lf_prev.ab) <= ab_tol ? lf.ab : NAN;
  double adia[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) adia[i] = 0.5 * av[i];
  law_fit lf_dia = runout_fit_law_upto(adia, yv, (size_t)na, 0.5 * fit_amax);
  law_fit lf_thr = runout_fit_law_upto(av, yt, (size_t)na, fit_amax);
  power_fit pw = runout_fit_power(av, yv, (size_t)na, large_amin);
  power_fit pw_thr = runout_fit_power(av, yt, (size_t)na, large_amin);
  /* positive control (lube-law-data): Lube's own law at the measured
   * aspects, +-1% alternating, through the same fits, must give its slope
   * and exponent back */
  double ylube[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) ylube[i] = runout_lit_value(&lube, av[i]) * (i % 2 ? 1.01 : 0.99);
  power_fit pw_lube = runout_fit_power(av, ylube, (size_t)na, large_amin);
  law_fit lf_lube = runout_fit_law_upto(av, ylube, (size_t)na, fit_amax);
  /* the static bound on c1: the frustum at phi holding the column's volume
   * (references/derivations/runout.md section 1); the claim is c1 + 2 sigma
   * over it, >= 1 when the deposit is not significantly shorter */
  double phi_c = isfinite(phi_fed) ? phi_fed : phi;
  double c1_bound = 1.0 / (2.0 * tan(phi_c * M_PI / 180.0));
  /* the origin y(0) = 0, and the planted bug (runout-over-r0): y read as
   * R_inf / R0, the same fits on it */
  origin_fit of = runout_fit_origin(av, yv, (size_t)na, origin_amax);
  double yr[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) yr[i] = rows[i].runout / R0;
  origin_fit of_r = runout_fit_origin(av, yr, (size_t)na, origin_amax);
  law_fit lf_r = runout_fit_law_upto(av, yr, (size_t)na, fit_amax);
  law_fit lf_r_prev = runout_fit_law(av, yr, (size_t)(n_fit > 0 ? n_fit - 1 : 0));
  double ab_claim_r = fabs(lf_r.ab - lf_r_prev.ab) <= ab_tol ? lf_r.ab : NAN;
  power_fit pw_r = runout_fit_power(av, yr, (size_t)na, large_amin);
  if (n_bad) {
    bg_lab_progress(lab, "%d run(s) did not settle or reached the wall: the fit is not a free-deposit fit", n_bad);
    lf.c1 = lf.ab = lf.p = lf.c2 = NAN;
    ab_claim = lf_dia.ab = lf_dia.c1 = lf_thr.c1 = pw.p = pw_thr.p = NAN;
    of.b = of_r.b = ab_claim_r = lf_r.c1 = pw_r.p = NAN;
  }
  /* the same line through the static bound at the same aspects: the
   * intercept its curvature alone gives (the claim's tolerance, derivation
   * section 6) */
  double ys[MAX_ASPECTS];
  for (int i = 0; i < na; ++i) ys[i] = runout_y_static(av[i], phi_c);
  origin_fit of_s = runout_fit_origin(av, ys, (size_t)na, origin_amax);
  FILE *fo = bg_lab_tsv(lab, "origin.tsv",
                        "GSL straight line y = b + c a over the aspects a <= sqrt(3) tan phi, sigma_b from the scatter; "
                        "the definition y = (R_inf - R0)/R0 gives y(0) = 0 (no column, no runout); R_over_R0 is the "
                        "planted bug (mutant runout-over-r0); static_bound the frustum at phi (closed form)",
                        "quantity\ta_max\tn\tb\tsigma_b\tc");
  const origin_fit *ofs[3] = {&of, &of_r, &of_s};
  const char *ofn[3] = {"toe_runout_norm", "toe_R_over_R0", "static_bound"};
  for (int k = 0; k < 3; ++k)
    fprintf(fo, "%s\t%.5f\t%d\t%.6f\t%.6f\t%.6f\n", ofn[k], origin_amax, ofs[k]->n, ofs[k]->b, ofs[k]->s_b,
            ofs[k]->c);
  fclose(fo);
  bg_lab_progress(lab, "origin a <= %.3g (%d aspects): y(0) = b = %.4f +- %.4f (slope %.3f); static bound's line %.4f; "
                  "with y = R/R0: %.4f", origin_amax, of.n, of.b, of.s_b, of.c, of_s.b, of_r.b);
  /* identifiability: the same two fits as the fitted range changes */
  FILE *fr = bg_lab_tsv(lab, "fit_ranges.tsv",
                        "the two-regime fit over a <= a_max and the power law over a >= a_min, as the range "
                        "changes (toe estimator); the claims use a_max = fit_amax and a_min = large_amin",
                        "a_limit	kink_c1	kink_a_break	kink_p	kink_chi2	power_p	sigma_power_p	power_c2	power_n");
  for (int i = 0; i < na; ++i) {
    law_fit k = runout_fit_law_upto(av, yv, (size_t)na, av[i]);
    power_fit q = runout_fit_power(av, yv, (size_t)na, av[i]);
    fprintf(fr, "%g\t%.5f\t%.5f\t%.5f\t%.4g\t%.5f\t%.5f\t%.5f\t%d\n", av[i], k.c1, k.ab, k.p, k.chi2, q.p, q.s_p,
            q.c2, q.n);
  }
  fclose(fr);
  FILE *ff = bg_lab_tsv(lab, "fit.tsv",
                        "GSL fit (R_inf-R0)/R0 = c1 a for a < a_b, c1 a_b (a/a_b)^p above (c2 = c1 a_b^(1-p)); "
                        "1-sigma from (J^T J)^-1 chi2/dof",
                        "c1\tsigma_c1\ta_break\tsigma_a_break\tp\tsigma_p\tc2\tsigma_c2\tchi2\tdof\tn_below\tn_above\tgsl_status\tlube_a_break\tlajeunesse_a_break\t"
                        "fit_amax\tlarge_amin\tlarge_p\tsigma_large_p\tlarge_c2\tlarge_n");
  fprintf(ff, "%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.4g\t%d\t%d\t%d\t%d\t%g\t%g\t%g\t%g\t%.5f\t%.5f\t%.5f\t%d\n",
          lf.c1, lf.s_c1, lf.ab, lf.s_ab, lf.p, lf.s_p, lf.c2, lf.s_c2, lf.chi2, lf.dof, lf.n_below, lf.n_above,
          lf.status, lube.ab, runout_read_law(lab, LAWS, "lajeunesse2004").ab, fit_amax, large_amin, pw.p, pw.s_p, pw.c2,
          pw.n);
  fclose(ff);
  /* the seed's fitted law, in the literature table's seed rows */
  lit_law seed = {NAN, NAN, NAN, NAN, 1};
  seed.c1 = runout_read_law(lab, SEED, "runout_small_a_slope").c1;
  seed.ab = runout_read_law(lab, SEED, "runout_break").c1;
  seed.c2 = runout_read_law(lab, SEED, "runout_large_a_coeff").c1;
  seed.p = runout_read_law(lab, SEED, "runout_large_a_exponent").c1;
  FILE *fcurve = bg_lab_tsv(lab, "fit_curve.tsv",
                            "the fitted law, Lube 2004 and the seed's fit (references/literature/column_collapse_laws.tsv, references/seed/seed_results.tsv), for the figure",
                            "aspect\tfit\tlube2004\tseed");
  for (int i = 0; i <= 200; ++i) {
    double a = 0.3 * pow(12.0 / 0.3, i / 200.0);
    fprintf(fcurve, "%.5g\t%.5g\t%.5g\t%.5g\n", a, runout_law(a, lf.c1, lf.ab, lf.p), runout_lit_value(&lube, a), runout_lit_value(&seed, a));
  }
  fclose(fcurve);
  bg_lab_progress(lab, "fit a <= %g: c1 %.3f +- %.3f, a_b %.2f +- %.2f, p %.3f +- %.3f, c2 %.3f +- %.3f (chi2 %.3g, dof %d)",
                  fit_amax, lf.c1, lf.s_c1, lf.ab, lf.s_ab, lf.p, lf.s_p, lf.c2, lf.s_c2, lf.chi2, lf.dof);
  bg_lab_progress(lab, "power law a >= %g: p %.3f +- %.3f, c2 %.3f (%d aspects)", large_amin, pw.p, pw.s_p, pw.c2, pw.n);
  ro->lf = lf;
  ro->lf_prev = lf_prev;
  ro->ab_claim = ab_claim;
  ro->lf_dia = lf_dia;
  ro->lf_thr = lf_thr;
  ro->pw = pw;
  ro->pw_thr = pw_thr;
  ro->pw_lube = pw_lube;
  ro->lf_lube = lf_lube;
  ro->c1_bound = c1_bound;
  ro->of = of;
  ro->of_r = of_r;
  ro->lf_r = lf_r;
  ro->ab_claim_r = ab_claim_r;
  ro->pw_r = pw_r;
}

void runout_refinement(runout_plan *pl, runout_readout *ro) {
  bg_lab *lab = pl->lab;
  const bg_column_scene *scenes = pl->scenes;
  char(*tags)[64] = pl->tags;
  bg_column_result *results = pl->results;
  const int conv_cells = pl->conv_cells;
  const double R0 = pl->R0;
  const double mu_floor = pl->mu_floor;
  const double conv_aspect = pl->conv_aspect;
  /* 3. refinement at conv_aspect */
  FILE *fc = bg_lab_tsv(lab, "convergence.tsv", "runout on four grids (1, 1.5, 2, 3 x the coarsest cells per R0), same aspect ratio",
                        ROW_COLUMNS);
  run_row conv[N_CONV];
  for (int gi = 0; gi < N_CONV; ++gi) {
    const bg_column_scene sc = scenes[pl->next];
    const char *tag = tags[pl->next];
    bg_column_result r = results[pl->next++];
    conv[gi] = runout_row_of(&r, &sc);
    bg_lab_progress(lab, "%s: toe %.2f mm, (R-R0)/R0 %.4f (1-dx threshold %.4f)", tag, r.front * 1e3, conv[gi].y,
                    conv[gi].y_thr);
    runout_write_row(fc, &conv[gi], R0, r.dx, mu_floor, sc.cells);
    fflush(fc);
    char fn[64], cm[160];
    snprintf(fn, sizeof fn, "profile_conv%d.tsv", gi);
    snprintf(cm, sizeof cm, "final profile, a = %g, dx = %.4g m (%d cells per R0)", conv_aspect, r.dx, sc.cells);
    bg_column_write_profile(lab, &r, &sc, fn, cm);
    bg_column_result_free(&r);
  }
  fclose(fc);
  /* observed convergence of (R_inf - R0)/R0, of the 1-dx threshold's and of
   * R_inf itself (the last two are measurement mutants) */
  double hv[N_CONV], cy[N_CONV], cyt[N_CONV], cR[N_CONV];
  for (int gi = 0; gi < N_CONV; ++gi) {
    hv[gi] = 2.0 / (conv_cells * runout_conv_factor2[gi]);
    cy[gi] = conv[gi].y;
    cyt[gi] = conv[gi].y_thr;
    cR[gi] = conv[gi].runout / R0;
  }
  conv_fit cf = runout_fit_conv(hv, cy, N_CONV), cf_thr = runout_fit_conv(hv, cyt, N_CONV), cf_R = runout_fit_conv(hv, cR, N_CONV);
  double conv_err = runout_conv_error(&cf, cy[N_CONV - 1]), conv_err_thr = runout_conv_error(&cf_thr, cyt[N_CONV - 1]);
  double conv_err_R = runout_conv_error(&cf_R, cR[N_CONV - 1]);
  double conv_change = fabs(cy[N_CONV - 1] - cy[N_CONV - 2]) / fabs(cy[N_CONV - 1]);
  for (int gi = 0; gi < N_CONV; ++gi)
    if (!conv[gi].settled || conv[gi].wall) conv_err = conv_err_thr = conv_err_R = NAN;
  /* positive control (converging-runout): a sequence on this run's own grids
   * that converges at order 2 to the coarsest grid's y, 2% below the limit
   * on the finest and +-0.1% of scatter, through the same fit and error:
   * it must pass, so a miss of runout.converged_dx is the flow's */
  double ypc[N_CONV];
  for (int gi = 0; gi < N_CONV; ++gi)
    ypc[gi] = cy[0] * (1.0 - 0.02 * pow(hv[gi] / hv[N_CONV - 1], 2)) * (gi % 2 ? 1.001 : 0.999);
  conv_fit cf_pc = runout_fit_conv(hv, ypc, N_CONV);
  double conv_err_pc = runout_conv_error(&cf_pc, ypc[N_CONV - 1]);
  FILE *fcf = bg_lab_tsv(lab, "convergence_fit.tsv",
                         "GSL fit y(h) = y_inf + C h^q over the refinement grids, h = dx/R0, 1-sigma from (J^T J)^-1 "
                         "chi2/dof; error = (|y(finest) - y_inf| + sigma_y_inf) / y_inf",
                         "quantity\ty_inf\tsigma_y_inf\tC\tsigma_C\tq\tsigma_q\tchi2\tdof\tgsl_status\ty_finest\terror");
  const conv_fit *cfs[3] = {&cf, &cf_thr, &cf_R};
  const char *cfn[3] = {"toe_runout_norm", "threshold_runout_norm", "toe_R_over_R0"};
  double cfin[3] = {cy[N_CONV - 1], cyt[N_CONV - 1], cR[N_CONV - 1]}, cerr[3] = {conv_err, conv_err_thr, conv_err_R};
  for (int k = 0; k < 3; ++k)
    fprintf(fcf, "%s\t%.6g\t%.3g\t%.5g\t%.3g\t%.4g\t%.3g\t%.3g\t%d\t%d\t%.6g\t%.4g\n", cfn[k], cfs[k]->y_inf,
            cfs[k]->s_y_inf, cfs[k]->C, cfs[k]->s_C, cfs[k]->q, cfs[k]->s_q, cfs[k]->chi2, cfs[k]->dof,
            cfs[k]->status, cfin[k], cerr[k]);
  fclose(fcf);
  bg_lab_progress(lab, "refinement fit: y_inf %.4f +- %.4f, q %.2f +- %.2f; finest-grid error %.4f", cf.y_inf,
                  cf.s_y_inf, cf.q, cf.s_q, conv_err);
  ro->cf = cf;
  ro->conv_err = conv_err;
  ro->conv_err_thr = conv_err_thr;
  ro->conv_err_R = conv_err_R;
  ro->conv_change = conv_change;
  ro->conv_err_pc = conv_err_pc;
}

void runout_floor(runout_plan *pl, runout_readout *ro) {
  bg_lab *lab = pl->lab;
  const bg_column_scene *scenes = pl->scenes;
  char(*tags)[64] = pl->tags;
  bg_column_result *results = pl->results;
  const int cells = pl->cells;
  const double R0 = pl->R0;
  const double dx = pl->dx;
  /* 4. floor friction at mu_aspect */
  FILE *fm = bg_lab_tsv(lab, "floor_mu.tsv", "runout vs floor Coulomb mu at one aspect ratio and dx", ROW_COLUMNS);
  run_row rmu[N_MU];
  for (int i = 0; i < N_MU; ++i) {
    const bg_column_scene sc = scenes[pl->next];
    const char *tag = tags[pl->next];
    bg_column_result r = results[pl->next++];
    rmu[i] = runout_row_of(&r, &sc);
    bg_lab_progress(lab, "%s: toe %.2f mm, 1-dx threshold %.2f mm, r99 %.2f mm", tag, r.front * 1e3, r.runout * 1e3,
                    r.r99 * 1e3);
    runout_write_row(fm, &rmu[i], R0, dx, sc.mu, cells);
    fflush(fm);
    bg_column_result_free(&r);
  }
  fclose(fm);
  double mu_effect = (rmu[0].runout - rmu[N_MU - 1].runout) / rmu[N_MU - 1].runout;
  double mu_effect_r99 = (rmu[0].r99 - rmu[N_MU - 1].r99) / rmu[N_MU - 1].r99;
  double mu_effect_thr = (rmu[0].thr - rmu[N_MU - 1].thr) / rmu[N_MU - 1].thr;
  for (int i = 0; i < N_MU; ++i)
    if (!rmu[i].settled || rmu[i].wall) mu_effect = mu_effect_thr = NAN;
  ro->mu_effect = mu_effect;
  ro->mu_effect_r99 = mu_effect_r99;
  ro->mu_effect_thr = mu_effect_thr;
}

/* the morphology counts, summary.tsv, the manifest's fit and the claims */
void runout_judge(runout_plan *pl, runout_readout *ro) {
  bg_lab *lab = pl->lab;
  const int na = pl->na;
  const lit_law lube = pl->lube;
  const run_row *rows = ro->rows;
  const double c1_bound = ro->c1_bound;
  const double ab_claim = ro->ab_claim;
  const double ab_claim_r = ro->ab_claim_r;
  const law_fit lf = ro->lf;
  const law_fit lf_prev = ro->lf_prev;
  const law_fit lf_dia = ro->lf_dia;
  const law_fit lf_thr = ro->lf_thr;
  const law_fit lf_lube = ro->lf_lube;
  const law_fit lf_r = ro->lf_r;
  const power_fit pw = ro->pw;
  const power_fit pw_thr = ro->pw_thr;
  const power_fit pw_lube = ro->pw_lube;
  const power_fit pw_r = ro->pw_r;
  const origin_fit of = ro->of;
  const origin_fit of_r = ro->of_r;
  const conv_fit cf = ro->cf;
  const double conv_err = ro->conv_err;
  const double conv_err_thr = ro->conv_err_thr;
  const double conv_err_R = ro->conv_err_R;
  const double conv_change = ro->conv_change;
  const double conv_err_pc = ro->conv_err_pc;
  const double mu_effect = ro->mu_effect;
  const double mu_effect_r99 = ro->mu_effect_r99;
  const double mu_effect_thr = ro->mu_effect_thr;
  int n_summit_small = 0, n_small = 0, n_conical_large = 0, n_large = 0;
  for (int i = 0; i < na; ++i) {
    if (rows[i].a < lube.ab) {
      n_small++;
      n_summit_small += rows[i].summit;
    } else {
      n_large++;
      n_conical_large += !rows[i].summit;
    }
  }
  FILE *fsum = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
  fprintf(fsum, "c1_small_a_slope\t%.5f\t1\n", lf.c1);
  fprintf(fsum, "a_break\t%.5f\t1\n", lf.ab);
  fprintf(fsum, "a_break_without_largest_aspect\t%.5f\t1\n", lf_prev.ab);
  fprintf(fsum, "conv_R_finest_grid_error\t%.5f\t1\n", conv_err_R);
  fprintf(fsum, "p_large_a_exponent\t%.5f\t1\n", lf.p);
  fprintf(fsum, "c2_large_a_coefficient\t%.5f\t1\n", lf.c2);
  fprintf(fsum, "large_a_power_exponent\t%.5f\t1\n", pw.p);
  fprintf(fsum, "large_a_power_coefficient\t%.5f\t1\n", pw.c2);
  fprintf(fsum, "c1_small_a_slope_threshold_estimator\t%.5f\t1\n", lf_thr.c1);
  fprintf(fsum, "a_break_threshold_estimator\t%.5f\t1\n", lf_thr.ab);
  fprintf(fsum, "large_a_power_exponent_threshold_estimator\t%.5f\t1\n", pw_thr.p);
  fprintf(fsum, "origin_intercept\t%.5f\t1\n", of.b);
  fprintf(fsum, "origin_intercept_R_over_R0\t%.5f\t1\n", of_r.b);
  fprintf(fsum, "conv_finest_grid_error\t%.5f\t1\n", conv_err);
  fprintf(fsum, "conv_observed_order\t%.4f\t1\n", cf.q);
  fprintf(fsum, "conv_rel_change_finest_pair\t%.5f\t1\n", conv_change);
  fprintf(fsum, "floor_mu_rel_runout_change\t%.5f\t1\n", mu_effect);
  fprintf(fsum, "floor_mu_rel_threshold_change\t%.5f\t1\n", mu_effect_thr);
  fprintf(fsum, "floor_mu_rel_r99_change\t%.5f\t1\n", mu_effect_r99);
  fprintf(fsum, "summit_deposits_below_lube_break\t%d of %d\t1\n", n_summit_small, n_small);
  fprintf(fsum, "conical_deposits_above_lube_break\t%d of %d\t1\n", n_conical_large, n_large);
  fclose(fsum);
  bg_lab_manifest_num(lab, "fit_c1", lf.c1);
  bg_lab_manifest_num(lab, "fit_a_break", lf.ab);
  bg_lab_manifest_num(lab, "fit_p", lf.p);
  bg_lab_manifest_num(lab, "fit_c2", lf.c2);

  bg_lab_claim(lab, "runout.break", ab_claim);
  bg_lab_claim(lab, "runout.small_a_slope", lf.c1);
  bg_lab_claim(lab, "runout.static_bound", (lf.c1 + 2 * lf.s_c1) / c1_bound);
  bg_lab_claim(lab, "runout.large_a_exponent", pw.p);
  bg_lab_claim(lab, "runout.converged_dx", conv_err);
  bg_lab_claim(lab, "runout.floor_mu", mu_effect);
  bg_lab_claim(lab, "runout.origin", of.b);
  bg_lab_claim_mutant(lab, "runout-1dx-threshold", "runout.converged_dx", conv_err_thr);
  bg_lab_claim_mutant(lab, "runout-1dx-threshold", "runout.floor_mu", mu_effect_thr);
  bg_lab_claim_mutant(lab, "runout-1dx-threshold", "runout.static_bound", (lf_thr.c1 + 2 * lf_thr.s_c1) / c1_bound);
  bg_lab_claim_mutant(lab, "aspect-as-diameter", "runout.break", lf_dia.ab);
  bg_lab_claim_mutant(lab, "aspect-as-diameter", "runout.small_a_slope", lf_dia.c1);
  bg_lab_claim_mutant(lab, "converging-runout", "runout.converged_dx", conv_err_pc);
  bg_lab_claim_mutant(lab, "lube-law-data", "runout.small_a_slope", lf_lube.c1);
  bg_lab_claim_mutant(lab, "lube-law-data", "runout.large_a_exponent", pw_lube.p);
  /* the planted bug on every claim that reads y; only runout.origin must flip (mutants.tsv) */
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.origin", of_r.b);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.break", ab_claim_r);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.small_a_slope", lf_r.c1);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.static_bound", (lf_r.c1 + 2 * lf_r.s_c1) / c1_bound);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.large_a_exponent", pw_r.p);
  bg_lab_claim_mutant(lab, "runout-over-r0", "runout.converged_dx", conv_err_R);
}
