/* cantilever.h: what the cantilever experiment's files share (cantilever.c:
 * options, scene and the runs; cantilever_fit.c: closed forms, the
 * refinement and the claims). */
#ifndef CANTILEVER_H
#define CANTILEVER_H

#include "bagnold.h"
#include "bg_lab.h"

#define CANT_MAX_LEVELS 6
#define CANT_MAX_HIST 512

/* The options and the plan. */
typedef struct cant_plan {
  bg_lab *lab;
  double L;        /* beam length from the clamp, m */
  double aspect;   /* L / h */
  double E, nu;    /* fed Young's modulus (Pa) and Poisson's ratio */
  double rho0;     /* fed density, kg/m^3 */
  double periods;  /* settling time in periods of the first bending mode */
  double zeta;     /* grid damping as a fraction of mode 1's critical damping */
  double cfl;      /* the step's CFL number */
  int cells;       /* cells through the thickness at the coarsest grid */
  int levels;      /* grids, each halving dx */
  const char *law; /* "fixed-corotated" or "neo-hookean" */
  int law_id;      /* bg_elastic_law */
} cant_plan;

/* One grid's run, as a sweep point packs it. */
typedef struct cant_point {
  double dx;    /* m */
  double cells; /* h / dx */
  double particles;
  double steps;
  double t_end;  /* s */
  double x_col;  /* initial x of the tip column from the clamp, m */
  double defl;   /* mean downward displacement of the tip column at t_end, m */
  double settle; /* |defl(t_end) - defl(t_end - T1 / 4)| / defl */
  double wall_s;
  /* read back from the simulation (bg_sim_describe) */
  double E, nu, rho0, g, damping;
  double T1; /* the first mode's period the run used, s */
  int n_hist;
  double hist[CANT_MAX_HIST][2]; /* (t, tip deflection) */
} cant_point;

/* Closed forms of references/derivations/elastic.md: the Euler-Bernoulli
 * deflection w(x) of a cantilever of length L, thickness h and width b
 * with free sides (sigma_yy = 0, modulus E) under its own weight
 * rho0 g (b h) per length; the Timoshenko shear term
 * q (L x - x^2 / 2) / (kappa G b h), kappa = 5/6. */
typedef struct cant_beam {
  double L, h, b, E, nu, rho0, g;
  int plane_strain; /* mutant plane-strain-modulus: E / (1 - nu^2) */
  int wrong_axis;   /* mutant i-wrong-axis: I = h b^3 / 12 */
} cant_beam;
double cant_modulus(const cant_beam *bm);
double cant_inertia(const cant_beam *bm);
double cant_w_eb(const cant_beam *bm, double x);
double cant_w_shear(const cant_beam *bm, double x);
/* The first bending mode's angular frequency, 1.8751^2 sqrt(E I / (rho A L^4)). */
double cant_omega1(const cant_beam *bm);

/* The refinement, the outputs and the claims. */
void cant_analyse(const cant_plan *pl, const cant_point *pt, int n);

#endif /* CANTILEVER_H */
