/* test_source.c: emitters (bg_sim_add_source) on one backend (argv[1]):
 *  - every argument refused with its name in the message;
 *  - mass accounting: after every step the emitted mass trails
 *    mass_rate times the active time by less than one particle mass, and
 *    equals the sum of the emitted particles' BG_FIELD_MASS exactly;
 *    nothing before t_start, nothing after t_stop;
 *  - placement: a DISC's particles lie in the cylinder its inlet swept, a
 *    BOX's in the box; the same seed places them bit for bit alike, another
 *    seed elsewhere;
 *  - particles appended mid-run take part in the step: the total momentum
 *    gains exactly what gravity and the inflow bring;
 *  - a run checkpointed mid-pour and resumed (bg_sim_load, bg_sim_restore)
 *    is bit-identical to the uninterrupted one (host backends);
 *  - a VTU series whose particle count grows between frames. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_test_backend.h"

static const char *backend;
static char dir[64];

static bg_sim_desc desc(void) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = 24;
  d.dx = 0.01f;
  d.backend = backend;
  d.threads = 2;
  return d;
}

static bg_sim *make(const bg_sim_desc *d) {
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(d, &sim, err, sizeof err);
  if (s != BG_OK) {
    printf("FAIL: create: %s\n", err);
    exit(1);
  }
  return sim;
}

/* A downward disc jet 5 cm above the grid's centre. */
static bg_source jet(void) {
  bg_source s = bg_source_default();
  s.shape = BG_SOURCE_DISC;
  s.center[0] = s.center[1] = 0.12f;
  s.center[2] = 0.17f;
  s.radius = 0.03f;
  s.velocity[2] = -1.0f;
  s.mass_rate = 4.0; /* below the dense stream's rho0 pi r^2 |v| = 6.2 kg/s */
  return s;
}

/* ------------------------------------------------------------------ errors */

/* The source src must be refused with status want and a message holding name. */
static void refused(bg_sim *sim, const bg_source *src, bg_status want, const char *name) {
  int id = -7;
  bg_status s = bg_sim_add_source(sim, src, &id);
  const char *msg = bg_sim_last_error(sim);
  bg_check_true(s == want && strstr(msg, name) != NULL && id == -7, "%s refused: %s (%s)", name,
                bg_status_name(s), msg);
}

static void check_errors(void) {
  bg_sim_desc d = desc();
  bg_sim *sim = make(&d);
  bg_source s;
  s = jet(), s.shape = (bg_source_shape)5, refused(sim, &s, BG_ERR_RANGE, "source.shape");
  s = jet(), s.center[1] = NAN, refused(sim, &s, BG_ERR_NONFINITE, "source.center[1]");
  s = jet(), s.velocity[0] = INFINITY, refused(sim, &s, BG_ERR_NONFINITE, "source.velocity[0]");
  s = jet(), s.mass_rate = NAN, refused(sim, &s, BG_ERR_NONFINITE, "source.mass_rate");
  s = jet(), s.mass_rate = 0, refused(sim, &s, BG_ERR_RANGE, "source.mass_rate");
  s = jet(), s.mass_rate = 6.3, refused(sim, &s, BG_ERR_RANGE, "source.mass_rate must be <= rho0 pi");
  s = jet(), s.t_start = NAN, refused(sim, &s, BG_ERR_NONFINITE, "source.t_start");
  s = jet(), s.t_stop = NAN, refused(sim, &s, BG_ERR_NONFINITE, "source.t_stop");
  s = jet(), s.t_start = 1, s.t_stop = 1, refused(sim, &s, BG_ERR_RANGE, "source.t_stop");
  s = jet(), s.ppc = 0, refused(sim, &s, BG_ERR_RANGE, "source.ppc");
  s = jet(), s.material = 1, refused(sim, &s, BG_ERR_RANGE, "source.material");
  s = jet(), s.radius = 0, refused(sim, &s, BG_ERR_RANGE, "source.radius");
  s = jet(), s.velocity[2] = 0, refused(sim, &s, BG_ERR_RANGE, "source.velocity");
  s = jet(), s.center[2] = 0.22f, refused(sim, &s, BG_ERR_OUTSIDE, "source.center[2]");
  s = jet(), s.radius = 0.1f, s.mass_rate = 1, refused(sim, &s, BG_ERR_OUTSIDE, "source.center[0]");
  s = jet(), s.shape = BG_SOURCE_BOX, s.half[0] = s.half[1] = 0.02f,
  refused(sim, &s, BG_ERR_RANGE, "source.half[2]");
  s = jet(), s.shape = BG_SOURCE_BOX, s.half[0] = s.half[1] = s.half[2] = 0.2f,
  refused(sim, &s, BG_ERR_OUTSIDE, "source.center[0]");
  bg_check_true(bg_sim_add_source(sim, NULL, NULL) == BG_ERR_NULL && strstr(bg_sim_last_error(sim), "src"),
                "a NULL source refused (%s)", bg_sim_last_error(sim));
  double kg = -1;
  bg_status st = bg_sim_source_mass(sim, 0, &kg);
  bg_check_true(st == BG_ERR_RANGE && strstr(bg_sim_last_error(sim), "id = 0") && kg == -1,
                "an id outside the sources refused (%s)", bg_sim_last_error(sim));
  s = jet();
  int id = -1;
  st = bg_sim_add_source(sim, &s, &id);
  bg_check_true(st == BG_OK && id == 0, "a valid source accepted as id 0 (%s)", bg_sim_last_error(sim));
  st = bg_sim_source_mass(sim, 0, NULL);
  bg_check_true(st == BG_ERR_NULL && strstr(bg_sim_last_error(sim), "kg"), "a NULL kg refused (%s)",
                bg_sim_last_error(sim));
  bg_sim_destroy(sim);
}

/* -------------------------------------------------------------- accounting */

/* Sum of BG_FIELD_MASS over all particles, and the total z momentum. */
static void sums(bg_sim *sim, size_t n, double *mass, double *pz) {
  bg_real *m = malloc((n ? n : 1) * sizeof *m), *v = malloc((3 * n + 1) * sizeof *v);
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
  *mass = *pz = 0;
  for (size_t p = 0; p < n; ++p) {
    *mass += m[p];
    *pz += (double)m[p] * v[3 * p + 2];
  }
  free(m);
  free(v);
}

static void check_accounting(void) {
  bg_sim_desc d = desc();
  bg_sim *sim = make(&d);
  bg_source s = jet();
  s.t_start = 0.002;
  s.t_stop = 0.009;
  int id;
  bg_sim_add_source(sim, &s, &id);
  const double mp = (double)(2200.0f * (0.01f * 0.01f * 0.01f / 8.0f));
  int ok_trail = 1, ok_sum = 1, ok_before = 1, ok_after = 1, ok_mom = 1, steps = 0;
  double worst_lag = 0, worst_mom = 0, pz_prev = 0, m_prev = 0, t_prev = 0;
  uint64_t n_stop = 0;
  bg_stats st;
  while (bg_sim_stats(sim, &st), st.time < 0.013) {
    bg_real dt;
    if (bg_sim_step(sim, &dt) != BG_OK) {
      printf("FAIL: step: %s\n", bg_sim_last_error(sim));
      break;
    }
    steps++;
    bg_sim_stats(sim, &st);
    double kg, mass, pz;
    uint64_t count;
    bg_sim_source_mass(sim, id, &kg);
    bg_sim_source_count(sim, id, &count);
    sums(sim, st.n_particles, &mass, &pz);
    double active = fmin(fmax(st.time - s.t_start, 0), s.t_stop - s.t_start), want = s.mass_rate * active;
    double lag = want - kg;
    if (lag > worst_lag) worst_lag = lag;
    /* round-off of the double sums: a few ulps of the mass */
    if (!(lag < mp && lag >= -1e-12 * want)) {
      if (ok_trail) printf("step %d: t %.17g lag %.17g want %.17g\n", steps, st.time, lag, want);
      ok_trail = 0;
    }
    if (!(kg == mass && count == st.n_particles)) ok_sum = 0;
    if (st.time <= s.t_start && count) ok_before = 0;
    if (t_prev >= s.t_stop) {
      if (n_stop == 0) n_stop = count;
      if (count != n_stop) ok_after = 0;
    }
    /* the momentum the step must add: the inflow at the source's velocity
     * and gravity on every particle (APIC conserves the rest); no wall is
     * reached in this run */
    double want_pz = pz_prev + (mass - m_prev) * s.velocity[2] + mass * d.gravity[2] * dt;
    double dev = fabs(pz - want_pz) / fmax(fabs(want_pz), 1e-9);
    if (dev > worst_mom) worst_mom = dev;
    if (mass > 0 && dev > 1e-5) ok_mom = 0;
    pz_prev = pz;
    m_prev = mass;
    t_prev = st.time;
  }
  double kg;
  bg_sim_source_mass(sim, id, &kg);
  printf("accounting: %d steps, %zu particles, %.6g kg (fed %.6g kg), worst lag %.3g kg (m_p %.3g kg), "
         "worst momentum deviation %.3g\n",
         steps, st.n_particles, kg, s.mass_rate * (s.t_stop - s.t_start), worst_lag, mp, worst_mom);
  bg_check_true(st.n_particles > 50, "the jet emitted particles (%zu)", st.n_particles);
  bg_check_true(ok_trail, "after every step the emitted mass trails mass_rate * active time by [0, m_p)");
  bg_check_true(ok_sum, "after every step the source's mass is the sum of BG_FIELD_MASS and its count the particles'");
  bg_check_true(ok_before, "nothing emitted before t_start");
  bg_check_true(ok_after && n_stop > 0, "nothing emitted after t_stop (%llu particles)", (unsigned long long)n_stop);
  bg_check_true(ok_mom, "emitted particles join the step: momentum gains inflow + gravity (worst rel %.3g)", worst_mom);
  bg_check_true(st.n_active == st.n_particles, "every emitted particle is active (%zu of %zu)", st.n_active,
                st.n_particles);
  bg_sim_destroy(sim);
}

/* ---------------------------------------------------------------- placement */

/* Positions after `steps` steps without gravity of one source, into a malloc'd array. */
static bg_real *positions(const bg_source *s, int steps, size_t *n, bg_real *dt_first) {
  bg_sim_desc d = desc();
  d.gravity[2] = 0;
  bg_sim *sim = make(&d);
  bg_sim_add_source(sim, s, NULL);
  for (int k = 0; k < steps; ++k) {
    bg_real dt;
    bg_sim_step(sim, &dt);
    if (k == 0 && dt_first) *dt_first = dt;
  }
  bg_stats st;
  bg_sim_stats(sim, &st);
  *n = st.n_particles;
  bg_real *x = malloc((3 * *n + 1) * sizeof *x);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * *n);
  bg_sim_destroy(sim);
  return x;
}

static void check_placement(void) {
  /* a tilted disc: after one step in a uniform velocity field (no gravity,
   * no wall) every particle moved by velocity * dt exactly, so it lies in
   * the swept cylinder shifted by one more step */
  bg_source s = jet();
  s.velocity[0] = 1.8f;
  s.velocity[2] = -2.4f;
  s.ppc = 64; /* many particles in one step */
  s.mass_rate = 15;
  size_t n;
  bg_real dt;
  bg_real *x = positions(&s, 1, &n, &dt);
  double v = 3.0, worst_r = 0, smin = 1, smax = -1;
  for (size_t p = 0; p < n; ++p) {
    double r[3], ax = 0, rr = 0;
    for (int a = 0; a < 3; ++a) r[a] = x[3 * p + a] - s.center[a];
    for (int a = 0; a < 3; ++a) ax += r[a] * s.velocity[a] / v;
    for (int a = 0; a < 3; ++a) rr += pow(r[a] - ax * s.velocity[a] / v, 2);
    worst_r = fmax(worst_r, sqrt(rr));
    smin = fmin(smin, ax);
    smax = fmax(smax, ax);
  }
  /* float positions near 0.15 m carry ~1e-8 m of rounding */
  double tol = 1e-6;
  bg_check_true(n > 20, "the tilted disc emitted in its first step (%zu)", n);
  bg_check_le(worst_r, s.radius + tol, "every particle within the disc's radius of its axis");
  bg_check_true(smin >= v * dt - tol && smax <= 2 * v * dt + tol,
                "every particle in the swept length, shifted by one step: [%g, %g] in [%g, %g] m", smin, smax,
                v * dt, 2 * v * dt);
  bg_check_true(worst_r > 0.9 * s.radius && smax - smin > 0.8 * v * dt,
                "the particles fill the cylinder (radius %g of %g, length %g of %g)", worst_r, (double)s.radius,
                smax - smin, v * dt);
  free(x);
  /* a box at rest: every particle inside it */
  bg_source b = bg_source_default();
  b.shape = BG_SOURCE_BOX;
  b.center[0] = 0.1f, b.center[1] = 0.12f, b.center[2] = 0.08f;
  b.half[0] = 0.03f, b.half[1] = 0.02f, b.half[2] = 0.01f;
  b.mass_rate = 50;
  x = positions(&b, 3, &n, NULL);
  int inside = 1;
  for (size_t p = 0; p < n; ++p)
    for (int a = 0; a < 3; ++a)
      if (fabs(x[3 * p + a] - b.center[a]) > b.half[a] + 1e-7) inside = 0;
  bg_check_true(n > 20 && inside, "every particle of a BOX inside the box (%zu)", n);
  free(x);
  /* the same seed again: bit for bit; another seed: elsewhere */
  size_t n1, n2, n3;
  bg_real *x1 = positions(&s, 4, &n1, NULL), *x2 = positions(&s, 4, &n2, NULL);
  bg_source s3 = s;
  s3.seed = 2;
  bg_real *x3 = positions(&s3, 4, &n3, NULL);
  bg_check_true(n1 == n2 && memcmp(x1, x2, 3 * n1 * sizeof *x1) == 0, "the same seed places bit for bit alike");
  bg_check_true(n1 == n3 && memcmp(x1, x3, 3 * n1 * sizeof *x1) != 0,
                "another seed places elsewhere (the same count, %zu and %zu)", n1, n3);
  free(x1);
  free(x2);
  free(x3);
}

/* --------------------------------------------------------------- checkpoint */

#define N_RUN 90
#define N_SAVE 37

/* The pouring scene: a jet on a floor, and a box that starts later. */
static bg_sim *pour(void) {
  bg_sim_desc d = desc();
  bg_sim *sim = make(&d);
  bg_source s = jet();
  s.center[2] = 0.08f;
  bg_sim_add_source(sim, &s, NULL);
  bg_source b = bg_source_default();
  b.shape = BG_SOURCE_BOX;
  b.center[0] = 0.07f, b.center[1] = 0.07f, b.center[2] = 0.15f;
  b.half[0] = b.half[1] = b.half[2] = 0.02f;
  b.mass_rate = 3;
  b.t_start = 0.004;
  b.seed = 99;
  bg_sim_add_source(sim, &b, NULL);
  return sim;
}

static int same_state(bg_sim *a, bg_sim *b, const char *what) {
  bg_stats sa, sb;
  bg_sim_stats(a, &sa);
  bg_sim_stats(b, &sb);
  int ok = sa.n_particles == sb.n_particles && sa.time == sb.time && sa.step == sb.step;
  size_t n = sa.n_particles;
  bg_real *fa = malloc((9 * n + 1) * sizeof *fa), *fb = malloc((9 * n + 1) * sizeof *fb);
  const bg_field fs[] = {BG_FIELD_X, BG_FIELD_V, BG_FIELD_F, BG_FIELD_C, BG_FIELD_MASS};
  for (size_t k = 0; ok && k < sizeof fs / sizeof fs[0]; ++k) {
    size_t w = (size_t)bg_field_width(fs[k]);
    bg_sim_get(a, fs[k], fa, w * n);
    bg_sim_get(b, fs[k], fb, w * n);
    ok = memcmp(fa, fb, w * n * sizeof *fa) == 0;
  }
  for (int id = 0; ok && id < 2; ++id) {
    double ka, kb;
    bg_sim_source_mass(a, id, &ka);
    bg_sim_source_mass(b, id, &kb);
    ok = ka == kb;
  }
  free(fa);
  free(fb);
  return bg_check_true(ok, "%s: bit-identical to the uninterrupted run (%zu particles, t %.6g s)", what, n, sa.time);
}

static void check_checkpoint(void) {
  bg_sim *a = pour();
  bg_sim_run(a, N_RUN);
  bg_sim *b = pour();
  bg_sim_run(b, N_SAVE);
  char path[128];
  snprintf(path, sizeof path, "%s/pour.bgck", dir);
  bg_check_true(bg_sim_save(b, path, NULL, 0) == BG_OK, "a save mid-pour (%s)", bg_sim_last_error(b));
  bg_sim_run(b, N_RUN - N_SAVE);
  char err[512];
  bg_sim *c = NULL;
  bg_status s = bg_sim_load(path, backend, 2, &c, err, sizeof err);
  if (!bg_check_true(s == BG_OK, "the mid-pour checkpoint loads (%s)", err)) return;
  double kg = -1;
  bg_check_true(bg_sim_source_mass(c, 1, &kg) == BG_OK, "the load re-creates both sources (%s)",
                bg_sim_last_error(c));
  bg_sim_run(c, N_RUN - N_SAVE);
  /* restore into a simulation made from the descriptor alone: the sources come from the file */
  bg_sim_desc d = desc();
  bg_sim *r = make(&d);
  s = bg_sim_restore(r, path, NULL, 0, NULL);
  bg_check_true(s == BG_OK, "restore into a simulation without sources (%s)", bg_sim_last_error(r));
  bg_sim_run(r, N_RUN - N_SAVE);
  if (bg_test_backend_on_host(backend)) {
    same_state(b, a, "a run that saved mid-pour");
    same_state(c, a, "a run loaded mid-pour");
    same_state(r, a, "a run restored mid-pour");
  } else {
    /* a device's atomics differ run to run, and dt with them: the sources
     * are back and emitting */
    uint64_t na, nc;
    bg_sim_source_count(a, 0, &na);
    bg_sim_source_count(c, 0, &nc);
    bg_check_true(nc > 0 && na > 0, "the loaded jet emits (%llu, uninterrupted %llu)", (unsigned long long)nc,
                  (unsigned long long)na);
  }
  bg_sim_destroy(a);
  bg_sim_destroy(b);
  bg_sim_destroy(c);
  bg_sim_destroy(r);
  /* a checkpoint before the pour began: no particle, a file smaller than the grid */
  bg_sim_desc d0 = desc();
  bg_sim *e = make(&d0);
  bg_source later = jet();
  later.t_start = 1;
  bg_sim_add_source(e, &later, NULL);
  bg_sim_run(e, 3);
  bg_sim_save(e, path, NULL, 0);
  bg_sim *f = NULL;
  s = bg_sim_load(path, backend, 2, &f, err, sizeof err);
  bg_source back;
  bg_check_true(s == BG_OK && bg_sim_source_describe(f, 0, &back) == BG_OK && back.t_start == 1,
                "a checkpoint of no particle yet loads with its source (%s)", err);
  bg_sim_destroy(e);
  bg_sim_destroy(f);
  remove(path);
}

/* --------------------------------------------------------------------- vtu */

static void check_vtu(void) {
  bg_sim *sim = pour();
  bg_pvd *p = NULL;
  bg_status s = bg_pvd_open(dir, "pour", 0, &p);
  int ok = s == BG_OK;
  size_t counts[3] = {0, 0, 0};
  for (int f = 0; ok && f < 3; ++f) {
    bg_sim_run(sim, 15);
    bg_stats st;
    bg_sim_stats(sim, &st);
    counts[f] = st.n_particles;
    ok = bg_pvd_frame(p, sim) == BG_OK;
    /* the frame's header gives the count it holds */
    char path[128], head[4096], want[64];
    snprintf(path, sizeof path, "%s/pour_%06d.vtu", dir, f);
    FILE *fp = fopen(path, "rb");
    size_t got = fp ? fread(head, 1, sizeof head - 1, fp) : 0;
    if (fp) fclose(fp);
    head[got] = 0;
    snprintf(want, sizeof want, "NumberOfPoints=\"%zu\"", st.n_particles);
    ok = ok && strstr(head, want) != NULL;
    remove(path);
  }
  bg_check_true(ok && counts[0] < counts[1] && counts[1] < counts[2],
                "a VTU series as the count grows: %zu, %zu, %zu points (%s)", counts[0], counts[1], counts[2],
                p ? bg_pvd_last_error(p) : "no series");
  bg_pvd_close(p);
  char idx[128];
  snprintf(idx, sizeof idx, "%s/pour.pvd", dir);
  remove(idx);
  bg_sim_destroy(sim);
}

/* ---------------------------------------------------------------------- 2D */

/* A 2D (plane-strain) simulation pours from a segment: every particle on the
 * plane, inside the segment's swept strip, with the mass per metre the rate
 * says; a source off the plane or leaving it is refused. */
static void check_2d(void) {
  bg_sim_desc d = desc();
  d.dim = 2;
  d.dims[1] = 1;
  bg_sim *sim = make(&d);
  bg_source s = jet();
  s.center[1] = d.origin[1];
  s.mass_rate = 40.0; /* per metre, below the dense strip's rho0 2 r |v| */
  bg_source off = s;
  off.center[1] = d.origin[1] + 0.01f;
  refused(sim, &off, BG_ERR_OUTSIDE, "center[1]");
  off = s;
  off.velocity[1] = 0.1f;
  refused(sim, &off, BG_ERR_RANGE, "velocity[1]");
  int id = -1;
  bg_status st = bg_sim_add_source(sim, &s, &id);
  bg_check_true(st == BG_OK, "2D: add_source: %s", bg_sim_last_error(sim));
  for (int k = 0; k < 80 && st == BG_OK; ++k) st = bg_sim_step(sim, NULL);
  bg_check_true(st == BG_OK, "2D: 80 steps: %s", bg_sim_last_error(sim));
  bg_stats stt;
  bg_sim_stats(sim, &stt);
  double kg = 0, mp = (double)(d.material.rho0 * (d.dx * d.dx / s.ppc));
  bg_sim_source_mass(sim, id, &kg);
  double owed = s.mass_rate * stt.time;
  bg_check_true(kg <= owed + 1e-9 && owed - kg < mp, "2D: emitted %g kg/m against rate x time %g (particle %g)", kg,
           owed, mp);
  size_t n = stt.n_particles;
  bg_check_true(n > 10, "2D: %zu particles emitted (want > 10)", n);
  bg_real *x = malloc(3 * (n ? n : 1) * sizeof *x), *m = malloc((n ? n : 1) * sizeof *m);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  double sum = 0;
  size_t off_plane = 0, outside = 0;
  for (size_t p = 0; p < n; ++p) {
    sum += m[p];
    if (x[3 * p + 1] != d.origin[1]) off_plane++;
    if (fabs(x[3 * p] - s.center[0]) > s.radius * (1 + 1e-5)) outside++;
  }
  bg_check_true(off_plane == 0, "2D: %zu of %zu particles off the plane", off_plane, n);
  bg_check_true(outside == 0, "2D: %zu of %zu particles wider than the segment", outside, n);
  bg_check_true(fabs(sum - kg) <= 1e-5 * kg, "2D: particle masses sum to %g, the source says %g", sum, kg);
  free(x);
  free(m);
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  backend = argc > 1 ? argv[1] : "auto";
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  snprintf(dir, sizeof dir, "/tmp/bg_source_XXXXXX");
  if (!mkdtemp(dir)) {
    printf("FAIL: mkdtemp\n");
    return 1;
  }
  check_errors();
  check_accounting();
  check_placement();
  check_checkpoint();
  check_vtu();
  check_2d();
  rmdir(dir);
  return bg_check_summary();
}
