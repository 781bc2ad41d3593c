// The independent float64 reference of native/MATH.md: the oracle for tokens.
// It shares no code with the native engine and does not try to match its float32
// rounding; it must give the same greedy tokens whenever the fixture's recorded
// logit margins are far above float32 noise (the generator refuses fixtures where
// they are not).
// Invariants: one step per token, KV caches grow by one position per step; routes are
// the top-k router logits (ties: lower id) with softmax weights in route order; the
// moe sum runs in route order; SiLU values come from the container's table. The int8
// trunk (trunkFormat 1) quantizes every trunk matrix once and runs attention and MoE in
// parallel from the same residual, attention's output added first.

import type { LayerWeights, LoadedModel, ModelShape } from '../fixture/model_types.js';
import { TRUNK_INT8 } from '../fixture/model_types.js';
import type { UnpackedExpert } from './reference_expert.js';
import { expertForward, unpackExpert } from './reference_expert.js';
import { argmaxWithMargin, matvec, rmsnorm, softmax, topK } from './reference_math.js';
import { int8Matvec, quantizeRows, type Int8Rows } from './reference_trunk.js';

/** Where one layer sent the token. */
export interface LayerRoute {
  /** Expert ids, largest router logit first. */
  readonly experts: Int32Array;
  /** Softmax weights over those logits, same order. */
  readonly weights: Float64Array;
}

export interface StepResult {
  /** Position of the token this step consumed (0 for the first). */
  readonly pos: number;
  readonly logits: Float64Array;
  /** The residual stream after the last layer (before the output norm). */
  readonly hidden: Float64Array;
  /** One entry per layer. */
  readonly routes: readonly LayerRoute[];
}

/** Guards against a runaway loop: far beyond any fixture, small enough to stay in memory. */
export const MAX_REFERENCE_POSITIONS = 1 << 16;

export class ReferenceModel {
  readonly shape: ModelShape;
  private readonly model: LoadedModel;
  private readonly experts: UnpackedExpert[][];
  private readonly kCache: Float64Array[][];
  private readonly vCache: Float64Array[][];
  /** the int8 trunk's rows, by the float32 matrix they were quantized from */
  private readonly int8 = new Map<Float32Array, Int8Rows>();
  private pos = 0;

  /**
   * `forced`: the routing decisions of a run, per position and layer (prefer-resident
   * routing chooses by residency, so the reference must be given the same choice); each
   * is weighted as any route is: softmax over its experts' logits, in its order.
   */
  constructor(
    model: LoadedModel,
    private readonly forced: readonly (readonly (readonly number[])[])[] | null = null,
  ) {
    this.model = model;
    this.shape = model.shape;
    this.experts = model.layers.map((layer) => layer.experts.map(unpackExpert));
    this.kCache = model.layers.map(() => []);
    this.vCache = model.layers.map(() => []);
    if (model.shape.trunkFormat === TRUNK_INT8) {
      const { hidden: H, experts: E, vocab: V } = model.shape;
      for (const l of model.layers) {
        for (const w of [l.wq, l.wk, l.wv, l.wo]) this.int8.set(w, quantizeRows(w, H));
        this.int8.set(l.router, quantizeRows(l.router, E));
      }
      this.int8.set(model.lmHead, quantizeRows(model.lmHead, V));
    }
  }

  /** A trunk matrix times x: float64, or the int8 rows of the int8 trunk. */
  private mv(w: Float32Array, x: Float64Array, rows: number): Float64Array {
    const q = this.int8.get(w);
    return q === undefined ? matvec(w, x, rows) : int8Matvec(q, x);
  }

  /** attention of layer l at this position: q, k, v from a, the cache, the output projection */
  private attend(layer: LayerWeights, l: number, a: Float64Array): Float64Array {
    const { hidden: H, heads } = this.shape;
    const q = this.mv(layer.wq, a, H);
    const kc = this.kCache[l] ?? [];
    const vc = this.vCache[l] ?? [];
    kc.push(this.mv(layer.wk, a, H));
    vc.push(this.mv(layer.wv, a, H));
    return this.mv(layer.wo, attention(q, kc, vc, heads, H / heads), H);
  }

  /** the routed experts of one layer on m, summed in route order with their weights */
  private moe(l: number, m: Float64Array): { moe: Float64Array; route: LayerRoute } {
    const { hidden: H, experts: E, topk: K } = this.shape;
    const layer = this.model.layers[l];
    if (layer === undefined) throw new Error(`ReferenceModel: no layer ${l}`);
    const logits = this.mv(layer.router, m, E);
    const given = this.forced?.[this.pos]?.[l];
    const ids = given !== undefined ? Int32Array.from(given) : topK(logits, K);
    const w = softmax(Float64Array.from(ids, (id) => logits[id] ?? 0));
    const moe = new Float64Array(H);
    const experts = this.experts[l] ?? [];
    ids.forEach((id, k) => {
      const ex = experts[id];
      if (ex === undefined) throw new Error(`ReferenceModel: layer ${l} has no expert ${id}`);
      const y = expertForward(ex, this.model.siluLut, m);
      const wk = w[k] ?? 0;
      for (let i = 0; i < H; i++) moe[i] = (moe[i] ?? 0) + wk * (y[i] ?? 0);
    });
    return { moe, route: { experts: ids, weights: w } };
  }

  /** Tokens consumed so far. */
  get position(): number {
    return this.pos;
  }

  step(token: number): StepResult {
    const { hidden: H, vocab: V } = this.shape;
    if (!Number.isInteger(token) || token < 0 || token >= V) {
      throw new RangeError(`ReferenceModel.step: token ${token} is not an id in [0, ${V})`);
    }
    if (this.pos >= MAX_REFERENCE_POSITIONS) {
      throw new RangeError(`ReferenceModel.step: more than ${MAX_REFERENCE_POSITIONS} positions; start a new model`);
    }
    const parallel = this.shape.trunkFormat === TRUNK_INT8;
    const x = Float64Array.from(this.model.embed.subarray(token * H, (token + 1) * H));
    const routes: LayerRoute[] = [];
    this.model.layers.forEach((layer, l) => {
      if (parallel) {
        // attention and MoE from the same residual; attention's output added first
        const a = rmsnorm(x, layer.attnNorm);
        const m = rmsnorm(x, layer.ffnNorm);
        const { moe, route } = this.moe(l, m);
        addInto(x, this.attend(layer, l, a));
        addInto(x, moe);
        routes.push(route);
      } else {
        addInto(x, this.attend(layer, l, rmsnorm(x, layer.attnNorm)));
        const { moe, route } = this.moe(l, rmsnorm(x, layer.ffnNorm));
        addInto(x, moe);
        routes.push(route);
      }
    });
    const f = rmsnorm(x, this.model.outNorm);
    const logits = this.mv(this.model.lmHead, f, V);
    const pos = this.pos;
    this.pos++;
    return { pos, logits, hidden: x, routes };
  }
}

/** Causal attention of one query over every cached position, head by head. */
function attention(q: Float64Array, ks: Float64Array[], vs: Float64Array[], heads: number, hd: number): Float64Array {
  const o = new Float64Array(q.length);
  const scale = 1 / Math.sqrt(hd);
  for (let h = 0; h < heads; h++) {
    const c0 = h * hd;
    const s = new Float64Array(ks.length);
    ks.forEach((k, t) => {
      let d = 0;
      for (let j = 0; j < hd; j++) d += (q[c0 + j] ?? 0) * (k[c0 + j] ?? 0);
      s[t] = d * scale;
    });
    const p = softmax(s);
    vs.forEach((v, t) => {
      const pt = p[t] ?? 0;
      for (let j = 0; j < hd; j++) o[c0 + j] = (o[c0 + j] ?? 0) + pt * (v[c0 + j] ?? 0);
    });
  }
  return o;
}

function addInto(x: Float64Array, d: Float64Array): void {
  for (let i = 0; i < x.length; i++) x[i] = (x[i] ?? 0) + (d[i] ?? 0);
}

export interface ReferenceRun {
  /** n greedy tokens after the prompt. */
  readonly tokens: number[];
  /** top1 - top2 logit of the step that chose each token. */
  readonly margins: number[];
  /** margin / (max - min logit) of the same steps. */
  readonly relativeMargins: number[];
  /** Routes of every step (prompt steps first), for statistics. */
  readonly routes: LayerRoute[][];
}

/** Feeds the prompt one token per step, then n greedy steps (MATH.md's decoding). */
export function referenceGenerate(
  model: LoadedModel,
  prompt: readonly number[],
  n: number,
  forced: readonly (readonly (readonly number[])[])[] | null = null,
): ReferenceRun {
  if (prompt.length < 1) throw new RangeError('referenceGenerate: the prompt is empty');
  if (!Number.isInteger(n) || n < 1 || prompt.length + n > MAX_REFERENCE_POSITIONS) {
    throw new RangeError(`referenceGenerate: n = ${n} is not in [1, ${MAX_REFERENCE_POSITIONS - prompt.length}]`);
  }
  const ref = new ReferenceModel(model, forced);
  const run: ReferenceRun = { tokens: [], margins: [], relativeMargins: [], routes: [] };
  let last: StepResult | undefined;
  for (const t of prompt) {
    last = ref.step(t);
    run.routes.push([...last.routes]);
  }
  while (last !== undefined && run.tokens.length < n) {
    const a = argmaxWithMargin(last.logits);
    run.tokens.push(a.token);
    run.margins.push(a.margin);
    run.relativeMargins.push(a.range > 0 ? a.margin / a.range : 0);
    // The last token's step is not needed: nothing reads its logits.
    if (run.tokens.length < n) {
      last = ref.step(a.token);
      run.routes.push([...last.routes]);
    }
  }
  return run;
}
