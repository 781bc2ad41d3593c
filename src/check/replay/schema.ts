/**
 * The names of a C tier's record stream, as the C side numbers them: the event kinds of
 * native/tier/tt_events.h (TT_EVENT_KINDS, in order), the entry points (TT_FN_*), the
 * scheduler's operations (tl_sched_op), the harness's engine events and record layout
 * (native/tier/harness/th.h). One table per enumeration; a C enum that grows at its end
 * grows here at the end.
 *
 * Invariant: every name appears once, at the index the C side gives it; the replay reads
 * names, never numbers.
 */

export const EVENT_KINDS = [
  'call',
  'ret',
  'wait',
  'wake',
  'init_stage',
  'budget',
  'heat_loaded',
  'noted',
  'enqueue',
  'refuse',
  'dequeue',
  'victim_taken',
  'swap_abandoned',
  'upload_done',
  'upload_failed',
  'uploader_exit',
  'tick',
  'swap_chosen',
  'swap_undone',
  'planned',
  'plan_done',
  'reservation_back',
  'fill_done',
  'routed',
  'group_built',
  'write_input',
  'issue_failed',
  'groups_published',
  'take_claimed',
  'take_failed',
  'take_closed',
  'ram_released',
  'evicted_taken',
  'replan_pair',
  'replan_done',
  'route_preferred',
  'stop',
  'heat_saved',
  'joined',
  'drained',
  'released',
  'teardown_done',
  'gate_enter',
  'gate_leave',
  'gate_refuse',
  'gate_x',
  'gate_state',
  'trunk_placed',
  'trunk_gemv',
  'trunk_freed',
  'be_call',
  'be_alloc',
  'be_free',
  'be_stage',
  'be_unstage',
  'be_group_open',
  'be_group_take',
  'be_gemv',
  'be_host',
  'be_fault',
  'be_violation',
  'be_shutdown',
  'be_upload',
  'be_group_row',
  'heat_set',
  'charged',
  'unlock',
  'gate_wait',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const SOURCES = ['tier', 'gate', 'trunk', 'backend'] as const;
export type Source = (typeof SOURCES)[number];

/** The lock an event was emitted under (tt_events.h, TT_LK_*). */
export const LOCKS = ['-', 'mx', 'gmx', 'tmx', 'be', 'x'] as const;
export type LockName = (typeof LOCKS)[number];

export const FN_NAMES = [
  'init',
  'note',
  'note_block',
  'plan_fill',
  'note_planned',
  'fill_wait',
  'issue',
  'take',
  'is_resident',
  'resident_count',
  'release_ram',
  'stats',
  'dense_matmul',
  'trunk_upload',
  'shutdown',
  'stats_mark',
  'replan',
  'evicted_take',
  'route_prefer',
] as const;
export type FnName = (typeof FN_NAMES)[number];

export const SCHED_OPS = [
  'none',
  'start',
  'exit',
  'create',
  'join',
  'lock',
  'trylock',
  'timedlock',
  'unlock',
  'wait',
  'timedwait',
  'relock',
  'signal',
  'broadcast',
  'timeout',
  'spurious',
  'yield',
  'backend',
  'load',
  'store',
  'rmw',
  'init',
  'destroy',
] as const;
export type SchedOp = (typeof SCHED_OPS)[number];

/** The harness's engine events (th.h, TH_EV_*). */
export const ENGINE_KINDS = [
  'call',
  'ret',
  'ret_key',
  'route',
  'route_eid',
  'ram',
  'ram_free',
  'recycle',
  'cpu',
  'contrib',
  'combine',
  'mark',
  'finish_token',
] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** What a sync object of the run is to the tier (th.h, TH_ROLE_*). */
export const ROLES = ['other', 'mx', 'cv', 'cv_take', 'gmx', 'gcv', 'tmx'] as const;
export type Role = (typeof ROLES)[number];

/** Slot and tier flags of a snapshot (tt_events.h, TT_F_*). */
export const FLAG = {
  resident: 1,
  queued: 2,
  planned: 4,
  tensors: 8,
  ram: 16,
  stop: 256,
  issueOpen: 512,
  groupsBusy: 1024,
} as const;

/** Backend operation codes (TT_OP_*): be_call's value, be_fault's site. */
export const BACKEND_OP = { memInfo: 6, syncInit: 11, threadStart: 12 } as const;

/** Scheduler outcomes (tl_sched_outcome). */
export const OUTCOMES = ['completed', 'deadlock', 'livelock', 'violation', 'crashed', 'error'] as const;
export type SchedOutcome = (typeof OUTCOMES)[number];

/** The harness's record layout (th.h): words per record and the classes of word 0. */
export const REC_WORDS = 40;
export const CLASS = { event: 0, sched: 1, engine: 2, object: 3, thread: 4, blob: 5 } as const;
