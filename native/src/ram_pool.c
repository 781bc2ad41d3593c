/*
 * The RAM pool (see ram.h): page-aligned chunks, carved into equal slots per size,
 * page-locked by the backend when it can.
 *
 * Why chunks and slots: page-locking costs a system call and a device mapping per
 * region, so it is done once per chunk, not once per RAM copy; the experts of a model
 * all have one size, so a slot freed by one is exactly what the next load needs.
 * Chunks start at POOL_FIRST_CHUNK and double up to POOL_MAX_CHUNK, so a tiny model
 * pins a few MiB, a 16 GiB one registers 260 chunks, and the last chunk's unused tail
 * (host memory beyond the model) is below POOL_MAX_CHUNK.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ram.h"

#define POOL_PAGE ((size_t)4096)
#define POOL_FIRST_CHUNK ((size_t)4 << 20)
#define POOL_MAX_CHUNK ((size_t)64 << 20)

static int pin_from_env(void) {
  const char *v = getenv("TIERLAB_PIN");
  return v == NULL || strcmp(v, "0") != 0;
}

void tl_ram_pool_init(tl_ram_pool *pool, const tl_backend_ops *ops, tl_backend *be) {
  memset(pool, 0, sizeof *pool);
  pthread_mutex_init(&pool->mu, NULL);
  pool->ops = ops;
  pool->be = be;
  pool->pin = pin_from_env() && ops->host_register != NULL;
}

static tl_ram_slab *slab_for(tl_ram_pool *pool, size_t slot_bytes) {
  for (int i = 0; i < pool->nslabs; i++) {
    if (pool->slabs[i].slot_bytes == slot_bytes) return &pool->slabs[i];
  }
  if (pool->nslabs == pool->cap_slabs) {
    int n = pool->cap_slabs > 0 ? pool->cap_slabs * 2 : 4;
    tl_ram_slab *s = realloc(pool->slabs, (size_t)n * sizeof *s);
    if (s == NULL) return NULL;
    pool->slabs = s;
    pool->cap_slabs = n;
  }
  tl_ram_slab *s = &pool->slabs[pool->nslabs++];
  memset(s, 0, sizeof *s);
  s->slot_bytes = slot_bytes;
  s->next_chunk_bytes = POOL_FIRST_CHUNK;
  return s;
}

/* A new chunk of whole slots, registered with the backend when it can; its slots go on
 * the free stack (lowest address on top). */
static int add_chunk(tl_ram_pool *pool, tl_ram_slab *s, char *err, size_t cap) {
  size_t per = s->next_chunk_bytes / s->slot_bytes;
  if (per < 1) per = 1;
  const size_t bytes = per * s->slot_bytes;
  if (s->next_chunk_bytes < POOL_MAX_CHUNK) s->next_chunk_bytes *= 2;
  if (s->nchunks == s->cap_chunks) {
    int n = s->cap_chunks > 0 ? s->cap_chunks * 2 : 8;
    tl_ram_chunk **c = realloc(s->chunks, (size_t)n * sizeof *c);
    if (c == NULL) return tl_fail(err, cap, TL_E_OOM, "RAM pool: host out of memory");
    s->chunks = c;
    s->cap_chunks = n;
  }
  /* room on the free stack first, for every slot ever cut and not only the free ones:
   * a chunk is added while slots are held, and they all come back */
  while (s->cap_free < s->ncut + per) {
    size_t n = s->cap_free > 0 ? s->cap_free * 2 : 16;
    tl_ram_slot *f = realloc(s->free_slots, n * sizeof *f);
    if (f == NULL) return tl_fail(err, cap, TL_E_OOM, "RAM pool: host out of memory");
    s->free_slots = f;
    s->cap_free = n;
  }
  tl_ram_chunk *c = calloc(1, sizeof *c);
  if (c == NULL) return tl_fail(err, cap, TL_E_OOM, "RAM pool: host out of memory");
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    free(c);
    return tl_fail(err, cap, TL_E_OOM, "RAM pool: cannot map %zu bytes of host memory", bytes);
  }
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* fewer faults and TLB misses; only a hint */
  c->base = p;
  c->bytes = bytes;
  if (pool->pin) {
    char why[160];
    if (pool->ops->host_register(pool->be, p, bytes, &c->pin, why, sizeof why) != TL_OK) {
      c->pin = NULL; /* stays pageable: uploads from it take the staging path */
    }
  }
  s->chunks[s->nchunks++] = c;
  s->ncut += per;
  pool->host_bytes += bytes;
  if (c->pin != NULL) pool->pinned_bytes += bytes;
  for (size_t i = per; i-- > 0;) {
    s->free_slots[s->nfree++] = (tl_ram_slot){c->base + i * s->slot_bytes, c};
  }
  return TL_OK;
}

int tl_ram_pool_get(tl_ram_pool *pool, size_t bytes, tl_ram_slot *out, size_t *slot_bytes,
                    char *err, size_t cap) {
  const size_t want = (bytes + POOL_PAGE - 1) / POOL_PAGE * POOL_PAGE;
  pthread_mutex_lock(&pool->mu);
  int rc = TL_OK;
  tl_ram_slab *s = slab_for(pool, want);
  if (s == NULL) {
    rc = tl_fail(err, cap, TL_E_OOM, "RAM pool: host out of memory");
  } else if (s->nfree == 0) {
    rc = add_chunk(pool, s, err, cap);
  }
  if (rc == TL_OK) {
    *out = s->free_slots[--s->nfree];
    *slot_bytes = want;
  }
  pthread_mutex_unlock(&pool->mu);
  return rc;
}

void tl_ram_pool_put(tl_ram_pool *pool, tl_ram_slot slot, size_t slot_bytes) {
  pthread_mutex_lock(&pool->mu);
  tl_ram_slab *s = slab_for(pool, slot_bytes);
  /* the slab exists and its stack has room for every slot it ever cut (add_chunk) */
  if (s != NULL && s->nfree < s->cap_free) s->free_slots[s->nfree++] = slot;
  pthread_mutex_unlock(&pool->mu);
}

void tl_ram_pool_stats(tl_ram_pool *pool, uint64_t *host_bytes, uint64_t *pinned_bytes) {
  pthread_mutex_lock(&pool->mu);
  *host_bytes = pool->host_bytes;
  *pinned_bytes = pool->pinned_bytes;
  pthread_mutex_unlock(&pool->mu);
}

void tl_ram_pool_destroy(tl_ram_pool *pool) {
  for (int i = 0; i < pool->nslabs; i++) {
    tl_ram_slab *s = &pool->slabs[i];
    for (int k = 0; k < s->nchunks; k++) {
      tl_ram_chunk *c = s->chunks[k];
      if (c->pin != NULL) pool->ops->host_unregister(pool->be, c->pin);
      munmap(c->base, c->bytes);
      free(c);
    }
    free(s->chunks);
    free(s->free_slots);
  }
  free(pool->slabs);
  pthread_mutex_destroy(&pool->mu);
  memset(pool, 0, sizeof *pool);
}
