/* ply.c: PLY point clouds as particle positions (bagnold.h, "meshes"):
 * the vertex element's x, y and z, ascii or binary little-endian, every
 * value checked before the call returns. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bagnold.h"
#include "mesh_internal.h"

/* ------------------------------------------------------------ PLY points */

typedef struct ply_prop {
  char name[64];
  int size;  /* bytes in binary */
  char kind; /* 'i' signed, 'u' unsigned, 'f' float */
} ply_prop;

static int ply_type(const char *s, int *size, char *kind) {
  static const struct {
    const char *n;
    int size;
    char kind;
  } types[] = {{"char", 1, 'i'},  {"int8", 1, 'i'},    {"uchar", 1, 'u'},  {"uint8", 1, 'u'},
               {"short", 2, 'i'}, {"int16", 2, 'i'},   {"ushort", 2, 'u'}, {"uint16", 2, 'u'},
               {"int", 4, 'i'},   {"int32", 4, 'i'},   {"uint", 4, 'u'},   {"uint32", 4, 'u'},
               {"float", 4, 'f'}, {"float32", 4, 'f'}, {"double", 8, 'f'}, {"float64", 8, 'f'}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
    if (!strcmp(s, types[i].n)) {
      *size = types[i].size;
      *kind = types[i].kind;
      return 1;
    }
  return 0;
}

static double le_value(const unsigned char *b, const ply_prop *p) {
  uint64_t u = 0;
  for (int k = 0; k < p->size; ++k) u |= (uint64_t)b[k] << (8 * k);
  if (p->kind == 'f') {
    if (p->size == 4) {
      uint32_t w = (uint32_t)u;
      float f;
      memcpy(&f, &w, sizeof f);
      return f;
    }
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
  }
  if (p->kind == 'u') return (double)u;
  int bits = 8 * p->size; /* sign-extend */
  int64_t s = (int64_t)(u << (64 - bits)) >> (64 - bits);
  return (double)s;
}

bg_status bg_ply_read_points(const char *path, bg_real **x, size_t *n, char *err, size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!path || !x || !n)
    return bg_mesh_fail_(err, err_len, BG_ERR_NULL,
                         "bg_ply_read_points: path, x and n must not be NULL");
  *x = NULL;
  *n = 0;
  char *buf;
  size_t len;
  BG_MESH_TRY(bg_mesh_slurp_(path, &buf, &len, err, err_len));
  bg_mesh_cursor c = {buf, 1};
  char tok[256];
  bg_status st = BG_OK;
  int binary = -1, in_vertex = 0, seen_vertex = 0;
  size_t nvert = 0, np = 0, skip_before = 0;
  ply_prop props[64];
  int ix[3] = {-1, -1, -1};
#define PFAIL(S, ...)                                 \
  do {                                                \
    st = bg_mesh_fail_(err, err_len, S, __VA_ARGS__); \
    goto done;                                        \
  } while (0)
  if (!bg_mesh_line_token_(&c, tok, sizeof tok) || strcmp(tok, "ply"))
    PFAIL(BG_ERR_CORRUPT, "%s: line 1: not a PLY file (no 'ply' line)", path);
  bg_mesh_next_line_(&c);
  for (;;) {
    if (!*c.s)
      PFAIL(BG_ERR_TRUNCATED, "%s: line %zu: the header ends before 'end_header'", path, c.line);
    if (!bg_mesh_line_token_(&c, tok, sizeof tok)) {
      bg_mesh_next_line_(&c);
      continue;
    }
    if (!strcmp(tok, "end_header")) {
      bg_mesh_next_line_(&c);
      break;
    }
    if (!strcmp(tok, "format")) {
      bg_mesh_line_token_(&c, tok, sizeof tok);
      if (!strcmp(tok, "ascii"))
        binary = 0;
      else if (!strcmp(tok, "binary_little_endian"))
        binary = 1;
      else
        PFAIL(BG_ERR_RANGE, "%s: line %zu: format '%s' is not read (ascii or binary_little_endian)",
              path, c.line, tok);
    } else if (!strcmp(tok, "element")) {
      char name[64];
      double cnt;
      if (!bg_mesh_line_token_(&c, name, sizeof name) ||
          !bg_mesh_line_token_(&c, tok, sizeof tok) || !bg_mesh_tok_number_(tok, &cnt) || cnt < 0 ||
          cnt != floor(cnt) || cnt > 4e18)
        PFAIL(BG_ERR_CORRUPT, "%s: line %zu: an element needs a name and a count", path, c.line);
      in_vertex = !strcmp(name, "vertex");
      if (in_vertex) {
        seen_vertex = 1;
        nvert = (size_t)cnt;
      } else if (!seen_vertex && cnt > 0) {
        /* an element before the vertices would have to be skipped line by line */
        if (binary != 0)
          PFAIL(BG_ERR_RANGE,
                "%s: line %zu: element '%s' comes before 'vertex' in a binary file: not read", path,
                c.line, name);
        skip_before += (size_t)cnt;
      }
    } else if (!strcmp(tok, "property") && in_vertex) {
      char type[64];
      if (!bg_mesh_line_token_(&c, type, sizeof type))
        PFAIL(BG_ERR_CORRUPT, "%s: line %zu: a property needs a type and a name", path, c.line);
      if (!strcmp(type, "list"))
        PFAIL(BG_ERR_RANGE, "%s: line %zu: a list property of the vertices is not read", path,
              c.line);
      if (np == sizeof props / sizeof props[0])
        PFAIL(BG_ERR_RANGE, "%s: line %zu: more than 64 vertex properties", path, c.line);
      ply_prop *p = &props[np];
      if (!ply_type(type, &p->size, &p->kind))
        PFAIL(BG_ERR_CORRUPT, "%s: line %zu: unknown property type '%s'", path, c.line, type);
      if (!bg_mesh_line_token_(&c, p->name, sizeof p->name))
        PFAIL(BG_ERR_CORRUPT, "%s: line %zu: a property needs a name", path, c.line);
      for (int a = 0; a < 3; ++a)
        if (!strcmp(p->name, (const char *[]){"x", "y", "z"}[a])) ix[a] = (int)np;
      np++;
    }
    bg_mesh_next_line_(&c);
  }
  if (binary < 0) PFAIL(BG_ERR_CORRUPT, "%s: the header has no 'format' line", path);
  if (!seen_vertex) PFAIL(BG_ERR_CORRUPT, "%s: the header declares no 'vertex' element", path);
  if (ix[0] < 0 || ix[1] < 0 || ix[2] < 0)
    PFAIL(BG_ERR_CORRUPT, "%s: the vertex element lacks a%s%s%s property", path,
          ix[0] < 0 ? " x" : "", ix[1] < 0 ? " y" : "", ix[2] < 0 ? " z" : "");
  if (nvert == 0) PFAIL(BG_ERR_CORRUPT, "%s: the file declares no vertices", path);
  if (nvert > SIZE_MAX / (3 * sizeof(bg_real)))
    PFAIL(BG_ERR_OVERFLOW, "%s: %zu vertices overflow memory", path, nvert);
  *x = malloc(3 * nvert * sizeof **x);
  if (!*x) PFAIL(BG_ERR_NOMEM, "%s: out of memory for %zu points", path, nvert);
  if (binary) {
    size_t rec = 0, off = (size_t)(c.s - buf);
    for (size_t k = 0; k < np; ++k) rec += (size_t)props[k].size;
    for (size_t i = 0; i < nvert; ++i) {
      if (off + rec > len)
        PFAIL(BG_ERR_TRUNCATED, "%s: the file ends inside vertex %zu of %zu (%zu bytes each)", path,
              i + 1, nvert, rec);
      const unsigned char *r = (const unsigned char *)buf + off;
      for (int a = 0; a < 3; ++a) {
        size_t at = 0;
        for (int k = 0; k < ix[a]; ++k) at += (size_t)props[k].size;
        double val = le_value(r + at, &props[ix[a]]);
        if (!isfinite(val) || !isfinite((bg_real)val))
          PFAIL(BG_ERR_NONFINITE, "%s: vertex %zu: coordinate %c is not finite", path, i + 1,
                "xyz"[a]);
        (*x)[3 * i + a] = (bg_real)val;
      }
      off += rec;
    }
  } else {
    for (size_t i = 0; i < skip_before; ++i) bg_mesh_next_line_(&c);
    for (size_t i = 0; i < nvert; ++i) {
      int got = 0;
      while (*c.s && !(got = bg_mesh_line_token_(&c, tok, sizeof tok)))
        bg_mesh_next_line_(&c); /* blank lines */
      if (!got)
        PFAIL(BG_ERR_TRUNCATED, "%s: line %zu: the file ends before vertex %zu of %zu", path,
              c.line, i + 1, nvert);
      size_t k = 0;
      double vals[64];
      do {
        if (k >= np)
          PFAIL(BG_ERR_CORRUPT, "%s: line %zu: vertex %zu has more than its %zu properties", path,
                c.line, i + 1, np);
        if (!bg_mesh_tok_number_(tok, &vals[k]))
          PFAIL(BG_ERR_CORRUPT, "%s: line %zu: vertex %zu: '%s' is not a number", path, c.line,
                i + 1, tok);
        k++;
      } while (bg_mesh_line_token_(&c, tok, sizeof tok));
      if (k < np)
        PFAIL(BG_ERR_TRUNCATED, "%s: line %zu: vertex %zu has %zu of its %zu properties", path,
              c.line, i + 1, k, np);
      for (int a = 0; a < 3; ++a) {
        double val = vals[ix[a]];
        if (!isfinite(val) || !isfinite((bg_real)val))
          PFAIL(BG_ERR_NONFINITE, "%s: line %zu: vertex %zu: coordinate %c is not finite", path,
                c.line, i + 1, "xyz"[a]);
        (*x)[3 * i + a] = (bg_real)val;
      }
      bg_mesh_next_line_(&c);
    }
  }
  *n = nvert;
done:
#undef PFAIL
  free(buf);
  if (st != BG_OK) {
    free(*x);
    *x = NULL;
  }
  return st;
}
