/* density.c: a block of Klar's sand dropped onto a rough floor, left to
 * settle, and its density read out three ways.
 *
 * Particle state: rho = rho0 / (det F_E * Jp) per particle (the seed's
 * read-out), and rho0 / det F_E alone. With the volume correction the
 * return map keeps log Jp = 0 for every particle that carries load (the
 * stored dilation is folded back into F_E before the elastic/shear return)
 * and projects unloaded particles to the cone's tip with F_E = rotation,
 * det F_E = 1: so rho0 / det F_E never reads below rho0, and only Jp records
 * where the sand was pulled apart.
 *
 * Independent grid estimate: after the last P2G the node mass m_i is the
 * B-spline-weighted particle mass around node i, so m_i / dx^3 is the local
 * mass density wherever the node's whole support (+-1.5 dx) lies inside the
 * sand. Nodes near the surface carry partial mass, so counting every node
 * with mass as "occupied volume" underestimates the density. A node is
 * interior here when every node within +-3 along each axis (7^3 cube) has
 * mass: in 1D a node at distance s from a flat surface has mass iff
 * s > -1.5 dx, so the +-3 rule admits exactly the nodes with s >= 1.5 dx,
 * whose support is full. The bulk grid density is sum(m_i) / (N dx^3) over
 * interior nodes; the particle estimate of the same bulk is
 * sum(m_p) / sum(V0 det F_E Jp) over particles whose nearest node is
 * interior. Their relative difference is claim density.grid_vs_particles.
 *
 * At rest: kinetic energy below --rest-ke times M g H (H the block's
 * initial height), checked every series row after the block first touched
 * the floor; the run stops there, or at --time. */
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "bg_lab.h"

#define G 9.81

static void check(bg_status s, bg_sim *sim, const char *what) {
  if (s == BG_OK) return;
  fprintf(stderr, "error: %s: %s (%s)\n", what, bg_status_str(s), sim ? bg_sim_last_error(sim) : "");
  exit(2);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "error: out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

static double det3(const bg_real *f) {
  return (double)f[0] * ((double)f[4] * f[8] - (double)f[5] * f[7]) -
         (double)f[1] * ((double)f[3] * f[8] - (double)f[5] * f[6]) +
         (double)f[2] * ((double)f[3] * f[7] - (double)f[4] * f[6]);
}

/* 1D erosion of a 0/1 mask along axis a with radius r: out = 1 where every
 * cell within +-r along a is 1 (cells beyond the grid count as 0). */
static void erode_axis(const unsigned char *in, unsigned char *out, const size_t *dims, int a, int r) {
  size_t nx = dims[0], ny = dims[1], nz = dims[2];
  size_t stride = a == 0 ? ny * nz : a == 1 ? nz : 1;
  size_t n = dims[a];
  for (size_t i = 0; i < nx; ++i)
    for (size_t j = 0; j < ny; ++j)
      for (size_t k = 0; k < nz; ++k) {
        size_t idx = (i * ny + j) * nz + k;
        size_t c = a == 0 ? i : a == 1 ? j : k;
        unsigned char ok = 1;
        if (c < (size_t)r || c + (size_t)r >= n) ok = 0;
        for (int d = -r; ok && d <= r; ++d) ok = in[(size_t)((ptrdiff_t)idx + d * (ptrdiff_t)stride)];
        out[idx] = ok;
      }
}

static double kinetic_energy(bg_sim *sim, size_t n, bg_real *v, const bg_real *m) {
  check(bg_sim_get(sim, BG_FIELD_V, v, 3 * n), sim, "reading velocities");
  double ke = 0;
  for (size_t p = 0; p < n; ++p)
    ke += 0.5 * m[p] * ((double)v[3 * p] * v[3 * p] + (double)v[3 * p + 1] * v[3 * p + 1] +
                        (double)v[3 * p + 2] * v[3 * p + 2]);
  return ke;
}

int main(int argc, char **argv) {
  double dx = 0, block = 0, block_h = 0, drop = 0, t_max = 0, rest_ke = 0, floor_mu = 0, jitter = 0;
  double bin_w = 0;
  int ppc = 0, vtk = 0;
  bg_lab_param params[] = {
      {"dx", BG_PARAM_DOUBLE, &dx, 5e-4, 0.05, "grid spacing, m (quick 0.01, paper 0.16/96)", 0},
      {"ppc", BG_PARAM_INT, &ppc, 1, 64, "particles per cell, a cube: 1, 8, 27 or 64 (default 8)", 0},
      {"block", BG_PARAM_DOUBLE, &block, 0.02, 1.0, "block side length in x and y, m", 0},
      {"block-height", BG_PARAM_DOUBLE, &block_h, 0.02, 1.0, "block height H, m", 0},
      {"drop-height", BG_PARAM_DOUBLE, &drop, 0.0, 1.0, "gap between floor and block bottom at t = 0, m", 0},
      {"time", BG_PARAM_DOUBLE, &t_max, 0.05, 20.0, "maximum simulated time, s", 0},
      {"rest-ke", BG_PARAM_DOUBLE, &rest_ke, 1e-9, 1e-2, "at rest when kinetic energy < this x M g H", 0},
      {"floor-mu", BG_PARAM_DOUBLE, &floor_mu, 0.0, 2.0, "Coulomb friction of the floor (0: slip)", 0},
      {"jitter", BG_PARAM_DOUBLE, &jitter, 0.0, 1.0, "random offset of each particle, fraction of its sub-cell", 0},
      {"bin", BG_PARAM_DOUBLE, &bin_w, 0.5, 200.0, "histogram bin width, kg/m^3", 0},
      {"vtk", BG_PARAM_INT, &vtk, 0, 1, "1: write particles.vtk of the settled state", 0},
  };
  const int n_params = (int)(sizeof params / sizeof params[0]);
  bg_lab *lab = bg_lab_init("exp_density",
                            "A sand block dropped onto a floor; density at rest from particle state "
                            "(rho0/(det F Jp), rho0/det F) and from the grid.",
                            argc, argv, params, n_params, NULL);
  int paper = bg_lab_scale(lab) == BG_SCALE_PAPER;
  if (!params[0].set) dx = paper ? 0.16 / 96.0 : 0.01;
  if (!params[1].set) ppc = 8;
  if (!params[2].set) block = 0.16;
  if (!params[3].set) block_h = 0.10;
  if (!params[4].set) drop = 0.05;
  if (!params[5].set) t_max = 2.0;
  if (!params[6].set) rest_ke = 1e-6;
  if (!params[7].set) floor_mu = 0.5;
  if (!params[8].set) jitter = 0.5;
  if (!params[9].set) bin_w = 5.0;
  if (!params[10].set) vtk = paper ? 0 : 1;
  int side = (int)lround(cbrt((double)ppc));
  if (side * side * side != ppc) {
    fprintf(stderr, "error: --ppc: %d is not a cube (1, 8, 27 or 64)\n", ppc);
    return 2;
  }

  /* geometry: whole cells of particles; the floor is the -z domain face,
   * effective between node 1 and node 2 (two solid layers), put at z = 0 */
  long nb = lround(block / dx), nh = lround(block_h / dx);
  if (nb < 4 || nh < 4) {
    fprintf(stderr, "error: the block must be at least 4 cells on a side (block/dx = %ld, height/dx = %ld)\n",
            nb, nh);
    return 2;
  }
  block = nb * dx;
  block_h = nh * dx;
  double margin = 1.5 * block + 6 * dx; /* room to spread on each side */
  size_t nxy = (size_t)ceil((block + 2 * margin) / dx) + 4;
  size_t nz = (size_t)ceil((block_h + drop) / dx) + 10;
  bg_sim_desc desc = bg_sim_desc_default();
  desc.dims[0] = desc.dims[1] = nxy;
  desc.dims[2] = nz;
  desc.dx = (bg_real)dx;
  desc.origin[0] = desc.origin[1] = 0;
  desc.origin[2] = (bg_real)(-1.5 * dx);
  desc.material = bg_material_sand();
  desc.backend = bg_lab_backend(lab);
  desc.threads = bg_lab_threads(lab);
  desc.walls[BG_FACE_ZLO].friction = floor_mu > 0 ? BG_FRICTION_COULOMB : BG_FRICTION_SLIP;
  desc.walls[BG_FACE_ZLO].mu = (bg_real)floor_mu;
  const double rho0 = desc.material.rho0;
  const double M_mod = rho0 * pow(bg_material_pwave_speed(&desc.material), 2); /* lambda + 2 mu */
  char err[512];
  bg_sim *sim = NULL;
  bg_status st = bg_sim_create(&desc, &sim, err, sizeof err);
  if (st != BG_OK) {
    fprintf(stderr, "error: bg_sim_create: %s\n", err);
    return 2;
  }

  /* particles: a side^3 lattice per cell, each jittered in its sub-cell */
  size_t n = (size_t)nb * (size_t)nb * (size_t)nh * (size_t)ppc;
  bg_real *x = xmalloc(3 * n * sizeof *x);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, bg_lab_seed(lab));
  double sub = dx / side, x0 = 0.5 * (nxy - 1) * dx - 0.5 * block, z0 = drop;
  size_t p = 0;
  for (long i = 0; i < nb * side; ++i)
    for (long j = 0; j < nb * side; ++j)
      for (long k = 0; k < nh * side; ++k) {
        double off[3];
        for (int a = 0; a < 3; ++a) off[a] = 0.5 + jitter * (gsl_rng_uniform(rng) - 0.5);
        x[3 * p] = (bg_real)(x0 + (i + off[0]) * sub);
        x[3 * p + 1] = (bg_real)(x0 + (j + off[1]) * sub);
        x[3 * p + 2] = (bg_real)(z0 + (k + off[2]) * sub);
        ++p;
      }
  gsl_rng_free(rng);
  check(bg_sim_add_particles(sim, n, x, NULL, (bg_real)ppc), sim, "adding particles");

  bg_real *mass = xmalloc(n * sizeof *mass), *v = xmalloc(3 * n * sizeof *v);
  check(bg_sim_get(sim, BG_FIELD_MASS, mass, n), sim, "reading masses");
  double M = 0;
  for (size_t q = 0; q < n; ++q) M += mass[q];
  const double E_scale = M * G * block_h;
  const double V0 = dx * dx * dx / ppc;

  bg_real dt0 = 0, bound = 0;
  check(bg_sim_next_dt(sim, &dt0, &bound), sim, "timestep");
  /* a series row (and a rest check) every ~2.5 ms of simulated time */
  uint64_t every = (uint64_t)ceil(2.5e-3 / dt0);
  if (every < 1) every = 1;
  double t_fall = sqrt(2.0 * drop / G); /* first contact */

  bg_lab_manifest_num(lab, "dx_m", dx);
  bg_lab_manifest_num(lab, "ppc", ppc);
  bg_lab_manifest_num(lab, "block_m", block);
  bg_lab_manifest_num(lab, "block_height_m", block_h);
  bg_lab_manifest_num(lab, "drop_height_m", drop);
  bg_lab_manifest_num(lab, "time_max_s", t_max);
  bg_lab_manifest_num(lab, "rest_ke_fraction", rest_ke);
  bg_lab_manifest_num(lab, "floor_mu", floor_mu);
  bg_lab_manifest_num(lab, "jitter", jitter);
  bg_lab_manifest_num(lab, "hist_bin_kg_m3", bin_w);
  bg_lab_manifest_num(lab, "particles", (double)n);
  bg_lab_manifest_num(lab, "grid_nx", (double)nxy);
  bg_lab_manifest_num(lab, "grid_ny", (double)nxy);
  bg_lab_manifest_num(lab, "grid_nz", (double)nz);
  bg_lab_manifest_num(lab, "rho0_kg_m3", rho0);
  bg_lab_manifest_num(lab, "total_mass_kg", M);
  bg_lab_manifest_num(lab, "dt_initial_s", dt0);
  bg_lab_manifest_str(lab, "material", "Klar 2016 sand: E 3.537e5 Pa, nu 0.3, rho0 2200, phi 35, Hencky, volume correction on");
  bg_lab_progress(lab, "%zu particles, grid %zux%zux%zu, dx %.4g m, backend %s, dt %.3g s", n, nxy, nxy,
                  nz, dx, bg_sim_backend(sim), (double)dt0);

  char path[1400];
  snprintf(path, sizeof path, "%s/series.tsv", bg_lab_outdir(lab));
  bg_series *series = NULL;
  check(bg_sim_series_open(path, "dropped block: standard per-step series, one row per series interval",
                           &series),
        NULL, "opening series.tsv");
  check(bg_sim_series_row(sim, series), sim, "series row");

  bg_stats stats;
  double ke = 0, next_progress = 0.1 * t_max;
  int at_rest = 0;
  for (;;) {
    check(bg_sim_run(sim, every), sim, "stepping");
    check(bg_sim_series_row(sim, series), sim, "series row");
    check(bg_sim_stats(sim, &stats), sim, "stats");
    ke = kinetic_energy(sim, n, v, mass);
    if (stats.time > t_fall + 0.05 && ke < rest_ke * E_scale) {
      at_rest = 1;
      break;
    }
    if (stats.time >= t_max) break;
    if (stats.time >= next_progress) {
      bg_lab_progress(lab, "t %.3f s of at most %.3g, step %llu, KE/(MgH) %.3g, max speed %.3g m/s",
                      stats.time, t_max, (unsigned long long)stats.step, ke / E_scale, stats.max_speed);
      next_progress += 0.1 * t_max;
    }
  }
  check(bg_series_close(series), NULL, "closing series.tsv");
  bg_lab_add_work(lab, (double)n * (double)stats.step);
  bg_lab_progress(lab, "%s at t %.3f s (step %llu): KE/(MgH) %.3g", at_rest ? "at rest" : "NOT at rest",
                  stats.time, (unsigned long long)stats.step, ke / E_scale);
  bg_lab_manifest_num(lab, "steps", (double)stats.step);
  bg_lab_manifest_num(lab, "t_end_s", stats.time);
  bg_lab_manifest_num(lab, "at_rest", at_rest);
  bg_lab_manifest_num(lab, "ke_over_mgh", ke / E_scale);
  bg_lab_manifest_num(lab, "parked", (double)stats.n_parked);

  /* ---- particle state */
  bg_real *F = xmalloc(9 * n * sizeof *F), *jp = xmalloc(n * sizeof *jp), *dens = xmalloc(n * sizeof *dens);
  bg_real *act = xmalloc(n * sizeof *act);
  check(bg_sim_get(sim, BG_FIELD_X, x, 3 * n), sim, "reading x");
  check(bg_sim_get(sim, BG_FIELD_F, F, 9 * n), sim, "reading F");
  check(bg_sim_get(sim, BG_FIELD_JP, jp, n), sim, "reading Jp");
  check(bg_sim_get(sim, BG_FIELD_DENSITY, dens, n), sim, "reading density");
  check(bg_sim_get(sim, BG_FIELD_ACTIVE, act, n), sim, "reading active");
  double *rho = xmalloc(n * sizeof *rho), *rho_f = xmalloc(n * sizeof *rho_f), *zs = xmalloc(n * sizeof *zs);
  size_t na = 0, n_dil = 0, n_detf_gt1 = 0;
  double sum_m = 0, sum_v = 0, max_field_diff = 0, z_top = 0;
  for (size_t q = 0; q < n; ++q) {
    if (act[q] < 0.5f) continue;
    double J = det3(F + 9 * q), Jp = jp[q];
    rho[na] = rho0 / (J * Jp);
    rho_f[na] = rho0 / J;
    zs[na] = x[3 * q + 2];
    if (zs[na] > z_top) z_top = zs[na];
    double d = fabs(rho[na] - dens[q]) / rho0;
    if (d > max_field_diff) max_field_diff = d;
    if (Jp > 1.001) n_dil++;
    if (J > 1.0 + 1e-5) n_detf_gt1++;
    sum_m += mass[q];
    sum_v += V0 * J * Jp;
    na++;
  }
  /* footprint: horizontal distance from the block's axis, 99th percentile */
  double *rr = xmalloc(na * sizeof *rr);
  for (size_t q = 0, a = 0; q < n; ++q) {
    if (act[q] < 0.5f) continue;
    double ddx = x[3 * q] - (x0 + 0.5 * block), ddy = x[3 * q + 1] - (x0 + 0.5 * block);
    rr[a++] = sqrt(ddx * ddx + ddy * ddy);
  }
  gsl_sort(rr, 1, na);
  double r99 = gsl_stats_quantile_from_sorted_data(rr, 1, na, 0.99);
  free(rr);
  double mean = gsl_stats_mean(rho, 1, na), mean_f = gsl_stats_mean(rho_f, 1, na);
  double mn, mx, mn_f, mx_f;
  gsl_stats_minmax(&mn, &mx, rho, 1, na);
  gsl_stats_minmax(&mn_f, &mx_f, rho_f, 1, na);
  double sd = gsl_stats_sd_m(rho, 1, na, mean);
  double *sorted = xmalloc(na * sizeof *sorted);
  memcpy(sorted, rho, na * sizeof *sorted);
  gsl_sort(sorted, 1, na);
  double median = gsl_stats_median_from_sorted_data(sorted, 1, na);
  double p01 = gsl_stats_quantile_from_sorted_data(sorted, 1, na, 0.01);
  free(sorted);
  double rho_vol_all = sum_m / sum_v; /* total mass / summed current volumes */

  /* histogram: a range common to both read-outs, whole bins */
  double lo = bin_w * floor(fmin(mn, mn_f) / bin_w), hi = bin_w * (floor(fmax(mx, mx_f) / bin_w) + 1);
  size_t nbins = (size_t)lround((hi - lo) / bin_w);
  gsl_histogram *h = gsl_histogram_alloc(nbins), *hf = gsl_histogram_alloc(nbins);
  gsl_histogram_set_ranges_uniform(h, lo, hi);
  gsl_histogram_set_ranges_uniform(hf, lo, hi);
  for (size_t q = 0; q < na; ++q) {
    gsl_histogram_increment(h, rho[q]);
    gsl_histogram_increment(hf, rho_f[q]);
  }
  char cmt[512];
  snprintf(cmt, sizeof cmt,
           "density of the settled block per particle, bin width %g kg/m^3; rho0 = %g kg/m^3; %zu particles; t = %.3f s",
           bin_w, rho0, na, stats.time);
  FILE *fh = bg_lab_tsv(lab, "density_hist.tsv", cmt,
                        "rho_kg_m3\tcount_rho0_over_detF_Jp\tcount_rho0_over_detF");
  for (size_t b = 0; b < nbins; ++b) {
    double l, u;
    gsl_histogram_get_range(h, b, &l, &u);
    fprintf(fh, "%.6g\t%.0f\t%.0f\n", 0.5 * (l + u), gsl_histogram_get(h, b), gsl_histogram_get(hf, b));
  }
  fclose(fh);
  gsl_histogram_free(h);
  gsl_histogram_free(hf);

  /* density against height above the floor: every particle, and the
   * central column |x - xc|, |y - yc| < block/4, with the oedometric
   * (laterally confined) elastic estimate rho0 exp(rho0 g (z_top - z) / M)
   * of that column, M = lambda + 2 mu */
  double xc = 0.5 * (nxy - 1) * dx;
  size_t nhb = (size_t)ceil((z_top + 1e-9) / dx);
  if (nhb < 1) nhb = 1;
  double *hs_sum = calloc(nhb, sizeof(double)), *hs_min = xmalloc(nhb * sizeof(double));
  double *hs_max = xmalloc(nhb * sizeof(double)), *hf_sum = calloc(nhb, sizeof(double));
  double *hc_sum = calloc(nhb, sizeof(double)), *hc_top = calloc(nhb, sizeof(double));
  size_t *hs_n = calloc(nhb, sizeof(size_t)), *hc_n = calloc(nhb, sizeof(size_t));
  double zc_top = 0;
  for (size_t q = 0, a = 0; q < n; ++q) {
    if (act[q] < 0.5f) continue;
    if (fabs(x[3 * q] - xc) < 0.25 * block && fabs(x[3 * q + 1] - xc) < 0.25 * block && zs[a] > zc_top)
      zc_top = zs[a];
    a++;
  }
  for (size_t b = 0; b < nhb; ++b) {
    hs_min[b] = INFINITY;
    hs_max[b] = -INFINITY;
  }
  for (size_t q = 0, a = 0; q < n; ++q) {
    if (act[q] < 0.5f) continue;
    long b = (long)floor(zs[a] / dx);
    if (b < 0) b = 0;
    if ((size_t)b >= nhb) b = (long)nhb - 1;
    hs_sum[b] += rho[a];
    hf_sum[b] += rho_f[a];
    hs_n[b]++;
    if (rho[a] < hs_min[b]) hs_min[b] = rho[a];
    if (rho[a] > hs_max[b]) hs_max[b] = rho[a];
    if (fabs(x[3 * q] - xc) < 0.25 * block && fabs(x[3 * q + 1] - xc) < 0.25 * block) {
      hc_sum[b] += rho[a];
      hc_n[b]++;
    }
    a++;
  }
  snprintf(cmt, sizeof cmt,
           "density of the settled block in height bins of dx = %g m above the floor; central column |x-xc|,|y-yc| < %g m; "
           "oedometric estimate rho0 exp(rho0 g (z_top - z)/M), M = lambda+2mu = %.4g Pa, column top %.4g m; nan: empty bin",
           dx, 0.25 * block, M_mod, zc_top);
  FILE *fz = bg_lab_tsv(lab, "density_height.tsv", cmt,
                        "z_m\tn_particles\tmean_rho_kg_m3\tmin_rho_kg_m3\tmax_rho_kg_m3\tmean_rho0_over_detF_kg_m3\t"
                        "column_mean_rho_kg_m3\toedometric_rho_kg_m3");
  for (size_t b = 0; b < nhb; ++b) {
    double zm = (b + 0.5) * dx;
    double oed = zm < zc_top ? rho0 * exp(rho0 * G * (zc_top - zm) / M_mod) : NAN;
    if (hs_n[b])
      fprintf(fz, "%.6g\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", zm, hs_n[b], hs_sum[b] / hs_n[b],
              hs_min[b], hs_max[b], hf_sum[b] / hs_n[b], hc_n[b] ? hc_sum[b] / hc_n[b] : NAN, oed);
  }
  fclose(fz);
  free(hs_sum); free(hs_min); free(hs_max); free(hf_sum); free(hc_sum); free(hc_top);
  free(hs_n); free(hc_n);

  /* ---- grid estimates */
  size_t nn = desc.dims[0] * desc.dims[1] * desc.dims[2];
  bg_real *gm = xmalloc(nn * sizeof *gm);
  check(bg_sim_grid_mass(sim, gm, nn), sim, "reading grid mass");
  unsigned char *occ = xmalloc(nn), *t1 = xmalloc(nn), *t2 = xmalloc(nn);
  double m_grid = 0;
  size_t n_occ = 0;
  for (size_t i = 0; i < nn; ++i) {
    occ[i] = gm[i] > 0.0f;
    m_grid += gm[i];
    n_occ += occ[i];
  }
  erode_axis(occ, t1, desc.dims, 0, 3);
  erode_axis(t1, t2, desc.dims, 1, 3);
  erode_axis(t2, t1, desc.dims, 2, 3); /* t1: interior nodes */
  double m_int = 0;
  size_t n_int = 0;
  for (size_t i = 0; i < nn; ++i)
    if (t1[i]) {
      m_int += gm[i];
      n_int++;
    }
  double dx3 = dx * dx * dx;
  double rho_grid_int = n_int ? m_int / (n_int * dx3) : NAN;
  double rho_grid_occ = m_grid / (n_occ * dx3);
  /* half-mass level set: nodes above half the interior node mass */
  size_t n_half = 0;
  double half = 0.5 * (n_int ? m_int / n_int : 0);
  for (size_t i = 0; i < nn; ++i) n_half += gm[i] > half;
  double rho_grid_half = n_half ? m_grid / (n_half * dx3) : NAN;
  /* particles whose nearest node is interior */
  double sm_i = 0, sv_i = 0;
  size_t np_i = 0;
  for (size_t q = 0, a = 0; q < n; ++q) {
    if (act[q] < 0.5f) continue;
    long ijk[3];
    for (int d = 0; d < 3; ++d) ijk[d] = lround((x[3 * q + d] - desc.origin[d]) / dx);
    int inside = 1;
    for (int d = 0; d < 3; ++d) inside &= ijk[d] >= 0 && (size_t)ijk[d] < desc.dims[d];
    if (inside && t1[((size_t)ijk[0] * desc.dims[1] + (size_t)ijk[1]) * desc.dims[2] + (size_t)ijk[2]]) {
      sm_i += mass[q];
      sv_i += mass[q] / rho[a];
      np_i++;
    }
    a++;
  }
  double rho_part_int = np_i ? sm_i / sv_i : NAN;
  double grid_vs_part = fabs(rho_grid_int - rho_part_int) / rho_part_int;
  free(gm); free(occ); free(t1); free(t2);

  /* ---- claims' quantities */
  double compaction = mean_f - rho0;     /* what det F alone sees: elastic compaction */
  double dilation = mean_f - mean;       /* what Jp adds */
  double detf_ratio = compaction > 0 ? dilation / compaction : (dilation > 0 ? INFINITY : NAN);
  double oed_base = rho0 * G * block_h / M_mod; /* elastic volumetric strain at the base of the undisturbed block */
  double max_compaction = (mx / rho0 - 1.0) / oed_base;

  FILE *fs = bg_lab_tsv(lab, "summary.tsv",
                        "settled dropped block: density read-outs (rho = rho0/(det F Jp) unless named)",
                        "quantity\tvalue\tunit");
  fprintf(fs, "particles_active\t%zu\t1\n", na);
  fprintf(fs, "t_end\t%.6g\ts\n", stats.time);
  fprintf(fs, "at_rest\t%d\t1\n", at_rest);
  fprintf(fs, "ke_over_mgh\t%.6g\t1\n", ke / E_scale);
  fprintf(fs, "footprint_radius_p99\t%.6g\tm\n", r99);
  fprintf(fs, "pile_top\t%.6g\tm\n", z_top);
  fprintf(fs, "rho_mean\t%.6g\tkg/m3\n", mean);
  fprintf(fs, "rho_median\t%.6g\tkg/m3\n", median);
  fprintf(fs, "rho_sd\t%.6g\tkg/m3\n", sd);
  fprintf(fs, "rho_min\t%.6g\tkg/m3\n", mn);
  fprintf(fs, "rho_p01\t%.6g\tkg/m3\n", p01);
  fprintf(fs, "rho_max\t%.6g\tkg/m3\n", mx);
  fprintf(fs, "rho_detF_mean\t%.6g\tkg/m3\n", mean_f);
  fprintf(fs, "rho_detF_min\t%.6g\tkg/m3\n", mn_f);
  fprintf(fs, "rho_detF_max\t%.6g\tkg/m3\n", mx_f);
  fprintf(fs, "fraction_Jp_gt_1.001\t%.6g\t1\n", (double)n_dil / na);
  fprintf(fs, "fraction_detF_gt_1\t%.6g\t1\n", (double)n_detf_gt1 / na);
  fprintf(fs, "rho_total_mass_over_sum_volumes\t%.6g\tkg/m3\n", rho_vol_all);
  fprintf(fs, "rho_grid_all_nodes_with_mass\t%.6g\tkg/m3\n", rho_grid_occ);
  fprintf(fs, "rho_grid_half_mass_nodes\t%.6g\tkg/m3\n", rho_grid_half);
  fprintf(fs, "rho_grid_interior\t%.6g\tkg/m3\n", rho_grid_int);
  fprintf(fs, "rho_particles_interior\t%.6g\tkg/m3\n", rho_part_int);
  fprintf(fs, "grid_interior_nodes\t%zu\t1\n", n_int);
  fprintf(fs, "particles_interior\t%zu\t1\n", np_i);
  fprintf(fs, "grid_vs_particles_interior\t%.6g\t1\n", grid_vs_part);
  fprintf(fs, "grid_mass_over_particle_mass\t%.9g\t1\n", m_grid / M);
  fprintf(fs, "detF_compaction\t%.6g\tkg/m3\n", compaction);
  fprintf(fs, "Jp_dilation\t%.6g\tkg/m3\n", dilation);
  fprintf(fs, "detF_alone_ratio\t%.6g\t1\n", detf_ratio);
  fprintf(fs, "oedometric_base_strain\t%.6g\t1\n", oed_base);
  fprintf(fs, "max_compaction_over_oedometric\t%.6g\t1\n", max_compaction);
  fprintf(fs, "field_density_max_rel_diff\t%.3g\t1\n", max_field_diff);
  fclose(fs);

  if (vtk) {
    snprintf(path, sizeof path, "%s/particles.vtk", bg_lab_outdir(lab));
    check(bg_sim_write_vtk(sim, path), sim, "writing particles.vtk");
  }
  bg_lab_progress(lab,
                  "rho mean %.1f [%.1f, %.1f], rho0/detF mean %.1f [%.1f, %.1f]; grid interior %.1f vs particles %.1f; "
                  "M/sumV %.1f, grid occupied %.1f, half-mass %.1f kg/m^3",
                  mean, mn, mx, mean_f, mn_f, mx_f, rho_grid_int, rho_part_int, rho_vol_all, rho_grid_occ,
                  rho_grid_half);

  bg_lab_claim(lab, "density.at_rest", ke / E_scale);
  bg_lab_claim(lab, "density.mean", mean);
  bg_lab_claim(lab, "density.max_compaction", max_compaction);
  bg_lab_claim(lab, "density.grid_vs_particles", grid_vs_part);
  bg_lab_claim(lab, "density.detF_alone", detf_ratio);

  free(x); free(v); free(mass); free(F); free(jp); free(dens); free(act); free(rho); free(rho_f); free(zs);
  bg_sim_destroy(sim);
  return bg_lab_finish(lab);
}
