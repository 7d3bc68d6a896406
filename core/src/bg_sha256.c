/* bg_sha256.c: SHA-256 (FIPS 180-4), see bg_sha256.h; the hex digests are
 * public (bagnold.h). */
#include "bg_sha256.h"

#include "bagnold.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void block(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           p[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void bg_sha256_init(bg_sha256 *c) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, h0, sizeof h0);
  c->bits = 0;
  c->fill = 0;
}

void bg_sha256_update(bg_sha256 *c, const void *data, size_t n) {
  const unsigned char *p = data;
  c->bits += 8 * (uint64_t)n;
  if (c->fill) {
    size_t take = 64 - c->fill < n ? 64 - c->fill : n;
    memcpy(c->buf + c->fill, p, take);
    c->fill += take;
    p += take;
    n -= take;
    if (c->fill < 64) return;
    block(c->h, c->buf);
    c->fill = 0;
  }
  for (; n >= 64; p += 64, n -= 64) block(c->h, p);
  memcpy(c->buf, p, n);
  c->fill = n;
}

void bg_sha256_final(bg_sha256 *c, unsigned char out[32]) {
  /* the last, padded block or two: 0x80, zeros, the length in bits */
  unsigned char pad[128];
  size_t n = c->fill;
  memset(pad, 0, sizeof pad);
  memcpy(pad, c->buf, n);
  pad[n] = 0x80;
  size_t len = n + 1 + 8 <= 64 ? 64 : 128;
  for (int i = 0; i < 8; ++i) pad[len - 1 - i] = (unsigned char)(c->bits >> (8 * i));
  block(c->h, pad);
  if (len == 128) block(c->h, pad + 64);
  for (int i = 0; i < 8; ++i)
    for (int b = 0; b < 4; ++b) out[4 * i + b] = (unsigned char)(c->h[i] >> (24 - 8 * b));
}

static void to_hex(const unsigned char d[32], char hex[65]) {
  for (int i = 0; i < 32; ++i) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

void bg_sha256_hex(const void *data, size_t n, char hex[65]) {
  bg_sha256 c;
  unsigned char d[32];
  bg_sha256_init(&c);
  bg_sha256_update(&c, data, n);
  bg_sha256_final(&c, d);
  to_hex(d, hex);
}

bg_status bg_sha256_file_hex(const char *path, char hex[65]) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return BG_ERR_IO;
  bg_sha256 c;
  bg_sha256_init(&c);
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, fp)) > 0) bg_sha256_update(&c, buf, n);
  int bad = ferror(fp);
  fclose(fp);
  if (bad) return BG_ERR_IO;
  unsigned char d[32];
  bg_sha256_final(&c, d);
  to_hex(d, hex);
  return BG_OK;
}
