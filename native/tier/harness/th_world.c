/*
 * The engine's world around the tier, as tierlab's simulator has it
 * (model/sim_engine/sim_world.ts): the fault plan, the RAM copies the engine lends, the
 * expert input of each token-layer and the provenance an output row carries.
 *
 * Faults: the scenario names, per site, the 0-based calls that fail over the whole run;
 * the fake backend's hook asks here at every entry (upload, issue, take, stage, the host
 * arrays, the sync objects, the uploader's start), the driver for the warmstart's loads.
 * RAM: the fake backend's RAM objects (it checks each staging copy against them); the
 * engine keeps one current copy per expert, as the simulator's RAM pool does.
 * Inputs and outputs: the input of token t, layer l is x = (1 + t*layers + l, 1, 0); the
 * fake computes y = x*(eid+1) + layer/4 from the expert its tensors hold, so an output row
 * says which token-layer's input and which expert made it (th_provenance).
 */
#include <math.h>

#include "../fake_internal.h"
#include "th_internal.h"

int th_faults(const th_scenario *sc, int site, uint64_t nth) {
  for (int i = 0; i < sc->nfaults[site]; i++)
    if (sc->faults[site][i] == nth) return 1;
  return 0;
}

int th_fault_hook(void *arg, int site, uint64_t nth, int dev) {
  const th_engine *e = arg;
  (void)dev;
  switch (site) {
    case FB_UPLOAD:
      return th_faults(e->sc, TH_SITE_UPLOAD, nth);
    case FB_ISSUE:
      return th_faults(e->sc, TH_SITE_ISSUE, nth);
    case FB_TAKE:
      return th_faults(e->sc, TH_SITE_TAKE, nth);
    case FB_STAGE:
      return th_faults(e->sc, TH_SITE_STAGE, nth);
    case FB_HOST_ALLOC:
      return th_faults(e->sc, TH_SITE_ALLOC, nth);
    case FB_SYNC_INIT:
      return th_faults(e->sc, TH_SITE_SYNC, nth);
    case FB_THREAD_START:
      return th_faults(e->sc, TH_SITE_SPAWN, nth);
    default:
      return 0;
  }
}

uint64_t th_ram_id(const void *ram) { return ram != NULL ? ((const fb_obj *)ram)->id : 0; }

static void **slot(th_engine *e, int layer, int eid) {
  return &e->ram[(size_t)layer * (size_t)e->sc->experts + (size_t)eid];
}

void *th_ram_current(th_engine *e, int layer, int eid) {
  void *ram = *slot(e, layer, eid);
  th_log_engine(e->log, TH_EV_RAM, layer, eid, (int)th_ram_id(ram), 0, 0, 0, 0);
  return ram;
}

/* why: 1 warmstart (may fail by the plan), 2 the CPU, 3 streamed */
void *th_ram_load(th_engine *e, int layer, int eid, int why) {
  void *ram = NULL;
  int failed = why == 1 && th_faults(e->sc, TH_SITE_LOAD, e->warmstart_loads++);
  if (!failed) {
    ram = fb_ram_new(e->fake, layer, eid);
    *slot(e, layer, eid) = ram;
  }
  th_log_engine(e->log, TH_EV_RAM, layer, eid, (int)th_ram_id(ram), why, 0, 0, 0);
  return ram;
}

void th_ram_free(th_engine *e, int layer, int eid) {
  void **s = slot(e, layer, eid);
  void *ram = *s;
  if (ram != NULL) {
    fb_ram_free(e->fake, ram);
    *s = NULL;
  }
  th_log_engine(e->log, TH_EV_RAM_FREE, layer, eid, (int)th_ram_id(ram), 0, 0, 0, 0);
}

void th_ram_recycle(th_engine *e, void *ram) {
  const fb_obj *o = ram;
  void **s = slot(e, o->layer, o->eid);
  if (*s == ram) *s = NULL;
  if (o->alive) fb_ram_free(e->fake, ram);
  th_log_engine(e->log, TH_EV_RECYCLE, (int)th_ram_id(ram), 0, 0, 0, 0, 0, 0);
}

void th_input(const th_scenario *sc, int token, int layer, float *x) {
  x[0] = (float)(1 + token * sc->layers + layer);
  x[1] = 1.0f;
  x[2] = 0.0f;
}

/* y = x*(eid+1) + layer/4: y2 names the layer, y1 the expert, y0 the input's token-layer.
 * A row nobody wrote (NaN) or that fits no input says token -1. */
void th_provenance(const th_scenario *sc, const float *y, int *token, int *layer, int *eid) {
  *token = *layer = *eid = -1;
  if (isnan(y[0]) || isnan(y[1]) || isnan(y[2])) return;
  double l = (double)y[2] * 4.0, e1 = (double)y[1] - (double)y[2];
  if (l < 0 || l != floor(l) || e1 < 1 || e1 != floor(e1)) return;
  double a = ((double)y[0] - (double)y[2]) / e1;
  if (a < 1 || a != floor(a)) return;
  long in = (long)a - 1;
  *token = (int)(in / sc->layers);
  *layer = (int)(in % sc->layers);
  /* the device computed the expert its tensors hold: it is this layer's only if it says so */
  *eid = (int)l == *layer ? (int)e1 - 1 : -1;
}
