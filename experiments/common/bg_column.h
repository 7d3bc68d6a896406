/* bg_column.h: the released sand column, shared by the repose and runout
 * experiments. A cylinder of Klar's sand (radius R0, height H0 = a R0) is
 * released at rest on a floor (Coulomb or stick) and run until it settles;
 * the deposit is read as a height field on the node columns, a radial
 * profile, its runout, its central height and the time it came to rest.
 *
 * Symmetry: only the quarter x >= 0, y >= 0 is simulated; the x = 0 and
 * y = 0 planes are slip domain faces. A slip face zeroes the approaching
 * normal velocity of its solid nodes (the plane lies midway between node
 * planes), which is what a mirror plane does to the normal velocity; it does
 * not hold a separating normal velocity at zero nor supply the mirror image's
 * stress to the stencil, so the axis is an approximate mirror. A ridge
 * (plane strain) is a slab ridge_cells thick between slip walls, half a ridge
 * against the x = 0 plane, or (dim 2) the same half ridge on the 2D
 * plane-strain solver, whose parity reference that slab is.
 *
 * Settling: the run stops when the total kinetic energy, after having peaked
 * above ten times the threshold, drops below ke_frac * M g R0 (M the
 * simulated mass), checked every check_frac * sqrt(R0 / g) of simulated
 * time, or at t_max; which one ended the run is recorded (settled 1/0).
 *
 * Surface: a column's height is its highest particle plus a quarter dx (half
 * the particle spacing dx/2 of the ppc-8 lattice), so one layer of particles
 * reads dx/2. Radial profile: annuli dx wide, mean column height per annulus.
 * Runout: the outermost radius where the annular mean thickness crosses
 * runout_h dx, linearly interpolated between annulus centres. A thin sheet
 * below that thickness is not counted; r99, the radius holding 99% of the
 * particles (all of equal mass), is reported beside it to show one. Front:
 * the toe extrapolated from the mass distribution, the intercept of the
 * radius of mass fraction F (0.80-0.99) against sqrt(1 - F), which a wedge-
 * shaped edge makes linear; it counts the sheet and converges with dx where
 * the 1-dx threshold does not (references/derivations/runout.md). */
#ifndef BG_COLUMN_H
#define BG_COLUMN_H

#include <stddef.h>
#include <stdint.h>

#include "bagnold.h"
#include "bg_lab.h"

typedef struct bg_column_scene {
  double R0, aspect, phi; /* m, H0 / R0, deg (phi: Drucker-Prager's friction angle) */
  bg_material material;   /* the sand; for Drucker-Prager phi_deg is taken from phi */
  double L_over_R0;       /* quarter-domain extent */
  double t_max_s;
  double jitter;          /* lattice jitter, fraction of the particle spacing */
  int poisson;            /* 1: Poisson-disk samples at ppc 8 instead of the lattice (--seeding) */
  int cells;              /* cells per column radius */
  int ridge;              /* 1: plane-strain half ridge */
  int ridge_cells;        /* slab thickness in cells */
  int dim;                /* 3 (0 too): the ridge as that slab; 2: the ridge on the plane-strain
                             solver (bg_sim_desc.dim 2, one particle layer at ppc 4 per cell,
                             quantities per metre of depth); a ridge only, lattice seeding only */
  int full;               /* 1: the whole cylinder, centred on the axis, no mirror planes (a slip
                             mirror holds no tension, so a cohesive quarter pulls away from it);
                             0: the quarter; a pile only */
  bg_friction floor;
  double mu;
  double ke_frac;    /* settle threshold, of M g R0 */
  double check_frac; /* settle check interval, of sqrt(R0 / g) */
  double runout_h;   /* runout thickness threshold, in dx */
  const char *backend;
  int threads;
  unsigned long seed;
} bg_column_scene;

typedef struct bg_column_result {
  double dx, H0;
  size_t n_particles;
  uint64_t steps;
  double t_end, ke_end, ke_thresh, ke_peak;
  int settled;
  double h_max;    /* highest column, m */
  double h_center; /* mean column height within r < dx of the axis, m */
  double runout;   /* m */
  int runout_wall; /* the deposit reaches the far wall: not a free runout */
  double r99;      /* radius (pile) or x (ridge) inside which 99% of the particles lie, m */
  double front;    /* toe extrapolated from the mass fractions 0.80-0.99 (see bg_column_run), m */
  double phi_fed;  /* the friction angle the simulation holds (bg_sim_describe; Drucker-Prager), deg; NaN
                      for other models: what claims on the angle compare with, not the scene's copy */
  double cohesion_fed, rho0_fed; /* the cohesion (Pa; Drucker-Prager, else NaN) and density (kg/m^3) it holds */
  int nx, ny;      /* height field columns */
  double *hf;      /* nx * ny column heights (i * ny + j), m; owned */
  int nbins;
  double *rbin, *hbin; /* profile: annulus (or x-bin) centres and mean heights, m; owned */
} bg_column_result;

/* The columns a surface is read on: nx by ny node columns dx wide, the
 * first at x = -off (and y = -off), profile bins dx wide out to nb bins,
 * the far wall at L; ridge: the profile along x instead of the radius.
 * A column's height is its highest particle (plus dx/4, see above).
 * x_min: columns and bins at smaller x (or radius) are left out of h_max
 * and the profile (-INFINITY for none). skip (NULL for none): particles
 * left out of the height field, e.g. sand still falling onto a heap. */
typedef struct bg_column_grid {
  double dx, off, L, runout_h, x_min;
  int nx, ny, nb, ridge;
  int plane; /* 1: a 2D run, every particle on the one plane (ny 1) */
  const unsigned char *skip;
} bg_column_grid;

/* Reads a deposit's surface from n particle positions x into res: the
 * height field (res->hf, owned), h_max, the profile, runout (runout_h dx
 * threshold), runout_wall, h_center, r99 and front. The one reader of a
 * deposit's surface: the column runs and the poured heap use it. */
void bg_column_surface(bg_column_result *res, const bg_real *x, size_t n, const bg_column_grid *g);

/* Defaults for everything but the geometry and the run's identity. */
bg_column_scene bg_column_scene_default(void);

/* The defaults with the lab's part: radius R0, friction angle phi (fed to a
 * Drucker-Prager material), the lab's material, backend, threads and seed. */
bg_column_scene bg_column_scene_lab(const bg_lab *lab, double R0, double phi);

/* Runs one scene to rest and measures its deposit; exits with a message if
 * the solver refuses (an experiment cannot go on without the run). */
bg_column_result bg_column_run(bg_lab *lab, const bg_column_scene *sc, const char *tag);

void bg_column_result_free(bg_column_result *r);

/* The text of everything a run of sc depends on (every field, the material's
 * parameters through the registry, the backend's name): a sweep's point key
 * (bg_lab_sweep_keys), so a run reuses another's simulation of the same
 * scene. Into buf (n bytes); exits if it does not fit. */
void bg_column_scene_key(const bg_column_scene *sc, char *buf, size_t n);

/* A result into a sweep point's blob and back (bg_lab_sweep): every field,
 * so the gathered analysis reads exactly what the point measured. */
void bg_column_result_pack(const bg_column_result *r, bg_lab_blob *b);
bg_column_result bg_column_result_unpack(bg_lab_blob *b);
/* The same, for a blob that carries more after the result (read it next). */
bg_column_result bg_column_result_unpack_part(bg_lab_blob *b);

/* Writes a result's radial profile as TSV (r, h, r/R0, h/H0). */
void bg_column_write_profile(bg_lab *lab, const bg_column_result *r, const bg_column_scene *sc,
                             const char *file, const char *comment);

#endif /* BG_COLUMN_H */
