// The model container: a directory holding manifest.json and weights.bin (format in
// fixtures/README.md). loadModel reads and validates everything before it returns, and
// hands out typed views over one buffer.
// Invariants: a returned LoadedModel passed every check (manifest, tensor table, file
// bounds, no trailing bytes, sha256, finite float tensors); views share the file's
// memory (zero copy) unless the buffer itself is misaligned, in which case the whole
// file is copied once. Every problem throws a FixtureError naming the file.

import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import type {
  ExpertMatrix,
  ExpertWeights,
  LayerWeights,
  LoadedModel,
  Manifest,
  ModelShape,
  TensorEntry,
} from "./model_types.js";
import { FMT_I4_GROUP, FMT_I8_ROW, MANIFEST_FILE, WEIGHTS_FILE } from "./model_types.js";
import { FixtureError } from "./fixture_error.js";
import { parseManifest } from "./fixture_manifest.js";
import { expertName, layerName } from "./fixture_layout.js";

export { FixtureError } from "./fixture_error.js";
export { writeModel } from "./fixture_writer.js";
export type { WriteModelInput, TensorData } from "./fixture_writer.js";

export function loadModel(dir: string): LoadedModel {
  checkDirectory(dir);
  const manifestPath = join(dir, MANIFEST_FILE);
  const manifestText = readText(manifestPath);
  return modelFromBytes(dir, manifestText, readWeights(join(dir, WEIGHTS_FILE)));
}

/**
 * The same checks and views as loadModel, for a container already in memory (the
 * generator runs the reference on a model before writing it). `dir` names the files
 * in messages. The weights' byteOffset must be a multiple of 4.
 */
export function modelFromBytes(dir: string, manifestText: string, weights: Uint8Array): LoadedModel {
  const manifestPath = join(dir, MANIFEST_FILE);
  const weightsPath = join(dir, WEIGHTS_FILE);
  const manifest = parseManifest(manifestText, manifestPath);
  if (weights.byteOffset % 4 !== 0) throw new FixtureError(weightsPath, "buffer is not 4-byte aligned in memory");
  checkBounds(manifest, weights.length, weightsPath);
  const sha = createHash("sha256").update(weights).digest("hex");
  if (sha !== manifest.reference.weightsSha256) {
    throw new FixtureError(
      weightsPath,
      `sha256 ${sha} does not match manifest reference.weightsSha256 ${manifest.reference.weightsSha256}`,
    );
  }
  return buildModel(dir, manifest, weights, weightsPath);
}

function checkDirectory(dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new FixtureError(dir, "model directory does not exist");
  }
  if (!isDir) throw new FixtureError(dir, "is not a directory (a model is a directory with manifest.json and weights.bin)");
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new FixtureError(file, `cannot read (${errorCode(e)})`);
  }
}

function readWeights(file: string): Uint8Array {
  if (endianness() !== "LE") throw new FixtureError(file, "weights are little-endian and this host is not");
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw new FixtureError(file, `cannot read (${errorCode(e)})`);
  }
  // Float32Array views need 4-byte alignment of the underlying offset; tensor offsets
  // are multiples of 64, so only the buffer's own offset can break it.
  if (buf.byteOffset % 4 === 0) return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  return new Uint8Array(buf);
}

function checkBounds(manifest: Manifest, size: number, file: string): void {
  let end = 0;
  for (const t of manifest.tensors) {
    const tEnd = t.offset + t.bytes;
    if (tEnd > size) {
      throw new FixtureError(
        file,
        `truncated: tensor "${t.name}" needs bytes [${t.offset}, ${tEnd}) and the file has ${size} bytes`,
      );
    }
    end = Math.max(end, tEnd);
  }
  if (size !== end) throw new FixtureError(file, `has ${size - end} bytes after the last tensor (ends at ${end})`);
}

function buildModel(dir: string, manifest: Manifest, weights: Uint8Array, file: string): LoadedModel {
  const shape = manifest.shape;
  const byName = new Map<string, TensorEntry>(manifest.tensors.map((t) => [t.name, t]));
  const entry = (name: string): TensorEntry => {
    const t = byName.get(name);
    // parseManifest guarantees the full layout; reaching this is a bug, not a bad file.
    if (t === undefined) throw new FixtureError(file, `internal: tensor "${name}" vanished after validation`);
    return t;
  };
  const f32 = (name: string): Float32Array => {
    const t = entry(name);
    const v = new Float32Array(weights.buffer, weights.byteOffset + t.offset, t.bytes / 4);
    for (let i = 0; i < v.length; i++) {
      if (!Number.isFinite(v[i])) throw new FixtureError(file, `tensor "${name}" element ${i} is not finite (${v[i]})`);
    }
    return v;
  };
  const matrix = (name: string, rows: number, cols: number): ExpertMatrix => {
    const t = entry(name);
    const at = weights.byteOffset + t.offset;
    const data =
      shape.expertFormat === FMT_I8_ROW
        ? new Int8Array(weights.buffer, at, t.bytes)
        : new Uint8Array(weights.buffer, at, t.bytes);
    const group = shape.expertFormat === FMT_I4_GROUP ? shape.groupSize : cols;
    return { format: shape.expertFormat, rows, cols, group, data, scales: f32(`${name}_s`) };
  };
  const H = shape.hidden;
  const F = shape.expertWidth;
  const layers: LayerWeights[] = [];
  for (let l = 0; l < shape.layers; l++) {
    const experts: ExpertWeights[] = [];
    for (let e = 0; e < shape.experts; e++) {
      experts.push({
        gate: matrix(expertName(l, e, "gate"), F, H),
        up: matrix(expertName(l, e, "up"), F, H),
        down: matrix(expertName(l, e, "down"), H, F),
      });
    }
    layers.push({
      attnNorm: f32(layerName(l, "attn_norm")),
      wq: f32(layerName(l, "wq")),
      wk: f32(layerName(l, "wk")),
      wv: f32(layerName(l, "wv")),
      wo: f32(layerName(l, "wo")),
      ffnNorm: f32(layerName(l, "ffn_norm")),
      router: f32(layerName(l, "router")),
      experts,
    });
  }
  return {
    dir,
    manifest,
    shape: shape satisfies ModelShape,
    weights,
    embed: f32("embed"),
    siluLut: f32("silu_lut"),
    outNorm: f32("out_norm"),
    lmHead: f32("lm_head"),
    layers,
  };
}

function errorCode(e: unknown): string {
  if (typeof e === "object" && e !== null && "code" in e && typeof e.code === "string") {
    return e.code === "ENOENT" ? "missing" : e.code;
  }
  return e instanceof Error ? e.message : String(e);
}
