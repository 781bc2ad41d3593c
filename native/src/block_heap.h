/*
 * A heap of tensor blocks over big chunks, for backends whose own allocator is too slow
 * to call once per tensor: the CPU backend's pre-faulted host memory, the CUDA
 * backend's device memory (block_heap.c says why).
 *
 * Role: alloc/free of blocks of any size; chunks come from the backend's map function
 * and go back through unmap at destroy. A request that cannot be served (limit reached,
 * map failed) returns NULL and is the caller's to answer (an OOM, or another allocator).
 * Thread-safe (one mutex).
 */
#ifndef TIERLAB_BLOCK_HEAP_H
#define TIERLAB_BLOCK_HEAP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef void *(*tl_heap_map)(void *ctx, size_t bytes); /* a new chunk, or NULL */
typedef void (*tl_heap_unmap)(void *ctx, void *p, size_t bytes);

typedef struct tl_heap_chunk {
  unsigned char *base;
  size_t bytes, top; /* [0, top) carved */
} tl_heap_chunk;

typedef struct tl_heap_class {
  size_t bytes;
  void **blocks; /* freed blocks of exactly this size */
  size_t n, cap;
} tl_heap_class;

typedef struct tl_heap {
  pthread_mutex_t mu;
  tl_heap_map map;
  tl_heap_unmap unmap;
  void *ctx;
  tl_heap_chunk *chunks;
  int nchunks, cap_chunks;
  tl_heap_class *classes;
  int nclasses, cap_classes;
  uint64_t limit, mapped; /* bytes the heap may map in all; mapped so far */
} tl_heap;

void tl_heap_init(tl_heap *h, uint64_t limit, tl_heap_map map, tl_heap_unmap unmap, void *ctx);
/* Maps chunks until at least `bytes` are free to hand out; 0, or -1 when that cannot be
 * (the limit, or map failed). */
int tl_heap_reserve(tl_heap *h, uint64_t bytes);
void *tl_heap_alloc(tl_heap *h, size_t bytes); /* aligned to 256 bytes; NULL: none */
void tl_heap_free(tl_heap *h, void *p, size_t bytes); /* bytes as allocated */
void tl_heap_destroy(tl_heap *h);

#endif
