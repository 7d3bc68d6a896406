/* device_io.c: the front end of the device-memory exchange (bagnold.h,
 * "device memory"): argument checks common to every GPU backend, then the
 * backend's own slots. A host backend has none of them and says so. Also
 * the memory a backend holds (bg_sim_memory). */
#include <math.h>
#include <string.h>

#include "bg_internal.h"

#define CHECK(cond, status, ...)                           \
  do {                                                     \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)

static bg_status need_device(bg_sim *sim, int has_slot, const char *what) {
  if (has_slot) return BG_OK;
  return bg_fail(sim, BG_ERR_BACKEND,
                 "%s needs a backend whose particles live in GPU memory; backend %s keeps them in host memory "
                 "(use the host call, e.g. bg_sim_get, or a cuda backend)",
                 what, bg_backend_ops_name(sim->ops));
}

int bg_sim_device_ordinal(const bg_sim *sim) {
  if (!sim || !sim->ops->device_ordinal) return -1;
  return sim->ops->device_ordinal(sim->state);
}

bg_status bg_sim_get_device(bg_sim *sim, bg_field f, bg_real *dev_out, size_t cap, uintptr_t stream) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  bg_status s = need_device(sim, sim->ops->get_device != NULL, "bg_sim_get_device");
  if (s != BG_OK) return s;
  int w = bg_field_width(f);
  CHECK(w > 0, BG_ERR_RANGE, "field %d is not a bg_field", (int)f);
  size_t n = sim->ops->count(sim->state);
  if (n == 0) return BG_OK;
  CHECK(dev_out != NULL, BG_ERR_NULL, "dev_out is NULL");
  CHECK(cap >= n * (size_t)w, BG_ERR_RANGE, "cap = %zu floats, field needs %zu (%zu particles x %d)", cap,
        n * (size_t)w, n, w);
  return sim->ops->get_device(sim->state, f, dev_out, stream);
}

bg_status bg_sim_set_device(bg_sim *sim, bg_field f, const bg_real *dev_in, size_t n, uintptr_t stream) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  bg_status s = need_device(sim, sim->ops->set_device != NULL, "bg_sim_set_device");
  if (s != BG_OK) return s;
  CHECK(f == BG_FIELD_V, BG_ERR_RANGE,
        "field %d cannot be set from device memory: bg_sim_set_device takes BG_FIELD_V (F and stress go "
        "through bg_sim_set, whose checks and stress inversion run on the host)",
        (int)f);
  size_t count = sim->ops->count(sim->state);
  CHECK(n == 3 * count, BG_ERR_RANGE, "n = %zu values, the field needs %zu (%zu particles x 3)", n, 3 * count,
        count);
  if (count == 0) return BG_OK;
  CHECK(dev_in != NULL, BG_ERR_NULL, "dev_in is NULL");
  return sim->ops->set_device(sim->state, f, dev_in, stream);
}

bg_status bg_sim_add_particles_device(bg_sim *sim, size_t n, const bg_real *x_dev, const bg_real *v_dev,
                                      bg_real ppc, int material, uintptr_t stream) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  bg_status s = need_device(sim, sim->ops->add_device != NULL, "bg_sim_add_particles_device");
  if (s != BG_OK) return s;
  CHECK(material >= 0 && material < sim->cfg.n_mats, BG_ERR_RANGE,
        "material = %d is not an entry of the simulation's material table [0, %d)", material, sim->cfg.n_mats);
  CHECK(isfinite(ppc), BG_ERR_NONFINITE, "ppc is not finite");
  CHECK(ppc > 0, BG_ERR_RANGE, "ppc (particles per cell) must be > 0 (got %g)", (double)ppc);
  if (n == 0) return BG_OK;
  CHECK(x_dev != NULL, BG_ERR_NULL, "x is NULL with n = %zu particles", n);
  CHECK(n <= (size_t)INT64_MAX / 16, BG_ERR_OVERFLOW, "n = %zu particles overflows the index type", n);
  bg_real dx = sim->cfg.dx;
  /* the volume rule of bg_sim_add_particles_material: a metre of depth in 2D */
  bg_real cell = sim->cfg.dim == 2 ? dx * dx : dx * dx * dx;
  s = sim->ops->add_device(sim->state, n, x_dev, v_dev, cell / ppc, material, stream);
  if (s != BG_OK && !sim->err[0])
    bg_fail(sim, s, "backend %s could not add %zu particles from device memory", bg_backend_ops_name(sim->ops), n);
  return s;
}

bg_status bg_sim_device_alloc(bg_sim *sim, size_t bytes, void **dev) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(dev != NULL, BG_ERR_NULL, "dev is NULL");
  *dev = NULL;
  bg_status s = need_device(sim, sim->ops->device_alloc != NULL, "bg_sim_device_alloc");
  if (s != BG_OK) return s;
  if (bytes == 0) return BG_OK;
  return sim->ops->device_alloc(sim->state, bytes, dev);
}

void bg_sim_device_free(bg_sim *sim, void *dev) {
  if (sim && dev && sim->ops->device_free) sim->ops->device_free(sim->state, dev);
}

bg_status bg_sim_memory(bg_sim *sim, bg_memory *out) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  CHECK(sim->ops->memory != NULL, BG_ERR_BACKEND, "backend %s does not account its memory",
        bg_backend_ops_name(sim->ops));
  memset(out, 0, sizeof *out);
  sim->ops->memory(sim->state, out);
  out->particles = sim->ops->count(sim->state);
  size_t total = out->particle_bytes + out->grid_bytes + out->other_bytes;
  out->per_particle = out->particles ? (double)total / (double)out->particles : 0.0;
  return BG_OK;
}
