/* bg_silo_result.c: a silo run's result into a sweep point's blob and back,
 * and its release (see bg_silo.h). */
#include <stdlib.h>
#include <string.h>

#include "bg_silo_internal.h"

/* Field by field in a fixed order, then the series rows as text. */
#define SILO_RESULT_MAGIC 0x73696c72u /* "silr" */
enum { SILO_N_D = 26 + 3 * BG_SILO_N_SUB };

static void put_d(bg_lab_blob *b, const double *v, size_t n) { bg_lab_blob_put(b, v, n * sizeof *v); }
static void get_d(bg_lab_blob *b, double *v, size_t n) { bg_lab_blob_get(b, v, n * sizeof *v); }

static void silo_doubles(bg_silo_result *r, double **p) {
  double *f[] = {&r->D_nom, &r->D_geo, &r->t_end, &r->M0, &r->H, &r->h_stop, &r->rho_b, &r->rho_b_sd, &r->t0w,
                 &r->t1w, &r->W, &r->sW, &r->W_plane, &r->sW_plane, &r->flat, &r->W_closure, &r->W_counted,
                 &r->W_closure_rho0, &r->flat_startup, &r->v_c, &r->u_c, &r->D_flow, &r->rel_se, &r->D_fed, &r->dx_fed, &r->rho0_fed};
  _Static_assert(sizeof f / sizeof f[0] + 3 * BG_SILO_N_SUB == SILO_N_D, "SILO_N_D counts every field");
  int k = 0;
  for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) p[k++] = f[i];
  for (int i = 0; i < BG_SILO_N_SUB; ++i) {
    p[k++] = &r->W_sub[i];
    p[k++] = &r->t_sub[i][0];
    p[k++] = &r->t_sub[i][1];
  }
}

void bg_silo_result_pack(const bg_silo_result *r, const char *series, size_t series_len, bg_lab_blob *b) {
  bg_silo_result c = *r;
  double *p[SILO_N_D];
  silo_doubles(&c, p);
  int32_t rule = 0;
  for (int i = 0; i < BG_SILO_N_STOP_RULES; ++i)
    if (r->stop_rule && !strcmp(r->stop_rule, bg_silo_stop_rules[i])) rule = i;
  const int32_t ints[6] = {(int32_t)SILO_RESULT_MAGIC, rule, r->jammed, r->n_window, r->n_prof, r->nb};
  const uint64_t u[3] = {r->n_particles, r->steps, series_len};
  bg_lab_blob_put(b, ints, sizeof ints);
  bg_lab_blob_put(b, u, sizeof u);
  for (int i = 0; i < SILO_N_D; ++i) {
    const double v = *p[i];
    bg_lab_blob_put(b, &v, sizeof v);
  }
  const double *arr[6] = {r->pos, r->area, r->sm, r->smv, r->smr, r->cnt};
  for (int i = 0; i < 6; ++i)
    if (r->nb > 0) put_d(b, arr[i], (size_t)r->nb);
  if (series_len) bg_lab_blob_put(b, series, series_len);
}

bg_silo_result bg_silo_result_unpack(bg_lab_blob *b, char **series, size_t *series_len) {
  bg_silo_result r;
  memset(&r, 0, sizeof r);
  int32_t ints[6];
  uint64_t u[3];
  bg_lab_blob_get(b, ints, sizeof ints);
  bg_lab_blob_get(b, u, sizeof u);
  if ((uint32_t)ints[0] != SILO_RESULT_MAGIC || ints[1] < 0 || ints[1] >= BG_SILO_N_STOP_RULES || ints[5] < 0)
    bg_lab_fail("a silo result is damaged or from another version of the experiment");
  r.stop_rule = bg_silo_stop_rules[ints[1]];
  r.jammed = ints[2];
  r.n_window = ints[3];
  r.n_prof = ints[4];
  r.nb = ints[5];
  r.n_particles = (size_t)u[0];
  r.steps = u[1];
  double *p[SILO_N_D];
  silo_doubles(&r, p);
  for (int i = 0; i < SILO_N_D; ++i) {
    double v;
    bg_lab_blob_get(b, &v, sizeof v);
    *p[i] = v;
  }
  double **arr[6] = {&r.pos, &r.area, &r.sm, &r.smv, &r.smr, &r.cnt};
  for (int i = 0; i < 6; ++i) {
    if (r.nb == 0) continue;
    if ((size_t)r.nb > (b->len - b->pos) / sizeof(double)) bg_lab_fail("a silo result ends early: damaged");
    *arr[i] = malloc((size_t)r.nb * sizeof **arr[i]);
    if (!*arr[i]) bg_lab_fail("out of memory for a silo result");
    get_d(b, *arr[i], (size_t)r.nb);
  }
  if (u[2] != b->len - b->pos) bg_lab_fail("a silo result's series is %llu bytes, %zu are left: damaged",
                                           (unsigned long long)u[2], b->len - b->pos);
  *series_len = (size_t)u[2];
  *series = malloc(*series_len + 1);
  if (!*series) bg_lab_fail("out of memory for a silo series");
  bg_lab_blob_get(b, *series, *series_len);
  (*series)[*series_len] = 0;
  return r;
}

void bg_silo_result_free(bg_silo_result *r) {
  free(r->pos);
  free(r->area);
  free(r->sm);
  free(r->smv);
  free(r->smr);
  free(r->cnt);
  r->pos = r->area = r->sm = r->smv = r->smr = r->cnt = NULL;
}

