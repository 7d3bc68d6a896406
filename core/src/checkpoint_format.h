/* checkpoint_format.h: what the checkpoint writer and reader must agree on
 * (the file layout is described at the top of checkpoint.c). */
#ifndef BG_CHECKPOINT_FORMAT_H
#define BG_CHECKPOINT_FORMAT_H

#include <stdint.h>

#include "bg_internal.h"

static const char BG_CKPT_MAGIC[8] = {'B', 'G', 'C', 'K', 'P', 'T', '\r', '\n'};

/* What must match between writer and reader for the raw bytes to mean the
 * same: float width, the particle layout, the plastic state's length and
 * the material struct (whose union the registry defines). */
enum { LAYOUT_WORDS = 6 };
static inline void layout_words(uint32_t w[LAYOUT_WORDS]) {
  w[0] = 0x01020304u; /* byte order */
  w[1] = (uint32_t)sizeof(bg_real);
  w[2] = BG_RAW_NF;
  w[3] = BG_NSTATE;
  w[4] = (uint32_t)sizeof(bg_material);
  w[5] = BG_FACE_COUNT;
}

#define HEADER_BYTES (8 + 4 + 4 * LAYOUT_WORDS + 8)

/* Everything a checkpoint holds, parsed. */
typedef struct ckpt {
  bg_sim_desc desc;
  char backend[64];     /* the backend that wrote it ("" before version 2) */
  char properties[BG_MAX_PROPERTIES * (2 * BG_PROPERTY_LEN + 2)]; /* its resolved properties */
  bg_collider *colliders;
  bg_sink *sinks;
  bg_material *materials; /* the table (version 3; before it, the table is {material}) */
  bg_src *sources;        /* version 4; none before it */
  size_t n_sources;
  bg_body *bodies;        /* version 5; none before it */
  bg_rbody *bstate;       /* each one's state (mass and inertia not stored) */
  double *bwall;          /* each one's force, then impulse (6 doubles) */
  uint64_t step;
  double time;
  bg_real last_dt;
  bg_raw raw;
  int n_sinks;
  double *wall; /* 3 per collider and face: the last step's force, then the impulse sum */
  size_t user_len;
  unsigned char *user;
} ckpt;

/* checkpoint_apply.c: the first descriptor field in which a parsed
 * checkpoint differs from sim (NULL: none; buf holds the text where one is
 * composed), and the move of a parsed checkpoint into sim. */
const char *bg_ckpt_mismatch(const bg_sim *sim, const ckpt *c, char *buf, size_t len);
bg_status bg_ckpt_apply(bg_sim *sim, ckpt *c);

#endif /* BG_CHECKPOINT_FORMAT_H */
