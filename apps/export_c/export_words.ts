/**
 * A harness scenario's flat words (model/ctier/harness_config.ts, native/tier/harness/th.h
 * TH_CFG_*) read back into named fields, for the exported C test: the test runs exactly
 * the scenario the harness ran, so it is written from the same words, not from a second
 * mapping of the Scenario that could drift from the first.
 *
 * Invariant: the reading order is th_config.c's (fixed words, trunk, routes, experts with
 * no RAM copy, faults); words left over or missing are an error, never a guess.
 */
import { FAULT_SITES } from '../../src/engine/fault_sites.js';

export const MAX_DEVICES = 8;

/** The fixed words, in order, by their C field names (tx_scenario in native/tier/export/tx_body.h). */
const FIXED: readonly (readonly [string, number])[] = [
  ['magic', 1],
  ['version', 1],
  ['devices', 1],
  ['layers', 1],
  ['experts', 1],
  ['topk', 1],
  ['format', 1],
  ['group', 1],
  ['ram_capacity', 1],
  ['weight_bytes', 3],
  ['scale_bytes', 3],
  ['reserve_bytes', 1],
  ['ring_capacity', 1],
  ['want_swaps', 1],
  ['streaming', 1],
  ['reclaims', 1],
  ['swap_period', 1],
  ['decay_period', 1],
  ['start_tick', 1],
  ['warmstart', 1],
  ['loaders', 1],
  ['tokens', 1],
  ['refill_after', 1],
  ['runs', 1],
  ['init_twice', 1],
  ['dense_while_open', 1],
  ['careless', 1],
  ['shutdown_phase', 1],
  ['shutdown_own', 1],
  ['shutdown_token', 1],
  ['shutdown_layer', 1],
  ['shutdown_open', 1],
  ['heat_file', 1],
  ['sync_uploads', 1],
  ['evict_capacity', 1],
  ['init_racer', 1],
  ['second_shutdown', 1],
  ['evicted_poll', 1],
  ['budget', MAX_DEVICES],
  ['capacity', MAX_DEVICES],
];

export interface TrunkWords {
  readonly layer: number;
  readonly weightBytes: number;
  readonly scaleBytes: number;
}

export interface ScenarioWords {
  /** every fixed field by name: one number, or an array for the multi-word fields */
  readonly fixed: ReadonlyMap<string, readonly number[]>;
  readonly trunk: readonly TrunkWords[];
  /** tokens x layers routes of one run */
  readonly routes: readonly (readonly number[])[];
  readonly noRam: readonly { readonly layer: number; readonly eid: number }[];
  /** per fault site (FAULT_SITES' order): the 0-based calls that fail */
  readonly faults: readonly (readonly number[])[];
}

class Reader {
  at = 0;
  constructor(private readonly w: Float64Array) {}
  take(what: string): number {
    const v = this.w[this.at];
    if (v === undefined) throw new Error(`the harness scenario ends before ${what} (word ${this.at})`);
    this.at++;
    return v;
  }
  list(n: number, what: string): number[] {
    return Array.from({ length: n }, () => this.take(what));
  }
}

export function readScenarioWords(words: Float64Array): ScenarioWords {
  const r = new Reader(words);
  const fixed = new Map<string, readonly number[]>();
  for (const [name, n] of FIXED) fixed.set(name, r.list(n, name));
  const one = (name: string): number => fixed.get(name)?.[0] ?? 0;
  const trunk = Array.from({ length: r.take('trunk count') }, () => ({
    layer: r.take('trunk layer'),
    weightBytes: r.take('trunk weight bytes'),
    scaleBytes: r.take('trunk scale bytes'),
  }));
  const routes = Array.from({ length: one('tokens') * one('layers') }, () => r.list(r.take('route length'), 'route'));
  const noRam = Array.from({ length: r.take('experts without RAM') }, () => ({
    layer: r.take('layer without RAM'),
    eid: r.take('expert without RAM'),
  }));
  const faults = FAULT_SITES.map((site) => r.list(r.take(`${site} faults`), `${site} fault`));
  if (r.at !== words.length) throw new Error(`the harness scenario has ${words.length - r.at} words left over`);
  return { fixed, trunk, routes, noRam, faults };
}
