/* paddle.h: a paddle wheel turned by a motor in 2D sand (issue 37 part 6):
 * its options, one spin's result, and the functions paddle.c's main calls
 * (paddle_spin.c runs a spin, paddle_rft.c holds the resistive-force-theory
 * torque of the arms and the calibration of its scale zeta).
 *
 * Conventions: the x-z plane, z up, the paddle turning about +y at omega
 * (rad/s), which takes +x towards -z. Torques are per metre of depth and
 * reported as the resisting torque, -tau_y sign(omega): positive when the
 * sand opposes the motor. */
#ifndef BG_PADDLE_H
#define BG_PADDLE_H

#include <stddef.h>
#include <stdint.h>

#include "../rft/rft.h"
#include "bagnold.h"
#include "bg_lab.h"

typedef struct paddle_options {
  int arms;           /* 4: two crossing boxes; 2: one bar (a check; its period is a half turn) */
  double radius;      /* R: an arm's reach from the axis, m */
  double thickness;   /* T: an arm's thickness, m */
  double cells;       /* R / dx */
  double depth;       /* the axis below the free surface, in R */
  double below;       /* bed below the arms' lowest reach, in R: the floor's distance */
  double half_width;  /* bed from the axis to each side face, in R */
  const char *omegas; /* the sweep, rad/s, comma-separated */
  double slow_froude; /* the rate claim's set: (omega R)^2 / (g depth) below this */
  int startup;        /* quarter turns before the window */
  int window;         /* quarter turns averaged */
  double wall_mu;     /* arm-sand Coulomb friction */
  double settle;      /* settling time with the paddle at rest, s */
  double cal_speed;   /* speed of the calibration drags, m/s */
  double cfl;         /* the spins' step: dt = cfl dx / (c_p + |v|max) */
} paddle_options;

/* One spin at a fixed omega: what it was fed, read back, and what it read. */
typedef struct paddle_run {
  double omega_nom;  /* rad/s */
  double omega_fed;  /* read back from the bodies' angular velocity, rad/s */
  double radius_fed; /* the arm's half length read back from the simulation, m */
  double dx;
  double surface;       /* the free surface read from the particles after settling, m */
  double depth;         /* the axis below it, m */
  double tip_speed;     /* omega_fed R, m/s */
  double froude;        /* tip_speed^2 / (g depth) */
  double torque, sd;    /* resisting torque over the window: mean, sd of the samples, N m/m */
  double se;            /* the mean's standard error from batch means, N m/m */
  double torque_first;  /* the mean over the first quarter turn (fresh sand), N m/m */
  double torque_stress;  /* the window's torque split (bg_contact.h), one probe per sample row: the part */
  double torque_residue; /* the stress carries and the part the transfers leave every step, N m/m */
  double stress_sd, stress_se; /* of the stress part's probes, as sd and se for the torque */
  double split_nonlinearity; /* the largest of the probes' (bg_contact.h) */
  int split_n;               /* probes averaged: one per sample row of the window */
  double rft;           /* the RFT torque at the read-back poses averaged over the window */
  double rft_first;     /* the same over the first quarter turn */
  double sigma_v_ratio; /* vertical stress at the axis' depth beside the paddle over rho0 g depth */
  double p_swept_ratio; /* mean pressure in the swept annulus at the window's end over its settled
                           value */
  size_t n_particles;
  uint64_t steps;
  double *series; /* per sample: turns, torque, rft torque, the torque's stress part (N m/m; NaN before the window) */
  int n_series;
} paddle_run;

/* The RFT scale, measured in the run's own sand (paddle_rft.c). */
typedef struct paddle_zeta {
  double zeta;   /* N/m^3 */
  double misfit; /* of the calibration drags against zeta g(beta, gamma) */
  double rho0_g; /* the fed material's rho0 g, N/m^3 */
  rft_run drag[2];
  int n;
} paddle_zeta;

/* paddle_spin.c: one spin at omega (rad/s) in the scene the options give;
 * zeta scales the RFT torque it averages beside the measured one */
paddle_run paddle_spin(bg_lab *lab, const paddle_options *o, double omega, double zeta,
                       const char *tag);

/* paddle_rft.c */
paddle_zeta paddle_calibrate(bg_lab *lab, const paddle_options *o);
/* RFT torque (resisting, N m/m) on `arms` arms (4: a cross, 2: a bar) of
 * reach R, from h (the hub's half-width) out, turned by theta (rad, about
 * +y) with the axis at depth d below the surface, omega's sign the
 * direction of turning */
double paddle_rft_torque(double zeta, int arms, double R, double h, double d, double theta,
                         double omega);

#endif
