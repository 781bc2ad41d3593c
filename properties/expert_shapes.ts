/**
 * Expert shapes for the generators: the byte sizes the engine really uploads for an
 * expert of a given hidden size, width and format, so the footprints the tier charges
 * are the real ones (the seed's 64 x 2048 int8 expert is 458,752 bytes) and every branch
 * of the allocator rule is reached.
 *
 * gate and up are [width x hidden], down is [hidden x width]. Weights: int8 and fp8 one
 * byte each, int4 half a byte. Scales (float32): per row; per group of `group` weights
 * for grouped int4; per 128 x 128 block for fp8.
 */
import type { ExpertFormat } from '../src/tier/config.js';

export interface ExpertShape {
  readonly hidden: number;
  readonly width: number;
  readonly format: ExpertFormat;
  readonly group: number;
}

export interface ExpertBytes {
  readonly weightBytes: readonly [number, number, number];
  readonly scaleBytes: readonly [number, number, number];
}

function tensorBytes(rows: number, cols: number, s: ExpertShape): [number, number] {
  const weights = s.format === 1 || s.format === 8 ? rows * cols : Math.ceil((rows * cols) / 2);
  const scales =
    s.format === 4 && s.group > 0
      ? rows * Math.ceil(cols / s.group) * 4
      : s.format === 8
        ? Math.ceil(rows / 128) * Math.ceil(cols / 128) * 4
        : rows * 4;
  return [weights, scales];
}

export function expertBytesOf(s: ExpertShape): ExpertBytes {
  const gate = tensorBytes(s.width, s.hidden, s);
  const down = tensorBytes(s.hidden, s.width, s);
  return { weightBytes: [gate[0], gate[0], down[0]], scaleBytes: [gate[1], gate[1], down[1]] };
}

/** From the tiny fixtures to the seeds' real experts; every allocator branch is hit. */
export const EXPERT_SHAPES: readonly ExpertShape[] = [
  { hidden: 64, width: 32, format: 4, group: 32 },
  { hidden: 256, width: 128, format: 2, group: 0 },
  { hidden: 2048, width: 64, format: 1, group: 0 },
  { hidden: 512, width: 1024, format: 1, group: 0 },
  { hidden: 2048, width: 512, format: 4, group: 64 },
  { hidden: 2048, width: 768, format: 4, group: 64 },
  { hidden: 4096, width: 1536, format: 8, group: 0 },
  // exactly 1 MiB and exactly 3 MiB per weight: the edges of the 1 MiB and 2 MiB rules
  { hidden: 1024, width: 1024, format: 1, group: 0 },
  { hidden: 2048, width: 1536, format: 1, group: 0 },
  // one row past each edge: just over 512 KiB, 1 MiB and 2 MiB per weight
  { hidden: 513, width: 1024, format: 1, group: 0 },
  { hidden: 1025, width: 1024, format: 1, group: 0 },
  { hidden: 2049, width: 1024, format: 1, group: 0 },
  // small tensors on the 8 KiB grain: 7,680 bytes pad to exactly one grain, 8,192 to two;
  // odd int4 dimensions round half bytes up, and scale sizes not a multiple of 16
  { hidden: 120, width: 64, format: 1, group: 0 },
  { hidden: 128, width: 64, format: 1, group: 0 },
  { hidden: 129, width: 127, format: 2, group: 0 },
];
