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

#endif /* BG_MESH_INTERNAL_H */
