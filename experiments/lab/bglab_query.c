/* bglab_query: what scripts ask the lab, answered by the lab's own C so
 * that no script restates it.
 *
 *   bglab_query host
 *       the machine, as every manifest records it: "key<TAB>value" lines
 *       host, cpu, cores, and gpu (the device a GPU backend would run on,
 *       empty when none) with gpu_why (why none)
 *   bglab_query judge --references DIR --scale quick|paper
 *       re-judges recorded claims by today's table: reads
 *       "claim<TAB>measured<TAB>recorded_expected" lines on stdin, writes
 *       "claim<TAB>verdict<TAB>expect<TAB>expected<TAB>tolerance" (all "-"
 *       after the claim when the table no longer has it)
 *
 * Exit 0, or 2 with a message for bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

static int usage(void) {
  fprintf(stderr,
          "usage: bglab_query host\n"
          "       bglab_query judge --references DIR --scale quick|paper  < claim measured "
          "expected lines\n");
  return 2;
}

static int host(void) {
  bg_host h;
  bg_host_describe(&h);
  char dev[256];
  int gpu = bglab_backend_device(dev, sizeof dev);
  printf("host\t%s\ncpu\t%s\ncores\t%d\ngpu\t%s\ngpu_why\t%s\n", h.name, h.cpu, h.cores,
         gpu ? dev : "", gpu ? "" : dev);
  return 0;
}

static double field_number(const char *s) {
  char *end;
  double v = strtod(s, &end);
  return end == s ? NAN : v;
}

static int judge(int argc, char **argv) {
  bg_lab *lab = calloc(1, sizeof *lab);
  if (!lab) lab_die("out of memory");
  lab->name = "bglab_query";
  const char *refs = NULL, *scale = NULL;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--references"))
      refs = argv[i + 1];
    else if (!strcmp(argv[i], "--scale"))
      scale = argv[i + 1];
    else
      lab_die("judge: unknown option '%s'", argv[i]);
  }
  if (!refs || !scale || argc % 2) return usage();
  if (strcmp(scale, "quick") && strcmp(scale, "paper"))
    lab_die("--scale: '%s' is not one of quick, paper", scale);
  lab->scale = !strcmp(scale, "paper") ? BG_SCALE_PAPER : BG_SCALE_QUICK;
  if (snprintf(lab->refs, sizeof lab->refs, "%s", refs) >= (int)sizeof lab->refs)
    lab_die("--references: path too long");
  lab_load_claims(lab);
  char line[4096];
  while (fgets(line, sizeof line, stdin)) {
    char *f[3];
    if (line[0] == '\n' || line[0] == '#') continue;
    if (lab_split_tabs(line, f, 3) != 3)
      lab_die("judge: a line needs 3 tab-separated fields: claim, measured, expected");
    const claim_row *r = lab_find_claim(lab, f[0]);
    if (!r) {
      printf("%s\t-\t-\t-\t-\n", f[0]);
      continue;
    }
    double expected, tol;
    int v = lab_rejudge(lab, r, field_number(f[1]), field_number(f[2]), &expected, &tol);
    printf("%s\t%s\t%s\t%.10g\t%.10g\n", f[0], lab_verdict_name[v],
           lab_verdict_name[r->expect[lab->scale]], expected, tol);
  }
  free(lab->table);
  free(lab);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "host") && argc == 2) return host();
  if (argc >= 2 && !strcmp(argv[1], "judge")) return judge(argc, argv);
  return usage();
}
