/* cuda_sparse.cu: the block-sparse grid (property grid=sparse). The nodes
 * are held in 4^3 blocks, and only the blocks some particle's stencil
 * reaches this step have memory: a pool of 64-node blocks (block-major, k
 * fastest inside a block) and a table of each block's slot in it, 4 bytes
 * per block of the whole grid (grid_addr, cuda_internal.cuh). Each step,
 * before P2G:
 *   1. every active particle marks the blocks its 27 nodes lie in (up to
 *      8: the stencil spans nodes base .. base + 2 per axis);
 *   2. an exclusive scan of the marks (CUB) numbers the marked blocks, which
 *      become their slots, and their count comes back to the host;
 *   3. the pool grows when the count exceeds it, and the slots in use are
 *      cleared.
 * Particles that drifted out of their sorted block mark their own blocks,
 * so the sort interval stays a performance knob here too. The pool keeps
 * its largest size (a run whose material spreads keeps the memory of its
 * widest step) and holds the step's blocks in slot order, which is the
 * blocks' order in the grid. The deterministic grid and the nonlocal
 * service keep dense arrays and are refused with it (cuda_backend.cu). */
#include <cub/device/device_scan.cuh>

#include "cuda_internal.cuh"

/* Step 1: the blocks of each active particle's stencil. Sorted neighbours
 * mark the same few blocks, so a lane stores a block only where the lane
 * before it in the warp did not store the same one; a flag is only ever
 * set to 1, so the races that remain are harmless. */
__global__ void k_sparse_mark(dparts P, int64_t n, dgeom G, int32_t *flag) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const bool act = p < n && P.park[p] < 0;
  int64_t blk = -1;
  int cr[3] = {0, 0, 0};
  if (act) {
    int64_t b[3];
    for (int d = 0; d < 3; ++d) {
      const int base = bg_floor_int((P.f[PX + d][p] - G.origin[d]) * G.inv_dx - 0.5f);
      b[d] = base >> G.lb;
      cr[d] = ((base & ((1 << G.lb) - 1)) + 2) >> G.lb; /* 1: the stencil reaches the next block */
    }
    if (G.dim == 2) b[1] = 0, cr[1] = 0; /* the plane's one node layer */
    blk = (b[0] * G.nb[1] + b[1]) * G.nb[2] + b[2];
  }
  const unsigned lane = threadIdx.x & 31u;
  for (int o = 0; o < 8; ++o) {
    const int ox = o >> 2, oy = (o >> 1) & 1, oz = o & 1;
    const bool mine = act && ox <= cr[0] && oy <= cr[1] && oz <= cr[2];
    const int64_t q = mine ? blk + (ox * G.nb[1] + oy) * G.nb[2] + oz : -1;
    const int64_t prev = __shfl_up_sync(0xffffffffu, q, 1);
    if (mine && (lane == 0 || prev != q)) flag[q] = 1;
  }
}

/* Step 2's end: the count of marked blocks, and -1 as the slot of every
 * block left unmarked (the scan gave it its neighbour's number). */
__global__ void k_sparse_slots(const int32_t *flag, int32_t *slot, int64_t nb, int64_t *nact) {
  const int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (b >= nb) return;
  if (b == nb - 1) *nact = (int64_t)slot[b] + flag[b];
  if (!flag[b]) slot[b] = -1;
}

/* The table and the scan's scratch, once (the pool grows in activate). */
bg_status cuda_sparse_alloc(cuda_state *s) {
  const int64_t nb = s->geo.n_blocks;
  CU(cudaMalloc((void **)&s->bflag, (size_t)nb * sizeof(int32_t)));
  CU(cudaMalloc((void **)&s->bslot, (size_t)nb * sizeof(int32_t)));
  CU(cudaMalloc((void **)&s->d_nact, sizeof(int64_t)));
  /* no block allocated until the first step marks some */
  CU(cudaMemsetAsync(s->bslot, 0xff, (size_t)nb * sizeof(int32_t), s->st));
  size_t bytes = 0;
  CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, s->bflag, s->bslot, nb, s->st));
  CU(cudaMalloc(&s->sp_tmp, bytes));
  s->sp_tmp_bytes = bytes;
  s->geo.bslot = s->bslot;
  s->n_act = 0;
  s->pool_cap = 0;
  return BG_OK;
}

bg_status cuda_sparse_activate(cuda_state *s) {
  const int64_t nb = s->geo.n_blocks, n = (int64_t)s->n;
  CU(cudaMemsetAsync(s->bflag, 0, (size_t)nb * sizeof(int32_t), s->st));
  if (n) {
    k_sparse_mark<<<grid_of(n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, n, s->geo, s->bflag);
    CU(cudaGetLastError());
  }
  size_t bytes = s->sp_tmp_bytes;
  CU(cub::DeviceScan::ExclusiveSum(s->sp_tmp, bytes, s->bflag, s->bslot, nb, s->st));
  k_sparse_slots<<<grid_of(nb, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->bflag, s->bslot, nb,
                                                                                     s->d_nact);
  CU(cudaGetLastError());
  /* the pool's size decides the launches below: one small copy per step */
  CU(cudaMemcpyAsync(&s->n_act, s->d_nact, sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
  CU(cudaStreamSynchronize(s->st));
  if (s->n_act < 0 || s->n_act > nb) return fail(s, BG_ERR_INTERNAL, "sparse grid: impossible count of blocks");
  if (s->n_act > s->pool_cap) {
    /* a quarter more than asked, so that a slowly spreading flow does not
     * reallocate every step */
    int64_t cap = s->n_act + s->n_act / 4;
    if (cap > nb) cap = nb;
    cudaFree(s->grid);
    s->grid = NULL;
    s->pool_cap = 0;
    cudaError_t e = cudaMalloc((void **)&s->grid, (size_t)cap * BG_CUDA_BLOCK_NODES * sizeof(float4));
    if (e != cudaSuccess && cap > s->n_act) {
      (void)cudaGetLastError();
      cap = s->n_act;
      e = cudaMalloc((void **)&s->grid, (size_t)cap * BG_CUDA_BLOCK_NODES * sizeof(float4));
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      size_t fb = 0, tb = 0;
      cudaMemGetInfo(&fb, &tb);
      if (s->err && s->err_len)
        snprintf(s->err, s->err_len,
                 "cuda backend: out of device memory for the sparse grid's %lld blocks (%.3g GB; %.3g GB free of "
                 "%.3g)",
                 (long long)s->n_act, (double)s->n_act * BG_CUDA_BLOCK_NODES * sizeof(float4) / 1e9, fb / 1e9,
                 tb / 1e9);
      return BG_ERR_NOMEM;
    }
    s->pool_cap = cap;
  }
  if (s->n_act)
    CU(cudaMemsetAsync(s->grid, 0, (size_t)s->n_act * BG_CUDA_BLOCK_NODES * sizeof(float4), s->st));
  return BG_OK;
}
