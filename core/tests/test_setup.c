/* test_setup: the set-up and observation calls of bagnold.h — gravity,
 * damping, particle v / F / stress, the geostatic state, wall forces and
 * impulses, the return-map mode, bg_material_params — each with the bad
 * input it must refuse (and leave the simulation as it was). argv[1]: the
 * backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_materials.h"

static const char *backend = "auto";

#define DX 0.01f
#define NXY 12 /* nodes across: 8 free cells between the two face layers each side */
#define NZ 28

/* A layer filling the box between the slip side faces, H tall on the floor
 * face, 2 particles per cell edge: a laterally confined column, the
 * oedometric (K0) state's geometry. */
static bg_sim *layer(bg_material m, double *z_top, size_t *np) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = NXY;
  d.dims[2] = NZ;
  d.dx = DX;
  d.backend = backend;
  d.threads = 2;
  d.material = m;
  bg_sim *sim = NULL;
  char err[512];
  if (bg_sim_create(&d, &sim, err, sizeof err) != BG_OK) {
    printf("FAIL: create: %s\n", err);
    exit(1);
  }
  /* the faces act on two node layers: material from plane 1.5 cells in,
   * with the edge half a cell lower (bg_wall_edge_offset) */
  double lo = 1.5 * DX + bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * DX;
  double hi_xy = (NXY - 2.5) * DX - bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5) * DX;
  int nxy = (int)lround((hi_xy - lo) / (DX / 2)), nz = 32;
  size_t n = (size_t)nxy * nxy * nz, k = 0;
  bg_real *x = malloc(3 * n * sizeof *x);
  for (int i = 0; i < nxy; ++i)
    for (int j = 0; j < nxy; ++j)
      for (int l = 0; l < nz; ++l, ++k) {
        x[3 * k] = (bg_real)(lo + DX / 4 + i * DX / 2);
        x[3 * k + 1] = (bg_real)(lo + DX / 4 + j * DX / 2);
        x[3 * k + 2] = (bg_real)(lo + DX / 4 + l * DX / 2);
      }
  *z_top = lo + nz * DX / 2;
  *np = n;
  if (bg_sim_add_particles(sim, n, x, NULL, 8) != BG_OK) {
    printf("FAIL: add: %s\n", bg_sim_last_error(sim));
    exit(1);
  }
  free(x);
  return sim;
}

static double max_speed(bg_sim *sim) {
  bg_stats st;
  bg_sim_stats(sim, &st);
  return st.max_speed;
}

/* Mean over particles with z in [z0, z1) of component c of the stress,
 * and their mean z in *zm. */
static double mean_stress(bg_sim *sim, size_t n, int c, double z0, double z1, double *zm) {
  bg_real *x = malloc(3 * n * sizeof *x), *s = malloc(9 * n * sizeof *s);
  bg_sim_get(sim, BG_FIELD_X, x, 3 * n);
  bg_sim_get(sim, BG_FIELD_STRESS, s, 9 * n);
  double sum = 0, zs = 0;
  size_t cnt = 0;
  for (size_t p = 0; p < n; ++p)
    if (x[3 * p + 2] >= z0 && x[3 * p + 2] < z1) {
      sum += s[9 * p + c];
      zs += x[3 * p + 2];
      cnt++;
    }
  *zm = cnt ? zs / (double)cnt : NAN;
  free(x);
  free(s);
  return cnt ? sum / (double)cnt : NAN;
}

static void test_material_params(void) {
  bg_material m = bg_material_sand();
  bg_mat c;
  char err[256];
  bg_status s = bg_material_params(&m, &c, err, sizeof err);
  bg_check_true(s == BG_OK && c.model == BG_MODEL_DP,
                "bg_material_params of Klar's sand: BG_OK, the DP model");
  double E = m.E, nu = m.nu;
  bg_check_rel(c.el.lame.mu, E / (2 * (1 + nu)), 1e-6, "its shear modulus is E / 2(1 + nu)");
  bg_check_rel(c.el.lame.lambda, E * nu / ((1 + nu) * (1 - 2 * nu)), 1e-6,
               "its lambda is E nu / (1 + nu)(1 - 2 nu)");
  m.nu = 0.6f;
  s = bg_material_params(&m, &c, err, sizeof err);
  bg_check_true(s == BG_ERR_RANGE && strstr(err, "material.nu"),
                "nu = 0.6: BG_ERR_RANGE naming material.nu (%s)", err);
  m = bg_material_sand();
  m.dp.phi_deg = NAN;
  s = bg_material_params(&m, &c, err, sizeof err);
  bg_check_true(s == BG_ERR_NONFINITE, "phi NaN: BG_ERR_NONFINITE (%s)", err);
  bg_check_true(bg_material_params(NULL, &c, err, sizeof err) == BG_ERR_NULL,
                "a NULL material: BG_ERR_NULL");
}

static void test_setters(void) {
  double zt;
  size_t n;
  bg_sim *sim = layer(bg_material_sand(), &zt, &n);
  bg_real g_bad[3] = {0, NAN, 0}, g0[3] = {0, 0, 0};
  bg_check_true(bg_sim_set_gravity(sim, g_bad) == BG_ERR_NONFINITE,
                "gravity with a NaN: BG_ERR_NONFINITE (%s)", bg_sim_last_error(sim));
  bg_check_true(bg_sim_set_gravity(sim, NULL) == BG_ERR_NULL, "gravity NULL: BG_ERR_NULL");
  bg_check_true(bg_sim_set_damping(sim, -1) == BG_ERR_RANGE, "damping -1: BG_ERR_RANGE (%s)",
                bg_sim_last_error(sim));
  bg_sim_desc d;
  bg_sim_describe(sim, &d);
  bg_check_true(d.gravity[2] == -9.81f && d.damping == 0,
                "refused calls changed nothing (g_z %g, damping %g)", (double)d.gravity[2],
                (double)d.damping);

  /* velocity: set, read back exactly, and it moves the layer; refusals first */
  bg_real *v = calloc(3 * n, sizeof *v), *back = malloc(3 * n * sizeof *back);
  for (size_t p = 0; p < n; ++p) v[3 * p + 2] = 0.5f; /* upward */
  bg_check_true(bg_sim_set(sim, BG_FIELD_V, v, 3 * n - 1) == BG_ERR_RANGE,
                "v with one value short: BG_ERR_RANGE (%s)", bg_sim_last_error(sim));
  bg_check_true(bg_sim_set(sim, BG_FIELD_Q, v, n) == BG_ERR_RANGE, "setting q: BG_ERR_RANGE (%s)",
                bg_sim_last_error(sim));
  v[7] = INFINITY;
  bg_check_true(bg_sim_set(sim, BG_FIELD_V, v, 3 * n) == BG_ERR_NONFINITE,
                "v with an Inf: BG_ERR_NONFINITE (%s)", bg_sim_last_error(sim));
  bg_sim_get(sim, BG_FIELD_V, back, 3 * n);
  int still = 1;
  for (size_t k = 0; k < 3 * n; ++k) still &= back[k] == 0;
  bg_check_true(still, "after the refusals every velocity is still zero");
  v[7] = 0.0f;
  bg_check_true(bg_sim_set(sim, BG_FIELD_V, v, 3 * n) == BG_OK, "v set (%s)",
                bg_sim_last_error(sim));
  bg_sim_get(sim, BG_FIELD_V, back, 3 * n);
  bg_check_true(memcmp(back, v, 3 * n * sizeof *v) == 0, "v reads back exactly");
  bg_check_rel(max_speed(sim), 0.5, 1e-6, "the next dt sees the speed set (max speed)");

  /* without gravity and with damping the upward motion decays as exp(-c t) */
  bg_sim_set_gravity(sim, g0);
  bg_sim_set_damping(sim, 40);
  bg_sim_describe(sim, &d);
  bg_check_true(d.gravity[2] == 0 && d.damping == 40,
                "bg_sim_describe reports the gravity and damping set");
  bg_sim_advance_to(sim, 0.02);
  bg_sim_get(sim, BG_FIELD_V, back, 3 * n);
  double vz = 0;
  for (size_t p = 0; p < n; ++p) vz += back[3 * p + 2];
  vz /= (double)n;
  bg_check_rel(vz, 0.5 * exp(-40 * 0.02), 0.02,
               "with damping 40/s and no gravity the mean v_z is 0.5 exp(-0.8) m/s");
  bg_sim_destroy(sim);
  free(v);
  free(back);

  /* F and stress: set, read back, refusals */
  sim = layer(bg_material_sand(), &zt, &n);
  bg_real *F = calloc(9 * n, sizeof *F), *S = calloc(9 * n, sizeof *S),
          *got = malloc(9 * n * sizeof *got);
  for (size_t p = 0; p < n; ++p) {
    F[9 * p] = 0.999f;
    F[9 * p + 4] = F[9 * p + 8] = 1.0f;
  }
  bg_real keep = F[9 * 3];
  F[9 * 3] = -1;
  bg_check_true(bg_sim_set(sim, BG_FIELD_F, F, 9 * n) == BG_ERR_RANGE,
                "an F with det < 0: BG_ERR_RANGE (%s)", bg_sim_last_error(sim));
  F[9 * 3] = keep;
  bg_check_true(bg_sim_set(sim, BG_FIELD_F, F, 9 * n) == BG_OK, "F = diag(0.999, 1, 1) set");
  bg_sim_get(sim, BG_FIELD_STRESS, got, 9 * n);
  bg_material m = bg_material_sand();
  double mu = m.E / (2 * (1 + m.nu)), lam = m.E * m.nu / ((1 + m.nu) * (1 - 2 * m.nu)),
         e = log(0.999);
  bg_check_rel(got[0], (lam * e + 2 * mu * e) / 0.999, 1e-3,
               "its sigma_xx is the Hencky (lambda + 2 mu) log(0.999) / J");
  bg_check_rel(got[4], lam * e / 0.999, 1e-3, "its sigma_yy is lambda log(0.999) / J");
  for (size_t p = 0; p < n; ++p) {
    bg_real *s = S + 9 * p;
    s[0] = -300, s[4] = -500, s[8] = -1000;
    s[1] = s[3] = 40;
    s[2] = s[6] = -25;
  }
  S[9 * 5 + 1] = 41;
  bg_check_true(bg_sim_set(sim, BG_FIELD_STRESS, S, 9 * n) == BG_ERR_RANGE,
                "an asymmetric stress: BG_ERR_RANGE (%s)", bg_sim_last_error(sim));
  S[9 * 5 + 1] = 40;
  bg_check_true(bg_sim_set(sim, BG_FIELD_STRESS, S, 9 * n) == BG_OK, "a stress with shear set (%s)",
                bg_sim_last_error(sim));
  bg_sim_get(sim, BG_FIELD_STRESS, got, 9 * n);
  double worst = 0;
  for (size_t k = 0; k < 9 * n; ++k) worst = fmax(worst, fabs(got[k] - S[k]));
  bg_check_le(worst, 1e-3 * 1000,
              "it reads back within 0.1%% of its largest component (worst |error| Pa)");
  bg_sim_get(sim, BG_FIELD_F, got, 9 * n);
  bg_check_abs(got[1] - got[3], 0, 1e-7, "its F is symmetric (rotation-free)");
  bg_sim_destroy(sim);
  bg_material fc = bg_material_sand();
  fc.stress = BG_STRESS_FIXED_COROTATED;
  sim = layer(fc, &zt, &n);
  bg_check_true(bg_sim_set(sim, BG_FIELD_STRESS, S, 9 * n) == BG_ERR_RANGE,
                "a stress on a fixed-corotated material: BG_ERR_RANGE (%s)",
                bg_sim_last_error(sim));
  bg_sim_destroy(sim);
  free(F);
  free(S);
  free(got);
}

/* The confined layer started geostatic holds still; started stress-free it
 * drops onto its own elastic compression and rings. The floor carries the
 * weight and the side faces K0 times the vertical load. */
static void test_geostatic(void) {
  double zt;
  size_t n;
  bg_material m = bg_material_sand();
  double k0 = 1 - sin(35 * 3.14159265358979323846 / 180);
  bg_sim *sim = layer(m, &zt, &n);
  bg_check_true(bg_sim_set_geostatic(sim, zt, 0) == BG_ERR_RANGE, "k0 = 0: BG_ERR_RANGE (%s)",
                bg_sim_last_error(sim));
  bg_check_true(bg_sim_set_geostatic(sim, NAN, k0) == BG_ERR_NONFINITE,
                "z_surface NaN: BG_ERR_NONFINITE");
  bg_check_true(bg_sim_set_geostatic(sim, zt, k0) == BG_OK,
                "geostatic with Jaky's K0 = %.3f set (%s)", k0, bg_sim_last_error(sim));
  double H = zt - 1.0 * DX, rho_g = m.rho0 * 9.81;
  double z0 = zt - 0.6 * (zt - DX), z1 = z0 + DX; /* a slab at 60% depth */
  double zm, szz = mean_stress(sim, n, 8, z0, z1, &zm);
  bg_check_rel(szz, -rho_g * (zt - zm), 1e-3, "as set: sigma_zz = -rho g depth at 60%% depth");
  bg_sim *cold = layer(m, &zt, &n);
  double t_end = 0.05;
  double vmax_geo = 0, vmax_cold = 0;
  int steps = 0;
  double imp0[24], imp1[24], f_sum[24] = {0};
  bg_sim_wall_impulses(sim, imp0, 24);
  bg_stats st;
  while (bg_sim_stats(sim, &st), st.time < t_end) {
    bg_real dt;
    bg_sim_step(sim, &dt);
    double f[24];
    bg_sim_wall_forces(sim, f, 24);
    for (int k = 0; k < 24; ++k) f_sum[k] += f[k] * dt;
    vmax_geo = fmax(vmax_geo, max_speed(sim));
    steps++;
  }
  bg_sim_wall_impulses(sim, imp1, 24);
  while (bg_sim_stats(cold, &st), st.time < t_end) {
    bg_sim_step(cold, NULL);
    vmax_cold = fmax(vmax_cold, max_speed(cold));
  }
  printf("max speed over %.2f s: %.3g m/s geostatic, %.3g m/s stress-free (%d steps)\n", t_end,
         vmax_geo, vmax_cold, steps);
  bg_check_le(vmax_geo, 0.1 * vmax_cold,
              "started geostatic, the layer moves at most a tenth as fast as started stress-free");
  szz = mean_stress(sim, n, 8, z0, z1, &zm);
  bg_check_rel(szz, -rho_g * (zt - zm), 0.03,
               "after %.2f s sigma_zz at 60%% depth is still -rho g depth", t_end);
  bg_check_rel(mean_stress(sim, n, 0, z0, z1, &zm), k0 * szz, 0.03,
               "and sigma_xx is still K0 sigma_zz");
  bg_real *mode = malloc(n * sizeof *mode);
  bg_sim_get(sim, BG_FIELD_MODE, mode, n);
  size_t yielded = 0;
  for (size_t p = 0; p < n; ++p) yielded += mode[p] != 0;
  bg_check_true(yielded == 0,
                "the K0 state lies inside the cone: no particle took a return map (%zu did)",
                yielded);

  /* loads: the floor (-z face, wall 4) carries the weight; the -x face the
   * lateral thrust K0 rho g H^2 / 2 per unit width */
  double weight = 0;
  bg_real *mass = malloc(n * sizeof *mass);
  bg_sim_get(sim, BG_FIELD_MASS, mass, n);
  for (size_t p = 0; p < n; ++p) weight += mass[p] * 9.81;
  double fz = (imp1[3 * 4 + 2] - imp0[3 * 4 + 2]) / t_end, fx = (imp1[0] - imp0[0]) / t_end;
  double width = (NXY - 2) * DX - DX; /* the material spans 1 .. NXY - 2 cells */
  printf("floor %.4g N (weight %.4g N), -x face %.4g N (K0 rho g H^2 W / 2 = %.4g N)\n", fz, weight,
         fx, k0 * rho_g * H * H / 2 * width);
  bg_check_rel(-fz, weight, 0.01,
               "the floor's mean force over the run is the layer's weight, downward");
  bg_check_rel(-fx, k0 * rho_g * H * H / 2 * width, 0.03,
               "the -x face's mean force is K0 rho g H^2 W / 2, outward");
  bg_check_rel(imp1[3 * 4 + 2] - imp0[3 * 4 + 2], f_sum[3 * 4 + 2], 1e-9,
               "the impulse is the sum of force dt over the steps");
  double fz_cold = 0;
  {
    double ic[24];
    bg_sim_wall_impulses(cold, ic, 24);
    bg_sim_stats(cold, &st);
    fz_cold = ic[3 * 4 + 2] / st.time;
  }
  printf("stress-free start: the floor's mean force %.4g N over the same time (it rings)\n",
         fz_cold);
  free(mode);
  free(mass);
  bg_sim_destroy(cold);

  /* gravity off the z axis: refused */
  bg_real gx[3] = {1, 0, -9.81f};
  bg_sim_set_gravity(sim, gx);
  bg_check_true(bg_sim_set_geostatic(sim, zt, k0) == BG_ERR_RANGE,
                "geostatic under tilted gravity: BG_ERR_RANGE (%s)", bg_sim_last_error(sim));
  bg_sim_destroy(sim);
}

/* An unconfined column collapses: the return map shears part of it; an
 * elastic-only material never projects. */
static void test_mode(void) {
  for (int elastic = 0; elastic < 2; ++elastic) {
    bg_sim_desc d = bg_sim_desc_default();
    d.dims[0] = d.dims[1] = 24;
    d.dims[2] = 20;
    d.dx = DX;
    d.backend = backend;
    d.threads = 2;
    d.material.elastic_only = elastic;
    bg_sim *sim;
    char err[256];
    bg_sim_create(&d, &sim, err, sizeof err);
    size_t n = 0;
    bg_real *x = malloc(3 * 16 * 16 * 24 * sizeof *x);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j)
        for (int k = 0; k < 24; ++k, ++n) {
          x[3 * n] = 0.08f + 0.005f * i;
          x[3 * n + 1] = 0.08f + 0.005f * j;
          x[3 * n + 2] = 0.0225f + 0.005f * k;
        }
    bg_sim_add_particles(sim, n, x, NULL, 8);
    free(x);
    bg_sim_advance_to(sim, 0.06);
    bg_real *mode = malloc(n * sizeof *mode);
    bg_sim_get(sim, BG_FIELD_MODE, mode, n);
    size_t c[3] = {0, 0, 0}, other = 0;
    for (size_t p = 0; p < n; ++p) {
      int k = (int)mode[p];
      if (k >= 0 && k < 3 && mode[p] == (bg_real)k)
        c[k]++;
      else
        other++;
    }
    printf("%s column at 0.06 s: %zu elastic, %zu shear, %zu tip\n",
           elastic ? "elastic-only" : "sand", c[0], c[1], c[2]);
    bg_check_true(other == 0, "every mode is 0, 1 or 2");
    if (elastic)
      bg_check_true(c[0] == n, "an elastic-only material never takes the return map");
    else
      bg_check_true(c[1] + c[2] > n / 20,
                    "a collapsing sand column yields in more than 5%% of its particles");
    free(mode);
    bg_sim_destroy(sim);
  }
}

int main(int argc, char **argv) {
  if (argc > 1) backend = argv[1];
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s: %s\n", backend, why);
    return BG_CHECK_SKIP;
  }
  test_material_params();
  test_setters();
  test_geostatic();
  test_mode();
  return bg_check_summary();
}
