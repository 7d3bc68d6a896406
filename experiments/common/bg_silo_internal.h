/* bg_silo_internal.h: what the silo run's files share and the experiments
 * do not see (bg_silo.c, bg_silo_geometry.c, bg_silo_result.c). */
#ifndef BG_SILO_INTERNAL_H
#define BG_SILO_INTERNAL_H

#include "bg_silo.h"

/* The grid, the floor's node field and the silo's measures, as built. */
typedef struct grid_geo {
  bg_sim_desc desc;
  bg_real *phi;   /* floor node field */
  double xc;      /* aperture centre x (slot), m */
  double L, H, T; /* width/diameter, fill height, slab thickness (slot) */
  double z_sink;
  double A;   /* cross-section of the fill, m^2 (set from the particles) */
  int n_free; /* free floor-plane nodes in the hole, as this file built them */
} grid_geo;

/* The grid and floor of scene sc into g (g->phi allocated here). */
void bg_silo_build_geometry(bg_lab *lab, const bg_silo_scene *sc, grid_geo *g);

/* The aperture the simulation holds, from bg_sim_describe: slot width or
 * round diameter, m; also its dx and rho0. */
double bg_silo_fed_aperture(const bg_sim *sim, int round, double *dx_out, double *rho0_out);

/* Why a run stopped, by index: checkpoints and result blobs store the index,
 * so the order is part of both formats. */
enum { BG_SILO_N_STOP_RULES = 6 };
extern const char *const bg_silo_stop_rules[BG_SILO_N_STOP_RULES];

#endif /* BG_SILO_INTERNAL_H */
