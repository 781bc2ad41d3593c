/*
 * Decode tokens per second of the C tier on a real engine library, with its event log on
 * or off: what logging costs a real run (the number the README's "Checking a run of your
 * own engine" reports, measured on the H200 by scripts/gpu/remote_trace_cost.sh).
 *
 * The run: an engine over DEVICES devices, LAYERS x EXPERTS int4 experts of HIDDEN x FFN
 * held as RAM copies; a warmstart (plan_fill, note_planned of every planned expert,
 * fill_wait); then TOKENS decode tokens, each layer routing TOPK experts (a fixed
 * pseudo-random sequence, the same every run): note each routed expert, issue, take, as
 * an engine's decode loop does; then shutdown. Only the decode is timed. With --log FILE
 * every event goes to FILE as NDJSON (the tier's file sink), which check-trace reads.
 * Usage: tier_decode_rate [--devices N] [--layers L] [--experts E] [--hidden H] [--ffn F]
 *                         [--topk K] [--tokens T] [--log FILE]
 * Prints one line: "decode: T tokens in S s: R tokens/s (log on|off, N events)"; exit 0,
 * 1 when a call failed, 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tests/engine_fixture.h"
#include "../../tests/expert_gen.h"
#include "../engine_backend.h"
#include "../tt_events.h"

typedef struct args {
  int devices, layers, experts, hidden, ffn, topk, tokens;
  const char *log;
} args;

static int parse(int argc, char **argv, args *a) {
  *a = (args){1, 8, 32, 1024, 512, 4, 200, NULL};
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i];
    if (i + 1 >= argc) return -1;
    const char *v = argv[++i];
    int n = atoi(v);
    if (strcmp(k, "--log") == 0)
      a->log = v;
    else if (strcmp(k, "--devices") == 0)
      a->devices = n;
    else if (strcmp(k, "--layers") == 0)
      a->layers = n;
    else if (strcmp(k, "--experts") == 0)
      a->experts = n;
    else if (strcmp(k, "--hidden") == 0)
      a->hidden = n;
    else if (strcmp(k, "--ffn") == 0)
      a->ffn = n;
    else if (strcmp(k, "--topk") == 0)
      a->topk = n;
    else if (strcmp(k, "--tokens") == 0)
      a->tokens = n;
    else
      return -1;
  }
  if (a->devices < 1 || a->layers < 1 || a->experts < 1 || a->hidden < 32 || a->ffn < 32 ||
      a->topk < 1 || a->topk > a->experts || a->topk > 32 || a->tokens < 1)
    return -1;
  return 0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* TOKENS tokens of decode; -1 when a call failed. */
static int decode(tt_tier *tier, const args *a, tl_ram **ram) {
  float *x = malloc(sizeof(float) * (size_t)a->hidden);
  float *y = malloc(sizeof(float) * (size_t)a->hidden * (size_t)a->topk);
  uint64_t rng = 42;
  int route[32];
  uint8_t mask[32];
  int bad = x == NULL || y == NULL;
  if (!bad) tg_fill(&rng, x, (size_t)a->hidden, -1.0f, 1.0f);
  for (int t = 0; t < a->tokens && !bad; t++)
    for (int l = 0; l < a->layers && !bad; l++) {
      int first = (int)(tg_next(&rng) % (uint64_t)a->experts);
      for (int i = 0; i < a->topk; i++) {
        route[i] = (first + i * 7) % a->experts;
        tt_note(tier, l, route[i], ram[l * a->experts + route[i]]);
      }
      bad = tt_issue(tier, l, route, a->topk, x, mask) < 0 ||
          tt_take(tier, y, a->topk, a->hidden) < 0;
    }
  free(x);
  free(y);
  return bad ? -1 : 0;
}

static int run(const args *a, tl_engine *eng, tl_ram **ram, const tg_expert *ex0, tt_log *log) {
  tt_engine_backend eb;
  tt_backend be;
  if (tt_engine_backend_init(&eb, eng, log, &be) != 0) return -1;
  tt_tier *tier = tt_create(&be, log);
  tt_config cfg;
  tt_config_defaults(&cfg);
  cfg.layers = a->layers;
  cfg.experts = a->experts;
  cfg.topk = a->topk;
  cfg.hidden = a->hidden;
  cfg.format = TL_FMT_I4_ROW;
  cfg.ram_capacity = a->experts;
  for (int p = 0; p < 3; p++) {
    cfg.weight_bytes[p] = ex0->wbytes[p];
    cfg.scale_bytes[p] = 4 * ex0->nscales[p];
  }
  /* room for every expert on its home device (expert e lives on device e % devices) */
  uint64_t per_dev = (uint64_t)a->layers * (uint64_t)((a->experts + a->devices - 1) / a->devices);
  for (int d = 0; d < a->devices; d++) cfg.budget_bytes[d] = per_dev * tt_expert_bytes(&cfg);
  tt_init_result res;
  int n = a->layers * a->experts;
  tt_key *keys = malloc(sizeof(tt_key) * (size_t)n);
  int ok = keys != NULL && tt_init(tier, &cfg, &res) == TT_INIT_ACTIVE;
  int planned = ok ? tt_plan_fill(tier, keys, n) : 0;
  for (int i = 0; i < planned; i++)
    tt_note_planned(tier, keys[i].layer, keys[i].eid,
                    ram[keys[i].layer * a->experts + keys[i].eid]);
  ok = ok && tt_fill_wait(tier) == TT_FILL_DONE;
  double t0 = now();
  ok = ok && decode(tier, a, ram) == 0;
  double secs = now() - t0;
  tt_shutdown(tier);
  tt_destroy(tier);
  free(keys);
  if (!ok) return -1;
  printf("decode: %d tokens in %.3f s: %.1f tokens/s (log %s, %d of %d experts resident)\n",
         a->tokens, secs, a->tokens / secs, log != NULL ? "on" : "off", planned, n);
  return 0;
}

int main(int argc, char **argv) {
  args a;
  if (parse(argc, argv, &a) != 0) {
    fprintf(stderr,
            "tier_decode_rate: usage: tier_decode_rate [--devices N] [--layers L] "
            "[--experts E] [--hidden H] [--ffn F] [--topk K (<= 32)] [--tokens T] "
            "[--log FILE]\n");
    return 2;
  }
  char err[512];
  tl_engine *eng = fx_engine(a.devices, 0);
  int n = a.layers * a.experts;
  tg_expert *ex = calloc((size_t)n, sizeof *ex);
  tl_ram **ram = calloc((size_t)n, sizeof *ram);
  uint64_t rng = 1234;
  int bad = eng == NULL || ex == NULL || ram == NULL;
  for (int i = 0; i < n && !bad; i++)
    bad = tg_expert_make(&ex[i], &rng, TL_FMT_I4_ROW, a.hidden, a.ffn, 0) != 0 ||
        tg_expert_ram(eng, &ex[i], &ram[i], err, sizeof err) != TL_OK;
  tt_ndjson_sink file;
  tt_log log;
  if (!bad && a.log != NULL) {
    if (tt_ndjson_sink_open(&file, a.log, 1u << 20) != 0) {
      fprintf(stderr, "tier_decode_rate: --log %s: cannot be written\n", a.log);
      return 2;
    }
    tt_log_init(&log, tt_ndjson_sink_as_sink(&file));
  }
  if (!bad) bad = run(&a, eng, ram, &ex[0], a.log != NULL ? &log : NULL) != 0;
  if (a.log != NULL && !bad && tt_ndjson_sink_close(&file) != 0) bad = 1;
  for (int i = 0; i < n && ex != NULL && ram != NULL; i++) {
    if (ram[i] != NULL) tl_ram_free(eng, ram[i], err, sizeof err);
    tg_expert_free(&ex[i]);
  }
  if (eng != NULL) tl_engine_destroy(eng, err, sizeof err);
  free(ex);
  free(ram);
  if (bad) fprintf(stderr, "tier_decode_rate: the run failed\n");
  return bad ? 1 : 0;
}
