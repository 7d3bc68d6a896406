/* density.h: the parts of the dropped-block density experiment (density.c
 * reads as its table of contents): the field estimates on particles, nodes
 * and cells (density_fields.c), and the read-out with its claims
 * (density_readout.c). */
#ifndef DENSITY_H
#define DENSITY_H

#include <stddef.h>
#include <stdint.h>

#include "bagnold.h"
#include "bg_lab.h"

#define G 9.81

/* a refused solver call or a failed write ends the run (exit 2, folder FAILED) */
void density_check(bg_status s, bg_sim *sim, const char *what);
void *density_xmalloc(size_t n);

typedef struct layer_stats {
  size_t n;
  double c_max, c_q99, c_q999; /* particle compaction: maximum and high quantiles */
  double loaded;               /* fraction of particles with det F_E < 1 - 1e-5 */
  double c_cont;               /* volume-weighted mean of -ln det F_E: the continuum's elastic strain */
  double zeta_at_max, r_at_max; /* where the maximum sits: dx above the last solid node, m from the axis */
} layer_stats;

typedef struct interior_est {
  double rho_grid, rho_part, rho_part_detf;
  size_t n_nodes, n_part;
} interior_est;

double density_det3(const bg_real *f);
void density_erode_axis(const unsigned char *in, unsigned char *out, const size_t *dims, int a, int r);
layer_stats density_layer_compaction(size_t na, const unsigned char *sel, const double *je, const double *vr,
                                    const double *zeta, const double *rxy);
void density_floor_profile(bg_lab *lab, size_t na, const double *je, const double *vr, const double *zeta,
                          const double *rxy);
interior_est density_interior_density(const bg_real *gm, const unsigned char *occ, const size_t *dims, double dx,
                                     int r, size_t na, const size_t *near, const double *m, const double *rho,
                                     const double *rho_f);
void density_cell_compaction(const size_t *dims, size_t na, const size_t *near, const double *je, const double *vr,
                            int min_n, size_t k_lo, int bulk, double *q99, double *mx, size_t *ncells);

/* The run: its options, the scene (the simulation and its particles) and
 * what the drop left (the time, the kinetic energy, rest, the grid mass a
 * resumed run restored). */
typedef struct density_run {
  bg_lab *lab;
  double dx, block, block_h, drop, t_max, rest_ke, floor_mu, jitter, bin_w, floor_shift;
  int ppc, vtk, side;
  bg_sim_desc desc;
  bg_sim *sim;
  size_t nxy, nz, n;
  double x0, rho0, M_mod, M, E_scale, t_fall;
  uint64_t every;
  bg_real *x, *mass;
  bg_stats stats;
  double ke;
  int at_rest;
  bg_real *grid; /* node mass from a final checkpoint, else NULL */
} density_run;

/* The settled state read out: tables, the manifest's results and the claims. */
void density_readout(density_run *r);

#endif /* DENSITY_H */
