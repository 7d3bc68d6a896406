/* repose_stages.c: the read-out of the run's simulations and its claims,
 * stage by stage (see repose.c): 1. the flank angle against refinement,
 * its limit and its bands; 2. the runout against floor friction; 3. the
 * plane-strain ridge against the pile. */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repose.h"

static void write_profile(bg_lab *lab, const result *r, int cells, double R0, double aspect, const char *fn) {
  char cm[256];
  snprintf(cm, sizeof cm, "radially averaged deposit profile, dx = %.4g m (%d cells per R0), R0 %.3g m, H0 %.3g m",
           r->dx, cells, R0, aspect * R0);
  FILE *fp = bg_lab_tsv(lab, fn, cm, "r_m\th_m\tr_over_R0\th_over_H0");
  for (int b = 0; b < r->nbins; ++b)
    fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\n", r->rbin[b], r->hbin[b], r->rbin[b] / R0, r->hbin[b] / (aspect * R0));
  fclose(fp);
}

/* The lower flank against the angle the simulation was fed, read back from
 * it: the finest grid's lower band plus the recorded paper run's offset
 * below its own fed angle at the same resolution must give the fed angle
 * back. The phi-fed-40 mutant compares with the lab's own copy, as the
 * planted bug did, and phi-read-stale with a copy 5 deg below the fed angle
 * (the same bug seen from the run's own data). */
static void lower_band(repose_plan *pl, const result *fine) {
  bg_lab *lab = pl->lab;
  const double h = fine->dx / pl->R0, band = fine->band[BAND_LOWER];
  double fed = fine->phi_fed;
  double off = repose_baseline_offset(lab, h);
  double lower = band + off;
  FILE *fl = bg_lab_tsv(lab, "lower_band.tsv",
                        "repose.lower_band: the finest grid's lower band, the recorded paper offset below the fed "
                        "angle at its dx (references/baselines/repose_lower_band.tsv), their sum, and the fed angle "
                        "read back from the simulation",
                        "dx_over_R0\tlower_deg\tbaseline_offset_deg\tlower_plus_offset_deg\tphi_fed_deg");
  fprintf(fl, "%.6g\t%.4f\t%.4f\t%.4f\t%.4f\n", h, band, off, lower, fed);
  fclose(fl);
  bg_lab_claim_fed(lab, "repose.lower_band", lower, pl->fed_off ? pl->phi : fed);
  bg_lab_claim_mutant_fed(lab, "phi-read-stale", "repose.lower_band", lower, fed - 5);
}

/* 1. the flank angle on each grid, its fit in dx and the bands */
void repose_refinement(repose_plan *pl, result *conv) {
  bg_lab *lab = pl->lab;
  sweep_pts *pts = &pl->pts;
  const int grids = pl->grids, need_conv = pl->need_conv;
  const int *conv_pt = pl->conv_pt;
  const double R0 = pl->R0, aspect = pl->aspect, phi_ref = pl->phi_ref, phi_flow = pl->phi_flow;
  if (pl->lower_only) {
    /* a run that needs only the lower band measured the finest grid alone */
    conv[grids - 1] = repose_measure_point(pts, conv_pt[grids - 1]);
    lower_band(pl, &conv[grids - 1]);
    return;
  }
  double hdx[MAX_GRIDS], th[MAX_GRIDS];
  int ng = need_conv ? grids : 0;
  FILE *fc = need_conv ? bg_lab_tsv(lab, "convergence.tsv",
                        "flank angle per grid (mid-flank band 0.2-0.8 h_max); sigma = sample sd of the four estimators (reported, not a fit weight)",
                        "dx_m\tdx_over_R0\tcells_per_R0\ttheta_profile_deg\ttheta_cone_deg\ttheta_sectors_deg\ttheta_slope_deg\ttheta_mean_deg\tsigma_deg\tspread_deg\th_max_m\trunout_m\tparticles\tsteps\tt_end_s\tsettled\ttheta_strip_deg")
                       : NULL;
  for (int gi = 0; gi < ng; ++gi) {
    const bg_column_scene sc = pts->scenes[conv_pt[gi]];
    conv[gi] = repose_measure_point(pts, conv_pt[gi]);
    result *r = &conv[gi];
    hdx[gi] = r->dx / R0;
    th[gi] = r->theta_mean;
    fprintf(fc, "%.6g\t%.6g\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%zu\t%llu\t%.4f\t%d\t%.4f\n",
            r->dx, hdx[gi], sc.cells, r->theta[0], r->theta[1], r->theta[2], r->theta[3], r->theta_mean,
            r->theta_sd, repose_est_spread(r->theta), r->h_max, r->runout, r->n_particles, (unsigned long long)r->steps,
            r->t_end, r->settled, r->theta_strip);
    char fn[64];
    snprintf(fn, sizeof fn, "profile_dx%d.tsv", gi);
    write_profile(lab, r, sc.cells, R0, aspect, fn);
  }
  if (fc) fclose(fc);

  if (need_conv) {
    conv_fit cf = repose_fit_convergence(hdx, th, (size_t)grids);
    /* positive control: a sequence converging at order 1 to phi_ref, with +-0.1 deg of scatter */
    double thc[MAX_GRIDS];
    for (int gi = 0; gi < grids; ++gi) thc[gi] = phi_ref - 6.0 * hdx[gi] / hdx[0] + (gi % 2 ? 0.1 : -0.1);
    conv_fit cc = repose_fit_convergence(hdx, thc, (size_t)grids);
    bg_lab_progress(lab, "fit: theta_inf %.2f +- %.2f deg, p %.3f +- %.3f, chi2 %.3g on %d dof: limit %s", cf.theta_inf,
                    cf.s_theta, cf.p, cf.s_p, cf.chi2, cf.dof, cf.found ? "found" : "NOT found");
    const char *fit_cols = "theta_inf_deg\tsigma_theta_inf_deg\tc_deg\tsigma_c_deg\tp\tsigma_p\tchi2\tdof\tgsl_status\tphi_fed_deg\tfound\tphi_flow_deg";
    const conv_fit *fr2[2] = {&cf, &cc};
    const char *fit_file[2] = {"fit.tsv", "fit_control.tsv"};
    const char *fit_what[2] = {
        "unweighted GSL fit theta(h) = theta_inf + c h^p, h = dx / R0, p free; 1-sigma from (J^T J)^-1 chi2/dof; found: converged with p > 2 sigma_p",
        "the same fit on the converging-sequence control: theta = phi_ref - 6 h/h_coarse +- 0.1 deg (mutant converging-sequence)"};
    for (int k = 0; k < 2; ++k) {
      FILE *ff = bg_lab_tsv(lab, fit_file[k], fit_what[k], fit_cols);
      fprintf(ff, "%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.4g\t%d\t%d\t%g\t%d\t%.4f\n", fr2[k]->theta_inf,
              fr2[k]->s_theta, fr2[k]->c, fr2[k]->s_c, fr2[k]->p, fr2[k]->s_p, fr2[k]->chi2, fr2[k]->dof,
              fr2[k]->status, phi_ref, fr2[k]->found, phi_flow);
      fclose(ff);
    }
    FILE *fcurve = bg_lab_tsv(lab, "fit_curve.tsv", "fitted theta(dx) for the figure", "dx_m\ttheta_deg");
    for (int i = 0; i <= 100; ++i) {
      double h = hdx[0] * 1.1 * i / 100.0;
      fprintf(fcurve, "%.6g\t%.5f\n", h * R0, cf.theta_inf + cf.c * pow(h, cf.p));
    }
    fclose(fcurve);
    result *fine = &conv[grids - 1];
    double spread = repose_est_spread(fine->theta);
    int away = repose_steps_away(th, grids, phi_ref, 0);
    double th_max = -INFINITY, th2_max = -INFINITY;
    for (int gi = 0; gi < grids; ++gi) {
      th_max = fmax(th_max, th[gi]);
      th2_max = fmax(th2_max, atan(2 * tan(th[gi] / DEG)) * DEG);
    }
    for (int gi = 0; gi < grids; ++gi)
      if (!isfinite(th[gi])) th_max = th2_max = NAN; /* an estimator failed: not measured */
    double fine4[N_EST];
    memcpy(fine4, fine->theta, sizeof fine4);
    fine4[3] = atan(2 * tan(fine4[3] / DEG)) * DEG; /* the median slope over dx instead of 2 dx */
    FILE *fs = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
    fprintf(fs, "phi_fed\t%g\tdeg\n", phi_ref);
    fprintf(fs, "phi_flow\t%.4f\tdeg\n", phi_flow);
    fprintf(fs, "theta_finest_mean\t%.4f\tdeg\n", fine->theta_mean);
    fprintf(fs, "estimator_spread_finest\t%.4f\tdeg\n", spread);
    fprintf(fs, "steps_away_from_phi\t%d\t1\n", away);
    fprintf(fs, "theta_inf\t%.4f\tdeg\n", cf.theta_inf);
    fprintf(fs, "sigma_theta_inf\t%.4f\tdeg\n", cf.s_theta);
    fprintf(fs, "fit_p\t%.4f\t1\n", cf.p);
    fprintf(fs, "limit_found\t%d\t1\n", cf.found);
    fclose(fs);
    bg_lab_manifest_num(lab, "theta_inf_deg", cf.theta_inf);
    bg_lab_manifest_num(lab, "sigma_theta_inf_deg", cf.s_theta);
    bg_lab_manifest_num(lab, "fit_p", cf.p);
    bg_lab_manifest_num(lab, "limit_found", cf.found);

    bg_lab_claim(lab, "repose.estimators_agree", spread);
    bg_lab_claim_mutant(lab, "slope-over-dx", "repose.estimators_agree", repose_est_spread(fine4));
    bg_lab_claim(lab, "repose.monotone", (double)away);
    bg_lab_claim_mutant(lab, "grids-fine-to-coarse", "repose.monotone", (double)repose_steps_away(th, grids, phi_ref, 1));
    bg_lab_claim(lab, "repose.limit", repose_limit_reach(&cf, phi_ref));
    bg_lab_claim_mutant(lab, "converging-sequence", "repose.limit", repose_limit_reach(&cc, phi_ref));
    bg_lab_claim_mutant(lab, "converging-sequence", "repose.monotone", (double)repose_steps_away(thc, grids, phi_ref, 0));
    bg_lab_claim(lab, "repose.limit_width", cf.found ? 2 * cf.s_theta : NAN);
    {
      /* the angles read finest to coarsest: a sequence that approaches its
       * limit as dx falls then recedes from it, which no fit may call found */
      double threv[MAX_GRIDS];
      for (int gi = 0; gi < grids; ++gi) threv[gi] = th[grids - 1 - gi];
      conv_fit cr = repose_fit_convergence(hdx, threv, (size_t)grids);
      bg_lab_claim_mutant(lab, "grids-fine-to-coarse", "repose.limit_width", cr.found ? 2 * cr.s_theta : NAN);
    }
    bg_lab_claim_mutant(lab, "converging-sequence", "repose.limit_width", cc.found ? 2 * cc.s_theta : NAN);
    bg_lab_claim(lab, "repose.flank_below_flow", th_max - phi_flow);
    bg_lab_claim_mutant(lab, "heights-doubled", "repose.flank_below_flow", th2_max - phi_flow);

    /* the flank by fixed height band, each with its own fit in dx */
    FILE *fb = bg_lab_tsv(lab, "bands.tsv",
                          "flank angle per grid in fixed height bands of H0 (profile line fit): foot 0.05-0.2, lower "
                          "0.2-0.4, upper 0.4-0.6",
                          "cells_per_R0\tdx_over_R0\tfoot_deg\tlower_deg\tupper_deg");
    double bth[N_BANDS][MAX_GRIDS];
    for (int gi = 0; gi < grids; ++gi) {
      for (int q = 0; q < N_BANDS; ++q) bth[q][gi] = conv[gi].band[q];
      fprintf(fb, "%d\t%.6g\t%.4f\t%.4f\t%.4f\n", pts->scenes[conv_pt[gi]].cells, hdx[gi], bth[0][gi], bth[1][gi],
              bth[2][gi]);
    }
    fclose(fb);
    FILE *fbf = bg_lab_tsv(lab, "band_fit.tsv",
                           "per band: the fit of repose.limit, theta = theta_inf + c h^p (h = dx / R0, p free), and "
                           "the change over the last refinement; found: converged with p > 2 sigma_p",
                           "band\ttheta_inf_deg\tsigma_theta_inf_deg\tp\tsigma_p\tfound\ttheta_finest_deg\tlast_step_deg");
    for (int q = 0; q < N_BANDS; ++q) {
      conv_fit bf = repose_fit_convergence(hdx, bth[q], (size_t)grids);
      fprintf(fbf, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%.4f\t%.4f\n", repose_band_names[q], bf.theta_inf, bf.s_theta, bf.p,
              bf.s_p, bf.found, bth[q][grids - 1], bth[q][grids - 1] - bth[q][grids - 2]);
      bg_lab_progress(lab, "band %s: finest %.2f deg (last step %+.2f), fit theta_inf %.2f +- %.2f, p %.2f: %s",
                      repose_band_names[q], bth[q][grids - 1], bth[q][grids - 1] - bth[q][grids - 2], bf.theta_inf,
                      bf.s_theta, bf.p, bf.found ? "found" : "no limit");
    }
    fclose(fbf);
    lower_band(pl, fine);
  }
}

/* 2. the floor friction sweep; the slick-floor control makes its low floor nearly frictionless */
void repose_floor(repose_plan *pl, result *rmu) {
  bg_lab *lab = pl->lab;
  sweep_pts *pts = &pl->pts;
  const int need_ref = pl->need_ref, need_hi = pl->need_hi, need_low = pl->need_low, need_stick = pl->need_stick;
  const int *ran = pl->ran, *slick_reuse = pl->slick_reuse, *mu_pt = pl->mu_pt;
  const double *mus = pl->mus, tanphi = pl->tanphi, R0 = pl->R0;
  if (need_ref) {
    FILE *fm = bg_lab_tsv(lab, "floor_mu.tsv",
                          "runout (annular mean thickness crosses 1 dx, interpolated) vs floor Coulomb mu, same dx; last row: stick floor (mu column NaN, stick 1)",
                          "mu_floor\tmu_over_tanphi\trunout_m\trunout_over_R0\ttheta_mean_deg\th_max_m\tsettled\treaches_wall\tstick");
    for (int i = 0; i <= N_MU; ++i) {
      if (slick_reuse[i]) { /* the same slick floor as the low run: reuse that run */
        rmu[i] = rmu[I_LOW];
        rmu[i].rbin = rmu[i].hbin = NULL;
        continue;
      }
      if (!ran[i]) {
        rmu[i].runout = NAN;
        continue;
      }
      rmu[i] = repose_measure_point(pts, mu_pt[i]);
      fprintf(fm, "%.5g\t%.5g\t%.6g\t%.5g\t%.4f\t%.6g\t%d\t%d\t%d\n", mus[i], mus[i] / tanphi, rmu[i].runout,
              rmu[i].runout / R0, rmu[i].theta_mean, rmu[i].h_max, rmu[i].settled, (int)rmu[i].runout_wall,
              i == N_MU);
    }
    fclose(fm);
    /* runout unchanged for mu >= tan phi: max |R - Rref| / Rref, Rref the largest mu */
    double rref = rmu[N_MU - 1].runout, mu_change = 0;
    if (!rmu[N_MU - 1].settled || rmu[N_MU - 1].runout_wall) rref = NAN; /* not a free deposit */
    for (int i = I_TAN; i < N_MU; ++i) {
      mu_change = fmax(mu_change, fabs(rmu[i].runout - rref) / rref);
      if (!rmu[i].settled || rmu[i].runout_wall) mu_change = NAN;
    }
    double r_low = rmu[I_LOW].runout;
    if (!rmu[I_LOW].settled || rmu[I_LOW].runout_wall) r_low = NAN;
    double grow_low = r_low / rref - 1;                /* lowest mu against mu = 2 tan phi */
    double stick_rel = rmu[N_MU].runout / r_low - 1;   /* stick against a real (mu < tan phi) floor */
    double stick_hi = rmu[N_MU].runout / rref - 1;     /* reported: stick against mu = 2 tan phi */
    FILE *fs = bg_lab_tsv(lab, "summary_floor.tsv", "one row per quantity", "quantity\tvalue\tunit");
    fprintf(fs, "floor_mu_max_rel_change_mu_ge_tanphi\t%.4f\t1\n", mu_change);
    fprintf(fs, "runout_growth_lowest_mu\t%.4f\t1\n", grow_low);
    fprintf(fs, "runout_stick_rel_to_lowest_mu\t%.4f\t1\n", stick_rel);
    fprintf(fs, "runout_stick_rel_to_mu_ge_tanphi\t%.4f\t1\n", stick_hi);
    fclose(fs);
    bg_lab_manifest_num(lab, "runout_growth_lowest_mu", grow_low);
    bg_lab_manifest_num(lab, "runout_stick_rel_lowest_mu", stick_rel);
    if (need_hi) bg_lab_claim(lab, "repose.floor_mu", mu_change);
    if (need_low) bg_lab_claim(lab, "repose.floor_mu_low_grows", grow_low);
    if (need_stick) bg_lab_claim(lab, "repose.stick_runout", stick_rel);
  }
}

/* 3. the plane-strain ridge at the finest grid's dx */
void repose_ridge(repose_plan *pl, const result *conv, result *rr_out) {
  bg_lab *lab = pl->lab;
  sweep_pts *pts = &pl->pts;
  const int grids = pl->grids, need_ridge = pl->need_ridge, ridge_pt = pl->ridge_pt;
  const double R0 = pl->R0, aspect = pl->aspect;
  result rr = *rr_out;
  if (need_ridge) {
    const result *fine = &conv[grids - 1];
    rr = repose_measure_point(pts, ridge_pt);
    FILE *fr = bg_lab_tsv(lab, "ridge.tsv",
                          "plane-strain half ridge (slab between slip walls) vs the axisymmetric pile, same dx; profile estimator for both; theta_pile_strip: the ridge's ruler on the pile",
                          "dx_m\ttheta_ridge_deg\ttheta_pile_profile_deg\ttheta_pile_mean_deg\trunout_ridge_m\trunout_pile_m\th_max_ridge_m\th_max_pile_m\tsettled\tparticles\ttheta_pile_strip_deg");
    fprintf(fr, "%.6g\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%zu\t%.4f\n", rr.dx, rr.theta[0], fine->theta[0],
            fine->theta_mean, rr.runout, fine->runout, rr.h_max, fine->h_max, rr.settled, rr.n_particles,
            fine->theta_strip);
    fclose(fr);
    FILE *fp = bg_lab_tsv(lab, "profile_ridge.tsv", "ridge profile h(x), averaged over the slab", "x_m\th_m\tx_over_R0\th_over_H0");
    for (int b = 0; b < rr.nbins; ++b)
      fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\n", rr.rbin[b], rr.hbin[b], rr.rbin[b] / R0, rr.hbin[b] / (aspect * R0));
    fclose(fp);
    bg_lab_manifest_num(lab, "theta_ridge_deg", rr.theta[0]);
    bg_lab_claim(lab, "repose.ridge_vs_pile", fabs(rr.theta[0] - fine->theta[0]));
    bg_lab_claim_mutant(lab, "ridge-ruler-on-pile", "repose.ridge_vs_pile", fabs(fine->theta_strip - fine->theta[0]));
  }
  *rr_out = rr;
}

/* 4. the ridge on the 2D plane-strain solver against the 3D slab between
 * slip walls that it replaces: the same deposit within the slab's own dx
 * error, the change of the slab from the next coarser grid to the finest.
 * Each claim is that gap minus the error (<= 0 passes). */
void repose_ridge_2d(repose_plan *pl) {
  if (!pl->need_plane) return;
  bg_lab *lab = pl->lab;
  result r[3] = {repose_measure_point(&pl->pts, pl->plane_pt), repose_measure_point(&pl->pts, pl->slab_pt[0]),
                 repose_measure_point(&pl->pts, pl->slab_pt[1])};
  const char *name[3] = {"2d", "slab", "slab_coarser"};
  FILE *f = bg_lab_tsv(lab, "ridge_2d.tsv",
                       "the half ridge on the 2D plane-strain solver, and as the slab between slip walls at the same dx "
                       "and the next coarser grid's (profile estimator)",
                       "solver\tdx_m\ttheta_deg\trunout_m\th_max_m\tsettled\tparticles\tsteps");
  for (int k = 0; k < 3; ++k)
    fprintf(f, "%s\t%.6g\t%.4f\t%.6g\t%.6g\t%d\t%zu\t%llu\n", name[k], r[k].dx, r[k].theta[0], r[k].runout,
            r[k].h_max, r[k].settled, r[k].n_particles, (unsigned long long)r[k].steps);
  fclose(f);
  const double err_theta = fabs(r[1].theta[0] - r[2].theta[0]), err_run = fabs(r[1].runout - r[2].runout);
  bg_lab_manifest_num(lab, "theta_ridge_2d_deg", r[0].theta[0]);
  bg_lab_manifest_num(lab, "theta_ridge_slab_deg", r[1].theta[0]);
  bg_lab_manifest_num(lab, "slab_dx_error_theta_deg", err_theta);
  bg_lab_manifest_num(lab, "slab_dx_error_runout_m", err_run);
  bg_lab_claim(lab, "repose.ridge_2d_parity", fabs(r[0].theta[0] - r[1].theta[0]) - err_theta);
  bg_lab_claim(lab, "repose.ridge_2d_runout", fabs(r[0].runout - r[1].runout) - err_run);
  for (int k = 0; k < 3; ++k) {
    free(r[k].rbin);
    free(r[k].hbin);
  }
}
