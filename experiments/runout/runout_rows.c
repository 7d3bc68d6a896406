/* runout_rows.c: the runout experiment's reference laws (the literature
 * table and the seed's results), its list option and the rows of its run
 * tables (sweep.tsv, convergence.tsv, floor_mu.tsv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runout.h"

/* parses "0.5,1,2" into v (sorted ascending, distinct), range-checked */
int runout_parse_list(const char *s, double *v, int max, double lo, double hi, const char *opt) {
  int n = 0;
  const char *p = s;
  while (*p) {
    char *end;
    double x = strtod(p, &end);
    if (end == p || !isfinite(x) || x < lo || x > hi) {
      bg_lab_fail("--%s: '%s' is not a comma-separated list of numbers in [%g, %g]", opt, s, lo, hi);
    }
    if (n == max) {
      bg_lab_fail("--%s: at most %d values", opt, max);
    }
    if (n > 0 && x <= v[n - 1]) {
      bg_lab_fail("--%s: values must increase (%g after %g)", opt, x, v[n - 1]);
    }
    v[n++] = x;
    p = end;
    if (*p == ',') p++;
    else if (*p) {
      bg_lab_fail("--%s: unexpected '%c' in '%s'", opt, *p, s);
    }
  }
  return n;
}

/* A row of a references table: the literature laws
 * (literature/column_collapse_laws.tsv: source, c1, a_break, c2, p, nan where
 * a source gives none) or the seed's results (seed/seed_results.tsv:
 * quantity, value, lo, hi, ...; value lands in c1). */
lit_law runout_read_law(bg_lab *lab, const char *file, const char *source) {
  lit_law l = {NAN, NAN, NAN, NAN, 0};
  char path[1100], line[512];
  snprintf(path, sizeof path, "%s/%s", bg_lab_references(lab), file);
  FILE *f = fopen(path, "r");
  if (!f) {
    bg_lab_fail("cannot read %s", path);
  }
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char name[64];
    char c1[32], ab[32], c2[32], p[32];
    if (sscanf(line, "%63[^\t]\t%31[^\t]\t%31[^\t]\t%31[^\t]\t%31[^\t\n]", name, c1, ab, c2, p) != 5) continue;
    if (strcmp(name, source) != 0) continue;
    l.c1 = strtod(c1, NULL);
    l.ab = strtod(ab, NULL);
    l.c2 = strtod(c2, NULL);
    l.p = strtod(p, NULL);
    l.found = 1;
  }
  fclose(f);
  if (!l.found) {
    bg_lab_fail("%s has no row '%s'", path, source);
  }
  return l;
}

double runout_lit_value(const lit_law *l, double a) { return a < l->ab ? l->c1 * a : l->c2 * pow(a, l->p); }

/* L / R0 that leaves room for Lube's runout with a margin of half again */
double runout_domain_for(const lit_law *lube_law, double a) {
  double lube = runout_lit_value(lube_law, a);
  double L = 1.0 + 1.5 * lube + 0.5;
  return L < 2.5 ? 2.5 : L;
}

run_row runout_row_of(const bg_column_result *r, const bg_column_scene *sc) {
  run_row w;
  w.a = sc->aspect;
  w.runout = r->front;
  w.r99 = r->r99;
  w.y = (r->front - sc->R0) / sc->R0;
  w.thr = r->runout;
  w.y_thr = (r->runout - sc->R0) / sc->R0;
  w.h_center = r->h_center;
  w.t_rest = r->t_end;
  w.summit = r->h_center >= r->H0 - r->dx;
  w.settled = r->settled;
  w.wall = r->runout_wall;
  w.particles = r->n_particles;
  w.steps = r->steps;
  return w;
}

void runout_write_row(FILE *f, const run_row *w, double R0, double dx, double mu, int cells) {
  double H0 = w->a * R0;
  fprintf(f, "%.4g\t%.4g\t%d\t%.5g\t%.6g\t%.5f\t%.6g\t%.5f\t%s\t%.4f\t%.4f\t%d\t%d\t%zu\t%llu\t%.6g\t%.6g\t%.5f\n", w->a,
          mu, cells, dx, w->runout, w->y, w->h_center, w->h_center / H0, w->summit ? "summit" : "conical",
          w->t_rest, w->t_rest / sqrt(H0 / 9.81), w->settled, w->wall, w->particles,
          (unsigned long long)w->steps, w->r99, w->thr, w->y_thr);
}
