/**
 * The oracle's contract for prefer-resident routing (PROTOCOL.md, "Routing that prefers
 * residents"): output depends on residency by design, so such a run is not compared with
 * the CPU-only run. Its tokens are compared with the float64 reference given the run's
 * own routing decisions (recorded per step and layer), and its hidden states with a second
 * run of the same spec forced to the same decisions: whatever that run happens to hold
 * resident, the same routing must give the same bits.
 */
import { referenceGenerate } from '../../src/float64/reference.js';
import type { LoadedModel } from '../../src/fixture/model_types.js';
import type { OracleRunResult, OracleRunSpec } from './oracle_run.js';

export interface PreferCheck {
  /** the float64 reference's tokens under the run's routing */
  readonly reference: readonly number[];
  /** the second run, forced to the first run's routing, is bit-identical to it */
  readonly identical: boolean;
  /** what went wrong in the second run, if anything */
  readonly problem: string | null;
}

export async function preferCheck(
  run: (spec: OracleRunSpec) => Promise<OracleRunResult>,
  model: LoadedModel,
  spec: OracleRunSpec,
  first: OracleRunResult,
  tokens: number,
): Promise<PreferCheck> {
  const again = await run({ ...spec, forcedRoutes: first.routing });
  const reference = referenceGenerate(model, model.manifest.prompt, tokens, first.routing).tokens;
  const identical = again.ok && first.hidden.length > 0 && sameBits(first.hidden, again.hidden);
  return { reference, identical, problem: again.problem === null ? null : `the forced rerun: ${again.problem}` };
}

export function sameBits(a: readonly Float32Array[], b: readonly Float32Array[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i];
    return (
      y !== undefined &&
      Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength))
    );
  });
}
