/*
 * A set of pointers (open addressing, linear probing, tombstones).
 *
 * Role: the dispatcher's registries (live engines, live tensors of an engine). A handle
 * is validated by membership *before* it is dereferenced, so a stale or foreign handle
 * is rejected without touching freed memory.
 * Invariants: NULL and TL_PTRSET_TOMB are never members; load (members + tombstones)
 * stays at most half the table; not thread-safe (callers hold their own mutex).
 */
#ifndef TIERLAB_PTRSET_H
#define TIERLAB_PTRSET_H

#include <stddef.h>

typedef struct tl_ptrset {
  void **slots; /* cap entries: NULL (empty), TL_PTRSET_TOMB (deleted) or a member */
  size_t cap; /* 0 or a power of two */
  size_t count; /* members */
  size_t tombs; /* deleted slots not yet reused */
} tl_ptrset;

#define TL_PTRSET_TOMB ((void *)1)

int tl_ptrset_has(const tl_ptrset *s, const void *p);
/* 0 on success (also when already a member), -1 when the table cannot grow. */
int tl_ptrset_add(tl_ptrset *s, void *p);
/* 1 when p was a member and is now removed, 0 when it was not a member. */
int tl_ptrset_remove(tl_ptrset *s, const void *p);
void tl_ptrset_clear(tl_ptrset *s); /* frees the table */

#endif
