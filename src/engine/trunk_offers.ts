/**
 * The int8 trunk's matrices as the engine offers them to the tier's placer (PROTOCOL.md,
 * "Dense residents"): by name, layer and bytes, in one fixed order that the driver and
 * the worlds share, so a trunk matrix is known by its offer index everywhere.
 *
 * Order: per layer the router, then the attention projections wq, wk, wv, wo; lm_head
 * last. Each is offered as its int8 rows (rows x cols bytes) and one float32 scale per
 * row (native/MATH.md, "The int8 trunk").
 */
import type { TrunkOffer } from '../tier/config.js';

export const TRUNK_PARTS = ['router', 'wq', 'wk', 'wv', 'wo'] as const;
export type TrunkPart = (typeof TRUNK_PARTS)[number];

export interface TrunkShape {
  readonly layers: number;
  readonly hidden: number;
  readonly experts: number;
  readonly vocab: number;
}

export function trunkIndex(layer: number, part: TrunkPart): number {
  return layer * TRUNK_PARTS.length + TRUNK_PARTS.indexOf(part);
}

export function lmHeadIndex(layers: number): number {
  return layers * TRUNK_PARTS.length;
}

/** rows x cols of one trunk matrix (W[out][in]) */
export function trunkDims(shape: TrunkShape, part: TrunkPart | 'lm_head'): { rows: number; cols: number } {
  const rows = part === 'router' ? shape.experts : part === 'lm_head' ? shape.vocab : shape.hidden;
  return { rows, cols: shape.hidden };
}

export function trunkOffers(shape: TrunkShape): TrunkOffer[] {
  const offer = (name: string, layer: number, part: TrunkPart | 'lm_head'): TrunkOffer => {
    const { rows, cols } = trunkDims(shape, part);
    return { name, layer, weightBytes: rows * cols, scaleBytes: rows * 4 };
  };
  const offers: TrunkOffer[] = [];
  for (let l = 0; l < shape.layers; l++) for (const p of TRUNK_PARTS) offers.push(offer(`L${l}.${p}`, l, p));
  offers.push(offer('lm_head', -1, 'lm_head'));
  return offers;
}
