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
#include "cuda_gather.cuh"

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
    bg_cut_g2p(&cg, &cs, &w, (const float(*)[4])grid, G.cuts, walls, xp, vp, p_mass(P, p), v, &C, cwf,
               dt > 0 ? 1.0 / (double)dt : 0.0);
    sp2 = g2p_finish<MULTI, DIM, false, false>(P, p, G, M, dt, mat, w, v, C, grid, NULL, NULL, -1, tally, NULL);
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
    /* g2p2g=fused, over the runs of this step's sort (every particle is in
     * one: p2g refuses to run while particles added since are unsorted) */
    if (s->fused && !s->cfg->n_cuts && s->n_runs > 0 && !s->dirty) {
      bg_status st = cuda_g2p2g_launch(s, &M, dt);
      if (st != BG_OK) return st;
    } else if (s->cfg->dim == 2 && nl) launch_g2p<2, true, false>(s, M, dt);
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

