/* test_contact.c: bg_contact_split_at (bg_contact.h) against closed forms.
 *
 * Scene (2D, per metre of depth): a bed of sand H = 10 cm deep and 20 cm
 * wide between slip side faces, resting on a kinematic box that spans the
 * width, in its geostatic state and damped to rest (0.6 s).
 *   1. At rest, the box carries the bed's weight: the split's stress part is
 *      -M g along z to 0.2%, and its residue is below 0.2% of M g (nothing
 *      moves, so the transfers leave nothing); the impulse is linear in the
 *      step.
 *   2. The box then slides along x at 0.5 m/s under the bed (Coulomb mu
 *      0.5). The side faces hold the bed in x, so the box slides under all
 *      of it: the stress part is -mu M g along x (to 2% of M g) and -M g
 *      along z (1%). And the split adds up: one real step of the run from
 *      the state the split saw reads the contact force b + a / dt, which
 *      stress + residue must equal to 0.5% of M g in x and z (the probes'
 *      steps swapped, or b taken from one step alone, fails it).
 *   3. A box that starts to move into a bed at rest, without gravity: the
 *      whole first-step impulse is residue, U sum(m_i) over the box's nodes
 *      (pushed_bed, below).
 * argv[1]: the backend (default cpu). Exit 0 pass, 1 fail, 77 backend
 * unavailable. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_contact.h"
#include "bg_lab.h"

static int fails;

static void check(int ok, const char *what, double got, double want, double tol) {
  printf("%s: %s (got %.6g, want %.6g, tol %.3g)\n", ok ? "PASS" : "FAIL", what, got, want, tol);
  fails += !ok;
}

/* The scene of every case: a bed of sand 2a wide and H deep on [-a, a] x [0, H]
 * (2 x 2 particles per cell) between slip side faces, and a kinematic box
 * spanning the width, its centre at box_z; gravity along z. *d and *box
 * receive the descriptor and the body (d->bodies points at *box). */
#define DX 0.01
#define A 0.1
#define H 0.1
static bg_sim *bed_and_box(const char *backend, double gravity_z, double box_z, double mu,
                           bg_sim_desc *d, bg_body *box) {
  *d = bg_sim_desc_default();
  d->backend = backend;
  d->dim = 2;
  d->dx = (bg_real)DX;
  d->dims[0] = 23, d->dims[1] = 1, d->dims[2] = 24;
  d->origin[0] = (bg_real)(-A - DX), d->origin[2] = (bg_real)(-0.08);
  d->gravity[2] = (bg_real)gravity_z;
  *box = bg_body_default();
  box->shape = BG_BODY_BOX;
  box->half[0] = 0.2f, box->half[1] = 0.2f, box->half[2] = 0.02f;
  box->x[2] = (bg_real)box_z;
  box->kinematic = 1;
  box->mu = (bg_real)mu;
  d->bodies = box;
  d->n_bodies = 1;
  char err[512];
  bg_sim *sim = NULL;
  if (bg_sim_create(d, &sim, err, sizeof err) != BG_OK) bg_lab_fail("bg_sim_create: %s", err);
  const int ni = (int)lround(2 * A / (0.5 * DX)), nk = (int)lround(H / (0.5 * DX));
  bg_real *x = malloc(3 * (size_t)ni * (size_t)nk * sizeof *x);
  size_t n = 0;
  for (int i = 0; i < ni; ++i)
    for (int k = 0; k < nk; ++k, ++n) {
      x[3 * n] = (bg_real)(-A + (i + 0.5) * 0.5 * DX), x[3 * n + 1] = 0;
      x[3 * n + 2] = (bg_real)((k + 0.5) * 0.5 * DX);
    }
  bg_lab_check(bg_sim_add_particles(sim, n, x, NULL, 4), sim, "bg_sim_add_particles");
  free(x);
  return sim;
}

/* 3. A box starting to move into a bed at rest without gravity or stress:
 * in its first step the contact stops the sand on its solid nodes, an
 * impulse U sum(m_i) that does not depend on the step's length. That is all
 * residue: residue dt = U sum(m_i) over the box's nodes (their masses read
 * back with bg_sim_grid_mass), and no stress part. */
static void pushed_bed(const char *backend, const char *path) {
  const double U = 0.2, dx = DX;
  bg_sim_desc d;
  bg_body box;
  /* no gravity; the box's bottom face on the bed's top, its friction the default */
  bg_sim *sim = bed_and_box(backend, 0.0, H + 0.02, bg_body_default().mu, &d, &box);
  /* one step at rest: nothing moves, and the grid holds the masses the next P2G gives */
  bg_lab_check(bg_sim_run(sim, 1), sim, "bg_sim_run");
  const size_t nn = d.dims[0] * d.dims[2];
  bg_real *m = malloc(nn * sizeof *m);
  bg_lab_check(bg_sim_grid_mass(sim, m, nn), sim, "bg_sim_grid_mass");
  double msolid = 0;
  for (size_t i = 0; i < d.dims[0]; ++i)
    for (size_t k = 0; k < d.dims[2]; ++k) {
      const double z = d.origin[2] + (double)k * dx;
      if (z > H + 0.5 * dx && z < H + 0.04 - 0.5 * dx)
        msolid += m[i * d.dims[2] + k]; /* inside the box */
    }
  free(m);
  const bg_real v[3] = {0, 0, (bg_real)-U}, w0[3] = {0, 0, 0};
  bg_lab_check(bg_sim_set_body_velocity(sim, 0, v, w0), sim, "bg_sim_set_body_velocity");
  const size_t body = 0;
  bg_contact_split c = bg_contact_split_at(sim, &body, 1, path, 1, NULL);
  const double want = U * msolid;
  printf(
      "pushed bed: %.6g kg on the box's nodes; residue %.6g N/m, stress %.6g N/m along z, dt %.6g "
      "s\n",
      msolid, c.residue[2], c.stress[2], c.dt);
  check(msolid > 0, "pushed bed: the box's nodes hold mass", msolid, 0, 0);
  check(fabs(c.residue[2] * c.dt - want) <= 0.01 * want,
        "pushed bed: residue dt is U sum(m_i) of the box's nodes", c.residue[2] * c.dt, want,
        0.01 * want);
  check(fabs(c.stress[2]) * c.dt <= 0.01 * want,
        "pushed bed: no stress part (as an impulse over dt)", c.stress[2] * c.dt, 0, 0.01 * want);
  bg_sim_destroy(sim);
}

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "cpu";
  char why[256];
  if (!bg_backend_available(backend, why, sizeof why)) {
    printf("SKIP: backend %s unavailable: %s\n", backend, why);
    return 77;
  }
  bg_sim_desc d;
  bg_body box;
  bg_sim *sim = bed_and_box(backend, bg_sim_desc_default().gravity[2], -0.02, 0.5, &d, &box);
  const double phi = d.material.dp.phi_deg * 3.14159265358979323846 / 180.0;
  bg_lab_check(bg_sim_set_geostatic(sim, H, 1.0 - sin(phi)), sim, "bg_sim_set_geostatic");
  bg_lab_check(bg_sim_set_damping(sim, 50.0f), sim, "bg_sim_set_damping");
  bg_lab_check(bg_sim_advance_to(sim, 0.6), sim, "bg_sim_advance_to");
  bg_lab_check(bg_sim_set_damping(sim, 0.0f), sim, "bg_sim_set_damping");
  bg_lab_check(bg_sim_run(sim, 20), sim, "bg_sim_run");
  bg_stats st;
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  const double W = st.total_mass * fabs((double)d.gravity[2]);
  char path[128]; /* one per backend: ctest may run them at once */
  snprintf(path, sizeof path, "test_contact_%s.bgck",
           backend[0] == 'c' && backend[1] == 'u' ? "cuda" : "cpu");
  const size_t body = 0;

  /* 1. at rest */
  bg_contact_copy copy = {NULL}; /* kept from here on: the later splits restore into it */
  bg_contact_split c = bg_contact_split_at(sim, &body, 1, path, 1, &copy);
  check(fabs(c.stress[2] + W) <= 0.002 * W,
        "at rest: the stress part carries the weight, -M g along z", c.stress[2], -W, 0.002 * W);
  check(fabs(c.residue[2]) <= 0.002 * W, "at rest: no residue along z", c.residue[2], 0, 0.002 * W);
  check(c.nonlinearity <= 0.01, "at rest: the impulse is linear in the step", c.nonlinearity, 0,
        0.01);

  /* 2. sliding */
  const bg_real v[3] = {0.5f, 0, 0}, w0[3] = {0, 0, 0};
  bg_lab_check(bg_sim_set_body_velocity(sim, 0, v, w0), sim, "bg_sim_set_body_velocity");
  bg_lab_check(bg_sim_run(sim, 200), sim, "bg_sim_run");
  c = bg_contact_split_at(sim, &body, 1, path, 1, &copy);
  /* a kept copy, restored, must step as a freshly loaded one */
  const bg_contact_split fresh = bg_contact_split_at(sim, &body, 1, path, 1, NULL);
  bg_contact_copy_free(&copy);
  check(!memcmp(fresh.stress, c.stress, sizeof c.stress) &&
            !memcmp(fresh.residue, c.residue, sizeof c.residue),
        "sliding: the split on a restored copy is the split on a loaded one, bit for bit",
        c.stress[0], fresh.stress[0], 0);
  bg_real dt;
  bg_lab_check(bg_sim_step(sim, &dt), sim, "bg_sim_step");
  bg_body_state b;
  bg_lab_check(bg_sim_body_state(sim, 0, &b), sim, "bg_sim_body_state");
  printf(
      "sliding: contact force (%.4g, %.4g) N/m = stress (%.4g, %.4g) + residue (%.4g, %.4g); M g "
      "%.4g N/m\n",
      b.force[0], b.force[2], c.stress[0], c.stress[2], c.residue[0], c.residue[2], W);
  check(fabs((double)dt - c.dt) <= 1e-6 * c.dt, "sliding: the split's step is the run's", dt, c.dt,
        1e-6 * c.dt);
  for (int k = 0; k < 3; k += 2) {
    char what[96];
    snprintf(what, sizeof what, "sliding: stress + residue is the run's contact force (%c)",
             "xyz"[k]);
    check(fabs(c.stress[k] + c.residue[k] - b.force[k]) <= 0.005 * W, what,
          c.stress[k] + c.residue[k], b.force[k], 0.005 * W);
  }
  /* the bed cannot follow the box (the side faces hold it in x), so the box slides under all of it
   */
  check(fabs(c.stress[0] + box.mu * W) <= 0.02 * W,
        "sliding: the sand resists the box by Coulomb's mu M g along -x", c.stress[0], -box.mu * W,
        0.02 * W);
  check(fabs(c.stress[2] + W) <= 0.01 * W, "sliding: the weight still rests on the box",
        c.stress[2], -W, 0.01 * W);
  bg_sim_destroy(sim);
  pushed_bed(backend, path);
  printf("%d failed\n", fails);
  return fails ? 1 : 0;
}
