/**
 * SYNC-DISCIPLINE for reads: thread code that does not hold mx must not read mx-guarded
 * state (state.ts: every field is read and written only with mx held), and code that
 * does not hold the gate's gmx must not read the gate (`st.gate`, gmx-guarded).
 *
 * Why a check of its own: a write without mx changes the guarded digest and is caught by
 * the runtime; a read without mx changes nothing, and when it happens in the same atomic
 * step as the unlock before it (a count moved after its UNLOCK) the simulator's
 * interleavings cannot tell it from the read under the lock. On real hardware it is a data
 * race. So the tier's threads get a proxy of the state, and while the runtime says a
 * thread runs without mx (`unguarded`), a read through it of an object still reachable
 * from the state, by the path it was reached by, is a violation.
 *
 * What is not a guarded read: init's (it runs on the engine's thread before any other
 * call; a second init while active, which changes nothing, reads `active` while only the
 * uploader runs, and the uploader never writes it), the fields no thread changes after
 * making the object (IMMUTABLE), and objects the thread took out of the state under mx
 * (a ring entry it popped, the group rows it claimed): once the path it reached them by
 * leads elsewhere, they are the thread's own. Values are never changed by the proxy: reads and writes go
 * to the real objects, and a proxy stored into the state is stored as the object itself.
 *
 * Writes: a change of a slot without mx (the fields the guarded digest reads) is caught
 * here at the write, so that the digest can leave the slot table out where the guard is
 * on (slotFieldChanges below).
 */
import type { MarkOp } from '../ops.js';
import type { Checker, LocksHeld, RunView, ThreadView } from './checker.js';
import { guardedStateChanged, guardedStateRead } from './sync_discipline.js';
import { TIER_SLOT_FIELDS, type TableWatch } from './table_watch.js';

/** Fields set once when their object is made: readable by anyone who holds the object. */
const IMMUTABLE = new Set([
  'cfg',
  'expBytes',
  'counters',
  'layer',
  'eid',
  'home',
  'staging',
  'victim',
  'dev',
  'tensor',
  // the gate object itself (its fields are gmx-guarded)
  'gate',
]);

/** The configuration: constant as a whole, given out as it is. */
const CONSTANT = 'cfg';

/**
 * How an object was reached from the state: `holder[key]` was it (holder null: the root).
 * `gate`: the path's first field from the state is `gate` (gmx-guarded below it), fixed
 * when the object is reached, so a read does not walk the path to learn it.
 */
interface Link {
  readonly holder: object | null;
  readonly key: string;
  readonly up: Link | null;
  readonly target: object;
  readonly gate: boolean;
  /** the object is a slot of the slot table (`st.slots[l][e]`) */
  readonly slot: boolean;
}

/**
 * The proxies' handler, one per guarded object, its traps methods of one class: no
 * closures made per object, and one shape at every trap call (a read through the guard
 * is the most frequent thing a checked step does).
 */
class Guard implements ProxyHandler<object> {
  private lastValue: object | null = null;
  private lastProxy: object | null = null;

  constructor(
    private readonly reads: GuardedReads,
    private readonly link: Link,
  ) {}

  get(t: object, key: string | symbol): unknown {
    return this.read(t, key, null);
  }

  /** `frozen`: whether t is frozen, or null to ask t (only a read that yields an object needs to) */
  protected read(t: object, key: string | symbol, frozen: boolean | null): unknown {
    const v: unknown = (t as Record<PropertyKey, unknown>)[key];
    if (typeof key === 'symbol' || typeof v === 'function') return v;
    const memory = this.reads.memory;
    const reader = memory.reader;
    if (reader !== null) {
      // the mutex held first: a read under it needs neither the field's kind nor the path walked
      const gate = this.link.holder === null ? key === 'gate' : this.link.gate;
      if (!(gate ? memory.held.gmx : memory.held.mx) && !IMMUTABLE.has(key) && reachable(this.link))
        throw guardedStateRead(reader, pathOf(this.link, key), gate ? 'gmx' : 'mx');
    }
    // a frozen object's fields must read as themselves (a proxy's invariant): a watched
    // table's rows (table_watch.ts) are read unguarded below them
    if (v === null || typeof v !== 'object' || key === CONSTANT) return v;
    if (frozen ?? Object.isFrozen(t)) return v;
    // the last object this handler gave out (an object's one proxy never changes): reading
    // st.slots or st.gate again finds its proxy without the table of every proxy
    if (v === this.lastValue) return this.lastProxy;
    const proxy = this.reads.proxyOf(v, t, key, this.link);
    this.lastValue = v;
    this.lastProxy = proxy;
    return proxy;
  }

  // the object itself receives the write (not the proxy: a receiver that is the proxy would
  // define the property through it again, which is most of a write's cost)
  set(t: object, key: string | symbol, value: unknown): boolean {
    const writer = this.reads.memory.writer;
    if (writer !== null && !this.reads.memory.held.mx && this.link.slot && typeof key === 'string') {
      if (slotFieldChanges(t, key, value) && reachable(this.link)) throw guardedStateChanged(writer);
    }
    // a plain store, not Reflect.set (a generic call of the runtime, about 100 ns a write);
    // a frozen target throws here as a set trap answering false would in the tier's strict code
    (t as Record<PropertyKey, unknown>)[key] = this.reads.unwrap(value);
    if (this.reads.slotWatch !== null && typeof key === 'string') this.reads.wroteSlotField(t, key);
    return true;
  }
}

/**
 * A watched table's rows are frozen (table_watch.ts), and a proxy of a frozen object must
 * read its fields as themselves; so a row's proxy (every row's: a row is frozen when the
 * watch first looks, perhaps after its proxy was made) stands on a shadow (an array of the
 * row's length with nothing in it) and reads the row: its slots are guarded as an
 * unwatched table's are. Writes go to the row, which refuses them as it would anyway.
 */
class RowGuard extends Guard {
  constructor(
    reads: GuardedReads,
    link: Link,
    private readonly row: object,
  ) {
    super(reads, link);
  }

  override get(_shadow: object, key: string | symbol): unknown {
    return this.read(this.row, key, false);
  }

  override set(_shadow: object, key: string | symbol, value: unknown): boolean {
    return super.set(this.row, key, value);
  }

  has(_shadow: object, key: string | symbol): boolean {
    return Reflect.has(this.row, key);
  }

  ownKeys(): (string | symbol)[] {
    return Reflect.ownKeys(this.row);
  }

  getOwnPropertyDescriptor(shadow: object, key: string | symbol): PropertyDescriptor | undefined {
    // the shadow's own length (the row's) as it is; an element as a configurable one,
    // which the shadow, having none, may report
    if (key === 'length') return Reflect.getOwnPropertyDescriptor(shadow, key);
    const d = Reflect.getOwnPropertyDescriptor(this.row, key);
    return d === undefined ? undefined : { ...d, configurable: true };
  }
}

export class GuardedReads implements Checker {
  /** the proxy of the state the tier's threads use in place of the state */
  readonly state: object;
  readonly memory: {
    reader: ThreadView | null;
    /** the thread running without a mutex, init's too (the slot writes it may not make: slotFieldChanges) */
    writer: ThreadView | null;
    held: LocksHeld;
    inInit: Set<number>;
  } = {
    reader: null,
    writer: null,
    held: { mx: false, gmx: false },
    inInit: new Set(),
  };
  private readonly proxies = new WeakMap<object, object>();
  private readonly originals = new WeakMap<object, object>();
  /** the watch of the state's slot table that this guard reports writes to (feeds), or null */
  slotWatch: TableWatch | null = null;
  private readonly watchedFields: ReadonlySet<string> = new Set(TIER_SLOT_FIELDS);

  constructor(root: object) {
    this.state = this.wrap(root, { holder: null, key: 'st', up: null, target: root, gate: false, slot: false });
  }

  /**
   * Reports every write of a slot's watched field to `watch` (table_watch.ts), in place of
   * the accessors it would install: the tier's threads reach the state only through this
   * guard, so no write of theirs goes unseen. Call before the run's first step.
   */
  feeds(watch: TableWatch): void {
    watch.feedByWrites();
    this.slotWatch = watch;
  }

  /** A write of `key` to t: a watched field of a slot of the table the watch looks at is marked there. */
  wroteSlotField(t: object, key: string): void {
    if (this.watchedFields.has(key)) this.slotWatch?.wroteSlot(t);
  }

  unguarded(th: ThreadView | null, held: LocksHeld = UNHELD): void {
    this.memory.reader = th !== null && !this.memory.inInit.has(th.tid) ? th : null;
    this.memory.writer = th;
    this.memory.held = held;
  }

  onMark(_rt: RunView, th: ThreadView, op: MarkOp): void {
    if (op.k === 'call' && op.call.fn === 'init') this.memory.inInit.add(th.tid);
    else if (op.k === 'ret' && op.ret.fn === 'init') this.memory.inInit.delete(th.tid);
  }

  /** The proxy of `v`, read as `holder[key]` below `up` (the first path it was reached by names it). */
  proxyOf(v: object, holder: object, key: string, up: Link): object {
    const known = this.proxies.get(v);
    if (known !== undefined) return known;
    const gate = up.holder === null ? key === 'gate' : up.gate;
    // a slot: an element of a row of the state's `slots`
    const slot = up.up !== null && up.up.key === 'slots' && up.up.up !== null && up.up.up.holder === null;
    return this.wrap(v, { holder, key, up, target: v, gate, slot });
  }

  unwrap(v: unknown): unknown {
    return v !== null && typeof v === 'object' ? (this.originals.get(v) ?? v) : v;
  }

  private wrap(target: object, link: Link): object {
    const up = link.up;
    const row = Array.isArray(target) && up !== null && up.key === 'slots' && up.up !== null && up.up.holder === null;
    // a row stands on a shadow whether frozen yet or not: the watch freezes rows at its
    // first look, after init may have read them through the guard
    const proxy = row
      ? new Proxy(new Array<unknown>(target.length), new RowGuard(this, link, target))
      : new Proxy(target, new Guard(this, link));
    this.proxies.set(target, proxy);
    this.originals.set(proxy, target);
    return proxy;
  }
}

/**
 * A write that changes what the accounting checker's guarded digest reads of a slot
 * (accounting.ts: its heat, its flags, whether it has RAM weights or tensors). Where the
 * tier's threads see the state through this guard, the digest leaves the slot table out
 * and such a write without mx is caught here, at the write: the same violation, without
 * hashing every slot twice around each step taken without mx (a cost that grew with the
 * table). Slots are made by init and reached only through the state, so every write to
 * one goes through the guard.
 */
function slotFieldChanges(t: object, key: string, value: unknown): boolean {
  const was = (t as Record<string, unknown>)[key];
  switch (key) {
    case 'heat':
    case 'resident':
    case 'queued':
    case 'planned':
      return was !== value;
    case 'ram':
    case 'tensors':
      return (was === null) !== (value === null);
    default:
      return false;
  }
}

/** Held by nobody: what a thread that stopped running holds. */
const UNHELD: LocksHeld = { mx: false, gmx: false };

/** Whether every step of the path still leads where it led when the object was reached. */
function reachable(link: Link): boolean {
  for (let l: Link | null = link; l !== null; l = l.up) {
    if (l.holder !== null && (l.holder as Record<string, unknown>)[l.key] !== l.target) return false;
  }
  return true;
}

function pathOf(link: Link, key: string): string {
  const parts = [key];
  for (let l: Link | null = link; l !== null; l = l.up) parts.push(l.key);
  return parts
    .reverse()
    .map((p, i) => (i === 0 ? p : /^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('');
}
