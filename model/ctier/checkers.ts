/**
 * The checkers a C tier run is judged by, per level:
 *  - level 1 (the tier logs nothing): the boundary checks (src/check/replay/boundary.ts)
 *    and the engine driver's (DRV-*); the shadow world's ledger and the scheduler's
 *    outcome come with every replay;
 *  - level 2 (the tier's event log): the standard checkers every simulated and real run
 *    gets (src/engine/assemble.ts), the boundary checks, and last the refinement against
 *    the reference, the gate's gmx and gcv included (the replay passes them through).
 * The same property ids, for the same defects, as a simulated run of the same scenario.
 * A free run's log (`check-trace --reference`) gets the level-2 checkers less those that
 * read the engine driver's records, which a tier's log does not have (freeRunCheckers).
 */
import { driverDecisions, standardCheckers } from '../../src/engine/assemble.js';
import { DriverChecker } from '../../src/check/checkers/driver.js';
import type { Checker } from '../../src/check/checker.js';
import { RefinementChecker } from '../../src/check/refinement/refinement.js';
import { boundaryChecker } from '../../src/check/replay/boundary.js';
import type { CheckerFactory } from '../../src/check/replay/replay.js';
import type { DriverPlan } from '../../src/engine/driver.js';

export interface CTierCheckOptions {
  readonly faultFree: boolean;
  readonly devices: number;
  readonly plan: DriverPlan;
  /** the engine wants LFRU swaps (the reference decides with the backend whether they happen) */
  readonly wantSwaps: boolean;
}

export function ctierCheckers(o: CTierCheckOptions): CheckerFactory {
  return (shadow, world) => {
    const boundary = boundaryChecker(world, { faultFree: o.faultFree, devices: o.devices });
    const driver = driverDecisions(o.plan);
    if (shadow === null) return [boundary, new DriverChecker(driver)];
    const ctx = { st: shadow.st, world };
    const opts = { faultFree: o.faultFree, refinement: false, wantSwaps: o.wantSwaps, driver };
    const standard: Checker[] = standardCheckers(ctx, opts);
    const lockstep = new RefinementChecker(shadow.st, world, o.wantSwaps);
    return [...standard, boundary, lockstep];
  };
}

/**
 * The checkers of a free run's log replayed through the reference (src/check/trace/
 * trace_reference.ts): the standard checkers with the refinement, no driver (its decisions
 * are not in a tier's log) and no boundary checker (it reads the engine's records).
 */
export function freeRunCheckers(o: { readonly faultFree: boolean; readonly wantSwaps: boolean }): CheckerFactory {
  return (shadow, world) => {
    if (shadow === null) return [];
    const ctx = { st: shadow.st, world };
    return standardCheckers(ctx, {
      faultFree: o.faultFree,
      refinement: true,
      wantSwaps: o.wantSwaps,
      watchSlots: true,
    });
  };
}
