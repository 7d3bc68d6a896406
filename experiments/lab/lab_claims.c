/* lab_claims.c: the claims table (references/claims.tsv), judging a claim,
 * the verdicts, and the run's claims.tsv.
 *
 * A claim's verdict is the table's rule (abs, rel, max, min) applied to the
 * measured value at the run's scale; at quick scale a pass that the
 * recorded paper run of the same claim fails (re-judged by today's row) is
 * "refuted". This file is the one place the rule is written: scripts read
 * the verdicts the runs write, or ask bglab_query judge. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab_internal.h"

const char *const lab_verdict_name[] = {"fail", "pass", "refuted"};

/* A field of the claims table as a finite number, all of it: "1.5deg",
 * "abc", "nan" and "" are errors naming the file, line and column. */
static double table_number(const char *path, int ln, const char *col, const char *s) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v))
    lab_die("%s:%d: column %s: '%s' is not a finite number", path, ln, col, s);
  return v;
}

void lab_load_claims(bg_lab *lab) {
  char path[1200];
  snprintf(path, sizeof path, "%s/claims.tsv", lab->refs);
  struct stat st;
  if (stat(path, &st) != 0)
    lab_die("cannot read the claims table %s: %s (set --references DIR)", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) lab_die("the claims table %s is not a regular file", path);
  FILE *fp = fopen(path, "r");
  if (!fp)
    lab_die("cannot read the claims table %s: %s (set --references DIR)", path, strerror(errno));
  static const char *cols[] = {"claim", "compare", "expected", "tol_quick", "tol_paper",
                               "unit",  "source",  "kind",     "expect",    "description"};
  char line[8192];
  int cap = 64, ln = 0, seen_header = 0;
  lab->table = calloc((size_t)cap, sizeof *lab->table);
  if (!lab->table) lab_die("out of memory");
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (!strchr(line, '\n') && !feof(fp))
      lab_die("%s:%d: line longer than %zu characters", path, ln, sizeof line - 1);
    if (line[0] == '#' || line[0] == '\n') continue;
    char *f[11];
    int nf = lab_split_tabs(line, f, 11);
    if (!seen_header) {
      /* the first line that is not a comment names the columns (pandas and
       * gnuplot read it as the header), so a missing or reordered column is
       * an error here, not a shifted value later */
      for (int i = 0; i < 10; ++i)
        if (nf != 10 || strcmp(f[i], cols[i]))
          lab_die(
              "%s:%d: the header must be the 10 columns 'claim compare expected tol_quick "
              "tol_paper unit source kind "
              "expect description', tab-separated",
              path, ln);
      seen_header = 1;
      continue;
    }
    if (nf != 10)
      lab_die(
          "%s:%d: %d tab-separated fields, the table has 10 (claim compare expected tol_quick "
          "tol_paper unit source kind expect description)",
          path, ln, nf);
    for (int i = 0; i < 10; ++i)
      if (!f[i][0]) lab_die("%s:%d: column %s is empty", path, ln, cols[i]);
    if (lab->n_table == cap) {
      cap *= 2;
      claim_row *t = realloc(lab->table, (size_t)cap * sizeof *lab->table);
      if (!t) lab_die("out of memory");
      lab->table = t;
    }
    claim_row *r = &lab->table[lab->n_table];
    if (strlen(f[0]) >= sizeof r->id || strlen(f[5]) >= sizeof r->unit ||
        strlen(f[6]) >= sizeof r->source || strlen(f[7]) >= sizeof r->kind)
      lab_die("%s:%d: claim, unit, source or kind is too long", path, ln);
    for (int i = 0; i < lab->n_table; ++i)
      if (!strcmp(lab->table[i].id, f[0]))
        lab_die("%s:%d: claim %s is listed twice (a second row would judge it silently)", path, ln,
                f[0]);
    lab->n_table++;
    memcpy(r->id, f[0], strlen(f[0]) + 1);
    if (strcmp(f[1], "abs") && strcmp(f[1], "rel") && strcmp(f[1], "max") && strcmp(f[1], "min"))
      lab_die("%s:%d: claim %s: compare must be abs, rel, max or min (got %s)", path, ln, r->id,
              f[1]);
    memcpy(r->compare, f[1], strlen(f[1]) + 1);
    r->fed_op = 0;
    if (!strncmp(f[2], "fed", 3)) {
      /* fed, fed+X, fed-X or fed*X: the expected value is the run's input */
      const char *x = f[2] + 3;
      if (!*x) {
        r->fed_op = '+';
        r->expected = 0;
      } else if (*x == '+' || *x == '-' || *x == '*') {
        r->fed_op = *x == '*' ? '*' : '+';
        r->expected = table_number(path, ln, "expected", x + 1) * (*x == '-' ? -1 : 1);
      } else {
        lab_die("%s:%d: claim %s: expected must be a number, fed, fed+X, fed-X or fed*X (got %s)",
                path, ln, r->id, f[2]);
      }
    } else {
      r->expected = table_number(path, ln, "expected", f[2]);
    }
    r->tol[0] = table_number(path, ln, "tol_quick", f[3]);
    r->tol[1] = table_number(path, ln, "tol_paper", f[4]);
    if ((!strcmp(f[1], "abs") || !strcmp(f[1], "rel")) && (r->tol[0] < 0 || r->tol[1] < 0))
      lab_die("%s:%d: claim %s: an abs or rel tolerance must be >= 0", path, ln, r->id);
    memcpy(r->unit, f[5], strlen(f[5]) + 1);
    memcpy(r->source, f[6], strlen(f[6]) + 1);
    memcpy(r->kind, f[7], strlen(f[7]) + 1);
    if (strcmp(r->kind, "analytic") && strcmp(r->kind, "literature") && strcmp(r->kind, "seed") &&
        strcmp(r->kind, "baseline"))
      lab_die("%s:%d: claim %s: kind must be analytic, literature, seed or baseline (got %s)", path,
              ln, r->id, r->kind);
    /* expect: pass or fail for both scales, or quick=V,paper=V where a
     * miss is known at one resolution only; quick=refuted where the quick
     * run passes and the recorded paper run does not */
    if (!strcmp(f[8], "pass") || !strcmp(f[8], "fail")) {
      r->expect[0] = r->expect[1] = !strcmp(f[8], "pass") ? V_PASS : V_FAIL;
    } else {
      char q[8], pp[8], tail;
      if (sscanf(f[8], "quick=%7[a-z],paper=%4[a-z]%c", q, pp, &tail) != 2 ||
          (strcmp(q, "pass") && strcmp(q, "fail") && strcmp(q, "refuted")) ||
          (strcmp(pp, "pass") && strcmp(pp, "fail")))
        lab_die(
            "%s:%d: claim %s: expect must be pass, fail or quick=pass|fail|refuted,paper=pass|fail "
            "(got %s)",
            path, ln, r->id, f[8]);
      r->expect[0] = !strcmp(q, "pass") ? V_PASS : !strcmp(q, "fail") ? V_FAIL : V_REFUTED;
      r->expect[1] = !strcmp(pp, "pass") ? V_PASS : V_FAIL;
      if (r->expect[0] == V_REFUTED && r->expect[1] == V_PASS)
        lab_die(
            "%s:%d: claim %s: quick=refuted means the paper run fails, so paper=pass contradicts "
            "it",
            path, ln, r->id);
    }
  }
  if (ferror(fp)) lab_die("reading the claims table %s: %s", path, strerror(errno));
  fclose(fp);
  if (lab->n_table == 0) lab_die("the claims table %s has no claims", path);
  if (bg_sha256_file_hex(path, lab->table_sha) != BG_OK)
    lab_die("cannot hash %s: %s", path, strerror(errno));
}

int lab_in_list(const char *list, const char *item) {
  size_t n = strlen(item);
  for (const char *p = list; *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && !strncmp(p, item, n)) return 1;
    p += k;
    if (*p == ',') p++;
  }
  return 0;
}

const claim_row *lab_find_claim(const bg_lab *lab, const char *id) {
  for (int i = 0; i < lab->n_table; ++i)
    if (strcmp(lab->table[i].id, id) == 0) return &lab->table[i];
  return NULL;
}

int bg_lab_claim_ref(bg_lab *lab, const char *id_as_written, double *expected, double *tolerance) {
  char id[96];
  if (!lab_scoped_id(lab, id_as_written, id, sizeof id)) return 0;
  const claim_row *r = lab_find_claim(lab, id);
  if (!r) return 0;
  if (expected) *expected = r->expected;
  if (tolerance) *tolerance = r->tol[lab->scale];
  return 1;
}

/* The expected value of row r for a run fed 'fed' (NaN for a numeric row). */
double lab_row_expected(const claim_row *r, double fed) {
  if (!r->fed_op) return r->expected;
  return r->fed_op == '*' ? fed * r->expected : fed + r->expected;
}

int lab_judge(const claim_row *r, double expected, double tol, double measured) {
  /* NaN measured (or a NaN fed input) never passes: every comparison with NaN is false */
  if (!strcmp(r->compare, "abs")) return fabs(measured - expected) <= tol;
  if (!strcmp(r->compare, "rel")) return fabs(measured - expected) <= tol * fabs(expected);
  if (!strcmp(r->compare, "max")) return measured <= tol;
  return measured >= tol;
}

/* The claim a run judges under id. Drucker-Prager (the default model) is
 * judged on the ids as written; a run of another model on
 * "exe.<model label>.rest" (e.g. runout.mu-i.small_a_slope), and only where
 * claims.tsv has such a row: one model's expectations do not carry over to
 * another. Returns 0 when the claim does not apply to this run's model. */
int lab_scoped_id(const bg_lab *lab, const char *id, char *out, size_t n) {
  if (lab->material == BG_MODEL_DP) {
    snprintf(out, n, "%s", id);
    return 1;
  }
  const char *dot = strchr(id, '.');
  if (!dot) lab_die("claim id '%s' has no '.'", id);
  snprintf(out, n, "%.*s.%s%s", (int)(dot - id), id,
           bg_material_model_name((bg_material_model)lab->material), dot);
  return lab_find_claim(lab, out) != NULL;
}

static int claim(bg_lab *lab, const char *id_as_written, double measured, int has_fed, double fed) {
  char id[96];
  if (!lab_scoped_id(lab, id_as_written, id, sizeof id)) {
    /* measured, not judged: the value still goes into the manifest */
    char key[128];
    snprintf(key, sizeof key, "unjudged.%s", id);
    lab->n_unjudged++;
    bg_lab_manifest_num(lab, key, measured);
    if (!lab->quiet)
      fprintf(stderr, "  %-32s measured %g, not a claim for %s (claims.tsv has no %s row)\n",
              id_as_written, measured, bg_lab_material_name(lab), id);
    return 0;
  }
  if (lab->n_claims == MAX_CLAIMS) lab_die("too many claims in one run (max %d)", MAX_CLAIMS);
  claim_result *c = &lab->claims[lab->n_claims++];
  memset(c, 0, sizeof *c);
  snprintf(c->id, sizeof c->id, "%s", id);
  c->measured = measured;
  const claim_row *r = lab_find_claim(lab, id);
  if (!r) {
    fprintf(stderr, "claim %s is not in %s/claims.tsv: counted as failed\n", id, lab->refs);
    c->expected = NAN;
    c->tol = NAN;
    snprintf(c->unit, sizeof c->unit, "-");
    snprintf(c->source, sizeof c->source, "missing");
    snprintf(c->compare, sizeof c->compare, "-");
    c->pass = 0;
    c->expect = V_PASS;
    return 0;
  }
  /* a claim whose table row names the run's input must be handed that
   * input, and one with a fixed expected value must not pretend to see one */
  if (!r->fed_op != !has_fed)
    lab_die("claim %s: the table's expected column %s, so the experiment must call %s", id,
            r->fed_op ? "reads fed (the run's input)" : "is a number",
            r->fed_op ? "bg_lab_claim_fed" : "bg_lab_claim");
  c->expect = r->expect[lab->scale];
  c->expected = lab_row_expected(r, fed);
  c->tol = r->tol[lab->scale];
  snprintf(c->unit, sizeof c->unit, "%s", r->unit);
  snprintf(c->source, sizeof c->source, "%s", r->source);
  snprintf(c->compare, sizeof c->compare, "%s", r->compare);
  c->pass = lab_judge(r, c->expected, c->tol, measured);
  return c->pass;
}

int bg_lab_claim(bg_lab *lab, const char *id, double measured) {
  return claim(lab, id, measured, 0, NAN);
}

int bg_lab_claim_fed(bg_lab *lab, const char *id, double measured, double fed) {
  return claim(lab, id, measured, 1, fed);
}

/* The recorded paper runs: reports/results/CARD/ENTRY/claims.tsv beside the
 * references, one folder per entry of experiments/registry.tsv (the
 * variants in other folders are studies, not the entry's record), for each
 * card a GPU was lent as, in this order: an entry recorded on both is read
 * from the first. */
static const char *const paper_record[] = {"reports/results/h200", "reports/results/h100"};
#define N_PAPER_RECORD ((int)(sizeof paper_record / sizeof paper_record[0]))

/* Claim r in one recorded run's claims.tsv at cpath (card/entry name it):
 * 1 when its recorded value fails today's row, 0 when it passes, -1 when
 * the file or the claim is not there. */
static int recorded_in(const char *cpath, const claim_row *r, const char *card, const char *entry, char *what,
                       size_t n) {
  FILE *fp = fopen(cpath, "r");
  if (!fp) return -1;
  int found = -1;
  char row[8192];
  while (fgets(row, sizeof row, fp)) {
    char *f[10];
    if (row[0] == '#') continue;
    int nf = lab_split_tabs(row, f, 10);
    if (nf < 6 || strcmp(f[0], r->id)) continue;
    char *end;
    double measured = strtod(f[1], &end);
    if (end == f[1]) measured = NAN;
    /* a fed row is judged against the input that run was fed, which its
     * expected column holds */
    double expected = r->fed_op ? strtod(f[2], NULL) : r->expected;
    int pass = lab_judge(r, expected, r->tol[BG_SCALE_PAPER], measured);
    snprintf(what, n, "%.4g %s (%s/%s)", measured, pass ? "pass" : "fail", card, entry);
    found = !pass;
    break;
  }
  fclose(fp);
  return found;
}

/* The value of option name ("--x") in a registry args field ("--a 1 --b
 * x", "-" for none), or NULL; val holds it. */
static const char *args_value(const char *args, const char *name, char *val, size_t n) {
  const size_t ln = strlen(name);
  for (const char *a = args; (a = strstr(a, name)) != NULL; a += ln) {
    if ((a != args && a[-1] != ' ') || (a[ln] != ' ' && a[ln] != '=')) continue;
    const char *v = a + ln + 1;
    snprintf(val, n, "%.*s", (int)strcspn(v, " \t\n"), v);
    return val;
  }
  return NULL;
}

/* The value of key in a "key<TAB>value" per line text, or NULL. */
static const char *line_value(const char *text, const char *key, char *val, size_t n) {
  const size_t lk = strlen(key);
  for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
    if (!strncmp(l, key, lk) && l[lk] == '\t') {
      snprintf(val, n, "%.*s", (int)strcspn(l + lk + 1, "\n"), l + lk + 1);
      return val;
    }
  }
  return NULL;
}

static int same_value(const char *a, const char *b, int numeric) {
  if (!numeric) return strcmp(a, b) == 0;
  char *ea, *eb;
  double x = strtod(a, &ea), y = strtod(b, &eb);
  return *ea == 0 && *eb == 0 && fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y));
}

/* 1 when this run is its registry entry's standard run at its scale: every
 * parameter and material option at the value the entry's args give it, or
 * else at the scale's default. A recorded paper run judges only that run:
 * one fed other inputs (exp_wall --phi 25) is another experiment. When not,
 * why gets the first input that differs. */
static int standard_run(const bg_lab *lab, const char *args, char *why, size_t n) {
  char want[256], have[256];
  for (const char *l = lab->defaults; *l;) {
    const size_t len = strcspn(l, "\n");
    char name[96], def[256];
    int numeric = 0;
    if (sscanf(l, "%95[^\t]\t%255[^\t]\t%d", name, def, &numeric) == 3) {
      const char *w = args_value(args, name, want, sizeof want) ? want : def;
      if (line_value(lab->identity, name, have, sizeof have) && !same_value(w, have, numeric)) {
        if (numeric) snprintf(have, sizeof have, "%g", strtod(have, NULL));
        snprintf(why, n, "%.40s %.40s, the entry's %.40s", name, have, w);
        return 0;
      }
    }
    l += len + (l[len] == '\n');
  }
  /* the material and its options: the args' or the lab's defaults */
  const char *model = bg_lab_material_name(lab);
  const char *wm = args_value(args, "--material", want, sizeof want) ? want : "drucker-prager";
  if (strcmp(wm, model)) {
    snprintf(why, n, "--material %.40s, the entry's %.40s", model, wm);
    return 0;
  }
  static const struct { const char *opt, *key, *def; } mo[] = {
      {"--mu-s", "mu_s", "0"}, {"--grain-d", "grain_d", "0"}, {"--ngf-a", "ngf_a", "-1"}, {"--ngf-t0", "ngf_t0", "0"},
      {"--youngs", "youngs", "0"}};
  for (size_t k = 0; k < sizeof mo / sizeof mo[0]; ++k) {
    const char *w = args_value(args, mo[k].opt, want, sizeof want) ? want : mo[k].def;
    if (line_value(lab->identity, mo[k].key, have, sizeof have) && !same_value(w, have, 1)) {
      snprintf(why, n, "%.20s %.40s, the entry's %.40s", mo[k].opt, have, w);
      return 0;
    }
  }
  /* the cone is a word, and the identity has it only when given */
  const char *wc = args_value(args, "--cone", want, sizeof want) ? want : "";
  if (!line_value(lab->identity, "cone", have, sizeof have)) have[0] = 0;
  if (strcmp(wc, have)) {
    snprintf(why, n, "--cone %.40s, the entry's %.40s", have[0] ? have : "(none)", wc[0] ? wc : "(none)");
    return 0;
  }
  return 1;
}

/* Finds claim id in the recorded paper runs and re-judges the recorded value
 * by today's row r: 1 when it fails there, 0 when it passes, -1 when no
 * recorded run has it, -2 when one has it for its entry's inputs and this
 * run was fed others. what gets "value verdict (CARD/ENTRY)". */
static int recorded_paper(const bg_lab *lab, const claim_row *r, char *what, size_t n) {
  char path[1400], line[8192];
  snprintf(what, n, "-");
  snprintf(path, sizeof path, "%s/../experiments/registry.tsv", lab->refs);
  FILE *reg = fopen(path, "r");
  if (!reg) return -1;
  int found = -1;
  while (found == -1 && fgets(line, sizeof line, reg)) {
    if (line[0] == '#' || line[0] == '\n' || !strncmp(line, "name\t", 5)) continue;
    char entry[128], why[256];
    snprintf(entry, sizeof entry, "%.*s", (int)strcspn(line, "\t\n"), line);
    /* the entry's own options: its args, and at paper scale its paper_args too */
    char *f[10], args[2048];
    const int nf = lab_split_tabs(line, f, 10);
    snprintf(args, sizeof args, "%s %s", lab->scale == BG_SCALE_PAPER && nf > 6 ? f[6] : "-", nf > 7 ? f[7] : "-");
    for (int k = 0; found == -1 && k < N_PAPER_RECORD; ++k) {
      char cpath[1400];
      snprintf(cpath, sizeof cpath, "%s/../%s/%s/claims.tsv", lab->refs, paper_record[k], entry);
      found = recorded_in(cpath, r, paper_record[k] + strlen("reports/results/"), entry, what, n);
      /* a run of the lab (an identity) at inputs of its own; bglab_query,
       * which re-judges the report's standard runs, has none */
      if (found >= 0 && lab->identity[0] && !standard_run(lab, args, why, sizeof why)) {
        /* recorded, but for the entry's own inputs, not this run's */
        snprintf(what, n, "- (recorded for %.30s only; here %.100s)", entry, why);
        found = -2;
        break;
      }
    }
  }
  fclose(reg);
  return found;
}

/* The verdict of a raw pass/fail at this run's scale: at quick scale a pass
 * the recorded paper run contradicts is refuted. */
int lab_settle(bg_scale scale, int pass, int paper_fails) {
  if (scale == BG_SCALE_QUICK && pass && paper_fails == 1) return V_REFUTED;
  return pass ? V_PASS : V_FAIL;
}

void lab_settle_claims(bg_lab *lab) {
  for (int i = 0; i < lab->n_claims; ++i) {
    claim_result *c = &lab->claims[i];
    const claim_row *r = lab_find_claim(lab, c->id);
    c->paper_fails = r ? recorded_paper(lab, r, c->paper, sizeof c->paper) : -1;
    if (!r) snprintf(c->paper, sizeof c->paper, "-");
    c->verdict = lab_settle(lab->scale, c->pass, c->paper_fails);
    /* the table's "refuted" is its standard run's verdict, given by the
     * record; fed other inputs, the run is judged by the rule alone */
    if (c->paper_fails == -2 && c->expect == V_REFUTED) c->expect = V_PASS;
  }
}

/* claims.tsv: each claim with its verdict and the table's expect; the same
 * on stderr, with what an unexpected verdict means. */
int lab_write_claims(bg_lab *lab) {
  FILE *fp = lab_open_output(lab, "claims.tsv");
  fprintf(fp, "# claims of %s at scale %s%s%s, judged by %s/claims.tsv (sha256 %s)\n", lab->name,
          bg_lab_scale_name(lab), lab->active ? ", MUTANT " : "",
          lab->active ? lab->active->name : "", lab->refs, lab->table_sha);
  fprintf(fp,
          "claim\tmeasured\texpected\ttolerance\tunit\tverdict\tsource\texpect\tcompare\tpaper_"
          "record\n");
  int unexpected = 0, misses = 0;
  if (!lab->quiet)
    fprintf(stderr, "claims of %s (%s scale%s%s):\n", lab->name, bg_lab_scale_name(lab),
            lab->active ? ", mutant " : "", lab->active ? lab->active->name : "");
  for (int i = 0; i < lab->n_claims; ++i) {
    claim_result *c = &lab->claims[i];
    unexpected += c->verdict != c->expect;
    misses += c->verdict != V_PASS && c->verdict == c->expect;
    fprintf(fp, "%s\t%.6g\t%.6g\t%.3g\t%s\t%s\t%s\t%s\t%s\t%s\n", c->id, c->measured, c->expected,
            c->tol, c->unit, lab_verdict_name[c->verdict], c->source, lab_verdict_name[c->expect],
            c->compare, c->paper);
    const char *tag = c->verdict == c->expect
                          ? (c->verdict == V_PASS ? ""
                             : c->verdict == V_REFUTED
                                 ? "  (passes here, refuted by the recorded paper run: expected)"
                                 : "  (documented miss: expected)")
                      : c->verdict == V_REFUTED
                          ? "  [UNEXPECTED: passes here, but the recorded paper run fails it]"
                      : c->verdict == V_PASS ? "  [UNEXPECTED pass: the table expects a miss]"
                                             : "  [UNEXPECTED fail]";
    fprintf(stderr,
            "  %-32s %-4s measured %.6g %s (expected %.6g, %s tolerance %.3g; paper %s)%s\n", c->id,
            c->pass ? "pass" : "FAIL", c->measured, c->unit, c->expected, c->compare, c->tol,
            c->paper, tag);
  }
  lab_close_output(fp, "claims.tsv");
  fprintf(stderr, "%s: %d claims, %d documented misses, %d unexpected verdicts: exit %d\n",
          lab->name, lab->n_claims, misses, unexpected, unexpected ? 1 : 0);
  return unexpected;
}

/* ------------------------------------------------------------- references */

const char *bg_lab_reference(bg_lab *lab, const char *file, char *path, size_t n) {
  if (snprintf(path, n, "%s/%s", lab->refs, file) >= (int)n)
    lab_die("reference path %s/%s is too long", lab->refs, file);
  FILE *fp = fopen(path, "r");
  if (!fp) lab_die("cannot read the reference file %s: %s", path, strerror(errno));
  fclose(fp);
  return path;
}

double bg_lab_ref_value(bg_lab *lab, const char *file, const char *key, const char *column) {
  char path[1200], line[2048];
  bg_lab_reference(lab, file, path, sizeof path);
  FILE *fp = fopen(path, "r");
  if (!fp) lab_die("cannot read the reference file %s: %s", path, strerror(errno));
  int col = -1, ln = 0;
  double v = NAN;
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\r\n")] = 0;
    char *f[32];
    int nf = lab_split_tabs(line, f, 32);
    if (col < 0) { /* the plain header */
      for (int i = 0; i < nf; ++i)
        if (!strcmp(f[i], column)) col = i;
      if (col < 0) lab_die("%s:%d: no column '%s' in the header", path, ln, column);
      continue;
    }
    if (nf > col && !strcmp(f[0], key)) {
      char *end;
      v = strtod(f[col], &end);
      if (end == f[col] || *end || !isfinite(v))
        lab_die("%s:%d: %s of '%s' is not a finite number ('%s')", path, ln, column, key, f[col]);
      break;
    }
  }
  fclose(fp);
  if (isnan(v)) lab_die("%s: no row '%s'", path, key);
  return v;
}

int lab_rejudge(const bg_lab *lab, const claim_row *r, double measured, double recorded_expected,
                double *expected, double *tol) {
  /* a fed row compares with the input the recorded run was fed, which its
   * expected column holds */
  *expected = r->fed_op ? recorded_expected : r->expected;
  *tol = r->tol[lab->scale];
  char what[160];
  int paper_fails = recorded_paper(lab, r, what, sizeof what);
  return lab_settle(lab->scale, lab_judge(r, *expected, *tol, measured), paper_fails);
}
