/* silo_stages.c: the read-out of the silo experiment's runs, stage by
 * stage (silo.c's header says what each measures), and the judgement:
 * summary.tsv, the manifest's results and the claims, with their mutants. */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"
#include "silo.h"

void silo_rates(silo_plan *pl, silo_readout *ro) {
  bg_lab *lab = pl->lab;
  bg_silo_result *rr = pl->rr;
  const double dx = pl->dx;
  const double plateau_slope = pl->plateau_slope;
  const double n0 = pl->n0;
  const int round = pl->round;
  const int nap = pl->nap;
  double *slope_u = ro->slope_u;
  int *res = ro->res;
  double *Da = ro->Da;
  double *ya = ro->ya;
  double *Dr = ro->Dr;
  double *yr = ro->yr;
  double *lD = ro->lD;
  double *lW = ro->lW;
  /* rates, exit speeds and the resolution criterion */
  int nres = silo_resolution(rr, nap, plateau_slope, slope_u, res);
  FILE *fr = bg_lab_tsv(lab, "rates.tsv",
                        round ? "discharge rate per aperture (kg/s), parked-mass fit over the steady window; D_geo counted from free floor nodes; u_c = v_c / sqrt(g D_geo), u_slope = d ln u_c / d ln D, resolved: |u_slope| <= plateau_slope"
                              : "discharge rate per unit slot width (kg/(m s)), parked-mass fit over the steady window; D_geo counted from free floor nodes; u_c = v_c / sqrt(g D_geo), u_slope = d ln u_c / d ln D, resolved: |u_slope| <= plateau_slope",
                        "D_nominal_m\tD_geo_m\tD_over_dx\tW\tsigma_W\tW_plane\tsigma_W_plane\tW_closure\tW_counted\trho_b_kg_m3\tsigma_rho_b_kg_m3\tflatness\tD_flow_m\tt_window_start_s\tt_window_end_s\tsamples\tjammed\tparticles\tsteps\tW_rel_se\tstop_rule\tv_c_m_s\tu_c\tu_slope\tresolved\tC_k0");
  /* fit sets: every discharging aperture (all), and those that pass the criterion (res) */
  double rb_mean = 0;
  int nfit = 0, nr = 0;
  for (int i = 0; i < nap; ++i) {
    bg_silo_result *r = &rr[i];
    double yy = r->W / (r->rho_b * sqrt(G));
    fprintf(fr, "%.6g\t%.6g\t%.4g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.2f\t%.2f\t%.5f\t%.5g\t%.4f\t%.4f\t%d\t%d\t%zu\t%llu\t%.3g\t%s\t%.5g\t%.5g\t%.4g\t%d\t%.5g\n",
            r->D_nom, r->D_geo, r->D_geo / dx, r->W, r->sW, r->W_plane, r->sW_plane, r->W_closure, r->W_counted,
            r->rho_b, r->rho_b_sd, r->flat, r->D_flow, r->t0w, r->t1w, r->n_window, r->jammed, r->n_particles,
            (unsigned long long)r->steps, r->rel_se, r->stop_rule, r->v_c, r->u_c, slope_u[i], res[i],
            yy / pow(r->D_geo, n0));
    if (isfinite(r->W) && r->W > 0 && !r->jammed) {
      Da[nfit] = r->D_geo;
      ya[nfit] = yy;
      lD[nfit] = log(r->D_geo);
      lW[nfit] = log(r->W);
      rb_mean += r->rho_b;
      nfit++;
      if (res[i]) {
        Dr[nr] = r->D_geo;
        yr[nr] = yy;
        nr++;
      }
    }
  }
  fclose(fr);
  (void)nres;
  ro->rb_mean = rb_mean;
  ro->nfit = nfit;
  ro->nr = nr;
}

void silo_fits(silo_plan *pl, silo_readout *ro) {
  bg_lab *lab = pl->lab;
  bg_silo_result *rr = pl->rr;
  const double dx = pl->dx;
  const double plateau_slope = pl->plateau_slope;
  const double k_fixed = pl->k_fixed;
  const double joint_min = pl->joint_min;
  const double grain_kd = pl->grain_kd;
  const double n0 = pl->n0;
  const int round = pl->round;
  const int nap = pl->nap;
  const int ntot = pl->ntot;
  const int iref = pl->iref;
  double *Da = ro->Da;
  double *ya = ro->ya;
  double *Dr = ro->Dr;
  double *yr = ro->yr;
  double *lD = ro->lD;
  double *lW = ro->lW;
  double *yb = ro->yb;
  const int nfit = ro->nfit;
  const int nr = ro->nr;
  double rb_mean = ro->rb_mean;
  /* fits: k fixed by the physical argument (k_fixed, 0) and k free, on the
   * resolved apertures, and the same on all (the definitions before the
   * criterion); the geometric power law on all */
  bev_fit none = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, -1, 0};
  double kd = grain_kd >= 0 ? grain_kd : k_fixed * dx;
  double dxa[MAX_PTS];
  for (int i = 0; i < MAX_PTS; ++i) dxa[i] = dx;
  bev_fit c_fix = silo_fit_C_kfixed(Dr, yr, (size_t)nr, kd, n0);
  bev_fit n_fix = silo_fit_n_kfixed(Dr, yr, (size_t)nr, kd);
  double st0[3] = {nr > 0 ? yr[nr - 1] / pow(Dr[nr - 1], n0) : 1.0, 0.5, n0};
  bev_fit c_free = nr >= 3 ? silo_fit_beverloo(Dr, yr, (size_t)nr, dxa, n0, 0, st0) : none;
  double st1[3] = {c_free.C, c_free.k, n0};
  bev_fit n_free = nr >= 4 && isfinite(c_free.C) ? silo_fit_beverloo(Dr, yr, (size_t)nr, dxa, n0, 1, st1) : none;
  double sa0[3] = {nfit > 0 ? ya[nfit - 1] / pow(Da[nfit - 1] - dx, n0) : 1.0, 1.0, n0};
  bev_fit c_free_all = nfit >= 4 ? silo_fit_beverloo(Da, ya, (size_t)nfit, dxa, n0, 0, sa0) : none;
  double sa1[3] = {c_free_all.C, c_free_all.k, n0};
  bev_fit n_free_all = nfit >= 4 ? silo_fit_beverloo(Da, ya, (size_t)nfit, dxa, n0, 1, sa1) : none;
  bev_fit c_fix_all = silo_fit_C_kfixed(Da, ya, (size_t)nfit, kd, n0);
  bev_fit n_fix_all = silo_fit_n_kfixed(Da, ya, (size_t)nfit, kd);
  /* positive control (beverloo-law-data): Beverloo's round law with C 0.58
   * and a rim of 2.7 cells, at this run's counted apertures (+-0.1%
   * alternating), through the claims' fits (the joint fit of C, k, n; a
   * grain model: the fixed-k fits with k = 0) must give C inside 0.55-0.65
   * and n = 5/2 back */
  const double k_syn = grain_kd >= 0 ? 0 : 2.7;
  for (int i = 0; i < nfit; ++i) yb[i] = 0.58 * pow(Da[i] - k_syn * dx, 2.5) * (i % 2 ? 1.001 : 0.999);
  bev_fit c_law, n_law;
  if (grain_kd >= 0) {
    c_law = silo_fit_C_kfixed(Da, yb, (size_t)nfit, 0, 2.5);
    n_law = silo_fit_n_kfixed(Da, yb, (size_t)nfit, 0);
  } else {
    double stl[3] = {nfit > 0 ? yb[nfit - 1] / pow(Da[nfit - 1], 2.5) : NAN, 0, 2.5};
    c_law = nfit >= 3 ? silo_fit_beverloo(Da, yb, (size_t)nfit, dxa, 2.5, 0, stl) : none;
    double stl1[3] = {c_law.C, c_law.k, 2.5};
    n_law = nfit >= 4 ? silo_fit_beverloo(Da, yb, (size_t)nfit, dxa, 2.5, 1, stl1) : none;
  }
  /* the joint fit with the rim modelled (the claims' fit for Drucker-Prager):
   * n free, and C with n at the law; and the same on the apertures read one
   * cell small (the measurement mutant aperture-one-cell-small) */
  int nj = 0, nj_m = 0;
  bev_fit j_n = silo_joint_fit(rr, nap, ntot, joint_min, 0, n0, 1, &nj);
  bev_fit j_c = silo_joint_fit(rr, nap, ntot, joint_min, 0, n0, 0, &nj);
  bev_fit j_n_m = silo_joint_fit(rr, nap, ntot, joint_min, 1, n0, 1, &nj_m);
  bev_fit j_c_m = silo_joint_fit(rr, nap, ntot, joint_min, 1, n0, 0, &nj_m);
  if (nj < 4 && grain_kd < 0)
    fprintf(stderr, "exp_silo: %d runs of >= %g cells (and refinement runs) discharged: the joint fit of C, k and n "
                    "needs 4, so the exponent%s cannot be judged\n", nj, joint_min, round ? " and C" : "");
  /* the aperture the measurement used against the one the library holds:
   * the run where they differ most (the rate run when none does), in cells */
  int iap = iref;
  double dev = fabs(rr[iref].D_geo - rr[iref].D_fed);
  for (int i = 0; i < ntot; ++i)
    if (fabs(rr[i].D_geo - rr[i].D_fed) > dev) {
      iap = i;
      dev = fabs(rr[i].D_geo - rr[i].D_fed);
    }
  double ng = NAN, sng = NAN, lc0 = NAN;
  if (nfit >= 3) {
    bg_fit_line_result l = bg_fit_line(lD, lW, (size_t)nfit);
    lc0 = l.c0;
    ng = l.c1;
    sng = sqrt(l.cov11); /* gsl_fit_linear's covariance is already scaled by the scatter */
  }
  /* the reason a Beverloo claim is NaN, printed even with --quiet */
  if (nr < 3)
    fprintf(stderr, "exp_silo: %d of %d apertures pass the resolution criterion |d ln u_c / d ln D| <= %g "
                    "(rates.tsv: u_c, u_slope): %s cannot be judged\n", nr, nap, plateau_slope,
            nr < 2 ? (round ? "C (needs 2) and the exponent (needs 3)" : "the exponent (needs 3)") : "the exponent (needs 3)");
  FILE *ff = bg_lab_tsv(lab, "fits.tsv",
                        "GSL fits of W / (rho_b sqrt g) = C (D - k dx)^n over the counted apertures (relative residuals; 1-sigma from the scatter, chi^2/dof); "
                        "set resolved: apertures that pass the resolution criterion, all: every discharging aperture, joint: the rim modelled, apertures of >= joint-min-cells cells and every refinement run, k in cells of each run's dx; k_rule fixed: k = k_fixed cells; "
                        "rows 1-3 (C_k_fixed, n_k_fixed, geometric) feed reports/silo_beverloo.gp",
                        "fit\tC\tsigma_C\tk\tsigma_k\tn\tsigma_n\trms_rel\tdof\tgsl_status\tn_law\tdx_m\tset\tapertures");
  struct {
    const char *name, *set;
    const bev_fit *f;
    int n;
  } rows[] = {
      {"C_k_fixed", "resolved", &c_fix, nr},        {"n_k_fixed", "resolved", &n_fix, nr},
      {"geometric", "all", &none, nfit},            {"C_k_free", "resolved", &c_free, nr},
      {"n_k_free", "resolved", &n_free, nr},        {"C_k_fixed_all", "all", &c_fix_all, nfit},
      {"n_k_fixed_all", "all", &n_fix_all, nfit},   {"C_k_free_all", "all", &c_free_all, nfit},
      {"n_k_free_all", "all", &n_free_all, nfit},   {"C_joint_n_law", "joint", &j_c, nj},
      {"n_joint", "joint", &j_n, nj},
  };
  for (size_t q = 0; q < sizeof rows / sizeof rows[0]; ++q) {
    const bev_fit *f = rows[q].f;
    if (!strcmp(rows[q].name, "geometric")) {
      fprintf(ff, "geometric\t%.5g\tnan\t0\t0\t%.4g\t%.3g\tnan\t%d\t0\t%g\t%g\tall\t%d\n", exp(lc0), ng, sng, nfit - 2,
              n0, dx, nfit);
      continue;
    }
    int kfix = strstr(rows[q].name, "k_fixed") != NULL;
    /* k in cells of each point's dx (the joint set may mix grids) */
    fprintf(ff, "%s\t%.5g\t%.3g\t%.5g\t%.3g\t%.4g\t%.3g\t%.4g\t%d\t%d\t%g\t%g\t%s\t%d\n", rows[q].name, f->C, f->sC,
            kfix ? k_fixed : f->k, kfix ? 0.0 : f->sk, f->n, f->sn, f->rms, f->dof, f->status, n0, dx, rows[q].set,
            rows[q].n);
  }
  fclose(ff);
  /* curves for the figure, W against D: the resolved k-fixed fits (n law, n free) and the geometric law */
  FILE *fcv = bg_lab_tsv(lab, "fit_curves.tsv", "fitted W(D) with the run's mean rho_b; W in the rates.tsv unit",
                         "D_m\tW_C_k_fixed\tW_n_k_fixed\tW_geometric");
  if (nfit > 0) rb_mean /= nfit;
  for (int i = 0; i <= 200 && nfit > 0; ++i) {
    double Dq = Da[nfit - 1] * 1.15 * i / 200.0, a = Dq - kd;
    fprintf(fcv, "%.6g\t%.6g\t%.6g\t%.6g\n", Dq, a > 0 ? c_fix.C * rb_mean * sqrt(G) * pow(a, n0) : NAN,
            a > 0 ? n_fix.C * rb_mean * sqrt(G) * pow(a, n_fix.n) : NAN, Dq > 0 ? exp(lc0) * pow(Dq, ng) : NAN);
  }
  fclose(fcv);
  ro->rb_mean = rb_mean;
  ro->kd = kd;
  ro->c_fix = c_fix;
  ro->n_fix = n_fix;
  ro->c_free = c_free;
  ro->n_free = n_free;
  ro->c_free_all = c_free_all;
  ro->n_free_all = n_free_all;
  ro->c_fix_all = c_fix_all;
  ro->n_fix_all = n_fix_all;
  ro->c_law = c_law;
  ro->n_law = n_law;
  ro->nj = nj;
  ro->nj_m = nj_m;
  ro->j_n = j_n;
  ro->j_c = j_c;
  ro->j_n_m = j_n_m;
  ro->j_c_m = j_c_m;
  ro->iap = iap;
  ro->ng = ng;
  ro->sng = sng;
  ro->lc0 = lc0;
}

void silo_profiles(silo_plan *pl) {
  bg_lab *lab = pl->lab;
  const bg_silo_scene *scs = pl->scs;
  bg_silo_result *rr = pl->rr;
  const double n0 = pl->n0;
  const int round = pl->round;
  const int nap = pl->nap;
  const int nref = pl->nref;
  const int ntot = pl->ntot;
  /* exit profiles (sweep, then refinement runs) */
  for (int i = 0; i < ntot; ++i) {
    bg_silo_result *r = &rr[i];
    char fn[64], cm[320];
    if (i < nap) snprintf(fn, sizeof fn, "exit_D%d.tsv", i);
    else snprintf(fn, sizeof fn, "exit_R%d.tsv", i - nap);
    snprintf(cm, sizeof cm, "exit profile just under the orifice plane z = 0 (band -dx <= z < 0, %d samples), D_geo %.4g m, dx %g m; %s; v downward positive",
             r->n_prof, r->D_geo, scs[i].dx, round ? "position = radius from the axis" : "position = x from the aperture centre");
    FILE *fe = bg_lab_tsv(lab, fn, cm,
                          "pos_m\tpos_over_D\tflux_kg_m2_s\tv_exit_m_s\trho_state_kg_m3\trho_counted_kg_m3\tparticle_samples");
    for (int b = 0; b < r->nb; ++b) {
      double vol = r->area[b] * scs[i].dx * (r->n_prof ? r->n_prof : 1);
      int has = r->sm[b] > 0;
      fprintf(fe, "%.6g\t%.5g\t%.6g\t%.6g\t%.6g\t%.6g\t%g\n", r->pos[b], r->pos[b] / r->D_geo,
              r->smv[b] / vol, has ? r->smv[b] / r->sm[b] : NAN, has ? r->smr[b] / r->sm[b] : NAN, r->sm[b] / vol,
              r->cnt[b]);
    }
    fclose(fe);
  }
  /* the dx refinement at one physical aperture */
  if (nref) {
    FILE *fx = bg_lab_tsv(lab, "refine.tsv",
                          "dx refinement at a fixed physical aperture (--refine), silo L = 2.5 D; C_k0 = W / (rho_b sqrt(g) D_geo^n_law)",
                          "dx_m\tsilo_cells\tD_nominal_m\tD_geo_m\tD_over_dx\tW\tsigma_W\tW_rel_se\trho_b_kg_m3\tv_c_m_s\tu_c\tC_k0\tflatness\tparticles\tsteps\tstop_rule");
    for (int j = 0; j < nref; ++j) {
      bg_silo_result *r = &rr[nap + j];
      double c0k = r->W / (r->rho_b * sqrt(G) * pow(r->D_geo, n0));
      fprintf(fx, "%g\t%d\t%.6g\t%.6g\t%.4g\t%.6g\t%.3g\t%.3g\t%.2f\t%.5g\t%.5g\t%.5g\t%.5f\t%zu\t%llu\t%s\n", scs[nap + j].dx,
              scs[nap + j].silo_cells, r->D_nom, r->D_geo, r->D_geo / scs[nap + j].dx, r->W, r->sW, r->rel_se, r->rho_b,
              r->v_c, r->u_c, c0k, r->flat, r->n_particles, (unsigned long long)r->steps, r->stop_rule);
      bg_lab_progress(lab, "refine dx %g m: D %.2f cells, W %.5g, u_c %.4g, C(k=0) %.4g", scs[nap + j].dx,
                      r->D_geo / scs[nap + j].dx, r->W, r->u_c, c0k);
    }
    fclose(fx);
  }
}

void silo_judge(silo_plan *pl, silo_readout *ro) {
  bg_lab *lab = pl->lab;
  const char *geometry = pl->geometry;
  const char *unit_w = pl->unit_w;
  bg_silo_result *rr = pl->rr;
  const double dx = pl->dx;
  const double plateau_slope = pl->plateau_slope;
  const double k_fixed = pl->k_fixed;
  const double grain_kd = pl->grain_kd;
  const double k_bev = pl->k_bev;
  const int round = pl->round;
  const int silo_cells = pl->silo_cells;
  const int nap = pl->nap;
  const int iref = pl->iref;
  double *Da = ro->Da;
  double *Dr = ro->Dr;
  double *yr = ro->yr;
  double *yb = ro->yb;
  const int nfit = ro->nfit;
  const int nr = ro->nr;
  const int nj = ro->nj;
  const int iap = ro->iap;
  const double ng = ro->ng;
  const bev_fit c_fix = ro->c_fix;
  const bev_fit n_fix = ro->n_fix;
  const bev_fit c_free = ro->c_free;
  const bev_fit n_free = ro->n_free;
  const bev_fit c_free_all = ro->c_free_all;
  const bev_fit n_free_all = ro->n_free_all;
  const bev_fit n_fix_all = ro->n_fix_all;
  const bev_fit c_law = ro->c_law;
  const bev_fit n_law = ro->n_law;
  const bev_fit j_n = ro->j_n;
  const bev_fit j_c = ro->j_c;
  const bev_fit j_n_m = ro->j_n_m;
  const bev_fit j_c_m = ro->j_c_m;
  bg_silo_result *ref = &rr[iref];
  FILE *fw = bg_lab_tsv(lab, "rate_sub.tsv",
                        "rate run (largest aperture): parked-mass GSL fits over five equal sub-windows of the steady window",
                        round ? "t_mid_s\tW_kg_per_s\tt_lo_s\tt_hi_s\tW_over_W_window" : "t_mid_s\tW_kg_per_m_s\tt_lo_s\tt_hi_s\tW_over_W_window");
  for (int k = 0; k < BG_SILO_N_SUB; ++k)
    fprintf(fw, "%.5f\t%.6g\t%.5f\t%.5f\t%.5f\n", 0.5 * (ref->t_sub[k][0] + ref->t_sub[k][1]), ref->W_sub[k],
            ref->t_sub[k][0], ref->t_sub[k][1], ref->W_sub[k] / ref->W);
  fclose(fw);
  double closure = ref->W_closure / ref->W - 1;
  FILE *fsum = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
  fprintf(fsum, "geometry\t%s\t-\n", geometry);
  fprintf(fsum, "rate_run_D_geo\t%.6g\tm\n", ref->D_geo);
  fprintf(fsum, "rate_run_W\t%.6g\t%s\n", ref->W, unit_w);
  fprintf(fsum, "rate_run_W_plane\t%.6g\t%s\n", ref->W_plane, unit_w);
  fprintf(fsum, "rate_run_flatness\t%.5f\t1\n", ref->flat);
  fprintf(fsum, "rate_run_flatness_from_t0\t%.5f\t1\n", ref->flat_startup);
  for (int k = 0; k < BG_SILO_N_SUB; ++k) fprintf(fsum, "rate_run_W_sub%d\t%.6g\t%s\n", k, ref->W_sub[k], unit_w);
  fprintf(fsum, "rate_run_fill_start_over_L\t%.4f\t1\n", ref->H / (silo_cells * dx));
  fprintf(fsum, "rate_run_fill_end_over_L\t%.4f\t1\n", ref->h_stop / (silo_cells * dx));
  fprintf(fsum, "rate_run_rho_b\t%.2f\tkg/m3\n", ref->rho_b);
  fprintf(fsum, "rate_run_W_closure\t%.6g\t%s\n", ref->W_closure, unit_w);
  fprintf(fsum, "rate_run_W_counted\t%.6g\t%s\n", ref->W_counted, unit_w);
  fprintf(fsum, "rate_run_W_closure_rho0\t%.6g\t%s\n", ref->W_closure_rho0, unit_w);
  fprintf(fsum, "flux_closure_rel\t%.5f\t1\n", closure);
  fprintf(fsum, "plane_vs_sink_rel\t%.5f\t1\n", ref->W_plane / ref->W - 1);
  fprintf(fsum, "rate_run_D_flow\t%.5g\tm\n", ref->D_flow);
  fprintf(fsum, "plateau_slope_max\t%g\t1\n", plateau_slope);
  fprintf(fsum, "apertures_resolved\t%d\t1\n", nr);
  fprintf(fsum, "k_fixed_cells\t%g\t1\n", k_fixed);
  fprintf(fsum, "C_k_fixed\t%.5g\t1\n", c_fix.C);
  fprintf(fsum, "n_k_fixed\t%.4g\t1\n", n_fix.n);
  fprintf(fsum, "sigma_n_k_fixed\t%.3g\t1\n", n_fix.sn);
  fprintf(fsum, "C_k_free\t%.5g\t1\n", c_free.C);
  fprintf(fsum, "k_free_cells\t%.4g\t1\n", c_free.k);
  fprintf(fsum, "n_k_free\t%.4g\t1\n", n_free.n);
  fprintf(fsum, "C_k_free_all\t%.5g\t1\n", c_free_all.C);
  fprintf(fsum, "k_free_all_cells\t%.4g\t1\n", c_free_all.k);
  fprintf(fsum, "n_k_free_all\t%.4g\t1\n", n_free_all.n);
  fprintf(fsum, "n_geometric\t%.4g\t1\n", ng);
  fprintf(fsum, "joint_points\t%d\t1\n", nj);
  fprintf(fsum, "n_joint\t%.4g\t1\n", j_n.n);
  fprintf(fsum, "sigma_n_joint\t%.3g\t1\n", j_n.sn);
  fprintf(fsum, "C_joint_n_free\t%.4g\t1\n", j_n.C);
  fprintf(fsum, "k_joint_cells\t%.4g\t1\n", j_n.k);
  fprintf(fsum, "sigma_k_joint_cells\t%.3g\t1\n", j_n.sk);
  fprintf(fsum, "k_joint_mm_at_dx\t%.4g\tmm\n", j_n.k * dx * 1e3);
  fprintf(fsum, "rms_joint\t%.4g\t1\n", j_n.rms);
  fprintf(fsum, "C_joint_n_law\t%.4g\t1\n", j_c.C);
  fprintf(fsum, "sigma_C_joint_n_law\t%.3g\t1\n", j_c.sC);
  fprintf(fsum, "k_joint_n_law_cells\t%.4g\t1\n", j_c.k);
  fprintf(fsum, "aperture_fed_m\t%.6g\tm\n", rr[iap].D_fed);
  fprintf(fsum, "aperture_measured_m\t%.6g\tm\n", rr[iap].D_geo);
  for (int i = 0; i < nap; ++i) {
    fprintf(fsum, "stop_rule_D%d\t%s\t-\n", i, rr[i].stop_rule);
    fprintf(fsum, "W_rel_se_D%d\t%.3g\t1\n", i, rr[i].rel_se);
    fprintf(fsum, "window_s_D%d\t%.4f\ts\n", i, rr[i].t1w - rr[i].t0w);
    fprintf(fsum, "u_c_D%d\t%.4g\t1\n", i, rr[i].u_c);
  }
  fclose(fsum);
  bg_lab_manifest_num(lab, "apertures_resolved", nr);
  bg_lab_manifest_num(lab, "C_k_fixed", c_fix.C);
  bg_lab_manifest_num(lab, "n_k_fixed", n_fix.n);
  bg_lab_manifest_num(lab, "C_k_free", c_free.C);
  bg_lab_manifest_num(lab, "k_free_cells", c_free.k);
  bg_lab_manifest_num(lab, "n_k_free", n_free.n);
  bg_lab_manifest_num(lab, "n_geometric", ng);
  bg_lab_manifest_num(lab, "joint_points", nj);
  bg_lab_manifest_num(lab, "n_joint", j_n.n);
  bg_lab_manifest_num(lab, "k_joint_cells", j_n.k);
  bg_lab_manifest_num(lab, "k_joint_mm", j_n.k * dx * 1e3);
  bg_lab_manifest_num(lab, "C_joint_n_law", j_c.C);

  bg_lab_claim(lab, "silo.rate_flat", ref->flat);
  bg_lab_claim_mutant(lab, "startup-included", "silo.rate_flat", ref->flat_startup);
  /* the aperture the fits used, against the one the library holds (cells of its dx) */
  bg_lab_claim_fed(lab, "silo.aperture", rr[iap].D_geo / rr[iap].dx_fed, rr[iap].D_fed / rr[iap].dx_fed);
  bg_lab_claim_mutant_fed(lab, "aperture-one-cell-small", "silo.aperture", (rr[iap].D_geo - rr[iap].dx_fed) / rr[iap].dx_fed,
                          rr[iap].D_fed / rr[iap].dx_fed);
  /* Drucker-Prager: the joint fit with the rim modelled; a grain model
   * (mu(I), ngf): the fixed-k fits with k d from its grain size */
  const int grain_fit = grain_kd >= 0;
  if (round) {
    bg_lab_claim(lab, "silo.beverloo_exponent", grain_fit ? n_fix.n : j_n.n);
    bg_lab_claim(lab, "silo.C", grain_fit ? c_fix.C : j_c.C);
    bg_lab_claim_mutant(lab, "aperture-one-cell-small", "silo.beverloo_exponent", grain_fit ? n_fix.n : j_n_m.n);
    bg_lab_claim_mutant(lab, "aperture-one-cell-small", "silo.C", grain_fit ? c_fix.C : j_c_m.C);
  } else {
    bg_lab_claim(lab, "silo.slot_exponent", grain_fit ? n_fix.n : j_n.n);
    bg_lab_claim_mutant(lab, "aperture-one-cell-small", "silo.slot_exponent", grain_fit ? n_fix.n : j_n_m.n);
    /* the fit before the criterion: every aperture, k floating */
    bg_lab_claim_mutant(lab, "criterion-off", "silo.slot_exponent", n_free_all.n);
  }
  /* synthetic data: judged in every geometry, so the quick run checks it */
  bg_lab_claim_mutant(lab, "beverloo-law-data", "silo.C", c_law.C);
  bg_lab_claim_mutant(lab, "beverloo-law-data", "silo.beverloo_exponent", n_law.n);
  /* negative control: the same synthetic law (a rim of 2.7 cells) through
   * the k = 0 fit, the rim unmodelled, must miss n = 5/2 */
  bg_lab_claim_mutant(lab, "rim-unmodelled-law-data", "silo.beverloo_exponent", silo_fit_n_kfixed(Da, yb, (size_t)nfit, 0).n);
  /* the round silo's exponent over every discharging aperture, the
   * unresolved ones included (the resolution criterion off) */
  if (round) bg_lab_claim_mutant(lab, "unresolved-in", "silo.beverloo_exponent", n_fix_all.n);
  /* reported: k d with the grid spacing for d (the length Drucker-Prager
   * borrows) instead of the grain size, on the same resolved apertures */
  bg_lab_manifest_num(lab, "beverloo_exponent_kd_from_dx", silo_fit_n_kfixed(Dr, yr, (size_t)nr, k_bev * dx).n);
  bg_lab_claim(lab, "silo.flux_closure", closure);
  bg_lab_claim_mutant(lab, "density-rho0", "silo.flux_closure", ref->W_closure_rho0 / ref->W - 1);
}
