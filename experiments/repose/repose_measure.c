/* repose_measure.c: the flank angle of one deposit by four surface
 * estimators over the mid-flank band 0.2 h_max <= h <= 0.8 h_max, h_max
 * the highest column (see repose.c), and the profile's angle in each fixed
 * height band. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_fit.h"
#include "repose.h"

const double repose_band_lo[N_BANDS] = {0.05, 0.2, 0.4}, repose_band_hi[N_BANDS] = {0.2, 0.4, 0.6};
const char *const repose_band_names[N_BANDS] = {"foot", "lower", "upper"};

/* atan of minus the slope of a least-squares line through (x, y): the flank
 * angle in degrees; NaN with fewer than 3 points. */
static double line_angle(const double *x, const double *y, size_t n) {
  if (n < 3) return NAN;
  return atan(-bg_fit_line(x, y, n).c1) * DEG;
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
  bg_fit_model m = {cone_f, cone_df, &d, n, 4};
  double p0[4] = {z0, t0, 0, 0};
  bg_fit_result f = bg_fit_nlinear(&m, p0, (bg_fit_stop){200, 1e-10, 1e-10, 1e-10});
  return f.status == GSL_SUCCESS || f.status == GSL_EMAXITER ? atan(f.p[1]) * DEG : NAN;
}

/* A scene run to rest (bg_column.c, a point of the run's sweep): the flank
 * angle from its deposit. Takes col's arrays. */
result repose_measure(bg_lab *lab, const bg_column_scene *sc, const char *tag, bg_column_result col) {
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
      if (res.hbin[b] >= repose_band_lo[q] * col.H0 && res.hbin[b] < repose_band_hi[q] * col.H0) {
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

result repose_measure_point(sweep_pts *pts, int k) {
  return repose_measure(pts->lab, &pts->scenes[k], pts->tags[k], bg_column_result_unpack(&pts->packed[k]));
}
