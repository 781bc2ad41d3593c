/*
 * Pointer set implementation (see ptrset.h for the invariants).
 * Why tombstones: removal must not break probe chains of other members, and the sets
 * are small (hundreds to a few thousand tensors). A rehash leaves the table at most a
 * quarter full, so upload/free churn rehashes rarely (amortised O(1)).
 */
#include "ptrset.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(const void *p, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull; /* a 64-bit mixer: allocator addresses share low bits */
  h ^= h >> 33;
  return (size_t)h & (cap - 1);
}

int tl_ptrset_has(const tl_ptrset *s, const void *p) {
  if (s->cap == 0 || p == NULL || p == TL_PTRSET_TOMB) return 0;
  for (size_t i = slot_of(p, s->cap), n = 0; n < s->cap; n++, i = (i + 1) & (s->cap - 1)) {
    if (s->slots[i] == NULL) return 0;
    if (s->slots[i] == p) return 1;
  }
  return 0;
}

static void put(void **slots, size_t cap, void *p) {
  size_t i = slot_of(p, cap);
  while (slots[i] != NULL) i = (i + 1) & (cap - 1);
  slots[i] = p;
}

static int rehash(tl_ptrset *s, size_t want) {
  size_t cap = 16;
  while (cap < want * 2) cap *= 2;
  void **slots = calloc(cap, sizeof(void *));
  if (slots == NULL) return -1;
  for (size_t i = 0; i < s->cap; i++) {
    void *p = s->slots[i];
    if (p != NULL && p != TL_PTRSET_TOMB) put(slots, cap, p);
  }
  free(s->slots);
  s->slots = slots;
  s->cap = cap;
  s->tombs = 0;
  return 0;
}

int tl_ptrset_add(tl_ptrset *s, void *p) {
  if (p == NULL || p == TL_PTRSET_TOMB) return -1;
  if (tl_ptrset_has(s, p)) return 0;
  if ((s->count + s->tombs + 1) * 2 > s->cap) {
    if (rehash(s, (s->count + 1) * 2) != 0) return -1; /* load <= 1/4 after */
  }
  size_t i = slot_of(p, s->cap);
  while (s->slots[i] != NULL && s->slots[i] != TL_PTRSET_TOMB) i = (i + 1) & (s->cap - 1);
  if (s->slots[i] == TL_PTRSET_TOMB) s->tombs--;
  s->slots[i] = p;
  s->count++;
  return 0;
}

int tl_ptrset_remove(tl_ptrset *s, const void *p) {
  if (s->cap == 0 || p == NULL || p == TL_PTRSET_TOMB) return 0;
  for (size_t i = slot_of(p, s->cap), n = 0; n < s->cap; n++, i = (i + 1) & (s->cap - 1)) {
    if (s->slots[i] == NULL) return 0;
    if (s->slots[i] == p) {
      s->slots[i] = TL_PTRSET_TOMB;
      s->count--;
      s->tombs++;
      return 1;
    }
  }
  return 0;
}

void tl_ptrset_clear(tl_ptrset *s) {
  free(s->slots);
  s->slots = NULL;
  s->cap = s->count = s->tombs = 0;
}
