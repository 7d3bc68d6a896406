/* bg_internal.h: what the front end and the backends share but users never
 * see: the resolved configuration (POD, ready for a device copy), the
 * backend function table, and the simulation handle. */
#ifndef BG_INTERNAL_H
#define BG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bagnold.h"
#include "bg_backend_list.h"
#include "bg_boundary.h"
#include "bg_cut.h"
#include "bg_materials.h"

#ifdef __cplusplus
extern "C" { /* the CUDA backend is compiled as C++ */
#endif

/* Faces act on this many node layers: a particle's stencil reaches one node
 * past its nearest, so two layers stop it before it can leave the grid. */
#define BG_FACE_LAYERS 2

/* Grid blocks of 4^3 nodes: the unit particles are binned by, on the CPU for
 * the race-free coloured scatter and on the GPU for the shared-memory tile. */
#define BG_BLOCK_LOG2 2
#define BG_BLOCK (1 << BG_BLOCK_LOG2)

/* The state of a particle as every backend stores it: one float array per
 * component, in this order. Checkpoints and the set-up calls move particles
 * between the front end and a backend in this layout (bg_raw). */
enum {
  BG_RAW_X = 0,                 /* position, 3 */
  BG_RAW_V = 3,                 /* velocity, 3 */
  BG_RAW_F = 6,                 /* elastic F, 9, row-major */
  BG_RAW_C = 15,                /* APIC C, 9, row-major */
  BG_RAW_TAU = 24,              /* Kirchhoff stress of the last update: xx yy zz xy xz yz */
  BG_RAW_ST = 30,               /* the plastic state, BG_NSTATE */
  BG_RAW_MASS = 30 + BG_NSTATE, /* mass */
  BG_RAW_VOL,                   /* reference volume */
  BG_RAW_MODE,                  /* return-map case of the last update (bg_material_core.h) */
  BG_RAW_NF
};

/* Every particle of a backend in its memory order, with the tallies and the
 * sort state that a bit-identical continuation needs. The caller owns the
 * arrays: n entries each, sink_mass n_sinks + 1, runs run_cap. */
typedef struct bg_raw {
  size_t n;
  bg_real *f[BG_RAW_NF];
  int64_t *id;   /* insertion index of each slot */
  int32_t *park; /* -1 active, k < n_sinks in sink k, n_sinks left the grid */
  uint8_t *mat;  /* its entry in the material table (bg_config.mats) */
  double parked_mass, total_mass, max_speed;
  double *sink_mass;
  /* sort state: the runs of equal block a backend launches over since its
   * last sort (-1: none kept, the backend sorts before the next step) */
  int64_t n_runs;
  size_t run_cap;
  int64_t *runstart;
  uint32_t *runkey;
} bg_raw;

/* A named tuning property of a backend. */
typedef struct bg_property_def {
  const char *name;   /* e.g. "g2p_minblocks" */
  const char *values; /* the accepted values, '|'-separated, e.g. "0|4" */
  const char *def;    /* the default, one of values */
  const char *doc;    /* one line: what it changes */
} bg_property_def;
#define BG_MAX_PROPERTIES 8
#define BG_PROPERTY_LEN 32

typedef struct bg_config {
  int dim; /* 3, or 2: plane strain in x-z, dims[1] == 1 (bg_sim_desc.dim) */
  int64_t dims[3];
  int64_t n_nodes;
  bg_real dx, inv_dx;
  bg_real origin[3];
  bg_real gravity[3];
  bg_mat mat;   /* the material table's entry 0: all a one-material step reads */
  int n_mats;   /* entries of the table (bg_sim_desc.materials), >= 1 */
  bg_mat *mats; /* the table; mats[0] is mat. A particle's index (bg_raw.mat) picks its entry */
  /* the nonlocal service (bg_material_core.h): the state slot the table's
   * nonlocal entries share, or -1 when none needs it; nl_all 1 when every
   * entry does (the nodal means then divide by the grid's mass, else by the
   * mass of the nonlocal particles alone, scattered beside it) */
  int nl, nl_all;
  bg_real vol_default; /* unused by backends; kept for read-back */
  int n_walls;         /* user colliders first, then the six faces */
  bg_wallc *walls;
  int n_sinks;
  bg_sink *sinks;
  /* the thin plates (BG_BODY_PLATE bodies) as this step sees them, for the
   * transfers' compatibility rule (bg_cut.h); set before the backend is
   * created (n_cuts) and filled before each step (bg_boundary_commit) */
  int n_cuts;
  bg_cut *cuts;
  int threads;
  int sort_interval;
  bg_real damping; /* 1/s (bg_sim_desc.damping) */
  int variant;                          /* the ops table's variant */
  int n_props;
  const bg_property_def *prop_defs;     /* the chosen backend's table */
  char prop[BG_MAX_PROPERTIES][BG_PROPERTY_LEN]; /* resolved values, prop_defs order */
} bg_config;

/* The grid as the plates' transfers (bg_cut.h) need it. */
BG_HD bg_cut_grid bg_cut_grid_of(const bg_config *c) {
  bg_cut_grid G;
  for (int d = 0; d < 3; ++d) {
    G.dims[d] = c->dims[d];
    G.origin[d] = c->origin[d];
  }
  G.dx = c->dx;
  G.dim = c->dim;
  return G;
}

/* The resolved value of the backend property name (NULL for a name the backend does not define). */
const char *bg_config_property(const bg_config *c, const char *name);

/* Counters a backend keeps about its particles. */
typedef struct bg_backend_stats {
  size_t n_active;
  size_t n_parked_sink;
  size_t n_parked_out;
  double parked_mass;
  double total_mass;
  double max_speed;
} bg_backend_stats;

/* Where a particle at xp must be parked after a step: -1 stays active,
 * k < n_sinks in sink k, n_sinks outside the grid's interior (where its
 * stencil would leave the grid) or not finite. One rule for every backend. */
BG_HD int32_t bg_park_code(const bg_config *c, const bg_sink *sinks, const bg_real xp[3]) {
  for (int d = 0; d < 3; ++d) {
    if (d == 1 && c->dim == 2) continue; /* the plane: y never changes */
    bg_real xg = (xp[d] - c->origin[d]) * c->inv_dx;
    if (!(xg >= 0.5f && xg < (bg_real)c->dims[d] - 1.5f)) return c->n_sinks;
  }
  for (int k = 0; k < c->n_sinks; ++k) {
    const bg_sink *b = &sinks[k];
    const int in_y = c->dim == 2 || (xp[1] >= b->lo[1] && xp[1] <= b->hi[1]); /* 2D: a sink's y extent is not read */
    if (xp[0] >= b->lo[0] && xp[0] <= b->hi[0] && in_y && xp[2] >= b->lo[2] && xp[2] <= b->hi[2])
      return k;
  }
  return -1;
}

/* The y stencil nodes a loop visits: 0..2, or only 1 in 2D, where the y
 * axis collapses onto the plane's node (bg_bspline_plane). */
BG_HD int bg_stencil_b0(const bg_config *c) { return c->dim == 2 ? 1 : 0; }
BG_HD int bg_stencil_b1(const bg_config *c) { return c->dim == 2 ? 1 : 2; }

typedef enum bg_stage { BG_STAGE_SORT = 0, BG_STAGE_P2G, BG_STAGE_GRID, BG_STAGE_G2P, BG_STAGE_COUNT } bg_stage;

/* A backend: a table of functions, chosen by name at run time. Every slot is
 * required unless marked optional. The configuration pointer outlives the
 * backend state. */
typedef struct bg_backend_ops {
  int variant;                       /* passed to create as cfg->variant */
  const bg_property_def *properties; /* NULL when none */
  int n_properties;
  /* 1 when usable on this machine (a CUDA build without a device says 0);
   * why says why not. */
  int (*available)(char *why, size_t why_len);
  /* err is the simulation's message buffer and outlives the state: a
   * backend may keep it and describe later failures there. */
  bg_status (*create)(const bg_config *cfg, void **state, char *err, size_t err_len);
  void (*destroy)(void *state);
  /* Appends particles of table entry mat (checked); vol has n entries.
   * Positions already validated. */
  bg_status (*add)(void *state, size_t n, const bg_real *x, const bg_real *v, const bg_real *vol, int mat);
  /* Replaces the solid-node list (called at creation and when walls move). */
  bg_status (*set_boundary)(void *state, const bg_bnode *nodes, size_t n);
  /* The step, stage by stage. sort may be a no-op; step is the step number. */
  bg_status (*sort)(void *state, uint64_t step);
  bg_status (*p2g)(void *state, bg_real dt);
  bg_status (*grid_update)(void *state, bg_real dt);
  bg_status (*g2p)(void *state, bg_real dt);
  /* Read-back in the order particles were added. */
  bg_status (*get)(void *state, bg_field f, bg_real *out);
  bg_status (*stats)(void *state, bg_backend_stats *out, double *sink_mass);
  /* Node mass (which 0) or velocity (which 1) after the last grid update. */
  bg_status (*grid)(void *state, int which, bg_real *out);
  size_t (*count)(void *state);
  /* Optional (NULL: the front end's wall clock per stage). Cumulative ms per
   * stage measured by the backend itself; an asynchronous device backend
   * needs this, as the host returns from a stage before it ran. */
  bg_status (*stage_times)(void *state, double ms[BG_STAGE_COUNT]);
  /* Every particle, tally and the sort state into raw (arrays sized by the
   * caller: count() particles, run_cap runs), and back: import replaces all
   * particles and tallies and leaves the state untouched when it fails. */
  bg_status (*export_raw)(void *state, bg_raw *raw);
  bg_status (*import_raw)(void *state, const bg_raw *raw);
  /* Force on each wall over the last grid update and its moment about the
   * grid's origin (BG_WALL_TALLY doubles per wall, cfg->n_walls walls;
   * bg_sim_wall_forces, and a rigid body's torque). */
  bg_status (*wall_forces)(void *state, double *out);
  /* Optional (NULL on a host backend): device-memory exchange
   * (bagnold.h's bg_sim_get_device and the rest; stream as there). The
   * front end has checked sizes and pointers; add_device checks the
   * positions itself, on the device, and names the first bad one in err. */
  int (*device_ordinal)(void *state);
  /* Optional (NULL: not accounted). The bytes the state holds (bg_memory
   * less particles and per_particle, which the front end fills). */
  void (*memory)(void *state, bg_memory *out);
  bg_status (*get_device)(void *state, bg_field f, bg_real *dev_out, uintptr_t stream);
  bg_status (*set_device)(void *state, bg_field f, const bg_real *dev_in, uintptr_t stream);
  bg_status (*add_device)(void *state, size_t n, const bg_real *x, const bg_real *v, bg_real vol, int mat,
                          uintptr_t stream);
  bg_status (*device_alloc)(void *state, size_t bytes, void **dev);
  void (*device_free)(void *state, void *dev);
  /* Optional (NULL: the front end merges the rigid bodies' solid nodes into
   * the walls' list and hands the whole to set_boundary after every step).
   * The bodies' solid nodes alone, ascending in node, replacing the last
   * such list; where a node is also in set_boundary's list, this entry acts
   * instead of that one (it carries that node's faces). The walls' list,
   * which changes only when walls move, then stays where it is: on a device
   * it is every face node of the box, tens of MB at a few million nodes. */
  bg_status (*set_body_nodes)(void *state, const bg_bnode *nodes, size_t n);
} bg_backend_ops;

/* One ops table per row of bg_backend_list.h (bg_backend_<ident>); the
 * rows that need CUDA exist only in a CUDA build. */
#define BG_BACKEND_EXTERN_CPU_(ident) extern const bg_backend_ops bg_backend_##ident;
#ifdef BAGNOLD_HAVE_CUDA
#define BG_BACKEND_EXTERN_CUDA_(ident) extern const bg_backend_ops bg_backend_##ident;
#else
#define BG_BACKEND_EXTERN_CUDA_(ident)
#endif
#define BG_X_(ident, name, requires, autopick) BG_BACKEND_EXTERN_##requires##_(ident)
BG_BACKEND_LIST(BG_X_)
#undef BG_X_

/* A source (bagnold.h) and its state: the mass owed but not yet emitted
 * (kg, in [0, one particle)), what it emitted, and its generator's counter
 * (source.c). Checkpoints store all of it. */
typedef struct bg_src {
  bg_source d;
  double owed;
  uint64_t n_emitted;
  double mass_emitted;
  uint64_t counter;
} bg_src;

/* A rigid body's state (body.c): pose and velocities in double, its mass
 * and principal inertia, and the material's force and torque (about x)
 * over the last step. */
typedef struct bg_rbody {
  double x[3], q[4], v[3], w[3];
  double m, ib[3];
  double f[3], tau[3];
  int parked;
} bg_rbody;

struct bg_sim {
  bg_config cfg;
  const bg_backend_ops *ops;
  void *state;
  bg_collider *colliders; /* copies, with node arrays owned */
  size_t n_colliders;
  int moving; /* some collider has a velocity and an analytic shape */
  bg_bnode *bnodes; /* the walls' solid nodes, ascending in node */
  double *bphi;     /* each one's distance into its collider (0: faces only) */
  size_t n_bnodes;
  bg_body *body_desc; /* the descriptor's bodies, a copy (desc.bodies points here; a
                        mesh body's mesh is the simulation's own copy, body_mesh[k].mesh) */
  bg_rbody *bodies;
  bg_cut *cuts; /* one per plate body (cfg.cuts points here) */
  struct bg_body_mesh *body_mesh; /* per body: the mesh's geometry (zeros for other shapes) */
  size_t n_bodies;
  bg_bnode *merged; /* bnodes with the bodies' nodes, or with set_body_nodes the
                       bodies' alone, handed to the backend */
  int walls_sent;   /* set_body_nodes: the backend holds bnodes as they are */
  void *body_cand;  /* the bodies' candidate nodes of the last commit (body.c), kept for the next */
  size_t body_cand_cap;
  size_t merged_cap;
  double *wall_tally; /* the backend's BG_WALL_TALLY per wall of the last step */
  bg_real cfl, fixed_dt, cp;
  int force_dt;
  uint64_t step;
  double time;
  bg_real last_dt;
  /* whether the last bg_sim_next_dt's step is set by the nonlocal bound, the
   * count of such steps taken, and that bound over the CFL bound */
  int next_nonlocal_sets;
  uint64_t steps_nonlocal_dt;
  bg_real nonlocal_ratio;
  double stage_ms[BG_STAGE_COUNT];
  double *wall_force, *wall_impulse; /* 3 per wall: the last step's, and the sum since creation */
  /* every property of the backend with its resolved value, "name=value,..."
   * (bg_sim_describe's properties; desc.properties points here) */
  char properties[BG_MAX_PROPERTIES * (2 * BG_PROPERTY_LEN + 2)];
  bg_material *materials; /* the material table, a copy (desc.materials points here) */
  size_t n_materials;
  bg_src *sources; /* bg_sim_add_source's, in order */
  size_t n_sources;
  bg_sim_desc desc; /* as created (colliders and sinks: the copies above); gravity and
                       damping follow the setters */
  char err[512];
};

/* backend.c. The name of an ops table's row in bg_backend_list.h (the
 * tables do not spell their names: the list is the one source). */
const char *bg_backend_ops_name(const bg_backend_ops *ops);
/* The ops table name picks (NULL: "auto"), or the reason in sim->err. */
bg_status bg_backend_pick(bg_sim *sim, const char *name, const bg_backend_ops **out);
/* The backend's properties from text ("name=value,...", each name once,
 * NULL or "": the defaults) into sim->cfg (variant, prop_defs, prop) and
 * sim->properties (every property with its value, describe's string). */
bg_status bg_backend_configure(bg_sim *sim, const bg_backend_ops *ops, const char *text);

/* Writes the message into sim->err and returns s. */
bg_status bg_fail(bg_sim *sim, bg_status s, const char *fmt, ...);

/* validate.c: the whole descriptor, one material, and the descriptor's
 * material table ({material} when n_materials is 0, n its length). */
bg_status bg_check_desc(bg_sim *sim, const bg_sim_desc *d);
bg_status bg_check_material(bg_sim *sim, const bg_material *m);
const bg_material *bg_desc_table(const bg_sim_desc *d, size_t *n);

/* source.c: every source's particles for the step [time, time + dt), through
 * the particle path every backend takes; the fastest speed of a source
 * that emits at or after time t (0: none), for the step's CFL bound; a
 * source checked as bg_sim_add_source checks it (checkpoints reuse it). */
bg_status bg_sources_emit(bg_sim *sim, double dt);
double bg_sources_speed(const bg_sim *sim, double t);
bg_status bg_check_source(bg_sim *sim, const bg_source *s);

/* Builds the walls' solid-node list for time t (analytic colliders
 * translate with their velocity) and commits it. */
bg_status bg_boundary_build(bg_sim *sim, double t);

/* body.c: a descriptor's body k checked (the grid already is); the bodies'
 * state from the descriptor; the walls' list merged with the nodes inside
 * each body where it now is, handed to the backend; the fastest surface
 * speed of a body, for the CFL bound; each body moved over dt under the
 * step's wall tally (BG_WALL_TALLY per wall) and gravity. */
bg_status bg_check_body(bg_sim *sim, const bg_sim_desc *d, size_t k);
/* The rotation matrix of a unit quaternion (w, x, y, z). */
void bg_quat_matrix(const double q[4], double R[3][3]);
bg_status bg_bodies_init(bg_sim *sim, const bg_sim_desc *d);
void bg_bodies_free(bg_sim *sim);
bg_status bg_boundary_commit(bg_sim *sim);
/* body_plate.c: the plates' cuts (cfg.cuts) made and refreshed from the
 * bodies' poses, and whether a node (offset rw from body k's centre,
 * rotation R) takes plate k's contact, with its normal and velocity */
bg_status bg_plates_init(bg_sim *sim);
void bg_plates_commit(bg_sim *sim);
int bg_plate_node(const bg_sim *sim, size_t k, double R[3][3], const double rw[3], bg_bnode *out, double *phi);
double bg_bodies_speed(const bg_sim *sim);
void bg_bodies_advance(bg_sim *sim, const double *tally, double dt);
/* The product a b of two quaternions (w, x, y, z): the rotation b, then a. */
void bg_quat_mul(const double a[4], const double b[4], double out[4]);

/* The bytes of a bg_body a checkpoint stores: every field before the mesh
 * pointer (a mesh body's geometry follows its state in the file). */
#define BG_BODY_FIELD_BYTES (offsetof(bg_body, angular_damping) + sizeof(bg_real))

/* body_mesh.c: a mesh body's geometry, in the mesh's own (file) frame: its
 * centre of mass c, principal axes P (column a is axis a; a rotation, whose
 * quaternion is qp) and moments I per unit density (m^5), volume, the
 * largest distance from c to a vertex, and its signed distance on a
 * lattice of spacing h (a quarter cell) from lo, n[0] x n[1] x n[2] values
 * in bg_mesh_sdf_grid's layout. The body's own frame is the principal one:
 * its state's quaternion is the user's q times qp. */
typedef struct bg_body_mesh {
  struct bg_mesh *mesh; /* the simulation's copy */
  double c[3], P[3][3], qp[4], I[3], vol, reach;
  double lo[3], h;
  size_t n[3];
  bg_real *phi;
} bg_body_mesh;
/* From the mesh src of body k at grid spacing dx; errors name the body. */
bg_status bg_body_mesh_make(bg_sim *sim, size_t k, const struct bg_mesh *src, double dx, bg_body_mesh *bm);
void bg_body_mesh_free(bg_body_mesh *bm);
/* The signed distance at p, relative to the centre in the principal frame. */
double bg_body_mesh_phi(const bg_body_mesh *bm, const double p[3]);
/* A mesh of the given vertices (3 nv doubles) and triangles (3 nt indices),
 * already checked once (a checkpoint's copy); NULL when out of memory or an
 * index is out of range. */
struct bg_mesh *bg_mesh_from_arrays_(const double *v, size_t nv, const uint32_t *t, size_t nt);

/* A file written under PATH.tmp and renamed onto PATH only when every
 * write succeeded (io.c): a file under its own name is never cut short.
 * bg_out_open fills the handle (fp NULL and errno set on failure);
 * bg_out_commit checks, closes, optionally fsyncs, and renames, or removes
 * the .tmp and returns the errno of the first failure (0 on success);
 * bg_out_abort removes the .tmp. */
typedef struct bg_out {
  FILE *fp;
  char *path, *tmp;
} bg_out;
int bg_out_open(bg_out *o, const char *path, const char *mode);
int bg_out_commit(bg_out *o, int sync, int write_err);
void bg_out_abort(bg_out *o);
/* 1 on a little-endian host: the binary formats (PLY, VTU) are little-endian. */
int bg_host_little_endian(void);

/* The raw state of every particle (bg_raw) on the host, arrays allocated
 * for the simulation's particle count and runs; bg_raw_free releases them. */
bg_status bg_raw_alloc(bg_sim *sim, bg_raw *raw, size_t n);
void bg_raw_free(bg_raw *raw);
bg_status bg_raw_export(bg_sim *sim, bg_raw *raw);

#ifdef __cplusplus
}
#endif

#endif /* BG_INTERNAL_H */
