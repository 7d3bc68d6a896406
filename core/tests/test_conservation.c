/* test_conservation.c: what the transfers and the step loop must conserve or
 * honour, checked through the public API on one backend (argv[1]):
 *   1. free flight: mass exact, momentum changes by M g t;
 *   2. APIC rigid rotation: angular momentum (particle + affine part) kept;
 *   3. timestep: every dt within cfl dx / (c_p + vmax), vmax read back by
 *      the test; fixed_dt refused above the bound, honoured exactly below;
 *   4. threads: bitwise repeatable, and independent of the thread count;
 *   5. parking: an OPEN face and a sink park particles, tallies agree.
 * Measured numbers are printed next to each check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_test_backend.h"

static const char *g_backend = "auto";

/* ------------------------------------------------------------------ helpers */

static double wall_s(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Deterministic uniform in [0, 1) (64-bit LCG, top 53 bits). */
static double lcg01(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* Particles of a box of cells: 2 per axis per cell (ppc 8) at the quarter
 * points, each moved by up to +-jitter/2 of the particle spacing per axis.
 * lo is the box corner (m), nc the cells per axis. Returns 3n floats. */
static bg_real *block_particles(const double lo[3], const int nc[3], double dx, double jitter,
                                uint64_t seed, size_t *n_out) {
  size_t n = (size_t)8 * (size_t)nc[0] * (size_t)nc[1] * (size_t)nc[2];
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) return NULL;
  uint64_t s = seed;
  size_t p = 0;
  double h = 0.5 * dx;
  for (int i = 0; i < 2 * nc[0]; ++i)
    for (int j = 0; j < 2 * nc[1]; ++j)
      for (int k = 0; k < 2 * nc[2]; ++k) {
        int ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a)
          x[3 * p + a] = (bg_real)(lo[a] + (ijk[a] + 0.5) * h + jitter * h * (lcg01(&s) - 0.5));
        p++;
      }
  *n_out = n;
  return x;
}

static bg_real *get_field(bg_sim *sim, bg_field f, size_t n) {
  size_t w = (size_t)bg_field_width(f);
  bg_real *a = malloc((n ? n : 1) * w * sizeof *a);
  if (!a) return NULL;
  if (bg_sim_get(sim, f, a, n * w) != BG_OK) {
    printf("bg_sim_get(%d) failed: %s\n", (int)f, bg_sim_last_error(sim));
    free(a);
    return NULL;
  }
  return a;
}

static double sum_mass(bg_sim *sim, size_t n) {
  bg_real *m = get_field(sim, BG_FIELD_MASS, n);
  double s = 0;
  if (!m) return NAN;
  for (size_t p = 0; p < n; ++p) s += (double)m[p];
  free(m);
  return s;
}

/* Total momentum, kg m/s, summed in double. Also sum of m |v| (the scale
 * float round-off on the particle velocities is relative to). */
static void momentum(bg_sim *sim, size_t n, double P[3], double *mabs) {
  bg_real *m = get_field(sim, BG_FIELD_MASS, n), *v = get_field(sim, BG_FIELD_V, n);
  P[0] = P[1] = P[2] = 0;
  if (mabs) *mabs = 0;
  if (!m || !v) {
    P[0] = P[1] = P[2] = NAN;
  } else {
    for (size_t p = 0; p < n; ++p) {
      double sp = 0;
      for (int a = 0; a < 3; ++a) {
        P[a] += (double)m[p] * v[3 * p + a];
        sp += (double)v[3 * p + a] * v[3 * p + a];
      }
      if (mabs) *mabs += (double)m[p] * sqrt(sp);
    }
  }
  free(m);
  free(v);
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* P-wave speed recomputed here in double from E, nu, rho0. */
static double pwave_speed(const bg_material *m) {
  double E = m->E, nu = m->nu;
  double mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  return sqrt((lambda + 2 * mu) / m->rho0);
}

static int create_ok(const bg_sim_desc *d, bg_sim **sim, const char *what) {
  char err[512];
  bg_status s = bg_sim_create(d, sim, err, sizeof err);
  return bg_check_true(s == BG_OK, "%s: bg_sim_create (%s%s%s)", what, bg_status_name(s),
                       s == BG_OK ? "" : ": ", s == BG_OK ? "" : err);
}

/* -------------------------------------------------------------- free flight */

/* A jittered sand block in the middle of a 32^3 grid, moving with a uniform
 * velocity plus two shears, falls for 50 steps without touching any wall:
 * its stencil (cells 11..21) never reaches the face layers (nodes 0,1 and
 * 30,31). */
static void test_free_flight(void) {
  printf("\n== free flight ==\n");
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = d.dims[1] = d.dims[2] = 32;
  d.dx = 0.01f;
  d.threads = 0;
  const double dx = d.dx;
  bg_sim *sim = NULL;
  if (!create_ok(&d, &sim, "free flight")) return;
  double lo[3] = {12 * dx, 12 * dx, 12 * dx}, c = 16 * dx;
  int nc[3] = {8, 8, 8};
  size_t n;
  bg_real *x = block_particles(lo, nc, dx, 0.3, 12345, &n);
  bg_real *v = malloc(3 * n * sizeof *v);
  if (!x || !v) abort();
  for (size_t p = 0; p < n; ++p) {
    double px = x[3 * p], pz = x[3 * p + 2];
    v[3 * p + 0] = (bg_real)(0.4 + 2.0 * (pz - c));
    v[3 * p + 1] = -0.3f;
    v[3 * p + 2] = (bg_real)(0.2 - 1.5 * (px - c));
  }
  bg_check_true(bg_sim_add_particles(sim, n, x, v, 8) == BG_OK, "free flight: add %zu particles", n);
  double M0 = sum_mass(sim, n), P0[3];
  momentum(sim, n, P0, NULL);
  double t = 0;
  int steps_ok = 1;
  for (int s = 0; s < 50; ++s) {
    bg_real dt = 0;
    if (bg_sim_step(sim, &dt) != BG_OK) steps_ok = 0;
    t += dt;
  }
  bg_check_true(steps_ok, "free flight: 50 steps succeed");
  bg_stats st;
  bg_sim_stats(sim, &st);
  double M1 = sum_mass(sim, n), P1[3];
  momentum(sim, n, P1, NULL);
  double rhoV = (double)d.material.rho0 * (nc[0] * nc[1] * nc[2]) * dx * dx * dx;
  printf("free flight: n %zu, t %.6g s, M %.9g kg, rho0 V %.9g kg\n", n, t, M1, rhoV);
  bg_check_true(M1 == M0, "free flight: total mass after 50 steps equals the initial one exactly");
  bg_check_rel(M1, rhoV, 1e-6, "free flight: total mass equals rho0 V");
  bg_check_rel(st.total_mass, M0, 1e-12, "free flight: stats.total_mass equals sum of masses");
  bg_check_true(st.n_parked == 0 && st.n_active == n, "free flight: no particle parked (%zu parked)",
                st.n_parked);
  /* Normalised by |M g t| + |P0|: the momentum carried is P0 plus the
   * gravity increment and float round-off in the particle velocities is
   * relative to that magnitude, not to the increment alone. */
  double err[3], gain[3];
  for (int a = 0; a < 3; ++a) {
    gain[a] = M0 * (double)d.gravity[a] * t;
    err[a] = P1[a] - (P0[a] + gain[a]);
  }
  double scale = norm3(gain) + norm3(P0), rel = norm3(err) / scale;
  printf("free flight: P0 (%.6g %.6g %.6g), P1 - P0 (%.6g %.6g %.6g), M g t (%.6g %.6g %.6g)\n",
         P0[0], P0[1], P0[2], P1[0] - P0[0], P1[1] - P0[1], P1[2] - P0[2], gain[0], gain[1],
         gain[2]);
  printf("free flight: |P1 - P0 - M g t| / (|M g t| + |P0|) = %.3g\n", rel);
  bg_check_le(rel, 1e-5, "free flight: momentum changes by M g t (relative to |M g t| + |P0|)");
  free(x);
  free(v);
  bg_sim_destroy(sim);
}

/* ------------------------------------------------------- APIC rigid rotation */

/* Angular momentum about the centre of mass, APIC's definition (Jiang et
 * al. 2015, sec. 5.3): the grid's x_i x m_i v_i, written in particle terms
 * with the quadratic B-spline moments sum_i w_ip = 1, sum_i w_ip (x_i - x_p)
 * = 0 and D_p = sum_i w_ip (x_i - x_p)(x_i - x_p)^T = dx^2/4 I, is
 *   L = sum_p m_p (x_p - X) x v_p + sum_p m_p (dx^2/4) eps_{abg} C_{gb},
 * i.e. L_p = x_p x m_p v_p + m_p (C_p D_p)^T : eps. In components the affine
 * part is m dx^2/4 (C_zy - C_yz, C_xz - C_zx, C_yx - C_xy), C_{gb} the
 * derivative of velocity component g along b (BG_FIELD_C row-major). For a
 * rigid rotation C = [omega]x this is m dx^2/2 omega, the spin of the
 * particle's kernel. The stress term scatters tau (x_i - x_p) with tau
 * symmetric, which adds nothing to L. Without the affine part L is not
 * conserved: it starts with C = 0, so after the first step part of the
 * orbital momentum has moved into the affine term. */
static void angular_momentum(bg_sim *sim, size_t n, double dx, double L[3], double Lorb[3],
                             double P[3], double *mabs) {
  bg_real *m = get_field(sim, BG_FIELD_MASS, n), *x = get_field(sim, BG_FIELD_X, n);
  bg_real *v = get_field(sim, BG_FIELD_V, n), *C = get_field(sim, BG_FIELD_C, n);
  for (int a = 0; a < 3; ++a) L[a] = Lorb[a] = P[a] = NAN;
  if (m && x && v && C) {
    double M = 0, X[3] = {0, 0, 0}, La[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) Lorb[a] = P[a] = 0;
    *mabs = 0;
    for (size_t p = 0; p < n; ++p) {
      M += m[p];
      for (int a = 0; a < 3; ++a) X[a] += (double)m[p] * x[3 * p + a];
    }
    for (int a = 0; a < 3; ++a) X[a] /= M;
    for (size_t p = 0; p < n; ++p) {
      double r[3], u[3], mp = m[p];
      for (int a = 0; a < 3; ++a) {
        r[a] = (double)x[3 * p + a] - X[a];
        u[a] = v[3 * p + a];
        P[a] += mp * u[a];
      }
      *mabs += mp * norm3(u);
      Lorb[0] += mp * (r[1] * u[2] - r[2] * u[1]);
      Lorb[1] += mp * (r[2] * u[0] - r[0] * u[2]);
      Lorb[2] += mp * (r[0] * u[1] - r[1] * u[0]);
      const bg_real *c = C + 9 * p;
      double k = mp * dx * dx / 4;
      La[0] += k * ((double)c[7] - c[5]);
      La[1] += k * ((double)c[2] - c[6]);
      La[2] += k * ((double)c[3] - c[1]);
    }
    for (int a = 0; a < 3; ++a) L[a] = Lorb[a] + La[a];
  }
  free(m);
  free(x);
  free(v);
  free(C);
}

/* An elastic ball (radius 6 dx, lattice ppc 8) spinning rigidly about its
 * centroid, no gravity, 100 steps in the middle of a 28^3 grid (stencil
 * reaches nodes 7..21, faces act on 0,1 and 26,27). Elastic rather than
 * sand: the centrifugal load is tensile, which the sand return map would
 * project to the apex and the ball would come apart particle by particle;
 * L is conserved either way, but the elastic ball stays a rigid body. */
static void test_apic_rotation(void) {
  printf("\n== APIC rigid rotation ==\n");
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = d.dims[1] = d.dims[2] = 28;
  d.dx = 0.01f;
  d.gravity[0] = d.gravity[1] = d.gravity[2] = 0;
  d.material.elastic_only = 1;
  d.threads = 0;
  const double dx = d.dx, R = 6 * dx, ctr = 14 * dx;
  bg_sim *sim = NULL;
  if (!create_ok(&d, &sim, "rotation")) return;
  double lo[3] = {ctr - R, ctr - R, ctr - R};
  int nc[3] = {12, 12, 12};
  size_t nb;
  bg_real *xb = block_particles(lo, nc, dx, 0.0, 1, &nb);
  bg_real *x = malloc(3 * nb * sizeof *x), *v = malloc(3 * nb * sizeof *v);
  if (!xb || !x || !v) abort();
  size_t n = 0;
  double c[3] = {0, 0, 0};
  for (size_t p = 0; p < nb; ++p) {
    double r2 = 0;
    for (int a = 0; a < 3; ++a) r2 += (xb[3 * p + a] - ctr) * (xb[3 * p + a] - ctr);
    if (r2 > R * R) continue;
    for (int a = 0; a < 3; ++a) {
      x[3 * n + a] = xb[3 * p + a];
      c[a] += x[3 * n + a];
    }
    n++;
  }
  for (int a = 0; a < 3; ++a) c[a] /= (double)n;
  const double w[3] = {1.0, -2.0, 4.0}; /* rad/s: |omega| R = 0.27 m/s */
  for (size_t p = 0; p < n; ++p) {
    double r[3] = {x[3 * p] - c[0], x[3 * p + 1] - c[1], x[3 * p + 2] - c[2]};
    v[3 * p + 0] = (bg_real)(w[1] * r[2] - w[2] * r[1]);
    v[3 * p + 1] = (bg_real)(w[2] * r[0] - w[0] * r[2]);
    v[3 * p + 2] = (bg_real)(w[0] * r[1] - w[1] * r[0]);
  }
  bg_check_true(bg_sim_add_particles(sim, n, x, v, 8) == BG_OK, "rotation: add %zu particles", n);
  double L0[3], Lo0[3], P[3], mabs;
  angular_momentum(sim, n, dx, L0, Lo0, P, &mabs);
  double drift = 0, drift_orb = 0, pdrift = 0;
  int steps_ok = 1;
  for (int s = 0; s < 100; ++s) {
    if (bg_sim_step(sim, NULL) != BG_OK) steps_ok = 0;
    double L[3], Lo[3], e[3], eo[3];
    angular_momentum(sim, n, dx, L, Lo, P, &mabs);
    for (int a = 0; a < 3; ++a) {
      e[a] = L[a] - L0[a];
      eo[a] = Lo[a] - L0[a];
    }
    double r = norm3(e) / norm3(L0), ro = norm3(eo) / norm3(L0), rp = norm3(P) / mabs;
    if (!(r <= drift)) drift = r; /* sticks at NaN */
    if (ro > drift_orb) drift_orb = ro;
    if (!(rp <= pdrift)) pdrift = rp;
  }
  bg_check_true(steps_ok, "rotation: 100 steps succeed");
  bg_stats st;
  bg_sim_stats(sim, &st);
  printf("rotation: n %zu, t %.6g s, L0 (%.6g %.6g %.6g) kg m^2/s\n", n, st.time, L0[0], L0[1],
         L0[2]);
  printf("rotation: max |L - L0| / |L0| over 100 steps: %.3g with the affine term, %.3g without\n",
         drift, drift_orb);
  printf("rotation: max |P| / sum m|v| over 100 steps: %.3g\n", pdrift);
  bg_check_true(st.n_parked == 0, "rotation: no particle parked");
  bg_check_le(drift, 1e-4, "rotation: APIC angular momentum (x x m v + affine) drift over 100 steps");
  /* Float round-off on each m v is ~1e-7 of m|v|; the sum of n such errors
   * stays orders below 1e-5 of sum m|v| (here the net momentum is zero). */
  bg_check_le(pdrift, 1e-5, "rotation: linear momentum stays zero (|P| / sum m|v|)");
  free(xb);
  free(x);
  free(v);
  bg_sim_destroy(sim);
}

/* ------------------------------------------------------------ falling block */

/* A jittered sand block (8^3 cells, 4096 particles) thrown down at 3 m/s
 * (and 0.5 m/s sideways) onto a Coulomb floor (mu 0.4) of a 24^3 grid. Its
 * lowest particles start 1 dx above the floor's solid layers, so the impact
 * starts near step 20. */
static bg_status falling_block(int threads, bg_real fixed_dt, bg_sim **out, size_t *n_out,
                               bg_sim_desc *desc_out) {
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = d.dims[1] = d.dims[2] = 24;
  d.dx = 0.01f;
  d.threads = threads;
  d.fixed_dt = fixed_dt;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.4f;
  if (desc_out) *desc_out = d;
  const double dx = d.dx;
  char err[512];
  bg_status s = bg_sim_create(&d, out, err, sizeof err);
  if (s != BG_OK) {
    printf("falling block: bg_sim_create: %s: %s\n", bg_status_name(s), err);
    return s;
  }
  double lo[3] = {8 * dx, 8 * dx, 3.25 * dx};
  int nc[3] = {8, 8, 8};
  size_t n;
  bg_real *x = block_particles(lo, nc, dx, 0.3, 777, &n);
  bg_real *v = malloc(3 * n * sizeof *v);
  if (!x || !v) abort();
  for (size_t p = 0; p < n; ++p) {
    v[3 * p + 0] = 0.5f;
    v[3 * p + 1] = 0.0f;
    v[3 * p + 2] = -3.0f;
  }
  s = bg_sim_add_particles(*out, n, x, v, 8);
  free(x);
  free(v);
  *n_out = n;
  return s;
}

/* Largest speed over active particles, read back now. */
static double active_vmax(bg_sim *sim, size_t n) {
  bg_real *v = get_field(sim, BG_FIELD_V, n), *act = get_field(sim, BG_FIELD_ACTIVE, n);
  double vm = NAN;
  if (v && act) {
    vm = 0;
    for (size_t p = 0; p < n; ++p) {
      if (act[p] == 0) continue;
      double s2 = (double)v[3 * p] * v[3 * p] + (double)v[3 * p + 1] * v[3 * p + 1] +
                  (double)v[3 * p + 2] * v[3 * p + 2];
      if (!(s2 <= vm * vm)) vm = sqrt(s2);
    }
  }
  free(v);
  free(act);
  return vm;
}

static void test_timestep(void) {
  printf("\n== timestep ==\n");
  bg_sim *sim = NULL;
  size_t n = 0;
  bg_sim_desc d;
  bg_status s = falling_block(0, 0, &sim, &n, &d);
  if (!bg_check_true(s == BG_OK, "timestep: falling block created (%s)", bg_status_name(s))) {
    bg_sim_destroy(sim);
    return;
  }
  const double cp = pwave_speed(&d.material), cfl = d.cfl, dx = d.dx;
  printf("timestep: c_p %.6g m/s (library %.6g), cfl %.3g, dx %.3g m\n", cp,
         (double)bg_material_pwave_speed(&d.material), cfl, dx);
  /* The bound is computed in double and rounded to float once: 1e-6
   * relative covers that and the float c_p. */
  const double slack = 1 + 1e-6;
  double worst0 = 0, worst = 0, vpeak = 0, zmin = 1e9;
  int worst_step = -1, api_ok = 1, same_dt = 1;
  for (int k = 0; k < 100; ++k) {
    double vm = active_vmax(sim, n), mine = cfl * dx / (cp + vm);
    bg_real dt_next = 0, bound = 0, dt = 0;
    if (bg_sim_next_dt(sim, &dt_next, &bound) != BG_OK) api_ok = 0;
    if (bg_sim_step(sim, &dt) != BG_OK) api_ok = 0;
    if (dt != dt_next) same_dt = 0;
    double r = dt / mine;
    if (k == 0) worst0 = r;
    else if (!(r <= worst)) {
      worst = r;
      worst_step = k;
    }
    if (vm > vpeak) vpeak = vm;
    if (k == 0 || k == 99)
      printf("timestep: step %d: vmax %.6g m/s, dt %.9g s, bound %.9g s, mine %.9g s\n", k, vm,
             (double)dt, (double)bound, mine);
  }
  bg_real *x = get_field(sim, BG_FIELD_X, n);
  for (size_t p = 0; x && p < n; ++p)
    if (x[3 * p + 2] < zmin) zmin = x[3 * p + 2];
  free(x);
  printf("timestep: peak vmax %.4g m/s, lowest particle at z = %.4g dx after 100 steps\n", vpeak,
         zmin / dx);
  printf("timestep: dt / (cfl dx / (c_p + vmax)): step 0 %.7g, worst of steps 1-99 %.7g (step %d)\n",
         worst0, worst, worst_step);
  bg_check_true(api_ok, "timestep: next_dt and 100 steps succeed");
  bg_check_true(same_dt, "timestep: bg_sim_step takes the dt bg_sim_next_dt announced");
  bg_check_true(zmin < 2.5 * dx, "timestep: the block reached the floor (impact inside the window)");
  bg_check_le(worst0, slack,
              "timestep: first step (particles added moving at 3 m/s) within cfl dx / (c_p + vmax)");
  bg_check_le(worst, slack, "timestep: steps 1-99 within cfl dx / (c_p + vmax)");
  bg_sim_destroy(sim);

  /* fixed dt: refused above the bound at creation, exact below it */
  double bound0 = cfl * dx / cp;
  sim = NULL;
  s = falling_block(0, (bg_real)(1.5 * bound0), &sim, &n, NULL);
  bg_check_true(s == BG_ERR_UNSTABLE_DT && sim == NULL,
                "timestep: fixed_dt = 1.5 cfl dx / c_p refused at create (%s)", bg_status_name(s));
  bg_sim_destroy(sim);
  sim = NULL;
  const bg_real fdt = (bg_real)(0.5 * bound0);
  s = falling_block(0, fdt, &sim, &n, NULL);
  if (bg_check_true(s == BG_OK, "timestep: fixed_dt = 0.5 cfl dx / c_p accepted (%s)",
                    bg_status_name(s))) {
    int exact = 1, ok = 1;
    for (int k = 0; k < 40; ++k) {
      bg_real dt = 0, dn = 0, bd = 0;
      if (bg_sim_next_dt(sim, &dn, &bd) != BG_OK || !(bd > fdt)) ok = 0;
      if (bg_sim_step(sim, &dt) != BG_OK) ok = 0;
      if (dt != fdt || dn != fdt) exact = 0;
    }
    bg_stats st;
    bg_sim_stats(sim, &st);
    bg_check_true(ok, "timestep: 40 fixed steps succeed, bound stays above fixed_dt");
    bg_check_true(exact, "timestep: every fixed step takes exactly fixed_dt = %.9g s", (double)fdt);
    bg_check_rel(st.time, 40.0 * fdt, 1e-12, "timestep: simulated time is 40 fixed_dt");
  }
  bg_sim_destroy(sim);
}

/* ------------------------------------------------------------------ threads */

static bg_real *run_block(int threads, int steps, size_t *n) {
  bg_sim *sim = NULL;
  bg_real *x = NULL;
  if (falling_block(threads, 0, &sim, n, NULL) == BG_OK && bg_sim_run(sim, (uint64_t)steps) == BG_OK)
    x = get_field(sim, BG_FIELD_X, *n);
  bg_sim_destroy(sim);
  return x;
}

static void test_threads(void) {
  printf("\n== threads ==\n");
  size_t n1 = 0, n2 = 0, n3 = 0;
  bg_real *a = run_block(2, 30, &n1), *b = run_block(2, 30, &n2), *c = run_block(1, 30, &n3);
  if (!bg_check_true(a && b && c && n1 == n2 && n2 == n3, "threads: three 30-step runs")) {
    free(a);
    free(b);
    free(c);
    return;
  }
  const double dx = 0.01;
  double dmax = 0;
  size_t ndiff = 0;
  for (size_t i = 0; i < 3 * n1; ++i) {
    double e = fabs((double)a[i] - c[i]);
    if (!(e <= dmax)) dmax = e;
    if (a[i] != c[i]) ndiff++;
  }
  printf("threads: 2 vs 2 threads bitwise %s; 1 vs 2 threads: %zu of %zu coordinates differ, max "
         "|dx| %.3g m = %.3g dx\n",
         memcmp(a, b, 3 * n1 * sizeof *a) == 0 ? "identical" : "DIFFERENT", ndiff, 3 * n1, dmax,
         dmax / dx);
  if (bg_test_backend_on_host(g_backend)) {
    bg_check_true(memcmp(a, b, 3 * n1 * sizeof *a) == 0,
                  "threads: two runs with threads = 2 give bitwise identical positions");
    /* Every sum a host backend forms has one order whatever the thread
     * count: cpu/ref is serial; cpu colours its scatter by block and bins
     * each block's particles in particle order (the parallel counting sort
     * keeps the serial one's order), the gather and the update are per
     * particle. A
     * binning that put one thread's particles of a block before another's
     * changes P2G's sums only by round-off, which the bound below cannot
     * see. */
    bg_check_true(ndiff == 0, "threads: threads = 1 vs 2 give bitwise identical positions on %s", g_backend);
  } else {
    /* A device backend sums P2G with float atomics in whatever order the
     * hardware serves them, so repeat runs agree to round-off, not bitwise:
     * the same bound as 1 vs 2 threads below holds for them. */
    double dab = 0;
    for (size_t i = 0; i < 3 * n1; ++i) {
      double e = fabs((double)a[i] - b[i]);
      if (!(e <= dab)) dab = e;
    }
    bg_check_le(dab / dx, 1e-5, "threads: two runs on \"%s\" agree to round-off (max |diff| / dx)", g_backend);
  }
  /* The coloured scatter makes P2G independent of the thread count and the
   * rest of the step is per node or per particle, so 0 is expected; allow
   * round-off of a reordered sum: 30 steps of ~1e-7 relative velocity
   * differences at <= 4 m/s move a particle ~1e-9 m, far below 1e-5 dx =
   * 1e-7 m (~7 ulp of a coordinate near 0.2 m). */
  bg_check_le(dmax / dx, 1e-5, "threads: threads = 1 vs 2 positions agree (max |diff| / dx)");
  free(a);
  free(b);
  free(c);
}

/* ------------------------------------------------------------------ parking */

/* 32 x 16 x 16 grid, +x face OPEN. A resting 4^3-cell block near x = 8..12
 * dx and one particle thrown at 10 m/s toward +x from x = 24 dx; fixed dt so
 * a run without the thrown particle takes the same steps. */
static bg_status park_scene(int with_throw, bg_sim **sim, size_t *n_out, double *m_thrown) {
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = 32;
  d.dims[1] = d.dims[2] = 16;
  d.dx = 0.01f;
  d.threads = 0;
  d.fixed_dt = 1e-4f; /* bound at 10 m/s: 0.3 dx / (14.7 + 10) = 1.2e-4 s */
  d.walls[BG_FACE_XHI].friction = BG_FRICTION_OPEN;
  const double dx = d.dx;
  bg_status s = bg_sim_create(&d, sim, NULL, 0);
  if (s != BG_OK) return s;
  double lo[3] = {8 * dx, 6 * dx, 6 * dx};
  int nc[3] = {4, 4, 4};
  size_t n;
  bg_real *x = block_particles(lo, nc, dx, 0.3, 99, &n);
  if (!x) abort();
  s = bg_sim_add_particles(*sim, n, x, NULL, 8);
  free(x);
  if (s == BG_OK && with_throw) {
    bg_real xt[3] = {(bg_real)(24 * dx), (bg_real)(8 * dx), (bg_real)(8 * dx)};
    bg_real vt[3] = {10.0f, 0.0f, 0.0f};
    s = bg_sim_add_particles(*sim, 1, xt, vt, 8);
    n++;
    *m_thrown = (double)d.material.rho0 * (double)(d.dx * d.dx * d.dx / 8);
  }
  *n_out = n;
  return s;
}

static int all_finite(const bg_real *a, size_t k) {
  for (size_t i = 0; i < k; ++i)
    if (!isfinite(a[i])) return 0;
  return 1;
}

static void test_parking_open(void) {
  printf("\n== parking: OPEN face ==\n");
  bg_sim *sim = NULL, *ref = NULL;
  size_t n = 0, nr = 0;
  double mt = 0, dummy = 0;
  bg_status s1 = park_scene(1, &sim, &n, &mt), s2 = park_scene(0, &ref, &nr, &dummy);
  if (!bg_check_true(s1 == BG_OK && s2 == BG_OK && nr + 1 == n, "parking: scenes created")) {
    bg_sim_destroy(sim);
    bg_sim_destroy(ref);
    return;
  }
  /* 6.5 cells at 0.1 dx per step: parked near step 65 */
  int ok = bg_sim_run(sim, 80) == BG_OK && bg_sim_run(ref, 80) == BG_OK;
  bg_check_true(ok, "parking: 80 steps succeed");
  bg_stats st;
  bg_sim_stats(sim, &st);
  bg_real *m = get_field(sim, BG_FIELD_MASS, n), *act = get_field(sim, BG_FIELD_ACTIVE, n);
  bg_real *x1 = get_field(sim, BG_FIELD_X, n);
  if (!m || !act || !x1) abort();
  printf("parking: n_parked_out %zu, n_parked_sink %zu, parked_mass %.9g kg, thrown mass %.9g kg, "
         "thrown particle at x = %.4g dx\n",
         st.n_parked_out, st.n_parked_sink, st.parked_mass, (double)m[n - 1], x1[3 * (n - 1)] / 0.01);
  bg_check_true(st.n_parked_out == 1 && st.n_parked == 1 && st.n_parked_sink == 0,
                "parking: exactly one particle parked, counted as out");
  bg_check_true(act[n - 1] == 0, "parking: the thrown particle is the parked one");
  size_t nact = 0;
  for (size_t p = 0; p < n; ++p) nact += act[p] != 0;
  bg_check_true(nact == n - 1 && st.n_active == n - 1, "parking: the other %zu are active", n - 1);
  bg_check_rel(st.parked_mass, (double)m[n - 1], 1e-12, "parking: parked_mass equals its mass");
  bg_check_rel((double)m[n - 1], mt, 1e-6, "parking: its mass is rho0 dx^3 / 8");
  bg_check_rel(st.total_mass, sum_mass(sim, n), 1e-12, "parking: total_mass still counts it");
  /* parked state is frozen */
  ok = bg_sim_run(sim, 10) == BG_OK && bg_sim_run(ref, 10) == BG_OK;
  bg_real *x2 = get_field(sim, BG_FIELD_X, n), *v2 = get_field(sim, BG_FIELD_V, n);
  bg_real *xr = get_field(ref, BG_FIELD_X, nr);
  if (!x2 || !v2 || !xr) abort();
  bg_check_true(ok && memcmp(x1 + 3 * (n - 1), x2 + 3 * (n - 1), 3 * sizeof *x1) == 0,
                "parking: the parked particle keeps its last position over 10 more steps");
  bg_check_true(all_finite(x2, 3 * n) && all_finite(v2, 3 * n),
                "parking: every position and velocity finite");
  /* The thrown particle never shares a node with the block (x >= 23 dx
   * against <= 13 dx), and dt is fixed, so the block must not notice it. */
  double dmax = 0;
  for (size_t i = 0; i < 3 * nr; ++i) {
    double e = fabs((double)x2[i] - xr[i]);
    if (!(e <= dmax)) dmax = e;
  }
  printf("parking: block with vs without the thrown particle: max |dx| %.3g m\n", dmax);
  bg_check_le(dmax / 0.01, 1e-5, "parking: remaining particles unaffected (max |diff| / dx)");
  free(m);
  free(act);
  free(x1);
  free(x2);
  free(v2);
  free(xr);
  bg_sim_destroy(sim);
  bg_sim_destroy(ref);
}

/* A block thrown down at 3 m/s into a sink box that covers its footprint
 * from z = 3 to 7 dx (above the floor layers); after 50 steps (~2.6 cm of
 * fall) the front part is parked in the sink. */
static void test_parking_sink(void) {
  printf("\n== parking: sink ==\n");
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dims[0] = d.dims[1] = d.dims[2] = 24;
  d.dx = 0.01f;
  d.threads = 0;
  const double dx = d.dx;
  bg_sink sink = {{(bg_real)(6 * dx), (bg_real)(6 * dx), (bg_real)(3 * dx)},
                  {(bg_real)(18 * dx), (bg_real)(18 * dx), (bg_real)(7 * dx)}};
  d.sinks = &sink;
  d.n_sinks = 1;
  bg_sim *sim = NULL;
  if (!create_ok(&d, &sim, "sink")) return;
  double lo[3] = {8 * dx, 8 * dx, 8 * dx};
  int nc[3] = {8, 8, 6};
  size_t n;
  bg_real *x = block_particles(lo, nc, dx, 0.3, 4242, &n);
  bg_real *v = malloc(3 * n * sizeof *v);
  if (!x || !v) abort();
  for (size_t p = 0; p < n; ++p) {
    v[3 * p] = v[3 * p + 1] = 0;
    v[3 * p + 2] = -3.0f;
  }
  bg_check_true(bg_sim_add_particles(sim, n, x, v, 8) == BG_OK, "sink: add %zu particles", n);
  bg_check_true(bg_sim_run(sim, 50) == BG_OK, "sink: 50 steps succeed");
  bg_stats st;
  bg_sim_stats(sim, &st);
  double smass = -1;
  bg_check_true(bg_sim_sink_mass(sim, &smass, 1) == BG_OK, "sink: bg_sim_sink_mass");
  bg_real *m = get_field(sim, BG_FIELD_MASS, n), *act = get_field(sim, BG_FIELD_ACTIVE, n);
  bg_real *xp = get_field(sim, BG_FIELD_X, n);
  if (!m || !act || !xp) abort();
  size_t npark = 0, inside_parked = 0, inside_active = 0;
  double pm = 0;
  for (size_t p = 0; p < n; ++p) {
    const bg_real *q = xp + 3 * p;
    int in = 1;
    for (int a = 0; a < 3; ++a) in = in && q[a] >= sink.lo[a] && q[a] <= sink.hi[a];
    if (act[p] == 0) {
      npark++;
      pm += m[p];
      inside_parked += in;
    } else {
      inside_active += in;
    }
  }
  printf("sink: %zu of %zu parked, n_parked_sink %zu, n_parked_out %zu, sink mass %.9g kg, "
         "parked_mass %.9g kg, sum of parked masses %.9g kg\n",
         npark, n, st.n_parked_sink, st.n_parked_out, smass, st.parked_mass, pm);
  bg_check_true(npark > 0 && npark < n, "sink: part of the block entered the sink");
  bg_check_true(st.n_parked_sink == npark && st.n_parked_out == 0,
                "sink: n_parked_sink counts the inactive particles, none counted out");
  bg_check_true(inside_parked == npark, "sink: every parked particle lies in the sink box");
  bg_check_true(inside_active == 0, "sink: no active particle lies in the sink box");
  /* equal float masses summed in double are exact in any order */
  bg_check_rel(smass, pm, 1e-12, "sink: bg_sim_sink_mass equals the parked particles' mass");
  bg_check_rel(st.parked_mass, smass, 1e-12, "sink: stats.parked_mass equals the sink's mass");
  bg_check_true(all_finite(xp, 3 * n), "sink: every position finite");
  free(x);
  free(v);
  free(m);
  free(act);
  free(xp);
  bg_sim_destroy(sim);
}

/* --------------------------------------------------------------------- main */

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
  printf("test_conservation: backend %s\n", g_backend);
  double t0 = wall_s(), t;
  test_free_flight();
  printf("(free flight %.2f s)\n", (t = wall_s()) - t0);
  test_apic_rotation();
  printf("(rotation %.2f s)\n", wall_s() - t);
  t = wall_s();
  test_timestep();
  printf("(timestep %.2f s)\n", wall_s() - t);
  t = wall_s();
  test_threads();
  printf("(threads %.2f s)\n", wall_s() - t);
  t = wall_s();
  test_parking_open();
  test_parking_sink();
  printf("(parking %.2f s)\ntotal %.2f s\n", wall_s() - t, wall_s() - t0);
  return bg_check_summary();
}
