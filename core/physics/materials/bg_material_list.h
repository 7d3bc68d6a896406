/* bg_material_list.h: the registry of material models, the one list.
 * Adding a model is its header under core/physics/materials/ (parameters,
 * validation, prepare step, return map, scalar update, optionally a lane
 * update) plus its #include and its X line here; the enum, the tagged union
 * of bagnold.h's bg_material, validation, the prepare step and the dispatch
 * of both backends are generated from the list.
 *
 * X(name, NAME, lane, "label"): name prefixes the model's functions and
 * types (bg_<name>_params, bg_<name>_default_params, bg_<name>_c, bg_<name>_validate,
 * bg_<name>_prepare, bg_<name>_update, bg_<name>_nonlocal_slot,
 * bg_<name>_nonlocal_dt, with lane = 1 also
 * bg_<name>_update_chunk); NAME makes BG_MODEL_<NAME>; label is the name
 * users type (bg_material_model_from_name). With BG_MAT_PARAMS_ONLY defined
 * (bagnold.h) the headers give their parameter structs alone. */
#ifndef BG_MATERIAL_LIST_H
#define BG_MATERIAL_LIST_H

#include "bg_mat_dp.h"
#include "bg_mat_mui.h"
#include "bg_mat_ngf.h"

#define BG_MATERIAL_LIST(X)            \
  X(dp, DP, 1, "drucker-prager")       \
  X(mui, MUI, 1, "mu-i")               \
  X(ngf, NGF, 0, "ngf")

typedef enum bg_material_model {
#define BG_X_(n, N, lane, label) BG_MODEL_##N,
  BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
  BG_MODEL_COUNT
} bg_material_model;

#endif /* BG_MATERIAL_LIST_H */
