/**
 * A 53-bit digest of a simulated run's state, for counting the distinct states an
 * exhaustive search visits (the number model checkers such as TLC and Spin report).
 *
 * It hashes, in a fixed order: the tier's mx-guarded state (slot flags and heat, budgets,
 * the ring's entries, counters), the ledger (live bytes, live tensors by expert and part,
 * staging copies by expert, open groups), the RAM table, combined outputs, and per thread
 * its scheduling state, pending op, steps taken and its place in a cv queue. Names the
 * world hands out in order of creation (tensor and slot numbers) are left out, so the
 * same state reached in two orders hashes the same.
 *
 * Used to count states, and, with the state cache (explorer.ts, off by default), to skip
 * a choice point whose state was explored before. That is sound only as far as the digest
 * is the state. A thread's generator locals are invisible; its program counter (steps
 * taken) and its pending op with what it names stand in for them. Locals that are copies
 * of shared state (shutdown's list of tensors to free, the uploader's popped entry) show
 * through the ledger and the pending op, but nothing proves every local does; the
 * checkers' own memory (the accounting checker's largest budget seen) is also left out.
 * So the cache is an option, and the tests and the benchmark compare it with the
 * stateless search wherever both finish: same states, same violations, so far.
 */
import type { Op } from '../../src/ops.js';
import type { TierState } from '../../src/tier/state.js';
import type { SimulatedWorld } from '../sim_engine/sim_world.js';
import { ThreadState, type SimThread } from '../rt/thread.js';

/** Two 32-bit FNV-1a-style lanes over numbers, folded into one safe integer. */
export class Hasher {
  private a = 0x811c9dc5;
  private b = 0x01000193;

  add(x: number): this {
    const v = x | 0;
    this.a = Math.imul(this.a ^ v, 0x01000193);
    this.b = Math.imul(this.b ^ (v + 0x9e3779b9), 0x5bd1e995);
    this.b ^= this.b >>> 15;
    return this;
  }

  bool(x: boolean): this {
    return this.add(x ? 1 : 0);
  }

  digest(): number {
    return (this.a >>> 0) * 0x200000 + ((this.b >>> 0) & 0x1fffff);
  }
}

/** What the digest knows about the threads (kept by the exploring strategy). */
export interface ThreadCounters {
  /** every thread the strategy has seen, by tid */
  readonly threads: readonly (SimThread | undefined)[];
  /** steps each thread has taken: its program counter */
  readonly stepsOf: readonly number[];
  /** the run step at which each waiting thread entered its wait (cv queue order) */
  readonly waitSince: readonly number[];
  /** tid holding mx (-1: free) and spurious wakeups injected so far */
  readonly mxOwner: number;
  readonly spuriousUsed: number;
}

const OP_CODE: Record<string, number> = {};
function opCode(k: string): number {
  let c = OP_CODE[k];
  if (c === undefined) {
    c = Object.keys(OP_CODE).length + 1;
    OP_CODE[k] = c;
  }
  return c;
}

export function stateDigest(st: TierState, world: SimulatedWorld, th: ThreadCounters): number {
  const h = new Hasher();
  for (const row of st.slots) {
    for (const s of row) {
      h.add(s.heat).bool(s.resident).bool(s.queued).bool(s.planned).bool(s.tensors !== null).bool(s.ram !== null);
    }
  }
  for (let d = 0; d < st.cfg.devices; d++) h.add(st.used[d] ?? 0).add(st.budget[d] ?? 0);
  for (const r of st.dense) h.add(r === null ? -1 : r.dev);
  for (const e of st.ring) {
    if (e === null || e === undefined) h.add(-1);
    else h.add(e.layer).add(e.eid).add(e.victim === null ? -1 : e.victim.layer * 65536 + e.victim.eid);
  }
  h.add(st.qh).add(st.qt).add(st.qn).add(st.inflight).bool(st.stop).add(st.uploaderTid).bool(st.issueOpen).add(st.tick);
  h.bool(st.active).bool(st.groupsBusy).bool(st.groupsDrained).add(st.waitersInside).add(st.denseInflight);
  const c = st.counters;
  h.add(c.uploads).add(c.uploadFailures).add(c.hits).add(c.misses).add(c.swaps).add(c.swapsAbandoned).add(c.queueFullSkips);

  const L = world.ledger;
  for (let d = 0; d < L.devices; d++) h.add(L.live[d] ?? 0).add(L.consumed[d] ?? 0).bool((L.openGroups[d] ?? null) !== null);
  h.add(L.liveTensors).add(L.liveStaging).bool(L.backendShutdown).add(L.oomFailures);
  // live tensors and staging copies by what they hold, order-free (commutative sums)
  let tensors = 0;
  for (const t of L.tensors) if (t.alive) tensors = (tensors + mix(t.dev, t.layer, t.eid, t.part.length + t.refs * 7)) | 0;
  let staging = 0;
  for (const s of L.staging) if (s.alive) staging = (staging + mix(-1, s.layer, s.eid, 0)) | 0;
  h.add(tensors).add(staging);
  const s = world.scenario;
  for (let layer = 0; layer < s.layers; layer++) for (let eid = 0; eid < s.experts; eid++) h.bool(world.ram.current(layer, eid) !== null);
  h.add(world.ram.liveSlots).add(world.combines).bool(world.savedHeat !== null);
  const fired = world.faults.injected;
  h.add(fired.get('upload') ?? 0).add(fired.get('issue') ?? 0).add(fired.get('take') ?? 0);

  for (let tid = 0; tid < th.threads.length; tid++) {
    const t = th.threads[tid];
    // a thread that has not taken its first step is implied by its spawner's progress
    if (t === undefined || (th.stepsOf[tid] ?? 0) === 0) continue;
    h.add(tid);
    h.add(t.state).add(th.stepsOf[tid] ?? 0).bool(t.reacquire);
    addOp(h, t.pending);
    if (t.state === ThreadState.CvWait) {
      h.add(t.waitingOn === 'cv' ? 1 : 2);
      // rank in the cv queue: how many threads on the same cv waited longer
      let rank = 0;
      const since = th.waitSince[tid] ?? 0;
      for (let o = 0; o < th.threads.length; o++) {
        const u = th.threads[o];
        if (u !== undefined && u.state === ThreadState.CvWait && u.waitingOn === t.waitingOn && (th.waitSince[o] ?? 0) < since) rank++;
      }
      h.add(rank);
    }
  }
  h.add(th.mxOwner).add(th.spuriousUsed);
  return h.digest();
}

/** A pending op: its kind and the fields that name what it works on (not world handles). */
function addOp(h: Hasher, op: Op | null): void {
  if (op === null) {
    h.add(0);
    return;
  }
  h.add(opCode(op.k));
  const o = op as { dev?: unknown; layer?: unknown; eid?: unknown; part?: unknown; token?: unknown; tid?: unknown; rows?: unknown; rowOffset?: unknown; tensor?: unknown };
  if (typeof o.dev === 'number') h.add(o.dev);
  if (typeof o.layer === 'number') h.add(o.layer);
  if (typeof o.eid === 'number') h.add(o.eid);
  if (typeof o.token === 'number') h.add(o.token);
  if (typeof o.tid === 'number') h.add(o.tid);
  if (typeof o.rowOffset === 'number') h.add(o.rowOffset);
  if (typeof o.part === 'string') h.add(o.part.length * 31 + o.part.charCodeAt(0));
  if (typeof o.rows === 'number') h.add(o.rows);
  else if (Array.isArray(o.rows)) for (const r of o.rows as { eid: number; layer: number }[]) h.add(r.layer * 65536 + r.eid);
  // a device tensor handle is the ledger's record: name it by what it holds
  const t = o.tensor as { layer?: unknown; eid?: unknown; part?: unknown } | undefined;
  if (t !== undefined && typeof t.layer === 'number' && typeof t.eid === 'number') h.add(mix(t.layer, t.eid, String(t.part).length, 1));
}

function mix(a: number, b: number, c: number, d: number): number {
  let x = Math.imul(a + 0x165667b1, 0x85ebca6b) ^ Math.imul(b + 0x27d4eb2f, 0xc2b2ae35);
  x = Math.imul(x ^ (x >>> 13), 0x9e3779b1) ^ Math.imul(c + 0x61c88647, 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) ^ d;
  return Math.imul(x ^ (x >>> 15), 0x846ca68b);
}
