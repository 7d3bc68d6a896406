/* test_batch_se.c: bg_batch_se (bg_fit.h) against closed forms.
 *   1. Sizes: n not a multiple of the batches (batch sizes differ by one)
 *      gives the mean of all n samples; NaN for n < batches or batches
 *      outside [2, 64]; the stride is honoured.
 *   2. An AR(1) series x_i = r x_{i-1} + e_i (e_i normal, sd 1, GSL's RNG),
 *      r = 0.8, has a closed-form variance of its mean (below). Over 400
 *      series of 4000 samples in 20 batches, the mean squared batch error
 *      must match it to 15%, while the plain sd^2 / n is 9 times too small
 *      (the reason batches are used).
 * Exit 0 pass, 1 fail. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>

#include "bg_fit.h"

static int fails;

static void check(int ok, const char *what, double got, double want) {
  printf("%s %s: %.6g (want %.6g)\n", ok ? "PASS" : "FAIL", what, got, want);
  if (!ok) ++fails;
}

int main(void) {
  /* 1. sizes and stride */
  double x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, m;
  double se = bg_batch_se(x, 1, 10, 3, &m);
  check(fabs(m - 5.5) < 1e-12, "mean of 10 samples in 3 batches", m, 5.5);
  /* batches [1,2,3], [4,5,6], [7..10]: means 2, 5, 8.5 */
  double bm[3] = {2, 5, 8.5};
  double want = gsl_stats_sd_m(bm, 1, 3, 5.5) / sqrt(3.0);
  check(fabs(se - want) < 1e-12, "standard error of uneven batches", se, want);
  se = bg_batch_se(x, 2, 5, 5, &m); /* 1, 3, 5, 7, 9: variance 10 */
  check(fabs(m - 5) < 1e-12 && fabs(se - sqrt(10.0 / 5)) < 1e-12, "stride 2", se, sqrt(10.0 / 5));
  check(isnan(bg_batch_se(x, 1, 3, 4, &m)), "n < batches gives NaN", bg_batch_se(x, 1, 3, 4, &m), NAN);
  check(isnan(bg_batch_se(x, 1, 10, 1, &m)), "one batch gives NaN", bg_batch_se(x, 1, 10, 1, &m), NAN);
  check(isnan(bg_batch_se(x, 1, 10, 65, &m)), "65 batches give NaN", bg_batch_se(x, 1, 10, 65, &m), NAN);

  /* 2. AR(1): var(x) = 1 / (1 - r^2); the mean of n samples has variance
   * var(x) / n (1 + 2 sum_k (1 - k/n) r^k) = var(x) / n ((1 + r) / (1 - r)
   * - 2 r (1 - r^n) / (n (1 - r)^2)) */
  const double r = 0.8;
  const int n = 4000, reps = 400, batches = 20;
  static double s[4000];
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 12345);
  double sum_se2 = 0, sum_naive2 = 0;
  for (int k = 0; k < reps; ++k) {
    double v = gsl_ran_gaussian(g, 1.0) / sqrt(1 - r * r); /* stationary start */
    for (int i = 0; i < n; ++i) s[i] = v = r * v + gsl_ran_gaussian(g, 1.0);
    double e = bg_batch_se(s, 1, (size_t)n, batches, &m);
    sum_se2 += e * e / reps;
    sum_naive2 += gsl_stats_variance(s, 1, (size_t)n) / n / reps;
  }
  gsl_rng_free(g);
  const double var_x = 1 / (1 - r * r);
  const double var_mean = var_x / n * ((1 + r) / (1 - r) - 2 * r * (1 - pow(r, n)) / (n * (1 - r) * (1 - r)));
  check(fabs(sum_se2 / var_mean - 1) < 0.15, "AR(1) r 0.8: batch variance of the mean / closed form", sum_se2 / var_mean, 1);
  check(sum_naive2 / var_mean < 0.2, "AR(1): the plain sd^2 / n is far too small (control)", sum_naive2 / var_mean, 1.0 / 9);
  printf("%s: %d failed\n", fails ? "FAIL" : "PASS", fails);
  return fails ? 1 : 0;
}
