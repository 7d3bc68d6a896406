/* test_multi.c: several materials in one simulation (bg_sim_desc.materials,
 * an index per particle) on one backend (argv[1]):
 *  - the table's checks: each entry named materials[k] in the message, the
 *    size limit, a NULL table, an index outside it;
 *  - mass per material (rho0 of the particle's entry times its volume), the
 *    index, density and Jp read back per particle, the table described;
 *  - the CFL bound from the table's fastest wave, the nonlocal bound the
 *    smallest over it;
 *  - a table of one runs bit for bit as no table, and a table of two equal
 *    entries with the particles split between them bit for bit as one
 *    material (a grouped update changes no particle's result);
 *  - a checkpoint of two materials saved, loaded and continued;
 *  - the geostatic stress over a table of two elastic laws. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"

static const char *backend;

static bg_sim_desc desc(void) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = 20;
  d.dims[2] = 16;
  d.dx = 0.01f;
  d.backend = backend;
  d.threads = 2;
  d.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  d.walls[BG_FACE_ZLO].mu = 0.5f;
  return d;
}

/* A block of 2 particles per cell and axis in [lo, lo + 8 cells)^2 x [z0, z0 + 6 cells). */
static size_t block(bg_real *x, double lo, double z0) {
  size_t n = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 12; ++k) {
        x[3 * n] = (bg_real)(lo + 0.005 * (i + 0.5));
        x[3 * n + 1] = (bg_real)(lo + 0.005 * (j + 0.5));
        x[3 * n + 2] = (bg_real)(z0 + 0.005 * (k + 0.5));
        n++;
      }
  return n;
}

#define NB (16 * 16 * 12)

static bg_status create(const bg_sim_desc *d, bg_sim **sim, char *err) {
  return bg_sim_create(d, sim, err, 512);
}

static void check_validation(void) {
  char err[512];
  bg_sim *sim = NULL;
  bg_material t[3] = {bg_material_sand(), bg_material_mui(), bg_material_sand()};
  t[2].nu = 0.7f;
  bg_sim_desc d = desc();
  d.materials = t;
  d.n_materials = 3;
  bg_status s = create(&d, &sim, err);
  bg_check_true(s == BG_ERR_RANGE && sim == NULL && strstr(err, "materials[2].nu"),
                "a bad entry is named by its index (%s: %s)", bg_status_name(s), err);
  t[2] = bg_material_sand();
  t[1].mui.I0 = -1;
  s = create(&d, &sim, err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "materials[1].mui.I0"), "a model's own check names the entry (%s)",
                err);
  t[1] = bg_material_mui();
  t[0].rho0 = NAN;
  s = create(&d, &sim, err);
  bg_check_true(s == BG_ERR_NONFINITE && strstr(err, "materials[0].rho0"), "a non-finite entry (%s)", err);
  t[0] = bg_material_sand();
  d.materials = NULL;
  s = create(&d, &sim, err);
  bg_check_true(s == BG_ERR_NULL && strstr(err, "materials is NULL"), "a NULL table with n_materials > 0 (%s)", err);
  bg_material *big = malloc((BG_MAX_MATERIALS + 1) * sizeof *big);
  for (int k = 0; k <= BG_MAX_MATERIALS; ++k) big[k] = bg_material_sand();
  d.materials = big;
  d.n_materials = BG_MAX_MATERIALS + 1;
  s = create(&d, &sim, err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "n_materials"), "more than BG_MAX_MATERIALS entries (%s)", err);
  d.n_materials = BG_MAX_MATERIALS;
  s = create(&d, &sim, err);
  bg_check_true(s == BG_OK, "a table of BG_MAX_MATERIALS = %d entries (%s)", BG_MAX_MATERIALS, err);
  if (sim) {
    bg_real x[3] = {0.1f, 0.1f, 0.05f};
    bg_check_true(bg_sim_add_particles_material(sim, 1, x, NULL, 8, BG_MAX_MATERIALS - 1) == BG_OK,
                  "a particle of the last entry (%s)", bg_sim_last_error(sim));
    bg_check_true(bg_sim_run(sim, 2) == BG_OK, "steps with the last entry (%s)", bg_sim_last_error(sim));
    bg_real m = -1;
    bg_sim_get(sim, BG_FIELD_MATERIAL, &m, 1);
    bg_check_abs(m, BG_MAX_MATERIALS - 1, 0, "the index of the last entry reads back");
  }
  bg_sim_destroy(sim);
  free(big);
}

static void check_particles(void) {
  char err[512];
  bg_sim *sim = NULL;
  bg_material t[2] = {bg_material_sand(), bg_material_default(BG_MODEL_MUI)};
  t[0].rho0 = 1500;
  t[1].rho0 = 2600;
  t[1].E = 4 * t[0].E; /* the faster wave is entry 1's */
  bg_sim_desc d = desc();
  d.materials = t;
  d.n_materials = 2;
  if (!bg_check_true(create(&d, &sim, err) == BG_OK, "a table of two (%s)", err)) return;
  static bg_real x[3 * 2 * NB];
  size_t n0 = block(x, 0.02, 0.03), n1 = block(x + 3 * n0, 0.10, 0.03);
  bg_real x1[3] = {0.1f, 0.1f, 0.05f};
  bg_status s = bg_sim_add_particles_material(sim, 1, x1, NULL, 8, 2);
  bg_check_true(s == BG_ERR_RANGE && strstr(bg_sim_last_error(sim), "material = 2"), "index 2 of a table of two (%s)",
                bg_sim_last_error(sim));
  s = bg_sim_add_particles_material(sim, 1, x1, NULL, 8, -1);
  bg_check_true(s == BG_ERR_RANGE, "index -1 (%s)", bg_sim_last_error(sim));
  bg_check_true(bg_sim_add_particles(sim, n0, x, NULL, 8) == BG_OK, "entry 0 by bg_sim_add_particles");
  bg_real *vol = malloc(n1 * sizeof *vol);
  for (size_t p = 0; p < n1; ++p) vol[p] = 1e-6f / 8;
  bg_check_true(bg_sim_add_particles_volume_material(sim, n1, x + 3 * n0, NULL, vol, 1) == BG_OK,
                "entry 1 by volume (%s)", bg_sim_last_error(sim));
  free(vol);
  size_t n = n0 + n1;
  bg_real *mass = malloc(n * sizeof *mass), *mat = malloc(n * sizeof *mat), *rho = malloc(n * sizeof *rho),
          *jp = malloc(n * sizeof *jp);
  bg_sim_get(sim, BG_FIELD_MASS, mass, n);
  bg_sim_get(sim, BG_FIELD_MATERIAL, mat, n);
  int ok = 1;
  for (size_t p = 0; p < n; ++p) {
    int k = p < n0 ? 0 : 1;
    ok &= mat[p] == (bg_real)k && mass[p] == t[k].rho0 * (bg_real)(1e-6 / 8);
  }
  bg_check_true(ok, "each particle's index and mass rho0[k] x volume read back");
  bg_stats st;
  bg_sim_stats(sim, &st);
  bg_check_rel(st.total_mass, (1500.0 * n0 + 2600.0 * n1) * 1e-6 / 8, 1e-6, "total mass, kg");
  /* the CFL bound takes the fastest wave of the table */
  bg_real dt, bound;
  bg_sim_next_dt(sim, &dt, &bound);
  double c1 = bg_material_pwave_speed(&t[1]), c0 = bg_material_pwave_speed(&t[0]);
  bg_check_true(c1 > c0, "entry 1 has the faster wave (%g > %g m/s)", c1, c0);
  bg_check_rel(bound, 0.3 * 0.01 / c1, 1e-5, "the stable bound is cfl dx / c_p of the fastest entry, s");
  bg_sim_desc got;
  bg_sim_describe(sim, &got);
  bg_check_true(got.n_materials == 2 && got.materials && memcmp(got.materials, t, sizeof t) == 0 &&
                    memcmp(&got.material, &t[0], sizeof t[0]) == 0,
                "bg_sim_describe returns the table, material its entry 0");
  bg_check_true(bg_sim_run(sim, 20) == BG_OK, "20 steps (%s)", bg_sim_last_error(sim));
  bg_sim_get(sim, BG_FIELD_DENSITY, rho, n);
  bg_sim_get(sim, BG_FIELD_JP, jp, n);
  double worst = 0;
  for (size_t p = 0; p < n; ++p) {
    double r = rho[p] / t[p < n0 ? 0 : 1].rho0 - 1;
    if (fabs(r) > worst) worst = fabs(r);
  }
  bg_check_le(worst, 0.02, "each particle's density near its own rho0 after settling 20 steps (max |rho/rho0 - 1|)");
  free(mass);
  free(mat);
  free(rho);
  free(jp);
  bg_sim_destroy(sim);
  /* the nonlocal bound is the smallest over the table */
  bg_material u[2] = {bg_material_sand(), bg_material_default(BG_MODEL_NGF)};
  d.materials = u;
  bg_sim *a = NULL, *b = NULL;
  bg_sim_desc e = desc();
  e.material = u[1];
  if (create(&d, &a, err) == BG_OK && create(&e, &b, err) == BG_OK) {
    bg_real da, ba, db, bb;
    bg_sim_next_dt(a, &da, &ba);
    bg_sim_next_dt(b, &db, &bb);
    double cfl_a = 0.3 * 0.01 / bg_material_pwave_speed(&u[0]);
    bg_check_rel(ba, fmin(bb, cfl_a), 1e-6, "a sand + ngf table takes the smaller of ngf's bound and the CFL, s");
  }
  bg_sim_destroy(a);
  bg_sim_destroy(b);
}

/* Runs 40 steps of a block pair; the particles of the second block take
 * entry k2 of the descriptor's table (or the table is left out, k2 < 0). */
static bg_real *run_pair(const bg_sim_desc *d, int k2, size_t *n_out) {
  char err[512];
  bg_sim *sim = NULL;
  if (create(d, &sim, err) != BG_OK) {
    printf("create: %s\n", err);
    return NULL;
  }
  static bg_real x[3 * 2 * NB];
  size_t n0 = block(x, 0.02, 0.03), n1 = block(x + 3 * n0, 0.06, 0.06);
  bg_sim_add_particles(sim, n0, x, NULL, 8);
  if (k2 < 0) bg_sim_add_particles(sim, n1, x + 3 * n0, NULL, 8);
  else bg_sim_add_particles_material(sim, n1, x + 3 * n0, NULL, 8, k2);
  bg_sim_run(sim, 40);
  size_t n = n0 + n1;
  bg_real *out = malloc((3 + 9 + 1) * n * sizeof *out);
  bg_sim_get(sim, BG_FIELD_X, out, 3 * n);
  bg_sim_get(sim, BG_FIELD_STRESS, out + 3 * n, 9 * n);
  bg_sim_get(sim, BG_FIELD_Q, out + 12 * n, n);
  bg_sim_destroy(sim);
  *n_out = 13 * n;
  return out;
}

static void check_identity(void) {
  size_t na = 0, nb = 0, nc = 0;
  bg_sim_desc d = desc();
  bg_real *a = run_pair(&d, -1, &na);
  bg_material one = bg_material_sand();
  d.materials = &one;
  d.n_materials = 1;
  bg_real *b = run_pair(&d, -1, &nb);
  bg_material two[2] = {bg_material_sand(), bg_material_sand()};
  d.materials = two;
  d.n_materials = 2;
  bg_real *c = run_pair(&d, 1, &nc);
  bg_check_true(a && b && na == nb && memcmp(a, b, na * sizeof *a) == 0,
                "a table of one runs bit for bit as no table (positions, stress, q after 40 steps)");
  bg_check_true(a && c && na == nc && memcmp(a, c, na * sizeof *a) == 0,
                "two equal entries, the particles split between them, run bit for bit as one material");
  free(a);
  free(b);
  free(c);
}

static void check_checkpoint(void) {
  char err[512], path[] = "/tmp/bg_multi_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  bg_material t[2] = {bg_material_sand(), bg_material_mui()};
  t[1].rho0 = 2600;
  bg_sim_desc d = desc();
  d.materials = t;
  d.n_materials = 2;
  bg_sim *a = NULL, *b = NULL, *c = NULL;
  if (!bg_check_true(create(&d, &a, err) == BG_OK, "create (%s)", err)) return;
  static bg_real x[3 * 2 * NB];
  size_t n0 = block(x, 0.02, 0.03), n1 = block(x + 3 * n0, 0.06, 0.06), n = n0 + n1;
  bg_sim_add_particles_material(a, n0, x, NULL, 8, 1);
  bg_sim_add_particles_material(a, n1, x + 3 * n0, NULL, 8, 0);
  bg_sim_run(a, 37);
  bg_check_true(bg_sim_save(a, path, NULL, 0) == BG_OK, "save two materials (%s)", bg_sim_last_error(a));
  bg_status s = bg_sim_load(path, backend, 2, &b, err, sizeof err);
  if (bg_check_true(s == BG_OK, "load it (%s)", err)) {
    bg_sim_desc g;
    bg_sim_describe(b, &g);
    bg_check_true(g.n_materials == 2 && memcmp(g.materials, t, sizeof t) == 0, "the table comes back");
    bg_sim_run(a, 23);
    bg_sim_run(b, 23);
    bg_real *fa = malloc(3 * n * sizeof *fa), *fb = malloc(3 * n * sizeof *fb);
    bg_real *ma = malloc(n * sizeof *ma), *mb = malloc(n * sizeof *mb);
    bg_sim_get(a, BG_FIELD_X, fa, 3 * n);
    bg_sim_get(b, BG_FIELD_X, fb, 3 * n);
    bg_sim_get(a, BG_FIELD_MASS, ma, n);
    bg_sim_get(b, BG_FIELD_MATERIAL, mb, n);
    int idx = 1;
    for (size_t p = 0; p < n; ++p) idx &= mb[p] == (p < n0 ? 1.0f : 0.0f);
    bg_check_true(idx, "every particle's index comes back");
    if (bg_backend_on_device(backend) == 0) {
      bg_check_true(memcmp(fa, fb, 3 * n * sizeof *fa) == 0, "loaded and continued 23 steps: positions bit for bit");
    } else {
      double e = 0;
      for (size_t i = 0; i < 3 * n; ++i) e = fmax(e, fabs((double)fa[i] - fb[i]));
      bg_check_le(e, 1e-5, "loaded and continued 23 steps: positions within 1e-5 m (device atomics)");
    }
    free(fa);
    free(fb);
    free(ma);
    free(mb);
    /* restore into a simulation of another table: refused, naming it */
    t[1].rho0 = 2500;
    if (create(&d, &c, err) == BG_OK) {
      s = bg_sim_restore(c, path, NULL, 0, NULL);
      bg_check_true(s == BG_ERR_MISMATCH && strstr(bg_sim_last_error(c), "materials[1]"),
                    "restore into another table: %s", bg_sim_last_error(c));
    }
  }
  bg_sim_destroy(a);
  bg_sim_destroy(b);
  bg_sim_destroy(c);
  remove(path);
}

/* bg_sim_set(BG_FIELD_F) caches the stress the next P2G scatters through
 * each particle's own model: water at J = 0.9 carries its Tait pressure,
 * not the sand's Hencky stress of that F. */
static void check_set_f_per_model(void) {
  int water = bg_material_model_from_name("water");
  if (water < 0) return;
  bg_sim_desc d = desc();
  bg_material t[2] = {bg_material_sand(), bg_material_default((bg_material_model)water)};
  d.materials = t;
  d.n_materials = 2;
  bg_sim *sim = NULL;
  char err[512];
  if (!bg_check_true(create(&d, &sim, err) == BG_OK, "sand + water (%s)", err)) return;
  bg_real x[6] = {0.08f, 0.08f, 0.06f, 0.12f, 0.12f, 0.06f};
  bg_check_true(bg_sim_add_particles_material(sim, 1, x, NULL, 8, 0) == BG_OK &&
                    bg_sim_add_particles_material(sim, 1, x + 3, NULL, 8, 1) == BG_OK,
                "one particle of each");
  const double s = cbrt(0.9);
  bg_real F[18] = {0};
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 3; ++i) F[9 * p + 4 * i] = (bg_real)s;
  bg_check_true(bg_sim_set(sim, BG_FIELD_F, F, 18) == BG_OK, "set F = 0.9^(1/3) I (%s)", bg_sim_last_error(sim));
  bg_real sig[18];
  bg_check_true(bg_sim_get(sim, BG_FIELD_STRESS, sig, 18) == BG_OK, "read the stress back");
  double k = t[1].water.bulk_modulus, g = t[1].water.gamma;
  double p_tait = k * (pow(1 / 0.9, g) - 1);
  bg_check_rel(-sig[9], p_tait, 1e-4, "water's stress after set F is minus its Tait pressure, Pa");
  double lam = t[0].E * t[0].nu / ((1 + t[0].nu) * (1 - 2 * t[0].nu)), mu = t[0].E / (2 * (1 + t[0].nu));
  double eps = log(s), sand = (3 * lam + 2 * mu) * eps / 0.9; /* Hencky Kirchhoff / J */
  bg_check_rel(sig[0], sand, 1e-4, "the sand particle keeps its Hencky stress, Pa");
  bg_sim_destroy(sim);
}

/* bg_sim_set_geostatic over a table: each particle's own rho0 and law; a
 * particle of the fixed corotated law may take zero stress (above the
 * surface) but not a load. */
static void check_geostatic(void) {
  char err[512];
  bg_material t[2] = {bg_material_sand(), bg_material_sand()};
  t[1].stress = BG_STRESS_FIXED_COROTATED;
  bg_sim_desc d = desc();
  d.materials = t;
  d.n_materials = 2;
  bg_sim *sim = NULL;
  if (!bg_check_true(create(&d, &sim, err) == BG_OK, "create (%s)", err)) return;
  static bg_real x[3 * 2 * NB];
  size_t n0 = block(x, 0.02, 0.03), n1 = block(x + 3 * n0, 0.10, 0.07);
  bg_status s = bg_sim_add_particles(sim, n0, x, NULL, 8);
  if (s == BG_OK) s = bg_sim_add_particles_material(sim, n1, x + 3 * n0, NULL, 8, 1);
  bg_check_true(s == BG_OK, "a Hencky block and a higher fixed corotated one (%s)", bg_sim_last_error(sim));
  s = bg_sim_set_geostatic(sim, 0.07, 0.5);
  bg_check_true(s == BG_OK, "geostatic with the fixed corotated entry above the surface (%s)", bg_sim_last_error(sim));
  bg_real *sig = malloc(9 * (n0 + n1) * sizeof *sig);
  bg_sim_get(sim, BG_FIELD_STRESS, sig, 9 * (n0 + n1));
  /* the lowest particle of the Hencky block: depth 0.07 - 0.0325 m */
  double want = -(double)t[0].rho0 * 9.81 * (0.07 - (0.03 + 0.0025));
  bg_check_rel(sig[8], want, 1e-3, "sigma_zz of the deepest particle, Pa");
  free(sig);
  s = bg_sim_set_geostatic(sim, 0.12, 0.5);
  bg_check_true(s == BG_ERR_RANGE && strstr(bg_sim_last_error(sim), "materials[1]"),
                "a load on the fixed corotated entry is refused, naming it (%s)", bg_sim_last_error(sim));
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  backend = argc > 1 ? argv[1] : "auto";
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  check_validation();
  check_particles();
  check_identity();
  check_checkpoint();
  check_set_f_per_model();
  check_geostatic();
  return bg_check_summary();
}
