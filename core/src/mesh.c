/* mesh.c: triangle meshes (OBJ, ASCII and binary STL) read from files
 * (bagnold.h, "meshes"), and the text helpers ply.c shares. Every reader
 * checks all of its input before it returns: tokens, indices, lengths,
 * finite coordinates, then the surface's topology (every edge shared by
 * exactly two triangles that run it in opposite directions), so that a bad
 * file fails at once with the file, the place and the problem named, and
 * never after a long distance computation. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bagnold.h"
#include "mesh_internal.h"

#define MESH_MAX_ITEMS 0x7fffffffu /* indices are 32-bit */

bg_status bg_mesh_fail_(char *err, size_t err_len, bg_status s, const char *fmt, ...) {
  if (err && err_len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
  }
  return s;
}

/* ------------------------------------------------------------ file bytes */

/* The whole file, NUL-terminated (text parsers stop on it). */
bg_status bg_mesh_slurp_(const char *path, char **buf, size_t *len, char *err, size_t err_len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return bg_mesh_fail_(err, err_len, BG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap + 1);
  while (b) {
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *nb = cap < SIZE_MAX / 4 ? realloc(b, 2 * cap + 1) : NULL;
    if (!nb) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!b)
    return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory reading the file", path);
  if (bad) {
    free(b);
    return bg_mesh_fail_(err, err_len, BG_ERR_IO, "%s: read error", path);
  }
  b[n] = 0;
  *buf = b;
  *len = n;
  return BG_OK;
}

/* -------------------------------------------------------- growing arrays */

typedef struct darr {
  double *p;
  size_t n, cap;
} darr;
typedef struct uarr {
  uint32_t *p;
  size_t n, cap;
} uarr;

static int dpush(darr *a, double x) {
  if (a->n == a->cap) {
    size_t c = a->cap ? 2 * a->cap : 1024;
    double *p = realloc(a->p, c * sizeof *p);
    if (!p) return -1;
    a->p = p;
    a->cap = c;
  }
  a->p[a->n++] = x;
  return 0;
}
static int upush(uarr *a, uint32_t x) {
  if (a->n == a->cap) {
    size_t c = a->cap ? 2 * a->cap : 1024;
    uint32_t *p = realloc(a->p, c * sizeof *p);
    if (!p) return -1;
    a->p = p;
    a->cap = c;
  }
  a->p[a->n++] = x;
  return 0;
}

/* ------------------------------------------------------------- tokens */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* the next token of this line into tok (len < cap); 0 at the line's end */
int bg_mesh_line_token_(bg_mesh_cursor *c, char *tok, size_t cap) {
  while (is_blank(*c->s)) c->s++;
  if (!*c->s || *c->s == '\n') return 0;
  size_t n = 0;
  while (*c->s && *c->s != '\n' && !is_blank(*c->s)) {
    if (n + 1 < cap) tok[n++] = *c->s;
    c->s++;
  }
  tok[n] = 0;
  return 1;
}
void bg_mesh_next_line_(bg_mesh_cursor *c) {
  while (*c->s && *c->s != '\n') c->s++;
  if (*c->s == '\n') {
    c->s++;
    c->line++;
  }
}
/* the next token across lines; 0 at the end of the text */
static int any_token(bg_mesh_cursor *c, char *tok, size_t cap) {
  for (;;) {
    if (bg_mesh_line_token_(c, tok, cap)) return 1;
    if (!*c->s) return 0;
    bg_mesh_next_line_(c);
  }
}
/* a whole token read as a number; 0 if it is not one */
int bg_mesh_tok_number_(const char *tok, double *x) {
  char *end;
  errno = 0;
  *x = strtod(tok, &end);
  return end != tok && *end == 0;
}

/* --------------------------------------------------------------- OBJ */

static bg_status read_obj(const char *path, const char *text, darr *v, uarr *t, uarr *tline,
                          char *err, size_t err_len) {
  bg_mesh_cursor c = {text, 1};
  char tok[256];
  while (*c.s) {
    if (!bg_mesh_line_token_(&c, tok, sizeof tok) || tok[0] == '#') {
      bg_mesh_next_line_(&c);
      continue;
    }
    if (!strcmp(tok, "v")) {
      double x[3];
      int k = 0;
      while (bg_mesh_line_token_(&c, tok, sizeof tok)) {
        double val;
        if (!bg_mesh_tok_number_(tok, &val))
          return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                               "%s: line %zu: vertex coordinate '%s' is not a number", path, c.line,
                               tok);
        if (!isfinite(val))
          return bg_mesh_fail_(err, err_len, BG_ERR_NONFINITE,
                               "%s: line %zu: vertex coordinate '%s' is not finite", path, c.line,
                               tok);
        if (k < 3) x[k] = val;
        k++;
      }
      if (k < 3)
        return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                             "%s: line %zu: a vertex needs 3 coordinates, found %d", path, c.line,
                             k);
      if (v->n / 3 >= MESH_MAX_ITEMS)
        return bg_mesh_fail_(err, err_len, BG_ERR_OVERFLOW, "%s: line %zu: more than 2^31 vertices",
                             path, c.line);
      for (int a = 0; a < 3; ++a)
        if (dpush(v, x[a]))
          return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
    } else if (!strcmp(tok, "f")) {
      uint32_t first = 0, prev = 0;
      int k = 0;
      size_t nv = v->n / 3;
      while (bg_mesh_line_token_(&c, tok, sizeof tok)) {
        /* a corner is "v", "v/vt", "v//vn" or "v/vt/vn": the position index leads */
        char *end;
        errno = 0;
        long long idx = strtoll(tok, &end, 10);
        if (end == tok || (*end && *end != '/') || errno)
          return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                               "%s: line %zu: face corner '%s' is not a vertex index", path, c.line,
                               tok);
        long long abs_idx = idx < 0 ? (long long)nv + idx + 1 : idx; /* negative: counted back */
        if (idx == 0 || abs_idx < 1 || abs_idx > (long long)nv)
          return bg_mesh_fail_(
              err, err_len, BG_ERR_RANGE,
              "%s: line %zu: face index %lld is out of range (%zu vertices defined before "
              "this line)",
              path, c.line, idx, nv);
        uint32_t id = (uint32_t)(abs_idx - 1);
        if (k == 0)
          first = id;
        else if (k >= 2) {
          /* a polygon becomes a fan of triangles about its first corner */
          if (upush(t, first) || upush(t, prev) || upush(t, id) || upush(tline, (uint32_t)c.line))
            return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
        }
        prev = id;
        k++;
      }
      if (k < 3)
        return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                             "%s: line %zu: a face needs at least 3 corners, found %d", path,
                             c.line, k);
      if (t->n / 3 >= MESH_MAX_ITEMS)
        return bg_mesh_fail_(err, err_len, BG_ERR_OVERFLOW,
                             "%s: line %zu: more than 2^31 triangles", path, c.line);
    }
    /* every other statement (vt, vn, g, o, s, usemtl, mtllib, l, p) carries
     * nothing a solid's surface needs */
    bg_mesh_next_line_(&c);
  }
  return BG_OK;
}

/* --------------------------------------------------------------- STL */

static bg_status expect_word(const char *path, bg_mesh_cursor *c, const char *want, size_t tri,
                             char *err, size_t err_len) {
  char tok[256];
  if (!any_token(c, tok, sizeof tok))
    return bg_mesh_fail_(err, err_len, BG_ERR_TRUNCATED,
                         "%s: line %zu: the file ends inside facet %zu, before '%s'", path, c->line,
                         tri, want);
  if (strcasecmp(tok, want))
    return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                         "%s: line %zu: facet %zu: expected '%s', found '%s'", path, c->line, tri,
                         want, tok);
  return BG_OK;
}

static bg_status expect_numbers(const char *path, bg_mesh_cursor *c, double *x, size_t tri,
                                const char *what, char *err, size_t err_len) {
  char tok[256];
  for (int a = 0; a < 3; ++a) {
    if (!any_token(c, tok, sizeof tok))
      return bg_mesh_fail_(err, err_len, BG_ERR_TRUNCATED,
                           "%s: line %zu: the file ends inside facet %zu's %s", path, c->line, tri,
                           what);
    if (!bg_mesh_tok_number_(tok, &x[a]))
      return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                           "%s: line %zu: facet %zu: %s coordinate '%s' is not a number", path,
                           c->line, tri, what, tok);
    if (!isfinite(x[a]))
      return bg_mesh_fail_(err, err_len, BG_ERR_NONFINITE,
                           "%s: line %zu: facet %zu: %s coordinate '%s' is not finite", path,
                           c->line, tri, what, tok);
  }
  return BG_OK;
}

/* triangles as 9 raw coordinates each (welded later) */
static bg_status read_stl_ascii(const char *path, const char *text, darr *raw, uarr *tline,
                                char *err, size_t err_len) {
  bg_mesh_cursor c = {text, 1};
  char tok[256];
  any_token(&c, tok, sizeof tok); /* "solid"; its name is the rest of the line */
  bg_mesh_next_line_(&c);
  size_t tri = 0;
  for (;;) {
    if (!any_token(&c, tok, sizeof tok))
      return bg_mesh_fail_(err, err_len, BG_ERR_TRUNCATED,
                           "%s: line %zu: the file ends before 'endsolid'", path, c.line);
    if (!strcasecmp(tok, "endsolid")) {
      bg_mesh_next_line_(&c);
      if (!any_token(&c, tok, sizeof tok)) break;
      if (strcasecmp(tok, "solid"))
        return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT, "%s: line %zu: '%s' after 'endsolid'",
                             path, c.line, tok);
      bg_mesh_next_line_(&c); /* a second solid in the same file */
      continue;
    }
    if (strcasecmp(tok, "facet"))
      return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                           "%s: line %zu: expected 'facet' or 'endsolid', found '%s'", path, c.line,
                           tok);
    ++tri;
    double x[3];
    BG_MESH_TRY(expect_word(path, &c, "normal", tri, err, err_len));
    BG_MESH_TRY(expect_numbers(path, &c, x, tri, "normal", err, err_len));
    BG_MESH_TRY(expect_word(path, &c, "outer", tri, err, err_len));
    BG_MESH_TRY(expect_word(path, &c, "loop", tri, err, err_len));
    size_t line0 = c.line;
    for (int k = 0; k < 3; ++k) {
      BG_MESH_TRY(expect_word(path, &c, "vertex", tri, err, err_len));
      BG_MESH_TRY(expect_numbers(path, &c, x, tri, "vertex", err, err_len));
      for (int a = 0; a < 3; ++a)
        if (dpush(raw, x[a]))
          return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
    }
    BG_MESH_TRY(expect_word(path, &c, "endloop", tri, err, err_len));
    BG_MESH_TRY(expect_word(path, &c, "endfacet", tri, err, err_len));
    if (upush(tline, (uint32_t)line0))
      return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
    if (tri >= MESH_MAX_ITEMS)
      return bg_mesh_fail_(err, err_len, BG_ERR_OVERFLOW, "%s: more than 2^31 facets", path);
  }
  return BG_OK;
}

static float le_float(const unsigned char *b) {
  uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static bg_status read_stl_binary(const char *path, const unsigned char *b, size_t len, darr *raw,
                                 char *err, size_t err_len) {
  if (len < 84)
    return bg_mesh_fail_(
        err, err_len, BG_ERR_TRUNCATED,
        "%s: binary STL of %zu bytes ends inside its 84-byte header (80 bytes, a 32-bit count)",
        path, len);
  uint32_t n =
      (uint32_t)b[80] | (uint32_t)b[81] << 8 | (uint32_t)b[82] << 16 | (uint32_t)b[83] << 24;
  size_t need = 84 + 50 * (size_t)n;
  if (len < need)
    return bg_mesh_fail_(
        err, err_len, BG_ERR_TRUNCATED,
        "%s: binary STL declares %u triangles (%zu bytes) but the file has %zu bytes: it "
        "ends inside "
        "triangle %zu",
        path, n, need, len, (len - 84) / 50 + 1);
  if (len > need)
    return bg_mesh_fail_(
        err, err_len, BG_ERR_CORRUPT,
        "%s: binary STL declares %u triangles (%zu bytes) but the file has %zu bytes", path, n,
        need, len);
  if (n > MESH_MAX_ITEMS)
    return bg_mesh_fail_(err, err_len, BG_ERR_OVERFLOW, "%s: more than 2^31 triangles", path);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char *r = b + 84 + 50 * i + 12; /* the facet normal is recomputed, not read */
    for (int k = 0; k < 9; ++k) {
      double x = le_float(r + 4 * k);
      if (!isfinite(x))
        return bg_mesh_fail_(err, err_len, BG_ERR_NONFINITE,
                             "%s: triangle %zu: vertex %d has a non-finite coordinate", path, i + 1,
                             k / 3 + 1);
      if (dpush(raw, x))
        return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
    }
  }
  return BG_OK;
}

/* ------------------------------------------------------------- welding */

/* a position and where it came from, sorted to find equal positions */
typedef struct wvert {
  double p[3];
  uint32_t from;
} wvert;
static int cmp_wvert(const void *a, const void *b) {
  const wvert *p = a, *q = b;
  for (int k = 0; k < 3; ++k)
    if (p->p[k] != q->p[k]) return p->p[k] < q->p[k] ? -1 : 1;
  return 0;
}

/* Each position once: a surface's topology is a property of where its
 * corners are, and STL repeats every corner (and OBJ files may too). */
static bg_status weld(const char *path, const double *pos, size_t npos, uint32_t *t, size_t nidx,
                      struct bg_mesh *m, char *err, size_t err_len) {
  wvert *w = malloc((npos ? npos : 1) * sizeof *w);
  uint32_t *map = malloc((npos ? npos : 1) * sizeof *map);
  m->v = malloc((npos ? npos : 1) * 3 * sizeof *m->v);
  if (!w || !map || !m->v) {
    free(w);
    free(map);
    return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
  }
  for (size_t i = 0; i < npos; ++i) {
    memcpy(w[i].p, pos + 3 * i, sizeof w[i].p);
    w[i].from = (uint32_t)i;
  }
  qsort(w, npos, sizeof *w, cmp_wvert);
  size_t nu = 0;
  for (size_t i = 0; i < npos; ++i) {
    if (i == 0 || cmp_wvert(&w[i - 1], &w[i])) {
      memcpy(m->v + 3 * nu, w[i].p, 3 * sizeof(double));
      nu++;
    }
    map[w[i].from] = (uint32_t)(nu - 1);
  }
  for (size_t i = 0; i < nidx; ++i) t[i] = map[t[i]];
  m->nv = nu;
  free(w);
  free(map);
  return BG_OK;
}

/* ------------------------------------------------------------ topology */

typedef struct edge_use {
  uint32_t a, b; /* a < b */
  uint32_t tri;
  int forward; /* the triangle runs a -> b */
} edge_use;
static int cmp_edge(const void *x, const void *y) {
  const edge_use *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return p->tri < q->tri ? -1 : p->tri > q->tri;
}

/* "triangle 12 (line 40)" or "triangle 12" */
static const char *tri_name(char *buf, size_t cap, const uint32_t *tline, uint32_t tri) {
  if (tline)
    snprintf(buf, cap, "triangle %u (line %u)", tri + 1, tline[tri]);
  else
    snprintf(buf, cap, "triangle %u", tri + 1);
  return buf;
}

static bg_status check_topology(const char *path, const struct bg_mesh *m, const uint32_t *tline,
                                char *err, size_t err_len) {
  char n1[64], n2[64], n3[64];
  for (size_t f = 0; f < m->nt; ++f) {
    const uint32_t *c = m->t + 3 * f;
    if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0])
      return bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                           "%s: %s has two corners at the same point: a degenerate triangle", path,
                           tri_name(n1, sizeof n1, tline, (uint32_t)f));
  }
  edge_use *e = malloc(3 * m->nt * sizeof *e);
  if (!e) return bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
  for (size_t f = 0; f < m->nt; ++f)
    for (int k = 0; k < 3; ++k) {
      uint32_t p = m->t[3 * f + k], q = m->t[3 * f + (k + 1) % 3];
      e[3 * f + k] = (edge_use){p < q ? p : q, p < q ? q : p, (uint32_t)f, p < q};
    }
  qsort(e, 3 * m->nt, sizeof *e, cmp_edge);
  bg_status st = BG_OK;
  for (size_t i = 0; i < 3 * m->nt && st == BG_OK;) {
    size_t j = i;
    while (j < 3 * m->nt && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    const double *p = m->v + 3 * (size_t)e[i].a, *q = m->v + 3 * (size_t)e[i].b;
    char edge[160];
    snprintf(edge, sizeof edge, "edge (%g, %g, %g)-(%g, %g, %g)", p[0], p[1], p[2], q[0], q[1],
             q[2]);
    if (j - i == 1)
      st = bg_mesh_fail_(
          err, err_len, BG_ERR_CORRUPT,
          "%s: %s of %s has no second triangle: the mesh is not closed (a hole's border)", path,
          edge, tri_name(n1, sizeof n1, tline, e[i].tri));
    else if (j - i > 2)
      st = bg_mesh_fail_(
          err, err_len, BG_ERR_CORRUPT,
          "%s: %s is shared by %zu triangles (%s, %s, %s...): the mesh is not manifold", path, edge,
          j - i, tri_name(n1, sizeof n1, tline, e[i].tri),
          tri_name(n2, sizeof n2, tline, e[i + 1].tri),
          tri_name(n3, sizeof n3, tline, e[i + 2].tri));
    else if (e[i].forward == e[i + 1].forward)
      st = bg_mesh_fail_(
          err, err_len, BG_ERR_CORRUPT,
          "%s: %s is run in the same direction by %s and %s: inconsistent orientation (a "
          "flipped triangle)",
          path, edge, tri_name(n1, sizeof n1, tline, e[i].tri),
          tri_name(n2, sizeof n2, tline, e[i + 1].tri));
    i = j;
  }
  free(e);
  return st;
}

/* ---------------------------------------------------------------- load */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcasecmp(s + n - k, suffix);
}

void bg_mesh_destroy(bg_mesh *m) {
  if (!m) return;
  free(m->v);
  free(m->t);
  free(m->bvh);
  free(m->tri_order);
  free(m);
}

bg_status bg_mesh_load(const char *path, bg_mesh **out, char *err, size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!path || !out)
    return bg_mesh_fail_(err, err_len, BG_ERR_NULL, "bg_mesh_load: path and out must not be NULL");
  *out = NULL;
  int obj = ends_with(path, ".obj"), stl = ends_with(path, ".stl");
  if (!obj && !stl)
    return bg_mesh_fail_(err, err_len, BG_ERR_RANGE,
                         "%s: unknown mesh format (the name must end in .obj or .stl)", path);
  char *buf;
  size_t len;
  BG_MESH_TRY(bg_mesh_slurp_(path, &buf, &len, err, err_len));
  darr pos = {0};
  uarr t = {0}, tline = {0};
  bg_status st;
  int lines = 1;
  if (obj) {
    st = read_obj(path, buf, &pos, &t, &tline, err, err_len);
  } else {
    /* binary when the size is the one its count declares (a binary header
     * may begin with "solid" too); else ASCII when it begins with "solid" */
    const unsigned char *b = (const unsigned char *)buf;
    int binary = 1;
    if (len >= 84) {
      uint32_t n =
          (uint32_t)b[80] | (uint32_t)b[81] << 8 | (uint32_t)b[82] << 16 | (uint32_t)b[83] << 24;
      binary = len == 84 + 50 * (size_t)n;
    }
    if (!binary || len < 84) {
      /* ASCII: "solid" and text; a binary file cut short has a count and
       * float bytes after its header, which text does not */
      const char *s = buf;
      while (isspace((unsigned char)*s)) s++;
      int text = 1;
      for (size_t i = 0; i < len && i < 1024; ++i)
        if (!isprint(b[i]) && !isspace(b[i])) text = 0;
      binary = !(text && strncasecmp(s, "solid", 5) == 0);
    }
    if (binary) {
      lines = 0;
      st = read_stl_binary(path, b, len, &pos, err, err_len);
    } else {
      st = read_stl_ascii(path, buf, &pos, &tline, err, err_len);
    }
    for (size_t i = 0; st == BG_OK && i < pos.n / 3; ++i)
      if (upush(&t, (uint32_t)i))
        st = bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
  }
  free(buf);
  struct bg_mesh *m = calloc(1, sizeof *m);
  if (st == BG_OK && !m) st = bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
  if (st == BG_OK && t.n == 0)
    st = bg_mesh_fail_(err, err_len, BG_ERR_CORRUPT,
                       "%s: no triangles: a solid needs a closed surface", path);
  if (st == BG_OK) {
    m->nt = t.n / 3;
    m->t = t.p;
    t.p = NULL;
    st = weld(path, pos.p, pos.n / 3, m->t, 3 * m->nt, m, err, err_len);
  }
  if (st == BG_OK) st = check_topology(path, m, lines ? tline.p : NULL, err, err_len);
  if (st == BG_OK && bg_mesh_build_bvh_(m))
    st = bg_mesh_fail_(err, err_len, BG_ERR_NOMEM, "%s: out of memory", path);
  free(pos.p);
  free(t.p);
  free(tline.p);
  if (st != BG_OK) {
    bg_mesh_destroy(m);
    return st;
  }
  *out = m;
  return BG_OK;
}

size_t bg_mesh_vertex_count(const bg_mesh *m) { return m ? m->nv : 0; }
size_t bg_mesh_triangle_count(const bg_mesh *m) { return m ? m->nt : 0; }
void bg_mesh_bounds(const bg_mesh *m, double lo[3], double hi[3]) {
  for (int a = 0; a < 3; ++a) {
    lo[a] = m->lo[a];
    hi[a] = m->hi[a];
  }
}
