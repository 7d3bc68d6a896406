/* backend.c: the backends of the one list (core/backends/bg_backend_list.h)
 * as this build has them: their names, availability and named tuning
 * properties, the choice bg_sim_create makes, and the parse of
 * desc.properties into the configuration a backend reads. */
#include <stdio.h>
#include <string.h>

#include "bg_internal.h"

/* One check on one line; the message goes to the handle (bg_fail). */
#define CHECK(cond, status, ...)                           \
  do {                                                     \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)

/* Every row of bg_backend_list.h, with its ops table where this build has
 * it (NULL: a row that needs what the build lacks, named by requires). */
typedef struct backend_row {
  const char *name;
  const char *requires;
  int autopick;
  const bg_backend_ops *ops;
} backend_row;
#define BG_ROW_OPS_CPU_(ident) &bg_backend_##ident
#ifdef BAGNOLD_HAVE_CUDA
#define BG_ROW_OPS_CUDA_(ident) &bg_backend_##ident
#else
#define BG_ROW_OPS_CUDA_(ident) NULL
#endif
static const backend_row rows[] = {
#define BG_X_(ident, name, requires, autopick) {name, #requires, autopick, BG_ROW_OPS_##requires##_(ident)},
    BG_BACKEND_LIST(BG_X_)
#undef BG_X_
};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

int bg_backend_count(void) {
  int n = 0;
  for (int i = 0; i < N_ROWS; ++i) n += rows[i].ops != NULL;
  return n;
}

const char *bg_backend_name(int i) {
  for (int k = 0; k < N_ROWS; ++k)
    if (rows[k].ops && i-- == 0) return rows[k].name;
  return NULL;
}

/* The compiled names, ", "-separated, for messages. */
static void compiled_names(char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (int k = 0; k < N_ROWS && at < len; ++k)
    if (rows[k].ops) at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", rows[k].name);
}

/* The row of name (NULL: not in the list). "auto" is the first available
 * row "auto" may pick. */
static const backend_row *find_row(const char *name) {
  char why[256];
  if (!name || strcmp(name, "auto") == 0) {
    for (int k = 0; k < N_ROWS; ++k)
      if (rows[k].autopick && rows[k].ops && rows[k].ops->available(why, sizeof why)) return &rows[k];
    return NULL;
  }
  for (int k = 0; k < N_ROWS; ++k)
    if (strcmp(name, rows[k].name) == 0) return &rows[k];
  return NULL;
}

const char *bg_backend_ops_name(const bg_backend_ops *ops) {
  for (int k = 0; k < N_ROWS; ++k)
    if (rows[k].ops == ops) return rows[k].name;
  return "(not in the list)";
}

int bg_backend_on_device(const char *name) {
  const backend_row *r = find_row(name);
  if (!r || !r->ops) return -1;
  return strcmp(r->requires, "CPU") != 0;
}

const char *bg_backend_resolve(const char *name) {
  const backend_row *r = find_row(name);
  return r && r->ops ? r->name : NULL;
}

bg_status bg_backend_pick(bg_sim *sim, const char *name, const bg_backend_ops **out) {
  char why[256] = "", names[256];
  const backend_row *r = find_row(name);
  if (!name || strcmp(name, "auto") == 0) {
    if (!r) return bg_fail(sim, BG_ERR_BACKEND, "backend \"auto\": no backend is available");
    *out = r->ops;
    return BG_OK;
  }
  if (r && !r->ops)
    return bg_fail(sim, BG_ERR_BACKEND, "backend \"%s\": this build has no %s (configure with BAGNOLD_%s=ON where "
                   "its toolkit exists)", name, r->requires, r->requires);
  if (r) {
    /* compiled in but no device to run it: the device's error, not the name's */
    if (!r->ops->available(why, sizeof why))
      return bg_fail(sim, BG_ERR_DEVICE, "backend \"%s\" is not available here: %s", name, why);
    *out = r->ops;
    return BG_OK;
  }
  compiled_names(names, sizeof names);
  return bg_fail(sim, BG_ERR_BACKEND, "backend \"%s\" is unknown; accepted: %s, auto", name, names);
}

int bg_backend_available(const char *name, char *why, size_t why_len) {
  char buf[256] = "";
  if (why && why_len) why[0] = 0;
  const backend_row *r = find_row(name);
  if (!r) {
    if (why && why_len)
      snprintf(why, why_len, "%s", !name || !strcmp(name, "auto") ? "no backend is available" : "unknown backend");
    return 0;
  }
  if (!r->ops) {
    if (why && why_len) snprintf(why, why_len, "this build has no %s backend", r->requires);
    return 0;
  }
  int ok = r->ops->available(buf, sizeof buf);
  if (why && why_len) snprintf(why, why_len, "%s", buf);
  return ok;
}

int bg_backend_property_count(const char *backend) {
  const backend_row *r = find_row(backend);
  return r && r->ops ? r->ops->n_properties : -1;
}

bg_status bg_backend_property(const char *backend, int i, const char **name, const char **values, const char **def,
                              const char **doc) {
  const backend_row *r = find_row(backend);
  if (!r || !r->ops) return BG_ERR_BACKEND;
  if (i < 0 || i >= r->ops->n_properties) return BG_ERR_RANGE;
  const bg_property_def *p = &r->ops->properties[i];
  if (name) *name = p->name;
  if (values) *values = p->values;
  if (def) *def = p->def;
  if (doc) *doc = p->doc;
  return BG_OK;
}

const char *bg_config_property(const bg_config *c, const char *name) {
  for (int i = 0; i < c->n_props; ++i)
    if (strcmp(c->prop_defs[i].name, name) == 0) return c->prop[i];
  return NULL;
}

/* 1 when value is one of the '|'-separated values. */
static int value_accepted(const char *values, const char *value, size_t len) {
  for (const char *v = values; *v;) {
    size_t n = strcspn(v, "|");
    if (n == len && strncmp(v, value, len) == 0) return 1;
    v += n + (v[n] == '|');
  }
  return 0;
}

bg_status bg_backend_configure(bg_sim *sim, const bg_backend_ops *ops, const char *text) {
  bg_config *c = &sim->cfg;
  c->variant = ops->variant;
  c->prop_defs = ops->properties;
  c->n_props = ops->n_properties;
  CHECK(c->n_props <= BG_MAX_PROPERTIES, BG_ERR_BACKEND, "backend \"%s\" defines %d properties, more than %d",
        bg_backend_ops_name(ops), c->n_props, BG_MAX_PROPERTIES);
  int given[BG_MAX_PROPERTIES] = {0};
  for (int i = 0; i < c->n_props; ++i) snprintf(c->prop[i], BG_PROPERTY_LEN, "%s", ops->properties[i].def);
  for (const char *t = text ? text : ""; *t;) {
    size_t len = strcspn(t, ",");
    const char *eq = memchr(t, '=', len);
    CHECK(eq && eq > t, BG_ERR_RANGE, "properties: \"%.*s\" is not name=value (backend \"%s\")", (int)len, t,
          bg_backend_ops_name(ops));
    size_t nlen = (size_t)(eq - t), vlen = len - nlen - 1;
    int k = -1;
    for (int i = 0; i < c->n_props; ++i)
      if (strlen(ops->properties[i].name) == nlen && strncmp(ops->properties[i].name, t, nlen) == 0) k = i;
    if (k < 0) {
      char names[256] = "";
      size_t at = 0;
      for (int i = 0; i < c->n_props && at < sizeof names; ++i)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", ops->properties[i].name);
      return bg_fail(sim, BG_ERR_RANGE, "properties: backend \"%s\" has no property \"%.*s\" (its properties: %s)",
                     bg_backend_ops_name(ops), (int)nlen, t, c->n_props ? names : "none");
    }
    CHECK(!given[k], BG_ERR_RANGE, "properties: \"%s\" is given twice (backend \"%s\")", ops->properties[k].name,
          bg_backend_ops_name(ops));
    CHECK(vlen < BG_PROPERTY_LEN && value_accepted(ops->properties[k].values, eq + 1, vlen), BG_ERR_RANGE,
          "properties: %s of backend \"%s\" must be one of %s (got \"%.*s\")", ops->properties[k].name, bg_backend_ops_name(ops),
          ops->properties[k].values, (int)vlen, eq + 1);
    given[k] = 1;
    memcpy(c->prop[k], eq + 1, vlen);
    c->prop[k][vlen] = 0;
    t += len + (t[len] == ',');
  }
  size_t at = 0;
  sim->properties[0] = 0;
  for (int i = 0; i < c->n_props && at < sizeof sim->properties; ++i)
    at += (size_t)snprintf(sim->properties + at, sizeof sim->properties - at, "%s%s=%s", i ? "," : "",
                           ops->properties[i].name, c->prop[i]);
  return BG_OK;
}
