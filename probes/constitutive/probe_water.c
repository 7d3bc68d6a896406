/* probe_water.c: the water model (core/physics/materials/bg_mat_water.h)
 * against its two closed forms (references/derivations/water.md).
 *
 * Pressure: one element at volume ratios J from 0.8 to 1.25 through the
 * registry's scalar update, the oracle every backend runs; the pressure it
 * returns must be Tait's k ((1/J)^gamma - 1) to float round-off.
 *
 * Sound speed: a bar of water at rest, 0.3 m long, between frictionless
 * walls a slab two cells thick (so the motion is one-dimensional: a fluid
 * without lateral walls has no 1-D wave), free at both ends, no gravity.
 * A Gaussian velocity bump splits into two pulses running at +-c; the
 * centroid of the kinetic energy ahead of the bump's centre moves at c, fitted
 * as a line in time once the halves have separated and before the one
 * reflected at the near end comes back. c is held to sqrt(k gamma / rho0)
 * of the material the simulation holds (bg_sim_describe). */
#include "probe_water.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_materials.h"

/* The bar and its pulse: length, bump centre and half-width (1/e), peak
 * speed (Mach ~4e-4, where the speed's own amplitude dependence, (gamma +
 * 1) / 2 times the strain, is below 1e-3 of c). Lateral slab in cells. */
#define BAR_L 0.3
#define BUMP_X0 0.1
#define BUMP_W 0.01
#define BUMP_V0 0.01
#define SLAB_CELLS 2
/* Free space between each bar end and the domain face, cells. */
#define END_GAP 4

static bg_mat water_params(const bg_material *m) {
  bg_mat c;
  char err[512];
  if (bg_material_params(m, &c, err, sizeof err) != BG_OK) bg_lab_fail("water material: %s", err);
  return c;
}

/* Tait's pressure through the update at each J; the worst error in units
 * of k ((1/J)^gamma + 1), the size of the terms whose float rounding bounds
 * it. water-gamma-6: the update runs with gamma 6 against the fed 7. */
static double pressure_section(bg_lab *lab) {
  bg_material fed = bg_material_default(BG_MODEL_WATER), run = fed;
  if (bg_lab_mutant_is(lab, "water-gamma-6")) run.water.gamma = 6.0f;
  bg_mat m = water_params(&run);
  const double k = fed.water.bulk_modulus, g = fed.water.gamma;
  FILE *f = bg_lab_tsv(lab, "water_p.tsv",
                       "water: Tait pressure through bg_material_update vs k((1/J)^gamma - 1)",
                       "J\tp_update_Pa\tp_closed_Pa\terr_of_scale\tdetF_after_rel");
  double worst = 0, worst_det = 0;
  const int n = 91;
  for (int i = 0; i < n; ++i) {
    /* F = diag(J, 1, 1): its float determinant is J exactly */
    bg_real J = (bg_real)(0.8 + 0.45 * i / (n - 1));
    bg_mat3 F = bg_mat3_identity(), C = bg_mat3_zero(), tau;
    F.m[0][0] = J;
    bg_real st[BG_NSTATE] = {0, 0, 0, 0};
    bg_update_ctx u = {&F, &C, 1e-5f, st, &tau};
    bg_material_update(&m, &u);
    double p = -(double)tau.m[0][0] / J, pe = k * (pow(J, -g) - 1.0);
    double err = fabs(p - pe) / (k * (pow(J, -g) + 1.0));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (tau.m[a][b] != (a == b ? tau.m[0][0] : 0.0f)) err = INFINITY; /* not isotropic */
    double det_rel = fabs((double)bg_mat3_det(F) / J - 1.0);
    worst = isnan(err) || err > worst ? err : worst;
    worst_det = det_rel > worst_det ? det_rel : worst_det;
    fprintf(f, "%.9g\t%.9g\t%.9g\t%.3e\t%.3e\n", (double)J, p, pe, err, det_rel);
  }
  fclose(f);
  bg_lab_manifest_num(lab, "water_detF_after_max_rel", worst_det);
  bg_lab_progress(
      lab, "water: max |p - Tait| %.3g of k((1/J)^gamma + 1); det F after the update = J to %.2g",
      worst, worst_det);
  return worst;
}

/* The Newtonian part: tau = J mu dev(C + C^T) through the update, for a
 * fixed velocity gradient at J = 1 (p = 0: the whole tensor) and at J 0.9
 * and 1.1 (the shear components, the pressure's isotropic part being far
 * larger than the viscous diagonal in float); the worst error in units of
 * J mu max|C + C^T|. water-viscosity-half: the update runs with mu / 2. */
static double viscous_section(bg_lab *lab) {
  bg_material fed = bg_material_default(BG_MODEL_WATER);
  fed.water.viscosity = 1e-3f; /* water's, Pa s */
  bg_material run = fed;
  if (bg_lab_mutant_is(lab, "water-viscosity-half")) run.water.viscosity *= 0.5f;
  bg_mat m = water_params(&run);
  const double mu = fed.water.viscosity;
  static const float c[9] = {3.0f, -7.5f, 2.25f, 11.0f, -1.5f, 4.0f, -6.0f, 0.5f, 2.0f}; /* 1/s */
  static const float js[3] = {1.0f, 0.9f, 1.1f};
  double worst = 0;
  for (int t = 0; t < 3; ++t) {
    bg_mat3 F = bg_mat3_identity(), C, tau;
    F.m[0][0] = js[t];
    for (int e = 0; e < 9; ++e) C.m[e / 3][e % 3] = c[e];
    bg_real st[BG_NSTATE] = {0, 0, 0, 0};
    bg_update_ctx u = {&F, &C, 1e-5f, st, &tau};
    bg_material_update(&m, &u);
    double tr = (double)c[0] + c[4] + c[8], scale = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) scale = fmax(scale, fabs((double)c[3 * i + j] + c[3 * j + i]));
    scale *= js[t] * mu;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        if (js[t] != 1.0f && i == j) continue;
        double e =
            js[t] * mu * ((double)c[3 * i + j] + c[3 * j + i] - (i == j ? 2.0 * tr / 3.0 : 0.0));
        double err = fabs((double)tau.m[i][j] - e) / scale;
        worst = isnan(err) || err > worst ? err : worst;
      }
  }
  bg_lab_progress(lab, "water: max |tau - J mu dev(C + C^T)| %.3g of J mu max|C + C^T|", worst);
  return worst;
}

static void sim_check(bg_sim *sim, bg_status s, const char *what) {
  if (s != BG_OK)
    bg_lab_fail("water pulse: %s: %s", what, sim ? bg_sim_last_error(sim) : bg_status_str(s));
}

/* The bar: nx cells long from x = 0, its lateral edges on the walls' last
 * solid nodes (bg_wall_edge_offset), where a loaded slip wall acts at once. */
static bg_sim *make_bar(bg_lab *lab, double dx, size_t *n_out) {
  bg_sim_desc d = bg_sim_desc_default();
  d.material = bg_material_default(BG_MODEL_WATER);
  d.dx = (bg_real)dx;
  d.gravity[2] = 0;
  int nx = (int)lround(BAR_L / dx);
  d.dims[0] = (size_t)nx + 4 + 2 * END_GAP;
  d.dims[1] = d.dims[2] = SLAB_CELLS + 4;
  d.origin[0] = (bg_real)(-(1.5 + END_GAP) * dx);
  d.origin[1] = d.origin[2] = (bg_real)(-1.5 * dx); /* the lateral faces at 0 and SLAB_CELLS dx */
  d.backend = bg_lab_backend(lab);
  d.threads = bg_lab_threads(lab);
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  if (s != BG_OK) bg_lab_fail("water pulse: bg_sim_create: %s", err);
  double off = bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * dx; /* -0.5 dx: into the wall */
  double sp = 0.5 * dx, lat = SLAB_CELLS * dx - 2 * off;
  bg_seed_lattice_desc ld = {
      .origin = {0, off, off},
      .spacing = sp,
      .count = {(size_t)(2 * nx), (size_t)lround(lat / sp), (size_t)lround(lat / sp)}};
  size_t cap = ld.count[0] * ld.count[1] * ld.count[2], n = 0;
  bg_real *x = malloc(3 * cap * sizeof *x), *v = calloc(3 * cap, sizeof *v);
  if (!x || !v) bg_lab_fail("water pulse: out of memory");
  if ((s = bg_seed_lattice(&ld, x, cap, &n, err, sizeof err)) != BG_OK)
    bg_lab_fail("water pulse: seed: %s", err);
  for (size_t p = 0; p < n; ++p) {
    double r = (x[3 * p] - BUMP_X0) / BUMP_W;
    v[3 * p] = (bg_real)(BUMP_V0 * exp(-r * r));
  }
  sim_check(sim, bg_sim_add_particles(sim, n, x, v, 8), "bg_sim_add_particles");
  free(x);
  free(v);
  *n_out = n;
  return sim;
}

/* Centroid of the kinetic energy of the pulse ahead of the bump's centre,
 * m, and its energy, J: the particles within 3 half-widths of the most
 * energetic bin (dx wide) beyond the centre, so that the slow residue a
 * grid transfer leaves behind the pulse does not drag the centroid. */
static double pulse_centroid(bg_sim *sim, size_t n, double dx, bg_real *x, bg_real *v,
                             const bg_real *m, double *e) {
  sim_check(sim, bg_sim_get(sim, BG_FIELD_X, x, 3 * n), "bg_sim_get x");
  sim_check(sim, bg_sim_get(sim, BG_FIELD_V, v, 3 * n), "bg_sim_get v");
  int nb = (int)ceil(BAR_L / dx) + 1;
  double *bin = calloc((size_t)nb, sizeof *bin);
  if (!bin) bg_lab_fail("water pulse: out of memory");
  for (size_t p = 0; p < n; ++p) {
    int b = (int)floor(x[3 * p] / dx);
    if (x[3 * p] > BUMP_X0 && b >= 0 && b < nb) bin[b] += (double)m[p] * v[3 * p] * v[3 * p];
  }
  int bmax = 0;
  for (int b = 1; b < nb; ++b)
    if (bin[b] > bin[bmax]) bmax = b;
  free(bin);
  double xc = (bmax + 0.5) * dx, sw = 0, sx = 0;
  for (size_t p = 0; p < n; ++p) {
    if (x[3 * p] <= BUMP_X0 || fabs(x[3 * p] - xc) > 3 * BUMP_W) continue;
    double ke = 0.5 * m[p] *
                ((double)v[3 * p] * v[3 * p] + (double)v[3 * p + 1] * v[3 * p + 1] +
                 (double)v[3 * p + 2] * v[3 * p + 2]);
    sw += ke;
    sx += ke * x[3 * p];
  }
  *e = sw;
  return sw > 0 ? sx / sw : NAN;
}

/* The pulse's speed and the two speeds it could be held to: the fed sound
 * speed at J = 1 and the CFL's (bg_material_pwave_speed, at J = 0.9). */
typedef struct pulse_result {
  double c_meas, c_fed, c_cfl;
} pulse_result;

static pulse_result pulse_section(bg_lab *lab) {
  const double dx = bg_lab_scale(lab) == BG_SCALE_PAPER ? 0.5e-3 : 2e-3;
  size_t n = 0;
  bg_sim *sim = make_bar(lab, dx, &n);
  bg_sim_desc held;
  sim_check(sim, bg_sim_describe(sim, &held), "bg_sim_describe");
  pulse_result r;
  r.c_fed = sqrt((double)held.material.water.bulk_modulus * held.material.water.gamma /
                 held.material.rho0);
  r.c_cfl = bg_material_pwave_speed(&held.material);
  /* separated after the bump's width has been crossed three times; the
   * left pulse, reflected at x = 0, re-enters x > x0 at 2 x0 / c */
  const double t1 = 3 * BUMP_W / r.c_fed,
               t2 = fmin(2 * BUMP_X0, BAR_L - BUMP_X0 - 3 * BUMP_W) / r.c_fed;
  const int ns = 40;
  bg_real *x = malloc(3 * n * sizeof *x), *v = malloc(3 * n * sizeof *v),
          *m = malloc(n * sizeof *m);
  double *ts = malloc(ns * sizeof *ts), *xs = malloc(ns * sizeof *xs);
  if (!x || !v || !m || !ts || !xs) bg_lab_fail("water pulse: out of memory");
  sim_check(sim, bg_sim_get(sim, BG_FIELD_MASS, m, n), "bg_sim_get mass");
  FILE *f = bg_lab_tsv(lab, "water_pulse.tsv",
                       "water: energy centroid of the right-running pulse in a 1-D bar",
                       "t_s\tcentroid_m\tenergy_J");
  for (int i = 0; i < ns; ++i) {
    double t = t1 + (t2 - t1) * i / (ns - 1), e;
    sim_check(sim, bg_sim_advance_to(sim, t), "bg_sim_advance_to");
    ts[i] = t;
    xs[i] = pulse_centroid(sim, n, dx, x, v, m, &e);
    fprintf(f, "%.9g\t%.9g\t%.9g\n", t, xs[i], e);
  }
  fclose(f);
  double c0, c1, cov00, cov01, cov11, sumsq;
  gsl_fit_linear(ts, 1, xs, 1, ns, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
  r.c_meas = c1;
  bg_stats st;
  sim_check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
  bg_lab_add_work(lab, (double)st.step * (double)n);
  bg_lab_manifest_num(lab, "water_pulse_dx_m", dx);
  bg_lab_manifest_num(lab, "water_pulse_particles", (double)n);
  bg_lab_manifest_num(lab, "water_pulse_steps", (double)st.step);
  bg_lab_manifest_num(lab, "water_pulse_fit_rms_m", sqrt(sumsq / (ns - 2)));
  bg_lab_progress(lab,
                  "water: pulse speed %.4f m/s against sqrt(k gamma / rho0) = %.4f m/s (dx %.2g m, "
                  "%zu particles)",
                  r.c_meas, r.c_fed, dx, n);
  free(x);
  free(v);
  free(m);
  free(ts);
  free(xs);
  bg_sim_destroy(sim);
  return r;
}

void probe_water(bg_lab *lab) {
  int need_p = bg_lab_needed(lab, "probe.tait.pressure"),
      need_c = bg_lab_needed(lab, "probe.tait.sound_speed");
  if (need_p) bg_lab_claim(lab, "probe.tait.pressure", pressure_section(lab));
  if (bg_lab_needed(lab, "probe.tait.viscous"))
    bg_lab_claim(lab, "probe.tait.viscous", viscous_section(lab));
  if (!need_c) return;
  pulse_result r = pulse_section(lab);
  bg_lab_manifest_num(lab, "water_cfl_speed_m_s", r.c_cfl);
  bg_lab_claim_fed(lab, "probe.tait.sound_speed", r.c_meas, r.c_fed);
  /* the pulse held to the CFL's speed, at J = 0.9, instead of J = 1's */
  bg_lab_claim_mutant_fed(lab, "water-cfl-speed", "probe.tait.sound_speed", r.c_meas, r.c_cfl);
}
