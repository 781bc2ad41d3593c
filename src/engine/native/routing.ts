/**
 * Prefer-resident routing on the real engine (PROTOCOL.md, "Routing that prefers
 * residents"): the router's top-M candidates, and the route of a chosen set of experts,
 * both by the library's own tl_route, so the weights are the ones the engine computes
 * for any route: the chosen experts' logits, the others held out (a logit no expert can
 * reach, finite, as tl_route wants), softmax over the chosen in route order (largest
 * logit first, ties to the lower id). No new ability of the native engine is needed.
 */
import type { NativeEngineLib } from './binding.js';
import type { LayerRoute } from './trunk.js';

/** below every logit a router computes; finite, as tl_route refuses non-finite logits */
const HELD_OUT = -3.0e38;

/** The router's `window` largest logits' experts, best first. */
export function routeCandidates(lib: NativeEngineLib, logits: Float32Array, window: number): number[] {
  const r = lib.route(logits, Math.min(window, logits.length));
  if (r.status.code !== 0) throw new Error(`route candidates failed: ${r.status.message}`);
  return Array.from(r.ids);
}

/** The route of exactly `chosen` (its order: the library's route order). */
export function routeAmong(
  lib: NativeEngineLib,
  logits: Float32Array,
  chosen: readonly number[],
  input: Float32Array,
): LayerRoute {
  const held = new Float32Array(logits.length).fill(HELD_OUT);
  for (const e of chosen) held[e] = logits[e] ?? HELD_OUT;
  const r = lib.route(held, chosen.length);
  if (r.status.code !== 0) throw new Error(`route among [${chosen.join(',')}] failed: ${r.status.message}`);
  return { ids: r.ids, weights: r.weights, input };
}
