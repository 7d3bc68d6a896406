/* cuda_grid.cu: the grid stage: the node update (momentum to velocity,
 * gravity, damping) and the contact on the solid nodes, with each wall's
 * share of the momentum change tallied on the device for the wall forces. */
#include "cuda_internal.cuh"

/* Node update (bg_node_update): momentum to velocity, plus gravity, then
 * the optional damping factor (1 when off). */
__global__ void k_grid_update(float4 *grid, int64_t nn, float g0, float g1, float g2, float damp) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nn) return;
  float4 q = grid[i];
  if (q.x > 0.0f) {
    float g[4] = {q.x, q.y, q.z, q.w};
    const float gdt[3] = {g0, g1, g2};
    bg_node_update(g, gdt);
    grid[i] = make_float4(g[0], g[1] * damp, g[2] * damp, g[3] * damp);
  }
}

/* The same after a fused G2P2G (cuda_g2p2g.cu): the node's mass and
 * momentum from gnext plus dt times its force from gforce (bg_p2g_affine's
 * stress term, split off), written to grid at every node (zero where no
 * particle reached), and gnext, gforce cleared for the next fused scatter. */
__global__ void k_grid_update_pre(float4 *grid, float4 *gnext, float4 *gforce, int64_t nn, float dt, float g0,
                                  float g1, float g2, float damp) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= nn) return;
  const float4 a = gnext[i], f = gforce[i];
  if (a.x != 0.0f || a.y != 0.0f || a.z != 0.0f || a.w != 0.0f || f.x != 0.0f || f.y != 0.0f || f.z != 0.0f) {
    gnext[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    gforce[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  float4 q = make_float4(a.x, a.y + dt * f.x, a.z + dt * f.y, a.w + dt * f.z);
  if (q.x > 0.0f) {
    float g[4] = {q.x, q.y, q.z, q.w};
    const float gdt[3] = {g0, g1, g2};
    bg_node_update(g, gdt);
    q = make_float4(g[0], g[1] * damp, g[2] * damp, g[3] * damp);
  }
  grid[i] = q;
}

/* Contact on the solid nodes bn, less those listed in skip (the bodies'
 * nodes, which carry their own entry); each wall's share of the momentum
 * change, over dt, is added to wf (BG_WALL_TALLY doubles per wall: minus
 * the force on it, then that force's moment about the grid's origin). */
__global__ void k_boundary(float4 *grid, dgeom G, const bg_bnode *bn, int64_t nbn, const bg_bnode *skip, int64_t nskip,
                           const bg_wallc *walls, int n_colliders, double inv_dt, double *wf) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= nbn) return;
  const bg_bnode b = bn[k];
  if (nskip && bg_bnode_find(skip, nskip, b.node) >= 0) return;
  const int64_t at = grid_addr_rt(G, b.node);
  if (at < 0) return; /* grid=sparse: no block, no mass */
  float4 q = grid[at];
  if (q.x > 0.0f) {
    float v[3] = {q.y, q.z, q.w};
    bg_bnode_effect eff;
    bg_bnode_apply(&b, walls, n_colliders, v, &eff);
    q.y = v[0];
    q.z = v[1];
    q.w = v[2];
    grid[at] = q;
    if (eff.n) {
      /* bg_wall_tally_add, with atomics: one node's share to each wall */
      double xn[3];
      bg_node_offset(b.node, G.dims, (double)G.dx, xn);
      for (int e = 0; e < eff.n; ++e) {
        double f[3];
        for (int d = 0; d < 3; ++d) f[d] = -(double)q.x * eff.dv[e][d] * inv_dt;
        if (f[0] == 0.0 && f[1] == 0.0 && f[2] == 0.0) continue;
        double *t = wf + BG_WALL_TALLY * eff.wall[e];
        for (int d = 0; d < 3; ++d)
          if (f[d] != 0.0) atomicAdd(&t[d], f[d]);
        atomicAdd(&t[3], xn[1] * f[2] - xn[2] * f[1]);
        atomicAdd(&t[4], xn[2] * f[0] - xn[0] * f[2]);
        atomicAdd(&t[5], xn[0] * f[1] - xn[1] * f[0]);
      }
    }
  }
}

bg_status cuda_grid_update(void *state, bg_real dt) {
  cuda_state *s = (cuda_state *)state;
  const bg_config *c = s->cfg;
  /* the dense grid's every node, or the sparse pool's blocks of this step */
  const int64_t nn = s->sparse ? s->n_act * BG_CUDA_BLOCK_NODES : c->n_nodes;
  if (s->pre == BG_PRE_VALID) {
    /* cuda_p2g left the fused scatter where it was (a dense grid) */
    k_grid_update_pre<<<grid_of(nn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->grid, s->gnext, s->gforce, nn, dt, c->gravity[0] * dt, c->gravity[1] * dt, c->gravity[2] * dt,
        bg_damping_factor(c->damping, dt));
    s->pre = BG_PRE_NONE;
  } else if (nn) {
    k_grid_update<<<grid_of(nn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->grid, nn, c->gravity[0] * dt, c->gravity[1] * dt, c->gravity[2] * dt,
        bg_damping_factor(c->damping, dt));
  }
  CU(cudaGetLastError());
  double *wf = (double *)(s->d_tally + 1 + 2 * ((size_t)c->n_sinks + 1));
  CU(cudaMemsetAsync(wf, 0, BG_WALL_TALLY * (size_t)c->n_walls * sizeof(double), s->st));
  const double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
  const int ncol = c->n_walls - BG_FACE_COUNT;
  if (s->n_bn) {
    k_boundary<<<grid_of((int64_t)s->n_bn, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->grid, s->geo, s->bn, (int64_t)s->n_bn, s->bb, (int64_t)s->n_bb, s->walls, ncol, inv_dt, wf);
    CU(cudaGetLastError());
  }
  if (s->n_bb) {
    k_boundary<<<grid_of((int64_t)s->n_bb, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
        s->grid, s->geo, s->bb, (int64_t)s->n_bb, NULL, 0, s->walls, ncol, inv_dt, wf);
    CU(cudaGetLastError());
  }
  return mark(s, 3);
}

bg_status cuda_set_body_nodes(void *state, const bg_bnode *nodes, size_t n) {
  cuda_state *s = (cuda_state *)state;
  /* the last upload has left the pinned copy before it is written again */
  if (s->ev_bb) CU(cudaEventSynchronize(s->ev_bb));
  if (n > s->h_bb_cap) {
    bg_bnode *h = NULL;
    const size_t cap = n + n / 2;
    CU(cudaMallocHost((void **)&h, cap * sizeof *h));
    if (s->h_bb) cudaFreeHost(s->h_bb);
    s->h_bb = h;
    s->h_bb_cap = cap;
  }
  if (n > s->bb_cap) {
    bg_bnode *d = NULL;
    const size_t cap = n + n / 2;
    CU(cudaMalloc((void **)&d, cap * sizeof *d));
    cudaFree(s->bb); /* synchronises with kernels still reading it */
    s->bb = d;
    s->bb_cap = cap;
  }
  if (n) {
    memcpy(s->h_bb, nodes, n * sizeof *nodes);
    CU(cudaMemcpyAsync(s->bb, s->h_bb, n * sizeof *nodes, cudaMemcpyHostToDevice, s->st));
    if (!s->ev_bb) CU(cudaEventCreateWithFlags(&s->ev_bb, cudaEventDisableTiming));
    CU(cudaEventRecord(s->ev_bb, s->st));
  }
  s->n_bb = n;
  return BG_OK;
}

const void *cuda_grid_kernel(void) { return (const void *)k_grid_update; }
