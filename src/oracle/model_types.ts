// The types of the tiny MoE model container (manifest.json + weights.bin) and of the
// model it loads into. The exact math is native/MATH.md; the on-disk format is
// fixtures/README.md.
// Invariants: a LoadedModel only exists after every check in container.ts passed, so
// its views have exactly the lengths the shape implies, and every token id is < vocab.

/** Expert weight format codes, shared with the C ABI (TL_FMT_*). */
export type ExpertFormat = 1 | 2 | 4;
export const FMT_I8_ROW = 1;
export const FMT_I4_ROW = 2;
export const FMT_I4_GROUP = 4;

export const CONTAINER_FORMAT = "tierlab-moe";
export const CONTAINER_VERSION = 1;
export const MANIFEST_FILE = "manifest.json";
export const WEIGHTS_FILE = "weights.bin";
/** Every tensor starts at a multiple of this many bytes in weights.bin. */
export const TENSOR_ALIGN_BYTES = 64;
/** Entries in the SiLU table: SILU_LUT[k] = float32(silu((k - 512) / 32)). */
export const SILU_LUT_SIZE = 1024;
/** Rows in one device group (TL_MAX_GROUP_ROWS): top-k can never exceed it. */
export const MAX_TOPK = 32;

export interface ModelShape {
  readonly layers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly experts: number;
  readonly topk: number;
  readonly expertWidth: number;
  readonly vocab: number;
  /** Columns per scale for format 4; recorded (unused) for formats 1 and 2. */
  readonly groupSize: number;
  readonly expertFormat: ExpertFormat;
}

export type TensorDtype = "f32" | "i8" | "u8";

/**
 * One tensor in weights.bin. `shape` is the storage shape: for a packed int4 matrix
 * of logical [rows][cols] it is [rows, cols / 2] bytes. Always
 * bytes = product(shape) * sizeof(dtype).
 */
export interface TensorEntry {
  readonly name: string;
  readonly dtype: TensorDtype;
  readonly shape: readonly number[];
  readonly offset: number;
  readonly bytes: number;
}

/** What the float64 reference produced when the fixture was generated. */
export interface ReferenceRecord {
  /** Greedy tokens after the prompt (the first is the argmax after the last prompt token). */
  readonly tokens: readonly number[];
  /** Per generated token: top1 - top2 logit of the step that chose it. */
  readonly margins: readonly number[];
  readonly minMargin: number;
  /** min over steps of margin / (max logit - min logit) of that step. */
  readonly minRelativeMargin: number;
  /** Lowercase hex sha256 of weights.bin. */
  readonly weightsSha256: string;
}

export interface Manifest {
  readonly format: string;
  readonly version: number;
  readonly shape: ModelShape;
  readonly seed: number;
  readonly tensors: readonly TensorEntry[];
  readonly prompt: readonly number[];
  readonly reference: ReferenceRecord;
}

/** One expert matrix, packed as MATH.md says, ready to upload. */
export interface ExpertMatrix {
  readonly format: ExpertFormat;
  readonly rows: number;
  readonly cols: number;
  /** Columns per scale (format 4); equals cols for formats 1 and 2. */
  readonly group: number;
  /** Int8Array (format 1) or packed nibbles (formats 2, 4). */
  readonly data: Int8Array | Uint8Array;
  /** rows scales (formats 1, 2) or rows * cols / group (format 4), row-major. */
  readonly scales: Float32Array;
}

export interface ExpertWeights {
  /** [expertWidth][hidden] */
  readonly gate: ExpertMatrix;
  /** [expertWidth][hidden] */
  readonly up: ExpertMatrix;
  /** [hidden][expertWidth] */
  readonly down: ExpertMatrix;
}

export interface LayerWeights {
  readonly attnNorm: Float32Array; // [H]
  readonly wq: Float32Array; // [H][H] row-major W[out][in]
  readonly wk: Float32Array;
  readonly wv: Float32Array;
  readonly wo: Float32Array;
  readonly ffnNorm: Float32Array; // [H]
  readonly router: Float32Array; // [E][H]
  readonly experts: readonly ExpertWeights[];
}

export interface LoadedModel {
  /** The directory it was loaded from (for messages). */
  readonly dir: string;
  readonly manifest: Manifest;
  readonly shape: ModelShape;
  /** The whole weights.bin; every view below shares its memory where aligned. */
  readonly weights: Uint8Array;
  readonly embed: Float32Array; // [V][H]
  readonly siluLut: Float32Array; // [1024]
  readonly outNorm: Float32Array; // [H]
  readonly lmHead: Float32Array; // [V][H]
  readonly layers: readonly LayerWeights[];
}
