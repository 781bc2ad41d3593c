/**
 * The float32 decode trunk of the MoE model (native/MATH.md), computed in native code on
 * the CPU: embedding, norms, attention with a KV cache, router, the expert sum in route
 * order, lm_head. Identical for every run on one machine, so any difference between two
 * runs' hidden states comes from the expert tier, and there must be none. (The int8
 * trunk, whose matrices go through the tier, is int8_trunk.ts.)
 */
import type { EngineModel } from '../../fixture/model_types.js';
import type { NativeEngineLib } from './binding.js';
import { decodeState } from './decode_state.js';

export interface LayerRoute {
  readonly ids: Int32Array;
  readonly weights: Float32Array;
  /** the expert input: rmsnorm(x, ffnNorm) */
  readonly input: Float32Array;
}

/** What the real world's decode needs of a trunk, whichever form it has. */
export interface DecodeTrunk {
  /** the residual stream: every step's final one is compared bit for bit */
  readonly x: Float32Array;
  /** the router's logits of the layer routed last (prefer-resident routing reads them) */
  readonly routerLogits: Float32Array;
  /** the experts a layer routes to; `token` is this position's input (read when a
   *  position starts on layer 0) */
  route(layer: number, token: () => number): LayerRoute;
  /** adds the layer's branches to x: the experts' outputs in route order */
  combine(route: LayerRoute, outputs: readonly Float32Array[]): void;
  /** the token's argmax */
  finish(): number;
}

export class Trunk implements DecodeTrunk {
  readonly x: Float32Array;
  private readonly kcache: Float32Array[];
  private readonly vcache: Float32Array[];
  private pos = -1;
  private readonly scratch: Record<'a' | 'q' | 'k' | 'v' | 'o' | 'wo', Float32Array>;
  readonly routerLogits: Float32Array;
  private readonly logits: Float32Array;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly model: EngineModel,
    maxPositions: number,
  ) {
    const s = decodeState(model, maxPositions, ['a', 'q', 'k', 'v', 'o', 'wo'] as const);
    ({ x: this.x, kcache: this.kcache, vcache: this.vcache, vec: this.scratch } = s);
    ({ routerLogits: this.routerLogits, logits: this.logits } = s);
  }

  /** a new position: x = embed[token] */
  private begin(token: number): void {
    const H = this.model.shape.hidden;
    this.pos++;
    this.x.set(this.model.embed.subarray(token * H, (token + 1) * H));
  }

  /** attention block, then the router: returns the routed experts and their input */
  route(layer: number, token: () => number): LayerRoute {
    if (layer === 0) this.begin(token());
    const L = this.model.layers[layer];
    const kc = this.kcache[layer];
    const vc = this.vcache[layer];
    if (L === undefined || kc === undefined || vc === undefined) throw new Error(`no layer ${layer}`);
    const H = this.model.shape.hidden;
    const s = this.scratch;
    this.lib.rmsnorm(this.x, L.attnNorm, s.a);
    this.lib.matvec(L.wq, s.a, H, H, s.q);
    this.lib.matvec(L.wk, s.a, H, H, s.k);
    this.lib.matvec(L.wv, s.a, H, H, s.v);
    this.lib.attention(s.q, s.k, s.v, kc, vc, this.pos, this.model.shape.heads, s.o);
    this.lib.matvec(L.wo, s.o, H, H, s.wo);
    this.lib.axpy(this.x, 1, s.wo);
    const input = new Float32Array(H);
    this.lib.rmsnorm(this.x, L.ffnNorm, input);
    this.lib.matvec(L.router, input, this.model.shape.experts, H, this.routerLogits);
    const r = this.lib.route(this.routerLogits, this.model.shape.topk);
    if (r.status.code !== 0) throw new Error(`route failed: ${r.status.message}`);
    return { ids: r.ids, weights: r.weights, input };
  }

  /** x += sum_k w_k y_k, in route order */
  combine(route: LayerRoute, outputs: readonly Float32Array[]): void {
    const moe = new Float32Array(this.model.shape.hidden);
    outputs.forEach((y, k) => this.lib.axpy(moe, route.weights[k] ?? 0, y));
    this.lib.axpy(this.x, 1, moe);
  }

  /** final norm, lm_head, argmax */
  finish(): number {
    const f = new Float32Array(this.model.shape.hidden);
    this.lib.rmsnorm(this.x, this.model.outNorm, f);
    this.lib.matvec(this.model.lmHead, f, this.model.shape.vocab, this.model.shape.hidden, this.logits);
    return this.lib.argmax(this.logits);
  }
}
