/* probe_source.c: a sand jet poured by a disc source (bg_sim_add_source)
 * falls freely through a column with an open floor; the mass below a plane
 * at depth h under the inlet is sampled in time.
 *
 * Closed forms: Drucker-Prager sand stretched by free fall is in tension,
 * where the return map drops its stress to the cone's tip (zero), so every
 * particle falls as a point: one that left the inlet at speed v0 crosses
 * the plane t_h = (sqrt(v0^2 + 2 g h) - v0) / g later, whenever it left.
 * The mass below the plane is then mass_rate (t - t_h) once the stream
 * arrives: a line whose slope is the fed rate (source.mass_rate) and whose
 * zero is t_h (source.arrival). Particles that leave through the open floor
 * are parked with their last state, below the plane, and keep counting.
 * Both are compared with the source and gravity the simulation holds
 * (bg_sim_source_describe, bg_sim_describe). */
#include "probe_source.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>

/* The column: cells across and tall, the inlet's radius, height above the
 * floor's face and speed; the plane's depth under it; the fed rate, below
 * the dense stream's rho0 pi r^2 v0 (0.35 kg/s for Klar's sand). */
#define NXY 16
#define NZ 72
#define JET_R 0.01
#define JET_V0 0.5
#define PLANE_H 0.15
#define RATE 0.2

static void check(bg_sim *sim, bg_status s, const char *what) {
  if (s != BG_OK) bg_lab_fail("source jet: %s: %s", what, sim ? bg_sim_last_error(sim) : bg_status_str(s));
}

static bg_sim *make_column(bg_lab *lab, double dx) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dx = (bg_real)dx;
  d.dims[0] = d.dims[1] = NXY;
  d.dims[2] = NZ;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_OPEN; /* no floor: the stream leaves */
  if (bg_lab_mutant_is(lab, "source-gravity-half")) d.gravity[2] *= 0.5f; /* the closed form keeps g */
  d.backend = bg_lab_backend(lab);
  d.threads = bg_lab_threads(lab);
  char err[512];
  bg_sim *sim = NULL;
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) bg_lab_fail("source jet: bg_sim_create: %s", err);
  return sim;
}

/* Mass of the particles below z (parked ones with their last position). */
static double mass_below(bg_sim *sim, size_t n, double z, bg_real *x, bg_real *m) {
  check(sim, bg_sim_get(sim, BG_FIELD_X, x, 3 * n), "bg_sim_get x");
  check(sim, bg_sim_get(sim, BG_FIELD_MASS, m, n), "bg_sim_get mass");
  double s = 0;
  for (size_t p = 0; p < n; ++p)
    if (x[3 * p + 2] < z) s += m[p];
  return s;
}

void probe_source(bg_lab *lab) {
  int need_rate = bg_lab_needed(lab, "source.mass_rate"), need_arr = bg_lab_needed(lab, "source.arrival");
  if (!need_rate && !need_arr) return;
  const double dx = bg_lab_scale(lab) == BG_SCALE_PAPER ? 2.5e-3 : 5e-3;
  bg_sim *sim = make_column(lab, dx);
  bg_source src = bg_source_default();
  src.center[0] = src.center[1] = (bg_real)(0.5 * (NXY - 1) * dx);
  src.center[2] = (bg_real)((NZ - 4) * dx);
  src.radius = (bg_real)JET_R;
  src.velocity[2] = (bg_real)-JET_V0;
  src.mass_rate = RATE;
  int id;
  check(sim, bg_sim_add_source(sim, &src, &id), "bg_sim_add_source");
  /* what the simulation holds: the source and gravity it was fed */
  bg_source held;
  bg_sim_desc desc;
  check(sim, bg_sim_source_describe(sim, id, &held), "bg_sim_source_describe");
  check(sim, bg_sim_describe(sim, &desc), "bg_sim_describe");
  double g = -(double)desc.gravity[2], v0 = -(double)held.velocity[2];
  /* the mutant's slip is the scene's: the closed form keeps the g it meant */
  if (bg_lab_mutant_is(lab, "source-gravity-half")) g *= 2;
  const double rho0 = desc.material.rho0, r = held.radius, pi = 3.14159265358979323846;
  const double t_h = (sqrt(v0 * v0 + 2 * g * PLANE_H) - v0) / g, t_h0 = sqrt(2 * PLANE_H / g);
  const double z_plane = held.center[2] - PLANE_H;
  /* samples from 1.2 t_h (the front's spread has passed) over 0.1 s, while
   * the tail is still pouring (t_stop is infinite) */
  const double t_a = 1.2 * t_h, t_b = t_a + 0.1;
  const int ns = 41, n0 = 8;
  double *ts = malloc((ns + n0) * sizeof *ts), *ms = malloc((ns + n0) * sizeof *ms);
  if (!ts || !ms) bg_lab_fail("source jet: out of memory");
  FILE *f = bg_lab_tsv(lab, "source_jet.tsv", "source: mass of the free-falling jet below the plane at depth h",
                       "t_s\tmass_below_kg\temitted_kg\tparked");
  size_t cap = 0;
  bg_real *x = NULL, *m = NULL;
  bg_stats st;
  /* a few samples before the arrival for the table, then the fit's */
  for (int i = 0; i < ns + n0; ++i) {
    double t = i < n0 ? t_a * (i + 1) / (n0 + 1) : t_a + (t_b - t_a) * (i - n0) / (ns - 1);
    check(sim, bg_sim_advance_to(sim, t), "bg_sim_advance_to");
    check(sim, bg_sim_stats(sim, &st), "bg_sim_stats");
    if (st.n_particles > cap) {
      cap = 2 * st.n_particles;
      free(x);
      free(m);
      x = malloc(3 * cap * sizeof *x);
      m = malloc(cap * sizeof *m);
      if (!x || !m) bg_lab_fail("source jet: out of memory");
    }
    double emitted;
    check(sim, bg_sim_source_mass(sim, id, &emitted), "bg_sim_source_mass");
    ts[i] = t;
    ms[i] = mass_below(sim, st.n_particles, z_plane, x, m);
    fprintf(f, "%.9g\t%.9g\t%.9g\t%zu\n", t, ms[i], emitted, st.n_parked);
  }
  fclose(f);
  double c0, c1, cov00, cov01, cov11, sumsq;
  gsl_fit_linear(ts + n0, 1, ms + n0, 1, ns, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
  double t_arr = -c0 / c1;
  bg_lab_add_work(lab, (double)st.step * (double)st.n_particles);
  bg_lab_manifest_num(lab, "source_dx_m", dx);
  bg_lab_manifest_num(lab, "source_particles", (double)st.n_particles);
  bg_lab_manifest_num(lab, "source_steps", (double)st.step);
  bg_lab_manifest_num(lab, "source_fit_rms_kg", sqrt(sumsq / (ns - 2)));
  bg_lab_manifest_num(lab, "source_closed_form_arrival_s", t_h);
  bg_lab_progress(lab,
                  "source: jet below the plane at %.3g m: slope %.5g kg/s (fed %.5g), arrival %.5g s (free fall "
                  "%.5g s; %zu particles, %llu steps)",
                  PLANE_H, c1, held.mass_rate, t_arr, t_h, st.n_particles, (unsigned long long)st.step);
  bg_lab_claim_fed(lab, "source.mass_rate", c1, held.mass_rate);
  bg_lab_claim_fed(lab, "source.arrival", t_arr, t_h);
  /* the slope held to the dense stream's rate rho0 pi r^2 v0 (the field
   * that bounds the rate, read in its place); the arrival to free fall
   * from rest, dropping the inlet's speed */
  bg_lab_claim_mutant_fed(lab, "source-dense-rate", "source.mass_rate", c1, rho0 * pi * r * r * v0);
  bg_lab_claim_mutant_fed(lab, "source-arrival-no-v0", "source.arrival", t_arr, t_h0);
  free(ts);
  free(ms);
  free(x);
  free(m);
  bg_sim_destroy(sim);
}
