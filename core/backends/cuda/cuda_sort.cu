/* cuda_sort.cu: the physical re-sort of the particles by grid block (4^3
 * nodes), every sort_interval steps or after particles were added, with a
 * CUB radix sort (parked particles last), and the list of runs of equal
 * block that P2G launches one CUDA block per. Particles that drift out of
 * their block between sorts take P2G's global path, so the interval is a
 * performance knob, never a correctness one. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_internal.cuh"

/* Sort key of a particle: the block holding its lowest stencil node, as on
 * the CPU (there for the coloured scatter). */
static __device__ __forceinline__ uint32_t block_key(const dgeom &G, const dparts &P, int64_t p) {
  int64_t b[3];
  for (int d = 0; d < 3; ++d) {
    int base = bg_floor_int((P.f[PX + d][p] - G.origin[d]) * G.inv_dx - 0.5f);
    b[d] = base >> G.lb;
  }
  if (G.dim == 2) b[1] = 0; /* the plane's one node layer */
  return (uint32_t)((b[0] * G.nb[1] + b[1]) * G.nb[2] + b[2]);
}

/* Sort keys: block of active particles, n_blocks (last) for parked ones. */
__global__ void k_keys(dparts P, int64_t n, dgeom G, uint32_t *keys, uint32_t *vals) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  keys[p] = P.park[p] < 0 ? block_key(G, P, p) : (uint32_t)G.n_blocks;
  vals[p] = (uint32_t)p;
}

/* A run starts where the block key changes. */
struct run_start_op {
  const uint32_t *k;
  __device__ bool operator()(int64_t i) const { return i == 0 || k[i] != k[i - 1]; }
};

__global__ void k_runkeys(const int64_t *start, const uint32_t *keys, uint32_t *rk, int64_t nr) {
  int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r < nr) rk[r] = keys[start[r]];
}

template <typename T>
__global__ void k_gather(T *dst, const T *src, const uint32_t *perm, int64_t n) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p < n) dst[p] = src[perm[p]];
}

/* The 64-bit ids through two 4-byte spares: their low and high words
 * gathered apart, then joined in place. */
__global__ void k_gather_halves(uint32_t *lo, uint32_t *hi, const int64_t *src, const uint32_t *perm, int64_t n) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  const uint64_t v = (uint64_t)src[perm[p]];
  lo[p] = (uint32_t)v;
  hi[p] = (uint32_t)(v >> 32);
}
__global__ void k_join_halves(int64_t *dst, const uint32_t *lo, const uint32_t *hi, int64_t n) {
  int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p < n) dst[p] = (int64_t)(((uint64_t)hi[p] << 32) | lo[p]);
}

/* The sort buffers have exactly the particle arrays' capacity: the gather
 * swaps them with particle arrays, so any other size would corrupt both. */
bg_status cuda_ensure_sort_buffers(cuda_state *s) {
  if (s->sort_cap == s->cap) return BG_OK;
  for (int k = 0; k < 2; ++k) {
    cudaFree(s->keys[k]);
    cudaFree(s->vals[k]);
    s->keys[k] = NULL;
    s->vals[k] = NULL;
  }
  cudaFree(s->runstart);
  cudaFree(s->runkey);
  s->runstart = NULL;
  s->runkey = NULL;
  s->sort_cap = 0;
  size_t cap = s->cap;
  for (int k = 0; k < 2; ++k) {
    CU(cudaMalloc((void **)&s->keys[k], cap * sizeof(uint32_t)));
    CU(cudaMalloc((void **)&s->vals[k], cap * sizeof(uint32_t)));
  }
  /* at most one run per block plus the parked bucket, and never more than particles */
  size_t runs = (size_t)s->geo.n_blocks + 1 < cap ? (size_t)s->geo.n_blocks + 1 : cap;
  CU(cudaMalloc((void **)&s->runstart, runs * sizeof(int64_t)));
  CU(cudaMalloc((void **)&s->runkey, runs * sizeof(uint32_t)));
  s->run_cap = runs;
  s->sort_cap = cap;
  return BG_OK;
}

/* Physical re-sort by block (parked last) every sort_interval steps, or
 * when particles were added, and the run list P2G launches over. */
bg_status cuda_sort(void *state, uint64_t step) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = mark(s, 0);
  if (st != BG_OK) return st;
  if (s->n && (s->dirty || step % (uint64_t)s->cfg->sort_interval == 0)) {
    if ((st = cuda_ensure_sort_buffers(s)) != BG_OK) return st;
    const int64_t n = (int64_t)s->n;
    k_keys<<<grid_of(n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, n, s->geo, s->keys[0],
                                                                              s->vals[0]);
    CU(cudaGetLastError());
    cub::DoubleBuffer<uint32_t> dk(s->keys[0], s->keys[1]);
    cub::DoubleBuffer<uint32_t> dv(s->vals[0], s->vals[1]);
    size_t b_sort = 0, b_sel = 0;
    run_start_op op = {dk.Current()};
    CU(cub::DeviceRadixSort::SortPairs(NULL, b_sort, dk, dv, n, 0, s->end_bit, s->st));
    /* the select reads the sorted keys, wherever the sort leaves them: size
     * it for either buffer (the size does not depend on the pointer) */
    CU(cub::DeviceSelect::If(NULL, b_sel, thrust::counting_iterator<int64_t>(0), s->runstart, s->d_nsel, n, op,
                             s->st));
    size_t need = b_sort > b_sel ? b_sort : b_sel;
    if (need > s->cub_bytes) {
      cudaFree(s->cub_tmp);
      s->cub_tmp = NULL;
      s->cub_bytes = 0;
      CU(cudaMalloc(&s->cub_tmp, need));
      s->cub_bytes = need;
    }
    size_t have = s->cub_bytes;
    CU(cub::DeviceRadixSort::SortPairs(s->cub_tmp, have, dk, dv, n, 0, s->end_bit, s->st));
    const uint32_t *sorted = dk.Current();
    const uint32_t *perm = dv.Current();
    op.k = sorted;
    have = s->cub_bytes;
    CU(cub::DeviceSelect::If(s->cub_tmp, have, thrust::counting_iterator<int64_t>(0), s->runstart, s->d_nsel, n,
                             op, s->st));
    /* the launch size of P2G: one small copy per sort */
    CU(cudaMemcpyAsync(&s->n_runs, s->d_nsel, sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaStreamSynchronize(s->st));
    if (s->n_runs < 1 || (size_t)s->n_runs > s->run_cap)
      return fail(s, BG_ERR_INTERNAL, "sort produced an impossible number of block runs");
    k_runkeys<<<grid_of(s->n_runs, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->runstart, sorted, s->runkey, s->n_runs);
    CU(cudaGetLastError());
    /* apply the permutation array by array through one spare buffer (4
     * bytes per slot: the key buffer the sort did not leave its keys in),
     * and the 64-bit ids through that spare and the other permutation
     * buffer; the arrays layout=compact does not hold are NULL */
    float *spare = (float *)(sorted == s->keys[0] ? s->keys[1] : s->keys[0]);
    uint32_t *pspare = perm == s->vals[0] ? s->vals[1] : s->vals[0];
    const unsigned gb = grid_of(n, BG_CUDA_EW_THREADS);
    k_gather_halves<<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>((uint32_t *)spare, pspare, s->P.id, perm, n);
    CU(cudaGetLastError());
    k_join_halves<<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>(s->P.id, (const uint32_t *)spare, pspare, n);
    CU(cudaGetLastError());
    for (int k = 0; k < NPF; ++k) {
      if (!s->P.f[k]) continue;
      k_gather<float><<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>(spare, s->P.f[k], perm, n);
      CU(cudaGetLastError());
      float *old = s->P.f[k];
      s->P.f[k] = spare;
      spare = old;
    }
    k_gather<int32_t><<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>((int32_t *)spare, s->P.park, perm, n);
    CU(cudaGetLastError());
    {
      int32_t *old = s->P.park;
      s->P.park = (int32_t *)spare;
      spare = (float *)old;
    }
    /* the material index, only when the table has several (one material's
     * indices are all 0): gathered into the spare float buffer, copied back */
    if (s->cfg->n_mats > 1) {
      k_gather<uint8_t><<<gb, BG_CUDA_EW_THREADS, 0, s->st>>>((uint8_t *)spare, s->P.mat, perm, n);
      CU(cudaGetLastError());
      CU(cudaMemcpyAsync(s->P.mat, spare, (size_t)n * sizeof(uint8_t), cudaMemcpyDeviceToDevice, s->st));
    }
    /* the buffers left over become the sort's: particle arrays and sort
     * buffers all hold cap slots (cuda_ensure_sort_buffers), so they interchange */
    if (s->sort_cap != s->cap) return fail(s, BG_ERR_INTERNAL, "sort buffers and particle arrays differ in size");
    if (sorted == s->keys[0]) s->keys[1] = (uint32_t *)spare;
    else s->keys[0] = (uint32_t *)spare;
    s->dirty = 0;
  }
  return mark(s, 1);
}

