/* test_elastic.c: the elastic solver against closed forms (references/README.md
 * section 5), material elastic_only with Klar's constants (E 3.537e5 Pa, nu
 * 0.3, rho0 2200 kg/m^3), on one backend (argv[1]):
 *   1. P-wave speed in a laterally confined bar: a compressive pulse runs
 *      along a bar whose sides are held by slip faces, at the 1D-strain
 *      speed sqrt((lambda + 2 mu) / rho0) = 14.7 m/s, not sqrt(E / rho0),
 *      and at the same speed for a 2 x 2 and a 4 x 4 cell cross-section;
 *   2. column under its own weight between slip walls: sigma_zz =
 *      -rho0 g (H0 - Z) within 5% of rho0 g H0, at three resolutions, with
 *      the error shrinking as dx halves.
 * Measured numbers are printed next to each check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bg_check.h"

static const char *g_backend = "auto";

#define PI 3.14159265358979323846

static double wall_s(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Lattice particles of a box of cells, 2 per axis per cell (ppc 8) at the
 * quarter points. lo is the box corner (m), nc the cells per axis. */
static bg_real *lattice(const double lo[3], const int nc[3], double dx, size_t *n_out) {
  size_t n = (size_t)8 * (size_t)nc[0] * (size_t)nc[1] * (size_t)nc[2];
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) return NULL;
  size_t p = 0;
  for (int i = 0; i < 2 * nc[0]; ++i)
    for (int j = 0; j < 2 * nc[1]; ++j)
      for (int k = 0; k < 2 * nc[2]; ++k) {
        int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) x[3 * p + a] = (bg_real)(lo[a] + (ijk[a] + 0.5) * 0.5 * dx);
        p++;
      }
  *n_out = n;
  return x;
}

static bg_material elastic_klar(void) {
  bg_material m = bg_material_sand(); /* E 3.537e5, nu 0.3, rho0 2200 */
  m.elastic_only = 1;
  return m;
}

static void lame(const bg_material *m, double *lambda, double *mu) {
  double E = m->E, nu = m->nu;
  *mu = E / (2 * (1 + nu));
  *lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
}

static int create_ok(const bg_sim_desc *d, bg_sim **sim, const char *what) {
  char err[512];
  bg_status s = bg_sim_create(d, sim, err, sizeof err);
  return bg_check_true(s == BG_OK, "%s: bg_sim_create (%s%s%s)", what, bg_status_name(s),
                       s == BG_OK ? "" : ": ", s == BG_OK ? "" : err);
}

/* ------------------------------------------------------------ confined bar */

/* Where the material must sit against a face. Faces act on node layers 0,1
 * and n-2,n-1 (their level-set surface is at 1.5 dx and n - 2.5 dx). A
 * quadratic B-spline reaches 1.5 dx, so a node whose support the material's
 * surface cuts takes part of the surface traction. Material filling the
 * whole interior a particle may occupy, [0.5 dx, (n - 1.5) dx], cuts only
 * the supports of the face nodes themselves, so the walls take the whole
 * reaction and a laterally uniform state is an exact discrete equilibrium.
 * With the surface at 1.5 dx the free node 2 takes traction too and the
 * boundary cell acts as a spring (measured with every face applied at the
 * box edges: the bar 4% slow, sigma_zz in a column layer spread by 28% of
 * rho0 g H0 at every dx). Material spans [FACE_GAP dx,
 * (n - 1 - FACE_GAP) dx], so an axis of w cells has w + 2 FACE_GAP + 1 nodes. */
#ifndef FACE_GAP
#define FACE_GAP 0.5
#endif

typedef struct bar_result {
  double c, a, res, amp_min, amp_max, lat, t0, t1, wall;
  size_t n;
  int ns, ok;
} bar_result;

/* Bar 1 m along x (100 cells), w x w cells across, filling the space between
 * the slip faces of y and z (dims w + 2). A compressive pulse makes the bar
 * swell sideways (Poisson); the walls remove that outward (approaching)
 * normal velocity, so the lateral strain stays zero and the wave sees the
 * 1D-strain modulus lambda + 2 mu. Only compression is sent, because a slip
 * face lets material separate: a tensile pulse would not be confined.
 *
 * Launch: v_x = V cos^2(pi s / (2 Lp)) on the first Lp of the bar (s the
 * distance from its free end x_a), zero strain. For the free end, extend v
 * evenly about x_a: the right-going half is the compressive bump
 * (V/2) cos^2(pi (x - x_a - c t) / (2 Lp)), width 2 Lp, peak at x_a + c t;
 * the left-going half leaves through the image, so once t > Lp / c the bar
 * holds that one compressive pulse (the classic impact solution). V 0.1 m/s
 * gives a strain of 0.34%, linear; Lp 0.08 m = 8 cells keeps the pulse long
 * next to dx, so MPM dispersion is small. The peak is tracked (centroid of
 * the cross-section-averaged v_x within +-Lp of the largest bin; bins are
 * particle layers by reference position) from 0.25 m to 0.75 m, and the
 * speed fitted by least squares. */
static bar_result bar_wave(int w) {
  bar_result r;
  memset(&r, 0, sizeof r);
  r.c = NAN;
  const double dx = 0.01, Lb = 1.0, V = 0.1, Lp = 0.08, t_start = wall_s();
  const int ncx = 100;
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = (size_t)ncx + 10;
  d.dims[1] = d.dims[2] = (size_t)w + (size_t)lround(2 * FACE_GAP + 1);
  d.dx = (bg_real)dx;
  d.gravity[0] = d.gravity[1] = d.gravity[2] = 0;
  d.material = elastic_klar();
  d.threads = 0;
  bg_sim *sim = NULL;
  if (!create_ok(&d, &sim, "bar")) return r;
  const double xa = 4 * dx;
  double lo[3] = {xa, FACE_GAP * dx, FACE_GAP * dx};
  int nc[3] = {ncx, w, w};
  size_t n;
  bg_real *x = lattice(lo, nc, dx, &n);
  bg_real *v = calloc(3 * n, sizeof *v), *vg = malloc(3 * n * sizeof *vg);
  const int nbin = 2 * ncx; /* particle layers, spacing dx/2 */
  int *bin = malloc(n * sizeof *bin);
  double *vb = malloc((size_t)nbin * sizeof *vb), *cnt = calloc((size_t)nbin, sizeof *cnt);
  if (!x || !v || !vg || !bin || !vb || !cnt) abort();
  for (size_t p = 0; p < n; ++p) {
    double s = x[3 * p] - xa;
    if (s < Lp) v[3 * p] = (bg_real)(V * pow(cos(PI * s / (2 * Lp)), 2));
    bin[p] = (int)floor(s / (0.5 * dx));
    cnt[bin[p]] += 1;
  }
  r.n = n;
  r.ok = bg_sim_add_particles(sim, n, x, v, 8) == BG_OK;
  enum { MAXS = 512 };
  double ts[MAXS], xs[MAXS], t = 0;
  r.amp_min = 1e9;
  const int half = (int)lround(Lp / (0.5 * dx));
  for (int step = 0; step < 2000 && r.ok; ++step) {
    bg_real dt;
    if (bg_sim_step(sim, &dt) != BG_OK) r.ok = 0;
    t += dt;
    if (step % 4) continue;
    if (bg_sim_get(sim, BG_FIELD_V, vg, 3 * n) != BG_OK) r.ok = 0;
    memset(vb, 0, (size_t)nbin * sizeof *vb);
    double vlat = 0, vabs = 0;
    for (size_t p = 0; p < n; ++p) {
      vb[bin[p]] += vg[3 * p];
      vlat += fabs(vg[3 * p + 1]) + fabs(vg[3 * p + 2]);
      vabs += fabs(vg[3 * p]);
    }
    int imax = 0;
    for (int b = 0; b < nbin; ++b) {
      vb[b] /= cnt[b];
      if (vb[b] > vb[imax]) imax = b;
    }
    double sw = 0, swx = 0;
    for (int b = imax - half; b <= imax + half; ++b) {
      if (b < 0 || b >= nbin) continue;
      sw += vb[b];
      swx += vb[b] * (b + 0.5) * 0.5 * dx;
    }
    double xpk = swx / sw; /* from the free end, m */
    if (!(xpk <= 0.75 * Lb)) break;
    if (xpk < 0.25 * Lb || r.ns >= MAXS) continue;
    ts[r.ns] = t;
    xs[r.ns] = xpk;
    r.ns++;
    if (vb[imax] < r.amp_min) r.amp_min = vb[imax];
    if (vb[imax] > r.amp_max) r.amp_max = vb[imax];
    if (vlat / vabs > r.lat) r.lat = vlat / vabs;
  }
  /* least squares x = a + c t */
  double st = 0, sx = 0, stt = 0, stx = 0, m = r.ns;
  for (int i = 0; i < r.ns; ++i) {
    st += ts[i];
    sx += xs[i];
    stt += ts[i] * ts[i];
    stx += ts[i] * xs[i];
  }
  if (r.ns >= 2) {
    r.c = (m * stx - st * sx) / (m * stt - st * st);
    r.a = (sx - r.c * st) / m;
    for (int i = 0; i < r.ns; ++i) {
      double e = xs[i] - (r.a + r.c * ts[i]);
      r.res += e * e;
    }
    r.res = sqrt(r.res / m);
    r.t0 = ts[0];
    r.t1 = ts[r.ns - 1];
  }
  r.wall = wall_s() - t_start;
  free(x);
  free(v);
  free(vg);
  free(bin);
  free(vb);
  free(cnt);
  bg_sim_destroy(sim);
  return r;
}

static void test_wave_speed(void) {
  printf("\n== P-wave in a laterally confined bar ==\n");
  bg_material m = elastic_klar();
  double lambda, mu;
  lame(&m, &lambda, &mu);
  const double cp = sqrt((lambda + 2 * mu) / m.rho0), cbar = sqrt((double)m.E / m.rho0);
  const int widths[2] = {4, 2};
  bar_result r[2];
  for (int i = 0; i < 2; ++i) {
    int w = widths[i];
    r[i] = bar_wave(w);
    printf("bar %dx%d: %zu particles, %.2f s wall, %d samples over t in [%.4g, %.4g] s, fit x = "
           "%.4g m + c t, rms residual %.3g m\n",
           w, w, r[i].n, r[i].wall, r[i].ns, r[i].t0, r[i].t1, r[i].a, r[i].res);
    printf("bar %dx%d: pulse peak v_x %.4g .. %.4g m/s (launch V/2 = 0.05), max sum|v_lat| / "
           "sum|v_x| %.3g\n",
           w, w, r[i].amp_min, r[i].amp_max, r[i].lat);
    printf("bar %dx%d: wave speed %.5g m/s; 1D strain sqrt((lambda+2mu)/rho) %.5g m/s (%+.2f%%), "
           "1D stress sqrt(E/rho) %.5g m/s (%+.2f%%)\n",
           w, w, r[i].c, cp, 100 * (r[i].c - cp) / cp, cbar, 100 * (r[i].c - cbar) / cbar);
    bg_check_true(r[i].ok, "bar %dx%d: steps and read-back succeed", w, w);
    bg_check_true(r[i].ns >= 10, "bar %dx%d: at least 10 samples of the travelling peak (%d)", w, w,
                  r[i].ns);
  }
  bg_check_rel(r[0].c, cp, 0.05, "bar 4x4: pulse speed is the P-wave (1D strain) speed");
  /* the two speeds differ by 16%: 5% around c_p excludes sqrt(E/rho) */
  bg_check_true(fabs(r[0].c - cbar) > 0.05 * cbar, "bar 4x4: pulse speed is not the 1D-stress speed");
  /* In 1D strain the cross-section does not enter, and with the walls
   * taking the whole lateral reaction the discrete problem is the same for
   * any width: the two speeds may differ only by the peak fit's noise
   * (~0.1%). 1% is far above that and far below the 1D stress/strain gap. */
  bg_check_rel(r[1].c, r[0].c, 0.01, "bar: speed does not depend on the cross-section (2x2 vs 4x4)");
}

/* ----------------------------------------------------------------- column */

/* Column H0 = 0.1 m, 4 x 4 cells across, filling the space between the slip
 * side faces on the slip floor (FACE_GAP: from 0.5 dx, so the face nodes
 * take the whole wall reaction), gravity switched on at t = 0 from a
 * stress-free state.
 *
 * Getting to rest: the API has no velocity damping and APIC on an elastic
 * column dissipates almost nothing, so the column rings about its static
 * state forever. Sand would not damp it either: the 1D-strain loading path
 * keeps sigma_h / sigma_v = K0 = nu / (1 - nu) = 0.43 > Ka = 0.27, inside
 * the phi = 35 deg cone, so sand stays elastic. For a linear system the
 * response to a suddenly applied load is the static solution plus
 * undamped modes, so a time average gives the static stress: each particle's
 * sigma_zz is averaged with a Hann window over 6 periods of the fundamental
 * mode (continuum T1 = 4 H0 / c_p); the window leaks at most
 * 1 / (pi N (N^2 - 1)) = 1.5e-3 of a mode for N = 6 periods, and the modes of
 * a fixed-free column are odd multiples of the fundamental. The number of
 * steps per period, 4 H0 / (cfl dx), does not depend on E, so E stays at
 * Klar's value (static strain rho0 g H0 / (lambda + 2 mu) = 0.45%, linear).
 *
 * Error: |<sigma_zz> + rho0 g (H0 - Z)| relative to rho0 g H0 (the basal
 * stress, the scale of the field), max and rms over the interior particles,
 * those with reference height Z at least BAND = 2 cm (2 cells of the
 * coarsest grid) from the floor and from the top, the same material at
 * every dx: the floor and the free top disturb a few cells, a band fixed in
 * cells would keep that disturbance in the measure at every resolution.
 * Also checked: the error of the cross-section mean per particle layer;
 * printed: the largest spread of <sigma_zz> within one layer (0 for the 1D
 * answer, which holds for every particle between frictionless walls). */
#define BAND 0.02

typedef struct col_result {
  double err_max, err_rms, err_layer, spread, t_end, wall;
  size_t n, n_interior;
  long steps;
  int ok;
} col_result;

static col_result column(double dx) {
  col_result r;
  memset(&r, 0, sizeof r);
  r.err_max = r.err_rms = NAN;
  const double H0 = 0.1, g = 9.81, t0 = wall_s();
  const int ncz = (int)lround(H0 / dx), ncxy = 4;
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = d.dims[1] = (size_t)ncxy + (size_t)lround(2 * FACE_GAP + 1);
  d.dims[2] = (size_t)ncz + 8;
  d.dx = (bg_real)dx;
  d.gravity[0] = d.gravity[1] = 0;
  d.gravity[2] = (bg_real)-g;
  d.material = elastic_klar();
  d.threads = 0;
  double lambda, mu;
  lame(&d.material, &lambda, &mu);
  const double rho = d.material.rho0, cp = sqrt((lambda + 2 * mu) / rho);
  bg_sim *sim = NULL;
  if (!create_ok(&d, &sim, "column")) return r;
  const double zf = FACE_GAP * dx;
  double lo[3] = {FACE_GAP * dx, FACE_GAP * dx, zf};
  int nc[3] = {ncxy, ncxy, ncz};
  size_t n;
  bg_real *x = lattice(lo, nc, dx, &n);
  bg_real *sig = malloc(9 * n * sizeof *sig);
  double *acc = calloc(n, sizeof *acc);
  if (!x || !sig || !acc) abort();
  r.n = n;
  r.ok = bg_sim_add_particles(sim, n, x, NULL, 8) == BG_OK;
  const double Tw = 6 * 4 * H0 / cp;
  double t = 0, wsum = 0;
  while (r.ok && t < Tw) {
    bg_real dt;
    if (bg_sim_step(sim, &dt) != BG_OK || bg_sim_get(sim, BG_FIELD_STRESS, sig, 9 * n) != BG_OK) {
      r.ok = 0;
      break;
    }
    t += dt;
    r.steps++;
    double s = sin(PI * fmin(t, Tw) / Tw), w = s * s * dt;
    wsum += w;
    for (size_t p = 0; p < n; ++p) acc[p] += w * sig[9 * p + 8];
  }
  bg_stats st;
  bg_sim_stats(sim, &st);
  if (st.n_parked) r.ok = 0;
  const int nl = 2 * ncz; /* particle layers, spacing dx/2 */
  double *lsum = calloc((size_t)nl, sizeof *lsum), *lmin = malloc((size_t)nl * sizeof *lmin);
  double *lmax = malloc((size_t)nl * sizeof *lmax);
  size_t *lcnt = calloc((size_t)nl, sizeof *lcnt);
  if (!lsum || !lmin || !lmax || !lcnt) abort();
  for (int k = 0; k < nl; ++k) lmin[k] = INFINITY, lmax[k] = -INFINITY;
  double e2 = 0, scale = rho * g * H0, emax = 0;
  for (size_t p = 0; p < n; ++p) {
    double Z = x[3 * p + 2] - zf, s = acc[p] / wsum, exact = -rho * g * (H0 - Z);
    int k = (int)floor(Z / (0.5 * dx));
    lsum[k] += s;
    lcnt[k]++;
    if (s < lmin[k]) lmin[k] = s;
    if (s > lmax[k]) lmax[k] = s;
    if (Z < BAND || Z > H0 - BAND) continue;
    double e = fabs(s - exact) / scale;
    if (!(e <= emax)) emax = e;
    e2 += e * e;
    r.n_interior++;
  }
  for (int k = 0; k < nl; ++k) {
    double Z = (k + 0.5) * 0.5 * dx;
    if (Z < BAND || Z > H0 - BAND) continue;
    double e = fabs(lsum[k] / (double)lcnt[k] + rho * g * (H0 - Z)) / scale;
    double sp = (lmax[k] - lmin[k]) / scale;
    if (!(e <= r.err_layer)) r.err_layer = e;
    if (!(sp <= r.spread)) r.spread = sp;
  }
  free(lsum);
  free(lmin);
  free(lmax);
  free(lcnt);
  r.err_max = emax;
  r.err_rms = r.n_interior ? sqrt(e2 / (double)r.n_interior) : NAN;
  r.t_end = t;
  r.wall = wall_s() - t0;
  free(x);
  free(sig);
  free(acc);
  bg_sim_destroy(sim);
  return r;
}

static void test_column(void) {
  printf("\n== column under its own weight ==\n");
  const double dxs[3] = {0.01, 0.005, 0.0025};
  col_result r[3];
  const double scale = 2200 * 9.81 * 0.1;
  for (int i = 0; i < 3; ++i) {
    r[i] = column(dxs[i]);
    printf("column: dx %.4g m: %zu particles (%zu interior), %ld steps to t = %.4g s, %.2f s "
           "wall\n",
           dxs[i], r[i].n, r[i].n_interior, r[i].steps, r[i].t_end, r[i].wall);
    printf("column: dx %.4g m: interior error max %.3f%%, rms %.3f%%; cross-section mean error "
           "max %.3f%%; largest spread within a layer %.3f%% (of rho0 g H0 = %.1f Pa)\n",
           dxs[i], 100 * r[i].err_max, 100 * r[i].err_rms, 100 * r[i].err_layer, 100 * r[i].spread,
           scale);
    bg_check_true(r[i].ok, "column dx %.4g: steps succeed, nothing parked", dxs[i]);
    bg_check_le(r[i].err_max, 0.05,
                "column dx %.4g: max |<sigma_zz> + rho0 g (H0 - Z)| / (rho0 g H0) of interior "
                "particles",
                dxs[i]);
    bg_check_le(r[i].err_layer, 0.05,
                "column dx %.4g: cross-section mean of <sigma_zz> per particle layer, same measure",
                dxs[i]);
  }
  for (int i = 1; i < 3; ++i) {
    printf("column: dx %.4g -> %.4g: max error ratio %.3f, rms error ratio %.3f (observed order "
           "%.2f)\n",
           dxs[i - 1], dxs[i], r[i].err_max / r[i - 1].err_max, r[i].err_rms / r[i - 1].err_rms,
           log(r[i - 1].err_rms / r[i].err_rms) / log(2.0));
    bg_check_true(r[i].err_max < r[i - 1].err_max, "column: max error shrinks from dx %.4g to %.4g",
                  dxs[i - 1], dxs[i]);
    bg_check_true(r[i].err_rms < r[i - 1].err_rms, "column: rms error shrinks from dx %.4g to %.4g",
                  dxs[i - 1], dxs[i]);
  }
}

int main(int argc, char **argv) {
  g_backend = argc > 1 ? argv[1] : "auto";
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = d.dims[1] = d.dims[2] = 8;
  bg_sim *probe = NULL;
  char err[512];
  bg_status s = bg_sim_create(&d, &probe, err, sizeof err);
  if (s != BG_OK && !bg_backend_available(g_backend, err, sizeof err)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", g_backend, err);
    return BG_CHECK_SKIP;
  }
  bg_sim_destroy(probe);
  printf("test_elastic: backend %s\n", g_backend);
  double t0 = wall_s(), t;
  test_wave_speed();
  printf("(bar %.2f s)\n", (t = wall_s()) - t0);
  test_column();
  printf("(column %.2f s)\ntotal %.2f s\n", wall_s() - t, wall_s() - t0);
  return bg_check_summary();
}
