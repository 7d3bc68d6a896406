/* test_svd.c: unit test of bg_svd3 / bg_polar_rotation (core/physics/bg_svd.h)
 * and of the vectorisable batch path (core/physics/bg_constitutive_batch.h).
 * 100000 random matrices from five families (uniform, near-singular,
 * repeated singular values, exactly singular, det < 0) plus hand cases, for
 * bg_svd3 and again (another 100000) for bg_svd3_chunk with the same
 * measures and tolerances; then the batch constitutive update against
 * bg_material_update, its branch-free return map against bg_dp_return_map (bit
 * for bit), its log/exp/sqrt kernels against libm, the fallback of every
 * lane the fast path cannot certify, the certificate itself against
 * corrupted factorisations, and both batch drivers on 100000 MPM-like
 * near-identity states (I + tiny E, exact identity and rotations, single
 * tiny entries, diag(1, 1, 1 +- ulp)), where the fast path once certified
 * garbage.
 * Errors are measured in double against the float input, aggregated as a
 * maximum per family, and only the maxima are checked, so the output stays
 * a few dozen lines. Host-only physics: a device backend's name is a skip
 * (77). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "bg_check.h"
#include "bg_test_backend.h"
#include "bg_constitutive_batch.h"
#include "bg_defs.h"
#include "bg_svd.h"

/* The sand of these tests as the registry's coefficients (bg_materials.h). */
static bg_mat dp_mat(int law, int plastic, int hardening, int volume_correction) {
  bg_mat m;
  memset(&m, 0, sizeof m);
  m.model = BG_MODEL_DP;
  m.el.lame = bg_lame_from_e_nu(3.537e5f, 0.3f);
  m.el.rho0 = 2200.0f;
  m.el.law = law;
  m.el.plastic = plastic;
  m.el.volume_correction = volume_correction;
  m.c.dp.alpha = bg_dp_alpha(35.0f);
  m.c.dp.hardening = hardening;
  m.c.dp.h0 = 35.0f;
  m.c.dp.h1 = 9.0f;
  m.c.dp.h2 = 0.2f;
  m.c.dp.h3 = 10.0f;
  return m;
}

/* The scalar update on (log Jp, q) held apart, as the checks below keep them;
 * Drucker-Prager ignores dt. */
static int scalar_update(const bg_mat *m, bg_mat3 *F, bg_real *ljp, bg_real *q, bg_mat3 *tau) {
  bg_real st[BG_NSTATE] = {*ljp, *q};
  const bg_mat3 C0 = bg_mat3_zero();
  bg_update_ctx u = {F, &C0, 1e-4f, st, tau};
  int mode = bg_material_update(m, &u);
  *ljp = st[BG_STATE_LOG_JP];
  *q = st[BG_STATE_Q];
  return mode;
}

#define N_PER_FAMILY 20000
#define TOL_RECON 1e-5
#define TOL_ORTHO 1e-5
#define TOL_DET 1e-5
/* sign(sigma2) is only meaningful when sigma2 is well above float noise:
 * |det A| > DET_TINY * ||A||_F^3 implies sigma2 > DET_TINY * sigma0. */
#define DET_TINY 1e-5

enum { FAM_UNIFORM, FAM_NEAR_SINGULAR, FAM_REPEATED, FAM_SINGULAR, FAM_REFLECT, N_FAM };
static const char *fam_name[N_FAM] = {"uniform", "near-singular", "repeated", "singular",
                                      "det<0"};

typedef struct {
  double recon, ortho_u, ortho_v, det_u, det_v, sigma_err;
  long n, order_bad, sign_bad, sign_checked, sigma_checked;
} fam_stats;

/* Running maximum that sticks at NaN, so a non-finite result cannot hide
 * behind a later finite one (plain `e > m` ignores NaN). */
static void upd_max(double *m, double e) {
  if (isnan(e) || isnan(*m)) *m = NAN;
  else if (e > *m) *m = e;
}

typedef struct {
  double m[3][3];
} dmat;

static dmat dmul(dmat a, dmat b) {
  dmat c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
  return c;
}

static dmat ddiag(double a, double b, double c) {
  dmat d;
  memset(&d, 0, sizeof d);
  d.m[0][0] = a;
  d.m[1][1] = b;
  d.m[2][2] = c;
  return d;
}

static dmat to_d(const bg_mat3 *a) {
  dmat d;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d.m[i][j] = a->m[i][j];
  return d;
}

static bg_mat3 to_f(dmat d) {
  bg_mat3 a;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)d.m[i][j];
  return a;
}

static double ddet(dmat a) {
  return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
         a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
         a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}

static double dfrob(dmat a) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += a.m[i][j] * a.m[i][j];
  return sqrt(s);
}

/* ||Q^T Q - I||_F in double. */
static double ortho_err(dmat q) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = q.m[0][i] * q.m[0][j] + q.m[1][i] * q.m[1][j] + q.m[2][i] * q.m[2][j] - (i == j);
      s += d * d;
    }
  return sqrt(s);
}

/* Uniformly distributed rotation: normalised Gaussian quaternion. */
static dmat rand_rot(gsl_rng *r) {
  double q[4], n = 0;
  for (int k = 0; k < 4; ++k) {
    q[k] = gsl_ran_gaussian(r, 1.0);
    n += q[k] * q[k];
  }
  n = sqrt(n);
  if (n == 0) return ddiag(1, 1, 1);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  dmat m;
  m.m[0][0] = 1 - 2 * (y * y + z * z);
  m.m[0][1] = 2 * (x * y - w * z);
  m.m[0][2] = 2 * (x * z + w * y);
  m.m[1][0] = 2 * (x * y + w * z);
  m.m[1][1] = 1 - 2 * (x * x + z * z);
  m.m[1][2] = 2 * (y * z - w * x);
  m.m[2][0] = 2 * (x * z - w * y);
  m.m[2][1] = 2 * (y * z + w * x);
  m.m[2][2] = 1 - 2 * (x * x + y * y);
  return m;
}

static double log_uniform(gsl_rng *r, double lo, double hi) {
  return exp(log(lo) + (log(hi) - log(lo)) * gsl_rng_uniform(r));
}

/* R1 diag(s) R2 rounded to float; the rounding perturbs the singular values
 * by ~1e-7 * s0, which is why the sigma comparison is relative to s0. */
static bg_mat3 usv_f(gsl_rng *r, double s0, double s1, double s2) {
  return to_f(dmul(dmul(rand_rot(r), ddiag(s0, s1, s2)), rand_rot(r)));
}

/* Dyadic k/16, |k| <= 16: products and small sums of these are exact in
 * float, so matrices built from them are exactly singular after rounding. */
static double dyadic(gsl_rng *r) { return ((double)gsl_rng_uniform_int(r, 33) - 16.0) / 16.0; }

/* Draw one matrix of the family. *known says whether want_s holds the exact
 * singular values (signed, rotation-variant order) of the double matrix. */
static bg_mat3 draw(gsl_rng *r, int fam, long idx, int *known, double want_s[3]) {
  *known = 0;
  switch (fam) {
  case FAM_UNIFORM: {
    bg_mat3 a;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)(2.0 * gsl_rng_uniform(r) - 1.0);
    return a;
  }
  case FAM_NEAR_SINGULAR: {
    /* Singular values spread over 1e-6 .. 1e2, sorted, at least one small. */
    double s[3];
    for (int k = 0; k < 3; ++k) s[k] = log_uniform(r, 1e-6, 1e2);
    s[idx % 3] = log_uniform(r, 1e-6, 1e-3);
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j)
        if (s[j] > s[i]) {
          double t = s[i];
          s[i] = s[j];
          s[j] = t;
        }
    *known = 1;
    want_s[0] = s[0];
    want_s[1] = s[1];
    want_s[2] = s[2];
    return usv_f(r, s[0], s[1], s[2]);
  }
  case FAM_REPEATED: {
    double c = log_uniform(r, 1e-3, 1e2);
    double d = log_uniform(r, 1e-3, 1e2);
    *known = 1;
    switch (idx % 6) {
    case 0: /* exactly the identity */
      want_s[0] = want_s[1] = want_s[2] = 1;
      return to_f(ddiag(1, 1, 1));
    case 1: /* exactly c I, c a power of two so it is exact in float */
      c = ldexp(1.0, (int)gsl_rng_uniform_int(r, 21) - 10);
      want_s[0] = want_s[1] = want_s[2] = c;
      return to_f(ddiag(c, c, c));
    case 2: /* scaled rotation c R */
      want_s[0] = want_s[1] = want_s[2] = c;
      return usv_f(r, c, c, c);
    case 3: /* two equal, large pair */
      if (d > c) {
        double t = c;
        c = d;
        d = t;
      }
      want_s[0] = want_s[1] = c;
      want_s[2] = d;
      return usv_f(r, c, c, d);
    case 4: /* two equal, small pair */
      if (d < c) {
        double t = c;
        c = d;
        d = t;
      }
      want_s[0] = d;
      want_s[1] = want_s[2] = c;
      return usv_f(r, d, c, c);
    default: /* diagonal with repeats and signs, permuted: exact in float */
    {
      bg_mat3 a;
      double v = (double)(bg_real)c;
      memset(&a, 0, sizeof a);
      int perm = (int)gsl_rng_uniform_int(r, 3);
      for (int k = 0; k < 3; ++k) a.m[k][(k + perm) % 3] = (bg_real)((k == 1) ? -v : v);
      *known = 0; /* sign pattern depends on the permutation's parity */
      return a;
    }
    }
  }
  case FAM_SINGULAR: {
    bg_mat3 a;
    double x[3], y[3], z[3], p, q;
    if (idx == 0) { /* the zero matrix, once */
      memset(&a, 0, sizeof a);
      *known = 1;
      want_s[0] = want_s[1] = want_s[2] = 0;
      return a;
    }
    for (int k = 0; k < 3; ++k) {
      x[k] = dyadic(r);
      y[k] = dyadic(r);
      z[k] = dyadic(r);
    }
    switch (idx % 4) {
    case 0: /* rank 1: x y^T, exact */
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)(x[i] * y[j]);
      return a;
    case 1: /* rank <= 2: third row a dyadic combination of the first two, exact */
      p = dyadic(r);
      q = dyadic(r);
      for (int j = 0; j < 3; ++j) {
        a.m[0][j] = (bg_real)x[j];
        a.m[1][j] = (bg_real)y[j];
        a.m[2][j] = (bg_real)(p * x[j] + q * y[j]);
      }
      return a;
    case 2: /* rank <= 2: a zero column or zero row at a random place */
      for (int j = 0; j < 3; ++j) {
        a.m[0][j] = (bg_real)x[j];
        a.m[1][j] = (bg_real)y[j];
        a.m[2][j] = (bg_real)z[j];
      }
      {
        int k = (int)gsl_rng_uniform_int(r, 3);
        for (int j = 0; j < 3; ++j) {
          if (idx % 8 < 4) a.m[j][k] = 0.0f;
          else a.m[k][j] = 0.0f;
        }
      }
      return a;
    default: /* rotated rank 1 / rank 2 (singular up to float rounding) */
    {
      double s0 = log_uniform(r, 1e-3, 1e2);
      double s1 = (idx % 8 < 4) ? 0.0 : s0 * gsl_rng_uniform(r);
      *known = 1;
      want_s[0] = s0;
      want_s[1] = s1;
      want_s[2] = 0;
      return usv_f(r, s0, s1, 0.0);
    }
    }
  }
  default: { /* FAM_REFLECT */
    switch (idx % 3) {
    case 0: { /* R1 diag(s) R2 with one negative value: sigma2 < 0 */
      double s[3];
      for (int k = 0; k < 3; ++k) s[k] = log_uniform(r, 1e-4, 1e2);
      for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
          if (s[j] > s[i]) {
            double t = s[i];
            s[i] = s[j];
            s[j] = t;
          }
      int neg = (int)gsl_rng_uniform_int(r, 3);
      double d[3] = {s[0], s[1], s[2]};
      d[neg] = -d[neg];
      *known = 1;
      want_s[0] = s[0];
      want_s[1] = s[1];
      want_s[2] = -s[2];
      return usv_f(r, d[0], d[1], d[2]);
    }
    case 1: { /* Householder reflection times a scale: |sigma| all equal */
      double n[3], nn = 0, c = log_uniform(r, 1e-3, 1e2);
      for (int k = 0; k < 3; ++k) {
        n[k] = gsl_ran_gaussian(r, 1.0);
        nn += n[k] * n[k];
      }
      dmat h;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) h.m[i][j] = c * ((i == j) - 2 * n[i] * n[j] / nn);
      *known = 1;
      want_s[0] = want_s[1] = c;
      want_s[2] = -c;
      return to_f(dmul(h, rand_rot(r)));
    }
    default: { /* uniform entries with det forced negative by a row swap */
      bg_mat3 a;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)(2.0 * gsl_rng_uniform(r) - 1.0);
      if (ddet(to_d(&a)) > 0)
        for (int j = 0; j < 3; ++j) {
          bg_real t = a.m[0][j];
          a.m[0][j] = a.m[1][j];
          a.m[1][j] = t;
        }
      return a;
    }
    }
  }
  }
}

/* Fold every error measure of the factorisation u s v of a into st. */
static void measure_usv(const bg_mat3 *a, const bg_mat3 *up, const bg_vec3 *sp, const bg_mat3 *vp,
                        int known, const double want_s[3], fam_stats *st) {
  bg_mat3 u = *up, v = *vp;
  bg_vec3 s = *sp;
  dmat ad = to_d(a), ud = to_d(&u), vd = to_d(&v);
  double s0 = s.v[0], s1 = s.v[1], s2 = s.v[2];

  /* Reconstruction in double from the float factors. */
  dmat rec;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      rec.m[i][j] = ud.m[i][0] * s0 * vd.m[j][0] + ud.m[i][1] * s1 * vd.m[j][1] +
                    ud.m[i][2] * s2 * vd.m[j][2] - ad.m[i][j];
  double na = dfrob(ad);
  upd_max(&st->recon, dfrob(rec) / (na > 1e-30 ? na : 1e-30));
  upd_max(&st->ortho_u, ortho_err(ud));
  upd_max(&st->ortho_v, ortho_err(vd));
  upd_max(&st->det_u, fabs(ddet(ud) - 1.0));
  upd_max(&st->det_v, fabs(ddet(vd) - 1.0));

  if (!(s0 >= s1 && s1 >= fabs(s2) && s1 >= 0.0)) st->order_bad++;

  double da = ddet(ad);
  if (fabs(da) > DET_TINY * na * na * na) {
    st->sign_checked++;
    if (!((da > 0 && s2 > 0) || (da < 0 && s2 < 0))) st->sign_bad++;
  }
  if (known) {
    /* Float rounding of A moves sigma by ~eps * s0: compare relative to s0. */
    double scale = want_s[0] > 0 ? want_s[0] : 1.0;
    double e = fmax(fabs(s0 - want_s[0]), fmax(fabs(s1 - want_s[1]), fabs(s2 - want_s[2])));
    upd_max(&st->sigma_err, e / scale);
    st->sigma_checked++;
  }
  st->n++;
}

/* Run bg_svd3 on a and fold every error measure into st. */
static void measure(const bg_mat3 *a, int known, const double want_s[3], fam_stats *st) {
  bg_mat3 u, v;
  bg_vec3 s;
  bg_svd3(a, &u, &s, &v);
  measure_usv(a, &u, &s, &v, known, want_s, st);
}

/* The per-family limits every SVD path is held to; prefix names the path in
 * the messages ("batch " or ""). */
static void check_families(const fam_stats *st, const char *prefix) {
  for (int f = 0; f < N_FAM; ++f) {
    const char *n = fam_name[f];
    bg_check_le(st[f].recon, TOL_RECON, "%s%s: max ||U S V^T - A||_F / ||A||_F", prefix, n);
    bg_check_le(st[f].ortho_u, TOL_ORTHO, "%s%s: max ||U^T U - I||_F", prefix, n);
    bg_check_le(st[f].ortho_v, TOL_ORTHO, "%s%s: max ||V^T V - I||_F", prefix, n);
    bg_check_le(st[f].det_u, TOL_DET, "%s%s: max |det U - 1|", prefix, n);
    bg_check_le(st[f].det_v, TOL_DET, "%s%s: max |det V - 1|", prefix, n);
    bg_check_true(st[f].order_bad == 0, "%s%s: sigma0 >= sigma1 >= |sigma2|, sigma1 >= 0 (%ld of %ld bad)",
                  prefix, n, st[f].order_bad, st[f].n);
    bg_check_true(st[f].sign_bad == 0, "%s%s: sign(sigma2) == sign(det A) (%ld of %ld checked bad)", prefix, n,
                  st[f].sign_bad, st[f].sign_checked);
    if (st[f].sigma_checked > 0)
      bg_check_le(st[f].sigma_err, 1e-5, "%s%s: max |sigma - exact| / sigma0 (%ld known)", prefix, n,
                  st[f].sigma_checked);
  }
}

static void hand_case(const char *name, bg_mat3 a, double w0, double w1, double w2) {
  bg_mat3 u, v;
  bg_vec3 s;
  bg_svd3(&a, &u, &s, &v);
  dmat ud = to_d(&u), vd = to_d(&v);
  bg_check_abs(s.v[0], w0, 1e-6 * fmax(fabs(w0), 1.0), "%s: sigma0", name);
  bg_check_abs(s.v[1], w1, 1e-6 * fmax(fabs(w0), 1.0), "%s: sigma1", name);
  bg_check_abs(s.v[2], w2, 1e-6 * fmax(fabs(w0), 1.0), "%s: sigma2", name);
  bg_check_le(ortho_err(ud), TOL_ORTHO, "%s: U orthogonal", name);
  bg_check_le(ortho_err(vd), TOL_ORTHO, "%s: V orthogonal", name);
  bg_check_abs(ddet(ud), 1.0, TOL_DET, "%s: det U", name);
  bg_check_abs(ddet(vd), 1.0, TOL_DET, "%s: det V", name);
  bg_mat3 rec = bg_mat3_usvt(u, s, v);
  dmat diff = to_d(&rec), ad = to_d(&a);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) diff.m[i][j] -= ad.m[i][j];
  double na = dfrob(ad);
  bg_check_le(dfrob(diff) / (na > 1e-30 ? na : 1e-30), TOL_RECON, "%s: reconstruction", name);
}

static bg_mat3 fdiag(bg_real a, bg_real b, bg_real c) {
  bg_mat3 m = bg_mat3_zero();
  m.m[0][0] = a;
  m.m[1][1] = b;
  m.m[2][2] = c;
  return m;
}

static void hand_cases(gsl_rng *r) {
  hand_case("identity", bg_mat3_identity(), 1, 1, 1);
  hand_case("diag(3,-2,1)", fdiag(3, -2, 1), 3, 2, -1);
  hand_case("zero", bg_mat3_zero(), 0, 0, 0);
  hand_case("-identity", fdiag(-1, -1, -1), 1, 1, -1);
  hand_case("diag(0,0,5)", fdiag(0, 0, 5), 5, 0, 0);
  /* Dynamic range 1e60: sigma2 = 1e-30 is far below float resolution of
   * sigma0 (it legitimately comes out 0), but sigma0 and sigma1 must be
   * exact and nothing may overflow or underflow into NaN. */
  hand_case("diag(1e-30,1,1e30)", fdiag(1e-30f, 1, 1e30f), 1e30, 1, 1e-30);
  {
    bg_mat3 a = fdiag(1e-30f, 1, 1e30f), u, v;
    bg_vec3 s;
    bg_svd3(&a, &u, &s, &v);
    bg_check_rel(s.v[0], (bg_real)1e30f, 1e-6, "diag(1e-30,1,1e30): sigma0 relative");
    bg_check_rel(s.v[1], 1.0, 1e-6, "diag(1e-30,1,1e30): sigma1 relative");
  }
  {
    /* Tiny but normal-range matrix: scaling must make it as accurate as a
     * unit one (relative to its own size). */
    bg_mat3 a = fdiag(3e-30f, -2e-30f, 1e-30f), u, v;
    bg_vec3 s;
    bg_svd3(&a, &u, &s, &v);
    bg_check_rel(s.v[0], (bg_real)3e-30f, 1e-6, "diag(3,-2,1)*1e-30: sigma0 relative");
    bg_check_rel(s.v[1], (bg_real)2e-30f, 1e-6, "diag(3,-2,1)*1e-30: sigma1 relative");
    bg_check_rel(s.v[2], -(double)(bg_real)1e-30f, 1e-6, "diag(3,-2,1)*1e-30: sigma2 relative");
  }
  {
    /* rows (1,2,3), (2,4,6), (3,6,9): rank 1, sigma0 = 14 */
    bg_mat3 a;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)((i + 1) * (j + 1));
    hand_case("rank-1 outer(123,123)", a, 14, 0, 0);
  }
  {
    /* Non-finite input must terminate and flag itself through sigma. */
    bg_mat3 a = bg_mat3_identity(), u, v;
    bg_vec3 s;
    a.m[1][2] = NAN;
    bg_svd3(&a, &u, &s, &v);
    bg_check_true(isnan(s.v[0]) && isnan(s.v[1]) && isnan(s.v[2]), "NaN input: sigma is NaN");
  }
  {
    /* Aliasing: output U written over the input. */
    bg_mat3 a = fdiag(3, -2, 1), v;
    bg_vec3 s;
    bg_svd3(&a, &a, &s, &v);
    bg_check_abs(s.v[2], -1.0, 1e-6, "aliased a == u: sigma2");
  }
  {
    /* Polar rotation: for A = R Q D Q^T (R a rotation, Q D Q^T symmetric
     * positive definite) the polar factor U V^T is R. */
    dmat rd = rand_rot(r), q = rand_rot(r), qt;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) qt.m[i][j] = q.m[j][i];
    bg_mat3 a = to_f(dmul(rd, dmul(q, dmul(ddiag(5, 2, 0.5), qt))));
    bg_mat3 u, v;
    bg_vec3 s;
    bg_svd3(&a, &u, &s, &v);
    bg_mat3 pr = bg_polar_rotation(&u, &v);
    double e = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) e = fmax(e, fabs(pr.m[i][j] - rd.m[i][j]));
    bg_check_le(e, 1e-5, "polar rotation of R S equals R (max abs entry error)");
    bg_check_abs(ddet(to_d(&pr)), 1.0, TOL_DET, "polar rotation is proper");
  }
}

/* ============================================================ batch path */

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* bg_svd3 scales its input by an exact power of two (a multiply for
 * max |a_ij| in [2^-126, 2^126), frexpf/ldexpf outside), so scaling A by 2^e
 * must leave U and V unchanged bit for bit and scale sigma exactly. Dyadic
 * entries k/16 stay exact far into the denormal range, so e runs over both
 * paths and their boundaries. */
static void scaling_invariance(gsl_rng *r) {
  long n = 0, bad_uv = 0, bad_s = 0, slow = 0;
  for (int trial = 0; trial < 100; ++trial) {
    bg_mat3 a, u0, v0;
    bg_vec3 s0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)dyadic(r);
    bg_svd3(&a, &u0, &s0, &v0);
    for (int e = -144; e <= 127; ++e) {
      bg_mat3 b, u, v;
      bg_vec3 s;
      double amax = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          b.m[i][j] = (bg_real)ldexp((double)a.m[i][j], e);
          amax = fmax(amax, fabs((double)b.m[i][j]));
        }
      if (amax == 0) continue;
      bg_svd3(&b, &u, &s, &v);
      if (!same_bits(&u, &u0, sizeof u) || !same_bits(&v, &v0, sizeof v)) bad_uv++;
      for (int k = 0; k < 3; ++k)
        if (s.v[k] != (bg_real)ldexp((double)s0.v[k], e)) {
          bad_s++;
          break;
        }
      if (amax < FLT_MIN || amax >= ldexp(1.0, 126)) slow++;
      n++;
    }
  }
  printf("scaling invariance: %ld scaled matrices, %ld through frexpf/ldexpf\n", n, slow);
  bg_check_true(bad_uv == 0, "bg_svd3(2^e A): U, V bit-identical to bg_svd3(A) (%ld of %ld differ)", bad_uv,
                n);
  bg_check_true(bad_s == 0, "bg_svd3(2^e A): sigma = 2^e sigma(A) exactly (%ld of %ld differ)", bad_s, n);
  bg_check_true(slow > 0 && slow < n, "scaling invariance covered both scaling paths (%ld of %ld)", slow, n);
}

static void chunk_get_usv(const bg_svd_chunk *c, int l, bg_mat3 *u, bg_vec3 *s, bg_mat3 *v) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      u->m[i][j] = c->u[3 * i + j][l];
      v->m[i][j] = c->v[3 * i + j][l];
    }
  for (int k = 0; k < 3; ++k) s->v[k] = c->s[k][l];
}

static bg_lane_m3 lane_of(const bg_mat3 *a) {
  bg_lane_m3 x;
  for (int e = 0; e < 9; ++e) x.e[e] = a->m[e / 3][e % 3];
  return x;
}

/* The fallback of a lane is bg_svd3 itself: its output must be bit for bit
 * bg_svd3's. Returns 1 when it is. */
static int matches_svd3(const bg_mat3 *a, const bg_mat3 *u, const bg_vec3 *s, const bg_mat3 *v) {
  bg_mat3 u2, v2;
  bg_vec3 s2;
  bg_svd3(a, &u2, &s2, &v2);
  return same_bits(u, &u2, sizeof u2) && same_bits(v, &v2, sizeof v2) && same_bits(s, &s2, sizeof s2);
}

/* bg_svd3_chunk over the five families, the same measures and tolerances
 * as bg_svd3 above. */
static void batch_svd_families(gsl_rng *r) {
  static bg_svd_chunk ch;
  static bg_mat3 a[BG_BATCH_CHUNK];
  static int known[BG_BATCH_CHUNK];
  static double want[BG_BATCH_CHUNK][3];
  fam_stats st[N_FAM];
  long fast[N_FAM], fb_not_svd3 = 0, fb_count = 0, fb_reported = 0;
  memset(st, 0, sizeof st);
  memset(fast, 0, sizeof fast);
  for (long base = 0; base < N_PER_FAMILY; base += BG_BATCH_CHUNK)
    for (int f = 0; f < N_FAM; ++f) {
      int len = (int)(N_PER_FAMILY - base < BG_BATCH_CHUNK ? N_PER_FAMILY - base : BG_BATCH_CHUNK);
      for (int l = 0; l < len; ++l) {
        want[l][0] = want[l][1] = want[l][2] = 0;
        a[l] = draw(r, f, base + l, &known[l], want[l]);
        for (int e = 0; e < 9; ++e) ch.a[e][l] = a[l].m[e / 3][e % 3];
      }
      fb_reported += bg_svd3_chunk(&ch, len);
      for (int l = 0; l < len; ++l) {
        bg_mat3 u, v;
        bg_vec3 s;
        chunk_get_usv(&ch, l, &u, &s, &v);
        measure_usv(&a[l], &u, &s, &v, known[l], want[l], &st[f]);
        if (bg_svd3_lane(lane_of(&a[l])).ok) {
          fast[f]++;
        } else {
          fb_count++;
          if (!matches_svd3(&a[l], &u, &s, &v)) fb_not_svd3++;
        }
      }
    }

  printf("bg_svd3_chunk (fast lanes + bg_svd3 fallback):\n");
  printf("%-14s %8s %10s %10s %10s %10s %10s %10s %6s %6s %6s\n", "family", "n", "recon", "orthoU",
         "orthoV", "|detU-1|", "|detV-1|", "sigma", "order", "sign", "fast%");
  for (int f = 0; f < N_FAM; ++f) {
    char sig[32];
    if (st[f].sigma_checked > 0) snprintf(sig, sizeof sig, "%10.3e", st[f].sigma_err);
    else snprintf(sig, sizeof sig, "%10s", "n/a");
    printf("%-14s %8ld %10.3e %10.3e %10.3e %10.3e %10.3e %s %6ld %6ld %6.1f\n", fam_name[f], st[f].n,
           st[f].recon, st[f].ortho_u, st[f].ortho_v, st[f].det_u, st[f].det_v, sig, st[f].order_bad,
           st[f].sign_bad, 100.0 * (double)fast[f] / (double)st[f].n);
  }
  check_families(st, "batch ");
  bg_check_true(fb_reported == fb_count, "batch: bg_svd3_chunk reports its fallback lanes (%ld, lanes say %ld)",
                fb_reported, fb_count);
  bg_check_true(fb_not_svd3 == 0, "batch: every fallback lane is bg_svd3's result bit for bit (%ld of %ld not)",
                fb_not_svd3, fb_count);
  /* both paths must really have been exercised */
  bg_check_true(fast[FAM_UNIFORM] > N_PER_FAMILY / 2 && fast[FAM_REFLECT] > N_PER_FAMILY / 2,
                "batch: fast path certifies most uniform and det<0 lanes (%ld, %ld of %d)", fast[FAM_UNIFORM],
                fast[FAM_REFLECT], N_PER_FAMILY);
  bg_check_true(fast[FAM_NEAR_SINGULAR] < N_PER_FAMILY && fast[FAM_SINGULAR] < N_PER_FAMILY,
                "batch: near-singular and singular lanes do fall back (%ld, %ld of %d fast)",
                fast[FAM_NEAR_SINGULAR], fast[FAM_SINGULAR], N_PER_FAMILY);
}

/* Lanes the fast SVD must refuse, mixed with good ones in one chunk. */
static void batch_svd_bad_lanes(void) {
  static bg_svd_chunk ch;
  bg_mat3 a[12];
  const char *what[12];
  int want_ok[12], n = 0;
  bg_mat3 rot = bg_mat3_identity();
  /* a good control: a rotation about z times a stretch */
  rot.m[0][0] = 0.8f;
  rot.m[0][1] = -0.6f;
  rot.m[1][0] = 0.6f;
  rot.m[1][1] = 0.8f;
  rot.m[2][2] = 1.1f;
#define BAD_CASE(name, expr, ok)                                                                       \
  do {                                                                                               \
    a[n] = expr;                                                                                     \
    what[n] = name;                                                                                  \
    want_ok[n++] = ok;                                                                               \
  } while (0)
  BAD_CASE("good control (stretched rotation)", rot, 1);
  BAD_CASE("zero matrix", bg_mat3_zero(), 0);
  BAD_CASE("diag(1e30) (entries > 2^20)", fdiag(1e30f, 1e30f, 1e30f), 0);
  BAD_CASE("diag(1e-30) (entries < 2^-20)", fdiag(1e-30f, 2e-30f, 3e-30f), 0);
  BAD_CASE("diag(1, 1, 1e-8) (sigma ratio < 2^-20)", fdiag(1, 1, 1e-8f), 0);
  BAD_CASE("zero column", fdiag(1, 2, 0), 0);
  {
    bg_mat3 m;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m.m[i][j] = (bg_real)((i + 1) * (j + 1));
    BAD_CASE("rank 1 outer(123,123)", m, 0);
  }
  {
    bg_mat3 m = rot;
    m.m[1][2] = NAN;
    BAD_CASE("NaN entry", m, 0);
  }
  {
    bg_mat3 m = rot;
    m.m[2][0] = INFINITY;
    BAD_CASE("Inf entry", m, 0);
  }
  BAD_CASE("good control (diag(3,-2,1), det < 0)", fdiag(3, -2, 1), 1);
#undef BAD_CASE
  for (int l = 0; l < n; ++l)
    for (int e = 0; e < 9; ++e) ch.a[e][l] = a[l].m[e / 3][e % 3];
  int fb = bg_svd3_chunk(&ch, n);
  int want_fb = 0;
  for (int l = 0; l < n; ++l) {
    int ok = bg_svd3_lane(lane_of(&a[l])).ok != 0;
    want_fb += !want_ok[l];
    bg_check_true(ok == want_ok[l], "batch lane '%s': %s", what[l], want_ok[l] ? "certified" : "refused");
    bg_mat3 u, v;
    bg_vec3 s;
    chunk_get_usv(&ch, l, &u, &s, &v);
    if (!want_ok[l]) bg_check_true(matches_svd3(&a[l], &u, &s, &v), "batch lane '%s': result is bg_svd3's", what[l]);
  }
  bg_check_true(fb == want_fb, "batch: %d of %d lanes fell back (want %d)", fb, n, want_fb);
}

/* ulp distance of two finite floats of the same sign. */
static double ulp_dist(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, sizeof ia);
  memcpy(&ib, &b, sizeof ib);
  return fabs((double)ia - (double)ib);
}

/* The lane kernels against libm: sqrt bit for bit (exhaustively over
 * [1, 4), which fixes the behaviour at every exponent pair, plus random
 * normals), log and exp within a couple of ulps of logf / expf. */
static void lane_kernels(gsl_rng *r) {
  long bad_sqrt = 0, n_sqrt = 0;
  for (uint32_t u = 0x3f800000u; u < 0x40800000u; ++u) { /* [1, 4) */
    bg_real x;
    memcpy(&x, &u, sizeof x);
    if (bg_lane_sqrt_cr_(x) != sqrtf(x)) bad_sqrt++;
    n_sqrt++;
  }
  for (int k = 0; k < 1000000; ++k) {
    uint32_t u = 0x00800000u + (uint32_t)gsl_rng_uniform_int(r, 0x7f800000u - 0x00800000u);
    bg_real x;
    memcpy(&x, &u, sizeof x);
    if (bg_lane_sqrt_cr_(x) != sqrtf(x)) bad_sqrt++;
    n_sqrt++;
  }
  if (bg_lane_sqrt_cr_(0.0f) != 0.0f) bad_sqrt++;
  bg_check_true(bad_sqrt == 0, "lane sqrt is correctly rounded (%ld of %ld differ from sqrtf)", bad_sqrt, n_sqrt);

  double ulp_log = 0, ulp_exp = 0, ulp_exp_wide = 0;
  for (int k = 0; k < 1000000; ++k) {
    bg_real x = (bg_real)log_uniform(r, 1e-6, 1e6);
    ulp_log = fmax(ulp_log, ulp_dist(bg_lane_log_(x), logf(x)));
    bg_real y = (bg_real)(40.0 * gsl_rng_uniform(r) - 20.0);
    ulp_exp = fmax(ulp_exp, ulp_dist(bg_lane_exp_(y), expf(y)));
    bg_real z = (bg_real)(2.0 * BG_BATCH_EPS_MAX * gsl_rng_uniform(r) - BG_BATCH_EPS_MAX);
    ulp_exp_wide = fmax(ulp_exp_wide, ulp_dist(bg_lane_exp_(z), expf(z)));
  }
  printf("lane kernels: max ulp vs libm: log %.0f (x in [1e-6, 1e6]), exp %.0f ([-20, 20]), %.0f ([-%g, %g])\n",
         ulp_log, ulp_exp, ulp_exp_wide, (double)BG_BATCH_EPS_MAX, (double)BG_BATCH_EPS_MAX);
  bg_check_le(ulp_log, 2, "lane log within 2 ulp of logf");
  bg_check_le(ulp_exp, 2, "lane exp within 2 ulp of expf on [-20, 20]");
  bg_check_le(ulp_exp_wide, 2, "lane exp within 2 ulp of expf on [-EPS_MAX, EPS_MAX]");
}

/* A principal strain triple of scale sc, with the volumetric part sometimes
 * placed exactly on a decision boundary of the return map. */
static bg_vec3 rand_strain(gsl_rng *r, double sc, int kind, double coef_alpha) {
  bg_vec3 e;
  double d[3], m = 0;
  for (int i = 0; i < 3; ++i) {
    d[i] = sc * gsl_ran_gaussian(r, 1.0);
    m += d[i] / 3;
  }
  double dn = 0;
  for (int i = 0; i < 3; ++i) {
    d[i] -= m;
    dn += d[i] * d[i];
  }
  dn = sqrt(dn);
  double tr;
  switch (kind) {
  case 0: tr = 3 * sc * gsl_ran_gaussian(r, 1.0); break; /* anything */
  case 1: tr = -dn / coef_alpha; break;                  /* on the cone: dgamma ~ 0 */
  case 2: tr = 0; break;                                 /* at the tip boundary */
  default: /* isotropic: no deviatoric part at all */
    for (int i = 0; i < 3; ++i) e.v[i] = (bg_real)(-sc);
    return e;
  }
  for (int i = 0; i < 3; ++i) e.v[i] = (bg_real)(d[i] + tr / 3);
  return e;
}

/* The branch-free return map against bg_dp_return_map, bit for bit. */
static void return_map_lane(gsl_rng *r) {
  long n = 0, refused = 0, mismatch = 0, modes[3] = {0, 0, 0};
  for (int k = 0; k < 300000; ++k) {
    bg_lame l = bg_lame_from_e_nu((bg_real)log_uniform(r, 1e4, 1e8), (bg_real)(0.05 + 0.4 * gsl_rng_uniform(r)));
    bg_real alpha = bg_dp_alpha((bg_real)(10.0 + 40.0 * gsl_rng_uniform(r)));
    double coef = (3.0 * l.lambda + 2.0 * l.mu) / (2.0 * l.mu) * alpha;
    int vc = (int)gsl_rng_uniform_int(r, 2);
    double sc = log_uniform(r, 1e-7, 0.5);
    bg_vec3 e = rand_strain(r, sc, (int)gsl_rng_uniform_int(r, 4), coef);
    bg_real ljp = gsl_rng_uniform(r) < 0.5 ? 0.0f : (bg_real)(3 * sc * gsl_ran_gaussian(r, 1.0));
    /* every other strain cohesive: the tip at a tension up to 1e-3 K, beta in [0, 1] */
    bg_real tip_p = 0.0f, loss = 0.0f;
    if (k % 2) {
      tip_p = (bg_real)(log_uniform(r, 1e-7, 1e-3) * (3.0 * l.lambda + 2.0 * l.mu));
      loss = (bg_real)gsl_rng_uniform(r);
    }
    bg_return want = bg_dp_return_map_coh(e, ljp, l, alpha, tip_p, loss, vc);
    bg_return_lane got = bg_dp_return_map_coh_lane(e, ljp, l, alpha, tip_p, loss, bg_lane_mask_(vc));
    if (!(k % 2)) {
      /* the cohesionless map is the cohesive one at c = 0, beta = 1, to the bit */
      bg_return old = bg_dp_return_map(e, ljp, l, alpha, vc);
      if (!same_bits(&old, &want, sizeof old)) mismatch++;
    }
    n++;
    if (!got.ok) {
      refused++;
      continue;
    }
    modes[want.mode]++;
    if (got.r.mode != want.mode || !same_bits(&got.r.eps, &want.eps, sizeof want.eps) ||
        !same_bits(&got.r.dq, &want.dq, sizeof want.dq) || !same_bits(&got.r.log_jp, &want.log_jp, sizeof want.log_jp))
      mismatch++;
  }
  printf("return map lane: %ld strains (elastic %ld, shear %ld, tip %ld), %ld refused\n", n, modes[0], modes[1],
         modes[2], refused);
  bg_check_true(mismatch == 0, "bg_dp_return_map_coh_lane == bg_dp_return_map_coh bit for bit, with and without cohesion (%ld of %ld differ)", mismatch,
                n - refused);
  bg_check_true(modes[0] > n / 20 && modes[1] > n / 20 && modes[2] > n / 20, "return map lane: all modes exercised");
  bg_check_true(refused <= n / 1000, "return map lane: refusals (denormal norms) are rare (%ld)", refused);
  {
    /* a denormal deviatoric norm must be refused, not silently rounded */
    bg_vec3 e;
    e.v[0] = -2e-20f;
    e.v[1] = -1e-20f;
    e.v[2] = 0.0f;
    bg_return_lane got = bg_dp_return_map_lane(e, 0.0f, bg_lame_from_e_nu(1e6f, 0.3f), 0.3f, 0u);
    bg_check_true(!got.ok, "return map lane refuses a denormal deviatoric norm");
    e.v[0] = 1e-20f;
    e.v[1] = -1e-20f;
    got = bg_dp_return_map_lane(e, 0.0f, bg_lame_from_e_nu(1e6f, 0.3f), 0.3f, 0u);
    bg_check_true(!got.ok, "return map lane refuses a denormal strain norm at the tip");
  }
  {
    /* cohesion with hardening moves the tip with q: the lanes leave it to the scalar update */
    bg_mat m = dp_mat(BG_LAW_HENCKY, 1, 1, 1);
    m.c.dp.cohesion = 100.0f;
    bg_lane_consts lc = bg_lane_consts_make(&m.el);
    bg_vec3 e = {{-1e-3f, -2e-3f, -3e-3f}};
    bg_return_lane got = bg_dp_return_lane(&lc, &m.c.dp, 1e-4f, bg_dp_c_alpha(&m.c.dp, 0.0f), e, 0.0f);
    bg_check_true(!got.ok, "return map lane leaves cohesion with hardening to the scalar update");
    m.c.dp.hardening = 0;
    m.c.dp.ccot = 100.0f;
    got = bg_dp_return_lane(&lc, &m.c.dp, 1e-4f, m.c.dp.alpha, e, 0.0f);
    bg_check_true(got.ok != 0, "return map lane runs cohesion without hardening");
  }
}

/* The lane restatements of the elastic laws against bg_stress.h, bit for bit. */
static void stress_lane(gsl_rng *r) {
  long mismatch = 0, n = 0;
  for (int k = 0; k < 100000; ++k) {
    bg_lame l = bg_lame_from_e_nu((bg_real)log_uniform(r, 1e4, 1e8), (bg_real)(0.05 + 0.4 * gsl_rng_uniform(r)));
    bg_vec3 e, sg;
    for (int i = 0; i < 3; ++i) {
      e.v[i] = (bg_real)(log_uniform(r, 1e-7, 1.0) * (gsl_rng_uniform(r) < 0.5 ? -1 : 1));
      sg.v[i] = (bg_real)log_uniform(r, 0.05, 20.0);
    }
    bg_vec3 a = bg_tau_hencky_eps_lane(e, l), b = bg_tau_hencky_eps(e, l);
    bg_vec3 c = bg_tau_fixed_corotated_lane(sg, l), d = bg_tau_fixed_corotated(sg, l);
    if (!same_bits(&a, &b, sizeof a) || !same_bits(&c, &d, sizeof c)) mismatch++;
    n++;
  }
  bg_check_true(mismatch == 0, "lane elastic laws == bg_tau_hencky_eps / bg_tau_fixed_corotated bit for bit (%ld of %ld differ)",
                mismatch, n);
}

enum { SF_NEAR_ID, SF_SAND, SF_WIDE, SF_EXTREME, N_SF };
static const char *sf_name[N_SF] = {"near-identity", "sand-like", "wide[0.3,3]", "extreme"};

/* Particle states: F near I (0.995 I + 0.01 U), near rotations with
 * elastic strains of a few percent, stretches in [0.3, 3], and (extreme) a
 * mix of what the fast path must refuse (det < 0, huge, tiny, singular,
 * NaN, non-finite log Jp or q) with ordinary states. */
static void sand_state(gsl_rng *r, int fam, long idx, bg_mat3 *F, bg_real *ljp, bg_real *q) {
  *ljp = 0;
  *q = 0;
  switch (fam) {
  case SF_NEAR_ID:
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F->m[i][j] = (bg_real)((i == j ? 0.995 : 0.0) + 0.01 * (2 * gsl_rng_uniform(r) - 1));
    return;
  case SF_SAND: {
    double e[3];
    for (int k = 0; k < 3; ++k) e[k] = 0.02 * gsl_ran_gaussian(r, 1.0) - 0.005;
    *F = usv_f(r, exp(e[0]), exp(e[1]), exp(e[2]));
    *ljp = gsl_rng_uniform(r) < 0.5 ? 0.0f : (bg_real)(0.02 * gsl_rng_uniform(r));
    *q = (bg_real)(0.5 * gsl_rng_uniform(r));
    return;
  }
  case SF_WIDE:
    *F = usv_f(r, log_uniform(r, 0.3, 3), log_uniform(r, 0.3, 3), log_uniform(r, 0.3, 3));
    *ljp = gsl_rng_uniform(r) < 0.5 ? 0.0f : (bg_real)(0.2 * gsl_rng_uniform(r));
    *q = (bg_real)gsl_rng_uniform(r);
    return;
  default:
    sand_state(r, SF_SAND, idx, F, ljp, q);
    switch (idx % 9) {
    case 0: *F = usv_f(r, 1.01, 0.99, -0.98); break;
    case 1: *F = usv_f(r, 1e25, 1e25, 1e25); break;
    case 2: *F = usv_f(r, 1e-30, 1e-30, 1e-30); break;
    case 3: *F = usv_f(r, 1.0, 0.5, 0.0); break;
    case 4: F->m[1][1] = NAN; break;
    case 5: *ljp = NAN; break;
    case 6: *q = INFINITY; break;
    default: break; /* ordinary */
    }
  }
}

typedef struct {
  double dF, dtau, dljp, dq;
  long n, fast, modes_differ, fb_not_scalar, fb_reported;
} sand_stats;

/* bg_material_update_soa against bg_material_update: certified lanes agree to
 * round-off, every other lane is bg_material_update's result bit for bit. */
static void sand_batch(gsl_rng *r) {
  enum { NP = 8192, N_MAT = 5 };
  static bg_real F[9][NP], ljp[NP], q[NP], tau[6][NP];
  static bg_real extra[BG_NSTATE - 2][NP]; /* the slots no local model uses */
  static bg_mat3 F0[NP];
  static bg_real ljp0[NP], q0[NP];
  static int mode[NP];
  const char *mat_name[N_MAT] = {"default", "hardening", "fixed-corot", "no-vol-corr", "elastic-only"};
  sand_stats st[N_MAT][N_SF];
  memset(st, 0, sizeof st);
  for (int mt = 0; mt < N_MAT; ++mt) {
    bg_mat m = dp_mat(mt == 2 ? BG_LAW_FIXED_COROTATED : BG_LAW_HENCKY, mt != 4, mt == 1, mt != 3);
    bg_lane_consts lc = bg_lane_consts_make(&m.el);
    double K = 2.0 * m.el.lame.mu + 3.0 * m.el.lame.lambda;
    bg_real *stp[BG_NSTATE] = {ljp, q};
    for (int k = 2; k < BG_NSTATE; ++k) stp[k] = extra[k - 2];
    bg_real *Fp[9], *tp[6];
    for (int e = 0; e < 9; ++e) Fp[e] = F[e];
    for (int e = 0; e < 6; ++e) tp[e] = tau[e];
    for (int fam = 0; fam < N_SF; ++fam) {
      sand_stats *s = &st[mt][fam];
      for (int p = 0; p < NP; ++p) {
        sand_state(r, fam, p, &F0[p], &ljp0[p], &q0[p]);
        for (int e = 0; e < 9; ++e) F[e][p] = F0[p].m[e / 3][e % 3];
        ljp[p] = ljp0[p];
        q[p] = q0[p];
      }
      /* an odd count: the last chunk is a partial one */
      int np = NP - 37;
      s->fb_reported = bg_material_update_soa(&m, 1e-4f, np, Fp, stp, tp, mode);
      for (int p = 0; p < np; ++p) {
        bg_mat3 Fs = F0[p], ts;
        bg_real ls = ljp0[p], qs = q0[p];
        int ms = scalar_update(&m, &Fs, &ls, &qs, &ts);
        bg_real t6[6] = {ts.m[0][0], ts.m[1][1], ts.m[2][2], 0.5f * (ts.m[0][1] + ts.m[1][0]),
                         0.5f * (ts.m[0][2] + ts.m[2][0]), 0.5f * (ts.m[1][2] + ts.m[2][1])};
        s->n++;
        bg_lane_out o = bg_dp_update_lane(&lc, &m.c.dp, 1e-4f, bg_dp_c_alpha(&m.c.dp, q0[p]), lane_of(&F0[p]), ljp0[p], q0[p]);
        if (o.ok) {
          s->fast++;
          double df = 0, nf = 0;
          for (int e = 0; e < 9; ++e) {
            double d = (double)F[e][p] - Fs.m[e / 3][e % 3];
            df += d * d;
            nf += (double)Fs.m[e / 3][e % 3] * Fs.m[e / 3][e % 3];
          }
          upd_max(&s->dF, sqrt(df / nf));
          for (int k = 0; k < 6; ++k) upd_max(&s->dtau, fabs((double)tau[k][p] - t6[k]) / K);
          upd_max(&s->dljp, fabs((double)ljp[p] - ls));
          upd_max(&s->dq, fabs((double)q[p] - qs));
          if (mode[p] != ms) s->modes_differ++;
        } else {
          int same = mode[p] == ms && same_bits(&ljp[p], &ls, sizeof ls) && same_bits(&q[p], &qs, sizeof qs);
          for (int e = 0; e < 9; ++e) same = same && same_bits(&F[e][p], &Fs.m[e / 3][e % 3], sizeof(bg_real));
          for (int k = 0; k < 6; ++k) same = same && same_bits(&tau[k][p], &t6[k], sizeof(bg_real));
          if (!same) s->fb_not_scalar++;
        }
      }
    }
  }
  printf("bg_material_update_soa vs bg_material_update (certified lanes; K = 2 mu + 3 lambda):\n");
  printf("%-13s %-14s %6s %7s %10s %10s %10s %10s %6s\n", "material", "states", "n", "fast%", "|dF|/|F|",
         "|dtau|/K", "|dlogJp|", "|dq|", "modes");
  for (int mt = 0; mt < N_MAT; ++mt)
    for (int fam = 0; fam < N_SF; ++fam) {
      sand_stats *s = &st[mt][fam];
      printf("%-13s %-14s %6ld %7.2f %10.3e %10.3e %10.3e %10.3e %6ld\n", mat_name[mt], sf_name[fam], s->n,
             100.0 * (double)s->fast / (double)s->n, s->dF, s->dtau, s->dljp, s->dq, s->modes_differ);
    }
  double dF = 0, dtau = 0, dljp = 0, dq = 0;
  long modes = 0, fb_bad = 0, fb_mismatch_count = 0, n = 0, slow_sand = 0, n_sand = 0, fast_extreme = 0,
       n_extreme = 0;
  for (int mt = 0; mt < N_MAT; ++mt)
    for (int fam = 0; fam < N_SF; ++fam) {
      sand_stats *s = &st[mt][fam];
      upd_max(&dF, s->dF);
      upd_max(&dtau, s->dtau);
      upd_max(&dljp, s->dljp);
      upd_max(&dq, s->dq);
      modes += s->modes_differ;
      fb_bad += s->fb_not_scalar;
      n += s->n;
      if (s->fb_reported != s->n - s->fast) fb_mismatch_count++;
      if (fam == SF_NEAR_ID || fam == SF_SAND) {
        slow_sand += s->n - s->fast;
        n_sand += s->n;
      }
      if (fam == SF_EXTREME) {
        fast_extreme += s->fast;
        n_extreme += s->n;
      }
    }
  bg_check_le(dF, 1e-5, "sand batch: max ||F - F_scalar|| / ||F_scalar||");
  bg_check_le(dtau, 1e-5, "sand batch: max |tau - tau_scalar| / (2 mu + 3 lambda)");
  bg_check_le(dljp, 1e-5, "sand batch: max |log Jp - log Jp_scalar|");
  bg_check_le(dq, 1e-5, "sand batch: max |q - q_scalar|");
  bg_check_true(modes <= n / 1000, "sand batch: return-map modes differ only at round-off boundaries (%ld of %ld)",
                modes, n);
  bg_check_true(fb_bad == 0, "sand batch: every fallback lane is bg_material_update's result bit for bit (%ld not)",
                fb_bad);
  bg_check_true(fb_mismatch_count == 0, "sand batch: bg_material_update_soa reports its fallback lanes");
  /* MPM sand lives here: fallbacks must be rare (they cost a scalar update) */
  bg_check_true(slow_sand * 1000 <= n_sand, "sand batch: near-identity and sand-like states fall back rarely (%ld of %ld)",
                slow_sand, n_sand);
  /* extreme: 7 of every 9 lanes must be refused, the ordinary 2 certified */
  bg_check_true(n_extreme - fast_extreme >= (7 * n_extreme) / 9 - N_MAT,
                "sand batch: the extreme lanes fall back (%ld of %ld)", n_extreme - fast_extreme, n_extreme);
}

/* The mu(I) lane update (bg_mat_mui.h) against its scalar update, through
 * the registry's chunk driver, on the sand-like and near-identity states at
 * three dt (the plastic rate, hence mu, depends on it): the same round-off
 * bounds as Drucker-Prager's lanes, fallback lanes bit for bit, fallbacks
 * rare. The lanes differ from the scalar code by the one-ulp lane exp in the
 * Cauchy pressure and the fast SVD. */
static void mui_batch(gsl_rng *r) {
  enum { NP = 4096 };
  static bg_real F[9][NP], ljp[NP], q[NP], tau[6][NP];
  static bg_real extra[BG_NSTATE - 2][NP];
  static bg_mat3 F0[NP];
  static bg_real ljp0[NP], q0[NP];
  static int mode[NP];
  bg_material mm = bg_material_mui();
  bg_mat m = bg_material_prepare(&mm);
  const double K = 2.0 * m.el.lame.mu + 3.0 * m.el.lame.lambda;
  bg_real *Fp[9], *tp[6], *stp[BG_NSTATE] = {ljp, q};
  for (int k = 2; k < BG_NSTATE; ++k) stp[k] = extra[k - 2];
  for (int e = 0; e < 9; ++e) Fp[e] = F[e];
  for (int e = 0; e < 6; ++e) tp[e] = tau[e];
  double dF = 0, dtau = 0, dljp = 0;
  long n = 0, fell = 0, fb_bad = 0, shear = 0, modes = 0;
  const int fams[2] = {SF_NEAR_ID, SF_SAND};
  const bg_real dts[3] = {1e-5f, 1e-4f, 1e-3f};
  for (int fi = 0; fi < 2; ++fi)
    for (int di = 0; di < 3; ++di) {
      for (int p = 0; p < NP; ++p) {
        sand_state(r, fams[fi], p, &F0[p], &ljp0[p], &q0[p]);
        for (int e = 0; e < 9; ++e) F[e][p] = F0[p].m[e / 3][e % 3];
        ljp[p] = ljp0[p];
        q[p] = q0[p];
      }
      int np = NP - 21;
      fell += bg_material_update_soa(&m, dts[di], np, Fp, stp, tp, mode);
      bg_lane_consts lc = bg_lane_consts_make(&m.el);
      for (int p = 0; p < np; ++p) {
        bg_mat3 Fs = F0[p], ts;
        bg_real st[BG_NSTATE] = {ljp0[p], q0[p]};
        const bg_mat3 C0 = bg_mat3_zero();
        bg_update_ctx u = {&Fs, &C0, dts[di], st, &ts};
        int ms = bg_material_update(&m, &u);
        bg_real t6[6] = {ts.m[0][0], ts.m[1][1], ts.m[2][2], 0.5f * (ts.m[0][1] + ts.m[1][0]),
                         0.5f * (ts.m[0][2] + ts.m[2][0]), 0.5f * (ts.m[1][2] + ts.m[2][1])};
        n++;
        shear += ms == BG_RM_SHEAR;
        bg_lane_out o = bg_mui_update_lane(&lc, &m.c.mui, dts[di], 0.0f, lane_of(&F0[p]), ljp0[p], q0[p]);
        if (o.ok) {
          double df = 0, nf = 0;
          for (int e = 0; e < 9; ++e) {
            double d = (double)F[e][p] - Fs.m[e / 3][e % 3];
            df += d * d;
            nf += (double)Fs.m[e / 3][e % 3] * Fs.m[e / 3][e % 3];
          }
          upd_max(&dF, sqrt(df / nf));
          for (int k = 0; k < 6; ++k) upd_max(&dtau, fabs((double)tau[k][p] - t6[k]) / K);
          upd_max(&dljp, fabs((double)ljp[p] - st[0]));
          if (mode[p] != ms) modes++;
        } else {
          int same = mode[p] == ms && same_bits(&ljp[p], &st[0], sizeof st[0]) && same_bits(&q[p], &st[1], sizeof st[1]);
          for (int e = 0; e < 9; ++e) same = same && same_bits(&F[e][p], &Fs.m[e / 3][e % 3], sizeof(bg_real));
          if (!same) fb_bad++;
        }
      }
    }
  printf("mu(I) batch vs scalar: %ld states (%ld shear), %ld fallbacks, |dF|/|F| %.3e, |dtau|/K %.3e, |dlogJp| %.3e\n",
         n, shear, fell, dF, dtau, dljp);
  bg_check_true(shear > n / 10, "mu(I) batch: the states exercise the shear return (%ld of %ld)", shear, n);
  bg_check_le(dF, 1e-5, "mu(I) batch: max ||F - F_scalar|| / ||F_scalar||");
  bg_check_le(dtau, 1e-5, "mu(I) batch: max |tau - tau_scalar| / (2 mu + 3 lambda)");
  bg_check_le(dljp, 1e-5, "mu(I) batch: max |log Jp - log Jp_scalar|");
  bg_check_true(modes <= n / 1000, "mu(I) batch: modes differ only at round-off boundaries (%ld of %ld)", modes, n);
  bg_check_true(fb_bad == 0, "mu(I) batch: every fallback lane is the scalar update's result bit for bit (%ld not)", fb_bad);
  bg_check_true(fell * 1000 <= n, "mu(I) batch: fallbacks are rare (%ld of %ld)", fell, n);
}

/* The fast path's certificate (bg_lane_svd_certify_) on its own: it must
 * accept true factorisations and reject every kind of wrong one, whatever
 * produced it -- including the shape of the bug it was made for: orthogonal
 * U and V that do not belong together (U a rotation, V = I, s = 1 for
 * A ~ I). Factors from bg_svd3 of well-conditioned matrices
 * R1 diag(3, 2, 1) R2, then corrupted one way each. */
static void certificate_faults(gsl_rng *r) {
  enum { N_CERT = 2000, N_FAULT = 7 };
  static const char *fault_name[N_FAULT] = {
      "U, V of another matrix (V = I, U a rotation)", "U column scaled by 1+1e-5", "sigma0 scaled by 1+1e-4",
      "V entry + 1e-5 (not orthogonal)", "V turned by 0.01 rad (orthogonal, wrong)", "U columns 0, 1 swapped",
      "NaN in U"};
  long true_ok = 0, accepted[N_FAULT];
  memset(accepted, 0, sizeof accepted);
  for (int k = 0; k < N_CERT; ++k) {
    bg_mat3 a = usv_f(r, 3.0, 2.0, 1.0), u, v;
    bg_vec3 sg;
    bg_svd3(&a, &u, &sg, &v);
    bg_lane_m3 al = lane_of(&a), ul = lane_of(&u), vl = lane_of(&v);
    true_ok += bg_lane_svd_certify_(al.e, ul.e, sg.v, vl.e) != 0;
    for (int f = 0; f < N_FAULT; ++f) {
      bg_lane_m3 a2 = al, u2 = ul, v2 = vl;
      bg_vec3 s2 = sg;
      switch (f) {
      case 0: { /* what the unclamped sweeps returned for F = I + 1e-24 E */
        bg_mat3 id = bg_mat3_identity(), q = to_f(rand_rot(r));
        a2 = lane_of(&id);
        a2.e[1] = -1.2e-24f;
        a2.e[2] = 1.1e-12f;
        u2 = lane_of(&q);
        v2 = lane_of(&id);
        s2.v[0] = s2.v[1] = s2.v[2] = 1.0f;
        break;
      }
      case 1:
        for (int i = 0; i < 3; ++i) u2.e[3 * i] *= 1.00001f;
        break;
      case 2: s2.v[0] *= 1.0001f; break;
      case 3: v2.e[gsl_rng_uniform_int(r, 9)] += 1e-5f; break;
      case 4: { /* V G, G a rotation by 0.01 in the plane of two columns */
        int p = (int)gsl_rng_uniform_int(r, 3), q = (p + 1) % 3;
        double c = cos(0.01), sn = sin(0.01);
        for (int i = 0; i < 3; ++i) {
          double vp = v2.e[3 * i + p], vq = v2.e[3 * i + q];
          v2.e[3 * i + p] = (bg_real)(c * vp - sn * vq);
          v2.e[3 * i + q] = (bg_real)(sn * vp + c * vq);
        }
        break;
      }
      case 5:
        for (int i = 0; i < 3; ++i) {
          bg_real t = u2.e[3 * i];
          u2.e[3 * i] = u2.e[3 * i + 1];
          u2.e[3 * i + 1] = t;
        }
        break;
      default: u2.e[gsl_rng_uniform_int(r, 9)] = NAN; break;
      }
      accepted[f] += bg_lane_svd_certify_(a2.e, u2.e, s2.v, v2.e) != 0;
    }
  }
  printf("certificate: %ld of %d true factorisations accepted\n", true_ok, N_CERT);
  bg_check_true(true_ok * 100 >= 99L * N_CERT,
                "certificate accepts bg_svd3's factors of well-conditioned A (%ld of %d)", true_ok, N_CERT);
  for (int f = 0; f < N_FAULT; ++f)
    bg_check_true(accepted[f] == 0, "certificate rejects '%s' (%ld of %d accepted)", fault_name[f], accepted[f],
                  N_CERT);
}

/* ============================================ MPM-like near-identity states */

/* F_trial = (I + dt C) F: for almost every particle at almost every step F
 * is the identity (or a rotation) plus entries of 1e-12 and their products,
 * 1e-24, with exact zeros, so the column norms are *exactly* equal (1 + 1e-24
 * is 1): repeated singular values, where the Jacobi angle is 0/0, and
 * dot products whose squares underflow. The fast path once certified a
 * garbage U there (reconstruction error O(1), particles launched at m/s).
 * Families: I + E with |E_ij| log-uniform over 1e-30 .. 1e-2, random signs
 * and random sparsity; the exact identity; rotations (exact signed
 * permutations, the exact (0.6, 0.8) axis rotations, rounded random ones);
 * the identity with one entry (log-uniform 1e-45 .. 1e-2, denormals
 * included) at each of the nine positions; diag(1, 1, 1 +- k ulp) with the
 * odd entry anywhere; and rotated states R (I + E). */
enum { NI_RANDOM, NI_IDENTITY, NI_ROTATION, NI_SINGLE, NI_ULP, NI_ROT_E, N_NI };
static const char *ni_name[N_NI] = {"I+E", "identity", "rotation", "I+one entry", "diag(1,1,1+-ulp)", "R(I+E)"};
#define N_NEAR_ID 100000

static double rand_sign(gsl_rng *r) { return gsl_rng_uniform(r) < 0.5 ? -1.0 : 1.0; }

/* E with log-uniform magnitudes over 1e-30 .. 1e-2, random signs, and a
 * random fraction of exact zeros. */
static dmat tiny_e(gsl_rng *r) {
  dmat e;
  double pzero = gsl_rng_uniform(r);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      e.m[i][j] = gsl_rng_uniform(r) < pzero ? 0.0 : rand_sign(r) * log_uniform(r, 1e-30, 1e-2);
  return e;
}

static int near_identity_kind(long idx) {
  static const int k[16] = {NI_RANDOM, NI_RANDOM, NI_RANDOM, NI_RANDOM, NI_RANDOM, NI_RANDOM, NI_RANDOM,
                            NI_RANDOM, NI_IDENTITY, NI_ROTATION, NI_SINGLE, NI_SINGLE, NI_ULP,
                            NI_ROT_E, NI_ROT_E, NI_ROT_E};
  return k[idx % 16];
}

static bg_mat3 near_identity(gsl_rng *r, int kind, long idx) {
  bg_mat3 a = bg_mat3_identity();
  switch (kind) {
  case NI_RANDOM: {
    dmat e = tiny_e(r);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) a.m[i][j] = (bg_real)((i == j) + e.m[i][j]);
    return a;
  }
  case NI_IDENTITY: return a;
  case NI_ROTATION: {
    long v = (idx / 16) % 3;
    if (v == 0) { /* signed permutation, det +1: exact */
      static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}};
      int pi = (int)gsl_rng_uniform_int(r, 6), odd = pi >= 3;
      double sg[3], det = odd ? -1 : 1;
      for (int k = 0; k < 3; ++k) {
        sg[k] = rand_sign(r);
        det *= sg[k];
      }
      if (det < 0) sg[2] = -sg[2];
      a = bg_mat3_zero();
      for (int k = 0; k < 3; ++k) a.m[k][perm[pi][k]] = (bg_real)sg[k];
    } else if (v == 1) { /* (0.6, 0.8) about a coordinate axis: exact in float up to rounding of 0.6, 0.8 */
      int ax = (int)gsl_rng_uniform_int(r, 3), p = (ax + 1) % 3, q = (ax + 2) % 3;
      double c = 0.6, s = 0.8 * rand_sign(r);
      if (gsl_rng_uniform(r) < 0.5) {
        c = 0.8;
        s = 0.6 * rand_sign(r);
      }
      a.m[p][p] = (bg_real)c;
      a.m[q][q] = (bg_real)c;
      a.m[p][q] = (bg_real)-s;
      a.m[q][p] = (bg_real)s;
    } else {
      a = to_f(rand_rot(r));
    }
    return a;
  }
  case NI_SINGLE: {
    int pos = (int)((idx / 16) % 9);
    double x = rand_sign(r) * log_uniform(r, 1e-45, 1e-2);
    a.m[pos / 3][pos % 3] = (bg_real)((pos % 4 == 0) + x);
    return a;
  }
  case NI_ULP: {
    int pos = (int)gsl_rng_uniform_int(r, 3), k = 1 + (int)gsl_rng_uniform_int(r, 4);
    a.m[pos][pos] = (bg_real)(gsl_rng_uniform(r) < 0.5 ? 1.0 + k * ldexp(1.0, -23) : 1.0 - k * ldexp(1.0, -24));
    if (gsl_rng_uniform(r) < 0.25) { /* and a second one */
      int p2 = (pos + 1 + (int)gsl_rng_uniform_int(r, 2)) % 3;
      a.m[p2][p2] = (bg_real)(1.0 + rand_sign(r) * ldexp(1.0, -24));
    }
    return a;
  }
  default: { /* NI_ROT_E */
    dmat e = tiny_e(r);
    for (int i = 0; i < 3; ++i) e.m[i][i] += 1.0;
    return to_f(dmul(rand_rot(r), e));
  }
  }
}

typedef struct {
  double dF, dtau, dljp, dq;
  long n, fast, modes_differ, modes_unexplained;
} ni_sand_stats;

/* Both batch drivers on N_NEAR_ID such states: bg_svd3_chunk with the
 * measures and tolerances of the other families, plus its sigma against
 * bg_svd3's; bg_material_update_chunk against bg_material_update (F within 1e-5
 * relative, tau within 1e-5 of K = 2 mu + 3 lambda, modes equal except where
 * the return map's decision, tr(eps) >= 0 or dgamma <= 0, is within
 * round-off of its boundary). */
static void mpm_near_identity(gsl_rng *r) {
  enum { N_MAT = 2 };
  static bg_svd_chunk ch;
  static bg_mat_chunk sc[N_MAT];
  static bg_mat3 a[BG_BATCH_CHUNK];
  static int kind[BG_BATCH_CHUNK];
  static bg_real ljp0[BG_BATCH_CHUNK];
  fam_stats st[N_NI];
  ni_sand_stats ss[N_MAT][N_NI];
  long fast[N_NI], fb_reported = 0, fb_counted = 0, fb_not_svd3 = 0, sand_fb_reported = 0, sand_fb_counted = 0;
  double sig_vs_svd3[N_NI], worst_recon_certified = 0, worst_ortho_certified = 0;
  const char *mat_name[N_MAT] = {"default", "fixcorot+hard"};
  bg_mat mats[N_MAT];
  bg_lane_consts lc[N_MAT];
  memset(st, 0, sizeof st);
  memset(ss, 0, sizeof ss);
  memset(fast, 0, sizeof fast);
  memset(sig_vs_svd3, 0, sizeof sig_vs_svd3);
  for (int mt = 0; mt < N_MAT; ++mt) {
    mats[mt] = dp_mat(mt == 1 ? BG_LAW_FIXED_COROTATED : BG_LAW_HENCKY, 1, mt == 1, mt == 0);
    lc[mt] = bg_lane_consts_make(&mats[mt].el);
  }
  for (long base = 0; base < N_NEAR_ID; base += BG_BATCH_CHUNK) {
    int len = (int)(N_NEAR_ID - base < BG_BATCH_CHUNK ? N_NEAR_ID - base : BG_BATCH_CHUNK);
    for (int l = 0; l < len; ++l) {
      kind[l] = near_identity_kind(base + l);
      a[l] = near_identity(r, kind[l], base + l);
      /* at rest, log Jp is mostly 0; sometimes a small leftover */
      ljp0[l] = gsl_rng_uniform(r) < 0.75 ? 0.0f : (bg_real)(rand_sign(r) * log_uniform(r, 1e-9, 1e-2));
      for (int e = 0; e < 9; ++e) {
        ch.a[e][l] = a[l].m[e / 3][e % 3];
        for (int mt = 0; mt < N_MAT; ++mt) sc[mt].F[e][l] = a[l].m[e / 3][e % 3];
      }
      for (int mt = 0; mt < N_MAT; ++mt) {
        sc[mt].st[BG_STATE_LOG_JP][l] = ljp0[l];
        sc[mt].st[BG_STATE_Q][l] = 0.0f;
      }
    }
    fb_reported += bg_svd3_chunk(&ch, len);
    for (int mt = 0; mt < N_MAT; ++mt) sand_fb_reported += bg_material_update_chunk(&mats[mt], 1e-4f, &sc[mt], len);
    for (int l = 0; l < len; ++l) {
      int k = kind[l];
      bg_mat3 u, v, us, vs;
      bg_vec3 s, sgs;
      chunk_get_usv(&ch, l, &u, &s, &v);
      fam_stats one;
      memset(&one, 0, sizeof one);
      measure_usv(&a[l], &u, &s, &v, 0, NULL, &one);
      measure_usv(&a[l], &u, &s, &v, 0, NULL, &st[k]);
      bg_svd3(&a[l], &us, &sgs, &vs);
      for (int j = 0; j < 3; ++j)
        upd_max(&sig_vs_svd3[k], fabs((double)s.v[j] - sgs.v[j]) / fmax((double)sgs.v[0], 1e-30));
      if (bg_svd3_lane(lane_of(&a[l])).ok) {
        fast[k]++;
        upd_max(&worst_recon_certified, one.recon);
        upd_max(&worst_ortho_certified, fmax(one.ortho_u, one.ortho_v));
      } else {
        fb_counted++;
        if (!matches_svd3(&a[l], &u, &s, &v)) fb_not_svd3++;
      }
      for (int mt = 0; mt < N_MAT; ++mt) {
        const bg_mat *m = &mats[mt];
        ni_sand_stats *x = &ss[mt][k];
        bg_mat3 Fs = a[l], ts;
        bg_real ls = ljp0[l], qs = 0.0f;
        int ms = scalar_update(m, &Fs, &ls, &qs, &ts);
        bg_real t6[6] = {ts.m[0][0], ts.m[1][1], ts.m[2][2], 0.5f * (ts.m[0][1] + ts.m[1][0]),
                         0.5f * (ts.m[0][2] + ts.m[2][0]), 0.5f * (ts.m[1][2] + ts.m[2][1])};
        double K = 2.0 * m->el.lame.mu + 3.0 * m->el.lame.lambda;
        double df = 0, nf = 0;
        for (int e = 0; e < 9; ++e) {
          double d = (double)sc[mt].F[e][l] - Fs.m[e / 3][e % 3];
          df += d * d;
          nf += (double)Fs.m[e / 3][e % 3] * Fs.m[e / 3][e % 3];
        }
        upd_max(&x->dF, sqrt(df / nf));
        for (int c = 0; c < 6; ++c) upd_max(&x->dtau, fabs((double)sc[mt].tau[c][l] - t6[c]) / K);
        upd_max(&x->dljp, fabs((double)sc[mt].st[BG_STATE_LOG_JP][l] - ls));
        upd_max(&x->dq, fabs((double)sc[mt].st[BG_STATE_Q][l] - qs));
        x->n++;
        bg_lane_out o = bg_dp_update_lane(&lc[mt], &m->c.dp, 1e-4f, bg_dp_c_alpha(&m->c.dp, 0.0f), lane_of(&a[l]), ljp0[l], 0.0f);
        if (o.ok) x->fast++;
        else sand_fb_counted++;
        if (sc[mt].mode[l] != ms) {
          /* the decision the scalar return map took, in double from its
           * own singular values: tip where tr >= 0, elastic where dgamma <= 0 */
          double e[3], tr = 0, eh2 = 0;
          for (int j = 0; j < 3; ++j) {
            e[j] = log(fmax((double)sgs.v[j], (double)BG_SIGMA_MIN)) + (m->el.volume_correction ? ljp0[l] / 3.0 : 0.0);
            tr += e[j];
          }
          for (int j = 0; j < 3; ++j) eh2 += (e[j] - tr / 3) * (e[j] - tr / 3);
          double coef = (3.0 * m->el.lame.lambda + 2.0 * m->el.lame.mu) / (2.0 * m->el.lame.mu) * bg_dp_c_alpha(&m->c.dp, 0.0f);
          double dgamma = sqrt(eh2) + coef * tr;
          x->modes_differ++;
          if (!(fabs(tr) <= 1e-6 || fabs(dgamma) <= 1e-6)) x->modes_unexplained++;
        }
      }
    }
  }
  printf("MPM-like near identity: bg_svd3_chunk (sigma: |sigma - sigma_bg_svd3| / sigma0):\n");
  printf("%-17s %8s %10s %10s %10s %10s %10s %10s %6s %6s %7s\n", "family", "n", "recon", "orthoU", "orthoV",
         "|detU-1|", "|detV-1|", "sigma", "order", "sign", "fast%");
  long n_all = 0, fast_all = 0;
  for (int k = 0; k < N_NI; ++k) {
    printf("%-17s %8ld %10.3e %10.3e %10.3e %10.3e %10.3e %10.3e %6ld %6ld %7.3f\n", ni_name[k], st[k].n, st[k].recon,
           st[k].ortho_u, st[k].ortho_v, st[k].det_u, st[k].det_v, sig_vs_svd3[k], st[k].order_bad, st[k].sign_bad,
           100.0 * (double)fast[k] / (double)st[k].n);
    n_all += st[k].n;
    fast_all += fast[k];
  }
  printf("MPM-like near identity: bg_material_update_chunk vs bg_material_update (K = 2 mu + 3 lambda):\n");
  printf("%-13s %-17s %6s %8s %10s %10s %10s %10s %6s\n", "material", "family", "n", "fast%", "|dF|/|F|",
         "|dtau|/K", "|dlogJp|", "|dq|", "modes");
  long sand_n = 0, sand_fast = 0, modes = 0, unexplained = 0;
  double dF = 0, dtau = 0, dljp = 0, dq = 0;
  for (int mt = 0; mt < N_MAT; ++mt)
    for (int k = 0; k < N_NI; ++k) {
      ni_sand_stats *x = &ss[mt][k];
      printf("%-13s %-17s %6ld %8.3f %10.3e %10.3e %10.3e %10.3e %6ld\n", mat_name[mt], ni_name[k], x->n,
             100.0 * (double)x->fast / (double)x->n, x->dF, x->dtau, x->dljp, x->dq, x->modes_differ);
      upd_max(&dF, x->dF);
      upd_max(&dtau, x->dtau);
      upd_max(&dljp, x->dljp);
      upd_max(&dq, x->dq);
      sand_n += x->n;
      sand_fast += x->fast;
      modes += x->modes_differ;
      unexplained += x->modes_unexplained;
    }
  for (int k = 0; k < N_NI; ++k) {
    const char *n = ni_name[k];
    bg_check_le(st[k].recon, TOL_RECON, "near-identity %s: max ||U S V^T - A||_F / ||A||_F", n);
    bg_check_le(st[k].ortho_u, TOL_ORTHO, "near-identity %s: max ||U^T U - I||_F", n);
    bg_check_le(st[k].ortho_v, TOL_ORTHO, "near-identity %s: max ||V^T V - I||_F", n);
    bg_check_le(st[k].det_u, TOL_DET, "near-identity %s: max |det U - 1|", n);
    bg_check_le(st[k].det_v, TOL_DET, "near-identity %s: max |det V - 1|", n);
    bg_check_le(sig_vs_svd3[k], 1e-6, "near-identity %s: max |sigma - sigma_bg_svd3| / sigma0", n);
    bg_check_true(st[k].order_bad == 0 && st[k].sign_bad == 0,
                  "near-identity %s: sigma ordered, sign(sigma2) == sign(det A) (%ld, %ld bad)", n, st[k].order_bad,
                  st[k].sign_bad);
  }
  printf("near identity: certified lanes: max recon %.3e, max orthogonality %.3e\n", worst_recon_certified,
         worst_ortho_certified);
  bg_check_le(worst_recon_certified, TOL_RECON, "near identity: every certified lane reconstructs A");
  bg_check_le(worst_ortho_certified, TOL_ORTHO, "near identity: every certified lane has orthogonal U, V");
  bg_check_true(fb_reported == fb_counted && fb_not_svd3 == 0,
                "near identity: bg_svd3_chunk reports its %ld fallbacks (%ld), each bg_svd3's result (%ld not)",
                fb_counted, fb_reported, fb_not_svd3);
  /* the state of almost every particle: a fallback costs a scalar update */
  bg_check_true((n_all - fast_all) * 1000 <= n_all, "near identity: bg_svd3_chunk falls back rarely (%ld of %ld)",
                n_all - fast_all, n_all);
  bg_check_le(dF, 1e-5, "near identity sand batch: max ||F - F_scalar|| / ||F_scalar||");
  bg_check_le(dtau, 1e-5, "near identity sand batch: max |tau - tau_scalar| / (2 mu + 3 lambda)");
  bg_check_le(dljp, 1e-5, "near identity sand batch: max |log Jp - log Jp_scalar|");
  bg_check_le(dq, 1e-5, "near identity sand batch: max |q - q_scalar|");
  bg_check_true(unexplained == 0,
                "near identity sand batch: modes differ only within round-off of tr = 0 or dgamma = 0 (%ld of %ld not)",
                unexplained, modes);
  bg_check_true(sand_fb_reported == sand_fb_counted, "near identity sand batch: fallbacks reported (%ld of %ld)",
                sand_fb_reported, sand_fb_counted);
  bg_check_true((sand_n - sand_fast) * 1000 <= sand_n, "near identity sand batch: falls back rarely (%ld of %ld)",
                sand_n - sand_fast, sand_n);
}

/* Systematic error of the factorisation's volume. Round-off may move
 * det(U diag(s) V^T) off det A by an ulp or so either way, but not on
 * average: the constitutive update reassembles every particle's F from its
 * SVD every step, so a mean relative drift b is a volume change of b per
 * step in every particle (over 1e5 steps of a run, 1e5 b), which no random
 * round-off does. Measured in double on the float factors over MPM-like
 * states F = R (I + E) (E symmetric, entries up to 1e-3; R a uniform
 * rotation, or none: sand at rest); bound: an eighth of an ulp of 1 per
 * call. (bg_svd3 once drifted by +1.9e-7 = 1.6 ulp here: its cosines
 * 1 / sqrtf(1 + t^2) rounded to 1 for small angles.) */
static void volume_bias(gsl_rng *r) {
  enum { N_BIAS = 64 * 1024 };
  const double bound = FLT_EPSILON / 8;
  for (int rotated = 0; rotated < 2; ++rotated) {
    double sum_s = 0, sum_b = 0;
    static bg_svd_chunk ch;
    bg_mat3 a[64];
    for (long it = 0; it < N_BIAS; it += 64) {
      for (int l = 0; l < 64; ++l) {
        dmat e = ddiag(1, 1, 1);
        for (int i = 0; i < 3; ++i)
          for (int j = i; j < 3; ++j) {
            double x = 1e-3 * (2 * gsl_rng_uniform(r) - 1);
            e.m[i][j] += x;
            if (j != i) e.m[j][i] += x;
          }
        a[l] = to_f(rotated ? dmul(rand_rot(r), e) : e);
        for (int k = 0; k < 9; ++k) ch.a[k][l] = a[l].m[k / 3][k % 3];
      }
      bg_svd3_chunk(&ch, 64);
      for (int l = 0; l < 64; ++l) {
        bg_mat3 u, v;
        bg_vec3 sg;
        double da = ddet(to_d(&a[l]));
        bg_svd3(&a[l], &u, &sg, &v);
        sum_s += ddet(to_d(&u)) * sg.v[0] * sg.v[1] * sg.v[2] * ddet(to_d(&v)) / da - 1;
        chunk_get_usv(&ch, l, &u, &sg, &v);
        sum_b += ddet(to_d(&u)) * sg.v[0] * sg.v[1] * sg.v[2] * ddet(to_d(&v)) / da - 1;
      }
    }
    const char *what = rotated ? "R (I + E)" : "I + E";
    printf("volume bias on %s (%d states): mean det(U S V^T) / det A - 1: bg_svd3 %.3g, batch %.3g\n", what,
           (int)N_BIAS, sum_s / N_BIAS, sum_b / N_BIAS);
    bg_check_le(fabs(sum_s / N_BIAS), bound, "bg_svd3 on %s: |mean volume drift| <= eps/8", what);
    bg_check_le(fabs(sum_b / N_BIAS), bound, "bg_svd3_chunk on %s: |mean volume drift| <= eps/8", what);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && !bg_test_backend_on_host(argv[1])) {
    printf("test_svd: backend '%s' not applicable (host-only physics), skipping\n", argv[1]);
    return BG_CHECK_SKIP;
  }
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 20040814UL);

  hand_cases(r);

  fam_stats st[N_FAM];
  memset(st, 0, sizeof st);
  /* Interleave the families so each sees a mix of the RNG stream. */
  for (long i = 0; i < N_PER_FAMILY; ++i)
    for (int f = 0; f < N_FAM; ++f) {
      int known;
      double want_s[3] = {0, 0, 0};
      bg_mat3 a = draw(r, f, i, &known, want_s);
      measure(&a, known, want_s, &st[f]);
    }

  printf("%-14s %8s %10s %10s %10s %10s %10s %10s %6s %6s\n", "family", "n", "recon", "orthoU",
         "orthoV", "|detU-1|", "|detV-1|", "sigma", "order", "sign");
  for (int f = 0; f < N_FAM; ++f) {
    char sig[32];
    if (st[f].sigma_checked > 0) snprintf(sig, sizeof sig, "%10.3e", st[f].sigma_err);
    else snprintf(sig, sizeof sig, "%10s", "n/a");
    printf("%-14s %8ld %10.3e %10.3e %10.3e %10.3e %10.3e %s %6ld %6ld\n", fam_name[f], st[f].n,
           st[f].recon, st[f].ortho_u, st[f].ortho_v, st[f].det_u, st[f].det_v, sig, st[f].order_bad,
           st[f].sign_bad);
  }

  check_families(st, "");
  /* The families that must exercise the sign check actually did. */
  bg_check_true(st[FAM_REFLECT].sign_checked > N_PER_FAMILY / 2, "det<0: sign check exercised (%ld)",
                st[FAM_REFLECT].sign_checked);

  scaling_invariance(r);
  batch_svd_families(r);
  batch_svd_bad_lanes();
  lane_kernels(r);
  return_map_lane(r);
  stress_lane(r);
  sand_batch(r);
  mui_batch(r);
  certificate_faults(r);
  mpm_near_identity(r);
  volume_bias(r);

  gsl_rng_free(r);
  return bg_check_summary();
}
