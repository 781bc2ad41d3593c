/*
 * CPU backend groups: one worker thread per simulated device.
 *
 * Why threads: the tier overlaps a device group with CPU misses; a synchronous CPU
 * backend would hide every ordering bug between issue and take. Protocol per device:
 * issue (IDLE -> PENDING, signal) returns at once; the worker computes and moves
 * PENDING -> DONE (broadcast); take waits for DONE, copies y, moves DONE -> IDLE.
 * Invariants: the dispatcher never issues twice without a take, so a new job only
 * meets an IDLE device; stop lets a PENDING job finish before the thread leaves; the
 * finished group is reported (tl_group_done) before take can see DONE, so a report
 * always belongs to the group in flight.
 */
#include <string.h>

#include "cpu_backend.h"

static tl_wref wref_of(const tl_tensor *t) {
  const cpu_tensor *ct = t->impl;
  return (tl_wref){ct->w, ct->s, t->fmt, t->rows, t->cols, t->group};
}

static void run_job(cpu_device *d) {
  const size_t H = (size_t)d->hidden;
  for (int r = 0; r < d->n; r++) {
    tl_expert_run(&d->rows[r], d->lut, d->x + (size_t)r * H, d->y + (size_t)r * H, d->q, d->h);
  }
}

static void *worker_main(void *arg) {
  cpu_device *d = arg;
  pthread_mutex_lock(&d->mu);
  for (;;) {
    while (d->phase != CPU_PENDING && !d->stop) pthread_cond_wait(&d->cv, &d->mu);
    if (d->phase != CPU_PENDING) break; /* stopping with no job */
    const uint64_t tag = d->tag;
    pthread_mutex_unlock(&d->mu);
    /* buffers belong to the worker while PENDING; tensors still uploading land first,
     * as a GPU's group waits for the copies before it */
    cpu_copy_wait_ready(&d->b->copy, d->uses, 3 * d->n);
    if (d->delay_us > 0) cpu_sleep_us(d->delay_us); /* a slow device, on purpose */
    run_job(d);
    tl_group_done(d->owner, (int)(d - d->b->dev), tag, TL_OK, NULL);
    pthread_mutex_lock(&d->mu);
    d->phase = CPU_DONE;
    pthread_cond_broadcast(&d->cv);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

int cpu_worker_start(tl_backend *b, cpu_device *d, char *err, size_t cap) {
  (void)b;
  d->delay_us = cpu_delay_from_env("TIERLAB_CPU_GROUP_DELAY_US");
  int rc = pthread_create(&d->thread, NULL, worker_main, d);
  if (rc != 0) {
    return tl_fail(err, cap, TL_E_INTERNAL, "cpu backend: pthread_create failed (%s)",
                   strerror(rc));
  }
  d->thread_started = 1;
  return TL_OK;
}

void cpu_worker_stop(cpu_device *d) {
  if (!d->thread_started) return;
  pthread_mutex_lock(&d->mu);
  d->stop = 1;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  pthread_join(d->thread, NULL);
  d->thread_started = 0;
}

int cpu_group_issue(tl_backend *b, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                    tl_tensor *const *down, const float *x, int hidden, uint64_t tag, char *err,
                    size_t cap) {
  cpu_device *d = &b->dev[dev];
  pthread_mutex_lock(&d->mu);
  if (d->phase != CPU_IDLE) { /* the dispatcher prevents this; say so if it ever happens */
    pthread_mutex_unlock(&d->mu);
    return tl_fail(err, cap, TL_E_INTERNAL, "cpu backend: device %d is not idle", dev);
  }
  memcpy(d->x, x, (size_t)n * (size_t)hidden * sizeof(float)); /* input copied now */
  for (int r = 0; r < n; r++) {
    d->rows[r] = (tl_expert_ref){.gate = wref_of(gate[r]),
                                 .up = wref_of(up[r]),
                                 .down = wref_of(down[r]),
                                 .hidden = hidden,
                                 .width = gate[r]->rows};
    d->uses[3 * r] = gate[r]->impl;
    d->uses[3 * r + 1] = up[r]->impl;
    d->uses[3 * r + 2] = down[r]->impl;
  }
  d->n = n;
  d->tag = tag;
  d->hidden = hidden;
  d->phase = CPU_PENDING;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  return TL_OK;
}

int cpu_group_take(tl_backend *b, int dev, float *y, int n, int hidden, char *err, size_t cap) {
  cpu_device *d = &b->dev[dev];
  pthread_mutex_lock(&d->mu);
  if (d->phase == CPU_IDLE) {
    pthread_mutex_unlock(&d->mu);
    return tl_fail(err, cap, TL_E_INTERNAL, "cpu backend: no group on device %d", dev);
  }
  while (d->phase != CPU_DONE) pthread_cond_wait(&d->cv, &d->mu);
  memcpy(y, d->y, (size_t)n * (size_t)hidden * sizeof(float));
  d->phase = CPU_IDLE;
  pthread_mutex_unlock(&d->mu);
  return TL_OK;
}
