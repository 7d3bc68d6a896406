/* cpu_cut.c: the cpu backend's transfers of the particles a thin plate
 * separates from some of their stencil nodes (bg_cut.h, the compatible
 * particle-in-cell of the plate bodies): scalar, through the shared
 * functions, and taken only by the particles beside a plate, so that the
 * vectorised paths of cpu_step.c stay as they are for every other one. */
#include "bg_transfer.h"
#include "cpu_internal.h"

double *cpu_cut_tally(const cpu_state *s) {
#ifdef _OPENMP
  const int tid = omp_get_thread_num();
#else
  const int tid = 0;
#endif
  return tid < s->wf_threads ? s->cwf_thread + (size_t)tid * BG_WALL_TALLY * (size_t)s->cfg->n_walls
                             : NULL;
}

/* A particle's tally from a thread past the slices (more threads than at
 * creation): through a local copy into the spare last slice, which only
 * this critical section writes. */
static void add_tally(const cpu_state *s, const double *local) {
  const size_t nw = BG_WALL_TALLY * (size_t)s->cfg->n_walls;
  double *spare = s->cwf_thread + (size_t)s->wf_threads * nw;
#pragma omp critical(bg_cpu_cut_tally)
  for (size_t k = 0; k < nw; ++k) spare[k] += local[k];
}

/* P2G of a particle some plate separates from some of its nodes (bg_cut.h),
 * the scalar scatter to the nodes of its side; 0 (nothing done) when no
 * plate cuts its stencil. */
int cpu_p2g_cut(cpu_state *s, size_t p, bg_real dt) {
  const bg_config *c = s->cfg;
  const bg_real xp[3] = {s->x[0][p], s->x[1][p], s->x[2][p]};
  if (!bg_cut_any_near(c->cuts, c->n_cuts, xp, c->dx)) return 0;
  const bg_cut_grid G = bg_cut_grid_of(c);
  bg_real xg[3];
  for (int d = 0; d < 3; ++d) xg[d] = (xp[d] - c->origin[d]) * c->inv_dx;
  const bg_bspline w = bg_bspline_eval_dim(xg, c->dim);
  bg_cut_stencil cs;
  bg_cut_stencil_eval(c->cuts, c->n_cuts, &G, &w, xp, &cs);
  if (!cs.cut) return 0;
  const bg_mat3 C = load_mat(s->C, p), tau = load_sym(s->tau, p);
  const bg_mat3 A = bg_p2g_affine(s->mass[p], s->vol0[p], &C, &tau, dt, c->inv_dx);
  const bg_real vp[3] = {s->v[0][p], s->v[1][p], s->v[2][p]};
  const int nl = cpu_nonlocal(s, p);
  const double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
  double *t = cpu_cut_tally(s),
         *local = t ? NULL : calloc(BG_WALL_TALLY * (size_t)c->n_walls, sizeof *local);
  bg_cut_p2g(&G, &cs, &w, s->grid, s->mass[p], vp, &A, nl ? s->gs : NULL, s->gm,
             nl ? s->st[s->nl][p] : 0.0f, c->cuts, t ? t : local, inv_dt);
  if (local) add_tally(s, local);
  free(local);
  return 1;
}

/* G2P's gather of a particle some plate separates from some of its nodes
 * (bg_cut.h: ghosts there); 0 (nothing done) when none cuts its stencil. */
int cpu_g2p_cut(const cpu_state *s, size_t p, const bg_bspline *w, bg_real (*lv)[BG_BATCH_CHUNK],
                bg_real (*lC)[BG_BATCH_CHUNK], int len, bg_real dt) {
  const bg_config *c = s->cfg;
  const bg_real xp[3] = {s->x[0][p], s->x[1][p], s->x[2][p]};
  if (!bg_cut_any_near(c->cuts, c->n_cuts, xp, c->dx)) return 0;
  const bg_cut_grid G = bg_cut_grid_of(c);
  bg_cut_stencil cs;
  bg_cut_stencil_eval(c->cuts, c->n_cuts, &G, w, xp, &cs);
  if (!cs.cut) return 0;
  const bg_real vp[3] = {s->v[0][p], s->v[1][p], s->v[2][p]};
  bg_real v[3];
  bg_mat3 C;
  const double inv_dt = dt > 0 ? 1.0 / (double)dt : 0.0;
  double *t = cpu_cut_tally(s),
         *local = t ? NULL : calloc(BG_WALL_TALLY * (size_t)c->n_walls, sizeof *local);
  bg_cut_g2p(&G, &cs, w, (const bg_real(*)[4])s->grid, c->cuts, c->walls, xp, vp, s->mass[p], v, &C,
             t ? t : local, inv_dt);
  if (local) add_tally(s, local);
  free(local);
  for (int d = 0; d < 3; ++d) lv[d][len] = v[d];
  for (int e = 0; e < 9; ++e) lC[e][len] = C.m[e / 3][e % 3];
  return 1;
}
