/*
 * A strict JSON checker for the event log tests: one value per call, no extensions
 * (RFC 8259: objects, arrays, strings with escapes, numbers, true, false, null).
 */
#ifndef TT_JSON_CHECK_H
#define TT_JSON_CHECK_H

#include <stddef.h>

/* 1 when text[0..n) is exactly one JSON object (surrounding spaces allowed), else 0. */
int jc_is_object(const char *text, size_t n);
/* The integer value of top-level key `key` in a valid object line; 0 and *found = 0
 * when absent. */
long long jc_int_field(const char *text, const char *key, int *found);

#endif
