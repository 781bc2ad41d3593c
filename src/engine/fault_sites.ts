/**
 * Where a fault can be injected: one vocabulary for the simulated world's fault plan,
 * the scenario generator, the scenario description and the native engine's fault arm.
 *
 *  - upload: a device upload fails (the device is full, or the copy failed);
 *  - issue: a device group cannot be issued (its experts go back to the CPU);
 *  - take: a device group's results cannot be collected;
 *  - load: a warmstart loader cannot materialize an expert's RAM copy (null weights);
 *  - stage: the host staging copy cannot be allocated;
 *  - alloc: one of init's host arrays (slot table, ring) cannot be allocated;
 *  - sync: init cannot initialize the mutex and condition variables;
 *  - spawn: init cannot start the uploader thread.
 */
export const FAULT_SITES = ['upload', 'issue', 'take', 'load', 'stage', 'alloc', 'sync', 'spawn'] as const;
export type FaultSite = (typeof FAULT_SITES)[number];

/** The sites the native engine can fail on request (tl_fault_arm). */
export const NATIVE_FAULT_SITES = ['upload', 'issue', 'take'] as const satisfies readonly FaultSite[];
export type NativeFaultSite = (typeof NATIVE_FAULT_SITES)[number];

/**
 * The fault plan: per site, 0-based indices (over the whole run) of the calls that fail.
 * Keys are `<site>Fails`, the names scenario files carry.
 */
export type FaultPlan = { readonly [S in FaultSite as `${S}Fails`]: readonly number[] };

export function faultKey<S extends FaultSite>(site: S): `${S}Fails` {
  return `${site}Fails`;
}

export const NO_FAULTS: FaultPlan = {
  uploadFails: [],
  issueFails: [],
  takeFails: [],
  loadFails: [],
  stageFails: [],
  allocFails: [],
  syncFails: [],
  spawnFails: [],
};

export function faultCount(plan: FaultPlan): number {
  let n = 0;
  for (const site of FAULT_SITES) n += plan[faultKey(site)].length;
  return n;
}
