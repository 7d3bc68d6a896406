/* material_info.c: the material registry at run time (bagnold.h), read
 * from the generated list and the models' own field lists and state
 * descriptions, so that bindings mirror the models without restating them. */
#include <stddef.h>

#include "bg_internal.h"

/* Row i of model n's field list BG_<N>_PARAMS into name/offset/kind; the
 * function returns the field count, so i = -1 counts. */
#define BG_PARAM_ROW_(type, f, kd)    \
  if (k++ == i) {                     \
    *name = #f;                       \
    *offset = offsetof(params_t_, f); \
    *kind = kd;                       \
  }
#define BG_X_(n, N, lane, label)                                                       \
  static int n##_param(int i, const char **name, size_t *offset, bg_matp_kind *kind) { \
    typedef bg_##n##_params params_t_;                                                 \
    int k = 0;                                                                         \
    BG_##N##_PARAMS(BG_PARAM_ROW_) return k;                                           \
  }
BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
#undef BG_PARAM_ROW_

static int in_list(bg_material_model m) { return (int)m >= 0 && (int)m < BG_MODEL_COUNT; }

int bg_material_model_count(void) { return BG_MODEL_COUNT; }

const char *bg_material_model_member(bg_material_model m) {
#define BG_X_(n, N, lane, label) #n,
  static const char *const member[] = {BG_MATERIAL_LIST(BG_X_)};
#undef BG_X_
  return in_list(m) ? member[m] : NULL;
}

size_t bg_material_params_size(bg_material_model m) {
  switch (m) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N:             \
    return sizeof(bg_##n##_params);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default:
      return 0;
  }
}

/* Model m's row i (or its count, i = -1); -1 outside the list. */
static int param_row(bg_material_model m, int i, const char **name, size_t *offset,
                     bg_matp_kind *kind) {
  switch (m) {
#define BG_X_(n, N, lane, label) \
  case BG_MODEL_##N:             \
    return n##_param(i, name, offset, kind);
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
    default:
      return -1;
  }
}

int bg_material_param_count(bg_material_model m) {
  const char *name;
  size_t offset;
  bg_matp_kind kind;
  return param_row(m, -1, &name, &offset, &kind);
}

bg_status bg_material_param_info(bg_material_model m, int i, const char **name, size_t *offset,
                                 bg_matp_kind *kind) {
  if (!name || !offset || !kind) return BG_ERR_NULL;
  int n = bg_material_param_count(m);
  if (n < 0 || i < 0 || i >= n) return BG_ERR_RANGE;
  param_row(m, i, name, offset, kind);
  return BG_OK;
}

int bg_material_state_count(void) { return BG_NSTATE; }

const char *bg_material_state_name(bg_material_model m, int slot) {
  if (!in_list(m) || slot < 0 || slot >= BG_NSTATE) return NULL;
  return bg_material_state((int)m).name[slot];
}
