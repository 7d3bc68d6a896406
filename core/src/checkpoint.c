/* checkpoint.c: bg_sim_load and bg_sim_restore (bg_sim_save is in
 * checkpoint_write.c).
 *
 * The file, all little-endian in the writing machine's own layout (which the
 * header records and the reader checks):
 *   header   magic "BGCKPT\r\n", version, the layout words, payload length
 *   payload  the descriptor (grid, material, colliders with node arrays,
 *            sinks, walls, dt rule, the backend and its properties; a 2D
 *            simulation is the one with dims[1] == 1), the clock, every particle in the
 *            backend's memory order (bg_raw: the arrays, ids, park codes,
 *            tallies, sort runs), the wall tallies, from version 3 the
 *            material table and each particle's index in it, from version
 *            4 the sources with their state, from version 5 the rigid
 *            bodies with theirs (from version 6 a mesh body's vertices
 *            and triangles after its state), the user blob
 *   trailer  SHA-256 of header and payload
 * Reading validates before it changes anything: magic, version and layout,
 * then the length (a short file is BG_ERR_TRUNCATED), then the checksum
 * over the whole file in one streaming pass, and only then the parse. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bg_internal.h"
#include "bg_sha256.h"

#include "checkpoint_format.h"


/* ------------------------------------------------------------------ reader */

typedef struct reader {
  FILE *fp;
  uint64_t left;     /* payload bytes not yet read */
  int bad;           /* 1: ran past the announced payload, 2: read error */
  uint32_t mat_size; /* the writer's sizeof(bg_material), <= this build's */
} reader;

static void get(reader *rd, void *p, size_t n) {
  if (rd->bad || n == 0) return;
  if (n > rd->left) {
    rd->bad = 1;
    return;
  }
  if (fread(p, 1, n, rd->fp) != n) rd->bad = 2;
  rd->left -= n;
}
/* A material as the writer stored it. A file from a build whose material
 * union was smaller (a model's parameter list has grown since: fields are
 * only ever appended) loads with the missing bytes taken from the model's
 * defaults, so an old run resumes as it was fed. */
static void get_material(reader *rd, bg_material *m) {
  memset(m, 0, sizeof *m);
  get(rd, m, rd->mat_size);
  if (rd->mat_size < sizeof *m && (int)m->model >= 0 && (int)m->model < BG_MODEL_COUNT) {
    bg_material def = bg_material_default(m->model);
    memcpy((unsigned char *)m + rd->mat_size, (const unsigned char *)&def + rd->mat_size,
           sizeof *m - rd->mat_size);
  }
}
static int32_t get_i32(reader *rd) {
  int32_t v = 0;
  get(rd, &v, sizeof v);
  return v;
}
static uint64_t get_u64(reader *rd) {
  uint64_t v = 0;
  get(rd, &v, sizeof v);
  return v;
}
static double get_f64(reader *rd) {
  double v = 0;
  get(rd, &v, sizeof v);
  return v;
}
static bg_real get_real(reader *rd) {
  bg_real v = 0;
  get(rd, &v, sizeof v);
  return v;
}
static void get_reals(reader *rd, bg_real *v, size_t n) { get(rd, v, n * sizeof *v); }
/* A string of at most cap - 1 bytes into buf (longer: corrupt). */
static void get_str(reader *rd, char *buf, size_t cap) {
  uint32_t n = 0;
  get(rd, &n, sizeof n);
  if (rd->bad) return;
  if (n >= cap) {
    rd->bad = 3;
    return;
  }
  get(rd, buf, n);
  buf[n] = 0;
}


static void ckpt_free(ckpt *c) {
  for (size_t i = 0; c->colliders && i < c->desc.n_colliders; ++i) {
    free((void *)c->colliders[i].phi);
    free((void *)c->colliders[i].normals);
  }
  free(c->colliders);
  free(c->sinks);
  free(c->materials);
  free(c->sources);
  for (size_t k = 0; c->bodies && k < c->desc.n_bodies; ++k) bg_mesh_destroy((bg_mesh *)c->bodies[k].mesh);
  free(c->bodies);
  free(c->bstate);
  free(c->bwall);
  free(c->wall);
  bg_raw_free(&c->raw);
  free(c->user);
  memset(c, 0, sizeof *c);
}

/* Error text goes to err (the caller's buffer). */
#define RFAIL(status, ...)                           \
  do {                                               \
    if (err && len) snprintf(err, len, __VA_ARGS__); \
    return status;                                   \
  } while (0)

/* Header, length and checksum, before any parse; leaves fp after the header. */
static bg_status verify(FILE *fp, const char *path, uint64_t *payload, uint32_t *version_out,
                        uint32_t *mat_size, char *err, size_t len) {
  unsigned char head[HEADER_BYTES];
  size_t got = fread(head, 1, sizeof head, fp);
  if (got >= sizeof BG_CKPT_MAGIC && memcmp(head, BG_CKPT_MAGIC, sizeof BG_CKPT_MAGIC) != 0)
    RFAIL(BG_ERR_CORRUPT,
          "%s is not a bagnold checkpoint (its first bytes are not the magic BGCKPT)", path);
  if (got < sizeof head)
    RFAIL(BG_ERR_TRUNCATED, "%s is truncated: %zu bytes, shorter than the %d-byte header", path,
          got, HEADER_BYTES);
  uint32_t version, lw[LAYOUT_WORDS], want[LAYOUT_WORDS];
  memcpy(&version, head + 8, 4);
  memcpy(lw, head + 12, sizeof lw);
  memcpy(payload, head + 12 + sizeof lw, 8);
  /* version 1 differs from 2 only in the descriptor's cpu_reference word,
   * version 2 from 3 in the material table and index it lacks, 3 from 4
   * in the sources, 4 from 5 in the rigid bodies, 5 from 6 in a mesh
   * body's geometry (a version-5 file has no mesh body) */
  if (version < 1 || version > BG_CHECKPOINT_VERSION)
    RFAIL(BG_ERR_VERSION, "%s has checkpoint format version %u; this library reads versions 1 to %d",
          path, (unsigned)version, BG_CHECKPOINT_VERSION);
  *version_out = version;
  layout_words(want);
  static const char *const what[LAYOUT_WORDS] = {"byte order",           "float size",
                                                 "particle arrays",      "plastic state",
                                                 "material struct size", "face count"};
  *mat_size = lw[4];
  for (int k = 0; k < LAYOUT_WORDS; ++k)
    if (lw[k] != want[k] && !(k == 4 && lw[k] >= offsetof(bg_material, dp) && lw[k] < want[k]))
      RFAIL(BG_ERR_VERSION, "%s was written with another memory layout (%s %#x, this build %#x)",
            path, what[k], (unsigned)lw[k], (unsigned)want[k]);
  struct stat st;
  if (fstat(fileno(fp), &st) != 0) RFAIL(BG_ERR_IO, "cannot stat %s: %s", path, strerror(errno));
  uint64_t need = HEADER_BYTES + *payload + 32;
  if ((uint64_t)st.st_size < need)
    RFAIL(BG_ERR_TRUNCATED, "%s is truncated: %llu bytes of the %llu its header announces", path,
          (unsigned long long)st.st_size, (unsigned long long)need);
  if ((uint64_t)st.st_size > need)
    RFAIL(BG_ERR_CORRUPT, "%s has %llu bytes after its end (%llu announced)", path,
          (unsigned long long)((uint64_t)st.st_size - need), (unsigned long long)need);
  bg_sha256 h;
  bg_sha256_init(&h);
  bg_sha256_update(&h, head, sizeof head);
  unsigned char buf[1 << 14]; /* on the stack: restores may run in several threads at once */
  uint64_t left = *payload;
  while (left) {
    size_t n = left < sizeof buf ? (size_t)left : sizeof buf;
    if (fread(buf, 1, n, fp) != n) RFAIL(BG_ERR_IO, "reading %s: %s", path, strerror(errno));
    bg_sha256_update(&h, buf, n);
    left -= n;
  }
  unsigned char digest[32], stored[32];
  bg_sha256_final(&h, digest);
  if (fread(stored, 1, 32, fp) != 32) RFAIL(BG_ERR_IO, "reading %s: %s", path, strerror(errno));
  if (memcmp(digest, stored, 32) != 0)
    RFAIL(BG_ERR_CORRUPT,
          "%s is corrupt: the SHA-256 of its content does not match the one it stores", path);
  if (fseek(fp, HEADER_BYTES, SEEK_SET) != 0)
    RFAIL(BG_ERR_IO, "seeking in %s: %s", path, strerror(errno));
  return BG_OK;
}

static bg_status parse(reader *rd, ckpt *c, uint32_t version, const char *path, char *err, size_t len) {
  memset(c, 0, sizeof *c);
  bg_sim_desc *d = &c->desc;
  *d = bg_sim_desc_default();
  uint64_t n_nodes = 1;
  for (int a = 0; a < 3; ++a) {
    d->dims[a] = (size_t)get_u64(rd);
    if (a == 1 && d->dims[1] == 1) d->dim = 2; /* one y layer only in 2D: the file's dimension */
    else if (d->dims[a] < 4 || d->dims[a] >= (1u << 30))
      rd->bad = rd->bad ? rd->bad : 3;
    else
      n_nodes *= d->dims[a];
  }
  d->dx = get_real(rd);
  get_reals(rd, d->origin, 3);
  get_reals(rd, d->gravity, 3);
  get_material(rd, &d->material);
  for (int f = 0; f < BG_FACE_COUNT; ++f) {
    d->walls[f].friction = (bg_friction)get_i32(rd);
    d->walls[f].mu = get_real(rd);
  }
  d->threads = get_i32(rd);
  d->cfl = get_real(rd);
  d->fixed_dt = get_real(rd);
  d->force_dt = get_i32(rd);
  d->sort_interval = get_i32(rd);
  if (version == 1) {
    (void)get_i32(rd); /* cpu_reference, retired: the oracle is a backend of its own */
  } else {
    get_str(rd, c->backend, sizeof c->backend);
    get_str(rd, c->properties, sizeof c->properties);
  }
  d->damping = get_real(rd);
  uint64_t nc = get_u64(rd);
  if (rd->bad) goto bad;
  /* (a node array's length is checked where one is read: a file of few
   * particles on a large grid, a source's before it poured, is smaller than
   * the grid) */
  if (nc >= 1000) goto impossible;
  d->n_colliders = (size_t)nc;
  c->colliders = calloc(nc ? nc : 1, sizeof *c->colliders);
  if (!c->colliders) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
  for (size_t i = 0; i < nc && !rd->bad; ++i) {
    bg_collider *k = &c->colliders[i];
    k->shape = (bg_shape)get_i32(rd);
    get_reals(rd, k->point, 3);
    get_reals(rd, k->normal, 3);
    get_reals(rd, k->lo, 3);
    get_reals(rd, k->hi, 3);
    get_reals(rd, k->center, 2);
    k->radius = get_real(rd);
    k->invert = get_i32(rd);
    k->friction = (bg_friction)get_i32(rd);
    k->mu = get_real(rd);
    get_reals(rd, k->velocity, 3);
    int has_phi = get_i32(rd), has_nrm = get_i32(rd);
    if (rd->bad) break;
    if ((has_phi | has_nrm) & ~1 || (has_nrm && !has_phi) ||
        (has_phi != (k->shape == BG_SHAPE_NODES)))
      goto impossible;
    if (has_phi) {
      if (n_nodes * sizeof(bg_real) * (has_nrm ? 4 : 1) > rd->left) goto impossible;
      bg_real *phi = malloc((size_t)n_nodes * sizeof *phi);
      bg_real *nrm = has_nrm ? malloc(3 * (size_t)n_nodes * sizeof *nrm) : NULL;
      k->phi = phi;
      k->normals = nrm;
      if (!phi || (has_nrm && !nrm)) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
      get_reals(rd, phi, (size_t)n_nodes);
      if (nrm) get_reals(rd, nrm, 3 * (size_t)n_nodes);
    }
  }
  d->colliders = c->colliders;
  uint64_t ns = get_u64(rd);
  if (rd->bad) goto bad;
  if (ns >= 1000) goto impossible;
  d->n_sinks = (size_t)ns;
  c->n_sinks = (int)ns;
  c->sinks = calloc(ns ? ns : 1, sizeof *c->sinks);
  if (!c->sinks) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
  for (size_t i = 0; i < ns; ++i) {
    get_reals(rd, c->sinks[i].lo, 3);
    get_reals(rd, c->sinks[i].hi, 3);
  }
  d->sinks = c->sinks;
  c->step = get_u64(rd);
  c->time = get_f64(rd);
  c->last_dt = get_real(rd);
  uint64_t n = get_u64(rd);
  if (rd->bad) goto bad;
  if (n > rd->left / (BG_RAW_NF * sizeof(bg_real) + 12)) goto impossible;
  {
    /* bg_raw_alloc wants a simulation for its sink count and messages */
    bg_raw *r = &c->raw;
    size_t m = n ? (size_t)n : 1;
    int ok = 1;
    for (int k = 0; k < BG_RAW_NF; ++k) ok &= (r->f[k] = malloc(m * sizeof(bg_real))) != NULL;
    r->id = malloc(m * sizeof *r->id);
    r->park = malloc(m * sizeof *r->park);
    r->mat = calloc(m, sizeof *r->mat); /* before version 3: every particle of entry 0 */
    r->sink_mass = calloc(ns + 1, sizeof *r->sink_mass);
    if (!ok || !r->id || !r->park || !r->mat || !r->sink_mass)
      RFAIL(BG_ERR_NOMEM, "out of memory for the %llu particles of %s", (unsigned long long)n,
            path);
    r->n = (size_t)n;
    for (int k = 0; k < BG_RAW_NF; ++k) get_reals(rd, r->f[k], r->n);
    get(rd, r->id, r->n * sizeof *r->id);
    get(rd, r->park, r->n * sizeof *r->park);
    r->parked_mass = get_f64(rd);
    r->total_mass = get_f64(rd);
    r->max_speed = get_f64(rd);
    get(rd, r->sink_mass, ((size_t)ns + 1) * sizeof *r->sink_mass);
    get(rd, &r->n_runs, sizeof r->n_runs);
    if (rd->bad) goto bad;
    if (r->n_runs > (int64_t)r->n || r->n_runs < -1) goto impossible;
    if (r->n_runs > 0) {
      r->run_cap = (size_t)r->n_runs;
      r->runstart = malloc(r->run_cap * sizeof *r->runstart);
      r->runkey = malloc(r->run_cap * sizeof *r->runkey);
      if (!r->runstart || !r->runkey) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
      get(rd, r->runstart, r->run_cap * sizeof *r->runstart);
      get(rd, r->runkey, r->run_cap * sizeof *r->runkey);
    }
    /* the particles' own consistency: ids a permutation, codes in range */
    unsigned char *seen = calloc(m, 1);
    if (!seen) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
    int perm_ok = 1;
    for (size_t p = 0; p < r->n && perm_ok; ++p) {
      int64_t id = r->id[p];
      if (id < 0 || (uint64_t)id >= n || seen[id] || r->park[p] < -1 || r->park[p] > (int32_t)ns)
        perm_ok = 0;
      else
        seen[id] = 1;
    }
    free(seen);
    if (!perm_ok) goto impossible;
  }
  {
    size_t nw = 3 * (nc + BG_FACE_COUNT);
    c->wall = malloc(2 * nw * sizeof *c->wall);
    if (!c->wall) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
    get(rd, c->wall, 2 * nw * sizeof *c->wall);
  }
  if (version >= 3) {
    uint64_t nm = get_u64(rd);
    if (rd->bad) goto bad;
    if (nm < 1 || nm > BG_MAX_MATERIALS || nm * rd->mat_size > rd->left) goto impossible;
    c->materials = malloc((size_t)nm * sizeof *c->materials);
    if (!c->materials) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
    for (uint64_t k = 0; k < nm; ++k) get_material(rd, &c->materials[k]);
    get(rd, c->raw.mat, c->raw.n * sizeof *c->raw.mat);
    if (rd->bad) goto bad;
    for (size_t p = 0; p < c->raw.n; ++p)
      if (c->raw.mat[p] >= nm) goto impossible;
    d->materials = c->materials;
    d->n_materials = (size_t)nm;
    d->material = c->materials[0];
  }
  if (version >= 4) {
    /* the smallest a source takes in the file */
    enum { SRC_BYTES = 4 + 11 * sizeof(bg_real) + 3 * 8 + 4 + 8 + 4 * 8 };
    uint64_t nq = get_u64(rd);
    if (rd->bad) goto bad;
    if (nq > rd->left / SRC_BYTES) goto impossible;
    c->n_sources = (size_t)nq;
    c->sources = calloc(nq ? nq : 1, sizeof *c->sources);
    if (!c->sources) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
    for (size_t i = 0; i < c->n_sources; ++i) {
      bg_src *q = &c->sources[i];
      q->d.shape = (bg_source_shape)get_i32(rd);
      get_reals(rd, q->d.center, 3);
      q->d.radius = get_real(rd);
      get_reals(rd, q->d.half, 3);
      get_reals(rd, q->d.velocity, 3);
      q->d.mass_rate = get_f64(rd);
      q->d.t_start = get_f64(rd);
      q->d.t_stop = get_f64(rd);
      q->d.material = get_i32(rd);
      q->d.ppc = get_real(rd);
      q->d.seed = get_u64(rd);
      q->owed = get_f64(rd);
      q->n_emitted = get_u64(rd);
      q->mass_emitted = get_f64(rd);
      q->counter = get_u64(rd);
    }
  }
  if (version >= 5) {
    enum { BODY_BYTES = BG_BODY_FIELD_BYTES + 19 * 8 + 4 + 6 * 8 };
    uint64_t nb = get_u64(rd);
    if (rd->bad) goto bad;
    if (nb >= 1000 || nb > rd->left / BODY_BYTES) goto impossible;
    c->bodies = calloc(nb ? nb : 1, sizeof *c->bodies);
    c->bstate = calloc(nb ? nb : 1, sizeof *c->bstate);
    c->bwall = calloc(nb ? 6 * nb : 1, sizeof *c->bwall);
    if (!c->bodies || !c->bstate || !c->bwall) RFAIL(BG_ERR_NOMEM, "out of memory reading %s", path);
    d->bodies = c->bodies; /* counted as read, so that a failure frees the meshes rebuilt so far */
    for (size_t k = 0; k < nb; ++k) {
      d->n_bodies = k + 1;
      bg_rbody *r = &c->bstate[k];
      get(rd, &c->bodies[k], BG_BODY_FIELD_BYTES); /* the mesh pointer stays NULL (calloc) */
      get(rd, r->x, sizeof r->x);
      get(rd, r->q, sizeof r->q);
      get(rd, r->v, sizeof r->v);
      get(rd, r->w, sizeof r->w);
      get(rd, r->f, sizeof r->f);
      get(rd, r->tau, sizeof r->tau);
      r->parked = get_i32(rd);
      get(rd, c->bwall + 6 * k, 6 * sizeof *c->bwall);
      if (version >= 6 && c->bodies[k].shape == BG_BODY_MESH) {
        const uint64_t nv = get_u64(rd), nt = get_u64(rd);
        if (rd->bad) goto bad;
        if (!nv || !nt || nv > rd->left / 24 || nt > rd->left / 12) goto impossible;
        double *v = malloc(24 * nv);
        uint32_t *t = malloc(12 * nt);
        if (v && t) {
          get(rd, v, 24 * nv);
          get(rd, t, 12 * nt);
        }
        c->bodies[k].mesh = v && t && !rd->bad ? bg_mesh_from_arrays_(v, nv, t, nt) : NULL;
        free(v);
        free(t);
        if (rd->bad) goto bad;
        if (!c->bodies[k].mesh) RFAIL(BG_ERR_CORRUPT, "%s: body %zu's mesh cannot be rebuilt", path, k);
      }
    }
    d->n_bodies = (size_t)nb;
  }
  c->user_len = (size_t)get_u64(rd);
  if (rd->bad) goto bad;
  if (c->user_len != rd->left) goto impossible;
  c->user = malloc(c->user_len ? c->user_len : 1);
  if (!c->user)
    RFAIL(BG_ERR_NOMEM, "out of memory for the %zu-byte user blob of %s", c->user_len, path);
  get(rd, c->user, c->user_len);
  if (rd->bad) goto bad;
  return BG_OK;
bad:
  if (rd->bad == 2) RFAIL(BG_ERR_IO, "reading %s: %s", path, strerror(errno));
impossible:
  RFAIL(BG_ERR_CORRUPT,
        "%s is corrupt: its content does not fit its own lengths (checksum valid: written by a "
        "faulty writer?)",
        path);
}

static bg_status read_ckpt(const char *path, ckpt *c, char *err, size_t len) {
  memset(c, 0, sizeof *c);
  if (!path) RFAIL(BG_ERR_NULL, "path is NULL");
  errno = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) RFAIL(BG_ERR_IO, "cannot open checkpoint %s: %s", path, strerror(errno));
  uint64_t payload = 0;
  uint32_t version = 0, mat_size = 0;
  bg_status s = verify(fp, path, &payload, &version, &mat_size, err, len);
  if (s == BG_OK) {
    reader rd = {fp, payload, 0, mat_size};
    s = parse(&rd, c, version, path, err, len);
  }
  fclose(fp);
  if (s != BG_OK) ckpt_free(c);
  return s;
}

/* ----------------------------------------------------------------- restore */

bg_status bg_sim_restore(bg_sim *sim, const char *path, void *user, size_t cap, size_t *user_len) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  if (cap && !user) return bg_fail(sim, BG_ERR_NULL, "user is NULL with cap = %zu", cap);
  ckpt c;
  bg_status s = read_ckpt(path, &c, sim->err, sizeof sim->err);
  if (s != BG_OK) return s;
  char buf[128];
  const char *field = bg_ckpt_mismatch(sim, &c, buf, sizeof buf);
  if (field) {
    ckpt_free(&c);
    return bg_fail(sim, BG_ERR_MISMATCH, "%s was written by a simulation with another %s", path,
                   field);
  }
  if (user && c.user_len > cap) {
    size_t need = c.user_len;
    ckpt_free(&c);
    return bg_fail(sim, BG_ERR_RANGE, "the user blob of %s has %zu bytes, more than cap = %zu",
                   path, need, cap);
  }
  s = bg_ckpt_apply(sim, &c);
  if (s == BG_OK) {
    if (user) memcpy(user, c.user, c.user_len);
    if (user_len) *user_len = c.user_len;
  }
  ckpt_free(&c);
  return s;
}

bg_status bg_checkpoint_verify(const char *path, char *err, size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!path) {
    if (err && err_len) snprintf(err, err_len, "path is NULL");
    return BG_ERR_NULL;
  }
  errno = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    if (err && err_len) snprintf(err, err_len, "cannot open checkpoint %s: %s", path, strerror(errno));
    return BG_ERR_IO;
  }
  uint64_t payload = 0;
  uint32_t version = 0, mat_size = 0;
  bg_status s = verify(fp, path, &payload, &version, &mat_size, err, err_len);
  fclose(fp);
  return s;
}

bg_status bg_sim_load(const char *path, const char *backend, int threads, bg_sim **out, char *err,
                      size_t err_len) {
  if (err && err_len) err[0] = 0;
  if (!out) {
    if (err && err_len) snprintf(err, err_len, "out is NULL");
    return BG_ERR_NULL;
  }
  *out = NULL;
  ckpt c;
  bg_status s = read_ckpt(path, &c, err, err_len);
  if (s != BG_OK) return s;
  c.desc.backend = backend;
  c.desc.threads = threads;
  /* the writer's tuning where the same backend loads it, else the defaults */
  const char *same = bg_backend_resolve(backend);
  c.desc.properties = same && strcmp(same, c.backend) == 0 ? c.properties : NULL;
  bg_sim *sim = NULL;
  s = bg_sim_create(&c.desc, &sim, err, err_len);
  if (s == BG_OK) {
    s = bg_ckpt_apply(sim, &c);
    if (s != BG_OK) {
      if (err && err_len) snprintf(err, err_len, "%s", sim->err);
      bg_sim_destroy(sim);
      sim = NULL;
    }
  }
  ckpt_free(&c);
  *out = sim;
  return s;
}
