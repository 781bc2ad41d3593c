/*
 * The dispatcher, part 4: what finishes later. Uploads from a staged RAM copy (started
 * here, reported by the backend through tl_upload_done), finished groups
 * (tl_group_done), both into the completion queue; and the raw copy measurement.
 *
 * Invariants of an upload from a RAM copy:
 *   - everything a synchronous upload answers (arguments, injected fault, capacity,
 *     allocation) is answered before the call returns, by the same rules;
 *   - the tensor is in the registry, PENDING, before the backend starts, and holds one
 *     count of the RAM copy until tl_upload_done: the staging reference and the RAM
 *     handle may both go at once, the bytes stay until the copy is over;
 *   - uploads_in_flight counts exactly the PENDING tensors; free and destroy wait for
 *     a PENDING tensor to land, so the backend never reports on a freed tensor;
 *   - a completion is queued under mu, before the count drops, so destroy (which waits
 *     for the count) never frees the queue under a report.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "engine.h"

static const char *const UPS = "tl_tensor_upload_staged";

/* With mu held: the staging reference is live and has part `part`. */
static int check_source(tl_engine *eng, tl_staging *src, int part, char *err, size_t cap) {
  if (src == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: src is NULL", UPS);
  if (!tl_ptrset_has(&eng->stagings, src)) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: src is not a live staging reference of this engine (unstaged, or "
                   "from another engine)",
                   UPS);
  }
  if (part < 0 || part >= src->ram->nparts) {
    return tl_fail(err, cap, TL_E_ARG, "%s: part must be in 0..%d (got %d)", UPS,
                   src->ram->nparts - 1, part);
  }
  return TL_OK;
}

/* With mu held: checks, fault, charge, and the PENDING tensor in the registry. */
static int start_upload(tl_engine *eng, int dev, tl_staging *src, int part, uint64_t tag,
                        tl_tensor *t, char *err, size_t cap) {
  int rc = check_source(eng, src, part, err, cap);
  if (rc != TL_OK) return rc;
  const tl_ram_part *p = &src->ram->parts[part];
  const uint64_t fp =
      tl_alloc_footprint(p->data_bytes) + tl_alloc_footprint((uint64_t)p->nscales * sizeof(float));
  rc = tl_upload_reserve(eng, UPS, dev, fp, err, cap);
  if (rc != TL_OK) return rc;
  if (tl_ptrset_add(&eng->tensors, t) != 0) {
    eng->charged_bytes[dev] -= fp;
    return tl_fail(err, cap, TL_E_OOM, "%s: host out of memory for the tensor registry", UPS);
  }
  *t = (tl_tensor){.owner = eng,
                   .dev = dev,
                   .fmt = p->fmt,
                   .rows = p->rows,
                   .cols = p->cols,
                   .group = p->group,
                   .footprint_bytes = fp,
                   .magic = TL_TENSOR_MAGIC,
                   .upload = TL_UPLOAD_PENDING,
                   .tag = tag,
                   .upload_src = src->ram};
  tl_ram_ref_locked(src->ram);
  eng->tensor_bytes += fp;
  eng->uploads_in_flight++;
  return TL_OK;
}

/* With mu held: undoes start_upload after the backend refused. */
static void abandon_upload(tl_engine *eng, tl_tensor *t) {
  tl_ptrset_remove(&eng->tensors, t);
  eng->tensor_bytes -= t->footprint_bytes;
  eng->charged_bytes[t->dev] -= t->footprint_bytes;
  tl_ram_unref_locked(eng, t->upload_src);
  eng->uploads_in_flight--;
  pthread_cond_broadcast(&eng->up_cv);
}

static int upload_staged(tl_engine *eng, int dev, tl_staging *src, int part, uint64_t tag,
                         tl_tensor **out, char *err, size_t cap) {
  int rc = tl_check_dev(eng, UPS, dev, err, cap);
  if (rc != TL_OK) return rc;
  tl_tensor *t = calloc(1, sizeof *t);
  if (t == NULL) return tl_fail(err, cap, TL_E_OOM, "%s: host out of memory", UPS);
  pthread_mutex_lock(&eng->mu);
  rc = start_upload(eng, dev, src, part, tag, t, err, cap);
  /* what the backend reads: taken under mu, the copy keeps its count */
  tl_host_src from = rc == TL_OK ? tl_ram_src(t->upload_src, part) : (tl_host_src){0};
  pthread_mutex_unlock(&eng->mu);
  if (rc == TL_OK) {
    rc = eng->ops->tensor_upload_async(eng->be, t, &from, err, cap);
    if (rc != TL_OK) {
      pthread_mutex_lock(&eng->mu);
      abandon_upload(eng, t);
      pthread_mutex_unlock(&eng->mu);
    }
  }
  if (rc != TL_OK) {
    free(t);
    return rc;
  }
  *out = t;
  return TL_OK;
}

TL_API int tl_tensor_upload_staged(tl_engine *eng, int dev, tl_staging *src, int part, uint64_t tag,
                                   tl_tensor **out, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  if (out == NULL) return tl_fail(err, err_cap, TL_E_ARG, "%s: out is NULL", UPS);
  *out = NULL;
  int rc = tl_engine_enter(eng, UPS, err, err_cap);
  if (rc != TL_OK) return rc;
  rc = upload_staged(eng, dev, src, part, tag, out, err, err_cap);
  tl_engine_leave(eng);
  return rc;
}

void tl_upload_done(tl_tensor *t, int status, const char *msg) {
  tl_engine *eng = t->owner;
  pthread_mutex_lock(&eng->mu);
  t->upload = status == TL_OK ? TL_UPLOAD_DONE : TL_UPLOAD_FAILED;
  if (t->tag != 0) tl_cq_push(&eng->cq, t->tag, TL_DONE_UPLOAD, status, t->dev, msg);
  tl_ram_unref_locked(eng, t->upload_src);
  t->upload_src = NULL;
  eng->uploads_in_flight--;
  pthread_cond_broadcast(&eng->up_cv);
  pthread_mutex_unlock(&eng->mu); /* t may be freed from here on */
}

void tl_group_done(tl_engine *owner, int dev, uint64_t tag, int status, const char *msg) {
  if (tag != 0) tl_cq_push(&owner->cq, tag, TL_DONE_GROUP, status, dev, msg);
}

TL_API int tl_copy_bandwidth(tl_engine *eng, int dev, uint64_t bytes, int reps, int pinned,
                             double *gbps, char *err, size_t err_cap) {
  static const char *const FN = "tl_copy_bandwidth";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  if ((rc = tl_check_dev(eng, FN, dev, err, err_cap)) != TL_OK) {
    /* message written */
  } else if (gbps == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: gbps is NULL", FN);
  } else if (bytes < 1 || bytes > (16ull << 30)) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: bytes must be in 1..16 GiB (got %" PRIu64 ")", FN,
                 bytes);
  } else if (reps < 1 || reps > 1000) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: reps must be in 1..1000 (got %d)", FN, reps);
  } else if (pinned != 0 && pinned != 1) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: pinned must be 0 or 1 (got %d)", FN, pinned);
  } else {
    rc = eng->ops->copy_bandwidth(eng->be, dev, bytes, reps, pinned, gbps, err, err_cap);
  }
  tl_engine_leave(eng);
  return rc;
}
