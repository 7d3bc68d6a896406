/* test_io.c: the VTK (ASCII legacy polydata) and PLY (binary little-endian)
 * particle writers, re-read and compared with bg_sim_get; a path in a
 * missing directory gives BG_ERR_IO naming the path. Host only (cpu). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"
#include "bg_check.h"

#define NP 100

typedef struct fields {
  size_t n;
  bg_real x[3 * NP], v[3 * NP], rho[NP], jp[NP];
} fields;

/* Whole file into memory (NUL-terminated); *len is the byte count. */
static char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
    n += r;
    if (cap - n - 1 == 0) {
      char *nb = realloc(buf, 2 * cap);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(fp);
  if (buf) buf[n] = 0;
  *len = n;
  return buf;
}

/* Split in place into lines; returns the count. */
static size_t split_lines(char *buf, char **lines, size_t max) {
  size_t n = 0;
  char *p = buf;
  while (*p && n < max) {
    lines[n++] = p;
    char *e = strchr(p, '\n');
    if (!e) break;
    *e = 0;
    p = e + 1;
  }
  return n;
}

/* Parses every whitespace-separated number on a line into out (at most
 * max); returns the count, or -1 on a token that is not a number. */
static int parse_floats(const char *line, double *out, int max) {
  int n = 0;
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
    if (!*p) return n;
    char *end;
    double x = strtod(p, &end);
    if (end == p) return -1;
    if (n < max) out[n] = x;
    ++n;
    p = end;
  }
}

static double rel_err(double got, double want) {
  double s = fabs(want) > 0 ? fabs(want) : 1.0;
  return fabs(got - want) / s;
}

/* Reads n data lines of `width` numbers starting at lines[*at], compares
 * with want (width per line) and reports the count and worst error. */
static void vtk_section(char **lines, size_t nl, size_t *at, size_t n, int width, const bg_real *want,
                        const char *name) {
  size_t floats = 0, bad_lines = 0;
  double worst = 0;
  for (size_t p = 0; p < n; ++p) {
    if (*at >= nl) {
      bad_lines++;
      break;
    }
    double vals[8];
    int k = parse_floats(lines[(*at)++], vals, 8);
    if (k != width) {
      bad_lines++;
      if (k > 0) floats += (size_t)k;
      continue;
    }
    floats += (size_t)k;
    for (int d = 0; d < width; ++d) worst = fmax(worst, rel_err(vals[d], want[(size_t)width * p + (size_t)d]));
  }
  bg_check_true(floats == (size_t)width * n && bad_lines == 0, "vtk %s: %zu numbers, %d per line (got %zu)", name,
                (size_t)width * n, width, floats);
  bg_check_le(worst, 1e-6, "vtk %s: values match bg_sim_get (worst relative error, %%.7g text)", name);
}

static int line_is(char **lines, size_t nl, size_t at, const char *want) {
  return at < nl && strcmp(lines[at], want) == 0;
}

static void check_vtk(const char *path, const fields *f) {
  size_t len = 0;
  char *buf = slurp(path, &len);
  bg_check_true(buf != NULL && len > 0, "vtk: %s re-read (%zu bytes)", path, len);
  if (!buf) return;
  size_t maxl = 16 * (f->n + 4) + 64;
  char **lines = malloc(maxl * sizeof *lines);
  size_t nl = split_lines(buf, lines, maxl);
  char want[128];
  bg_check_true(line_is(lines, nl, 0, "# vtk DataFile Version 3.0"), "vtk: line 1 is the version header");
  bg_check_true(nl > 1 && strlen(lines[1]) > 0 && strlen(lines[1]) < 256, "vtk: line 2 is a title (\"%s\")",
                nl > 1 ? lines[1] : "");
  bg_check_true(line_is(lines, nl, 2, "ASCII"), "vtk: line 3 is ASCII");
  bg_check_true(line_is(lines, nl, 3, "DATASET POLYDATA"), "vtk: line 4 is DATASET POLYDATA");
  snprintf(want, sizeof want, "POINTS %zu float", f->n);
  bg_check_true(line_is(lines, nl, 4, want), "vtk: \"%s\" (got \"%s\")", want, nl > 4 ? lines[4] : "");
  size_t at = 5;
  vtk_section(lines, nl, &at, f->n, 3, f->x, "POINTS");
  snprintf(want, sizeof want, "VERTICES %zu %zu", f->n, 2 * f->n);
  bg_check_true(line_is(lines, nl, at, want), "vtk: \"%s\" after the points", want);
  at++;
  int verts_ok = 1;
  for (size_t p = 0; p < f->n; ++p, ++at) {
    char w[64];
    snprintf(w, sizeof w, "1 %zu", p);
    verts_ok &= line_is(lines, nl, at, w);
  }
  bg_check_true(verts_ok, "vtk: %zu vertex cells \"1 i\" in order", f->n);
  snprintf(want, sizeof want, "POINT_DATA %zu", f->n);
  bg_check_true(line_is(lines, nl, at, want), "vtk: \"%s\"", want);
  at++;
  bg_check_true(line_is(lines, nl, at, "VECTORS velocity float"), "vtk: velocity section present");
  at++;
  vtk_section(lines, nl, &at, f->n, 3, f->v, "velocity");
  bg_check_true(line_is(lines, nl, at, "SCALARS density float 1") &&
                    line_is(lines, nl, at + 1, "LOOKUP_TABLE default"),
                "vtk: density section present (SCALARS + LOOKUP_TABLE)");
  at += 2;
  vtk_section(lines, nl, &at, f->n, 1, f->rho, "density");
  bg_check_true(line_is(lines, nl, at, "SCALARS Jp float 1") && line_is(lines, nl, at + 1, "LOOKUP_TABLE default"),
                "vtk: Jp section present (SCALARS + LOOKUP_TABLE)");
  at += 2;
  vtk_section(lines, nl, &at, f->n, 1, f->jp, "Jp");
  bg_check_true(at == nl, "vtk: nothing after the Jp section (%zu lines, ended at %zu)", nl, at);
  free(lines);
  free(buf);
}

static float f32le(const unsigned char *b) {
  uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  float x;
  memcpy(&x, &u, 4);
  return x;
}

static void check_ply(const char *path, const fields *f) {
  size_t len = 0;
  char *buf = slurp(path, &len);
  bg_check_true(buf != NULL && len > 0, "ply: %s re-read (%zu bytes)", path, len);
  if (!buf) return;
  const char *endh = "end_header\n";
  char *e = NULL;
  /* the header is text; search only its plausible extent */
  for (size_t i = 0; i + strlen(endh) <= len && i < 4096; ++i)
    if (memcmp(buf + i, endh, strlen(endh)) == 0 && (i == 0 || buf[i - 1] == '\n')) {
      e = buf + i;
      break;
    }
  bg_check_true(e != NULL, "ply: header ends with end_header");
  if (!e) {
    free(buf);
    return;
  }
  size_t hlen = (size_t)(e - buf) + strlen(endh);
  char *hdr = malloc(hlen + 1);
  memcpy(hdr, buf, hlen);
  hdr[hlen] = 0;
  char *lines[64];
  size_t nl = split_lines(hdr, lines, 64);
  bg_check_true(line_is(lines, nl, 0, "ply"), "ply: magic line \"ply\"");
  bg_check_true(line_is(lines, nl, 1, "format binary_little_endian 1.0"), "ply: format binary_little_endian 1.0");
  const char *props[8] = {"x", "y", "z", "vx", "vy", "vz", "density", "jp"};
  size_t n_vertex = (size_t)-1;
  int n_elements = 0, n_props = 0, props_in_order = 1, other = 0;
  for (size_t i = 2; i < nl; ++i) {
    const char *l = lines[i];
    if (strncmp(l, "comment", 7) == 0) continue;
    if (strncmp(l, "element ", 8) == 0) {
      n_elements++;
      unsigned long long nv;
      if (sscanf(l, "element vertex %llu", &nv) == 1) n_vertex = (size_t)nv;
      continue;
    }
    if (strncmp(l, "property float ", 15) == 0) {
      if (n_props >= 8 || strcmp(l + 15, props[n_props]) != 0) props_in_order = 0;
      n_props++;
      continue;
    }
    if (strcmp(l, "end_header") == 0) continue;
    other++;
  }
  bg_check_true(n_elements == 1 && n_vertex == f->n, "ply: one element, \"element vertex %zu\" (got %zu)", f->n,
                n_vertex);
  bg_check_true(n_props == 8 && props_in_order, "ply: 8 float properties x y z vx vy vz density jp (got %d)",
                n_props);
  bg_check_true(other == 0, "ply: no unexpected header lines (%d)", other);
  size_t payload = len - hlen;
  bg_check_true(payload == f->n * 8 * 4, "ply: binary payload = n * 8 * 4 = %zu bytes (got %zu)", f->n * 32,
                payload);
  if (payload == f->n * 32) {
    const unsigned char *b = (const unsigned char *)buf + hlen;
    if (f->n > 0) {
      float x0 = f32le(b);
      bg_check_true(memcmp(&x0, &f->x[0], 4) == 0, "ply: first particle's x bit-identical to bg_sim_get (%.9g vs %.9g)",
                    (double)x0, (double)f->x[0]);
    }
    size_t mismatch = 0;
    for (size_t p = 0; p < f->n; ++p) {
      const unsigned char *r = b + 32 * p;
      bg_real want[8] = {f->x[3 * p], f->x[3 * p + 1], f->x[3 * p + 2], f->v[3 * p], f->v[3 * p + 1],
                         f->v[3 * p + 2], f->rho[p], f->jp[p]};
      for (int k = 0; k < 8; ++k) {
        float got = f32le(r + 4 * k);
        if (memcmp(&got, &want[k], 4) != 0) mismatch++;
      }
    }
    bg_check_true(mismatch == 0, "ply: all %zu values bit-identical to bg_sim_get (%zu differ)", 8 * f->n, mismatch);
  }
  free(hdr);
  free(buf);
}

static const char *g_backend = "auto";

static bg_sim *make_sim(void) {
  bg_sim_desc d = bg_sim_desc_default();
  d.dims[0] = d.dims[1] = d.dims[2] = 16;
  d.dx = 0.01f;
  d.backend = g_backend;
  bg_sim *sim = NULL;
  char err[256] = "";
  bg_status s = bg_sim_create(&d, &sim, err, sizeof err);
  bg_check_true(s == BG_OK && sim, "create a 16^3 sim on %s (%s: %s)", g_backend, bg_status_name(s), err);
  return sim;
}

static void load(bg_sim *sim, fields *f) {
  bg_stats st;
  memset(&st, 0, sizeof st);
  bg_sim_stats(sim, &st);
  f->n = st.n_particles;
  bg_status s = BG_OK;
  if (f->n) {
    s = bg_sim_get(sim, BG_FIELD_X, f->x, 3 * NP);
    if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_V, f->v, 3 * NP);
    if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_DENSITY, f->rho, NP);
    if (s == BG_OK) s = bg_sim_get(sim, BG_FIELD_JP, f->jp, NP);
  }
  bg_check_true(s == BG_OK, "read back %zu particles' x, v, density, Jp", f->n);
}

int main(int argc, char **argv) {
  g_backend = argc > 1 ? argv[1] : "auto";
  char why[256];
  if (!bg_backend_available(g_backend, why, sizeof why)) {
    printf("SKIP: backend \"%s\" unavailable: %s\n", g_backend, why);
    return BG_CHECK_SKIP;
  }
  char dir[] = "/tmp/bagnold_test_io_XXXXXX";
  if (!mkdtemp(dir)) {
    bg_check_true(0, "mkdtemp under /tmp");
    return bg_check_summary();
  }
  char vtk[512], ply[512], vtk0[512], ply0[512], missing[512], missing_ply[512];
  snprintf(vtk, sizeof vtk, "%s/particles.vtk", dir);
  snprintf(ply, sizeof ply, "%s/particles.ply", dir);
  snprintf(vtk0, sizeof vtk0, "%s/empty.vtk", dir);
  snprintf(ply0, sizeof ply0, "%s/empty.ply", dir);
  snprintf(missing, sizeof missing, "%s/no_such_dir/particles.vtk", dir);
  snprintf(missing_ply, sizeof missing_ply, "%s/no_such_dir/particles.ply", dir);

  bg_sim *sim = make_sim();
  if (!sim) return bg_check_summary();

  /* empty sim first: headers with zero counts */
  {
    static fields f0;
    f0.n = 0;
    bg_check_true(bg_sim_write_vtk(sim, vtk0) == BG_OK, "write vtk with 0 particles");
    bg_check_true(bg_sim_write_ply(sim, ply0) == BG_OK, "write ply with 0 particles");
    check_vtk(vtk0, &f0);
    check_ply(ply0, &f0);
  }

  /* 100 particles, 5 x 5 x 4 at half-cell spacing, with a velocity field */
  bg_real x[3 * NP], v[3 * NP];
  for (int p = 0; p < NP; ++p) {
    int i = p % 5, j = (p / 5) % 5, k = p / 25;
    x[3 * p + 0] = 0.05f + 0.005f * (bg_real)i;
    x[3 * p + 1] = 0.05f + 0.005f * (bg_real)j;
    x[3 * p + 2] = 0.04f + 0.005f * (bg_real)k;
    v[3 * p + 0] = 0.1f + 0.02f * (bg_real)i;
    v[3 * p + 1] = -0.05f * (bg_real)j;
    v[3 * p + 2] = 0.03f * (bg_real)(k - 2);
  }
  bg_status s = bg_sim_add_particles(sim, NP, x, v, 8);
  bg_check_true(s == BG_OK, "add %d particles (%s)", NP, bg_status_name(s));
  s = bg_sim_run(sim, 4);
  bg_check_true(s == BG_OK, "run 4 steps (%s)", bg_status_name(s));

  static fields f;
  load(sim, &f);
  bg_check_true(f.n == NP, "sim holds %d particles", NP);

  s = bg_sim_write_vtk(sim, vtk);
  bg_check_true(s == BG_OK, "write vtk to %s (%s: %s)", vtk, bg_status_name(s), bg_sim_last_error(sim));
  s = bg_sim_write_ply(sim, ply);
  bg_check_true(s == BG_OK, "write ply to %s (%s: %s)", ply, bg_status_name(s), bg_sim_last_error(sim));
  check_vtk(vtk, &f);
  check_ply(ply, &f);

  /* writing does not change the simulation */
  static fields g;
  load(sim, &g);
  bg_check_true(memcmp(&f, &g, sizeof f) == 0, "writing leaves the particle state unchanged");

  /* errors */
  s = bg_sim_write_vtk(sim, missing);
  bg_check_true(s == BG_ERR_IO, "vtk into a missing directory: BG_ERR_IO (got %s)", bg_status_name(s));
  bg_check_true(strstr(bg_sim_last_error(sim), missing) != NULL, "vtk error names the path: \"%s\"",
                bg_sim_last_error(sim));
  s = bg_sim_write_ply(sim, missing_ply);
  bg_check_true(s == BG_ERR_IO, "ply into a missing directory: BG_ERR_IO (got %s)", bg_status_name(s));
  bg_check_true(strstr(bg_sim_last_error(sim), missing_ply) != NULL, "ply error names the path: \"%s\"",
                bg_sim_last_error(sim));
  bg_check_true(access(missing, F_OK) != 0 && access(missing_ply, F_OK) != 0, "no file appeared for the failed writes");
  s = bg_sim_write_vtk(sim, NULL);
  bg_check_true(s == BG_ERR_NULL, "vtk with path NULL: BG_ERR_NULL (got %s)", bg_status_name(s));
  s = bg_sim_write_ply(sim, NULL);
  bg_check_true(s == BG_ERR_NULL, "ply with path NULL: BG_ERR_NULL (got %s)", bg_status_name(s));
  bg_check_true(bg_sim_write_vtk(NULL, vtk) == BG_ERR_NULL && bg_sim_write_ply(NULL, ply) == BG_ERR_NULL,
                "writers with sim NULL: BG_ERR_NULL");

  /* TSV series: header names every column, one row per call, values exact
   * at %.9g; the per-step series agrees with bg_sim_stats */
  char tsv[512];
  snprintf(tsv, sizeof tsv, "%s/series.tsv", dir);
  {
    bg_series *ser = NULL;
    s = bg_sim_series_open(tsv, "test series", &ser);
    bg_check_true(s == BG_OK && ser, "open the per-step series (%s)", bg_status_name(s));
    for (int k = 0; k < 3 && ser; ++k) {
      bg_sim_run(sim, 1);
      bg_check_true(bg_sim_series_row(sim, ser) == BG_OK, "series row %d", k);
    }
    bg_check_true(bg_series_close(ser) == BG_OK, "close the series");
    bg_stats st;
    bg_sim_stats(sim, &st);
    FILE *fp = fopen(tsv, "r");
    char line[1024];
    int rows = 0;
    double last[8] = {0};
    int header = 0, comments = 0, lineno = 0;
    while (fp && fgets(line, sizeof line, fp)) {
      ++lineno;
      if (line[0] == '#') {
        comments++;
        continue;
      }
      if (lineno == 2) {
        /* the header is plain (gnuplot columnheader, pandas comment='#') */
        header = strncmp(line, "step\tt_s\tdt_s\t", strlen("step\tt_s\tdt_s\t")) == 0 && strstr(line, "kinetic_energy_J") != NULL;
        continue;
      }
      rows++;
      parse_floats(line, last, 8);
    }
    if (fp) fclose(fp);
    bg_check_true(comments == 1, "series has one '#' comment line (got %d)", comments);
    bg_check_true(header, "series line 2 is a plain header naming the columns with units");
    bg_check_true(rows == 3, "series has 3 rows (got %d)", rows);
    bg_check_abs(last[0], (double)st.step, 0, "last row's step equals bg_sim_stats");
    bg_check_rel(last[1], st.time, 1e-8, "last row's time equals bg_sim_stats");
    bg_check_abs(last[3], (double)st.n_active, 0, "last row's active count");
    bg_check_true(last[6] > 0, "kinetic energy positive for moving particles (%g J)", last[6]);
    const char *cols[] = {"a_m"};
    bg_series *bad = NULL;
    bg_check_true(bg_series_open(missing, NULL, cols, 1, &bad) == BG_ERR_IO && !bad,
                  "series into a missing directory: BG_ERR_IO");
    bg_check_true(bg_series_open(tsv, NULL, cols, 0, &bad) == BG_ERR_RANGE, "series with 0 columns: BG_ERR_RANGE");
    bg_series *one = NULL;
    double val[2] = {1, 2};
    bg_series_open(tsv, NULL, cols, 1, &one);
    bg_check_true(bg_series_row(one, val, 2) == BG_ERR_RANGE, "row with the wrong column count: BG_ERR_RANGE");
    bg_series_close(one);
  }

  bg_sim_destroy(sim);
  unlink(tsv);
  unlink(vtk);
  unlink(ply);
  unlink(vtk0);
  unlink(ply0);
  bg_check_true(rmdir(dir) == 0, "temp dir %s removed (nothing else was left in it)", dir);
  return bg_check_summary();
}
