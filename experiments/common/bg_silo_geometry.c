/* bg_silo_geometry.c: a silo's grid and floor (analytic or from a mesh), and
 * the aperture the simulation was fed, read back through the public API. */
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdlib.h>

#include "bg_silo_internal.h"


/* The floor from the scene's mesh: its signed distance on the grid's
 * nodes, taken in the mesh's units (grid scaled by 1 / D about the aperture
 * centre) and scaled back by D; free hole nodes counted as fed_aperture
 * counts them (phi >= 0 on the node plane under z = 0, inside the silo). */
static void mesh_floor(bg_lab *lab, const bg_silo_scene *sc, grid_geo *g, int64_t nx, int64_t ny,
                       int64_t nz) {
  const bg_sim_desc *d = &g->desc;
  double dx = sc->dx, D = sc->D_cells * dx, lo[3], hi[3];
  double shift[3] = {g->xc, sc->round ? g->xc : 0.0, 0.0}, o[3];
  for (int a = 0; a < 3; ++a) o[a] = (d->origin[a] - shift[a]) / D;
  bg_mesh_bounds(sc->floor_mesh, lo, hi);
  double reach[2] = {(double)(nx - 1) * dx / D, (double)(ny - 1) * dx / D};
  for (int a = 0; a < 2; ++a)
    if (lo[a] > o[a] || hi[a] < o[a] + reach[a])
      bg_lab_fail(
          "the floor mesh spans %c in [%g, %g] orifice diameters; the grid at D = %.3f mm needs "
          "[%g, %g]",
          "xy"[a], lo[a], hi[a], D * 1e3, o[a], o[a] + reach[a]);
  size_t dims[3] = {(size_t)nx, (size_t)ny, (size_t)nz};
  char err[512];
  if (bg_mesh_sdf_grid(sc->floor_mesh, dims, dx / D, o, g->phi, dims[0] * dims[1] * dims[2], err,
                       sizeof err) != BG_OK)
    bg_lab_fail("the floor mesh's distance field: %s", err);
  int64_t kt = 2 + 3 + sc->gap_cells + sc->floor_cells - 1;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j) {
      size_t n = (size_t)((i * ny + j) * nz + kt);
      double x = d->origin[0] + (double)i * dx, y = d->origin[1] + (double)j * dx;
      int inside =
          sc->round ? hypot(x, y) < 0.5 * g->L : (fabs(x) < 0.5 * g->L && y > 0 && y < g->T);
      if (inside && g->phi[n] >= 0) g->n_free++;
    }
  /* the same solid as the analytic floor? its sign at every node, and the
   * two fields' largest difference in the solid and over the grid (the
   * analytic max() is no exact distance off the orifice's edges) */
  long sign_diff = 0;
  double dmax_solid = 0, dmax = 0, t = sc->floor_cells * dx, R = 0.5 * D;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) {
        size_t n = (size_t)((i * ny + j) * nz + k);
        g->phi[n] = (bg_real)(g->phi[n] * D);
        double x = d->origin[0] + (double)i * dx, y = d->origin[1] + (double)j * dx,
               z = d->origin[2] + (double)k * dx;
        double rho = sc->round ? hypot(x - g->xc, y - g->xc) : fabs(x - g->xc);
        double ref = (bg_real)fmax(fabs(z + 0.5 * t) - 0.5 * t, R - rho),
               diff = fabs(g->phi[n] - ref);
        if ((g->phi[n] < 0) != (ref < 0)) sign_diff++;
        dmax = fmax(dmax, diff);
        if (ref < 0) dmax_solid = fmax(dmax_solid, diff);
      }
  bg_lab_progress(
      lab,
      "floor mesh at D = %.3f mm against the analytic floor: sign differs at %ld of %lld nodes; "
      "max |phi difference| %.3g cells in the solid, %.3g cells over the grid",
      D * 1e3, sign_diff, (long long)(nx * ny * nz), dmax_solid / dx, dmax / dx);
}

void bg_silo_build_geometry(bg_lab *lab, const bg_silo_scene *sc, grid_geo *g) {
  double dx = sc->dx;
  int Lc = sc->silo_cells;
  g->L = Lc * dx;
  g->H = sc->hr * 0.5 * g->L;
  g->T = sc->slab_cells * dx;
  bg_sim_desc *d = &g->desc;
  *d = bg_sim_desc_default();
  d->material = sc->material;
  d->dx = (bg_real)dx;
  /* below the floor: 2 face layers, 3 sink cells for the stencil, the gap, the floor */
  int kf = 2 + 3 + sc->gap_cells + sc->floor_cells;
  int ktop = (int)ceil(g->H * 1.08 / dx) + 4;
  d->dims[2] = (size_t)(kf + ktop);
  /* floor top z = 0 midway between node planes kf-1 and kf */
  d->origin[2] = (bg_real)(-(kf - 0.5) * dx);
  /* the aperture centre sits on a node for an odd cell count, midway for an
   * even one, so the hole holds the nominal number of node columns */
  int nD = (int)lround(sc->D_cells);
  if (!sc->round) {
    d->dims[0] = (size_t)Lc + 4; /* x faces are the walls, midway between nodes 1 and 2 */
    d->dims[1] = (size_t)sc->slab_cells + 4;
    d->origin[0] = (bg_real)(-0.5 * g->L - 1.5 * dx);
    d->origin[1] = (bg_real)(-1.5 * dx);
    /* nodes lie at x = (i - Lc/2 - 1.5) dx: half-integer multiples of dx for even Lc */
    double node_off = fmod(0.5 * Lc + 1.5, 1.0); /* 0.5 for even Lc */
    g->xc = (nD % 2 == 1) == (node_off > 0.25) ? 0.5 * dx : 0.0;
    d->walls[BG_FACE_XLO].friction = d->walls[BG_FACE_XHI].friction = BG_FRICTION_COULOMB;
    d->walls[BG_FACE_XLO].mu = d->walls[BG_FACE_XHI].mu = (bg_real)sc->mu_wall;
  } else {
    d->dims[0] = d->dims[1] = (size_t)Lc + 6;
    /* nodes at (i - (Lc + 6)/2 + 0.5) dx for even Lc + 6: axis midway (even D) or shifted */
    d->origin[0] = d->origin[1] = (bg_real)(-(0.5 * (Lc + 5)) * dx);
    g->xc = (nD % 2 == 1) ? 0.5 * dx : 0.0;
  }
  d->walls[BG_FACE_ZLO].friction = BG_FRICTION_SLIP;
  d->backend = sc->backend;
  d->threads = sc->threads;
  int64_t nx = (int64_t)d->dims[0], ny = (int64_t)d->dims[1], nz = (int64_t)d->dims[2];
  g->phi = malloc((size_t)(nx * ny * nz) * sizeof *g->phi);
  if (!g->phi) {
    bg_lab_fail("out of memory for the floor field");
  }
  double t = sc->floor_cells * dx, R = 0.5 * sc->D_cells * dx;
  g->n_free = 0;
  if (sc->floor_mesh) {
    mesh_floor(lab, sc, g, nx, ny, nz);
    g->z_sink = -(sc->floor_cells + sc->gap_cells) * dx;
    return;
  }
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t k = 0; k < nz; ++k) {
        double x = d->origin[0] + (double)i * dx, y = d->origin[1] + (double)j * dx,
               z = d->origin[2] + (double)k * dx;
        double rho = sc->round ? hypot(x - g->xc, y - g->xc) : fabs(x - g->xc);
        double slab = fabs(z + 0.5 * t) - 0.5 * t;
        double phi = fmax(slab, R - rho);
        g->phi[(i * ny + j) * nz + k] = (bg_real)phi;
        /* the floor plane just under z = 0: count hole nodes inside the silo */
        if (k == (int64_t)(2 + 3 + sc->gap_cells + sc->floor_cells) - 1 && slab < 0 && rho < R) {
          int inside = sc->round ? hypot(x, y) < 0.5 * g->L : (fabs(x) < 0.5 * g->L && y > 0 && y < g->T);
          if (inside) g->n_free++;
        }
      }
  g->z_sink = -(sc->floor_cells + sc->gap_cells) * dx;
}

/* The aperture the simulation was fed, read back through the public API:
 * bg_sim_describe's grid (dx, origin, dims), its copy of the floor's node
 * field (the BG_SHAPE_NODES collider) and the silo wall as it holds it (the
 * inverted cylinder's centre and radius; the slot's walls are the x domain
 * faces, the slab the y faces, each face's plane 1.5 cells inside its outer
 * node). Free nodes (phi >= 0: walls act on phi < 0) of the node plane just
 * under the floor's top z = 0, inside the silo, counted: slot N dx per slab
 * node row, round sqrt(4 N dx^2 / pi). Also returns the fed dx and rho0. */
double bg_silo_fed_aperture(const bg_sim *sim, int round, double *dx_out, double *rho0_out) {
  bg_sim_desc d;
  if (bg_sim_describe(sim, &d) != BG_OK) bg_lab_fail("bg_sim_describe: %s", bg_sim_last_error(sim));
  const bg_collider *floor_c = NULL, *wall = NULL;
  for (size_t c = 0; c < d.n_colliders; ++c) {
    if (d.colliders[c].shape == BG_SHAPE_NODES) floor_c = &d.colliders[c];
    if (d.colliders[c].shape == BG_SHAPE_CYLINDER && d.colliders[c].invert) wall = &d.colliders[c];
  }
  if (!floor_c || !floor_c->phi || (round && !wall))
    bg_lab_fail("the simulation holds no floor node field%s", round ? " or no silo wall" : "");
  double dx = d.dx;
  int64_t nx = (int64_t)d.dims[0], ny = (int64_t)d.dims[1], nz = (int64_t)d.dims[2];
  int64_t kt = (int64_t)ceil(-d.origin[2] / dx - 1e-6) - 1; /* the node plane in (-dx, 0) */
  if (kt < 0 || kt >= nz) bg_lab_fail("the floor's top plane z = 0 lies outside the grid");
  double xlo = d.origin[0] + 1.5 * dx, xhi = d.origin[0] + (double)(nx - 2.5) * dx;
  double ylo = d.origin[1] + 1.5 * dx, yhi = d.origin[1] + (double)(ny - 2.5) * dx;
  long nfree = 0, rows = 0;
  for (int64_t j = 0; j < ny; ++j) {
    double y = d.origin[1] + (double)j * dx;
    if (!round && y > ylo && y < yhi) rows++;
    for (int64_t i = 0; i < nx; ++i) {
      double x = d.origin[0] + (double)i * dx;
      int inside = round ? hypot(x - wall->center[0], y - wall->center[1]) < wall->radius
                         : (x > xlo && x < xhi && y > ylo && y < yhi);
      if (inside && floor_c->phi[(i * ny + j) * nz + kt] >= 0) nfree++;
    }
  }
  *dx_out = dx;
  *rho0_out = d.material.rho0;
  return round ? sqrt(4.0 * (double)nfree * dx * dx / M_PI) : (rows ? (double)nfree / (double)rows * dx : NAN);
}

