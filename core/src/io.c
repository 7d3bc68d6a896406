/* io.c: particle output for people: legacy VTK polydata for ParaView and
 * binary little-endian PLY for Blender, each carrying position, velocity,
 * density and Jp. Written from bg_sim_get, so every backend gets it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

/* Particle files are written under PATH.tmp and renamed when complete, so
 * a file under its own name is never a truncated one. */
static FILE *open_tmp(bg_sim *sim, const char *path, const char *mode, char *tmp, size_t n, bg_status *st) {
  if ((size_t)snprintf(tmp, n, "%s.tmp", path) >= n) {
    *st = bg_fail(sim, BG_ERR_RANGE, "path %s is too long", path);
    return NULL;
  }
  FILE *fp = fopen(tmp, mode);
  if (!fp) *st = bg_fail(sim, BG_ERR_IO, "cannot open %s for writing: %s", tmp, strerror(errno));
  return fp;
}

static bg_status close_tmp(bg_sim *sim, FILE *fp, const char *tmp, const char *path) {
  int bad = ferror(fp), e = errno;
  if (fclose(fp) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    remove(tmp);
    return bg_fail(sim, BG_ERR_IO, "writing %s failed: %s", path, strerror(e));
  }
  if (rename(tmp, path) != 0) return bg_fail(sim, BG_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
  return BG_OK;
}

typedef struct fields {
  size_t n;
  bg_real *x, *v, *rho, *jp;
} fields;

static void fields_free(fields *f) {
  free(f->x);
  free(f->v);
  free(f->rho);
  free(f->jp);
}

static bg_status fields_load(bg_sim *sim, fields *f) {
  memset(f, 0, sizeof *f);
  f->n = sim->ops->count(sim->state);
  size_t n = f->n ? f->n : 1;
  f->x = malloc(3 * n * sizeof *f->x);
  f->v = malloc(3 * n * sizeof *f->v);
  f->rho = malloc(n * sizeof *f->rho);
  f->jp = malloc(n * sizeof *f->jp);
  if (!f->x || !f->v || !f->rho || !f->jp) {
    fields_free(f);
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory reading %zu particles for output", f->n);
  }
  bg_status s;
  if ((s = bg_sim_get(sim, BG_FIELD_X, f->x, 3 * n)) != BG_OK ||
      (s = bg_sim_get(sim, BG_FIELD_V, f->v, 3 * n)) != BG_OK ||
      (s = bg_sim_get(sim, BG_FIELD_DENSITY, f->rho, n)) != BG_OK ||
      (s = bg_sim_get(sim, BG_FIELD_JP, f->jp, n)) != BG_OK) {
    fields_free(f);
    return s;
  }
  return BG_OK;
}

/* Legacy VTK wants big-endian binary; ASCII keeps the writer simple and the
 * file readable, at a size cost that matters only for huge runs. */
bg_status bg_sim_write_vtk(bg_sim *sim, const char *path) {
  if (!sim) return BG_ERR_NULL;
  if (!path) return bg_fail(sim, BG_ERR_NULL, "path is NULL");
  fields f;
  bg_status s = fields_load(sim, &f);
  if (s != BG_OK) return s;
  char tmp[4096];
  FILE *fp = open_tmp(sim, path, "w", tmp, sizeof tmp, &s);
  if (!fp) {
    fields_free(&f);
    return s;
  }
  fprintf(fp, "# vtk DataFile Version 3.0\nbagnold particles\nASCII\nDATASET POLYDATA\n");
  fprintf(fp, "POINTS %zu float\n", f.n);
  for (size_t p = 0; p < f.n; ++p)
    fprintf(fp, "%.9g %.9g %.9g\n", f.x[3 * p], f.x[3 * p + 1], f.x[3 * p + 2]);
  fprintf(fp, "VERTICES %zu %zu\n", f.n, 2 * f.n);
  for (size_t p = 0; p < f.n; ++p) fprintf(fp, "1 %zu\n", p);
  fprintf(fp, "POINT_DATA %zu\nVECTORS velocity float\n", f.n);
  for (size_t p = 0; p < f.n; ++p)
    fprintf(fp, "%.9g %.9g %.9g\n", f.v[3 * p], f.v[3 * p + 1], f.v[3 * p + 2]);
  fprintf(fp, "SCALARS density float 1\nLOOKUP_TABLE default\n");
  for (size_t p = 0; p < f.n; ++p) fprintf(fp, "%.9g\n", f.rho[p]);
  fprintf(fp, "SCALARS Jp float 1\nLOOKUP_TABLE default\n");
  for (size_t p = 0; p < f.n; ++p) fprintf(fp, "%.9g\n", f.jp[p]);
  fields_free(&f);
  return close_tmp(sim, fp, tmp, path);
}

static int host_little_endian(void) {
  uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static void put_f32le(FILE *fp, float x) {
  unsigned char b[4];
  memcpy(b, &x, 4);
  if (!host_little_endian()) {
    unsigned char t = b[0];
    b[0] = b[3];
    b[3] = t;
    t = b[1];
    b[1] = b[2];
    b[2] = t;
  }
  fwrite(b, 1, 4, fp);
}

bg_status bg_sim_write_ply(bg_sim *sim, const char *path) {
  if (!sim) return BG_ERR_NULL;
  if (!path) return bg_fail(sim, BG_ERR_NULL, "path is NULL");
  fields f;
  bg_status s = fields_load(sim, &f);
  if (s != BG_OK) return s;
  char tmp[4096];
  FILE *fp = open_tmp(sim, path, "wb", tmp, sizeof tmp, &s);
  if (!fp) {
    fields_free(&f);
    return s;
  }
  fprintf(fp,
          "ply\nformat binary_little_endian 1.0\ncomment bagnold particles (SI units)\n"
          "element vertex %zu\nproperty float x\nproperty float y\nproperty float z\n"
          "property float vx\nproperty float vy\nproperty float vz\n"
          "property float density\nproperty float jp\nend_header\n",
          f.n);
  for (size_t p = 0; p < f.n; ++p) {
    for (int d = 0; d < 3; ++d) put_f32le(fp, f.x[3 * p + d]);
    for (int d = 0; d < 3; ++d) put_f32le(fp, f.v[3 * p + d]);
    put_f32le(fp, f.rho[p]);
    put_f32le(fp, f.jp[p]);
  }
  fields_free(&f);
  return close_tmp(sim, fp, tmp, path);
}
