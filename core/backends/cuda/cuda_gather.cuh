/* cuda_gather.cuh: one particle's grid-to-particle update (the 27-node
 * gather, then bg_material_update and the parking code), shared by the G2P
 * kernels (cuda_g2p.cu) and the fused G2P2G (cuda_g2p2g.cu), which also
 * takes what the update leaves in registers (g2p_out) to scatter it at
 * once. */
#ifndef BG_CUDA_GATHER_CUH
#define BG_CUDA_GATHER_CUH

#include "cuda_internal.cuh"

/* What the fused kernel scatters next, as g2p_finish left it: the new
 * position, velocity and C, the stored (symmetrised, plane-strain cleared)
 * Kirchhoff stress, and whether the particle still moves (not parked now). */
typedef struct g2p_out {
  float x[3], v[3];
  bg_mat3 C;
  float tau[6];
  bool live;
} g2p_out;

/* G2P after the gather (new velocity av, APIC matrix C): x, v and C
 * stored, F updated, the constitutive update, tau, the state and the
 * parking code; returns |v|^2 (0 when parked now). */
template <bool MULTI, int DIM, bool NL, bool OUT>
static __device__ __forceinline__ double g2p_finish(const dparts &P, int64_t p, const dgeom &G, const dmat &M,
                                                    float dt, const bg_mat *mat, const bg_bspline &w,
                                                    const float av[3], const bg_mat3 &C,
                                                    const float4 *__restrict__ grid, const float *__restrict__ gs,
                                                    const float *__restrict__ gm, int nl, unsigned long long *tally,
                                                    g2p_out *out) {
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
    for (int k = 0; k < BG_NSTATE; ++k) st[k] = p_state(P, k, p); /* compact: unused slots not held */
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
    /* stored symmetric: xx yy zz xy xz yz */
    const float ts[6] = {tau.m[0][0], tau.m[1][1], tau.m[2][2], 0.5f * (tau.m[0][1] + tau.m[1][0]),
                         0.5f * (tau.m[0][2] + tau.m[2][0]), 0.5f * (tau.m[1][2] + tau.m[2][1])};
    if (P.f[PT]) /* layout=compact derives it again in P2G */
      for (int e = 0; e < 6; ++e) P.f[PT + e][p] = ts[e];
    for (int k = 0; k < BG_NSTATE; ++k)
      if (P.f[PS + k]) P.f[PS + k][p] = st[k];
    const int32_t code = bg_park_code(&M.cfg, M.sinks, xp);
    if (OUT) {
      for (int d = 0; d < 3; ++d) {
        out->x[d] = xp[d];
        out->v[d] = av[d];
      }
      out->C = C;
      for (int e = 0; e < 6; ++e) out->tau[e] = ts[e];
      out->live = code < 0;
    }
    if (code >= 0) {
      P.park[p] = code;
      atomicAdd(&tally[1 + code], 1ull);
      atomicAdd((double *)(tally + 1 + (M.n_sinks + 1)) + code, (double)p_mass(P, p));
    } else {
      sp2 = (double)av[0] * av[0] + (double)av[1] * av[1] + (double)av[2] * av[2];
    }
  }
  return sp2;
}

/* One particle's G2P, returning its |v|^2 for the step's maximum speed
 * (0 when parked now). MULTI: a material table (each particle's entry
 * through its index, and the nonlocal service only for the entries that
 * need it, averaging over their own mass gm). */
template <bool MULTI, int DIM, bool NL, bool SP, bool OUT = false>
static __device__ __forceinline__ double g2p_particle(const dparts &P, int64_t p, const dgeom &G, const dmat &M,
                                                      float dt, const float4 *__restrict__ grid,
                                                      const float *__restrict__ gs, const float *__restrict__ gm,
                                                      int nl, unsigned long long *tally, g2p_out *out = NULL) {
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
    sp2 = g2p_finish<MULTI, DIM, NL, OUT>(P, p, G, M, dt, mat, w, av, C, grid, gs, gm, nl, tally, out);
  }
  return sp2;
}

/* The step's maximum |v|^2: a warp maximum, one atomic per warp;
 * non-negative doubles order as their bits. */
static __device__ __forceinline__ void max_speed(double sp2, unsigned long long *tally) {
  for (int off = 16; off > 0; off >>= 1) sp2 = fmax(sp2, __shfl_xor_sync(0xffffffffu, sp2, off));
  if ((threadIdx.x & 31) == 0 && sp2 > 0.0) atomicMax(&tally[0], (unsigned long long)__double_as_longlong(sp2));
}

#endif /* BG_CUDA_GATHER_CUH */
