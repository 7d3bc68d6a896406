/* bg_test_backend.h: what a test may ask the backend list
 * (core/backends/bg_backend_list.h) about the backend it runs on, so that a
 * section keys on a property of the backend rather than on its name. */
#ifndef BG_TEST_BACKEND_H
#define BG_TEST_BACKEND_H

#include <string.h>

#include "bagnold.h"
#include "bg_backend_list.h"

/* 1 when name is a row of the list that runs on the host (REQUIRES CPU):
 * such a backend sums in an order fixed by the particle order alone, so it
 * repeats a run bit for bit at any thread count. 0 for a device row, "auto"
 * and unknown names. */
static inline int bg_test_backend_on_host(const char *name) {
  static const struct {
    const char *name;
    int host;
  } rows[] = {
#define BG_TEST_HOST_CPU 1
#define BG_TEST_HOST_CUDA 0
#define BG_X_(ident, nm, requires, autopick) {nm, BG_TEST_HOST_##requires},
      BG_BACKEND_LIST(BG_X_)
#undef BG_X_
#undef BG_TEST_HOST_CPU
#undef BG_TEST_HOST_CUDA
  };
  for (size_t i = 0; name && i < sizeof rows / sizeof rows[0]; ++i)
    if (strcmp(rows[i].name, name) == 0) return rows[i].host;
  return 0;
}

/* 1 when backend has the property prop among whose values is value (a
 * value list "a|b|c", bg_backend_property): a test of that property skips
 * a backend without it. */
static inline int bg_test_has_property_value(const char *backend, const char *prop, const char *value) {
  for (int i = 0; i < bg_backend_property_count(backend); ++i) {
    const char *name = NULL, *values = NULL, *def = NULL, *doc = NULL;
    if (bg_backend_property(backend, i, &name, &values, &def, &doc) == BG_OK && strcmp(name, prop) == 0 &&
        strstr(values, value))
      return 1;
  }
  return 0;
}

#endif /* BG_TEST_BACKEND_H */
