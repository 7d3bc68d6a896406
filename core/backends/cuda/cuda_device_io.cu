/* cuda_device_io.cu: fields to and particles from the caller's device
 * memory (bagnold.h, "device memory"), ordered against the caller's stream
 * by events, so neither side waits on the host unless no stream is given.
 * The checks of set and add run on the device and mirror the host path's
 * (sim.c add_common, setup.c check_values): the first bad particle, by
 * insertion index, is named. */
#include "cuda_internal.cuh"

/* What a check found: the smallest key (particle << 8 | axis << 4 | code)
 * over the bad particles, and the largest speed^2 over the good ones as
 * float bits (non-negative floats order as their bits do). */
enum { BAD_NONE = 0, BAD_X_NONFINITE = 1, BAD_X_OUTSIDE = 2, BAD_OFF_PLANE = 3, BAD_V_PLANE = 4, BAD_V_NONFINITE = 5 };

typedef struct dcheck {
  unsigned long long first_bad; /* ULLONG_MAX: none */
  unsigned int vmax2_bits;
} dcheck;

/* Positions (x may be NULL: velocities only) and velocities of n particles,
 * against the grid's interior as add_common states it. */
__global__ void k_check(dgeom G, float plane_y, int64_t n, const float *x, const float *v, dcheck *out) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  int code = BAD_NONE, axis = 0;
  for (int a = 0; a < 3 && code == BAD_NONE; ++a) {
    axis = a;
    if (x) {
      const float xa = x[3 * p + a];
      if (!isfinite(xa)) {
        code = BAD_X_NONFINITE;
        break;
      }
      if (G.dim == 2 && a == 1) {
        if (xa != plane_y) code = BAD_OFF_PLANE;
      } else {
        const float xg = (xa - G.origin[a]) * G.inv_dx;
        if (!(xg >= 0.5f && xg < (float)G.dims[a] - 1.5f)) code = BAD_X_OUTSIDE;
      }
    }
    if (code == BAD_NONE && v) {
      if (!isfinite(v[3 * p + a])) code = BAD_V_NONFINITE;
      else if (G.dim == 2 && a == 1 && v[3 * p + a] != 0.0f) code = BAD_V_PLANE;
    }
  }
  if (code != BAD_NONE) {
    atomicMin(&out->first_bad, ((unsigned long long)p << 8) | ((unsigned long long)axis << 4) | (unsigned)code);
  } else if (v) {
    const float v2 = v[3 * p] * v[3 * p] + v[3 * p + 1] * v[3 * p + 1] + v[3 * p + 2] * v[3 * p + 2];
    atomicMax(&out->vmax2_bits, __float_as_uint(v2));
  }
}

/* Velocities in insertion order into the slots (slot p is row id[p]); the
 * speed^2 of the active ones maxed into vmax2_bits. */
__global__ void k_set_v(dparts P, int64_t n, const float *v, unsigned int *vmax2_bits) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int64_t o = P.id[p];
  float v2 = 0.0f;
  for (int d = 0; d < 3; ++d) {
    const float c = v[3 * o + d];
    P.f[PV + d][p] = c;
    v2 += c * c;
  }
  if (P.park[p] < 0) atomicMax(vmax2_bits, __float_as_uint(v2));
}

static cudaStream_t user_stream(uintptr_t stream) {
  if (stream == 1) return cudaStreamLegacy;
  if (stream == 2) return cudaStreamPerThread;
  return (cudaStream_t)stream;
}

/* The exchange's start: the backend's stream waits for the caller's. */
static bg_status enter(cuda_state *s, uintptr_t stream) {
  if (!stream) return BG_OK;
  cudaEvent_t ev;
  CU(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  cudaError_t e = cudaEventRecord(ev, user_stream(stream));
  if (e == cudaSuccess) e = cudaStreamWaitEvent(s->st, ev, 0);
  cudaEventDestroy(ev);
  if (e != cudaSuccess) return cu_fail(s, e, "ordering after the caller's stream", __FILE__, __LINE__);
  return BG_OK;
}

/* Its end: the caller's stream waits for the backend's, or, with no
 * stream, the host does. */
static bg_status leave(cuda_state *s, uintptr_t stream) {
  if (!stream) {
    CU(cudaStreamSynchronize(s->st));
    return BG_OK;
  }
  cudaEvent_t ev;
  CU(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  cudaError_t e = cudaEventRecord(ev, s->st);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(user_stream(stream), ev, 0);
  cudaEventDestroy(ev);
  if (e != cudaSuccess) return cu_fail(s, e, "ordering the caller's stream after the exchange", __FILE__, __LINE__);
  return BG_OK;
}

int cuda_device_ordinal(void *state) { return ((cuda_state *)state)->device; }

bg_status cuda_get_device(void *state, bg_field f, bg_real *dev_out, uintptr_t stream) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = enter(s, stream);
  if (st == BG_OK) st = cuda_launch_get(s, f, dev_out);
  if (st == BG_OK) st = leave(s, stream);
  return st;
}

/* Runs k_check and reads its two words back (the one host wait of a check:
 * a refusal must come before anything changes). */
static bg_status run_check(cuda_state *s, int64_t n, const float *x, const float *v, dcheck *h) {
  dcheck *d = NULL;
  CU(cudaMalloc((void **)&d, sizeof *d));
  const dcheck init = {~0ull, 0u};
  cudaError_t e = cudaMemcpyAsync(d, &init, sizeof init, cudaMemcpyHostToDevice, s->st);
  if (e == cudaSuccess) {
    k_check<<<grid_of(n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->geo, s->cfg->origin[1], n, x,
                                                                                v, d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(h, d, sizeof *h, cudaMemcpyDeviceToHost, s->st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
  cudaFree(d);
  if (e != cudaSuccess) return cu_fail(s, e, "checking device arrays", __FILE__, __LINE__);
  return BG_OK;
}

/* The refusal for the first bad particle, worded as the host path words it. */
static bg_status refuse(cuda_state *s, const dcheck *h, const float *x) {
  const unsigned long long key = h->first_bad;
  const size_t p = (size_t)(key >> 8);
  const int axis = (int)((key >> 4) & 0xf), code = (int)(key & 0xf);
  const bg_config *c = s->cfg;
  float xa = 0.0f;
  if (x && (code == BAD_X_OUTSIDE || code == BAD_OFF_PLANE))
    (void)cudaMemcpy(&xa, x + 3 * p + axis, sizeof xa, cudaMemcpyDeviceToHost);
  switch (code) {
    case BAD_X_NONFINITE:
      snprintf(s->err, s->err_len, "x[%zu] (particle %zu, axis %d) is not finite", 3 * p + axis, p, axis);
      return BG_ERR_NONFINITE;
    case BAD_X_OUTSIDE:
      snprintf(s->err, s->err_len, "particle %zu: x[%d] = %g m is outside the grid's interior [%g, %g) m", p, axis,
               (double)xa, (double)(c->origin[axis] + 0.5f * c->dx),
               (double)(c->origin[axis] + ((float)c->dims[axis] - 1.5f) * c->dx));
      return BG_ERR_OUTSIDE;
    case BAD_OFF_PLANE:
      snprintf(s->err, s->err_len,
               "particle %zu: x[1] = %g m is off the plane of a 2D simulation (y must be origin[1] = %g m)", p,
               (double)xa, (double)c->origin[1]);
      return BG_ERR_OUTSIDE;
    case BAD_V_PLANE:
      snprintf(s->err, s->err_len, "particle %zu: v[1] must be 0 in a 2D simulation (nothing leaves the plane)", p);
      return BG_ERR_RANGE;
    default:
      snprintf(s->err, s->err_len, "v[%zu] (particle %zu) is not finite", 3 * p + axis, p);
      return BG_ERR_NONFINITE;
  }
}

bg_status cuda_set_device(void *state, bg_field f, const bg_real *dev_in, uintptr_t stream) {
  cuda_state *s = (cuda_state *)state;
  (void)f; /* BG_FIELD_V, checked by the front end */
  bg_status st = cuda_flush(s);
  if (st == BG_OK) st = enter(s, stream);
  dcheck h;
  if (st == BG_OK) st = run_check(s, (int64_t)s->n, NULL, dev_in, &h);
  if (st != BG_OK) return st;
  if (h.first_bad != ~0ull) return refuse(s, &h, NULL);
  unsigned int *d = NULL;
  CU(cudaMalloc((void **)&d, sizeof *d));
  cudaError_t e = cudaMemsetAsync(d, 0, sizeof *d, s->st);
  if (e == cudaSuccess) {
    k_set_v<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, (int64_t)s->n,
                                                                                          dev_in, d);
    e = cudaGetLastError();
  }
  unsigned int bits = 0;
  if (e == cudaSuccess) e = cudaMemcpyAsync(&bits, d, sizeof bits, cudaMemcpyDeviceToHost, s->st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
  cudaFree(d);
  if (e != cudaSuccess) return cu_fail(s, e, "setting velocities", __FILE__, __LINE__);
  /* the next dt must see the speeds just set, as bg_sim_set's import does */
  float v2;
  memcpy(&v2, &bits, sizeof v2);
  s->max_speed = sqrt((double)v2);
  cuda_pre_invalidate(s); /* the next P2G scatters the velocities just set */
  return leave(s, stream);
}

bg_status cuda_add_device(void *state, size_t n, const bg_real *x, const bg_real *v, bg_real vol, int mat,
                          uintptr_t stream) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s); /* the speeds below must max into the last step's */
  if (st == BG_OK) st = enter(s, stream);
  dcheck h;
  if (st == BG_OK) st = run_check(s, (int64_t)n, x, v, &h);
  if (st != BG_OK) return st;
  if (h.first_bad != ~0ull) return refuse(s, &h, x);
  if ((st = cuda_compact_volume(s, n, NULL, vol)) != BG_OK) return st;
  if ((st = cuda_grow(s, s->n + n)) != BG_OK) return st;
  if ((st = cuda_launch_init(s, (int64_t)s->n, (int64_t)n, x, v, vol, mat)) != BG_OK) return st;
  /* the host tallies as cuda_add keeps them: each particle's float mass summed in double */
  const float m = s->cfg->mats[mat].el.rho0 * vol;
  for (size_t k = 0; k < n; ++k) s->total_mass += (double)m;
  float v2;
  memcpy(&v2, &h.vmax2_bits, sizeof v2);
  if (v && sqrt((double)v2) > s->max_speed) s->max_speed = sqrt((double)v2);
  cuda_compact_commit(s, n, NULL, vol);
  s->n += n;
  s->n_active += n;
  s->dirty = 1;
  cuda_pre_invalidate(s);
  return leave(s, stream);
}

bg_status cuda_device_alloc(void *state, size_t bytes, void **dev) {
  cuda_state *s = (cuda_state *)state;
  CU(cudaMalloc(dev, bytes));
  return BG_OK;
}

void cuda_device_free(void *state, void *dev) {
  (void)state;
  cudaFree(dev);
}

void cuda_memory(void *state, bg_memory *out) {
  cuda_state *s = (cuda_state *)state;
  const size_t cap = s->cap, nn = (size_t)s->cfg->n_nodes;
  out->particle_bytes = cap * cuda_bytes_per_slot(s);
  /* grid=sparse: the pool as held (its largest step), the slot table and the marks, the scan's scratch */
  const size_t grid_array = s->sparse ? (size_t)s->pool_cap * BG_CUDA_BLOCK_NODES * sizeof(float4) +
                                            (size_t)s->geo.n_blocks * 2 * sizeof(int32_t) + s->sp_tmp_bytes
                                      : nn * sizeof(float4);
  out->grid_nodes = s->sparse ? (size_t)s->pool_cap * BG_CUDA_BLOCK_NODES : nn;
  out->grid_bytes = grid_array + (s->gfix ? 4 * nn * sizeof *s->gfix : 0) + (s->gs ? nn * sizeof(float) : 0) +
                    (s->gm ? nn * sizeof(float) : 0) + (s->gnext ? 2 * nn * sizeof(float4) : 0);
  /* the sort's key and permutation double buffers, CUB's scratch, the run list, the boundary nodes, the tallies */
  out->other_bytes = 2 * s->sort_cap * (sizeof(uint32_t) + sizeof(uint32_t)) + s->cub_bytes +
                     s->run_cap * (sizeof(int64_t) + sizeof(uint32_t)) + (s->bn_cap + s->bb_cap) * sizeof(bg_bnode) +
                     s->tally_words * 8;
}
