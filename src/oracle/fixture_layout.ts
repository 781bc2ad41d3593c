// The tensor layout a model shape implies: every tensor's name, dtype and storage shape,
// in the order the writer lays them out. The loader checks a manifest against this list
// and the writer produces exactly this list, so the two can never disagree.
// Invariant: names are unique; bytes = product(shape) * sizeof(dtype).

import type { ModelShape, TensorDtype } from "./model_types.js";
import { FMT_I8_ROW, FMT_I4_GROUP, SILU_LUT_SIZE } from "./model_types.js";

export interface TensorSpec {
  readonly name: string;
  readonly dtype: TensorDtype;
  readonly shape: readonly number[];
}

export const DTYPE_BYTES: Readonly<Record<TensorDtype, number>> = { f32: 4, i8: 1, u8: 1 };

export function specBytes(spec: { dtype: TensorDtype; shape: readonly number[] }): number {
  let n = DTYPE_BYTES[spec.dtype];
  for (const d of spec.shape) n *= d;
  return n;
}

export function expertName(layer: number, expert: number, part: string): string {
  return `L${layer}.E${expert}.${part}`;
}

export function layerName(layer: number, part: string): string {
  return `L${layer}.${part}`;
}

/** The packed matrix and its scales for one expert matrix of logical [rows][cols]. */
function expertMatrixSpecs(shape: ModelShape, name: string, rows: number, cols: number): TensorSpec[] {
  const fmt = shape.expertFormat;
  const data: TensorSpec =
    fmt === FMT_I8_ROW
      ? { name, dtype: "i8", shape: [rows, cols] }
      : { name, dtype: "u8", shape: [rows, cols / 2] };
  const scales: TensorSpec =
    fmt === FMT_I4_GROUP
      ? { name: `${name}_s`, dtype: "f32", shape: [rows, cols / shape.groupSize] }
      : { name: `${name}_s`, dtype: "f32", shape: [rows] };
  return [data, scales];
}

/** Every tensor of a model of this shape (the shape must already be validated). */
export function tensorLayout(shape: ModelShape): TensorSpec[] {
  const { layers, hidden: H, experts, expertWidth: F, vocab: V } = shape;
  const out: TensorSpec[] = [
    { name: "embed", dtype: "f32", shape: [V, H] },
    { name: "silu_lut", dtype: "f32", shape: [SILU_LUT_SIZE] },
    { name: "out_norm", dtype: "f32", shape: [H] },
    { name: "lm_head", dtype: "f32", shape: [V, H] },
  ];
  for (let l = 0; l < layers; l++) {
    out.push({ name: layerName(l, "attn_norm"), dtype: "f32", shape: [H] });
    for (const w of ["wq", "wk", "wv", "wo"]) out.push({ name: layerName(l, w), dtype: "f32", shape: [H, H] });
    out.push({ name: layerName(l, "ffn_norm"), dtype: "f32", shape: [H] });
    out.push({ name: layerName(l, "router"), dtype: "f32", shape: [experts, H] });
    for (let e = 0; e < experts; e++) {
      out.push(...expertMatrixSpecs(shape, expertName(l, e, "gate"), F, H));
      out.push(...expertMatrixSpecs(shape, expertName(l, e, "up"), F, H));
      out.push(...expertMatrixSpecs(shape, expertName(l, e, "down"), H, F));
    }
  }
  return out;
}
