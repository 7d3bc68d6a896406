/* lab_mutants.c: the mutant registry (references/mutants.tsv) and the
 * measurement mutants a run evaluates on its own data. A mutant is a named
 * change a correct lab must detect: each claim the registry lists for it
 * must come out with a verdict other than the claim's expect. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

/* references/mutants.tsv: mutant, executable, kind, claims, scale, description. The
 * rows of this executable must be exactly the mutants its code implements. */
void lab_load_mutants(bg_lab *lab, const char *const *implemented) {
  char path[1200];
  snprintf(path, sizeof path, "%s/mutants.tsv", lab->refs);
  FILE *fp = fopen(path, "r");
  if (!fp) lab_die("cannot read the mutant registry %s: %s", path, strerror(errno));
  char line[4096];
  int ln = 0, seen_header = 0;
  while (fgets(line, sizeof line, fp)) {
    ln++;
    if (line[0] == '#' || line[0] == '\n') continue;
    char *f[7];
    int nf = lab_split_tabs(line, f, 7);
    if (!seen_header) {
      static const char *mcols[] = {"mutant", "executable", "kind",
                                    "claims", "scale",      "description"};
      for (int i = 0; i < 6; ++i)
        if (nf != 6 || strcmp(f[i], mcols[i]))
          lab_die(
              "%s:%d: the header must be the 6 columns 'mutant executable kind claims scale "
              "description', "
              "tab-separated",
              path, ln);
      seen_header = 1;
      continue;
    }
    if (nf != 6)
      lab_die(
          "%s:%d: need 6 tab-separated fields (mutant, executable, kind, claims, scale, "
          "description), got %d",
          path, ln, nf);
    for (int i = 0; i < 6; ++i)
      if (!f[i][0]) lab_die("%s:%d: field %d is empty", path, ln, i + 1);
    if (strcmp(f[2], "model") && strcmp(f[2], "scene") && strcmp(f[2], "measurement") &&
        strcmp(f[2], "protocol"))
      lab_die("%s:%d: kind must be model, scene, measurement or protocol (got %s)", path, ln, f[2]);
    if (strcmp(f[4], "quick") && strcmp(f[4], "paper"))
      lab_die("%s:%d: scale must be quick or paper (got %s)", path, ln, f[4]);
    if (!strcmp(f[4], "paper") && strcmp(f[2], "measurement"))
      lab_die(
          "%s:%d: a paper-scale mutant is checked on a recorded plain run, so it must be a "
          "measurement mutant",
          path, ln);
    if (strcmp(f[1], lab->name)) continue;
    int known = 0;
    for (const char *const *m = implemented; m && *m; ++m) known |= !strcmp(*m, f[0]);
    if (!known) lab_die("%s:%d: mutant %s is not implemented by %s", path, ln, f[0], lab->name);
    for (int i = 0; i < lab->n_mutants; ++i)
      if (!strcmp(lab->mutants[i].name, f[0]))
        lab_die("%s:%d: mutant %s is listed twice", path, ln, f[0]);
    if (lab->n_mutants == MAX_MUTANTS)
      lab_die("%s: more than %d mutants for %s", path, MAX_MUTANTS, lab->name);
    mutant_row *r = &lab->mutants[lab->n_mutants++];
    if (strlen(f[0]) >= sizeof r->name || strlen(f[3]) >= sizeof r->claims ||
        strlen(f[5]) >= sizeof r->desc)
      lab_die("%s:%d: a field is too long (name < %zu, claims < %zu, description < %zu characters)",
              path, ln, sizeof r->name, sizeof r->claims, sizeof r->desc);
    memcpy(r->name, f[0], strlen(f[0]) + 1);
    memcpy(r->kind, f[2], strlen(f[2]) + 1);
    memcpy(r->claims, f[3], strlen(f[3]) + 1);
    memcpy(r->scale, f[4], strlen(f[4]) + 1);
    memcpy(r->desc, f[5], strlen(f[5]) + 1);
  }
  fclose(fp);
  if (bg_sha256_file_hex(path, lab->mutants_sha) != BG_OK)
    lab_die("cannot hash %s: %s", path, strerror(errno));
  for (const char *const *m = implemented; m && *m; ++m) {
    int listed = 0;
    for (int i = 0; i < lab->n_mutants; ++i) listed |= !strcmp(lab->mutants[i].name, *m);
    if (!listed) lab_die("%s implements mutant %s, which %s does not list", lab->name, *m, path);
  }
}

void lab_select_mutant(bg_lab *lab, const char *mutant_arg) {
  for (int i = 0; i < lab->n_mutants; ++i)
    if (!strcmp(lab->mutants[i].name, mutant_arg)) lab->active = &lab->mutants[i];
  if (lab->active) return;
  fprintf(stderr, "error: --mutant: '%s' is not a mutant of %s; it has:", mutant_arg, lab->name);
  for (int i = 0; i < lab->n_mutants; ++i) fprintf(stderr, " %s", lab->mutants[i].name);
  fprintf(stderr, "%s\n", lab->n_mutants ? "" : " none");
  exit(2);
}

const char *bg_lab_mutant(const bg_lab *lab) { return lab->active ? lab->active->name : NULL; }

int bg_lab_mutant_is(const bg_lab *lab, const char *mutant) {
  return lab->active && !strcmp(lab->active->name, mutant);
}

int bg_lab_needed(const bg_lab *lab, const char *claim_id) {
  char sid[96];
  /* a claim this run's model has no row for is not judged: not needed */
  if (!lab_scoped_id(lab, claim_id, sid, sizeof sid)) return 0;
  return !lab->active || lab_in_list(lab->active->claims, sid);
}

static void claim_mutant(bg_lab *lab, const char *mutant, const char *id, double measured,
                         int has_fed, double fed) {
  int known = 0;
  for (int i = 0; i < lab->n_mutants; ++i)
    known |= !strcmp(lab->mutants[i].name, mutant) && !strcmp(lab->mutants[i].kind, "measurement");
  if (!known)
    lab_die("bg_lab_claim_mutant: %s is not a measurement mutant of %s in mutants.tsv", mutant,
            lab->name);
  char sid[96];
  if (!lab_scoped_id(lab, id, sid, sizeof sid)) return;
  const claim_row *r = lab_find_claim(lab, sid);
  if (r && !r->fed_op != !has_fed)
    lab_die("mutant %s of claim %s: the table's expected column %s, so call %s", mutant, sid,
            r->fed_op ? "reads fed (the run's input)" : "is a number",
            r->fed_op ? "bg_lab_claim_mutant_fed" : "bg_lab_claim_mutant");
  if (lab->n_mclaims == MAX_MUTANT_CLAIMS)
    lab_die("too many mutant claims in one run (max %d)", MAX_MUTANT_CLAIMS);
  mutant_claim *m = &lab->mclaims[lab->n_mclaims++];
  snprintf(m->mutant, sizeof m->mutant, "%s", mutant);
  snprintf(m->id, sizeof m->id, "%s", sid);
  m->measured = measured;
  m->fed = has_fed ? fed : NAN;
}

void bg_lab_claim_mutant(bg_lab *lab, const char *mutant, const char *id, double measured) {
  claim_mutant(lab, mutant, id, measured, 0, NAN);
}

void bg_lab_claim_mutant_fed(bg_lab *lab, const char *mutant, const char *id, double measured,
                             double fed) {
  claim_mutant(lab, mutant, id, measured, 1, fed);
}

/* mutants.tsv: each measurement mutant's value on this run's data, its
 * verdict, and the claim's own verdict beside it. */
void lab_write_mutants(bg_lab *lab) {
  char path[1400];
  snprintf(path, sizeof path, "%s/mutants.tsv", lab->out);
  if (lab->n_mclaims == 0) {
    remove(path);
    return;
  }
  FILE *fp = lab_open_output(lab, "mutants.tsv");
  fprintf(
      fp,
      "# measurement mutants of %s at scale %s, evaluated on this run's data; claim_verdict: the "
      "claim's own verdict in this run\n",
      lab->name, bg_lab_scale_name(lab));
  fprintf(fp, "mutant\tclaim\tmeasured\tverdict\tclaim_verdict\texpect\n");
  for (int i = 0; i < lab->n_mclaims; ++i) {
    const mutant_claim *m = &lab->mclaims[i];
    const claim_row *r = lab_find_claim(lab, m->id);
    const claim_result *c = NULL;
    for (int k = 0; k < lab->n_claims; ++k)
      if (!strcmp(lab->claims[k].id, m->id)) c = &lab->claims[k];
    int pass = r ? lab_judge(r, lab_row_expected(r, m->fed), r->tol[lab->scale], m->measured) : 0;
    int v = lab_settle(lab->scale, pass, c ? c->paper_fails : -1);
    fprintf(fp, "%s\t%s\t%.6g\t%s\t%s\t%s\n", m->mutant, m->id, m->measured, lab_verdict_name[v],
            c ? lab_verdict_name[c->verdict] : "-",
            r ? lab_verdict_name[r->expect[lab->scale]] : "-");
  }
  lab_close_output(fp, path);
}

/* In a run with --mutant M (a measurement mutant), M's values replace the
 * claims' own, so that every kind of mutant is judged the same way. */
void lab_apply_measurement_mutant(bg_lab *lab) {
  if (!lab->active || strcmp(lab->active->kind, "measurement")) return;
  for (int i = 0; i < lab->n_mclaims; ++i) {
    const mutant_claim *m = &lab->mclaims[i];
    if (strcmp(m->mutant, lab->active->name)) continue;
    for (int k = 0; k < lab->n_claims; ++k) {
      claim_result *c = &lab->claims[k];
      if (strcmp(c->id, m->id)) continue;
      const claim_row *r = lab_find_claim(lab, c->id);
      c->measured = m->measured;
      if (r) c->expected = lab_row_expected(r, m->fed);
      c->pass = r ? lab_judge(r, c->expected, c->tol, m->measured) : 0;
      c->verdict = lab_settle(lab->scale, c->pass, c->paper_fails);
    }
  }
}
