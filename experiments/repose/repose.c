/* repose.c: the angle of repose of a collapsed sand column.
 *
 * Scene: a cylinder of Klar's sand (radius R0, height H0 = a R0, fed friction
 * angle phi) released at rest on a floor with Coulomb friction mu_floor (or a
 * stick floor), run until it settles; the deposit's flank angle is read by
 * four surface estimators, on a sequence of grids each halving dx, and
 * extrapolated to dx -> 0 with a GSL fit theta(h) = theta_inf + c h^p
 * (h = dx / R0). A floor-friction sweep measures runout; a plane-strain
 * ridge (a slab between slip walls) is compared with the axisymmetric pile.
 *
 * The scene, its symmetry (a quarter cylinder between slip mirror planes),
 * the settling rule, the height field and the runout are bg_column.c's,
 * shared with the runout experiment; see bg_column.h.
 * Estimators use the mid-flank band 0.2 h_max <= h <= 0.8 h_max, h_max the
 * highest column:
 *   E1 profile: line fit to the radially averaged profile h(r) (annuli dx wide)
 *   E2 cone: nonlinear fit z = z0 - t sqrt((x-x0)^2 + (y-y0)^2) to the columns
 *   E3 sectors: line fits h(r) in N_SECTORS azimuth sectors of the quarter, averaged
 *   E4 slope: median of atan |grad h| (central differences of the height field)
 * Runout: the outermost radius where the annular mean thickness crosses
 * RUNOUT_H dx, linearly interpolated between annulus centres. */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_column.h"
#include "bg_lab.h"

#define N_EST 4
#define N_SECTORS 6
#define BAND_LO 0.2
#define BAND_HI 0.8
#define KE_FRAC 1e-4
#define CHECK_DT_FRAC 0.1
#define RUNOUT_H 1.0 /* runout thickness threshold, in dx */
#define MAX_GRIDS 6
#define MAX_MU 8
#define DEG (180.0 / M_PI)

static const char *est_names[N_EST] = {"profile", "cone", "sectors", "slope"};

typedef struct result {
  double dx;
  size_t n_particles;
  uint64_t steps;
  double t_end, ke_end, ke_thresh;
  int settled;
  double theta[N_EST]; /* deg; the ridge fills theta[0] only */
  double theta_mean, theta_sd;
  double h_max, runout, runout_wall; /* m; runout_wall: runout that touches the far wall */
  int nbins;
  double *rbin, *hbin; /* radial (or x) profile: centres and mean heights, m */
} result;

/* ------------------------------------------------------------ line fits */

/* atan of minus the slope of a least-squares line through (x, y): the flank
 * angle in degrees; NaN with fewer than 3 points. */
static double line_angle(const double *x, const double *y, size_t n) {
  if (n < 3) return NAN;
  double c0, c1, cov00, cov01, cov11, sumsq;
  gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
  return atan(-c1) * DEG;
}

/* cone fit: z = z0 - t r, r = |(x, y) - (x0, y0)| */
typedef struct cone_data {
  const double *x, *y, *z;
  size_t n;
} cone_data;

static int cone_f(const gsl_vector *p, void *vd, gsl_vector *f) {
  const cone_data *d = vd;
  double z0 = gsl_vector_get(p, 0), t = gsl_vector_get(p, 1), x0 = gsl_vector_get(p, 2),
         y0 = gsl_vector_get(p, 3);
  for (size_t i = 0; i < d->n; ++i) {
    double r = hypot(d->x[i] - x0, d->y[i] - y0);
    gsl_vector_set(f, i, z0 - t * r - d->z[i]);
  }
  return GSL_SUCCESS;
}

static int cone_df(const gsl_vector *p, void *vd, gsl_matrix *J) {
  const cone_data *d = vd;
  double t = gsl_vector_get(p, 1), x0 = gsl_vector_get(p, 2), y0 = gsl_vector_get(p, 3);
  for (size_t i = 0; i < d->n; ++i) {
    double ex = d->x[i] - x0, ey = d->y[i] - y0, r = hypot(ex, ey);
    double rr = r > 1e-12 ? r : 1e-12;
    gsl_matrix_set(J, i, 0, 1.0);
    gsl_matrix_set(J, i, 1, -r);
    gsl_matrix_set(J, i, 2, t * ex / rr);
    gsl_matrix_set(J, i, 3, t * ey / rr);
  }
  return GSL_SUCCESS;
}

static double cone_angle(const double *x, const double *y, const double *z, size_t n, double z0,
                         double t0) {
  if (n < 8) return NAN;
  cone_data d = {x, y, z, n};
  gsl_multifit_nlinear_fdf fdf = {cone_f, cone_df, NULL, n, 4, &d, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, 4);
  double p0[4] = {z0, t0, 0, 0};
  gsl_vector_view pv = gsl_vector_view_array(p0, 4);
  gsl_multifit_nlinear_init(&pv.vector, &fdf, w);
  int info;
  int st = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
  double t = gsl_vector_get(w->x, 1);
  gsl_multifit_nlinear_free(w);
  return st == GSL_SUCCESS || st == GSL_EMAXITER ? atan(t) * DEG : NAN;
}

/* ---------------------------------------------------------- convergence */

typedef struct conv_data {
  const double *h, *theta, *sigma;
  size_t n;
} conv_data;

static int conv_f(const gsl_vector *p, void *vd, gsl_vector *f) {
  const conv_data *d = vd;
  double ti = gsl_vector_get(p, 0), c = gsl_vector_get(p, 1), e = gsl_vector_get(p, 2);
  for (size_t i = 0; i < d->n; ++i)
    gsl_vector_set(f, i, (ti + c * pow(d->h[i], e) - d->theta[i]) / d->sigma[i]);
  return GSL_SUCCESS;
}

static int conv_df(const gsl_vector *p, void *vd, gsl_matrix *J) {
  const conv_data *d = vd;
  double c = gsl_vector_get(p, 1), e = gsl_vector_get(p, 2);
  for (size_t i = 0; i < d->n; ++i) {
    double he = pow(d->h[i], e);
    gsl_matrix_set(J, i, 0, 1.0 / d->sigma[i]);
    gsl_matrix_set(J, i, 1, he / d->sigma[i]);
    gsl_matrix_set(J, i, 2, c * he * log(d->h[i]) / d->sigma[i]);
  }
  return GSL_SUCCESS;
}

typedef struct conv_fit {
  double theta_inf, c, p, s_theta, s_c, s_p, chi2;
  int dof, status;
} conv_fit;

/* Weighted fit theta_i = theta_inf + c h_i^p with known sigma_i: the
 * parameter covariance is (J^T W J)^-1, not rescaled by chi^2/dof (with three
 * grids the fit has no degree of freedom left; the sigmas carry the
 * uncertainty). */
static conv_fit fit_convergence(const double *h, const double *theta, const double *sigma, size_t n,
                                double phi) {
  conv_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, (int)n - 3, -1};
  if (n < 3) return r;
  conv_data d = {h, theta, sigma, n};
  gsl_multifit_nlinear_fdf fdf = {conv_f, conv_df, NULL, n, 3, &d, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, 3);
  /* start: theta_inf at the finest grid's value pushed along the trend, p = 1 */
  double slope = (theta[n - 1] - theta[0]) / (h[n - 1] - h[0]);
  double p0[3] = {theta[n - 1] - slope * h[n - 1], slope, 1.0};
  (void)phi;
  gsl_vector_view pv = gsl_vector_view_array(p0, 3);
  gsl_multifit_nlinear_init(&pv.vector, &fdf, w);
  int info;
  r.status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
  gsl_matrix *cov = gsl_matrix_alloc(3, 3);
  gsl_matrix *J = gsl_multifit_nlinear_jac(w);
  gsl_multifit_nlinear_covar(J, 0.0, cov);
  gsl_vector *f = gsl_multifit_nlinear_residual(w);
  double chi2;
  gsl_blas_ddot(f, f, &chi2);
  r.theta_inf = gsl_vector_get(w->x, 0);
  r.c = gsl_vector_get(w->x, 1);
  r.p = gsl_vector_get(w->x, 2);
  r.s_theta = sqrt(gsl_matrix_get(cov, 0, 0));
  r.s_c = sqrt(gsl_matrix_get(cov, 1, 1));
  r.s_p = sqrt(gsl_matrix_get(cov, 2, 2));
  r.chi2 = chi2;
  gsl_matrix_free(cov);
  gsl_multifit_nlinear_free(w);
  if (r.status != GSL_SUCCESS || !isfinite(r.s_theta)) r.s_theta = NAN;
  return r;
}

/* -------------------------------------------------------------- a scene */

/* Runs one scene to rest (bg_column.c) and reads the flank angle. */
static result run_scene(bg_lab *lab, const bg_column_scene *sc, const char *tag) {
  result res;
  memset(&res, 0, sizeof res);
  bg_column_result col = bg_column_run(lab, sc, tag);
  res.dx = col.dx;
  res.n_particles = col.n_particles;
  res.steps = col.steps;
  res.t_end = col.t_end;
  res.ke_end = col.ke_end;
  res.ke_thresh = col.ke_thresh;
  res.settled = col.settled;
  res.h_max = col.h_max;
  res.runout = col.runout;
  res.runout_wall = col.runout_wall;
  res.nbins = col.nbins;
  res.rbin = col.rbin; /* ownership moves to res */
  res.hbin = col.hbin;
  const double *hf = col.hf;
  int nx = col.nx, ny = col.ny;
  double dx = col.dx, hmax = col.h_max;
  double lo = BAND_LO * hmax, hi = BAND_HI * hmax;
  /* E1: line fit to the profile over the band */
  double *bx = malloc((size_t)(res.nbins > 0 ? res.nbins : 1) * sizeof *bx);
  double *by = malloc((size_t)(res.nbins > 0 ? res.nbins : 1) * sizeof *by);
  size_t nband = 0;
  for (int b = 0; b < res.nbins; ++b)
    if (res.hbin[b] >= lo && res.hbin[b] <= hi) {
      bx[nband] = res.rbin[b];
      by[nband++] = res.hbin[b];
    }
  res.theta[0] = line_angle(bx, by, nband);
  for (int e = 1; e < N_EST; ++e) res.theta[e] = NAN;

  if (!sc->ridge) {
    /* E2 cone and E3 sectors on the band's columns */
    size_t cap2 = (size_t)nx * ny, k = 0;
    double *cx = malloc(cap2 * sizeof *cx), *cy = malloc(cap2 * sizeof *cy), *cz = malloc(cap2 * sizeof *cz);
    double *sr[N_SECTORS], *sz[N_SECTORS];
    size_t sn[N_SECTORS] = {0};
    for (int q = 0; q < N_SECTORS; ++q) {
      sr[q] = malloc(cap2 * sizeof **sr);
      sz[q] = malloc(cap2 * sizeof **sz);
    }
    for (int i = 0; i < nx; ++i)
      for (int j = 0; j < ny; ++j) {
        double h = hf[(size_t)i * ny + j];
        if (h < lo || h > hi) continue;
        double px = (i + 0.5) * dx, py = (j + 0.5) * dx;
        cx[k] = px;
        cy[k] = py;
        cz[k++] = h;
        int q = (int)floor(atan2(py, px) / (0.5 * M_PI) * N_SECTORS);
        if (q < 0) q = 0;
        if (q >= N_SECTORS) q = N_SECTORS - 1;
        sr[q][sn[q]] = hypot(px, py);
        sz[q][sn[q]++] = h;
      }
    res.theta[1] = cone_angle(cx, cy, cz, k, hmax, tan(res.theta[0] / DEG));
    double acc = 0;
    int ok = 0;
    for (int q = 0; q < N_SECTORS; ++q) {
      double a = line_angle(sr[q], sz[q], sn[q]);
      if (isfinite(a)) {
        acc += a;
        ok++;
      }
      free(sr[q]);
      free(sz[q]);
    }
    res.theta[2] = ok == N_SECTORS ? acc / ok : NAN;
    /* E4: median slope of the height field over band cells with all four neighbours */
    k = 0;
    for (int i = 1; i + 1 < nx; ++i)
      for (int j = 1; j + 1 < ny; ++j) {
        double h = hf[(size_t)i * ny + j];
        if (h < lo || h > hi) continue;
        double gx = (hf[(size_t)(i + 1) * ny + j] - hf[(size_t)(i - 1) * ny + j]) / (2 * dx);
        double gy = (hf[(size_t)i * ny + j + 1] - hf[(size_t)i * ny + j - 1]) / (2 * dx);
        cz[k++] = atan(hypot(gx, gy)) * DEG;
      }
    if (k >= 5) {
      gsl_sort(cz, 1, k);
      res.theta[3] = gsl_stats_median_from_sorted_data(cz, 1, k);
    }
    free(cx);
    free(cy);
    free(cz);
    double sum = 0, sq = 0;
    int ne = 0;
    for (int e = 0; e < N_EST; ++e) {
      sum += res.theta[e];
      ne++;
    }
    res.theta_mean = sum / ne; /* NaN if any estimator failed */
    for (int e = 0; e < N_EST; ++e) sq += (res.theta[e] - res.theta_mean) * (res.theta[e] - res.theta_mean);
    res.theta_sd = sqrt(sq / (ne - 1));
  } else {
    res.theta_mean = res.theta[0];
    res.theta_sd = NAN;
  }
  bg_lab_progress(lab,
                  "%s: %s at t = %.3f s after %llu steps (KE %.3g J, threshold %.3g J); h_max %.1f mm, "
                  "runout %.1f mm%s, theta %.2f %.2f %.2f %.2f deg",
                  tag, res.settled ? "settled" : "NOT settled (t_max)", res.t_end,
                  (unsigned long long)res.steps, res.ke_end, res.ke_thresh, res.h_max * 1e3,
                  res.runout * 1e3, res.runout_wall ? " (reaches the far wall)" : "", res.theta[0],
                  res.theta[1], res.theta[2], res.theta[3]);
  free(bx);
  free(by);
  free(col.hf);
  return res;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv) {
  double phi = 35, mu_floor = 1.0, aspect = 1.0, R0 = 0.1, domain = 2.5, t_max = 0, jitter = 0.5;
  int cells = 0, grids = 0, mu_cells = 0, ridge_cells = 4;
  bg_lab_param params[] = {
      {"phi", BG_PARAM_DOUBLE, &phi, 20, 45, "fed friction angle, deg", 0},
      {"mu-floor", BG_PARAM_DOUBLE, &mu_floor, 0.05, 5, "floor Coulomb coefficient of the refinement runs", 0},
      {"aspect", BG_PARAM_DOUBLE, &aspect, 0.5, 3, "column aspect ratio a = H0 / R0", 0},
      {"radius", BG_PARAM_DOUBLE, &R0, 0.02, 0.5, "column radius R0, m", 0},
      {"cells-coarse", BG_PARAM_INT, &cells, 4, 256, "cells per R0 on the coarsest grid (dx-coarse = R0 / this)", 0},
      {"grids", BG_PARAM_INT, &grids, 3, MAX_GRIDS, "number of grids, each halving dx", 0},
      {"mu-cells", BG_PARAM_INT, &mu_cells, 4, 256, "cells per R0 of the floor-friction sweep", 0},
      {"ridge-cells", BG_PARAM_INT, &ridge_cells, 2, 64, "plane-strain slab thickness, cells", 0},
      {"domain", BG_PARAM_DOUBLE, &domain, 1.5, 10, "quarter-domain extent L / R0", 0},
      {"t-max", BG_PARAM_DOUBLE, &t_max, 0.1, 20, "maximum simulated time per run, s", 0},
      {"jitter", BG_PARAM_DOUBLE, &jitter, 0, 1, "lattice jitter, fraction of the particle spacing", 0},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab *lab = bg_lab_init("exp_repose",
                            "Angle of repose of a released sand cylinder: four surface estimators, "
                            "refinement in dx, floor friction sweep, plane-strain ridge.",
                            argc, argv, params, np, NULL);
  int paper = bg_lab_scale(lab) == BG_SCALE_PAPER;
  if (!params[4].set) cells = paper ? 8 : 6;
  if (!params[5].set) grids = paper ? 5 : 3;
  if (!params[6].set) mu_cells = paper ? 32 : 12;
  if (!params[9].set) t_max = 3.0;
  gsl_set_error_handler_off();
  /* the finest grid must stay addressable */
  if ((double)cells * pow(2, grids - 1) > 1024) {
    fprintf(stderr, "error: --cells-coarse %d with --grids %d gives %g cells per R0 (max 1024)\n", cells,
            grids, cells * pow(2, grids - 1));
    return 2;
  }
  double tanphi = tan(phi / DEG);
  const char *pnames[] = {"phi_deg", "mu_floor", "aspect", "radius_m", "cells_coarse", "grids",
                          "mu_cells", "ridge_cells", "domain_over_R0", "t_max_s", "jitter"};
  for (int i = 0; i < np; ++i)
    bg_lab_manifest_num(lab, pnames[i],
                        params[i].type == BG_PARAM_INT ? (double)*(int *)params[i].dest : *(double *)params[i].dest);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "ke_threshold_over_MgR0", KE_FRAC);
  bg_lab_manifest_num(lab, "band_lo_over_hmax", BAND_LO);
  bg_lab_manifest_num(lab, "band_hi_over_hmax", BAND_HI);
  bg_lab_manifest_num(lab, "runout_threshold_over_dx", RUNOUT_H);
  bg_lab_manifest_str(lab, "material", "Klar 2016 sand (E 3.537e5 Pa, nu 0.3, rho 2200), Hencky, no hardening, volume correction on");
  bg_lab_manifest_str(lab, "symmetry", "quarter cylinder, slip faces at x = 0 and y = 0 as mirror planes");

  bg_column_scene base = bg_column_scene_default();
  base.R0 = R0;
  base.aspect = aspect;
  base.phi = phi;
  base.L_over_R0 = domain;
  base.t_max_s = t_max;
  base.jitter = jitter;
  base.cells = cells;
  base.ridge_cells = ridge_cells;
  base.floor = BG_FRICTION_COULOMB;
  base.mu = mu_floor;
  base.ke_frac = KE_FRAC;
  base.check_frac = CHECK_DT_FRAC;
  base.runout_h = RUNOUT_H;
  base.backend = bg_lab_backend(lab);
  base.threads = bg_lab_threads(lab);
  base.seed = bg_lab_seed(lab);

  /* 1. refinement */
  result conv[MAX_GRIDS];
  double hdx[MAX_GRIDS], th[MAX_GRIDS], sg[MAX_GRIDS];
  FILE *fc = bg_lab_tsv(lab, "convergence.tsv",
                        "flank angle per grid (mid-flank band 0.2-0.8 h_max); sigma = sample sd of the four estimators",
                        "dx_m\tdx_over_R0\tcells_per_R0\ttheta_profile_deg\ttheta_cone_deg\ttheta_sectors_deg\ttheta_slope_deg\ttheta_mean_deg\tsigma_deg\tspread_deg\th_max_m\trunout_m\tparticles\tsteps\tt_end_s\tsettled");
  for (int gi = 0; gi < grids; ++gi) {
    bg_column_scene sc = base;
    sc.cells = cells << gi;
    char tag[64];
    snprintf(tag, sizeof tag, "grid %d/%d", gi + 1, grids);
    conv[gi] = run_scene(lab, &sc, tag);
    result *r = &conv[gi];
    double mn = r->theta[0], mx = r->theta[0];
    for (int e = 1; e < N_EST; ++e) {
      mn = fmin(mn, r->theta[e]);
      mx = fmax(mx, r->theta[e]);
    }
    hdx[gi] = r->dx / R0;
    th[gi] = r->theta_mean;
    sg[gi] = fmax(r->theta_sd, 0.05); /* floor: the estimators' float resolution */
    fprintf(fc, "%.6g\t%.6g\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%zu\t%llu\t%.4f\t%d\n",
            r->dx, hdx[gi], sc.cells, r->theta[0], r->theta[1], r->theta[2], r->theta[3], r->theta_mean,
            r->theta_sd, mx - mn, r->h_max, r->runout, r->n_particles, (unsigned long long)r->steps,
            r->t_end, r->settled);
    char fn[64];
    snprintf(fn, sizeof fn, "profile_dx%d.tsv", gi);
    char cm[256];
    snprintf(cm, sizeof cm, "radially averaged deposit profile, dx = %.4g m (%d cells per R0), R0 %.3g m, H0 %.3g m",
             r->dx, sc.cells, R0, aspect * R0);
    FILE *fp = bg_lab_tsv(lab, fn, cm, "r_m\th_m\tr_over_R0\th_over_H0");
    for (int b = 0; b < r->nbins; ++b)
      fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\n", r->rbin[b], r->hbin[b], r->rbin[b] / R0,
              r->hbin[b] / (aspect * R0));
    fclose(fp);
  }
  fclose(fc);

  /* fit and claims on refinement */
  conv_fit cf = fit_convergence(hdx, th, sg, (size_t)grids, phi);
  int n_up = 0, n_down = 0;
  for (int gi = 0; gi + 1 < grids; ++gi) {
    /* pairs ordered from coarse to fine */
    if (th[gi + 1] > th[gi]) n_up++;
    else if (th[gi + 1] < th[gi]) n_down++;
  }
  int non_monotone = (n_up < n_down ? n_up : n_down);
  if (!isfinite(th[0])) non_monotone = grids; /* an estimator failed: not measurable */
  for (int gi = 0; gi < grids; ++gi)
    if (!isfinite(th[gi])) non_monotone = grids;
  FILE *ff = bg_lab_tsv(lab, "fit.tsv",
                        "weighted GSL fit theta(h) = theta_inf + c h^p, h = dx / R0; 1-sigma from (J^T W J)^-1 with the per-grid sigmas of convergence.tsv",
                        "theta_inf_deg\tsigma_theta_inf_deg\tc_deg\tsigma_c_deg\tp\tsigma_p\tchi2\tdof\tgsl_status\tphi_fed_deg");
  fprintf(ff, "%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.4g\t%d\t%d\t%g\n", cf.theta_inf, cf.s_theta, cf.c, cf.s_c,
          cf.p, cf.s_p, cf.chi2, cf.dof, cf.status, phi);
  fclose(ff);
  FILE *fcurve = bg_lab_tsv(lab, "fit_curve.tsv", "fitted theta(dx) for the figure", "dx_m\ttheta_deg");
  for (int i = 0; i <= 100; ++i) {
    double h = hdx[0] * 1.1 * i / 100.0;
    fprintf(fcurve, "%.6g\t%.5f\n", h * R0, cf.theta_inf + cf.c * pow(h, cf.p));
  }
  fclose(fcurve);
  result *fine = &conv[grids - 1];
  double spread = NAN;
  {
    double mn = fine->theta[0], mx = fine->theta[0];
    for (int e = 1; e < N_EST; ++e) {
      mn = fmin(mn, fine->theta[e]);
      mx = fmax(mx, fine->theta[e]);
    }
    spread = mx - mn;
    for (int e = 0; e < N_EST; ++e)
      if (!isfinite(fine->theta[e])) spread = NAN;
  }
  double limit_gap = fabs(cf.theta_inf - phi) - 2 * cf.s_theta;

  /* 2. floor friction sweep */
  const double mu_fac[] = {0.4, 0.7, 1.0, 1.4, 2.0};
  int n_mu = (int)(sizeof mu_fac / sizeof mu_fac[0]);
  result rmu[MAX_MU];
  double mus[MAX_MU];
  FILE *fm = bg_lab_tsv(lab, "floor_mu.tsv",
                        "runout (annular mean thickness crosses 1 dx, interpolated) vs floor Coulomb mu, same dx; last row: stick floor (mu column NaN, stick 1)",
                        "mu_floor\tmu_over_tanphi\trunout_m\trunout_over_R0\ttheta_mean_deg\th_max_m\tsettled\treaches_wall\tstick");
  for (int i = 0; i <= n_mu; ++i) {
    bg_column_scene sc = base;
    sc.cells = mu_cells;
    char tag[64];
    if (i < n_mu) {
      mus[i] = mu_fac[i] * tanphi;
      sc.mu = mus[i];
      snprintf(tag, sizeof tag, "floor mu %.3g", mus[i]);
    } else {
      sc.floor = BG_FRICTION_STICK;
      sc.mu = 0;
      snprintf(tag, sizeof tag, "floor stick");
    }
    rmu[i] = run_scene(lab, &sc, tag);
    fprintf(fm, "%.5g\t%.5g\t%.6g\t%.5g\t%.4f\t%.6g\t%d\t%d\t%d\n", i < n_mu ? mus[i] : NAN,
            i < n_mu ? mu_fac[i] : NAN, rmu[i].runout, rmu[i].runout / R0, rmu[i].theta_mean, rmu[i].h_max,
            rmu[i].settled, (int)rmu[i].runout_wall, i == n_mu);
  }
  fclose(fm);
  /* runout unchanged for mu >= tan phi: max |R - Rref| / Rref, Rref the largest mu */
  double rref = rmu[n_mu - 1].runout, mu_change = 0, hi_mean = 0;
  int n_hi = 0;
  for (int i = 0; i < n_mu; ++i)
    if (mu_fac[i] >= 1.0) {
      mu_change = fmax(mu_change, fabs(rmu[i].runout - rref) / rref);
      hi_mean += rmu[i].runout;
      n_hi++;
    }
  hi_mean /= n_hi;
  double grow_low = rmu[0].runout / hi_mean - 1; /* lowest mu against the mu >= tan phi mean */
  double stick_rel = rmu[n_mu].runout / hi_mean - 1;
  for (int i = 0; i <= n_mu; ++i)
    if (!rmu[i].settled || rmu[i].runout_wall) mu_change = NAN; /* not a free deposit */
  if (rmu[0].runout_wall) grow_low = NAN;

  /* 3. plane-strain ridge at the finest grid's dx */
  bg_column_scene sr = base;
  sr.ridge = 1;
  sr.cells = cells << (grids - 1);
  result rr = run_scene(lab, &sr, "ridge");
  double ridge_gap = fabs(rr.theta[0] - fine->theta[0]);
  FILE *fr = bg_lab_tsv(lab, "ridge.tsv",
                        "plane-strain half ridge (slab between slip walls) vs the axisymmetric pile, same dx; profile estimator for both",
                        "dx_m\ttheta_ridge_deg\ttheta_pile_profile_deg\ttheta_pile_mean_deg\trunout_ridge_m\trunout_pile_m\th_max_ridge_m\th_max_pile_m\tsettled\tparticles");
  fprintf(fr, "%.6g\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%zu\n", rr.dx, rr.theta[0], fine->theta[0],
          fine->theta_mean, rr.runout, fine->runout, rr.h_max, fine->h_max, rr.settled, rr.n_particles);
  fclose(fr);
  {
    FILE *fp = bg_lab_tsv(lab, "profile_ridge.tsv", "ridge profile h(x), averaged over the slab", "x_m\th_m\tx_over_R0\th_over_H0");
    for (int b = 0; b < rr.nbins; ++b)
      fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\n", rr.rbin[b], rr.hbin[b], rr.rbin[b] / R0, rr.hbin[b] / (aspect * R0));
    fclose(fp);
  }

  FILE *fs = bg_lab_tsv(lab, "summary.tsv", "one row per quantity", "quantity\tvalue\tunit");
  fprintf(fs, "phi_fed\t%g\tdeg\n", phi);
  fprintf(fs, "theta_finest_mean\t%.4f\tdeg\n", fine->theta_mean);
  fprintf(fs, "estimator_spread_finest\t%.4f\tdeg\n", spread);
  fprintf(fs, "non_monotone_pairs\t%d\t1\n", non_monotone);
  fprintf(fs, "theta_inf\t%.4f\tdeg\n", cf.theta_inf);
  fprintf(fs, "sigma_theta_inf\t%.4f\tdeg\n", cf.s_theta);
  fprintf(fs, "theta_inf_minus_phi_minus_2sigma\t%.4f\tdeg\n", limit_gap);
  fprintf(fs, "floor_mu_max_rel_change_mu_ge_tanphi\t%.4f\t1\n", mu_change);
  fprintf(fs, "runout_growth_lowest_mu\t%.4f\t1\n", grow_low);
  fprintf(fs, "runout_stick_rel_to_mu_ge_tanphi\t%.4f\t1\n", stick_rel);
  fprintf(fs, "theta_ridge\t%.4f\tdeg\n", rr.theta[0]);
  fprintf(fs, "ridge_minus_pile\t%.4f\tdeg\n", rr.theta[0] - fine->theta[0]);
  fclose(fs);
  bg_lab_manifest_num(lab, "theta_inf_deg", cf.theta_inf);
  bg_lab_manifest_num(lab, "sigma_theta_inf_deg", cf.s_theta);
  bg_lab_manifest_num(lab, "fit_p", cf.p);
  bg_lab_manifest_num(lab, "runout_growth_lowest_mu", grow_low);
  bg_lab_manifest_num(lab, "runout_stick_rel", stick_rel);

  bg_lab_claim(lab, "repose.estimators_agree", spread);
  bg_lab_claim(lab, "repose.monotone", (double)non_monotone);
  bg_lab_claim(lab, "repose.limit", limit_gap);
  /* a bracket contains phi easily when it is wide: its width is claimed too */
  bg_lab_claim(lab, "repose.limit_width", 2 * cf.s_theta);
  bg_lab_claim(lab, "repose.floor_mu", mu_change);
  bg_lab_claim(lab, "repose.floor_mu_low_grows", grow_low);
  bg_lab_claim(lab, "repose.ridge_vs_pile", ridge_gap);
  bg_lab_claim(lab, "repose.stick_runout", stick_rel);
  for (int gi = 0; gi < grids; ++gi) {
    free(conv[gi].rbin);
    free(conv[gi].hbin);
  }
  for (int i = 0; i <= n_mu; ++i) {
    free(rmu[i].rbin);
    free(rmu[i].hbin);
  }
  free(rr.rbin);
  free(rr.hbin);
  (void)est_names;
  return bg_lab_finish(lab);
}
