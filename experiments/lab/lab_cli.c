/* lab_cli.c: the command line every probe and experiment shares
 * (getopt_long): the common options, the experiment's own parameters, and
 * --help. Every bad argument ends the run naming the option and its range. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bg_version.h"
#include "lab_internal.h"

/* The models this executable takes (bg_lab_accept_materials): labels,
 * comma separated, and what for; NULL: every registered model. */
static const char *accepted_models, *accepted_need;
/* 1 when this executable seeds through a helper that takes --seeding poisson */
static int takes_seeding;

void bg_lab_takes_seeding(void) { takes_seeding = 1; }
/* why this executable sets the cone itself, NULL when --cone is taken */
static const char *sets_cone;
void bg_lab_sets_cone(const char *why) { sets_cone = why; }

void bg_lab_accept_materials(const char *labels, const char *need) {
  accepted_models = labels;
  accepted_need = need;
}

/* 1 when label is one of the comma-separated list. */
static int in_list(const char *list, const char *label) {
  size_t n = strlen(label);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !strncmp(p, label, n)) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

/* The accepted list as text, "a, b, c". */
static const char *accepted_text(char *buf, size_t n) {
  size_t o = 0;
  for (const char *p = accepted_models; *p && o + 3 < n; ++p) {
    buf[o++] = *p;
    if (*p == ',') buf[o++] = ' ';
  }
  buf[o] = 0;
  return buf;
}

/* The model a run without --material uses: the first this executable
 * takes, else Drucker-Prager. */
static int default_model(const char *exe) {
  if (!accepted_models) return BG_MODEL_DP;
  char first[64];
  size_t len = strcspn(accepted_models, ",");
  snprintf(first, sizeof first, "%.*s", (int)len, accepted_models);
  int m = bg_material_model_from_name(first);
  if (m < 0)
    lab_die("%s takes the material model '%s' first, which this build does not have", exe, first);
  return m;
}

/* --material's help: the registry's models at run time, and which of
 * them this executable takes. */
static void material_usage(const bg_lab *lab, FILE *fp) {
  static const char indent[] = "                        ";
  fprintf(fp,
          "  --material MODEL      a registered material model with its default parameters\n%s"
          "(core/physics/materials/):",
          indent);
  int col = 50; /* the length of that line; the names wrap before column 100 */
  int def = default_model(lab->name);
  for (int k = 0; k < BG_MODEL_COUNT; ++k) {
    const char *m = bg_material_model_name((bg_material_model)k);
    int len = (int)strlen(m) + (k == def ? 10 : 0) + 2;
    if (k) col += fprintf(fp, ",");
    col = col + len > 100 ? fprintf(fp, "\n%s", indent) - 1 : col + fprintf(fp, " ");
    col += fprintf(fp, "%s%s", m, k == def ? " (default)" : "");
  }
  fprintf(fp, "\n");
  char list[512];
  if (accepted_models)
    fprintf(fp, "                        %s takes %s (%s)\n", lab->name,
            accepted_text(list, sizeof list), accepted_need);
}

void lab_usage(const bg_lab *lab, const char *summary, const bg_lab_param *p, int n, FILE *fp) {
  const char *name = lab->name;
  fprintf(fp, "usage: %s [options]\n%s\n\ncommon options:\n", name, summary);
  fprintf(
      fp,
      "  --scale quick|paper   quick: CPU minutes (default); paper: the seed's resolution (GPU)\n"
      "  --backend NAME        %s (default %s)\n"
      "  --out DIR             output directory, new or empty (default out/%s)\n"
      "  --force               --out may hold an earlier run's files: they are removed first\n"
      "  --threads N           CPU threads, 0 = all, at most the %ld cores here (default 0)\n"
      "  --seed S              random seed (default 1)\n"
      "  --seeding KIND        the initial particles: lattice, the jittered lattice (default), or\n"
      "                        poisson, Poisson-disk samples at the same ppc (column experiments)\n"
      "  --references DIR      claims table and literature data (default: the source tree's)\n"
      "  --quiet               no progress on stderr\n"
      "  --mutant NAME         apply a mutant: a change a correct lab must detect (below)\n",
      bglab_backend_choices(), bglab_backend_default(), name, sysconf(_SC_NPROCESSORS_ONLN));
  material_usage(lab, fp);
  fputs(
      "  --mu-s X              mu-i only: static friction mu_s = X, in [0.05, 2], with mu_2 - mu_s "
      "kept\n"
      "                        (Jop's 0.26); 3 alpha / sqrt 2 of a Drucker-Prager cone gives the "
      "same cone\n"
      "  --grain-d X           mu-i and ngf: grain diameter d = X m, in [1e-5, 0.05] (default "
      "5e-4);\n"
      "                        for ngf it sets the cooperativity length xi = A d / sqrt|mu - "
      "mu_s|\n"
      "  --ngf-a X             ngf only: nonlocal amplitude A = X, in [0, 5] (default 0.48); 0 "
      "leaves the\n"
      "                        local law mu_s + b I alone, the control of what the length does\n"
      "  --ngf-t0 T            ngf only: relaxation time t0 = T s of the fluidity, in [1e-6, 1] "
      "(default 1e-3);\n"
      "                        a numerical device: the steady state does not depend on it, and the "
      "step\n"
      "                        bound of the explicit Laplacian, t0 dx^2 / (12 A^2 d^2), grows with "
      "it\n"
      "  --youngs X            the material's Young's modulus E = X Pa, in [1e3, 1e10] (default the "
      "model's:\n"
      "                        Klar's sand 3.537e5): stiffness is a numerical device in MPM sand (the "
      "elastic\n"
      "                        step shrinks as 1 / sqrt E), so a result that moves with it is "
      "elasticity's\n"
      "  --cone KIND           drucker-prager only: where the cone meets Mohr-Coulomb's pyramid of the same\n"
      "                        phi: compression (Klar's, the default), extension, or plane-strain (at zero\n"
      "                        dilatancy, sqrt J2 = sin phi p: a plane-strain scene's own match;\n"
      "                        references/derivations/cone.md)\n"
      "  --vtk-every T         ParaView frames of every simulation into OUT/vtk/<sim>.pvd every T "
      "simulated\n"
      "                        seconds, in [0, 1e4] (0 = off, the default): the initial state, "
      "then the first\n"
      "                        loop time >= k T (the loops advance in steps of their own, so a "
      "frame may come\n"
      "                        late by up to one of them), and the final state\n"
      "  --checkpoint-every S  checkpoint every simulation into OUT/checkpoints/<sim>.bgck every S "
      "wall-clock\n"
      "                        seconds, in [0, 86400] (0 = off; default: quick 0, paper 120); a "
      "finished\n"
      "                        simulation keeps its final checkpoint, so a resumed run skips it\n"
      "  --resume DIR          continue the run in DIR from its checkpoints, with its scale, "
      "material, seed,\n"
      "                        mutant, parameters, --checkpoint-every and --vtk-every (read from "
      "DIR; a flag\n"
      "                        given again must agree, the services' may differ); every "
      "checkpoint is verified\n"
      "                        first; --out defaults to DIR, which then keeps its checkpoints/ and "
      "vtk/ and has\n"
      "                        its other files rewritten; a finished DIR is left as it is\n"
      "  --plan                a sweep's first phase: OUT/plan.tsv, one row per independent "
      "simulation\n"
      "                        (point), and nothing simulated (experiments with a sweep only)\n"
      "  --point K             run point K of the plan in OUT alone, into OUT/points/K/; it "
      "resumes from its\n"
      "                        own checkpoints there (give --checkpoint-every), a complete one is "
      "not rerun\n"
      "  --gather              check that every point in OUT is complete and from the same commit, "
      "claims\n"
      "                        table and parameters, then analyse, judge and write as a "
      "one-process run\n"
      "                        (which is the three phases in a row); scripts/lab sweep runs them\n"
      "  --reuse DIR           a sweep point whose simulation a complete point of the run in DIR\n"
      "                        already made (the same scene, executable and commit) is copied from\n"
      "                        there, not simulated again: the same result bytes (experiments that\n"
      "                        key their points; the manifest counts the copies); not with --vtk-every\n"
      "  --version             the version and commit\n"
      "  -h, --help            this text\n"
      "exit code: 0 every verdict as references/claims.tsv expects (documented misses included),\n"
      "           1 an unexpected verdict, 2 an error (bad input, a failed write, no device)\n",
      fp);
  if (n) fprintf(fp, "\n%s options:\n", name);
  for (int i = 0; i < n; ++i) {
    char now[64], def[200];
    if (p[i].type == BG_PARAM_DOUBLE)
      snprintf(now, sizeof now, "%g", *(double *)p[i].dest);
    else if (p[i].type == BG_PARAM_INT)
      snprintf(now, sizeof now, "%d", *(int *)p[i].dest);
    else
      snprintf(now, sizeof now, "%s",
               *(const char **)p[i].dest ? *(const char **)p[i].dest : "none");
    /* a value outside the accepted range is a sentinel: the experiment derives it */
    if (p[i].type != BG_PARAM_STRING) {
      double v = p[i].type == BG_PARAM_INT ? *(int *)p[i].dest : *(double *)p[i].dest;
      if (v < p[i].lo || v > p[i].hi) snprintf(now, sizeof now, "derived");
    }
    const char *q = p[i].quick ? p[i].quick : now, *pp = p[i].paper ? p[i].paper : now;
    if (!strcmp(q, pp))
      snprintf(def, sizeof def, "default %s", q);
    else
      snprintf(def, sizeof def, "by scale: quick %s, paper %s", q, pp);
    if (p[i].type == BG_PARAM_STRING)
      fprintf(fp, "  --%-18s %s (%s)\n", p[i].name, p[i].help, def);
    else
      fprintf(fp, "  --%-18s %s, in [%g, %g] (%s)\n", p[i].name, p[i].help, p[i].lo, p[i].hi, def);
  }
  if (lab->n_mutants) fprintf(fp, "\nmutants (references/mutants.tsv):\n");
  for (int i = 0; i < lab->n_mutants; ++i)
    fprintf(fp, "  %-22s %s; must flip %s\n", lab->mutants[i].name, lab->mutants[i].desc,
            lab->mutants[i].claims);
}

static double parse_number(const char *opt, const char *arg, double lo, double hi, int integer) {
  char *end = NULL;
  errno = 0;
  double v = strtod(arg, &end);
  if (errno || !end || *end || end == arg || !isfinite(v))
    lab_die("--%s: '%s' is not a number", opt, arg);
  if (integer && v != floor(v)) lab_die("--%s: '%s' is not an integer", opt, arg);
  if (v < lo || v > hi)
    lab_die("--%s: %s is outside the accepted range [%g, %g]", opt, arg, lo, hi);
  return v;
}

/* One argument, quoted for a POSIX shell when it needs it, appended to buf. */
static size_t append_quoted(char *buf, size_t off, size_t n, const char *arg) {
  int plain = arg[0] != 0;
  for (const char *p = arg; *p; ++p)
    plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             strchr("-_./=:,+@%", *p) != NULL;
  if (off >= n) return off;
  if (plain) return off + (size_t)snprintf(buf + off, n - off, "%s", arg);
  off += (size_t)snprintf(buf + off, n - off, "'");
  for (const char *p = arg; *p && off < n; ++p)
    off += (size_t)(*p == '\'' ? snprintf(buf + off, n - off, "'\\''")
                               : snprintf(buf + off, n - off, "%c", *p));
  if (off < n) off += (size_t)snprintf(buf + off, n - off, "'");
  return off;
}

/* Sets an unset parameter from its per-scale default text. */
static void apply_default(bg_lab_param *p, const char *text) {
  if (!text) return;
  if (p->type == BG_PARAM_STRING)
    *(const char **)p->dest = text;
  else if (p->type == BG_PARAM_INT)
    *(int *)p->dest = (int)parse_number(p->name, text, p->lo, p->hi, 1);
  else
    *(double *)p->dest = parse_number(p->name, text, p->lo, p->hi, 0);
}

/* The command line, quoted for a POSIX shell, for the manifest and markers. */
static void record_command(bg_lab *lab, int argc, char **argv) {
  size_t off = 0;
  for (int i = 0; i < argc; ++i) {
    if (i && off < sizeof lab->argv_line)
      off += (size_t)snprintf(lab->argv_line + off, sizeof lab->argv_line - off, " ");
    off = append_quoted(lab->argv_line, off, sizeof lab->argv_line, argv[i]);
  }
  if (off >= sizeof lab->argv_line)
    lab_die("the command line is longer than %zu characters", sizeof lab->argv_line - 1);
}

/* --material NAME: a registered model, else exit 2 with the list. */
static int parse_material(const char *arg) {
  int m = bg_material_model_from_name(arg);
  if (m >= 0) return m;
  char names[256] = "";
  size_t o = 0;
  for (int k = 0; k < BG_MODEL_COUNT && o < sizeof names; ++k)
    o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                          bg_material_model_name((bg_material_model)k));
  lab_die("--material: '%s' is not a registered material model (%s)", arg, names);
}

/* A model this executable does not take (bg_lab_accept_materials) ends
 * the run before any work. */
static void check_accepted_model(const bg_lab *lab) {
  const char *label = bg_material_model_name((bg_material_model)lab->material);
  char list[512];
  if (accepted_models && !in_list(accepted_models, label))
    lab_die("--material %s: %s needs %s; it takes %s", label, lab->name, accepted_need,
            accepted_text(list, sizeof list));
}

/* A model's own options need that model. */
static void check_model_options(const bg_lab *lab) {
  if (lab->mu_s > 0 && lab->material != BG_MODEL_MUI)
    lab_die("--mu-s: only mu-i has a static friction mu_s (add --material mu-i)");
  if (lab->grain_d > 0 && lab->material != BG_MODEL_MUI && lab->material != BG_MODEL_NGF)
    lab_die("--grain-d: only mu-i and ngf have a grain size (add --material mu-i or ngf)");
  if (lab->ngf_a >= 0 && lab->material != BG_MODEL_NGF)
    lab_die("--ngf-a: only ngf has a nonlocal amplitude (add --material ngf)");
  if (lab->ngf_t0 > 0 && lab->material != BG_MODEL_NGF)
    lab_die("--ngf-t0: only ngf has a fluidity relaxation time (add --material ngf)");
  if (lab->cone >= 0 && lab->material != BG_MODEL_DP)
    lab_die("--cone: only drucker-prager has a cone to match (it is the default --material)");
}

/* The common options (their codes in the order of common[]), then the
 * experiment's own from O_PARAM on. */
enum {
  O_SCALE = 1000,
  O_BACKEND,
  O_OUT,
  O_THREADS,
  O_SEED,
  O_QUIET,
  O_REFS,
  O_HELP,
  O_MUTANT,
  O_FORCE,
  O_VERSION,
  O_MATERIAL,
  O_MU_S,
  O_GRAIN_D,
  O_NGF_A,
  O_NGF_T0,
  O_VTK_EVERY,
  O_CKPT_EVERY,
  O_RESUME,
  O_PLAN,
  O_POINT,
  O_GATHER,
  O_SEEDING,
  O_REUSE,
  O_YOUNGS,
  O_CONE,
  O_PARAM
};
static const char *const common[] = {
    "scale",      "backend", "out",    "threads", "seed",      "quiet",
    "references", "help",    "mutant", "force",   "version",   "material",
    "mu-s",       "grain-d", "ngf-a",  "ngf-t0",  "vtk-every", "checkpoint-every",
    "resume",     "plan",    "point",  "gather",  "seeding",   "reuse",
    "youngs",     "cone"};
enum { N_COMMON = (int)(sizeof common / sizeof common[0]) };

/* getopt_long's table: the common options, then params (marked not set). */
static struct option *option_table(bg_lab_param *params, int n_params) {
  struct option *opts = calloc((size_t)(N_COMMON + n_params + 1), sizeof *opts);
  if (!opts) lab_die("out of memory");
  for (int i = 0; i < N_COMMON; ++i) {
    opts[i].name = common[i];
    int flag = O_SCALE + i == O_QUIET || O_SCALE + i == O_HELP || O_SCALE + i == O_FORCE ||
               O_SCALE + i == O_VERSION || O_SCALE + i == O_PLAN || O_SCALE + i == O_GATHER;
    opts[i].has_arg = flag ? no_argument : required_argument;
    opts[i].val = O_SCALE + i;
  }
  for (int i = 0; i < n_params; ++i) {
    opts[N_COMMON + i].name = params[i].name;
    opts[N_COMMON + i].has_arg = required_argument;
    opts[N_COMMON + i].val = O_PARAM + i;
    params[i].set = 0;
  }
  return opts;
}

void lab_parse_options(bg_lab *lab, const char *summary, int argc, char **argv,
                       bg_lab_param *params, int n_params, const char *const *mutants,
                       lab_cli *cli) {
  record_command(lab, argc, argv);
  lab->material = default_model(lab->name);
  struct option *opts = option_table(params, n_params);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == '?' || c == ':') {
      fprintf(stderr, "error: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
      lab_load_mutants(lab, mutants);
      lab_usage(lab, summary, params, n_params, stderr);
      exit(2);
    }
    /* a value that is itself an option means the value was forgotten */
    if (c != 'h' && optarg && optarg[0] == '-' && optarg[1] == '-')
      lab_die("--%s: '%s' looks like an option, not a value",
              c >= O_PARAM ? params[c - O_PARAM].name : common[c - O_SCALE], optarg);
    switch (c) {
      case O_SCALE:
        cli->scale_given = 1;
        if (!strcmp(optarg, "quick"))
          lab->scale = BG_SCALE_QUICK;
        else if (!strcmp(optarg, "paper"))
          lab->scale = BG_SCALE_PAPER;
        else
          lab_die("--scale: '%s' is not one of quick, paper", optarg);
        break;
      case O_BACKEND:
        if (!bglab_backend_valid(optarg))
          lab_die("--backend: '%s' is not one of %s", optarg, bglab_backend_choices());
        lab->backend = optarg;
        break;
      case O_OUT:
        cli->out_given = 1;
        /* room for the longest file name a run writes inside it */
        if (strlen(optarg) + 64 >= sizeof lab->out)
          lab_die("--out: the path is %zu characters long, at most %zu are accepted",
                  strlen(optarg), sizeof lab->out - 65);
        snprintf(lab->out, sizeof lab->out, "%s", optarg);
        break;
      case O_THREADS:
        lab->threads = (int)parse_number("threads", optarg, 0, (double)cores, 1);
        break;
      case O_SEED:
        cli->seed_given = 1;
        lab->seed = (unsigned long)parse_number("seed", optarg, 0, 4294967295.0, 1);
        break;
      case O_QUIET:
        lab->quiet = 1;
        break;
      case O_REFS:
        if (strlen(optarg) + 64 >= sizeof lab->refs)
          lab_die("--references: the path is too long (%zu characters)", strlen(optarg));
        snprintf(lab->refs, sizeof lab->refs, "%s", optarg);
        break;
      case 'h':
      case O_HELP:
        cli->want_help = 1;
        break;
      case O_MUTANT:
        cli->mutant = optarg;
        break;
      case O_FORCE:
        lab->force = 1;
        break;
      case O_MATERIAL:
        cli->material_given = 1;
        lab->material = parse_material(optarg);
        break;
      case O_MU_S:
        cli->mu_s_given = 1;
        lab->mu_s = parse_number("mu-s", optarg, 0.05, 2.0, 0);
        break;
      case O_GRAIN_D:
        cli->grain_d_given = 1;
        lab->grain_d = parse_number("grain-d", optarg, 1e-5, 0.05, 0);
        break;
      case O_NGF_A:
        cli->ngf_a_given = 1;
        lab->ngf_a = parse_number("ngf-a", optarg, 0, 5, 0);
        break;
      case O_NGF_T0:
        cli->ngf_t0_given = 1;
        lab->ngf_t0 = parse_number("ngf-t0", optarg, 1e-6, 1, 0);
        break;
      case O_YOUNGS:
        cli->youngs_given = 1;
        lab->youngs = parse_number("youngs", optarg, 1e3, 1e10, 0);
        break;
      case O_CONE:
        cli->cone_given = 1;
        lab->cone = bg_lab_cone_parse(optarg);
        if (lab->cone < 0) lab_die("--cone: '%s' is not one of compression, extension, plane-strain", optarg);
        if (sets_cone) lab_die("--cone: %s sets its cone itself (%s); it takes no --cone", lab->name, sets_cone);
        break;
      case O_VTK_EVERY:
        cli->vtk_given = 1;
        lab->vtk_every = parse_number("vtk-every", optarg, 0, 1e4, 0);
        break;
      case O_CKPT_EVERY:
        cli->ckpt_given = 1;
        lab->ckpt_every = parse_number("checkpoint-every", optarg, 0, 86400, 0);
        break;
      case O_RESUME:
        if (!optarg[0] || strlen(optarg) + 64 >= sizeof lab->resume)
          lab_die("--resume: the path is empty or too long (%zu characters)", strlen(optarg));
        snprintf(lab->resume, sizeof lab->resume, "%s", optarg);
        break;
      case O_PLAN:
      case O_POINT:
      case O_GATHER: {
        int ph = c == O_PLAN ? SW_PLAN : c == O_POINT ? SW_POINT : SW_GATHER;
        if (lab->phase && lab->phase != ph)
          lab_die(
              "%s and %s: a run is one phase of a sweep (--plan, --point K or --gather), or all of "
              "them (none "
              "given)",
              lab_sweep_opt[lab->phase], lab_sweep_opt[ph]);
        lab->phase = ph;
        if (c == O_POINT) lab->point = (int)parse_number("point", optarg, 0, 1e6, 1);
        break;
      }
      case O_SEEDING:
        cli->seeding_given = 1;
        if (!strcmp(optarg, "lattice"))
          lab->seeding = BG_SEEDING_LATTICE;
        else if (!strcmp(optarg, "poisson"))
          lab->seeding = BG_SEEDING_POISSON;
        else
          lab_die("--seeding: '%s' is not one of lattice, poisson", optarg);
        if (lab->seeding == BG_SEEDING_POISSON && !takes_seeding)
          lab_die("--seeding poisson: %s places its particles on its own lattice (the column experiments "
                  "exp_runout, exp_repose and exp_cohesion take poisson)",
                  lab->name);
        break;
      case O_REUSE:
        if (!optarg[0] || strlen(optarg) + 64 >= sizeof lab->reuse)
          lab_die("--reuse: the path is empty or too long (%zu characters)", strlen(optarg));
        snprintf(lab->reuse, sizeof lab->reuse, "%s", optarg);
        break;
      case O_VERSION:
        printf("%s (bagnold %s, commit %s)\n", lab->name, BG_VERSION_STRING, BAGNOLD_GIT_COMMIT);
        exit(0);
      default: {
        bg_lab_param *p = &params[c - O_PARAM];
        if (p->type == BG_PARAM_STRING)
          *(const char **)p->dest = optarg;
        else if (p->type == BG_PARAM_INT)
          *(int *)p->dest = (int)parse_number(p->name, optarg, p->lo, p->hi, 1);
        else
          *(double *)p->dest = parse_number(p->name, optarg, p->lo, p->hi, 0);
        p->set = 1;
      }
    }
  }
  if (optind < argc)
    lab_die("unexpected argument '%s' (options start with --; see --help)", argv[optind]);
  free(opts);
}

/* The model and its options, once they are all known (a resumed run's come
 * from its folder too). */
void lab_check_model(const bg_lab *lab) {
  check_accepted_model(lab);
  check_model_options(lab);
}

void lab_apply_defaults(const bg_lab *lab, bg_lab_param *params, int n_params) {
  for (int i = 0; i < n_params; ++i)
    if (!params[i].set)
      apply_default(&params[i], lab->scale == BG_SCALE_PAPER ? params[i].paper : params[i].quick);
}
