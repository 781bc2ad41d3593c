/*
 * The event log: a run with real threads written as NDJSON (every line one valid JSON
 * object, every seq once, 1..N with none missing, lines = events written), and the same
 * run in memory (each thread's calls matched by returns, tier events under mx carry
 * their critical section). A tier without a log runs the same scenario.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_check.h"
#include "tt_fixture.h"

#define H 8

/* Warmstart, decode with a swap, and shutdown: most event kinds, from three threads. */
static void scenario(tf_world *w) {
  tt_config *cfg = &w->cfg;
  CHECK(tt_init(w->tier, cfg, NULL) == TT_INIT_ACTIVE);
  tt_key keys[8];
  int n = tt_plan_fill(w->tier, keys, 8);
  for (int i = 0; i < n; i++)
    tt_note_planned(w->tier, keys[i].layer, keys[i].eid, tf_ram(w, keys[i].layer, keys[i].eid));
  CHECK(tt_fill_wait(w->tier) == TT_FILL_DONE);
  for (int i = 0; i < 20; i++) tt_note(w->tier, 0, 6, tf_ram(w, 0, 6));
  float x[H] = {1, 2, 3, 4, 5, 6, 7, 8}, y[2 * H];
  uint8_t mask[2];
  for (int t = 0; t < 32; t++) {
    int route[2] = {t % 2, 6};
    tt_issue(w->tier, 0, route, 2, x, mask);
    tt_take(w->tier, y, 2, H);
  }
  CHECK(tt_fill_wait(w->tier) == TT_FILL_DONE);
  CHECK(tt_shutdown(w->tier) == TT_SHUTDOWN_DONE);
}

static void world_config(tt_config *cfg) { tf_config(cfg, 1, 8, 2); }

static char *read_text(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1u << 20, len = 0;
  char *buf = malloc(cap + 1);
  while (buf != NULL && (len += fread(buf + len, 1, cap - len, f)) == cap) {
    char *more = realloc(buf, 2 * cap + 1);
    if (more == NULL) break;
    buf = more;
    cap *= 2;
  }
  fclose(f);
  if (buf != NULL) buf[len] = '\0';
  *n = len;
  return buf;
}

/* Every line valid; seq 1..lines each once. Returns the line count (-1: a bad line). */
static long check_lines(char *text, size_t n) {
  long lines = 0, bad = 0;
  unsigned char *seen = calloc(n + 2, 1);
  for (char *line = text, *end; line < text + n; line = end + 1) {
    end = strchr(line, '\n');
    if (end == NULL) return -1;
    *end = '\0';
    int found = 0;
    long long seq = jc_int_field(line, "seq", &found);
    if (!jc_is_object(line, (size_t)(end - line)) || !found || seq < 1 || (size_t)seq > n ||
        seen[seq]) {
      if (bad++ == 0) fprintf(stderr, "  bad line: %s\n", line);
    } else {
      seen[seq] = 1;
    }
    lines++;
  }
  for (long s = 1; s <= lines; s++) bad += !seen[s];
  free(seen);
  return bad == 0 ? lines : -1;
}

static void ndjson_log(int buffered) {
  const char *base = getenv("TMPDIR");
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/tt_log_XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
  if (mkdtemp(dir) == NULL) {
    CHECK(!"no temporary folder");
    return;
  }
  snprintf(path, sizeof path, "%s/tier.ndjson", dir);
  tt_ndjson_sink file;
  CHECK(tt_ndjson_sink_open(&file, path, buffered ? 1u << 16 : 0) == 0);
  tf_world w;
  tt_config cfg;
  world_config(&cfg);
  TF_OPEN(&w, &cfg, 2, 1);
  w.log.sink = tt_ndjson_sink_as_sink(&file);
  scenario(&w);
  size_t written = atomic_load(&file.lines);
  CHECK(tt_ndjson_sink_close(&file) == 0);
  w.log.sink = tt_mem_sink_as_sink(&w.mem);
  tf_close(&w);
  size_t n = 0;
  char *text = read_text(path, &n);
  CHECK(text != NULL && n > 0);
  long lines = text != NULL ? check_lines(text, n) : -1;
  CHECK(lines > 100 && (size_t)lines == written);
  free(text);
  unlink(path);
  rmdir(dir);
}

static void ndjson_log_parses(void) { ndjson_log(0); }
static void ndjson_buffered_log_parses(void) { ndjson_log(1); }

/* In memory: calls and returns pair up per thread; events under mx carry a section. */
static void memory_log_is_consistent(void) {
  tf_world w;
  tt_config cfg;
  world_config(&cfg);
  TF_OPEN(&w, &cfg, 2, 1);
  scenario(&w);
  tt_mem_sink_sort(&w.mem);
  size_t n = tt_mem_sink_count(&w.mem);
  int open_calls = 0, bad = 0, kinds[TT_EV_COUNT] = {0};
  uint64_t last = 0;
  for (size_t i = 0; i < n; i++) {
    const tt_event *e = &w.mem.events[i];
    bad += e->seq <= last;
    last = e->seq;
    kinds[e->kind]++;
    if (e->kind == TT_EV_CALL) open_calls++;
    if (e->kind == TT_EV_RET) open_calls--;
    if (e->src == TT_SRC_TIER && e->lk == TT_LK_MX) bad += e->sec == 0;
  }
  CHECK(bad == 0 && open_calls == 0);
  CHECK(kinds[TT_EV_ENQUEUE] > 0 && kinds[TT_EV_DEQUEUE] == kinds[TT_EV_ENQUEUE]);
  CHECK(kinds[TT_EV_UPLOAD_DONE] == kinds[TT_EV_ENQUEUE] && kinds[TT_EV_SWAP_CHOSEN] >= 1);
  CHECK(kinds[TT_EV_BE_ALLOC] == 3 * kinds[TT_EV_UPLOAD_DONE] &&
        kinds[TT_EV_BE_FREE] == kinds[TT_EV_BE_ALLOC]);
  CHECK(kinds[TT_EV_GATE_STATE] == 3); /* DEAD -> LIVE -> TEARING_DOWN -> DEAD */
  for (int k = 0; k < TT_EV_COUNT; k++) CHECK(strcmp(tt_event_kind_name(k), "unknown") != 0);
  tf_close(&w);
}

static void no_log(void) {
  tf_world w;
  tt_config cfg;
  world_config(&cfg);
  TF_OPEN(&w, &cfg, 2, 1);
  tt_backend be;
  fb_backend(w.fake, &be);
  tt_destroy(w.tier);
  w.tier = tt_create(&be, NULL);
  size_t before = tt_mem_sink_count(&w.mem);
  scenario(&w);
  fb_ledger l;
  fb_ledger_get(w.fake, &l);
  CHECK(l.uploads > 0 && l.violations == 0);
  /* the fake still logs its own records; the tier logged nothing */
  size_t n = tt_mem_sink_count(&w.mem);
  int tier = 0;
  for (size_t i = before; i < n; i++) tier += w.mem.events[i].src != TT_SRC_BACKEND;
  CHECK(tier == 0);
  tf_close(&w);
}

void suite_tier_events(void) {
  th_run("events: an NDJSON log of a threaded run, every line valid, every seq once",
         ndjson_log_parses);
  th_run("events: the same log through per-thread buffers", ndjson_buffered_log_parses);
  th_run("events: the in-memory log pairs calls and returns", memory_log_is_consistent);
  th_run("events: a tier without a log", no_log);
}
