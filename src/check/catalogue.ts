/**
 * Every property tierlab checks: an id, whether it is about safety or liveness, the
 * family it guards, a one-line statement, and why it matters (the defect family of
 * DEFECTS.md it stands for).
 *
 * The ids are one vocabulary: `Violation` takes a PropertyId, so an id that is not
 * catalogued here does not compile, and the catalogue is a Record over the ids, so an id
 * without its statement does not compile either. Checks live in src/check/checkers
 * (state and end-of-run checks), src/check/ledger.ts and the RAM tables (sanitizer-style
 * checks at the op that commits the fault), src/check/sync_discipline.ts and the two
 * runtimes (sync discipline, deadlock, limits).
 */
export const PROPERTY_IDS = [
  'ACC-INFLIGHT',
  'ACC-BUDGET',
  'ACC-FOOTPRINT',
  'DEV-BUDGET',
  'VARIANT-FILL-ONCE',
  'MEM-DEVICE',
  'MEM-RAM',
  'MEM-HOST',
  'MEM-UPLOAD-BYTES',
  'MEM-BOUNDS',
  'MEM-BUFFER-OWNER',
  'MEM-SYNC',
  'MEM-GENERATION',
  'GATE-STATE',
  'POST-SHUTDOWN-RETURN',
  'EVICT-ONCE',
  'POST-FILL-WAIT',
  'POST-WARMSTART',
  'POST-RESIDENCY',
  'POST-SHUTDOWN',
  'PROG-FILL',
  'COMP-EXACT-ONCE',
  'COMP-MISS-WEIGHTS',
  'LIVE-DEADLOCK',
  'LIVE-SHUTDOWN',
  'LIVE-LOST-WAKEUP',
  'LIVE-STEPS',
  'SAFE-NO-CRASH',
  'SYNC-DISCIPLINE',
  'LIMIT-THREADS',
  'DRV-WARMSTART',
  'DRV-HANDOVER',
  'DRV-FILL-WAIT',
  'SPEC-INIT',
  'SPEC-PLAN',
  'SPEC-FILL',
  'SPEC-ENQUEUE',
  'SPEC-ADMISSION',
  'SPEC-DECAY',
  'SPEC-HOME',
  'SPEC-MASK',
  'SPEC-TAKE',
  'SPEC-COUNTERS',
  'SPEC-HEAT-FILE',
  'SPEC-UPLOADER',
  'SPEC-SHUTDOWN',
  'SPEC-WAKEUP',
  'SPEC-STATE',
  'SPEC-GATE',
  'SPEC-REPLAN',
  'SPEC-EVICTED',
  'SPEC-SYNC-MODE',
  'SPEC-PREFER',
  'SPEC-STATS',
] as const;
export type PropertyId = (typeof PROPERTY_IDS)[number];

/** Safety: something bad happened. Liveness: something good never happened (a hang). */
export type PropertyKind = 'safety' | 'liveness';

/** The families the properties guard, each a defect family of DEFECTS.md. */
export const PROPERTY_FAMILIES = [
  'accounting',
  'device accounting',
  'device memory safety',
  'RAM lifetime',
  'host memory safety',
  'bounds',
  'buffer ownership',
  'fill_wait residency',
  'nothing left after shutdown',
  'exactly once',
  'memory safety',
  'deadlock freedom',
  'liveness',
  'liveness after shutdown',
  'refinement',
  'sync discipline',
  'driver',
  // the lifecycle gate and what it protects (PROTOCOL.md's last section)
  'sync-object lifetime',
  'lifecycle gate',
  'eviction ring',
] as const;
export type PropertyFamily = (typeof PROPERTY_FAMILIES)[number];

/** The SPEC-* ids: a divergence of the tier from the reference (src/protocol_ref/), by family. */
export type SpecPropertyId = Extract<PropertyId, `SPEC-${string}`>;

export interface PropertyInfo {
  readonly id: PropertyId;
  readonly kind: PropertyKind;
  readonly family: PropertyFamily;
  readonly statement: string;
  readonly reason: string;
  /** when the check runs */
  readonly when: 'every op' | 'every unlock' | 'at a call or return' | 'end of run';
}

const CATALOGUE: { readonly [K in PropertyId]: Omit<PropertyInfo, 'id'> } = {
  'ACC-INFLIGHT': {
    kind: 'safety',
    family: 'accounting',
    statement: 'inflight equals the number of queued experts; qn counts the ring entries; 0 <= qn <= capacity',
    reason: 'an exit path of the uploader that skips inflight-- or queued=0 makes fill_wait wait forever',
    when: 'every unlock',
  },
  'ACC-BUDGET': {
    kind: 'safety',
    family: 'accounting',
    statement: 'used[d] = exp_bytes x (resident + queued + planned on d) + dense[d], and 0 <= used[d] <= budget[d]',
    reason: 'a reservation that is never given back (#1331) leaks budget for the life of the process',
    when: 'every unlock',
  },
  'ACC-FOOTPRINT': {
    kind: 'safety',
    family: 'accounting',
    statement: "a resident expert's device allocations add up to exactly the exp_bytes the tier charged for it",
    reason: 'charging payload instead of the allocator footprint (#687) plans more than fits',
    when: 'every unlock',
  },
  'DEV-BUDGET': {
    kind: 'safety',
    family: 'device accounting',
    statement: 'device bytes consumed (live, or the arena high-water mark) never exceed the budget',
    reason: 'swaps on a backend that never reclaims leak one expert of VRAM each',
    when: 'every unlock',
  },
  'VARIANT-FILL-ONCE': {
    kind: 'safety',
    family: 'device accounting',
    statement: 'on a backend that cannot reclaim memory no swap is ever enqueued',
    reason: 'the Vulkan arena never frees a slice: a swap there is a leak by construction',
    when: 'at a call or return',
  },
  'MEM-DEVICE': {
    kind: 'safety',
    family: 'device memory safety',
    statement: 'no device tensor is freed twice, freed while an open group reads it, or read after it was freed',
    reason: 'a swap that frees its victim while a group is open makes the GPU compute with freed memory',
    when: 'every op',
  },
  'MEM-RAM': {
    kind: 'safety',
    family: 'RAM lifetime',
    statement: 'nobody reads a RAM slot after the engine freed or recycled it',
    reason: 'warmstart freeing copies the tier still points at (#1341); streaming slots recycled under the tier',
    when: 'every op',
  },
  'MEM-HOST': {
    kind: 'safety',
    family: 'host memory safety',
    statement: 'every staging copy is freed once and never read after it is freed; a host array holds its table',
    reason: 'the uploader owns the staging copy from dequeue to its last upload',
    when: 'every op',
  },
  'MEM-UPLOAD-BYTES': {
    kind: 'safety',
    family: 'RAM lifetime',
    statement: "the bytes an upload sends are the expert's own",
    reason: 'copying at upload time from a recycled RAM slot sends the wrong expert to the GPU',
    when: 'every op',
  },
  'MEM-BOUNDS': {
    kind: 'safety',
    family: 'bounds',
    statement: "every input write lands inside its device's own block of the input buffer",
    reason: 'an 8-row stride for a 32-row block (#1339) lets device 1 write into device 0 and off the allocation',
    when: 'every op',
  },
  'MEM-BUFFER-OWNER': {
    kind: 'safety',
    family: 'buffer ownership',
    statement: 'no two in-flight device operations share a buffer',
    reason: "a dense GEMV on the group's buffers overwrites its input and lands where take reads",
    when: 'every op',
  },
  'MEM-SYNC': {
    kind: 'safety',
    family: 'sync-object lifetime',
    statement:
      'mx, cv and cv_take are never used after their destroy, initialized while alive, or destroyed while held, waited on or awaited',
    reason:
      'a caller that tested an on flag with no lock held resumed into a destroyed mutex; a re-init in the teardown window replaced the mutex the teardown waited on',
    when: 'every op',
  },
  'MEM-GENERATION': {
    kind: 'safety',
    family: 'device memory safety',
    statement: 'every tensor a group or a dense GEMV reads belongs to the current generation (init to shutdown)',
    reason:
      "a trunk left resident by a shutdown at DEAD was handed to the next init by the backend's shape cache: a new generation computed on the old weights",
    when: 'every op',
  },
  'GATE-STATE': {
    kind: 'safety',
    family: 'lifecycle gate',
    statement:
      'whenever gmx is released the gate is consistent: live >= 0, at most one exclusive section queued or held, none held while a caller is inside, and no thread outside a tier call inside the gate',
    reason:
      'a gate that counts a caller twice, or admits one during an exclusive section, lets teardown free what a caller uses',
    when: 'every unlock',
  },
  'POST-SHUTDOWN-RETURN': {
    kind: 'safety',
    family: 'nothing left after shutdown',
    statement:
      'when shutdown returns to any caller that found a generation standing (not one being started), that generation is torn down: its sync objects destroyed, its storage freed',
    reason:
      'a losing shutdown that read an unset teardown latch returned while the teardown was still under way, and the engine freed what the tier still used',
    when: 'at a call or return',
  },
  'EVICT-ONCE': {
    kind: 'safety',
    family: 'eviction ring',
    statement:
      'evicted_take reports every expert the uploader evicted exactly once, oldest first; only an eviction the ring counted as dropped may go unreported',
    reason: 'an eviction reported twice rebuilds a CPU copy twice; one never reported serves a miss from a stale copy',
    when: 'at a call or return',
  },
  'POST-FILL-WAIT': {
    kind: 'safety',
    family: 'fill_wait residency',
    statement:
      'when fill_wait returns without stop, nothing is queued or in flight: every expert enqueued before is resident or failed',
    reason: 'the engine frees RAM copies right after fill_wait, trusting residency (#1360)',
    when: 'at a call or return',
  },
  'POST-WARMSTART': {
    kind: 'safety',
    family: 'fill_wait residency',
    statement: 'the warmstart never loses an expert to a full ring: note_block and note_planned wait for space',
    reason: 'a warmstart that skips on a full ring leaves planned experts on the CPU and their reservations wasted',
    when: 'at a call or return',
  },
  'POST-RESIDENCY': {
    kind: 'safety',
    family: 'fill_wait residency',
    statement: 'the residency the warmstart reports equals the experts really resident',
    reason: "reporting the plan as residency makes 'N in VRAM' false",
    when: 'at a call or return',
  },
  'POST-SHUTDOWN': {
    kind: 'safety',
    family: 'nothing left after shutdown',
    statement:
      'after shutdown: ring empty, nothing queued or resident, zero device allocations and staging copies when the backend shuts down, budgets released',
    reason: 'a shutdown that joins but does not release leaks every tensor (a validation layer counted 21)',
    when: 'end of run',
  },
  'PROG-FILL': {
    kind: 'liveness',
    family: 'fill_wait residency',
    statement:
      'with no faults and devices that hold their budgets, every expert plan_fill returned is resident when fill_wait returns',
    reason: 'a tier that plans but never promotes a planned expert passes every safety property',
    when: 'at a call or return',
  },
  'COMP-EXACT-ONCE': {
    kind: 'safety',
    family: 'exactly once',
    statement:
      'every routed expert of every token and layer contributes exactly once, computed from its own input, in route order',
    reason: 'a failed take whose experts nobody recomputes changes the output silently',
    when: 'every op',
  },
  'COMP-MISS-WEIGHTS': {
    kind: 'safety',
    family: 'exactly once',
    statement: 'every expert computed on the CPU has RAM weights',
    reason: 'an expert offered with null weights and counted as resident has no CPU fallback',
    when: 'every op',
  },
  'LIVE-DEADLOCK': {
    kind: 'liveness',
    family: 'deadlock freedom',
    statement: 'some thread can always move until every thread has finished',
    reason: 'fill_wait with a group open waits on a swap that waits on the group',
    when: 'every op',
  },
  'LIVE-SHUTDOWN': {
    kind: 'liveness',
    family: 'liveness after shutdown',
    statement: 'after shutdown starts, every thread ends (no one is left waiting) within a step bound',
    reason: 'a shutdown that does not broadcast cv_take strands fill_wait, note_block and parked swaps (#1340)',
    when: 'every op',
  },
  'LIVE-LOST-WAKEUP': {
    kind: 'liveness',
    family: 'liveness',
    statement:
      'whenever mx is released, every thread asleep on a condition variable still has a reason to sleep (its wait predicate holds)',
    reason: 'whoever ends a wait must signal or broadcast: a forgotten one strands the waiter until luck rescues it',
    when: 'every unlock',
  },
  'LIVE-STEPS': {
    kind: 'liveness',
    family: 'liveness',
    statement: 'a run ends within its step limit',
    reason: 'a livelock is a hang that still burns CPU',
    when: 'every op',
  },
  'SAFE-NO-CRASH': {
    kind: 'safety',
    family: 'memory safety',
    statement: 'no thread throws: no failed assertion, no null dereference, no out-of-range index',
    reason: 'in C each of these is an abort or undefined behaviour in the engine process',
    when: 'every op',
  },
  'SYNC-DISCIPLINE': {
    kind: 'safety',
    family: 'sync discipline',
    statement:
      'a thread waits, signals, broadcasts or unlocks only holding mx, never re-locks it, never ends holding it, and never reads or changes mx-guarded state without it',
    reason:
      'a dropped lock or unlock, or a statement moved out of its critical section, is a data race or a deadlock in C',
    when: 'every op',
  },
  'LIMIT-THREADS': {
    kind: 'liveness',
    family: 'liveness',
    statement: 'a run spawns at most its thread limit of threads',
    reason: 'a thread started per call (per note, per token) is a resource leak that ends in an exhausted process',
    when: 'every op',
  },
  'SPEC-INIT': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'init refuses exactly the invalid configurations, sets budgets, loads heat and places the trunk as the protocol says, and a failed stage leaves nothing allocated',
    reason: 'a half-initialized tier leaks, or runs on a configuration the engine cannot compute',
    when: 'every unlock',
  },
  'SPEC-PLAN': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'plan_fill reserves, in heat or natural order, every expert that fits its home device, and only those: the plan is maximal and ordered',
    reason: 'planning too few leaves VRAM idle; planning in the wrong order uploads cold experts first',
    when: 'every unlock',
  },
  'SPEC-FILL': {
    kind: 'safety',
    family: 'refinement',
    statement: 'fill_wait returns exactly when nothing is in flight (or the tier stops), and waits otherwise',
    reason:
      'returning early lets the engine free RAM copies still being uploaded (#1360); never returning hangs the warmstart',
    when: 'every unlock',
  },
  'SPEC-ENQUEUE': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'note, note_block, note_planned and release_ram count heat, keep or drop RAM pointers, and enqueue or refuse exactly as the protocol says',
    reason:
      'a tier that never promotes at decode time (#1391) or keeps a streamed pointer passes every safety property',
    when: 'every unlock',
  },
  'SPEC-ADMISSION': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'an LFRU round swaps exactly when hot > cold + floor(cold/4) + 4, coldest resident against hottest candidate, on backends that reclaim',
    reason: 'a wrong admission rule thrashes or never adapts; a swap on a fill-once arena leaks',
    when: 'every unlock',
  },
  'SPEC-DECAY': {
    kind: 'safety',
    family: 'refinement',
    statement: 'heat decays by halving exactly every decay period of ticks',
    reason: 'decay at the wrong period makes old heat dominate or vanish',
    when: 'every unlock',
  },
  'SPEC-HOME': {
    kind: 'safety',
    family: 'refinement',
    statement: 'every expert lives on its home device eid % ndev: charges, uploads and frees land there',
    reason: 'an expert charged to one device and uploaded to another overruns a budget',
    when: 'every unlock',
  },
  'SPEC-MASK': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'issue sets exactly the bits of routed experts resident on a device whose group was issued, at most 32 rows per device, into each devices own block',
    reason: 'a clear bit for a resident expert wastes the GPU; a set bit for a missing one loses the expert',
    when: 'every unlock',
  },
  'SPEC-TAKE': {
    kind: 'safety',
    family: 'refinement',
    statement: 'take collects every open group, reports any lost one, and closes the window',
    reason: 'a take that drops outputs silently, or reports success for a lost group, changes the output',
    when: 'every unlock',
  },
  'SPEC-COUNTERS': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'uploads, failures, hits, misses, swaps, abandoned swaps and queue-full skips count exactly the events they name',
    reason: 'the engine reports and tunes from these numbers',
    when: 'every unlock',
  },
  'SPEC-HEAT-FILE': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'the heat file is read in its format and halved on load, ignored when of another shape, and written at shutdown',
    reason: 'a heat file loaded without halving dominates the next run; a wrong one plans by a neighbours heat',
    when: 'every unlock',
  },
  'SPEC-UPLOADER': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'the uploader dequeues in order, waits for an open group before evicting, abandons only at shutdown, and finishes every entry as the protocol says',
    reason: 'an uploader that loses an entry or evicts early breaks residency and memory safety',
    when: 'every unlock',
  },
  'SPEC-SHUTDOWN': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'shutdown stops, wakes, waits for woken callers, drains the open group and releases everything in the protocols order',
    reason: 'a shutdown that returns with a caller inside, or releases under an open group, is a use after free',
    when: 'every unlock',
  },
  'SPEC-WAKEUP': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'every signal and broadcast the protocol prescribes is made, and every wait is on the protocols condition variable',
    reason: 'a missing broadcast strands a waiter (#1340); a wait on the wrong variable never wakes',
    when: 'every unlock',
  },
  'DRV-WARMSTART': {
    kind: 'safety',
    family: 'driver',
    statement:
      "a run warmstarts as planned exactly when its init started the tier fresh; a second init's 'already' changes nothing",
    reason: 'a driver that takes the second answer as the first skips the warmstart, and no tier check can see it',
    when: 'at a call or return',
  },
  'DRV-HANDOVER': {
    kind: 'safety',
    family: 'driver',
    statement: 'every expert the plan returned is handed over before fill_wait is called',
    reason: 'a planned expert never handed over keeps its reservation and is never resident',
    when: 'at a call or return',
  },
  'DRV-FILL-WAIT': {
    kind: 'safety',
    family: 'driver',
    statement: 'fill_wait is never called while the caller has a group open',
    reason: 'a swap waiting for the open group and fill_wait waiting for the swap deadlock',
    when: 'at a call or return',
  },
  'SPEC-STATE': {
    kind: 'safety',
    family: 'refinement',
    statement: 'the tiers state changes only inside tier calls, and then as the protocol says',
    reason: 'a change outside a tier call is a write the protocol does not account for',
    when: 'every unlock',
  },
  'SPEC-GATE': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'every entry point enters and leaves through the gate as the protocol says: admitted only when LIVE (the trunk also at DEAD), refused once an exclusive section is queued; init and teardown exclusive only from the state they leave, the loser refusing',
    reason:
      'an init that queued before checking the state made the teardown refuse its own exclusive section: shutdown returned with everything allocated',
    when: 'every unlock',
  },
  'SPEC-REPLAN': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'replan swaps never-routed residents for the most-routed non-residents of the same layer and device, only while the newcomer count is strictly greater, as many as the ring takes, keeping the rest pending',
    reason: 'a swap on equal counts thrashes; a pending pair lost never comes in',
    when: 'every unlock',
  },
  'SPEC-EVICTED': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'every eviction enters the eviction ring once, oldest first, bounded, overflow counted; evicted_take drains it in order',
    reason: 'the engine rebuilds CPU copies from the ring: a double or missing entry is a wrong CPU copy',
    when: 'every unlock',
  },
  'SPEC-SYNC-MODE': {
    kind: 'safety',
    family: 'refinement',
    statement: 'in synchronous mode issue waits until nothing is in flight (or stop) before it builds the group',
    reason: 'waiting on the ring count returns while the last upload still copies: residency is not deterministic',
    when: 'every unlock',
  },
  'SPEC-PREFER': {
    kind: 'safety',
    family: 'refinement',
    statement: 'prefer reports the residency of the routing candidates as it is under the lock',
    reason: 'a residency read without the lock routes by a state that never was',
    when: 'every unlock',
  },
  'SPEC-STATS': {
    kind: 'safety',
    family: 'refinement',
    statement:
      'stats reports hits and misses since the last stats_mark, and is_resident the residency, as the protocol says',
    reason: 'the engine tunes from these numbers at the prefill/decode boundary',
    when: 'every unlock',
  },
};

export const PROPERTIES: readonly PropertyInfo[] = PROPERTY_IDS.map((id) => ({ id, ...CATALOGUE[id] }));

export function isPropertyId(id: string): id is PropertyId {
  return (PROPERTY_IDS as readonly string[]).includes(id);
}

export function propertyInfo(id: PropertyId): PropertyInfo {
  return { id, ...CATALOGUE[id] };
}
