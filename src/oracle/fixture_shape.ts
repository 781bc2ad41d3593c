// Validation of a model shape: ranges and the consistency rules MATH.md relies on.
// Invariants after checkShape: heads divides hidden; topk <= experts and <= 32; for
// int4 formats hidden and expertWidth are even (two values a byte, rows never share a
// byte); for format 4 groupSize divides hidden and expertWidth; every int32 expert
// accumulator stays below 2^24 in magnitude, so float(acc) is exact.
// checkShape reports the first violated rule as a string, so the generator (a CLI
// argument) and the loader (a manifest field) can word the error their own way.

import type { ExpertFormat, ModelShape } from "./model_types.js";
import { FMT_I4_GROUP, FMT_I4_ROW, FMT_I8_ROW, MAX_TOPK } from "./model_types.js";
import type { JsonReader } from "./fixture_json.js";

/** Generous bounds that keep every size a safe integer and every loop bounded. */
export const SHAPE_LIMITS = {
  layers: 256,
  hidden: 8192,
  experts: 1024,
  expertWidth: 8192,
  vocab: 1 << 20,
} as const;

export const SHAPE_KEYS = [
  "layers",
  "hidden",
  "heads",
  "experts",
  "topk",
  "expertWidth",
  "vocab",
  "groupSize",
  "expertFormat",
] as const;

export function isExpertFormat(n: number): n is ExpertFormat {
  return n === FMT_I8_ROW || n === FMT_I4_ROW || n === FMT_I4_GROUP;
}

/** Returns null when the shape is consistent, else the first problem found. */
export function checkShape(s: ModelShape): string | null {
  const ints: Array<[string, number, number, number]> = [
    ["layers", s.layers, 1, SHAPE_LIMITS.layers],
    ["hidden", s.hidden, 1, SHAPE_LIMITS.hidden],
    ["heads", s.heads, 1, SHAPE_LIMITS.hidden],
    ["experts", s.experts, 1, SHAPE_LIMITS.experts],
    ["topk", s.topk, 1, MAX_TOPK],
    ["expertWidth", s.expertWidth, 1, SHAPE_LIMITS.expertWidth],
    ["vocab", s.vocab, 2, SHAPE_LIMITS.vocab],
    ["groupSize", s.groupSize, 0, SHAPE_LIMITS.hidden],
  ];
  for (const [name, v, lo, hi] of ints) {
    if (!Number.isSafeInteger(v) || v < lo || v > hi) return `${name} = ${v} is not an integer in [${lo}, ${hi}]`;
  }
  if (!isExpertFormat(s.expertFormat)) return `expertFormat = ${s.expertFormat} is not 1, 2 or 4`;
  if (s.hidden % s.heads !== 0) return `heads = ${s.heads} does not divide hidden = ${s.hidden}`;
  if (s.topk > s.experts) return `topk = ${s.topk} exceeds experts = ${s.experts}`;
  if (s.expertFormat !== FMT_I8_ROW) {
    if (s.hidden % 2 !== 0) return `hidden = ${s.hidden} must be even for int4 experts`;
    if (s.expertWidth % 2 !== 0) return `expertWidth = ${s.expertWidth} must be even for int4 experts`;
  }
  if (s.expertFormat === FMT_I4_GROUP) {
    if (s.groupSize < 1) return `groupSize = ${s.groupSize} must be at least 1 for format 4`;
    if (s.hidden % s.groupSize !== 0) return `groupSize = ${s.groupSize} does not divide hidden = ${s.hidden}`;
    if (s.expertWidth % s.groupSize !== 0) {
      return `groupSize = ${s.groupSize} does not divide expertWidth = ${s.expertWidth}`;
    }
  }
  // |acc| <= max|w| * 127 * columns summed into one int32; float(acc) must be exact.
  const wMax = s.expertFormat === FMT_I8_ROW ? 128 : 8;
  const cols = s.expertFormat === FMT_I4_GROUP ? s.groupSize : Math.max(s.hidden, s.expertWidth);
  if (wMax * 127 * cols >= 2 ** 24) {
    return `${cols} columns per accumulator can exceed 2^24 (float32 would round the int32 sum)`;
  }
  return null;
}

/** Reads and validates manifest.shape. */
export function readShape(r: JsonReader, value: unknown): ModelShape {
  const o = r.object(value, "shape", SHAPE_KEYS);
  const num = (k: (typeof SHAPE_KEYS)[number]): number => r.int(o[k], `shape.${k}`, 0, Number.MAX_SAFE_INTEGER);
  const fmt = num("expertFormat");
  if (!isExpertFormat(fmt)) r.fail("shape.expertFormat", `${fmt} is not 1, 2 or 4`);
  const shape: ModelShape = {
    layers: num("layers"),
    hidden: num("hidden"),
    heads: num("heads"),
    experts: num("experts"),
    topk: num("topk"),
    expertWidth: num("expertWidth"),
    vocab: num("vocab"),
    groupSize: num("groupSize"),
    expertFormat: fmt,
  };
  const problem = checkShape(shape);
  if (problem !== null) r.fail("shape", problem);
  return shape;
}
