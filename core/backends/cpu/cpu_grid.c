/* cpu_grid.c: the cpu backend's paged grid. The grid (and the nonlocal
 * service's sums) is reserved address space that the operating system
 * backs with memory only where it is written, and the backend writes, clears
 * and updates only the nodes a step can reach: per row of nodes (i, j), the
 * k range of the blocks that hold particles. Memory then follows the
 * material, not the box, and the grid's per-step passes cost what the
 * material touches. The physics is the dense grid's, bit for bit: every node
 * outside the rows holds no mass and was never read. */
/* mmap's MAP_ANONYMOUS and mincore are outside strict C11 */
#define _DEFAULT_SOURCE
#include "cpu_internal.h"

#if defined(__unix__)
#include <sys/mman.h>
#include <unistd.h>
#define CPU_PAGED_GRID 1
#endif

/* The paged grid, on the virtual-memory mechanism SPGrid (Setaluri et al.
 * 2014) builds on: anonymous private pages read as zero and take memory
 * at their first write, so a grid sized for the box costs what the
 * material touches. MAP_NORESERVE: the box's full size is not charged against the
 * overcommit limit. Elsewhere, a plain zeroed allocation. */
void *cpu_grid_map(size_t n) {
#ifdef CPU_PAGED_GRID
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
  flags |= MAP_NORESERVE;
#endif
  void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, flags, -1, 0);
  return p == MAP_FAILED ? NULL : p;
#else
  return calloc(n ? n : 1, 1);
#endif
}

void cpu_grid_unmap(void *p, size_t n) {
  if (!p) return;
#ifdef CPU_PAGED_GRID
  munmap(p, n ? n : 1);
#else
  (void)n;
  free(p);
#endif
}

size_t cpu_grid_resident(const void *p, size_t n) {
#ifdef CPU_PAGED_GRID
  const long page = sysconf(_SC_PAGESIZE);
  if (!p || page <= 0) return n;
  const size_t np = (n + (size_t)page - 1) / (size_t)page;
  unsigned char *v = malloc(np ? np : 1);
  if (!v || mincore((void *)p, n, v) != 0) {
    free(v);
    return n;
  }
  size_t in = 0;
  for (size_t i = 0; i < np; ++i) in += v[i] & 1u;
  free(v);
  return in * (size_t)page;
#else
  (void)p;
  return n;
#endif
}

/* Zeroes what the last step wrote (the active rows' nodes, in the grid
 * and the nonlocal sums) and empties the row list: every other node of
 * the paged grid was never written or was zeroed before. */
void cpu_grid_clear_rows(cpu_state *s, int nt) {
  const int64_t nz = s->cfg->dims[2];
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t q = 0; q < s->n_rows; ++q) {
    const int64_t r = s->rows[q], off = r * nz + s->row_lo[r];
    const size_t cnt = (size_t)(s->row_hi[r] - s->row_lo[r]);
    memset(s->grid + off, 0, cnt * sizeof *s->grid);
    if (s->gs) memset(s->gs + off, 0, cnt * sizeof *s->gs);
    if (s->gm) memset(s->gm + off, 0, cnt * sizeof *s->gm);
    s->row_lo[r] = s->row_hi[r] = 0;
  }
  s->n_rows = 0;
}

/* The rows (and their k ranges) this step's P2G can reach: a particle
 * binned in block b writes nodes 4 b .. 4 b + 5 per axis (in 2D the plane's
 * one node row in y). Serial: a few dozen rows per occupied block. One
 * range per row: material at two heights of one row also clears, updates
 * and so backs the nodes between them. */
void cpu_grid_mark_rows(cpu_state *s) {
  const bg_config *c = s->cfg;
  const int64_t d0 = c->dims[0], d1 = c->dims[1], d2 = c->dims[2], T = BG_BLOCK + 2;
  for (int64_t q = 0; q < s->cstart[8]; ++q) {
    const int64_t b = s->blist[q], bz = b % s->nb[2], by = (b / s->nb[2]) % s->nb[1], bx = b / (s->nb[2] * s->nb[1]);
    const int64_t i0 = bx << BG_BLOCK_LOG2, i1 = i0 + T < d0 ? i0 + T : d0;
    const int64_t j0 = c->dim == 2 ? 0 : by << BG_BLOCK_LOG2, j1 = c->dim == 2 ? d1 : (j0 + T < d1 ? j0 + T : d1);
    const int32_t k0 = (int32_t)(bz << BG_BLOCK_LOG2), k1 = (int32_t)(k0 + T < d2 ? k0 + T : d2);
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = j0; j < j1; ++j) {
        const int64_t r = i * d1 + j;
        if (s->row_hi[r] == s->row_lo[r]) {
          s->row_lo[r] = k0;
          s->row_hi[r] = k1;
          s->rows[s->n_rows++] = r;
        } else {
          if (k0 < s->row_lo[r]) s->row_lo[r] = k0;
          if (k1 > s->row_hi[r]) s->row_hi[r] = k1;
        }
      }
  }
}
