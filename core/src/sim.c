/* sim.c: the front end of libbagnold: the timestep
 * rule, particle admission, backend dispatch and read-back (the
 * descriptor's checks are in validate.c). Nothing here
 * touches particle physics; that lives in core/physics and the backends. */
/* clock_gettime is POSIX, not C11 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bg_internal.h"

/* ---------------------------------------------------------------- statuses */

#define BG_STATUS_MSG_(name, msg) msg,
#define BG_STATUS_NAME_(name, msg) #name,
static const char *const status_msg[] = {BG_STATUS_LIST(BG_STATUS_MSG_)};
static const char *const status_name[] = {BG_STATUS_LIST(BG_STATUS_NAME_)};

const char *bg_status_str(bg_status s) {
  return (s >= 0 && s < BG_STATUS_COUNT_) ? status_msg[s] : "unknown status";
}

const char *bg_status_name(bg_status s) {
  return (s >= 0 && s < BG_STATUS_COUNT_) ? status_name[s] : "BG_UNKNOWN";
}

bg_status bg_fail(bg_sim *sim, bg_status s, const char *fmt, ...) {
  if (sim) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sim->err, sizeof sim->err, fmt, ap);
    va_end(ap);
  }
  return s;
}

/* Validation runs on a scratch handle whose err buffer collects the message;
 * these macros keep each check on one line. */
#define CHECK(cond, status, ...)                        \
  do {                                                  \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)
#define CHECK_FINITE(x, name) CHECK(isfinite(x), BG_ERR_NONFINITE, "%s is not finite (got %g)", name, (double)(x))

/* ---------------------------------------------------------------- defaults */

bg_material bg_material_default(bg_material_model model) {
  bg_material m;
  memset(&m, 0, sizeof m);
  /* Klar et al. 2016's elasticity and density, which a model's own
   * bg_<name>_default_material may replace (a jelly is not sand) */
  m.model = model;
  m.E = 3.537e5f;
  m.nu = 0.3f;
  m.rho0 = 2200.0f;
  m.stress = BG_STRESS_HENCKY;
  m.volume_correction = 1;
  m.elastic_only = 0;
  switch (model) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N:              \
    m.n = bg_##n##_default_params(); \
    bg_##n##_default_material(&m);   \
    break;
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default: break;
  }
  return m;
}

bg_material bg_material_sand(void) { return bg_material_default(BG_MODEL_DP); }

bg_material bg_material_mui(void) { return bg_material_default(BG_MODEL_MUI); }

#define BG_X_(n, N, lane, label) label,
static const char *const model_names[] = {BG_MATERIAL_LIST(BG_X_)};
#undef BG_X_

const char *bg_material_model_name(bg_material_model m) {
  return ((int)m >= 0 && (int)m < BG_MODEL_COUNT) ? model_names[m] : NULL;
}

int bg_material_model_from_name(const char *name) {
  for (int i = 0; name && i < BG_MODEL_COUNT; ++i)
    if (!strcmp(name, model_names[i])) return i;
  return -1;
}

bg_sim_desc bg_sim_desc_default(void) {
  bg_sim_desc d;
  memset(&d, 0, sizeof d);
  d.dims[0] = d.dims[1] = d.dims[2] = 64;
  d.dx = 0.01f;
  d.gravity[2] = -9.81f;
  d.material = bg_material_sand();
  for (int f = 0; f < BG_FACE_COUNT; ++f) d.walls[f].friction = BG_FRICTION_SLIP;
  d.backend = "auto";
  d.threads = 0;
  d.cfl = 0.3f;
  d.sort_interval = 32;
  return d;
}

bg_real bg_material_pwave_speed(const bg_material *m) {
  if (!m || !(m->rho0 > 0)) return 0;
  return bg_material_wave_speed(m);
}

int bg_field_width(bg_field f) {
  switch (f) {
    case BG_FIELD_X:
    case BG_FIELD_V: return 3;
    case BG_FIELD_F:
    case BG_FIELD_C:
    case BG_FIELD_STRESS: return 9;
    case BG_FIELD_JP:
    case BG_FIELD_DENSITY:
    case BG_FIELD_Q:
    case BG_FIELD_MASS:
    case BG_FIELD_ACTIVE:
    case BG_FIELD_MODE:
    case BG_FIELD_MATERIAL: return 1;
  }
  return 0;
}

/* --------------------------------------------------------------- lifecycle */

static void sim_free(bg_sim *sim) {
  if (!sim) return;
  if (sim->ops && sim->state) sim->ops->destroy(sim->state);
  for (size_t i = 0; i < sim->n_colliders; ++i) {
    free((void *)sim->colliders[i].phi);
    free((void *)sim->colliders[i].normals);
  }
  free(sim->colliders);
  free(sim->wall_force);
  free(sim->wall_impulse);
  free(sim->bnodes);
  free(sim->bphi);
  free(sim->wall_tally);
  bg_bodies_free(sim);
  free(sim->cfg.walls);
  free(sim->cfg.sinks);
  free(sim->cfg.mats);
  free(sim->materials);
  free(sim->sources);
  free(sim);
}

/* The smallest dt a nonlocal entry of the table allows (INFINITY: none). */
static bg_real table_nonlocal_dt(const bg_config *c) {
  bg_real b = bg_material_nonlocal_dt(&c->mats[0], c->dx);
  for (int k = 1; k < c->n_mats; ++k) {
    bg_real bk = bg_material_nonlocal_dt(&c->mats[k], c->dx);
    if (bk < b) b = bk;
  }
  return b;
}

/* Elastic CFL capped by the flow speed: information crosses at most a
 * fraction cfl of a cell per step; a nonlocal model's explicit term may
 * bound the step further (bg_material_nonlocal_dt). */
static bg_real stable_dt(const bg_sim *sim, double vmax, int *nonlocal_sets) {
  double b = sim->cfl * sim->cfg.dx / (sim->cp + vmax);
  double nl = (double)table_nonlocal_dt(&sim->cfg);
  if (nonlocal_sets) *nonlocal_sets = nl < b;
  return (bg_real)(nl < b ? nl : b);
}

static bg_status copy_colliders(bg_sim *sim, const bg_sim_desc *d) {
  sim->n_colliders = d->n_colliders;
  if (!d->n_colliders) return BG_OK;
  sim->colliders = calloc(d->n_colliders, sizeof *sim->colliders);
  if (!sim->colliders) return bg_fail(sim, BG_ERR_NOMEM, "out of memory copying colliders");
  size_t n = (size_t)sim->cfg.n_nodes;
  for (size_t i = 0; i < d->n_colliders; ++i) {
    bg_collider *c = &sim->colliders[i];
    *c = d->colliders[i];
    c->phi = NULL;
    c->normals = NULL;
    if (c->shape == BG_SHAPE_NODES) {
      bg_real *phi = malloc(n * sizeof *phi);
      bg_real *nrm = d->colliders[i].normals ? malloc(3 * n * sizeof *nrm) : NULL;
      if (!phi || (d->colliders[i].normals && !nrm)) {
        free(phi);
        free(nrm);
        return bg_fail(sim, BG_ERR_NOMEM, "out of memory copying colliders[%zu].phi", i);
      }
      memcpy(phi, d->colliders[i].phi, n * sizeof *phi);
      if (nrm) memcpy(nrm, d->colliders[i].normals, 3 * n * sizeof *nrm);
      c->phi = phi;
      c->normals = nrm;
    }
    for (int a = 0; a < 3; ++a)
      if (c->velocity[a] != 0 && c->shape != BG_SHAPE_NODES) sim->moving = 1;
  }
  return BG_OK;
}

static bg_status build_config(bg_sim *sim, const bg_sim_desc *d) {
  bg_config *c = &sim->cfg;
  c->dim = d->dim == 2 ? 2 : 3;
  for (int a = 0; a < 3; ++a) {
    c->dims[a] = (int64_t)d->dims[a];
    c->origin[a] = d->origin[a];
    c->gravity[a] = d->gravity[a];
  }
  c->n_nodes = c->dims[0] * c->dims[1] * c->dims[2];
  c->dx = d->dx;
  c->inv_dx = 1.0f / d->dx;
  size_t nt;
  const bg_material *t = bg_desc_table(d, &nt);
  c->n_mats = (int)nt;
  c->mats = malloc(nt * sizeof *c->mats);
  sim->materials = malloc(nt * sizeof *sim->materials);
  if (!c->mats || !sim->materials) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the material table");
  memcpy(sim->materials, t, nt * sizeof *t);
  sim->n_materials = nt;
  c->nl = -1;
  c->nl_all = 1;
  for (size_t k = 0; k < nt; ++k) {
    bg_material_params(&t[k], &c->mats[k], NULL, 0);
    int slot = bg_material_nonlocal_slot(c->mats[k].model);
    if (slot >= 0) c->nl = slot;
    else c->nl_all = 0;
  }
  if (c->nl < 0) c->nl_all = 0;
  c->mat = c->mats[0];
  c->threads = d->threads;
  c->sort_interval = d->sort_interval;
  c->damping = d->damping;
  c->n_walls = (int)(d->n_colliders + d->n_bodies) + BG_FACE_COUNT;
  c->walls = calloc((size_t)c->n_walls, sizeof *c->walls);
  c->n_sinks = (int)d->n_sinks;
  c->sinks = d->n_sinks ? malloc(d->n_sinks * sizeof *c->sinks) : NULL;
  if (!c->walls || (d->n_sinks && !c->sinks))
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the wall table");
  if (d->n_sinks) memcpy(c->sinks, d->sinks, d->n_sinks * sizeof *c->sinks);
  for (size_t i = 0; i < d->n_colliders; ++i) {
    const bg_collider *k = &d->colliders[i];
    bg_wallc *w = &c->walls[i];
    w->type = k->friction == BG_FRICTION_STICK ? BG_BC_STICK
              : (k->friction == BG_FRICTION_SLIP || k->mu == 0) ? BG_BC_SLIP
                                                                 : BG_BC_COULOMB;
    w->mu = k->mu;
    for (int a = 0; a < 3; ++a) w->v[a] = k->velocity[a];
  }
  /* a body's velocity differs from node to node: each node carries its own (bg_bnode.vw) */
  for (size_t i = 0; i < d->n_bodies; ++i) {
    const bg_body *k = &d->bodies[i];
    bg_wallc *w = &c->walls[d->n_colliders + i];
    w->type = k->friction == BG_FRICTION_STICK ? BG_BC_STICK
              : (k->friction == BG_FRICTION_SLIP || k->mu == 0) ? BG_BC_SLIP
                                                                 : BG_BC_COULOMB;
    w->mu = k->mu;
  }
  for (int f = 0; f < BG_FACE_COUNT; ++f) {
    bg_wallc *w = &c->walls[d->n_colliders + d->n_bodies + (size_t)f];
    const bg_wall *k = &d->walls[f];
    w->type = k->friction == BG_FRICTION_STICK  ? BG_BC_STICK
              : k->friction == BG_FRICTION_OPEN ? BG_BC_OPEN
              : (k->friction == BG_FRICTION_SLIP || k->mu == 0) ? BG_BC_SLIP
                                                                 : BG_BC_COULOMB;
    w->mu = k->mu;
  }
  return BG_OK;
}

bg_status bg_sim_create(const bg_sim_desc *d, bg_sim **out, char *err, size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (out) *out = NULL;
  bg_sim *sim = calloc(1, sizeof *sim);
  if (!sim) {
    if (err && err_len) snprintf(err, err_len, "out of memory for the simulation handle");
    return BG_ERR_NOMEM;
  }
  bg_status s = BG_OK;
  if (!d) s = bg_fail(sim, BG_ERR_NULL, "desc is NULL");
  else if (!out) s = bg_fail(sim, BG_ERR_NULL, "out is NULL");
  if (s == BG_OK) s = bg_check_desc(sim, d);
  if (s == BG_OK) s = bg_backend_pick(sim, d->backend, &sim->ops);
  if (s == BG_OK) {
    sim->cfl = d->cfl;
    size_t nt;
    const bg_material *t = bg_desc_table(d, &nt);
    sim->cp = 0;
    for (size_t k = 0; k < nt; ++k) {
      bg_real ck = bg_material_pwave_speed(&t[k]);
      if (ck > sim->cp) sim->cp = ck;
    }
    sim->fixed_dt = d->fixed_dt;
    sim->force_dt = d->force_dt;
    s = build_config(sim, d);
  }
  if (s == BG_OK) s = bg_backend_configure(sim, sim->ops, d->properties);
  if (s == BG_OK && d->fixed_dt > 0 && !d->force_dt && d->fixed_dt > stable_dt(sim, 0, NULL))
    s = bg_fail(sim, BG_ERR_UNSTABLE_DT,
                "fixed_dt %g s exceeds the stable bound cfl dx / c_p = %g s (set force_dt to "
                "override)",
                (double)d->fixed_dt, (double)stable_dt(sim, 0, NULL));
  if (s == BG_OK) s = copy_colliders(sim, d);
  if (s == BG_OK) s = bg_bodies_init(sim, d);
  if (s == BG_OK) {
    /* the descriptor as created, pointing at the handle's own copies: what a
     * checkpoint records and what bg_sim_restore compares against */
    sim->desc = *d;
    sim->desc.colliders = sim->colliders;
    sim->desc.bodies = sim->body_desc;
    sim->desc.sinks = sim->cfg.sinks;
    sim->desc.backend = NULL;
    sim->desc.properties = sim->properties;
    sim->desc.material = sim->materials[0];
    sim->desc.materials = sim->materials;
    sim->desc.n_materials = sim->n_materials;
    sim->desc.dim = sim->cfg.dim; /* 0 reads back as the 3 it means */
    sim->wall_force = calloc(3 * (size_t)sim->cfg.n_walls, sizeof *sim->wall_force);
    sim->wall_impulse = calloc(3 * (size_t)sim->cfg.n_walls, sizeof *sim->wall_impulse);
    sim->wall_tally = calloc(BG_WALL_TALLY * (size_t)sim->cfg.n_walls, sizeof *sim->wall_tally);
    if (!sim->wall_force || !sim->wall_impulse || !sim->wall_tally) s = bg_fail(sim, BG_ERR_NOMEM, "out of memory for the wall tallies");
  }
  if (s == BG_OK) s = sim->ops->create(&sim->cfg, &sim->state, sim->err, sizeof sim->err);
  if (s == BG_OK) s = bg_boundary_build(sim, 0.0);
  if (s != BG_OK) {
    if (err && err_len) snprintf(err, err_len, "%s", sim->err);
    sim_free(sim);
    return s;
  }
  sim->err[0] = 0;
  *out = sim;
  return BG_OK;
}

void bg_sim_destroy(bg_sim *sim) { sim_free(sim); }

const char *bg_sim_last_error(const bg_sim *sim) { return sim ? sim->err : "sim is NULL"; }

const char *bg_sim_backend(const bg_sim *sim) { return sim && sim->ops ? bg_backend_ops_name(sim->ops) : ""; }

/* ---------------------------------------------------------------- particles */

static bg_status add_common(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v,
                            const bg_real *vol, bg_real vol_const, int mat) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(mat >= 0 && mat < sim->cfg.n_mats, BG_ERR_RANGE,
        "material = %d is not an entry of the simulation's material table [0, %d)", mat, sim->cfg.n_mats);
  if (n == 0) return BG_OK;
  CHECK(x != NULL, BG_ERR_NULL, "x is NULL with n = %zu particles", n);
  CHECK(n <= SIZE_MAX / (9 * sizeof(bg_real)) && n <= (size_t)INT64_MAX / 16, BG_ERR_OVERFLOW,
        "n = %zu particles overflows size_t", n);
  const bg_config *c = &sim->cfg;
  for (size_t p = 0; p < n; ++p) {
    for (int a = 0; a < 3; ++a) {
      bg_real xa = x[3 * p + a];
      CHECK(isfinite(xa), BG_ERR_NONFINITE, "x[%zu] (particle %zu, axis %d) is not finite",
            3 * p + a, p, a);
      if (c->dim == 2 && a == 1) {
        CHECK(xa == c->origin[1], BG_ERR_OUTSIDE,
              "particle %zu: x[1] = %g m is off the plane of a 2D simulation (y must be origin[1] = %g m)", p,
              (double)xa, (double)c->origin[1]);
        CHECK(!v || v[3 * p + 1] == 0, BG_ERR_RANGE,
              "particle %zu: v[1] = %g m/s must be 0 in a 2D simulation (nothing leaves the plane)", p,
              (double)v[3 * p + 1]);
        continue;
      }
      /* the 3-node stencil of a particle must fit in the grid */
      bg_real xg = (xa - c->origin[a]) * c->inv_dx;
      CHECK(xg >= 0.5f && xg < (bg_real)c->dims[a] - 1.5f, BG_ERR_OUTSIDE,
            "particle %zu: x[%d] = %g m is outside the grid's interior [%g, %g) m", p, a,
            (double)xa, (double)(c->origin[a] + 0.5f * c->dx),
            (double)(c->origin[a] + ((bg_real)c->dims[a] - 1.5f) * c->dx));
      if (v)
        CHECK(isfinite(v[3 * p + a]), BG_ERR_NONFINITE, "v[%zu] (particle %zu) is not finite",
              3 * p + a, p);
    }
    if (vol) {
      CHECK(isfinite(vol[p]), BG_ERR_NONFINITE, "volume[%zu] is not finite", p);
      CHECK(vol[p] > 0, BG_ERR_RANGE, "volume[%zu] must be > 0 m^3 (got %g)", p, (double)vol[p]);
    }
  }
  bg_real *tmp = NULL;
  if (!vol) {
    tmp = malloc(n * sizeof *tmp);
    if (!tmp) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for %zu particle volumes", n);
    for (size_t p = 0; p < n; ++p) tmp[p] = vol_const;
    vol = tmp;
  }
  bg_status s = sim->ops->add(sim->state, n, x, v, vol, mat);
  free(tmp);
  if (s != BG_OK && !sim->err[0]) bg_fail(sim, s, "backend %s could not add %zu particles", bg_backend_ops_name(sim->ops), n);
  return s;
}

bg_status bg_sim_add_particles_material(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v, bg_real ppc,
                                        int material) {
  if (!sim) return BG_ERR_NULL;
  CHECK(isfinite(ppc), BG_ERR_NONFINITE, "ppc is not finite");
  CHECK(ppc > 0, BG_ERR_RANGE, "ppc (particles per cell) must be > 0 (got %g)", (double)ppc);
  bg_real dx = sim->cfg.dx;
  /* 2D: a metre of depth, so masses and forces are per metre */
  bg_real cell = sim->cfg.dim == 2 ? dx * dx : dx * dx * dx;
  return add_common(sim, n, x, v, NULL, cell / ppc, material);
}

bg_status bg_sim_add_particles_volume_material(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v,
                                               const bg_real *volume, int material) {
  if (!sim) return BG_ERR_NULL;
  CHECK(n == 0 || volume, BG_ERR_NULL, "volume is NULL with n = %zu particles", n);
  return add_common(sim, n, x, v, volume, 0, material);
}

bg_status bg_sim_add_particles(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v, bg_real ppc) {
  return bg_sim_add_particles_material(sim, n, x, v, ppc, 0);
}

bg_status bg_sim_add_particles_volume(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v,
                                      const bg_real *volume) {
  return bg_sim_add_particles_volume_material(sim, n, x, v, volume, 0);
}

/* -------------------------------------------------------------------- steps */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

bg_status bg_sim_next_dt(bg_sim *sim, bg_real *dt, bg_real *bound) {
  if (!sim) return BG_ERR_NULL;
  bg_backend_stats st;
  bg_status s = sim->ops->stats(sim->state, &st, NULL);
  if (s != BG_OK) return s;
  /* a source's particles join at its speed during the step: the bound holds it too */
  double vmax = fmax(st.max_speed, bg_sources_speed(sim, sim->time));
  /* and a body's surface moves its nodes' velocity: it must not cross a cell in a step */
  vmax = fmax(vmax, bg_bodies_speed(sim));
  int nl_sets = 0;
  bg_real b = stable_dt(sim, vmax, &nl_sets);
  sim->next_nonlocal_sets = nl_sets && !(sim->fixed_dt > 0);
  {
    double cfl = sim->cfl * sim->cfg.dx / (sim->cp + vmax);
    sim->nonlocal_ratio = (bg_real)((double)table_nonlocal_dt(&sim->cfg) / cfl);
  }
  if (bound) *bound = b;
  if (dt) *dt = sim->fixed_dt > 0 ? sim->fixed_dt : b;
  return BG_OK;
}

static bg_status step_dt(bg_sim *sim, bg_real dt) {
  bg_status s;
  double t0 = now_ms();
  if (sim->n_sources && (s = bg_sources_emit(sim, dt)) != BG_OK) return s;
  if (sim->moving && (s = bg_boundary_build(sim, sim->time)) != BG_OK) return s;
  if ((s = sim->ops->sort(sim->state, sim->step)) != BG_OK) return s;
  double t1 = now_ms();
  if ((s = sim->ops->p2g(sim->state, dt)) != BG_OK) return s;
  double t2 = now_ms();
  if ((s = sim->ops->grid_update(sim->state, dt)) != BG_OK) return s;
  double t3 = now_ms();
  if ((s = sim->ops->g2p(sim->state, dt)) != BG_OK) return s;
  if ((s = sim->ops->wall_forces(sim->state, sim->wall_tally)) != BG_OK) return s;
  for (int k = 0; k < sim->cfg.n_walls; ++k)
    for (int a = 0; a < 3; ++a) sim->wall_force[3 * k + a] = sim->wall_tally[BG_WALL_TALLY * k + a];
  bg_bodies_advance(sim, sim->wall_tally, (double)dt);
  /* the bodies' nodes where they now are (with moving colliders, the next step's build does it) */
  if (sim->n_bodies && !sim->moving && (s = bg_boundary_commit(sim)) != BG_OK) return s;
  for (int k = 0; k < 3 * sim->cfg.n_walls; ++k) sim->wall_impulse[k] += sim->wall_force[k] * (double)dt;
  double t4 = now_ms();
  sim->stage_ms[BG_STAGE_SORT] += t1 - t0;
  sim->stage_ms[BG_STAGE_P2G] += t2 - t1;
  sim->stage_ms[BG_STAGE_GRID] += t3 - t2;
  sim->stage_ms[BG_STAGE_G2P] += t4 - t3;
  sim->step++;
  sim->steps_nonlocal_dt += (uint64_t)sim->next_nonlocal_sets;
  sim->time += dt;
  sim->last_dt = dt;
  return BG_OK;
}

bg_status bg_sim_step(bg_sim *sim, bg_real *dt_taken) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  bg_real dt, bound;
  bg_status s = bg_sim_next_dt(sim, &dt, &bound);
  if (s != BG_OK) return s;
  if (sim->fixed_dt > 0 && dt > bound && !sim->force_dt)
    return bg_fail(sim, BG_ERR_UNSTABLE_DT,
                   "step %llu: fixed_dt %g s exceeds the stable bound %g s at the current flow "
                   "speed (set force_dt to override)",
                   (unsigned long long)sim->step, (double)dt, (double)bound);
  s = step_dt(sim, dt);
  if (s == BG_OK && dt_taken) *dt_taken = dt;
  return s;
}

bg_status bg_sim_run(bg_sim *sim, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    bg_status s = bg_sim_step(sim, NULL);
    if (s != BG_OK) return s;
  }
  return BG_OK;
}

bg_status bg_sim_advance_to(bg_sim *sim, double t_end) {
  if (!sim) return BG_ERR_NULL;
  CHECK(isfinite(t_end), BG_ERR_NONFINITE, "t_end is not finite");
  while (sim->time < t_end) {
    bg_real dt, bound;
    bg_status s = bg_sim_next_dt(sim, &dt, &bound);
    if (s != BG_OK) return s;
    if (sim->fixed_dt > 0 && dt > bound && !sim->force_dt)
      return bg_fail(sim, BG_ERR_UNSTABLE_DT, "fixed_dt %g s exceeds the stable bound %g s",
                     (double)dt, (double)bound);
    /* shorten the last step to land on t_end; never lengthen one */
    if (sim->time + dt > t_end) dt = (bg_real)(t_end - sim->time);
    if (!(dt > 0)) break;
    if ((s = step_dt(sim, dt)) != BG_OK) return s;
  }
  return BG_OK;
}

/* ---------------------------------------------------------------- read-back */

bg_status bg_sim_get(bg_sim *sim, bg_field f, bg_real *out, size_t cap) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  int w = bg_field_width(f);
  CHECK(w > 0, BG_ERR_RANGE, "field %d is not a bg_field", (int)f);
  size_t n = sim->ops->count(sim->state);
  if (n == 0) return BG_OK;
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  CHECK(cap >= n * (size_t)w, BG_ERR_RANGE, "cap = %zu floats, field needs %zu (%zu particles x %d)",
        cap, n * (size_t)w, n, w);
  return sim->ops->get(sim->state, f, out);
}

bg_status bg_sim_stats(bg_sim *sim, bg_stats *out) {
  if (!sim) return BG_ERR_NULL;
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  bg_backend_stats st;
  bg_status s = sim->ops->stats(sim->state, &st, NULL);
  if (s != BG_OK) return s;
  memset(out, 0, sizeof *out);
  out->step = sim->step;
  out->time = sim->time;
  out->dt = sim->last_dt;
  out->n_particles = sim->ops->count(sim->state);
  out->n_active = st.n_active;
  out->n_parked_sink = st.n_parked_sink;
  out->n_parked_out = st.n_parked_out;
  out->n_parked = st.n_parked_sink + st.n_parked_out;
  out->parked_mass = st.parked_mass;
  out->total_mass = st.total_mass;
  out->max_speed = st.max_speed;
  out->steps_nonlocal_dt = sim->steps_nonlocal_dt;
  out->nonlocal_dt_ratio = sim->nonlocal_ratio;
  return BG_OK;
}

bg_status bg_sim_sink_mass(bg_sim *sim, double *out, size_t cap) {
  if (!sim) return BG_ERR_NULL;
  CHECK(sim->cfg.n_sinks == 0 || out, BG_ERR_NULL, "out is NULL");
  CHECK(cap >= (size_t)sim->cfg.n_sinks, BG_ERR_RANGE, "cap = %zu, need n_sinks = %d", cap,
        sim->cfg.n_sinks);
  bg_backend_stats st;
  return sim->ops->stats(sim->state, &st, out);
}

static bg_status grid_get(bg_sim *sim, int which, bg_real *out, size_t cap) {
  if (!sim) return BG_ERR_NULL;
  size_t need = (size_t)sim->cfg.n_nodes * (which ? 3u : 1u);
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  CHECK(cap >= need, BG_ERR_RANGE, "cap = %zu floats, the grid needs %zu", cap, need);
  return sim->ops->grid(sim->state, which, out);
}

bg_status bg_sim_grid_mass(bg_sim *sim, bg_real *out, size_t cap) { return grid_get(sim, 0, out, cap); }

bg_status bg_sim_grid_velocity(bg_sim *sim, bg_real *out, size_t cap) {
  return grid_get(sim, 1, out, cap);
}

size_t bg_sim_wall_count(const bg_sim *sim) { return sim ? (size_t)sim->cfg.n_walls : 0; }

/* One of the per-wall tallies (3 doubles per wall) into out. */
static bg_status copy_wall_tally(bg_sim *sim, const double *tally, double *out, size_t cap) {
  sim->err[0] = 0;
  size_t need = 3 * (size_t)sim->cfg.n_walls;
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  CHECK(cap >= need, BG_ERR_RANGE, "cap = %zu doubles, the walls need %zu (3 x %d walls)", cap, need,
        sim->cfg.n_walls);
  memcpy(out, tally, need * sizeof *out);
  return BG_OK;
}

bg_status bg_sim_wall_forces(bg_sim *sim, double *out, size_t cap) {
  return sim ? copy_wall_tally(sim, sim->wall_force, out, cap) : BG_ERR_NULL;
}

bg_status bg_sim_wall_impulses(bg_sim *sim, double *out, size_t cap) {
  return sim ? copy_wall_tally(sim, sim->wall_impulse, out, cap) : BG_ERR_NULL;
}

bg_status bg_sim_describe(const bg_sim *sim, bg_sim_desc *out) {
  if (!sim || !out) return BG_ERR_NULL;
  *out = sim->desc;
  out->backend = bg_backend_ops_name(sim->ops);
  return BG_OK;
}

bg_status bg_material_params(const bg_material *m, struct bg_mat *out, char *err, size_t err_len) {
  bg_sim scratch; /* check_material reports through a handle's buffer */
  memset(&scratch, 0, sizeof scratch);
  bg_sim *sim = &scratch;
  if (err && err_len) err[0] = 0;
  bg_status s = BG_OK;
  if (!m) s = bg_fail(sim, BG_ERR_NULL, "material is NULL");
  else if (!out) s = bg_fail(sim, BG_ERR_NULL, "out is NULL");
  else s = bg_check_material(sim, m);
  if (s != BG_OK) {
    if (err && err_len) snprintf(err, err_len, "%s", sim->err);
    return s;
  }
  *out = bg_material_prepare(m);
  return BG_OK;
}

bg_status bg_sim_stage_times(bg_sim *sim, double ms[4]) {
  if (!sim) return BG_ERR_NULL;
  CHECK(ms != NULL, BG_ERR_NULL, "ms is NULL");
  if (sim->ops->stage_times) return sim->ops->stage_times(sim->state, ms);
  for (int i = 0; i < BG_STAGE_COUNT; ++i) ms[i] = sim->stage_ms[i];
  return BG_OK;
}
