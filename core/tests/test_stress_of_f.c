/* test_stress_of_f.c: the stress a backend recomputes from the stored F
 * (bg_material_stress_of_f, what the CUDA backend's layout=compact uses
 * instead of a cached tau) against the stress bg_material_update caches,
 * for every registered model, over random trial deformations that reach
 * each return-map case. Host only.
 *
 * The bound. The cached stress comes from the SVD of F_trial and the
 * projected singular values; the recomputed one from a second SVD of the
 * reassembled F = U Sigma V^T, stored in float. Both are exact functions
 * of their inputs up to float round-off, so they differ by the stress of a
 * strain of a few ulps: |delta tau| <= K eps_f (3 lambda + 2 mu) (1 + |tau|
 * / mu), with eps_f = 2^-23, K = 16 for the SVD's iterations and the
 * reassembly. A wrong law, a wrong state slot or the trial F instead of
 * the updated one moves tau by the plastic flow, orders above that. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bg_check.h"
#include "bg_materials.h"

#define SAMPLES 400
#define ULPS 16.0

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double uniform(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double frob(const bg_mat3 *a) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += (double)a->m[i][j] * a->m[i][j];
  return sqrt(s);
}

/* A trial F: a rotation-free stretch of up to +-span per axis plus shear,
 * so samples fall in the elastic range, on the cone and at the tip. */
static bg_mat3 trial_f(double span) {
  bg_mat3 f = bg_mat3_zero();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      f.m[i][j] = (bg_real)((i == j ? 1.0 : 0.0) + span * (2.0 * uniform() - 1.0));
  return f;
}

int main(void) {
  for (int model = 0; model < bg_material_model_count(); ++model) {
    const bg_material mat = bg_material_default((bg_material_model)model);
    const bg_mat m = bg_material_prepare(&mat);
    const double scale = 3.0 * m.el.lame.lambda + 2.0 * m.el.lame.mu;
    const char *name = bg_material_model_name((bg_material_model)model);
    bg_real st0[BG_NSTATE] = {0};
    bg_mat3 F0 = bg_mat3_identity(), tau0;
    const int of_f = bg_material_stress_of_f(&m, &F0, st0, &tau0);
    double worst = 0;
    int modes[3] = {0, 0, 0}, ok = 1;
    for (int k = 0; k < SAMPLES && of_f; ++k) {
      /* small strains, where the cached stress is most sensitive to round-off, and large ones */
      bg_mat3 F = trial_f(k % 2 ? 1e-3 : 5e-2), C = bg_mat3_zero(), tau;
      bg_real st[BG_NSTATE] = {0};
      st[0] = (bg_real)(-0.02 * uniform()); /* a stored plastic volume, where a model keeps one */
      bg_update_ctx u = {&F, &C, 1e-4f, st, &tau};
      const int mode = bg_material_update(&m, &u);
      if (mode >= 0 && mode < 3) modes[mode]++;
      bg_mat3 again;
      ok &= bg_material_stress_of_f(&m, &F, st, &again) == 1;
      bg_mat3 d;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) d.m[i][j] = again.m[i][j] - tau.m[i][j];
      const double bound = ULPS * FLT_EPSILON * scale * (1.0 + frob(&tau) / m.el.lame.mu);
      const double r = frob(&d) / bound;
      if (!(r <= worst)) worst = r;
    }
    if (!of_f) {
      /* the one model whose stress needs the velocity gradient */
      bg_check_true(!strcmp(name, "water"), "%s: stress_of_f declines only for water (it declined)",
                    name);
      continue;
    }
    bg_check_true(ok, "%s: stress_of_f returns 1 for every sample", name);
    bg_check_true(
        worst <= 1.0,
        "%s: the stress recomputed from the updated F matches the cached one within %g ulps of the "
        "modulus (worst %.3g of the bound; modes elastic/shear/tip %d/%d/%d)",
        name, ULPS, worst, modes[0], modes[1], modes[2]);
  }
  return bg_check_summary();
}
