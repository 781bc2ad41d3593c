/*
 * Format 8's e4m3 table and its input check (see e4m3.c and native/MATH.md).
 */
#ifndef TIERLAB_E4M3_H
#define TIERLAB_E4M3_H

#include <stddef.h>
#include <stdint.h>

#define TL_E4M3_ENTRIES 256

/* tl_e4m3_table[b]: the value of e4m3 byte b (NaN for 0x7f and 0xff). */
extern const float tl_e4m3_table[TL_E4M3_ENTRIES];

/* Index of the first NaN encoding (S.1111.111) in w[0..n), or -1. */
long tl_first_fp8_nan(const uint8_t *w, size_t n);

#endif
