/* paddle_rft.c: resistive force theory for the paddle. The torque is RFT's
 * superposition (references/literature/li2013_rft.md, eq. 1) over the four
 * arms' centre lines, each element moving perpendicular to its arm at
 * omega r, with the generic form of Li et al. 2013 (experiments/rft/
 * rft_fit.c) and the scale zeta measured in the run's own sand by two
 * drags of exp_rft's plate (experiments/rft/rft_drag.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "paddle.h"

#define ELEMENTS 32 /* per arm: the midpoint rule, exact for |z| linear along the arm */
#define HALF_PI 1.57079632679489661923

/* One element at p (from the axis, x-z) with tangent t, turning at omega
 * about +y: its RFT force per length (N/m per m of depth) at depth |z|. */
static void element_force(double zeta, const double p[2], const double t[2], double depth,
                          double omega, double f[2]) {
  f[0] = f[1] = 0;
  if (depth <= 0) return;                            /* above the surface: no sand */
  const double v[2] = {omega * p[1], -omega * p[0]}; /* omega y x p */
  const double e = v[0] < 0 ? -1 : 1;                /* the forward direction */
  const double gamma = atan2(-v[1], fabs(v[0]));     /* below the horizontal */
  double beta = atan2(t[1], e * t[0]);               /* the line's rise, forward */
  if (beta > HALF_PI) beta -= 2 * HALF_PI;
  if (beta < -HALF_PI) beta += 2 * HALF_PI;
  double az, ax;
  rft_generic(beta, gamma, &az, &ax);
  f[0] = -e * zeta * ax * depth; /* alpha_x is against the forward motion */
  f[1] = zeta * az * depth;
}

double paddle_rft_torque(double zeta, int arms, double R, double h, double d, double theta,
                         double omega) {
  double tau = 0;
  const double ds = (R - h) / ELEMENTS;
  for (int k = 0; k < 4; k += 4 / arms) {
    /* arm k: the body's +x turned by theta + k quarter turns about y */
    const double a = theta + k * HALF_PI, t[2] = {cos(a), -sin(a)};
    for (int i = 0; i < ELEMENTS; ++i) {
      const double s = h + (i + 0.5) * ds, p[2] = {s * t[0], s * t[1]};
      double f[2];
      element_force(zeta, p, t, d - p[1], omega, f);
      tau += (p[1] * f[0] - p[0] * f[1]) * ds; /* (p x f)_y */
    }
  }
  return omega > 0 ? -tau : tau; /* resisting */
}

/* zeta from the two configurations an arm passes through at a quarter turn's
 * poses: a vertical plate dragged horizontally (beta 90, gamma 0) and a flat
 * plate pushed down (0, 90), each of the arm's length and thickness at the
 * axis' depth, on the paddle's grid, fitted through the origin over both
 * force components (rft_fit_shape, as exp_rft fits its shape set). */
paddle_zeta paddle_calibrate(bg_lab *lab, const paddle_options *o) {
  paddle_zeta z;
  memset(&z, 0, sizeof z);
  const bg_material m = bg_lab_material(lab);
  z.rho0_g = m.rho0 * 9.81;
  rft_options r;
  memset(&r, 0, sizeof r);
  r.length = o->radius;
  r.aspect = o->radius / o->thickness;
  r.speed = o->cal_speed;
  /* exp_rft's shape-set scene, in plate lengths: travel, window, floor */
  r.travel = 1.6, r.window = 1.0, r.below = 2.0;
  r.wall_mu = o->wall_mu;
  r.settle = o->settle;
  r.cfl = o->cfl;
  r.ahead = 2, r.side = 1;
  const double deg = HALF_PI / 90, bg[2][2] = {{90, 0}, {0, 90}};
  for (int k = 0; k < 2; ++k) {
    char tag[64];
    snprintf(tag, sizeof tag, "zeta beta %g gamma %g", bg[k][0], bg[k][1]);
    z.drag[k] = rft_drag(lab, &r, o->cells, bg[k][0] * deg, bg[k][1] * deg, o->depth * o->radius,
                         r.speed, m.dp.phi_deg, tag);
  }
  z.n = 2;
  rft_shape s = rft_fit_shape(z.drag, z.n, 1.0);
  z.zeta = s.zeta, z.misfit = s.misfit;
  return z;
}
