/* lab_resume.c: the identity a resumed run must share with the run it
 * continues (checkpoints/run.txt), and the check of --resume DIR. */
#define _GNU_SOURCE /* realpath, strdup */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_internal.h"

/* What a checkpoint's loop state means depends on these: the experiment,
 * scale, material, seed, mutant and every parameter. The per-simulation
 * services' own options (--vtk-every, --checkpoint-every), --threads,
 * --backend and --quiet change no result and are not part of it. With it,
 * each parameter's default at this scale (lab->defaults). */
void lab_build_identity(bg_lab *lab, const bg_lab_param *p, int n) {
  size_t o = 0, cap = sizeof lab->identity;
  o += (size_t)snprintf(lab->identity + o, cap - o, "experiment\t%s\nscale\t%s\nmaterial\t%s\n",
                        lab->name, bg_lab_scale_name(lab), bg_lab_material_name(lab));
  o += (size_t)snprintf(lab->identity + o, cap - o,
                        "mu_s\t%.17g\ngrain_d\t%.17g\nngf_a\t%.17g\nngf_t0\t%.17g\nseed\t%lu\n",
                        lab->mu_s, lab->grain_d, lab->ngf_a, lab->ngf_t0, lab->seed);
  if (lab->seeding == BG_SEEDING_POISSON) o += (size_t)snprintf(lab->identity + o, cap - o, "seeding\tpoisson\n");
  /* only when given, so the runs from before the option keep their identity */
  if (lab->youngs > 0) o += (size_t)snprintf(lab->identity + o, cap - o, "youngs\t%.17g\n", lab->youngs);
  if (lab->cone >= 0) o += (size_t)snprintf(lab->identity + o, cap - o, "cone\t%s\n", bg_lab_cone_name(lab->cone));
  o += (size_t)snprintf(lab->identity + o, cap - o, "mutant\t%s\n",
                        lab->active ? lab->active->name : "none");
  for (int i = 0; i < n && o < cap; ++i) {
    if (p[i].service) continue;
    if (p[i].type == BG_PARAM_STRING)
      o += (size_t)snprintf(
          lab->identity + o, cap - o, "--%s\t%s\n", p[i].name,
          *(const char *const *)p[i].dest ? *(const char *const *)p[i].dest : "(none)");
    else if (p[i].type == BG_PARAM_INT)
      o += (size_t)snprintf(lab->identity + o, cap - o, "--%s\t%d\n", p[i].name,
                            *(const int *)p[i].dest);
    else
      o += (size_t)snprintf(lab->identity + o, cap - o, "--%s\t%.17g\n", p[i].name,
                            *(const double *)p[i].dest);
  }
  if (o >= cap) lab_die("the run's parameters are longer than %zu characters", cap - 1);
  o = 0;
  cap = sizeof lab->defaults;
  for (int i = 0; i < n && o < cap; ++i) {
    const char *d = lab->scale == BG_SCALE_PAPER ? p[i].paper : p[i].quick;
    if (d) o += (size_t)snprintf(lab->defaults + o, cap - o, "--%s\t%s\t%d\n", p[i].name, d, p[i].type != BG_PARAM_STRING);
  }
  if (o >= cap) lab_die("the run's parameter defaults are longer than %zu characters", cap - 1);
}
/* One identity line, "key<TAB>value", as "key value" for a message. */
static void line_text(const char *line, size_t len, char *out, size_t n) {
  if (!len) {
    snprintf(out, n, "nothing (end of list)");
    return;
  }
  snprintf(out, n, "%.*s", (int)len, line);
  for (char *c = out; *c; ++c)
    if (*c == '\t') *c = ' ';
}

/* Compares two identities line by line; ends the run, naming the first
 * setting that differs, when they are not the same. */
void lab_same_identity(const char *there, const char *here, const char *opt, const char *what,
                       const char *hint) {
  const char *a = there, *b = here;
  while (*a || *b) {
    size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
    if (la != lb || strncmp(a, b, la)) {
      char ta[300], tb[300];
      line_text(a, la, ta, sizeof ta);
      line_text(b, lb, tb, sizeof tb);
      lab_die("%s: %s has other settings: %s there, %s here; %s", opt, what, ta, tb, hint);
    }
    a += la + (a[la] == '\n');
    b += lb + (b[lb] == '\n');
  }
}

/* A number written by this harness (%.17g), or the run ends naming the file. */
static double number_in(const char *path, const char *key, const char *v) {
  char *end = NULL;
  double x = strtod(v, &end);
  if (end == v || *end) lab_die("--resume: %s: %s '%s' is not a number", path, key, v);
  return x;
}

/* checkpoints/services.txt: the per-simulation services (--checkpoint-every,
 * --vtk-every), which change no result and so are not in run.txt. */
static const char SERVICES[] = "checkpoints/services.txt";

/* DIR/checkpoints/run.txt of the --resume folder into buf (its path into
 * path), or a clean exit saying the folder is no checkpointed run. */
static void read_run_txt(const bg_lab *lab, char *path, size_t np, char *buf, size_t n) {
  snprintf(path, np, "%s/checkpoints/run.txt", lab->resume);
  if (!lab_read_small(path, buf, n))
    lab_die(
        "--resume: %s has no checkpoints/run.txt (%s): it is not a run folder written with "
        "--checkpoint-every",
        lab->resume, strerror(errno));
}

/* --resume DIR: the run's settings are read from DIR/checkpoints/run.txt
 * (and the services' from services.txt); what the command line gives
 * itself stays, and must then agree with the folder (lab_check_resume). */
void lab_resume_inherit(bg_lab *lab, bg_lab_param *p, int n, lab_cli *cli) {
  char path[1200], text[8192];
  read_run_txt(lab, path, sizeof path, text, sizeof text);
  for (char *line = text, *next; *line; line = next) {
    next = line + strcspn(line, "\n");
    if (*next) *next++ = 0;
    char *f[2];
    if (lab_split_tabs(line, f, 2) != 2) continue; /* the comparison names it */
    const char *k = f[0], *v = f[1];
    if (!strcmp(k, "experiment") && strcmp(v, lab->name))
      lab_die("--resume: %s is a run of %s, not of %s", lab->resume, v, lab->name);
    else if (!strcmp(k, "scale") && !cli->scale_given)
      lab->scale = !strcmp(v, "paper") ? BG_SCALE_PAPER : BG_SCALE_QUICK;
    else if (!strcmp(k, "material") && !cli->material_given) {
      int m = bg_material_model_from_name(v);
      if (m < 0) lab_die("--resume: %s: material '%s' is not in this build", path, v);
      lab->material = m;
    } else if (!strcmp(k, "mu_s") && !cli->mu_s_given)
      lab->mu_s = number_in(path, k, v);
    else if (!strcmp(k, "grain_d") && !cli->grain_d_given)
      lab->grain_d = number_in(path, k, v);
    else if (!strcmp(k, "ngf_a") && !cli->ngf_a_given)
      lab->ngf_a = number_in(path, k, v);
    else if (!strcmp(k, "ngf_t0") && !cli->ngf_t0_given)
      lab->ngf_t0 = number_in(path, k, v);
    else if (!strcmp(k, "youngs") && !cli->youngs_given)
      lab->youngs = number_in(path, k, v);
    else if (!strcmp(k, "cone") && !cli->cone_given)
      lab->cone = bg_lab_cone_parse(v);
    else if (!strcmp(k, "seed") && !cli->seed_given)
      lab->seed = (unsigned long)number_in(path, k, v);
    else if (!strcmp(k, "seeding") && !cli->seeding_given)
      lab->seeding = !strcmp(v, "poisson") ? BG_SEEDING_POISSON : BG_SEEDING_LATTICE;
    else if (!strcmp(k, "mutant") && !cli->mutant && strcmp(v, "none")) {
      cli->mutant = strdup(v);
      if (!cli->mutant) lab_die("out of memory");
    } else if (k[0] == '-' && k[1] == '-') {
      for (int i = 0; i < n; ++i) {
        if (strcmp(p[i].name, k + 2) || p[i].set) continue;
        if (p[i].type == BG_PARAM_STRING) {
          char *copy = strcmp(v, "(none)") ? strdup(v) : NULL;
          if (strcmp(v, "(none)") && !copy) lab_die("out of memory");
          *(const char **)p[i].dest = copy;
        } else if (p[i].type == BG_PARAM_INT) {
          *(int *)p[i].dest = (int)number_in(path, k, v);
        } else {
          *(double *)p[i].dest = number_in(path, k, v);
        }
        p[i].set = 1;
      }
    }
  }
  snprintf(path, sizeof path, "%s/%s", lab->resume, SERVICES);
  if (!lab_read_small(path, text, sizeof text)) return; /* a folder from before the file */
  for (char *line = text, *next; *line; line = next) {
    next = line + strcspn(line, "\n");
    if (*next) *next++ = 0;
    char *f[2];
    if (lab_split_tabs(line, f, 2) != 2) continue;
    if (!strcmp(f[0], "checkpoint-every") && !cli->ckpt_given)
      lab->ckpt_every = number_in(path, f[0], f[1]);
    else if (!strcmp(f[0], "vtk-every") && !cli->vtk_given)
      lab->vtk_every = number_in(path, f[0], f[1]);
  }
}

/* 1 when the folder holds a run that ended: its manifest is in place and no
 * marker (RUNNING, FAILED, INTERRUPTED) says otherwise. */
static int run_finished(const char *dir) {
  static const char *const markers[] = {"RUNNING", "FAILED", "INTERRUPTED"};
  char path[1200];
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (access(path, F_OK) != 0) return 0;
  for (size_t i = 0; i < sizeof markers / sizeof markers[0]; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, markers[i]);
    if (access(path, F_OK) == 0) return 0;
  }
  return 1;
}

/* Every checkpoint in DIR/checkpoints whole (header, length, SHA-256), or
 * the run ends before anything in any folder has changed. */
static void verify_checkpoints(const char *dir) {
  char cdir[1200];
  snprintf(cdir, sizeof cdir, "%s/checkpoints", dir);
  DIR *d = opendir(cdir);
  if (!d) lab_die("--resume: cannot list %s: %s", cdir, strerror(errno));
  struct dirent *e;
  int bad = 0;
  char path[1500], err[1024];
  while (!bad && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || strcmp(e->d_name + len - 5, ".bgck")) continue;
    snprintf(path, sizeof path, "%s/%s", cdir, e->d_name);
    bg_status s = bg_checkpoint_verify(path, err, sizeof err);
    bad = s != BG_OK;
    if (bad)
      lab_die(
          "--resume: %s (%s); nothing in %s was changed. Put the checkpoint back from a copy, or "
          "remove it to run that simulation again from its start",
          err, bg_status_name(s), dir);
  }
  closedir(d);
}

/* --resume DIR: DIR must be a run of this experiment with the same identity
 * (checkpoints/run.txt, written when the run started) and whole checkpoints;
 * a finished run resumed in place is left as it is (exit 0). All of it is
 * checked before the run folder is touched. */
void lab_check_resume(bg_lab *lab) {
  struct stat st;
  if (stat(lab->resume, &st) != 0 || !S_ISDIR(st.st_mode))
    lab_die("--resume: %s is not a directory: %s", lab->resume,
            stat(lab->resume, &st) ? strerror(errno) : "a file");
  char path[1200], there[8192];
  read_run_txt(lab, path, sizeof path, there, sizeof there);
  char what[1100];
  snprintf(what, sizeof what, "the run in %s", lab->resume);
  lab_same_identity(there, lab->identity, "--resume", what,
                    "a flag given again with --resume must agree with the run's (leave it out: "
                    "the run's own are read from its checkpoints/run.txt)");
  char ro[PATH_MAX], rr[PATH_MAX];
  lab->resume_inplace = realpath(lab->out, ro) && realpath(lab->resume, rr) && !strcmp(ro, rr);
  if (lab->resume_inplace && lab->phase == SW_ALL && run_finished(lab->resume)) {
    fprintf(stderr,
            "%s: the run in %s finished (its manifest.json is in place, no RUNNING, FAILED or "
            "INTERRUPTED marker): nothing to resume, its files are left as they are (--out NEW "
            "reads its final checkpoints into a new folder)\n",
            lab->name, lab->resume);
    exit(0);
  }
  verify_checkpoints(lab->resume);
}

/* checkpoints/run.txt and services.txt: written when checkpoints will be
 * (and when resuming in place, where the folder exists already), or always
 * (a sweep, whose complete points a resumed run keeps). */
void lab_write_identity(bg_lab *lab, int always) {
  if (!always && !(lab->ckpt_every > 0) && !lab->resume_inplace) return;
  char dir[1200];
  snprintf(dir, sizeof dir, "%s/checkpoints", lab->out);
  if (lab_make_dirs(dir) != 0) lab_die("cannot create %s: %s", dir, strerror(errno));
  FILE *fp = lab_open_output(lab, "checkpoints/run.txt");
  fputs(lab->identity, fp);
  lab_close_output(fp, "checkpoints/run.txt");
  fp = lab_open_output(lab, SERVICES);
  fprintf(fp, "checkpoint-every\t%.17g\nvtk-every\t%.17g\n", lab->ckpt_every, lab->vtk_every);
  lab_close_output(fp, SERVICES);
}
