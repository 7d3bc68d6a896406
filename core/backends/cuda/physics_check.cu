/* physics_check.cu: compiles every single-source physics header under nvcc
 * and calls the per-particle update from a kernel, so a header that only
 * gcc accepts breaks the CUDA build here rather than in the backend. */
#include "bg_boundary.h"
#include "bg_constitutive_batch.h"
#include "bg_bspline.h"
#include "bg_plasticity.h"
#include "bg_transfer.h"

__global__ void bg_physics_check_kernel(const bg_sand *m, bg_mat3 *F, bg_real *log_jp, bg_real *q,
                                        bg_mat3 *tau, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bg_sand_update(m, &F[i], &log_jp[i], &q[i], &tau[i]);
  bg_real xg[3] = {1.2f, 1.7f, 2.1f};
  bg_bspline w = bg_bspline_eval(xg);
  bg_mat3 a = bg_p2g_affine(1.0f, 1.0f, &tau[i], &tau[i], 1e-4f, 100.0f);
  bg_wallc wall;
  wall.type = BG_BC_COULOMB;
  wall.mu = 0.5f;
  wall.v[0] = wall.v[1] = wall.v[2] = 0.0f;
  bg_real n3[3] = {0.0f, 0.0f, 1.0f}, v[3] = {a.m[0][0], 0.0f, -1.0f};
  bg_wall_apply(&wall, n3, v);
  q[i] += w.w[0][0] + v[0];
}
