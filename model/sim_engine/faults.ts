/**
 * The fault plan: every failure the simulated world injects, decided up front by the
 * scenario (so fast-check shrinks it with everything else). Injectors live here and in
 * the simulated backend; they never check anything.
 */
export interface FaultPlan {
  /** 0-based indices, over the whole run, of `upload` calls that fail */
  readonly uploadFails: readonly number[];
  /** indices of `issueGroup` calls that fail */
  readonly issueFails: readonly number[];
  /** indices of `takeGroup` calls that fail */
  readonly takeFails: readonly number[];
  /** indices of warmstart RAM loads that fail (the loader then has null weights) */
  readonly loadFails: readonly number[];
  /** indices of host staging copies that cannot be allocated */
  readonly stageFails?: readonly number[];
}

export const NO_FAULTS: FaultPlan = { uploadFails: [], issueFails: [], takeFails: [], loadFails: [] };

export function isQuiet(plan: FaultPlan): boolean {
  return plan.uploadFails.length === 0 && plan.issueFails.length === 0 && plan.takeFails.length === 0 && plan.loadFails.length === 0;
}

/** Counts calls of one kind and says whether this one is planned to fail. */
export class FaultCounter {
  private n = 0;
  constructor(private readonly failing: readonly number[]) {}
  next(): boolean {
    const i = this.n++;
    return this.failing.includes(i);
  }
}
