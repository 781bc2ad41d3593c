/**
 * The buffers a decode trunk keeps, float32 or int8 alike: the residual stream, each
 * layer's KV cache, the router's and lm_head's outputs, and named H-sized work vectors.
 * Made once per run (sized for its positions) and reused by every step.
 */
import type { EngineModel } from '../../fixture/model_types.js';

export interface DecodeState<V extends string> {
  readonly x: Float32Array;
  readonly kcache: Float32Array[];
  readonly vcache: Float32Array[];
  readonly routerLogits: Float32Array;
  readonly logits: Float32Array;
  readonly vec: Record<V, Float32Array>;
}

export function decodeState<V extends string>(
  model: EngineModel,
  maxPositions: number,
  vectors: readonly V[],
): DecodeState<V> {
  const H = model.shape.hidden;
  const vec = {} as Record<V, Float32Array>;
  for (const name of vectors) vec[name] = new Float32Array(H);
  return {
    x: new Float32Array(H),
    kcache: model.layers.map(() => new Float32Array(maxPositions * H)),
    vcache: model.layers.map(() => new Float32Array(maxPositions * H)),
    routerLogits: new Float32Array(model.shape.experts),
    logits: new Float32Array(model.shape.vocab),
    vec,
  };
}
