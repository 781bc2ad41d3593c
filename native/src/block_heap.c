/*
 * A heap of tensor blocks over big chunks (see block_heap.h).
 *
 * Why: allocating every tensor from the system is slow where uploads must be fast. On
 * the host, a fresh page costs a fault and its zeroing at the first write (copying
 * 1.5 MiB tensors into fresh malloc'd memory ran at 0.3-1.8 GB/s on a 2-core VM, against
 * 10 GB/s into memory already touched); on a GPU, cudaMalloc is a driver call per
 * tensor. So chunks are made rarely (growing from HEAP_FIRST_CHUNK to HEAP_CHUNK, or a
 * tensor's size when larger), carved bottom-up, and a freed block is kept for the next
 * tensor of its size (an expert's tensors come in three sizes).
 * Invariants: blocks never overlap (chunks are carved bottom-up, a block is on at most
 * one free list); the heap maps at most `limit` bytes; everything under mu.
 */
#include "block_heap.h"

#include <stdlib.h>
#include <string.h>

#define HEAP_FIRST_CHUNK ((size_t)4 << 20)
#define HEAP_CHUNK ((size_t)64 << 20)
#define HEAP_ALIGN 256 /* what cudaMalloc gives; more than any kernel load needs */

void tl_heap_init(tl_heap *h, uint64_t limit, tl_heap_map map, tl_heap_unmap unmap, void *ctx) {
  memset(h, 0, sizeof *h);
  pthread_mutex_init(&h->mu, NULL);
  h->limit = limit;
  h->map = map;
  h->unmap = unmap;
  h->ctx = ctx;
}

/* With mu held: a new chunk of at least `bytes` (exactly `bytes` when the usual size
 * cannot be had); 0, or -1 when none can be made. */
static int add_chunk(tl_heap *h, size_t bytes) {
  size_t step = HEAP_FIRST_CHUNK << (h->nchunks < 4 ? h->nchunks : 4);
  size_t size = bytes > step ? bytes : step;
  if (size > h->limit - h->mapped) size = (size_t)(h->limit - h->mapped);
  if (size < bytes) return -1;
  if (h->nchunks == h->cap_chunks) {
    int n = h->cap_chunks > 0 ? h->cap_chunks * 2 : 8;
    tl_heap_chunk *c = realloc(h->chunks, (size_t)n * sizeof *c);
    if (c == NULL) return -1;
    h->chunks = c;
    h->cap_chunks = n;
  }
  void *p = h->map(h->ctx, size);
  if (p == NULL && size > bytes) p = h->map(h->ctx, size = bytes);
  if (p == NULL) return -1;
  h->chunks[h->nchunks++] = (tl_heap_chunk){.base = p, .bytes = size, .top = 0};
  h->mapped += size;
  return 0;
}

/* With mu held: bytes the chunks can still hand out (their free tails). */
static uint64_t room(const tl_heap *h) {
  uint64_t free_bytes = 0;
  for (int i = 0; i < h->nchunks; i++) free_bytes += h->chunks[i].bytes - h->chunks[i].top;
  return free_bytes;
}

int tl_heap_reserve(tl_heap *h, uint64_t bytes) {
  pthread_mutex_lock(&h->mu);
  int rc = 0;
  for (uint64_t have = room(h); rc == 0 && have < bytes; have = room(h)) {
    uint64_t left = bytes - have;
    if (add_chunk(h, left < HEAP_CHUNK ? (size_t)left : HEAP_CHUNK) != 0) rc = -1;
  }
  pthread_mutex_unlock(&h->mu);
  return rc;
}

static tl_heap_class *class_of(tl_heap *h, size_t bytes) {
  for (int i = 0; i < h->nclasses; i++) {
    if (h->classes[i].bytes == bytes) return &h->classes[i];
  }
  return NULL;
}

void *tl_heap_alloc(tl_heap *h, size_t bytes) {
  bytes = (bytes + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN;
  void *p = NULL;
  pthread_mutex_lock(&h->mu);
  tl_heap_class *k = class_of(h, bytes);
  if (k != NULL && k->n > 0) {
    p = k->blocks[--k->n];
  }
  for (int i = 0; p == NULL && i < h->nchunks; i++) {
    tl_heap_chunk *c = &h->chunks[i];
    if (c->bytes - c->top >= bytes) {
      p = c->base + c->top;
      c->top += bytes;
    }
  }
  if (p == NULL && add_chunk(h, bytes) == 0) {
    tl_heap_chunk *c = &h->chunks[h->nchunks - 1];
    p = c->base;
    c->top = bytes;
  }
  pthread_mutex_unlock(&h->mu);
  return p;
}

/* A size class for `bytes`, made if needed; NULL when out of host memory. */
static tl_heap_class *class_make(tl_heap *h, size_t bytes) {
  tl_heap_class *k = class_of(h, bytes);
  if (k != NULL) return k;
  if (h->nclasses == h->cap_classes) {
    int n = h->cap_classes > 0 ? h->cap_classes * 2 : 4;
    tl_heap_class *c = realloc(h->classes, (size_t)n * sizeof *c);
    if (c == NULL) return NULL;
    h->classes = c;
    h->cap_classes = n;
  }
  k = &h->classes[h->nclasses++];
  *k = (tl_heap_class){.bytes = bytes};
  return k;
}

void tl_heap_free(tl_heap *h, void *p, size_t bytes) {
  bytes = (bytes + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN;
  pthread_mutex_lock(&h->mu);
  tl_heap_class *k = class_make(h, bytes);
  if (k != NULL && k->n == k->cap) {
    size_t n = k->cap > 0 ? k->cap * 2 : 16;
    void **b = realloc(k->blocks, n * sizeof *b);
    if (b != NULL) {
      k->blocks = b;
      k->cap = n;
    }
  }
  /* without host memory for the free list the block stays unused until shutdown */
  if (k != NULL && k->n < k->cap) k->blocks[k->n++] = p;
  pthread_mutex_unlock(&h->mu);
}

void tl_heap_destroy(tl_heap *h) {
  if (h->map == NULL) return; /* never initialised */
  for (int i = 0; i < h->nchunks; i++) h->unmap(h->ctx, h->chunks[i].base, h->chunks[i].bytes);
  for (int i = 0; i < h->nclasses; i++) free(h->classes[i].blocks);
  free(h->chunks);
  free(h->classes);
  pthread_mutex_destroy(&h->mu);
  memset(h, 0, sizeof *h);
}
