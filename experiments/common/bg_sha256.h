/* bg_sha256.h: SHA-256 of a file (FIPS 180-4), so that every run can record
 * exactly which claims table and mutant registry judged it. */
#ifndef BG_SHA256_H
#define BG_SHA256_H

#include <stddef.h>

/* Writes the 64 lowercase hex digits and a NUL into hex (65 bytes) and
 * returns 0; returns -1 (errno set) when the file cannot be read. */
int bg_sha256_file(const char *path, char hex[65]);

#endif /* BG_SHA256_H */
