/* series.c: TSV time series for people and gnuplot: a comment line, a
 * header naming every column with its unit, then rows at full float
 * precision. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

/* Written under PATH.tmp and renamed at close, so that a series under its
 * own name is complete; a failed write keeps its errno for the caller. */
struct bg_series {
  bg_out out;
  FILE *fp;
  size_t n_columns;
  int bad, err;
};

bg_status bg_series_open(const char *path, const char *comment, const char *const *columns,
                         size_t n_columns, bg_series **out) {
  if (!path || !out || (n_columns && !columns)) return BG_ERR_NULL;
  *out = NULL;
  if (n_columns == 0) return BG_ERR_RANGE;
  for (size_t c = 0; c < n_columns; ++c)
    if (!columns[c]) return BG_ERR_NULL;
  bg_series *s = calloc(1, sizeof *s);
  if (!s) return BG_ERR_NOMEM;
  if (bg_out_open(&s->out, path, "w") != 0) {
    int e = errno;
    free(s);
    errno = e;
    return e == ENOMEM ? BG_ERR_NOMEM : BG_ERR_IO;
  }
  s->fp = s->out.fp;
  s->n_columns = n_columns;
  if (comment && comment[0]) fprintf(s->fp, "# %s\n", comment);
  /* a plain header (no '#'): gnuplot's columnheader and pandas read it */
  for (size_t c = 0; c < n_columns; ++c) fprintf(s->fp, "%s%s", c ? "\t" : "", columns[c]);
  fputc('\n', s->fp);
  *out = s;
  return BG_OK;
}

bg_status bg_series_row(bg_series *s, const double *values, size_t n) {
  if (!s || !values) return BG_ERR_NULL;
  if (n != s->n_columns) return BG_ERR_RANGE;
  for (size_t c = 0; c < n; ++c)
    if (fprintf(s->fp, "%s%.9g", c ? "\t" : "", values[c]) < 0 && !s->bad) s->bad = 1, s->err = errno;
  if (fputc('\n', s->fp) == EOF && !s->bad) s->bad = 1, s->err = errno;
  if (s->bad) errno = s->err;
  return s->bad ? BG_ERR_IO : BG_OK;
}

bg_status bg_series_close(bg_series *s) {
  if (!s) return BG_OK;
  int err = bg_out_commit(&s->out, 0, s->bad ? (s->err ? s->err : EIO) : 0);
  free(s);
  errno = err;
  return err ? BG_ERR_IO : BG_OK;
}

static const char *const sim_columns[] = {"step",          "t_s",         "dt_s",
                                          "active",        "parked",      "parked_mass_kg",
                                          "kinetic_energy_J", "max_speed_m_per_s"};

bg_status bg_sim_series_open(const char *path, const char *comment, bg_series **out) {
  return bg_series_open(path, comment, sim_columns, sizeof sim_columns / sizeof sim_columns[0], out);
}

bg_status bg_sim_series_values(bg_sim *sim, double row[BG_SIM_SERIES_COLUMNS]) {
  if (!sim || !row) return BG_ERR_NULL;
  bg_stats st;
  bg_status rc = bg_sim_stats(sim, &st);
  if (rc != BG_OK) return rc;
  size_t n = st.n_particles;
  double ke = 0;
  if (n) {
    bg_real *v = malloc(3 * n * sizeof *v), *m = malloc(n * sizeof *m), *a = malloc(n * sizeof *a);
    if (!v || !m || !a) {
      free(v);
      free(m);
      free(a);
      return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the kinetic energy of %zu particles", n);
    }
    if ((rc = bg_sim_get(sim, BG_FIELD_V, v, 3 * n)) == BG_OK &&
        (rc = bg_sim_get(sim, BG_FIELD_MASS, m, n)) == BG_OK &&
        (rc = bg_sim_get(sim, BG_FIELD_ACTIVE, a, n)) == BG_OK)
      for (size_t p = 0; p < n; ++p)
        if (a[p] > 0)
          ke += 0.5 * m[p] * ((double)v[3 * p] * v[3 * p] + (double)v[3 * p + 1] * v[3 * p + 1] +
                              (double)v[3 * p + 2] * v[3 * p + 2]);
    free(v);
    free(m);
    free(a);
    if (rc != BG_OK) return rc;
  }
  double r[BG_SIM_SERIES_COLUMNS] = {(double)st.step, st.time, st.dt, (double)st.n_active, (double)st.n_parked,
                                     st.parked_mass, ke, st.max_speed};
  memcpy(row, r, sizeof r);
  return BG_OK;
}

bg_status bg_sim_series_row(bg_sim *sim, bg_series *s) {
  if (!sim || !s) return BG_ERR_NULL;
  double row[BG_SIM_SERIES_COLUMNS];
  bg_status rc = bg_sim_series_values(sim, row);
  return rc == BG_OK ? bg_series_row(s, row, BG_SIM_SERIES_COLUMNS) : rc;
}
