/* bg_contact.c: the contact load on kinematic bodies split into the
 * stress's part and the transfers' part (bg_contact.h). */
#include "bg_contact.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bg_lab.h"

void bg_contact_copy_free(bg_contact_copy *copy) {
  if (copy && copy->sim) bg_sim_destroy(copy->sim);
  if (copy) copy->sim = NULL;
}

/* The state saved at path in a simulation: copy's, restored, when it has one; else a new one (kept
 * in copy when there is one). */
static bg_sim *state_from(const char *path, const bg_sim *run, int threads, bg_contact_copy *copy) {
  if (copy && copy->sim) {
    bg_lab_check(bg_sim_restore(copy->sim, path, NULL, 0, NULL), copy->sim,
                 "bg_sim_restore (contact split)");
    return copy->sim;
  }
  char err[512];
  bg_sim *c = NULL;
  if (bg_sim_load(path, bg_sim_backend(run), threads, &c, err, sizeof err) != BG_OK)
    bg_lab_fail("contact split: bg_sim_load(%s): %s", path, err);
  if (copy) copy->sim = c;
  return c;
}

bg_contact_split bg_contact_split_at(bg_sim *sim, const size_t *bodies, size_t n_bodies,
                                     const char *path, int threads, bg_contact_copy *copy) {
  bg_contact_split out;
  memset(&out, 0, sizeof out);
  bg_real dt, bound;
  bg_lab_check(bg_sim_next_dt(sim, &dt, &bound), sim, "bg_sim_next_dt");
  bg_lab_check(bg_sim_save(sim, path, NULL, 0), sim, "bg_sim_save (contact split)");
  /* lengths a bg_real holds, as bg_sim_advance_to's step is one: t_end - time then rounds to h and
   * the step lands on t_end. volatile: without it gcc -O3 may keep the double product, which
   * no bg_real holds, and the copy then takes a second, tiny step */
  volatile bg_real hr[3] = {(bg_real)(0.9 * dt), (bg_real)(0.9 * dt / 8), (bg_real)(0.9 * dt / 2)};
  const double h[3] = {hr[0], hr[1], hr[2]};
  double J[3][6] = {{0}};
  for (int i = 0; i < 3; ++i) {
    bg_sim *c = state_from(path, sim, threads, copy);
    bg_stats s0, s1;
    bg_lab_check(bg_sim_stats(c, &s0), c, "bg_sim_stats");
    bg_lab_check(bg_sim_advance_to(c, s0.time + h[i]), c, "bg_sim_advance_to (contact split)");
    bg_lab_check(bg_sim_stats(c, &s1), c, "bg_sim_stats");
    if (s1.step != s0.step + 1)
      bg_lab_fail("contact split: a step of %.9g s took %llu steps", h[i],
                  (unsigned long long)(s1.step - s0.step));
    const double taken = s1.time - s0.time;
    for (size_t k = 0; k < n_bodies; ++k) {
      bg_body_state b;
      bg_lab_check(bg_sim_body_state(c, bodies[k], &b), c, "bg_sim_body_state");
      for (int d = 0; d < 3; ++d) J[i][d] += b.force[d] * taken, J[i][3 + d] += b.torque[d] * taken;
    }
    if (!copy) bg_sim_destroy(c);
  }
  if (remove(path) != 0) bg_lab_fail("contact split: cannot remove the scratch file %s", path);
  out.dt = dt;
  double off = 0, scale = 0;
  for (int d = 0; d < 6; ++d) {
    out.stress[d] = (J[0][d] - J[1][d]) / (h[0] - h[1]);
    out.residue[d] = (J[0][d] - out.stress[d] * h[0]) / dt;
    /* the third step, between the two, against the line through them */
    const double line = J[1][d] + out.stress[d] * (h[2] - h[1]);
    off += (J[2][d] - line) * (J[2][d] - line), scale += J[2][d] * J[2][d];
  }
  out.nonlinearity = scale > 0 ? sqrt(off / scale) : 0;
  return out;
}
