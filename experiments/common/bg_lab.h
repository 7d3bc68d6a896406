/* bg_lab.h: the harness every probe and experiment runs through: one CLI
 * (getopt_long), the run manifest, TSV outputs with named columns and units,
 * progress on stderr, and claims checked against references/claims.tsv.
 *
 * A run is: bg_lab_init (parse, create --out) -> work, writing TSV with
 * bg_lab_tsv -> bg_lab_claim for each claim -> bg_lab_finish, whose return
 * value is the exit code (0 only if every claim passed). */
#ifndef BG_LAB_H
#define BG_LAB_H

#include <stdio.h>

typedef enum bg_scale { BG_SCALE_QUICK = 0, BG_SCALE_PAPER = 1 } bg_scale;

/* An experiment's own parameter. dest points at a double, an int or a
 * const char *, by type; its value on entry is the default (which may depend
 * on the scale: call bg_lab_init, then the caller fills unset values). */
typedef enum bg_param_type { BG_PARAM_DOUBLE = 0, BG_PARAM_INT = 1, BG_PARAM_STRING = 2 } bg_param_type;

typedef struct bg_lab_param {
  const char *name; /* long option without "--", e.g. "phi" */
  bg_param_type type;
  void *dest;
  double lo, hi; /* accepted closed range for numbers */
  const char *help;
  int set; /* written by bg_lab_init: 1 when given on the command line */
} bg_lab_param;

typedef struct bg_lab bg_lab;

/* Parses the common options (--scale, --backend, --out, --threads, --seed,
 * --quiet, --references, --mutant, --help) and params. On --help prints
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
const char *bg_lab_scale_name(const bg_lab *lab);
const char *bg_lab_backend(const bg_lab *lab);
int bg_lab_threads(const bg_lab *lab);
unsigned long bg_lab_seed(const bg_lab *lab);
int bg_lab_quiet(const bg_lab *lab);
const char *bg_lab_outdir(const bg_lab *lab);
/* The references directory (claims table, literature/ data). */
const char *bg_lab_references(const bg_lab *lab);

/* Opens OUT/file for writing a TSV: a '#' comment line and a '#' header of
 * tab-separated column names with units ("axial_strain\tphi_mob_deg").
 * Exits with a message on failure (an experiment cannot go on without its
 * output). */
FILE *bg_lab_tsv(bg_lab *lab, const char *file, const char *comment, const char *columns);

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

/* Writes claims.tsv and manifest.json, prints the claims, frees the lab.
 * Returns 0 if every claim passed (and at least one was made), else 1. */
int bg_lab_finish(bg_lab *lab);

/* Expected value and tolerance of a claim at this scale, for analyses that
 * need them before the verdict (e.g. to draw the tolerance band). Returns 0
 * if the claim is unknown. */
int bg_lab_claim_ref(bg_lab *lab, const char *id, double *expected, double *tolerance);

#endif /* BG_LAB_H */
