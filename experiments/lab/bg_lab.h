/* bg_lab.h: the harness every probe and experiment runs through: one CLI
 * (getopt_long), the run manifest, TSV outputs with named columns and units,
 * progress on stderr, and claims checked against references/claims.tsv.
 *
 * A run is: bg_lab_init (parse, check every input, prepare --out) -> work,
 * writing TSV with bg_lab_tsv -> bg_lab_claim for each claim ->
 * bg_lab_finish, whose return value is the exit code: 0 when every verdict
 * is the one references/claims.tsv expects (a documented miss included),
 * 1 for an unexpected verdict. Every error exits 2, before any simulation
 * where it can be found then. */
#ifndef BG_LAB_H
#define BG_LAB_H

#include <stddef.h>
#include <stdio.h>

#include "bagnold.h"

typedef enum bg_scale { BG_SCALE_QUICK = 0, BG_SCALE_PAPER = 1 } bg_scale;

/* An experiment's own parameter. dest points at a double, an int or a
 * const char *, by type; its value on entry is the default, unless quick
 * and paper give one per scale (as text, parsed and range-checked like a
 * command-line value). Every parameter is recorded in the manifest under
 * key (default: the name with '-' as '_'). */
typedef enum bg_param_type { BG_PARAM_DOUBLE = 0, BG_PARAM_INT = 1, BG_PARAM_STRING = 2 } bg_param_type;

typedef struct bg_lab_param {
  const char *name; /* long option without "--", e.g. "phi" */
  bg_param_type type;
  void *dest;
  double lo, hi; /* accepted closed range for numbers */
  const char *help;
  int set; /* written by bg_lab_init: 1 when given on the command line (or read from --resume's folder) */
  const char *quick, *paper; /* per-scale defaults, or NULL: *dest as it is */
  const char *key;           /* manifest key, or NULL */
  int service; /* 1: how the run is carried out, not what it computes (--jobs): left out of the
                  run's identity, so a resumed or gathered run may give another value */
} bg_lab_param;

typedef struct bg_lab bg_lab;

/* Parses the common options (--scale, --backend, --out, --threads, --seed,
 * --quiet, --references, --mutant, --vtk-every, --checkpoint-every,
 * --resume, --help) and params. On --help prints
 * usage and exits 0; on a bad argument prints which one and its range and
 * exits 2. Creates the output directory (default "out/<name>").
 *
 * mutants: the names of the mutants this executable implements (NULL
 * terminated). references/mutants.tsv is their one registry (kind, the
 * claims each must flip, what it changes); init checks that the table and
 * the code list the same names for this executable, and --mutant NAME must
 * be one of them. */
bg_lab *bg_lab_init(const char *name, const char *summary, int argc, char **argv,
                    bg_lab_param *params, int n_params, const char *const *mutants);

/* The material models an executable can run, called before bg_lab_init:
 * labels, comma separated ("drucker-prager,mu-i,ngf"), the first the
 * default (a run without --material), and what it needs them for ("a
 * granular model"); both strings must outlive the run. --help lists them,
 * and bg_lab_init refuses any other --material (exit 2, naming the need)
 * before the run folder is touched. Without the call every registered model
 * is taken and Drucker-Prager is the default. */
void bg_lab_accept_materials(const char *labels, const char *need);

/* An experiment's own checks of its options (a list to parse, two values
 * that must be ordered), registered before bg_lab_init, which calls fn(ctx)
 * once every parameter has its value (given, inherited by --resume, or the
 * scale's default) and before the run folder is touched: fn ends a bad run
 * with bg_lab_fail (exit 2), leaving no folder and no RUNNING marker. */
typedef void (*bg_lab_check_fn)(void *ctx);
void bg_lab_check_options(bg_lab_check_fn fn, void *ctx);

/* The mutant this run applies (--mutant), or NULL for the real lab. */
const char *bg_lab_mutant(const bg_lab *lab);
/* 1 when this run applies the named mutant. */
int bg_lab_mutant_is(const bg_lab *lab, const char *mutant);
/* Whether a claim is wanted: always in a plain run; in a mutant run only the
 * claims that mutants.tsv says the mutant must flip, so that an experiment
 * may skip the stages no wanted claim depends on. */
int bg_lab_needed(const bg_lab *lab, const char *claim_id);

/* A measurement mutant evaluated on this run's own data: the value the
 * claim would have measured had the measurement been changed as the mutant
 * says. Recorded with its verdict in mutants.tsv; in a run with
 * --mutant MUTANT the value replaces the claim's own. */
void bg_lab_claim_mutant(bg_lab *lab, const char *mutant, const char *id, double measured);

bg_scale bg_lab_scale(const bg_lab *lab);
/* --material: the registered model (bg_material_model; default
 * BG_MODEL_DP), its name, and the material with its default parameters. */
int bg_lab_material_model(const bg_lab *lab);
const char *bg_lab_material_name(const bg_lab *lab);
bg_material bg_lab_material(const bg_lab *lab);
/* --cone: an executable that matches the Drucker-Prager cone itself calls
 * bg_lab_sets_cone before bg_lab_init, and --cone is then refused (exit 2)
 * before the run folder is touched, rather than ignored. bg_dp_cone's names. */
void bg_lab_sets_cone(const char *why);
const char *bg_lab_cone_name(int cone);
/* The material's model and parameters, as the manifest's "material". */
void bg_lab_manifest_material(bg_lab *lab, const bg_material *m);
/* The static friction mu_s of a rate-dependent model (mu-i, ngf), -1 for
 * one without (Drucker-Prager: phi). */
double bg_lab_static_friction(const bg_material *m);
/* The grain diameter of a model that has one (mu-i, ngf), -1 otherwise. */
double bg_lab_grain_d(const bg_material *m);
const char *bg_lab_scale_name(const bg_lab *lab);
const char *bg_lab_backend(const bg_lab *lab);
int bg_lab_threads(const bg_lab *lab);
unsigned long bg_lab_seed(const bg_lab *lab);

/* --seeding: how a scene places its particles at the start. lattice (the
 * default) is each experiment's own jittered lattice; poisson is
 * bg_seed_poisson at the same ppc, each particle carrying the shape's
 * measured volume over the count (bg_seed_volume). Only an executable that
 * called bg_lab_takes_seeding before bg_lab_init takes poisson; the others
 * refuse it (exit 2) before the run folder is touched. */
typedef enum bg_seeding { BG_SEEDING_LATTICE = 0, BG_SEEDING_POISSON = 1 } bg_seeding;
void bg_lab_takes_seeding(void);
bg_seeding bg_lab_seeding(const bg_lab *lab);
int bg_lab_quiet(const bg_lab *lab);
const char *bg_lab_outdir(const bg_lab *lab);
/* The references directory (claims table, literature/ data). */
const char *bg_lab_references(const bg_lab *lab);

/* Opens OUT/file for writing a TSV: a '#' comment line and a '#' header of
 * tab-separated column names with units ("axial_strain\tphi_mob_deg").
 * Every write and the close are checked (exit 2 naming the path and the
 * error); the file is written under a temporary name and appears under its
 * own at fclose. */
FILE *bg_lab_tsv(bg_lab *lab, const char *file, const char *comment, const char *columns);

/* OUT/file as a path (into path, n bytes) for an output the experiment
 * writes itself (a series, particles.vtk); recorded in the manifest. */
const char *bg_lab_output(bg_lab *lab, const char *file, char *path, size_t n);

/* Ends the run on an error the experiment found (a solver call refused, a
 * write failed): prints "error: ...", marks the run folder FAILED and exits
 * 2. */
#ifdef __GNUC__
__attribute__((format(printf, 1, 2), noreturn))
#endif
void bg_lab_fail(const char *fmt, ...);

/* A library call's status: on anything but BG_OK, bg_lab_fail with what
 * was being done and the simulation's own message (the status's name
 * when there is no simulation yet). */
void bg_lab_check(bg_status s, bg_sim *sim, const char *what);
/* A simulation of d on the run's backend and threads (--backend,
 * --threads, written into d), or bg_lab_fail with the library's message. */
bg_sim *bg_lab_create_sim(bg_lab *lab, bg_sim_desc *d);
/* malloc that ends the run (bg_lab_fail) when memory runs out; n = 0 is
 * one byte, so a valid pointer comes back either way. */
void *bg_lab_xmalloc(size_t n);

/* REFERENCES/file as a path, checked readable now: call it before any
 * simulation for every reference file the run will read. */
const char *bg_lab_reference(bg_lab *lab, const char *file, char *path, size_t n);
/* The value in column of the row whose first field is key, in the
 * references TSV file ('#' comments, a plain header): exit 2 naming the file
 * when it, the column or the row is missing or the value not a number. */
double bg_lab_ref_value(bg_lab *lab, const char *file, const char *key, const char *column);

/* Progress of a long simulation, at most every ten seconds of wall time
 * unless --quiet: simulated time of total, particle-steps/s since the
 * previous line and the time left at that rate. */
void bg_lab_progress_sim(bg_lab *lab, const char *tag, double t, double t_total, double particle_steps);

/* Records a parameter or result in the manifest (value as JSON: pass a
 * number or a quoted string via bg_lab_manifest_str). */
void bg_lab_manifest_num(bg_lab *lab, const char *key, double value);
void bg_lab_manifest_str(bg_lab *lab, const char *key, const char *value);

/* Adds work done for the manifest's particle-steps/s. */
void bg_lab_add_work(bg_lab *lab, double particle_steps);

/* Progress: one line per call on stderr unless --quiet. */
void bg_lab_progress(bg_lab *lab, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Checks a measured value against the claim's row in references/claims.tsv
 * for this run's scale and records the verdict. Returns 1 on pass. A claim
 * id missing from the table is a failed claim with a message, never a pass. */
int bg_lab_claim(bg_lab *lab, const char *id, double measured);

/* A claim that sees its input: its expected value is what the run was fed,
 * not a constant of the table. The table's expected column reads "fed",
 * "fed+X", "fed-X" or "fed*X" (X a number), and fed is the input as the
 * library holds it, read back through the public API (bg_sim_describe, a
 * collider's geometry, the material of the simulation), never the
 * experiment's own copy of it: expected = fed (+X, -X, *X). bg_lab_claim on
 * a "fed" row, or bg_lab_claim_fed on a numeric row, ends the run (exit 2).
 * The fed value is written to claims.tsv's expected column. */
int bg_lab_claim_fed(bg_lab *lab, const char *id, double measured, double fed);
/* bg_lab_claim_mutant for a "fed" row: the mutant's measured value and the
 * input the mutated lab would have compared it with. */
void bg_lab_claim_mutant_fed(bg_lab *lab, const char *mutant, const char *id, double measured, double fed);

/* Writes claims.tsv, mutants.tsv and manifest.json, prints the claims,
 * removes the RUNNING marker, frees the lab. Returns 0 when every verdict
 * equals its expect, 1 when one does not; no claim at all is an error. */
int bg_lab_finish(bg_lab *lab);

/* Expected value and tolerance of a claim at this scale, for analyses that
 * need them before the verdict (e.g. to draw the tolerance band). Returns 0
 * if the claim is unknown. */
int bg_lab_claim_ref(bg_lab *lab, const char *id, double *expected, double *tolerance);

/* ----------------------------------------- per-simulation services
 *
 * Every measurement loop runs its simulation through these: ParaView frames
 * (--vtk-every), checkpoints (--checkpoint-every) and resume (--resume).
 *
 *   sim created, particles added (a deterministic set-up)
 *   ls = bg_lab_sim_begin(lab, sim, tag, &state, &finished);
 *   if state.len: read the loop's variables back with bg_lab_blob_get
 *   if (!finished) loop { advance; measure; bg_lab_sim_tick(ls, pack, ctx); }
 *   bg_lab_sim_end(ls, pack, ctx);   then the loop's analysis as before
 *
 * pack(ctx, out) appends, with bg_lab_blob_put, every variable the loop
 * keeps between iterations, in the order the resume reads them: with it a
 * resumed run writes the same files, byte for byte, as one never stopped.
 * tag names the simulation, unique within the run (its file name is the tag
 * with runs of characters other than letters, digits, '.' and '-' made one
 * '_'); two that share a file name end the run with an error. */
typedef struct bg_lab_blob {
  unsigned char *data;
  size_t len, cap, pos; /* bytes held, allocated, read so far */
} bg_lab_blob;
void bg_lab_blob_put(bg_lab_blob *b, const void *p, size_t n);
/* Reads the next n bytes; a state shorter than that ends the run (exit 2). */
void bg_lab_blob_get(bg_lab_blob *b, void *p, size_t n);
void bg_lab_blob_free(bg_lab_blob *b);

typedef void (*bg_lab_pack_fn)(void *ctx, bg_lab_blob *out);
typedef struct bg_lab_sim bg_lab_sim;

/* With --resume and a checkpoint of tag there, sim is restored from it and
 * the loop's state is put into *state (len 0 otherwise: start from scratch);
 * *finished is 1 when the loop had ended (skip it: the restored state is
 * its final one). With --vtk-every, opens OUT/vtk/<tag>.pvd and writes the
 * initial frame. Thread-safe: experiments call it inside --jobs regions. */
bg_lab_sim *bg_lab_sim_begin(bg_lab *lab, bg_sim *sim, const char *tag, bg_lab_blob *state, int *finished);
/* Once per iteration, where the loop's state is what pack saves: a frame
 * when the simulated time has reached the next multiple of --vtk-every, a
 * checkpoint when --checkpoint-every wall seconds have passed since the
 * last (pack is called only then). */
void bg_lab_sim_tick(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx);
/* After the loop: the final frame, the final checkpoint (marked finished);
 * frees ls. */
void bg_lab_sim_end(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx);

/* ------------------------------------------------------------- sweeps
 *
 * An experiment whose simulations are independent (an aspect-ratio sweep, a
 * set of apertures, a refinement) declares them as the points of a sweep;
 * the lab then runs them in one of four ways, chosen on the command line:
 *
 *   (none)      plan, every point, gather: one process, --jobs at a time;
 *   --plan      OUT/plan.tsv (one row per point) and OUT/sweep.txt (what
 *               every point and the gather must share); then exit 0;
 *   --point K   point K alone, into OUT/points/K/ (its result, its manifest,
 *               its checkpoints); a point that has a checkpoint there resumes
 *               from it, a complete one is not run again; then exit 0;
 *   --gather    checks that every point is complete, from the same commit,
 *               claims table and parameters, and goes on with the analysis.
 *
 * The one-process run writes and reads its points through the same files,
 * so a sweep run point by point (scripts/lab sweep, a Slurm job array) and
 * gathered gives the same outputs, byte for byte.
 *
 * run(ctx, k, result) simulates point k and packs into result (with
 * bg_lab_blob_put) everything the analysis needs of it. Called from several
 * threads at once when jobs > 1. tags name the points (the plan, progress);
 * cost[k] orders the one-process run (the largest first), NULL for none.
 * Returns the n results, to be read with bg_lab_blob_get and released with
 * bg_lab_sweep_free. */
typedef void (*bg_lab_point_fn)(void *ctx, int k, bg_lab_blob *result);
bg_lab_blob *bg_lab_sweep(bg_lab *lab, int n, const char *const *tags, const double *cost, int jobs,
                          bg_lab_point_fn run, void *ctx);
/* Points another run already simulated (--reuse DIR): keys[k] (n of them,
 * kept until bg_lab_sweep returns) is a text of everything point k's
 * simulation and its packed result depend on besides the build (its scene in
 * full: geometry, material, floor, seed, backend). Before point k is
 * simulated, a complete point of DIR's sweep with the same key, from the same
 * executable and commit, is copied instead; its result is the same bytes a
 * simulation here would pack (the CPU runs are deterministic). Every point
 * records its key's hash in its point.txt, so any run can be reused. Call
 * before bg_lab_sweep; an experiment that never calls it reuses nothing. */
void bg_lab_sweep_keys(bg_lab *lab, const char *const *keys);
void bg_lab_sweep_free(bg_lab_blob *results, int n);

#endif /* BG_LAB_H */
