/* lab_init.c: a run's start and end. bg_lab_init reads the command line,
 * checks every input against the tables and prepares the run folder before
 * any simulation; bg_lab_finish judges the claims and writes the record. */
#define _POSIX_C_SOURCE 200809L /* setenv, execv */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_internal.h"

/* The experiment's checks of its own options (bg_lab_check_options). */
static bg_lab_check_fn options_check;
static void *options_ctx;

void bg_lab_check_options(bg_lab_check_fn fn, void *ctx) {
  options_check = fn;
  options_ctx = ctx;
}

/* A lab with the defaults every option starts from. */
static bg_lab *lab_new(const char *name) {
  bg_lab *lab = calloc(1, sizeof *lab);
  if (!lab) lab_die("out of memory");
  lab->name = name;
  lab->scale = BG_SCALE_QUICK;
  lab->backend = bglab_backend_default();
  lab->seed = 1;
  lab->ngf_a = -1;
  lab->cone = -1;
  lab->ngf_t0 = 0;
  lab->ckpt_every = -1;
  lab->t0 = lab_now();
  /* progress interval, s: BAGNOLD_PROGRESS_S changes it (tests use a short one) */
  lab->progress_every = 10.0;
  const char *pe = getenv("BAGNOLD_PROGRESS_S");
  if (pe && *pe) {
    char *end;
    double v = strtod(pe, &end);
    if (*end || !(v > 0 && v <= 3600))
      lab_die("BAGNOLD_PROGRESS_S: '%s' is not a number of seconds in (0, 3600]", pe);
    lab->progress_every = v;
  }
  snprintf(lab->out, sizeof lab->out, "out/%s", name);
  const char *env_refs = getenv("BAGNOLD_REFERENCES");
  snprintf(lab->refs, sizeof lab->refs, "%s",
           env_refs ? env_refs : BAGNOLD_SOURCE_DIR "/references");
  return lab;
}

/* What can be checked before the run folder is touched: the mutant, the
 * parameters' defaults at this scale, the backend, the tables. */
static void resolve_inputs(bg_lab *lab, const char *summary, bg_lab_param *params, int n_params,
                           const char *const *mutants, const lab_cli *cli) {
  lab_load_mutants(lab, mutants);
  if (cli->want_help) {
    lab_usage(lab, summary, params, n_params, stdout);
    exit(0);
  }
  if (cli->mutant) lab_select_mutant(lab, cli->mutant);
  lab_apply_defaults(lab, params, n_params);
  bglab_backend_check_available(lab->backend);
  if (lab->scale == BG_SCALE_PAPER && !lab->quiet && bglab_backend_on_cpu(lab->backend))
    fprintf(stderr,
            "warning: %s at paper scale on the CPU: the seed's resolution takes hours here "
            "(minutes on a "
            "GPU); progress and the time left follow every %.0f s\n",
            lab->name, lab->progress_every);
  lab->mclaims = calloc(MAX_MUTANT_CLAIMS, sizeof *lab->mclaims);
  if (!lab->mclaims) lab_die("out of memory");
  lab_load_claims(lab);
}

/* The run folder: where it is (--out, --resume, a sweep's point), checked
 * and cleared, marked RUNNING, with the identity a resume needs. */
static void prepare_folder(bg_lab *lab, const bg_lab_param *params, int n_params,
                           const lab_cli *cli) {
  if (lab->ckpt_every < 0) lab->ckpt_every = lab->scale == BG_SCALE_PAPER ? 120.0 : 0.0;
  if (lab->resume[0] && !cli->out_given) snprintf(lab->out, sizeof lab->out, "%s", lab->resume);
  lab_build_identity(lab, params, n_params);
  lab_sweep_setup(lab);
  if (lab->resume[0]) lab_check_resume(lab);
  lab_prepare_outdir(lab);
  lab_start_marker(lab);
  lab_write_identity(lab, 0);
}

/* The services' settings and every parameter, under its key, into the manifest. */
static void record_settings(bg_lab *lab, const bg_lab_param *params, int n_params) {
  bg_lab_manifest_num(lab, "vtk_every", lab->vtk_every);
  bg_lab_manifest_num(lab, "checkpoint_every_s", lab->ckpt_every);
  if (lab->resume[0]) bg_lab_manifest_str(lab, "resumed_from", lab->resume);
  /* every parameter goes into the manifest under its key */
  for (int i = 0; i < n_params; ++i) {
    char key[96];
    snprintf(key, sizeof key, "%s", params[i].key ? params[i].key : params[i].name);
    for (char *k = key; *k; ++k)
      if (*k == '-') *k = '_';
    if (params[i].type == BG_PARAM_STRING)
      bg_lab_manifest_str(lab, key, *(const char **)params[i].dest);
    else if (params[i].type == BG_PARAM_INT)
      bg_lab_manifest_num(lab, key, *(int *)params[i].dest);
    else
      bg_lab_manifest_num(lab, key, *(double *)params[i].dest);
  }
}

/* libgomp reads its wait policy once, as it loads, before main: unless the
 * user chose one, the executable starts itself again with passive waiting,
 * since spinning threads run about 8x slower on cores shared with other
 * work (bg_thread_wait_policy). An exec that fails leaves the run as it was. */
static void lab_passive_threads(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");
}

bg_lab *bg_lab_init(const char *name, const char *summary, int argc, char **argv,
                    bg_lab_param *params, int n_params, const char *const *mutants) {
  lab_passive_threads(argv);
  bg_lab *lab = lab_new(name);
  lab_cli cli = {0};
  lab_parse_options(lab, summary, argc, argv, params, n_params, mutants, &cli);
  /* a resumed run's settings are its folder's, less what the command line gives */
  if (lab->resume[0] && !cli.want_help) lab_resume_inherit(lab, params, n_params, &cli);
  lab_check_model(lab);
  resolve_inputs(lab, summary, params, n_params, mutants, &cli);
  /* the experiment's own checks of its options, before the folder is touched */
  if (options_check) options_check(options_ctx);
  prepare_folder(lab, params, n_params, &cli);
  record_settings(lab, params, n_params);
  return lab;
}

int bg_lab_finish(bg_lab *lab) {
  lab_need_sweep(lab);
  double wall = lab_now() - lab->t0;
  bg_lab_manifest_num(lab, "damping_per_s", lab->damping);
  lab_manifest_steps(lab);
  /* a run of a model the table has no claims for measures, and says so */
  if (lab->n_claims == 0 && lab->n_unjudged == 0) lab_die("%s made no claims", lab->name);
  lab_settle_claims(lab);
  lab_write_mutants(lab);
  lab_apply_measurement_mutant(lab);
  if (lab->active) bg_lab_manifest_str(lab, "mutant", lab->active->name);
  int unexpected = lab_write_claims(lab);
  lab_write_manifest(lab, wall);
  /* complete: the marker goes once the manifest is in place */
  lab_end_marker();
  for (int i = 0; i < lab->n_manifest; ++i) free(lab->manifest[i]);
  for (int i = 0; i < lab->n_files; ++i) free(lab->files[i]);
  for (int i = 0; i < 2 * lab->n_sim_tags; ++i) free(lab->sim_tags[i]);
  free(lab->table);
  free(lab->mclaims);
  free(lab);
  return unexpected ? 1 : 0;
}

/* ------------------------------------------------------------- accessors */

bg_scale bg_lab_scale(const bg_lab *lab) { return lab->scale; }
int bg_lab_material_model(const bg_lab *lab) { return lab->material; }
const char *bg_lab_material_name(const bg_lab *lab) {
  return bg_material_model_name((bg_material_model)lab->material);
}
bg_material bg_lab_material(const bg_lab *lab) {
  bg_material m = bg_material_default((bg_material_model)lab->material);
  if (lab->mu_s > 0 && m.model == BG_MODEL_MUI) {
    bg_real dmu = m.mui.mu_2 - m.mui.mu_s;
    m.mui.mu_s = (bg_real)lab->mu_s;
    m.mui.mu_2 = (bg_real)lab->mu_s + dmu;
  }
  if (lab->grain_d > 0 && m.model == BG_MODEL_MUI) m.mui.d = (bg_real)lab->grain_d;
  if (lab->grain_d > 0 && m.model == BG_MODEL_NGF) m.ngf.d = (bg_real)lab->grain_d;
  if (lab->ngf_a >= 0 && m.model == BG_MODEL_NGF) m.ngf.A = (bg_real)lab->ngf_a;
  if (lab->ngf_t0 > 0 && m.model == BG_MODEL_NGF) m.ngf.t0 = (bg_real)lab->ngf_t0;
  if (lab->youngs > 0) m.E = (bg_real)lab->youngs;
  if (lab->cone >= 0 && m.model == BG_MODEL_DP) m.dp.cone = (bg_dp_cone)lab->cone;
  return m;
}

double bg_lab_static_friction(const bg_material *m) {
  if (m->model == BG_MODEL_MUI) return m->mui.mu_s;
  if (m->model == BG_MODEL_NGF) return m->ngf.mu_s;
  return -1;
}

double bg_lab_grain_d(const bg_material *m) {
  if (m->model == BG_MODEL_MUI) return m->mui.d;
  if (m->model == BG_MODEL_NGF) return m->ngf.d;
  return -1;
}
const char *bg_lab_scale_name(const bg_lab *lab) {
  return lab->scale == BG_SCALE_PAPER ? "paper" : "quick";
}
const char *bg_lab_backend(const bg_lab *lab) { return lab->backend; }
int bg_lab_threads(const bg_lab *lab) { return lab->threads; }
unsigned long bg_lab_seed(const bg_lab *lab) { return lab->seed; }
bg_seeding bg_lab_seeding(const bg_lab *lab) { return (bg_seeding)lab->seeding; }
int bg_lab_quiet(const bg_lab *lab) { return lab->quiet; }
const char *bg_lab_references(const bg_lab *lab) { return lab->refs; }
const char *bg_lab_outdir(const bg_lab *lab) { return lab->out; }
