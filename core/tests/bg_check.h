/* bg_check.h: self-describing checks for the unit tests. Each check prints
 * PASS/FAIL with its description, NaN/Inf always fail, and
 * bg_check_summary() turns the tally into the exit code (0 pass, 1 fail).
 * A test that needs hardware it does not have returns BG_CHECK_SKIP (77). */
#ifndef BG_CHECK_H
#define BG_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define BG_CHECK_SKIP 77

static int bg_check_failed_ = 0;
static int bg_check_passed_ = 0;
static int bg_check_verbose_ = 1;

static inline void bg_check_report_(int ok, const char *what, double got, double want, double tol,
                             const char *fmt, va_list ap) {
  if (ok) bg_check_passed_++;
  else bg_check_failed_++;
  if (!ok || bg_check_verbose_) {
    printf("%s: ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf(" (%s: got %.9g, want %.9g, tol %.3g)\n", what, got, want, tol);
  }
}

/* |got - want| <= tol * |want| (or <= tol when want == 0). */
static inline int bg_check_rel(double got, double want, double tol, const char *fmt, ...) {
  double scale = fabs(want) > 0 ? fabs(want) : 1.0;
  int ok = isfinite(got) && isfinite(want) && fabs(got - want) <= tol * scale;
  va_list ap;
  va_start(ap, fmt);
  bg_check_report_(ok, "rel", got, want, tol, fmt, ap);
  va_end(ap);
  return ok;
}

/* |got - want| <= tol. */
static inline int bg_check_abs(double got, double want, double tol, const char *fmt, ...) {
  int ok = isfinite(got) && isfinite(want) && fabs(got - want) <= tol;
  va_list ap;
  va_start(ap, fmt);
  bg_check_report_(ok, "abs", got, want, tol, fmt, ap);
  va_end(ap);
  return ok;
}

/* got <= bound. */
static inline int bg_check_le(double got, double bound, const char *fmt, ...) {
  int ok = isfinite(got) && got <= bound;
  va_list ap;
  va_start(ap, fmt);
  bg_check_report_(ok, "<=", got, bound, 0.0, fmt, ap);
  va_end(ap);
  return ok;
}

/* A boolean condition with a description. */
static inline int bg_check_true(int cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bg_check_report_(cond != 0, "cond", cond, 1, 0.0, fmt, ap);
  va_end(ap);
  return cond != 0;
}

static inline int bg_check_summary(void) {
  printf("%d passed, %d failed\n", bg_check_passed_, bg_check_failed_);
  return bg_check_failed_ ? 1 : 0;
}

#endif /* BG_CHECK_H */
