/* lab_backend.c: what the lab does with backends, in one place: what
 * --backend accepts (the library's list, and "auto"), whether the request
 * can run here, and what the manifest records. The manifest takes the
 * backend and its properties from the simulations themselves (the first
 * one the run begins), so it says what ran, not what was asked for. No
 * backend is named here: the library's list is the one source. */
#include <string.h>

#include "lab_internal.h"

const char *bglab_backend_choices(void) {
  static char buf[256];
  if (!buf[0]) {
    size_t at = 0;
    for (int i = 0; i < bg_backend_count() && at < sizeof buf; ++i)
      at += (size_t)snprintf(buf + at, sizeof buf - at, "%s, ", bg_backend_name(i));
    if (at < sizeof buf) snprintf(buf + at, sizeof buf - at, "auto");
  }
  return buf;
}

const char *bglab_backend_default(void) { return "auto"; }

int bglab_backend_valid(const char *name) {
  if (!strcmp(name, "auto")) return 1;
  for (int i = 0; i < bg_backend_count(); ++i)
    if (!strcmp(name, bg_backend_name(i))) return 1;
  return 0;
}

void bglab_backend_check_available(const char *requested) {
  char why[256] = "";
  if (!bg_backend_available(requested, why, sizeof why))
    lab_die("--backend %s: not available here: %s", requested, why);
}

/* The first device backend of the list that can run here. */
static const char *first_device(void) {
  for (int i = 0; i < bg_backend_count(); ++i)
    if (bg_backend_on_device(bg_backend_name(i)) == 1 && bg_backend_available(bg_backend_name(i), NULL, 0))
      return bg_backend_name(i);
  return NULL;
}

int bglab_backend_device(char *desc, size_t n) {
  desc[0] = 0;
  const char *dev = first_device();
  if (dev) return bg_backend_available(dev, desc, n);
  /* none runs here: the first device backend's reason, or that there is none */
  for (int i = 0; i < bg_backend_count(); ++i)
    if (bg_backend_on_device(bg_backend_name(i)) == 1) {
      (void)bg_backend_available(bg_backend_name(i), desc, n);
      return 0;
    }
  snprintf(desc, n, "this build has no device backend");
  return 0;
}

int bglab_backend_on_cpu(const char *requested) { return bg_backend_on_device(requested) != 1; }

/* The device a backend runs on: the library's description of it, or the
 * CPU model for a host backend. */
static void device_of(const char *backend, const char *cpu, char *dev, size_t n) {
  dev[0] = 0;
  if (bg_backend_on_device(backend) == 1 && bg_backend_available(backend, dev, n) && dev[0]) return;
  snprintf(dev, n, "%s", cpu);
}

void bglab_backend_note(bg_lab *lab, const bg_sim *sim) {
  const char *name = bg_sim_backend(sim);
  if (!name || !name[0]) return;
  bg_sim_desc d;
  int described = bg_sim_describe(sim, &d) == BG_OK;
#ifdef _OPENMP
#pragma omp critical(bglab_backend)
#endif
  if (!lab->sim_backend[0]) {
    snprintf(lab->sim_backend, sizeof lab->sim_backend, "%s", name);
    snprintf(lab->sim_properties, sizeof lab->sim_properties, "%s",
             described && d.properties ? d.properties : "");
  }
}

void bglab_manifest_backend(FILE *fp, const bg_lab *lab, const char *cpu) {
  /* a run that began no simulation (a probe, a sweep's gather) records the
   * backend its request resolves to here, with that backend's defaults */
  char used[64], props[sizeof lab->sim_properties];
  snprintf(used, sizeof used, "%s", lab->sim_backend);
  snprintf(props, sizeof props, "%s", lab->sim_properties);
  if (!used[0]) {
    const char *r = bg_backend_resolve(lab->backend);
    snprintf(used, sizeof used, "%s", r ? r : lab->backend);
    props[0] = 0;
    size_t at = 0;
    for (int i = 0; i < bg_backend_property_count(used) && at < sizeof props; ++i) {
      const char *nm = NULL, *def = NULL;
      if (bg_backend_property(used, i, &nm, NULL, &def, NULL) == BG_OK)
        at += (size_t)snprintf(props + at, sizeof props - at, "%s%s=%s", at ? "," : "", nm, def);
    }
  }
  char dev[256], esc[600];
  device_of(used, cpu, dev, sizeof dev);
  lab_json_escape(esc, sizeof esc, dev);
  /* an experiment that states its own (the probe runs no simulation) wins */
  if (!lab_manifest_has(lab, "backend")) fprintf(fp, "  \"backend\": \"%s\",\n", used);
  if (!lab_manifest_has(lab, "backend_properties")) fprintf(fp, "  \"backend_properties\": \"%s\",\n", props);
  if (!lab_manifest_has(lab, "device")) fprintf(fp, "  \"device\": \"%s\",\n", esc);
}
