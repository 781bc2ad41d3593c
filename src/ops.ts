/**
 * The operations a tier or engine thread yields.
 *
 * Role: the only interface between the tier protocol (src/tier/), the engine workload
 * (src/engine/driver.ts) and a world that runs them: the simulator (model/rt) or the real
 * engine (src/engine/native). Threads are generator functions; `yield op` hands the op to
 * the world, and the value the world sends back is the op's result.
 *
 * Invariants:
 *  - the tier never touches time, randomness, promises or a backend directly: it yields;
 *  - every op is data (no closures but `spawn`'s body), so a trace can print it;
 *  - world-owned values (device tensors, staging copies, RAM lending, group inputs and
 *    outputs) are opaque handles here: the tier passes them along and never looks inside.
 */

/** A world-owned value the tier carries but never inspects. */
export type Opaque<Tag extends string> = { readonly __opaque: Tag };
export type TensorHandle = Opaque<'tensor'>;
export type StagingCopy = Opaque<'staging'>;
export type RamRef = Opaque<'ram'>;
export type ActivationRef = Opaque<'activation'>;
export type HostArray = Opaque<'host'>;

/** The tier's host allocations, made at init and freed at shutdown. */
export type HostArrayKind = 'slots' | 'ring';
export type ExpertOutput = Opaque<'output'>;

/** The tier's mutex `mx`, and the lifecycle gate's own `gmx` (kept outside the tier's state). */
export type MutexName = 'mx' | 'gmx';
/** `cv` and `cv_take` belong to mx; `gcv`, the gate's, to gmx. */
export type CvName = 'cv' | 'cv_take' | 'gcv';

/** The mutex a condition variable belongs to (its wait releases and re-takes it). */
export function mutexOfCv(cv: CvName): MutexName {
  return cv === 'gcv' ? 'gmx' : 'mx';
}

/** The mutex a lock or unlock names (absent: mx). */
export function mutexOfOp(op: { readonly mutex?: 'gmx' }): MutexName {
  return op.mutex ?? 'mx';
}

/** The three weight tensors of an expert, in upload order. */
export const EXPERT_PARTS = ['gate', 'up', 'down'] as const;
export type ExpertPart = (typeof EXPERT_PARTS)[number];

/** A device's buffers that one op at a time may have in flight (ownership is checked): a
 *  group's input and output, and the dense GEMV's, per device. */
export type DeviceBuffer = `group_in${number}` | `group_out${number}` | `dense_in${number}` | `dense_out${number}`;

export interface ExpertKey {
  readonly layer: number;
  readonly eid: number;
}

/** One row of a device group: an expert and its three device tensors. */
export interface GroupRow {
  readonly layer: number;
  readonly eid: number;
  readonly tensors: readonly TensorHandle[];
}

/** What the decode thread learns about one layer of one token before the experts run. */
export interface RouteInfo {
  readonly token: number;
  readonly layer: number;
  /** routed experts, in route order (largest router weight first) */
  readonly eids: readonly number[];
  /** the expert input (the normed hidden state), world-owned */
  readonly input: ActivationRef;
  /** prefer-resident routing: the router's top-M candidates, best first (the engine picks
   *  `eids` from them and tells the world with `routeChoose`); absent: `eids` is the route */
  readonly candidates?: readonly number[];
}

/** One routed expert's contribution, handed to `combine` in route order. */
export interface Contribution {
  readonly eid: number;
  readonly output: ExpertOutput;
  readonly where: 'gpu' | 'cpu';
}

export type SyncOp =
  /** mx unless `mutex` names the gate's gmx */
  | { readonly k: 'lock'; readonly mutex?: 'gmx' }
  | { readonly k: 'unlock'; readonly mutex?: 'gmx' }
  | { readonly k: 'wait'; readonly cv: CvName }
  | { readonly k: 'signal'; readonly cv: CvName }
  | { readonly k: 'broadcast'; readonly cv: CvName }
  | { readonly k: 'spawn'; readonly name: string; readonly body: Thread }
  | { readonly k: 'join'; readonly tid: number };

export type BackendOp =
  /** init's first stage: the tier's host arrays (slot table, upload ring) */
  | { readonly k: 'hostAlloc'; readonly what: HostArrayKind; readonly bytes: number }
  | { readonly k: 'hostFree'; readonly array: HostArray }
  /** init's second stage: the mutex and condition variables (attributes, clocks) */
  | { readonly k: 'syncInit' }
  /** teardown's last stage: mx, cv and cv_take destroyed (nobody may hold, wait on or use them after) */
  | { readonly k: 'syncDestroy' }
  | { readonly k: 'memInfo'; readonly dev: number }
  | { readonly k: 'stage'; readonly ram: RamRef; readonly layer: number; readonly eid: number }
  | { readonly k: 'unstage'; readonly staging: StagingCopy }
  | {
      readonly k: 'upload';
      readonly dev: number;
      readonly staging: StagingCopy;
      readonly part: ExpertPart;
      readonly layer: number;
      readonly eid: number;
    }
  | { readonly k: 'free'; readonly dev: number; readonly tensor: TensorHandle }
  | {
      readonly k: 'writeInput';
      readonly dev: number;
      /** first row of the tier's input block this write starts at */
      readonly rowOffset: number;
      readonly rows: number;
      readonly input: ActivationRef;
    }
  | {
      readonly k: 'issueGroup';
      readonly dev: number;
      readonly rowOffset: number;
      readonly rows: readonly GroupRow[];
    }
  | { readonly k: 'takeGroup'; readonly dev: number; readonly rows: readonly GroupRow[] }
  | {
      readonly k: 'denseGemv';
      readonly dev: number;
      /** the trunk offer it computes */
      readonly index: number;
      readonly tensor: TensorHandle;
      /** device buffers the GEMV reads and writes (ownership is checked) */
      readonly inBuf: DeviceBuffer;
      readonly outBuf: DeviceBuffer;
    }
  /** init places trunk offer `index` on dev: its int8 rows and scales */
  | {
      readonly k: 'uploadDense';
      readonly dev: number;
      readonly index: number;
      readonly weightBytes: number;
      readonly scaleBytes: number;
    }
  /** the heat file's bytes (null: no file) */
  | { readonly k: 'readHeat' }
  | { readonly k: 'writeHeat'; readonly bytes: Uint8Array }
  | { readonly k: 'backendShutdown' };

/** Operations of the engine that drives the tier (decode loop, loaders, RAM owner). */
export type EngineOp =
  | { readonly k: 'route'; readonly token: number; readonly layer: number }
  /** prefer-resident routing: the experts the engine chose from the candidates, recorded
   *  by the world (the reference is given the same decision); answers the final route */
  | { readonly k: 'routeChoose'; readonly token: number; readonly layer: number; readonly eids: readonly number[] }
  | { readonly k: 'ramOf'; readonly layer: number; readonly eid: number }
  | {
      readonly k: 'loadRam';
      readonly layer: number;
      readonly eid: number;
      /** who loads: a warmstart loader (may fail: the engine then has no weights to
       *  offer), the CPU fallback, or the streaming path */
      readonly why?: 'warmstart' | 'cpu' | 'stream';
    }
  | { readonly k: 'freeRam'; readonly layer: number; readonly eid: number }
  | { readonly k: 'recycleRam'; readonly ram: RamRef }
  | {
      readonly k: 'cpuExpert';
      readonly layer: number;
      readonly eid: number;
      readonly ram: RamRef | null;
      readonly input: ActivationRef;
    }
  | {
      readonly k: 'combine';
      readonly token: number;
      readonly layer: number;
      readonly parts: readonly Contribution[];
    }
  | { readonly k: 'finishToken'; readonly token: number }
  /** the int8 trunk (driver.ts): a layer begins (its input's norms; on layer 0 the
   *  token's embedding), its attention scores and KV cache, and a trunk GEMV the tier
   *  did not run on a device, computed on the CPU from the same int8 rows */
  | { readonly k: 'trunkBegin'; readonly token: number; readonly layer: number }
  | { readonly k: 'attention'; readonly token: number; readonly layer: number }
  | { readonly k: 'denseCpu'; readonly index: number };

/**
 * A tier call as its `call` mark records it: which API, with what arguments. Checkers
 * follow each thread through the tier by these marks (the reference spec runs the same
 * call in lockstep); the trace prints them.
 */
export type TierCall =
  | {
      readonly fn:
        | 'init'
        | 'plan_fill'
        | 'fill_wait'
        | 'shutdown'
        | 'resident_count'
        | 'trunk_place'
        | 'stats'
        | 'stats_mark';
    }
  | {
      readonly fn: 'note' | 'note_block' | 'note_planned';
      readonly layer: number;
      readonly eid: number;
      readonly ram: RamRef | null;
    }
  | { readonly fn: 'issue'; readonly route: RouteInfo }
  | { readonly fn: 'take'; readonly layer: number }
  | { readonly fn: 'dense_matmul'; readonly index: number }
  | { readonly fn: 'release_ram' | 'is_resident'; readonly layer: number; readonly eid: number }
  /** re-plan after a prefill layer's routing (counts: one row) or once with the whole
   *  table (layer -1, counts: one row per layer); at most maxSwaps pairs planned */
  | {
      readonly fn: 'replan';
      readonly layer: number;
      readonly counts: readonly (readonly number[])[];
      readonly maxSwaps: number;
    }
  | { readonly fn: 'evicted_take'; readonly max: number }
  /** residency of a layer's routing candidates, read under the lock (prefer-resident routing) */
  | { readonly fn: 'prefer'; readonly layer: number; readonly cands: readonly number[] };
export type TierApi = TierCall['fn'];

/**
 * init's answer: running, off (the engine runs on the CPU, with the reason), already
 * running, or busy (refused at the gate: a teardown or another init is under way).
 */
export type InitResult =
  | { readonly state: 'active' }
  | { readonly state: 'off'; readonly reason: string }
  | { readonly state: 'already' }
  | { readonly state: 'busy' };

/** take's answer: the outputs collected, and whether every open group was collected. */
export interface TakeResult {
  /** false: some group's results were lost (a failed collection, or a shutdown drained it) */
  readonly ok: boolean;
  /** outputs by expert id, for the groups collected; a lost group's experts are absent */
  readonly outputs: ReadonlyMap<number, ExpertOutput>;
}

/** One re-plan swap: `victim` leaves, `newcomer` comes in, on their (shared) home device. */
export interface ReplanPair {
  readonly layer: number;
  readonly victim: number;
  readonly newcomerLayer: number;
  readonly newcomer: number;
}

/** What stats reports: hits and misses since the last stats_mark, and the tier's totals. */
export interface TierStats {
  readonly hits: number;
  readonly misses: number;
  readonly uploads: number;
  readonly swaps: number;
  /** evictions the eviction ring dropped (it was full) */
  readonly evictedDropped: number;
}

/** What each tier call returns, as its `ret` mark records it. */
export type TierReturn =
  | { readonly fn: 'init'; readonly value: InitResult }
  | {
      readonly fn:
        | 'note'
        | 'note_block'
        | 'note_planned'
        | 'dense_matmul'
        | 'release_ram'
        | 'is_resident'
        | 'stats_mark';
      readonly value: boolean;
    }
  | { readonly fn: 'plan_fill' | 'evicted_take'; readonly value: readonly ExpertKey[] }
  | { readonly fn: 'fill_wait'; readonly value: 'done' | 'stopped' | 'off' }
  | { readonly fn: 'issue' | 'prefer'; readonly value: readonly boolean[] }
  | { readonly fn: 'take'; readonly value: TakeResult }
  | { readonly fn: 'shutdown'; readonly value: 'done' | 'already' }
  | { readonly fn: 'resident_count' | 'trunk_place'; readonly value: number }
  | { readonly fn: 'stats'; readonly value: TierStats | null }
  | { readonly fn: 'replan'; readonly value: readonly ReplanPair[] };

/** Situations the tier marks in the trace (never a scheduling point). */
export type MarkName =
  | 'swap-abandoned'
  | 'upload-failed'
  | 'swap-enqueued'
  | 'issue-failed'
  | 'take-failed'
  | 'tier-off'
  | 'residency'
  | 'heat-file-ignored'
  /** a re-plan swap enqueued (detail: newcomer<-victim) */
  | 'replan-swap'
  /** an eviction the eviction ring had no room for */
  | 'evicted-dropped'
  /** a named point in a hand-written thread (tests), checked by nobody */
  | 'phase';

/** Trace-only marks: recorded, never a scheduling point, never change behaviour. */
export type MarkOp =
  | { readonly k: 'call'; readonly call: TierCall }
  | { readonly k: 'ret'; readonly ret: TierReturn }
  | { readonly k: 'mark'; readonly what: MarkName; readonly detail?: string };

export type Op = SyncOp | BackendOp | EngineOp | MarkOp;
export type OpKind = Op['k'];
export type OpOf<K extends OpKind> = Extract<Op, { readonly k: K }>;

/** Ops a world answers (the runtimes execute sync ops and marks themselves). */
export type WorldOpKind = Exclude<OpKind, SyncOp['k'] | MarkOp['k']>;

export interface MemInfo {
  readonly free: number;
  readonly total: number;
}

/** heat per layer and expert, layer-major */
export type HeatTable = readonly (readonly number[])[];

/**
 * What the world sends back for each op: the one table both worlds implement and the
 * tier reads. A missing kind does not compile (`OpResults[K]` for every OpKind).
 */
export interface OpResults {
  lock: void;
  unlock: void;
  wait: void;
  signal: void;
  broadcast: void;
  /** the new thread's id; -1: the thread could not be started */
  spawn: number;
  join: void;
  /** null: the host allocation failed */
  hostAlloc: HostArray | null;
  hostFree: void;
  /** false: the mutex or a condition variable could not be initialized */
  syncInit: boolean;
  syncDestroy: void;
  /** null: the backend could not say */
  memInfo: MemInfo | null;
  /** null: the host staging copy could not be allocated */
  stage: StagingCopy | null;
  unstage: void;
  /** null: the upload failed (device full, or an injected fault) */
  upload: TensorHandle | null;
  free: void;
  writeInput: void;
  /** false: the group could not be issued (its experts go back to the CPU) */
  issueGroup: boolean;
  /** one output per row, in row order; null: the collection failed */
  takeGroup: readonly ExpertOutput[] | null;
  denseGemv: void;
  uploadDense: TensorHandle | null;
  readHeat: Uint8Array | null;
  writeHeat: void;
  backendShutdown: void;
  route: RouteInfo;
  routeChoose: RouteInfo;
  ramOf: RamRef | null;
  loadRam: RamRef | null;
  freeRam: void;
  recycleRam: void;
  cpuExpert: ExpertOutput;
  combine: void;
  finishToken: void;
  trunkBegin: void;
  attention: void;
  denseCpu: void;
  call: void;
  ret: void;
  mark: void;
}

/** A thread body: yields ops, receives each op's result. */
export type Gen<T> = Generator<Op, T, unknown>;
export type Thread = () => Gen<void>;

/**
 * Yields one op and types its result: `const h = yield* perform({ k: 'upload', ... })`.
 * The only place a yielded value is cast: the world answers by the OpResults table.
 */
export function* perform<K extends OpKind>(op: OpOf<K>): Gen<OpResults[K]> {
  return (yield op) as OpResults[K];
}
