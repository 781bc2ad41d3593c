/**
 * Growing scenarios for the cost curve: the default scenario
 * (properties/scenarios/default.json) with one dimension grown at a time, experts,
 * devices, loaders, tokens, so the table shows what each one costs per step and per schedule.
 *
 * Invariants: every grown scenario stays valid (budgets per device, routes of distinct
 * experts, topk unchanged) and deterministic; only the named dimension changes.
 */
import type { Scenario } from '../../../model/scenario/scenario.js';

export interface Grown {
  readonly dimension: 'experts' | 'devices' | 'loaders' | 'tokens';
  readonly value: number;
  readonly scenario: Scenario;
}

/** Routes of `tokens` tokens over `experts` experts: topk distinct ids, spread and skewed. */
function routesFor(tokens: number, layers: number, experts: number, topk: number): number[][][] {
  const routes: number[][][] = [];
  for (let t = 0; t < tokens; t++) {
    const perLayer: number[][] = [];
    for (let l = 0; l < layers; l++) {
      const ids: number[] = [];
      for (let k = 0; ids.length < topk; k++) {
        const id = (t * 3 + l + k * 5 + ((k * k * t) % 7)) % experts;
        if (!ids.includes(id)) ids.push(id);
      }
      perLayer.push(ids);
    }
    routes.push(perLayer);
  }
  return routes;
}

export function grow(base: Scenario, dimension: Grown['dimension'], value: number): Scenario {
  const experts = dimension === 'experts' ? value : base.experts;
  const devices = dimension === 'devices' ? value : base.devices;
  const tokens = dimension === 'tokens' ? value : base.routes.length;
  const perDevice = Math.max(1, Math.floor((base.layers * experts * 3) / (8 * devices)));
  return {
    ...base,
    experts,
    ramCapacity: experts,
    devices,
    loaders: dimension === 'loaders' ? value : base.loaders,
    budgetExperts: new Array<number>(devices).fill(perDevice),
    capacityExperts: new Array<number | null>(devices).fill(null),
    routes:
      dimension === 'experts' || dimension === 'tokens'
        ? routesFor(tokens, base.layers, experts, base.topk)
        : base.routes,
  };
}

export const GROWTH: Readonly<Record<Grown['dimension'], readonly number[]>> = {
  experts: [8, 16, 32, 64, 512],
  devices: [1, 2, 4],
  loaders: [1, 2, 4, 8],
  tokens: [6, 24, 96],
};

export function grownScenarios(base: Scenario): Grown[] {
  const out: Grown[] = [];
  for (const dimension of Object.keys(GROWTH) as Grown['dimension'][]) {
    for (const value of GROWTH[dimension]) out.push({ dimension, value, scenario: grow(base, dimension, value) });
  }
  return out;
}
