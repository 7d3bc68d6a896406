/* paddle_spin.c: one spin of a four-armed paddle in a 2D (plane-strain) sand
 * bed at a fixed angular velocity, its torque read every step.
 *
 * Scene, per metre of depth (the 2D solver, x-z plane): a bed of the run's
 * sand between slip side faces on a Coulomb floor, in its geostatic state
 * (K0 = 1 - sin phi), and two kinematic boxes 2R long and T thick crossing
 * at their common centre, the axis, at the fed depth below the bed's top:
 * four arms reaching R from the axis (or one bar, --arms 2). The sand is seeded around them (2 x 2
 * particles per cell), settles with the paddle at rest, and the free
 * surface is then read from the particles beside it. Both bodies are then
 * given the angular velocity omega about y and keep it: a kinematic body is
 * the motor, whatever the sand does.
 *
 * Read-out, through the public API: the two bodies' torques about their
 * centre, the axis (bg_sim_body_state), summed each step and averaged with
 * the step's dt over the window, the quarter turns after the start-up (the
 * paddle's period is a quarter turn, so a window of whole quarter turns
 * holds every pose equally). omega is read back from the bodies, the
 * arm's reach from the simulation's descriptor, the depth from the read
 * surface; the RFT torque of the same poses (paddle_rft.c) is averaged
 * with the measured one. */
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_contact.h"
#include "bg_fit.h"
#include "paddle.h"

#define SPQ 24    /* series rows per quarter turn */
#define MAXQ 16   /* quarter turns at most (start-up + window) */
#define BATCHES 4 /* batch means over the window, for the standard error */
#define SERIES_COLS 4 /* turns, torque, RFT torque, the torque's stress part (NaN before the window) */
#define QUARTER 1.57079632679489661923

/* The loop's state between samples, for a checkpoint. */
typedef struct loop {
  paddle_run *r;
  int32_t phase; /* 0 settling, 1 spinning */
  int32_t row, rows;
  double t0;                            /* time the motor started, s */
  double p_settled;                     /* mean pressure in the swept annulus after settling, Pa */
  double row_t, row_tau, row_rft;       /* the current sample's sums */
  double first_t, first_tau, first_rft; /* the first quarter turn's sums */
  double win_t, win_tau, win_rft;       /* the window's sums */
  double split_n, split_residue; /* the window's contact splits (bg_contact.h): count, residue sum */
  double split_nonlin;            /* and the largest nonlinearity among them */
} loop;

#define LOOP_DOUBLES 14

static void loop_pack(void *ctx, bg_lab_blob *b) {
  const loop *l = ctx;
  bg_lab_blob_put(b, &l->phase, sizeof l->phase);
  bg_lab_blob_put(b, &l->row, sizeof l->row);
  bg_lab_blob_put(b, &l->r->surface, sizeof l->r->surface);
  bg_lab_blob_put(b, &l->r->sigma_v_ratio, sizeof l->r->sigma_v_ratio);
  bg_lab_blob_put(b, &l->t0, LOOP_DOUBLES * sizeof(double));
  bg_lab_blob_put(b, l->r->series, SERIES_COLS * (size_t)l->row * sizeof *l->r->series);
}

static void loop_unpack(loop *l, bg_lab_blob *b) {
  bg_lab_blob_get(b, &l->phase, sizeof l->phase);
  bg_lab_blob_get(b, &l->row, sizeof l->row);
  bg_lab_blob_get(b, &l->r->surface, sizeof l->r->surface);
  bg_lab_blob_get(b, &l->r->sigma_v_ratio, sizeof l->r->sigma_v_ratio);
  bg_lab_blob_get(b, &l->t0, LOOP_DOUBLES * sizeof(double));
  if (l->row < 0 || l->row > l->rows)
    bg_lab_fail("paddle: the checkpoint holds another loop's state");
  bg_lab_blob_get(b, l->r->series, SERIES_COLS * (size_t)l->row * sizeof *l->r->series);
}

/* Inside the bar along x or, for a cross, the one along z (boxes 2R x T). */
static int in_paddle(double px, double pz, double R, double hT, int arms) {
  return (fabs(px) < R && fabs(pz) < hT) || (arms == 4 && fabs(pz) < R && fabs(px) < hT);
}

/* Mean of a stress measure over the particles in a region (NaN if none):
 * kind 0 the vertical stress -sigma_zz at the axis' depth beside the paddle
 * (|x| in [2R, x_side]); kind 1 the pressure -tr(sigma)/3 in the swept
 * annulus R/2 < r < R about the axis (x 0, z zc). */
static double stress_mean(bg_sim *sim, size_t n, int kind, double R, double zc, double dx,
                          double x_side) {
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x), *s = bg_lab_xmalloc(9 * n * sizeof *s);
  bg_lab_check(bg_sim_get(sim, BG_FIELD_X, x, 3 * n), sim, "bg_sim_get(X)");
  bg_lab_check(bg_sim_get(sim, BG_FIELD_STRESS, s, 9 * n), sim, "bg_sim_get(STRESS)");
  double sum = 0;
  size_t k = 0;
  for (size_t p = 0; p < n; ++p) {
    const double px = x[3 * p], pz = x[3 * p + 2] - zc;
    const bg_real *sp = s + 9 * p;
    if (kind == 0 && fabs(pz) < dx && fabs(px) >= 2 * R && fabs(px) <= x_side) sum += -sp[8], ++k;
    const double r = hypot(px, pz);
    if (kind == 1 && r > 0.5 * R && r < R) sum += -(sp[0] + sp[4] + sp[8]) / 3, ++k;
  }
  free(x);
  free(s);
  return k ? sum / (double)k : NAN;
}

/* The grid, the bodies and the bed; returns the simulation. */
static bg_sim *build(bg_lab *lab, const paddle_options *o, double dx, double *zc, size_t *np,
                     double *x_side) {
  const double R = o->radius, hT = 0.5 * o->thickness;
  const int nh = (int)ceil(o->half_width * R / dx),
            nz = (int)ceil((o->depth + 1 + o->below) * R / dx);
  const double a = nh * dx, H = nz * dx; /* the axis on a node: the paddle's mirror on the grid */
  *zc = -o->depth * R;
  *x_side = a - 2 * dx;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.material = bg_lab_material(lab);
  desc.dim = 2;
  desc.dx = (bg_real)dx;
  desc.cfl = (bg_real)o->cfl;
  /* the material's edges on the faces' last solid nodes (references/walls.md) */
  desc.dims[0] = 2 * (size_t)nh + 3;
  desc.dims[1] = 1;
  desc.dims[2] = (size_t)nz + (size_t)ceil(R / dx) + 7; /* room above for heave */
  desc.origin[0] = (bg_real)(-a - dx);
  desc.origin[2] = (bg_real)(-H - dx);
  desc.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  desc.walls[BG_FACE_ZLO].mu = (bg_real)o->wall_mu;
  bg_body b[2];
  for (int k = 0; k < 2; ++k) {
    b[k] = bg_body_default();
    b[k].shape = BG_BODY_BOX;
    b[k].half[0] = (bg_real)R, b[k].half[1] = (bg_real)R, b[k].half[2] = (bg_real)hT;
    b[k].x[2] = (bg_real)*zc;
    b[k].kinematic = 1;
    b[k].mu = (bg_real)o->wall_mu;
  }
  /* the second arm turned a quarter about y */
  b[1].q[0] = (bg_real)cos(0.5 * QUARTER), b[1].q[2] = (bg_real)sin(0.5 * QUARTER);
  desc.bodies = b;
  desc.n_bodies = (size_t)o->arms / 2;
  bg_sim *sim = bg_lab_create_sim(lab, &desc);
  /* the bed: 2 x 2 particles per cell, none inside the arms */
  const double sp = 0.5 * dx;
  const int ni = 4 * nh, nk = 2 * nz;
  bg_real *x = bg_lab_xmalloc(3 * (size_t)ni * (size_t)nk * sizeof *x);
  size_t n = 0;
  for (int i = 0; i < ni; ++i)
    for (int k = 0; k < nk; ++k) {
      double px = -a + (i + 0.5) * sp, pz = -H + (k + 0.5) * sp;
      if (in_paddle(px, pz - *zc, R, hT, o->arms)) continue;
      x[3 * n] = (bg_real)px, x[3 * n + 1] = 0, x[3 * n + 2] = (bg_real)pz;
      ++n;
    }
  bg_lab_check(bg_sim_add_particles(sim, n, x, NULL, 4), sim, "bg_sim_add_particles");
  free(x);
  const double phi = desc.material.dp.phi_deg * 3.14159265358979323846 / 180.0;
  bg_lab_check(bg_sim_set_geostatic(sim, 0.0, 1.0 - sin(phi)), sim, "bg_sim_set_geostatic");
  *np = n;
  return sim;
}

/* The mean, the sd of the window's sample rows in column col of the series
 * and the standard error of their mean from BATCHES batch means. */
static void window_spread(const paddle_run *r, int first_row, int col, double *mean, double *sd, double *se) {
  const size_t n = (size_t)(r->n_series - first_row);
  const double *x = r->series + SERIES_COLS * first_row + col;
  *se = bg_batch_se(x, SERIES_COLS, n, BATCHES, mean);
  *sd = n > 1 ? gsl_stats_sd_m(x, SERIES_COLS, n, *mean) : NAN;
}

paddle_run paddle_spin(bg_lab *lab, const paddle_options *o, double omega, double zeta,
                       const char *tag) {
  paddle_run r;
  memset(&r, 0, sizeof r);
  r.omega_nom = omega;
  const double R = o->radius, dx = R / o->cells;
  r.dx = dx;
  double zc, x_side;
  size_t n;
  bg_sim *sim = build(lab, o, dx, &zc, &n, &x_side);
  r.n_particles = n;
  /* the arms as the simulation holds them: RFT integrates these */
  bg_sim_desc d;
  bg_lab_check(bg_sim_describe(sim, &d), sim, "bg_sim_describe");
  r.radius_fed = d.bodies[0].half[0];
  const double h_fed = o->arms == 4 ? d.bodies[1].half[2] : 0; /* the hub: the other box */
  const int nq = o->startup + o->window;
  if (nq > MAXQ) bg_lab_fail("paddle: at most %d quarter turns", MAXQ);
  loop l;
  memset(&l, 0, sizeof l);
  l.r = &r;
  l.rows = SPQ * nq;
  r.series = bg_lab_xmalloc(SERIES_COLS * (size_t)l.rows * sizeof *r.series);
  r.n_series = l.rows;
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) loop_unpack(&l, &state);
  bg_lab_blob_free(&state);
  bg_lab_progress(lab, "%s: R/dx %g, %zu particles", tag, o->cells, n);
  const double t_q = QUARTER / fabs(omega), t_row = t_q / SPQ, t_total = nq * t_q;
  const double t_win = o->startup * t_q; /* the window starts after the start-up */
  const bg_real w[3] = {0, (bg_real)omega, 0}, v0[3] = {0, 0, 0};
  const double sgn = omega > 0 ? 1 : -1;
  const int first_win_row = o->startup * SPQ;
  char split_path[4096];
  if (snprintf(split_path, sizeof split_path, "%s/.split-%s.bgck", bg_lab_outdir(lab), tag) >= (int)sizeof split_path)
    bg_lab_fail("paddle: output path too long");
  if (!finished && l.phase == 0) {
    bg_lab_check(bg_sim_advance_to(sim, o->settle), sim, "bg_sim_advance_to (settling)");
    /* the undisturbed surface: the columns beside the paddle */
    r.surface = rft_read_surface(sim, n, dx, -x_side, -2 * R);
    const double rho_g = bg_lab_material(lab).rho0 * 9.81;
    r.sigma_v_ratio = stress_mean(sim, n, 0, R, zc, dx, x_side) / (rho_g * (r.surface - zc));
    l.p_settled = stress_mean(sim, n, 1, R, zc, dx, x_side);
    l.phase = 1;
    l.t0 = o->settle;
    bg_lab_sim_tick(ls, loop_pack, &l);
  }
  if (!finished)
    for (size_t k = 0; k < (size_t)o->arms / 2; ++k)
      bg_lab_check(bg_sim_set_body_velocity(sim, k, v0, w), sim, "bg_sim_set_body_velocity");
  bg_stats st;
  bg_body_state b0, b1;
  bg_contact_copy copy = {NULL}; /* the splits' simulation, loaded once */
  while (!finished && l.row < l.rows) {
    bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
    const double t = st.time - l.t0;
    if (t >= (l.row + 1) * t_row) { /* a sample is complete */
      double *s = r.series + SERIES_COLS * l.row;
      s[0] = fabs(omega) * t / (4 * QUARTER), s[1] = l.row_tau / l.row_t,
      s[2] = l.row_rft / l.row_t, s[3] = NAN;
      if (l.row >= first_win_row) { /* the torque's split at the row's last pose (bg_contact.h) */
        const size_t arms[2] = {0, 1};
        bg_contact_split c = bg_contact_split_at(sim, arms, (size_t)o->arms / 2, split_path, bg_lab_threads(lab), &copy);
        s[3] = -sgn * c.stress[4];
        l.split_n += 1, l.split_residue += -sgn * c.residue[4];
        l.split_nonlin = fmax(l.split_nonlin, c.nonlinearity);
      }
      l.row_t = l.row_tau = l.row_rft = 0;
      l.row++;
      bg_lab_progress_sim(lab, tag, t, t_total, (double)n * (double)st.step);
      bg_lab_sim_tick(ls, loop_pack, &l);
      continue;
    }
    bg_real dt;
    bg_lab_check(bg_sim_step(sim, &dt), sim, "bg_sim_step");
    bg_lab_check(bg_sim_body_state(sim, 0, &b0), sim, "bg_sim_body_state");
    if (o->arms == 4) bg_lab_check(bg_sim_body_state(sim, 1, &b1), sim, "bg_sim_body_state");
    /* the pose as the body holds it: a turn by theta about y */
    const double theta = 2 * atan2(b0.q[2], b0.q[0]);
    const double tau = -sgn * (b0.torque[1] + (o->arms == 4 ? b1.torque[1] : 0));
    const double rft =
        paddle_rft_torque(zeta, o->arms, r.radius_fed, h_fed, r.surface - b0.x[2], theta, b0.w[1]);
    l.row_t += dt, l.row_tau += tau * dt, l.row_rft += rft * dt;
    if (t < t_q) l.first_t += dt, l.first_tau += tau * dt, l.first_rft += rft * dt;
    if (t + dt > t_win) l.win_t += dt, l.win_tau += tau * dt, l.win_rft += rft * dt;
  }
  bg_contact_copy_free(&copy);
  bg_lab_sim_end(ls, loop_pack, &l);
  /* what the simulation was fed, read back */
  bg_lab_check(bg_sim_body_state(sim, 0, &b0), sim, "bg_sim_body_state");
  b1 = b0;
  if (o->arms == 4) bg_lab_check(bg_sim_body_state(sim, 1, &b1), sim, "bg_sim_body_state");
  r.omega_fed = 0.5 * (b0.w[1] + b1.w[1]);
  r.depth = r.surface - b0.x[2];
  r.tip_speed = fabs(r.omega_fed) * r.radius_fed;
  r.froude = r.tip_speed * r.tip_speed / (fabs(d.gravity[2]) * r.depth);
  r.torque = l.win_tau / l.win_t, r.rft = l.win_rft / l.win_t;
  r.torque_first = l.first_tau / l.first_t, r.rft_first = l.first_rft / l.first_t;
  r.split_n = (int)l.split_n;
  r.torque_residue = l.split_n > 0 ? l.split_residue / l.split_n : NAN;
  r.split_nonlinearity = l.split_nonlin;
  r.p_swept_ratio = stress_mean(sim, n, 1, R, b0.x[2], dx, x_side) / l.p_settled;
  double mean;
  window_spread(&r, first_win_row, 1, &mean, &r.sd, &r.se);
  window_spread(&r, first_win_row, 3, &r.torque_stress, &r.stress_sd, &r.stress_se);
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  r.steps = st.step;
  bg_lab_add_work(lab, (double)n * (double)st.step);
  bg_sim_destroy(sim);
  bg_lab_progress(
      lab, "%s: torque %.4g N m/m (sd %.3g, se %.3g) = stress %.4g + residue %.4g (%d probes), RFT %.4g, "
      "first quarter %.4g (%llu steps)",
      tag, r.torque, r.sd, r.se, r.torque_stress, r.torque_residue, r.split_n, r.rft, r.torque_first,
      (unsigned long long)r.steps);
  return r;
}
