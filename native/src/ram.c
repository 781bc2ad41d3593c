/*
 * RAM copies over the ABI (see ram.h): load from a file or from memory, free, stats, and
 * the counting every holder shares (staging.c for staging references, expert_ram.c for
 * the CPU expert that reads a RAM copy in place).
 *
 * Invariants: a load checks everything an upload or a CPU expert would (shapes, source
 * bounds, finite scales) once, before the copy gets a handle, so neither checks again;
 * the file is read with pread by the calling thread and never mapped (a RAM copy must
 * not change under an upload if the file is rewritten); every count taken is given back
 * by exactly one path (free, unstage, tl_upload_done, the end of a CPU expert, destroy).
 */
#define _DEFAULT_SOURCE /* pread */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "shape.h"

/* Parts start at TL_SPAN_ALIGN, their scales right after the weights at the next
 * TL_SPAN_ALIGN: the span a backend copies in one go (backend.h). */
static size_t align_up(size_t v) { return tl_span_scales_at(v); }

/* Checks the parts against the source size; lays them out in a slot (weights, then
 * scales, each 64-byte aligned); *total is the slot size needed. */
static int layout(const char *fn, const tl_part *parts, int nparts, uint64_t src_bytes,
                  tl_ram_part *out, size_t *total, char *err, size_t cap) {
  if (parts == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: parts is NULL", fn);
  if (nparts < 1 || nparts > TL_MAX_PARTS) {
    return tl_fail(err, cap, TL_E_ARG, "%s: nparts must be in 1..%d (got %d)", fn, TL_MAX_PARTS,
                   nparts);
  }
  size_t at = 0;
  for (int i = 0; i < nparts; i++) {
    const tl_part *p = &parts[i];
    char what[24];
    snprintf(what, sizeof what, "part %d", i);
    uint64_t bytes, nscales;
    int rc =
        tl_check_shape(fn, what, p->fmt, p->rows, p->cols, p->group, &bytes, &nscales, err, cap);
    if (rc != TL_OK) return rc;
    const uint64_t sbytes = nscales * sizeof(float);
    if (p->data_at % 4 != 0 || p->scales_at % 4 != 0) {
      return tl_fail(err, cap, TL_E_ARG,
                     "%s: part %d: data_at %" PRIu64 " and scales_at %" PRIu64
                     " must be multiples of 4",
                     fn, i, p->data_at, p->scales_at);
    }
    if (p->data_at > src_bytes || bytes > src_bytes - p->data_at) {
      return tl_fail(err, cap, TL_E_ARG,
                     "%s: part %d: weights [%" PRIu64 ", +%" PRIu64
                     ") lie past the source's "
                     "%" PRIu64 " bytes",
                     fn, i, p->data_at, bytes, src_bytes);
    }
    if (p->scales_at > src_bytes || sbytes > src_bytes - p->scales_at) {
      return tl_fail(err, cap, TL_E_ARG,
                     "%s: part %d: scales [%" PRIu64 ", +%" PRIu64
                     ") lie past the source's "
                     "%" PRIu64 " bytes",
                     fn, i, p->scales_at, sbytes, src_bytes);
    }
    out[i] = (tl_ram_part){.fmt = p->fmt,
                           .rows = p->rows,
                           .cols = p->cols,
                           .group = p->group,
                           .data_at = at,
                           .data_bytes = (size_t)bytes,
                           .nscales = (size_t)nscales};
    at = align_up(at + (size_t)bytes);
    out[i].scales_at = at;
    at = align_up(at + (size_t)sbytes);
  }
  *total = at;
  return TL_OK;
}

/* The values of every part, now in the slot: finite scales, no fp8 NaN encoding. */
static int check_scales(const char *fn, const tl_ram *ram, char *err, size_t cap) {
  for (int i = 0; i < ram->nparts; i++) {
    const tl_ram_part *p = &ram->parts[i];
    char what[24];
    snprintf(what, sizeof what, "part %d:", i);
    int rc = tl_check_values(fn, what, p->fmt, ram->slot + p->data_at, p->data_bytes,
                             (const float *)(ram->slot + p->scales_at), p->nscales, err, cap);
    if (rc != TL_OK) return rc;
  }
  return TL_OK;
}

static int read_all(int fd, unsigned char *dst, size_t n, uint64_t at) {
  while (n > 0) {
    ssize_t got = pread(fd, dst, n, (off_t)at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return got < 0 ? errno : EIO; /* 0: the file shrank under us */
    dst += got;
    n -= (size_t)got;
    at += (uint64_t)got;
  }
  return 0;
}

/* A fresh tl_ram with a slot for the laid-out parts (refs 1: the handle to be). */
static int ram_new(tl_engine *eng, const tl_ram_part *parts, int nparts, size_t total, tl_ram **out,
                   char *err, size_t cap) {
  tl_ram *ram = calloc(1, sizeof *ram);
  if (ram == NULL) return tl_fail(err, cap, TL_E_OOM, "RAM copy: host out of memory");
  tl_ram_slot slot;
  int rc = tl_ram_pool_get(&eng->pool, total, &slot, &ram->slot_bytes, err, cap);
  if (rc != TL_OK) {
    free(ram);
    return rc;
  }
  ram->slot = slot.p;
  ram->chunk = slot.chunk;
  ram->refs = 1;
  ram->nparts = nparts;
  memcpy(ram->parts, parts, (size_t)nparts * sizeof *parts);
  *out = ram;
  return TL_OK;
}

static void ram_discard(tl_engine *eng, tl_ram *ram) {
  tl_ram_pool_put(&eng->pool, (tl_ram_slot){ram->slot, ram->chunk}, ram->slot_bytes);
  free(ram);
}

/* Checks the scales and publishes the handle; on failure the copy is discarded. */
static int publish(tl_engine *eng, const char *fn, tl_ram *ram, tl_ram **out, char *err,
                   size_t cap) {
  int rc = check_scales(fn, ram, err, cap);
  if (rc == TL_OK) {
    pthread_mutex_lock(&eng->mu);
    if (tl_ptrset_add(&eng->rams, ram) != 0) {
      rc = tl_fail(err, cap, TL_E_OOM, "%s: host out of memory for the handle registry", fn);
    }
    pthread_mutex_unlock(&eng->mu);
  }
  if (rc != TL_OK) {
    ram_discard(eng, ram);
    return rc;
  }
  *out = ram;
  return TL_OK;
}

static int load_file(tl_engine *eng, const char *path, const tl_part *parts, int nparts,
                     tl_ram **out, char *err, size_t cap) {
  static const char *const FN = "tl_ram_load_file";
  if (path == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: path is NULL", FN);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return tl_fail(err, cap, TL_E_ARG, "%s: cannot open %s: %s", FN, path, strerror(errno));
  }
  struct stat st;
  int rc = fstat(fd, &st) != 0
      ? tl_fail(err, cap, TL_E_ARG, "%s: cannot stat %s: %s", FN, path, strerror(errno))
      : TL_OK;
  tl_ram_part laid[TL_MAX_PARTS];
  size_t total = 0;
  if (rc == TL_OK) rc = layout(FN, parts, nparts, (uint64_t)st.st_size, laid, &total, err, cap);
  tl_ram *ram = NULL;
  if (rc == TL_OK) rc = ram_new(eng, laid, nparts, total, &ram, err, cap);
  for (int i = 0; rc == TL_OK && i < nparts; i++) {
    const tl_ram_part *p = &laid[i];
    int e = read_all(fd, ram->slot + p->data_at, p->data_bytes, parts[i].data_at);
    if (e == 0) {
      e = read_all(fd, ram->slot + p->scales_at, p->nscales * sizeof(float), parts[i].scales_at);
    }
    if (e != 0) rc = tl_fail(err, cap, TL_E_ARG, "%s: reading %s: %s", FN, path, strerror(e));
  }
  close(fd);
  if (rc != TL_OK) {
    if (ram != NULL) ram_discard(eng, ram);
    return rc;
  }
  return publish(eng, FN, ram, out, err, cap);
}

TL_API int tl_ram_load_file(tl_engine *eng, const char *path, const tl_part *parts, int nparts,
                            tl_ram **out, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  if (out == NULL) return tl_fail(err, err_cap, TL_E_ARG, "tl_ram_load_file: out is NULL");
  *out = NULL;
  int rc = tl_engine_enter(eng, "tl_ram_load_file", err, err_cap);
  if (rc != TL_OK) return rc;
  rc = load_file(eng, path, parts, nparts, out, err, err_cap);
  tl_engine_leave(eng);
  return rc;
}

static int load_mem(tl_engine *eng, const void *src, uint64_t src_bytes, const tl_part *parts,
                    int nparts, tl_ram **out, char *err, size_t cap) {
  static const char *const FN = "tl_ram_load_mem";
  if (src == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: src is NULL", FN);
  tl_ram_part laid[TL_MAX_PARTS];
  size_t total = 0;
  int rc = layout(FN, parts, nparts, src_bytes, laid, &total, err, cap);
  tl_ram *ram = NULL;
  if (rc == TL_OK) rc = ram_new(eng, laid, nparts, total, &ram, err, cap);
  if (rc != TL_OK) return rc;
  for (int i = 0; i < nparts; i++) {
    const unsigned char *s = src;
    memcpy(ram->slot + laid[i].data_at, s + parts[i].data_at, laid[i].data_bytes);
    memcpy(ram->slot + laid[i].scales_at, s + parts[i].scales_at, laid[i].nscales * sizeof(float));
  }
  return publish(eng, FN, ram, out, err, cap);
}

TL_API int tl_ram_load_mem(tl_engine *eng, const void *src, uint64_t src_bytes,
                           const tl_part *parts, int nparts, tl_ram **out, char *err,
                           size_t err_cap) {
  tl_clear_err(err, err_cap);
  if (out == NULL) return tl_fail(err, err_cap, TL_E_ARG, "tl_ram_load_mem: out is NULL");
  *out = NULL;
  int rc = tl_engine_enter(eng, "tl_ram_load_mem", err, err_cap);
  if (rc != TL_OK) return rc;
  rc = load_mem(eng, src, src_bytes, parts, nparts, out, err, err_cap);
  tl_engine_leave(eng);
  return rc;
}

void tl_ram_ref_locked(tl_ram *ram) { ram->refs++; }

void tl_ram_unref_locked(tl_engine *eng, tl_ram *ram) {
  if (--ram->refs > 0) return;
  ram_discard(eng, ram); /* lock order: mu, then the pool's */
}

tl_host_src tl_ram_src(const tl_ram *ram, int p) {
  const tl_ram_part *part = &ram->parts[p];
  const unsigned char *base = ram->chunk->base;
  return (tl_host_src){
      .data = ram->slot + part->data_at,
      .data_bytes = part->data_bytes,
      .scales = (const float *)(ram->slot + part->scales_at),
      .nscales = part->nscales,
      .span_bytes = part->scales_at - part->data_at + part->nscales * sizeof(float),
      .pin = ram->chunk->pin,
      .data_at = (uint64_t)(ram->slot + part->data_at - base)};
}

int tl_ram_take_handle(tl_ptrset *set, void *h, const char *fn, const char *what, char *err,
                       size_t cap) {
  if (h == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: %s is NULL", fn, what);
  if (!tl_ptrset_remove(set, h)) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: %s is not live in this engine (already freed, or from another "
                   "engine)",
                   fn, what);
  }
  return TL_OK;
}

TL_API int tl_ram_free(tl_engine *eng, tl_ram *ram, char *err, size_t err_cap) {
  static const char *const FN = "tl_ram_free";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  pthread_mutex_lock(&eng->mu);
  rc = tl_ram_take_handle(&eng->rams, ram, FN, "ram", err, err_cap);
  if (rc == TL_OK) tl_ram_unref_locked(eng, ram);
  pthread_mutex_unlock(&eng->mu);
  tl_engine_leave(eng);
  return rc;
}

/* RAM copies whose bytes are held: a slot handed out and not yet back in the pool. */
static uint64_t held_copies(tl_ram_pool *pool) {
  uint64_t cut = 0, free_slots = 0;
  pthread_mutex_lock(&pool->mu);
  for (int i = 0; i < pool->nslabs; i++) {
    const tl_ram_slab *s = &pool->slabs[i];
    for (int k = 0; k < s->nchunks; k++) cut += s->chunks[k]->bytes / s->slot_bytes;
    free_slots += s->nfree;
  }
  pthread_mutex_unlock(&pool->mu);
  return cut - free_slots;
}

TL_API int tl_ram_stats(tl_engine *eng, uint64_t *copies, uint64_t *host_bytes,
                        uint64_t *pinned_bytes, char *err, size_t err_cap) {
  static const char *const FN = "tl_ram_stats";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if (copies == NULL || host_bytes == NULL || pinned_bytes == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: %s is NULL", FN,
                 copies == NULL           ? "copies"
                     : host_bytes == NULL ? "host_bytes"
                                          : "pinned_bytes");
  } else {
    *copies = held_copies(&eng->pool);
    tl_ram_pool_stats(&eng->pool, host_bytes, pinned_bytes);
  }
  tl_engine_leave(eng);
  return rc;
}

void tl_ram_release_all(tl_engine *eng) {
  for (size_t i = 0; i < eng->stagings.cap; i++) {
    tl_staging *s = eng->stagings.slots[i];
    if (s == NULL || s == TL_PTRSET_TOMB) continue;
    tl_ram_unref_locked(eng, s->ram);
    free(s);
  }
  for (size_t i = 0; i < eng->rams.cap; i++) {
    tl_ram *r = eng->rams.slots[i];
    if (r == NULL || r == TL_PTRSET_TOMB) continue;
    tl_ram_unref_locked(eng, r);
  }
  tl_ram_pool_destroy(&eng->pool);
}
