/* test_2d.c: the plane-strain (dim 2) solver on one backend (argv[1]):
 *   1. the descriptor and particle checks of a 2D simulation, and a 2D
 *      checkpoint that a 3D simulation refuses;
 *   2. free fall of a block at a fixed dt: the symplectic Euler closed form
 *      v = -g N dt, z = z0 - g dt^2 N (N + 1) / 2, with v_y and y exactly
 *      unchanged, and the mass per metre of depth rho0 dx^2 / ppc each;
 *   3. an elastic column standing on a slip floor with free sides, settled
 *      by grid damping: sigma_zz = -rho0 g (H - Z), sigma_xx = 0, the
 *      plane-strain out-of-plane stress sigma_yy = nu (sigma_xx + sigma_zz)
 *      and a shortening (1 - nu^2) / E rho0 g integral of (H - Z) between two
 *      layers (a column free in y too would shorten by 1 / E, 10% more);
 *   4. parity with the 3D slab between slip (mirror) faces: one sand column
 *      collapse (Drucker-Prager) in 2D and as a slab two cells thick, at dx
 *      and, for the slab, at dx / 2: the 2D runout and deposit profile
 *      differ from the slab's at dx by no more than the slab's own change
 *      from dx to dx / 2 (its dx error).
 * Measured numbers are printed next to each check. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"

static const char *g_backend = "cpu/ref";

/* Lattice particles, per cell edge k per axis (centred in sub-cells), of
 * the box lo + [0, n[a] dx) per axis; ny 0 puts every particle on y = lo[1]
 * (a 2D simulation's plane). */
static bg_real *lattice(const double lo[3], const int nc[3], double dx, int k, size_t *n_out) {
  const int per[3] = {k * nc[0], nc[1] ? k * nc[1] : 1, k * nc[2]};
  size_t n = (size_t)per[0] * (size_t)per[1] * (size_t)per[2];
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) return NULL;
  size_t p = 0;
  for (int i = 0; i < per[0]; ++i)
    for (int j = 0; j < per[1]; ++j)
      for (int l = 0; l < per[2]; ++l) {
        const int ijk[3] = {i, j, l};
        for (int a = 0; a < 3; ++a)
          x[3 * p + a] =
              (a == 1 && !nc[1]) ? (bg_real)lo[1] : (bg_real)(lo[a] + (ijk[a] + 0.5) * dx / k);
        p++;
      }
  *n_out = n;
  return x;
}

static bg_sim_desc desc_2d(double dx, size_t nx, size_t nz) {
  bg_sim_desc d = bg_sim_desc_default();
  d.backend = g_backend;
  d.dim = 2;
  d.dims[0] = nx;
  d.dims[1] = 1;
  d.dims[2] = nz;
  d.dx = (bg_real)dx;
  return d;
}

static bg_sim *create(const bg_sim_desc *d, const char *what) {
  char err[512];
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(d, &sim, err, sizeof err);
  bg_check_true(s == BG_OK, "%s: bg_sim_create (%s%s%s)", what, bg_status_name(s),
                s == BG_OK ? "" : ": ", s == BG_OK ? "" : err);
  return s == BG_OK ? sim : NULL;
}

/* ------------------------------------------------------------ validation */

static int refused(const bg_sim_desc *d, bg_status want, const char *needle) {
  char err[512] = "";
  bg_sim *sim = NULL;
  bg_status s = bg_sim_create(d, &sim, err, sizeof err);
  bg_sim_destroy(sim);
  return s == want && strstr(err, needle) != NULL;
}

static void test_validation(void) {
  printf("\n== 2D descriptor and particle checks ==\n");
  bg_sim_desc d = desc_2d(0.01, 16, 16);
  d.dims[1] = 4;
  bg_check_true(refused(&d, BG_ERR_RANGE, "dims[1] must be 1"),
                "dim 2 with dims[1] = 4 is refused");
  d = desc_2d(0.01, 16, 16);
  d.dim = 1;
  bg_check_true(refused(&d, BG_ERR_RANGE, "dim must be 2"), "dim 1 is refused");
  d = desc_2d(0.01, 16, 16);
  d.gravity[1] = -1;
  bg_check_true(refused(&d, BG_ERR_RANGE, "gravity[1]"), "gravity out of the plane is refused");
  d = bg_sim_desc_default();
  d.dims[1] = 1;
  bg_check_true(refused(&d, BG_ERR_RANGE, "dims[1] must be >= 4"),
                "3D with dims[1] = 1 is still refused");

  d = desc_2d(0.01, 16, 16);
  bg_sim *sim = create(&d, "validation");
  if (!sim) return;
  bg_sim_desc got;
  bg_sim_describe(sim, &got);
  bg_check_true(got.dim == 2 && got.dims[1] == 1, "describe reports dim 2 and dims[1] = 1");
  bg_real x[6] = {0.05f, 0.0f, 0.05f, 0.06f, 0.001f, 0.05f}, v[6] = {0, 0, 0, 0, 0, 0};
  bg_status s = bg_sim_add_particles(sim, 2, x, v, 4);
  bg_check_true(s == BG_ERR_OUTSIDE && strstr(bg_sim_last_error(sim), "particle 1"),
                "a particle off the plane y = origin[1] is refused, naming it (%s)",
                bg_sim_last_error(sim));
  x[4] = 0;
  v[1] = 0.5f;
  s = bg_sim_add_particles(sim, 2, x, v, 4);
  bg_check_true(s == BG_ERR_RANGE && strstr(bg_sim_last_error(sim), "particle 0"),
                "a particle with v_y != 0 is refused, naming it (%s)", bg_sim_last_error(sim));
  v[1] = 0;
  s = bg_sim_add_particles(sim, 2, x, v, 4);
  bg_check_true(s == BG_OK, "two particles on the plane are accepted");
  bg_real vset[6] = {0.1f, 0.2f, 0, 0, 0, 0};
  s = bg_sim_set(sim, BG_FIELD_V, vset, 6);
  bg_check_true(s == BG_ERR_RANGE && strstr(bg_sim_last_error(sim), "v[1]"),
                "bg_sim_set refuses v_y != 0 (%s)", bg_sim_last_error(sim));
  bg_real fset[18] = {1, 0.01f, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  s = bg_sim_set(sim, BG_FIELD_F, fset, 18);
  bg_check_true(s == BG_ERR_RANGE && strstr(bg_sim_last_error(sim), "plane strain"),
                "bg_sim_set refuses an F off the plane-strain blocks (%s)", bg_sim_last_error(sim));
  bg_real m[2];
  bg_sim_get(sim, BG_FIELD_MASS, m, 2);
  bg_check_rel(m[0], 2200.0 * 0.01 * 0.01 / 4, 1e-6, "mass per metre of depth rho0 dx^2 / ppc");
  /* one file per process: ctest runs this test for several backends at once in one folder */
  char path[64];
  snprintf(path, sizeof path, "test_2d_%ld.bgck", (long)getpid());
  s = bg_sim_save(sim, path, NULL, 0);
  bg_check_true(s == BG_OK, "a 2D simulation saves a checkpoint");
  char err[512] = "";
  bg_sim *back = NULL;
  s = bg_sim_load(path, g_backend, 0, &back, err, sizeof err);
  bg_sim_desc bd;
  if (s == BG_OK) bg_sim_describe(back, &bd);
  bg_check_true(s == BG_OK && bd.dim == 2, "the checkpoint loads as a 2D simulation (%s)", err);
  bg_sim_destroy(back);
  bg_sim_desc d3 = bg_sim_desc_default();
  d3.backend = g_backend;
  d3.dims[0] = d3.dims[2] = 16;
  d3.dims[1] = 4;
  bg_sim *sim3 = create(&d3, "3D for restore");
  if (sim3) {
    s = bg_sim_restore(sim3, path, NULL, 0, NULL);
    bg_check_true(s == BG_ERR_MISMATCH && strstr(bg_sim_last_error(sim3), "dim"),
                  "a 3D simulation refuses the 2D checkpoint (%s)", bg_sim_last_error(sim3));
  }
  bg_sim_destroy(sim3);
  bg_sim_destroy(sim);
  remove(path);
}

/* --------------------------------------------------------------- free fall */

static void test_free_fall(void) {
  printf("\n== free fall of a block ==\n");
  const double dx = 0.01, g = 9.81, dt = 1e-4;
  const int steps = 1000; /* 0.1 s: the block falls 4.9 cm, below the velocity CFL bound */
  bg_sim_desc d = desc_2d(dx, 24, 40);
  d.fixed_dt = (bg_real)dt;
  bg_sim *sim = create(&d, "free fall");
  if (!sim) return;
  const double lo[3] = {0.07, 0.0, 0.25};
  const int nc[3] = {8, 0, 6};
  size_t n;
  bg_real *x = lattice(lo, nc, dx, 2, &n);
  bg_status s = bg_sim_add_particles(sim, n, x, NULL, 4);
  for (int i = 0; s == BG_OK && i < steps; ++i) s = bg_sim_step(sim, NULL);
  bg_check_true(s == BG_OK, "free fall: %d steps (%s)", steps, bg_sim_last_error(sim));
  bg_real *x1 = malloc(3 * n * sizeof *x1), *v1 = malloc(3 * n * sizeof *v1),
          *m = malloc(n * sizeof *m);
  bg_sim_get(sim, BG_FIELD_X, x1, 3 * n);
  bg_sim_get(sim, BG_FIELD_V, v1, 3 * n);
  bg_sim_get(sim, BG_FIELD_MASS, m, n);
  const double vz = -g * steps * dt, dz = -g * dt * dt * steps * (steps + 1) / 2;
  double e_v = 0, e_z = 0, e_x = 0, y_off = 0, vy = 0, mass = 0;
  for (size_t p = 0; p < n; ++p) {
    e_v = fmax(e_v, fabs(v1[3 * p + 2] - vz));
    e_z = fmax(e_z, fabs(x1[3 * p + 2] - (x[3 * p + 2] + dz)));
    e_x = fmax(e_x, fabs(x1[3 * p] - x[3 * p]));
    y_off = fmax(y_off, fabs(x1[3 * p + 1]));
    vy = fmax(vy, fabs(v1[3 * p + 1]));
    mass += m[p];
  }
  printf(
      "free fall: %zu particles, %d steps: max |v_z - closed form| %.3g m/s, max |dz - closed "
      "form| %.3g m\n",
      n, steps, e_v, e_z);
  bg_check_le(e_v, 1e-4 * fabs(vz), "free fall: v_z = -g N dt (float rounding)");
  bg_check_le(e_z, 1e-4 * fabs(dz) + 1e-6, "free fall: z = z0 - g dt^2 N (N + 1) / 2");
  bg_check_le(e_x, 1e-6, "free fall: x unchanged");
  bg_check_true(y_off == 0 && vy == 0,
                "free fall: every particle stays on the plane with v_y = 0 exactly");
  bg_check_rel(mass, 2200.0 * (nc[0] * dx) * (nc[2] * dx), 1e-5,
               "free fall: total mass = rho0 x area (kg/m)");
  free(x);
  free(x1);
  free(v1);
  free(m);
  bg_sim_destroy(sim);
}

/* ------------------------------------------------------------------ column */

/* A column W x H of elastic sand (Klar's constants) on a slip floor with
 * free sides, settled under gravity by grid damping (the state at rest does
 * not depend on the damping). The floor face's plane lies 1.5 cells above
 * node 0; the column's base starts on the last solid node (bg_wall_edge_
 * offset), where the loaded wall acts. Layers are particle rows by
 * reference height Z. */
static void test_column(void) {
  printf("\n== elastic column under gravity, plane strain ==\n");
  const double dx = 0.01, W = 0.10, H = 0.20, g = 9.81;
  bg_material mat = bg_material_sand();
  mat.elastic_only = 1;
  const double E = mat.E, nu = mat.nu, rho = mat.rho0;
  bg_sim_desc d = desc_2d(dx, 28, 28);
  d.material = mat;
  d.damping = 80; /* about critical for the fundamental, 2 pi / (4 H / c) */
  bg_sim *sim = create(&d, "column");
  if (!sim) return;
  const double z0 = (1.5 + bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5)) * dx;
  const double lo[3] = {0.14 - W / 2, 0.0, z0};
  const int nc[3] = {(int)lround(W / dx), 0, (int)lround(H / dx)};
  size_t n;
  bg_real *X = lattice(lo, nc, dx, 2, &n);
  bg_status s = bg_sim_add_particles(sim, n, X, NULL, 4);
  if (s == BG_OK) s = bg_sim_advance_to(sim, 0.5);
  bg_check_true(s == BG_OK, "column: settles to t = 0.5 s (%s)", bg_sim_last_error(sim));
  bg_real *x = malloc(3 * n * sizeof *x), *sg = malloc(9 * n * sizeof *sg);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_sim_get(sim, BG_FIELD_STRESS, sg, 9 * n);
  /* per layer of the interior (not the outer particle column of each side,
   * where the free surface cuts the stencil): mean sigma_zz, sigma_xx,
   * sigma_yy and z */
  const int nl = 2 * nc[2], ncol = 2 * nc[0];
  double *szz = calloc((size_t)nl, sizeof *szz), *sxx = calloc((size_t)nl, sizeof *sxx),
         *syy = calloc((size_t)nl, sizeof *syy), *zl = calloc((size_t)nl, sizeof *zl);
  int *cnt = calloc((size_t)nl, sizeof *cnt);
  for (size_t p = 0; p < n; ++p) {
    const int col = (int)(p / (size_t)nl), lay = (int)(p % (size_t)nl);
    zl[lay] += x[3 * p + 2] / ncol;
    if (col < 2 || col >= ncol - 2) continue;
    szz[lay] += sg[9 * p + 8];
    sxx[lay] += sg[9 * p + 0];
    syy[lay] += sg[9 * p + 4];
    cnt[lay]++;
  }
  const double scale = rho * g * H;
  double e_zz = 0, e_xx = 0, e_yy = 0;
  for (int l = 2; l < nl - 2; ++l) { /* layers clear of the floor's and the top's stencils */
    const double Z = (l + 0.5) * dx / 2, want = -rho * g * (H - Z);
    szz[l] /= cnt[l];
    sxx[l] /= cnt[l];
    syy[l] /= cnt[l];
    e_zz = fmax(e_zz, fabs(szz[l] - want) / scale);
    e_xx = fmax(e_xx, fabs(sxx[l]) / scale);
    e_yy = fmax(e_yy, fabs(syy[l] - nu * (sxx[l] + szz[l])) / scale);
  }
  /* the shortening between layer 2 and layer nl - 3 (reference heights Z_a, Z_b) */
  const double Za = 2.5 * dx / 2, Zb = (nl - 2.5) * dx / 2;
  const double shorten = (Zb - Za) - (zl[nl - 3] - zl[2]);
  const double want = (1 - nu * nu) / E * rho * g * ((H * (Zb - Za)) - (Zb * Zb - Za * Za) / 2);
  printf(
      "column: %zu particles; interior layers: max |sigma_zz + rho g (H - Z)|, |sigma_xx|, "
      "|sigma_yy - nu (sigma_xx + sigma_zz)| = %.4f, %.4f, %.4f of rho g H; shortening %.4g m "
      "(plane strain %.4g m, free in y %.4g m)\n",
      n, e_zz, e_xx, e_yy, shorten, want, want / (1 - nu * nu));
  bg_check_le(e_zz, 0.05, "column: sigma_zz = -rho0 g (H - Z) within 5%% of rho0 g H");
  bg_check_le(e_xx, 0.05, "column: free sides, sigma_xx = 0 within 5%% of rho0 g H");
  bg_check_le(e_yy, 0.02,
              "column: plane strain, sigma_yy = nu (sigma_xx + sigma_zz) within 2%% of rho0 g H");
  bg_check_rel(
      shorten, want, 0.03,
      "column: shortening between layers 2 and %d = (1 - nu^2) / E rho0 g int (H - Z) dZ (3%%; "
      "free in y would be 10%% more)",
      nl - 3);
  free(X);
  free(x);
  free(sg);
  free(szz);
  free(sxx);
  free(syy);
  free(zl);
  free(cnt);
  bg_sim_destroy(sim);
}

/* ------------------------------------------------------------ slab parity */

/* A square column of Klar's sand (Drucker-Prager, 35 deg) W = H = 10 cm
 * against the slip face -x, collapsing on a Coulomb floor (mu 0.5) until
 * t = 0.6 s, when it has stopped. In 2D, or as a 3D slab two cells thick
 * whose slip y faces are the mirror planes: the material fills the slab's
 * whole interior [0.5, ny - 1.5] dx, so the faces carry it as a mirror
 * would. Results per metre do not depend on the thickness. */
#define SLAB_BINS 12 /* profile bins, 2 cm wide, from x = 0.5 dx */
typedef struct collapse_result {
  double runout;       /* the front: largest x of a particle, m */
  double h[SLAB_BINS]; /* deposit height: largest z of a particle in the bin, m (0: empty) */
  size_t n;
  int ok;
} collapse_result;

static collapse_result collapse(int dim, double dx) {
  collapse_result r;
  memset(&r, 0, sizeof r);
  const double W = 0.10, H = 0.10, L = 0.34;
  bg_sim_desc d = dim == 2 ? desc_2d(dx, 0, 0) : bg_sim_desc_default();
  d.backend = g_backend;
  d.dx = (bg_real)dx;
  d.dims[0] = (size_t)lround(L / dx) + 4;
  d.dims[1] = dim == 2 ? 1 : 4;
  d.dims[2] = (size_t)lround(0.12 / dx) + 4;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  bg_sim *sim = create(&d, dim == 2 ? "collapse 2D" : "collapse slab");
  if (!sim) return r;
  const double lo[3] = {0.5 * dx, dim == 2 ? 0.0 : 0.5 * dx, 0.5 * dx};
  const int nc[3] = {(int)lround(W / dx), dim == 2 ? 0 : 2, (int)lround(H / dx)};
  size_t n;
  bg_real *x = lattice(lo, nc, dx, 2, &n);
  bg_status s = bg_sim_add_particles(sim, n, x, NULL, dim == 2 ? 4 : 8);
  if (s == BG_OK) s = bg_sim_advance_to(sim, 0.6);
  bg_check_true(s == BG_OK, "collapse %s dx %g: runs to t = 0.6 s (%s)", dim == 2 ? "2D" : "slab",
                dx, bg_sim_last_error(sim));
  bg_real *a = malloc(n * sizeof *a);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_sim_get(sim, BG_FIELD_ACTIVE, a, n);
  int parked = 0;
  for (size_t p = 0; p < n; ++p) {
    if (a[p] == 0) parked++;
    const double px = x[3 * p] - 0.5 * dx, pz = x[3 * p + 2] - 0.5 * dx;
    if (px > r.runout) r.runout = px;
    const int b = (int)floor(px / 0.02);
    if (b >= 0 && b < SLAB_BINS && pz > r.h[b]) r.h[b] = pz;
  }
  r.n = n;
  r.ok = s == BG_OK && parked == 0;
  free(a);
  free(x);
  bg_sim_destroy(sim);
  return r;
}

static double profile_gap(const collapse_result *a, const collapse_result *b) {
  double m = 0;
  for (int k = 0; k < SLAB_BINS; ++k) m = fmax(m, fabs(a->h[k] - b->h[k]));
  return m;
}

static void test_slab_parity(void) {
  printf("\n== parity with the 3D slab between mirror planes ==\n");
  const double dx = 0.01;
  collapse_result s1 = collapse(3, dx), s2 = collapse(3, dx / 2), p1 = collapse(2, dx),
                  p2 = collapse(2, dx / 2);
  const char *names[4] = {"slab dx", "slab dx/2", "2D dx", "2D dx/2"};
  const collapse_result *all[4] = {&s1, &s2, &p1, &p2};
  for (int i = 0; i < 4; ++i) {
    printf("collapse %-9s: %6zu particles, runout %.4f m, profile", names[i], all[i]->n,
           all[i]->runout);
    for (int k = 0; k < SLAB_BINS; ++k) printf(" %.4f", all[i]->h[k]);
    printf("\n");
    bg_check_true(all[i]->ok, "collapse %s: runs, nothing parked", names[i]);
  }
  const double err_run = fabs(s1.runout - s2.runout), err_prof = profile_gap(&s1, &s2);
  printf(
      "slab dx error (dx vs dx/2): runout %.4f m, profile %.4f m; 2D vs slab at dx: runout %.4f m, "
      "profile %.4f m; at dx/2: runout %.4f m, profile %.4f m\n",
      err_run, err_prof, fabs(p1.runout - s1.runout), profile_gap(&p1, &s1),
      fabs(p2.runout - s2.runout), profile_gap(&p2, &s2));
  bg_check_le(fabs(p1.runout - s1.runout), err_run,
              "parity: |runout 2D - slab| at dx within the slab's dx error");
  bg_check_le(profile_gap(&p1, &s1), err_prof,
              "parity: max |deposit height 2D - slab| at dx within the slab's dx error");
}

/* test_2d BACKEND [parity]: the unit checks, or with "parity" the slab
 * parity alone (four collapses, the costly part: ctest runs it as its own
 * test, outside the unit label the sanitizer build runs) */
int main(int argc, char **argv) {
  if (argc > 1) g_backend = argv[1];
  int parity = argc > 2 && !strcmp(argv[2], "parity");
  if (argc > 2 && !parity) {
    fprintf(stderr, "usage: test_2d BACKEND [parity]\n");
    return 2;
  }
  char why[256];
  if (!bg_backend_available(g_backend, why, sizeof why)) {
    printf("backend %s not available: %s\n", g_backend, why);
    return BG_CHECK_SKIP;
  }
  printf("test_2d%s on %s\n", parity ? " parity" : "", g_backend);
  if (parity) {
    test_slab_parity();
  } else {
    test_validation();
    test_free_fall();
    test_column();
  }
  return bg_check_summary();
}
