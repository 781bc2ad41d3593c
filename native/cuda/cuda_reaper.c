/*
 * The CUDA backend's reapers: per device, one thread waits for uploads to land (in
 * submission order, one event each) and one for the group in flight, and each reports
 * through the dispatcher's callbacks (tl_upload_done, tl_group_done).
 *
 * Why threads rather than host callbacks in the stream: a thread waits with
 * cudaEventSynchronize, which returns the error when a copy or a kernel failed, so a
 * failure is reported like a success instead of never; and the callers (the tier's
 * uploader, the decode thread) never wait at all.
 * Invariants: an upload is reported exactly once, after its event completed, and its
 * tensor's `landed` flag is set before (a group issued later then skips the event
 * wait); the group reaper reports exactly one group at a time, and the next issue waits
 * until it did (the event is recorded again by that issue); stop reports everything
 * still queued first (the dispatcher waited for every upload; a group may be open).
 */
#include <string.h>

#include "cuda_backend.h"

static void *upload_main(void *arg) {
  cuda_dev *d = arg;
  cuda_reaper *r = &d->uploads;
  (void)cudaSetDevice(d->ordinal);
  pthread_mutex_lock(&r->mu);
  for (;;) {
    while (r->head == NULL && !r->stop) pthread_cond_wait(&r->cv, &r->mu);
    cuda_tensor *ct = r->head;
    if (ct == NULL) break; /* stopping, nothing in flight */
    r->head = ct->next;
    if (r->head == NULL) r->tail = NULL;
    pthread_mutex_unlock(&r->mu);
    char msg[TL_COMPLETION_MESSAGE];
    int status;
    if (ct->failed) {
      status = TL_E_DEVICE; /* never submitted (cuda_hold.c): its event was not recorded */
      memcpy(msg, ct->failure, sizeof msg);
    } else {
      cudaError_t e = cudaEventSynchronize(ct->landed_event);
      status = e == cudaSuccess ? TL_OK : cuda_fail(msg, sizeof msg, d->ordinal, "upload copy", e);
    }
    if (status == TL_OK) __atomic_store_n(&ct->landed, 1, __ATOMIC_RELEASE);
    const int ends_copy = ct->ends_copy;
    tl_upload_done(ct->t, status, status == TL_OK ? NULL : msg); /* ct may go from here */
    if (ends_copy) cuda_hold_landed(d); /* the next held copy may go now */
    pthread_mutex_lock(&r->mu);
  }
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

static void *group_main(void *arg) {
  cuda_dev *d = arg;
  cuda_reaper *r = &d->groups;
  (void)cudaSetDevice(d->ordinal);
  pthread_mutex_lock(&r->mu);
  for (;;) {
    while (!r->group_pending && !r->stop) pthread_cond_wait(&r->cv, &r->mu);
    if (!r->group_pending) break;
    const uint64_t tag = r->group_tag;
    pthread_mutex_unlock(&r->mu);
    char msg[TL_COMPLETION_MESSAGE];
    cudaError_t e = cudaEventSynchronize(d->group_done);
    int status =
        e == cudaSuccess ? TL_OK : cuda_fail(msg, sizeof msg, d->ordinal, "expert group", e);
    tl_group_done(d->b->owner, d->index, tag, status, status == TL_OK ? NULL : msg);
    pthread_mutex_lock(&r->mu);
    r->group_pending = 0;
    pthread_cond_broadcast(&r->cv);
  }
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

static int start(cuda_reaper *r, void *(*body)(void *), cuda_dev *d, char *err, size_t cap) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  int rc = pthread_create(&r->thread, NULL, body, d);
  if (rc != 0) {
    return tl_fail(err, cap, TL_E_INTERNAL, "cuda device %d: reaper thread: %s", d->ordinal,
                   strerror(rc));
  }
  r->started = 1;
  return TL_OK;
}

int cuda_reapers_start(cuda_dev *d, char *err, size_t cap) {
  int rc = start(&d->uploads, upload_main, d, err, cap);
  if (rc == TL_OK) rc = start(&d->groups, group_main, d, err, cap);
  return rc;
}

static void stop(cuda_reaper *r) {
  if (!r->started) return;
  pthread_mutex_lock(&r->mu);
  r->stop = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  pthread_join(r->thread, NULL);
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  r->started = 0;
}

void cuda_reapers_stop(cuda_dev *d) {
  stop(&d->uploads);
  stop(&d->groups);
}

void cuda_reap_group_wait_idle(cuda_dev *d) {
  cuda_reaper *r = &d->groups;
  pthread_mutex_lock(&r->mu);
  while (r->group_pending) pthread_cond_wait(&r->cv, &r->mu);
  pthread_mutex_unlock(&r->mu);
}

void cuda_reap_group(cuda_dev *d, uint64_t tag) {
  cuda_reaper *r = &d->groups;
  pthread_mutex_lock(&r->mu);
  r->group_pending = 1;
  r->group_tag = tag;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}
