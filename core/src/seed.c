/* seed.c: particle seeding patterns (bagnold.h, "seeding"). The caller's
 * uniform source supplies every random number, so a caller that seeded
 * with its own generator gets the same points, in the same order, from
 * here. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------ Poisson disk
 * Bridson (2007): a background grid of cells no wider than r / sqrt(3)
 * holds at most one sample each, so a candidate is checked against the
 * few cells within r of it. Fronts grow from a sweep over the cells: an
 * empty cell gets one uniform candidate, and an accepted one starts a
 * front that runs until its active list empties; the sweep thereby seeds
 * every component of the region, not only the first one found. */

#define PD_PI 3.14159265358979323846

/* what a front's candidate test needs */
typedef struct pd_state {
  const bg_seed_poisson_desc *d;
  double r, r2, lo[3], len[3], h[3];
  size_t nc[3];
  size_t *cell;  /* 0 empty, else the sample's index + 1 */
  double *pts;   /* 3 per sample */
  size_t n, cap; /* samples held, room */
  size_t *active;
  size_t n_active;
} pd_state;

double bg_seed_poisson_radius(double dx, double ppc) {
  if (!(dx > 0) || !(ppc > 0) || !isfinite(dx) || !isfinite(ppc)) return NAN;
  /* n = ppc / dx^3 disks of diameter r fill the fraction phi = n pi r^3 / 6 */
  return cbrt(6.0 * BG_SEED_POISSON_PACKING * dx * dx * dx / (PD_PI * ppc));
}

static size_t pd_cell_of(const pd_state *s, const double p[3]) {
  size_t c[3];
  for (int a = 0; a < 3; ++a) {
    double f = floor((p[a] - s->lo[a]) / s->h[a]);
    c[a] = f < 0 ? 0 : f >= (double)s->nc[a] ? s->nc[a] - 1 : (size_t)f;
  }
  return (c[0] * s->nc[1] + c[1]) * s->nc[2] + c[2];
}

/* a cell index on a periodic axis into [0, n) (never more than n out) */
static inline long pd_wrap(long i, long n) { return i < 0 ? i + n : i >= n ? i - n : i; }

/* 1 when q lies in the box (wrapped into it on a periodic axis, in place),
 * no sample is nearer than r, and the region keeps it */
static int pd_accept(const pd_state *s, double q[3]) {
  const bg_seed_poisson_desc *d = s->d;
  long c0[3], c1[3]; /* the cells a ball of radius r about q touches */
  for (int a = 0; a < 3; ++a) {
    if (d->periodic[a]) {
      q[a] = s->lo[a] + fmod(q[a] - s->lo[a], s->len[a]);
      if (q[a] < s->lo[a]) q[a] += s->len[a];
      if (q[a] >= s->lo[a] + s->len[a]) q[a] = s->lo[a];
    } else if (q[a] < s->lo[a] || q[a] > s->lo[a] + s->len[a]) {
      return 0;
    }
    c0[a] = (long)floor((q[a] - s->r - s->lo[a]) / s->h[a]);
    c1[a] = (long)floor((q[a] + s->r - s->lo[a]) / s->h[a]);
    if (!d->periodic[a]) {
      if (c0[a] < 0) c0[a] = 0;
      if (c1[a] > (long)s->nc[a] - 1) c1[a] = (long)s->nc[a] - 1;
    }
  }
  const long n0 = (long)s->nc[0], n1 = (long)s->nc[1], n2 = (long)s->nc[2];
  for (long i = c0[0]; i <= c1[0]; ++i) {
    long ii = pd_wrap(i, n0);
    for (long j = c0[1]; j <= c1[1]; ++j) {
      long jj = pd_wrap(j, n1);
      const size_t *row = s->cell + ((size_t)ii * s->nc[1] + (size_t)jj) * s->nc[2];
      for (long k = c0[2]; k <= c1[2]; ++k) {
        size_t o = row[pd_wrap(k, n2)];
        if (!o) continue;
        const double *p = s->pts + 3 * (o - 1);
        double r2 = 0;
        for (int a = 0; a < 3; ++a) {
          double e = q[a] - p[a];
          if (d->periodic[a]) e -= s->len[a] * nearbyint(e / s->len[a]);
          r2 += e * e;
        }
        if (r2 < s->r2) return 0;
      }
    }
  }
  return !d->inside || d->inside(q, d->inside_ctx);
}

/* appends an accepted sample to the points, its cell and the active list */
static int pd_push(pd_state *s, const double q[3]) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? 2 * s->cap : 1024;
    double *p = realloc(s->pts, 3 * nc * sizeof *p);
    size_t *a = p ? realloc(s->active, nc * sizeof *a) : NULL;
    if (p) s->pts = p;
    if (!a) return 0;
    s->active = a;
    s->cap = nc;
  }
  for (int a = 0; a < 3; ++a) s->pts[3 * s->n + a] = q[a];
  s->cell[pd_cell_of(s, q)] = s->n + 1;
  s->active[s->n_active++] = s->n++;
  return 1;
}

/* grows a front until no active sample has room around it */
static int pd_front(pd_state *s, int k) {
  const bg_seed_poisson_desc *d = s->d;
  while (s->n_active) {
    size_t i = (size_t)(d->uniform(d->uniform_ctx) * (double)s->n_active);
    if (i >= s->n_active) i = s->n_active - 1;
    const double *p = s->pts + 3 * s->active[i];
    int found = 0;
    for (int t = 0; t < k && !found; ++t) {
      /* uniform in the shell's volume between r and 2r */
      double rad = s->r * cbrt(1.0 + 7.0 * d->uniform(d->uniform_ctx));
      double z = 1.0 - 2.0 * d->uniform(d->uniform_ctx), az = 2.0 * PD_PI * d->uniform(d->uniform_ctx);
      double rho = sqrt(fmax(0.0, 1.0 - z * z));
      double q[3] = {p[0] + rad * rho * cos(az), p[1] + rad * rho * sin(az), p[2] + rad * z};
      if (pd_accept(s, q)) {
        if (!pd_push(s, q)) return 0;
        found = 1;
      }
    }
    if (!found) s->active[i] = s->active[--s->n_active];
  }
  return 1;
}

/* every argument checked before any work; fills the grid's geometry */
static bg_status pd_check(const bg_seed_poisson_desc *d, pd_state *s, char *err, size_t err_len) {
  static const char ax[] = "xyz";
  for (int a = 0; a < 3; ++a)
    if (!isfinite(d->lo[a]) || !isfinite(d->hi[a]))
      return seed_fail(err, err_len, BG_ERR_NONFINITE, "bg_seed_poisson: box %c [%g, %g] is not finite", ax[a],
                       d->lo[a], d->hi[a]);
  if (!isfinite(d->dx) || !isfinite(d->ppc))
    return seed_fail(err, err_len, BG_ERR_NONFINITE, "bg_seed_poisson: dx %g or ppc %g is not finite", d->dx,
                     d->ppc);
  if (!(d->dx > 0)) return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_poisson: dx %g m must be > 0", d->dx);
  if (!(d->ppc >= 0.01 && d->ppc <= 1000))
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_poisson: ppc %g must lie in [0.01, 1000]", d->ppc);
  if (d->k < 0 || d->k > 1000)
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_poisson: k %d must lie in [0, 1000] (0: 30)", d->k);
  if (!d->uniform) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_poisson: uniform source is NULL");
  s->d = d;
  s->r = bg_seed_poisson_radius(d->dx, d->ppc);
  s->r2 = s->r * s->r;
  double cells = 1;
  for (int a = 0; a < 3; ++a) {
    s->lo[a] = d->lo[a];
    s->len[a] = d->hi[a] - d->lo[a];
    if (!(s->len[a] > 0))
      return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_poisson: box %c: hi %g must exceed lo %g", ax[a],
                       d->hi[a], d->lo[a]);
    if (d->periodic[a] && s->len[a] < 2 * s->r)
      return seed_fail(err, err_len, BG_ERR_RANGE,
                       "bg_seed_poisson: periodic axis %c is %g m long, shorter than 2r = %g m", ax[a],
                       s->len[a], 2 * s->r);
    double nc = ceil(s->len[a] * sqrt(3.0) / s->r);
    if (nc < 1) nc = 1;
    cells *= nc;
    if (cells > (double)(SIZE_MAX / (2 * sizeof(size_t))))
      return seed_fail(err, err_len, BG_ERR_OVERFLOW,
                       "bg_seed_poisson: the background grid of a box %g x %g x %g m at r %g m overflows size_t",
                       d->hi[0] - d->lo[0], d->hi[1] - d->lo[1], d->hi[2] - d->lo[2], s->r);
    s->nc[a] = (size_t)nc;
    s->h[a] = s->len[a] / nc;
  }
  return BG_OK;
}

bg_status bg_seed_poisson(const bg_seed_poisson_desc *d, bg_real *x, size_t cap, size_t *n, char *err,
                          size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!d) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_poisson: desc is NULL");
  if (!n) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_poisson: n is NULL");
  *n = 0;
  pd_state s;
  memset(&s, 0, sizeof s);
  bg_status st = pd_check(d, &s, err, err_len);
  if (st != BG_OK) return st;
  size_t ncell = s.nc[0] * s.nc[1] * s.nc[2];
  s.cell = calloc(ncell, sizeof *s.cell);
  if (!s.cell)
    return seed_fail(err, err_len, BG_ERR_NOMEM, "bg_seed_poisson: no memory for a grid of %zu cells", ncell);
  int k = d->k ? d->k : 30, ok = 1;
  for (size_t i = 0; i < s.nc[0] && ok; ++i)
    for (size_t j = 0; j < s.nc[1] && ok; ++j)
      for (size_t c = 0; c < s.nc[2] && ok; ++c) {
        if (s.cell[(i * s.nc[1] + j) * s.nc[2] + c]) continue;
        size_t ijk[3] = {i, j, c};
        double q[3];
        for (int a = 0; a < 3; ++a) q[a] = s.lo[a] + (ijk[a] + d->uniform(d->uniform_ctx)) * s.h[a];
        if (pd_accept(&s, q)) ok = pd_push(&s, q) && pd_front(&s, k);
      }
  free(s.cell);
  free(s.active);
  if (!ok) {
    free(s.pts);
    return seed_fail(err, err_len, BG_ERR_NOMEM, "bg_seed_poisson: no memory past %zu points", s.n);
  }
  *n = s.n;
  if (x && s.n > cap) {
    free(s.pts);
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_poisson: %zu points, x holds cap %zu", s.n, cap);
  }
  if (x)
    for (size_t i = 0; i < 3 * s.n; ++i) x[i] = (bg_real)s.pts[i];
  free(s.pts);
  return BG_OK;
}

bg_status bg_seed_volume(const bg_seed_volume_desc *d, size_t n, bg_seed_volume_result *out, char *err,
                         size_t err_len) {
  static const char ax[] = "xyz";
  if (err && err_len) err[0] = 0;
  if (!d) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_volume: desc is NULL");
  if (!out) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_volume: out is NULL");
  if (!d->inside) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_volume: region is NULL");
  if (!d->uniform) return seed_fail(err, err_len, BG_ERR_NULL, "bg_seed_volume: uniform source is NULL");
  if (!isfinite(d->h) || !(d->h > 0))
    return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_volume: h %g m must be finite and > 0", d->h);
  size_t nc[3];
  double h[3], cells = 1;
  for (int a = 0; a < 3; ++a) {
    double len = d->hi[a] - d->lo[a];
    if (!isfinite(d->lo[a]) || !isfinite(d->hi[a]))
      return seed_fail(err, err_len, BG_ERR_NONFINITE, "bg_seed_volume: box %c [%g, %g] is not finite", ax[a],
                       d->lo[a], d->hi[a]);
    if (!(len > 0))
      return seed_fail(err, err_len, BG_ERR_RANGE, "bg_seed_volume: box %c: hi %g must exceed lo %g", ax[a],
                       d->hi[a], d->lo[a]);
    cells *= ceil(len / d->h);
    if (cells > 1e12)
      return seed_fail(err, err_len, BG_ERR_RANGE,
                       "bg_seed_volume: h %g m makes more than 1e12 cells of the box; raise h", d->h);
    nc[a] = (size_t)ceil(len / d->h);
    h[a] = len / (double)nc[a];
  }
  /* two uniform points per cell: their mean is the cell's share, their
   * squared difference an unbiased estimate of twice its variance */
  double hits = 0, var = 0, p[3];
  for (size_t i = 0; i < nc[0]; ++i)
    for (size_t j = 0; j < nc[1]; ++j)
      for (size_t k = 0; k < nc[2]; ++k) {
        size_t ijk[3] = {i, j, k};
        int in[2];
        for (int t = 0; t < 2; ++t) {
          for (int a = 0; a < 3; ++a) p[a] = d->lo[a] + (ijk[a] + d->uniform(d->uniform_ctx)) * h[a];
          in[t] = d->inside(p, d->inside_ctx) != 0;
        }
        hits += 0.5 * (in[0] + in[1]);
        var += 0.25 * (in[0] != in[1]);
      }
  double cv = h[0] * h[1] * h[2];
  out->volume = hits * cv;
  out->sigma = sqrt(var) * cv;
  out->per_particle = n ? out->volume / (double)n : NAN;
  out->per_particle_sigma = n ? out->sigma / (double)n : NAN;
  return BG_OK;
}
