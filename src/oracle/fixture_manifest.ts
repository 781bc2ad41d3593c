// Parsing and validation of manifest.json (everything that can be checked without
// reading weights.bin; the loader checks bounds against the file and its sha256).
// Invariants after parseManifest: format and version match; the tensor table holds
// exactly the tensors of tensorLayout(shape), each with the layout's dtype and shape,
// bytes = product(shape) * sizeof(dtype), 64-byte aligned offsets, no two overlapping;
// every token id is < vocab; margins are consistent with their minimum.

import type { Manifest, ModelShape, ReferenceRecord, TensorEntry } from "./model_types.js";
import { CONTAINER_FORMAT, CONTAINER_VERSION, TENSOR_ALIGN_BYTES } from "./model_types.js";
import { JsonReader } from "./fixture_json.js";
import { readShape } from "./fixture_shape.js";
import { specBytes, tensorLayout } from "./fixture_layout.js";

const MANIFEST_KEYS = ["format", "version", "shape", "seed", "tensors", "prompt", "reference"] as const;
const TENSOR_KEYS = ["name", "dtype", "shape", "offset", "bytes"] as const;
const REFERENCE_KEYS = ["tokens", "margins", "minMargin", "minRelativeMargin", "weightsSha256"] as const;
/** Bounds on token lists: long enough for any oracle run, short enough to stay bounded. */
export const MAX_PROMPT_TOKENS = 4096;
export const MAX_REFERENCE_TOKENS = 65536;

export function parseManifest(text: string, file: string): Manifest {
  const r: JsonReader = new JsonReader(file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    r.fail("", `not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const o = r.object(json, "", MANIFEST_KEYS);
  const format = r.string(o["format"], "format");
  if (format !== CONTAINER_FORMAT) r.fail("format", `"${format}" is not "${CONTAINER_FORMAT}"`);
  const version = r.int(o["version"], "version", 0, Number.MAX_SAFE_INTEGER);
  if (version !== CONTAINER_VERSION) {
    r.fail("version", `version ${version} is not supported (this reader knows version ${CONTAINER_VERSION})`);
  }
  const shape = readShape(r, o["shape"]);
  const seed = r.int(o["seed"], "seed", 0, Number.MAX_SAFE_INTEGER);
  const tensors = readTensors(r, o["tensors"], shape);
  const prompt = r.intArray(o["prompt"], "prompt", 0, shape.vocab - 1);
  if (prompt.length < 1 || prompt.length > MAX_PROMPT_TOKENS) {
    r.fail("prompt", `needs 1 to ${MAX_PROMPT_TOKENS} token ids, has ${prompt.length}`);
  }
  const reference = readReference(r, o["reference"], shape);
  return { format, version, shape, seed, tensors, prompt, reference };
}

function readTensors(r: JsonReader, value: unknown, shape: ModelShape): TensorEntry[] {
  const arr = r.array(value, "tensors");
  const entries: TensorEntry[] = [];
  const seen = new Map<string, number>();
  arr.forEach((item, i) => {
    const path = `tensors[${i}]`;
    const t = r.object(item, path, TENSOR_KEYS);
    const name = r.string(t["name"], `${path}.name`);
    const where = `tensor "${name}"`;
    const prev = seen.get(name);
    if (prev !== undefined) r.fail(where, `listed twice (tensors[${prev}] and tensors[${i}])`);
    seen.set(name, i);
    const dtype = r.string(t["dtype"], `${where}.dtype`);
    if (dtype !== "f32" && dtype !== "i8" && dtype !== "u8") r.fail(`${where}.dtype`, `"${dtype}" is not f32, i8 or u8`);
    const dims = r.intArray(t["shape"], `${where}.shape`, 1, Number.MAX_SAFE_INTEGER);
    const offset = r.int(t["offset"], `${where}.offset`, 0, Number.MAX_SAFE_INTEGER);
    const bytes = r.int(t["bytes"], `${where}.bytes`, 0, Number.MAX_SAFE_INTEGER);
    if (offset % TENSOR_ALIGN_BYTES !== 0) {
      r.fail(`${where}.offset`, `${offset} is not a multiple of ${TENSOR_ALIGN_BYTES}`);
    }
    entries.push({ name, dtype, shape: dims, offset, bytes });
  });

  // Exactly the layout's tensors, each as the layout declares it.
  const byName = new Map(entries.map((e) => [e.name, e]));
  const layout = tensorLayout(shape);
  const expected = new Set(layout.map((s) => s.name));
  for (const e of entries) {
    if (!expected.has(e.name)) r.fail(`tensor "${e.name}"`, "is not part of a model of this shape");
  }
  for (const spec of layout) {
    const e = byName.get(spec.name);
    const where = `tensor "${spec.name}"`;
    if (e === undefined) r.fail("tensors", `missing tensor "${spec.name}"`);
    if (e.dtype !== spec.dtype) r.fail(`${where}.dtype`, `is ${e.dtype}, the shape needs ${spec.dtype}`);
    if (e.shape.length !== spec.shape.length || e.shape.some((d, k) => d !== spec.shape[k])) {
      r.fail(`${where}.shape`, `is [${e.shape.join(", ")}], the model shape needs [${spec.shape.join(", ")}]`);
    }
    const need = specBytes(spec);
    if (e.bytes !== need) r.fail(`${where}.bytes`, `is ${e.bytes}, ${spec.dtype}[${spec.shape.join(", ")}] is ${need}`);
  }

  // No two tensors share a byte.
  const sorted = [...entries].sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (a !== undefined && b !== undefined && a.offset + a.bytes > b.offset) {
      r.fail(`tensor "${b.name}"`, `overlaps tensor "${a.name}" (offset ${b.offset} < ${a.offset + a.bytes})`);
    }
  }
  return entries;
}

function readReference(r: JsonReader, value: unknown, shape: ModelShape): ReferenceRecord {
  const o = r.object(value, "reference", REFERENCE_KEYS);
  const tokens = r.intArray(o["tokens"], "reference.tokens", 0, shape.vocab - 1);
  if (tokens.length < 1 || tokens.length > MAX_REFERENCE_TOKENS) {
    r.fail("reference.tokens", `needs 1 to ${MAX_REFERENCE_TOKENS} token ids, has ${tokens.length}`);
  }
  const margins = r.array(o["margins"], "reference.margins").map((v, i) => {
    const m = r.number(v, `reference.margins[${i}]`);
    if (m < 0) r.fail(`reference.margins[${i}]`, `${m} is negative (top1 - top2 cannot be)`);
    return m;
  });
  if (margins.length !== tokens.length) {
    r.fail("reference.margins", `has ${margins.length} entries for ${tokens.length} tokens`);
  }
  const minMargin = r.number(o["minMargin"], "reference.minMargin");
  if (minMargin !== Math.min(...margins)) {
    r.fail("reference.minMargin", `${minMargin} is not the minimum of reference.margins (${Math.min(...margins)})`);
  }
  const minRelativeMargin = r.number(o["minRelativeMargin"], "reference.minRelativeMargin");
  if (minRelativeMargin < 0 || minRelativeMargin > 1) {
    r.fail("reference.minRelativeMargin", `${minRelativeMargin} is not in [0, 1]`);
  }
  const weightsSha256 = r.string(o["weightsSha256"], "reference.weightsSha256");
  if (!/^[0-9a-f]{64}$/.test(weightsSha256)) {
    r.fail("reference.weightsSha256", "is not 64 lowercase hex digits");
  }
  return { tokens, margins, minMargin, minRelativeMargin, weightsSha256 };
}
