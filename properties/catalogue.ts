/**
 * Every property tierlab checks: an id, the family it guards, a one-line statement, and
 * why it matters (the defect family of DEFECTS.md it stands for). Checks live in
 * model/checkers (state and end-of-run checks), model/sim_engine/ledger.ts and
 * model/ram (the sanitizer-style checks at the op that commits the fault) and
 * model/rt/runtime.ts (sync discipline, deadlock, limits).
 */
export interface PropertyInfo {
  readonly id: string;
  readonly family: string;
  readonly statement: string;
  readonly reason: string;
  /** when the check runs */
  readonly when: 'every op' | 'every unlock' | 'at a call or return' | 'end of run';
}

export const PROPERTIES: readonly PropertyInfo[] = [
  {
    id: 'ACC-INFLIGHT',
    family: 'accounting',
    statement: 'inflight equals the number of queued experts; qn counts the ring entries; 0 <= qn <= capacity',
    reason: 'an exit path of the uploader that skips inflight-- or queued=0 makes fill_wait wait forever',
    when: 'every unlock',
  },
  {
    id: 'ACC-BUDGET',
    family: 'accounting',
    statement: 'used[d] = exp_bytes x (resident + queued + planned on d) + dense[d], and 0 <= used[d] <= budget[d]',
    reason: 'a reservation that is never given back (#1331) leaks budget for the life of the process',
    when: 'every unlock',
  },
  {
    id: 'ACC-FOOTPRINT',
    family: 'accounting',
    statement: "a resident expert's device allocations add up to exactly the exp_bytes the tier charged for it",
    reason: 'charging payload instead of the allocator footprint (#687) plans more than fits',
    when: 'every unlock',
  },
  {
    id: 'DEV-BUDGET',
    family: 'device accounting',
    statement: 'device bytes consumed (live, or the arena high-water mark) never exceed the budget',
    reason: 'swaps on a backend that never reclaims leak one expert of VRAM each',
    when: 'every unlock',
  },
  {
    id: 'VARIANT-FILL-ONCE',
    family: 'device accounting',
    statement: 'on a backend that cannot reclaim memory no swap is ever enqueued',
    reason: 'the Vulkan arena never frees a slice: a swap there is a leak by construction',
    when: 'at a call or return',
  },
  {
    id: 'MEM-DEVICE',
    family: 'device memory safety',
    statement: 'no device tensor is freed twice, freed while an open group reads it, or read after it was freed',
    reason: 'a swap that frees its victim while a group is open makes the GPU compute with freed memory',
    when: 'every op',
  },
  {
    id: 'MEM-RAM',
    family: 'RAM lifetime',
    statement: 'nobody reads a RAM slot after the engine freed or recycled it',
    reason: 'warmstart freeing copies the tier still points at (#1341); streaming slots recycled under the tier',
    when: 'every op',
  },
  {
    id: 'MEM-HOST',
    family: 'host memory safety',
    statement: 'every staging copy is freed once and never read after it is freed',
    reason: 'the uploader owns the staging copy from dequeue to its last upload',
    when: 'every op',
  },
  {
    id: 'MEM-UPLOAD-BYTES',
    family: 'RAM lifetime',
    statement: "the bytes an upload sends are the expert's own",
    reason: 'copying at upload time from a recycled RAM slot sends the wrong expert to the GPU',
    when: 'every op',
  },
  {
    id: 'MEM-BOUNDS',
    family: 'bounds',
    statement: "every input write lands inside its device's own block of the input buffer",
    reason: 'an 8-row stride for a 32-row block (#1339) lets device 1 write into device 0 and off the allocation',
    when: 'every op',
  },
  {
    id: 'MEM-BUFFER-OWNER',
    family: 'buffer ownership',
    statement: 'no two in-flight device operations share a buffer',
    reason: "a dense GEMV on the group's buffers overwrites its input and lands where take reads",
    when: 'every op',
  },
  {
    id: 'POST-FILL-WAIT',
    family: 'fill_wait residency',
    statement: 'when fill_wait returns without stop, nothing is queued or in flight: every expert enqueued before is resident or failed',
    reason: 'the engine frees RAM copies right after fill_wait, trusting residency (#1360)',
    when: 'at a call or return',
  },
  {
    id: 'POST-WARMSTART',
    family: 'fill_wait residency',
    statement: 'the warmstart never loses an expert to a full ring: note_block and note_planned wait for space',
    reason: 'a warmstart that skips on a full ring leaves planned experts on the CPU and their reservations wasted',
    when: 'at a call or return',
  },
  {
    id: 'POST-RESIDENCY',
    family: 'fill_wait residency',
    statement: 'the residency the warmstart reports equals the experts really resident',
    reason: "reporting the plan as residency makes 'N in VRAM' false",
    when: 'at a call or return',
  },
  {
    id: 'POST-SHUTDOWN',
    family: 'nothing left after shutdown',
    statement: 'after shutdown: ring empty, nothing queued or resident, zero device allocations and staging copies when the backend shuts down, budgets released',
    reason: 'a shutdown that joins but does not release leaks every tensor (a validation layer counted 21)',
    when: 'end of run',
  },
  {
    id: 'COMP-EXACT-ONCE',
    family: 'exactly once',
    statement: 'every routed expert of every token and layer contributes exactly once, computed from its own input, in route order',
    reason: 'a failed take whose experts nobody recomputes changes the output silently',
    when: 'every op',
  },
  {
    id: 'COMP-MISS-WEIGHTS',
    family: 'exactly once',
    statement: 'every expert computed on the CPU has RAM weights',
    reason: 'an expert offered with null weights and counted as resident has no CPU fallback',
    when: 'every op',
  },
  {
    id: 'LIVE-DEADLOCK',
    family: 'deadlock freedom',
    statement: 'some thread can always move until every thread has finished',
    reason: 'fill_wait with a group open waits on a swap that waits on the group',
    when: 'every op',
  },
  {
    id: 'LIVE-SHUTDOWN',
    family: 'liveness after shutdown',
    statement: 'after shutdown starts, every thread ends (no one is left waiting) within a step bound',
    reason: 'a shutdown that does not broadcast cv_take strands fill_wait, note_block and parked swaps (#1340)',
    when: 'every op',
  },
  {
    id: 'LIVE-STEPS',
    family: 'liveness',
    statement: 'a run ends within its step limit',
    reason: 'a livelock is a hang that still burns CPU',
    when: 'every op',
  },
  {
    id: 'SAFE-NO-CRASH',
    family: 'memory safety',
    statement: 'no thread throws: no failed assertion, no null dereference, no out-of-range index',
    reason: 'in C each of these is an abort or undefined behaviour in the engine process',
    when: 'every op',
  },
  {
    id: 'SYNC-DISCIPLINE',
    family: 'sync discipline',
    statement: 'a thread waits, signals, broadcasts or unlocks only holding mx, never re-locks it, never ends holding it, and never changes mx-guarded state without it',
    reason: 'a dropped lock or unlock, or a statement moved out of its critical section, is a data race or a deadlock in C',
    when: 'every op',
  },
];

export function propertyInfo(id: string): PropertyInfo | undefined {
  return PROPERTIES.find((p) => p.id === id);
}
