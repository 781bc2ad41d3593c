/**
 * The int8 trunk of the MoE model (native/MATH.md, "The int8 trunk"), run in native code:
 * every trunk matrix quantized once, at start, to int8 rows with power-of-two scales
 * (tl_dense_quantize), and each GEMV computed either on a device, where the tier holds
 * the matrix (tl_dense_matvec), or on the CPU from the very same rows (tl_dense_cpu):
 * the two give the same bits, so residency never changes a hidden state.
 *
 * The block is parallel: a layer's attention and its MoE read the same residual x, and
 * the driver runs the attention (its four projections and the scores) while the layer's
 * expert group is in flight. Per layer: begin (the norms a and m), the router on m, the
 * route, the group issued, wq/wk/wv on a, the scores and KV cache, wo on o, the CPU
 * experts, take, and combine (x += wo, then x += the experts in route order); lm_head
 * after the last layer. Each GEMV's input and output are fixed by its offer index
 * (trunk_offers.ts), so the driver only names the matrix.
 */
import type { EngineModel } from '../../fixture/model_types.js';
import { lmHeadIndex, TRUNK_PARTS, trunkDims, type TrunkPart } from '../trunk_offers.js';
import type { NativeEngineLib, Status } from './binding.js';
import { decodeState } from './decode_state.js';
import type { DecodeTrunk, LayerRoute } from './trunk.js';

/** One trunk matrix as int8 rows. */
export interface Int8Matrix {
  readonly rows: number;
  readonly cols: number;
  readonly q: Int8Array;
  readonly scales: Float32Array;
}

export class Int8Trunk implements DecodeTrunk {
  readonly x: Float32Array;
  readonly matrices: readonly Int8Matrix[];
  private readonly kcache: Float32Array[];
  private readonly vcache: Float32Array[];
  private pos = -1;
  private readonly v: Record<'a' | 'q' | 'k' | 'v' | 'o' | 'wo' | 'f', Float32Array>;
  private m: Float32Array;
  readonly routerLogits: Float32Array;
  private readonly logits: Float32Array;

  constructor(
    private readonly lib: NativeEngineLib,
    private readonly model: EngineModel,
    maxPositions: number,
  ) {
    const H = model.shape.hidden;
    const s = decodeState(model, maxPositions, ['a', 'q', 'k', 'v', 'o', 'wo', 'f'] as const);
    ({ x: this.x, kcache: this.kcache, vcache: this.vcache, vec: this.v } = s);
    ({ routerLogits: this.routerLogits, logits: this.logits } = s);
    this.m = new Float32Array(H);
    const mats: Int8Matrix[] = [];
    for (const layer of model.layers) for (const part of TRUNK_PARTS) mats.push(this.quantize(layer[part], part));
    mats.push(this.quantize(model.lmHead, 'lm_head'));
    this.matrices = mats;
  }

  private quantize(w: Float32Array, part: TrunkPart | 'lm_head'): Int8Matrix {
    const { rows, cols } = trunkDims(this.model.shape, part);
    const q = new Int8Array(rows * cols);
    const scales = new Float32Array(rows);
    const st = this.lib.denseQuantize(w, rows, cols, q, scales);
    if (st.code !== 0) throw new Error(`int8 trunk: quantizing ${part}: ${st.message}`);
    return { rows, cols, q, scales };
  }

  /** A layer begins: on layer 0 a new position (x = embed[token]); the norms of x. */
  beginLayer(layer: number, token: () => number): void {
    const H = this.model.shape.hidden;
    if (layer === 0) {
      this.pos++;
      const t = token();
      this.x.set(this.model.embed.subarray(t * H, (t + 1) * H));
    }
    const L = this.layer(layer);
    this.lib.rmsnorm(this.x, L.attnNorm, this.v.a);
    this.m = new Float32Array(H); // the route's input lives on as the experts' activation
    this.lib.rmsnorm(this.x, L.ffnNorm, this.m);
  }

  /** The input and output of trunk matrix `index` now (lm_head: the final norm first). */
  private io(index: number): { x: Float32Array; y: Float32Array } {
    const P = TRUNK_PARTS.length;
    if (index === lmHeadIndex(this.model.shape.layers)) {
      this.lib.rmsnorm(this.x, this.model.outNorm, this.v.f);
      return { x: this.v.f, y: this.logits };
    }
    const part = TRUNK_PARTS[index % P];
    switch (part) {
      case 'router':
        return { x: this.m, y: this.routerLogits };
      case 'wq':
        return { x: this.v.a, y: this.v.q };
      case 'wk':
        return { x: this.v.a, y: this.v.k };
      case 'wv':
        return { x: this.v.a, y: this.v.v };
      case 'wo':
        return { x: this.v.o, y: this.v.wo };
      default:
        throw new Error(`internal error: no trunk matrix #${index}`);
    }
  }

  private matrix(index: number): Int8Matrix {
    const m = this.matrices[index];
    if (m === undefined) throw new Error(`internal error: no trunk matrix #${index}`);
    return m;
  }

  /** The GEMV on the CPU, from the int8 rows. */
  onCpu(index: number): void {
    const m = this.matrix(index);
    const { x, y } = this.io(index);
    const st = this.lib.denseCpu(m.q, m.scales, m.rows, m.cols, x, y);
    if (st.code !== 0) throw new Error(`int8 trunk: matrix #${index} on the CPU: ${st.message}`);
  }

  /** The GEMV on a device: `run` writes y = W x there. */
  onDevice(index: number, run: (x: Float32Array, y: Float32Array) => Status): void {
    const { x, y } = this.io(index);
    const st = run(x, y);
    if (st.code !== 0) throw new Error(`int8 trunk: matrix #${index} on its device: ${st.message}`);
  }

  /** the scores over the KV cache, from the projections q, k, v just computed */
  attention(layer: number): void {
    const kc = this.kcache[layer];
    const vc = this.vcache[layer];
    if (kc === undefined || vc === undefined) throw new Error(`no layer ${layer}`);
    this.lib.attention(this.v.q, this.v.k, this.v.v, kc, vc, this.pos, this.model.shape.heads, this.v.o);
  }

  route(layer: number): LayerRoute {
    this.layer(layer);
    const r = this.lib.route(this.routerLogits, this.model.shape.topk);
    if (r.status.code !== 0) throw new Error(`route failed: ${r.status.message}`);
    return { ids: r.ids, weights: r.weights, input: this.m };
  }

  /** x += wo, then x += sum_k w_k y_k in route order */
  combine(route: LayerRoute, outputs: readonly Float32Array[]): void {
    this.lib.axpy(this.x, 1, this.v.wo);
    const moe = new Float32Array(this.model.shape.hidden);
    outputs.forEach((y, k) => this.lib.axpy(moe, route.weights[k] ?? 0, y));
    this.lib.axpy(this.x, 1, moe);
  }

  /** the argmax of lm_head's output (its GEMV ran as the last trunk step) */
  finish(): number {
    return this.lib.argmax(this.logits);
  }

  private layer(l: number) {
    const L = this.model.layers[l];
    if (L === undefined) throw new Error(`no layer ${l}`);
    return L;
  }
}
