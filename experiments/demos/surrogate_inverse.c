/* surrogate_inverse.c: the posterior of phi on a grid through the GP
 * surrogates (see surrogate_inverse.h), and where the next design run goes. */
#include "surrogate_inverse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_lab.h"

int posterior_grid_points(double phi_lo, double phi_hi) {
  return (int)lround((phi_hi - phi_lo) / DPHI_GRID) + 1;
}

post posterior_invert(gp *const *g, int nout, const double *yobs, const double *sn, double sm,
                      int noise_ignored, double *dens) {
  const double phi_lo = g[0]->phi_lo, phi_hi = g[0]->phi_hi;
  int ng = posterior_grid_points(phi_lo, phi_hi);
  double *lw = malloc(sizeof(double) * (size_t)ng), *ratio = malloc(sizeof(double) * (size_t)ng);
  if (!lw || !ratio) bg_lab_fail("out of memory for the posterior grid");
  double lmax = -INFINITY;
  for (int i = 0; i < ng; ++i) {
    double phi = phi_lo + i * DPHI_GRID, l = 0, rs = 0;
    for (int j = 0; j < nout; ++j) {
      double mu, var;
      gp_predict(g[j], phi, &mu, &var);
      double noise = sn[j] * sn[j] + sm * sm, v = var + (noise_ignored ? 0 : noise);
      if (!(v > 0)) v = 1e-30; /* a noise-free surrogate at a design point */
      double d = yobs[j] - mu;
      l += -0.5 * d * d / v - 0.5 * log(v);
      rs += var / noise;
    }
    lw[i] = l;
    ratio[i] = rs;
    if (l > lmax) lmax = l;
  }
  double Z = 0, m1 = 0, m2 = 0, best = -INFINITY;
  post p;
  memset(&p, 0, sizeof p);
  for (int i = 0; i < ng; ++i) {
    double phi = phi_lo + i * DPHI_GRID, w = exp(lw[i] - lmax);
    lw[i] = w;
    Z += w;
    m1 += w * phi;
    m2 += w * phi * phi;
    if (w > best) {
      best = w;
      p.map = phi;
    }
  }
  p.mean = m1 / Z;
  p.sd = sqrt(fmax(m2 / Z - p.mean * p.mean, 0));
  double cum = 0;
  p.lo95 = phi_lo;
  p.hi95 = phi_hi;
  int lo_set = 0, hi_set = 0;
  for (int i = 0; i < ng; ++i) {
    cum += lw[i] / Z;
    if (!lo_set && cum >= 0.025) {
      p.lo95 = phi_lo + i * DPHI_GRID;
      lo_set = 1;
    }
    if (!hi_set && cum >= 0.975) {
      p.hi95 = phi_lo + i * DPHI_GRID;
      hi_set = 1;
    }
    if (dens) dens[i] = lw[i] / (Z * DPHI_GRID);
  }
  p.ratio_max = -1;
  p.next_phi = p.mean;
  double acq_max = -1;
  for (int i = 0; i < ng; ++i) {
    double phi = phi_lo + i * DPHI_GRID;
    if (fabs(phi - p.mean) > 2 * p.sd + 0.5 * DPHI_GRID) continue;
    if (ratio[i] > p.ratio_max) p.ratio_max = ratio[i];
    if (ratio[i] * lw[i] > acq_max) { /* uncertain where the posterior holds mass */
      acq_max = ratio[i] * lw[i];
      p.next_phi = phi;
    }
  }
  free(lw);
  free(ratio);
  return p;
}
