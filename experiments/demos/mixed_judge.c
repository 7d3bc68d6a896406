/* mixed_judge.c: the mixed-material demo's tables and claims (the scenes:
 * demo_mixed.c). Every expected value is what the run was fed: each
 * entry's rho0 and the gravity as the simulation holds them
 * (bg_sim_describe), the volumes as the particles added (dx^3 / 8 each),
 * and the geometry those volumes fill. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mixed.h"

/* The first sample of the averaging window at the end of a run. */
static size_t window_start(const mx_scene *sc, double window) {
  double t_end = sc->s[sc->n_samples - 1].t;
  size_t i = sc->n_samples - 1;
  while (i > 0 && sc->s[i - 1].t >= t_end - window - 1e-9) --i;
  return i;
}

/* Mean force on a wall over samples [i0, last], component c, from the
 * impulse difference. */
static double window_force(const mx_scene *sc, size_t i0, int floor, int c) {
  const mx_sample *a = &sc->s[i0], *b = &sc->s[sc->n_samples - 1];
  double Ia = floor ? a->I_floor[c] : a->I_left[c], Ib = floor ? b->I_floor[c] : b->I_left[c];
  return (Ib - Ia) / (b->t - a->t);
}

double mx_water_depth(const mx_options *o, const mx_scene *dam) {
  double A = dam->V_fed[MX_OTHER] / dam->ly, W = o->res_w, s = o->slope;
  return (-W + sqrt(W * W + 2 * s * A)) / s;
}

/* Max relative error of the masses read back by entry against rho0 V fed,
 * over the scenes run; swap: the read-out that mixes up the index. */
static double mass_error(const mx_scene *const *scs, int swap) {
  double e = 0;
  for (int i = 0; i < 2; ++i) {
    if (!scs[i]) continue;
    for (int k = 0; k < MX_NMAT; ++k) {
      double fed = scs[i]->rho0[k] * scs[i]->V_fed[k];
      double m = swap ? scs[i]->M_swap[k] : scs[i]->M_read[k];
      e = fmax(e, fabs(m / fed - 1));
    }
  }
  return e;
}

static void write_series(bg_lab *lab, const mx_scene *const *scs, const double *norm) {
  FILE *fp = bg_lab_tsv(
      lab, "series.tsv",
      "per sampling interval: wall forces from impulse differences (the force the material exerts "
      "on the wall); the jelly's or the water's centre of mass and volume ratio J = det F; the "
      "sand's centre of mass x. norm_N: the scene's claimed rest force ((m_sand + m_jelly) g, or "
      "the hydrostatic thrust 1/2 rho_w g h^2 ly), from what the run was fed",
      "scene\tt_s\tfloor_Fx_N\tfloor_Fz_N\tleft_Fx_N\tnorm_N\tother_com_x_m\tother_com_z_m\t"
      "other_J_min\tother_J_max\tother_J_mean\tsand_com_x_m");
  for (int i = 0; i < 2; ++i) {
    const mx_scene *sc = scs[i];
    if (!sc) continue;
    for (size_t j = 1; j < sc->n_samples; ++j) {
      const mx_sample *a = &sc->s[j - 1], *b = &sc->s[j];
      double dt = b->t - a->t;
      fprintf(fp, "%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.7g\t%.7g\t%.7g\t%.7g\t%.7g\t%.7g\n",
              sc->name, b->t, (b->I_floor[0] - a->I_floor[0]) / dt,
              (b->I_floor[2] - a->I_floor[2]) / dt, (b->I_left[0] - a->I_left[0]) / dt, norm[i],
              b->com_x, b->com_z, b->J_min, b->J_max, b->J_mean, b->sand_com_x);
    }
  }
  fclose(fp);
}

static void write_snapshots(bg_lab *lab, const mx_scene *const *scs) {
  FILE *fp = bg_lab_tsv(lab, "snapshots.tsv",
                        "particles of the slab's first lattice layer at three times per scene "
                        "(start, after the impact or the release, end); material: the entry of "
                        "the scene's table, 0 sand, 1 jelly (jelly scene) or water (dam scene)",
                        "scene\tsnap\tt_s\tx_m\tz_m\tmaterial");
  for (int i = 0; i < 2; ++i) {
    const mx_scene *sc = scs[i];
    if (!sc) continue;
    for (int k = 0; k < MX_SNAPS; ++k) {
      const float *v = sc->snap + (size_t)k * sc->n_snap_p * 3;
      for (size_t p = 0; p < sc->n_snap_p; ++p)
        fprintf(fp, "%s\t%d\t%.4f\t%.5f\t%.5f\t%d\n", sc->name, k, sc->snap_t[k], v[3 * p],
                v[3 * p + 1], (int)v[3 * p + 2]);
    }
  }
  fclose(fp);
}

void mx_judge(bg_lab *lab, const mx_options *o, const mx_scene *jelly, const mx_scene *dam) {
  const mx_scene *scs[2] = {jelly, dam};
  double norm[2] = {NAN, NAN};
  FILE *fs =
      bg_lab_tsv(lab, "summary.tsv", "the claimed quantities at rest (window at each run's end)",
                 "quantity\tvalue\tunit");
  double e = mass_error(scs, 0);
  fprintf(fs, "mass_max_rel_error\t%.6g\t1\n", e);
  if (jelly) {
    const mx_scene *sc = jelly;
    size_t i0 = window_start(sc, o->window);
    double M = sc->rho0[MX_SAND] * sc->V_fed[MX_SAND] + sc->rho0[MX_OTHER] * sc->V_fed[MX_OTHER];
    norm[0] = M * sc->g;
    double Fz = -window_force(sc, i0, 1, 2);
    /* the bed's and the block's heights from their fed volumes over the areas they fill */
    double h_bed = sc->V_fed[MX_SAND] / ((o->bed_w - 2 * sc->z_floor) * sc->ly);
    double h_blk = sc->V_fed[MX_OTHER] / (o->block * sc->ly);
    double z_rest = sc->z_floor + h_bed + 0.5 * h_blk, z = 0, za = 0, hb = 0, Jm = 0;
    double Jlo = INFINITY, Jhi = -INFINITY;
    for (size_t i = i0; i < sc->n_samples; ++i) {
      z += sc->s[i].com_z;
      za += sc->s[i].all_com_z;
      /* the extent of the particles plus half a particle spacing (dx / 4) at either face */
      hb += sc->s[i].z_max - sc->s[i].z_min + 0.5 * sc->dx;
      Jm += sc->s[i].J_mean;
      Jlo = fmin(Jlo, sc->s[i].J_min);
      Jhi = fmax(Jhi, sc->s[i].J_max);
    }
    z /= (double)(sc->n_samples - i0);
    za /= (double)(sc->n_samples - i0);
    hb /= (double)(sc->n_samples - i0);
    Jm /= (double)(sc->n_samples - i0);
    fprintf(fs, "jelly_floor_Fz\t%.6g\tN\n", Fz);
    fprintf(fs, "jelly_weight_fed\t%.6g\tN\n", norm[0]);
    fprintf(fs, "jelly_com_z\t%.6g\tm\n", z);
    fprintf(fs, "jelly_com_z_fed\t%.6g\tm\n", z_rest);
    fprintf(fs, "jelly_contact_gap_cells\t%.4g\t1\n", (z - z_rest) / sc->dx);
    fprintf(fs, "jelly_block_height\t%.6g\tm\n", hb);
    fprintf(fs, "jelly_block_height_fed\t%.6g\tm\n", h_blk);
    fprintf(fs, "jelly_J_mean\t%.7g\t1\n", Jm);
    fprintf(fs, "jelly_J_min\t%.7g\t1\n", Jlo);
    fprintf(fs, "jelly_J_max\t%.7g\t1\n", Jhi);
    fprintf(fs, "jelly_steps\t%.0f\t1\n", sc->steps);
    fprintf(fs, "jelly_particles\t%zu\t1\n", sc->n_particles);
    bg_lab_claim_fed(lab, "mixed.jelly.floor_load", Fz, norm[0]);
    /* in cells: the contact's reach, the tolerance's reason, is a number of cells */
    bg_lab_claim_fed(lab, "mixed.jelly.rest_height", z / sc->dx, z_rest / sc->dx);
    bg_lab_claim_mutant_fed(lab, "rest-height-all", "mixed.jelly.rest_height", za / sc->dx,
                            z_rest / sc->dx);
    bg_lab_claim_fed(lab, "mixed.jelly.block_height", hb, h_blk);
  }
  if (dam) {
    const mx_scene *sc = dam;
    size_t i0 = window_start(sc, o->window);
    double h = mx_water_depth(o, sc);
    norm[1] = 0.5 * sc->rho0[MX_OTHER] * sc->g * h * h * sc->ly;
    double Fx = window_force(sc, i0, 1, 0), Fl = -window_force(sc, i0, 0, 0);
    fprintf(fs, "dam_water_depth_fed\t%.6g\tm\n", h);
    fprintf(fs, "dam_floor_Fx\t%.6g\tN\n", Fx);
    fprintf(fs, "dam_left_wall_Fx\t%.6g\tN\n", Fl);
    fprintf(fs, "dam_thrust_fed\t%.6g\tN\n", norm[1]);
    fprintf(fs, "dam_sand_com_x_shift\t%.6g\tm\n",
            sc->s[sc->n_samples - 1].sand_com_x - sc->s[0].sand_com_x);
    fprintf(fs, "dam_steps\t%.0f\t1\n", sc->steps);
    fprintf(fs, "dam_particles\t%zu\t1\n", sc->n_particles);
    bg_lab_claim_fed(lab, "mixed.dam.thrust", Fx, norm[1]);
    bg_lab_claim_mutant_fed(lab, "thrust-full-column", "mixed.dam.thrust", Fx, 2 * norm[1]);
  }
  fclose(fs);
  if (jelly && dam) {
    bg_lab_claim(lab, "mixed.mass", e);
    bg_lab_claim_mutant(lab, "mass-index-swap", "mixed.mass", mass_error(scs, 1));
  }
  write_series(lab, scs, norm);
  write_snapshots(lab, scs);
}
