/* rft.h: the intrusion experiment against resistive force theory (RFT):
 * its options, one drag run's result, and the functions rft.c's main calls
 * (rft_drag.c runs a drag, rft_fit.c holds the generic RFT form and the
 * fits). Conventions (references/literature/li2013_rft.md): the plate moves
 * forward (+x in the simulation) and down at gamma below the horizontal;
 * beta is its angle of attack, its leading edge raised by beta; alpha_z is
 * the upward force and alpha_x the force against the forward direction,
 * each per plate area and per depth of the plate's centre. */
#ifndef BG_RFT_H
#define BG_RFT_H

#include <stddef.h>
#include <stdint.h>

#include "bagnold.h"
#include "bg_lab.h"

typedef struct rft_options {
  double length;      /* plate length L, m */
  double aspect;      /* L / thickness */
  const char *cells;  /* L / dx: the run's grid, then the finer one of the dx check */
  const char *betas;  /* angles of attack, deg, comma-separated */
  const char *gammas; /* directions of motion below the horizontal, deg */
  const char *depths; /* depths of the plate's centre in L, the first the shape set's */
  double speed;       /* m/s */
  double travel;      /* distance moved, in L */
  double window;      /* the steady window: the travel's last part, in L */
  double wall_mu;     /* plate-sand Coulomb friction */
  double phi_control; /* friction angle of the zeta control run, deg (0: none) */
  double settle;      /* settling time before the drag, s */
  double ahead;       /* bed ahead of the plate's end, in depths (the passive wedge) */
  double side;        /* bed beside a plate moving down, each side, in depths (its bearing wedges) */
  double below;       /* bed below the plate's final reach (centre + L / 2), in L */
  double width;       /* the plate's width across the motion, in L: 0 plane strain (2D), > 0 a 3D bed */
  double across;      /* 3D: bed beside the plate's width, each side, in depths of its centre */
  double cfl;         /* the drags' step: dt = cfl dx / (c_p + |v|max) */
  /* the shape set's scene (the depth series, rate pair, dx check and control keep the above) */
  double shape_depth, shape_travel, shape_window, shape_below; /* in L */
} rft_options;

/* series columns: travel / L, depth m, fx, fz (N/m), surface over the plate
 * and ahead of it, 0.5, 1 and 2 depths long (m), in the window the stress
 * part of the force at the row's end (bg_contact.h; NaN before), and the
 * depth below the surface one depth ahead (m) */
#define RFT_SERIES_COLS 11
/* batch means of the window's rows for alpha_ahead's standard error */
#define RFT_BATCHES 4

/* One drag: what it was fed, as the simulation holds it, and what it read. */
typedef struct rft_run {
  double beta_nom, gamma_nom, depth_nom; /* nominal: rad, rad, m */
  double beta_fed, gamma_fed;            /* read back: the body's pose and velocity */
  double speed_fed;                      /* m/s, read back */
  double dx, phi_deg;
  double surface;          /* the bed's free surface read from the particles after settling, m */
  double depth;            /* mean depth of the plate's centre below it over the window, m */
  double depth_ahead;      /* ... below the surface as the drag leaves it ahead of the plate (one depth
                            * long: the passive wedge's overburden), mean over the window's rows, m */
  double fx, fz;           /* the force's stress part over the window (bg_contact.h), N/m (simulation axes) */
  double alpha_ahead;      /* the window rows' mean of |stress part| / (L depth below the surface ahead), N/m^3 */
  double alpha_ahead_se;   /* its standard error from RFT_BATCHES batch means of the rows, N/m^3 */
  double contact_fx, contact_fz; /* the whole contact force, time mean over the window, N/m */
  double residue_fx, residue_fz; /* its transfers' part at the run's step, mean over the splits, N/m */
  double split_nonlinearity;     /* the largest of the splits' */
  int split_n;                   /* splits averaged */
  double alpha_x, alpha_z; /* N/m^3: -fx / (L |z|), fz / (L |z|) */
  double rate_number;      /* v^2 / (g |z|): inertial over hydrostatic stress */
  size_t n_particles;
  uint64_t steps;
  double *series; /* RFT_SERIES_COLS per sample */
  int n_series;
} rft_run;

/* rft_drag.c */
rft_run rft_drag(bg_lab *lab, const rft_options *o, double cells, double beta, double gamma,
                 double depth, double speed, double phi_deg, const char *tag);
/* the free surface over the particle columns in [x0, x1] (exp_paddle reads it too) */
double rft_read_surface(bg_sim *sim, size_t n, double dx, double x0, double x1);
/* the same over k intervals [x0[i], x1[i]] into out[i], from one read of the particles; in 3D
 * (band > 0) over the lane |y| < band alone */
void rft_read_surfaces(bg_sim *sim, size_t n, double dx, double band, int k, const double *x0, const double *x1,
                       double *out);

/* rft_fit.c: the generic form of Li et al. 2013 (units of zeta), its nine
 * coefficients A00 A10 B11 B01 Bm11 C11 C01 Cm11 D10 set from references/ */
void rft_set_coefficients(const double c[9]);
/* the nine from references/literature/li2013_rft.tsv, checked readable */
void rft_read_coefficients(bg_lab *lab);
void rft_generic(double beta, double gamma, double *az, double *ax);
typedef struct rft_shape {
  double zeta;                       /* N/m^3, least squares over both components */
  double misfit, misfit_z, misfit_x; /* rms(alpha - zeta g) / rms(zeta g) */
  double mirror; /* the same distance between g(beta) and g(-beta): the resolution */
} rft_shape;
/* fit zeta and the misfits; sign -1 reads every beta mirrored (a mutant) */
rft_shape rft_fit_shape(const rft_run *r, int n, double sign);
double rft_resolution(const double *betas, int nb, const double *gammas, int ng);
/* F = k |z| + c (GSL, weighted) over the runs' forces at their window's mean
 * depth below the surface ahead, alpha_ahead L depth_ahead, with standard
 * errors alpha_ahead_se L depth_ahead, |z| as given; returns -c / k, the
 * depth offset, m, and its standard error in *sigma */
double rft_fit_depth(const rft_run *r, int n, const double *depth_used, double L, double *k, double *c,
                     double *sigma);

#endif
