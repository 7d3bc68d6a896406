/* validate.c: the checks of a simulation descriptor before anything is
 * allocated: the grid, the material or the material table (each entry
 * named), colliders, sinks, walls and the step's settings. Each failure
 * names the field and its range through the handle's error buffer. */
/* sysconf is POSIX, not C11 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bg_internal.h"

/* Validation runs on a scratch handle whose err buffer collects the message;
 * these macros keep each check on one line. */
#define CHECK(cond, status, ...)                           \
  do {                                                     \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)
#define CHECK_FINITE(x, name) CHECK(isfinite(x), BG_ERR_NONFINITE, "%s is not finite (got %g)", name, (double)(x))

/* --------------------------------------------------------------- validation */

bg_status bg_check_material(bg_sim *sim, const bg_material *m) {
  CHECK((int)m->model >= 0 && (int)m->model < BG_MODEL_COUNT, BG_ERR_RANGE,
        "material.model must be one of the %d registered models, BG_MODEL_DP .. (got %d)", BG_MODEL_COUNT,
        (int)m->model);
  CHECK_FINITE(m->E, "material.E");
  CHECK_FINITE(m->nu, "material.nu");
  CHECK_FINITE(m->rho0, "material.rho0");
  CHECK(m->E > 0, BG_ERR_RANGE, "material.E must be > 0 Pa (got %g)", (double)m->E);
  CHECK(m->rho0 > 0, BG_ERR_RANGE, "material.rho0 must be > 0 kg/m^3 (got %g)", (double)m->rho0);
  CHECK(m->stress == BG_STRESS_HENCKY || m->stress == BG_STRESS_FIXED_COROTATED, BG_ERR_RANGE,
        "material.stress must be BG_STRESS_HENCKY or BG_STRESS_FIXED_COROTATED (got %d)",
        (int)m->stress);
  char msg[sizeof sim->err];
  /* the model checks the rest, nu's range included where it needs one */
  int bad = bg_material_validate_model(m, msg, sizeof msg);
  if (bad) return bg_fail(sim, bad == 1 ? BG_ERR_NONFINITE : BG_ERR_RANGE, "%s", msg);
  return BG_OK;
}

/* Entry k of a material table, checked as a material is, its message
 * naming it materials[k] where bg_check_material says material. */
static bg_status check_table_entry(bg_sim *sim, const bg_material *m, size_t k) {
  bg_status s = bg_check_material(sim, m);
  if (s == BG_OK) return s;
  char msg[sizeof sim->err], name[40];
  snprintf(name, sizeof name, "materials[%zu].", k);
  size_t o = 0;
  for (const char *p = sim->err; *p && o + 1 < sizeof msg;) {
    if (strncmp(p, "material.", 9) == 0) {
      for (const char *q = name; *q && o + 1 < sizeof msg; ++q) msg[o++] = *q;
      p += 9;
    } else {
      msg[o++] = *p++;
    }
  }
  msg[o] = 0;
  snprintf(sim->err, sizeof sim->err, "%s", msg);
  return s;
}

/* The table a descriptor asks for: its materials, or {material}. */
const bg_material *bg_desc_table(const bg_sim_desc *d, size_t *n) {
  *n = d->n_materials ? d->n_materials : 1;
  return d->n_materials ? d->materials : &d->material;
}

/* The table's entries that need the nonlocal service must share its one
 * state slot: the service keeps one nodal sum. */
static bg_status check_table_nonlocal(bg_sim *sim, const bg_material *t, size_t n) {
  size_t first = n;
  for (size_t k = 0; k < n; ++k) {
    int slot = bg_material_nonlocal_slot((int)t[k].model);
    if (slot < 0) continue;
    if (first == n) {
      first = k;
      continue;
    }
    int s0 = bg_material_nonlocal_slot((int)t[first].model);
    CHECK(slot == s0, BG_ERR_RANGE,
          "materials[%zu] (%s) needs the nonlocal service on state slot %d, materials[%zu] (%s) on slot %d: "
          "the entries of one table that need it must share its slot",
          k, bg_material_model_name(t[k].model), slot, first, bg_material_model_name(t[first].model), s0);
  }
  return BG_OK;
}

static bg_status check_vec3(bg_sim *sim, const bg_real *v, const char *name) {
  char buf[128];
  for (int d = 0; d < 3; ++d) {
    snprintf(buf, sizeof buf, "%s[%d]", name, d);
    CHECK_FINITE(v[d], buf);
  }
  return BG_OK;
}

static bg_status check_collider(bg_sim *sim, const bg_collider *c, size_t i, int64_t n_nodes) {
  char name[32];
  bg_status s;
  snprintf(name, sizeof name, "colliders[%zu]", i);
  CHECK(c->friction == BG_FRICTION_COULOMB || c->friction == BG_FRICTION_SLIP ||
            c->friction == BG_FRICTION_STICK,
        BG_ERR_RANGE, "%s.friction must be COULOMB, SLIP or STICK (got %d)", name, (int)c->friction);
  CHECK(isfinite(c->mu), BG_ERR_NONFINITE, "%s.mu is not finite", name);
  CHECK(c->mu >= 0, BG_ERR_RANGE, "%s.mu must be >= 0 (got %g)", name, (double)c->mu);
  char field[96];
  snprintf(field, sizeof field, "%s.velocity", name);
  if ((s = check_vec3(sim, c->velocity, field)) != BG_OK) return s;
  switch (c->shape) {
    case BG_SHAPE_HALFSPACE: {
      snprintf(field, sizeof field, "%s.point", name);
      if ((s = check_vec3(sim, c->point, field)) != BG_OK) return s;
      snprintf(field, sizeof field, "%s.normal", name);
      if ((s = check_vec3(sim, c->normal, field)) != BG_OK) return s;
      double nn = (double)c->normal[0] * c->normal[0] + (double)c->normal[1] * c->normal[1] +
                  (double)c->normal[2] * c->normal[2];
      CHECK(nn > 1e-12, BG_ERR_RANGE, "%s.normal must be non-zero", name);
      break;
    }
    case BG_SHAPE_BOX:
      snprintf(field, sizeof field, "%s.lo", name);
      if ((s = check_vec3(sim, c->lo, field)) != BG_OK) return s;
      snprintf(field, sizeof field, "%s.hi", name);
      if ((s = check_vec3(sim, c->hi, field)) != BG_OK) return s;
      for (int d = 0; d < 3; ++d)
        CHECK(c->lo[d] < c->hi[d], BG_ERR_RANGE, "%s.lo[%d] must be < hi[%d] (got %g, %g)", name, d,
              d, (double)c->lo[d], (double)c->hi[d]);
      break;
    case BG_SHAPE_CYLINDER:
      CHECK(isfinite(c->center[0]) && isfinite(c->center[1]) && isfinite(c->radius) &&
                isfinite(c->lo[2]) && isfinite(c->hi[2]),
            BG_ERR_NONFINITE, "%s: cylinder center, radius and z extent must be finite", name);
      CHECK(c->radius > 0, BG_ERR_RANGE, "%s.radius must be > 0 m (got %g)", name, (double)c->radius);
      CHECK(c->lo[2] < c->hi[2], BG_ERR_RANGE, "%s: cylinder needs lo[2] < hi[2]", name);
      break;
    case BG_SHAPE_NODES:
      CHECK(c->phi != NULL, BG_ERR_NULL, "%s.phi is NULL but shape is BG_SHAPE_NODES", name);
      for (int64_t k = 0; k < n_nodes; ++k) {
        CHECK(isfinite(c->phi[k]), BG_ERR_NONFINITE, "%s.phi[%lld] is not finite", name, (long long)k);
        if (c->normals)
          for (int d = 0; d < 3; ++d)
            CHECK(isfinite(c->normals[3 * k + d]), BG_ERR_NONFINITE, "%s.normals[%lld] is not finite",
                  name, (long long)(3 * k + d));
      }
      break;
    default:
      return bg_fail(sim, BG_ERR_RANGE, "%s.shape is not a bg_shape (got %d)", name, (int)c->shape);
  }
  return BG_OK;
}

/* Physical memory, for refusing grids that cannot fit before trying. */
static double physical_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return (pages > 0 && size > 0) ? (double)pages * (double)size : 1e300;
}

/* Bytes a grid of n nodes needs on the CPU: 4 floats of scratch per node. */
#define BG_BYTES_PER_NODE 16

bg_status bg_check_desc(bg_sim *sim, const bg_sim_desc *d) {
  bg_status s;
  uint64_t n_nodes = 1;
  CHECK(d->dim == 0 || d->dim == 2 || d->dim == 3, BG_ERR_RANGE,
        "dim must be 2 (plane strain in x-z) or 3 (0 means 3) (got %d)", d->dim);
  const int plane = d->dim == 2;
  CHECK(!plane || d->dims[1] == 1, BG_ERR_RANGE,
        "dims[1] must be 1 with dim 2 (the plane is one node layer in y; got %zu)", d->dims[1]);
  for (int a = 0; a < 3; ++a) {
    if (plane && a == 1) continue;
    CHECK(d->dims[a] >= 4, BG_ERR_RANGE, "dims[%d] must be >= 4 nodes (got %zu)", a, d->dims[a]);
    /* node coordinates are int in the kernels */
    CHECK(d->dims[a] < (1u << 30), BG_ERR_OVERFLOW, "dims[%d] = %zu exceeds 2^30 nodes", a,
          d->dims[a]);
    CHECK(n_nodes <= SIZE_MAX / BG_BYTES_PER_NODE / d->dims[a], BG_ERR_OVERFLOW,
          "dims %zu x %zu x %zu: the grid's byte count overflows size_t", d->dims[0], d->dims[1], d->dims[2]);
    n_nodes *= d->dims[a];
  }
  double bytes = (double)n_nodes * BG_BYTES_PER_NODE;
  CHECK(bytes < physical_bytes(), BG_ERR_NOMEM,
        "dims %zu x %zu x %zu need %.3g GB of grid, more than the machine's %.3g GB", d->dims[0],
        d->dims[1], d->dims[2], bytes / 1e9, physical_bytes() / 1e9);
  CHECK_FINITE(d->dx, "dx");
  CHECK(d->dx > 0, BG_ERR_RANGE, "dx must be > 0 m (got %g)", (double)d->dx);
  if ((s = check_vec3(sim, d->origin, "origin")) != BG_OK) return s;
  if ((s = check_vec3(sim, d->gravity, "gravity")) != BG_OK) return s;
  CHECK(!plane || d->gravity[1] == 0, BG_ERR_RANGE,
        "gravity[1] must be 0 with dim 2 (nothing moves out of the plane; got %g)", (double)d->gravity[1]);
  if (d->n_materials == 0) {
    if ((s = bg_check_material(sim, &d->material)) != BG_OK) return s;
  } else {
    CHECK(d->materials != NULL, BG_ERR_NULL, "materials is NULL but n_materials = %zu", d->n_materials);
    CHECK(d->n_materials <= BG_MAX_MATERIALS, BG_ERR_RANGE,
          "n_materials must be in [0, %d] (got %zu; 0 means the table {material})", BG_MAX_MATERIALS,
          d->n_materials);
    for (size_t k = 0; k < d->n_materials; ++k)
      if ((s = check_table_entry(sim, &d->materials[k], k)) != BG_OK) return s;
    if ((s = check_table_nonlocal(sim, d->materials, d->n_materials)) != BG_OK) return s;
  }
  CHECK(d->n_colliders == 0 || d->colliders, BG_ERR_NULL, "colliders is NULL but n_colliders = %zu",
        d->n_colliders);
  CHECK(d->n_colliders < 1000, BG_ERR_RANGE, "n_colliders must be < 1000 (got %zu)", d->n_colliders);
  for (size_t i = 0; i < d->n_colliders; ++i)
    if ((s = check_collider(sim, &d->colliders[i], i, (int64_t)n_nodes)) != BG_OK) return s;
  for (size_t i = 0; plane && i < d->n_colliders; ++i) {
    const bg_collider *c = &d->colliders[i];
    CHECK(c->velocity[1] == 0, BG_ERR_RANGE,
          "colliders[%zu].velocity[1] must be 0 with dim 2 (got %g)", i, (double)c->velocity[1]);
    CHECK(c->shape != BG_SHAPE_HALFSPACE || c->normal[1] == 0, BG_ERR_RANGE,
          "colliders[%zu].normal[1] must be 0 with dim 2 (a plane in x-z; got %g)", i, (double)c->normal[1]);
  }
  CHECK(d->n_bodies == 0 || d->bodies, BG_ERR_NULL, "bodies is NULL but n_bodies = %zu", d->n_bodies);
  CHECK(d->n_bodies < 1000, BG_ERR_RANGE, "n_bodies must be < 1000 (got %zu)", d->n_bodies);
  for (size_t i = 0; i < d->n_bodies; ++i)
    if ((s = bg_check_body(sim, d, i)) != BG_OK) return s;
  CHECK(d->n_sinks == 0 || d->sinks, BG_ERR_NULL, "sinks is NULL but n_sinks = %zu", d->n_sinks);
  CHECK(d->n_sinks < 1000, BG_ERR_RANGE, "n_sinks must be < 1000 (got %zu)", d->n_sinks);
  for (size_t i = 0; i < d->n_sinks; ++i) {
    char field[64];
    snprintf(field, sizeof field, "sinks[%zu].lo", i);
    if ((s = check_vec3(sim, d->sinks[i].lo, field)) != BG_OK) return s;
    snprintf(field, sizeof field, "sinks[%zu].hi", i);
    if ((s = check_vec3(sim, d->sinks[i].hi, field)) != BG_OK) return s;
    for (int a = 0; a < 3; ++a)
      CHECK(d->sinks[i].lo[a] < d->sinks[i].hi[a], BG_ERR_RANGE, "sinks[%zu].lo[%d] must be < hi[%d]",
            i, a, a);
  }
  for (int f = 0; f < BG_FACE_COUNT; ++f) {
    const bg_wall *w = &d->walls[f];
    CHECK(w->friction >= BG_FRICTION_COULOMB && w->friction <= BG_FRICTION_OPEN, BG_ERR_RANGE,
          "walls[%d].friction must be COULOMB, SLIP, STICK or OPEN (got %d)", f, (int)w->friction);
    CHECK(isfinite(w->mu), BG_ERR_NONFINITE, "walls[%d].mu is not finite", f);
    CHECK(w->mu >= 0, BG_ERR_RANGE, "walls[%d].mu must be >= 0 (got %g)", f, (double)w->mu);
  }
  CHECK(d->threads >= 0 && d->threads <= 4096, BG_ERR_RANGE, "threads must be in [0, 4096] (got %d)",
        d->threads);
  CHECK_FINITE(d->cfl, "cfl");
  CHECK(d->cfl > 0 && d->cfl <= 1, BG_ERR_RANGE, "cfl must be in (0, 1] (got %g)", (double)d->cfl);
  CHECK_FINITE(d->fixed_dt, "fixed_dt");
  CHECK(d->fixed_dt >= 0, BG_ERR_RANGE, "fixed_dt must be >= 0 s, 0 meaning adaptive (got %g)",
        (double)d->fixed_dt);
  CHECK(d->sort_interval >= 1, BG_ERR_RANGE, "sort_interval must be >= 1 step (got %d)",
        d->sort_interval);
  CHECK_FINITE(d->damping, "damping");
  CHECK(d->damping >= 0, BG_ERR_RANGE, "damping must be >= 0 1/s, 0 meaning off (got %g)",
        (double)d->damping);
  return BG_OK;
}

