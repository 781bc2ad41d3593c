/**
 * COMP-EXACT-ONCE at the moment a token-layer's experts are combined, the one check both
 * worlds run: every routed expert contributes exactly once, in route order, and each
 * contribution was computed by that expert from this token-layer's input.
 */
import type { Contribution } from '../ops.js';
import { Violation } from './violation.js';

/** Where an output really came from (the world records it with the output). */
export interface Provenance {
  readonly token: number;
  readonly layer: number;
  readonly eid: number;
}

/** Every token-layer combined so far: each exactly once, each checked. */
export class CombineLedger {
  private readonly seen = new Set<number>();
  combines = 0;

  constructor(private readonly layers: number) {}

  record(
    token: number,
    layer: number,
    routed: readonly number[],
    parts: readonly Contribution[],
    provenance: (p: Contribution) => Provenance,
  ): void {
    const key = token * this.layers + layer;
    if (this.seen.has(key)) throw new Violation('COMP-EXACT-ONCE', `token ${token} layer ${layer} combined twice`);
    this.seen.add(key);
    this.combines++;
    checkCombined(token, layer, routed, parts, provenance);
  }
}

function checkCombined(
  token: number,
  layer: number,
  routed: readonly number[],
  parts: readonly Contribution[],
  provenance: (p: Contribution) => Provenance,
): void {
  const got = parts.map((p) => p.eid);
  if (got.length !== routed.length || got.some((e, i) => e !== routed[i])) {
    throw new Violation(
      'COMP-EXACT-ONCE',
      `token ${token} layer ${layer}: combined experts [${got.join(',')}] in that order, routed [${routed.join(',')}]`,
    );
  }
  for (const p of parts) {
    const out = provenance(p);
    if (out.token !== token || out.layer !== layer || out.eid !== p.eid) {
      throw new Violation(
        'COMP-EXACT-ONCE',
        `token ${token} layer ${layer}: expert ${p.eid}'s output (${p.where}) was computed as token ${out.token} layer ${out.layer} expert ${out.eid}`,
      );
    }
  }
}

/** COMP-MISS-WEIGHTS: an expert computed on the CPU must have RAM weights. */
export function requireCpuWeights<R>(layer: number, eid: number, ram: R | null): R {
  if (ram === null)
    throw new Violation('COMP-MISS-WEIGHTS', `L${layer}E${eid} computed on the CPU with no RAM weights`);
  return ram;
}
