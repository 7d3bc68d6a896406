/* cuda_readback.cu: what leaves the device: particle fields in insertion
 * order, the grid, the tallies of the last step (folded in by cuda_flush,
 * the step's one host wait), the stage times, the wall forces, and the
 * raw export and import of every particle with the sort state. */
#include "cuda_internal.cuh"

/* Read-back in insertion order: slot p writes row id[p] (64-bit offsets).
 * mats: the device copy of the material table, or NULL for one material
 * (mat0, every index 0). */
__global__ void k_get(dparts P, int64_t n, int field, bg_mat mat0, const bg_mat *mats, int dim, float *out) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int64_t o = P.id[p];
  const bg_mat &mat = mats ? mats[P.mat[p]] : mat0;
  switch (field) {
    case BG_FIELD_X:
      for (int d = 0; d < 3; ++d) out[3 * o + d] = P.f[PX + d][p];
      break;
    case BG_FIELD_V:
      for (int d = 0; d < 3; ++d) out[3 * o + d] = P.f[PV + d][p];
      break;
    case BG_FIELD_F:
      for (int d = 0; d < 9; ++d) out[9 * o + d] = P.f[PF + d][p];
      break;
    case BG_FIELD_C:
      for (int d = 0; d < 9; ++d) out[9 * o + d] = P.f[PC + d][p];
      break;
    case BG_FIELD_JP: out[o] = expf(bg_mat_log_jp(&mat, P.f + PS, p)); break;
    case BG_FIELD_DENSITY: {
      bg_mat3 F;
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
      out[o] = bg_density(mat.el.rho0, bg_mat3_det(F), bg_mat_log_jp(&mat, P.f + PS, p));
      break;
    }
    case BG_FIELD_Q: out[o] = bg_mat_q(&mat, P.f + PS, p); break;
    case BG_FIELD_STRESS: {
      /* Cauchy stress tau / J with J = det(F_E) Jp, as on the CPU */
      bg_mat3 F;
      for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
      const float J = bg_mat3_det(F) * expf(bg_mat_log_jp(&mat, P.f + PS, p));
      if (P.f[PT]) {
        const int sym[9] = {0, 3, 4, 3, 1, 5, 4, 5, 2};
        for (int e = 0; e < 9; ++e) out[9 * o + e] = P.f[PT + sym[e]][p] / J;
      } else { /* layout=compact: derived as P2G derives it */
        const bg_mat3 tau = compact_tau(P, p, dim);
        for (int e = 0; e < 9; ++e) out[9 * o + e] = tau.m[e / 3][e % 3] / J;
      }
      break;
    }
    case BG_FIELD_MASS: out[o] = p_mass(P, p); break;
    case BG_FIELD_ACTIVE: out[o] = P.park[p] < 0 ? 1.0f : 0.0f; break;
    case BG_FIELD_MODE: out[o] = P.f[PMODE][p]; break;
    case BG_FIELD_MATERIAL: out[o] = (float)P.mat[p]; break;
    default: break;
  }
}

__global__ void k_grid_get(const float4 *grid, dgeom G, int64_t nn, int which, float *out) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nn) return;
  const int64_t at = grid_addr_rt(G, i);
  const float4 q = at >= 0 ? grid[at] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (which == 0) {
    out[i] = q.x;
  } else {
    const int has = q.x > 0.0f;
    out[3 * i] = has ? q.y : 0.0f;
    out[3 * i + 1] = has ? q.z : 0.0f;
    out[3 * i + 2] = has ? q.w : 0.0f;
  }
}

/* Folds the last step's device tallies and stage events into the host
 * counters: the one wait per step. */
bg_status cuda_flush(cuda_state *s) {
  if (!s->pending) return BG_OK;
  CU(cudaEventSynchronize(s->ev_tally));
  s->pending = 0;
  const unsigned long long *t = s->h_tally;
  double vmax2;
  memcpy(&vmax2, &t[0], sizeof vmax2);
  s->max_speed = sqrt(vmax2);
  int ns = s->cfg->n_sinks;
  const double *mass = (const double *)(t + 1 + (ns + 1));
  size_t parked = 0;
  s->parked_mass = 0;
  for (int k = 0; k <= ns; ++k) {
    parked += (size_t)t[1 + k];
    s->sink_mass[k] = mass[k];
    s->parked_mass += mass[k];
  }
  memcpy(s->wf, mass + (ns + 1), BG_WALL_TALLY * (size_t)s->cfg->n_walls * sizeof *s->wf);
  if (s->cfg->n_cuts) { /* the cut transfers' share, after the walls' */
    const size_t nw = BG_WALL_TALLY * (size_t)s->cfg->n_walls;
    const double *cw = mass + (ns + 1) + nw;
    for (size_t k = 0; k < nw; ++k) s->wf[k] += cw[k];
  }
  s->n_sink = parked - (size_t)t[1 + ns];
  s->n_out = (size_t)t[1 + ns];
  s->n_active = s->n - parked;
  if (s->ev_mask == 0x1f) {
    for (int k = 0; k < BG_STAGE_COUNT; ++k) {
      float ms = 0;
      CU(cudaEventElapsedTime(&ms, s->ev[k], s->ev[k + 1]));
      s->stage_ms[k] += ms;
    }
  }
  s->ev_mask = 0;
  return BG_OK;
}

bg_status cuda_get(void *state, bg_field f, bg_real *out) {
  cuda_state *s = (cuda_state *)state;
  if (!s->n) return BG_OK;
  size_t w = (size_t)bg_field_width(f), bytes = s->n * w * sizeof(float);
  float *d = NULL;
  CU(cudaMalloc((void **)&d, bytes));
  k_get<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
      s->P, (int64_t)s->n, (int)f, s->cfg->mat, s->mats, s->cfg->dim, d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, s->st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
  cudaFree(d);
  if (e != cudaSuccess) return cu_fail(s, e, "reading back particles", __FILE__, __LINE__);
  return BG_OK;
}

bg_status cuda_launch_get(cuda_state *s, bg_field f, float *out) {
  k_get<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
      s->P, (int64_t)s->n, (int)f, s->cfg->mat, s->mats, s->cfg->dim, out);
  CU(cudaGetLastError());
  return BG_OK;
}

bg_status cuda_stats(void *state, bg_backend_stats *out, double *sink_mass) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s);
  if (st != BG_OK) return st;
  out->n_active = s->n_active;
  out->n_parked_sink = s->n_sink;
  out->n_parked_out = s->n_out;
  out->parked_mass = s->parked_mass;
  out->total_mass = s->total_mass;
  out->max_speed = s->max_speed;
  if (sink_mass)
    for (int k = 0; k < s->cfg->n_sinks; ++k) sink_mass[k] = s->sink_mass[k];
  return BG_OK;
}

bg_status cuda_grid(void *state, int which, bg_real *out) {
  cuda_state *s = (cuda_state *)state;
  int64_t nn = s->cfg->n_nodes;
  size_t bytes = (size_t)nn * (which ? 3 : 1) * sizeof(float);
  float *d = NULL;
  CU(cudaMalloc((void **)&d, bytes));
  k_grid_get<<<grid_of(nn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->grid, s->geo, nn, which, d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, s->st);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
  cudaFree(d);
  if (e != cudaSuccess) return cu_fail(s, e, "reading back the grid", __FILE__, __LINE__);
  return BG_OK;
}

size_t cuda_count(void *state) { return ((cuda_state *)state)->n; }

/* layout=compact: array k, which it does not hold, as the full layout
 * would hold it: tau derived from F (stored symmetric: xx yy zz xy xz
 * yz), the one mass and volume, an unused state slot's 0. */
__global__ void k_derived(dparts P, int64_t n, int k, int dim, float *out) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p >= n) return;
  if (k >= PT && k < PT + 6) {
    const bg_mat3 t = compact_tau(P, p, dim);
    const float ts[6] = {t.m[0][0], t.m[1][1], t.m[2][2], t.m[0][1], t.m[0][2], t.m[1][2]};
    out[p] = ts[k - PT];
  } else {
    out[p] = k == PM ? P.m1 : k == PVOL ? P.v1 : 0.0f;
  }
}

bg_status cuda_export(void *state, bg_raw *r) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s);
  if (st != BG_OK) return st;
  if (s->n) {
    float *derived = NULL; /* layout=compact: an array it does not hold, made for the copy */
    for (int k = 0; k < NPF; ++k) {
      if (s->P.f[k]) {
        CU(cudaMemcpyAsync(r->f[k], s->P.f[k], s->n * sizeof(float), cudaMemcpyDeviceToHost, s->st));
        continue;
      }
      if (!derived) CU(cudaMalloc((void **)&derived, s->n * sizeof(float)));
      k_derived<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
          s->P, (int64_t)s->n, k, s->cfg->dim, derived);
      cudaError_t e = cudaGetLastError();
      if (e == cudaSuccess) e = cudaMemcpyAsync(r->f[k], derived, s->n * sizeof(float), cudaMemcpyDeviceToHost, s->st);
      if (e == cudaSuccess) e = cudaStreamSynchronize(s->st); /* derived is reused by the next array */
      if (e != cudaSuccess) {
        cudaFree(derived);
        return cu_fail(s, e, "exporting a derived array", __FILE__, __LINE__);
      }
    }
    cudaFree(derived);
    CU(cudaMemcpyAsync(r->id, s->P.id, s->n * sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaMemcpyAsync(r->park, s->P.park, s->n * sizeof(int32_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaMemcpyAsync(r->mat, s->P.mat, s->n * sizeof(uint8_t), cudaMemcpyDeviceToHost, s->st));
  }
  /* the runs P2G launches over until the next sort; none while dirty */
  r->n_runs = -1;
  if (s->n && !s->dirty && s->n_runs > 0 && (size_t)s->n_runs <= r->run_cap) {
    CU(cudaMemcpyAsync(r->runstart, s->runstart, (size_t)s->n_runs * sizeof(int64_t), cudaMemcpyDeviceToHost, s->st));
    CU(cudaMemcpyAsync(r->runkey, s->runkey, (size_t)s->n_runs * sizeof(uint32_t), cudaMemcpyDeviceToHost, s->st));
    r->n_runs = s->n_runs;
  }
  CU(cudaStreamSynchronize(s->st));
  r->n = s->n;
  r->parked_mass = s->parked_mass;
  r->total_mass = s->total_mass;
  r->max_speed = s->max_speed;
  for (int k = 0; k <= s->cfg->n_sinks; ++k) r->sink_mass[k] = s->sink_mass[k];
  return BG_OK;
}

bg_status cuda_import(void *state, const bg_raw *r) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s);
  if (st != BG_OK) return st;
  /* layout=compact holds one volume: the checkpoint's must be one, and
   * the same as particles already added (refused before anything changes) */
  if (s->compact && r->n) {
    /* the import replaces every particle: its first volume is the one */
    const int had = s->have_v1;
    const float v1 = s->P.v1;
    s->have_v1 = 1;
    s->P.v1 = r->f[PVOL][0];
    st = cuda_compact_volume(s, r->n, r->f[PVOL], 0.0f);
    s->have_v1 = had;
    s->P.v1 = v1;
    if (st != BG_OK) return st;
  }
  if ((st = cuda_grow(s, r->n)) != BG_OK) return st;
  /* a checkpoint without runs (the CPU's, or one taken before a sort)
   * makes the next step sort */
  int keep_runs = r->n && r->n_runs > 0;
  if (keep_runs) {
    if ((st = cuda_ensure_sort_buffers(s)) != BG_OK) return st;
    if ((size_t)r->n_runs > s->run_cap) keep_runs = 0;
  }
  if (r->n) {
    for (int k = 0; k < NPF; ++k) /* compact: what it does not hold is derived, or one value (above) */
      if (s->P.f[k]) CU(cudaMemcpyAsync(s->P.f[k], r->f[k], r->n * sizeof(float), cudaMemcpyHostToDevice, s->st));
    if (s->compact) {
      s->have_v1 = 0;
      cuda_compact_commit(s, r->n, r->f[PVOL], 0.0f);
    }
    CU(cudaMemcpyAsync(s->P.id, r->id, r->n * sizeof(int64_t), cudaMemcpyHostToDevice, s->st));
    CU(cudaMemcpyAsync(s->P.park, r->park, r->n * sizeof(int32_t), cudaMemcpyHostToDevice, s->st));
    CU(cudaMemcpyAsync(s->P.mat, r->mat, r->n * sizeof(uint8_t), cudaMemcpyHostToDevice, s->st));
    if (keep_runs) {
      CU(cudaMemcpyAsync(s->runstart, r->runstart, (size_t)r->n_runs * sizeof(int64_t), cudaMemcpyHostToDevice,
                         s->st));
      CU(cudaMemcpyAsync(s->runkey, r->runkey, (size_t)r->n_runs * sizeof(uint32_t), cudaMemcpyHostToDevice, s->st));
    }
  }
  /* the device tallies accumulate parked counts and masses across steps */
  int ns = s->cfg->n_sinks;
  memset(s->h_tally, 0, s->tally_words * 8);
  for (size_t p = 0; p < r->n; ++p)
    if (r->park[p] >= 0) s->h_tally[1 + r->park[p]]++;
  memcpy(s->h_tally + 1 + (ns + 1), r->sink_mass, (size_t)(ns + 1) * sizeof(double));
  CU(cudaMemcpyAsync(s->d_tally, s->h_tally, s->tally_words * 8, cudaMemcpyHostToDevice, s->st));
  CU(cudaStreamSynchronize(s->st));
  s->n = r->n;
  s->n_runs = keep_runs ? r->n_runs : 0;
  s->dirty = keep_runs ? 0 : 1;
  cuda_pre_invalidate(s);
  s->parked_mass = r->parked_mass;
  s->total_mass = r->total_mass;
  s->max_speed = r->max_speed;
  size_t parked = 0, out = 0;
  for (size_t p = 0; p < r->n; ++p)
    if (r->park[p] >= 0) {
      parked++;
      if (r->park[p] == ns) out++;
    }
  for (int k = 0; k <= ns; ++k) s->sink_mass[k] = r->sink_mass[k];
  s->n_active = r->n - parked;
  s->n_sink = parked - out;
  s->n_out = out;
  return BG_OK;
}

bg_status cuda_wall_forces(void *state, double *out) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s);
  if (st != BG_OK) return st;
  memcpy(out, s->wf, BG_WALL_TALLY * (size_t)s->cfg->n_walls * sizeof *out);
  return BG_OK;
}

bg_status cuda_stage_times(void *state, double ms[BG_STAGE_COUNT]) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s);
  if (st != BG_OK) return st;
  for (int k = 0; k < BG_STAGE_COUNT; ++k) ms[k] = s->stage_ms[k];
  return BG_OK;
}
