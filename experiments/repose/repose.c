/* repose.c: the angle of repose of a collapsed sand column.
 *
 * Scene: a cylinder of Klar's sand (radius R0, height H0 = a R0, fed friction
 * angle phi) released at rest on a floor with Coulomb friction mu_floor (or a
 * stick floor), run until it settles; the deposit's flank angle is read by
 * four surface estimators, on a sequence of grids refined by a constant ratio
 * (2 at paper scale, sqrt 2 at quick scale), and extrapolated to dx -> 0 with
 * an unweighted GSL fit theta(h) = theta_inf + c h^p (h = dx / R0, p free,
 * covariance scaled by chi^2 / dof, so at least four grids). A floor-friction
 * sweep measures runout; a plane-strain ridge (a slab between slip walls) is
 * compared with the axisymmetric pile. Expected values that follow from the
 * model (the flow angle bound) are derived in references/derivations/repose.md.
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
#define MAX_GRIDS 8
#define SLICK_MU 0.05 /* the slick-floor control's floor: nearly frictionless */
#define DEG (180.0 / M_PI)
/* Fixed height bands of the deposit, in units of the column's height H0:
 * the flank's parts behave differently under refinement (the foot flattens,
 * the upper flank steepens), so each gets its own angle and fit; see
 * references/derivations/repose.md sec. 6. */
#define N_BANDS 3
static const double band_lo[N_BANDS] = {0.05, 0.2, 0.4}, band_hi[N_BANDS] = {0.2, 0.4, 0.6};
static const char *const band_names[N_BANDS] = {"foot", "lower", "upper"};
enum { BAND_LOWER = 1 };

static const char *est_names[N_EST] = {"profile", "cone", "sectors", "slope"};

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
  const double *h, *theta;
  size_t n;
} conv_data;

static int conv_f(const gsl_vector *p, void *vd, gsl_vector *f) {
  const conv_data *d = vd;
  double ti = gsl_vector_get(p, 0), c = gsl_vector_get(p, 1), e = gsl_vector_get(p, 2);
  for (size_t i = 0; i < d->n; ++i) gsl_vector_set(f, i, ti + c * pow(d->h[i], e) - d->theta[i]);
  return GSL_SUCCESS;
}

static int conv_df(const gsl_vector *p, void *vd, gsl_matrix *J) {
  const conv_data *d = vd;
  double c = gsl_vector_get(p, 1), e = gsl_vector_get(p, 2);
  for (size_t i = 0; i < d->n; ++i) {
    double he = pow(d->h[i], e);
    gsl_matrix_set(J, i, 0, 1.0);
    gsl_matrix_set(J, i, 1, he);
    gsl_matrix_set(J, i, 2, c * he * log(d->h[i]));
  }
  return GSL_SUCCESS;
}

typedef struct conv_fit {
  double theta_inf, c, p, s_theta, s_c, s_p, chi2;
  int dof, status, found;
} conv_fit;

/* One nonlinear fit from a start at order p0 (theta_inf and c from the
 * linear fit at that order). */
static conv_fit fit_from(const double *h, const double *theta, size_t n, double p0) {
  conv_fit r = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, (int)n - 3, -1, 0};
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; ++i) x[i] = pow(h[i], p0);
  double a0, c0, cv0, cv1, cv2, ss;
  gsl_fit_linear(x, 1, theta, 1, n, &a0, &c0, &cv0, &cv1, &cv2, &ss);
  free(x);
  conv_data d = {h, theta, n};
  gsl_multifit_nlinear_fdf fdf = {conv_f, conv_df, NULL, n, 3, &d, 0, 0, 0};
  gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, 3);
  double st[3] = {a0, c0, p0};
  gsl_vector_view pv = gsl_vector_view_array(st, 3);
  gsl_multifit_nlinear_init(&pv.vector, &fdf, w);
  int info;
  r.status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
  gsl_matrix *cov = gsl_matrix_alloc(3, 3);
  gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
  gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), &r.chi2);
  /* unknown per-grid errors: the scatter about the fit sets them (chi^2 / dof) */
  double scale = r.dof > 0 ? r.chi2 / r.dof : NAN;
  r.theta_inf = gsl_vector_get(w->x, 0);
  r.c = gsl_vector_get(w->x, 1);
  r.p = gsl_vector_get(w->x, 2);
  r.s_theta = sqrt(gsl_matrix_get(cov, 0, 0) * scale);
  r.s_c = sqrt(gsl_matrix_get(cov, 1, 1) * scale);
  r.s_p = sqrt(gsl_matrix_get(cov, 2, 2) * scale);
  gsl_matrix_free(cov);
  gsl_multifit_nlinear_free(w);
  return r;
}

/* Unweighted fit theta_i = theta_inf + c h_i^p with p free; the covariance
 * (J^T J)^-1 is scaled by chi^2 / dof, which needs n >= 4. The limit counts
 * as found only when the fit converged to an order p > 2 sigma_p (theta
 * provably approaches theta_inf as h -> 0) with a finite uncertainty. Several starting orders:
 * the lowest chi^2 wins. */
static conv_fit fit_convergence(const double *h, const double *theta, size_t n) {
  conv_fit best = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, (int)n - 3, -1, 0};
  if (n < 4) return best;
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(theta[i])) return best;
  const double p0[] = {0.25, 0.5, 1.0, 2.0};
  for (size_t k = 0; k < sizeof p0 / sizeof p0[0]; ++k) {
    conv_fit r = fit_from(h, theta, n, p0[k]);
    if (r.status != GSL_SUCCESS || !isfinite(r.chi2)) continue;
    if (best.status != GSL_SUCCESS || r.chi2 < best.chi2) best = r;
  }
  best.found = best.status == GSL_SUCCESS && best.p > 2 * best.s_p && isfinite(best.s_theta) &&
               isfinite(best.theta_inf);
  return best;
}

/* Coarse-to-fine steps (or fine-to-coarse, reversed) whose angle does not
 * come closer to phi; every step counts when an angle is missing. */
static int steps_away(const double *th, int n, double phi, int reversed) {
  int away = 0;
  for (int k = 0; k + 1 < n; ++k) {
    double a = reversed ? th[n - 1 - k] : th[k], b = reversed ? th[n - 2 - k] : th[k + 1];
    if (!isfinite(a) || !isfinite(b)) return n - 1;
    if (fabs(b - phi) >= fabs(a - phi)) away++;
  }
  return away;
}

/* The friction angle a surface layer mobilises in steady simple shear under
 * Klar's Drucker-Prager cone (compression-meridian alpha): tau / sigma_n =
 * sqrt(J2) / p = 2 sqrt(3) sin phi / (3 - sin phi); references/derivations/repose.md. */
static double flow_angle(double phi_deg) {
  double s = sin(phi_deg / DEG);
  return atan(2 * sqrt(3.0) * s / (3 - s)) * DEG;
}

/* -------------------------------------------------------------- a scene */

/* A scene run to rest (bg_column.c, a point of the run's sweep): the flank
 * angle from its deposit. Takes col's arrays. */
static result measure(bg_lab *lab, const bg_column_scene *sc, const char *tag, bg_column_result col) {
  result res;
  memset(&res, 0, sizeof res);
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
  res.phi_fed = col.phi_fed;
  for (int q = 0; q < N_BANDS; ++q) {
    size_t nb = 0;
    for (int b = 0; b < res.nbins; ++b)
      if (res.hbin[b] >= band_lo[q] * col.H0 && res.hbin[b] < band_hi[q] * col.H0) {
        bx[nb] = res.rbin[b];
        by[nb++] = res.hbin[b];
      }
    res.band[q] = line_angle(bx, by, nb);
  }

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
    /* the ridge's ruler on the pile: x-profile of a strip ridge_cells wide along y = 0 */
    int ns = sc->ridge_cells < ny ? sc->ridge_cells : ny;
    k = 0;
    for (int i = 0; i < nx; ++i) {
      double m = 0;
      for (int j = 0; j < ns; ++j) m += hf[(size_t)i * ny + j];
      m /= ns;
      if (m < lo || m > hi) continue;
      cx[k] = (i + 0.5) * dx;
      cy[k++] = m;
    }
    res.theta_strip = line_angle(cx, cy, k);
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
    res.theta_strip = NAN;
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

/* The run's simulations, the points of its sweep (bg_lab_sweep): each is a
 * column run to rest, packed for the gather, which measures it. */
#define MAX_POINTS (MAX_GRIDS + 8)
typedef struct sweep_pts {
  bg_lab *lab;
  bg_column_scene scenes[MAX_POINTS];
  char tags[MAX_POINTS][64];
  const char *tagp[MAX_POINTS];
  double cost[MAX_POINTS];
  int n;
  bg_lab_blob *packed;
} sweep_pts;

static int add_point(sweep_pts *pts, const bg_column_scene *sc, const char *tag) {
  int k = pts->n++;
  pts->scenes[k] = *sc;
  snprintf(pts->tags[k], sizeof pts->tags[k], "%s", tag);
  pts->tagp[k] = pts->tags[k];
  /* work ~ particles x steps ~ cells^4: the costliest first */
  pts->cost[k] = pow(sc->cells, 4);
  return k;
}

static void run_point(void *ctx, int k, bg_lab_blob *out) {
  sweep_pts *pts = ctx;
  bg_column_result r = bg_column_run(pts->lab, &pts->scenes[k], pts->tags[k]);
  bg_column_result_pack(&r, out);
  bg_column_result_free(&r);
}

static result measure_point(sweep_pts *pts, int k) {
  return measure(pts->lab, &pts->scenes[k], pts->tags[k], bg_column_result_unpack(&pts->packed[k]));
}

/* ----------------------------------------------------------------- main */

static const char *const mutants[] = {"grids-fine-to-coarse", "converging-sequence", "slope-over-dx",
                                      "heights-doubled",      "ridge-ruler-on-pile", "slick-floor",
                                      "phi-fed-40",           "phi-read-stale",      NULL};

/* The recorded paper run's offset of the lower band below its fed angle at
 * resolution h = dx / R0: phi_fed_deg - lower_deg of
 * references/baselines/repose_lower_band.tsv, interpolated linearly in
 * log h between its grids; NaN outside their range (never extrapolated). */
static double baseline_offset(bg_lab *lab, double h) {
  char path[1200], line[1024];
  bg_lab_reference(lab, "baselines/repose_lower_band.tsv", path, sizeof path);
  FILE *fp = fopen(path, "r");
  if (!fp) bg_lab_fail("cannot read %s", path);
  double hs[16], off[16];
  int n = 0, header = 0;
  while (fgets(line, sizeof line, fp) && n < 16) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (!header) {
      header = 1;
      if (strncmp(line, "cells_per_R0\tdx_over_R0\tlower_deg\tphi_fed_deg", 44))
        bg_lab_fail("%s: the header must be cells_per_R0 dx_over_R0 lower_deg phi_fed_deg", path);
      continue;
    }
    double c, hh, th, ph;
    if (sscanf(line, "%lf %lf %lf %lf", &c, &hh, &th, &ph) != 4 || !(hh > 0))
      bg_lab_fail("%s: a row is not four numbers with dx_over_R0 > 0: %s", path, line);
    hs[n] = hh;
    off[n++] = ph - th;
  }
  fclose(fp);
  for (int i = 0; i + 1 < n; ++i) {
    double a = fmax(hs[i], hs[i + 1]), b = fmin(hs[i], hs[i + 1]);
    if (h <= a && h >= b) {
      double w = log(h / hs[i]) / log(hs[i + 1] / hs[i]);
      return off[i] + w * (off[i + 1] - off[i]);
    }
  }
  bg_lab_progress(lab, "repose.lower_band: dx/R0 %.4g is outside the baseline's grids (%s): not judged", h, path);
  return NAN;
}

/* max - min of the four estimators; NaN if one failed */
static double est_spread(const double *theta) {
  double mn = theta[0], mx = theta[0];
  for (int e = 0; e < N_EST; ++e) {
    if (!isfinite(theta[e])) return NAN;
    mn = fmin(mn, theta[e]);
    mx = fmax(mx, theta[e]);
  }
  return mx - mn;
}

/* the seed's limit claim: the 2-sigma bracket of a found limit lies within
 * phi +- tolerance, i.e. |theta_inf - phi| + 2 sigma; NaN (a fail) when no limit is found */
static double limit_reach(const conv_fit *f, double phi) {
  return f->found ? fabs(f->theta_inf - phi) + 2 * f->s_theta : NAN;
}

static void write_profile(bg_lab *lab, const result *r, int cells, double R0, double aspect, const char *fn) {
  char cm[256];
  snprintf(cm, sizeof cm, "radially averaged deposit profile, dx = %.4g m (%d cells per R0), R0 %.3g m, H0 %.3g m",
           r->dx, cells, R0, aspect * R0);
  FILE *fp = bg_lab_tsv(lab, fn, cm, "r_m\th_m\tr_over_R0\th_over_H0");
  for (int b = 0; b < r->nbins; ++b)
    fprintf(fp, "%.6g\t%.6g\t%.6g\t%.6g\n", r->rbin[b], r->hbin[b], r->rbin[b] / R0, r->hbin[b] / (aspect * R0));
  fclose(fp);
}

int main(int argc, char **argv) {
  double phi = 35, mu_floor = 1.0, aspect = 1.0, R0 = 0.1, domain = 2.5, t_max = 3.0, jitter = 0.5, ratio = 0;
  int cells = 0, grids = 5, mu_cells = 0, ridge_cells = 4;
  bg_lab_param params[] = {
      {"phi", BG_PARAM_DOUBLE, &phi, 20, 45, "fed friction angle, deg", 0, NULL, NULL, "phi_deg"},
      {"mu-floor", BG_PARAM_DOUBLE, &mu_floor, 0.05, 5, "floor Coulomb coefficient of the refinement runs", 0, NULL,
       NULL, NULL},
      {"aspect", BG_PARAM_DOUBLE, &aspect, 0.5, 3, "column aspect ratio a = H0 / R0", 0, NULL, NULL, NULL},
      {"radius", BG_PARAM_DOUBLE, &R0, 0.02, 0.5, "column radius R0, m", 0, NULL, NULL, "radius_m"},
      {"cells-coarse", BG_PARAM_INT, &cells, 4, 256, "cells per R0 on the coarsest grid (dx-coarse = R0 / this)", 0,
       "6", "8", NULL},
      {"grids", BG_PARAM_INT, &grids, 4, MAX_GRIDS, "number of grids (the fit needs >= 4)", 0, NULL, NULL, NULL},
      {"mu-cells", BG_PARAM_INT, &mu_cells, 4, 256, "cells per R0 of the floor-friction sweep", 0, "12", "32", NULL},
      {"ridge-cells", BG_PARAM_INT, &ridge_cells, 2, 64, "plane-strain slab thickness, cells", 0, NULL, NULL, NULL},
      {"domain", BG_PARAM_DOUBLE, &domain, 1.5, 10, "quarter-domain extent L / R0", 0, NULL, NULL, "domain_over_R0"},
      {"t-max", BG_PARAM_DOUBLE, &t_max, 0.1, 20, "maximum simulated time per run, s", 0, NULL, NULL, "t_max_s"},
      {"jitter", BG_PARAM_DOUBLE, &jitter, 0, 1, "lattice jitter, fraction of the particle spacing", 0, NULL, NULL,
       NULL},
      {"grid-ratio", BG_PARAM_DOUBLE, &ratio, 1.2, 2, "refinement ratio between grids (cells rounded)", 0,
       "1.4142135623730951", "2", NULL},
  };
  int np = (int)(sizeof params / sizeof params[0]);
  bg_lab *lab = bg_lab_init("exp_repose",
                            "Angle of repose of a released sand cylinder: four surface estimators, "
                            "refinement in dx, floor friction sweep, plane-strain ridge.",
                            argc, argv, params, np, mutants);
  gsl_set_error_handler_off();
  int gcells[MAX_GRIDS];
  for (int gi = 0; gi < grids; ++gi) {
    gcells[gi] = (int)lround(cells * pow(ratio, gi));
    if (gcells[gi] > 1024 || (gi > 0 && gcells[gi] <= gcells[gi - 1])) {
      fprintf(stderr, "error: --cells-coarse %d, --grids %d, --grid-ratio %g give grid %d with %d cells per R0 "
                      "(grids must be distinct, at most 1024)\n", cells, grids, ratio, gi + 1, gcells[gi]);
      return 2;
    }
  }
  double tanphi = tan(phi / DEG), phi_flow = flow_angle(phi);
  bg_lab_manifest_num(lab, "ppc", 8);
  bg_lab_manifest_num(lab, "ke_threshold_over_MgR0", KE_FRAC);
  bg_lab_manifest_num(lab, "band_lo_over_hmax", BAND_LO);
  bg_lab_manifest_num(lab, "band_hi_over_hmax", BAND_HI);
  bg_lab_manifest_num(lab, "runout_threshold_over_dx", RUNOUT_H);
  bg_lab_manifest_num(lab, "phi_flow_deg", phi_flow);
  bg_lab_manifest_str(lab, "symmetry", "quarter cylinder, slip faces at x = 0 and y = 0 as mirror planes");

  bg_column_scene base = bg_column_scene_default();
  base.R0 = R0;
  base.aspect = aspect;
  base.phi = phi;
  base.material = bg_lab_material(lab);
  if (base.material.model == BG_MODEL_DP) base.material.dp.phi_deg = (bg_real)phi;
  /* the planted bug of issue 31: the sand fed 5 deg more than the lab's
   * phi, while the claims compare with the lab's copy */
  int fed_off = bg_lab_mutant_is(lab, "phi-fed-40");
  if (fed_off && base.material.model == BG_MODEL_DP) {
    base.phi = phi + 5; /* what bg_column feeds the simulation */
    base.material.dp.phi_deg = (bg_real)(phi + 5);
  }
  bg_lab_manifest_material(lab, &base.material);
  /* the angle the flank is judged against: the fed phi for Drucker-Prager;
   * for mu(I) the Mohr-Coulomb angle whose compression cone is mu(I)'s
   * static cone, sqrt(J2) = mu_s p (6 sin / (sqrt 3 (3 - sin)) = mu_s), and
   * its flow angle atan(mu_s) (references/derivations/mu_i.md) */
  double phi_ref = phi;
  if (bg_lab_static_friction(&base.material) > 0) {
    double ms = bg_lab_static_friction(&base.material);
    phi_ref = asin(3 * sqrt(3.0) * ms / (6 + sqrt(3.0) * ms)) * DEG;
    phi_flow = atan(ms) * DEG;
    bg_lab_manifest_num(lab, "phi_ref_deg", phi_ref);
    bg_lab_manifest_num(lab, "phi_flow_deg_mu_s", phi_flow);
  }
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

  if (bg_lab_needed(lab, "repose.lower_band")) {
    char bpath[1200];
    bg_lab_reference(lab, "baselines/repose_lower_band.tsv", bpath, sizeof bpath);
  }
  /* which stages this run needs (a mutant run skips the others) */
  int need_ridge = bg_lab_needed(lab, "repose.ridge_vs_pile");
  int need_conv = need_ridge || bg_lab_needed(lab, "repose.estimators_agree") ||
                  bg_lab_needed(lab, "repose.monotone") || bg_lab_needed(lab, "repose.limit") ||
                  bg_lab_needed(lab, "repose.limit_width") || bg_lab_needed(lab, "repose.flank_below_flow") ||
                  bg_lab_needed(lab, "repose.lower_band");
  int need_hi = bg_lab_needed(lab, "repose.floor_mu"); /* the mu = 1 and 1.4 tan phi runs */
  int need_stick = bg_lab_needed(lab, "repose.stick_runout");
  int need_low = need_stick || bg_lab_needed(lab, "repose.floor_mu_low_grows");
  int plain = bg_lab_mutant(lab) == NULL;

  /* Every simulation of the run is built first, as the points of one sweep
   * (bg_lab_sweep: in this process one after another, or one point per
   * process with --point K, then --gather); the stages below measure them
   * in order. The floor sweep's plan: which mu each run has, and which runs
   * this run needs (the slick-floor control makes its low floor nearly
   * frictionless and reuses that run for mu = tan phi). */
  const double mu_fac[] = {0.4, 0.7, 1.0, 1.4, 2.0};
  enum { N_MU = 5, I_LOW = 0, I_MID = 1, I_TAN = 2 };
  int need_ref = need_hi || need_low; /* the mu = 2 tan phi reference */
  double mus[N_MU + 1];
  int ran[N_MU + 1], slick_reuse[N_MU + 1];
  for (int i = 0; i <= N_MU; ++i) {
    ran[i] = i == N_MU ? need_stick : i == I_LOW ? need_low : i == I_MID ? plain : i == N_MU - 1 ? need_ref : need_hi;
    mus[i] = i < N_MU ? mu_fac[i] * tanphi : NAN;
    int slick = bg_lab_mutant_is(lab, "slick-floor") && (i == I_LOW || i == I_TAN);
    if (slick) mus[i] = SLICK_MU;
    slick_reuse[i] = slick && i == I_TAN;
  }
  static sweep_pts pts; /* large: not on the stack */
  pts.lab = lab;
  pts.n = 0;
  int conv_pt[MAX_GRIDS], mu_pt[N_MU + 1], ridge_pt = -1;
  for (int gi = 0; gi < (need_conv ? grids : 0); ++gi) {
    bg_column_scene sc = base;
    sc.cells = gcells[gi];
    char tag[64];
    snprintf(tag, sizeof tag, "grid %d/%d", gi + 1, grids);
    conv_pt[gi] = add_point(&pts, &sc, tag);
  }
  for (int i = 0; i <= N_MU; ++i) {
    mu_pt[i] = -1;
    if (!need_ref || slick_reuse[i] || !ran[i]) continue;
    bg_column_scene sc = base;
    sc.cells = mu_cells;
    char tag[64];
    if (i < N_MU) {
      sc.mu = mus[i];
      snprintf(tag, sizeof tag, "floor mu %.3g", mus[i]);
    } else {
      sc.floor = BG_FRICTION_STICK;
      sc.mu = 0;
      snprintf(tag, sizeof tag, "floor stick");
    }
    mu_pt[i] = add_point(&pts, &sc, tag);
  }
  if (need_ridge) {
    bg_column_scene sr = base;
    sr.ridge = 1;
    sr.cells = gcells[grids - 1];
    ridge_pt = add_point(&pts, &sr, "ridge");
  }
  pts.packed = bg_lab_sweep(lab, pts.n, pts.tagp, pts.cost, 1, run_point, &pts);

  /* 1. refinement */
  result conv[MAX_GRIDS];
  memset(conv, 0, sizeof conv);
  double hdx[MAX_GRIDS], th[MAX_GRIDS];
  int ng = need_conv ? grids : 0;
  FILE *fc = need_conv ? bg_lab_tsv(lab, "convergence.tsv",
                        "flank angle per grid (mid-flank band 0.2-0.8 h_max); sigma = sample sd of the four estimators (reported, not a fit weight)",
                        "dx_m\tdx_over_R0\tcells_per_R0\ttheta_profile_deg\ttheta_cone_deg\ttheta_sectors_deg\ttheta_slope_deg\ttheta_mean_deg\tsigma_deg\tspread_deg\th_max_m\trunout_m\tparticles\tsteps\tt_end_s\tsettled\ttheta_strip_deg")
                       : NULL;
  for (int gi = 0; gi < ng; ++gi) {
    const bg_column_scene sc = pts.scenes[conv_pt[gi]];
    conv[gi] = measure_point(&pts, conv_pt[gi]);
    result *r = &conv[gi];
    hdx[gi] = r->dx / R0;
    th[gi] = r->theta_mean;
    fprintf(fc, "%.6g\t%.6g\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%zu\t%llu\t%.4f\t%d\t%.4f\n",
            r->dx, hdx[gi], sc.cells, r->theta[0], r->theta[1], r->theta[2], r->theta[3], r->theta_mean,
            r->theta_sd, est_spread(r->theta), r->h_max, r->runout, r->n_particles, (unsigned long long)r->steps,
            r->t_end, r->settled, r->theta_strip);
    char fn[64];
    snprintf(fn, sizeof fn, "profile_dx%d.tsv", gi);
    write_profile(lab, r, sc.cells, R0, aspect, fn);
  }
  if (fc) fclose(fc);

  if (need_conv) {
    conv_fit cf = fit_convergence(hdx, th, (size_t)grids);
    /* positive control: a sequence converging at order 1 to phi_ref, with +-0.1 deg of scatter */
    double thc[MAX_GRIDS];
    for (int gi = 0; gi < grids; ++gi) thc[gi] = phi_ref - 6.0 * hdx[gi] / hdx[0] + (gi % 2 ? 0.1 : -0.1);
    conv_fit cc = fit_convergence(hdx, thc, (size_t)grids);
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
    double spread = est_spread(fine->theta);
    int away = steps_away(th, grids, phi_ref, 0);
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
    bg_lab_claim_mutant(lab, "slope-over-dx", "repose.estimators_agree", est_spread(fine4));
    bg_lab_claim(lab, "repose.monotone", (double)away);
    bg_lab_claim_mutant(lab, "grids-fine-to-coarse", "repose.monotone", (double)steps_away(th, grids, phi_ref, 1));
    bg_lab_claim(lab, "repose.limit", limit_reach(&cf, phi_ref));
    bg_lab_claim_mutant(lab, "converging-sequence", "repose.limit", limit_reach(&cc, phi_ref));
    bg_lab_claim_mutant(lab, "converging-sequence", "repose.monotone", (double)steps_away(thc, grids, phi_ref, 0));
    bg_lab_claim(lab, "repose.limit_width", cf.found ? 2 * cf.s_theta : NAN);
    {
      /* the angles read finest to coarsest: a sequence that approaches its
       * limit as dx falls then recedes from it, which no fit may call found */
      double threv[MAX_GRIDS];
      for (int gi = 0; gi < grids; ++gi) threv[gi] = th[grids - 1 - gi];
      conv_fit cr = fit_convergence(hdx, threv, (size_t)grids);
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
      fprintf(fb, "%d\t%.6g\t%.4f\t%.4f\t%.4f\n", pts.scenes[conv_pt[gi]].cells, hdx[gi], bth[0][gi], bth[1][gi],
              bth[2][gi]);
    }
    fclose(fb);
    FILE *fbf = bg_lab_tsv(lab, "band_fit.tsv",
                           "per band: the fit of repose.limit, theta = theta_inf + c h^p (h = dx / R0, p free), and "
                           "the change over the last refinement; found: converged with p > 2 sigma_p",
                           "band\ttheta_inf_deg\tsigma_theta_inf_deg\tp\tsigma_p\tfound\ttheta_finest_deg\tlast_step_deg");
    for (int q = 0; q < N_BANDS; ++q) {
      conv_fit bf = fit_convergence(hdx, bth[q], (size_t)grids);
      fprintf(fbf, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%.4f\t%.4f\n", band_names[q], bf.theta_inf, bf.s_theta, bf.p,
              bf.s_p, bf.found, bth[q][grids - 1], bth[q][grids - 1] - bth[q][grids - 2]);
      bg_lab_progress(lab, "band %s: finest %.2f deg (last step %+.2f), fit theta_inf %.2f +- %.2f, p %.2f: %s",
                      band_names[q], bth[q][grids - 1], bth[q][grids - 1] - bth[q][grids - 2], bf.theta_inf,
                      bf.s_theta, bf.p, bf.found ? "found" : "no limit");
    }
    fclose(fbf);
    /* the lower flank against the angle the simulation was fed, read back
     * from it: the band plus the recorded paper run's offset below its own
     * fed angle at the same resolution must give the fed angle back. The
     * phi-fed-40 mutant compares with the lab's own copy, as the planted
     * bug did, and phi-read-stale with a copy 5 deg below the fed angle
     * (the same bug seen from the run's own data) */
    double fed = fine->phi_fed;
    double off = baseline_offset(lab, hdx[grids - 1]);
    double lower = bth[BAND_LOWER][grids - 1] + off;
    FILE *fl = bg_lab_tsv(lab, "lower_band.tsv",
                          "repose.lower_band: the finest grid's lower band, the recorded paper offset below the fed "
                          "angle at its dx (references/baselines/repose_lower_band.tsv), their sum, and the fed angle "
                          "read back from the simulation",
                          "dx_over_R0\tlower_deg\tbaseline_offset_deg\tlower_plus_offset_deg\tphi_fed_deg");
    fprintf(fl, "%.6g\t%.4f\t%.4f\t%.4f\t%.4f\n", hdx[grids - 1], bth[BAND_LOWER][grids - 1], off, lower, fed);
    fclose(fl);
    bg_lab_claim_fed(lab, "repose.lower_band", lower, fed_off ? phi : fed);
    bg_lab_claim_mutant_fed(lab, "phi-read-stale", "repose.lower_band", lower, fed - 5);
  }

  /* 2. floor friction sweep; the slick-floor control makes its low floor nearly frictionless */
  result rmu[N_MU + 1];
  memset(rmu, 0, sizeof rmu);
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
      rmu[i] = measure_point(&pts, mu_pt[i]);
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

  /* 3. plane-strain ridge at the finest grid's dx */
  result rr;
  memset(&rr, 0, sizeof rr);
  if (need_ridge) {
    result *fine = &conv[grids - 1];
    rr = measure_point(&pts, ridge_pt);
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
  for (int gi = 0; gi < ng; ++gi) {
    free(conv[gi].rbin);
    free(conv[gi].hbin);
  }
  for (int i = 0; i <= N_MU; ++i) {
    free(rmu[i].rbin);
    free(rmu[i].hbin);
  }
  free(rr.rbin);
  free(rr.hbin);
  bg_lab_sweep_free(pts.packed, pts.n);
  (void)est_names;
  return bg_lab_finish(lab);
}
