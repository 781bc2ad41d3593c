// Writes a model container: weights.bin with every tensor of the layout at a 64-byte
// aligned offset (zero padding between), and manifest.json with one tensor per line.
// Invariants: the output is a pure function of the input (same input, same bytes);
// the tensors given must be exactly the layout's, in any order, each with the layout's
// dtype and length; the written manifest is re-parsed before anything touches the disk,
// so the writer can never produce a container the loader rejects.

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Manifest, ModelShape, ReferenceRecord, TensorEntry } from "./model_types.js";
import {
  CONTAINER_FORMAT,
  CONTAINER_VERSION,
  MANIFEST_FILE,
  TENSOR_ALIGN_BYTES,
  WEIGHTS_FILE,
} from "./model_types.js";
import { specBytes, tensorLayout } from "./fixture_layout.js";
import { parseManifest } from "./fixture_manifest.js";

export type TensorData = Float32Array | Int8Array | Uint8Array;

export interface WriteModelInput {
  readonly shape: ModelShape;
  readonly seed: number;
  readonly prompt: readonly number[];
  readonly tensors: ReadonlyMap<string, TensorData>;
  readonly reference: Omit<ReferenceRecord, "weightsSha256">;
}

export interface WrittenModel {
  readonly manifest: Manifest;
  readonly manifestText: string;
  readonly weights: Uint8Array;
}

/** Builds the two files in memory (no I/O); throws Error on a tensor the layout rejects. */
export function serializeModel(input: WriteModelInput): WrittenModel {
  const layout = tensorLayout(input.shape);
  for (const name of input.tensors.keys()) {
    if (!layout.some((s) => s.name === name)) throw new Error(`writeModel: tensor "${name}" is not in the layout`);
  }
  const entries: TensorEntry[] = [];
  let offset = 0;
  for (const spec of layout) {
    const data = input.tensors.get(spec.name);
    if (data === undefined) throw new Error(`writeModel: tensor "${spec.name}" is missing`);
    const bytes = specBytes(spec);
    const kind = data instanceof Float32Array ? "f32" : data instanceof Int8Array ? "i8" : "u8";
    if (kind !== spec.dtype || data.byteLength !== bytes) {
      throw new Error(
        `writeModel: tensor "${spec.name}" is ${kind} with ${data.byteLength} bytes, the layout needs ${spec.dtype} with ${bytes}`,
      );
    }
    offset = Math.ceil(offset / TENSOR_ALIGN_BYTES) * TENSOR_ALIGN_BYTES;
    entries.push({ name: spec.name, dtype: spec.dtype, shape: spec.shape, offset, bytes });
    offset += bytes;
  }
  const weights = new Uint8Array(offset);
  for (const e of entries) {
    const data = input.tensors.get(e.name);
    if (data === undefined) throw new Error(`writeModel: tensor "${e.name}" vanished`);
    weights.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), e.offset);
  }
  const weightsSha256 = createHash("sha256").update(weights).digest("hex");
  const manifest: Manifest = {
    format: CONTAINER_FORMAT,
    version: CONTAINER_VERSION,
    shape: canonicalShape(input.shape),
    seed: input.seed,
    tensors: entries,
    prompt: [...input.prompt],
    reference: { ...input.reference, tokens: [...input.reference.tokens], margins: [...input.reference.margins], weightsSha256 },
  };
  const manifestText = formatManifest(manifest);
  parseManifest(manifestText, "writeModel output"); // the loader's own checks, before any I/O
  return { manifest, manifestText, weights };
}

/** Writes dir/manifest.json and dir/weights.bin (creating dir). */
export function writeModel(dir: string, input: WriteModelInput): WrittenModel {
  const out = serializeModel(input);
  writeContainer(dir, out);
  return out;
}

/** Writes an already serialized container (weights first: a crash leaves no manifest
 * pointing at a missing file). */
export function writeContainer(dir: string, out: WrittenModel): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, WEIGHTS_FILE), out.weights);
  writeFileSync(join(dir, MANIFEST_FILE), out.manifestText);
}

/** The shape with its keys in one fixed order, so the manifest bytes never depend on the caller. */
function canonicalShape(s: ModelShape): ModelShape {
  return {
    layers: s.layers,
    hidden: s.hidden,
    heads: s.heads,
    experts: s.experts,
    topk: s.topk,
    expertWidth: s.expertWidth,
    vocab: s.vocab,
    groupSize: s.groupSize,
    expertFormat: s.expertFormat,
  };
}

/** JSON with one tensor per line and short arrays inline: readable and diffable. */
function formatManifest(m: Manifest): string {
  const j = (v: unknown): string => JSON.stringify(v);
  const ref = m.reference;
  const lines = [
    "{",
    `  "format": ${j(m.format)},`,
    `  "version": ${j(m.version)},`,
    `  "shape": ${j(m.shape)},`,
    `  "seed": ${j(m.seed)},`,
    `  "prompt": ${j(m.prompt)},`,
    `  "reference": {`,
    `    "tokens": ${j(ref.tokens)},`,
    `    "margins": ${j(ref.margins)},`,
    `    "minMargin": ${j(ref.minMargin)},`,
    `    "minRelativeMargin": ${j(ref.minRelativeMargin)},`,
    `    "weightsSha256": ${j(ref.weightsSha256)}`,
    `  },`,
    `  "tensors": [`,
    m.tensors.map((t) => `    ${j(t)}`).join(",\n"),
    `  ]`,
    "}",
    "",
  ];
  return lines.join("\n");
}
