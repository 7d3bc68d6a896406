/* impact_drop.c: one drop of exp_impact. A sphere (a free bg_body) falls
 * into a bed of sand at rest and its lowest point is read; the crater is
 * read from the particles when the sphere stops.
 *
 * Scene (the probe reports/results/cpu-2core/impact-probe/drop.py's, but
 * for the speed at release: the probe's sphere fell its 1.5-cell gap on
 * top of h, which H = h + d left out): a square bed W wide and B deep on a Coulomb
 * floor, slip side faces, each edge on its wall's last solid node (half a
 * cell outside the face's plane: bg_wall_edge_offset), 2 particles per cell
 * per axis, in its geostatic state (K0 from Jaky's 1 - sin phi of the
 * material's own friction, so the state lies inside the yield surface of
 * either model). The sphere's centre is over the bed's centre, its bottom
 * gap_cells above the surface (clear of the bed's B-spline stencil), moving
 * down at sqrt(2 g (h - gap)), so that it meets the surface with the speed
 * of a free fall from h: the H of Uehara's law is h + d.
 *
 * Read-out: d is the sphere's bottom at its lowest below the undisturbed
 * surface, read every step; the drop ends when the sphere's downward speed
 * has fallen below stop_frac of its impact speed with its bottom below the
 * surface. The crater is read then: the mass-equivalent height of the
 * surface in rings dx / 2 wide about the sphere's axis (of dx x dx columns,
 * each column's mass over rho_g dx^2) counts sand still in flight over the
 * ring it flies over, so grains in the air leave no holes or spikes in the
 * profile. The crater's diameter at
 * the original surface level is where that profile first rises back to the
 * surface, going out from the axis; the rim-to-rim diameter is twice the
 * radius of its highest ring within twice that radius. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "impact.h"

#define G 9.81
#define DEG 57.29577951308232
#define PI 3.14159265358979323846

/* The friction coefficient of the material as the simulation holds it:
 * tan phi for Drucker-Prager, mu_s for mu(I). */
double impact_held_friction(const bg_material *m) {
  if (m->model == BG_MODEL_DP) return tan(m->dp.phi_deg / DEG);
  double mu_s = bg_lab_static_friction(m);
  if (mu_s <= 0) bg_lab_fail("impact: the material has no friction coefficient to compare with");
  return mu_s;
}

/* The loop's state between steps, for a checkpoint. */
typedef struct loop {
  double zmin, t_stop;
  int32_t stopped;
} loop;

static void loop_pack(void *ctx, bg_lab_blob *b) { bg_lab_blob_put(b, ctx, sizeof(loop)); }

/* The crater profile and its two diameters from the particles now: the
 * mass-equivalent height of every dx x dx column of the bed (4 lattice
 * columns each at the start, so the undisturbed bed reads its surface
 * exactly), averaged over the columns whose centres fall in each ring. */
static void read_crater(bg_sim *sim, impact_drop *r, double lo, int cw, double z_floor,
                        double z_surf) {
  size_t n = r->particles;
  double dx = r->dx, xc = lo + 0.5 * cw * dx;
  bg_real *x = malloc(3 * n * sizeof *x), *m = malloc(n * sizeof *m);
  double *col = calloc((size_t)cw * cw, sizeof *col);
  if (!x || !m || !col) bg_lab_fail("out of memory (%zu particles)", n);
  bg_lab_check(bg_sim_get(sim, BG_FIELD_X, x, 3 * n), sim, "bg_sim_get x");
  bg_lab_check(bg_sim_get(sim, BG_FIELD_MASS, m, n), sim, "bg_sim_get mass");
  for (size_t p = 0; p < n; ++p) {
    int i = (int)floor((x[3 * p] - lo) / dx), j = (int)floor((x[3 * p + 1] - lo) / dx);
    if (i >= 0 && i < cw && j >= 0 && j < cw) col[(size_t)i * cw + j] += m[p];
  }
  free(x);
  free(m);
  /* rings dx / 2 wide, out to a cell inside the bed's half width */
  double w = 0.5 * dx, sum[IMPACT_PROFILE_BINS] = {0};
  int cnt[IMPACT_PROFILE_BINS] = {0}, nb = (int)floor((0.5 * cw * dx - dx) / w);
  if (nb > IMPACT_PROFILE_BINS) nb = IMPACT_PROFILE_BINS;
  for (int i = 0; i < cw; ++i)
    for (int j = 0; j < cw; ++j) {
      int k = (int)(hypot(lo + (i + 0.5) * dx - xc, lo + (j + 0.5) * dx - xc) / w);
      if (k >= nb) continue;
      sum[k] += z_floor + col[(size_t)i * cw + j] / (r->rho_g * dx * dx) - z_surf;
      cnt[k]++;
    }
  free(col);
  r->n_bins = nb;
  int crossed = -1, prev = -1;
  for (int k = 0; k < nb; ++k) {
    r->profile[k] = cnt[k] ? sum[k] / cnt[k] : NAN;
    if (!cnt[k]) continue;
    if (crossed < 0 && prev >= 0 && r->profile[k] >= 0 && r->profile[prev] < 0) {
      double a = r->profile[prev], b = r->profile[k]; /* linear between the two ring centres */
      r->crater_surface = 2 * w * (prev + 0.5 + (k - prev) * (-a) / (b - a));
      crossed = k;
    }
    prev = k;
  }
  r->crater_surface = crossed < 0 ? NAN : r->crater_surface;
  r->rim_height = r->crater_rim = NAN;
  if (crossed < 0) return;
  /* the rim: the highest ring out to twice the crossing's radius (ejecta
   * land farther out in a thin, patchy sheet whose bumps are no rim) */
  int rim = crossed;
  for (int k = crossed; k < nb && (k + 0.5) * w <= r->crater_surface; ++k)
    if (cnt[k] && r->profile[k] > r->profile[rim]) rim = k;
  r->rim_height = r->profile[rim];
  r->crater_rim = 2 * (rim + 0.5) * w;
}

static size_t add_bed(bg_sim *sim, double dx, double lo, double W, double z0, double B) {
  double s = 0.5 * dx;
  int ni = (int)lround(W / s), nk = (int)lround(B / s);
  size_t n = (size_t)ni * ni * nk, p = 0;
  bg_real *x = malloc(3 * n * sizeof *x);
  if (!x) bg_lab_fail("out of memory (%zu particles)", n);
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < ni; ++j)
      for (int k = 0; k < nk; ++k, ++p) {
        x[3 * p] = (bg_real)(lo + (i + 0.5) * s);
        x[3 * p + 1] = (bg_real)(lo + (j + 0.5) * s);
        x[3 * p + 2] = (bg_real)(z0 + (k + 0.5) * s);
      }
  bg_lab_check(bg_sim_add_particles(sim, n, x, NULL, 8), sim, "bg_sim_add_particles");
  free(x);
  return n;
}

impact_drop impact_run_drop(bg_lab *lab, const impact_options *o, double dx, double D, double h,
                            impact_feed feed, const char *tag) {
  impact_drop r;
  memset(&r, 0, sizeof r);
  r.dx = dx;
  r.D = D;
  r.h = h;
  r.v_impact = sqrt(2 * G * h);
  int cw = (int)lround(o->bed_width / dx), cb = (int)lround(o->bed_depth / dx);
  double W = cw * dx, B = cb * dx, R = 0.5 * D, gap = o->gap_cells * dx;
  /* the faces' planes lie 1.5 cells inside their outer nodes; the edges
   * start on the last solid node, a cell in (bg_wall_edge_offset: -0.5) */
  double lo = (1.5 + bg_wall_edge_offset(BG_FRICTION_SLIP, 1.5)) * dx;
  double z_floor = lo, z_surf = lo + B, xc = lo + 0.5 * W;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.material = bg_lab_material(lab);
  if (feed.phi_shift_deg != 0) {
    if (desc.material.model != BG_MODEL_DP) bg_lab_fail("impact: a friction-angle shift needs Drucker-Prager sand");
    desc.material.dp.phi_deg += (bg_real)feed.phi_shift_deg;
  }
  desc.dx = (bg_real)dx;
  desc.cfl = (bg_real)o->cfl;
  desc.dims[0] = desc.dims[1] = (size_t)cw + 4;
  /* above the surface: the sphere, its gap and two cells over it */
  desc.dims[2] = (size_t)(cb + 4 + (int)ceil((D + gap) / dx) + 2);
  desc.walls[BG_FACE_ZLO].friction = BG_FRICTION_COULOMB;
  desc.walls[BG_FACE_ZLO].mu = (bg_real)o->wall_mu;
  bg_body ball = bg_body_default();
  ball.shape = BG_BODY_SPHERE;
  ball.radius = (bg_real)R;
  ball.density = (bg_real)(o->density_ratio * desc.material.rho0 * feed.density_scale);
  ball.x[0] = ball.x[1] = (bg_real)xc;
  ball.x[2] = (bg_real)(z_surf + gap + R);
  ball.v[2] = (bg_real)(-sqrt(2 * G * (h - gap)));
  ball.friction = BG_FRICTION_COULOMB;
  ball.mu = (bg_real)o->wall_mu;
  desc.bodies = &ball;
  desc.n_bodies = 1;
  bg_sim *sim = bg_lab_create_sim(lab, &desc);
  r.particles = add_bed(sim, dx, lo, W, z_floor, B);

  /* what the claims compare with, read back from the simulation */
  bg_sim_desc held;
  bg_lab_check(bg_sim_describe(sim, &held), sim, "bg_sim_describe");
  r.mu_fed = impact_held_friction(&held.material);
  bg_body_state bs;
  bg_lab_check(bg_sim_body_state(sim, 0, &bs), sim, "bg_sim_body_state");
  r.rho_b_held = bs.mass / (PI / 6 * D * D * D);
  bg_stats st;
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  r.rho_g = st.total_mass / (W * W * B);
  double k0 = 1 - sin(atan(r.mu_fed));
  bg_lab_check(bg_sim_set_geostatic(sim, z_surf, k0), sim, "bg_sim_set_geostatic");

  loop l = {ball.x[2] - R, 0, 0};
  bg_lab_blob state;
  int finished;
  bg_lab_sim *ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
  if (state.len) bg_lab_blob_get(&state, &l, sizeof l);
  bg_lab_blob_free(&state);
  bg_lab_progress(lab, "%s: dx %.4g m, D %.3g m, h %.3g m, %zu particles, grid %zux%zux%zu", tag,
                  dx, D, h, r.particles, desc.dims[0], desc.dims[1], desc.dims[2]);
  while (!finished && !l.stopped) {
    bg_lab_check(bg_sim_step(sim, NULL), sim, "bg_sim_step");
    bg_lab_check(bg_sim_body_state(sim, 0, &bs), sim, "bg_sim_body_state");
    bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
    double bottom = bs.x[2] - R;
    if (bottom < l.zmin) l.zmin = bottom;
    /* the downward motion has ended inside the bed (its speed below
     * stop_frac of the impact speed: a sphere resting on the sand may creep
     * on for long at a tiny speed), or the time is up */
    int halted = bottom < z_surf && bs.v[2] >= -o->stop_frac * r.v_impact;
    if (bs.parked || halted || st.time >= o->t_max) {
      l.stopped = halted && !bs.parked ? 1 : -1;
      l.t_stop = st.time;
    }
    bg_lab_progress_sim(lab, tag, st.time, o->t_max, (double)r.particles * (double)st.step);
    bg_lab_sim_tick(ls, loop_pack, &l);
  }
  bg_lab_sim_end(ls, loop_pack, &l);
  bg_lab_check(bg_sim_stats(sim, &st), sim, "bg_sim_stats");
  r.steps = st.step;
  r.stopped = l.stopped == 1;
  r.t_stop = l.t_stop;
  r.depth = z_surf - l.zmin;
  r.depth_release = z_surf + gap - l.zmin;
  r.H = h + r.depth;
  read_crater(sim, &r, lo, cw, z_floor, z_surf);
  bg_lab_add_work(lab, (double)r.particles * (double)st.step);
  bg_sim_destroy(sim);
  bg_lab_progress(
      lab,
      "%s: d %.2f cm (H %.2f cm), crater %.1f cm at the surface, %.1f cm rim to rim, %s at %.3f s",
      tag, 100 * r.depth, 100 * r.H, 100 * r.crater_surface, 100 * r.crater_rim,
      r.stopped ? "stopped" : "NOT stopped", r.t_stop);
  return r;
}
