/* setup.c: changing a simulation after creation (gravity, damping, particle
 * velocity, F and stress, the geostatic state) and the host copy of the
 * backends' particle state (bg_raw) these calls and the checkpoints use.
 * Particles move through bg_raw in the backend's own memory order, so a
 * set-up call disturbs nothing it does not set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

#define CHECK(cond, status, ...)                           \
  do {                                                     \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)

/* ------------------------------------------------------------------- raw */

void bg_raw_free(bg_raw *r) {
  if (!r) return;
  for (int k = 0; k < BG_RAW_NF; ++k) free(r->f[k]);
  free(r->id);
  free(r->park);
  free(r->mat);
  free(r->sink_mass);
  free(r->runstart);
  free(r->runkey);
  memset(r, 0, sizeof *r);
}

bg_status bg_raw_alloc(bg_sim *sim, bg_raw *r, size_t n) {
  memset(r, 0, sizeof *r);
  size_t m = n ? n : 1;
  int ok = 1;
  for (int k = 0; k < BG_RAW_NF; ++k) ok &= (r->f[k] = malloc(m * sizeof(bg_real))) != NULL;
  r->id = malloc(m * sizeof *r->id);
  r->park = malloc(m * sizeof *r->park);
  r->mat = calloc(m, sizeof *r->mat);
  r->sink_mass = calloc((size_t)sim->cfg.n_sinks + 1, sizeof *r->sink_mass);
  /* never more runs of equal block than particles */
  r->run_cap = m;
  r->runstart = malloc(m * sizeof *r->runstart);
  r->runkey = malloc(m * sizeof *r->runkey);
  if (!ok || !r->id || !r->park || !r->mat || !r->sink_mass || !r->runstart || !r->runkey) {
    bg_raw_free(r);
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory for a host copy of %zu particles", n);
  }
  r->n = n;
  r->n_runs = -1;
  return BG_OK;
}

bg_status bg_raw_export(bg_sim *sim, bg_raw *r) {
  bg_status s = bg_raw_alloc(sim, r, sim->ops->count(sim->state));
  if (s != BG_OK) return s;
  if ((s = sim->ops->export_raw(sim->state, r)) != BG_OK) {
    bg_raw_free(r);
    if (!sim->err[0])
      bg_fail(sim, s, "backend %s could not copy its particles out", bg_backend_ops_name(sim->ops));
  }
  return s;
}

/* ------------------------------------------------------------- gravity etc */

bg_status bg_sim_set_gravity(bg_sim *sim, const bg_real g[3]) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(g != NULL, BG_ERR_NULL, "g is NULL");
  for (int d = 0; d < 3; ++d)
    CHECK(isfinite(g[d]), BG_ERR_NONFINITE, "g[%d] is not finite (got %g)", d, (double)g[d]);
  for (int d = 0; d < 3; ++d) sim->cfg.gravity[d] = sim->desc.gravity[d] = g[d];
  return BG_OK;
}

bg_status bg_sim_set_damping(bg_sim *sim, bg_real rate) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(isfinite(rate), BG_ERR_NONFINITE, "damping rate is not finite");
  CHECK(rate >= 0, BG_ERR_RANGE, "damping rate must be >= 0 1/s, 0 meaning off (got %g)",
        (double)rate);
  sim->cfg.damping = sim->desc.damping = rate;
  return BG_OK;
}

/* ------------------------------------------------------- elastic inverses */

/* exp of a symmetric 3x3 matrix in double: scaling and squaring over a
 * Taylor series (the strains here are far below 1, so a few squarings). */
static void sym_exp(double a[3][3], double out[3][3]) {
  double norm = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) norm += a[i][j] * a[i][j];
  norm = sqrt(norm);
  int sq = 0;
  while (norm > 0.125 && sq < 60) {
    norm *= 0.5;
    sq++;
  }
  double s = ldexp(1.0, -sq), x[3][3], term[3][3], sum[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      x[i][j] = a[i][j] * s;
      term[i][j] = sum[i][j] = (i == j);
    }
  for (int k = 1; k <= 14; ++k) {
    double t[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        t[i][j] = 0;
        for (int l = 0; l < 3; ++l) t[i][j] += term[i][l] * x[l][j];
        t[i][j] /= k;
      }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) sum[i][j] += (term[i][j] = t[i][j]);
  }
  for (int r = 0; r < sq; ++r) {
    double t[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        t[i][j] = 0;
        for (int l = 0; l < 3; ++l) t[i][j] += sum[i][l] * sum[l][j];
      }
    memcpy(sum, t, sizeof t);
  }
  memcpy(out, sum, sizeof sum);
}

/* The rotation-free elastic F whose Hencky Kirchhoff stress, divided by the
 * particle's volume ratio det(F) Jp, is the Cauchy stress sig: tau =
 * lambda tr(eps) I + 2 mu eps with eps = log V, and tau = J sig where J
 * depends on tr(eps): a fixed point that converges in a few passes for any
 * strain an elastic sand holds (|tr eps| << 1). */
static void hencky_f_of_cauchy(const bg_lame *l, double sig[3][3], double log_jp, bg_mat3 *F) {
  double eps[3][3] = {{0}}, tr = 0;
  for (int it = 0; it < 50; ++it) {
    double J = exp(tr + log_jp), tau[3][3], trt = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) tau[i][j] = J * sig[i][j];
    for (int i = 0; i < 3; ++i) trt += tau[i][i];
    /* inverse of the isotropic law */
    double lam = l->lambda, mu = l->mu, k = lam / (3 * lam + 2 * mu);
    double tr_new = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) eps[i][j] = (tau[i][j] - (i == j) * k * trt) / (2 * mu);
    for (int i = 0; i < 3; ++i) tr_new += eps[i][i];
    double change = fabs(tr_new - tr);
    tr = tr_new;
    if (change < 1e-15) break;
  }
  double v[3][3];
  sym_exp(eps, v);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F->m[i][j] = (bg_real)v[i][j];
}

/* The Kirchhoff stress the next P2G scatters for an elastic F (no return
 * map): the model's own update on scratch copies of F and the state, with
 * its plastic switch off, no motion and dt 0, so every model's law applies
 * (a jelly's, water's, snow's hardened one) and the sand models' elastic
 * path is the SVD and law it always was. */
static bg_mat3 tau_of_f(const bg_mat *m, const bg_mat3 *F, bg_real *const *st, size_t p) {
  bg_mat el = *m;
  el.el.plastic = 0;
  bg_mat3 f = *F, c = bg_mat3_zero(), tau;
  bg_real s[BG_NSTATE];
  for (int k = 0; k < BG_NSTATE; ++k) s[k] = st[k][p];
  bg_update_ctx u = {&f, &c, 0.0f, s, &tau};
  bg_material_update(&el, &u);
  return tau;
}

static void store_tau(bg_raw *r, size_t p, const bg_mat3 *t) {
  r->f[BG_RAW_TAU + 0][p] = t->m[0][0];
  r->f[BG_RAW_TAU + 1][p] = t->m[1][1];
  r->f[BG_RAW_TAU + 2][p] = t->m[2][2];
  r->f[BG_RAW_TAU + 3][p] = 0.5f * (t->m[0][1] + t->m[1][0]);
  r->f[BG_RAW_TAU + 4][p] = 0.5f * (t->m[0][2] + t->m[2][0]);
  r->f[BG_RAW_TAU + 5][p] = 0.5f * (t->m[1][2] + t->m[2][1]);
}

/* ------------------------------------------------------------------- set */

static bg_status check_values(bg_sim *sim, bg_field f, const bg_real *in, size_t count) {
  for (size_t p = 0; p < count; ++p) {
    int w = bg_field_width(f);
    const bg_real *a = in + (size_t)w * p;
    for (int e = 0; e < w; ++e)
      CHECK(isfinite(a[e]), BG_ERR_NONFINITE, "in[%zu] (particle %zu, component %d) is not finite",
            (size_t)w * p + (size_t)e, p, e);
    if (f == BG_FIELD_F) {
      bg_mat3 F;
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = a[e];
      bg_real det = bg_mat3_det(F);
      CHECK(det > 0, BG_ERR_RANGE, "particle %zu: F must have det > 0 (got %g)", p, (double)det);
    }
    /* 2D: nothing leaves the plane, and F and the stress keep the
     * plane-strain blocks [[xz, 0], [0, yy]] (bg_plane_strain_clear) */
    if (sim->cfg.dim == 2 && f == BG_FIELD_V)
      CHECK(a[1] == 0, BG_ERR_RANGE, "particle %zu: v[1] = %g m/s must be 0 in a 2D simulation", p, (double)a[1]);
    if (sim->cfg.dim == 2 && f != BG_FIELD_V)
      CHECK(a[1] == 0 && a[3] == 0 && a[5] == 0 && a[7] == 0, BG_ERR_RANGE,
            "particle %zu: the xy, yx, yz and zy entries must be 0 in a 2D simulation (plane strain; got %g %g %g %g)",
            p, (double)a[1], (double)a[3], (double)a[5], (double)a[7]);
    if (f == BG_FIELD_STRESS) {
      double scale = 0;
      for (int e = 0; e < 9; ++e) scale = fmax(scale, fabs((double)a[e]));
      for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
          CHECK(fabs((double)a[3 * i + j] - a[3 * j + i]) <= 1e-6 * scale, BG_ERR_RANGE,
                "particle %zu: stress must be symmetric (sigma[%d][%d] = %g, sigma[%d][%d] = %g)",
                p, i, j, (double)a[3 * i + j], j, i, (double)a[3 * j + i]);
    }
  }
  return BG_OK;
}

bg_status bg_sim_set(bg_sim *sim, bg_field f, const bg_real *in, size_t n) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(f == BG_FIELD_V || f == BG_FIELD_F || f == BG_FIELD_STRESS, BG_ERR_RANGE,
        "field %d cannot be set: bg_sim_set takes BG_FIELD_V, BG_FIELD_F or BG_FIELD_STRESS",
        (int)f);
  size_t count = sim->ops->count(sim->state), w = (size_t)bg_field_width(f);
  CHECK(n == count * w, BG_ERR_RANGE, "n = %zu values, the field needs %zu (%zu particles x %zu)",
        n, count * w, count, w);
  if (count == 0) return BG_OK;
  CHECK(in != NULL, BG_ERR_NULL, "in is NULL");
  CHECK(f != BG_FIELD_STRESS || sim->cfg.n_mats > 1 || sim->cfg.mat.el.law == BG_LAW_HENCKY, BG_ERR_RANGE,
        "setting a stress needs the Hencky elastic law (material.stress = BG_STRESS_HENCKY): the "
        "fixed "
        "corotated law has no closed-form inverse here");
  bg_status s = check_values(sim, f, in, count);
  if (s != BG_OK) return s;
  bg_raw r;
  if ((s = bg_raw_export(sim, &r)) != BG_OK) return s;
  double vmax = 0;
  for (size_t p = 0; p < r.n; ++p) {
    const bg_real *a = in + w * (size_t)r.id[p];
    const bg_mat *m = &sim->cfg.mats[r.mat[p]];
    if (f == BG_FIELD_V) {
      for (int d = 0; d < 3; ++d) r.f[BG_RAW_V + d][p] = a[d];
      if (r.park[p] < 0)
        vmax = fmax(vmax, sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]));
      continue;
    }
    bg_mat3 F;
    if (f == BG_FIELD_F) {
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = a[e];
    } else {
      double sig[3][3], smax = 0;
      for (int e = 0; e < 9; ++e) sig[e / 3][e % 3] = 0.5 * ((double)a[e] + a[3 * (e % 3) + e / 3]);
      for (int e = 0; e < 9; ++e) smax = fmax(smax, fabs(sig[e / 3][e % 3]));
      /* in a table, a particle of another law may take zero stress (F = I) but no other */
      if (m->el.law != BG_LAW_HENCKY) {
        if (smax > 0) {
          int64_t id = r.id[p];
          int k = r.mat[p];
          bg_raw_free(&r);
          return bg_fail(sim, BG_ERR_RANGE,
                         "particle %lld (materials[%d]): setting a nonzero stress needs the Hencky elastic law "
                         "(BG_STRESS_HENCKY): the fixed corotated law has no closed-form inverse here",
                         (long long)id, k);
        }
        F = bg_mat3_identity();
      } else {
        hencky_f_of_cauchy(&m->el.lame, sig, (double)bg_mat_log_jp(m, r.f + BG_RAW_ST, (int64_t)p), &F);
      }
    }
    for (int e = 0; e < 9; ++e) r.f[BG_RAW_F + e][p] = F.m[e / 3][e % 3];
    bg_mat3 t = tau_of_f(m, &F, r.f + BG_RAW_ST, p);
    store_tau(&r, p, &t);
    r.f[BG_RAW_MODE][p] = (bg_real)BG_RM_ELASTIC;
  }
  /* the next dt must see the speeds just set */
  if (f == BG_FIELD_V) r.max_speed = vmax;
  s = sim->ops->import_raw(sim->state, &r);
  bg_raw_free(&r);
  if (s != BG_OK && !sim->err[0])
    bg_fail(sim, s, "backend %s could not take the particles back", bg_backend_ops_name(sim->ops));
  return s;
}

bg_status bg_sim_set_geostatic(bg_sim *sim, double z_surface, double k0) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(isfinite(z_surface), BG_ERR_NONFINITE, "z_surface is not finite");
  CHECK(isfinite(k0), BG_ERR_NONFINITE, "k0 is not finite");
  CHECK(k0 > 0 && k0 <= 2, BG_ERR_RANGE,
        "k0 must be in (0, 2] (got %g); Jaky's at-rest value is 1 - sin(phi)", k0);
  const bg_real *g = sim->cfg.gravity;
  CHECK(g[0] == 0 && g[1] == 0 && g[2] < 0, BG_ERR_RANGE,
        "the geostatic state needs gravity along -z (got %g, %g, %g m/s^2)", (double)g[0],
        (double)g[1], (double)g[2]);
  size_t n = sim->ops->count(sim->state);
  if (n == 0) return BG_OK;
  bg_real *x = malloc(3 * n * sizeof *x), *sig = calloc(9 * n, sizeof *sig);
  if (!x || !sig) {
    free(x);
    free(sig);
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the stress of %zu particles", n);
  }
  bg_real *mat = NULL;
  bg_status s = bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  if (s == BG_OK && sim->cfg.n_mats > 1) {
    if (!(mat = malloc(n * sizeof *mat))) s = bg_fail(sim, BG_ERR_NOMEM, "out of memory for %zu material indices", n);
    if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_MATERIAL, mat, n);
  }
  for (size_t p = 0; s == BG_OK && p < n; ++p) {
    double depth = z_surface - (double)x[3 * p + 2];
    if (depth <= 0) continue;
    /* each particle's own density: exact for one material, an approximation of a layered overburden */
    double rho_g = (double)sim->cfg.mats[mat ? (int)mat[p] : 0].el.rho0 * -(double)g[2];
    double szz = -rho_g * depth;
    sig[9 * p + 0] = sig[9 * p + 4] = (bg_real)(k0 * szz);
    sig[9 * p + 8] = (bg_real)szz;
  }
  if (s == BG_OK) s = bg_sim_set(sim, BG_FIELD_STRESS, sig, 9 * n);
  free(mat);
  free(x);
  free(sig);
  return s;
}
