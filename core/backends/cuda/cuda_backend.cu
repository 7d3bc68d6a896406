/* cuda_backend.cu: the CUDA backend's lifecycle (available, create,
 * destroy, add, set_boundary), its tuning property and its two ops tables,
 * "cuda" (the fixed-point shared-tile scatter) and "cuda/global" (global
 * float atomics, the plain GPU reference). The same physics headers as the
 * CPU backends (core/physics, through BG_HD), the same semantics:
 * insertion-order read-back, parking codes, tallies, the node update and
 * the colliders. The stages live in cuda_sort.cu, cuda_p2g.cu,
 * cuda_grid.cu, cuda_g2p.cu and cuda_readback.cu (README.md). */
#include "cuda_internal.cuh"

/* New particles of table entry mat in slots off .. off + cnt from the
 * staged upload: at rest unless v is given, F the identity, no stress, no
 * plastic state. */
/* vol: one volume per particle, or NULL for vol_c each */
__global__ void k_init(dparts P, int64_t off, int64_t cnt, const float *x, const float *v,
                       const float *vol, float vol_c, float rho0, int mat) {
  int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (k >= cnt) return;
  int64_t p = off + k;
  for (int d = 0; d < 3; ++d) {
    P.f[PX + d][p] = x[3 * k + d];
    P.f[PV + d][p] = v ? v[3 * k + d] : 0.0f;
  }
  for (int d = 0; d < 9; ++d) {
    P.f[PF + d][p] = (d % 4 == 0) ? 1.0f : 0.0f;
    P.f[PC + d][p] = 0.0f;
  }
  if (P.f[PT])
    for (int d = 0; d < 6; ++d) P.f[PT + d][p] = 0.0f;
  for (int k = 0; k < BG_NSTATE; ++k)
    if (P.f[PS + k]) P.f[PS + k][p] = 0.0f;
  const float vk = vol ? vol[k] : vol_c;
  if (P.f[PVOL]) P.f[PVOL][p] = vk;
  if (P.f[PM]) P.f[PM][p] = rho0 * vk;
  P.f[PMODE][p] = (float)BG_RM_ELASTIC;
  P.id[p] = p;
  P.park[p] = -1;
  P.mat[p] = (uint8_t)mat;
}

bg_status cuda_launch_init(cuda_state *s, int64_t off, int64_t cnt, const float *x, const float *v, float vol_c,
                           int mat) {
  k_init<<<grid_of(cnt, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(s->P, off, cnt, x, v, NULL, vol_c,
                                                                             s->cfg->mats[mat].el.rho0, mat);
  CU(cudaGetLastError());
  return BG_OK;
}

static int cuda_available(char *why, size_t len) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why && len)
      snprintf(why, len, "no usable CUDA device (cudaGetDeviceCount: %s)",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    (void)cudaGetLastError();
    return 0;
  }
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    if (why && len) snprintf(why, len, "cannot query CUDA device %d", dev);
    (void)cudaGetLastError();
    return 0;
  }
  /* the build must hold an image this device can run */
  cudaFuncAttributes fa;
  e = cudaFuncGetAttributes(&fa, cuda_grid_kernel());
  if (e != cudaSuccess) {
    if (why && len)
      snprintf(why, len, "device %d (%s, sm_%d%d) cannot run this build's kernels: %s (set BAGNOLD_CUDA_ARCHS)",
               dev, prop.name, prop.major, prop.minor, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return 0;
  }
  /* available: why describes the device, for manifests and logs */
  int drv = 0;
  (void)cudaDriverGetVersion(&drv);
  if (why && len)
    snprintf(why, len, "%s (sm_%d%d, %d SMs, %.1f GB, driver CUDA %d.%d)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, prop.totalGlobalMem / 1e9, drv / 1000, (drv % 1000) / 10);
  return 1;
}

static void free_parts(dparts *P) {
  for (int k = 0; k < NPF; ++k) cudaFree(P->f[k]);
  cudaFree(P->id);
  cudaFree(P->park);
  cudaFree(P->mat);
  memset(P, 0, sizeof *P);
}

static void cuda_destroy(void *state) {
  cuda_state *s = (cuda_state *)state;
  if (!s) return;
  if (s->st) cudaStreamSynchronize(s->st);
  free_parts(&s->P);
  for (int k = 0; k < 2; ++k) {
    cudaFree(s->keys[k]);
    cudaFree(s->vals[k]);
  }
  cudaFree(s->cub_tmp);
  cudaFree(s->runstart);
  cudaFree(s->runkey);
  cudaFree(s->d_nsel);
  cudaFree(s->grid);
  cudaFree(s->gnext); /* gforce is its second half */
  cudaFree(s->bflag);
  cudaFree(s->bslot);
  cudaFree(s->sp_tmp);
  cudaFree(s->d_nact);
  cudaFree(s->gfix);
  cudaFree(s->gbound);
  cudaFree(s->gs);
  cudaFree(s->gm);
  cudaFree(s->mats);
  cudaFree(s->bn);
  cudaFree(s->bb);
  if (s->h_bb) cudaFreeHost(s->h_bb);
  if (s->ev_bb) cudaEventDestroy(s->ev_bb);
  cudaFree(s->walls);
  cudaFree(s->d_cuts);
  cudaFree(s->cut_flag);
  cudaFree(s->sinks);
  cudaFree(s->d_tally);
  if (s->h_tally) cudaFreeHost(s->h_tally);
  if (s->ev_tally) cudaEventDestroy(s->ev_tally);
  for (int k = 0; k < 5; ++k)
    if (s->ev[k]) cudaEventDestroy(s->ev[k]);
  if (s->st) cudaStreamDestroy(s->st);
  free(s->sink_mass);
  free(s->wf);
  (void)cudaGetLastError();
  free(s);
}

/* The properties of both resources, in the order bg_sim_describe lists them. */
static const bg_property_def cuda_properties[] = {
    {"g2p_minblocks", "auto|0|4|8", "auto",
     "G2P compiled for at least this many resident 128-thread blocks per SM (0: the compiler's choice; auto: 0 "
     "for local models, 4 for the nonlocal one, whose Laplacian took 168 registers unbounded)"},
    {"deterministic", "0|1", "0",
     "1: every sum reaching a grid node is a 64-bit fixed-point integer sum, so two runs and a run and its "
     "checkpointed continuation are identical bit for bit (32 more bytes per node, one more pass over the "
     "particles); 0: the tile's partial sums and drifted particles reach the grid as float atomics"},
    {"grid", "dense|sparse", "dense",
     "sparse: only the 4^3-node blocks some particle's stencil reaches this step hold memory (a pool of blocks "
     "and a 4-byte slot per block of the grid), so the grid's memory follows the material, not the box; dense: "
     "every node of the box, 16 bytes each"},
    {"p2g_bound", "pass|running", "running",
     "where the P2G tile's per-block scales come from (resource cuda, p2g_words=1, deterministic=0): pass, a pass "
     "over the block's particles before the scatter, which reads them twice; running, a bound raised 32 "
     "particles at a time as the scatter reads them, the tile's words shifted right when the scale drops, so "
     "each particle is read once"},
    {"p2g_words", "1|2", "1",
     "int32 words per value in the P2G shared tile (resource cuda): 1, one word per value, resolving 2^-31 of "
     "the block's bound on a node sum (about 2^-22 of one particle's term; a float add keeps 2^-24 of its partial "
     "sum); 2, a hi and a lo word, resolving 2^-51, with twice the shared atomics"},
    {"g2p2g", "split|fused", "split",
     "fused: G2P scatters each particle into the next step's grid as soon as it is updated (one kernel over the "
     "sort's runs, seven channels per node: mass, momentum and the force, which the next grid update scales by "
     "its dt), so P2G does not read the particles again; 64 bytes per node more. Steps after particles were "
     "added or set, and steps with a plate, take the split transfers (with p2g_bound). g2p_minblocks=4 bounds "
     "it to 128 registers (512 threads per SM, as for G2P). Dense grid, deterministic=0, p2g_words=1, "
     "g2p_minblocks auto, 0 or 4 and local models only; split: a P2G and a G2P kernel"},
    {"layout", "full|compact", "full",
     "compact: a particle holds 121 bytes instead of 161 for sand (137 and 177 with the sort's buffers): no "
     "Kirchhoff stress (P2G "
     "derives it from F and the state with a second SVD), one mass and volume for every particle (a later add "
     "with another volume is refused), and only the state slots the model names. One material whose stress "
     "is a function of F and the state (not water), resource cuda with p2g_bound=running, deterministic=0, "
     "p2g_words=1, g2p2g=split and no thin plates; full: every array, tau cached by G2P"},
};
#define CUDA_N_PROPERTIES ((int)(sizeof cuda_properties / sizeof cuda_properties[0]))

/* The variant and the property values the front end resolved (it checks
 * names and values against cuda_properties; a configuration that resolved
 * none gets the table's defaults). */
static bg_status read_properties(cuda_state *s) {
  s->variant = s->cfg->variant;
  if (s->variant != BG_CUDA_TILE && s->variant != BG_CUDA_GLOBAL)
    return fail(s, BG_ERR_INTERNAL, "unknown variant of the cuda backend");
  const char *mb = bg_config_property(s->cfg, "g2p_minblocks");
  if (!mb) mb = cuda_properties[0].def;
  if (strcmp(mb, "auto") == 0) s->g2p_minb = -1;
  else if (strcmp(mb, "0") == 0) s->g2p_minb = 0;
  else if (strcmp(mb, "4") == 0) s->g2p_minb = 4;
  else if (strcmp(mb, "8") == 0) s->g2p_minb = 8;
  else return fail(s, BG_ERR_RANGE, "g2p_minblocks must be auto, 0, 4 or 8 (resident G2P blocks per SM; 0: no bound)");
  const char *det = bg_config_property(s->cfg, "deterministic");
  if (!det) det = cuda_properties[1].def;
  if (strcmp(det, "0") != 0 && strcmp(det, "1") != 0)
    return fail(s, BG_ERR_RANGE, "deterministic must be 0 or 1");
  s->det = det[0] == '1';
  if (s->det && s->cfg->nl >= 0)
    return fail(s, BG_ERR_RANGE,
                "deterministic=1 does not cover the nonlocal fluidity's own scatter (float atomics): a material "
                "with a nonlocal model runs with deterministic=0");
  const char *gr = bg_config_property(s->cfg, "grid");
  if (!gr) gr = cuda_properties[2].def;
  if (strcmp(gr, "dense") != 0 && strcmp(gr, "sparse") != 0) return fail(s, BG_ERR_RANGE, "grid must be dense or sparse");
  s->sparse = gr[0] == 's';
  if (s->sparse && s->det)
    return fail(s, BG_ERR_RANGE,
                "grid=sparse and deterministic=1 do not combine: the fixed-point sums are held for every node of "
                "the box; use grid=dense with deterministic=1");
  if (s->sparse && s->g2p_minb > 0)
    return fail(s, BG_ERR_RANGE,
                "grid=sparse runs G2P without a register bound only: g2p_minblocks=4 and 8 were measured slower "
                "there and are not compiled for it; use g2p_minblocks=auto or 0");
  if (s->sparse && s->cfg->nl >= 0)
    return fail(s, BG_ERR_RANGE,
                "grid=sparse does not cover the nonlocal fluidity's nodal sums (held for every node of the box): a "
                "material with a nonlocal model runs with grid=dense");
  const char *pw = bg_config_property(s->cfg, "p2g_words");
  if (!pw) pw = cuda_properties[4].def;
  if (strcmp(pw, "1") != 0 && strcmp(pw, "2") != 0)
    return fail(s, BG_ERR_RANGE, "p2g_words must be 2 or 1 (int32 words per value in the P2G tile)");
  s->p2g_words = pw[0] - '0';
  const char *pb = bg_config_property(s->cfg, "p2g_bound");
  if (!pb) pb = cuda_properties[3].def;
  if (strcmp(pb, "pass") != 0 && strcmp(pb, "running") != 0)
    return fail(s, BG_ERR_RANGE, "p2g_bound must be pass or running (where the P2G tile's scales come from)");
  /* only the one-word tile of the float grid takes them: deterministic=1
   * bounds the whole grid in a pass of its own, and p2g_words=2 needs each
   * block's particle count, which the pass gives */
  const int one_word_float = s->p2g_words == 1 && !s->det && s->variant == BG_CUDA_TILE;
  s->p2g_bound = one_word_float && pb[0] == 'r';
  const char *fu = bg_config_property(s->cfg, "g2p2g");
  if (!fu) fu = cuda_properties[5].def;
  if (strcmp(fu, "split") != 0 && strcmp(fu, "fused") != 0)
    return fail(s, BG_ERR_RANGE, "g2p2g must be split or fused (two transfer kernels, or one)");
  s->fused = fu[0] == 'f';
  if (s->fused) {
    /* the fused kernel scatters into the one-word float tile of a dense grid, and holds no nonlocal sums */
    const char *bad = s->det                 ? "deterministic=1"
                      : s->sparse            ? "grid=sparse"
                      : s->p2g_words != 1    ? "p2g_words=2"
                      : s->g2p_minb == 8     ? "g2p_minblocks=8 (it would spill most of the kernel's state)"
                      : s->cfg->nl >= 0      ? "a material with a nonlocal model"
                                             : NULL;
    if (bad) {
      if (s->err && s->err_len)
        snprintf(s->err, s->err_len,
                 "cuda backend: g2p2g=fused does not run with %s; it takes grid=dense, deterministic=0, "
                 "p2g_words=1, g2p_minblocks auto, 0 or 4 and local material models (use g2p2g=split)",
                 bad);
      return BG_ERR_RANGE;
    }
  }
  const char *ly = bg_config_property(s->cfg, "layout");
  if (!ly) ly = cuda_properties[6].def;
  if (strcmp(ly, "full") != 0 && strcmp(ly, "compact") != 0)
    return fail(s, BG_ERR_RANGE, "layout must be full or compact (what each particle holds on the device)");
  s->compact = ly[0] == 'c';
  if (s->compact) {
    bg_mat3 F = bg_mat3_identity(), tau;
    bg_real st[BG_NSTATE] = {0};
    /* P2G derives tau in k_p2g_running alone, from one material's F and state */
    const char *bad = s->variant != BG_CUDA_TILE      ? "resource cuda/global"
                      : !s->p2g_bound                 ? "p2g_bound=pass, p2g_words=2 or deterministic=1"
                      : s->fused                      ? "g2p2g=fused"
                      : s->cfg->n_cuts                ? "a thin plate"
                      : s->cfg->n_mats > 1            ? "a material table of several entries"
                      : !bg_material_stress_of_f(&s->cfg->mat, &F, st, &tau)
                          ? "a material whose stress is not a function of F and its state (water)"
                          : NULL;
    if (bad) {
      if (s->err && s->err_len)
        snprintf(s->err, s->err_len,
                 "cuda backend: layout=compact does not run with %s; it takes resource cuda with "
                 "p2g_bound=running, p2g_words=1, deterministic=0, g2p2g=split, one material that is not "
                 "water and no thin plates (use layout=full)",
                 bad);
      return BG_ERR_RANGE;
    }
    s->P.mat1 = s->cfg->mat;
  }
  s->geo.lb = BG_BLOCK_LOG2;
  s->geo.dim = s->cfg->dim;
  return BG_OK;
}

/* Whether the particle array k is held: layout=compact leaves out tau,
 * the mass, the volume and the state slots the model does not name. */
static int holds_array(const cuda_state *s, int k) {
  if (!s->compact) return 1;
  if (k >= PT && k < PT + 6) return 0;
  if (k == PM || k == PVOL) return 0;
  if (k >= PS && k < PS + BG_NSTATE) return bg_material_state(s->cfg->mat.model).name[k - PS][0] != '\0';
  return 1;
}

size_t cuda_bytes_per_slot(const cuda_state *s) {
  size_t b = sizeof(int64_t) + sizeof(int32_t) + sizeof(uint8_t);
  for (int k = 0; k < NPF; ++k) b += holds_array(s, k) ? sizeof(float) : 0;
  return b;
}

static bg_status cuda_create(const bg_config *cfg, void **out, char *err, size_t len) {
  cuda_state *s = (cuda_state *)calloc(1, sizeof *s);
  if (!s) return BG_ERR_NOMEM;
  s->cfg = cfg;
  s->err = err;
  s->err_len = len;
  bg_status st = read_properties(s);
  if (st != BG_OK) {
    free(s);
    return st;
  }
  /* the plates' cut transfers (bg_cut.h) scatter to the dense float grid
   * with the float atomics of their own kernel, and do not cut the
   * nonlocal service's sums */
  if (cfg->n_cuts && (s->det || s->sparse || cfg->nl >= 0)) {
    st = fail(s, BG_ERR_RANGE,
              "a thin plate (BG_BODY_PLATE) needs grid=dense, deterministic=0 and a local material model on "
              "this backend (cpu and cpu/ref take it with any)");
    free(s);
    return st;
  }
  dgeom *G = &s->geo;
  G->n_blocks = 1;
  for (int a = 0; a < 3; ++a) {
    G->dims[a] = cfg->dims[a];
    G->origin[a] = cfg->origin[a];
    G->nb[a] = (cfg->dims[a] + (1 << G->lb) - 1) >> G->lb;
    G->n_blocks *= G->nb[a];
  }
  G->dx = cfg->dx;
  G->inv_dx = cfg->inv_dx;
  /* keys are 32-bit with one extra value for the parked bucket; runs index
   * CUDA blocks (gridDim.x < 2^31) */
  if (G->n_blocks >= INT32_MAX) {
    st = fail(s, BG_ERR_OVERFLOW, "the grid has more than 2^31 - 1 blocks; use fewer nodes");
    free(s);
    return st;
  }
  s->end_bit = 1;
  while (s->end_bit < 32 && ((int64_t)1 << s->end_bit) <= G->n_blocks) s->end_bit++;
  bg_status r = BG_OK;
#define TRY(call)                                                   \
  do {                                                              \
    cudaError_t e_ = (call);                                        \
    if (e_ != cudaSuccess) {                                        \
      r = cu_fail(s, e_, #call, __FILE__, __LINE__);                \
      goto fail;                                                    \
    }                                                               \
  } while (0)
  {
    size_t free_b = 0, total_b = 0;
    TRY(cudaMemGetInfo(&free_b, &total_b));
    /* the sparse grid's table: 8 bytes per block; its pool grows with the material */
    size_t grid_bytes = s->sparse ? (size_t)G->n_blocks * 2 * sizeof(int32_t) : (size_t)cfg->n_nodes * sizeof(float4);
    if (grid_bytes * (s->fused ? 3 : 1) > free_b) {
      if (err && len)
        snprintf(err, len, "cuda backend: a %lld-node grid needs %.3g GB, the device has %.3g GB free",
                 (long long)cfg->n_nodes, grid_bytes * (s->fused ? 3 : 1) / 1e9, free_b / 1e9);
      cuda_destroy(s);
      return BG_ERR_NOMEM;
    }
    TRY(cudaGetDevice(&s->device));
    TRY(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
    if (s->sparse) {
      r = cuda_sparse_alloc(s);
      if (r != BG_OK) goto fail;
    } else {
      TRY(cudaMalloc((void **)&s->grid, grid_bytes));
      TRY(cudaMemsetAsync(s->grid, 0, grid_bytes, s->st));
    }
    if (s->fused) {
      TRY(cudaMalloc((void **)&s->gnext, 2 * grid_bytes));
      TRY(cudaMemsetAsync(s->gnext, 0, 2 * grid_bytes, s->st));
      s->gforce = s->gnext + cfg->n_nodes;
    }
    if (s->det) {
      /* the fixed-point grid, component-major, and its per-step scales */
      TRY(cudaMalloc((void **)&s->gfix, 4 * (size_t)cfg->n_nodes * sizeof(unsigned long long)));
      TRY(cudaMalloc((void **)&s->gbound, 4 * sizeof(unsigned int) + 4 * sizeof(double)));
    }
    s->nl = cfg->nl;
    if (s->nl >= 0) TRY(cudaMalloc((void **)&s->gs, (size_t)cfg->n_nodes * sizeof(float)));
    if (s->nl >= 0 && !cfg->nl_all) TRY(cudaMalloc((void **)&s->gm, (size_t)cfg->n_nodes * sizeof(float)));
    if (cfg->n_mats > 1) {
      TRY(cudaMalloc((void **)&s->mats, (size_t)cfg->n_mats * sizeof(bg_mat)));
      TRY(cudaMemcpyAsync(s->mats, cfg->mats, (size_t)cfg->n_mats * sizeof(bg_mat), cudaMemcpyHostToDevice, s->st));
    }
    TRY(cudaMalloc((void **)&s->walls, (size_t)cfg->n_walls * sizeof(bg_wallc)));
    TRY(cudaMemcpyAsync(s->walls, cfg->walls, (size_t)cfg->n_walls * sizeof(bg_wallc), cudaMemcpyHostToDevice,
                        s->st));
    if (cfg->n_sinks) {
      TRY(cudaMalloc((void **)&s->sinks, (size_t)cfg->n_sinks * sizeof(bg_sink)));
      TRY(cudaMemcpyAsync(s->sinks, cfg->sinks, (size_t)cfg->n_sinks * sizeof(bg_sink), cudaMemcpyHostToDevice,
                          s->st));
    }
    s->tally_words = 1 + 2 * ((size_t)cfg->n_sinks + 1) + BG_WALL_TALLY * (size_t)cfg->n_walls * (cfg->n_cuts ? 2 : 1);
    if (cfg->n_cuts) TRY(cudaMalloc((void **)&s->d_cuts, BG_CUT_MAX * sizeof(bg_cut)));
    TRY(cudaMalloc((void **)&s->d_tally, s->tally_words * 8));
    TRY(cudaMemsetAsync(s->d_tally, 0, s->tally_words * 8, s->st));
    TRY(cudaMallocHost((void **)&s->h_tally, s->tally_words * 8));
    memset(s->h_tally, 0, s->tally_words * 8);
    TRY(cudaMalloc((void **)&s->d_nsel, sizeof(int64_t)));
    TRY(cudaEventCreateWithFlags(&s->ev_tally, cudaEventDisableTiming));
    for (int k = 0; k < 5; ++k) TRY(cudaEventCreate(&s->ev[k]));
    TRY(cudaStreamSynchronize(s->st));
  }
#undef TRY
  s->sink_mass = (double *)calloc((size_t)cfg->n_sinks + 1, sizeof *s->sink_mass);
  s->wf = (double *)calloc(BG_WALL_TALLY * (size_t)cfg->n_walls, sizeof *s->wf);
  if (!s->sink_mass || !s->wf) {
    cuda_destroy(s);
    return BG_ERR_NOMEM;
  }
  *out = s;
  return BG_OK;
fail:
  cuda_destroy(s);
  return r;
}

bg_status cuda_grow(cuda_state *s, size_t need) {
  if (need <= s->cap) return BG_OK;
  /* the sort's permutation is 32-bit (cuda_sort.cu) */
  if (need > (size_t)UINT32_MAX)
    return fail(s, BG_ERR_OVERFLOW, "the cuda backend holds at most 2^32 - 1 particles (its sort permutes 32-bit slots)");
  size_t want[2] = {need > 2 * s->cap ? need : 2 * s->cap, need};
  for (int attempt = 0; attempt < 2; ++attempt) {
    size_t cap = want[attempt];
    if (attempt == 1 && cap == want[0]) break;
    dparts Q;
    memset(&Q, 0, sizeof Q);
    cudaError_t e = cudaSuccess;
    Q.m1 = s->P.m1;
    Q.v1 = s->P.v1;
    Q.mat1 = s->P.mat1;
    for (int k = 0; k < NPF && e == cudaSuccess; ++k)
      if (holds_array(s, k)) e = cudaMalloc((void **)&Q.f[k], cap * sizeof(float));
    if (e == cudaSuccess) e = cudaMalloc((void **)&Q.id, cap * sizeof(int64_t));
    if (e == cudaSuccess) e = cudaMalloc((void **)&Q.park, cap * sizeof(int32_t));
    if (e == cudaSuccess) e = cudaMalloc((void **)&Q.mat, cap * sizeof(uint8_t));
    if (e != cudaSuccess) {
      free_parts(&Q);
      (void)cudaGetLastError();
      if (e == cudaErrorMemoryAllocation) continue;
      return cu_fail(s, e, "cudaMalloc (particle arrays)", __FILE__, __LINE__);
    }
    if (s->n) {
      for (int k = 0; k < NPF; ++k)
        if (Q.f[k]) CU(cudaMemcpyAsync(Q.f[k], s->P.f[k], s->n * sizeof(float), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaMemcpyAsync(Q.id, s->P.id, s->n * sizeof(int64_t), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaMemcpyAsync(Q.park, s->P.park, s->n * sizeof(int32_t), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaMemcpyAsync(Q.mat, s->P.mat, s->n * sizeof(uint8_t), cudaMemcpyDeviceToDevice, s->st));
      CU(cudaStreamSynchronize(s->st));
    }
    free_parts(&s->P);
    s->P = Q;
    s->cap = cap;
    return BG_OK;
  }
  if (s->err && s->err_len) {
    size_t fb = 0, tb = 0;
    cudaMemGetInfo(&fb, &tb);
    snprintf(s->err, s->err_len,
             "cuda backend: out of device memory for %zu particles (%.3g GB of state; %.3g GB free of %.3g)", need,
             (double)need * (double)cuda_bytes_per_slot(s) / 1e9, fb / 1e9, tb / 1e9);
  }
  return BG_ERR_NOMEM;
}

/* layout=compact keeps one volume for every particle: the first particles
 * added set it (cuda_compact_commit, once they are in), and any other
 * volume is refused before anything changes. */
bg_status cuda_compact_volume(cuda_state *s, size_t n, const bg_real *vol, bg_real vol_c) {
  if (!s->compact || n == 0) return BG_OK;
  const float v1 = s->have_v1 ? s->P.v1 : (vol ? vol[0] : vol_c);
  for (size_t k = 0; k < n; ++k) {
    const float vk = vol ? vol[k] : vol_c;
    if (vk != v1) {
      if (s->err && s->err_len)
        snprintf(s->err, s->err_len,
                 "cuda backend: layout=compact holds one particle volume (%g m^3), and particle %zu of this add "
                 "has %g m^3 (use layout=full for particles of several volumes)",
                 (double)v1, k, (double)vk);
      return BG_ERR_RANGE;
    }
  }
  return BG_OK;
}

/* After the add succeeded: the volume it checked becomes the one. */
void cuda_compact_commit(cuda_state *s, size_t n, const bg_real *vol, bg_real vol_c) {
  if (!s->compact || n == 0 || s->have_v1) return;
  s->P.v1 = vol ? vol[0] : vol_c;
  s->P.m1 = s->cfg->mat.el.rho0 * s->P.v1; /* as k_init's rho0 * vk */
  s->have_v1 = 1;
}

static bg_status cuda_add(void *state, size_t n, const bg_real *x, const bg_real *v, const bg_real *vol, int mat) {
  cuda_state *s = (cuda_state *)state;
  bg_status st = cuda_flush(s); /* the speeds below must max into the last step's, not be overwritten */
  if (st != BG_OK) return st;
  if ((st = cuda_compact_volume(s, n, vol, 0.0f)) != BG_OK) return st;
  if ((st = cuda_grow(s, s->n + n)) != BG_OK) return st;
  size_t chunk = n < BG_CUDA_UPLOAD_CHUNK ? n : BG_CUDA_UPLOAD_CHUNK;
  float *tmp = NULL;
  CU(cudaMalloc((void **)&tmp, 7 * chunk * sizeof(float)));
  float *tx = tmp, *tv = tmp + 3 * chunk, *tvol = tmp + 6 * chunk;
  bg_status r = BG_OK;
  for (size_t k0 = 0; k0 < n && r == BG_OK; k0 += chunk) {
    size_t c = n - k0 < chunk ? n - k0 : chunk;
    cudaError_t e = cudaMemcpyAsync(tx, x + 3 * k0, 3 * c * sizeof(float), cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess && v) e = cudaMemcpyAsync(tv, v + 3 * k0, 3 * c * sizeof(float), cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(tvol, vol + k0, c * sizeof(float), cudaMemcpyHostToDevice, s->st);
    if (e == cudaSuccess) {
      k_init<<<grid_of((int64_t)c, BG_CUDA_EW_THREADS), BG_CUDA_EW_THREADS, 0, s->st>>>(
          s->P, (int64_t)(s->n + k0), (int64_t)c, tx, v ? tv : NULL, tvol, 0.0f, s->cfg->mats[mat].el.rho0, mat);
      e = cudaGetLastError();
    }
    /* the staging buffer is reused by the next chunk */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->st);
    if (e != cudaSuccess) r = cu_fail(s, e, "uploading particles", __FILE__, __LINE__);
  }
  cudaFree(tmp);
  if (r != BG_OK) return r;
  /* host tallies exactly as the CPU keeps them */
  bg_real rho0 = s->cfg->mats[mat].el.rho0;
  for (size_t k = 0; k < n; ++k) {
    bg_real m = rho0 * vol[k];
    s->total_mass += (double)m;
    if (v) {
      double sp = sqrt((double)v[3 * k] * v[3 * k] + (double)v[3 * k + 1] * v[3 * k + 1] +
                       (double)v[3 * k + 2] * v[3 * k + 2]);
      if (sp > s->max_speed) s->max_speed = sp;
    }
  }
  cuda_compact_commit(s, n, vol, 0.0f);
  s->n += n;
  s->n_active += n;
  s->dirty = 1;
  cuda_pre_invalidate(s);
  return BG_OK;
}

static bg_status cuda_set_boundary(void *state, const bg_bnode *nodes, size_t n) {
  cuda_state *s = (cuda_state *)state;
  if (n > s->bn_cap) {
    bg_bnode *nb = NULL;
    size_t cap = n + n / 2;
    CU(cudaMalloc((void **)&nb, cap * sizeof *nb));
    cudaFree(s->bn); /* synchronises with kernels still reading it */
    s->bn = nb;
    s->bn_cap = cap;
  }
  /* pageable source: the copy has consumed the host list when this returns */
  if (n) CU(cudaMemcpyAsync(s->bn, nodes, n * sizeof *nodes, cudaMemcpyHostToDevice, s->st));
  s->n_bn = n;
  return BG_OK;
}

/* ggml-style labels: the .cu is C++, where designated initializers must
 * follow the declaration order anyway; the labels keep a slot from shifting
 * silently. */
extern "C" const bg_backend_ops bg_backend_cuda = {
    /* .variant      = */ BG_CUDA_TILE,
    /* .properties   = */ cuda_properties,
    /* .n_properties = */ CUDA_N_PROPERTIES,
    /* .available    = */ cuda_available,
    /* .create       = */ cuda_create,
    /* .destroy      = */ cuda_destroy,
    /* .add          = */ cuda_add,
    /* .set_boundary = */ cuda_set_boundary,
    /* .sort         = */ cuda_sort,
    /* .p2g          = */ cuda_p2g,
    /* .grid_update  = */ cuda_grid_update,
    /* .g2p          = */ cuda_g2p,
    /* .get          = */ cuda_get,
    /* .stats        = */ cuda_stats,
    /* .grid         = */ cuda_grid,
    /* .count        = */ cuda_count,
    /* .stage_times  = */ cuda_stage_times,
    /* .export_raw   = */ cuda_export,
    /* .import_raw   = */ cuda_import,
    /* .wall_forces  = */ cuda_wall_forces,
    /* .device_ordinal = */ cuda_device_ordinal,
    /* .memory       = */ cuda_memory,
    /* .get_device   = */ cuda_get_device,
    /* .set_device   = */ cuda_set_device,
    /* .add_device   = */ cuda_add_device,
    /* .device_alloc = */ cuda_device_alloc,
    /* .device_free  = */ cuda_device_free,
    /* .set_body_nodes = */ cuda_set_body_nodes,
};

extern "C" const bg_backend_ops bg_backend_cuda_global = {
    /* .variant      = */ BG_CUDA_GLOBAL,
    /* .properties   = */ cuda_properties,
    /* .n_properties = */ CUDA_N_PROPERTIES,
    /* .available    = */ cuda_available,
    /* .create       = */ cuda_create,
    /* .destroy      = */ cuda_destroy,
    /* .add          = */ cuda_add,
    /* .set_boundary = */ cuda_set_boundary,
    /* .sort         = */ cuda_sort,
    /* .p2g          = */ cuda_p2g,
    /* .grid_update  = */ cuda_grid_update,
    /* .g2p          = */ cuda_g2p,
    /* .get          = */ cuda_get,
    /* .stats        = */ cuda_stats,
    /* .grid         = */ cuda_grid,
    /* .count        = */ cuda_count,
    /* .stage_times  = */ cuda_stage_times,
    /* .export_raw   = */ cuda_export,
    /* .import_raw   = */ cuda_import,
    /* .wall_forces  = */ cuda_wall_forces,
    /* .device_ordinal = */ cuda_device_ordinal,
    /* .memory       = */ cuda_memory,
    /* .get_device   = */ cuda_get_device,
    /* .set_device   = */ cuda_set_device,
    /* .add_device   = */ cuda_add_device,
    /* .device_alloc = */ cuda_device_alloc,
    /* .device_free  = */ cuda_device_free,
    /* .set_body_nodes = */ cuda_set_body_nodes,
};

