/* layout.c: the C compiler's sizes and offsets of the structs the Python
 * package mirrors with ctypes (bagnold/_native.py), as JSON on stdout;
 * tests/test_layout.py compares them field by field. The material models
 * come from the generated registry, as the Python side reads them from the
 * library: neither lists a model by hand. bg_mat (internal) is
 * listed for its size alone: the bindings hand bg_material_params a buffer
 * of their own. */
#include <stddef.h>
#include <stdio.h>

#include "bagnold.h"
#include "bg_materials.h"

static int n_structs, n_fields;

static void open_struct(const char *name, size_t size) {
  printf("%s\n  \"%s\": {\"size\": %zu, \"fields\": {", n_structs++ ? "," : "", name, size);
  n_fields = 0;
}

static void field(const char *name, size_t offset) {
  printf("%s\"%s\": %zu", n_fields++ ? ", " : "", name, offset);
}

static void close_struct(void) { printf("}}"); }

#define OPEN(T) open_struct(#T, sizeof(T))
#define FIELD(T, m) field(#m, offsetof(T, m))

int main(void) {
  printf("{");
  /* each model's parameter struct, from its own field list (bagnold.h) */
#define LAYOUT_FIELD_(type, f, kind) FIELD(params_t_, f);
#define BG_X_(n, N, lane, label)          \
  {                                       \
    typedef bg_##n##_params params_t_;    \
    OPEN(bg_##n##_params);                \
    BG_##N##_PARAMS(LAYOUT_FIELD_)        \
    close_struct();                       \
  }
  BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
  OPEN(bg_material);
  FIELD(bg_material, model);
  FIELD(bg_material, E);
  FIELD(bg_material, nu);
  FIELD(bg_material, rho0);
  FIELD(bg_material, stress);
  FIELD(bg_material, volume_correction);
  FIELD(bg_material, elastic_only);
#define BG_X_(n, N, lane, label) FIELD(bg_material, n);
  BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
  close_struct();
  OPEN(bg_collider);
  FIELD(bg_collider, shape);
  FIELD(bg_collider, point);
  FIELD(bg_collider, normal);
  FIELD(bg_collider, lo);
  FIELD(bg_collider, hi);
  FIELD(bg_collider, center);
  FIELD(bg_collider, radius);
  FIELD(bg_collider, invert);
  FIELD(bg_collider, phi);
  FIELD(bg_collider, normals);
  FIELD(bg_collider, friction);
  FIELD(bg_collider, mu);
  FIELD(bg_collider, velocity);
  close_struct();
  OPEN(bg_sink);
  FIELD(bg_sink, lo);
  FIELD(bg_sink, hi);
  close_struct();
  OPEN(bg_wall);
  FIELD(bg_wall, friction);
  FIELD(bg_wall, mu);
  close_struct();
  OPEN(bg_sim_desc);
  FIELD(bg_sim_desc, dims);
  FIELD(bg_sim_desc, dx);
  FIELD(bg_sim_desc, origin);
  FIELD(bg_sim_desc, gravity);
  FIELD(bg_sim_desc, material);
  FIELD(bg_sim_desc, colliders);
  FIELD(bg_sim_desc, n_colliders);
  FIELD(bg_sim_desc, sinks);
  FIELD(bg_sim_desc, n_sinks);
  FIELD(bg_sim_desc, walls);
  FIELD(bg_sim_desc, backend);
  FIELD(bg_sim_desc, threads);
  FIELD(bg_sim_desc, cfl);
  FIELD(bg_sim_desc, fixed_dt);
  FIELD(bg_sim_desc, force_dt);
  FIELD(bg_sim_desc, sort_interval);
  FIELD(bg_sim_desc, properties);
  FIELD(bg_sim_desc, damping);
  FIELD(bg_sim_desc, materials);
  FIELD(bg_sim_desc, n_materials);
  FIELD(bg_sim_desc, dim);
  FIELD(bg_sim_desc, bodies);
  FIELD(bg_sim_desc, n_bodies);
  close_struct();
  OPEN(bg_body);
  FIELD(bg_body, shape);
  FIELD(bg_body, radius);
  FIELD(bg_body, half);
  FIELD(bg_body, density);
  FIELD(bg_body, x);
  FIELD(bg_body, q);
  FIELD(bg_body, v);
  FIELD(bg_body, w);
  FIELD(bg_body, friction);
  FIELD(bg_body, mu);
  FIELD(bg_body, kinematic);
  FIELD(bg_body, axis);
  FIELD(bg_body, linear_damping);
  FIELD(bg_body, angular_damping);
  FIELD(bg_body, mesh);
  close_struct();
  OPEN(bg_body_state);
  FIELD(bg_body_state, x);
  FIELD(bg_body_state, q);
  FIELD(bg_body_state, v);
  FIELD(bg_body_state, w);
  FIELD(bg_body_state, force);
  FIELD(bg_body_state, torque);
  FIELD(bg_body_state, mass);
  FIELD(bg_body_state, inertia);
  FIELD(bg_body_state, parked);
  close_struct();
  OPEN(bg_source);
  FIELD(bg_source, shape);
  FIELD(bg_source, center);
  FIELD(bg_source, radius);
  FIELD(bg_source, half);
  FIELD(bg_source, velocity);
  FIELD(bg_source, mass_rate);
  FIELD(bg_source, t_start);
  FIELD(bg_source, t_stop);
  FIELD(bg_source, material);
  FIELD(bg_source, ppc);
  FIELD(bg_source, seed);
  close_struct();
  OPEN(bg_stats);
  FIELD(bg_stats, step);
  FIELD(bg_stats, time);
  FIELD(bg_stats, dt);
  FIELD(bg_stats, n_particles);
  FIELD(bg_stats, n_active);
  FIELD(bg_stats, n_parked);
  FIELD(bg_stats, n_parked_sink);
  FIELD(bg_stats, n_parked_out);
  FIELD(bg_stats, parked_mass);
  FIELD(bg_stats, total_mass);
  FIELD(bg_stats, max_speed);
  FIELD(bg_stats, steps_nonlocal_dt);
  FIELD(bg_stats, nonlocal_dt_ratio);
  close_struct();
  OPEN(bg_memory);
  FIELD(bg_memory, particle_bytes);
  FIELD(bg_memory, grid_bytes);
  FIELD(bg_memory, other_bytes);
  FIELD(bg_memory, particles);
  FIELD(bg_memory, per_particle);
  FIELD(bg_memory, grid_nodes);
  close_struct();
  OPEN(bg_host);
  FIELD(bg_host, name);
  FIELD(bg_host, cpu);
  FIELD(bg_host, cores);
  close_struct();
  OPEN(bg_mat);
  close_struct();
  printf(
      ",\n  \"constants\": {\"BG_STATUS_COUNT\": %d, \"BG_MODEL_COUNT\": %d, "
      "\"BG_FIELD_COUNT\": %d, \"BG_FACE_COUNT\": %d, \"BG_CHECKPOINT_VERSION\": %d, "
      "\"BG_VERSION_STRING\": \"%s\"}",
      (int)BG_STATUS_COUNT_, (int)BG_MODEL_COUNT, (int)BG_FIELD_COUNT, (int)BG_FACE_COUNT,
      (int)BG_CHECKPOINT_VERSION, BG_VERSION_STRING);
  /* the enumerators the package names (_native.ENUMS), by model label and
   * field; a model's only where its header is in the build */
  printf(
      ",\n  \"enums\": {\"drucker-prager.cone\": {\"compression\": %d, \"extension\": %d, "
      "\"plane-strain\": %d}",
      (int)BG_CONE_COMPRESSION, (int)BG_CONE_EXTENSION, (int)BG_CONE_PLANE_STRAIN);
#ifdef BG_MAT_ELASTIC_PARAMS_H
  printf(", \"elastic.law\": {\"neo-hookean\": %d, \"fixed-corotated\": %d}",
         (int)BG_ELASTIC_NEO_HOOKEAN, (int)BG_ELASTIC_FIXED_COROTATED);
#endif
  printf("}\n}\n");
  return 0;
}
