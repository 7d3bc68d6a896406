/* test_svd.c: unit test of bg_svd3 / bg_polar_rotation (core/physics/bg_svd.h).
 * 100000 random matrices from five families (uniform, near-singular,
 * repeated singular values, exactly singular, det < 0) plus hand cases.
 * Errors are measured in double against the float input, aggregated as a
 * maximum per family, and only the maxima are checked, so the output stays
 * a few dozen lines. Host-only physics: the only backend is "cpu"; any other
 * backend name is a skip (77). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "bg_check.h"
#include "bg_defs.h"
#include "bg_svd.h"

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

/* Run the SVD on a and fold every error measure into st. */
static void measure(const bg_mat3 *a, int known, const double want_s[3], fam_stats *st) {
  bg_mat3 u, v;
  bg_vec3 s;
  bg_svd3(a, &u, &s, &v);
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

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "cpu") != 0) {
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

  for (int f = 0; f < N_FAM; ++f) {
    const char *n = fam_name[f];
    bg_check_le(st[f].recon, TOL_RECON, "%s: max ||U S V^T - A||_F / ||A||_F", n);
    bg_check_le(st[f].ortho_u, TOL_ORTHO, "%s: max ||U^T U - I||_F", n);
    bg_check_le(st[f].ortho_v, TOL_ORTHO, "%s: max ||V^T V - I||_F", n);
    bg_check_le(st[f].det_u, TOL_DET, "%s: max |det U - 1|", n);
    bg_check_le(st[f].det_v, TOL_DET, "%s: max |det V - 1|", n);
    bg_check_true(st[f].order_bad == 0, "%s: sigma0 >= sigma1 >= |sigma2|, sigma1 >= 0 (%ld of %ld bad)",
                  n, st[f].order_bad, st[f].n);
    bg_check_true(st[f].sign_bad == 0, "%s: sign(sigma2) == sign(det A) (%ld of %ld checked bad)", n,
                  st[f].sign_bad, st[f].sign_checked);
    if (st[f].sigma_checked > 0)
      bg_check_le(st[f].sigma_err, 1e-5, "%s: max |sigma - exact| / sigma0 (%ld known)", n,
                  st[f].sigma_checked);
  }
  /* The families that must exercise the sign check actually did. */
  bg_check_true(st[FAM_REFLECT].sign_checked > N_PER_FAMILY / 2, "det<0: sign check exercised (%ld)",
                st[FAM_REFLECT].sign_checked);

  gsl_rng_free(r);
  return bg_check_summary();
}
