/**
 * The warmstart's own calls (PROTOCOL.md, "plan_fill", "fill_wait"), and the engine's
 * RAM bookkeeping around it:
 *  - plan_fill reserves, in heat order (heat file: hottest first, then layer, then
 *    expert) or natural order, each expert that fits its home device and is not already
 *    resident, queued or planned, until every device is full: the plan is maximal;
 *  - fill_wait waits on cv_take while anything is in flight and not stopping;
 *  - release_ram: the engine may free an expert's RAM copy only when it is resident, and
 *    the tier forgets the pointer first; resident_count reads residency.
 */
import type { Step } from './io.js';
import { home, type SpecKey, type SpecState } from './state.js';
import { UNLOCK, WAIT_TAKE, type SpecCall } from './call.js';

export class PlanFillCall implements SpecCall {
  readonly family = 'SPEC-PLAN' as const;
  private keys: SpecKey[] | null = null;

  step(s: SpecState): Step {
    if (this.keys !== null) return { returned: { fn: 'plan_fill', keys: this.keys } };
    this.keys = plan(s);
    return UNLOCK;
  }
}

function plan(s: SpecState): SpecKey[] {
  const order: SpecKey[] = [];
  s.slots.forEach((row, layer) => row.forEach((_, eid) => order.push({ layer, eid })));
  if (s.cfg.heatFile) {
    const heat = (k: SpecKey): number => s.slots[k.layer]?.[k.eid]?.heat ?? 0;
    // the sort is stable and `order` is layer-major: equal heats stay in layer, then expert order
    order.sort((a, b) => heat(b) - heat(a));
  }
  const full = new Set<number>();
  const out: SpecKey[] = [];
  for (const k of order) {
    if (s.stop || full.size === s.cfg.devices) break;
    const dev = home(s, k.eid);
    const x = s.slots[k.layer]?.[k.eid];
    if (x === undefined || full.has(dev) || x.resident || x.queued || x.planned) continue;
    if ((s.used[dev] ?? 0) + s.exp > (s.budget[dev] ?? 0)) {
      full.add(dev);
      continue;
    }
    s.used[dev] = (s.used[dev] ?? 0) + s.exp;
    x.planned = true;
    out.push(k);
  }
  return out;
}

export class FillWaitCall implements SpecCall {
  readonly family = 'SPEC-FILL' as const;
  private value: 'done' | 'stopped' | null = null;

  step(s: SpecState): Step {
    if (this.value !== null) return { returned: { fn: 'fill_wait', value: this.value } };
    if (s.inflight > 0 && !s.stop) return WAIT_TAKE;
    this.value = s.stop ? 'stopped' : 'done';
    return UNLOCK;
  }
}

export class ReleaseRamCall implements SpecCall {
  readonly family = 'SPEC-ENQUEUE' as const;
  private value: boolean | null = null;
  constructor(private readonly key: SpecKey) {}

  step(s: SpecState): Step {
    if (this.value !== null) return { returned: { fn: 'bool', value: this.value } };
    const x = s.slots[this.key.layer]?.[this.key.eid];
    this.value = x?.resident === true;
    if (x !== undefined && this.value) x.ram = false;
    return UNLOCK;
  }
}

export class ResidentCountCall implements SpecCall {
  readonly family = 'SPEC-STATE' as const;
  private value: number | null = null;

  step(s: SpecState): Step {
    if (this.value !== null) return { returned: { fn: 'count', value: this.value } };
    let n = 0;
    for (const row of s.slots) for (const x of row) if (x.resident) n++;
    this.value = n;
    return UNLOCK;
  }
}
