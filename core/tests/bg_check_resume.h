/* bg_check_resume.h: the resumed-run check the body tests share. Run a
 * (saved to path earlier) on by steps more, load path on backend, run the
 * loaded one as far, and hold body 0's state and the n particles'
 * positions to a's: bit for bit on a host backend, within 1e-5 (spin 1e-2)
 * on a device, whose float atomics sum in another order each run. path
 * is removed; a is destroyed. */
#ifndef BG_CHECK_RESUME_H
#define BG_CHECK_RESUME_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bagnold.h"
#include "bg_check.h"

static inline void bg_check_resume_body(bg_sim *a, const char *path, const char *backend, uint64_t steps, size_t n) {
  bg_sim_run(a, steps);
  char err[512];
  bg_sim *c = NULL;
  bg_status s = bg_sim_load(path, backend, 0, &c, err, sizeof err);
  remove(path);
  if (!bg_check_true(s == BG_OK, "loaded (%s)", err)) {
    bg_sim_destroy(a);
    return;
  }
  bg_sim_run(c, steps);
  bg_body_state sa, sc;
  bg_sim_body_state(a, 0, &sa);
  bg_sim_body_state(c, 0, &sc);
  bg_real *xa = malloc(3 * n * sizeof *xa), *xc = malloc(3 * n * sizeof *xc);
  if (!xa || !xc) abort();
  bg_sim_get(a, BG_FIELD_X, xa, 3 * n);
  bg_sim_get(c, BG_FIELD_X, xc, 3 * n);
  double dxp = 0, dq = 0, dw = 0;
  for (size_t i = 0; i < 3 * n; ++i) dxp = fmax(dxp, fabs((double)xa[i] - xc[i]));
  for (int k = 0; k < 4; ++k) dq = fmax(dq, fabs(sa.q[k] - sc.q[k]));
  for (int k = 0; k < 3; ++k) dw = fmax(dw, fabs(sa.w[k] - sc.w[k]));
  printf("   body z %.6f m, spin %.4f rad/s\n", sa.x[2], sa.w[0]);
  const double tol = bg_backend_on_device(backend) == 1 ? 1e-5 : 0.0;
  bg_check_abs(fabs(sa.x[2] - sc.x[2]), 0.0, tol, "the resumed body's height is the run's");
  bg_check_abs(dq, 0.0, tol, "its orientation");
  bg_check_abs(dw, 0.0, tol * 1e3, "its spin");
  bg_check_abs(dxp, 0.0, tol, "the particles' positions");
  free(xa);
  free(xc);
  bg_sim_destroy(a);
  bg_sim_destroy(c);
}

#endif /* BG_CHECK_RESUME_H */
