/* mesh_internal.h: the triangle mesh the readers (mesh.c) hand to the
 * signed distance code (mesh_sdf.c). */
#ifndef BG_MESH_INTERNAL_H
#define BG_MESH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* one node of the bounding-volume hierarchy: a box and either two children
 * (left = this + 1 in the array, right) or a leaf's run of triangles */
typedef struct bg_bvh_node {
  double lo[3], hi[3];
  uint32_t right;        /* index of the right child; 0 for a leaf */
  uint32_t first, count; /* leaf: tri_order[first .. first + count) */
} bg_bvh_node;

struct bg_mesh {
  size_t nv, nt;
  double *v;   /* 3 per vertex, welded: each position once */
  uint32_t *t; /* 3 vertex indices per triangle, in the file's order */
  double lo[3], hi[3];
  bg_bvh_node *bvh; /* built after the mesh passed its checks */
  size_t n_nodes;
  uint32_t *tri_order;
};

/* The hierarchy over a checked mesh; 0 on success, -1 out of memory. */
int bg_mesh_build_bvh_(struct bg_mesh *m);

/* The text readers' shared pieces (mesh.c), for ply.c. */
#include <stdarg.h>

#include "bagnold.h"

/* Text position: the next token on the current line, or the next line. */
typedef struct bg_mesh_cursor {
  const char *s;
  size_t line;
} bg_mesh_cursor;
/* err gets the message (when not NULL); returns s */
bg_status bg_mesh_fail_(char *err, size_t err_len, bg_status s, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* the whole file, NUL-terminated */
bg_status bg_mesh_slurp_(const char *path, char **buf, size_t *len, char *err, size_t err_len);
/* the next token of this line into tok; 0 at the line's end */
int bg_mesh_line_token_(bg_mesh_cursor *c, char *tok, size_t cap);
void bg_mesh_next_line_(bg_mesh_cursor *c);
/* a whole token read as a number; 0 if it is not one */
int bg_mesh_tok_number_(const char *tok, double *x);

#define BG_MESH_TRY(x)          \
  do {                          \
    bg_status s_ = (x);         \
    if (s_ != BG_OK) return s_; \
  } while (0)

#endif /* BG_MESH_INTERNAL_H */
