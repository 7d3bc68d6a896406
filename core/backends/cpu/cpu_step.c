/* cpu_step.c: the step of the optimised CPU backend (cpu_backend.c): the
 * sort, the binning, P2G, the grid update and G2P.
 *
 * Particles live in structure-of-arrays, physically re-sorted by 4^3 grid
 * block every sort_interval steps (the GPU's layout) and binned by block
 * every step. P2G scatters straight into the global grid without atomics or
 * locks: a particle in block b writes nodes of blocks b..b+1 per axis, so
 * blocks whose coordinates share parity (one of 8 colours) never write the
 * same node and run in parallel, colour after colour. Each node therefore
 * receives its contributions in an order fixed by the particle order alone,
 * which makes P2G bitwise independent of the thread count.
 *
 * In 2D (plane strain, dims[1] == 1) blocks are 4 x 1 x 4 nodes (the y
 * block index is 0, so 4 of the 8 colours hold blocks) and the y stencil
 * is the plane's one node: the per-particle kernels take the dimension as
 * a constant (plane 0 or 1) and each driver is compiled once for each, so
 * the 3D loops keep their fixed trip counts. */
#include <math.h>
#include <string.h>

#include "bg_bspline.h"
#include "bg_transfer.h"
#include "cpu_internal.h"

/* Helpers and per-particle kernels are inlined into their cloned callers
 * (p2g_block, g2p_chunk), so that they are compiled for the clone's ISA
 * rather than called at the baseline's. */
#if defined(__GNUC__)
#define CPU_INLINE static inline __attribute__((always_inline))
#else
#define CPU_INLINE static inline
#endif

/* A grid node's four floats (mass, then momentum or velocity) in one SSE
 * register. gcc left the node loops of the transfers half scalar, with the
 * accumulators spilled to the stack; written on this type, every node
 * update is a handful of packed operations. Element-wise IEEE arithmetic:
 * the results do not depend on the vector width the compiler picks. */
typedef bg_real node4 __attribute__((vector_size(4 * sizeof(bg_real))));

CPU_INLINE node4 node_load(const bg_real *g) {
  node4 v;
  memcpy(&v, g, sizeof v);
  return v;
}

CPU_INLINE void node_store(bg_real *g, node4 v) { memcpy(g, &v, sizeof v); }

/* The stencil's per-axis factors along z: the weight w_k and w_k (k - fx) dx. */
static inline void stencil_z(const bg_bspline *w, bg_real dx, bg_real wz[3], bg_real wzd[3]) {
  for (int k = 0; k < 3; ++k) {
    wz[k] = w->w[2][k];
    wzd[k] = w->w[2][k] * (((bg_real)k - w->fx[2]) * dx);
  }
}

/* Block of a particle at x: the block holding its lowest stencil node (in
 * 2D the plane's node layer, block 0 in y). */
static inline int64_t block_of(const cpu_state *s, const bg_real x[3]) {
  const bg_config *c = s->cfg;
  int64_t b[3];
  for (int d = 0; d < 3; ++d) {
    int base = bg_floor_int((x[d] - c->origin[d]) * c->inv_dx - 0.5f);
    b[d] = base >> BG_BLOCK_LOG2;
  }
  if (c->dim == 2) b[1] = 0;
  return (b[0] * s->nb[1] + b[1]) * s->nb[2] + b[2];
}

static inline int64_t particle_block(const cpu_state *s, size_t p) {
  const bg_real x[3] = {s->x[0][p], s->x[1][p], s->x[2][p]};
  return block_of(s, x);
}

/* Physical re-sort by block (parked particles last), every sort_interval
 * steps: keeps each block's particles contiguous in memory for the scatter
 * and the gather. A stable counting sort, so the order is deterministic. */
bg_status cpu_sort(void *state, uint64_t step) {
  cpu_state *s = state;
  if (s->n == 0 || step % (uint64_t)s->cfg->sort_interval != 0) return BG_OK;
  s->keys_fresh = 0;
  int64_t nbk = s->n_blocks + 1; /* last bucket: parked */
  int64_t *cnt = calloc((size_t)nbk + 1, sizeof *cnt);
  int64_t *key = malloc(s->n * sizeof *key);
  int64_t *perm = malloc(s->n * sizeof *perm);
  if (!cnt || !key || !perm) {
    free(cnt);
    free(key);
    free(perm);
    return BG_ERR_NOMEM;
  }
  for (size_t p = 0; p < s->n; ++p) {
    key[p] = s->park[p] < 0 ? particle_block(s, p) : s->n_blocks;
    cnt[key[p] + 1]++;
  }
  for (int64_t b = 0; b < nbk; ++b) cnt[b + 1] += cnt[b];
  for (size_t p = 0; p < s->n; ++p) perm[cnt[key[p]]++] = (int64_t)p;
  bg_real *a[N_FLOAT_ARRAYS];
  cpu_float_arrays(s, a);
  bg_real *tmp = malloc(s->n * sizeof *tmp);
  int64_t *itmp = malloc(s->n * sizeof *itmp);
  if (!tmp || !itmp) {
    free(tmp);
    free(itmp);
    free(cnt);
    free(key);
    free(perm);
    return BG_ERR_NOMEM;
  }
  /* the permutation, array by array, split over the threads */
  int64_t n = (int64_t)s->n;
  int32_t *pk = (int32_t *)tmp; /* same size as a float */
  const int multi = s->cfg->n_mats > 1; /* one material: every index is 0, nothing to move */
  uint8_t *mtmp = (uint8_t *)key;       /* the indices' scratch: the keys are spent by now */
#pragma omp parallel num_threads(cpu_nthreads(s))
  {
    for (int k = 0; k < N_FLOAT_ARRAYS; ++k) {
      bg_real *arr = a[k];
#pragma omp for schedule(static)
      for (int64_t p = 0; p < n; ++p) tmp[p] = arr[perm[p]];
#pragma omp for schedule(static)
      for (int64_t p = 0; p < n; ++p) arr[p] = tmp[p];
    }
#pragma omp for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
      itmp[p] = s->id[perm[p]];
      pk[p] = s->park[perm[p]];
    }
#pragma omp for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
      s->id[p] = itmp[p];
      s->park[p] = pk[p];
    }
    if (multi) {
#pragma omp for schedule(static)
      for (int64_t p = 0; p < n; ++p) mtmp[p] = s->mid[perm[p]];
#pragma omp for schedule(static)
      for (int64_t p = 0; p < n; ++p) s->mid[p] = mtmp[p];
    }
  }
  free(tmp);
  free(itmp);
  free(cnt);
  free(key);
  free(perm);
  return BG_OK;
}

/* Histograms of the parallel binning, at most this many entries in all
 * (threads x blocks): a huge grid on many threads bins on fewer threads. */
#define BIN_HIST_MAX ((int64_t)1 << 26)

/* Bins active particles by block into order[] and lists the occupied blocks
 * by colour. Runs every step. A counting sort, in parallel from 4096
 * particles on: each thread counts the blocks of a contiguous range of
 * particles, the cursors are laid out block by block and, within a block,
 * thread by thread, and each thread then places its range in particle
 * order. The result is the serial stable sort's, whatever the thread count. */
static void bin_particles(cpu_state *s) {
  int64_t nb = s->n_blocks;
  int64_t n = (int64_t)s->n;
  int nt = cpu_nthreads(s);
  if ((int64_t)nt * (nb + 1) > BIN_HIST_MAX) nt = (int)(BIN_HIST_MAX / (nb + 1));
  if (nt < 1) nt = 1;
  if (nt > s->bin_threads) {
    int64_t *h = realloc(s->bin_hist, (size_t)nt * (size_t)(nb + 1) * sizeof *h);
    if (h) {
      s->bin_hist = h;
      s->bin_threads = nt;
    }
  }
  if (nt > s->bin_threads) nt = s->bin_threads; /* a failed growth bins on fewer threads */
  int64_t *bstart = s->bstart, *key = s->bin_key, *order = s->order, *hist = s->bin_hist;
  bstart[0] = 0;
#pragma omp parallel num_threads(nt) if (nt > 1 && n >= 4096)
  {
#ifdef _OPENMP
    int t = omp_get_thread_num(), team = omp_get_num_threads();
#else
    int t = 0, team = 1;
#endif
    /* the team may be smaller than asked: ranges follow the real size */
    int64_t lo = n * t / team, hi = n * (t + 1) / team;
    int64_t *h = hist + (size_t)t * (size_t)(nb + 1);
    memset(h, 0, (size_t)nb * sizeof *h);
    /* G2P leaves each particle's block in key (keys_fresh): a pass over
     * the positions less */
    if (s->keys_fresh) {
      for (int64_t p = lo; p < hi; ++p)
        if (key[p] >= 0) h[key[p]]++;
    } else {
      for (int64_t p = lo; p < hi; ++p) {
        int64_t k = s->park[p] < 0 ? particle_block(s, (size_t)p) : -1;
        key[p] = k;
        if (k >= 0) h[k]++;
      }
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; ++b) {
      int64_t tot = 0;
      for (int u = 0; u < team; ++u) tot += hist[(size_t)u * (size_t)(nb + 1) + (size_t)b];
      bstart[b + 1] = tot;
    }
#pragma omp single
    for (int64_t b = 0; b < nb; ++b) bstart[b + 1] += bstart[b];
#pragma omp for schedule(static)
    for (int64_t b = 0; b < nb; ++b) {
      int64_t off = bstart[b];
      for (int u = 0; u < team; ++u) {
        int64_t *e = &hist[(size_t)u * (size_t)(nb + 1) + (size_t)b];
        int64_t cnt = *e;
        *e = off;
        off += cnt;
      }
    }
    for (int64_t p = lo; p < hi; ++p)
      if (key[p] >= 0) order[h[key[p]]++] = p;
  }
  /* occupied blocks by colour (parity of block coordinates) */
  int64_t k = 0;
  for (int c = 0; c < 8; ++c) {
    s->cstart[c] = k;
    for (int64_t bi = (c >> 2) & 1; bi < s->nb[0]; bi += 2)
      for (int64_t bj = (c >> 1) & 1; bj < s->nb[1]; bj += 2)
        for (int64_t bk = c & 1; bk < s->nb[2]; bk += 2) {
          int64_t b = (bi * s->nb[1] + bj) * s->nb[2] + bk;
          if (s->bstart[b + 1] > s->bstart[b]) s->blist[k++] = b;
        }
  }
  s->cstart[8] = k;
}

static inline void particle_xg(const cpu_state *s, size_t p, bg_real xg[3]) {
  const bg_config *c = s->cfg;
  for (int d = 0; d < 3; ++d) xg[d] = (s->x[d][p] - c->origin[d]) * c->inv_dx;
}

CPU_INLINE void p2g_particle(cpu_state *s, size_t p, bg_real dt, const int plane) {
  const bg_config *c = s->cfg;
  const int b0 = plane ? 1 : 0, b1 = plane ? 1 : 2; /* the y stencil (bg_stencil_b0/b1) */
  bg_real xg[3];
  particle_xg(s, p, xg);
  bg_bspline w = bg_bspline_eval_dim(xg, plane ? 2 : 3);
  bg_mat3 C = load_mat(s->C, p), tau = load_sym(s->tau, p);
  bg_real m = s->mass[p];
  bg_mat3 A = bg_p2g_affine(m, s->vol0[p], &C, &tau, dt, c->inv_dx);
  /* per node the particle adds wt * (m, m v + A dpos), wt = wa wb wz:
   * lane 0 is the mass, whose affine part is zero */
  const node4 b4 = {m, m * s->v[0][p], m * s->v[1][p], m * s->v[2][p]};
  const node4 ax = {0, A.m[0][0], A.m[1][0], A.m[2][0]};
  const node4 ay = {0, A.m[0][1], A.m[1][1], A.m[2][1]};
  const node4 az = {0, A.m[0][2], A.m[1][2], A.m[2][2]};
  int64_t sy = c->dims[2], sx = c->dims[1] * sy;
  bg_real(*g0)[4] = s->grid + (w.base[0] * sx + w.base[1] * sy + w.base[2]);
  bg_real dx = c->dx, wz[3], wzd[3];
  stencil_z(&w, dx, wz, wzd);
  for (int a = 0; a < 3; ++a) {
    bg_real dxa = ((bg_real)a - w.fx[0]) * dx;
    for (int b = b0; b <= b1; ++b) {
      bg_real dxb = ((bg_real)b - w.fx[1]) * dx;
      bg_real wab = w.w[0][a] * w.w[1][b];
      node4 vab = b4 + ax * dxa + ay * dxb;
      bg_real *g = g0[a * sx + b * sy];
      for (int k = 0; k < 3; ++k) node_store(g + 4 * k, node_load(g + 4 * k) + wab * (wz[k] * vab + wzd[k] * az));
    }
  }
  if (cpu_nonlocal(s, p)) {
    bg_real mf = m * s->st[s->nl][p];
    for (int a = 0; a < 3; ++a)
      for (int b = b0; b <= b1; ++b) {
        int64_t row = (w.base[0] + a) * sx + (w.base[1] + b) * sy + w.base[2];
        bg_real *g = s->gs + row;
        for (int k = 0; k < 3; ++k) g[k] += bg_bspline_weight(&w, a, b, k) * mf;
        if (s->gm)
          for (int k = 0; k < 3; ++k) s->gm[row + k] += bg_bspline_weight(&w, a, b, k) * m;
      }
  }
}

/* P2G of one block's particles, compiled for AVX2/AVX-512 too (as
 * g2p_chunk). */
BG_BATCH_DRIVER void p2g_block(cpu_state *s, int64_t b, bg_real dt) {
  const int cuts = s->cfg->n_cuts;
  for (int64_t q = s->bstart[b]; q < s->bstart[b + 1]; ++q)
    if (!(cuts && cpu_p2g_cut(s, (size_t)s->order[q], dt))) p2g_particle(s, (size_t)s->order[q], dt, 0);
}

BG_BATCH_DRIVER void p2g_block_plane(cpu_state *s, int64_t b, bg_real dt) {
  const int cuts = s->cfg->n_cuts;
  for (int64_t q = s->bstart[b]; q < s->bstart[b + 1]; ++q)
    if (!(cuts && cpu_p2g_cut(s, (size_t)s->order[q], dt))) p2g_particle(s, (size_t)s->order[q], dt, 1);
}

bg_status cpu_p2g(void *state, bg_real dt) {
  cpu_state *s = state;
  const bg_config *c = s->cfg;
  int nt = cpu_nthreads(s);
  cpu_grid_clear_rows(s, nt);
  if (c->n_cuts)
    memset(s->cwf_thread, 0, (size_t)(s->wf_threads + 1) * BG_WALL_TALLY * (size_t)c->n_walls * sizeof *s->cwf_thread);
  if (s->n_active == 0) return BG_OK;
  bin_particles(s);
  cpu_grid_mark_rows(s);
  for (int col = 0; col < 8; ++col) {
    int64_t lo = s->cstart[col], hi = s->cstart[col + 1];
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
    for (int64_t k = lo; k < hi; ++k) {
      if (c->dim == 2) p2g_block_plane(s, s->blist[k], dt);
      else p2g_block(s, s->blist[k], dt);
    }
  }
  return BG_OK;
}

bg_status cpu_grid_update(void *state, bg_real dt) {
  cpu_state *s = state;
  const bg_config *c = s->cfg;
  int nt = cpu_nthreads(s);
  const int64_t nz = c->dims[2];
  const bg_real gdt[3] = {c->gravity[0] * dt, c->gravity[1] * dt, c->gravity[2] * dt};
  const bg_real damp = bg_damping_factor(c->damping, dt);
  /* only the nodes P2G could reach: every other one holds no mass */
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
  for (int64_t q = 0; q < s->n_rows; ++q) {
    const int64_t r = s->rows[q];
    for (int64_t i = r * nz + s->row_lo[r]; i < r * nz + s->row_hi[r]; ++i) {
      bg_node_update(s->grid[i], gdt);
      if (damp != 1.0f)
        for (int d = 1; d < 4; ++d) s->grid[i][d] *= damp;
    }
  }
  int64_t nb = (int64_t)s->n_bn;
  int nw = c->n_walls;
  /* the wall-force tallies are sized for the thread count at creation */
  int wt = nt < s->wf_threads ? nt : s->wf_threads;
  memset(s->wf_thread, 0, (size_t)s->wf_threads * BG_WALL_TALLY * (size_t)nw * sizeof *s->wf_thread);
  double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
#pragma omp parallel num_threads(wt)
  {
#ifdef _OPENMP
    double *mine = s->wf_thread + (size_t)omp_get_thread_num() * BG_WALL_TALLY * (size_t)nw;
#else
    double *mine = s->wf_thread;
#endif
#pragma omp for schedule(static)
    for (int64_t k = 0; k < nb; ++k) {
      const bg_bnode *b = &s->bn[k];
      /* outside the active rows a node holds no mass: not read, so that
       * its page of the paged grid stays unbacked */
      const int64_t r = b->node / nz, kk = b->node - r * nz;
      if (kk < s->row_lo[r] || kk >= s->row_hi[r]) continue;
      bg_real *g = s->grid[b->node];
      if (!(g[0] > 0)) continue;
      bg_bnode_effect eff;
      bg_bnode_apply(b, c->walls, nw - BG_FACE_COUNT, g + 1, &eff);
      double xn[3];
      bg_node_offset(b->node, c->dims, c->dx, xn);
      bg_wall_tally_add(mine, &eff, g[0], inv_dt, xn);
    }
  }
  for (int k = 0; k < BG_WALL_TALLY * nw; ++k) {
    double sum = 0;
    for (int t = 0; t < s->wf_threads; ++t) sum += s->wf_thread[(size_t)t * BG_WALL_TALLY * (size_t)nw + k];
    s->wf[k] = sum;
  }
  return BG_OK;
}

/* The nonlocal service's Laplacian at a particle (bg_transfer.h): the
 * B-spline Laplacian of the nodal mass-weighted means (over the nonlocal
 * particles' mass, gm, where the table mixes them with others). Every node
 * of a particle's stencil with a nonzero weight holds mass (the particle's
 * own, scattered this step), so none is skipped but the weightless ones. */
static bg_real nodal_laplacian(const cpu_state *s, const bg_bspline *w) {
  const bg_config *c = s->cfg;
  int64_t ny = c->dims[1], nz = c->dims[2];
  bg_real sum = 0.0f;
  for (int a = 0; a < 3; ++a)
    for (int b = bg_stencil_b0(c); b <= bg_stencil_b1(c); ++b) {
      int64_t row = ((int64_t)(w->base[0] + a) * ny + (w->base[1] + b)) * nz + w->base[2];
      for (int k = 0; k < 3; ++k) {
        bg_real m = s->gm ? s->gm[row + k] : s->grid[row + k][0];
        bg_real lw = c->dim == 2 ? bg_bspline_lap_weight_plane(w->w, a, k) : bg_bspline_lap_weight(w->w, a, b, k);
        if (m > 0.0f) sum += lw * (s->gs[row + k] / m);
      }
    }
  return sum * c->inv_dx * c->inv_dx;
}

/* The constitutive update of a chunk whose lanes (slots slot[0 .. len-1])
 * may hold several materials of the table: a chunk of one material runs as
 * it would alone; otherwise each material's lanes are packed into a chunk
 * of their own, updated, and put back. A lane's result does not depend on
 * the lanes beside it, so grouping changes no particle's update. */
CPU_INLINE void update_chunk_table(const cpu_state *s, const size_t *slot, bg_real dt, bg_mat_chunk *ch, int len) {
  const bg_config *c = s->cfg;
  int first = len > 0 ? s->mid[slot[0]] : 0, uniform = 1;
  for (int l = 1; l < len && uniform; ++l) uniform = s->mid[slot[l]] == first;
  if (uniform) {
    bg_material_update_chunk(&c->mats[first], dt, ch, len);
    return;
  }
  unsigned char done[BG_BATCH_CHUNK] = {0};
  bg_mat_chunk sub;
  bg_real subC[9][BG_BATCH_CHUNK];
  int lane[BG_BATCH_CHUNK];
  sub.C = ch->C ? (const bg_real(*)[BG_BATCH_CHUNK])subC : NULL;
  for (int l0 = 0; l0 < len; ++l0) {
    if (done[l0]) continue;
    const int k = s->mid[slot[l0]];
    int n = 0;
    for (int l = l0; l < len; ++l)
      if (!done[l] && s->mid[slot[l]] == k) {
        done[l] = 1;
        lane[n] = l;
        for (int e = 0; e < 9; ++e) sub.F[e][n] = ch->F[e][l];
        for (int e = 0; e < BG_NSTATE; ++e) sub.st[e][n] = ch->st[e][l];
        if (ch->C)
          for (int e = 0; e < 9; ++e) subC[e][n] = ch->C[e][l];
        ++n;
      }
    bg_material_update_chunk(&c->mats[k], dt, &sub, n);
    for (int j = 0; j < n; ++j) {
      const int l = lane[j];
      for (int e = 0; e < 9; ++e) ch->F[e][l] = sub.F[e][j];
      for (int e = 0; e < BG_NSTATE; ++e) ch->st[e][l] = sub.st[e][j];
      for (int e = 0; e < 6; ++e) ch->tau[e][l] = sub.tau[e][j];
      ch->mode[l] = sub.mode[j];
    }
  }
}

/* G2P after the gather, for lane l of a chunk and particle slot p of the
 * arrays given (offset to the chunk's first slot, or not): v and x, C,
 * and the trial F = (I + dt C) F into the chunk. */
CPU_INLINE void g2p_lane(const cpu_state *s, bg_real *const *x, bg_real *const *v, bg_real *const *cm,
                         bg_real *const *f, int64_t p, bg_real (*lv)[BG_BATCH_CHUNK], bg_real (*lC)[BG_BATCH_CHUNK],
                         bg_mat_chunk *ch, int64_t *lkey, int l, bg_real dt, const int plane) {
  const bg_config *c = s->cfg;
  int64_t b[3];
  for (int d = 0; d < 3; ++d) {
    v[d][p] = lv[d][l];
    const bg_real xn = x[d][p] + dt * lv[d][l];
    x[d][p] = xn;
    /* the next binning's block (block_of's arithmetic), while x is at hand */
    b[d] = bg_floor_int((xn - c->origin[d]) * c->inv_dx - 0.5f) >> BG_BLOCK_LOG2;
  }
  if (plane) b[1] = 0;
  lkey[l] = (b[0] * s->nb[1] + b[1]) * s->nb[2] + b[2];
  bg_mat3 C, F;
  for (int e = 0; e < 9; ++e) {
    C.m[e / 3][e % 3] = lC[e][l];
    cm[e][p] = lC[e][l];
    F.m[e / 3][e % 3] = f[e][p];
  }
  F = bg_f_update(&C, &F, dt);
  for (int e = 0; e < 9; ++e) ch->F[e][l] = F.m[e / 3][e % 3];
}

/* G2P's gather of one particle into lane l: v into lv and C into lC. */
CPU_INLINE void gather_lane(const cpu_state *s, const bg_bspline *wp, bg_real (*lv)[BG_BATCH_CHUNK],
                            bg_real (*lC)[BG_BATCH_CHUNK], int len, const int plane) {
  const bg_config *c = s->cfg;
  const bg_bspline w = *wp;
  const int b0 = plane ? 1 : 0, b1 = plane ? 1 : 2; /* the y stencil (bg_stencil_b0/b1) */
  const int64_t sy = c->dims[2], sx = c->dims[1] * sy;
  const bg_real dx = c->dx, k4 = 4.0f * c->inv_dx * c->inv_dx;
  /* lane 0 of each node is its mass: gathered along with the
   * velocity so a node is one vector, then ignored. The sums of
   * w v, w v dxa, w v dxb and w v dxc factor axis by axis: along z
   * per column, along y per plane, then along x. */
  bg_real wz[3], wzd[3];
  stencil_z(&w, dx, wz, wzd);
  const bg_real(*g00)[4] = (const bg_real(*)[4])s->grid + (w.base[0] * sx + w.base[1] * sy + w.base[2]);
  node4 av = {0, 0, 0, 0}, aa = av, ab = av, ac = av;
  for (int a = 0; a < 3; ++a) {
    node4 sa = {0, 0, 0, 0}, ya = sa, za = sa;
    for (int b = b0; b <= b1; ++b) {
      bg_real wb = w.w[1][b], dxb = ((bg_real)b - w.fx[1]) * dx;
      const bg_real *g = g00[a * sx + b * sy];
      node4 g0 = node_load(g), g1 = node_load(g + 4), g2 = node_load(g + 8);
      node4 cs = wz[0] * g0 + wz[1] * g1 + wz[2] * g2;
      node4 cz = wzd[0] * g0 + wzd[1] * g1 + wzd[2] * g2;
      sa += wb * cs;
      ya += (wb * dxb) * cs;
      za += wb * cz;
    }
    bg_real wa = w.w[0][a], dxa = ((bg_real)a - w.fx[0]) * dx;
    av += wa * sa;
    aa += (wa * dxa) * sa;
    ab += wa * ya;
    ac += wa * za;
  }
  for (int d = 0; d < 3; ++d) lv[d][len] = av[1 + d];
  for (int i = 0; i < 3; ++i) {
    lC[3 * i + 0][len] = k4 * aa[1 + i];
    lC[3 * i + 1][len] = k4 * ab[1 + i];
    lC[3 * i + 2][len] = k4 * ac[1 + i];
  }
}

/* G2P over particles p0 .. p1-1 (at most one chunk): the gather per
 * particle, then the constitutive update (SVD, return map, stress)
 * vectorised across the chunk's lanes (bg_constitutive_batch.h). Compiled
 * for AVX2/AVX-512 too, like the lane drivers (BG_BATCH_DRIVER): the
 * clones differ in encoding only, not in results. mine: the thread's
 * tallies of newly parked particles; returns the largest squared speed. */
CPU_INLINE double g2p_chunk_body(cpu_state *s, int64_t p0, int64_t p1, bg_real dt, double *mine, const int plane) {
  const bg_config *c = s->cfg;
  int ns = c->n_sinks;
  double vmax2 = 0;
  bg_mat_chunk ch;
  size_t slot[BG_BATCH_CHUNK];
  bg_real lv[3][BG_BATCH_CHUNK], lC[9][BG_BATCH_CHUNK]; /* the gathered v and C, by lane */
  ch.C = (const bg_real(*)[BG_BATCH_CHUNK])lC;            /* the update context's velocity gradient */
  int64_t lkey[BG_BATCH_CHUNK];                          /* each lane's block after the move */
  int len = 0;
  /* 1. the gather, particle by particle */
  for (int64_t pi = p0; pi < p1; ++pi) {
    size_t p = (size_t)pi;
    if (s->park[p] >= 0) {
      s->bin_key[p] = -1;
      continue;
    }
    bg_real xg[3];
    particle_xg(s, p, xg);
    bg_bspline w = bg_bspline_eval_dim(xg, plane ? 2 : 3);
    if (!(c->n_cuts && cpu_g2p_cut(s, p, &w, lv, lC, len, dt))) gather_lane(s, &w, lv, lC, len, plane);
    for (int d = 0; d < BG_NSTATE; ++d) ch.st[d][len] = s->st[d][p];
    if (cpu_nonlocal(s, p)) ch.st[s->nl + 1][len] = nodal_laplacian(s, &w);
    slot[len++] = p;
  }
  /* 2. v, x, C and the trial F, lane by lane: a chunk without parked
   * particles is one run of slots, and then this loop vectorises */
  int run = len > 0 && slot[len - 1] - slot[0] == (size_t)(len - 1);
  if (run) {
    size_t at = slot[0];
    bg_real *xs[3], *vs[3], *cs[9], *fs[9];
    for (int d = 0; d < 3; ++d) {
      xs[d] = s->x[d] + at;
      vs[d] = s->v[d] + at;
    }
    for (int e = 0; e < 9; ++e) {
      cs[e] = s->C[e] + at;
      fs[e] = s->F[e] + at;
    }
    BG_SIMD_LOOP
    for (int l = 0; l < len; ++l) g2p_lane(s, xs, vs, cs, fs, l, lv, lC, &ch, lkey, l, dt, plane);
  } else {
    for (int l = 0; l < len; ++l) g2p_lane(s, s->x, s->v, s->C, s->F, (int64_t)slot[l], lv, lC, &ch, lkey, l, dt, plane);
  }
  /* 3. parking and the largest speed */
  for (int l = 0; l < len; ++l) {
    size_t p = slot[l];
    const bg_real xp[3] = {s->x[0][p], s->x[1][p], s->x[2][p]};
    int32_t code = bg_park_code(c, c->sinks, xp);
    /* the next binning's key, while x is at hand */
    s->bin_key[p] = code >= 0 ? -1 : lkey[l];
    if (code >= 0) {
      s->park[p] = code;
      mine[code] += (double)s->mass[p];
      mine[ns + 1] += 1.0;
    } else {
      double sp = (double)lv[0][l] * lv[0][l] + (double)lv[1][l] * lv[1][l] + (double)lv[2][l] * lv[2][l];
      if (sp > vmax2) vmax2 = sp;
    }
  }
  /* 4. the constitutive update across the chunk's lanes (a model without
   * lanes runs the scalar update on each), lanes grouped by material when
   * the table has several */
  if (c->n_mats == 1) bg_material_update_chunk(&c->mat, dt, &ch, len);
  else update_chunk_table(s, slot, dt, &ch, len);
  for (int l = 0; l < len; ++l) s->mode[slot[l]] = (bg_real)ch.mode[l];
  if (plane)
    for (int l = 0; l < len; ++l) bg_plane_strain_clear_strided(&ch.F[0][l], &ch.tau[0][l], BG_BATCH_CHUNK);
  /* array by array, one store stream at a time; a run copied as such */
  for (int e = 0; e < 9 + 6 + BG_NSTATE; ++e) {
    bg_real *dst = e < 9 ? s->F[e] : e < 15 ? s->tau[e - 9] : s->st[e - 15];
    const bg_real *src = e < 9 ? ch.F[e] : e < 15 ? ch.tau[e - 9] : ch.st[e - 15];
    if (run) {
      memcpy(dst + slot[0], src, (size_t)len * sizeof *src);
    } else {
      for (int l = 0; l < len; ++l) dst[slot[l]] = src[l];
    }
  }
  return vmax2;
}

BG_BATCH_DRIVER double g2p_chunk(cpu_state *s, int64_t p0, int64_t p1, bg_real dt, double *mine) {
  return g2p_chunk_body(s, p0, p1, dt, mine, 0);
}

BG_BATCH_DRIVER double g2p_chunk_plane(cpu_state *s, int64_t p0, int64_t p1, bg_real dt, double *mine) {
  return g2p_chunk_body(s, p0, p1, dt, mine, 1);
}

bg_status cpu_g2p(void *state, bg_real dt) {
  cpu_state *s = state;
  const bg_config *c = s->cfg;
  int nt = cpu_nthreads(s);
  int64_t n = (int64_t)s->n;
  int ns = c->n_sinks;
  double vmax2 = 0;
  /* per-thread tallies of newly parked particles, summed in thread order */
  double *tally = calloc((size_t)nt * (size_t)(ns + 2), sizeof *tally);
  if (!tally) return BG_ERR_NOMEM;
#pragma omp parallel num_threads(nt) reduction(max : vmax2)
  {
#ifdef _OPENMP
    int tid = omp_get_thread_num();
#else
    int tid = 0;
#endif
    double *mine = tally + (size_t)tid * (size_t)(ns + 2);
    /* particles go through in chunks (g2p_chunk) */
#pragma omp for schedule(static)
    for (int64_t p0 = 0; p0 < n; p0 += BG_BATCH_CHUNK) {
      const int64_t p1 = p0 + BG_BATCH_CHUNK < n ? p0 + BG_BATCH_CHUNK : n;
      double v2 = c->dim == 2 ? g2p_chunk_plane(s, p0, p1, dt, mine) : g2p_chunk(s, p0, p1, dt, mine);
      if (v2 > vmax2) vmax2 = v2;
    }
  }
  for (int t = 0; t < nt; ++t) {
    double *mine = tally + (size_t)t * (size_t)(ns + 2);
    for (int k = 0; k <= ns; ++k) {
      s->sink_mass[k] += mine[k];
      s->parked_mass += mine[k];
    }
  }
  free(tally);
  /* recount (cheap, exact) rather than trust incremental counters */
  int64_t act = 0, sink = 0, out = 0, np = (int64_t)s->n;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : act, sink, out)
  for (int64_t p = 0; p < np; ++p) {
    if (s->park[p] < 0) act++;
    else if (s->park[p] < ns) sink++;
    else out++;
  }
  s->n_active = (size_t)act;
  s->n_sink = (size_t)sink;
  s->n_out = (size_t)out;
  s->max_speed = sqrt(vmax2);
  s->keys_fresh = 1;
  return BG_OK;
}
