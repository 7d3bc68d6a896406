/* lab_sim.c: per-simulation services (see bg_lab.h): ParaView frames,
 * checkpoints and resume, and progress on stderr. */
#define _GNU_SOURCE /* strdup, flockfile */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab_internal.h"

void bg_lab_progress(bg_lab *lab, const char *fmt, ...) {
  if (lab->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  /* one line at a time when experiments run simulations side by side */
  flockfile(stderr);
  fprintf(stderr, "[%s %7.1fs] ", lab->name, lab_now() - lab->t0);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  funlockfile(stderr);
  va_end(ap);
}

/* Per simulation (by tag): where the last progress line left it. */
typedef struct progress_mark {
  char tag[64];
  double wall, t, work;
} progress_mark;

void bg_lab_progress_sim(bg_lab *lab, const char *tag, double t, double t_total,
                         double particle_steps) {
  if (lab->quiet) return;
  static progress_mark marks[64];
  static int n_marks;
  double now = lab_now();
#ifdef _OPENMP
#pragma omp critical(bg_lab_progress)
#endif
  {
    progress_mark *m = NULL;
    for (int i = 0; i < n_marks && !m; ++i)
      if (!strncmp(marks[i].tag, tag, sizeof marks[i].tag - 1)) m = &marks[i];
    if (!m && n_marks < 64) {
      m = &marks[n_marks++];
      snprintf(m->tag, sizeof m->tag, "%s", tag);
      m->wall = now;
      m->t = t;
      m->work = particle_steps;
    } else if (m && now - m->wall >= lab->progress_every) {
      double dw = now - m->wall, rate = (particle_steps - m->work) / dw, speed = (t - m->t) / dw;
      double left = speed > 0 ? (t_total - t) / speed : INFINITY;
      char eta[32];
      if (!isfinite(left))
        snprintf(eta, sizeof eta, "unknown");
      else if (left >= 3600)
        snprintf(eta, sizeof eta, "%dh%02dm", (int)(left / 3600), (int)fmod(left / 60, 60));
      else
        snprintf(eta, sizeof eta, "%dm%02ds", (int)(left / 60), (int)fmod(left, 60));
      bg_lab_progress(
          lab, "%s: t %.3f of %.3g s simulated (%.0f%%), %.3g M particle-steps/s, at most %s left",
          tag, t, t_total, t_total > 0 ? 100 * t / t_total : 0.0, rate * 1e-6, eta);
      m->wall = now;
      m->t = t;
      m->work = particle_steps;
    }
  }
}

void bg_lab_blob_put(bg_lab_blob *b, const void *p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    unsigned char *d = realloc(b->data, cap);
    if (!d) lab_die("out of memory for a checkpoint's loop state (%zu bytes)", cap);
    b->data = d;
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
}

void bg_lab_blob_get(bg_lab_blob *b, void *p, size_t n) {
  /* a checkpoint of another build of the loop: its state cannot be read */
  if (n > b->len - b->pos)
    lab_die(
        "a checkpoint's loop state ends after %zu bytes, %zu more were expected (written by "
        "another version of "
        "this experiment?)",
        b->len, b->pos + n - b->len);
  memcpy(p, b->data + b->pos, n);
  b->pos += n;
}

void bg_lab_blob_free(bg_lab_blob *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* The harness's part of every checkpoint's user blob, before the loop's. */
#define LAB_CKPT_MAGIC "bglab-1"
typedef struct lab_ckpt_head {
  char magic[8];
  uint32_t finished;  /* the loop had ended: a resumed run skips it */
  uint32_t has_frame; /* a frame was written; last_frame_t is its time */
  uint64_t next_k;    /* the next frame is due at next_k * --vtk-every */
  double last_frame_t;
} lab_ckpt_head;

struct bg_lab_sim {
  bg_lab *lab;
  bg_sim *sim;
  char name[128]; /* the tag as a file name */
  char tag[128];
  bg_pvd *pvd;
  lab_ckpt_head head;
  int restored_finished;
  double last_save; /* wall clock of the last checkpoint (or the start) */
};

/* A tag as a file name: letters, digits, '.', '-' kept, runs of anything
 * else become one '_' ("a 0.5 (1/4)" -> "a_0.5_1_4"). */
static void tag_file_name(const char *tag, char *out, size_t n) {
  size_t k = 0;
  for (const char *c = tag; *c && k + 1 < n; ++c) {
    int keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
               *c == '.' || *c == '-';
    if (keep)
      out[k++] = *c;
    else if (k && out[k - 1] != '_')
      out[k++] = '_';
  }
  while (k && out[k - 1] == '_') k--;
  out[k] = 0;
  if (!k) snprintf(out, n, "sim");
}

/* Two simulations of one run must not share a file name: checkpoints and
 * frames would overwrite each other (called inside --jobs regions). */
static void register_tag(bg_lab *lab, const char *name, const char *tag) {
  int clash = -1;
#ifdef _OPENMP
#pragma omp critical(bg_lab_tags)
#endif
  {
    for (int i = 0; i < lab->n_sim_tags && clash < 0; ++i)
      if (!strcmp(lab->sim_tags[2 * i], name)) clash = i;
    if (clash < 0 && lab->n_sim_tags < MAX_SIM_TAGS) {
      lab->sim_tags[2 * lab->n_sim_tags] = strdup(name);
      lab->sim_tags[2 * lab->n_sim_tags + 1] = strdup(tag);
      lab->n_sim_tags++;
    }
  }
  if (clash >= 0)
    lab_die(
        "two simulations of this run have the file name %s (tags '%s' and '%s'): their checkpoints "
        "and frames "
        "would collide",
        name, lab->sim_tags[2 * clash + 1], tag);
}

static void lab_sim_frame(bg_lab_sim *ls) {
  bg_status s = bg_pvd_frame(ls->pvd, ls->sim);
  if (s != BG_OK)
    lab_die("%s: writing a VTU frame: %s (%s)", ls->tag, bg_status_name(s),
            bg_pvd_last_error(ls->pvd));
  bg_stats st;
  bg_sim_stats(ls->sim, &st);
  ls->head.has_frame = 1;
  ls->head.last_frame_t = st.time;
  ls->head.next_k = (uint64_t)floor(st.time / ls->lab->vtk_every) + 1;
}

static void lab_sim_frames_due(bg_lab_sim *ls) {
  if (!ls->pvd) return;
  bg_stats st;
  bg_sim_stats(ls->sim, &st);
  if (st.time >= (double)ls->head.next_k * ls->lab->vtk_every) lab_sim_frame(ls);
}

static void lab_sim_save(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx) {
  char dir[1200], path[1400];
  snprintf(dir, sizeof dir, "%s/checkpoints", ls->lab->out);
  if (lab_make_dirs(dir) != 0) lab_die("cannot create %s: %s", dir, strerror(errno));
  snprintf(path, sizeof path, "%s/%s.bgck", dir, ls->name);
  bg_lab_blob b = {0};
  bg_lab_blob_put(&b, &ls->head, sizeof ls->head);
  if (pack) pack(ctx, &b);
  bg_status s = bg_sim_save(ls->sim, path, b.data, b.len);
  bg_lab_blob_free(&b);
  if (s != BG_OK)
    lab_die("%s: checkpoint %s: %s (%s)", ls->tag, path, bg_status_name(s),
            bg_sim_last_error(ls->sim));
  ls->last_save = lab_now();
}

/* tag's checkpoint in the --resume folder into sim; 0 when there is none */
static int lab_sim_restore(bg_lab_sim *ls, bg_lab_blob *state) {
  char path[1400];
  snprintf(path, sizeof path, "%s/checkpoints/%s.bgck", ls->lab->resume, ls->name);
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) return 0; /* this simulation had not checkpointed: from scratch */
    lab_die("--resume: %s: %s", path, strerror(errno));
  }
  /* the blob cannot be larger than the file that holds it */
  size_t cap = (size_t)st.st_size, len = 0;
  unsigned char *buf = malloc(cap ? cap : 1);
  if (!buf) lab_die("out of memory reading %s", path);
  bg_status s = bg_sim_restore(ls->sim, path, buf, cap, &len);
  if (s != BG_OK)
    lab_die("--resume: %s: %s (%s)", path, bg_status_name(s), bg_sim_last_error(ls->sim));
  if (len < sizeof ls->head || memcmp(buf, LAB_CKPT_MAGIC, sizeof LAB_CKPT_MAGIC))
    lab_die("--resume: %s holds no loop state of this harness (%zu bytes of user data)", path, len);
  memcpy(&ls->head, buf, sizeof ls->head);
  state->data = buf;
  state->len = len;
  state->cap = cap;
  state->pos = sizeof ls->head;
  return 1;
}
bg_lab_sim *bg_lab_sim_begin(bg_lab *lab, bg_sim *sim, const char *tag, bg_lab_blob *state,
                             int *finished) {
  lab_need_sweep(lab);
  bg_lab_sim *ls = calloc(1, sizeof *ls);
  if (!ls) lab_die("out of memory");
  ls->lab = lab;
  ls->sim = sim;
  snprintf(ls->tag, sizeof ls->tag, "%s", tag);
  /* the manifest records the backend the simulations say they run on */
  bglab_backend_note(lab, sim);
  /* damping changes the physics: the manifest says whether any simulation had it */
  bg_sim_desc desc;
  if (bg_sim_describe(sim, &desc) == BG_OK) {
#ifdef _OPENMP
#pragma omp critical(bg_lab_damping)
#endif
    if (desc.damping > lab->damping) lab->damping = desc.damping;
  }
  tag_file_name(tag, ls->name, sizeof ls->name);
  memcpy(ls->head.magic, LAB_CKPT_MAGIC, sizeof LAB_CKPT_MAGIC);
  memset(state, 0, sizeof *state);
  *finished = 0;
  if (lab->vtk_every > 0 || lab->ckpt_every > 0 || lab->resume[0]) register_tag(lab, ls->name, tag);
  int restored = lab->resume[0] && lab_sim_restore(ls, state);
  if (restored) {
    *finished = ls->restored_finished = ls->head.finished != 0;
    bg_stats st;
    bg_sim_stats(sim, &st);
    bg_lab_progress(lab, "%s: resumed from %s/checkpoints/%s.bgck at t %.4g s, step %llu%s", tag,
                    lab->resume, ls->name, st.time, (unsigned long long)st.step,
                    *finished ? " (finished: not run again)" : "");
  }
  if (lab->vtk_every > 0 && !ls->restored_finished) {
    char dir[1200], file[300];
    snprintf(dir, sizeof dir, "%s/vtk", lab->out);
    bg_status s = bg_pvd_open(dir, ls->name, lab->resume[0] ? 1 : 0, &ls->pvd);
    if (s != BG_OK)
      lab_die("%s: opening the series %s/%s.pvd: %s", tag, dir, ls->name, bg_pvd_last_error(NULL));
    snprintf(file, sizeof file, "vtk/%s.pvd", ls->name);
#ifdef _OPENMP
#pragma omp critical(bg_lab_files)
#endif
    lab_add_file(lab, file);
    if (!restored) lab_sim_frame(ls); /* the initial state */
  }
  ls->last_save = lab_now();
  return ls;
}

void bg_lab_sim_tick(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx) {
  lab_sim_frames_due(ls);
  if (ls->lab->ckpt_every > 0 && lab_now() - ls->last_save >= ls->lab->ckpt_every)
    lab_sim_save(ls, pack, ctx);
}

void bg_lab_sim_end(bg_lab_sim *ls, bg_lab_pack_fn pack, void *ctx) {
  /* a step the fluidity's explicit bound chose is reported, never silent */
  bg_stats ss;
  if (bg_sim_stats(ls->sim, &ss) == BG_OK && ss.step > 0) {
    double share = (double)ss.steps_nonlocal_dt / (double)ss.step;
#ifdef _OPENMP
#pragma omp critical(bg_lab_dt)
#endif
    {
      ls->lab->steps_all += (double)ss.step;
      ls->lab->steps_nonlocal += (double)ss.steps_nonlocal_dt;
      if (share > ls->lab->nonlocal_share_max) ls->lab->nonlocal_share_max = share;
    }
    if (ss.steps_nonlocal_dt > 0)
      bg_lab_progress(ls->lab,
                      "%s: the nonlocal model's step bound set dt in %llu of %llu steps (%.0f%%; "
                      "bound/CFL %.2f at the end)",
                      ls->tag, (unsigned long long)ss.steps_nonlocal_dt,
                      (unsigned long long)ss.step, 100 * share, (double)ss.nonlocal_dt_ratio);
  }
  if (ls->pvd) {
    bg_stats st;
    bg_sim_stats(ls->sim, &st);
    if (!ls->head.has_frame || ls->head.last_frame_t != st.time)
      lab_sim_frame(ls); /* the final state */
    bg_pvd_close(ls->pvd);
  }
  /* the final checkpoint marks the simulation finished; one restored as
   * finished into its own folder is there already */
  ls->head.finished = 1;
  if (ls->lab->ckpt_every > 0 && !(ls->restored_finished && ls->lab->resume_inplace))
    lab_sim_save(ls, pack, ctx);
  free(ls);
}
