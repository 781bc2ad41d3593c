/*
 * One run is deterministic: the same choices give the same trace, byte for byte, in
 * this process and in a fresh one; the same seed gives the same run; and a recorded
 * choice out of range is taken modulo its options (never an error), so a schedule with
 * large values replays as the normalised one it stands for.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sched_check.h"

/* a ring of 2 slots, 2 producers of 2 items each, 1 consumer; a backend call per item */
static pthread_mutex_t ring_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ring_space = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ring_items = PTHREAD_COND_INITIALIZER;
static int ring_n, ring_taken;

static void *producer(void *arg) {
  tl_sched_name_thread(arg != NULL ? "producer-b" : "producer-a");
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&ring_mx);
    while (ring_n == 2) pthread_cond_wait(&ring_space, &ring_mx);
    ring_n++;
    pthread_cond_signal(&ring_items);
    pthread_mutex_unlock(&ring_mx);
  }
  return NULL;
}

static void *ring_program(void *arg) {
  (void)arg;
  ring_n = ring_taken = 0;
  tl_sched_name_object(&ring_mx, "ring");
  pthread_t a, b;
  pthread_create(&a, NULL, producer, NULL);
  pthread_create(&b, NULL, producer, &a);
  while (ring_taken < 4) {
    pthread_mutex_lock(&ring_mx);
    while (ring_n == 0) pthread_cond_wait(&ring_items, &ring_mx);
    ring_n--;
    ring_taken++;
    pthread_cond_broadcast(&ring_space);
    pthread_mutex_unlock(&ring_mx);
    TL_SCHED_BACKEND("consume", NULL);
  }
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return NULL;
}

static char text_a[1 << 16], text_b[1 << 16];

/* runs with the given choices (fresh: in a child) and renders the trace into buf */
static size_t trace_of(const uint32_t *choices, uint32_t n, int fresh, char *buf,
                       tl_sched_result *r) {
  tl_sched_source *s = tl_sched_source_recorded(choices, n);
  tl_sched_config c = sc_config(ring_program, s);
  c.fresh_process = fresh;
  tl_sched_run(&c, r);
  tl_sched_source_free(s);
  return tl_sched_trace_text(r, buf, sizeof text_a);
}

static void test_same_choices_same_bytes(void) {
  tl_sched_source *rnd = tl_sched_source_random(42, 300);
  tl_sched_config c = sc_config(ring_program, rnd);
  tl_sched_result first, again;
  memset(&first, 0, sizeof first);
  memset(&again, 0, sizeof again);
  CHECK(tl_sched_run(&c, &first) == 0 && first.outcome == TL_SCHED_COMPLETED);
  CHECK(first.n_choices > 10);
  size_t la = tl_sched_trace_text(&first, text_a, sizeof text_a);
  for (int fresh = 0; fresh <= 1; fresh++) {
    size_t lb = trace_of(first.choices, first.n_choices, fresh, text_b, &again);
    CHECK(la == lb && memcmp(text_a, text_b, la) == 0);
    CHECK(again.n_events == first.n_events &&
          memcmp(again.events, first.events, first.n_events * sizeof(tl_sched_event)) == 0);
  }
  tl_sched_result_free(&first);
  tl_sched_result_free(&again);
  tl_sched_source_free(rnd);
}

static void test_same_seed_same_run(void) {
  size_t len[2];
  char *buf[2] = {text_a, text_b};
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < 2; i++) {
    tl_sched_source *s = tl_sched_source_pct(77, 3, 80);
    tl_sched_config c = sc_config(ring_program, s);
    for (int k = 0; k < 5; k++) tl_sched_run(&c, &r); /* the fifth run of the stream */
    len[i] = tl_sched_trace_text(&r, buf[i], sizeof text_a);
    tl_sched_source_free(s);
  }
  CHECK(len[0] == len[1] && memcmp(text_a, text_b, len[0]) == 0);
  tl_sched_result_free(&r);
}

static void test_out_of_range_modulo(void) {
  uint32_t wild[64];
  for (uint32_t i = 0; i < 64; i++) wild[i] = 1000003u * (i + 1); /* far out of range */
  tl_sched_result r1, r2;
  memset(&r1, 0, sizeof r1);
  memset(&r2, 0, sizeof r2);
  size_t la = trace_of(wild, 64, 0, text_a, &r1);
  CHECK(r1.outcome == TL_SCHED_COMPLETED);
  int in_range = 1;
  for (uint32_t i = 0; i < r1.n_choices; i++) {
    in_range &= r1.choices[i] < r1.widths[i];
    in_range &= r1.choices[i] == wild[i] % r1.widths[i];
  }
  CHECK(in_range);
  size_t lb = trace_of(r1.choices, r1.n_choices, 0, text_b, &r2);
  CHECK(la == lb && memcmp(text_a, text_b, la) == 0);
  tl_sched_result_free(&r1);
  tl_sched_result_free(&r2);
}

void suite_determinism(void) {
  sc_run("determinism: same choices, same trace bytes, here and in a fresh process",
         test_same_choices_same_bytes);
  sc_run("determinism: same seed, same run", test_same_seed_same_run);
  sc_run("determinism: out-of-range choices are taken modulo the options",
         test_out_of_range_modulo);
}
