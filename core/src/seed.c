/* seed.c: particle seeding patterns (bagnold.h, "seeding"). The caller's
 * uniform source supplies every random number, so a caller that seeded
 * with its own generator gets the same points, in the same order, from
 * here. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "bagnold.h"

static bg_status seed_fail(char *err, size_t err_len, bg_status s, const char *fmt, ...) {
  if (err && err_len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
  }
  return s;
}

/* the lattice point (i, j, k) before jitter */
static void lattice_point(const bg_seed_lattice_desc *d, size_t i, size_t j, size_t k, double p[3]) {
  p[0] = d->origin[0] + (i + 0.5) * d->spacing;
  p[1] = d->origin[1] + (j + 0.5) * d->spacing;
  p[2] = d->origin[2] + (k + 0.5) * d->spacing;
}

bg_status bg_seed_lattice(const bg_seed_lattice_desc *d, bg_real *x, size_t cap, size_t *n, char *err,
                          size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!d) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_lattice: desc is NULL");
  if (!n) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_lattice: n is NULL");
  *n = 0;
  for (int a = 0; a < 3; ++a)
    if (!isfinite(d->origin[a]))
      return seed_fail(err, err_len, BG_ERR_NONFINITE, "bg_seed_lattice: origin[%d] is %g", a, d->origin[a]);
  if (!isfinite(d->spacing) || !isfinite(d->jitter))
    return seed_fail(err, err_len, BG_ERR_NONFINITE, "bg_seed_lattice: spacing %g or jitter %g is not finite",
                     d->spacing, d->jitter);
  if (!(d->spacing > 0))
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_lattice: spacing %g m must be > 0", d->spacing);
  if (d->jitter < 0 || d->jitter > 1)
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_lattice: jitter %g must lie in [0, 1]", d->jitter);
  if (d->jitter > 0 && !d->uniform)
    return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_lattice: jitter %g needs a uniform source (NULL)",
                     d->jitter);
  if ((d->count[1] && d->count[0] > SIZE_MAX / d->count[1]) ||
      (d->count[2] && d->count[0] * d->count[1] > SIZE_MAX / 3 / d->count[2]))
    return seed_fail(err, err_len, BG_ERR_OVERFLOW, "bg_seed_lattice: count %zu x %zu x %zu overflows size_t",
                     d->count[0], d->count[1], d->count[2]);
  /* count first (the region test draws nothing), so that a short x fails
   * before any number is drawn */
  size_t kept = 0;
  double p[3];
  for (size_t i = 0; i < d->count[0]; ++i)
    for (size_t j = 0; j < d->count[1]; ++j)
      for (size_t k = 0; k < d->count[2]; ++k) {
        lattice_point(d, i, j, k, p);
        if (!d->inside || d->inside(p, d->inside_ctx)) kept++;
      }
  if (!x) {
    *n = kept;
    return BG_OK;
  }
  if (kept > cap)
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_lattice: %zu points, x holds cap %zu", kept, cap);
  size_t m = 0;
  for (size_t i = 0; i < d->count[0]; ++i)
    for (size_t j = 0; j < d->count[1]; ++j)
      for (size_t k = 0; k < d->count[2]; ++k) {
        lattice_point(d, i, j, k, p);
        if (d->inside && !d->inside(p, d->inside_ctx)) continue;
        for (int a = 0; a < 3; ++a) {
          double u = d->uniform ? d->uniform(d->uniform_ctx) : 0.5;
          x[3 * m + a] = (bg_real)(p[a] + d->jitter * d->spacing * (u - 0.5));
        }
        m++;
      }
  *n = m;
  return BG_OK;
}
