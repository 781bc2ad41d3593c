/**
 * The upload benchmark's model: realistic expert sizes (hidden 2048, width 768, int4
 * grouped 64 by default: tensors of 0.84 MiB), as many experts as the requested size
 * needs, generated at run time and never committed.
 *
 * How it stays cheap at 16 GiB: the expert file holds a pool of POOL distinct tensors per
 * shape, and each expert's three parts are placed on pool tensors chosen by its index;
 * every expert still gets its own RAM copy and its own device tensors, so every byte the
 * benchmark moves is a distinct copy (only the file is small). The trunk is generated in
 * memory with a fast generator, variances matched to the fixtures' (weights ~ 1/sqrt(H)),
 * so activations stay O(1) and the decode is real work; the model has no float64
 * reference (the benchmark compares runs with each other, bit for bit).
 * Invariants: a pure function of the options (same options, same bytes); scales finite;
 * shapes pass checkShape.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkShape } from '../../../src/fixture/fixture_shape.js';
import {
  FMT_I4_GROUP,
  type EngineModel,
  type ExpertPlacement,
  type ModelShape,
  type TensorPlacement,
  type TrunkLayer,
} from '../../../src/fixture/model_types.js';
import { siluTable } from '../../../fixtures/synthesize.js';

/** distinct tensors per shape in the expert file */
const POOL = 64;
const ALIGN = 64;

export interface BenchModelOptions {
  readonly dir: string;
  /** experts' bytes to reach (weights and scales of every part), in GiB */
  readonly expertGiB: number;
  readonly hidden: number;
  readonly width: number;
  readonly topk: number;
  readonly seed: number;
}

/** A fast, seeded generator (xorshift32): uniform in [0, 1). */
function uniform(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Uniform values with mean `mean` and standard deviation `std`. */
function fill(rng: () => number, n: number, std: number, mean = 0): Float32Array {
  const a = std * Math.sqrt(3);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.fround(mean + a * (2 * rng() - 1));
  return out;
}

/** The shape: layers of at most 1024 experts (the container's limit), enough for the size. */
export function benchShape(o: BenchModelOptions): ModelShape {
  const H = o.hidden;
  const F = o.width;
  const perExpert = 3 * ((F * H) / 2 + ((F * H) / 64) * 4);
  const total = Math.ceil((o.expertGiB * 2 ** 30) / perExpert);
  const layers = Math.max(1, Math.ceil(total / 1024));
  const shape: ModelShape = {
    layers,
    hidden: H,
    heads: 16,
    experts: Math.max(o.topk, Math.ceil(total / layers)),
    topk: o.topk,
    expertWidth: F,
    vocab: 320,
    groupSize: 64,
    expertFormat: FMT_I4_GROUP,
    trunkFormat: 0,
  };
  const problem = checkShape(shape);
  if (problem !== null) throw new Error(`bench model: ${problem}`);
  return shape;
}

/** One pool tensor: random nibbles and scales that keep a row's output ~ N(0, gain^2). */
function poolTensor(
  rng: () => number,
  rows: number,
  cols: number,
  gain: number,
): { data: Uint8Array; scales: Float32Array } {
  const data = new Uint8Array((rows * cols) / 2);
  const words = new Uint32Array(data.buffer);
  for (let i = 0; i < words.length; i++) words[i] = (rng() * 4294967296) >>> 0;
  // nibbles uniform in [-8, 7]: rms sqrt(21.5); out = sum_j w_j x_j * s over cols values
  const target = gain / (Math.sqrt(21.5) * Math.sqrt(cols));
  const scales = new Float32Array((rows * cols) / 64);
  for (let i = 0; i < scales.length; i++) scales[i] = Math.fround(target * (0.75 + 0.5 * rng()));
  return { data, scales };
}

/** Writes the pool to dir/experts.bin; returns each pool tensor's placement. */
function writePool(file: string, shape: ModelShape, seed: number): { fh: TensorPlacement[]; hf: TensorPlacement[] } {
  const { hidden: H, expertWidth: F } = shape;
  const fd = openSync(file, 'w');
  let at = 0;
  const put = (bytes: Uint8Array): number => {
    const pad = (ALIGN - (at % ALIGN)) % ALIGN;
    if (pad > 0) writeSync(fd, new Uint8Array(pad));
    at += pad;
    const start = at;
    writeSync(fd, bytes);
    at += bytes.byteLength;
    return start;
  };
  const rng = uniform(seed);
  const make = (rows: number, cols: number, gain: number): TensorPlacement => {
    const t = poolTensor(rng, rows, cols, gain);
    const dataAt = put(t.data);
    const scalesAt = put(new Uint8Array(t.scales.buffer));
    return {
      format: FMT_I4_GROUP,
      rows,
      cols,
      group: 64,
      dataAt,
      dataBytes: t.data.byteLength,
      scalesAt,
      nscales: t.scales.length,
    };
  };
  try {
    const fh = Array.from({ length: POOL }, () => make(F, H, 1.0));
    const hf = Array.from({ length: POOL }, () => make(H, F, 0.7 * Math.sqrt(Math.max(1, shape.topk / 2))));
    return { fh, hf };
  } finally {
    closeSync(fd);
  }
}

function trunkLayer(rng: () => number, H: number, E: number): TrunkLayer {
  const s = 1 / Math.sqrt(H);
  return {
    attnNorm: fill(rng, H, 0.1, 1),
    wq: fill(rng, H * H, s),
    wk: fill(rng, H * H, s),
    wv: fill(rng, H * H, s),
    wo: fill(rng, H * H, 0.5 * s),
    ffnNorm: fill(rng, H, 0.1, 1),
    router: fill(rng, E * H, 1.5 * s),
  };
}

export function writeBenchModel(o: BenchModelOptions): EngineModel {
  const shape = benchShape(o);
  mkdirSync(o.dir, { recursive: true });
  const file = resolve(join(o.dir, 'experts.bin'));
  const pool = writePool(file, shape, o.seed);
  const pick = (list: readonly TensorPlacement[], k: number): TensorPlacement => {
    const p = list[k % POOL];
    if (p === undefined) throw new Error(`internal error: pool tensor ${k % POOL} missing`);
    return p;
  };
  const experts = Array.from({ length: shape.layers }, (_l, l) =>
    Array.from({ length: shape.experts }, (_e, e): ExpertPlacement => {
      const k = 3 * (l * shape.experts + e);
      return { gate: pick(pool.fh, k), up: pick(pool.fh, k + 1), down: pick(pool.hf, k + 2) };
    }),
  );
  const rng = uniform(o.seed ^ 0x5bd1e995);
  const H = shape.hidden;
  const V = shape.vocab;
  return {
    name: `bench model (${shape.layers} layers x ${shape.experts} experts)`,
    shape,
    prompt: Array.from({ length: 4 }, () => Math.floor(rng() * V)),
    siluLut: siluTable(),
    embed: fill(rng, V * H, 1),
    outNorm: fill(rng, H, 0.1, 1),
    lmHead: fill(rng, V * H, 1 / Math.sqrt(H)),
    layers: Array.from({ length: shape.layers }, () => trunkLayer(rng, H, shape.experts)),
    expertFile: file,
    experts,
  };
}
