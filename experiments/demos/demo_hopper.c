/* demo_hopper.c: size a hopper's orifice for a target discharge rate.
 *
 * The design variable is the orifice diameter D, cut from the floor's
 * signed-distance field (bg_silo: phi = max(slab, D/2 - rho)) at every trial.
 * A GSL Brent root solver (gsl_root_fsolver_brent) brackets and polishes the
 * root of f(D) = ln(W(D) / W*), each evaluation one silo discharge run; ln W
 * is close to linear in D over a bracket (W ~ D^n), which the solver's
 * inverse-quadratic steps use.
 *
 * Why the grid follows D. Each trial spans the orifice with the same number
 * of cells (--orifice-cells N, dx = D / N): every trial is then the same
 * discretisation of a scaled problem, and the found D is the diameter at N
 * cells across whatever the bracket. On one grid for all trials the free
 * floor nodes change in whole columns while the SDF's distance acts between
 * them, so W(D) would mix a stepwise and a continuous dependence on D
 * (references/derivations/demos.md). The silo itself is fixed in metres
 * (--silo-width L, rounded to whole cells, a change below the 1% Beverloo's
 * law allows for L above ~2.5 D) and filled to the same H / R.
 *
 * Check: an independent re-run at the found diameter with another seed (its
 * own jittered lattice) must give W within 2% of W*: the claim
 * demo.hopper.rate. Comparison: Beverloo inverted with the C and k the silo
 * experiment measured (its fits.tsv, row C_k_free_all: W = C rho_b sqrt(g)
 * (D - k dx)^n, n 3/2 slot or 5/2 round), at this demo's dx = D / N, so
 * D_bev = (W* / (C rho_b sqrt g))^(1/n) / (1 - k / N), with rho_b this run's
 * measured bulk density. The silo run is read from --silo-fits, else from a
 * sibling run folder (../silo, the report's; ../exp_silo, ctest's); none
 * found: the comparison is reported as not made.
 *
 * The floor from a mesh: --hopper-mesh FILE (references/meshes/, in orifice
 * diameters) replaces the analytic floor by the mesh's exact signed
 * distance (bg_mesh_sdf_grid), scaled by D at every trial; each trial
 * reports the nodes where its sign differs from the analytic floor's.
 *
 * Mutant window-short: the search's runs measure W over the first 10% of
 * the drain after start-up instead of the whole fill; the re-run measures
 * as the lab does. What the re-run must catch is a design whose rate was
 * read off a window too short for the flow to have settled. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_lab.h"
#include "bg_silo.h"

#define G 9.81
#define MAX_EVAL 64

typedef struct eval {
  double D, dx, W, sW, rel_se, rho_b, flat, t_end;
  int silo_cells, d_free;
  const char *role, *stop_rule;
  size_t particles;
  unsigned long long steps;
} eval;

typedef struct ctx {
  bg_lab *lab;
  bg_silo_scene base;
  double L, Wstar, n_cells;
  int window_short; /* the window-short mutant: the search's runs drain 10% of the fill */
  eval ev[MAX_EVAL];
  int n, max_sims;
  const char *role;
  double period_per_m; /* 4 H / c_p per metre of L: the ringing period scales with the silo */
} ctx;

static eval run_at(ctx *c, double D, unsigned long seed, const char *role) {
  bg_silo_scene sc = c->base;
  sc.dx = D / c->n_cells;
  sc.D_cells = c->n_cells;
  if (c->window_short && strcmp(role, "re-run")) {
    sc.drop = 0.1;
    sc.steady_stop = 0;
  }
  sc.silo_cells = (int)lround(c->L / sc.dx);
  sc.sample_dt = 0.25 * sqrt(sc.dx / G);
  sc.t_win_min = 2.0 * BG_SILO_N_SUB * c->period_per_m * sc.silo_cells * sc.dx;
  sc.seed = seed;
  char tag[96];
  snprintf(tag, sizeof tag, "sim %d (%s, D %.2f mm)", c->n + 1, role, D * 1e3);
  bg_silo_result r = bg_silo_run(c->lab, &sc, tag, NULL);
  eval e;
  memset(&e, 0, sizeof e);
  e.D = D;
  e.dx = sc.dx;
  e.W = r.W;
  e.sW = r.sW;
  e.rel_se = r.rel_se;
  e.rho_b = r.rho_b;
  e.flat = r.flat;
  e.t_end = r.t_end;
  e.silo_cells = sc.silo_cells;
  e.d_free = (int)lround(r.D_geo / sc.dx);
  e.role = role;
  e.stop_rule = r.stop_rule;
  e.particles = r.n_particles;
  e.steps = (unsigned long long)r.steps;
  bg_lab_add_work(c->lab, (double)r.n_particles * (double)r.steps);
  bg_silo_result_free(&r);
  if (!isfinite(e.W) || e.W <= 0)
    bg_lab_fail(
        "sim %d at D = %.3f mm gave no steady discharge (W %g, stop rule %s): the orifice jammed "
        "or the "
        "window never opened; widen --d-lo",
        c->n + 1, D * 1e3, e.W, e.stop_rule);
  if (c->n < MAX_EVAL) c->ev[c->n++] = e;
  bg_lab_progress(c->lab,
                  "sim %d (%s): D %.3f mm (dx %.3f mm, silo %d cells): W %.5g (%+.2f%% of W*), "
                  "rel. s.e. %.2g%%",
                  c->n, role, D * 1e3, sc.dx * 1e3, sc.silo_cells, e.W, 100 * (e.W / c->Wstar - 1),
                  100 * e.rel_se);
  return e;
}

static double f_root(double D, void *p) {
  ctx *c = p;
  if (c->n >= c->max_sims)
    bg_lab_fail("the root search used its %d simulations (--max-sims) without converging",
                c->max_sims);
  eval e = run_at(c, D, c->base.seed, c->role);
  return log(e.W / c->Wstar);
}

/* C, k (cells) and n of the silo experiment's C_k_free_all fit; 0 when the
 * file is missing or holds no such row */
static int read_silo_fit(const char *path, double *C, double *k, double *n) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[4096];
  int found = 0, header = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    if (!header) {
      header = 1; /* fit C sigma_C k sigma_k n ... */
      continue;
    }
    char name[64];
    double c, sc, kk, sk, nn;
    if (sscanf(line, "%63s %lf %lf %lf %lf %lf", name, &c, &sc, &kk, &sk, &nn) == 6 &&
        !strcmp(name, "C_k_free_all")) {
      *C = c;
      *k = kk;
      *n = nn;
      found = isfinite(c) && isfinite(kk) && isfinite(nn);
      break;
    }
  }
  fclose(f);
  return found;
}

static const char *const hopper_mutants[] = {"window-short", NULL};

typedef struct options {
  const char *geometry, *silo_fits, *hopper_mesh;
  double Wstar, d_lo, d_hi, L, hr, mu_wall, mu_floor, jitter, t_max, w_tol, drop;
  int n_cells, max_sims, slab_cells;
} options;

/* The floor mesh of --hopper-mesh (NULL: the analytic floor), read and
 * checked before any run; its file, hash, size and plate recorded. Its
 * plate's thickness in cells is floor_cells / orifice_cells of D: the
 * analytic floor's 2 cells when it matches this run's orifice cells. */
static bg_mesh *load_floor_mesh(bg_lab *lab, const options *o, int round) {
  if (!o->hopper_mesh[0]) {
    bg_lab_manifest_str(lab, "floor", "analytic: max(slab, D/2 - rho)");
    return NULL;
  }
  bg_mesh *m = NULL;
  char err[1024], hex[65];
  if (bg_mesh_load(o->hopper_mesh, &m, err, sizeof err) != BG_OK) {
    fprintf(stderr, "error: --hopper-mesh: %s\n", err);
    exit(2);
  }
  double lo[3], hi[3];
  bg_mesh_bounds(m, lo, hi);
  if (bg_sha256_file_hex(o->hopper_mesh, hex) != BG_OK) snprintf(hex, sizeof hex, "unreadable");
  char desc[4400];
  snprintf(desc, sizeof desc, "mesh %s (sha256 %s, %zu triangles, z in [%g, %g] D)", o->hopper_mesh,
           hex, bg_mesh_triangle_count(m), lo[2], hi[2]);
  bg_lab_manifest_str(lab, "floor", desc);
  bg_lab_manifest_num(lab, "floor_mesh_plate_cells", (hi[2] - lo[2]) * o->n_cells);
  bg_lab_progress(
      lab, "floor from %s: %zu triangles, plate %.3g cells thick at %d cells across the %s orifice",
      o->hopper_mesh, bg_mesh_triangle_count(m), (hi[2] - lo[2]) * o->n_cells, o->n_cells,
      round ? "round" : "slot");
  return m;
}

/* The silo experiment's Beverloo fit this demo is compared with. */
typedef struct beverloo {
  char path[4096]; /* "" when none was found */
  double C, k, n;
  int have;
} beverloo;

/* What the root search found. */
typedef struct search {
  double D, W;
  int n_sims, converged;
} search;

/* The options no range can check, by bg_lab_init before the run folder is
 * touched (a bad one: exit 2, no folder, no marker). */
static void check_options(void *arg) {
  const options *o = arg;
  if (strcmp(o->geometry, "slot") && strcmp(o->geometry, "round")) {
    bg_lab_fail("--geometry: '%s' is not one of slot, round", o->geometry);
  }
  if (o->d_lo >= o->d_hi) {
    bg_lab_fail("--d-lo %g must be below --d-hi %g", o->d_lo, o->d_hi);
  }
  if (o->d_hi * 2.5 > o->L * (1 + 1e-9)) {
    bg_lab_fail("--d-hi %g m: the silo (--silo-width %g m) must be at least 2.5 D_hi wide "
            "(Beverloo's law needs the walls away from the orifice)",
            o->d_hi, o->L);
  }
}

/* Parses and checks the options; exits 2 on a bad one. */
static bg_lab *parse_options(int argc, char **argv, options *o) {
  /* clang-format off */
  *o = (options){.silo_fits = "", .hopper_mesh = "", .hr = 5.5, .mu_wall = 0.5, .mu_floor = 0.5, .jitter = 0.5,
                 .t_max = 20, .w_tol = 0.005, .drop = 1.0, .max_sims = 16, .slab_cells = 1};
  bg_lab_param params[] = {
      {.name = "geometry", .type = BG_PARAM_STRING, .dest = &o->geometry,
       .help = "slot (planar: W per unit width, kg/(m s)) or round (kg/s)", .quick = "slot",
       .paper = "round"},
      {.name = "target", .type = BG_PARAM_DOUBLE, .dest = &o->Wstar, .lo = 1e-4, .hi = 1e4,
       .help = "target discharge rate W*: kg/(m s) for the slot, kg/s round", .quick = "25",
       .paper = "0.134", .key = "target_W"},
      {.name = "d-lo", .type = BG_PARAM_DOUBLE, .dest = &o->d_lo, .lo = 1e-3, .hi = 1,
       .help = "lower end of the diameter bracket, m", .quick = "0.03", .paper = "0.016",
       .key = "d_lo_m"},
      {.name = "d-hi", .type = BG_PARAM_DOUBLE, .dest = &o->d_hi, .lo = 1e-3, .hi = 1,
       .help = "upper end of the diameter bracket, m", .quick = "0.045", .paper = "0.026",
       .key = "d_hi_m"},
      {.name = "orifice-cells", .type = BG_PARAM_INT, .dest = &o->n_cells, .lo = 3, .hi = 64,
       .help = "cells across the orifice at every trial (dx = D / N)", .quick = "6", .paper = "10",
       .key = "orifice_cells"},
      {.name = "silo-width", .type = BG_PARAM_DOUBLE, .dest = &o->L, .lo = 0.01, .hi = 5,
       .help = "silo width (slot) or diameter (round) L, m", .quick = "0.12", .paper = "0.075",
       .key = "silo_width_m"},
      {.name = "h-over-r", .type = BG_PARAM_DOUBLE, .dest = &o->hr, .lo = 5, .hi = 20,
       .help = "fill height over the silo half-width"},
      {.name = "mu-wall", .type = BG_PARAM_DOUBLE, .dest = &o->mu_wall, .lo = 0, .hi = 2,
       .help = "silo wall Coulomb coefficient"},
      {.name = "mu-floor", .type = BG_PARAM_DOUBLE, .dest = &o->mu_floor, .lo = 0, .hi = 2,
       .help = "floor Coulomb coefficient"},
      {.name = "slab-cells", .type = BG_PARAM_INT, .dest = &o->slab_cells, .lo = 1, .hi = 32,
       .help = "slot silo thickness, cells"},
      {.name = "drop", .type = BG_PARAM_DOUBLE, .dest = &o->drop, .lo = 0.1, .hi = 1,
       .help = "fraction of the fill H -> 1.2 L each run drains inside its window", .quick = "1",
       .paper = "0.2"},
      {.name = "jitter", .type = BG_PARAM_DOUBLE, .dest = &o->jitter, .lo = 0, .hi = 1,
       .help = "lattice jitter, fraction of the particle spacing"},
      {.name = "t-max", .type = BG_PARAM_DOUBLE, .dest = &o->t_max, .lo = 0.1, .hi = 100,
       .help = "maximum simulated time per run, s", .key = "t_max_s"},
      {.name = "w-tol", .type = BG_PARAM_DOUBLE, .dest = &o->w_tol, .lo = 1e-4, .hi = 0.1,
       .help = "search stops once an evaluation is within this of W* (relative)"},
      {.name = "max-sims", .type = BG_PARAM_INT, .dest = &o->max_sims, .lo = 3, .hi = MAX_EVAL - 1,
       .help = "most simulations the root search may use"},
      {.name = "silo-fits", .type = BG_PARAM_STRING, .dest = &o->silo_fits,
       .help = "fits.tsv of an exp_silo run of the same geometry (default: ../silo or ../exp_silo beside --out)"},
      {.name = "hopper-mesh", .type = BG_PARAM_STRING, .dest = &o->hopper_mesh,
       .help = "the floor from a closed mesh (OBJ or STL) in orifice diameters, e.g. "
               "references/meshes/hopper_slot.obj (default: the analytic floor)"},
  };
  /* clang-format on */
  bg_lab_accept_materials("drucker-prager,mu-i,ngf", "a granular model");
  bg_lab_check_options(check_options, o);
  bg_lab *lab = bg_lab_init(
      "demo_hopper",
      "Hopper design: the orifice diameter for a target discharge rate by GSL Brent root "
      "finding over silo runs, checked by an independent re-run and against Beverloo inverted.",
      argc, argv, params, (int)(sizeof params / sizeof params[0]), hopper_mutants);
  return lab;
}

/* The silo every trial shares (its grid follows D in run_at). */
static void setup_scene(ctx *c, bg_lab *lab, const options *o, int round) {
  memset(c, 0, sizeof *c);
  c->lab = lab;
  c->L = o->L;
  c->Wstar = o->Wstar;
  c->n_cells = o->n_cells;
  c->max_sims = o->max_sims;
  c->window_short = bg_lab_mutant_is(lab, "window-short");
  bg_material sand = bg_lab_material(lab);
  c->period_per_m = 4 * (o->hr * 0.5) / (double)bg_material_pwave_speed(&sand);
  bg_silo_scene base;
  memset(&base, 0, sizeof base);
  base.round = round;
  base.hr = o->hr;
  base.floor_cells = 2;
  base.gap_cells = 3;
  base.slab_cells = o->slab_cells;
  base.mu_wall = o->mu_wall;
  base.mu_floor = o->mu_floor;
  base.drop = o->drop;
  base.steady_stop = o->drop < 1;
  base.rel_se_max = 0.005;
  base.startup_frac = 0.05;
  base.t_max = o->t_max;
  base.jitter = o->jitter;
  base.backend = bg_lab_backend(lab);
  base.threads = bg_lab_threads(lab);
  base.seed = bg_lab_seed(lab);
  base.material = sand;
  c->base = base;
  bg_lab_manifest_material(lab, &sand);
  bg_lab_manifest_str(lab, "grid", "dx = D / orifice_cells at each trial");
  bg_lab_manifest_str(lab, "solver", "gsl_root_fsolver_brent on ln(W(D) / W*)");
  bg_lab_manifest_str(lab, "W_unit", round ? "kg/s" : "kg/(m s)");
}

/* The silo experiment's fit, looked up before any run so that a bad path
 * fails at once: --silo-fits, else a sibling run folder. */
static beverloo find_silo_fit(bg_lab *lab, const char *silo_fits, int round) {
  beverloo b = {.path = "", .C = NAN, .k = NAN, .n = NAN, .have = 0};
  if (silo_fits[0]) {
    if (access(silo_fits, R_OK) != 0) {
      fprintf(stderr, "error: --silo-fits %s: cannot read it\n", silo_fits);
      exit(2);
    }
    snprintf(b.path, sizeof b.path, "%s", silo_fits);
  } else {
    const char *sib[] = {"silo", "exp_silo"};
    for (int i = 0; i < 2 && !b.path[0]; ++i) {
      char p[4096];
      snprintf(p, sizeof p, "%s/../%s/fits.tsv", bg_lab_outdir(lab), sib[i]);
      if (access(p, R_OK) == 0) snprintf(b.path, sizeof b.path, "%s", p);
    }
  }
  if (b.path[0]) {
    b.have = read_silo_fit(b.path, &b.C, &b.k, &b.n);
    double n_law = round ? 2.5 : 1.5;
    if (b.have && fabs(b.n - n_law) > 1e-9) {
      bg_lab_progress(lab, "%s: its fit has n = %g, not this geometry's %g: no Beverloo comparison",
                      b.path, b.n, n_law);
      b.have = 0;
    }
  }
  bg_lab_manifest_str(lab, "silo_fits", b.have ? b.path : "none");
  return b;
}

/* Brent's root search on ln(W(D) / W*) over [d_lo, d_hi]; the best
 * evaluation is the design. */
static search root_search(ctx *c, const options *o, const char *unit) {
  gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  gsl_function F = {f_root, c};
  c->role = "bracket";
  int st = gsl_root_fsolver_set(s, &F, o->d_lo, o->d_hi);
  if (st != GSL_SUCCESS) {
    bg_lab_fail(
        "W* = %g %s is not inside the bracket: W(%g mm) = %g and W(%g mm) = %g; widen "
        "--d-lo/--d-hi",
        o->Wstar, unit, o->d_lo * 1e3, c->ev[0].W, o->d_hi * 1e3, c->n > 1 ? c->ev[1].W : NAN);
  }
  c->role = "brent";
  int converged = 0;
  for (int it = 0; it < o->max_sims && !converged; ++it) {
    /* stop once an evaluation meets W* to w_tol, or the bracket is below 0.1% of D */
    for (int i = 0; i < c->n; ++i)
      if (fabs(c->ev[i].W / o->Wstar - 1) <= o->w_tol) converged = 1;
    if (converged) break;
    if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-3) ==
        GSL_SUCCESS) {
      converged = 1;
      break;
    }
    st = gsl_root_fsolver_iterate(s);
    if (st != GSL_SUCCESS) bg_lab_fail("gsl_root_fsolver_iterate: %s", gsl_strerror(st));
  }
  gsl_root_fsolver_free(s);
  int best = 0;
  for (int i = 1; i < c->n; ++i)
    if (fabs(log(c->ev[i].W / o->Wstar)) < fabs(log(c->ev[best].W / o->Wstar))) best = i;
  search r = {.D = c->ev[best].D, .W = c->ev[best].W, .n_sims = c->n, .converged = converged};
  bg_lab_progress(c->lab, "search: D = %.3f mm after %d simulations, W %.5g %s (%+.2f%% of W*)%s",
                  r.D * 1e3, r.n_sims, r.W, unit, 100 * (r.W / o->Wstar - 1),
                  converged ? "" : " (not converged)");
  return r;
}

static void write_evaluations(const ctx *c) {
  FILE *fe = bg_lab_tsv(
      c->lab, "evaluations.tsv",
      "every simulation, in order: the bracket's two ends, the Brent iterations, then the "
      "independent re-run at the found diameter (another seed); W from the parked mass over the "
      "steady window",
      "sim\trole\tD_m\tdx_m\tsilo_cells\torifice_free_cells\tW\tsigma_W\tW_rel_se\tW_over_target\t"
      "rho_b_kg_m3\tflatness\tstop_rule\tparticles\tsteps");
  for (int i = 0; i < c->n; ++i) {
    const eval *e = &c->ev[i];
    fprintf(fe, "%d\t%s\t%.6g\t%.6g\t%d\t%d\t%.6g\t%.3g\t%.3g\t%.6f\t%.2f\t%.4f\t%s\t%zu\t%llu\n",
            i + 1, e->role, e->D, e->dx, e->silo_cells, e->d_free, e->W, e->sW, e->rel_se,
            e->W / c->Wstar, e->rho_b, e->flat, e->stop_rule, e->particles, e->steps);
  }
  fclose(fe);
}

/* Beverloo's curve over the bracket at this demo's resolution, for the figure */
static void write_beverloo_curve(bg_lab *lab, const options *o, const beverloo *b, double rho_b) {
  FILE *fc = bg_lab_tsv(
      lab, "beverloo_curve.tsv",
      "Beverloo with the silo experiment's C and k (fits.tsv row C_k_free_all) at dx = D / "
      "orifice_cells, rho_b of the re-run; NaN when no silo run was found",
      "D_m\tW_beverloo");
  for (int i = 0; i <= 40; ++i) {
    double D = o->d_lo + (o->d_hi - o->d_lo) * i / 40.0;
    double eff = D * (1 - b->k / o->n_cells);
    double W = b->have && eff > 0 ? b->C * rho_b * sqrt(G) * pow(eff, b->n) : NAN;
    fprintf(fc, "%.6g\t%.6g\n", D, W);
  }
  fclose(fc);
}

static void write_summary(const ctx *c, const search *s, const eval *re, const beverloo *b,
                          double D_bev, const char *unit) {
  double Wstar = c->Wstar;
  FILE *fs =
      bg_lab_tsv(c->lab, "summary.tsv", "the design and its checks", "quantity\tvalue\tunit");
  fprintf(fs, "target_W\t%.6g\t%s\n", Wstar, unit);
  fprintf(fs, "D_found\t%.6g\tm\n", s->D);
  fprintf(fs, "W_search\t%.6g\t%s\n", s->W, unit);
  fprintf(fs, "W_rerun\t%.6g\t%s\n", re->W, unit);
  fprintf(fs, "rerun_error\t%.6g\t1\n", re->W / Wstar - 1);
  fprintf(fs, "rerun_rel_se\t%.6g\t1\n", re->rel_se);
  fprintf(fs, "simulations_search\t%d\t1\n", s->n_sims);
  fprintf(fs, "simulations_total\t%d\t1\n", c->n);
  fprintf(fs, "converged\t%d\t1\n", s->converged);
  fprintf(fs, "rho_b\t%.6g\tkg/m3\n", re->rho_b);
  fprintf(fs, "beverloo_C\t%.6g\t1\n", b->C);
  fprintf(fs, "beverloo_k_cells\t%.6g\t1\n", b->k);
  fprintf(fs, "beverloo_n\t%.6g\t1\n", b->n);
  fprintf(fs, "D_beverloo\t%.6g\tm\n", D_bev);
  fprintf(fs, "D_found_over_D_beverloo_minus_1\t%.6g\t1\n", s->D / D_bev - 1);
  fclose(fs);
}

int main(int argc, char **argv) {
  options o;
  bg_lab *lab = parse_options(argc, argv, &o);
  const int round = !strcmp(o.geometry, "round");
  const char *unit = round ? "kg/s" : "kg/(m s)";
  gsl_set_error_handler_off();

  /* scene: the silo, and the fit to compare with */
  ctx c;
  setup_scene(&c, lab, &o, round);
  bg_mesh *floor_mesh = load_floor_mesh(lab, &o, round);
  c.base.floor_mesh = floor_mesh;
  beverloo bev = find_silo_fit(lab, o.silo_fits, round);

  /* run: the root search, then the independent re-run (another seed, its own lattice) */
  search s = root_search(&c, &o, unit);
  eval re = run_at(&c, s.D, c.base.seed + 7919ul, "re-run");

  /* read-out: Beverloo inverted with the silo experiment's C and k */
  double rho_b = re.rho_b, D_bev = NAN;
  if (bev.have)
    D_bev = pow(o.Wstar / (bev.C * rho_b * sqrt(G)), 1.0 / bev.n) / (1 - bev.k / o.n_cells);
  write_evaluations(&c);
  write_beverloo_curve(lab, &o, &bev, rho_b);
  write_summary(&c, &s, &re, &bev, D_bev, unit);
  bg_lab_manifest_num(lab, "D_found_m", s.D);
  bg_lab_manifest_num(lab, "simulations_search", s.n_sims);
  bg_lab_progress(lab,
                  "re-run at D = %.3f mm: W %.5g %s, %+.2f%% of W* (rel. s.e. %.2g%%); Beverloo "
                  "inverted: %s%.3f mm",
                  s.D * 1e3, re.W, unit, 100 * (re.W / o.Wstar - 1), 100 * re.rel_se,
                  bev.have ? "" : "(no silo run) ", D_bev * 1e3);

  /* judge */
  bg_lab_claim(lab, "demo.hopper.rate", s.converged ? fabs(re.W / o.Wstar - 1) : NAN);
  bg_mesh_destroy(floor_mesh);
  return bg_lab_finish(lab);
}
