/*
 * The C tier's test world (tt_fixture.h): construction, the closing checks, and the
 * latches that force an order through hook points.
 */
#include "tt_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PART_BYTES (64u * 1024u)
#define SCALE_BYTES 256u

void tf_config(tt_config *cfg, int layers, int experts, int fit_per_device) {
  tt_config_defaults(cfg);
  cfg->layers = layers;
  cfg->experts = experts;
  cfg->topk = 4;
  cfg->hidden = 8;
  cfg->format = 2;
  cfg->ram_capacity = experts;
  for (int p = 0; p < 3; p++) {
    cfg->weight_bytes[p] = PART_BYTES;
    cfg->scale_bytes[p] = SCALE_BYTES;
  }
  uint64_t exp = tt_expert_bytes(cfg);
  for (int d = 0; d < TT_MAX_DEVICES; d++) cfg->budget_bytes[d] = exp * (uint64_t)fit_per_device;
  cfg->ring_capacity = 4;
}

int tf_open(tf_world *w, const tt_config *cfg, int devices, int reclaims) {
  memset(w, 0, sizeof *w);
  w->cfg = *cfg;
  w->layers = cfg->layers;
  w->experts = cfg->experts;
  if (tt_mem_sink_init(&w->mem, 1u << 16) != 0) return -1;
  tt_log_init(&w->log, tt_mem_sink_as_sink(&w->mem));
  fb_config fc = {.devices = devices, .reclaims = reclaims};
  for (int p = 0; p < 3; p++) {
    fc.weight_bytes[p] = cfg->weight_bytes[p];
    fc.scale_bytes[p] = cfg->scale_bytes[p];
  }
  w->fake = fb_create(&fc, &w->log);
  tt_backend be;
  if (w->fake == NULL) return -1;
  fb_backend(w->fake, &be);
  w->tier = tt_create(&be, &w->log);
  w->ram = calloc((size_t)w->layers * (size_t)w->experts, sizeof *w->ram);
  if (w->tier == NULL || w->ram == NULL) return -1;
  for (int l = 0; l < w->layers; l++)
    for (int e = 0; e < w->experts; e++) w->ram[l * w->experts + e] = fb_ram_new(w->fake, l, e);
  return 0;
}

void *tf_ram(tf_world *w, int layer, int eid) { return w->ram[layer * w->experts + eid]; }

void tf_check_clean(tf_world *w, const char *when) {
  fb_ledger l;
  fb_ledger_get(w->fake, &l);
  int clean = l.tensors_live == 0 && l.dense_live == 0 && l.staging_live == 0 && l.host_live == 0 &&
      l.groups_open == 0 && l.violations == 0;
  if (!clean)
    fprintf(stderr,
            "  %s: tensors %llu dense %llu staging %llu host %llu groups %llu violations %llu "
            "(%s)\n",
            when, (unsigned long long)l.tensors_live, (unsigned long long)l.dense_live,
            (unsigned long long)l.staging_live, (unsigned long long)l.host_live,
            (unsigned long long)l.groups_open, (unsigned long long)l.violations, l.first_violation);
  th_check(clean, when, __FILE__, __LINE__);
}

void tf_close(tf_world *w) {
  if (w->tier != NULL) {
    tt_destroy(w->tier);
    tf_check_clean(w, "after tt_destroy");
  }
  free(w->ram);
  fb_destroy(w->fake);
  tt_mem_sink_free(&w->mem);
  memset(w, 0, sizeof *w);
}

int tf_count_events(tf_world *w, int kind) {
  size_t n = tt_mem_sink_count(&w->mem);
  int count = 0;
  for (size_t i = 0; i < n; i++) count += w->mem.events[i].kind == kind;
  return count;
}

void tf_latch_init(tf_latch *l) {
  pthread_mutex_init(&l->mx, NULL);
  pthread_cond_init(&l->cv, NULL);
  l->reached = l->open = 0;
}

void tf_latch_destroy(tf_latch *l) {
  pthread_cond_destroy(&l->cv);
  pthread_mutex_destroy(&l->mx);
}

void tf_latch_arrive_and_wait(tf_latch *l) {
  pthread_mutex_lock(&l->mx);
  l->reached = 1;
  pthread_cond_broadcast(&l->cv);
  while (!l->open) pthread_cond_wait(&l->cv, &l->mx);
  pthread_mutex_unlock(&l->mx);
}

void tf_latch_wait_reached(tf_latch *l) {
  pthread_mutex_lock(&l->mx);
  while (!l->reached) pthread_cond_wait(&l->cv, &l->mx);
  pthread_mutex_unlock(&l->mx);
}

void tf_latch_open(tf_latch *l) {
  pthread_mutex_lock(&l->mx);
  l->open = 1;
  pthread_cond_broadcast(&l->cv);
  pthread_mutex_unlock(&l->mx);
}

static void watch_write(void *ctx, const tt_event *ev) {
  tf_watch *w = ctx;
  tt_mem_sink_as_sink(w->mem).write(w->mem, ev);
  int from = w->tid != 0 ? ev->tid == w->tid : ev->tid != w->not_tid;
  int match = (ev->kind == w->kind && ev->value == w->value) || ev->kind == w->alt_kind;
  if (!match || !from) return;
  pthread_mutex_lock(&w->latch.mx);
  if (++w->seen >= w->need) {
    w->latch.reached = 1;
    pthread_cond_broadcast(&w->latch.cv);
  }
  pthread_mutex_unlock(&w->latch.mx);
}

void tf_watch_start(tf_world *w, tf_watch *watch, int kind, int64_t value, uint32_t tid, int need) {
  watch->mem = &w->mem;
  tf_latch_init(&watch->latch);
  watch->kind = kind;
  watch->value = value;
  watch->tid = tid;
  watch->not_tid = tt_log_thread_id();
  watch->need = need;
  watch->seen = 0;
  watch->alt_kind = -1;
  w->log.sink = (tt_sink){watch, watch_write};
}

void tf_watch_or(tf_watch *watch, int alt_kind) { watch->alt_kind = alt_kind; }

void tf_watch_stop(tf_world *w, tf_watch *watch) {
  w->log.sink = tt_mem_sink_as_sink(&w->mem);
  tf_latch_destroy(&watch->latch);
}
