/* test_physics.c: unit checks of the pure physics headers (core/physics),
 * independent of any backend: quadratic B-spline kernel, Drucker-Prager
 * return map, Mohr-Coulomb match on the triaxial-compression meridian,
 * Klar's hardening law, the elastic stress laws through bg_material_update, the
 * density read-out and the grid-node wall condition. Host only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bg_boundary.h"
#include "bg_bspline.h"
#include "bg_check.h"
#include "bg_test_backend.h"
#include "bg_materials.h"
#include "bg_transfer.h"

#define TP_PI 3.14159265358979323846

/* ------------------------------------------------------------ helpers */

/* xorshift64*: deterministic, good enough for sampling test points. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rng_uniform(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static bg_vec3 vec3(double a, double b, double c) {
  bg_vec3 v;
  v.v[0] = (bg_real)a;
  v.v[1] = (bg_real)b;
  v.v[2] = (bg_real)c;
  return v;
}

static double trace3(bg_vec3 e) { return (double)e.v[0] + e.v[1] + e.v[2]; }

static double norm3(bg_vec3 e) {
  return sqrt((double)e.v[0] * e.v[0] + (double)e.v[1] * e.v[1] + (double)e.v[2] * e.v[2]);
}

/* deviator in double */
static void dev3(bg_vec3 e, double out[3]) {
  double m = trace3(e) / 3.0;
  for (int i = 0; i < 3; ++i) out[i] = e.v[i] - m;
}

static double dnorm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Quadratic B-spline N(r) and N'(r), written from the textbook piecewise
 * form (not from the header's per-node expressions). */
static double bspline_n(double r) {
  double a = fabs(r);
  if (a < 0.5) return 0.75 - a * a;
  if (a < 1.5) return 0.5 * (1.5 - a) * (1.5 - a);
  return 0.0;
}
static double bspline_dn(double r) {
  double a = fabs(r), s = r < 0 ? -1.0 : 1.0;
  if (a < 0.5) return -2.0 * r;
  if (a < 1.5) return -s * (1.5 - a);
  return 0.0;
}

/* --------------------------------------------------------------- B-spline */

static void test_bspline(void) {
  const int n_samples = 2000;
  double worst_sum = 0, worst_mom = 0, worst_grad = 0, worst_closed = 0, worst_dclosed = 0,
         worst_lin = 0;
  int base_ok = 1;
  for (int sIdx = 0; sIdx < n_samples; ++sIdx) {
    bg_real xg[3];
    for (int d = 0; d < 3; ++d) xg[d] = (bg_real)(2.0 + 60.0 * rng_uniform());
    bg_bspline s = bg_bspline_eval(xg);
    for (int d = 0; d < 3; ++d) {
      /* nearest node is base+1: fx in [0.5, 1.5) */
      if (!(s.fx[d] >= 0.5f && s.fx[d] < 1.5f)) base_ok = 0;
      if ((double)s.base[d] + s.fx[d] != (double)xg[d]) base_ok = 0;
      for (int a = 0; a < 3; ++a) {
        double r = (double)s.fx[d] - a; /* x_p - x_node in units of dx */
        worst_closed = fmax(worst_closed, fabs(s.w[d][a] - bspline_n(r)));
        worst_dclosed = fmax(worst_dclosed, fabs(s.dw[d][a] - bspline_dn(r)));
      }
    }
    double sum = 0, mom[3] = {0, 0, 0}, gsum[3] = {0, 0, 0}, lin[3][3] = {{0}};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) {
          double w = bg_bspline_weight(&s, a, b, c);
          bg_vec3 g = bg_bspline_grad(&s, a, b, c);
          int idx[3] = {a, b, c};
          sum += w;
          for (int d = 0; d < 3; ++d) {
            double rel = (double)idx[d] - s.fx[d]; /* x_i - x_p, units of dx */
            mom[d] += w * rel;
            gsum[d] += g.v[d];
            /* sum_i grad w_i (x_i - x_p)^T = I (linear fields reproduced) */
            for (int e = 0; e < 3; ++e) lin[d][e] += g.v[d] * ((double)idx[e] - s.fx[e]);
          }
        }
    worst_sum = fmax(worst_sum, fabs(sum - 1.0));
    for (int d = 0; d < 3; ++d) {
      worst_mom = fmax(worst_mom, fabs(mom[d]));
      worst_grad = fmax(worst_grad, fabs(gsum[d]));
      for (int e = 0; e < 3; ++e) worst_lin = fmax(worst_lin, fabs(lin[d][e] - (d == e ? 1.0 : 0.0)));
    }
  }
  bg_check_true(base_ok, "bspline: base = floor(xg - 0.5), fx = xg - base in [0.5, 1.5) exactly (%d points)",
                n_samples);
  bg_check_abs(worst_sum, 0.0, 1e-6, "bspline: 27 weights sum to 1 (worst over %d random points)",
               n_samples);
  bg_check_abs(worst_mom, 0.0, 1e-6, "bspline: first moment sum w (x_i - x_p) = 0, units of dx (worst)");
  bg_check_abs(worst_grad, 0.0, 1e-6, "bspline: gradients sum to 0 (worst)");
  bg_check_abs(worst_lin, 0.0, 1e-5, "bspline: sum grad w_i (x_i - x_p)^T = I (worst)");
  bg_check_abs(worst_closed, 0.0, 1e-6, "bspline: per-axis weights match piecewise N(r) (worst)");
  bg_check_abs(worst_dclosed, 0.0, 1e-6, "bspline: per-axis gradients match N'(r) (worst)");

  /* A known point: xg = (10.3, 5.5, 7.0). */
  bg_real xg[3] = {10.3f, 5.5f, 7.0f};
  bg_bspline s = bg_bspline_eval(xg);
  bg_check_true(s.base[0] == 9 && s.base[1] == 5 && s.base[2] == 6,
                "bspline: base at (10.3, 5.5, 7.0) is (9, 5, 6) (got %d %d %d)", s.base[0], s.base[1],
                s.base[2]);
  /* x: fx = 1.3 -> 0.5 (0.2)^2, 0.75 - 0.3^2, 0.5 (0.8)^2; dw -0.2, -0.6, 0.8 */
  const double wx[3] = {0.02, 0.66, 0.32}, dwx[3] = {-0.2, -0.6, 0.8};
  /* y: fx = 0.5 -> 0.5, 0.5, 0; z: fx = 1 -> 1/8, 3/4, 1/8 */
  const double wy[3] = {0.5, 0.5, 0.0}, wz[3] = {0.125, 0.75, 0.125};
  const double dwy[3] = {-1.0, 1.0, 0.0}, dwz[3] = {-0.5, 0.0, 0.5};
  for (int a = 0; a < 3; ++a) {
    bg_check_abs(s.w[0][a], wx[a], 1e-6, "bspline closed form: w_x[%d] at fx = 1.3", a);
    bg_check_abs(s.dw[0][a], dwx[a], 1e-6, "bspline closed form: dw_x[%d] at fx = 1.3", a);
    bg_check_abs(s.w[1][a], wy[a], 1e-7, "bspline closed form: w_y[%d] at fx = 0.5", a);
    bg_check_abs(s.dw[1][a], dwy[a], 1e-7, "bspline closed form: dw_y[%d] at fx = 0.5", a);
    bg_check_abs(s.w[2][a], wz[a], 1e-7, "bspline closed form: w_z[%d] at fx = 1.0", a);
    bg_check_abs(s.dw[2][a], dwz[a], 1e-7, "bspline closed form: dw_z[%d] at fx = 1.0", a);
  }
  bg_check_abs(bg_bspline_weight(&s, 1, 0, 1), 0.66 * 0.5 * 0.75, 1e-6,
               "bspline closed form: 3D weight of node (1,0,1) is the product of axis weights");
  bg_vec3 g = bg_bspline_grad(&s, 2, 1, 0);
  bg_check_abs(g.v[0], 0.8 * 0.5 * 0.125, 1e-6, "bspline closed form: grad_x of node (2,1,0)");
  bg_check_abs(g.v[1], 0.32 * 1.0 * 0.125, 1e-6, "bspline closed form: grad_y of node (2,1,0)");
  bg_check_abs(g.v[2], 0.32 * 0.5 * -0.5, 1e-6, "bspline closed form: grad_z of node (2,1,0)");
}

/* -------------------------------------------------------------- return map */

static bg_lame klar_lame(void) { return bg_lame_from_e_nu(3.537e5f, 0.3f); }

/* (3 lambda + 2 mu) / (2 mu) */
static double cone_coef(bg_lame l) { return (3.0 * l.lambda + 2.0 * l.mu) / (2.0 * l.mu); }

static void check_volume(const char *label, int vc, bg_vec3 ein, double ljp_in, bg_return r) {
  double before = ljp_in + trace3(ein), after = (double)r.log_jp + trace3(r.eps);
  bg_check_abs(after, before, 1e-6,
               "return map %s (vc=%d): log_jp + tr(eps) conserved (total volume)", label, vc);
}

static void test_return_map(void) {
  bg_lame l = klar_lame();
  bg_real alpha = bg_dp_alpha(35.0f);
  double k = cone_coef(l);
  /* Lame: mu = E / 2.6, lambda = 1.5 mu for nu = 0.3 */
  bg_check_rel(l.mu, 3.537e5 / 2.6, 1e-6, "lame: mu = E / (2 (1 + nu))");
  bg_check_rel(l.lambda, 3.537e5 * 0.3 / (1.3 * 0.4), 1e-6, "lame: lambda = E nu / ((1+nu)(1-2nu))");
  double s35 = sin(35.0 * TP_PI / 180.0);
  bg_check_rel(alpha, sqrt(2.0 / 3.0) * 2.0 * s35 / (3.0 - s35), 1e-6,
               "dp alpha(35) = sqrt(2/3) 2 sin phi / (3 - sin phi)");

  for (int vc = 0; vc <= 1; ++vc) {
    /* --- elastic: compressive, small deviator well inside the cone */
    {
      bg_vec3 e = vec3(-0.01 + 1e-4, -0.01 - 1e-4, -0.01);
      double ed[3];
      dev3(e, ed);
      bg_check_true(dnorm3(ed) + k * alpha * trace3(e) < 0,
                    "return map elastic (vc=%d): the trial strain is inside the cone", vc);
      bg_return r = bg_dp_return_map(e, 0.0f, l, alpha, vc);
      bg_check_true(r.mode == BG_RM_ELASTIC, "return map elastic (vc=%d): mode ELASTIC (got %d)", vc,
                    r.mode);
      bg_check_true(memcmp(&r.eps, &e, sizeof e) == 0,
                    "return map elastic (vc=%d, log_jp=0): eps returned bit-for-bit unchanged", vc);
      bg_check_true(r.dq == 0.0f, "return map elastic (vc=%d): dq = 0 exactly (got %g)", vc,
                    (double)r.dq);
      check_volume("elastic", vc, e, 0.0, r);
      /* pure hydrostatic compression: no deviator at all, elastic */
      bg_vec3 h = vec3(-0.02, -0.02, -0.02);
      bg_return rh = bg_dp_return_map(h, 0.0f, l, alpha, vc);
      bg_check_true(rh.mode == BG_RM_ELASTIC && memcmp(&rh.eps, &h, sizeof h) == 0 && rh.dq == 0.0f,
                    "return map hydrostatic compression (vc=%d): elastic, unchanged, dq 0", vc);
      /* stored log_jp: unchanged eps without correction; with correction
       * log_jp/3 is added to each principal strain (Tampubolon) and the
       * plastic volume is handed back to the elastic part */
      bg_real ljp = 0.003f;
      bg_return rj = bg_dp_return_map(e, ljp, l, alpha, vc);
      bg_check_true(rj.mode == BG_RM_ELASTIC,
                    "return map elastic with log_jp = 0.003 (vc=%d): still ELASTIC (got %d)", vc,
                    rj.mode);
      if (vc == 0) {
        bg_check_true(memcmp(&rj.eps, &e, sizeof e) == 0,
                      "return map elastic, vc=0, log_jp=0.003: eps untouched bit-for-bit");
        bg_check_abs(rj.log_jp, ljp, 1e-8, "return map elastic, vc=0: log_jp kept (to float round-off)");
      } else {
        double werr = 0;
        for (int i = 0; i < 3; ++i) werr = fmax(werr, fabs(rj.eps.v[i] - (e.v[i] + ljp / 3.0)));
        bg_check_abs(werr, 0.0, 1e-7,
                     "return map elastic, vc=1, log_jp=0.003: eps_i = eps_trial_i + log_jp / 3");
        bg_check_abs(rj.log_jp, 0.0, 1e-7,
                     "return map elastic, vc=1: stored plastic volume fully handed back (log_jp 0)");
      }
      check_volume("elastic, log_jp 0.003", vc, e, ljp, rj);
    }

    /* --- shear: compressive, large deviator */
    {
      bg_vec3 e = vec3(-0.01 + 0.05, -0.01 - 0.05, -0.01 + 0.01);
      double ed[3];
      dev3(e, ed);
      double ed_n = dnorm3(ed);
      double dgamma = ed_n + k * alpha * trace3(e);
      bg_check_true(dgamma > 0 && trace3(e) < 0,
                    "return map shear (vc=%d): trial strain compressive and outside the cone", vc);
      bg_return r = bg_dp_return_map(e, 0.0f, l, alpha, vc);
      bg_check_true(r.mode == BG_RM_SHEAR, "return map shear (vc=%d): mode SHEAR (got %d)", vc, r.mode);
      double rd[3];
      dev3(r.eps, rd);
      double rd_n = dnorm3(rd);
      bg_check_abs(rd_n + k * alpha * trace3(r.eps), 0.0, 1e-5 * ed_n,
                   "return map shear (vc=%d): result on the cone, ||dev eps|| + (3l+2m)/(2m) a tr eps = 0",
                   vc);
      bg_check_abs(trace3(r.eps), trace3(e), 1e-7, "return map shear (vc=%d): trace preserved", vc);
      double cosang = (rd[0] * ed[0] + rd[1] * ed[1] + rd[2] * ed[2]) / (rd_n * ed_n);
      bg_check_abs(cosang, 1.0, 1e-6, "return map shear (vc=%d): deviator direction preserved (cos)", vc);
      bg_check_rel(r.dq, dgamma, 1e-5, "return map shear (vc=%d): dq = delta gamma", vc);
      bg_check_true(r.dq > 0, "return map shear (vc=%d): dq > 0", vc);
      bg_check_rel(rd_n, ed_n - dgamma, 1e-5, "return map shear (vc=%d): ||dev|| shrinks by delta gamma", vc);
      check_volume("shear", vc, e, 0.0, r);

      /* Stress form: tau = 2 mu eps + lambda tr(eps) I gives
       * dev tau = 2 mu dev eps and tr tau = (3 lambda + 2 mu) tr eps, so on
       * the cone 2 mu ||dev eps|| = -(3 lambda + 2 mu) alpha tr eps, i.e.
       * ||dev tau|| = -alpha tr tau (tr tau < 0 in compression). */
      bg_vec3 tau = bg_tau_hencky_eps(r.eps, l);
      double td[3];
      dev3(tau, td);
      double td_n = dnorm3(td);
      bg_check_true(trace3(tau) < 0, "return map shear (vc=%d): tr tau < 0 (compressive)", vc);
      bg_check_abs(td_n, -(double)alpha * trace3(tau), 1e-5 * td_n,
                   "return map shear (vc=%d): Drucker-Prager in stress, ||dev tau|| = -alpha tr tau", vc);
      /* the trial stress was strictly outside */
      bg_vec3 tt = bg_tau_hencky_eps(e, l);
      double ttd[3];
      dev3(tt, ttd);
      bg_check_true(dnorm3(ttd) > -(double)alpha * trace3(tt),
                    "return map shear (vc=%d): trial stress violates DP (sanity)", vc);
    }

    /* --- tip: expansion */
    {
      bg_vec3 cases[2] = {vec3(0.01, -0.002, 0.003), vec3(0.0, 0.0, 0.0)};
      for (int c = 0; c < 2; ++c) {
        bg_vec3 e = cases[c];
        bg_return r = bg_dp_return_map(e, 0.0f, l, alpha, vc);
        bg_check_true(r.mode == BG_RM_TIP, "return map tip #%d (vc=%d, tr %g >= 0): mode TIP (got %d)", c,
                      vc, trace3(e), r.mode);
        bg_check_true(r.eps.v[0] == 0.0f && r.eps.v[1] == 0.0f && r.eps.v[2] == 0.0f,
                      "return map tip #%d (vc=%d): eps = 0 exactly", c, vc);
        bg_vec3 tau = bg_tau_hencky_eps(r.eps, l);
        bg_check_true(tau.v[0] == 0.0f && tau.v[1] == 0.0f && tau.v[2] == 0.0f,
                      "return map tip #%d (vc=%d): Hencky tau = 0 exactly (stress free)", c, vc);
        bg_check_abs(r.dq, norm3(e), 1e-7, "return map tip #%d (vc=%d): dq = ||eps||", c, vc);
        check_volume("tip", vc, e, 0.0, r);
      }
    }
  }

  /* Volume correction: sand pulled apart by log_jp = 0.01 must first be
   * compressed by that much before it carries load. */
  {
    bg_real ljp = 0.01f;
    bg_vec3 e = vec3(-0.001, -0.0012, -0.0008); /* tr -0.003 > -log_jp */
    bg_return r = bg_dp_return_map(e, ljp, l, alpha, 1);
    bg_check_true(r.mode == BG_RM_TIP, "volume correction: mild compression below log_jp stays at the tip (got %d)",
                  r.mode);
    bg_check_abs(r.log_jp, 0.007, 1e-7, "volume correction: log_jp drops by the compression (0.01 - 0.003)");
    check_volume("tip with stored log_jp", 1, e, ljp, r);
    /* without correction the same strain is an ordinary elastic compression */
    bg_return r0 = bg_dp_return_map(e, ljp, l, alpha, 0);
    bg_check_true(r0.mode == BG_RM_ELASTIC, "no volume correction: same strain is elastic (got %d)", r0.mode);
    check_volume("elastic with stored log_jp", 0, e, ljp, r0);
    /* compression beyond log_jp loads the material again (shear case) */
    bg_vec3 e2 = vec3(-0.004 + 0.05, -0.004 - 0.05, -0.004);
    bg_return r2 = bg_dp_return_map(e2, ljp, l, alpha, 1);
    bg_check_true(r2.mode == BG_RM_SHEAR, "volume correction: compression 0.012 > log_jp then shear (got %d)",
                  r2.mode);
    check_volume("shear with stored log_jp", 1, e2, ljp, r2);
    bg_check_abs(trace3(r2.eps), trace3(e2) + ljp, 1e-7,
                 "volume correction: shear keeps the corrected trace tr eps + log_jp");
  }
}

/* Triaxial compression: eps = (a, b, b), a < b, tr < 0. After the return map
 * the principal Kirchhoff stresses tau1 (most compressive, most negative)
 * and tau3 (least compressive) satisfy the Mohr-Coulomb criterion
 * sin phi = (sigma1 - sigma3) / (sigma1 + sigma3) in compression-positive
 * stresses sigma = -tau, i.e. sin phi_mob = (tau1 - tau3) / (tau1 + tau3). */
static void test_triaxial(void) {
  bg_lame l = klar_lame();
  const double phis[3] = {20.0, 30.0, 40.0};
  /* eps = m (1,1,1) + d (-2/3, 1/3, 1/3): mean strain m < 0 and a deviator
   * along the compression meridian, ||dev|| = sqrt(2/3) d, large enough
   * (d = 10 |m|) to lie outside the cone for every phi tested. */
  const double mean[2] = {-0.002, -0.01};
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 2; ++c) {
      double phi = phis[i];
      bg_real alpha = bg_dp_alpha((bg_real)phi);
      double m = mean[c], d = 10.0 * fabs(m);
      double a = m - 2.0 * d / 3.0, b = m + d / 3.0;
      bg_vec3 e = vec3(a, b, b);
      for (int vc = 0; vc <= 1; ++vc) {
        bg_return r = bg_dp_return_map(e, 0.0f, l, alpha, vc);
        bg_check_true(r.mode == BG_RM_SHEAR, "triaxial phi %g, eps (%g, %g, %g) (vc=%d): shear mode (got %d)", phi, a, b, b, vc,
                      r.mode);
        bg_vec3 tau = bg_tau_hencky_eps(r.eps, l);
        double tmin = fmin(tau.v[0], fmin(tau.v[1], tau.v[2]));
        double tmax = fmax(tau.v[0], fmax(tau.v[1], tau.v[2]));
        bg_check_true(tmin < 0 && tmax < 0, "triaxial phi %g, mean %g (vc=%d): all principal stresses compressive",
                      phi, m, vc);
        double sin_mob = (tmin - tmax) / (tmin + tmax);
        bg_check_rel(sin_mob, sin(phi * TP_PI / 180.0), 1e-4,
                     "triaxial phi %g, mean %g (vc=%d): sin phi_mob = (t1 - t3)/(t1 + t3) = sin phi", phi, m, vc);
        /* the lateral stresses stay equal: still on the compression meridian */
        bg_check_abs(tau.v[1], tau.v[2], 1e-6 * fabs(tmax), "triaxial phi %g, mean %g (vc=%d): tau2 = tau3", phi,
                     m, vc);
      }
      /* Extension meridian (one axis less compressed than the two others):
       * the inscribed cone does not match Mohr-Coulomb there, sin phi_mob
       * comes out larger. Shows the check above discriminates paths. */
      bg_vec3 ex = vec3(m + 2.0 * d / 3.0, m - d / 3.0, m - d / 3.0);
      bg_return rx = bg_dp_return_map(ex, 0.0f, l, alpha, 0);
      bg_vec3 tx = bg_tau_hencky_eps(rx.eps, l);
      double xmin = fmin(tx.v[0], fmin(tx.v[1], tx.v[2])), xmax = fmax(tx.v[0], fmax(tx.v[1], tx.v[2]));
      double sx = (xmin - xmax) / (xmin + xmax);
      bg_check_true(rx.mode == BG_RM_SHEAR && sx > sin(phi * TP_PI / 180.0) * (1 + 1e-2),
                    "triaxial extension phi %g, mean %g: sin phi_mob %.4f != sin phi %.4f (only compression matches)",
                    phi, m, sx, sin(phi * TP_PI / 180.0));
    }
}

/* --------------------------------------------------------------- hardening */

static void test_hardening(void) {
  const double h0 = 35, h1 = 9, h2 = 0.2, h3 = 10;
#define PHI(q) bg_hardening_phi_deg((bg_real)(q), (bg_real)h0, (bg_real)h1, (bg_real)h2, (bg_real)h3)
  bg_check_true(PHI(0) == 25.0f, "hardening: phi_F(0) = h0 - h3 = 25 exactly (got %.9g)", (double)PHI(0));
  bg_check_rel(PHI(1), 35.0 - exp(-0.2), 1e-5, "hardening: phi_F(1) = 35 + (9 - 10) e^-0.2");
  bg_check_rel(PHI(5), 35.0 + 35.0 * exp(-1.0), 1e-5, "hardening: phi_F(5) = 35 + 35 e^-1");
  bg_check_rel(PHI(2), 35.0 + 8.0 * exp(-0.4), 1e-5, "hardening: phi_F(2) = 35 + 8 e^-0.4");
  bg_check_rel(PHI(10.0 / 9.0), 35.0, 1e-5, "hardening: phi_F(h3/h1) = h0 (crossing)");
  /* d phi / dq = e^{-h2 q} (h1 - h2 (h1 q - h3)) vanishes at
   * q* = (h1 + h2 h3) / (h1 h2); phi(q*) = h0 + (h1 / h2) e^{-h2 q*}. */
  double qs = (h1 + h2 * h3) / (h1 * h2);
  double peak = h0 + (h1 / h2) * exp(-h2 * qs);
  printf("INFO: hardening peak at q* = %.6f, phi_F(q*) = %.6f deg (the seed says \"near 48\")\n", qs, peak);
  bg_check_rel(PHI(qs), peak, 1e-5, "hardening: phi_F(q*) = h0 + (h1/h2) e^{-h2 q*}");
  bg_check_true(PHI(qs) > PHI(qs - 0.05) && PHI(qs) > PHI(qs + 0.05),
                "hardening: q* = %.4f is a local maximum", qs);
  bg_check_true(PHI(qs - 1) < PHI(qs) && PHI(qs + 1) < PHI(qs), "hardening: rises before q*, falls after");
  bg_check_abs(PHI(100), 35.0, 1e-5, "hardening: phi_F(100) -> h0 = 35");
  bg_check_abs(PHI(200), 35.0, 1e-6, "hardening: phi_F(200) -> h0 = 35");
  bg_check_true(PHI(30) > 35.0f && PHI(30) < PHI(15), "hardening: relaxes toward 35 from above");
#undef PHI
}

/* -------------------------------------------------------- elastic update */

/* rotation from axis-angle (Rodrigues) */
static bg_mat3 rotation(double ax, double ay, double az, double ang) {
  double n = sqrt(ax * ax + ay * ay + az * az);
  ax /= n;
  ay /= n;
  az /= n;
  double c = cos(ang), s = sin(ang), t = 1 - c;
  bg_mat3 r;
  r.m[0][0] = (bg_real)(c + ax * ax * t);
  r.m[0][1] = (bg_real)(ax * ay * t - az * s);
  r.m[0][2] = (bg_real)(ax * az * t + ay * s);
  r.m[1][0] = (bg_real)(ay * ax * t + az * s);
  r.m[1][1] = (bg_real)(c + ay * ay * t);
  r.m[1][2] = (bg_real)(ay * az * t - ax * s);
  r.m[2][0] = (bg_real)(az * ax * t - ay * s);
  r.m[2][1] = (bg_real)(az * ay * t + ax * s);
  r.m[2][2] = (bg_real)(c + az * az * t);
  return r;
}

/* R diag(d) R^T in double */
static void rdrt(bg_mat3 r, const double d[3], double out[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      out[i][j] = 0;
      for (int k = 0; k < 3; ++k) out[i][j] += (double)r.m[i][k] * d[k] * r.m[j][k];
    }
}

static double max_abs_diff(const bg_mat3 *a, const double b[3][3]) {
  double m = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m = fmax(m, fabs(a->m[i][j] - b[i][j]));
  return m;
}

static double max_abs(const double b[3][3]) {
  double m = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m = fmax(m, fabs(b[i][j]));
  return m;
}

static void test_sand_update(void) {
  bg_lame l = klar_lame();
  bg_mat3 R = rotation(1.0, 2.0, -0.5, 0.7);
  const double stretches[2][3] = {{1.05, 0.97, 0.92}, {1.0 + 1e-3, 1.0 - 1e-3, 1.0 + 0.5e-3}};
  bg_mat3 tau_law[2][2];
  for (int sc = 0; sc < 2; ++sc) {
    const double *s = stretches[sc];
    double Fd[3][3];
    rdrt(R, s, Fd);
    for (int law = 0; law < 2; ++law) {
      bg_mat m;
      memset(&m, 0, sizeof m);
      m.model = BG_MODEL_DP;
      m.el.lame = l;
      m.el.rho0 = 2200;
      m.c.dp.alpha = bg_dp_alpha(35);
      m.el.law = law == 0 ? BG_LAW_HENCKY : BG_LAW_FIXED_COROTATED;
      m.el.plastic = 0;
      bg_mat3 F;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) F.m[i][j] = (bg_real)Fd[i][j];
      bg_mat3 F0 = F, tau;
      bg_real st[BG_NSTATE] = {0.0f, 0.0f};
      const bg_mat3 C0 = bg_mat3_zero();
      bg_update_ctx u = {&F, &C0, 1e-4f, st, &tau};
      int mode = bg_material_update(&m, &u);
      const char *ln = law == 0 ? "Hencky" : "fixed-corotated";
      bg_check_true(mode == BG_RM_ELASTIC && memcmp(&F, &F0, sizeof F) == 0 && st[0] == 0.0f && st[1] == 0.0f,
                    "sand_update elastic (%s, case %d): F, log_jp, q untouched, mode ELASTIC", ln, sc);
      /* expected principal stresses from the stretches, in double */
      double t[3], J = s[0] * s[1] * s[2], tr = log(s[0]) + log(s[1]) + log(s[2]);
      for (int i = 0; i < 3; ++i)
        t[i] = law == 0 ? 2.0 * l.mu * log(s[i]) + l.lambda * tr
                        : 2.0 * l.mu * (s[i] - 1.0) * s[i] + l.lambda * (J - 1.0) * J;
      double want[3][3];
      rdrt(R, t, want);
      double scale = max_abs(want);
      /* float round-off: sigma carries ~1e-7 absolute error, which the
       * moduli turn into ~(2 mu + 3 lambda) 1e-7 Pa whatever the strain */
      bg_check_abs(max_abs_diff(&tau, want), 0.0, 2e-4 * scale + 5e-7 * (2.0 * l.mu + 3.0 * l.lambda),
                   "sand_update elastic (%s, case %d): tau = R diag(tau_i(s)) R^T (max |tau| %.3g Pa)", ln,
                   sc, scale);
      double asym = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) asym = fmax(asym, fabs(tau.m[i][j] - tau.m[j][i]));
      bg_check_abs(asym, 0.0, 1e-6 * scale, "sand_update elastic (%s, case %d): tau symmetric", ln, sc);
      tau_law[sc][law] = tau;
    }
  }
  /* small strain: both laws are linear elasticity to first order */
  double diff = 0, ref = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = (double)tau_law[1][0].m[i][j] - tau_law[1][1].m[i][j];
      diff += d * d;
      ref += (double)tau_law[1][0].m[i][j] * tau_law[1][0].m[i][j];
    }
  bg_check_le(sqrt(diff / ref), 1e-2,
              "sand_update: Hencky and fixed-corotated agree to first order at strain 1e-3 (rel Frobenius)");
  /* and they do differ at finite strain (so the check above is not vacuous) */
  diff = 0;
  ref = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = (double)tau_law[0][0].m[i][j] - tau_law[0][1].m[i][j];
      diff += d * d;
      ref += (double)tau_law[0][0].m[i][j] * tau_law[0][0].m[i][j];
    }
  bg_check_true(sqrt(diff / ref) > 1e-2, "sand_update: the laws differ at 5-8%% strain (rel diff %.3g)",
                sqrt(diff / ref));
  /* identity: zero stress for both laws */
  for (int law = 0; law < 2; ++law) {
    bg_mat m;
    memset(&m, 0, sizeof m);
    m.model = BG_MODEL_DP;
    m.el.lame = l;
    m.el.law = law;
    bg_mat3 F = bg_mat3_identity(), tau;
    bg_real st[BG_NSTATE] = {0, 0};
    const bg_mat3 C0 = bg_mat3_zero();
    bg_update_ctx u = {&F, &C0, 1e-4f, st, &tau};
    bg_material_update(&m, &u);
    double mx = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) mx = fmax(mx, fabs(tau.m[i][j]));
    bg_check_true(mx == 0.0, "sand_update: F = I gives tau = 0 exactly (law %d, max %g)", law, mx);
  }
}

/* ------------------------------------------------------------------ density */

static void test_density(void) {
  const double cases[4][3] = {{2200, 1.0, 0.0}, {2200, 0.98, 0.0}, {1500, 1.01, 0.05}, {2200, 0.9, -0.02}};
  for (int c = 0; c < 4; ++c) {
    double rho0 = cases[c][0], J = cases[c][1], ljp = cases[c][2];
    bg_check_rel(bg_density((bg_real)rho0, (bg_real)J, (bg_real)ljp), rho0 / (J * exp(ljp)), 1e-6,
                 "density(rho0 %g, detF %g, log_jp %g) = rho0 / (detF exp(log_jp))", rho0, J, ljp);
  }
  bg_check_true(bg_density(2200.0f, 1.0f, 0.0f) == 2200.0f, "density: undeformed = rho0 exactly");
}

/* ------------------------------------------------------------------- walls */

static bg_wallc wall(int type, double mu, double vx, double vy, double vz) {
  bg_wallc w;
  w.type = type;
  w.mu = (bg_real)mu;
  w.v[0] = (bg_real)vx;
  w.v[1] = (bg_real)vy;
  w.v[2] = (bg_real)vz;
  return w;
}

static void check_v(const bg_real v[3], double x, double y, double z, double tol, const char *what) {
  /* compare with the float the header works in */
  double e = fmax(fabs(v[0] - (double)(bg_real)x),
                  fmax(fabs(v[1] - (double)(bg_real)y), fabs(v[2] - (double)(bg_real)z)));
  bg_check_abs(e, 0.0, tol, "wall %s: v = (%g, %g, %g) (got %g %g %g)", what, x, y, z, (double)v[0],
               (double)v[1], (double)v[2]);
}

static void test_walls(void) {
  const bg_real nz[3] = {0, 0, 1};
  bg_wallc slip = wall(BG_BC_SLIP, 0, 0, 0, 0);
  {
    bg_real v[3] = {1, 2, -3};
    bg_wall_apply(&slip, slip.v, nz, v);
    check_v(v, 1, 2, 0, 0, "slip, approaching floor: normal removed, tangential kept");
  }
  {
    /* oblique normal */
    double s = 1.0 / sqrt(2.0);
    bg_real n[3] = {(bg_real)s, 0, (bg_real)s};
    bg_real v[3] = {-1, 0.5f, -2};
    double vn = (-1 - 2) * s;
    double want[3] = {-1 - vn * s, 0.5, -2 - vn * s};
    bg_wall_apply(&slip, slip.v, n, v);
    check_v(v, want[0], want[1], want[2], 1e-6, "slip, oblique normal");
    bg_check_abs(v[0] * n[0] + v[1] * n[1] + v[2] * n[2], 0.0, 1e-6, "wall slip oblique: v.n = 0 after");
  }
  {
    bg_real v[3] = {1, 2, 3};
    bg_wall_apply(&slip, slip.v, nz, v);
    check_v(v, 1, 2, 3, 0, "slip, separating: unchanged");
    bg_wallc cw = wall(BG_BC_COULOMB, 0.5, 0, 0, 0), st = wall(BG_BC_SLIP, 0, 0, 0, 0);
    bg_real v2[3] = {4, -1, 0.5f};
    bg_wall_apply(&cw, cw.v, nz, v2);
    check_v(v2, 4, -1, 0.5, 0, "coulomb, separating: unchanged");
    bg_real v3[3] = {4, -1, 0};
    bg_wall_apply(&st, st.v, nz, v3);
    check_v(v3, 4, -1, 0, 0, "slip, tangential only (v_n = 0): unchanged");
  }
  {
    bg_wallc cw = wall(BG_BC_COULOMB, 0.5, 0, 0, 0);
    bg_real v[3] = {3, 0, -2}; /* |vt| 3 shrinks by 0.5 * 2 = 1 */
    bg_wall_apply(&cw, cw.v, nz, v);
    check_v(v, 2, 0, 0, 1e-6, "coulomb mu 0.5: tangential 3 -> 2, normal removed");
    bg_real v2[3] = {3, 4, -1}; /* |vt| 5 -> 4, direction kept */
    bg_wallc c1 = wall(BG_BC_COULOMB, 1.0, 0, 0, 0);
    bg_wall_apply(&c1, c1.v, nz, v2);
    check_v(v2, 2.4, 3.2, 0, 1e-6, "coulomb mu 1: (3,4) -> (2.4,3.2), direction kept");
    bg_real v3[3] = {3, 0, -2}; /* mu |vn| = 4 > 3: stops, never reverses */
    bg_wallc c2 = wall(BG_BC_COULOMB, 2.0, 0, 0, 0);
    bg_wall_apply(&c2, c2.v, nz, v3);
    check_v(v3, 0, 0, 0, 0, "coulomb mu 2: clamps at zero, never reverses");
    bg_real v4[3] = {0, 0, -2}; /* no tangential part: no NaN */
    bg_wall_apply(&c2, c2.v, nz, v4);
    check_v(v4, 0, 0, 0, 0, "coulomb, purely normal impact: v = 0, no NaN");
    bg_wallc c0 = wall(BG_BC_COULOMB, 0.0, 0, 0, 0);
    bg_real v5[3] = {1, 2, -3};
    bg_wall_apply(&c0, c0.v, nz, v5);
    check_v(v5, 1, 2, 0, 0, "coulomb mu 0: acts as slip");
  }
  {
    bg_wallc st = wall(BG_BC_STICK, 0, 0.1, -0.2, 0.3);
    bg_real v[3] = {5, 6, -7};
    bg_wall_apply(&st, st.v, nz, v);
    check_v(v, 0.1, -0.2, 0.3, 0, "stick: set to the wall velocity");
    bg_real v2[3] = {5, 6, 7};
    bg_wall_apply(&st, st.v, nz, v2);
    check_v(v2, 0.1, -0.2, 0.3, 0, "stick: set to the wall velocity even when separating");
    bg_wallc op = wall(BG_BC_OPEN, 0, 0, 0, 0);
    bg_real v3[3] = {5, 6, -7};
    bg_wall_apply(&op, op.v, nz, v3);
    check_v(v3, 5, 6, -7, 0, "open: untouched");
  }
  {
    /* moving walls: everything happens in the wall frame */
    bg_wallc up = wall(BG_BC_SLIP, 0, 0, 0, 1.0); /* piston rising at 1 m/s */
    bg_real v[3] = {0.3f, 0, 0.5f};               /* slower than the piston: approaching */
    bg_wall_apply(&up, up.v, nz, v);
    check_v(v, 0.3, 0, 1.0, 1e-7, "moving slip wall (v_w = +1 z): normal speed raised to the wall's");
    bg_real v2[3] = {0.3f, 0, 2.0f}; /* faster: separating in the wall frame */
    bg_wall_apply(&up, up.v, nz, v2);
    check_v(v2, 0.3, 0, 2.0, 0, "moving slip wall: faster than the wall, unchanged");
    bg_real v3[3] = {0.3f, 0, -0.5f}; /* would be separating... no: approaching, and a fixed wall too */
    bg_wallc belt = wall(BG_BC_COULOMB, 0.5, 1.0, 0, 0); /* conveyor floor moving +x */
    bg_wall_apply(&belt, belt.v, nz, v3);
    /* relative (-0.7, 0, -0.5): |vt| 0.7 shrinks by 0.25 -> 0.45 along -x */
    check_v(v3, 1.0 - 0.45, 0, 0, 1e-6, "moving coulomb floor (belt +x): friction acts on relative slip");
    bg_real v4[3] = {1.0f, 0, -0.5f}; /* no relative slip: moves with the belt */
    bg_wall_apply(&belt, belt.v, nz, v4);
    check_v(v4, 1.0, 0, 0, 1e-7, "moving coulomb floor: no relative slip stays with the belt");
    bg_wallc down = wall(BG_BC_SLIP, 0, 0, 0, -1.0); /* floor receding at 1 m/s */
    bg_real v5[3] = {0, 0, -0.5f};                   /* falls slower than the floor recedes */
    bg_wall_apply(&down, down.v, nz, v5);
    check_v(v5, 0, 0, -0.5, 0, "receding wall: particle slower than the wall is left alone");
  }
}

/* ---------------------------------------------------------------- mu(I) */

/* A random trial state for the rate-dependent return maps: six uniforms u
 * from the LCG x (u[4], u[5] are the caller's), compression tr of
 * 1e-4..1e-2, a deviator of norm r up to 3x the static cone of friction
 * mu_s in a random direction. 0 when the direction is degenerate. */
static int trial_state(uint64_t *x, double K, double G, double mu_s, double u[6], bg_vec3 *e, double *tr,
                       double *r) {
  for (int i = 0; i < 6; ++i) {
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    u[i] = (double)(*x >> 11) / 9007199254740992.0;
  }
  *tr = -pow(10.0, -4 + 2 * u[0]);
  double dir[3] = {u[1] - 0.5, u[2] - 0.5, 0};
  dir[2] = -dir[0] - dir[1];
  double nd = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  if (nd < 1e-3) return 0;
  double a = 0.7071067811865476 * (-K * *tr) / G;
  *r = 3.0 * u[3] * a * mu_s;
  for (int i = 0; i < 3; ++i) e->v[i] = (bg_real)(*tr / 3 + *r * dir[i] / nd);
  return 1;
}

/* mu(I) (bg_mat_mui.h): the friction law at its landmarks, the defaults
 * against Jop et al. 2006's numbers, the return map on its own cone at the
 * rate it produces, and with mu_2 = mu_s the Drucker-Prager map of
 * alpha = sqrt(2) mu_s / 3. */
static void test_mui(void) {
  bg_material mm = bg_material_mui();
  /* Jop, Forterre & Pouliquen 2006: mu_s = tan 20.9, mu_2 = tan 32.76 deg,
   * I0 = 0.279, d = 0.5 mm, rho_s = 2450 (references/literature/mu_i.tsv) */
  bg_check_rel(mm.mui.mu_s, tan(20.9 * 3.14159265358979 / 180), 2e-5, "mu(I) default mu_s = tan 20.9 deg");
  bg_check_rel(mm.mui.mu_2, tan(32.76 * 3.14159265358979 / 180), 2e-5, "mu(I) default mu_2 = tan 32.76 deg");
  bg_check_rel(mm.mui.I0, 0.279, 1e-6, "mu(I) default I0 = 0.279");
  bg_check_rel(mm.mui.d, 0.5e-3, 1e-6, "mu(I) default d = 0.5 mm");
  bg_check_rel(mm.mui.rho_s, 2450, 1e-6, "mu(I) default rho_s = 2450 kg/m^3");
  bg_real ms = mm.mui.mu_s, m2 = mm.mui.mu_2, I0 = mm.mui.I0;
  bg_check_rel(bg_mui_mu(ms, m2, I0, I0), 0.5 * (ms + m2), 1e-6, "mu(I0) = (mu_s + mu_2) / 2");
  bg_check_true(bg_mui_mu(ms, m2, I0, 0) == ms, "mu(0) = mu_s");
  bg_check_rel(bg_mui_mu(ms, m2, I0, 1e6f), m2, 1e-5, "mu(I -> inf) -> mu_2");

  bg_mat m = bg_material_prepare(&mm);
  const bg_real G = m.el.lame.mu, K = m.el.lame.lambda + 2.0f / 3.0f * G;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  double worst_cone = 0, worst_dp = 0;
  int shear = 0, monotone = 1;
  for (int k = 0; k < 20000; ++k) {
    /* trial states: compression of 1e-4..1e-2, deviator up to 3x the
     * static cone, dt over four decades */
    double u[6], tr, r;
    bg_vec3 e;
    if (!trial_state(&x, K, G, ms, u, &e, &tr, &r)) continue;
    bg_real dt = (bg_real)pow(10.0, -6 + 4 * u[4]), st[BG_NSTATE] = {0, 0};
    bg_return rr = bg_mui_return(&m.el, &m.c.mui, dt, e, st);
    if (rr.mode != BG_RM_SHEAR) continue;
    shear++;
    /* on the cone of its own rate: |eh_new| = a mu(I(dq)) */
    double trn = (double)rr.eps.v[0] + rr.eps.v[1] + rr.eps.v[2], ehn = 0;
    for (int i = 0; i < 3; ++i) ehn += pow(rr.eps.v[i] - trn / 3, 2);
    ehn = sqrt(ehn);
    double pk = -K * trn, pc = pk * exp(-trn);
    double I = sqrt(2.0) * rr.dq / dt * mm.mui.d / sqrt(pc / mm.mui.rho_s);
    double mu = ms + (m2 - ms) / (I0 / I + 1);
    double want = 0.7071067811865476 * pk / G * mu;
    worst_cone = fmax(worst_cone, fabs(ehn - want) / want);
    /* a faster step (smaller dt, the same strain) flows at a higher mu */
    bg_return rf = bg_mui_return(&m.el, &m.c.mui, dt * 0.1f, e, st);
    if (!(rf.dq <= rr.dq)) monotone = 0;
    /* mu_2 = mu_s: Drucker-Prager with alpha = sqrt(2) mu_s / 3 */
    bg_mat m0 = m;
    m0.c.mui.dmu = 0;
    bg_return r0 = bg_mui_return(&m0.el, &m0.c.mui, dt, e, st);
    bg_return rd = bg_dp_return_map(e, 0.0f, m.el.lame, 0.4714045207910317f * ms, 1);
    for (int i = 0; i < 3; ++i)
      worst_dp = fmax(worst_dp, fabs((double)r0.eps.v[i] - rd.eps.v[i]) / fabs(tr));
  }
  bg_check_true(shear > 5000, "mu(I) return map: %d shear returns among the samples", shear);
  bg_check_le(worst_cone, 1e-5, "mu(I) return: |eh| on a mu(I) p at the step's own rate (max rel %.3g)", worst_cone);
  bg_check_true(monotone, "mu(I) return: a faster step returns less (higher friction)");
  bg_check_le(worst_dp, 1e-5, "mu(I) with mu_2 = mu_s = Drucker-Prager of alpha sqrt(2) mu_s / 3 (max %.3g of tr)",
              worst_dp);
}

/* ------------------------------------------------- nonlocal fluidity */

/* The nonlocal service's Laplacian (bg_transfer.h): particles on a lattice
 * of 2 per cell and axis (offset 0.1), a quadratic field with cross terms,
 * scattered to nodal mass-weighted means and read back at interior
 * particles with bg_bspline_lap_weight: lap f = 2 + 4 - 2 = 4 exactly. A
 * linear field gives 0. */
static void test_nonlocal_laplacian(void) {
  enum { NG = 12 };
  static double msum[NG][NG][NG], fsum[2][NG][NG][NG];
  memset(msum, 0, sizeof msum);
  memset(fsum, 0, sizeof fsum);
  const double off = 0.1;
#define BG_F_QUAD_(x, y, z) (1 + 0.3 * (x) - 0.2 * (y) + 0.5 * (z) + (x) * (x) + 2 * (y) * (y) - (z) * (z) + 0.7 * (x) * (y))
#define BG_F_LIN_(x, y, z) (2 - 0.4 * (x) + 0.9 * (y) + 0.25 * (z))
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 4; i < 2 * NG - 4; ++i)
      for (int j = 4; j < 2 * NG - 4; ++j)
        for (int k = 4; k < 2 * NG - 4; ++k) {
          bg_real xg[3] = {(bg_real)(0.5 * i + off), (bg_real)(0.5 * j + off), (bg_real)(0.5 * k + off)};
          bg_bspline w = bg_bspline_eval(xg);
          if (pass == 0) {
            for (int a = 0; a < 3; ++a)
              for (int b = 0; b < 3; ++b)
                for (int c = 0; c < 3; ++c) {
                  double wt = bg_bspline_weight(&w, a, b, c);
                  int ni = w.base[0] + a, nj = w.base[1] + b, nk = w.base[2] + c;
                  msum[ni][nj][nk] += wt;
                  fsum[0][ni][nj][nk] += wt * BG_F_QUAD_(xg[0], xg[1], xg[2]);
                  fsum[1][ni][nj][nk] += wt * BG_F_LIN_(xg[0], xg[1], xg[2]);
                }
          }
        }
  double worst_q = 0, worst_l = 0;
  int n = 0;
  for (int i = 9; i < 2 * NG - 9; ++i)
    for (int j = 9; j < 2 * NG - 9; ++j)
      for (int k = 9; k < 2 * NG - 9; ++k) {
        bg_real xg[3] = {(bg_real)(0.5 * i + off), (bg_real)(0.5 * j + off), (bg_real)(0.5 * k + off)};
        bg_bspline w = bg_bspline_eval(xg);
        double lq = 0, ll = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 3; ++c) {
              int ni = w.base[0] + a, nj = w.base[1] + b, nk = w.base[2] + c;
              double lw = bg_bspline_lap_weight(w.w, a, b, c);
              lq += lw * fsum[0][ni][nj][nk] / msum[ni][nj][nk];
              ll += lw * fsum[1][ni][nj][nk] / msum[ni][nj][nk];
            }
        worst_q = fmax(worst_q, fabs(lq - 4.0));
        worst_l = fmax(worst_l, fabs(ll));
        n++;
      }
#undef BG_F_QUAD_
#undef BG_F_LIN_
  bg_check_true(n > 100, "nonlocal Laplacian: %d interior particles", n);
  bg_check_le(worst_q, 2e-4, "nonlocal Laplacian of a quadratic on a lattice: |lap - 4| max %.3g", worst_q);
  bg_check_le(worst_l, 2e-4, "nonlocal Laplacian of a linear field: |lap| max %.3g", worst_l);
}

/* Nonlocal fluidity (bg_mat_ngf.h): the defaults against Henann & Kamrin
 * 2013; the return map's flow rule at the end of the step; and the
 * fluidity's relaxation with a Laplacian reaching the screened Poisson
 * solution, whose decay into static material is the length xi. */
static void test_ngf(void) {
  bg_material mm = bg_material_default(BG_MODEL_NGF);
  /* references/literature/ngf.tsv: mu_s, b from Jop 2006, A = 0.48 */
  bg_check_rel(mm.ngf.mu_s, tan(20.9 * 3.14159265358979 / 180), 2e-4, "ngf default mu_s = tan 20.9 deg");
  bg_check_rel(mm.ngf.b, (tan(32.76 * 3.14159265358979 / 180) - tan(20.9 * 3.14159265358979 / 180)) / 0.279, 2e-4,
               "ngf default b = (mu_2 - mu_s) / I0 of Jop 2006");
  bg_check_rel(mm.ngf.A, 0.48, 1e-6, "ngf default A = 0.48 (Henann & Kamrin 2013)");
  bg_mat m = bg_material_prepare(&mm);
  const bg_real G = m.el.lame.mu, K = m.el.lame.lambda + 2.0f / 3.0f * G;
  uint64_t x = 0x2545F4914F6CDD1Dull;
  double worst_rule = 0, worst_g = 0;
  int shear = 0;
  for (int k = 0; k < 20000; ++k) {
    double u[6], tr, r;
    bg_vec3 e;
    if (!trial_state(&x, K, G, mm.ngf.mu_s, u, &e, &tr, &r)) continue;
    bg_real dt = (bg_real)pow(10.0, -6 + 3 * u[4]);
    bg_real st[BG_NSTATE] = {0, 0, (bg_real)pow(10.0, -1 + 4 * u[5]), 0};
    bg_real g_old = st[BG_NGF_G];
    bg_return rr = bg_ngf_return(&m.el, &m.c.ngf, dt, e, st);
    if (rr.mode != BG_RM_SHEAR) continue;
    double trn = (double)rr.eps.v[0] + rr.eps.v[1] + rr.eps.v[2], ehn = 0;
    for (int i = 0; i < 3; ++i) ehn += pow(rr.eps.v[i] - trn / 3, 2);
    ehn = sqrt(ehn);
    double pk = -K * trn, pc = pk * exp(-trn);
    double mu = ehn / (0.7071067811865476 * pk / G);
    /* below mu ~ mu_s / 8 the deviator left is a few 1e-3 of |tr|, and its
     * float components no longer resolve mu to the check's 1e-5 */
    if (mu < 0.05) continue;
    shear++;
    /* flow rule at the end of the step: sqrt(2) dq / dt = g_new mu_new, as
     * a residual of the root's equation on its own scale, the trial's
     * sqrt(2) |eh_trial| / dt (dq itself is a difference of float strains) */
    double rate = sqrt(2.0) * rr.dq / dt, scale = sqrt(2.0) * r / dt;
    worst_rule = fmax(worst_rule, fabs(rate - st[BG_NGF_G] * mu) / scale);
    /* g_new is the relaxation at the step's own mu */
    double gw = bg_ngf_relax(&m.c.ngf, dt, g_old, (bg_real)mu, (bg_real)pc);
    worst_g = fmax(worst_g, fabs(st[BG_NGF_G] - gw) / fmax(gw, 1e-30));
  }
  bg_check_true(shear > 5000, "ngf return map: %d shear returns with mu >= 0.05 among the samples", shear);
  bg_check_le(worst_rule, 1e-5, "ngf return: sqrt(2) dq / dt = g mu at the end of the step (max %.3g of the trial rate)", worst_rule);
  bg_check_le(worst_g, 1e-4, "ngf return: g is the relaxation at the step's own mu (max rel %.3g)", worst_g);

  /* 1-D screened Poisson: material below yield (mu = 0.9 mu_s) fed at x = 0
   * by a fluidity g_b; the relaxation (bg_ngf_relax with the Laplacian term
   * added as the return map adds it) must settle on g_b exp(-x / xi),
   * xi = A d / sqrt(mu_s - mu), with the second-order discrete decay. */
  {
    enum { NX = 200 };
    static double g[NX], gn[NX];
    const double mu = 0.9 * mm.ngf.mu_s, xi = mm.ngf.A * mm.ngf.d / sqrt(mm.ngf.mu_s - mu), h = xi / 8;
    const double dt = 0.2 * h * h / (m.c.ngf.a2d2 * m.c.ngf.inv_t0);
    for (int i = 0; i < NX; ++i) g[i] = 0;
    g[0] = 1.0;
    for (int it = 0; it < 40000; ++it) {
      for (int i = 1; i < NX - 1; ++i) {
        double lap = (g[i - 1] - 2 * g[i] + g[i + 1]) / (h * h);
        bg_real g0 = (bg_real)(g[i] + dt * m.c.ngf.inv_t0 * m.c.ngf.a2d2 * lap);
        gn[i] = bg_ngf_relax(&m.c.ngf, (bg_real)dt, g0, (bg_real)mu, 1000.0f);
      }
      gn[0] = 1.0;
      gn[NX - 1] = gn[NX - 2];
      memcpy(g, gn, sizeof g);
    }
    /* discrete decay per cell q: q + 1/q - 2 = h^2 / xi^2 */
    double s = h * h / (xi * xi), q = 1 + s / 2 - sqrt(s + s * s / 4);
    double worst = 0;
    for (int i = 1; i < 40; ++i) worst = fmax(worst, fabs(g[i] / pow(q, i) - 1));
    bg_check_le(worst, 2e-3, "ngf relaxation: steady g = g_b exp(-x / xi) into static material (max rel %.3g)",
                worst);
    bg_check_rel(-h / log(q), xi, 0.01, "ngf: decay length of the discrete solution = xi = A d / sqrt|mu - mu_s|");
  }
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : NULL;
  if (backend && !bg_test_backend_on_host(backend)) {
    printf("test_physics checks host headers only; backend \"%s\" skipped\n", backend);
    return BG_CHECK_SKIP;
  }
  test_bspline();
  test_return_map();
  test_triaxial();
  test_hardening();
  test_sand_update();
  test_mui();
  test_nonlocal_laplacian();
  test_ngf();
  test_density();
  test_walls();
  return bg_check_summary();
}
