/**
 * The simulated world's fault injector: counts calls per site and says whether this one
 * is planned to fail. The plan is decided up front by the scenario (so fast-check shrinks
 * it with everything else); injectors never check anything.
 */
import { FAULT_SITES, faultKey, type FaultPlan, type FaultSite } from '../../src/engine/fault_sites.js';

export class FaultInjector {
  private readonly calls = new Map<FaultSite, number>();
  /** faults fired so far, per site */
  readonly injected = new Map<FaultSite, number>();

  /** the scenario's plan (`faultPlan`: a constant input, which state digests leave out) */
  constructor(private readonly faultPlan: FaultPlan) {
    for (const site of FAULT_SITES) {
      this.calls.set(site, 0);
      this.injected.set(site, 0);
    }
  }

  /** one call at `site`: true when the plan fails this one */
  fails(site: FaultSite): boolean {
    const i = this.calls.get(site) ?? 0;
    this.calls.set(site, i + 1);
    if (!this.faultPlan[faultKey(site)].includes(i)) return false;
    this.injected.set(site, (this.injected.get(site) ?? 0) + 1);
    return true;
  }
}
