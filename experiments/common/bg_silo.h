/* bg_silo.h: one silo discharge run, shared by the silo experiment and the
 * hopper-design demo. The scene (a slot or round silo filled with sand at
 * rest, a floor node field with the orifice cut out of it, a sink under the
 * outlet), the run's measurements (parked-mass rate W over the steady window,
 * its sub-window flatness and relative standard error, the exit profile, the
 * bulk density) and the stop rules are described in experiments/silo/silo.c,
 * whose header is the one account of them. */
#ifndef BG_SILO_H
#define BG_SILO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bagnold.h"
#include "bg_lab.h"

#define BG_SILO_N_SUB 5
#define BG_SILO_STARTUP_PERIODS 2.0
#define BG_SILO_H_END_OVER_L 1.2 /* Mankoc 2007: rate independent of fill above ~1.2 silo diameters */

typedef struct bg_silo_scene {
  int round;
  double dx;
  int silo_cells;  /* L / dx */
  double hr;       /* fill height over R = L / 2 */
  double D_cells;  /* nominal aperture, cells */
  int floor_cells, gap_cells, slab_cells;
  double mu_wall, mu_floor;
  double drop;     /* fraction of the window H -> 1.2 L to drain; 1 = all of it */
  int steady_stop;  /* sweep run: may also end on the steady-window rule (t_win_min, rel_se_max) */
  double t_win_min, rel_se_max;
  double startup_frac; /* start-up ends once h has dropped this fraction of H - 1.2 L (and t >= 2 periods) */
  double t_max, sample_dt, jitter;
  const char *backend;
  int threads;
  unsigned long seed;
  bg_material material;
  /* NULL: the analytic floor (a slab with the orifice cut out). Else the
   * floor is this closed mesh's solid, in units of the orifice diameter:
   * scaled by D = D_cells dx and moved to the aperture centre, with its
   * plate's top at z = 0 (references/meshes/README.md) */
  const bg_mesh *floor_mesh;
} bg_silo_scene;

typedef struct bg_silo_result {
  double D_nom, D_geo; /* m; D_geo: the aperture the measurements use, = D_fed */
  double D_fed;        /* m, the aperture the library holds (bg_sim_describe's floor field) */
  double dx_fed, rho0_fed; /* the library's dx (m) and rho0 (kg/m^3), read back the same way */
  size_t n_particles;
  uint64_t steps;
  double t_end, M0, H, h_stop;
  double rho_b, rho_b_sd; /* kg/m^3, at the window's start */
  double t0w, t1w;        /* steady window */
  double W, sW;           /* kg/s (per unit width for the slot: kg/(m s)), parked-mass fit */
  double W_plane, sW_plane;
  double W_sub[BG_SILO_N_SUB], t_sub[BG_SILO_N_SUB][2], flat; /* flat: max |W_k / W - 1| */
  double W_closure, W_counted; /* integrals over the exit profile */
  double W_closure_rho0;       /* the same integral with rho0 for the state density (a mutant) */
  double flat_startup;         /* flatness with the window opened at t = 0 (a mutant) */
  double v_c, u_c;             /* centreline exit speed (bins within dx/2 of the axis), v_c / sqrt(g D_geo) */
  double D_flow;               /* width where v > 10% of its centreline value */
  double rel_se;               /* relative standard error of W, see w_rel_se() */
  const char *stop_rule;       /* which rule ended the run */
  int jammed, n_window, n_prof;
  /* profile bins */
  int nb;
  double *pos, *area, *sm, *smv, *smr, *cnt;
} bg_silo_result;

/* Runs one aperture until a stop rule ends it; series_out (or NULL) gets the
 * time series rows (t, parked mass, mass below the orifice plane, local
 * rates, fill height, rho_b, in-window flag). Exits through bg_lab_fail when
 * the solver refuses. */
bg_silo_result bg_silo_run(bg_lab *lab, const bg_silo_scene *sc, const char *tag, FILE *series_out);

/* A result and its series rows (the text bg_silo_run wrote to series_out)
 * into a sweep point's blob and back (bg_lab_sweep); unpack returns the
 * series in a malloc'd, NUL-terminated *series. */
void bg_silo_result_pack(const bg_silo_result *r, const char *series, size_t series_len, bg_lab_blob *b);
bg_silo_result bg_silo_result_unpack(bg_lab_blob *b, char **series, size_t *series_len);

/* Frees the profile arrays of a result. */
void bg_silo_result_free(bg_silo_result *r);

#endif /* BG_SILO_H */
