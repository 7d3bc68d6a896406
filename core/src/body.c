/* body.c: rigid bodies coupled both ways through the grid (bagnold.h's
 * bg_body). Each step the front end lists the grid nodes inside each body
 * with the body's surface velocity there (v + omega x r) and its outward
 * normal, merged into the walls' solid-node list; every backend then applies
 * the walls' contact unchanged and tallies, per wall, the force and its
 * moment. After the step the body takes that force and torque (minus the
 * momentum its contact gave the material) with gravity, and moves. So the
 * momentum the material gains is the momentum the body loses, to round-off:
 * the coupling of Hu et al. 2018 (taichi_mpm) in bagnold's contact law. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bg_internal.h"

static const double PI = 3.14159265358979323846;

#define CHECK(cond, status, ...)                           \
  do {                                                     \
    if (!(cond)) return bg_fail(sim, status, __VA_ARGS__); \
  } while (0)

bg_body bg_body_default(void) {
  bg_body b;
  memset(&b, 0, sizeof b);
  b.shape = BG_BODY_SPHERE;
  b.radius = 0.05f;
  b.density = 1000.0f;
  b.q[0] = 1.0f;
  b.friction = BG_FRICTION_COULOMB;
  b.mu = 0.5f;
  return b;
}

/* ------------------------------------------------------------ geometry */

void bg_quat_matrix(const double q[4], double R[3][3]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0][0] = 1 - 2 * (y * y + z * z);
  R[0][1] = 2 * (x * y - w * z);
  R[0][2] = 2 * (x * z + w * y);
  R[1][0] = 2 * (x * y + w * z);
  R[1][1] = 1 - 2 * (x * x + z * z);
  R[1][2] = 2 * (y * z - w * x);
  R[2][0] = 2 * (x * z - w * y);
  R[2][1] = 2 * (y * z + w * x);
  R[2][2] = 1 - 2 * (x * x + y * y);
}

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Signed distance in the body's frame (p relative to its centre). In the
 * plane (2D) a body is a prism along y: a box's y faces do not exist, and a
 * sphere is the cylinder of its radius (p[1] is 0 there). A mesh body's
 * frame is its principal one (bm, body_mesh.c). */
static double body_phi(const bg_body *d, const bg_body_mesh *bm, const double p[3], int plane) {
  if (d->shape == BG_BODY_MESH) return bg_body_mesh_phi(bm, p);
  if (d->shape == BG_BODY_SPHERE) return sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - d->radius;
  double out = 0, in = -1e300;
  for (int a = 0; a < 3; ++a) {
    if (plane && a == 1) continue;
    double q = fabs(p[a]) - d->half[a];
    out += q > 0 ? q * q : 0;
    in = q > in ? q : in;
  }
  return sqrt(out) + (in < 0 ? in : 0);
}

/* The outward normal in the body's frame, by central differences of the
 * distance (a box's faces, edges and corners by one rule), h a quarter cell. */
static void body_normal(const bg_body *d, const bg_body_mesh *bm, const double p[3], double h, int plane,
                        double n[3]) {
  double nn = 0;
  if (d->shape == BG_BODY_SPHERE) {
    /* the gradient of |p| - r in closed form: one norm instead of six
     * distances per node, which at a sphere of 25 cells' radius is most of
     * a GPU step's host time */
    for (int a = 0; a < 3; ++a) nn += plane && a == 1 ? 0.0 : p[a] * p[a];
    nn = sqrt(nn);
    for (int a = 0; a < 3; ++a) n[a] = plane && a == 1 ? 0.0 : nn > 1e-12 * h ? p[a] / nn : a == 2 ? 1.0 : 0.0;
    return;
  }
  for (int a = 0; a < 3; ++a) {
    double q0[3] = {p[0], p[1], p[2]}, q1[3] = {p[0], p[1], p[2]};
    q0[a] -= h;
    q1[a] += h;
    n[a] = plane && a == 1 ? 0.0 : body_phi(d, bm, q1, plane) - body_phi(d, bm, q0, plane);
    nn += n[a] * n[a];
  }
  nn = sqrt(nn);
  if (nn > 1e-12 * h) {
    for (int a = 0; a < 3; ++a) n[a] /= nn;
    return;
  }
  /* where the differences cancel (a box's mid-plane, a sphere's centre) the
   * nearest face's direction, so that no node inside has a zero normal */
  int best = 2;
  double far = -1e300;
  for (int a = 0; a < 3; ++a) {
    double q = d->shape == BG_BODY_BOX ? fabs(p[a]) - d->half[a] : 0.0;
    n[a] = 0;
    if (d->shape == BG_BODY_BOX && q > far && !(plane && a == 1)) {
      far = q;
      best = a;
    }
  }
  n[best] = p[best] < 0 ? -1.0 : 1.0;
}

/* The largest distance from the centre to the surface (in the plane). */
static double body_reach(const bg_body *d, const bg_body_mesh *bm, int plane) {
  if (d->shape == BG_BODY_MESH) return bm->reach;
  if (d->shape == BG_BODY_SPHERE) return d->radius;
  if (plane) return sqrt((double)d->half[0] * d->half[0] + (double)d->half[2] * d->half[2]);
  return sqrt((double)d->half[0] * d->half[0] + (double)d->half[1] * d->half[1] + (double)d->half[2] * d->half[2]);
}

/* Mass and principal inertia from density and shape; in the plane per
 * metre of depth (a sphere is a cylinder, a box a prism along y), the one
 * axis that turns being y. Its I_x and I_z are given I_y's value: with w
 * along y and torques about y only, they never enter the spin. A mesh
 * (3D only) from its geometry, along its principal axes. */
static void body_mass(const bg_body *d, const bg_body_mesh *bm, int plane, double *m, double I[3]) {
  if (d->shape == BG_BODY_MESH) {
    *m = d->density * bm->vol;
    for (int a = 0; a < 3; ++a) I[a] = d->density * bm->I[a];
    return;
  }
  if (plane) {
    if (d->shape == BG_BODY_SPHERE) {
      double r = d->radius;
      *m = d->density * PI * r * r;
      I[1] = 0.5 * *m * r * r;
    } else {
      double ex = 2.0 * d->half[0], ez = 2.0 * d->half[2];
      *m = d->density * ex * ez;
      I[1] = *m / 12.0 * (ex * ex + ez * ez);
    }
    I[0] = I[2] = I[1];
    return;
  }
  if (d->shape == BG_BODY_SPHERE) {
    double r = d->radius;
    *m = d->density * 4.0 / 3.0 * PI * r * r * r;
    for (int a = 0; a < 3; ++a) I[a] = 0.4 * *m * r * r;
    return;
  }
  double e[3] = {2.0 * d->half[0], 2.0 * d->half[1], 2.0 * d->half[2]};
  *m = d->density * e[0] * e[1] * e[2];
  I[0] = *m / 12.0 * (e[1] * e[1] + e[2] * e[2]);
  I[1] = *m / 12.0 * (e[0] * e[0] + e[2] * e[2]);
  I[2] = *m / 12.0 * (e[0] * e[0] + e[1] * e[1]);
}

/* Whether a centre lies where the body may act: the grid's interior, the
 * band particles are kept in (bg_park_code). */
static int centre_inside(const bg_config *c, const double x[3]) {
  for (int a = 0; a < 3; ++a) {
    if (a == 1 && c->dim == 2) continue; /* the plane: y never changes */
    double g = (x[a] - c->origin[a]) / c->dx;
    if (!(g >= 0.5 && g < (double)c->dims[a] - 1.5)) return 0;
  }
  return 1;
}

/* ------------------------------------------------------------ set-up */

static bg_status check_vec(bg_sim *sim, const bg_real *v, int n, size_t k, const char *name) {
  for (int a = 0; a < n; ++a)
    CHECK(isfinite(v[a]), BG_ERR_NONFINITE, "bodies[%zu].%s[%d] is not finite (got %g)", k, name, a, (double)v[a]);
  return BG_OK;
}

/* In the plane (dim 2) a body stays in it: its centre on y = origin[1], no
 * velocity out of it, a spin and a rotation about y only (a tilt about x or
 * z would turn its faces out of the plane). qn is |q|^2. */
#define BG_BODY_PLANE_TOL 1e-6
static bg_status check_plane(bg_sim *sim, const bg_sim_desc *d, const bg_body *b, size_t k, double qn) {
  CHECK(b->x[1] == d->origin[1], BG_ERR_RANGE,
        "bodies[%zu].x[1] = %g m is off the plane of a 2D simulation (it must be origin[1] = %g m)", k,
        (double)b->x[1], (double)d->origin[1]);
  CHECK(b->v[1] == 0, BG_ERR_RANGE, "bodies[%zu].v[1] = %g m/s must be 0 in a 2D simulation (nothing leaves the plane)",
        k, (double)b->v[1]);
  CHECK(b->w[0] == 0 && b->w[2] == 0, BG_ERR_RANGE,
        "bodies[%zu].w must be about y in a 2D simulation (w[0] and w[2] must be 0; got %g and %g rad/s)", k,
        (double)b->w[0], (double)b->w[2]);
  CHECK(b->axis[0] == 0 && b->axis[2] == 0, BG_ERR_RANGE,
        "bodies[%zu].axis must be 0 or along y in a 2D simulation (got %g %g %g)", k, (double)b->axis[0],
        (double)b->axis[1], (double)b->axis[2]);
  const double r = sqrt(qn);
  CHECK(fabs(b->q[1] / r) <= BG_BODY_PLANE_TOL && fabs(b->q[3] / r) <= BG_BODY_PLANE_TOL, BG_ERR_RANGE,
        "bodies[%zu].q must be a rotation about y in a 2D simulation (q[1] and q[3] within %g of 0 once "
        "normalised; got %g and %g)",
        k, BG_BODY_PLANE_TOL, b->q[1] / r, b->q[3] / r);
  return BG_OK;
}

bg_status bg_check_body(bg_sim *sim, const bg_sim_desc *d, size_t k) {
  const bg_body *b = &d->bodies[k];
  bg_status s;
  const int plane = d->dim == 2;
  CHECK(b->shape == BG_BODY_SPHERE || b->shape == BG_BODY_BOX || b->shape == BG_BODY_MESH ||
            b->shape == BG_BODY_PLATE,
        BG_ERR_RANGE, "bodies[%zu].shape must be BG_BODY_SPHERE, BG_BODY_BOX, BG_BODY_MESH or BG_BODY_PLATE (got %d)",
        k, (int)b->shape);
  if (b->shape == BG_BODY_MESH) {
    /* a mesh is closed and consistently oriented once bg_mesh_load returned it */
    CHECK(b->mesh != NULL, BG_ERR_NULL, "bodies[%zu].mesh is NULL (a BG_BODY_MESH body needs a bg_mesh_load mesh)", k);
    CHECK(!plane, BG_ERR_RANGE, "bodies[%zu]: a mesh body is 3D only (dim is 2; use a box or a sphere)", k);
  } else if (b->shape == BG_BODY_SPHERE) {
    CHECK(isfinite(b->radius), BG_ERR_NONFINITE, "bodies[%zu].radius is not finite", k);
    CHECK(b->radius > 0, BG_ERR_RANGE, "bodies[%zu].radius must be > 0 m (got %g)", k, (double)b->radius);
  } else {
    if ((s = check_vec(sim, b->half, 3, k, "half")) != BG_OK) return s;
    for (int a = 0; a < 3; ++a)
      CHECK(b->half[a] > 0 || (plane && a == 1), BG_ERR_RANGE, "bodies[%zu].half[%d] must be > 0 m (got %g)", k, a, (double)b->half[a]);
  }
  CHECK(isfinite(b->density), BG_ERR_NONFINITE, "bodies[%zu].density is not finite", k);
  CHECK(b->density > 0, BG_ERR_RANGE, "bodies[%zu].density must be > 0 kg/m^3 (got %g)", k, (double)b->density);
  if ((s = check_vec(sim, b->x, 3, k, "x")) != BG_OK) return s;
  if ((s = check_vec(sim, b->q, 4, k, "q")) != BG_OK) return s;
  if ((s = check_vec(sim, b->v, 3, k, "v")) != BG_OK) return s;
  if ((s = check_vec(sim, b->w, 3, k, "w")) != BG_OK) return s;
  if ((s = check_vec(sim, b->axis, 3, k, "axis")) != BG_OK) return s;
  double qn = 0;
  for (int a = 0; a < 4; ++a) qn += (double)b->q[a] * b->q[a];
  CHECK(qn > 1e-12, BG_ERR_RANGE, "bodies[%zu].q must be a nonzero quaternion (w, x, y, z; got 0 0 0 0)", k);
  if (plane && (s = check_plane(sim, d, b, k, qn)) != BG_OK) return s;
  CHECK(b->friction == BG_FRICTION_COULOMB || b->friction == BG_FRICTION_SLIP || b->friction == BG_FRICTION_STICK,
        BG_ERR_RANGE, "bodies[%zu].friction must be COULOMB, SLIP or STICK (got %d)", k, (int)b->friction);
  CHECK(isfinite(b->mu) && b->mu >= 0, isfinite(b->mu) ? BG_ERR_RANGE : BG_ERR_NONFINITE,
        "bodies[%zu].mu must be >= 0 (got %g)", k, (double)b->mu);
  CHECK(b->kinematic == 0 || b->kinematic == 1, BG_ERR_RANGE, "bodies[%zu].kinematic must be 0 or 1 (got %d)", k,
        b->kinematic);
  CHECK(isfinite(b->linear_damping) && b->linear_damping >= 0, BG_ERR_RANGE,
        "bodies[%zu].linear_damping must be >= 0 1/s (got %g)", k, (double)b->linear_damping);
  CHECK(isfinite(b->angular_damping) && b->angular_damping >= 0, BG_ERR_RANGE,
        "bodies[%zu].angular_damping must be >= 0 1/s (got %g)", k, (double)b->angular_damping);
  double m = 1, I[3] = {1, 1, 1};
  /* a mesh body's mass needs its geometry: checked as that is made (bg_bodies_init) */
  if (b->shape != BG_BODY_MESH) body_mass(b, NULL, plane, &m, I);
  CHECK(isfinite(m) && m > 0 && I[0] > 0 && I[1] > 0 && I[2] > 0 && isfinite(I[0] + I[1] + I[2]), BG_ERR_RANGE,
        "bodies[%zu]: mass %g kg and inertia %g %g %g kg m^2 must be finite and positive", k, m, I[0], I[1], I[2]);
  /* the grid is checked before the bodies: the interior is known */
  for (int a = 0; a < 3; ++a) {
    if (plane && a == 1) continue; /* on the plane, checked above */
    double g = ((double)b->x[a] - d->origin[a]) / d->dx;
    CHECK(g >= 0.5 && g < (double)d->dims[a] - 1.5, BG_ERR_RANGE,
          "bodies[%zu].x[%d] = %g m lies outside the grid's interior [%g, %g) m", k, a, (double)b->x[a],
          (double)d->origin[a] + 0.5 * d->dx, (double)d->origin[a] + ((double)d->dims[a] - 1.5) * d->dx);
  }
  return BG_OK;
}

bg_status bg_bodies_init(bg_sim *sim, const bg_sim_desc *d) {
  sim->n_bodies = d->n_bodies;
  if (!d->n_bodies) return BG_OK;
  sim->bodies = calloc(d->n_bodies, sizeof *sim->bodies);
  sim->body_desc = calloc(d->n_bodies, sizeof *sim->body_desc);
  sim->body_mesh = calloc(d->n_bodies, sizeof *sim->body_mesh);
  if (!sim->bodies || !sim->body_desc || !sim->body_mesh)
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the rigid bodies");
  memcpy(sim->body_desc, d->bodies, d->n_bodies * sizeof *d->bodies);
  for (size_t k = 0; k < d->n_bodies; ++k) {
    bg_rbody *r = &sim->bodies[k];
    const bg_body *b = &d->bodies[k];
    bg_body_mesh *bm = &sim->body_mesh[k];
    const int plane = sim->cfg.dim == 2;
    if (b->shape == BG_BODY_MESH) {
      bg_status s = bg_body_mesh_make(sim, k, b->mesh, (double)sim->cfg.dx, bm);
      if (s != BG_OK) return s;
      sim->body_desc[k].mesh = bm->mesh; /* the caller's may be destroyed after creation */
    }
    body_mass(b, bm, plane, &r->m, r->ib);
    if (!(isfinite(r->m) && r->m > 0 && r->ib[0] > 0 && r->ib[1] > 0 && r->ib[2] > 0))
      return bg_fail(sim, BG_ERR_RANGE, "bodies[%zu]: mass %g kg and inertia %g %g %g kg m^2 must be finite and positive",
                     k, r->m, r->ib[0], r->ib[1], r->ib[2]);
    double qn = 0;
    for (int a = 0; a < 4; ++a) qn += (double)b->q[a] * b->q[a];
    qn = sqrt(qn);
    for (int a = 0; a < 4; ++a) r->q[a] = b->q[a] / qn;
    if (b->shape == BG_BODY_MESH) { /* the state turns the principal frame: q qp */
      double qu[4] = {r->q[0], r->q[1], r->q[2], r->q[3]};
      bg_quat_mul(qu, bm->qp, r->q);
    }
    if (plane) { /* exactly about y: the residue the check allowed would tilt the normals */
      qn = sqrt(r->q[0] * r->q[0] + r->q[2] * r->q[2]);
      r->q[0] /= qn, r->q[2] /= qn;
      r->q[1] = r->q[3] = 0;
    }
    for (int a = 0; a < 3; ++a) {
      r->x[a] = b->x[a];
      r->v[a] = b->v[a];
      r->w[a] = b->w[a];
    }
  }
  return bg_plates_init(sim);
}

void bg_bodies_free(bg_sim *sim) {
  for (size_t k = 0; sim->body_mesh && k < sim->n_bodies; ++k) bg_body_mesh_free(&sim->body_mesh[k]);
  free(sim->body_mesh);
  free(sim->bodies);
  free(sim->body_desc);
  free(sim->merged);
  free(sim->body_cand);
  free(sim->cuts);
}

/* ------------------------------------------------------------ solid nodes */

typedef struct cand {
  bg_bnode b;
  double phi;
} cand;

static int cand_cmp(const void *pa, const void *pb) {
  const cand *a = pa, *b = pb;
  if (a->b.node != b->b.node) return a->b.node < b->b.node ? -1 : 1;
  return (a->phi > b->phi) - (a->phi < b->phi);
}

/* The nodes inside body k, appended to *list. */
static bg_status body_nodes(bg_sim *sim, size_t k, cand **list, size_t *n, size_t *cap) {
  const bg_config *c = &sim->cfg;
  const bg_rbody *r = &sim->bodies[k];
  const bg_body *d = &sim->body_desc[k];
  double R[3][3];
  bg_quat_matrix(r->q, R);
  const int plane = c->dim == 2;
  const bg_body_mesh *bm = &sim->body_mesh[k];
  const int thin = d->shape == BG_BODY_PLATE;
  /* a plate's nodes: its rectangle and the band beside it (body_plate.c) */
  const double reach = thin ? sqrt((double)d->half[0] * d->half[0] + (plane ? 0.0 : (double)d->half[1] * d->half[1]) +
                                   6.75 * (double)c->dx * c->dx)
                            : body_reach(d, bm, plane);
  int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = (int64_t)ceil((r->x[a] - reach - c->origin[a]) / c->dx);
    hi[a] = (int64_t)floor((r->x[a] + reach - c->origin[a]) / c->dx);
    if (lo[a] < 0) lo[a] = 0;
    if (hi[a] > c->dims[a] - 1) hi[a] = c->dims[a] - 1;
  }
  if (plane) lo[1] = hi[1] = 0; /* the plane's one node layer */
  for (int64_t i = lo[0]; i <= hi[0]; ++i)
    for (int64_t j = lo[1]; j <= hi[1]; ++j)
      for (int64_t kk = lo[2]; kk <= hi[2]; ++kk) {
        const int64_t ijk[3] = {i, j, kk};
        double rw[3], p[3];
        for (int a = 0; a < 3; ++a) rw[a] = c->origin[a] + (double)ijk[a] * c->dx - r->x[a];
        for (int a = 0; a < 3; ++a) p[a] = R[0][a] * rw[0] + R[1][a] * rw[1] + R[2][a] * rw[2]; /* R^T rw */
        bg_bnode pb;
        double phi = 0;
        if (thin ? !bg_plate_node(sim, k, R, rw, &pb, &phi) : !((phi = body_phi(d, bm, p, plane)) < 0)) continue;
        if (*n == *cap) {
          size_t nc = *cap ? 2 * *cap : 1024;
          cand *g = realloc(*list, nc * sizeof *g);
          if (!g) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for body %zu's solid nodes", k);
          *list = g;
          *cap = nc;
        }
        cand *e = &(*list)[(*n)++];
        if (thin) {
          pb.node = (i * c->dims[1] + j) * c->dims[2] + kk;
          e->b = pb;
          e->phi = phi;
          continue;
        }
        double nb[3], wr[3];
        body_normal(d, bm, p, 0.25 * c->dx, plane, nb);
        cross(r->w, rw, wr);
        e->b.node = (i * c->dims[1] + j) * c->dims[2] + kk;
        for (int a = 0; a < 3; ++a) {
          e->b.n[a] = (bg_real)(R[a][0] * nb[0] + R[a][1] * nb[1] + R[a][2] * nb[2]);
          e->b.vw[a] = (bg_real)(r->v[a] + wr[a]);
        }
        e->b.collider = (int32_t)(sim->n_colliders + k);
        e->b.faces = 0;
        e->phi = phi;
      }
  return BG_OK;
}

/* One node both a wall and a body hold: the faces stay; the deeper of
 * collider and body acts. */
static bg_bnode merge_node(bg_bnode m, double wall_phi, const cand *c) {
  if (m.collider < 0 || c->phi < wall_phi) {
    m.collider = c->b.collider;
    for (int a = 0; a < 3; ++a) {
      m.n[a] = c->b.n[a];
      m.vw[a] = c->b.vw[a];
    }
  }
  return m;
}

/* The walls' entry of node, or -1. The bodies' nodes come ascending, so
 * each search starts where the last ended (*at) and gallops: a binary
 * search of the whole list per node, through tens of MB of face nodes,
 * was most of the commit's time at 8M particles. */
static int64_t wall_entry(const bg_sim *sim, int64_t node, size_t *at) {
  const bg_bnode *w = sim->bnodes;
  const size_t n = sim->n_bnodes;
  size_t lo = *at, hi = lo, step = 1;
  while (hi < n && w[hi].node < node) {
    lo = hi + 1;
    hi = lo + step;
    step *= 2;
  }
  if (hi > n) hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w[mid].node < node) lo = mid + 1;
    else hi = mid;
  }
  *at = lo;
  return lo < n && w[lo].node == node ? (int64_t)lo : -1;
}

bg_status bg_boundary_commit(bg_sim *sim) {
  if (!sim->n_bodies) return sim->ops->set_boundary(sim->state, sim->bnodes, sim->n_bnodes);
  const int apart = sim->ops->set_body_nodes != NULL;
  bg_status s = BG_OK;
  if (apart && !sim->walls_sent) {
    if ((s = sim->ops->set_boundary(sim->state, sim->bnodes, sim->n_bnodes)) != BG_OK)
      return bg_fail(sim, s, "backend %s could not take the solid-node list", bg_backend_ops_name(sim->ops));
    sim->walls_sent = 1;
  }
  bg_plates_commit(sim);
  /* the last commit's buffer: every step's nodes are about as many */
  cand *bl = sim->body_cand;
  size_t nb = 0, cap = sim->body_cand_cap;
  for (size_t k = 0; k < sim->n_bodies && s == BG_OK; ++k)
    if (!sim->bodies[k].parked) s = body_nodes(sim, k, &bl, &nb, &cap);
  sim->body_cand = bl;
  sim->body_cand_cap = cap;
  if (s != BG_OK) return s;
  /* where bodies overlap, the deepest holds the node (as for colliders);
   * one body's nodes come out ascending already, and a sort of them would
   * cost more than finding them */
  int sorted = 1;
  for (size_t j = 1; j < nb && sorted; ++j) sorted = cand_cmp(&bl[j - 1], &bl[j]) <= 0;
  if (!sorted) qsort(bl, nb, sizeof *bl, cand_cmp);
  size_t need = (apart ? 0 : sim->n_bnodes) + nb;
  if (need > sim->merged_cap) {
    bg_bnode *g = realloc(sim->merged, (need ? need : 1) * sizeof *g);
    if (!g) return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the solid-node list");
    sim->merged = g;
    sim->merged_cap = need;
  }
  size_t n = 0;
  if (apart) {
    /* the bodies' nodes alone, each merged with the walls' entry it replaces */
    size_t at = 0;
    for (size_t j = 0; j < nb; ++j) {
      if (j > 0 && bl[j].b.node == bl[j - 1].b.node) continue;
      int64_t i = wall_entry(sim, bl[j].b.node, &at);
      sim->merged[n++] = i < 0 ? bl[j].b : merge_node(sim->bnodes[i], sim->bphi[i], &bl[j]);
    }
    s = sim->ops->set_body_nodes(sim->state, sim->merged, n);
  } else {
    /* merge with the walls' list, both ascending in node */
    size_t i = 0, j = 0;
    while (i < sim->n_bnodes || j < nb) {
      if (j < nb && j > 0 && bl[j].b.node == bl[j - 1].b.node) {
        ++j;
        continue;
      }
      if (j >= nb || (i < sim->n_bnodes && sim->bnodes[i].node < bl[j].b.node)) {
        sim->merged[n++] = sim->bnodes[i++];
      } else if (i >= sim->n_bnodes || bl[j].b.node < sim->bnodes[i].node) {
        sim->merged[n++] = bl[j++].b;
      } else {
        sim->merged[n++] = merge_node(sim->bnodes[i], sim->bphi[i], &bl[j]);
        ++i;
        ++j;
      }
    }
    s = sim->ops->set_boundary(sim->state, sim->merged, n);
  }
  if (s != BG_OK) return bg_fail(sim, s, "backend %s could not take the solid-node list", bg_backend_ops_name(sim->ops));
  return BG_OK;
}

/* ------------------------------------------------------------ motion */

double bg_bodies_speed(const bg_sim *sim) {
  double vmax = 0;
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    const bg_rbody *r = &sim->bodies[k];
    if (r->parked) continue;
    double v = sqrt(r->v[0] * r->v[0] + r->v[1] * r->v[1] + r->v[2] * r->v[2]);
    double w = sqrt(r->w[0] * r->w[0] + r->w[1] * r->w[1] + r->w[2] * r->w[2]);
    v += w * body_reach(&sim->body_desc[k], &sim->body_mesh[k], sim->cfg.dim == 2);
    if (v > vmax) vmax = v;
  }
  return vmax;
}

/* The angular velocity after dt under torque tau (world frame), with the
 * gyroscopic term, integrated in the body's principal frame. */
static void spin(bg_rbody *r, const double tau[3], double dt) {
  double R[3][3], wb[3], tb[3], L[3], g[3];
  bg_quat_matrix(r->q, R);
  for (int a = 0; a < 3; ++a) {
    wb[a] = R[0][a] * r->w[0] + R[1][a] * r->w[1] + R[2][a] * r->w[2];
    tb[a] = R[0][a] * tau[0] + R[1][a] * tau[1] + R[2][a] * tau[2];
    L[a] = r->ib[a] * wb[a];
  }
  cross(wb, L, g);
  for (int a = 0; a < 3; ++a) wb[a] += dt * (tb[a] - g[a]) / r->ib[a];
  for (int a = 0; a < 3; ++a) r->w[a] = R[a][0] * wb[0] + R[a][1] * wb[1] + R[a][2] * wb[2];
}

void bg_bodies_advance(bg_sim *sim, const double *tally, double dt) {
  const bg_config *c = &sim->cfg;
  for (size_t k = 0; k < sim->n_bodies; ++k) {
    bg_rbody *r = &sim->bodies[k];
    const bg_body *d = &sim->body_desc[k];
    const double *t = tally + BG_WALL_TALLY * (sim->n_colliders + k);
    if (r->parked) {
      memset(r->f, 0, sizeof r->f);
      memset(r->tau, 0, sizeof r->tau);
      continue;
    }
    /* the tally's moment is about the grid's origin: move it to the centre */
    double rc[3], m0[3];
    for (int a = 0; a < 3; ++a) rc[a] = r->x[a] - c->origin[a];
    cross(rc, t, m0);
    for (int a = 0; a < 3; ++a) {
      r->f[a] = t[a];
      r->tau[a] = t[3 + a] - m0[a];
    }
    if (!d->kinematic) {
      for (int a = 0; a < 3; ++a) r->v[a] += dt * (r->f[a] / r->m + (double)c->gravity[a]);
      spin(r, r->tau, dt);
      const double an = sqrt((double)d->axis[0] * d->axis[0] + (double)d->axis[1] * d->axis[1] +
                             (double)d->axis[2] * d->axis[2]);
      if (an > 0) {
        double wa = (r->w[0] * d->axis[0] + r->w[1] * d->axis[1] + r->w[2] * d->axis[2]) / (an * an);
        for (int a = 0; a < 3; ++a) r->w[a] = wa * d->axis[a];
      }
      const double lv = exp(-(double)d->linear_damping * dt), lw = exp(-(double)d->angular_damping * dt);
      for (int a = 0; a < 3; ++a) {
        r->v[a] *= lv;
        r->w[a] *= lw;
      }
      if (c->dim == 2) { /* in the plane: the tally's rounding cannot tilt it out */
        r->v[1] = 0;
        r->w[0] = r->w[2] = 0;
      }
    }
    for (int a = 0; a < 3; ++a) r->x[a] += dt * r->v[a];
    /* q' = q + dt/2 (0, w) q, renormalised */
    const double *w = r->w, *q = r->q;
    double dq[4] = {-w[0] * q[1] - w[1] * q[2] - w[2] * q[3], w[0] * q[0] + w[1] * q[3] - w[2] * q[2],
                    w[1] * q[0] + w[2] * q[1] - w[0] * q[3], w[2] * q[0] + w[0] * q[2] - w[1] * q[1]};
    double qn = 0;
    for (int a = 0; a < 4; ++a) {
      r->q[a] += 0.5 * dt * dq[a];
      qn += r->q[a] * r->q[a];
    }
    qn = sqrt(qn);
    for (int a = 0; a < 4; ++a) r->q[a] /= qn;
    if (!centre_inside(c, r->x)) {
      r->parked = 1;
      memset(r->v, 0, sizeof r->v);
      memset(r->w, 0, sizeof r->w);
    }
  }
}

bg_status bg_sim_body_state(bg_sim *sim, size_t k, bg_body_state *out) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(out != NULL, BG_ERR_NULL, "out is NULL");
  CHECK(k < sim->n_bodies, BG_ERR_RANGE, "body %zu: the simulation has %zu bodies", k, sim->n_bodies);
  const bg_rbody *r = &sim->bodies[k];
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; ++a) {
    out->x[a] = r->x[a];
    out->v[a] = r->v[a];
    out->w[a] = r->w[a];
    out->force[a] = r->f[a];
    out->torque[a] = r->tau[a];
    out->inertia[a] = r->ib[a];
  }
  for (int a = 0; a < 4; ++a) out->q[a] = r->q[a];
  if (sim->body_desc[k].shape == BG_BODY_MESH) { /* the mesh's own frame, as given: q conj(qp) */
    const double *qp = sim->body_mesh[k].qp, qc[4] = {qp[0], -qp[1], -qp[2], -qp[3]};
    bg_quat_mul(r->q, qc, out->q);
  }
  out->mass = r->m;
  out->parked = r->parked;
  return BG_OK;
}

bg_status bg_sim_set_body_velocity(bg_sim *sim, size_t k, const bg_real v[3], const bg_real w[3]) {
  if (!sim) return BG_ERR_NULL;
  sim->err[0] = 0;
  CHECK(k < sim->n_bodies, BG_ERR_RANGE, "body %zu: the simulation has %zu bodies", k, sim->n_bodies);
  CHECK(v && w, BG_ERR_NULL, "v or w is NULL");
  for (int a = 0; a < 3; ++a) {
    CHECK(isfinite(v[a]), BG_ERR_NONFINITE, "v[%d] is not finite (got %g)", a, (double)v[a]);
    CHECK(isfinite(w[a]), BG_ERR_NONFINITE, "w[%d] is not finite (got %g)", a, (double)w[a]);
  }
  CHECK(!sim->bodies[k].parked, BG_ERR_RANGE, "body %zu is parked (it left the grid's interior)", k);
  if (sim->cfg.dim == 2) {
    CHECK(v[1] == 0, BG_ERR_RANGE, "v[1] = %g m/s must be 0 in a 2D simulation (nothing leaves the plane)",
          (double)v[1]);
    CHECK(w[0] == 0 && w[2] == 0, BG_ERR_RANGE,
          "w must be about y in a 2D simulation (w[0] and w[2] must be 0; got %g and %g rad/s)", (double)w[0],
          (double)w[2]);
  }
  for (int a = 0; a < 3; ++a) {
    sim->bodies[k].v[a] = v[a];
    sim->bodies[k].w[a] = w[a];
  }
  return bg_boundary_commit(sim);
}
