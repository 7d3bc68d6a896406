/* io.c: particle output for people: legacy VTK polydata for ParaView and
 * binary little-endian PLY for Blender, each carrying position, velocity,
 * density and Jp. Written from bg_sim_get, so every backend gets it. */
#define _POSIX_C_SOURCE 200809L /* fsync, fileno */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bg_internal.h"

int bg_out_open(bg_out *o, const char *path, const char *mode) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(path);
  o->path = malloc(n + 1);
  o->tmp = malloc(n + 5);
  if (!o->path || !o->tmp) {
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    errno = ENOMEM;
    return -1;
  }
  memcpy(o->path, path, n + 1);
  memcpy(o->tmp, path, n);
  memcpy(o->tmp + n, ".tmp", 5);
  o->fp = fopen(o->tmp, mode);
  if (!o->fp) {
    int e = errno;
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    errno = e;
    return -1;
  }
  return 0;
}

int bg_out_commit(bg_out *o, int sync, int write_err) {
  int err = write_err;
  if (!err && ferror(o->fp)) err = errno ? errno : EIO;
  if (!err && fflush(o->fp) != 0) err = errno;
  /* the data must be on disk before the rename makes it the file */
  if (!err && sync && fsync(fileno(o->fp)) != 0) err = errno;
  if (fclose(o->fp) != 0 && !err) err = errno;
  if (!err && rename(o->tmp, o->path) != 0) err = errno;
  if (err) remove(o->tmp);
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
  return err;
}

void bg_out_abort(bg_out *o) {
  if (o->fp) fclose(o->fp);
  if (o->tmp) remove(o->tmp);
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}

/* Opens PATH.tmp for a particle file; the message names the file. */
static bg_status open_out(bg_sim *sim, bg_out *o, const char *path, const char *mode) {
  if (bg_out_open(o, path, mode) != 0)
    return bg_fail(sim, BG_ERR_IO, "cannot open %s.tmp for writing: %s", path, strerror(errno));
  return BG_OK;
}

static bg_status commit_out(bg_sim *sim, bg_out *o) {
  char path[4096];
  snprintf(path, sizeof path, "%s", o->path);
  int e = bg_out_commit(o, 0, 0);
  return e ? bg_fail(sim, BG_ERR_IO, "writing %s failed: %s", path, strerror(e)) : BG_OK;
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
  bg_out o;
  if ((s = open_out(sim, &o, path, "w")) != BG_OK) {
    fields_free(&f);
    return s;
  }
  FILE *fp = o.fp;
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
  return commit_out(sim, &o);
}

int bg_host_little_endian(void) {
  uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static void put_f32le(FILE *fp, float x) {
  unsigned char b[4];
  memcpy(b, &x, 4);
  if (!bg_host_little_endian()) {
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
  bg_out o;
  if ((s = open_out(sim, &o, path, "wb")) != BG_OK) {
    fields_free(&f);
    return s;
  }
  FILE *fp = o.fp;
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
  return commit_out(sim, &o);
}
