/* lab_internal.h: what the harness's files share (private to experiments/lab;
 * experiments include bg_lab.h only). One struct holds a run; each file
 * owns one idea of it:
 *
 *   lab_output.c    checked outputs, the run folder and its markers, errors
 *   lab_claims.c    the claims table, judging a claim, verdicts, claims.tsv
 *   lab_mutants.c   the mutant registry and measurement mutants
 *   lab_cli.c       the options (getopt_long) and --help
 *   lab_init.c      bg_lab_init and bg_lab_finish: a run's start and end
 *   lab_resume.c    the identity a resumed run must share
 *   lab_sweep.c     sweeps: plan, points, gather
 *   lab_manifest.c  manifest.json and what goes into it
 *   lab_backend.c   every backend name the lab deals with
 *   lab_sim.c       per-simulation services: frames, checkpoints, progress */
#ifndef LAB_INTERNAL_H
#define LAB_INTERNAL_H

#include <stdio.h>

#include "bg_lab.h"

#define MAX_CLAIMS 64
#define MAX_MANIFEST 128
#define MAX_MUTANTS 32
#define MAX_MUTANT_CLAIMS 256
#define MAX_FILES 256
#define MAX_SIM_TAGS 4096

typedef struct claim_row {
  char id[96];
  char compare[8]; /* abs, rel, max, min */
  double expected; /* a number, or for a "fed" row the X of fed+X / fed*X */
  char fed_op;     /* 0: expected is a number; '+' or '*': expected = fed + X or fed * X */
  double tol[2];   /* quick, paper */
  char unit[24];
  char source[64];
  char kind[16];
  int expect[2]; /* per scale (quick, paper): a verdict code; V_FAIL a known, documented miss (the
                   description says why), V_REFUTED (quick only) a quick pass the recorded paper run
                   contradicts */
} claim_row;

typedef struct claim_result {
  char id[96];
  double measured, expected, tol;
  char unit[24], source[64], compare[8];
  int pass;    /* the rule applied to measured */
  int verdict; /* V_PASS, V_FAIL, or V_REFUTED: a quick pass the recorded paper run contradicts */
  int expect;
  char paper[160]; /* the recorded paper run's value and verdict, re-judged by today's row; "-" when
                      none */
  int paper_fails; /* -1: no recorded paper run judges it; 0: it passes there; 1: it fails there;
                      -2: recorded for its entry's inputs, and this run was fed others */
} claim_result;

/* Verdict codes. A quick-scale pass is only evidence if the paper scale
 * agrees: where the recorded paper run of the same claim fails today's
 * row, the quick verdict is "refuted", and the table must say so. */
enum { V_FAIL = 0, V_PASS = 1, V_REFUTED = 2 };
extern const char *const lab_verdict_name[];

/* A row of references/mutants.tsv for this executable. */
typedef struct mutant_row {
  char name[64];
  char kind[16];    /* model, scene, measurement or protocol */
  char claims[512]; /* comma-separated claim ids it must flip */
  char scale[8];    /* quick: checked by ctest on a quick run; paper: on the recorded paper run */
  char desc[1024];
} mutant_row;

/* A measurement mutant's value, recorded by bg_lab_claim_mutant. */
typedef struct mutant_claim {
  char mutant[64];
  char id[96];
  double measured;
  double fed; /* the input a "fed" row compares with, NaN otherwise */
} mutant_claim;

/* Parsed before the run folder exists (lab_cli.c), applied after. */
typedef struct lab_cli {
  const char *mutant; /* --mutant, or NULL */
  int want_help;
  int out_given;
  /* the common options given on the command line: --resume reads the
   * others from the run folder (lab_resume_inherit) */
  int scale_given, material_given, seed_given, seeding_given, mu_s_given, grain_d_given,
      ngf_a_given, ngf_t0_given, youngs_given, cone_given, ckpt_given, vtk_given;
} lab_cli;

struct bg_lab {
  const char *name;
  bg_scale scale;
  const char *backend;
  /* what the first simulation said it ran on (bglab_backend_note), "" before one */
  char sim_backend[64];
  /* and the properties it reported (bg_sim_describe), "name=value,..." */
  char sim_properties[256];
  int material;   /* bg_material_model of --material */
  int n_unjudged; /* claims measured but not in the table for this model */
  double mu_s;    /* --mu-s (mu(I) only), 0: the model's default */
  double grain_d; /* --grain-d (models with a grain size), 0: the model's default */
  double ngf_a;   /* --ngf-a (ngf only), < 0: the model's default */
  double ngf_t0;  /* --ngf-t0 (ngf only), 0: the model's default */
  double youngs;  /* --youngs (any model), 0: the model's default */
  int cone;       /* --cone (drucker-prager only): a bg_dp_cone, -1: the model's default */
  /* steps taken by the run's simulations, and those whose dt the nonlocal
   * bound set (bg_stats.steps_nonlocal_dt), with the largest share of one */
  double steps_all, steps_nonlocal, nonlocal_share_max;
  char out[1024];
  char refs[1024];
  int threads;
  unsigned long seed;
  int seeding; /* --seeding: BG_SEEDING_LATTICE or BG_SEEDING_POISSON */
  int quiet;
  double t0;
  double work;
  claim_row *table;
  int n_table;
  claim_result claims[MAX_CLAIMS];
  int n_claims;
  char *manifest[MAX_MANIFEST]; /* "\"key\": value" */
  int n_manifest;
  char argv_line[2048];
  mutant_row mutants[MAX_MUTANTS];
  int n_mutants;
  const mutant_row *active; /* --mutant, or NULL */
  mutant_claim *mclaims;
  int n_mclaims;
  char table_sha[65], mutants_sha[65];
  char *files[MAX_FILES]; /* outputs of this run, names inside out */
  int n_files;
  int force;
  double last_progress, progress_every;
  /* per-simulation services (bg_lab_sim_begin): --vtk-every, --checkpoint-every, --resume */
  double vtk_every; /* simulated s between frames, 0 off */
  double damping;   /* the largest grid damping (1/s) of the run's simulations */
  double
      ckpt_every; /* wall s between checkpoints, 0 off; < 0 until the scale's default is applied */
  char resume[1024];   /* a previous run's folder, "" when not resuming */
  int resume_inplace;  /* --resume names --out itself: its checkpoints/ and vtk/ are kept */
  char identity[8192]; /* what a resumed run must share: checkpoints/run.txt */
  /* "--name<TAB>default<TAB>numeric" per parameter with a default at this
   * scale: with identity, whether this run is its registry entry's
   * standard run, which a recorded paper run may judge (lab_claims.c) */
  char defaults[4096];
  char *sim_tags[2 * MAX_SIM_TAGS]; /* file name, tag as given: pairs */
  int n_sim_tags;
  /* sweeps (bg_lab_sweep): the phase asked for, the point of --point, the
   * sweep's folder (--out; out itself is points/K for --point), the plan's
   * point count (read by --point and --gather), and whether the experiment
   * declared a sweep at all */
  int phase;
  int point;
  char root[1024];
  int plan_n;
  int in_sweep;
  /* --reuse DIR: a run whose complete points this sweep may copy ("" none),
   * the experiment's point keys (bg_lab_sweep_keys) and how many were copied */
  char reuse[1024];
  const char *const *sweep_keys;
  int reused;
};

enum { SW_ALL = 0, SW_PLAN, SW_POINT, SW_GATHER };
extern const char *const lab_sweep_opt[];

/* Work done by the calling thread since the last reset: one point's share
 * of the run's particle-steps (bg_lab_sweep). */
extern _Thread_local double lab_tl_work;

/* ---- lab_output.c */
double lab_now(void);
/* The commit a run records and a sweep's phases must share. */
const char *lab_commit(void);
/* Prints "error: ...", marks the run folder FAILED and exits 2. */
_Noreturn void lab_die(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* OUT/file opened for writing through the checked cookie; recorded. */
FILE *lab_open_output(bg_lab *lab, const char *file);
/* fclose with the error turned into an exit */
void lab_close_output(FILE *fp, const char *what);
/* Records an output file (a name inside OUT) for the manifest. */
void lab_add_file(bg_lab *lab, const char *file);
/* mkdir -p; -1 with errno on failure */
int lab_make_dirs(const char *path);
/* data into path through a temporary file renamed into place */
void lab_write_whole(const char *path, const void *data, size_t len);
/* The text of a small file (at most cap - 1 bytes), or NULL when it cannot
 * be opened (errno says why); a longer file is an error. */
char *lab_read_small(const char *path, char *buf, size_t cap);
/* Splits a line at tabs in place, keeping empty fields; returns the count. */
int lab_split_tabs(char *line, char **f, int max);
/* --out: created, checked, cleared as --force or a resume in place says. */
void lab_prepare_outdir(bg_lab *lab);
/* RUNNING in the run folder until the manifest is in place; signals mark it. */
void lab_start_marker(bg_lab *lab);
/* A complete run (or phase): the marker goes. */
void lab_end_marker(void);

/* ---- lab_claims.c */
void lab_load_claims(bg_lab *lab);
const claim_row *lab_find_claim(const bg_lab *lab, const char *id);
/* The claim id this run's model judges id under; 0 when it has none. */
int lab_scoped_id(const bg_lab *lab, const char *id, char *out, size_t n);
/* 1 when item is one of the comma-separated list's */
int lab_in_list(const char *list, const char *item);
/* The expected value of row r for a run fed 'fed'. */
double lab_row_expected(const claim_row *r, double fed);
/* The rule of row r applied to measured: 1 pass, 0 fail (NaN fails). */
int lab_judge(const claim_row *r, double expected, double tol, double measured);
/* The verdict of a raw pass at scale: a quick pass the recorded paper run
 * contradicts (paper_fails 1) is refuted. */
int lab_settle(bg_scale scale, int pass, int paper_fails);
/* Each claim's verdict, with the recorded paper run's. */
void lab_settle_claims(bg_lab *lab);
/* Today's verdict (a V_ code) of a recorded run's value by row r at the
 * lab's scale, with the expected value and tolerance it was held to. */
int lab_rejudge(const bg_lab *lab, const claim_row *r, double measured, double recorded_expected,
                double *expected, double *tol);
/* claims.tsv and the claims on stderr; returns the unexpected verdicts. */
int lab_write_claims(bg_lab *lab);

/* ---- lab_mutants.c */
void lab_load_mutants(bg_lab *lab, const char *const *implemented);
/* --mutant NAME: one of this executable's, else exit 2 with the list. */
void lab_select_mutant(bg_lab *lab, const char *name);
void lab_write_mutants(bg_lab *lab);
void lab_apply_measurement_mutant(bg_lab *lab);

/* ---- lab_cli.c */
/* Parses argv into lab and params; --help and --version are handled by
 * the caller (lab_init.c) once the mutant registry is read. */
void lab_parse_options(bg_lab *lab, const char *summary, int argc, char **argv,
                       bg_lab_param *params, int n_params, const char *const *mutants,
                       lab_cli *cli);
void lab_usage(const bg_lab *lab, const char *summary, const bg_lab_param *p, int n, FILE *fp);
/* Sets every parameter not given from its default at the run's scale. */
void lab_apply_defaults(const bg_lab *lab, bg_lab_param *params, int n_params);

/* ---- lab_resume.c */
void lab_build_identity(bg_lab *lab, const bg_lab_param *p, int n);
/* Ends the run naming the first setting that differs. */
void lab_same_identity(const char *there, const char *here, const char *opt, const char *what,
                       const char *hint);
void lab_check_resume(bg_lab *lab);
void lab_resume_inherit(bg_lab *lab, bg_lab_param *p, int n, lab_cli *cli);
void lab_check_model(const bg_lab *lab);
/* --cone's word as a bg_dp_cone, -1 when it is none of them */
int bg_lab_cone_parse(const char *name);
void lab_write_identity(bg_lab *lab, int always);

/* ---- lab_sweep.c */
/* --plan, --point K, --gather: where the run writes, and the early checks. */
void lab_sweep_setup(bg_lab *lab);
/* A run with a sweep phase must declare a sweep. */
void lab_need_sweep(const bg_lab *lab);

/* ---- lab_manifest.c */
void lab_manifest_steps(bg_lab *lab);
/* 1 when the experiment recorded key itself */
int lab_manifest_has(const bg_lab *lab, const char *key);
void lab_json_escape(char *dst, size_t n, const char *src);
void lab_write_manifest(bg_lab *lab, double wall);

/* ---- lab_backend.c */
/* What --backend accepts, for the usage text and its error. */
const char *bglab_backend_choices(void);
/* The backend a run takes when --backend is not given. */
const char *bglab_backend_default(void);
/* 1 when name is a backend --backend accepts (it may still be unavailable here). */
int bglab_backend_valid(const char *name);
/* Ends the run (exit 2) when the requested backend cannot run here. */
void bglab_backend_check_available(const char *requested);
/* 1 and the device's description when a device backend can run here, else
 * 0 and why not. */
int bglab_backend_device(char *desc, size_t n);
/* 1 when the requested backend runs on the CPU here (for the paper-scale warning). */
int bglab_backend_on_cpu(const char *requested);
/* Notes the backend a simulation runs on (the first one's is recorded):
 * called for every simulation, from several threads at once. */
void bglab_backend_note(bg_lab *lab, const bg_sim *sim);
/* The manifest's "backend" and "device" lines (each unless the experiment
 * recorded its own): what the first simulation said it ran on. */
void bglab_manifest_backend(FILE *fp, const bg_lab *lab, const char *cpu);

#endif /* LAB_INTERNAL_H */
