/* impact.c: impact cratering, Uehara et al. 2003 (PRL 90, 194301): a sphere
 * of diameter D and density rho_b dropped into a loose granular bed of bulk
 * density rho_g and friction mu = tan(repose angle) penetrates
 *   d = 0.14 / mu (rho_b / rho_g)^(1/2) D^(2/3) H^(1/3),
 * H = h + d the total drop distance (references/literature/uehara2003.md).
 *
 * The run drops every diameter from every height on each grid (coarse to
 * fine; impact_drop.c holds the scene and the read-out), fits log d = c +
 * a log H + b log D on each grid (impact_fit.c) and judges on the finest:
 *   impact.h_exponent  a against 1/3
 *   impact.d_exponent  b against 2/3
 *   impact.prefactor   K = geometric mean of d / (D^(2/3) H^(1/3)) against
 *                      0.14 / mu (rho_b / rho_g)^(1/2) of what the
 *                      simulations held: mu the material's tan phi (mu_s
 *                      for mu(I)), rho_b the sphere's mass over its volume,
 *                      rho_g the bed's mass over its volume, all read back.
 * The exponents' change between the two finest grids is the run's dx
 * convergence (fits.tsv, the manifest). The crater's diameter (at the
 * original surface level and rim to rim) is reported, not judged. */
#include "impact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A comma-separated list of numbers in [lo, hi] into out (at most
 * IMPACT_MAX_LIST); what the option is for goes into the message. */
static int parse_list(const char *opt, const char *s, double lo, double hi, double *out) {
  int n = 0;
  const char *c = s;
  while (*c) {
    char *end;
    double v = strtod(c, &end);
    if (end == c || !isfinite(v) || v < lo || v > hi || n == IMPACT_MAX_LIST)
      bg_lab_fail("--%s: '%s' must be up to %d comma-separated numbers in [%g, %g]", opt, s,
                  IMPACT_MAX_LIST, lo, hi);
    out[n++] = v;
    if (*end && *end != ',') bg_lab_fail("--%s: '%s' is not a comma-separated list", opt, s);
    c = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* The lists and what they must satisfy together, before the run folder is
 * touched (bg_lab_check_options). */
static void check_options(void *ctx) {
  impact_options *o = ctx;
  o->n_dx = parse_list("dx", o->dx_list, 1e-4, 0.05, o->dx);
  o->n_d = parse_list("diameters", o->d_list, 1e-3, 1.0, o->d);
  o->n_h = parse_list("heights", o->h_list, 1e-3, 100.0, o->h);
  if (o->n_dx < 2)
    bg_lab_fail("--dx: '%s' needs two grids at least (the dx convergence)", o->dx_list);
  for (int k = 1; k < o->n_dx; ++k)
    if (o->dx[k] >= o->dx[k - 1])
      bg_lab_fail("--dx: '%s' must decrease (coarse to fine)", o->dx_list);
  if (o->n_d < 2)
    bg_lab_fail("--diameters: '%s' needs two diameters at least (the D exponent)", o->d_list);
  if (o->n_h < 2)
    bg_lab_fail("--heights: '%s' needs two heights at least (the H exponent)", o->h_list);
  if (o->n_d * o->n_h < 4)
    bg_lab_fail(
        "--diameters and --heights: %d drops per grid; the joint fit of three coefficients needs 4 "
        "at least",
        o->n_d * o->n_h);
  double dx = o->dx[0];
  for (int i = 0; i < o->n_d; ++i) {
    for (int j = 0; j < i; ++j)
      if (o->d[i] == o->d[j]) bg_lab_fail("--diameters: '%s' lists %g twice", o->d_list, o->d[i]);
    if (o->d[i] < 4 * dx) /* core/README.md: a body needs 4 cells across */
      bg_lab_fail(
          "--diameters: %g m is %.2g cells at the coarsest dx %g m; a body needs 4 cells across",
          o->d[i], o->d[i] / dx, dx);
    if (o->d[i] > o->bed_width / 3 || o->d[i] > o->bed_depth / 1.5)
      bg_lab_fail(
          "--diameters: %g m is too large for a bed %g m wide and %g m deep (at most a third of "
          "the width "
          "and two thirds of the depth)",
          o->d[i], o->bed_width, o->bed_depth);
  }
  for (int i = 0; i < o->n_h; ++i) {
    for (int j = 0; j < i; ++j)
      if (o->h[i] == o->h[j]) bg_lab_fail("--heights: '%s' lists %g twice", o->h_list, o->h[i]);
    if (o->h[i] < o->gap_cells * dx)
      bg_lab_fail(
          "--heights: %g m is below the sphere's starting gap (%g cells, %g m at dx %g m): the "
          "sphere "
          "meets the surface faster than a fall from h",
          o->h[i], o->gap_cells, o->gap_cells * dx, dx);
  }
}

static const char *const impact_mutants[] = {"sphere-density-x4", "friction-angle-fed",
                                             "depth-from-release", "heights-reversed",
                                             "diameters-reversed", "uehara-law-data",
                                             NULL};

static bg_lab *parse_options(int argc, char **argv, impact_options *o) {
  /* clang-format off */
  bg_lab_param params[] = {
      {.name = "dx", .type = BG_PARAM_STRING, .dest = &o->dx_list, .help = "grid spacings, m, comma-separated, coarse to fine",
       .quick = "0.01,0.0075", .paper = "0.0075,0.005,0.0035"},
      {.name = "diameters", .type = BG_PARAM_STRING, .dest = &o->d_list, .help = "sphere diameters D, m, comma-separated",
       .quick = "0.05,0.07", .paper = "0.03,0.05,0.07"},
      {.name = "heights", .type = BG_PARAM_STRING, .dest = &o->h_list, .help = "free-fall heights h, m, comma-separated",
       .quick = "0.02,0.08,0.32,1.28", .paper = "0.02,0.08,0.32,1.28"},
      {.name = "density-ratio", .type = BG_PARAM_DOUBLE, .dest = &o->density_ratio, .lo = 0.1, .hi = 20,
       .help = "sphere density over the sand's rho0", .quick = "3", .paper = "3"},
      {.name = "bed-width", .type = BG_PARAM_DOUBLE, .dest = &o->bed_width, .lo = 0.05, .hi = 5,
       .help = "bed width (square), m", .quick = "0.30", .paper = "0.30"},
      {.name = "bed-depth", .type = BG_PARAM_DOUBLE, .dest = &o->bed_depth, .lo = 0.02, .hi = 5,
       .help = "bed depth, m", .quick = "0.15", .paper = "0.35"},
      {.name = "gap", .type = BG_PARAM_DOUBLE, .dest = &o->gap_cells, .lo = 1.0, .hi = 10,
       .help = "cells between the surface and the sphere's bottom at release", .quick = "1.5", .paper = "1.5",
       .key = "gap_cells"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &o->t_max, .lo = 0.01, .hi = 10,
       .help = "simulated time after which a drop that has not stopped is reported unstopped, s", .quick = "0.3",
       .paper = "0.3"},
      {.name = "wall-mu", .type = BG_PARAM_DOUBLE, .dest = &o->wall_mu, .lo = 0, .hi = 2,
       .help = "Coulomb friction of the floor and of the sphere's surface", .quick = "0.5", .paper = "0.5"},
      {.name = "stop-speed", .type = BG_PARAM_DOUBLE, .dest = &o->stop_frac, .lo = 0, .hi = 0.5,
       .help = "the drop ends when the sphere's downward speed falls below this fraction of its impact speed",
       .quick = "0.02", .paper = "0.02", .key = "stop_speed_over_impact"},
      {.name = "cfl", .type = BG_PARAM_DOUBLE, .dest = &o->cfl, .lo = 0.02, .hi = 1,
       .help = "the drops' CFL number (the library's default): a free sphere takes its whole contact impulse, the "
               "transfers' residue included (experiments/common/bg_contact.h), so at a fixed dx a smaller step "
               "gives shallower drops; that difference shrinks in proportion to dx (reports/impact.md)",
       .quick = "0.3", .paper = "0.3"},
  };
  /* clang-format on */
  bg_lab_accept_materials("drucker-prager,mu-i", "a granular model with a friction coefficient");
  bg_lab_check_options(check_options, o);
  return bg_lab_init("exp_impact",
                     "Impact cratering: a sphere dropped into sand (Uehara et al. 2003).", argc,
                     argv, params, (int)(sizeof params / sizeof params[0]), impact_mutants);
}

/* Every grid's drops, grid by grid. A mutant run that judges the prefactor
 * alone (sphere-density-x4, friction-angle-fed) runs the finest grid's drops of the first
 * diameter only: K is a mean over whichever drops ran, and the mutant moves
 * every drop alike, so half the drops show it at half the cost (CI runs
 * it). Returns the number of grids run; *per, the drops per grid. */
static int run_drops(bg_lab *lab, impact_options *o, impact_drop *drops, int *per) {
  int need_exponents =
      bg_lab_needed(lab, "impact.h_exponent") || bg_lab_needed(lab, "impact.d_exponent");
  int g0 = need_exponents ? 0 : o->n_dx - 1, n = 0;
  if (!need_exponents) o->n_d = 1;
  *per = o->n_d * o->n_h;
  impact_feed feed = {bg_lab_mutant_is(lab, "sphere-density-x4") ? 4.0 : 1.0,
                      bg_lab_mutant_is(lab, "friction-angle-fed") ? -10.0 : 0.0};
  for (int g = g0; g < o->n_dx; ++g)
    for (int i = 0; i < o->n_d; ++i)
      for (int j = 0; j < o->n_h; ++j) {
        char tag[96];
        snprintf(tag, sizeof tag, "dx %g D %g h %g (%d/%d)", o->dx[g], o->d[i], o->h[j], n + 1,
                 (o->n_dx - g0) * *per);
        drops[n++] = impact_run_drop(lab, o, o->dx[g], o->d[i], o->h[j], feed, tag);
      }
  return o->n_dx - g0;
}

static void write_drops(bg_lab *lab, const impact_drop *d, int n) {
  FILE *f = bg_lab_tsv(
      lab, "drops.tsv",
      "one row per drop: d the sphere's bottom at its lowest below the undisturbed surface, H = h "
      "+ d; "
      "Uehara's d from the mu, rho_b and rho_g the simulation held; crater diameters from the "
      "mass-equivalent surface profile when the sphere stopped",
      "dx_m\tD_m\th_m\tv_impact_m_s\td_m\tH_m\td_uehara_m\td_over_uehara\tmu\trho_b_kg_m3\trho_g_"
      "kg_m3\t"
      "crater_surface_m\tcrater_rim_m\trim_height_m\tt_stop_s\tstopped\tparticles\tsteps");
  for (int k = 0; k < n; ++k) {
    double du = impact_uehara_depth(d[k].mu_fed, d[k].rho_b_held, d[k].rho_g, d[k].D, d[k].H);
    fprintf(f,
            "%.6g\t%.4g\t%.4g\t%.5f\t%.6f\t%.6f\t%.6f\t%.5f\t%.6f\t%.2f\t%.2f\t%.5f\t%.5f\t%.5f\t%."
            "5f\t%d\t%zu\t%llu\n",
            d[k].dx, d[k].D, d[k].h, d[k].v_impact, d[k].depth, d[k].H, du, d[k].depth / du,
            d[k].mu_fed, d[k].rho_b_held, d[k].rho_g, d[k].crater_surface, d[k].crater_rim,
            d[k].rim_height, d[k].t_stop, d[k].stopped, d[k].particles,
            (unsigned long long)d[k].steps);
  }
  fclose(f);
  FILE *p = bg_lab_tsv(
      lab, "profiles.tsv",
      "crater profiles when the sphere stopped: mass-equivalent surface height above the original "
      "surface in rings dx/2 wide about the sphere's axis; blank lines separate drops",
      "dx_m\tD_m\th_m\tr_m\tz_m");
  for (int k = 0; k < n; ++k) {
    for (int b = 0; b < d[k].n_bins; ++b)
      fprintf(p, "%.6g\t%.4g\t%.4g\t%.5f\t%.6f\n", d[k].dx, d[k].D, d[k].h,
              (b + 0.5) * 0.5 * d[k].dx, d[k].profile[b]);
    fprintf(p, "\n\n");
  }
  fclose(p);
}

static void write_fits(bg_lab *lab, const impact_options *o, const impact_fit *fits, int ng) {
  FILE *f = bg_lab_tsv(lab, "fits.tsv",
                       "per grid: joint fit log d = c + a log H + b log D (standard errors scaled "
                       "by chi2/dof), K the "
                       "prefactor with Uehara's exponents held, a per diameter; da, db: change "
                       "from the next coarser grid",
                       "dx_m\tdrops\ta_H\ta_H_se\tb_D\tb_D_se\tK\tK_uehara\tK_over_uehara\tda_"
                       "H\tdb_D\ta_H_D1\ta_H_D2\t"
                       "a_H_D3");
  for (int g = 0; g < ng; ++g) {
    const impact_fit *F = &fits[g];
    double da = g > 0 ? F->a - fits[g - 1].a : NAN, db = g > 0 ? F->b - fits[g - 1].b : NAN;
    fprintf(f, "%.6g\t%d\t%.5f\t%.5f\t%.5f\t%.5f\t%.6f\t%.6f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\n",
            F->dx, F->n, F->a, F->a_se, F->b, F->b_se, F->K, F->K_expected, F->K / F->K_expected,
            da, db, F->a_per_d[0], o->n_d > 1 ? F->a_per_d[1] : NAN,
            o->n_d > 2 ? F->a_per_d[2] : NAN);
  }
  fclose(f);
  const impact_fit *fine = &fits[ng - 1];
  bg_lab_manifest_num(lab, "h_exponent_finest", fine->a);
  bg_lab_manifest_num(lab, "d_exponent_finest", fine->b);
  bg_lab_manifest_num(lab, "prefactor_over_uehara_finest", fine->K / fine->K_expected);
  if (ng > 1) { /* the dx convergence: how much the two finest grids differ */
    bg_lab_manifest_num(lab, "h_exponent_change_dx", fine->a - fits[ng - 2].a);
    bg_lab_manifest_num(lab, "d_exponent_change_dx", fine->b - fits[ng - 2].b);
    bg_lab_manifest_num(lab, "prefactor_change_dx", fine->K / fits[ng - 2].K - 1);
  }
}

/* The claims on the finest grid, and the measurement mutants evaluated on
 * the same drops. */
static void judge(bg_lab *lab, const impact_options *o, const impact_drop *fine, int n) {
  impact_fit_mode plain = {0};
  if (bg_lab_mutant_is(lab, "sphere-density-x4")) /* the lab's own copy, not the simulation's */
    plain.rho_b_lab = o->density_ratio * bg_lab_material(lab).rho0;
  if (bg_lab_mutant_is(lab, "friction-angle-fed")) { /* likewise mu */
    bg_material m = bg_lab_material(lab);
    plain.mu_lab = impact_held_friction(&m);
  }
  impact_fit F = impact_fit_grid(fine, n, o, plain);
  impact_fit_mode release = {.use_release = 1}, rev_h = {.reverse_h = 1}, rev_d = {.reverse_d = 1},
                  law = {.law_data = 1};
  impact_fit Fr = impact_fit_grid(fine, n, o, release), Fh = impact_fit_grid(fine, n, o, rev_h),
             Fd = impact_fit_grid(fine, n, o, rev_d), Fl = impact_fit_grid(fine, n, o, law);
  if (bg_lab_needed(lab, "impact.h_exponent")) {
    bg_lab_claim(lab, "impact.h_exponent", F.a);
    bg_lab_claim_mutant(lab, "heights-reversed", "impact.h_exponent", Fh.a);
    bg_lab_claim_mutant(lab, "uehara-law-data", "impact.h_exponent", Fl.a);
  }
  if (bg_lab_needed(lab, "impact.d_exponent")) {
    bg_lab_claim(lab, "impact.d_exponent", F.b);
    bg_lab_claim_mutant(lab, "diameters-reversed", "impact.d_exponent", Fd.b);
    bg_lab_claim_mutant(lab, "uehara-law-data", "impact.d_exponent", Fl.b);
  }
  if (bg_lab_needed(lab, "impact.prefactor")) {
    bg_lab_claim_fed(lab, "impact.prefactor", F.K, F.K_expected);
    bg_lab_claim_mutant_fed(lab, "depth-from-release", "impact.prefactor", Fr.K, Fr.K_expected);
    bg_lab_claim_mutant_fed(lab, "uehara-law-data", "impact.prefactor", Fl.K, Fl.K_expected);
  }
}

int main(int argc, char **argv) {
  impact_options o;
  memset(&o, 0, sizeof o);
  bg_lab *lab = parse_options(argc, argv, &o);
  bg_material m = bg_lab_material(lab);
  bg_lab_manifest_material(lab, &m);
  bg_lab_manifest_num(lab, "uehara_prefactor", UEHARA_C);

  int per;
  impact_drop *drops = calloc((size_t)(o.n_dx * o.n_d * o.n_h), sizeof *drops);
  impact_fit fits[IMPACT_MAX_LIST] = {{0}};
  if (!drops) bg_lab_fail("out of memory");
  int ng = run_drops(lab, &o, drops, &per);
  write_drops(lab, drops, ng * per);
  for (int g = 0; g < ng; ++g)
    fits[g] = impact_fit_grid(drops + g * per, per, &o, (impact_fit_mode){0});
  write_fits(lab, &o, fits, ng);
  judge(lab, &o, drops + (ng - 1) * per, per);
  free(drops);
  return bg_lab_finish(lab);
}
