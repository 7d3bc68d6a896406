/* cuda_g2p.cu: the grid-to-particle gather, one thread per particle on the
 * global grid (its 27 reads per particle are served by L2), followed by
 * the scalar constitutive update (bg_material_update) and the parking
 * codes. The maximum speed for the next dt and the parking tallies are
 * reduced on the device and come back with one small async copy per step:
 * the front end's dt query is the step's only host wait. The kernel is
 * compiled with and without a bound on its registers (the property
 * g2p_minblocks), for one material (entry 0 by value: no index is loaded)
 * and for a table (each particle's entry from the device copy of the
 * table, through its index), and with and without the nonlocal service's
 * Laplacian: a 27-node loop over two more grids that, compiled in, held
 * the registers of every run at its own peak (168 on sm_90 against 71
 * without it), though only a nonlocal model ever takes it. */
#include "cuda_internal.cuh"

template <bool MULTI, int DIM, bool NL>
static __device__ __forceinline__ double g2p_finish(const dparts &P, int64_t p, const dgeom &G, const dmat &M,
                                                    float dt, const bg_mat *mat, const bg_bspline &w,
                                                    const float av[3], const bg_mat3 &C,
                                                    const float4 *__restrict__ grid, const float *__restrict__ gs,
                                                    const float *__restrict__ gm, int nl, unsigned long long *tally);

/* One particle's G2P, returning its |v|^2 for the step's maximum speed
 * (0 when parked now). MULTI: a material table (each particle's entry
 * through its index, and the nonlocal service only for the entries that
 * need it, averaging over their own mass gm). */
template <bool MULTI, int DIM, bool NL, bool SP>
static __device__ __forceinline__ double g2p_particle(const dparts &P, int64_t p, const dgeom &G, const dmat &M,
                                                      float dt, const float4 *__restrict__ grid,
                                                      const float *__restrict__ gs, const float *__restrict__ gm,
                                                      int nl, unsigned long long *tally) {
  double sp2 = 0.0;
  {
    const bg_mat *mat = MULTI ? M.mats + P.mat[p] : &M.mat;
    float xg[3];
    for (int d = 0; d < 3; ++d) xg[d] = (P.f[PX + d][p] - G.origin[d]) * G.inv_dx;
    const bg_bspline w = bg_bspline_eval_dim(xg, DIM);
    constexpr int b0 = DIM == 2 ? 1 : 0, b1 = DIM == 2 ? 1 : 2; /* the y stencil (bg_stencil_b0/b1) */
    const float dx = G.dx, k4 = 4.0f * G.inv_dx * G.inv_dx;
    /* lanes 1..3 of the CPU's 4-lane sums (lane 0, the mass, is ignored there) */
    float av[3] = {0, 0, 0}, aa[3] = {0, 0, 0}, ab[3] = {0, 0, 0}, ac[3] = {0, 0, 0};
    /* grid=sparse: the stencil's blocks, once (sparse_stencil) */
    sparse_stencil ss;
    if (SP) {
      const int n0[3] = {w.base[0], w.base[1] + b0, w.base[2]}, span[3] = {3, b1 - b0 + 1, 3};
      sparse_stencil_load(G, n0, span, ss);
    }
    for (int a = 0; a < 3; ++a) {
      const float dxa = ((float)a - w.fx[0]) * dx;
      for (int b = b0; b <= b1; ++b) {
        const float dxb = ((float)b - w.fx[1]) * dx;
        const float wab = w.w[0][a] * w.w[1][b];
        const float4 *g = SP ? grid : grid + node_index(G, w.base[0] + a, w.base[1] + b, w.base[2]);
        for (int k = 0; k < 3; ++k) {
          const float dxc = ((float)k - w.fx[2]) * dx;
          const float wt = wab * w.w[2][k];
          const float4 q = SP ? g[sparse_node(ss, a, b - b0, k)] : g[k];
          const float gv[3] = {q.y, q.z, q.w};
          for (int l = 0; l < 3; ++l) {
            const float wv = wt * gv[l];
            av[l] += wv;
            aa[l] += wv * dxa;
            ab[l] += wv * dxb;
            ac[l] += wv * dxc;
          }
        }
      }
    }
    bg_mat3 C;
    for (int i = 0; i < 3; ++i) {
      C.m[i][0] = k4 * aa[i];
      C.m[i][1] = k4 * ab[i];
      C.m[i][2] = k4 * ac[i];
    }
    sp2 = g2p_finish<MULTI, DIM, NL>(P, p, G, M, dt, mat, w, av, C, grid, gs, gm, nl, tally);
  }
  return sp2;
}

/* G2P after the gather (new velocity av, APIC matrix C): x, v and C
 * stored, F updated, the constitutive update, tau, the state and the
 * parking code; returns |v|^2 (0 when parked now). */
template <bool MULTI, int DIM, bool NL>
static __device__ __forceinline__ double g2p_finish(const dparts &P, int64_t p, const dgeom &G, const dmat &M,
                                                    float dt, const bg_mat *mat, const bg_bspline &w,
                                                    const float av[3], const bg_mat3 &C,
                                                    const float4 *__restrict__ grid, const float *__restrict__ gs,
                                                    const float *__restrict__ gm, int nl, unsigned long long *tally) {
  double sp2 = 0.0;
  {
    constexpr int b0 = DIM == 2 ? 1 : 0, b1 = DIM == 2 ? 1 : 2; /* the y stencil (bg_stencil_b0/b1) */
    float xp[3];
    for (int d = 0; d < 3; ++d) {
      P.f[PV + d][p] = av[d];
      xp[d] = P.f[PX + d][p] + dt * av[d];
      P.f[PX + d][p] = xp[d];
    }
    for (int e = 0; e < 9; ++e) P.f[PC + e][p] = C.m[e / 3][e % 3];
    bg_mat3 F;
    for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = P.f[PF + e][p];
    F = bg_f_update(&C, &F, dt);
    float st[BG_NSTATE];
    for (int k = 0; k < BG_NSTATE; ++k) st[k] = P.f[PS + k][p];
    if (NL && nl >= 0 && (!MULTI || bg_material_nonlocal_slot(mat->model) >= 0)) {
      /* the nonlocal service's Laplacian, as the CPU's nodal_laplacian */
      float sum = 0.0f;
      for (int a = 0; a < 3; ++a)
        for (int b = b0; b <= b1; ++b)
          for (int k = 0; k < 3; ++k) {
            const int64_t i = node_index(G, w.base[0] + a, w.base[1] + b, w.base[2] + k);
            const float m = MULTI && gm ? gm[i] : grid[i].x;
            const float lw = DIM == 2 ? bg_bspline_lap_weight_plane(w.w, a, k) : bg_bspline_lap_weight(w.w, a, b, k);
            if (m > 0.0f) sum += lw * (gs[i] / m);
          }
      st[nl + 1] = sum * G.inv_dx * G.inv_dx;
    }
    bg_mat3 tau;
    bg_update_ctx u = {&F, &C, dt, st, &tau};
    P.f[PMODE][p] = (float)bg_material_update(mat, &u);
    if (DIM == 2) {
      bg_plane_strain_clear(&F);
      bg_plane_strain_clear(&tau);
    }
    for (int e = 0; e < 9; ++e) P.f[PF + e][p] = F.m[e / 3][e % 3];
    P.f[PT + 0][p] = tau.m[0][0];
    P.f[PT + 1][p] = tau.m[1][1];
    P.f[PT + 2][p] = tau.m[2][2];
    P.f[PT + 3][p] = 0.5f * (tau.m[0][1] + tau.m[1][0]);
    P.f[PT + 4][p] = 0.5f * (tau.m[0][2] + tau.m[2][0]);
    P.f[PT + 5][p] = 0.5f * (tau.m[1][2] + tau.m[2][1]);
    for (int k = 0; k < BG_NSTATE; ++k) P.f[PS + k][p] = st[k];
    const int32_t code = bg_park_code(&M.cfg, M.sinks, xp);
    if (code >= 0) {
      P.park[p] = code;
      atomicAdd(&tally[1 + code], 1ull);
      atomicAdd((double *)(tally + 1 + (M.n_sinks + 1)) + code, (double)P.f[PM][p]);
    } else {
      sp2 = (double)av[0] * av[0] + (double)av[1] * av[1] + (double)av[2] * av[2];
    }
  }
  return sp2;
}

/* The step's maximum |v|^2: a warp maximum, one atomic per warp;
 * non-negative doubles order as their bits. */
static __device__ __forceinline__ void max_speed(double sp2, unsigned long long *tally) {
  for (int off = 16; off > 0; off >>= 1) sp2 = fmax(sp2, __shfl_xor_sync(0xffffffffu, sp2, off));
  if ((threadIdx.x & 31) == 0 && sp2 > 0.0) atomicMax(&tally[0], (unsigned long long)__double_as_longlong(sp2));
}

/* One thread per particle, the global grid through L1 and L2. */
template <bool MULTI, int DIM, bool NL, bool SP>
static __device__ __forceinline__ void g2p_body(dparts P, int64_t n, dgeom G, const dmat &M, float dt,
                                                const float4 *__restrict__ grid, const float *__restrict__ gs,
                                                const float *__restrict__ gm, int nl, unsigned long long *tally) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  double sp2 = 0.0;
  if (p < n && P.park[p] < 0 && !(G.cut_flag && G.cut_flag[p])) /* beside a plate: k_g2p_cut */
    sp2 = g2p_particle<MULTI, DIM, NL, SP>(P, p, G, M, dt, grid, gs, gm, nl, tally);
  max_speed(sp2, tally);
}

/* Which particles are beside a plate, from where they stand before G2P.
 * Tested inside each G2P kernel instead, a particle the usual kernel moved
 * into a plate's reach would be gathered a second time by k_g2p_cut. */
__global__ void k_cut_mark(dparts P, int64_t n, dgeom G, uint8_t *flag) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (p < n) flag[p] = P.park[p] < 0 && cut_near(G, P, p);
}

/* The particles beside a plate (k_cut_mark), one thread each: the gather of
 * the cut transfers (bg_cut_g2p: a ghost at each node a plate cuts off,
 * the ghosts' momentum to the plate's tally cwf), then the rest of G2P as
 * every particle has it. The dense grid and local models only
 * (cuda_backend.cu refuses the others with a plate). */
template <bool MULTI, int DIM>
__global__ void __launch_bounds__(BG_CUDA_G2P_THREADS)
    k_g2p_cut(dparts P, int64_t n, dgeom G, dmat M, float dt, const float4 *__restrict__ grid,
              const bg_wallc *walls, double *cwf, unsigned long long *tally) {
  const int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  double sp2 = 0.0;
  if (p < n && G.cut_flag[p]) {
    const bg_mat *mat = MULTI ? M.mats + P.mat[p] : &M.mat;
    float xp[3];
    bg_bspline w;
    bg_cut_grid cg;
    bg_cut_stencil cs;
    cut_stencil_at<DIM>(P, p, G, xp, w, cg, cs);
    const float vp[3] = {P.f[PV][p], P.f[PV + 1][p], P.f[PV + 2][p]};
    float v[3];
    bg_mat3 C;
    bg_cut_g2p(&cg, &cs, &w, (const float(*)[4])grid, G.cuts, walls, xp, vp, P.f[PM][p], v, &C, cwf,
               dt > 0 ? 1.0 / (double)dt : 0.0);
    sp2 = g2p_finish<MULTI, DIM, false>(P, p, G, M, dt, mat, w, v, C, grid, NULL, NULL, -1, tally);
  }
  max_speed(sp2, tally);
}

/* No bound on the resident blocks: the compiler's own choice (sm_90: 71
 * registers for one material in 3D, 168 with the nonlocal Laplacian). Note
 * that __launch_bounds__(128, 1) is not the same: it lets ptxas take 247. */
template <bool MULTI, int DIM, bool NL, bool SP>
__global__ void __launch_bounds__(BG_CUDA_G2P_THREADS)
    k_g2p_free(dparts P, int64_t n, dgeom G, dmat M, float dt, const float4 *__restrict__ grid,
               const float *__restrict__ gs, const float *__restrict__ gm, int nl, unsigned long long *tally) {
  g2p_body<MULTI, DIM, NL, SP>(P, n, G, M, dt, grid, gs, gm, nl, tally);
}

/* At least MINB resident blocks per SM: at most 65536 / (128 MINB) registers. */
template <int MINB, bool MULTI, int DIM, bool NL, bool SP>
__global__ void __launch_bounds__(BG_CUDA_G2P_THREADS, MINB)
    k_g2p(dparts P, int64_t n, dgeom G, dmat M, float dt, const float4 *__restrict__ grid,
          const float *__restrict__ gs, const float *__restrict__ gm, int nl, unsigned long long *tally) {
  g2p_body<MULTI, DIM, NL, SP>(P, n, G, M, dt, grid, gs, gm, nl, tally);
}

/* The launch of one instance: the properties and the table pick the
 * bound and MULTI at run time, the dimension DIM, and NL whether the
 * nonlocal service's Laplacian is compiled in at all. */
template <int DIM, bool NL, bool SP>
static void launch_g2p(cuda_state *s, const dmat &M, float dt) {
  const dim3 nb = grid_of((int64_t)s->n, BG_CUDA_G2P_THREADS);
  const int64_t n = (int64_t)s->n;
#define BG_G2P_ARGS <<<nb, BG_CUDA_G2P_THREADS, 0, s->st>>>(s->P, n, s->geo, M, dt, s->grid, s->gs, s->gm, s->nl, s->d_tally)
  /* the sparse grid is compiled without a bound only (its 4 and 8 were
   * slower, reports/results/h100/issue36-sparse; cuda_backend.cu refuses them) */
  if constexpr (SP) {
    if (!s->mats) k_g2p_free<false, DIM, NL, SP> BG_G2P_ARGS;
    else k_g2p_free<true, DIM, NL, SP> BG_G2P_ARGS;
  } else {
    /* auto: no bound where the registers are few (71 on sm_90, fastest at 8M
     * on an H100 and an H200); 4 where the Laplacian takes 168 (measured 6%
     * faster with it when every run carried them, reports/results/h200/issue32-backends) */
    const int minb = s->g2p_minb >= 0 ? s->g2p_minb : NL ? 4 : 0;
    if (minb == 8 && !s->mats) k_g2p<8, false, DIM, NL, SP> BG_G2P_ARGS;
    else if (minb == 8) k_g2p<8, true, DIM, NL, SP> BG_G2P_ARGS;
    else if (minb == 4 && !s->mats) k_g2p<4, false, DIM, NL, SP> BG_G2P_ARGS;
    else if (minb == 4) k_g2p<4, true, DIM, NL, SP> BG_G2P_ARGS;
    else if (!s->mats) k_g2p_free<false, DIM, NL, SP> BG_G2P_ARGS;
    else k_g2p_free<true, DIM, NL, SP> BG_G2P_ARGS;
  }
#undef BG_G2P_ARGS
}

bg_status cuda_g2p(void *state, bg_real dt) {
  cuda_state *s = (cuda_state *)state;
  /* only the maximum speed restarts each step; parking tallies accumulate */
  CU(cudaMemsetAsync(s->d_tally, 0, sizeof(unsigned long long), s->st));
  if (s->n) {
    dmat M;
    M.cfg = *s->cfg;
    M.mat = s->cfg->mat;
    M.mats = s->mats;
    M.sinks = s->sinks;
    M.n_sinks = s->cfg->n_sinks;
    /* the nonlocal model is refused with grid=sparse (cuda_backend.cu) */
    const bool nl = s->nl >= 0;
    s->geo.cut_flag = NULL;
    if (s->cfg->n_cuts) {
      if (s->cut_flag_cap < s->n) {
        cudaFree(s->cut_flag); /* waits for the kernels that read it */
        s->cut_flag = NULL;
        s->cut_flag_cap = 0;
        CU(cudaMalloc((void **)&s->cut_flag, s->cap));
        s->cut_flag_cap = s->cap;
      }
      k_cut_mark<<<grid_of((int64_t)s->n, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, (int64_t)s->n,
                                                                                             s->geo, s->cut_flag);
      CU(cudaGetLastError());
      s->geo.cut_flag = s->cut_flag;
    }
    if (s->cfg->dim == 2 && nl) launch_g2p<2, true, false>(s, M, dt);
    else if (s->cfg->dim == 2 && s->sparse) launch_g2p<2, false, true>(s, M, dt);
    else if (s->cfg->dim == 2) launch_g2p<2, false, false>(s, M, dt);
    else if (nl) launch_g2p<3, true, false>(s, M, dt);
    else if (s->sparse) launch_g2p<3, false, true>(s, M, dt);
    else launch_g2p<3, false, false>(s, M, dt);
    CU(cudaGetLastError());
    if (s->cfg->n_cuts) {
      const dim3 nb = grid_of((int64_t)s->n, BG_CUDA_G2P_THREADS);
#define BG_G2P_CUT(MULTI, DIM)                                                                                     \
  k_g2p_cut<MULTI, DIM><<<nb, BG_CUDA_G2P_THREADS, 0, s->st>>>(s->P, (int64_t)s->n, s->geo, M, dt, s->grid, s->walls, \
                                                             cut_tally(s), s->d_tally)
      if (s->cfg->dim == 2 && s->mats) BG_G2P_CUT(true, 2);
      else if (s->cfg->dim == 2) BG_G2P_CUT(false, 2);
      else if (s->mats) BG_G2P_CUT(true, 3);
      else BG_G2P_CUT(false, 3);
#undef BG_G2P_CUT
      CU(cudaGetLastError());
    }
  }
  bg_status st = mark(s, 4);
  if (st != BG_OK) return st;
  CU(cudaMemcpyAsync(s->h_tally, s->d_tally, s->tally_words * 8, cudaMemcpyDeviceToHost, s->st));
  CU(cudaEventRecord(s->ev_tally, s->st));
  s->pending = 1;
  return BG_OK;
}

