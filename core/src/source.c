/* source.c: emitters (bagnold.h, "sources"): their checks, the mass each
 * owes per step and where its particles go. The particles enter through
 * bg_sim_add_particles_material, the path a caller's particles take, so
 * every backend gets them with nothing of its own to add. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

#define CHECK(cond, status, ...)                           \
  do {                                                     \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)
#define CHECK_FINITE(x, name) \
  CHECK(isfinite(x), BG_ERR_NONFINITE, "source.%s is not finite (got %g)", name, (double)(x))

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------- generator */

/* splitmix64's output function (Steele, Lea & Flood 2014): a counter-based
 * generator, so that a source's state is one counter a checkpoint keeps and
 * its placement depends on nothing but its seed and how much it emitted. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Draw number k of a seed's stream, uniform in [0, 1) with 53 bits. */
static double draw(uint64_t seed, uint64_t k) {
  uint64_t z = mix64(seed + 0x9e3779b97f4a7c15ull) + (k + 1) * 0x9e3779b97f4a7c15ull;
  return (double)(mix64(z) >> 11) * 0x1.0p-53;
}

/* -------------------------------------------------------------- the checks */

bg_source bg_source_default(void) {
  bg_source s;
  memset(&s, 0, sizeof s);
  s.shape = BG_SOURCE_DISC;
  s.t_start = 0;
  s.t_stop = INFINITY;
  s.material = 0;
  s.ppc = 8;
  s.seed = 1;
  return s;
}

static double speed(const bg_real v[3]) {
  return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

/* The particle mass of a source, in the float arithmetic of
 * bg_sim_add_particles_material and the backends' add (rho0 * vol). */
static bg_real particle_mass(const bg_sim *sim, const bg_source *s) {
  bg_real dx = sim->cfg.dx;
  /* in 2D a cell is dx^2 times a metre of depth, as bg_sim_add_particles counts it */
  bg_real vol = (sim->cfg.dim == 2 ? dx * dx : dx * dx * dx) / s->ppc;
  return sim->cfg.mats[s->material].el.rho0 * vol;
}

bg_status bg_check_source(bg_sim *sim, const bg_source *s) {
  CHECK(s->shape == BG_SOURCE_DISC || s->shape == BG_SOURCE_BOX, BG_ERR_RANGE,
        "source.shape must be BG_SOURCE_DISC (0) or BG_SOURCE_BOX (1) (got %d)", (int)s->shape);
  static const char *const cn[3] = {"center[0]", "center[1]", "center[2]"};
  static const char *const vn[3] = {"velocity[0]", "velocity[1]", "velocity[2]"};
  static const char *const hn[3] = {"half[0]", "half[1]", "half[2]"};
  for (int a = 0; a < 3; ++a) {
    CHECK_FINITE(s->center[a], cn[a]);
    CHECK_FINITE(s->velocity[a], vn[a]);
  }
  CHECK_FINITE(s->mass_rate, "mass_rate");
  CHECK_FINITE(s->t_start, "t_start");
  CHECK(!isnan(s->t_stop) && s->t_stop != -INFINITY, BG_ERR_NONFINITE,
        "source.t_stop must be a number or INFINITY (got %g)", s->t_stop);
  CHECK_FINITE(s->ppc, "ppc");
  CHECK(s->mass_rate > 0, BG_ERR_RANGE, "source.mass_rate must be > 0 kg/s (got %g)", s->mass_rate);
  CHECK(s->t_stop > s->t_start, BG_ERR_RANGE, "source.t_stop must be > t_start = %g s (got %g)", s->t_start,
        s->t_stop);
  CHECK(s->ppc > 0, BG_ERR_RANGE, "source.ppc (particles per cell) must be > 0 (got %g)", (double)s->ppc);
  CHECK(s->material >= 0 && s->material < sim->cfg.n_mats, BG_ERR_RANGE,
        "source.material = %d is not an entry of the simulation's material table [0, %d)", s->material,
        sim->cfg.n_mats);
  double v = speed(s->velocity), ext[3];
  const bg_config *c = &sim->cfg;
  if (s->shape == BG_SOURCE_DISC) {
    CHECK_FINITE(s->radius, "radius");
    CHECK(s->radius > 0, BG_ERR_RANGE, "source.radius must be > 0 m for a DISC (got %g)", (double)s->radius);
    CHECK(v > 0, BG_ERR_RANGE, "source.velocity must be nonzero for a DISC (its normal and its stream)");
    /* in 2D the inlet is the segment of half-width radius on the plane, per metre of depth */
    double rho0 = sim->materials[s->material].rho0;
    double cap = rho0 * (c->dim == 2 ? 2 * s->radius : PI * s->radius * s->radius) * v;
    CHECK(s->mass_rate <= cap, BG_ERR_RANGE,
          "source.mass_rate must be <= rho0 %s |velocity| = %g kg/s%s, the rate of a stream as dense as "
          "its material (got %g)",
          c->dim == 2 ? "2 radius" : "pi radius^2", cap, c->dim == 2 ? " per metre" : "", s->mass_rate);
    /* the disc's reach along each axis, and a cell for the swept length
     * (|v| dt <= cfl dx <= dx, as the step's bound holds the source's speed) */
    for (int a = 0; a < 3; ++a) {
      double na = s->velocity[a] / v;
      ext[a] = s->radius * sqrt(fmax(0.0, 1.0 - na * na)) + c->dx;
    }
  } else {
    for (int a = 0; a < 3; ++a) {
      CHECK_FINITE(s->half[a], hn[a]);
      CHECK(s->half[a] > 0, BG_ERR_RANGE, "source.half[%d] must be > 0 m for a BOX (got %g)", a, (double)s->half[a]);
      ext[a] = s->half[a];
    }
  }
  if (c->dim == 2) {
    CHECK(s->velocity[1] == 0, BG_ERR_RANGE,
          "source.velocity[1] = %g m/s must be 0 in a 2D simulation (nothing leaves the plane)",
          (double)s->velocity[1]);
    CHECK(s->center[1] == c->origin[1], BG_ERR_OUTSIDE,
          "source.center[1] = %g m is off the plane of a 2D simulation (it must be origin[1] = %g m)",
          (double)s->center[1], (double)c->origin[1]);
  }
  for (int a = 0; a < 3; ++a) {
    if (c->dim == 2 && a == 1) continue; /* the plane, checked above */
    double lo = c->origin[a] + 0.5 * c->dx, hi = c->origin[a] + ((double)c->dims[a] - 1.5) * c->dx;
    CHECK(s->center[a] - ext[a] >= lo && s->center[a] + ext[a] < hi, BG_ERR_OUTSIDE,
          "source.center[%d] = %g m: the %s reaches [%g, %g] m, outside the grid's interior [%g, %g) m", a,
          (double)s->center[a], s->shape == BG_SOURCE_DISC ? "disc with its swept cell" : "box",
          s->center[a] - ext[a], s->center[a] + ext[a], lo, hi);
  }
  return BG_OK;
}

/* ------------------------------------------------------------------ the API */

bg_status bg_sim_add_source(bg_sim *sim, const bg_source *src, int *id) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(src != NULL, BG_ERR_NULL, "src is NULL");
  bg_status s = bg_check_source(sim, src);
  if (s != BG_OK) return s;
  CHECK(sim->n_sources < 1u << 20, BG_ERR_RANGE, "a simulation holds at most %u sources", 1u << 20);
  bg_src *t = realloc(sim->sources, (sim->n_sources + 1) * sizeof *t);
  CHECK(t != NULL, BG_ERR_NOMEM, "out of memory for source %zu", sim->n_sources);
  sim->sources = t;
  memset(&t[sim->n_sources], 0, sizeof *t);
  t[sim->n_sources].d = *src;
  if (id) *id = (int)sim->n_sources;
  sim->n_sources++;
  return BG_OK;
}

static bg_status check_id(bg_sim *sim, int id) {
  CHECK(id >= 0 && (size_t)id < sim->n_sources, BG_ERR_RANGE, "id = %d is not a source of this simulation [0, %zu)",
        id, sim->n_sources);
  return BG_OK;
}

bg_status bg_sim_source_mass(bg_sim *sim, int id, double *kg) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(kg != NULL, BG_ERR_NULL, "kg is NULL");
  bg_status s = check_id(sim, id);
  if (s == BG_OK) *kg = sim->sources[id].mass_emitted;
  return s;
}

bg_status bg_sim_source_count(bg_sim *sim, int id, uint64_t *count) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(count != NULL, BG_ERR_NULL, "count is NULL");
  bg_status s = check_id(sim, id);
  if (s == BG_OK) *count = sim->sources[id].n_emitted;
  return s;
}

bg_status bg_sim_source_describe(bg_sim *sim, int id, bg_source *out) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  bg_status s = check_id(sim, id);
  if (s == BG_OK) *out = sim->sources[id].d;
  return s;
}

double bg_sources_speed(const bg_sim *sim, double t) {
  double vmax = 0;
  for (size_t i = 0; i < sim->n_sources; ++i) {
    const bg_source *d = &sim->sources[i].d;
    double v = speed(d->velocity);
    if (d->t_stop > t && v > vmax) vmax = v;
  }
  return vmax;
}

/* ---------------------------------------------------------------- emission */

/* n particles of source d at x (3 each), drawing from counter k on: a
 * DISC's over its inlet (in 2D a segment across the stream) and spread
 * downstream over the length len; a BOX's uniform in the box. */
static void place(const bg_source *d, int plane, double len, uint64_t k, size_t n, bg_real *x) {
  double e0[3] = {0, 0, 0}, e1[3] = {0, 0, 0}, e2[3];
  if (d->shape == BG_SOURCE_DISC) {
    double v = speed(d->velocity);
    for (int a = 0; a < 3; ++a) e0[a] = d->velocity[a] / v;
    /* e1: e0 crossed with the axis it leans on least, normalised */
    int m = 0;
    for (int a = 1; a < 3; ++a)
      if (fabs(e0[a]) < fabs(e0[m])) m = a;
    double ax[3] = {0, 0, 0};
    ax[m] = 1;
    if (plane) { /* 2D: e1 is the in-plane normal to the stream, e0 x y */
      ax[0] = ax[2] = 0;
      ax[1] = 1;
    }
    e1[0] = e0[1] * ax[2] - e0[2] * ax[1];
    e1[1] = e0[2] * ax[0] - e0[0] * ax[2];
    e1[2] = e0[0] * ax[1] - e0[1] * ax[0];
    double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int a = 0; a < 3; ++a) e1[a] /= l;
  }
  e2[0] = e0[1] * e1[2] - e0[2] * e1[1];
  e2[1] = e0[2] * e1[0] - e0[0] * e1[2];
  e2[2] = e0[0] * e1[1] - e0[1] * e1[0];
  for (size_t p = 0; p < n; ++p, k += 3) {
    double u0 = draw(d->seed, k), u1 = draw(d->seed, k + 1), u2 = draw(d->seed, k + 2);
    for (int a = 0; a < 3; ++a) {
      double xa;
      if (d->shape == BG_SOURCE_DISC) {
        double s = len * u2;
        if (plane) { /* a segment: uniform across it */
          xa = d->center[a] + d->radius * (2 * u0 - 1) * e1[a] + s * e0[a];
        } else { /* r = R sqrt(u) is uniform in the disc's area */
          double r = d->radius * sqrt(u0), th = 2 * PI * u1;
          xa = d->center[a] + r * cos(th) * e1[a] + r * sin(th) * e2[a] + s * e0[a];
        }
      } else if (plane && a == 1) {
        xa = d->center[1];
      } else {
        double u = a == 0 ? u0 : a == 1 ? u1 : u2;
        xa = d->center[a] + d->half[a] * (2 * u - 1);
      }
      x[3 * p + a] = (bg_real)xa;
    }
  }
}

/* Source i's particles for the step [t, t + dt): its state changes only
 * when the particles are in. */
static bg_status emit_one(bg_sim *sim, size_t i, double dt) {
  bg_src *s = &sim->sources[i];
  const bg_source *d = &s->d;
  double a = fmax(sim->time, d->t_start), b = fmin(sim->time + dt, d->t_stop);
  if (!(b > a)) return BG_OK;
  double owed = s->owed + d->mass_rate * (b - a), mp = (double)particle_mass(sim, d);
  double nd = floor(owed / mp);
  if (nd < 1) {
    s->owed = owed;
    return BG_OK;
  }
  CHECK(nd <= (double)(SIZE_MAX / (6 * sizeof(bg_real))), BG_ERR_OVERFLOW,
        "source %zu: %g particles in one step overflow size_t", i, nd);
  size_t n = (size_t)nd;
  double len = d->shape == BG_SOURCE_DISC ? speed(d->velocity) * (b - a) : 0;
  CHECK(len <= sim->cfg.dx, BG_ERR_RANGE,
        "source %zu: its stream moves |velocity| dt = %g m in this step, more than the cell dx = %g m its "
        "placement is checked with (a fixed_dt above the bound?)",
        i, len, (double)sim->cfg.dx);
  bg_real *x = malloc(6 * n * sizeof *x);
  CHECK(x != NULL, BG_ERR_NOMEM, "source %zu: out of memory for %zu particles", i, n);
  bg_real *v = x + 3 * n;
  place(d, sim->cfg.dim == 2, len, s->counter, n, x);
  for (size_t p = 0; p < n; ++p)
    for (int k = 0; k < 3; ++k) v[3 * p + k] = d->velocity[k];
  bg_status st = bg_sim_add_particles_material(sim, n, x, v, d->ppc, d->material);
  free(x);
  if (st != BG_OK) return st;
  s->owed = owed - nd * mp;
  s->n_emitted += (uint64_t)n;
  s->mass_emitted += nd * mp;
  s->counter += 3 * (uint64_t)n;
  return BG_OK;
}

bg_status bg_sources_emit(bg_sim *sim, double dt) {
  for (size_t i = 0; i < sim->n_sources; ++i) {
    bg_status s = emit_one(sim, i, dt);
    if (s != BG_OK) return s;
  }
  return BG_OK;
}
