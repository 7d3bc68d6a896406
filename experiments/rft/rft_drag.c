/* rft_drag.c: one drag of a thin plate through a 2D (plane-strain) or 3D
 * sand bed at a scripted velocity, its force read every step.
 *
 * Scene, per metre of depth (the 2D solver, x-z plane; with a width, a 3D
 * bed and a plate that wide across y, its forces divided by that width so
 * that every alpha keeps the plane-strain units): a bed of the run's
 * sand between slip faces, in its geostatic state (K0 = 1 - sin phi), and a
 * kinematic box L long and L / aspect thick, its centre at the fed depth
 * below the bed's top, turned about y so that its leading (+x) edge rises by
 * beta. The sand is seeded around it (2 x 2 particles per cell, none inside
 * the plate), settles for a short time with the plate at rest, and the free
 * surface is then read from the particles. The plate then moves at speed v
 * forward (+x) and down at gamma below the horizontal, over a travel of a
 * plate length or two.
 *
 * Read-out, through the public API: the plate's row of bg_sim_wall_forces
 * (colliders, then bodies, then faces: row 0 here) each step, averaged with
 * the step's dt over the window (the last part of the travel, where the
 * force has left its start-up), and split at the end of each sample row in
 * the window into the stress's part and the transfers' (bg_contact.h): the
 * alphas and the claims read the stress part, the mean over those splits;
 * the depth is the mean over the same window
 * of the read surface minus the plate centre's height (bg_sim_body_state).
 * alpha_z = F_z / (L |z|), alpha_x = -F_x / (L |z|) (against the forward
 * motion), both per metre of depth. The angle and the speed the claims use
 * are read back from the body (its quaternion and velocity), not the
 * nominal ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_contact.h"
#include "bg_fit.h"
#include "rft.h"

#define SAMPLES 40 /* series rows over the travel */

/* The loop's state between samples, for a checkpoint. */
typedef struct loop {
  rft_run *r;
  int32_t phase; /* 0 settling, 1 dragging */
  int32_t row;
  double t_drag0;                          /* time the drag started, s */
  double win_t, win_fx, win_fz, win_depth; /* window sums: time, impulses, depth x time */
  double row_t, row_fx, row_fz;            /* the current sample's sums */
  /* the window's contact splits (bg_contact.h), one at the end of each sample row in it: count,
   * the stress part's and the residue's sums (x, z), the largest nonlinearity */
  double split_n, split_fx, split_fz, res_fx, res_fz, split_nonlin;
} loop;

#define LOOP_DOUBLES 14

static void loop_pack(void *ctx, bg_lab_blob *b) {
  const loop *l = ctx;
  bg_lab_blob_put(b, &l->phase, sizeof l->phase);
  bg_lab_blob_put(b, &l->row, sizeof l->row);
  bg_lab_blob_put(b, &l->r->surface, sizeof l->r->surface);
  bg_lab_blob_put(b, &l->t_drag0, LOOP_DOUBLES * sizeof(double));
  bg_lab_blob_put(b, l->r->series, RFT_SERIES_COLS * (size_t)l->row * sizeof *l->r->series);
}

static void loop_unpack(loop *l, bg_lab_blob *b) {
  bg_lab_blob_get(b, &l->phase, sizeof l->phase);
  bg_lab_blob_get(b, &l->row, sizeof l->row);
  bg_lab_blob_get(b, &l->r->surface, sizeof l->r->surface);
  bg_lab_blob_get(b, &l->t_drag0, LOOP_DOUBLES * sizeof(double));
  if (l->row < 0 || l->row > SAMPLES) bg_lab_fail("rft: the checkpoint holds another loop's state");
  bg_lab_blob_get(b, l->r->series, RFT_SERIES_COLS * (size_t)l->row * sizeof *l->r->series);
}

/* Signed distance to the plate, p relative to its centre, in the plane. */
static double plate_phi(double px, double pz, double beta, double hx, double hz) {
  /* the plate's own frame: its long axis at +beta from +x */
  double u = cos(beta) * px + sin(beta) * pz, w = -sin(beta) * px + cos(beta) * pz;
  double qx = fabs(u) - hx, qz = fabs(w) - hz;
  double ox = qx > 0 ? qx : 0, oz = qz > 0 ? qz : 0;
  double in = qx > qz ? qx : qz;
  return sqrt(ox * ox + oz * oz) + (in < 0 ? in : 0);
}

/* The free surface over the columns of particles (dx / 2 wide) in
 * [x0, x1], and in 3D (band > 0) |y| < band, the plate's lane: the mean of
 * each column's highest particle, plus the quarter cell its share of the
 * material reaches above it. */
static double surface_of(const bg_real *x, size_t n, double dx, double band, double x0, double x1) {
  const int nx = (int)ceil((x1 - x0) / (0.5 * dx)), ny = band > 0 ? (int)ceil(2 * band / (0.5 * dx)) : 1;
  const int nc = nx * ny;
  double *top = bg_lab_xmalloc((size_t)nc * sizeof *top);
  for (int c = 0; c < nc; ++c) top[c] = -INFINITY;
  for (size_t p = 0; p < n; ++p) {
    int c = (int)floor((x[3 * p] - x0) / (0.5 * dx));
    int cy = band > 0 ? (int)floor((x[3 * p + 1] + band) / (0.5 * dx)) : 0;
    if (c < 0 || c >= nx || cy < 0 || cy >= ny) continue;
    c = c * ny + cy;
    if (x[3 * p + 2] > top[c]) top[c] = x[3 * p + 2];
  }
  double s = 0;
  int k = 0;
  for (int c = 0; c < nc; ++c)
    if (isfinite(top[c])) s += top[c], ++k;
  free(top);
  if (!k) bg_lab_fail("rft: no particle in the surface's columns [%g, %g] m", x0, x1);
  return s / k + 0.25 * dx;
}

void rft_read_surfaces(bg_sim *sim, size_t n, double dx, double band, int k, const double *x0, const double *x1,
                       double *out) {
  bg_real *x = bg_lab_xmalloc(3 * n * sizeof *x);
  bg_lab_check(bg_sim_get(sim, BG_FIELD_X, x, 3 * n), sim, "bg_sim_get(X)");
  for (int i = 0; i < k; ++i) out[i] = surface_of(x, n, dx, band, x0[i], x1[i]);
  free(x);
}

double rft_read_surface(bg_sim *sim, size_t n, double dx, double x0, double x1) {
  double s;
  rft_read_surfaces(sim, n, dx, 0, 1, &x0, &x1, &s);
  return s;
}

rft_run rft_drag(bg_lab *lab, const rft_options *o, double cells, double beta, double gamma,
                 double depth, double speed, double phi_deg, const char *tag) {
  rft_run r;
  memset(&r, 0, sizeof r);
  r.beta_nom = beta, r.gamma_nom = gamma, r.depth_nom = depth, r.phi_deg = phi_deg;
  const double L = o->length, dx = L / cells, hx = 0.5 * L, hz = 0.5 * L / o->aspect;
  const double travel = o->travel * L;
  /* 3D: the plate's half width, and the bed beside it across y (none: the
   * plate spans the bed from face to face, a slab in plane strain) */
  const int d3 = o->width > 0;
  const double hy = d3 ? 0.5 * o->width * L : 0, span = d3 ? 2 * hy : 1.0;
  const double wide = d3 ? hy + (o->across > 0 ? depth * o->across + 4 * dx : 0) : 0;
  const int ny = d3 ? 2 * (int)ceil(wide / dx - 1e-9) : 0;
  r.dx = dx;
  /* the bed: behind the plate its reach, ahead the travel and the passive
   * wedge (--ahead depths); a plate moving down has --side depths on each
   * side for the wedges it bears on, so the bed is symmetric about it. Below
   * it the travel down and --below plate lengths. Whole cells behind, so that
   * the plate's centre starts on a node: a mirror image on the grid. The
   * cell counts round down what exceeds a whole number by round-off (cos 90
   * is not 0 in floating point), lest one cell more on one side alone break
   * that symmetry. */
  const double cg = cos(gamma), sg = sin(gamma);
  const double side = depth * (1 + (o->side - 1) * sg);
  const double behind = ceil((hx + side) / dx + 4 - 1e-9) * dx;
  const double ahead = hx + travel * cg + depth * (o->ahead - 1) * cg + side + 4 * dx;
  const double below = depth + hx + travel * sg + o->below * L;
  const int nx = (int)ceil((behind + ahead) / dx - 1e-9), nz = (int)ceil(below / dx - 1e-9);
  const double H = nz * dx; /* the bed's top above its floor */
  bg_sim_desc desc = bg_sim_desc_default();
  desc.material = bg_lab_material(lab);
  desc.material.dp.phi_deg = (bg_real)phi_deg;
  desc.dim = d3 ? 3 : 2;
  desc.dx = (bg_real)dx;
  desc.cfl = (bg_real)o->cfl;
  /* the material's edges on the faces' last solid nodes (node 1 and N-2):
   * where a loaded face acts (references/walls.md) */
  desc.dims[0] = (size_t)nx + 3;
  desc.dims[1] = d3 ? (size_t)ny + 3 : 1;
  desc.origin[1] = (bg_real)(d3 ? -0.5 * ny * dx - dx : 0);
  desc.dims[2] = (size_t)nz + (size_t)ceil((hx + 8 * dx) / dx) + 3;
  desc.origin[0] = (bg_real)(-behind - dx);
  desc.origin[2] = (bg_real)(-H - dx);
  bg_body b = bg_body_default();
  b.shape = BG_BODY_BOX;
  /* a slab's plate reaches through the faces' nodes, lest sand on them pass round its ends */
  const double plate_hy = !d3 ? hx : o->across > 0 ? hy : hy + 3 * dx;
  b.half[0] = (bg_real)hx, b.half[1] = (bg_real)plate_hy, b.half[2] = (bg_real)hz;
  /* a turn by theta about y takes +x to (cos theta, -sin theta): theta = -beta */
  b.q[0] = (bg_real)cos(-0.5 * beta), b.q[2] = (bg_real)sin(-0.5 * beta);
  b.x[2] = (bg_real)(-depth);
  b.kinematic = 1;
  b.mu = (bg_real)o->wall_mu;
  desc.bodies = &b;
  desc.n_bodies = 1;
  bg_sim *sim = bg_lab_create_sim(lab, &desc);

  /* the bed: 2 x 2 (x 2 in 3D) particles per cell, none inside the plate */
  const double sp = 0.5 * dx, x0 = -behind, z0 = -H, y0 = -0.5 * ny * dx;
  const int ni = 2 * nx, nk = 2 * nz, nj = d3 ? 2 * ny : 1;
  bg_real *x = bg_lab_xmalloc(3 * (size_t)ni * (size_t)nj * (size_t)nk * sizeof *x);
  size_t n = 0;
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j)
      for (int k = 0; k < nk; ++k) {
        double px = x0 + (i + 0.5) * sp, pz = z0 + (k + 0.5) * sp, py = d3 ? y0 + (j + 0.5) * sp : 0;
        if (plate_phi(px, pz + depth, beta, hx, hz) < 0 && (!d3 || fabs(py) < hy)) continue;
        x[3 * n] = (bg_real)px, x[3 * n + 1] = (bg_real)py, x[3 * n + 2] = (bg_real)pz;
        ++n;
      }
  bg_lab_check(bg_sim_add_particles(sim, n, x, NULL, d3 ? 8 : 4), sim, "bg_sim_add_particles");
  free(x);
  r.n_particles = n;
  bg_lab_check(bg_sim_set_geostatic(sim, 0.0, 1.0 - sin(phi_deg * 3.14159265358979323846 / 180.0)), sim,
        "bg_sim_set_geostatic");

  r.series = bg_lab_xmalloc(RFT_SERIES_COLS * SAMPLES * sizeof *r.series);
  r.n_series = SAMPLES;
  loop l;
  memset(&l, 0, sizeof l);
  l.r = &r;
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) loop_unpack(&l, &state);
  bg_lab_blob_free(&state);
  bg_lab_progress(lab, "%s: L/dx %g, %zu particles, grid %zux%zux%zu", tag, cells, n, desc.dims[0],
                  desc.dims[1], desc.dims[2]);
  const double t_drag = travel / speed, t_row = t_drag / SAMPLES, t_win = o->window * L / speed;
  const bg_real v[3] = {(bg_real)(speed * cos(gamma)), 0, (bg_real)(-speed * sin(gamma))},
                w0[3] = {0, 0, 0};
  const size_t nw = bg_sim_wall_count(sim);
  double *wf = bg_lab_xmalloc(3 * nw * sizeof *wf);
  if (!finished && l.phase == 0) {
    bg_lab_check(bg_sim_advance_to(sim, o->settle), sim, "bg_sim_advance_to (settling)");
    /* the undisturbed surface: the columns behind the plate's reach */
    const double s0 = x0 + 2 * dx, s1 = -hx - 0.5 * depth;
    rft_read_surfaces(sim, n, dx, hy, 1, &s0, &s1, &r.surface);
    l.phase = 1;
    l.t_drag0 = o->settle;
    bg_lab_sim_tick(ls, loop_pack, &l);
  }
  if (!finished) bg_lab_check(bg_sim_set_body_velocity(sim, 0, v, w0), sim, "bg_sim_set_body_velocity");
  char split_path[4096];
  if (snprintf(split_path, sizeof split_path, "%s/.split-%s.bgck", bg_lab_outdir(lab), tag) >= (int)sizeof split_path)
    bg_lab_fail("rft: output path too long");
  bg_stats st;
  bg_contact_copy copy = {NULL}; /* the splits' simulation, loaded once */
  while (!finished && l.row < SAMPLES) {
    bg_body_state bs;
    bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
    const double t = st.time - l.t_drag0;
    if (t >= (l.row + 1) * t_row) { /* a sample is complete */
      bg_lab_check(bg_sim_body_state(sim, 0, &bs), sim, "bg_sim_body_state");
      double *s = r.series + RFT_SERIES_COLS * l.row;
      s[0] = speed * t / L, s[1] = r.surface - bs.x[2];
      s[2] = l.row_fx / l.row_t, s[3] = l.row_fz / l.row_t;
      /* the surface as the drag leaves it: over the plate's span, and over
       * the passive wedge ahead of it (half, one and two depths long) */
      const double xc = bs.x[0], zc = r.surface - bs.x[2];
      const double from[4] = {xc - hx, xc + hx, xc + hx, xc + hx},
                   to[4] = {xc + hx, xc + hx + 0.5 * zc, xc + hx + zc, xc + hx + 2 * zc};
      rft_read_surfaces(sim, n, dx, hy, 4, from, to, s + 4);
      s[10] = s[1] + s[6] - r.surface; /* the depth below the surface one depth ahead */
      if (t >= t_drag - t_win) { /* the force's split at this pose (bg_contact.h) */
        const size_t plate = 0;
        bg_contact_split c = bg_contact_split_at(sim, &plate, 1, split_path, bg_lab_threads(lab), &copy);
        for (int a = 0; a < 3; ++a) c.stress[a] /= span, c.residue[a] /= span; /* per metre across */
        l.split_n += 1, l.split_fx += c.stress[0], l.split_fz += c.stress[2];
        l.res_fx += c.residue[0], l.res_fz += c.residue[2];
        l.split_nonlin = fmax(l.split_nonlin, c.nonlinearity);
        s[8] = c.stress[0], s[9] = c.stress[2];
      } else {
        s[8] = s[9] = NAN;
      }
      l.row_t = l.row_fx = l.row_fz = 0;
      l.row++;
      bg_lab_progress_sim(lab, tag, t, t_drag, (double)n * (double)st.step);
      bg_lab_sim_tick(ls, loop_pack, &l);
      continue;
    }
    bg_real dt;
    bg_lab_check(bg_sim_step(sim, &dt), sim, "bg_sim_step");
    bg_lab_check(bg_sim_wall_forces(sim, wf, 3 * nw), sim, "bg_sim_wall_forces");
    bg_lab_check(bg_sim_body_state(sim, 0, &bs), sim, "bg_sim_body_state");
    const double fx = wf[0] / span, fz = wf[2] / span; /* per metre across */
    l.row_t += dt, l.row_fx += fx * dt, l.row_fz += fz * dt;
    if (t + dt > t_drag - t_win) { /* the window: the last part of the travel */
      l.win_t += dt, l.win_fx += fx * dt, l.win_fz += fz * dt;
      l.win_depth += (r.surface - bs.x[2]) * dt;
    }
  }
  bg_contact_copy_free(&copy);
  bg_lab_sim_end(ls, loop_pack, &l);
  /* what the simulation was fed, read back */
  bg_body_state bs;
  bg_lab_check(bg_sim_body_state(sim, 0, &bs), sim, "bg_sim_body_state");
  double R20 = 2 * (bs.q[1] * bs.q[3] - bs.q[0] * bs.q[2]),
         R00 = 1 - 2 * (bs.q[2] * bs.q[2] + bs.q[3] * bs.q[3]);
  r.beta_fed = atan2(R20, R00); /* the long axis' rise over +x */
  r.gamma_fed = atan2(-bs.v[2], bs.v[0]);
  r.speed_fed = hypot(bs.v[0], bs.v[2]);
  /* the heap the plate pushes up ahead of it deepens the overburden of the
   * sand it shears as it goes (reports/rft.md): over the window's rows (those
   * with a split), the mean depth below it, and the force per unit overburden
   * row by row, with its scatter as the wedge ahead fails and re-forms from
   * batch means of the rows */
  double za = 0, ar[SAMPLES];
  int na = 0;
  for (int i = 0; i < SAMPLES; ++i) {
    const double *s = r.series + RFT_SERIES_COLS * i;
    if (!isfinite(s[8])) continue;
    za += s[10];
    ar[na++] = hypot(s[8], s[9]) / (L * s[10]);
  }
  r.depth_ahead = na ? za / na : NAN;
  r.alpha_ahead_se = bg_batch_se(ar, 1, (size_t)na, RFT_BATCHES, &r.alpha_ahead);
  /* the claims read the stress part: the residue is the transfers', and grows as dt shrinks */
  r.contact_fx = l.win_fx / l.win_t, r.contact_fz = l.win_fz / l.win_t, r.depth = l.win_depth / l.win_t;
  if (l.split_n < 1) bg_lab_fail("rft: %s: no contact split in the window (a window shorter than a sample row)", tag);
  r.fx = l.split_fx / l.split_n, r.fz = l.split_fz / l.split_n;
  r.residue_fx = l.res_fx / l.split_n, r.residue_fz = l.res_fz / l.split_n;
  r.split_n = (int)l.split_n, r.split_nonlinearity = l.split_nonlin;
  r.alpha_x = -r.fx / (L * r.depth), r.alpha_z = r.fz / (L * r.depth);
  r.rate_number = r.speed_fed * r.speed_fed / (fabs(desc.gravity[2]) * r.depth);
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  r.steps = st.step;
  bg_lab_add_work(lab, (double)n * (double)st.step);
  free(wf);
  bg_sim_destroy(sim);
  bg_lab_progress(lab, "%s: alpha_z %.4g, alpha_x %.4g N/cm^3 at |z| %.4g m (%llu steps)", tag,
                  r.alpha_z * 1e-6, r.alpha_x * 1e-6, r.depth, (unsigned long long)r.steps);
  return r;
}
