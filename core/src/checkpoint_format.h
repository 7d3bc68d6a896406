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

#endif /* BG_CHECKPOINT_FORMAT_H */
