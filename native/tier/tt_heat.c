/*
 * The heat file (PROTOCOL.md, "Heat file"): magic 0x51544831 ("QTH1"), the layer and
 * expert counts (u32), then one u32 heat per expert in layer-major order, all little
 * endian. Read by init (halved on load), written by shutdown (outside the lock, from the
 * heats encoded under it).
 *
 * A file of another shape (wrong magic, other counts, truncated, trailing bytes) is not
 * this model's heat: it is ignored whole and the warmstart plans in natural order, as
 * if there were no file (the seed is silent; the TypeScript tier and the reference chose
 * the same: ignoring it whole never plans by a neighbour's heat). A file that cannot be
 * read is a missing file: heat is advice, never a reason to fail an init.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tt_state.h"

#define HEADER_BYTES 12u

size_t tt_heat_file_bytes(int layers, int experts) {
  return HEADER_BYTES + 4u * (size_t)layers * (size_t)experts;
}

static void put_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void tt_heat_encode(const uint32_t *heat, int layers, int experts, uint8_t *out) {
  put_u32(out, TT_HEAT_MAGIC);
  put_u32(out + 4, (uint32_t)layers);
  put_u32(out + 8, (uint32_t)experts);
  size_t n = (size_t)layers * (size_t)experts;
  for (size_t i = 0; i < n; i++) put_u32(out + HEADER_BYTES + 4 * i, heat[i]);
}

int tt_heat_decode(const uint8_t *bytes, size_t n, int layers, int experts, uint32_t *heat) {
  if (bytes == NULL || n != tt_heat_file_bytes(layers, experts)) return 0;
  if (get_u32(bytes) != TT_HEAT_MAGIC || get_u32(bytes + 4) != (uint32_t)layers ||
      get_u32(bytes + 8) != (uint32_t)experts)
    return 0;
  size_t count = (size_t)layers * (size_t)experts;
  for (size_t i = 0; i < count; i++) heat[i] = get_u32(bytes + HEADER_BYTES + 4 * i);
  return 1;
}

/* The whole file, up to want + 1 bytes (one more than a file of this shape: a longer
 * file is another shape); NULL when missing or unreadable. */
static uint8_t *read_file(const char *path, size_t want, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  uint8_t *buf = malloc(want + 1);
  *n = buf != NULL ? fread(buf, 1, want + 1, f) : 0;
  int bad = buf == NULL || ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Init's heat stage (exclusive section): heats halved from a file of this shape. Returns
 * 1 loaded, 0 no file, -1 a file of another shape (ignored). */
int tt_heat_load(tt_tier *t) {
  tt_gen *g = &t->g;
  size_t want = tt_heat_file_bytes(g->cfg.layers, g->cfg.experts), n = 0;
  uint8_t *bytes = read_file(g->cfg.heat_path, want, &n);
  if (bytes == NULL) return 0;
  size_t count = (size_t)g->cfg.layers * (size_t)g->cfg.experts;
  uint32_t *heat = malloc(count * sizeof *heat);
  int ok = heat != NULL && tt_heat_decode(bytes, n, g->cfg.layers, g->cfg.experts, heat);
  if (ok)
    for (size_t i = 0; i < count; i++) {
      g->slots[i].heat = heat[i] >> 1;
      int layer = (int)(i / (size_t)g->cfg.experts), eid = (int)(i % (size_t)g->cfg.experts);
      if (g->slots[i].heat != 0 && TT_LOGGING(t))
        tt_ev(t, TT_EV_HEAT_SET, layer, eid, tt_home(g, eid), 0, 0);
    }
  free(heat);
  free(bytes);
  return ok ? 1 : -1;
}

/* Written whole; a torn write leaves a file of another shape, which the next init
 * ignores. 0, or -1 when the file could not be written. */
int tt_heat_save(tt_tier *t, const uint8_t *bytes, size_t n) {
  FILE *f = fopen(t->g.cfg.heat_path, "wb");
  if (f == NULL) return -1;
  int ok = fwrite(bytes, 1, n, f) == n;
  if (fclose(f) != 0) ok = 0;
  return ok ? 0 : -1;
}
