/* bagnold.h: the public C API of the bagnold solver (MLS-MPM with
 * Drucker-Prager sand plasticity). Opaque handles, bg_ prefix, every call
 * returns a bg_status; a failed call leaves the simulation as it was and
 * bg_sim_last_error() says which argument was wrong and what range it takes.
 * Units are SI (m, kg, s, Pa, degrees for angles); z is up. */
#ifndef BAGNOLD_H
#define BAGNOLD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef BG_REAL_DEFINED
#define BG_REAL_DEFINED
typedef float bg_real;
#endif

#define BG_VERSION_STRING "0.1.0"

/* One list makes the enum and the messages (X-macro, as SUNDIALS does). */
#define BG_STATUS_LIST(X)                                                   \
  X(BG_OK, "success")                                                       \
  X(BG_ERR_NULL, "a required pointer argument is NULL")                     \
  X(BG_ERR_RANGE, "an argument is outside its accepted range")              \
  X(BG_ERR_NONFINITE, "an argument holds NaN or Inf")                       \
  X(BG_ERR_OVERFLOW, "a size or count overflows size_t or an index type")                   \
  X(BG_ERR_NOMEM, "out of memory (or more than the machine has)")                                          \
  X(BG_ERR_BACKEND, "unknown or unavailable backend")                       \
  X(BG_ERR_UNSTABLE_DT, "fixed timestep above the stable bound")            \
  X(BG_ERR_OUTSIDE, "a particle lies outside the grid")                     \
  X(BG_ERR_IO, "file input/output failed")                                  \
  X(BG_ERR_DEVICE, "the compute device reported an error")                  \
  X(BG_ERR_INTERNAL, "internal error (a bug: please report it)")                           \
  X(BG_ERR_CORRUPT, "a checkpoint file is corrupt (checksum or impossible content)")      \
  X(BG_ERR_TRUNCATED, "a checkpoint file ends before its content does")                   \
  X(BG_ERR_VERSION, "a checkpoint file has another format version or memory layout")      \
  X(BG_ERR_MISMATCH, "a checkpoint belongs to another simulation descriptor")

#define BG_STATUS_ENUM_(name, msg) name,
typedef enum bg_status { BG_STATUS_LIST(BG_STATUS_ENUM_) BG_STATUS_COUNT_ } bg_status;
#undef BG_STATUS_ENUM_

/* Static description of a status code. */
const char *bg_status_str(bg_status s);
/* Name of the enum constant ("BG_ERR_RANGE"). */
const char *bg_status_name(bg_status s);

/* ------------------------------------------------------------------ material */

typedef enum bg_stress_model {
  BG_STRESS_HENCKY = 0,          /* StVK with Hencky strain (consistent with the return map) */
  BG_STRESS_FIXED_COROTATED = 1  /* Stomakhin 2013 (the seed's choice for force) */
} bg_stress_model;

/* The material models: one header each under core/physics/materials/,
 * listed by the build in the generated materials/bg_material_list.h (in
 * order: BG_MODEL_DP, Drucker-Prager sand (Klar 2016); BG_MODEL_MUI,
 * rate-dependent mu(I) sand (Jop et al. 2006); BG_MODEL_NGF, nonlocal
 * granular fluidity; BG_MODEL_ELASTIC, taichi_mpm's jelly; BG_MODEL_SNOW,
 * Stomakhin et al. 2013; BG_MODEL_WATER, weakly compressible; BG_MODEL_VM,
 * von Mises). Each has its parameter struct, a member of the union
 * below named after the model, made from the header's field list
 * BG_<NAME>_PARAMS(X), one X(type, name, kind) per field, so that the
 * fields can be listed at run time (bg_material_param_info). */
typedef enum bg_matp_kind {
  BG_MATP_REAL = 0, /* bg_real */
  BG_MATP_INT = 1,  /* int (0/1 switches) */
  BG_MATP_ENUM = 2  /* a C enum of the model's header */
} bg_matp_kind;
#define BG_PARAM_MEMBER_(type, name, kind) type name;
#define BG_MATERIAL_PARAMS_STRUCT(n, LIST) \
  typedef struct bg_##n##_params {         \
    LIST(BG_PARAM_MEMBER_)                 \
  } bg_##n##_params;
#define BG_MAT_PARAMS_ONLY
#include "materials/bg_material_list.h"
#undef BG_MAT_PARAMS_ONLY

typedef struct bg_material {
  bg_material_model model; /* which member of the union holds the parameters */
  bg_real E;        /* Young's modulus, Pa, > 0 */
  bg_real nu;       /* Poisson ratio: (-1, 0.5) for the sand models */
  bg_real rho0;     /* reference density, kg/m^3, > 0 */
  bg_stress_model stress;
  int volume_correction;  /* 1: Tampubolon 2017 log Jp fed back to tr(eps); 0: off */
  int elastic_only;       /* 1: no return map (verification of the elastic solver only) */
  union {
#define BG_X_(n, N, lane, label) bg_##n##_params n;
    BG_MATERIAL_LIST(BG_X_)
#undef BG_X_
  };
} bg_material;

/* Klar et al. 2016's sand: Drucker-Prager, E 3.537e5 Pa, nu 0.3, rho 2200,
 * phi 35 deg on the compression cone, Hencky stress, hardening off
 * (parameters set to Klar's 35/9/0.2/10), volume correction on. */
bg_material bg_material_sand(void);

/* mu(I) sand with Jop, Forterre & Pouliquen 2006's glass-bead parameters
 * (mu_s = tan 20.9 deg, mu_2 = tan 32.76 deg, I0 = 0.279, d = 0.5 mm,
 * rho_s = 2450 kg/m^3) and the elasticity, density and volume correction of
 * bg_material_sand(). */
bg_material bg_material_mui(void);

/* A registered model with its default parameters (from its header in
 * core/physics/materials/) and bg_material_sand()'s elasticity; an unknown
 * model comes back with that tag, which bg_sim_create refuses. */
bg_material bg_material_default(bg_material_model model);

/* "drucker-prager", "mu-i", "ngf"; NULL for a value outside the list. */
const char *bg_material_model_name(bg_material_model m);
/* The model of a name bg_material_model_name gives, or -1. */
int bg_material_model_from_name(const char *name);

/* The registry at run time, for bindings (the Python package builds its
 * mirror of the union from these). The number of models; the union member
 * and function prefix of model m ("dp"; NULL outside the list); the size of
 * its parameter struct (0 outside); its parameter count (-1 outside). */
int bg_material_model_count(void);
const char *bg_material_model_member(bg_material_model m);
size_t bg_material_params_size(bg_material_model m);
int bg_material_param_count(bg_material_model m);
/* Parameter i of model m, in the struct's order: its name, byte offset in
 * the model's parameter struct and kind; BG_ERR_RANGE outside. */
bg_status bg_material_param_info(bg_material_model m, int i, const char **name, size_t *offset,
                                 bg_matp_kind *kind);
/* The number of state slots every particle carries, and what slot k of
 * model m holds ("log_jp", "q", ...; "" for a slot the model leaves unused;
 * NULL outside). */
int bg_material_state_count(void);
const char *bg_material_state_name(bg_material_model m, int slot);

/* ---------------------------------------------------------------- boundaries */

typedef enum bg_friction {
  BG_FRICTION_COULOMB = 0, /* mu > 0: tangential speed shrinks by mu |v_n| */
  BG_FRICTION_SLIP = 1,    /* frictionless: only the normal component is removed */
  BG_FRICTION_STICK = 2,   /* velocity set to the collider's */
  BG_FRICTION_OPEN = 3     /* domain faces only: no wall, particles leave and are parked */
} bg_friction;

typedef enum bg_shape {
  BG_SHAPE_HALFSPACE = 0, /* solid where (x - point).normal < 0 */
  BG_SHAPE_BOX = 1,       /* solid inside [lo, hi] */
  BG_SHAPE_CYLINDER = 2,  /* axis along z through center (x,y), radius; solid inside */
  BG_SHAPE_NODES = 3      /* user signed distance sampled on every grid node */
} bg_shape;

/* Walls act on grid nodes with phi < 0. Where a wall acts depends on where
 * the material's edge starts (references/walls.md, test_walls): every kind
 * (slip, stick, Coulomb face or collider) carries a load at its LAST SOLID
 * NODE when the material's edge starts on that node (elastic offset below
 * 0.1 cells, at two dx). With the edge midway between the last solid and
 * the first free node (the plane of a midway wall), the material stays where
 * it was put unloaded, but under load the wall acts 1.1-1.25 cells beyond
 * the edge (0.6-0.75 cells past the last solid node, the same in cells at
 * two dx): the edge sinks by that length times the wall-normal strain
 * sigma_n / (lambda + 2 mu). An edge started on the first free node does
 * not close the gap: it settles 0.25-0.37 cells above the plane, on a
 * contact ~4 cells soft. Place a wall's plane
 * midway between node planes (no node on it), and put the material's edge
 * at plane + bg_wall_edge_offset(...) cells. An
 * inverted cylinder is solid outside the radius AND beyond its z extent: for
 * an open-topped silo let lo[2]/hi[2] reach past the grid. */
typedef struct bg_collider {
  bg_shape shape;
  bg_real point[3], normal[3]; /* halfspace */
  bg_real lo[3], hi[3];        /* box; also z-extent of a cylinder (lo[2], hi[2]) */
  bg_real center[2], radius;   /* cylinder */
  int invert;                  /* 1: solid and fluid swapped (a silo wall is an inverted cylinder) */
  /* BG_SHAPE_NODES: phi[node] (m, < 0 in solid), node = (i*ny + j)*nz + k;
   * normals optional (3 per node, outward from solid), else central
   * differences of phi. Arrays are copied at creation. */
  const bg_real *phi;
  const bg_real *normals;
  bg_friction friction;
  bg_real mu;          /* Coulomb coefficient, >= 0 (0 means slip) */
  bg_real velocity[3]; /* constant wall velocity, m/s; analytic shapes move with it */
} bg_collider;

/* Offset, in cells along the wall's normal (toward the material), from a
 * wall's plane to where the material's edge should start so that the loaded
 * wall acts where the edge is: the last solid node, ceil(p) - 1 - p for a
 * plane p cells from the node lattice (p measured from a node plane along
 * the normal; nodes below p are solid). -0.5 for a plane midway between
 * node planes, which every domain face is (its plane lies 1.5 cells inside
 * its outer node); 0 for BG_FRICTION_OPEN (no wall). The same for every
 * friction kind: normal load sees no friction. */
double bg_wall_edge_offset(bg_friction kind, double plane_cells);

/* Sink: an axis-aligned box; particles that enter it are parked. */
typedef struct bg_sink {
  bg_real lo[3], hi[3];
} bg_sink;

/* Domain faces, in the order -x, +x, -y, +y, -z, +z. */
enum { BG_FACE_XLO = 0, BG_FACE_XHI, BG_FACE_YLO, BG_FACE_YHI, BG_FACE_ZLO, BG_FACE_ZHI, BG_FACE_COUNT };

typedef struct bg_wall {
  bg_friction friction;
  bg_real mu;
} bg_wall;

/* ---------------------------------------------------------------- rigid bodies */

struct bg_mesh; /* a closed triangle mesh (below, "meshes") */

typedef enum bg_body_shape {
  BG_BODY_SPHERE = 0, /* radius */
  BG_BODY_BOX = 1,    /* half[3], the half-extents along the body's own axes */
  BG_BODY_MESH = 2,   /* mesh: a closed triangle mesh (bg_mesh_load), in metres; 3D only */
  /* a thin plate that cuts the material (CPIC): the rectangle of half-extents
   * half[0] and half[1] along the body's x and y axes (in 2D a segment of
   * half-length half[0] across the plane), normal along the body's z. The
   * material sees no thickness: a particle never exchanges anything with a
   * node across the plate, and the nodes beside it take its contact from
   * their own side. half[2] is a half-thickness for its mass and inertia
   * only. Free or kinematic. On cuda with the dense grid, deterministic=0
   * and a local material model only */
  BG_BODY_PLATE = 3
} bg_body_shape;

/* A rigid body, coupled both ways through the grid: the nodes inside it take
 * its surface velocity, v + omega x r, under the contact of bg_friction (the
 * normal approach removed, the slip shrunk by mu |v_n|), and the momentum
 * that contact gives the material is taken from the body. Mass and inertia
 * follow from density and shape; gravity is the simulation's. A free body
 * then moves under that force and torque; a kinematic one keeps the
 * velocities it is given (bg_sim_set_body_velocity) and the material cannot
 * push it, its force still read. A body is 3D only. Its centre must lie in
 * the grid's interior; a body that leaves it during a run is parked (it
 * stops and no longer touches the material) and reported so. Only nodes
 * inside a body act, so a body under about 3 cells across lets material
 * through (dragged through sand, a box 1.7 cells thick reads a third to a
 * half of the force on one 3.3 cells thick, reports/results/cpu-2core/
 * body-dt); a thin intruder is a BG_BODY_PLATE. */
typedef struct bg_body {
  bg_body_shape shape;
  bg_real radius;      /* sphere, m, > 0 */
  bg_real half[3];     /* box, m, each > 0 */
  bg_real density;     /* kg/m^3, > 0 */
  bg_real x[3];        /* centre of mass, m */
  bg_real q[4];        /* orientation, a unit quaternion (w, x, y, z); normalised on entry */
  bg_real v[3];        /* linear velocity, m/s */
  bg_real w[3];        /* angular velocity, rad/s, world frame */
  bg_friction friction;  /* COULOMB (with mu), SLIP or STICK; OPEN is refused */
  bg_real mu;            /* Coulomb coefficient, >= 0 */
  int kinematic;         /* 1: moves as scripted; 0: free */
  /* taichi_mpm's rotation_axis: a nonzero axis (world frame) keeps the
   * angular velocity along it (a hinge through the centre); 0 0 0: free */
  bg_real axis[3];
  bg_real linear_damping, angular_damping; /* 1/s, >= 0: velocities decay by exp(-c dt) */
  /* BG_BODY_MESH: the shape, read by bg_sim_create and copied (the caller
   * may destroy it after). Its volume, centre of mass and inertia come
   * from the closed surface exactly; x places that centre and q turns the
   * mesh's own frame (the file's axes), so a body at q = identity stands
   * as the file has it. bg_body_state reports q in the same frame and the
   * principal moments in inertia. NULL for the other shapes. */
  const struct bg_mesh *mesh;
} bg_body;

/* A sphere of radius 0.05 m, density 1000, at the origin, identity
 * orientation, at rest, Coulomb mu 0.5, free, no axis, no damping. */
bg_body bg_body_default(void);

/* A body as the simulation holds it now. */
typedef struct bg_body_state {
  double x[3], q[4], v[3], w[3]; /* pose and velocities (world frame) */
  double force[3];  /* the material's force on it over the last step, N */
  double torque[3]; /* that force's torque about x, N m */
  double mass;      /* kg */
  double inertia[3]; /* principal moments along the body's axes, kg m^2 */
  int parked;        /* 1: left the grid's interior and stopped */
} bg_body_state;

/* ---------------------------------------------------------------- simulation */

typedef struct bg_sim_desc {
  size_t dims[3];      /* grid nodes per axis, each >= 4 */
  bg_real dx;          /* node spacing, m, > 0 */
  bg_real origin[3];   /* position of node (0,0,0), m */
  bg_real gravity[3];  /* m/s^2, default (0, 0, -9.81) */
  bg_material material;
  const bg_collider *colliders;
  size_t n_colliders;
  const bg_sink *sinks;
  size_t n_sinks;
  bg_wall walls[BG_FACE_COUNT]; /* default: slip on every face */
  const char *backend; /* a name of bg_backend_name, or "auto" (the default): the
                          first available of the list's automatic choices */
  int threads;         /* CPU threads, 0 = OpenMP default */
  bg_real cfl;         /* in (0, 1]: dt = cfl dx / (c_p + |v|max), default 0.3 */
  bg_real fixed_dt;    /* 0 = adaptive; > 0 fixes dt (refused above the bound) */
  int force_dt;        /* 1: accept a fixed dt above the stable bound */
  int sort_interval;   /* re-sort particles every K steps (GPU), >= 1, default 32 */
  const char *properties; /* the backend's tuning, "name=value,name=value"
                             (bg_backend_property); NULL or "" = all defaults */
  bg_real damping;     /* 1/s, >= 0: every grid velocity decays by exp(-damping dt) per
                          step. For quasi-static preparation only (it damps free fall
                          too); 0, the default, is off. */
  /* Several materials in one simulation: a table of n_materials entries (at
   * most BG_MAX_MATERIALS), each checked as material is ("materials[k].E
   * must be ..."), and each particle an index into it
   * (bg_sim_add_particles_material). NULL and 0, the default: the table is
   * {material}, and a simulation runs exactly as without a table. With a
   * table, material is not read. The CFL bound takes the fastest wave
   * speed of the table, the nonlocal bound the smallest over its entries. */
  const bg_material *materials;
  size_t n_materials;
  /* 3 (or 0, the default): the 3D solver. 2: plane strain in the x-z plane,
   * y the out-of-plane axis: the grid is dims[0] x dims[2] nodes and dims[1]
   * must be 1; every particle lies on the plane y = origin[1] (positions
   * keep 3 components; any other y is refused, naming the particle), v_y is
   * 0 and stays 0, and the stencil has 3 x 3 = 9 nodes. Quantities are per
   * metre of depth: bg_sim_add_particles gives a particle the volume
   * dx^2 (1 m) / ppc, so mass is kg per metre and a wall force N per metre.
   * F keeps its out-of-plane stretch F_yy (the plane-strain elastic
   * stretch, changed only by the return map), so every material runs as in
   * 3D. gravity[1], a collider's velocity[1] and a halfspace's normal[1]
   * must be 0; colliders are evaluated in the plane, a sink's y extent is
   * not read (a sink is its x-z rectangle); the y faces
   * have no nodes and are not applied (their forces read 0). */
  int dim;
  /* Rigid bodies (bg_body), each checked before the simulation exists
   * ("bodies[k].density must be > 0"). They act as walls: bg_sim_wall_forces
   * lists the colliders, then the bodies, then the six faces. */
  const bg_body *bodies;
  size_t n_bodies;
} bg_sim_desc;

/* The most entries a material table holds (the index is a byte per particle). */
#define BG_MAX_MATERIALS 256

/* Defaults: 64^3 grid, dx 1 cm, origin 0, gravity -9.81 z, Klar sand,
 * slip faces, backend "auto", cfl 0.3, adaptive dt, no material table, 3D. */
bg_sim_desc bg_sim_desc_default(void);

typedef struct bg_sim bg_sim;

/* Validates the descriptor; on failure *out is NULL and, when err is not
 * NULL, the message (which field, what range) is copied into err. */
bg_status bg_sim_create(const bg_sim_desc *desc, bg_sim **out, char *err, size_t err_len);
void bg_sim_destroy(bg_sim *sim);

/* Message of the last failed call on this handle ("" after success). */
const char *bg_sim_last_error(const bg_sim *sim);
/* The backends (resources) compiled into this build, in the order "auto"
 * prefers them: names such as "cpu/ref" (NULL when i is out of range). */
int bg_backend_count(void);
const char *bg_backend_name(int i);
/* 1 when the backend (a name of bg_backend_name, or "auto") can run on this
 * machine; else 0 and, when why is not NULL, the reason (not in this build,
 * no device). On 1, why holds the device's description where the backend
 * has one (a GPU: name, compute capability, SMs, memory), else "".
 * bg_sim_create on a compiled but unavailable backend fails with
 * BG_ERR_DEVICE (BG_ERR_BACKEND when the build lacks it); "auto" falls back
 * along the list. Tests skip (exit 77) on 0. */
int bg_backend_available(const char *name, char *why, size_t why_len);
/* 1 when the backend (a name of the list, or "auto" resolved as
 * bg_sim_create would) runs on a device, 0 when on the host, as its row of
 * the list says; -1 for a name not in this build. */
int bg_backend_on_device(const char *name);
/* The full name of the compiled backend that name ("auto" or a name of the
 * list) picks, as bg_sim_create would; NULL for a name not in this build. */
const char *bg_backend_resolve(const char *name);
/* The named tuning properties of a backend ("auto" resolves as
 * bg_sim_create would): their count (-1 for a name not in this build), and
 * property i in [0, count): its name, its accepted values ('|'-separated),
 * its default and one line on what it changes (any pointer may be NULL). */
int bg_backend_property_count(const char *backend);
bg_status bg_backend_property(const char *backend, int i, const char **name, const char **values,
                              const char **def, const char **doc);
/* Full name of the backend in use, e.g. "cpu/ref". */
const char *bg_sim_backend(const bg_sim *sim);
/* The descriptor the simulation was created from, with the current gravity
 * and damping, the backend in use and every property of that backend with
 * its resolved value ("name=value,..." in the backend's order); its
 * colliders, sinks and properties point at the handle's own copies, valid
 * until bg_sim_destroy. materials and n_materials are the table in use (one
 * entry, the material, for a simulation created without one), and material
 * is its entry 0. */
bg_status bg_sim_describe(const bg_sim *sim, bg_sim_desc *out);

/* Appends n particles. x: 3n positions (m), inside the grid's interior
 * (a particle's 3^3 stencil must fit). v: 3n velocities or NULL (zero).
 * Volume per particle dx^3 / ppc (dx^2 (1 m) / ppc in 2D), mass rho0 * volume. */
bg_status bg_sim_add_particles(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v,
                               bg_real ppc);
/* As above with an explicit volume per particle (m^3, > 0). */
bg_status bg_sim_add_particles_volume(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v,
                                      const bg_real *volume);
/* The two above add particles of the table's entry 0; these add particles
 * of entry material (in [0, n_materials), else BG_ERR_RANGE), with mass
 * that entry's rho0 times the volume. */
bg_status bg_sim_add_particles_material(bg_sim *sim, size_t n, const bg_real *x, const bg_real *v,
                                        bg_real ppc, int material);
bg_status bg_sim_add_particles_volume_material(bg_sim *sim, size_t n, const bg_real *x,
                                               const bg_real *v, const bg_real *volume, int material);

/* ---------------------------------------------------------------- seeding
 * Particle positions for bg_sim_add_particles. Each seeding call is named
 * bg_seed_<pattern> (a jittered lattice today; other patterns sit beside it)
 * and draws its randomness from the caller's uniform source, so the caller
 * keeps its own generator and stream. */
/* A uniform number in [0, 1) from the caller's generator (ctx). */
typedef double (*bg_uniform_fn)(void *ctx);
/* Nonzero keeps the point p (m) of a seeding pattern: the region to fill. */
typedef int (*bg_region_fn)(const double p[3], void *ctx);

typedef struct bg_seed_lattice_desc {
  double origin[3];         /* corner of the lattice's box, m */
  double spacing;           /* point spacing s, m (> 0) */
  size_t count[3];          /* points per axis */
  double jitter;            /* in [0, 1]: a coordinate moves by jitter s (u - 1/2) */
  bg_region_fn inside;      /* NULL: every point */
  void *inside_ctx;
  bg_uniform_fn uniform;    /* NULL: no draws (needs jitter 0) */
  void *uniform_ctx;
} bg_seed_lattice_desc;

/* A jittered lattice: point (i, j, k) starts at origin + (i + 1/2, j + 1/2,
 * k + 1/2) s, visited k fastest, then j, then i. A point inside the region
 * draws three numbers u from uniform (x, y, z in turn) and is written as
 * p + jitter s (u - 1/2) per axis; a point outside draws none. The *n
 * points kept go to x (3 coordinates each, at most cap points); with x NULL
 * the call only counts them into *n and draws nothing.
 * Errors (message in err): BG_ERR_NULL (d, n, or uniform with jitter > 0),
 * BG_ERR_NONFINITE, BG_ERR_RANGE (spacing <= 0, jitter outside [0, 1], more
 * points than cap), BG_ERR_OVERFLOW (count product). */
bg_status bg_seed_lattice(const bg_seed_lattice_desc *d, bg_real *x, size_t cap, size_t *n, char *err,
                          size_t err_len);

/* Poisson-disk sampling (Bridson 2007). r is the minimum distance between
 * two points, set from the target ppc: n = ppc / dx^3 points per m^3 at
 * the packing fraction phi = n pi r^3 / 6 that the sampling reaches with
 * k = 30, measured in periodic boxes (reports/results/cpu-2core/seed/), so
 * r = (6 phi dx^3 / (pi ppc))^(1/3) and a filled region holds close to ppc
 * points per dx^3 (boxes with free faces hold a little more at the faces). */
#define BG_SEED_POISSON_PACKING 0.3066
typedef struct bg_seed_poisson_desc {
  double lo[3], hi[3];      /* the box sampled, m (hi > lo per axis) */
  double dx;                /* cell size the ppc counts in, m (> 0) */
  double ppc;               /* target points per dx^3, in [0.01, 1000] */
  int periodic[3];          /* nonzero: the axis wraps (its length >= 2r) */
  int k;                    /* candidates per active point, in [0, 1000]; 0: 30 */
  bg_region_fn inside;      /* NULL: the whole box */
  void *inside_ctx;
  bg_uniform_fn uniform;    /* required */
  void *uniform_ctx;
} bg_seed_poisson_desc;

/* r (m) for ppc points per dx^3; NaN unless both are finite and > 0. */
double bg_seed_poisson_radius(double dx, double ppc);

/* Points of the region inside the box, no two nearer than r (across a
 * periodic axis's faces too, by the nearest image). A sweep over the
 * background grid's cells (cell edge <= r / sqrt 3, x slowest, z fastest)
 * draws one candidate in each empty cell; an accepted one starts Bridson's
 * front: an active point drawn at random gets up to k candidates, uniform
 * in the volume of the shell [r, 2r) about it, the first one accepted
 * joins, and a point whose k fail leaves the active list. Each candidate
 * draws 3 numbers and each pick one, so the points depend only on the
 * uniform stream. Every component of the region wider than a few cells is
 * filled; a point of it is then rarely farther than 2r from a sample.
 * The *n points go to x (3 coordinates each, at most cap points); with x
 * NULL the call samples, draws as it would, and only counts them into *n.
 * Errors (message in err), all before any draw but the last: BG_ERR_NULL (d,
 * n, uniform), BG_ERR_NONFINITE (box, dx, ppc), BG_ERR_RANGE (an empty box
 * axis, dx, ppc, k, a periodic axis shorter than 2r; more points than cap,
 * with *n the count needed), BG_ERR_OVERFLOW (background grid), BG_ERR_NOMEM. */
bg_status bg_seed_poisson(const bg_seed_poisson_desc *d, bg_real *x, size_t cap, size_t *n, char *err,
                          size_t err_len);

/* The volume of a region, to give sampled points their share of it. */
typedef struct bg_seed_volume_desc {
  double lo[3], hi[3];      /* a box holding the region, m */
  double h;                 /* cell edge, m (> 0; at most 1e12 cells) */
  bg_region_fn inside;      /* required (an SDF: its sign) */
  void *inside_ctx;
  bg_uniform_fn uniform;    /* required */
  void *uniform_ctx;
} bg_seed_volume_desc;
typedef struct bg_seed_volume_result {
  double volume, sigma;                   /* region volume and its standard error, m^3 */
  double per_particle, per_particle_sigma; /* volume / n and sigma / n (NaN for n 0), m^3 */
} bg_seed_volume_result;

/* Stratified Monte Carlo: two uniform points in each cell of edge <= h
 * (6 draws per cell, x slowest), the region's volume the cell volume times
 * the mean share inside. Only cells the surface cuts contribute variance,
 * and sigma is its unbiased estimate from the two points' disagreement
 * (0 when no cell saw both sides). per_particle is the volume each of n
 * sampled points carries (bg_sim_add_particles_volume). Errors: BG_ERR_NULL,
 * BG_ERR_NONFINITE (box), BG_ERR_RANGE (box axis, h). */
bg_status bg_seed_volume(const bg_seed_volume_desc *d, size_t n, bg_seed_volume_result *out, char *err,
                         size_t err_len);

/* ---------------------------------------------------------------- meshes
 * Shapes from files: a closed triangle mesh (OBJ; STL, ASCII or binary) as a
 * signed distance for colliders and seeding volumes, and a PLY point cloud
 * as particle positions. A reader checks the whole file before it returns;
 * err names the file, the line or triangle (or edge) and the problem. */
typedef struct bg_mesh bg_mesh;

/* Reads path (format from its name: .obj or .stl; an STL is binary when its
 * size is the one its triangle count declares, else ASCII "solid ...").
 * OBJ polygons become fans of triangles; every statement but v and f is
 * skipped. Corners at the same position are one vertex. The surface must be
 * closed and consistently oriented: every edge shared by exactly two
 * triangles running it in opposite directions. Errors: BG_ERR_IO (cannot
 * read), BG_ERR_CORRUPT (a bad token, zero triangles, a degenerate
 * triangle, an open, non-manifold or inconsistently oriented surface),
 * BG_ERR_TRUNCATED, BG_ERR_RANGE (a face index out of range, an unknown
 * format), BG_ERR_NONFINITE (a coordinate). */
bg_status bg_mesh_load(const char *path, bg_mesh **out, char *err, size_t err_len);
void bg_mesh_destroy(bg_mesh *m);
size_t bg_mesh_vertex_count(const bg_mesh *m);
size_t bg_mesh_triangle_count(const bg_mesh *m);
/* The mesh's bounding box (its units: the file's; metres for the solver). */
void bg_mesh_bounds(const bg_mesh *m, double lo[3], double hi[3]);
/* The exact signed distance at p: the distance to the nearest triangle,
 * negative inside the closed surface (the generalized winding number's
 * side, whichever way the triangles face). NaN for a NULL argument. */
double bg_mesh_sdf(const bg_mesh *m, const double p[3]);
/* The signed distance on a grid's nodes, node (i, j, k) at origin + (i, j,
 * k) dx stored at phi[(i*dims[1] + j)*dims[2] + k] (cap values at least):
 * the layout of a BG_SHAPE_NODES collider's phi, so that with bg_sim_desc's
 * dims, dx and origin the mesh's inside is solid (invert 0: an obstacle, a
 * hopper's walls); a mesh that closes the space the material fills (a
 * container's cavity) is the same field with invert 1. Errors: BG_ERR_NULL,
 * BG_ERR_NONFINITE, BG_ERR_RANGE (dx <= 0, a zero dimension, cap too small),
 * BG_ERR_OVERFLOW, BG_ERR_NOMEM. Runs on the OpenMP default thread count;
 * the result does not depend on it. */
bg_status bg_mesh_sdf_grid(const bg_mesh *m, const size_t dims[3], double dx, const double origin[3], bg_real *phi,
                           size_t cap, char *err, size_t err_len);
/* Nonzero for p inside the mesh (ctx, a bg_mesh *): a bg_region_fn, so that
 * bg_seed_lattice fills a mesh's volume. */
int bg_mesh_inside(const double p[3], void *mesh);
/* The points of a PLY file (ascii or binary_little_endian; the vertex
 * element's x, y and z properties, of any scalar type; other properties
 * and elements skipped) in a malloc'd array *x of 3 *n values, for
 * bg_sim_add_particles; the caller frees it. Errors as bg_mesh_load's; a
 * list property of the vertices, a big-endian file and an element before
 * the vertices of a binary file are BG_ERR_RANGE (not read). */
bg_status bg_ply_read_points(const char *path, bg_real **x, size_t *n, char *err, size_t err_len);

/* One step; the dt taken is written to *dt_taken when not NULL. */
bg_status bg_sim_step(bg_sim *sim, bg_real *dt_taken);
/* n steps. */
bg_status bg_sim_run(bg_sim *sim, uint64_t n);
/* Steps until the simulated time reaches t_end (the last step is shortened
 * to land on it). */
bg_status bg_sim_advance_to(bg_sim *sim, double t_end);

/* The dt the next step would take, and the stable bound it is held to. */
bg_status bg_sim_next_dt(bg_sim *sim, bg_real *dt, bg_real *bound);

/* Read-back, in the order particles were added; every array has capacity
 * for the particle count (cap is checked). Parked particles keep their
 * last state. Jp, density, q and stress read each particle's state through
 * its own material (its rho0 and its model's state slots). */
typedef enum bg_field {
  BG_FIELD_X = 0,       /* 3 per particle, m */
  BG_FIELD_V = 1,       /* 3 per particle, m/s */
  BG_FIELD_F = 2,       /* 9 per particle, elastic deformation gradient, row-major */
  BG_FIELD_C = 3,       /* 9 per particle, APIC affine matrix, 1/s */
  BG_FIELD_JP = 4,      /* 1 per particle: Jp = exp(log Jp), plastic volume ratio */
  BG_FIELD_DENSITY = 5, /* 1 per particle: rho0 / (det F * Jp), kg/m^3 */
  BG_FIELD_Q = 6,       /* 1 per particle: accumulated plastic strain q */
  BG_FIELD_STRESS = 7,  /* 9 per particle: Cauchy stress tau / det(F) (Pa) */
  BG_FIELD_MASS = 8,    /* 1 per particle, kg */
  BG_FIELD_ACTIVE = 9,  /* 1 per particle: 1 active, 0 parked */
  BG_FIELD_MODE = 10,   /* 1 per particle: the return-map case of the last step,
                           0 elastic, 1 shear (projected onto the yield surface),
                           2 tip (tension: projected to the cone's apex) */
  BG_FIELD_MATERIAL = 11 /* 1 per particle: its index in the material table */
} bg_field;
#define BG_FIELD_COUNT 12

/* Components per particle of a field. */
int bg_field_width(bg_field f);
/* Copies field f of every particle into out (cap = floats available). */
bg_status bg_sim_get(bg_sim *sim, bg_field f, bg_real *out, size_t cap);

/* The memory a simulation's backend holds, in bytes, from its own
 * allocations: particle state (at the arrays' capacity, which grows by
 * doubling), the grid (nodes and what lives per node), and the rest (sort
 * buffers, boundary lists, tallies). per_particle is the total over the
 * particles held (0 with none). grid_nodes is the number of nodes the grid
 * holds memory for: every node of the box on a dense grid, the allocated
 * blocks' nodes on cuda's grid=sparse (its pool, at its largest step), the
 * backed pages' nodes on the cpu backend's paged grid; bandwidth counts
 * of the grid's stages (bench_gpu) use it. Host memory on a host backend,
 * device memory on a GPU backend. */
typedef struct bg_memory {
  size_t particle_bytes;
  size_t grid_bytes;
  size_t other_bytes;
  size_t particles;
  double per_particle;
  size_t grid_nodes;
} bg_memory;
bg_status bg_sim_memory(bg_sim *sim, bg_memory *out);

/* ------------------------------------------------ device memory (GPU backends)
 *
 * On a backend whose particles live in GPU memory (the cuda rows of the
 * backend table), fields go to and particles come from device memory without
 * a trip through the host: the pointers below are device pointers of the
 * CUDA device the simulation runs on, e.g. a torch or CuPy array's data. A
 * host backend answers BG_ERR_BACKEND (bg_sim_device_ordinal says -1).
 *
 * stream orders the exchange with the caller's own GPU work, in the
 * __cuda_array_interface__ convention: 0, none given (the call returns after
 * the device finished it); 1, the legacy default stream; 2, the per-thread
 * default stream; anything else a cudaStream_t. With a stream, the exchange
 * waits for the work already queued on it and the work queued on it later
 * waits for the exchange; the host does not wait. */

/* The CUDA device ordinal of the simulation's particles, or -1 on a host backend. */
int bg_sim_device_ordinal(const bg_sim *sim);
/* bg_sim_get into device memory (cap floats there), insertion order. */
bg_status bg_sim_get_device(bg_sim *sim, bg_field f, bg_real *dev_out, size_t cap, uintptr_t stream);
/* bg_sim_set from device memory; BG_FIELD_V only (n = 3 per particle), checked
 * on the device as bg_sim_set checks host values (finite; v[1] = 0 in 2D)
 * before anything changes. */
bg_status bg_sim_set_device(bg_sim *sim, bg_field f, const bg_real *dev_in, size_t n, uintptr_t stream);
/* bg_sim_add_particles_material from device arrays (x: 3 n floats, v: 3 n or
 * NULL), every particle of volume dx^3 / ppc; the positions are checked on
 * the device as the host path checks them (finite, inside the grid's
 * interior, on the plane in 2D) and the first bad particle is named. */
bg_status bg_sim_add_particles_device(bg_sim *sim, size_t n, const bg_real *x_dev, const bg_real *v_dev,
                                      bg_real ppc, int material, uintptr_t stream);
/* Device memory for a caller without an array library of its own (the Python
 * package's bagnold.DeviceArray): bytes on the simulation's device, freed by
 * bg_sim_device_free (which takes NULL). */
bg_status bg_sim_device_alloc(bg_sim *sim, size_t bytes, void **dev);
void bg_sim_device_free(bg_sim *sim, void *dev);

typedef struct bg_stats {
  uint64_t step;
  double time;          /* s */
  bg_real dt;           /* last dt taken, s */
  size_t n_particles;   /* added so far */
  size_t n_active;
  size_t n_parked;      /* in sinks + left the grid */
  size_t n_parked_sink; /* entered a sink */
  size_t n_parked_out;  /* left the grid */
  double parked_mass;   /* kg */
  double total_mass;    /* kg, all particles */
  double max_speed;     /* m/s over active particles after the last step */
  /* steps whose dt a nonlocal model's explicit bound (bg_material_nonlocal_dt)
   * set below the elastic CFL bound, since creation or the last restore: a
   * run reports it, since a step chosen by the fluidity's stability and not
   * by the elastic wave is a numerical choice the results may depend on */
  uint64_t steps_nonlocal_dt;
  bg_real nonlocal_dt_ratio; /* that bound over the CFL bound at the last step (inf: no nonlocal term) */
} bg_stats;
bg_status bg_sim_stats(bg_sim *sim, bg_stats *out);

/* Parked mass per sink (n_sinks values, kg). */
bg_status bg_sim_sink_mass(bg_sim *sim, double *out, size_t cap);

/* Grid read-back after the last step's P2G (node mass, kg, and velocity,
 * m/s, 3 per node, after the grid update). Sized nx*ny*nz (and 3x). */
bg_status bg_sim_grid_mass(bg_sim *sim, bg_real *out, size_t cap);
bg_status bg_sim_grid_velocity(bg_sim *sim, bg_real *out, size_t cap);

/* Cumulative wall time per stage since creation, ms: sort, P2G, grid
 * update, G2P (4 values); on a GPU backend device time from CUDA events around
 * each stage. Benchmarks read this; tests never assert on it. */
bg_status bg_sim_stage_times(bg_sim *sim, double ms[4]);

/* The material's fastest signal speed, m/s, as its model declares it (for
 * the elastic-plastic sand models the P wave sqrt((lambda + 2 mu) / rho0)):
 * the speed in the CFL bound; 0 for an invalid material. */
bg_real bg_material_pwave_speed(const bg_material *m);

/* ---------------------------------------------------- set-up after creation */

/* Gravity from the next step on (m/s^2), e.g. ramped over a preparation. */
bg_status bg_sim_set_gravity(bg_sim *sim, const bg_real g[3]);
/* Grid damping rate from the next step on (1/s, >= 0; bg_sim_desc.damping). */
bg_status bg_sim_set_damping(bg_sim *sim, bg_real rate);
/* Overwrites field f of every particle, in insertion order; n must be the
 * particle count times the field's width. Accepted fields:
 *  BG_FIELD_V       3 per particle, m/s;
 *  BG_FIELD_F       9 per particle, elastic deformation gradient (det > 0);
 *                   the stress the next step scatters follows from it;
 *  BG_FIELD_STRESS  9 per particle, symmetric Cauchy stress (Pa, compression
 *                   negative): the rotation-free elastic F that carries it
 *                   under the material's elastic law is solved for and set
 *                   with it (Hencky only; refused for fixed corotated, but
 *                   for a zero stress on a particle of a table's entry).
 * The APIC matrix C and the plastic state are left as they were. Values are
 * checked (finite, symmetric, det F > 0) before anything changes. */
bg_status bg_sim_set(bg_sim *sim, bg_field f, const bg_real *in, size_t n);
/* The geostatic state of a layer whose free surface is the plane
 * z = z_surface under the current gravity (which must point along -z):
 * sigma_zz = -rho0 |g| (z_surface - z), sigma_xx = sigma_yy = k0 sigma_zz,
 * no shear, through bg_sim_set(BG_FIELD_STRESS); particles above the
 * surface get zero stress. k0 in (0, 2]; Jaky's at-rest value for sand of
 * friction angle phi is 1 - sin(phi). The state must lie inside the yield
 * surface for the material to hold it without a return map. With a
 * material table, rho0 is each particle's own (a layered overburden is
 * not summed), and a particle below the surface needs the Hencky law. */
bg_status bg_sim_set_geostatic(bg_sim *sim, double z_surface, double k0);

/* ------------------------------------------------------------------ sources */

/* An emitter: particles poured in at a fixed mass rate while the run goes
 * (core/src/source.c). At the start of each step a source active during it
 * owes mass_rate times its active time in the step, emits floor(owed / m_p)
 * particles of mass m_p = rho0 dx^3 / ppc through bg_sim_add_particles'
 * path and keeps the remainder, so its emitted mass trails mass_rate times
 * its active time by less than one particle mass. A DISC fills the
 * cylinder its inlet sweeps downstream over the step (uniform over the
 * disc, spread along velocity times the active time); a BOX fills the box
 * uniformly. The step's dt also holds the sources' speed to the CFL bound.
 * In 2D (dim 2) a DISC's inlet is the segment of half-width radius across
 * the stream in the plane, masses are per metre of depth (m_p = rho0 dx^2 /
 * ppc), and center[1] must be the plane's y with velocity[1] 0. */
typedef enum bg_source_shape { BG_SOURCE_DISC = 0, BG_SOURCE_BOX = 1 } bg_source_shape;

typedef struct bg_source {
  bg_source_shape shape;
  bg_real center[3];   /* m. DISC: centre of the inlet disc; BOX: centre of the box */
  bg_real radius;      /* m, DISC only (> 0); the disc is normal to velocity */
  bg_real half[3];     /* m, BOX only (each > 0): half extents */
  bg_real velocity[3]; /* m/s, of every emitted particle; DISC needs |v| > 0 */
  double mass_rate;    /* kg/s, > 0 */
  double t_start;      /* s: emits while t_start <= t < t_stop */
  double t_stop;       /* s, > t_start (INFINITY: never stops) */
  int material;        /* entry of the material table */
  bg_real ppc;         /* particle volume dx^3 / ppc, as bg_sim_add_particles */
  uint64_t seed;       /* placement is deterministic for a seed */
} bg_source;

/* A disc, ppc 8, t_start 0, t_stop INFINITY, seed 1; rate and shape unset (0). */
bg_source bg_source_default(void);
/* Adds an emitter (before or between steps). Refused, with the argument and
 * its range named: a shape (with a cell of margin) outside the grid's
 * interior, a DISC whose stream would be denser than its material
 * (mass_rate > rho0 pi r^2 |v|), non-finite values. *id (may be NULL)
 * receives its index. Checkpoints carry every source and its state. */
bg_status bg_sim_add_source(bg_sim *sim, const bg_source *src, int *id);
/* Mass emitted so far by source id, kg (exactly the sum of its particles'
 * masses), and the number of particles it emitted. */
bg_status bg_sim_source_mass(bg_sim *sim, int id, double *kg);
bg_status bg_sim_source_count(bg_sim *sim, int id, uint64_t *count);
/* Source id as it was added (or as a checkpoint brought it back). */
bg_status bg_sim_source_describe(bg_sim *sim, int id, bg_source *out);

/* ---------------------------------------------------------------- observation */

/* Walls, in the order forces are reported: the descriptor's colliders,
 * its rigid bodies, then the six domain faces -x, +x, -y, +y, -z, +z. */
size_t bg_sim_wall_count(const bg_sim *sim);
/* Force the material exerted on each wall over the last step (N, 3 values
 * per wall, bg_sim_wall_count walls): minus the momentum the wall's contact
 * condition gave its solid nodes, divided by dt. A face's force is that of
 * the material on the face (a floor under a column reads -m g along z).
 * cap: doubles available, >= 3 * bg_sim_wall_count. */
bg_status bg_sim_wall_forces(bg_sim *sim, double *out, size_t cap);
/* The impulse each wall received from the material since creation (N s, 3
 * per wall, the same order): the sum of force times dt over every step. A
 * contact's force comes in impulses (an arriving node's momentum is removed
 * within one step, and a step shortened by bg_sim_advance_to divides it by
 * a tiny dt), so a wall load over a window is the difference of two
 * readings of this over the window's length. Kept across checkpoints. */
bg_status bg_sim_wall_impulses(bg_sim *sim, double *out, size_t cap);

/* Rigid body k of the descriptor's bodies, as it is now (BG_ERR_RANGE for k
 * outside [0, n_bodies)). */
bg_status bg_sim_body_state(bg_sim *sim, size_t k, bg_body_state *out);
/* Sets body k's linear and angular velocity (m/s, rad/s, world frame)
 * before the next step: how a kinematic body is scripted (a free one is
 * given a kick). Refused, the body unchanged: non-finite values, a parked
 * body. */
bg_status bg_sim_set_body_velocity(bg_sim *sim, size_t k, const bg_real v[3], const bg_real w[3]);
/* Every body's surface as posed now, one VTU file of triangles (a sphere
 * in 12 x 24 bands, a box in 12), with the cell field "body" (its index)
 * and the point field "velocity" (v + w x r): ParaView shows it beside the
 * particles. Written under PATH.tmp and renamed. */
bg_status bg_sim_write_bodies_vtu(bg_sim *sim, const char *path);

/* The inner-loop coefficients (core/physics/bg_materials.h) of a material,
 * exactly as bg_sim_create derives them; the same checks as bg_sim_create's
 * (the message in err). What a probe of the constitutive update outside the
 * library uses. */
struct bg_mat;
bg_status bg_material_params(const bg_material *m, struct bg_mat *out, char *err, size_t err_len);

/* --------------------------------------------------------------- checkpoint */

/* Format version of bg_sim_save's files; a file of a later version is
 * refused with BG_ERR_VERSION. Versions 1 (its retired cpu_reference
 * ignored), 2 (no material table: every particle of the one material),
 * 3 (no sources) and 4 (no rigid bodies) still load. */
#define BG_CHECKPOINT_VERSION 6

/* The whole state to path: the descriptor (material table, colliders with their
 * node arrays, sinks, walls, the dt rule, damping), the clock, every
 * particle in the backend's memory order with its plastic state, cached
 * stress and material index, the tallies, the sort state, the sources (bg_sim_add_source) with
 * their state, and an optional user blob (user_len
 * bytes, e.g. a measurement loop's accumulators). A SHA-256 of the content
 * closes the file; it is written under PATH.tmp, synced and renamed, so a
 * file under PATH is complete. */
bg_status bg_sim_save(bg_sim *sim, const char *path, const void *user, size_t user_len);
/* A new simulation from a checkpoint, on backend (NULL: "auto") with
 * threads CPU threads (0: the OpenMP default); the writer's properties
 * when backend is the one that wrote it, else that backend's defaults. A
 * checkpoint from one backend resumes on any, and the state right after a
 * load is bitwise the state saved. On a host backend, whose scatter sums in
 * a fixed order, the continuation is bit-identical to the run that was not
 * interrupted; a GPU backend's atomics sum in the order the hardware picks, so two of its
 * uninterrupted runs already differ in the last bits, and a continuation
 * differs from an uninterrupted run by as much (test_checkpoint). Errors: BG_ERR_IO (cannot
 * read), BG_ERR_TRUNCATED, BG_ERR_CORRUPT (checksum), BG_ERR_VERSION, with
 * the path and what was found in err. */
bg_status bg_sim_load(const char *path, const char *backend, int threads, bg_sim **out, char *err,
                      size_t err_len);
/* Into an existing simulation created from the same descriptor (grid,
 * material, colliders, sinks, walls; else BG_ERR_MISMATCH naming the first
 * field that differs): its particles, clock, tallies and sources become the file's.
 * The user blob is copied into user (cap bytes; NULL with cap 0 to skip it)
 * and its length written to *user_len when not NULL; a blob larger than cap
 * is BG_ERR_RANGE. On any failure the simulation is left as it was. */
bg_status bg_sim_restore(bg_sim *sim, const char *path, void *user, size_t cap, size_t *user_len);
/* The checks bg_sim_load makes of a file before it reads any of it: the
 * header (magic, version, memory layout), the length it announces and the
 * SHA-256 of the content, with no simulation made (one pass over the file,
 * 64 KiB of memory). For a caller that must know a checkpoint is whole
 * before it acts on it (a resumed run, before it clears its folder).
 * Errors as bg_sim_load's, the path and what was found in err. */
bg_status bg_checkpoint_verify(const char *path, char *err, size_t err_len);

/* ------------------------------------------------------------------- output */

/* Binary VTU (VTK XML UnstructuredGrid of vertex cells, raw appended data,
 * little-endian) for ParaView, with every field: position, velocity, F,
 * Cauchy stress, pressure, von Mises stress, q, log Jp, density, mass,
 * active, return-map mode, material index. Written under PATH.tmp and renamed. */
bg_status bg_sim_write_vtu(bg_sim *sim, const char *path);

/* A ParaView time series: frames DIR/PREFIX_NNNNNN.vtu and the index
 * DIR/PREFIX.pvd, rewritten (under .tmp, renamed) after every frame so it
 * always lists the frames on disk. resume 1 keeps the frames of an
 * existing index whose time is below the next frame's (a restarted run
 * continues its series); 0 starts a new series. */
typedef struct bg_pvd bg_pvd;
bg_status bg_pvd_open(const char *dir, const char *prefix, int resume, bg_pvd **out);
/* Writes the simulation's current state as the next frame at its time. */
bg_status bg_pvd_frame(bg_pvd *p, bg_sim *sim);
/* Message of the last failure on this series. */
const char *bg_pvd_last_error(const bg_pvd *p);
/* Frees the series (the index is already complete on disk). NULL is a no-op. */
void bg_pvd_close(bg_pvd *p);


/* Particles for people: legacy VTK polydata (ParaView) and binary PLY
 * (Blender), each with position, velocity, density and Jp. Written under
 * PATH.tmp and renamed when complete; a failed write says why in
 * bg_sim_last_error (path and strerror). */
bg_status bg_sim_write_vtk(bg_sim *sim, const char *path);
bg_status bg_sim_write_ply(bg_sim *sim, const char *path);

/* Scalar time series as TSV: a '#' comment line, a plain header line (no
 * '#') naming the columns with their units ("t_s\tmass_kg"), then one row
 * per call. gnuplot (columnheader, columns by name), spreadsheets and
 * pandas.read_csv(sep='\t', comment='#') read it directly. */
typedef struct bg_series bg_series;
bg_status bg_series_open(const char *path, const char *comment, const char *const *columns,
                         size_t n_columns, bg_series **out);
/* One row of n_columns values (n must equal the column count). */
bg_status bg_series_row(bg_series *s, const double *values, size_t n);
/* Flushes and closes; BG_ERR_IO if any write failed, with errno set to the
 * failure's. The series is written under PATH.tmp and renamed to PATH here
 * when every write succeeded, so a file under PATH is never cut short.
 * NULL is a no-op. */
bg_status bg_series_close(bg_series *s);

/* A row of the standard per-step series of a simulation: step, time,
 * dt, active particles, parked particles, parked mass, kinetic energy,
 * maximum speed. bg_sim_series_open writes the matching header. */
bg_status bg_sim_series_open(const char *path, const char *comment, bg_series **out);
bg_status bg_sim_series_row(bg_sim *sim, bg_series *s);
/* The values of that row without writing it (a loop that keeps its rows,
 * e.g. for a checkpoint's user blob, writes them later with bg_series_row). */
#define BG_SIM_SERIES_COLUMNS 8
bg_status bg_sim_series_values(bg_sim *sim, double row[BG_SIM_SERIES_COLUMNS]);

/* ------------------------------------------------------------------ records */

/* SHA-256 (FIPS 180-4) of n bytes as 64 lowercase hex digits and a NUL:
 * the checksum a checkpoint closes with, so that a record names the tables
 * that judged a run with the library's own hash. */
void bg_sha256_hex(const void *data, size_t n, char hex[65]);
/* The same over a file's bytes; BG_ERR_IO (errno set) when it cannot be read. */
bg_status bg_sha256_file_hex(const char *path, char hex[65]);

/* The machine a record is made on, named the same way in every record of
 * the project: run manifests, benchmarks, baselines. */
typedef struct bg_host {
  char name[256]; /* host name; "unknown" when it cannot be read */
  char cpu[256];  /* CPU model (/proc/cpuinfo "model name"); "unknown cpu" when not there */
  int cores;      /* logical cores online, >= 1 */
} bg_host;
void bg_host_describe(bg_host *out);
/* How the CPU backend's idle OpenMP threads wait between the parallel loops
 * of a step, as libgomp read the environment when it loaded: "passive" (they
 * sleep), "active" (they spin), "spin N" (GOMP_SPINCOUNT) or "default"
 * (libgomp spins up to 300000 iterations before sleeping: on cores shared
 * with other work a step then runs about 8x slower). libgomp reads it once,
 * before any code of a program runs, so a library cannot choose it for its
 * caller: the Python package and the lab's executables set
 * OMP_WAIT_POLICY=passive when the user has set neither variable, and a C
 * program sets it in the environment it is started with. */
const char *bg_thread_wait_policy(void);

#ifdef __cplusplus
}
#endif

#endif /* BAGNOLD_H */
