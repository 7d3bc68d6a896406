/* test_parity.c: a backend against the plain serial cpu/ref (the oracle,
 * ORACLE) on seeded scenes, side by side in one process: a free-falling block, a
 * column collapsing on a rough floor (and its cross-section on the 2D
 * plane-strain solver), and a small silo draining through an
 * orifice into a sink; the column in every registered model; and scenes of
 * several materials in one simulation (a table, an index per particle):
 * the column split into Drucker-Prager, mu(I) and nonlocal-fluidity
 * slabs, and, where those models are registered, a jelly block dropped on
 * a sand bed and water released against a sand dam. After N steps the norm-relative differences of
 * positions (relative to the displacement) and velocities must lie within a
 * tolerance derived from float round-off (see tolerance()). The drifted-
 * particle fallback is run with a sort interval longer than the run, and
 * every other value of each of the backend's properties
 * (bg_backend_property) against the oracle as well.
 * argv[1] is the backend (a name of bg_backend_name other than the oracle;
 * exit 77 when it is unavailable). argv[2], optional: one scene only (fall,
 * column, column-2d, column-MODEL for each registered model, mixed-column,
 * jelly-on-sand, water-dam, body, plate, silo, or all). argv[3], optional:
 * properties every run of the backend takes ("g2p2g=fused"), with each
 * scene's sort intervals and no property variants. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_check.h"

/* the oracle: plain serial code on the core/physics point functions */
#define ORACLE "cpu/ref"
static const char *g_backend;
static const char *g_base = ""; /* properties every variant takes (argv[3]) */

/* ------------------------------------------------------------------ scenes */

typedef struct scene {
  const char *name;
  bg_sim_desc d;
  bg_collider col[2];
  bg_sink sink;
  bg_real *phi; /* node collider of the silo floor */
  size_t n;
  bg_real *x, *v;
  int steps;
  /* several materials: the table and each particle's entry (mat NULL: one material) */
  bg_material mats[4];
  int n_mats;
  unsigned char *mat;
  bg_body body; /* with d.n_bodies 1: the scene's rigid body (run() points d.bodies here) */
} scene;

static uint64_t rng_s;
static double urand(void) {
  rng_s ^= rng_s << 13;
  rng_s ^= rng_s >> 7;
  rng_s ^= rng_s << 17;
  return (double)(rng_s >> 11) * (1.0 / 9007199254740992.0);
}

/* Particles at 8 per cell (2 per axis, jittered by +-0.25 of their spacing)
 * in [lo, lo + L), kept where keep() says. */
static void fill(scene *s, const double lo[3], const double L[3], double dx, const double v0[3],
                 int (*keep)(const double *p, const void *arg), const void *arg) {
  int nc[3];
  size_t cap = 1;
  for (int a = 0; a < 3; ++a) {
    nc[a] = (int)floor(L[a] / dx * 2 + 0.5);
    cap *= (size_t)nc[a];
  }
  s->x = malloc(3 * cap * sizeof *s->x);
  s->v = malloc(3 * cap * sizeof *s->v);
  if (!s->x || !s->v) abort();
  size_t n = 0;
  for (int i = 0; i < nc[0]; ++i)
    for (int j = 0; j < nc[1]; ++j)
      for (int k = 0; k < nc[2]; ++k) {
        double p[3] = {lo[0] + (i + 0.5 + 0.5 * (urand() - 0.5)) * dx / 2,
                       lo[1] + (j + 0.5 + 0.5 * (urand() - 0.5)) * dx / 2,
                       lo[2] + (k + 0.5 + 0.5 * (urand() - 0.5)) * dx / 2};
        if (keep && !keep(p, arg)) continue;
        for (int a = 0; a < 3; ++a) {
          s->x[3 * n + a] = (bg_real)p[a];
          s->v[3 * n + a] = (bg_real)v0[a];
        }
        n++;
      }
  s->n = n;
}

static bg_sim_desc base(size_t nx, size_t ny, size_t nz) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = nx;
  d.dims[1] = ny;
  d.dims[2] = nz;
  d.dx = 0.01f;
  d.threads = 0;
  return d;
}

/* A block thrown down at 3 m/s: in 100 steps (~5 cm) every particle
 * crosses at least one 4-node block boundary, so with no re-sort all of
 * them take the drifted path by the end. */
static void scene_fall(scene *s) {
  memset(s, 0, sizeof *s);
  s->name = "free fall";
  s->d = base(32, 32, 48);
  rng_s = 0x1234567ull;
  double lo[3] = {0.08, 0.09, 0.30}, L[3] = {0.12, 0.10, 0.08}, v0[3] = {0.4, -0.3, -3.0};
  fill(s, lo, L, 0.01, v0, NULL, NULL);
  s->steps = 100;
}

typedef struct disk {
  double cx, cy, r, zmin;
} disk;

static int in_disk(const double *p, const void *arg) {
  const disk *c = arg;
  double ex = p[0] - c->cx, ey = p[1] - c->cy;
  return ex * ex + ey * ey <= c->r * c->r && p[2] >= c->zmin;
}

/* A column R = 6 dx, H = 12 dx on a Coulomb floor (mu 0.5), 150 steps of
 * the slump: plastic flow, tip projections, floor friction. */
static void scene_column(scene *s) {
  memset(s, 0, sizeof *s);
  s->name = "column collapse";
  s->d = base(40, 40, 24);
  s->d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  s->d.walls[BG_FACE_ZLO].mu = 0.5f;
  rng_s = 0xBADC0FFEEull;
  disk c = {0.195, 0.195, 0.06, 0.0};
  double lo[3] = {0.135, 0.135, 0.025}, L[3] = {0.12, 0.12, 0.12}, v0[3] = {0, 0, 0};
  fill(s, lo, L, 0.01, v0, in_disk, &c);
  s->steps = 150;
}

typedef struct slab {
  double zmax;
} slab;

static int below(const double *p, const void *arg) { return p[2] <= ((const slab *)arg)->zmax; }

/* The bed the body scenes drop into: 6 dx deep on a Coulomb floor (mu 0.5). */
static void scene_bed(scene *s, const char *name, uint64_t seed) {
  memset(s, 0, sizeof *s);
  s->name = name;
  s->d = base(28, 28, 24);
  s->d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  s->d.walls[BG_FACE_ZLO].mu = 0.5f;
  rng_s = seed;
  slab c = {0.085};
  double lo[3] = {0.025, 0.025, 0.025}, L[3] = {0.23, 0.23, 0.06}, v0[3] = {0, 0, 0};
  fill(s, lo, L, 0.01, v0, below, &c);
}

/* A sphere of 3 rho0 (R 4 dx, Coulomb mu 0.5) thrown down at 1 m/s and
 * towards -x at 0.5 m/s into a bed
 * 6 dx deep on a Coulomb floor, against the -x face (its surface 0.8 dx
 * past the face's last solid node, so that some nodes are both the body's
 * and the face's), 120 steps: the two-way coupling, its nodes sent apart
 * from the walls' where the backend takes them so (cpu/ref, cuda) and
 * merged where it does not (cpu), the body's contact and its integration
 * from the force tallies. */
static void scene_body(scene *s) {
  scene_bed(s, "sphere into a bed", 0x5EEDB0D1ull);
  s->body = bg_body_default();
  s->body.shape = BG_BODY_SPHERE;
  s->body.radius = 0.04f;
  s->body.density = 3.0f * s->d.material.rho0;
  s->body.x[0] = 0.048f;
  s->body.x[1] = 0.14f;
  s->body.x[2] = 0.135f;
  s->body.v[0] = -0.5f;
  s->body.v[2] = -1.0f;
  s->body.friction = BG_FRICTION_COULOMB;
  s->body.mu = 0.5f;
  s->d.n_bodies = 1;
  s->steps = 120;
}

/* A free thin plate (BG_BODY_PLATE, 10 x 10 dx, 3 rho0 at a nominal dx
 * thick, its normal along x, 5 deg off the vertical) dropped edge first at
 * 1 m/s into the sphere's bed, 150 steps: it slices about 3
 * cells in, through the cut transfers (P2G's skipped pairs, G2P's ghosts)
 * and the band nodes' contact from either side, and the tally of both
 * moves it. */
static void scene_plate(scene *s) {
  scene_bed(s, "free plate onto a bed", 0x97A7Eull);
  s->body = bg_body_default();
  s->body.shape = BG_BODY_PLATE;
  s->body.half[0] = 0.05f;
  s->body.half[1] = 0.05f;
  s->body.half[2] = 0.005f;
  s->body.density = 3.0f * s->d.material.rho0;
  s->body.q[0] = (bg_real)cos(0.8290313946973066); /* 95 deg about y: half of it */
  s->body.q[2] = (bg_real)sin(0.8290313946973066);
  s->body.x[0] = 0.14f;
  s->body.x[1] = 0.14f;
  s->body.x[2] = 0.136f;
  s->body.v[2] = -1.0f;
  s->d.n_bodies = 1;
  s->steps = 150;
}

/* The column's cross-section in 2D (plane strain, dim 2): W = 6 dx,
 * H = 12 dx against the slip face -x on a Coulomb floor (mu 0.5), the
 * same 150 steps: the 9-node stencil, the 4 x 1 x 4 blocks and the
 * out-of-plane stretch through the return map. */
static void scene_column_2d(scene *s) {
  memset(s, 0, sizeof *s);
  s->name = "column collapse, 2D plane strain";
  s->d = base(40, 1, 24);
  s->d.dim = 2;
  s->d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  s->d.walls[BG_FACE_ZLO].mu = 0.5f;
  rng_s = 0x2D2D2Dull;
  double lo[3] = {0.015, 0.0, 0.025}, L[3] = {0.06, 0.005, 0.12}, v0[3] = {0, 0, 0};
  fill(s, lo, L, 0.01, v0, NULL, NULL); /* one row in y, put on the plane */
  for (size_t p = 0; p < s->n; ++p) s->x[3 * p + 1] = 0.0f;
  s->steps = 150;
}

/* A silo: wall radius 8 dx (inverted cylinder, mu 0.3), floor plate at
 * z = 10.5 dx with an orifice of radius 3 dx (a node collider), a sink box
 * just under it. The sand starts moving down at 1 m/s; in 250 steps
 * (~0.05 s) the discharge has started and the sink has parked particles. */
static void scene_silo(scene *s) {
  memset(s, 0, sizeof *s);
  s->name = "silo";
  s->d = base(28, 28, 40);
  const double dx = 0.01, cx = 0.135, cy = 0.135, R = 0.08, ro = 0.03, zf = 0.105;
  bg_collider *w = &s->col[0], *f = &s->col[1];
  w->shape = BG_SHAPE_CYLINDER;
  w->center[0] = (bg_real)cx;
  w->center[1] = (bg_real)cy;
  w->radius = (bg_real)R;
  w->lo[2] = -1;
  w->hi[2] = 1;
  w->invert = 1;
  w->friction = BG_FRICTION_COULOMB;
  w->mu = 0.3f;
  size_t nn = s->d.dims[0] * s->d.dims[1] * s->d.dims[2];
  s->phi = malloc(nn * sizeof *s->phi);
  if (!s->phi) abort();
  for (size_t i = 0; i < s->d.dims[0]; ++i)
    for (size_t j = 0; j < s->d.dims[1]; ++j)
      for (size_t k = 0; k < s->d.dims[2]; ++k) {
        double ex = i * dx - cx, ey = j * dx - cy, r = sqrt(ex * ex + ey * ey);
        /* solid where z < zf and r > ro: the intersection of two solids */
        double a = k * dx - zf, b = ro - r;
        s->phi[(i * s->d.dims[1] + j) * s->d.dims[2] + k] = (bg_real)(a > b ? a : b);
      }
  f->shape = BG_SHAPE_NODES;
  f->phi = s->phi;
  f->friction = BG_FRICTION_COULOMB;
  f->mu = 0.3f;
  s->d.colliders = s->col;
  s->d.n_colliders = 2;
  s->sink.lo[0] = s->sink.lo[1] = 0;
  s->sink.hi[0] = s->sink.hi[1] = 1;
  s->sink.lo[2] = 0;
  s->sink.hi[2] = (bg_real)(zf - 1.5 * dx);
  s->d.sinks = &s->sink;
  s->d.n_sinks = 1;
  rng_s = 0x5110ull;
  disk c = {cx, cy, R - dx, zf + 1.5 * dx};
  double lo[3] = {cx - R, cy - R, zf + 1.5 * dx}, L[3] = {2 * R, 2 * R, 0.12}, v0[3] = {0, 0, -1.0};
  fill(s, lo, L, dx, v0, in_disk, &c);
  s->steps = 250;
}

/* The column of scene_column in three slabs along x, one per entry of a
 * table of Drucker-Prager, mu(I) and nonlocal fluidity: the interfaces
 * carry load between models, and the nonlocal service averages over its
 * own material's mass only. */
static void scene_mixed_column(scene *s) {
  scene_column(s);
  s->name = "column collapse, dp | mu-i | ngf slabs";
  s->mats[0] = bg_material_default(BG_MODEL_DP);
  s->mats[1] = bg_material_default(BG_MODEL_MUI);
  s->mats[2] = bg_material_default(BG_MODEL_NGF);
  s->n_mats = 3;
  s->mat = malloc(s->n ? s->n : 1);
  if (!s->mat) abort();
  for (size_t p = 0; p < s->n; ++p) {
    double x = s->x[3 * p];
    s->mat[p] = x < 0.175 ? 0 : x < 0.215 ? 1 : 2;
  }
}

/* Appends the particles of fill() to those s holds, with entry k. */
static void append(scene *s, const double lo[3], const double L[3], const double v0[3], unsigned char k) {
  scene t = *s;
  fill(&t, lo, L, s->d.dx, v0, NULL, NULL);
  size_t n = s->n + t.n;
  s->x = realloc(s->x, 3 * n * sizeof *s->x);
  s->v = realloc(s->v, 3 * n * sizeof *s->v);
  s->mat = realloc(s->mat, n);
  if (!s->x || !s->v || !s->mat) abort();
  memcpy(s->x + 3 * s->n, t.x, 3 * t.n * sizeof *t.x);
  memcpy(s->v + 3 * s->n, t.v, 3 * t.n * sizeof *t.v);
  memset(s->mat + s->n, k, t.n);
  s->n = n;
  free(t.x);
  free(t.v);
}

/* A model by its label, or -1 where this build has none. */
static int model_named(const char *label) { return bg_material_model_from_name(label); }

/* A jelly block (the elastic model's defaults) thrown down at 1.5 m/s onto
 * a bed of Klar sand on a Coulomb floor: impact, rebound, the bed yielding
 * under it. */
static void scene_jelly_on_sand(scene *s) {
  memset(s, 0, sizeof *s);
  s->name = "jelly block dropped on a sand bed";
  s->d = base(32, 32, 32);
  s->d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  s->d.walls[BG_FACE_ZLO].mu = 0.5f;
  s->mats[0] = bg_material_sand();
  s->mats[1] = bg_material_default((bg_material_model)model_named("elastic"));
  s->n_mats = 2;
  rng_s = 0x7E11Full;
  double blo[3] = {0.025, 0.025, 0.025}, bL[3] = {0.27, 0.27, 0.06}, v0[3] = {0, 0, 0};
  append(s, blo, bL, v0, 0);
  double jlo[3] = {0.11, 0.11, 0.11}, jL[3] = {0.08, 0.08, 0.06}, vj[3] = {0, 0, -1.5};
  append(s, jlo, jL, vj, 1);
  s->steps = 150;
}

/* Water (the model's defaults) released beside a dam of Klar sand: the
 * water pushes on the dam, the dam's toe yields. */
static void scene_water_dam(scene *s) {
  memset(s, 0, sizeof *s);
  s->name = "water released against a sand dam";
  s->d = base(40, 16, 28);
  s->d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  s->d.walls[BG_FACE_ZLO].mu = 0.5f;
  s->mats[0] = bg_material_sand();
  s->mats[1] = bg_material_default((bg_material_model)model_named("water"));
  s->n_mats = 2;
  rng_s = 0xDA11ull;
  double dlo[3] = {0.16, 0.025, 0.025}, dL[3] = {0.06, 0.11, 0.08}, v0[3] = {0, 0, 0};
  append(s, dlo, dL, v0, 0);
  double wlo[3] = {0.025, 0.025, 0.025}, wL[3] = {0.13, 0.11, 0.14};
  append(s, wlo, wL, v0, 1);
  s->steps = 150;
}

static void scene_free(scene *s) {
  free(s->x);
  free(s->v);
  free(s->phi);
  free(s->mat);
}

/* -------------------------------------------------------------------- runs */

typedef struct result {
  bg_real *x, *v;
  bg_real *active; /* BG_FIELD_ACTIVE: 1 active, 0 parked */
  bg_stats st;
  bg_body_state body; /* the scene's body, when it has one */
  int ok;
} result;

/* Runs a scene on a backend; order (NULL: identity) is the order particles
 * are added in, and the read-back is put back into scene order. */
static result run(const scene *sc, const char *backend, int sort_interval, const char *properties,
                  const size_t *order) {
  result r;
  memset(&r, 0, sizeof r);
  bg_sim_desc d = sc->d;
  if (sc->mat) {
    d.materials = sc->mats;
    d.n_materials = (size_t)sc->n_mats;
  }
  d.backend = backend;
  d.properties = properties;
  d.sort_interval = sort_interval;
  if (d.n_bodies) d.bodies = &sc->body;
  bg_sim *sim = NULL;
  char err[512];
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  if (s != BG_OK) {
    printf("  %s on %s: create failed: %s: %s\n", sc->name, backend, bg_status_name(s), err);
    return r;
  }
  size_t n = sc->n;
  bg_real *x = malloc(3 * n * sizeof *x), *v = malloc(3 * n * sizeof *v), *act = malloc(n * sizeof *act);
  r.x = malloc(3 * n * sizeof *r.x);
  r.v = malloc(3 * n * sizeof *r.v);
  r.active = malloc(n * sizeof *r.active);
  if (!x || !v || !act || !r.x || !r.v || !r.active) abort();
  for (size_t p = 0; p < n; ++p) {
    size_t q = order ? order[p] : p;
    memcpy(x + 3 * p, sc->x + 3 * q, 3 * sizeof *x);
    memcpy(v + 3 * p, sc->v + 3 * q, 3 * sizeof *v);
  }
  if (!sc->mat) {
    s = bg_sim_add_particles(sim, n, x, v, 8);
  } else {
    /* the particles in their order, a call per run of one material */
    for (size_t p0 = 0, p1; s == BG_OK && p0 < n; p0 = p1) {
      int k = sc->mat[order ? order[p0] : p0];
      for (p1 = p0 + 1; p1 < n && sc->mat[order ? order[p1] : p1] == k; ++p1) {
      }
      s = bg_sim_add_particles_material(sim, p1 - p0, x + 3 * p0, v + 3 * p0, 8, k);
    }
  }
  if (s == BG_OK) s = bg_sim_run(sim, (uint64_t)sc->steps);
  if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_V, v, 3 * n);
  if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_ACTIVE, act, n);
  if (s == BG_OK) s = bg_sim_stats(sim, &r.st);
  if (s == BG_OK && d.n_bodies) s = bg_sim_body_state(sim, 0, &r.body);
  if (s != BG_OK) {
    printf("  %s on %s: %s: %s\n", sc->name, backend, bg_status_name(s), bg_sim_last_error(sim));
  } else {
    for (size_t p = 0; p < n; ++p) {
      size_t q = order ? order[p] : p;
      memcpy(r.x + 3 * q, x + 3 * p, 3 * sizeof *x);
      memcpy(r.v + 3 * q, v + 3 * p, 3 * sizeof *v);
      r.active[q] = act[p];
    }
    r.ok = 1;
  }
  free(x);
  free(v);
  free(act);
  bg_sim_destroy(sim);
  return r;
}

static void result_free(result *r) {
  free(r->x);
  free(r->v);
  free(r->active);
}

/* Norm-relative differences: positions against the displacement from the
 * start (positions against the origin would hide an error 10^4 times
 * smaller than the motion), velocities against the velocity.
 *
 * Parking is a threshold: a particle that ends a step within round-off of a
 * sink face parks in one run and, a step later, in the other (the silo's
 * particle 6355 parks 7 float ulps, 5e-8 m, inside its sink face on the
 * CPU). Its frozen state then differs by one step of motion, |v| dt (0.0165
 * dx there), which alone weighs 1.9e-4 in the silo's velocity norm, 16
 * times the rest of the scene's round-off. Such particles are counted as
 * parking flips and left out of the norms: parked in one run only, or in
 * both but further apart than half a step's motion (a same-step pair sits
 * ~1e-7 m apart, a step apart |v| dt ~ 1e-4 m, so the split needs no
 * tuning). Their number is checked against the shuffled CPU's, like the
 * parked count. */
typedef struct diff {
  double ex, ev;
  double worst;      /* largest single-particle position difference, in dx (diagnostic) */
  size_t worst_at;
  size_t flips;      /* parking flips, left out of ex and ev */
  size_t flip_at;    /* the first of them (diagnostic) */
  double eb, ebv;    /* the body's position against its displacement, its velocity against itself */
} diff;

static diff compare(const scene *sc, const result *a, const result *b) {
  double dx2 = 0, disp2 = 0, dv2 = 0, v2 = 0;
  diff d;
  memset(&d, 0, sizeof d);
  /* the step of the reference run: dt barely changes over these runs */
  const double dt = b->st.step ? b->st.time / (double)b->st.step : 0;
  for (size_t p = 0; p < sc->n; ++p) {
    double ep = 0, vb2 = 0;
    for (size_t i = 3 * p; i < 3 * p + 3; ++i) {
      double e = (double)a->x[i] - b->x[i];
      ep += e * e;
      vb2 += (double)b->v[i] * b->v[i];
    }
    int pa = a->active[p] == 0, pb = b->active[p] == 0;
    if (pa != pb || (pa && pb && sqrt(ep) > 0.5 * sqrt(vb2) * dt)) {
      if (d.flips++ == 0) d.flip_at = p;
      continue;
    }
    for (size_t i = 3 * p; i < 3 * p + 3; ++i) {
      double e = (double)a->x[i] - b->x[i], u = (double)b->x[i] - sc->x[i];
      double f = (double)a->v[i] - b->v[i];
      dx2 += e * e;
      disp2 += u * u;
      dv2 += f * f;
      v2 += (double)b->v[i] * b->v[i];
    }
    ep = sqrt(ep) / sc->d.dx;
    if (!(ep <= d.worst)) {
      d.worst = ep;
      d.worst_at = p;
    }
  }
  d.ex = disp2 > 0 ? sqrt(dx2 / disp2) : sqrt(dx2);
  d.ev = v2 > 0 ? sqrt(dv2 / v2) : sqrt(dv2);
  if (sc->d.n_bodies) {
    double e2 = 0, u2 = 0, f2 = 0, w2 = 0;
    for (int i = 0; i < 3; ++i) {
      double e = a->body.x[i] - b->body.x[i], u = b->body.x[i] - sc->body.x[i], f = a->body.v[i] - b->body.v[i];
      e2 += e * e;
      u2 += u * u;
      f2 += f * f;
      w2 += b->body.v[i] * b->body.v[i];
    }
    d.eb = u2 > 0 ? sqrt(e2 / u2) : sqrt(e2);
    d.ebv = w2 > 0 ? sqrt(f2 / w2) : sqrt(f2);
  }
  return d;
}

/* The tolerance, from float round-off.
 *
 * The CPU's P2G is deterministic; the GPU's sums each node's ~27 ppc = 216
 * contributions with atomics in an order the hardware picks, and contracts
 * multiply-adds into FMAs that gcc (ISO C mode) leaves separate; its expf,
 * logf and the CPU's vectorised constitutive batch differ from each other by
 * an ulp or two. Each is a relative perturbation of order eps = 2^-24 per
 * operation. A reordered sum of m terms errs by ~sqrt(m) eps (random walk),
 * and if nothing amplified it the errors of N steps would add up to
 * floor = sqrt(216) eps N (8.8e-5 for N = 100): the floor.
 *
 * But granular flow does amplify (plastic yielding and tip projection switch
 * branches, contact with walls decides on signs), by an amount that depends
 * on the scene and is not known a priori. It is measured instead: the CPU is
 * run a second time with the particles added in a shuffled order, which
 * permutes every node's summation order and nothing else (the oracle sums
 * in insertion order). That CPU-vs-CPU difference d_perm is the scene's own response to a
 * round-off perturbation of the same kind as the GPU's. The GPU brings about
 * four such independent sources (order, FMA, libm, scalar vs batch update),
 * so its difference may be up to 4 d_perm.
 *
 * A permuted sum leaves the arithmetic itself alone, while FMA contraction
 * and libm change the rounding of every operation of every particle. So the
 * CPU runs a third time from initial positions moved by one float ulp in a
 * seeded random direction per coordinate: d_ulp is the scene's response to a
 * rounding perturbation of every particle at once. (Measured on the CPU,
 * silo: d_ulp and d_perm are of the same size, velocities 1.25e-5 and
 * 1.2e-5.) tol = max(4 max(d_perm, d_ulp), floor).
 *
 * The factor 4 is measured, not assumed: the silo was run on CPU builds
 * that change the rounding of every operation of every step, out of this
 * process (a throwaway driver with this file's scene and norms, parking
 * flips left out as in compare()). Against the CPU: built with
 * -ffp-contract=fast -mfma, velocities 3.0e-5 (2.5 d_perm); with the scalar
 * bg_material_update in place of the batch, as the GPU runs it, 3.9e-5 (3.2
 * d_perm). Every perturbation the public API allows lands on d_perm itself
 * (1.1e-5 to 1.25e-5: velocities or cfl or gravity moved by one ulp), so
 * none of them would be a better in-process reference than the two used.
 * Unbiased round-off of any kind saturates near d_perm; a bias does not:
 * before bg_svd3's cosines were made unbiased, its volume drift of 1.9e-7
 * per step (bg_svd.h, bg_svd_cos_of_tan_) put the scalar path, and the GPU
 * with it, at 6.5e-4 in velocity (54 d_perm), the same on the CPU as on the
 * H200. A real defect (a wrong tile offset, a lost contribution, a missed
 * drifted particle) errs by O(1e-2) of the motion or more, and the
 * per-scene mass, time and parking checks stay exact or tight. */
static double tolerance(const scene *sc, double d_perm, double d_ulp) {
  const double eps = 5.96e-8, floor = sqrt(216.0) * eps * sc->steps;
  double d = d_perm > d_ulp ? d_perm : d_ulp;
  return 4 * d > floor ? 4 * d : floor;
}

/* The scene with every initial coordinate moved by one float ulp, up or
 * down at random (seeded): the positions differ, nothing else (in 2D y
 * stays on the plane, the one value it may take). */
static void nudge_ulp(const scene *sc, bg_real *x, uint64_t seed) {
  rng_s = seed;
  for (size_t i = 0; i < 3 * sc->n; ++i) {
    const bg_real up = nextafterf(sc->x[i], urand() < 0.5 ? -INFINITY : INFINITY);
    x[i] = sc->d.dim == 2 && i % 3 == 1 ? sc->x[i] : up;
  }
}

/* Fraction of particles whose block (lowest stencil node >> 2, as the
 * backend sorts) differs between the start and the end: with no re-sort in
 * between, these all took the drifted (global-atomic) path at the end. */
static double drifted_fraction(const scene *sc, const result *r) {
  size_t moved = 0;
  for (size_t p = 0; p < sc->n; ++p) {
    int same = 1;
    for (int a = 0; a < 3; ++a) {
      double o = sc->d.origin[a], inv = 1.0 / sc->d.dx;
      int b0 = (int)floor((sc->x[3 * p + a] - o) * inv - 0.5) >> 2;
      int b1 = (int)floor((r->x[3 * p + a] - o) * inv - 0.5) >> 2;
      same &= b0 == b1;
    }
    moved += !same;
  }
  return sc->n ? (double)moved / sc->n : 0;
}

static size_t *shuffled(size_t n, uint64_t seed) {
  size_t *o = malloc(n * sizeof *o);
  if (!o) abort();
  for (size_t i = 0; i < n; ++i) o[i] = i;
  rng_s = seed;
  for (size_t i = n; i > 1; --i) {
    size_t j = (size_t)(urand() * i);
    if (j >= i) j = i - 1;
    size_t t = o[i - 1];
    o[i - 1] = o[j];
    o[j] = t;
  }
  return o;
}

/* A run of the backend under test: its sort interval and properties. */
typedef struct variant {
  char label[96];
  int sort_interval;
  char properties[64]; /* "" : the defaults */
} variant;

static void check_variant(const scene *sc, const result *cpu, double tol, size_t flip_allow, const variant *va,
                          int want_drift) {
  result g = run(sc, g_backend, va->sort_interval, va->properties, NULL);
  if (!bg_check_true(g.ok, "%s, %s: %d steps on %s", sc->name, va->label, sc->steps, g_backend)) {
    result_free(&g);
    return;
  }
  diff e = compare(sc, &g, cpu);
  /* a single particle far off while the norms agree points at a threshold
   * crossed one step apart (a return-map branch, a sink face; parking ones
   * are counted as flips and checked below), not at a defect */
  printf("  %s, %s: worst particle %zu off by %.3g dx; %zu parking flips (first: %zu)\n", sc->name, va->label,
         e.worst_at, e.worst, e.flips, e.flips ? e.flip_at : 0);
  bg_check_le((double)e.flips, (double)flip_allow,
              "%s, %s: parking flips vs " ORACLE " within 4 x the oracle's own + 4", sc->name, va->label);
  bg_check_le(e.ex, tol, "%s, %s: positions vs " ORACLE ", |dx| / |displacement|", sc->name, va->label);
  bg_check_le(e.ev, tol, "%s, %s: velocities vs " ORACLE ", |dv| / |v|", sc->name, va->label);
  /* dt = cfl dx / (c_p + |v|max): a relative speed error e moves dt by less than e */
  bg_check_rel(g.st.time, cpu->st.time, tol, "%s, %s: simulated time after %d adaptive steps", sc->name,
               va->label, sc->steps);
  bg_check_rel(g.st.total_mass, cpu->st.total_mass, 1e-12, "%s, %s: total mass", sc->name, va->label);
  if (sc->d.n_bodies) {
    printf("  %s, %s: body at z %.5f m, off by %.3g of its displacement, velocity by %.3g\n", sc->name, va->label,
           g.body.x[2], e.eb, e.ebv);
    bg_check_le(e.eb, tol, "%s, %s: the body's position vs " ORACLE ", |dx| / |displacement|", sc->name, va->label);
    bg_check_le(e.ebv, tol, "%s, %s: the body's velocity vs " ORACLE ", |dv| / |v|", sc->name, va->label);
  }
  if (want_drift) {
    double f = drifted_fraction(sc, &g);
    printf("  %s, %s: %.1f%% of particles left their sorted block\n", sc->name, va->label, 100 * f);
    bg_check_true(f >= 0.5, "%s, %s: the fallback was exercised (>= 50%% drifted, got %.1f%%)", sc->name,
                  va->label, 100 * f);
  }
  result_free(&g);
}

static void parity(scene *sc, const variant *vars, size_t n_vars, int drift_variant) {
  printf("\n== %s: %zu particles, %d steps\n", sc->name, sc->n, sc->steps);
  result cpu = run(sc, ORACLE, 32, NULL, NULL);
  size_t *order = shuffled(sc->n, 0xC0FFEEull);
  result perm = run(sc, ORACLE, 32, NULL, order);
  free(order);
  if (!bg_check_true(cpu.ok && perm.ok, "%s: cpu reference runs", sc->name)) goto done;
  diff dp = compare(sc, &perm, &cpu);
  /* the body's own round-off response counts as the particles' does */
  double d_perm = fmax(fmax(dp.ex, dp.ev), fmax(dp.eb, dp.ebv));
  double d_ulp = 0;
  size_t flips_ref = dp.flips;
  {
    scene nudged = *sc;
    nudged.x = malloc(3 * sc->n * sizeof *nudged.x);
    if (!nudged.x) abort();
    nudge_ulp(sc, nudged.x, 0xBADC0DEull);
    result u = run(&nudged, ORACLE, 32, NULL, NULL);
    free(nudged.x);
    if (bg_check_true(u.ok, "%s: cpu run from ulp-nudged positions", sc->name)) {
      diff du = compare(sc, &u, &cpu);
      d_ulp = fmax(fmax(du.ex, du.ev), fmax(du.eb, du.ebv));
      printf("  %s: " ORACLE " vs itself (positions nudged 1 ulp): positions %.3g, velocities %.3g (worst particle %.3g dx, "
             "%zu parking flips)\n", sc->name, du.ex, du.ev, du.worst, du.flips);
      flips_ref = du.flips > flips_ref ? du.flips : flips_ref;
    }
    result_free(&u);
  }
  double tol = tolerance(sc, d_perm, d_ulp);
  printf("  %s: " ORACLE " vs itself (shuffled order): positions %.3g, velocities %.3g (worst particle %.3g dx, "
         "%zu parking flips) -> tolerance %.3g\n", sc->name, dp.ex, dp.ev, dp.worst, dp.flips, tol);
  printf("  %s: parked on " ORACLE " %zu (sink %zu, out %zu), shuffled %zu\n", sc->name, cpu.st.n_parked,
         cpu.st.n_parked_sink, cpu.st.n_parked_out, perm.st.n_parked);
  if (sc->d.n_sinks) bg_check_true(cpu.st.n_parked_sink > 0, "%s: the scene parks particles in its sink", sc->name);
  for (size_t k = 0; k < n_vars; ++k)
    check_variant(sc, &cpu, tol, 4 * flips_ref + 4, &vars[k], (int)k == drift_variant);
  {
    /* parking counts: a particle within round-off of a sink face may park
     * a step earlier or later; the shuffled CPU run shows how many do */
    variant v0 = vars[0];
    result g = run(sc, g_backend, v0.sort_interval, v0.properties, NULL);
    if (g.ok) {
      double dperm = fabs((double)perm.st.n_parked - (double)cpu.st.n_parked);
      double dgpu = fabs((double)g.st.n_parked - (double)cpu.st.n_parked);
      printf("  %s: parked on %s %zu (sink %zu, out %zu)\n", sc->name, g_backend, g.st.n_parked,
             g.st.n_parked_sink, g.st.n_parked_out);
      bg_check_le(dgpu, 4 * dperm + 4, "%s: parked count vs " ORACLE " within 4 x shuffled-cpu difference + 4",
                  sc->name);
      if (cpu.st.parked_mass > 0)
        bg_check_rel(g.st.parked_mass, cpu.st.parked_mass, (4 * dperm + 4) / (double)cpu.st.n_parked,
                     "%s: parked mass vs " ORACLE, sc->name);
    }
    result_free(&g);
  }
done:
  result_free(&cpu);
  result_free(&perm);
}

/* Whether the backend takes this scene with these properties; a refusal
 * must name the property it refuses (props "name=value"), and is printed. */
static int takes(const scene *sc, const char *props) {
  bg_sim_desc d = sc->d;
  if (sc->mat) {
    d.materials = sc->mats;
    d.n_materials = (size_t)sc->n_mats;
  }
  if (d.n_bodies) d.bodies = &sc->body;
  d.backend = g_backend;
  d.properties = props;
  bg_sim *sim = NULL;
  char err[512] = "";
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_sim_destroy(sim);
  if (s == BG_OK) return 1;
  printf("  %s, %s: refused by %s: %s\n", sc->name, props, g_backend, err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, props) != NULL, "%s, %s: a refusal names what it refuses",
                sc->name, props);
  return 0;
}

/* The variants of a scene: the default, the scene's sort intervals, and,
 * when props, every non-default value of each property of the backend
 * that the backend takes for this scene (a property value it refuses here,
 * by name, is left out; *refused counts them). */
static size_t variants(const scene *sc, variant *out, size_t cap, const int *intervals, const char *const *labels,
                       int props, int *refused) {
  *refused = 0;
  size_t n = 0;
  for (; labels[n] && n < cap; ++n) {
    snprintf(out[n].label, sizeof out[n].label, "%s%s%s", labels[n], *g_base ? ", " : "", g_base);
    out[n].sort_interval = intervals[n];
    snprintf(out[n].properties, sizeof out[n].properties, "%s", g_base);
  }
  if (*g_base) props = 0; /* the given properties with each scene's sort intervals only */
  for (int i = 0; props && i < bg_backend_property_count(g_backend); ++i) {
    const char *name, *values, *def;
    if (bg_backend_property(g_backend, i, &name, &values, &def, NULL) != BG_OK) continue;
    for (const char *v = values; *v && n < cap;) {
      size_t len = strcspn(v, "|");
      if (strlen(def) != len || strncmp(v, def, len) != 0) {
        snprintf(out[n].properties, sizeof out[n].properties, "%s=%.*s", name, (int)len, v);
        snprintf(out[n].label, sizeof out[n].label, "%s", out[n].properties);
        out[n].sort_interval = 32;
        if (takes(sc, out[n].properties)) n++;
        else ++*refused;
      }
      v += len + (v[len] == '|');
    }
  }
  return n;
}

int main(int argc, char **argv) {
  g_backend = argc > 1 ? argv[1] : "auto";
  /* argv[3], optional: properties every run of the backend takes (then
   * with each scene's sort intervals, and no property variants) */
  if (argc > 3) {
    if (strlen(argv[3]) >= sizeof ((variant *)0)->properties) {
      printf("FAIL: properties '%s' longer than %zu characters\n", argv[3], sizeof ((variant *)0)->properties - 1);
      return 1;
    }
    g_base = argv[3];
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  char why[256];
  if (strcmp(g_backend, ORACLE) == 0) {
    printf("SKIP: parity compares a backend with the oracle " ORACLE "; against itself says nothing\n");
    return BG_CHECK_SKIP;
  }
  if (!bg_backend_available(g_backend, why, sizeof why)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", g_backend, why);
    return BG_CHECK_SKIP;
  }
  const int never = 1 << 30; /* longer than any run: sorted once, at step 0 */
  const int fall_int[] = {32, never, 1}, col_int[] = {32, never}, silo_int[] = {32, 8};
  const char *const fall_lab[] = {"default (sort every 32)", "no re-sort (drifted fallback)", "sort every step", NULL};
  const char *const col_lab[] = {"default (sort every 32)", "no re-sort (drifted fallback)", NULL};
  const char *const silo_lab[] = {"default (sort every 32)", "sort every 8", NULL};
  variant vars[16];
  size_t nv;
  int refused = 0;
  /* argv[2], optional: only that scene (fall, column, column-MODEL, column-cohesion, body, plate, silo; "all"
   * for every one) */
  const char *only = argc > 2 && strcmp(argv[2], "all") != 0 ? argv[2] : NULL;
  scene sc;
  if (!only || strcmp(only, "fall") == 0) {
    scene_fall(&sc);
    nv = variants(&sc, vars, 16, fall_int, fall_lab, 1, &refused);
    /* the tile resource runs every value of its properties on the free fall
     * (cuda/global refuses layout=compact, whose derived stress is only in
     * the tile's P2G) */
    if (strcmp(g_backend, "cuda") == 0)
      bg_check_true(refused == 0, "%s: %s takes every property value (%d refused)", sc.name, g_backend, refused);
    parity(&sc, vars, nv, 1);
    scene_free(&sc);
  }
  if (!only || strcmp(only, "column") == 0) {
    scene_column(&sc);
    nv = variants(&sc, vars, 16, col_int, col_lab, 1, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  if (!only || strcmp(only, "column-2d") == 0) {
    scene_column_2d(&sc);
    /* every property value too: the 2D kernels are template instances of their own */
    nv = variants(&sc, vars, 16, col_int, col_lab, 1, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  /* the same column in each other registered model (bg_material_default):
   * mu(I), nonlocal fluidity, whose Laplacian service (a second scatter and
   * a gather) the backends implement separately, and any model added since */
  for (int mdl = 0; mdl < bg_material_model_count(); ++mdl) {
    if (mdl == BG_MODEL_DP) continue;
    char nm[64];
    snprintf(nm, sizeof nm, "column-%s", bg_material_model_name((bg_material_model)mdl));
    if (only && strcmp(only, nm) != 0) continue;
    scene_column(&sc);
    sc.d.material = bg_material_default((bg_material_model)mdl);
    char title[96];
    snprintf(title, sizeof title, "column collapse, %s", bg_material_model_name((bg_material_model)mdl));
    sc.name = title;
    nv = variants(&sc, vars, 16, col_int, col_lab, 0, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  /* several materials in one simulation */
  if (!only || strcmp(only, "mixed-column") == 0) {
    scene_mixed_column(&sc);
    nv = variants(&sc, vars, 16, col_int, col_lab, 0, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  if ((!only || strcmp(only, "jelly-on-sand") == 0) && model_named("elastic") >= 0) {
    scene_jelly_on_sand(&sc);
    nv = variants(&sc, vars, 16, col_int, col_lab, 0, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  if ((!only || strcmp(only, "water-dam") == 0) && model_named("water") >= 0) {
    scene_water_dam(&sc);
    nv = variants(&sc, vars, 16, col_int, col_lab, 0, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  /* cohesive Drucker-Prager (the tip at c cot phi, beta < 1): the CPU's
   * lanes run the cohesive return map against the oracle's scalar one */
  if (!only || strcmp(only, "column-cohesion") == 0) {
    scene_column(&sc);
    sc.d.material.dp.cohesion = 300.0f; /* c / (rho g H) ~ 0.12: part stands, part flows */
    sc.d.material.dp.beta = 0.5f;
    sc.name = "column collapse, cohesive drucker-prager (c 300 Pa, beta 0.5)";
    nv = variants(&sc, vars, 16, col_int, col_lab, 0, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  if (!only || strcmp(only, "body") == 0) {
    scene_body(&sc);
    nv = variants(&sc, vars, 16, col_int, col_lab, 1, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  /* no property variants: cuda takes plates with its default grid and
   * deterministic=0 only, and refuses the others by name */
  if (!only || strcmp(only, "plate") == 0) {
    scene_plate(&sc);
    nv = variants(&sc, vars, 16, col_int, col_lab, 0, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  if (!only || strcmp(only, "silo") == 0) {
    scene_silo(&sc);
    nv = variants(&sc, vars, 16, silo_int, silo_lab, 1, &refused);
    parity(&sc, vars, nv, -1);
    scene_free(&sc);
  }
  return bg_check_summary();
}
