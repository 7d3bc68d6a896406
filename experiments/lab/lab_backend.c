/* lab_backend.c: every backend name the lab deals with, in one place: what
 * --backend accepts, whether the request can run here, and what the
 * manifest records. The manifest takes the backend from the simulations
 * themselves (bg_sim_backend of the first one the run begins), so it says
 * what ran, not what was asked for. */
#include <string.h>

#include "lab_internal.h"

/* The names --backend accepts, "auto" last: the library's choice. */
static const char *const accepted[] = {"cpu", "cuda", "auto"};
enum { N_ACCEPTED = (int)(sizeof accepted / sizeof accepted[0]) };

const char *bglab_backend_choices(void) { return "cpu, cuda, auto"; }

const char *bglab_backend_default(void) { return "auto"; }

int bglab_backend_valid(const char *name) {
  for (int i = 0; i < N_ACCEPTED; ++i)
    if (!strcmp(name, accepted[i])) return 1;
  return 0;
}

void bglab_backend_check_available(const char *requested) {
  /* the CPU always runs; "auto" falls back to it, so only a device is checked */
  if (!strcmp(requested, "cpu")) return;
  char why[256] = "";
  if (!bg_backend_available(requested, why, sizeof why))
    lab_die("--backend %s: not available here: %s", requested, why);
}

int bglab_backend_device(char *desc, size_t n) {
  desc[0] = 0;
  return bg_backend_available("cuda", desc, n);
}

int bglab_backend_on_cpu(const char *requested) {
  return !strcmp(requested, "cpu") || !bg_backend_available("cuda", NULL, 0);
}

/* The device a backend runs on: the library's description of it, or the
 * CPU model for the CPU backend. */
static void device_of(const char *backend, const char *cpu, char *dev, size_t n) {
  dev[0] = 0;
  if (strcmp(backend, "cpu") != 0 && bg_backend_available(backend, dev, n) && dev[0]) return;
  snprintf(dev, n, "%s", cpu);
}

void bglab_backend_note(bg_lab *lab, const bg_sim *sim) {
  const char *name = bg_sim_backend(sim);
  if (!name || !name[0]) return;
#ifdef _OPENMP
#pragma omp critical(bglab_backend)
#endif
  if (!lab->sim_backend[0]) snprintf(lab->sim_backend, sizeof lab->sim_backend, "%s", name);
}

void bglab_manifest_backend(FILE *fp, const bg_lab *lab, const char *cpu) {
  /* a run that began no simulation (a probe, a sweep's gather) records the
   * backend its request resolves to here */
  const char *used = lab->sim_backend;
  if (!used[0]) used = !bglab_backend_on_cpu(lab->backend) ? "cuda" : "cpu";
  char dev[256], esc[600];
  device_of(used, cpu, dev, sizeof dev);
  lab_json_escape(esc, sizeof esc, dev);
  /* an experiment that states its own (the probe runs no simulation) wins */
  if (!lab_manifest_has(lab, "backend")) fprintf(fp, "  \"backend\": \"%s\",\n", used);
  if (!lab_manifest_has(lab, "device")) fprintf(fp, "  \"device\": \"%s\",\n", esc);
}
