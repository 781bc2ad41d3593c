/**
 * The protocol's rules over a free run's log, one event at a time in `seq` order: what
 * every action of the tier must do to the state its events report (native/tier/EVENTS.md;
 * the actions are the reference's, src/protocol_ref/, and the C tier's, native/tier/):
 *  - mx: a critical section is one thread's, from its first event to its `unlock` or
 *    `wait`; no other thread acts under mx in between, and sections only grow within a
 *    generation (an init starts them again at 1);
 *  - the counters each action moves and by how much: `enqueue` adds one to `qn` and to
 *    `inflight`, `dequeue` takes one from `qn`, the end of an upload (done, failed or a
 *    swap abandoned) one from `inflight`, the LFRU `tick` one to `tick`; every other
 *    action under mx leaves them as they were;
 *  - the ring is first in, first out: the uploader takes the oldest entry, then finishes
 *    exactly the entry it took; an expert is enqueued only when it is neither resident
 *    nor queued;
 *  - fill_wait returns done only with nothing in flight; nothing is enqueued once stop is
 *    set; the section that sets stop wakes both cv and cv_take; a swap takes its victim's
 *    tensors only with no group open;
 *  - the lifecycle gate: a state change starts from the state it is in, every admission
 *    adds one to `live` and every leave takes one;
 *  - every call returns, on its own thread, from the entry point it entered; a join of the
 *    uploader comes after the uploader left;
 *  - the backend's ledger (trace_ledger.ts).
 *
 * Invariant: `step` returns the first rule the event breaks, as "<guard or field>: what
 * the log says, what the protocol says", or null; the state moves only past events that
 * hold, so the state at a divergence is the state after the last matched event.
 */
import { FLAG } from '../replay/schema.js';
import type { TraceEvent } from './trace_event.js';
import { TraceLedger } from './trace_ledger.js';

interface Section {
  readonly tid: number;
  readonly sec: number;
  readonly since: number;
}

interface Counters {
  inflight: number;
  qn: number;
  tick: number;
  seq: number;
}

const keyOf = (layer: number, eid: number): number => layer * 65536 + eid;
const keyText = (k: number): string => `L${Math.floor(k / 65536)}E${k % 65536}`;

export class TraceRules {
  /** per thread: the call it is in (entry point, seq) */
  readonly calls = new Map<number, { fn: string; seq: number }>();
  holder: Section | null = null;
  private lastSec = 0;
  private counters: Counters | null = null;
  private ring: number[] = [];
  private ringHead = 0;
  /** per uploader thread: the entry it dequeued and has not finished */
  private readonly inHand = new Map<number, number>();
  /** per slot: its flags and the seq that reported them (flags * 2^32 + seq: no object per event) */
  private readonly slotFlags = new Map<number, number>();
  private life = 0;
  private live = 0;
  /** the seq that set stop this generation (0: not stopping) */
  private stopped = 0;
  /** the section that set stop, and the condition variables it woke (bits: 1 cv, 2 cv_take) */
  private stopSection: { tid: number; woke: number } | null = null;
  /** uploaders that left, and joins of them, this generation */
  private exited = 0;
  private joins = 0;
  private readonly ledger = new TraceLedger();

  step(e: TraceEvent): string | null {
    if (e.src === 'backend') return this.ledger.step(e);
    if (e.src === 'gate') return this.gate(e);
    if (e.src !== 'tier') return null;
    if (e.ev === 'call' || e.ev === 'ret') return this.boundary(e);
    if (e.ev === 'joined') return this.joined(e);
    if (e.lk === 'x') return this.exclusive(e);
    if (e.lk !== 'mx') return null;
    const failed = this.section(e) ?? this.moved(e) ?? this.ringRule(e) ?? this.post(e);
    if (failed !== null) return failed;
    this.after(e);
    return null;
  }

  private boundary(e: TraceEvent): string | null {
    const open = this.calls.get(e.tid);
    if (e.ev === 'call') {
      if (open !== undefined)
        return `call: thread ${e.tid} enters ${e.fn} while still in ${open.fn} (called at seq ${open.seq}, no ret)`;
      this.calls.set(e.tid, { fn: e.fn, seq: e.seq });
      return null;
    }
    if (open === undefined) return `ret: thread ${e.tid} returns from ${e.fn} but is in no call`;
    if (open.fn !== e.fn) return `ret: thread ${e.tid} returns from ${e.fn} but entered ${open.fn} (seq ${open.seq})`;
    this.calls.delete(e.tid);
    return null;
  }

  /** A join returns only after the uploader left (its uploader_exit, under mx, comes first). */
  private joined(e: TraceEvent): string | null {
    if (this.joins >= this.exited)
      return `joined: thread ${e.tid} joined the uploader, which has not left (no uploader_exit before it in this generation)`;
    this.joins++;
    return null;
  }

  /** Init's stages under the gate's exclusive section: the first starts a new generation. */
  private exclusive(e: TraceEvent): string | null {
    if (e.ev === 'init_stage' && e.value === 1 && e.value2 === 1) {
      this.lastSec = 0;
      this.ring = [];
      this.ringHead = 0;
      this.inHand.clear();
      this.slotFlags.clear();
      this.exited = 0;
      this.joins = 0;
      this.stopped = 0;
      this.stopSection = null;
    }
    this.snapshot(e);
    return null;
  }

  /** The counters as the event reports them (kept in place: no object per event). */
  private snapshot(e: TraceEvent): void {
    const c = this.counters;
    if (c === null) {
      this.counters = { inflight: e.inflight, qn: e.qn, tick: e.tick, seq: e.seq };
      return;
    }
    c.inflight = e.inflight;
    c.qn = e.qn;
    c.tick = e.tick;
    c.seq = e.seq;
  }

  private section(e: TraceEvent): string | null {
    const h = this.holder;
    if (h === null) {
      if (e.sec <= this.lastSec)
        return `sec: thread ${e.tid} starts section ${e.sec} after section ${this.lastSec}: sections only grow`;
      this.holder = { tid: e.tid, sec: e.sec, since: e.seq };
      this.lastSec = e.sec;
      return null;
    }
    if (h.tid !== e.tid)
      return `mx: thread ${e.tid} acts under mx (section ${e.sec}) while thread ${h.tid} holds it (section ${h.sec} since seq ${h.since}, not yet ended by an unlock or a wait)`;
    if (h.sec !== e.sec)
      return `sec: thread ${e.tid} is in section ${e.sec} but never ended its section ${h.sec} (since seq ${h.since}) with an unlock or a wait`;
    return null;
  }

  /** The counters the action moves, by exactly its amount; the others stay. */
  private moved(e: TraceEvent): string | null {
    const c = this.counters;
    if (c === null) return null;
    let di = 0;
    let dq = 0;
    let dt = 0;
    if (e.ev === 'enqueue') (di = 1), (dq = 1);
    else if (e.ev === 'dequeue') dq = -1;
    else if (e.ev === 'upload_done' || e.ev === 'upload_failed' || e.ev === 'swap_abandoned') di = -1;
    else if (e.ev === 'tick') dt = 1;
    else if (e.ev === 'released') dq = -c.qn;
    const was = `${c.seq}`;
    if (e.inflight !== c.inflight + di) return counter('inflight', e, e.inflight, c.inflight, di, was);
    if (e.qn !== c.qn + dq) return counter('qn', e, e.qn, c.qn, dq, was);
    if (e.tick !== c.tick + dt) return counter('tick', e, e.tick, c.tick, dt, was);
    return null;
  }

  private ringRule(e: TraceEvent): string | null {
    const k = keyOf(e.layer, e.eid);
    if (e.ev === 'enqueue') {
      if (this.stopped)
        return `enqueue ${keyText(k)}: the tier is stopping (stop set at seq ${this.stopped}); the protocol refuses every enqueue then`;
      const s = this.slotFlags.get(k) ?? 0;
      const flags = Math.floor(s / 4294967296);
      if ((flags & (FLAG.resident | FLAG.queued)) !== 0)
        return `enqueue ${keyText(k)}: the slot is ${(flags & FLAG.resident) !== 0 ? 'resident' : 'queued'} (flags ${flags} at seq ${s % 4294967296}); the protocol refuses it`;
      return null;
    }
    if (e.ev === 'dequeue') {
      const head = this.ring[this.ringHead];
      if (head === undefined) return `dequeue ${keyText(k)}: the ring is empty`;
      if (head !== k) return `dequeue ${keyText(k)}: the ring's oldest entry is ${keyText(head)} (first in, first out)`;
      return null;
    }
    if (e.ev === 'upload_done' || e.ev === 'upload_failed' || e.ev === 'swap_abandoned') {
      const held = this.inHand.get(e.tid);
      if (held !== k)
        return `${e.ev} ${keyText(k)}: thread ${e.tid} ${held === undefined ? 'dequeued no entry' : `holds ${keyText(held)}`} to finish`;
      if (e.ev === 'upload_done' && (e.flags & FLAG.resident) === 0)
        return `flags: upload_done ${keyText(k)} leaves flags ${e.flags}, not resident`;
    }
    return null;
  }

  /** Postconditions an event carries the variables of. */
  private post(e: TraceEvent): string | null {
    if (e.ev === 'unlock' && this.stopSection !== null && this.stopSection.tid === e.tid) {
      const woke = this.stopSection.woke;
      if (woke !== 3)
        return `wake: shutdown's section that set stop ends without waking ${woke === 1 ? 'cv_take' : woke === 2 ? 'cv' : 'cv and cv_take'}: a waiter sleeps on past the stop`;
    }
    if (e.ev === 'victim_taken' && (e.flags & FLAG.issueOpen) !== 0)
      return `flags: victim_taken ${keyText(keyOf(e.vlayer, e.veid))} with a group open (issue_open): the uploader waits on cv_take until no group reads the victim`;
    if (e.ev === 'fill_done' && e.value === 0 && e.inflight !== 0)
      return `inflight: fill_wait returns done with ${e.inflight} uploads in flight; it waits until none is`;
    return null;
  }

  /** The event held: the state moves past it. */
  private after(e: TraceEvent): void {
    const k = keyOf(e.layer, e.eid);
    if (e.ev === 'enqueue') this.ring.push(k);
    else if (e.ev === 'dequeue') {
      this.ringHead++;
      this.inHand.set(e.tid, k);
      if (this.ringHead > 1024 && this.ringHead * 2 > this.ring.length) {
        this.ring = this.ring.slice(this.ringHead);
        this.ringHead = 0;
      }
    } else if (e.ev === 'upload_done' || e.ev === 'upload_failed' || e.ev === 'swap_abandoned')
      this.inHand.delete(e.tid);
    else if (e.ev === 'released') (this.ring = []), (this.ringHead = 0);
    else if (e.ev === 'uploader_exit') this.exited++;
    else if (e.ev === 'stop') {
      this.stopped = e.seq;
      this.stopSection = { tid: e.tid, woke: 0 };
    } else if (e.ev === 'wake' && this.stopSection !== null && this.stopSection.tid === e.tid)
      this.stopSection.woke |= e.value === 0 ? 1 : 2;
    if (e.ev === 'unlock' || e.ev === 'wait') this.stopSection = null;
    if (e.layer >= 0 && e.eid >= 0) this.slotFlags.set(k, e.flags * 4294967296 + e.seq);
    if (e.vlayer >= 0 && e.veid >= 0) this.slotFlags.set(keyOf(e.vlayer, e.veid), e.vflags * 4294967296 + e.seq);
    this.snapshot(e);
    if (e.ev === 'unlock' || e.ev === 'wait') this.holder = null;
  }

  private gate(e: TraceEvent): string | null {
    if (e.ev === 'gate_state') {
      if (e.value !== this.life) return `gate_state: leaves state ${e.value}, but the gate is in state ${this.life}`;
      if (e.life !== e.value2) return `life: is ${e.life} after a change to ${e.value2}`;
      this.life = e.value2;
    } else if (e.ev === 'gate_enter' || e.ev === 'gate_leave') {
      const want = this.live + (e.ev === 'gate_enter' ? 1 : -1);
      if (e.live !== want)
        return `live: is ${e.live} after ${e.ev}, the protocol says ${want} (${this.live} before, one ${e.ev === 'gate_enter' ? 'more' : 'less'})`;
      if (e.ev === 'gate_enter' && e.value === 0 && this.life !== 1)
        return `gate_enter: an expert call admitted in state ${this.life}; only a LIVE gate (1) admits them`;
    } else if (e.ev === 'gate_x' && e.live !== 0)
      return `live: an exclusive section holds the gate with ${e.live} callers inside`;
    this.live = e.live;
    return null;
  }
}

function counter(field: string, e: TraceEvent, got: number, was: number, d: number, at: string): string {
  const by = d === 0 ? 'leaves it as it was' : d > 0 ? `adds ${d}` : `takes ${-d}`;
  return `${field}: is ${got} after ${e.ev}, the protocol says ${was + d} (it was ${was} at seq ${at}; ${e.ev} ${by})`;
}
