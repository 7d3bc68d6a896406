/* impact.h: what the impact-cratering experiment's files share: its
 * options, one drop's result, the fits over a grid's drops, and the
 * functions of impact_drop.c (one simulated drop) and impact_fit.c (the
 * GSL fits of Uehara et al. 2003's law). */
#ifndef IMPACT_H
#define IMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "bagnold.h"
#include "bg_lab.h"

#define IMPACT_MAX_LIST 8 /* values per list option */
#define IMPACT_PROFILE_BINS 128

typedef struct impact_options {
  const char *dx_list, *d_list,
      *h_list;          /* comma-separated: grids (coarse to fine), diameters, drop heights */
  double density_ratio; /* rho_b / rho0 of the sphere as fed */
  double bed_width, bed_depth; /* m */
  double gap_cells;            /* the sphere's bottom starts this many cells above the surface */
  double t_max;                /* s: a drop that has not stopped by then is reported unstopped */
  double wall_mu;              /* Coulomb friction of the floor and of the sphere */
  double cfl;                  /* the drops' step: dt = cfl dx / (c_p + |v|max) */
  double stop_frac; /* the drop ends when the sphere's downward speed is below this x v_impact */
  /* parsed */
  int n_dx, n_d, n_h;
  double dx[IMPACT_MAX_LIST], d[IMPACT_MAX_LIST], h[IMPACT_MAX_LIST];
} impact_options;

/* One drop: a sphere of diameter D whose bottom meets the surface with the
 * speed of a free fall from h, into a bed at grid spacing dx. */
typedef struct impact_drop {
  double dx, D, h; /* as asked */
  double v_impact; /* m/s at the surface: sqrt(2 g h) */
  double depth;    /* d: the sphere's bottom at its lowest, below the undisturbed surface, m */
  double
      depth_release; /* the same lowest point read below the sphere's bottom at release (mutant) */
  double H;          /* total drop distance h + d, m */
  double rho_b_held; /* the sphere's density as the simulation holds it (mass / volume) */
  double rho_g;      /* the bed's bulk density as built: its mass over its volume, read back */
  double mu_fed; /* tan phi (Drucker-Prager) or mu_s (mu(I)) of the material the simulation holds */
  double
      crater_surface; /* crater diameter where the profile crosses the original surface level, m */
  double crater_rim;  /* rim-to-rim diameter: twice the radius of the profile's highest bin, m */
  double rim_height;  /* the rim's height above the original surface, m */
  double t_stop;      /* s: when the sphere's downward motion ended */
  int stopped;        /* 1: it stopped before t_max */
  size_t particles;
  uint64_t steps;
  int n_bins;                          /* crater profile bins (dx / 2 wide, from the axis) */
  double profile[IMPACT_PROFILE_BINS]; /* mass-equivalent surface height above the original surface,
                                          m */
} impact_drop;

/* The fits over one grid's drops: log d = c + a log H + b log D. */
typedef struct impact_fit {
  double dx;
  int n;
  double a, a_se, b, b_se, c; /* H exponent, D exponent (with standard errors), intercept */
  double K;          /* exp(mean(log d - 2/3 log D - 1/3 log H)), Uehara's exponents held */
  double K_expected; /* 0.14 / mu (rho_b / rho_g)^(1/2) of what the simulations held */
  double a_per_d[IMPACT_MAX_LIST]; /* the H exponent of each diameter alone */
} impact_fit;

/* Uehara et al. 2003's prefactor and exponents. */
#define UEHARA_C 0.14
#define UEHARA_A (1.0 / 3.0)
#define UEHARA_B (2.0 / 3.0)

/* What a scene mutant changes in what a drop is fed: density_scale
 * multiplies the sphere's density (sphere-density-x4), phi_shift_deg is
 * added to the sand's friction angle (friction-angle-fed); {1, 0} for a
 * plain run. */
typedef struct impact_feed {
  double density_scale, phi_shift_deg;
} impact_feed;

/* impact_drop.c: one drop (tag names it for progress and checkpoints). */
impact_drop impact_run_drop(bg_lab *lab, const impact_options *o, double dx, double D, double h,
                            impact_feed feed, const char *tag);

/* impact_fit.c: the fits over the n drops of d[] (depths taken from depth
 * or, with use_release, depth_release; the heights, or the diameters, read
 * in reverse order with reverse_h or reverse_d; the law's own depths with
 * law_data, the positive control). */
typedef struct impact_fit_mode {
  int use_release, reverse_h, reverse_d, law_data;
  double rho_b_lab; /* > 0: the expectation from the lab's own copy of rho_b (mutant
                       sphere-density-x4) */
  double mu_lab;    /* > 0: the expectation from the lab's own copy of mu (mutant
                       friction-angle-fed) */
} impact_fit_mode;
impact_fit impact_fit_grid(const impact_drop *d, int n, const impact_options *o,
                           impact_fit_mode mode);
/* The friction coefficient of a material: tan phi for Drucker-Prager,
 * mu_s for mu(I) (impact_drop.c). */
double impact_held_friction(const bg_material *m);
/* Uehara's depth for a drop with the given inputs. */
double impact_uehara_depth(double mu, double rho_b, double rho_g, double D, double H);

#endif /* IMPACT_H */
