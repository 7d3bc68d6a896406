/* density_fields.c: the density experiment's estimates on the settled
 * block (density.c's header says what each is): det F, the erosion that
 * finds interior nodes, compaction by layer and by cell, the profile above
 * the floor and the interior grid density. */
#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"

/* a refused solver call or a failed write ends the run (exit 2, folder FAILED) */
void density_check(bg_status s, bg_sim *sim, const char *what) {
  if (s == BG_OK) return;
  bg_lab_fail("%s: %s (%s)", what, bg_status_str(s), sim ? bg_sim_last_error(sim) : strerror(errno));
}

void *density_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "error: out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

double density_det3(const bg_real *f) {
  return (double)f[0] * ((double)f[4] * f[8] - (double)f[5] * f[7]) -
         (double)f[1] * ((double)f[3] * f[8] - (double)f[5] * f[6]) +
         (double)f[2] * ((double)f[3] * f[7] - (double)f[4] * f[6]);
}

/* 1D erosion of a 0/1 mask along axis a with radius r: out = 1 where every
 * cell within +-r along a is 1 (cells beyond the grid count as 0). */
void density_erode_axis(const unsigned char *in, unsigned char *out, const size_t *dims, int a, int r) {
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

/* Compaction statistics of one set of settled particles: c = rho/rho0 - 1
 * per particle, rho the library's read-out (vr = rho0/rho: the particle's
 * volume over its initial one); loaded means det F_E < 1 (compressed
 * elastically). */

/* sel[q] picks the particles; zeta: height above the last solid floor node in dx. */
layer_stats density_layer_compaction(size_t na, const unsigned char *sel, const double *je, const double *vr,
                                    const double *zeta, const double *rxy) {
  layer_stats L = {0};
  double *c = density_xmalloc((na ? na : 1) * sizeof *c), sv = 0, svc = 0;
  size_t nl = 0;
  L.c_max = -INFINITY;
  for (size_t q = 0; q < na; ++q) {
    if (!sel[q]) continue;
    double cq = 1.0 / vr[q] - 1.0, vq = vr[q];
    c[L.n++] = cq;
    if (cq > L.c_max) {
      L.c_max = cq;
      L.zeta_at_max = zeta[q];
      L.r_at_max = rxy[q];
    }
    nl += je[q] < 1.0 - 1e-5;
    sv += vq;
    svc += vq * -log(je[q]);
  }
  if (L.n) {
    gsl_sort(c, 1, L.n);
    L.c_q99 = gsl_stats_quantile_from_sorted_data(c, 1, L.n, 0.99);
    L.c_q999 = gsl_stats_quantile_from_sorted_data(c, 1, L.n, 0.999);
    L.loaded = (double)nl / L.n;
    L.c_cont = svc / sv;
  } else {
    L.c_max = L.c_q99 = L.c_q999 = L.loaded = L.c_cont = NAN;
  }
  free(c);
  return L;
}

/* density_floor.tsv: compaction against height above the last solid floor
 * node in quarter cells, where the floor's node layers act. */
void density_floor_profile(bg_lab *lab, size_t na, const double *je, const double *vr, const double *zeta,
                          const double *rxy) {
  FILE *fp = bg_lab_tsv(lab, "density_floor.tsv",
                        "settled particles by height above the last solid floor node (zeta, dx), quarter-cell bins; "
                        "compaction c = rho/rho0 - 1; loaded: det F_E < 1; continuum: volume-weighted -ln det F_E",
                        "zeta_lo_dx\tn_particles\tc_mean\tc_q99\tc_max\tloaded_fraction\tc_continuum");
  unsigned char *sel = density_xmalloc(na ? na : 1);
  for (int b = -4; b < 16; ++b) {
    double lo = 0.25 * b, hi = lo + 0.25, sum = 0;
    for (size_t q = 0; q < na; ++q) {
      sel[q] = zeta[q] >= lo && zeta[q] < hi;
      if (sel[q]) sum += 1.0 / vr[q] - 1.0;
    }
    layer_stats L = density_layer_compaction(na, sel, je, vr, zeta, rxy);
    if (L.n)
      fprintf(fp, "%.2f\t%zu\t%.6g\t%.6g\t%.6g\t%.4g\t%.6g\n", lo, L.n, sum / L.n, L.c_q99, L.c_max, L.loaded,
              L.c_cont);
  }
  free(sel);
  fclose(fp);
}

/* Interior nodes: every node within +-r along each axis has mass (r = 3
 * leaves exactly the nodes whose +-1.5 dx support is full). The grid's bulk
 * density over them, and sum m_p / sum (m_p / rho_p) over the particles
 * whose nearest node is one of them, for the read-out rho and for det F
 * alone. near[a]: nearest node of active particle a (SIZE_MAX: off grid). */

interior_est density_interior_density(const bg_real *gm, const unsigned char *occ, const size_t *dims, double dx,
                                     int r, size_t na, const size_t *near, const double *m, const double *rho,
                                     const double *rho_f) {
  size_t nn = dims[0] * dims[1] * dims[2];
  unsigned char *t1 = density_xmalloc(nn), *t2 = density_xmalloc(nn);
  density_erode_axis(occ, t1, dims, 0, r);
  density_erode_axis(t1, t2, dims, 1, r);
  density_erode_axis(t2, t1, dims, 2, r);
  interior_est e = {0};
  double m_int = 0, sm = 0, sv = 0, svf = 0;
  for (size_t i = 0; i < nn; ++i)
    if (t1[i]) {
      m_int += gm[i];
      e.n_nodes++;
    }
  for (size_t a = 0; a < na; ++a)
    if (near[a] != SIZE_MAX && t1[near[a]]) {
      sm += m[a];
      sv += m[a] / rho[a];
      svf += m[a] / rho_f[a];
      e.n_part++;
    }
  e.rho_grid = e.n_nodes ? m_int / (e.n_nodes * dx * dx * dx) : NAN;
  e.rho_part = e.n_part ? sm / sv : NAN;
  e.rho_part_detf = e.n_part ? sm / svf : NAN;
  free(t1);
  free(t2);
  return e;
}

/* Continuum compaction per grid cell: the volume-weighted mean of
 * -ln det F_E over the particles nearest each node with at least min_n of
 * them (volume vr = rho0/rho from the library's read-out); its 99th
 * percentile and maximum over the cells of nodes k >= k_lo (bulk) or
 * k < k_lo (floor layer), k the node's z index. */
void density_cell_compaction(const size_t *dims, size_t na, const size_t *near, const double *je, const double *vr,
                            int min_n, size_t k_lo, int bulk, double *q99, double *mx, size_t *ncells) {
  size_t nn = dims[0] * dims[1] * dims[2], nc = 0;
  double *sv = calloc(nn, sizeof *sv), *svc = calloc(nn, sizeof *svc);
  int *cnt = calloc(nn, sizeof *cnt);
  if (!sv || !svc || !cnt) {
    fprintf(stderr, "error: out of memory for the cell compaction\n");
    exit(2);
  }
  for (size_t a = 0; a < na; ++a) {
    if (near[a] == SIZE_MAX) continue;
    double v = vr[a];
    sv[near[a]] += v;
    svc[near[a]] -= v * log(je[a]);
    cnt[near[a]]++;
  }
  double *c = density_xmalloc(nn * sizeof *c);
  for (size_t i = 0; i < nn; ++i)
    if (cnt[i] >= min_n && ((i % dims[2] >= k_lo) == (bulk != 0))) c[nc++] = svc[i] / sv[i];
  *ncells = nc;
  if (nc) {
    gsl_sort(c, 1, nc);
    *q99 = gsl_stats_quantile_from_sorted_data(c, 1, nc, 0.99);
    *mx = c[nc - 1];
  } else {
    *q99 = *mx = NAN;
  }
  free(c);
  free(sv);
  free(svc);
  free(cnt);
}
