/* bg_sha256.h: SHA-256 (FIPS 180-4), incremental: the
 * checksum that closes a checkpoint, and the hash every run records of the
 * claims table and mutant registry that judged it. */
#ifndef BG_SHA256_H
#define BG_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct bg_sha256 {
  uint32_t h[8];
  uint64_t bits;
  unsigned char buf[64];
  size_t fill;
} bg_sha256;

void bg_sha256_init(bg_sha256 *c);
void bg_sha256_update(bg_sha256 *c, const void *data, size_t n);
/* The 32-byte digest; c must be initialised again before reuse. */
void bg_sha256_final(bg_sha256 *c, unsigned char out[32]);

/* The hex digests of bytes and of a file are public: bg_sha256_hex and
 * bg_sha256_file_hex in bagnold.h. */

#endif /* BG_SHA256_H */
