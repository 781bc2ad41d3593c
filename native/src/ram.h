/*
 * RAM copies of the experts: the engine's host memory for them (the pool) and the
 * counted objects handed out over the ABI (tl_ram, tl_staging).
 *
 * Role: the bytes every upload and every CPU expert reads live here, in page-aligned
 * chunks that the backend may page-lock once (host_register), carved into equal slots
 * per size. Invariants:
 *   - a tl_ram's bytes are one slot; they go back to the pool when its count drops to
 *     0: the handle (until tl_ram_free), each staging reference, each upload in flight
 *     and each CPU expert running hold one count each (all under the engine's mu);
 *   - the handle set (eng->rams) holds live handles only: a freed handle is refused
 *     even while its bytes are still held;
 *   - chunks are never given back before the engine is destroyed: a freed slot is reused
 *     by the next RAM copy of its size, so host memory is bounded by the most RAM copies
 *     ever held at once (the model, plus what the ring keeps staged);
 *   - a RAM copy never changes after its load returned (readers need no lock).
 * Lock order: eng->mu, then pool->mu (never the other way).
 */
#ifndef TIERLAB_RAM_H
#define TIERLAB_RAM_H

#include <pthread.h>

#include "backend.h"
#include "ptrset.h"

/* One tensor inside a RAM copy: its shape and where its bytes are in the slot. */
typedef struct tl_ram_part {
  int fmt, rows, cols, group;
  size_t data_at, data_bytes;
  size_t scales_at, nscales;
} tl_ram_part;

typedef struct tl_ram_chunk {
  unsigned char *base;
  size_t bytes;
  void *pin; /* the backend's registration, or NULL: pageable */
} tl_ram_chunk;

struct tl_ram {
  unsigned char *slot;
  size_t slot_bytes;
  tl_ram_chunk *chunk;
  int refs; /* eng->mu */
  int nparts;
  tl_ram_part parts[TL_MAX_PARTS];
};

struct tl_staging {
  tl_ram *ram; /* one count of it */
};

typedef struct tl_ram_slot {
  unsigned char *p;
  tl_ram_chunk *chunk;
} tl_ram_slot;

/* Slots of one size, and the chunks they are cut from. */
typedef struct tl_ram_slab {
  size_t slot_bytes;
  size_t next_chunk_bytes; /* chunks grow: small models stay small */
  tl_ram_chunk **chunks;
  int nchunks, cap_chunks;
  tl_ram_slot *free_slots;
  size_t nfree, cap_free;
  size_t ncut; /* slots cut from all chunks: the free stack must hold them all */
} tl_ram_slab;

typedef struct tl_ram_pool {
  pthread_mutex_t mu;
  const tl_backend_ops *ops;
  tl_backend *be;
  int pin; /* ask the backend to page-lock chunks (TIERLAB_PIN=0 turns it off) */
  tl_ram_slab *slabs;
  int nslabs, cap_slabs;
  uint64_t host_bytes, pinned_bytes;
} tl_ram_pool;

void tl_ram_pool_init(tl_ram_pool *pool, const tl_backend_ops *ops, tl_backend *be);
/* A free slot of at least `bytes` (rounded to whole pages), from a new chunk if needed. */
int tl_ram_pool_get(tl_ram_pool *pool, size_t bytes, tl_ram_slot *out, size_t *slot_bytes,
                    char *err, size_t cap);
void tl_ram_pool_put(tl_ram_pool *pool, tl_ram_slot slot, size_t slot_bytes);
void tl_ram_pool_stats(tl_ram_pool *pool, uint64_t *host_bytes, uint64_t *pinned_bytes);
/* Unregisters and unmaps every chunk (no slot may be in use any more). */
void tl_ram_pool_destroy(tl_ram_pool *pool);

/* ram.c, with eng->mu held: one count more / less; the last one returns the slot to the
 * pool and frees the object. */
void tl_ram_ref_locked(tl_ram *ram);
void tl_ram_unref_locked(tl_engine *eng, tl_ram *ram);
/* With mu held: validates a handle of `set` (rams or stagings) and removes it; `what`
 * names it in the message. */
int tl_ram_take_handle(tl_ptrset *set, void *h, const char *fn, const char *what, char *err,
                       size_t cap);
/* What an upload of part p reads (the part exists). */
tl_host_src tl_ram_src(const tl_ram *ram, int p);
/* Engine destroy: drops every staging reference and live handle (no call in progress,
 * no upload in flight), then the pool. */
void tl_ram_release_all(tl_engine *eng);

#endif
