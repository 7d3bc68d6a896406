/* check_lin.c: the fixture model bg_mat_lin.h, registered by its header
 * alone (test material.one_header): listed by name after the built-in
 * models, introspected, validated by its own hook, giving the closed-form
 * small-strain stress through the update context, and stepped by the CPU
 * backend with its own wave speed and no plastic state. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bagnold.h"
#include "bg_check.h"
#include "bg_materials.h"

static void test_registered(void) {
  bg_check_true(bg_material_model_from_name("linear-elastic") == BG_MODEL_LIN,
                "listed by its label");
  bg_check_true(BG_MODEL_LIN == BG_MODEL_COUNT - 1 && BG_MODEL_DP == 0 && BG_MODEL_MUI == 1 &&
                    BG_MODEL_NGF == 2,
                "after the built-in models, whose numbers stay (count %d)", (int)BG_MODEL_COUNT);
  bg_check_true(bg_material_model_count() == BG_MODEL_COUNT, "bg_material_model_count");
  const char *name = NULL;
  size_t off = 99;
  bg_matp_kind kind = BG_MATP_INT;
  bg_check_true(bg_material_param_count(BG_MODEL_LIN) == 1 &&
                    bg_material_param_info(BG_MODEL_LIN, 0, &name, &off, &kind) == BG_OK &&
                    !strcmp(name, "p0") && off == 0 && kind == BG_MATP_REAL,
                "its one parameter p0 introspected");
  bg_check_true(!strcmp(bg_material_model_member(BG_MODEL_LIN), "lin") &&
                    !strcmp(bg_material_state_name(BG_MODEL_LIN, 0), ""),
                "member name 'lin', no state slot used");
}

static void test_validation(void) {
  bg_material m = bg_material_default(BG_MODEL_LIN);
  struct bg_mat c;
  char err[256];
  bg_check_true(bg_material_params(&m, &c, err, sizeof err) == BG_OK, "defaults valid (%s)", err);
  m.nu = 0.6f;
  bg_check_true(
      bg_material_params(&m, &c, err, sizeof err) == BG_ERR_RANGE && strstr(err, "material.nu"),
      "nu = 0.6 refused by the model's hook (%s)", err);
  m.nu = 0.3f;
  m.lin.p0 = NAN;
  bg_check_true(bg_material_params(&m, &c, err, sizeof err) == BG_ERR_NONFINITE &&
                    strstr(err, "material.lin.p0"),
                "p0 = NaN refused (%s)", err);
}

static void test_stress(void) {
  bg_material m = bg_material_default(BG_MODEL_LIN);
  m.E = 1.0e6f;
  m.nu = 0.25f;
  m.lin.p0 = 100.0f;
  struct bg_mat c;
  char err[256];
  bg_material_params(&m, &c, err, sizeof err);
  const double H[3][3] = {{1e-4, 2e-4, 0}, {0, -3e-4, 0}, {5e-5, 0, 2e-4}};
  bg_mat3 F, C = bg_mat3_zero(), tau;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F.m[i][j] = (bg_real)((i == j) + H[i][j]);
  bg_real st[BG_NSTATE] = {0, 0, 0, 0};
  bg_update_ctx u = {&F, &C, 1e-4f, st, &tau};
  int mode = bg_material_update(&c, &u);
  double lam = 1e6 * 0.25 / (1.25 * 0.5), mu = 1e6 / 2.5, tr = H[0][0] + H[1][1] + H[2][2],
         worst = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double want = mu * (H[i][j] + H[j][i]) + (i == j ? lam * tr - 100.0 : 0.0);
      worst = fmax(worst, fabs(tau.m[i][j] - want));
    }
  bg_check_le(worst, 0.05, "closed-form small-strain stress (max error, Pa; entries ~ 300 Pa)");
  bg_check_true(mode == BG_RM_ELASTIC, "elastic mode");
  bg_check_rel(bg_material_pwave_speed(&m), sqrt((lam + 2 * mu) / m.rho0), 1e-6,
               "wave speed of the model's hook");
}

static void test_step(void) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = 12;
  d.dx = 0.1f;
  d.material = bg_material_default(BG_MODEL_LIN);
  d.backend = "auto";
  d.threads = 1;
  bg_sim *sim = NULL;
  char err[256];
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_check_true(s == BG_OK, "bg_sim_create (%s)", err);
  if (s != BG_OK) return;
  bg_real x[3 * 27];
  for (int p = 0; p < 27; ++p)
    for (int k = 0; k < 3; ++k)
      x[3 * p + k] = 0.5f + 0.05f * (bg_real)((k == 0 ? p : k == 1 ? p / 3 : p / 9) % 3);
  bg_check_true(bg_sim_add_particles(sim, 27, x, NULL, 8) == BG_OK, "particles added");
  bg_real dt = 0, jp[27], q[27];
  int ok = 1;
  for (int k = 0; k < 5; ++k) ok &= bg_sim_step(sim, &dt) == BG_OK;
  bg_check_true(ok && dt > 0, "five steps (dt %g)", (double)dt);
  bg_sim_get(sim, BG_FIELD_JP, jp, 27);
  bg_sim_get(sim, BG_FIELD_Q, q, 27);
  int plain = 1;
  for (int p = 0; p < 27; ++p) plain &= jp[p] == 1.0f && q[p] == 0.0f;
  bg_check_true(plain, "no plastic state: Jp reads 1 and q 0");
  bg_sim_destroy(sim);
}

int main(void) {
  test_registered();
  test_validation();
  test_stress();
  test_step();
  return bg_check_summary();
}
