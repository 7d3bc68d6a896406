/* lab_resume.c: the identity a resumed run must share with the run it
 * continues (checkpoints/run.txt), and the check of --resume DIR. */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab_internal.h"

/* What a checkpoint's loop state means depends on these: the experiment,
 * scale, material, seed, mutant and every parameter. The per-simulation
 * services' own options (--vtk-every, --checkpoint-every), --threads,
 * --backend and --quiet change no result and are not part of it. */
void lab_build_identity(bg_lab *lab, const bg_lab_param *p, int n) {
  size_t o = 0, cap = sizeof lab->identity;
  o += (size_t)snprintf(lab->identity + o, cap - o, "experiment\t%s\nscale\t%s\nmaterial\t%s\n",
                        lab->name, bg_lab_scale_name(lab), bg_lab_material_name(lab));
  o += (size_t)snprintf(lab->identity + o, cap - o,
                        "mu_s\t%.17g\ngrain_d\t%.17g\nngf_a\t%.17g\nngf_t0\t%.17g\nseed\t%lu\n",
                        lab->mu_s, lab->grain_d, lab->ngf_a, lab->ngf_t0, lab->seed);
  if (lab->seeding == BG_SEEDING_POISSON) o += (size_t)snprintf(lab->identity + o, cap - o, "seeding\tpoisson\n");
  o += (size_t)snprintf(lab->identity + o, cap - o, "mutant\t%s\n",
                        lab->active ? lab->active->name : "none");
  for (int i = 0; i < n && o < cap; ++i) {
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
}
/* Compares two identities line by line; ends the run, naming the first
 * setting that differs, when they are not the same. */
void lab_same_identity(const char *there, const char *here, const char *opt, const char *what,
                       const char *hint) {
  const char *a = there, *b = here;
  while (*a || *b) {
    size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
    if (la != lb || strncmp(a, b, la)) {
      char key[96];
      size_t k = strcspn(b, "\t\n");
      snprintf(key, sizeof key, "%.*s", (int)(k < sizeof key ? k : sizeof key - 1), b);
      lab_die("%s: %s has other settings: its %.*s, this run's %.*s (%s); %s", opt, what, (int)la,
              a, (int)lb, b, key[0] ? key : "end of list", hint);
    }
    a += la + (a[la] == '\n');
    b += lb + (b[lb] == '\n');
  }
}

/* --resume DIR: DIR must be a run of this experiment with the same identity
 * (checkpoints/run.txt, written when the run started). */
void lab_check_resume(bg_lab *lab) {
  struct stat st;
  if (stat(lab->resume, &st) != 0 || !S_ISDIR(st.st_mode))
    lab_die("--resume: %s is not a directory: %s", lab->resume,
            stat(lab->resume, &st) ? strerror(errno) : "a file");
  char path[1200], there[8192];
  snprintf(path, sizeof path, "%s/checkpoints/run.txt", lab->resume);
  if (!lab_read_small(path, there, sizeof there))
    lab_die(
        "--resume: %s has no checkpoints/run.txt (%s): it is not a run folder written with "
        "--checkpoint-every",
        lab->resume, strerror(errno));
  char what[1100];
  snprintf(what, sizeof what, "the run in %s", lab->resume);
  lab_same_identity(there, lab->identity, "--resume", what,
                    "resume with the same experiment, scale and parameters");
  char ro[PATH_MAX], rr[PATH_MAX];
  lab->resume_inplace = realpath(lab->out, ro) && realpath(lab->resume, rr) && !strcmp(ro, rr);
}

/* checkpoints/run.txt: written when checkpoints will be (and when resuming
 * in place, where the folder exists already). */
void lab_write_identity(bg_lab *lab) {
  if (!(lab->ckpt_every > 0) && !lab->resume_inplace) return;
  char dir[1200];
  snprintf(dir, sizeof dir, "%s/checkpoints", lab->out);
  if (lab_make_dirs(dir) != 0) lab_die("cannot create %s: %s", dir, strerror(errno));
  FILE *fp = lab_open_output(lab, "checkpoints/run.txt");
  fputs(lab->identity, fp);
  lab_close_output(fp, "checkpoints/run.txt");
}
