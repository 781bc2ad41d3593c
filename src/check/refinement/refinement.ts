/**
 * Refinement: the tier must do what the reference (src/protocol_ref/) does, step for step.
 *
 * Each thread inside a tier call (from its `call` mark to its `ret` mark), and the
 * uploader from its start, runs the reference's program of that call in lockstep: at
 * every release of mx by that thread, and at its return, the reference performs the
 * protocol's next atomic action over its own state, taking the ops the thread really did
 * in between (with the world's answers: an upload that failed, a device that is full).
 * The step must end as the tier's did (an unlock, a wait on the same condition
 * variable, a return with the same value), every op must be the one the reference
 * expects, and afterwards the tier's state must equal the reference's, field by field.
 * A release of mx by a thread in no tier call may change nothing. The lifecycle gate's
 * gmx is a second mutex: its releases are steps too, after which the gate's half of the
 * state is compared (and after mx's releases the tables' half: at a release of one,
 * another thread may be inside a section of the other). A return follows a release of
 * gmx (every call ends leaving the gate): the gate's half is compared there.
 *
 * A divergence is a violation of the SPEC-* family of the action (the plan, admission,
 * decay, placement, the mask, take, the counters, the heat file, init, the uploader,
 * shutdown, a missing wakeup), naming the action and the first field that differs.
 */
import type { CvName, MarkOp, Op } from '../../ops.js';
import type { TierState } from '../../tier/state.js';
import type { SpecCall } from '../../protocol_ref/call.js';
import type { Release, Step } from '../../protocol_ref/io.js';
import { newSpecState, SpecError, type SpecFamily, type SpecState } from '../../protocol_ref/state.js';
import { UploaderThread } from '../../protocol_ref/uploader.js';
import type { CheckedWorld } from '../checked_world.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import { Violation } from '../violation.js';
import { SPEC_SLOT_FIELDS, TIER_SLOT_FIELDS, watchOf, type TableReader, type TableWatch } from '../table_watch.js';
import { firstDifference, gateDifference, type Difference } from './abstraction.js';
import { ObservedIo, type Observed } from './observed_io.js';
import { specCallOf, specConfigOf } from './spec_calls.js';
import { sameValue, specText, tierText } from './spec_values.js';

interface Tracked {
  readonly name: string;
  readonly call: SpecCall;
  ops: Observed[];
}

export class RefinementChecker implements Checker {
  readonly spec: SpecState;
  private readonly threads = new Map<number, Tracked>();
  private readonly io: ObservedIo;
  // the slots either side wrote since the last comparison: only those can differ now
  private readonly tierWatch: TableWatch;
  private readonly specWatch: TableWatch;
  private readonly tierSlots: TableReader;
  private readonly specSlots: TableReader;

  constructor(
    private readonly st: TierState,
    world: CheckedWorld,
    /** what the engine asked for (the backend's traits come from the world's ledger) */
    wantSwaps: boolean,
    /** large tables by the slots written (table_watch.ts), or scanned whole */
    watchSlots = false,
  ) {
    this.spec = newSpecState(specConfigOf(st.cfg, { wantSwaps, reclaims: world.ledger.reclaims }));
    this.io = new ObservedIo(world);
    this.tierWatch = watchOf(st, TIER_SLOT_FIELDS, watchSlots);
    this.specWatch = watchOf(this.spec, SPEC_SLOT_FIELDS, watchSlots);
    this.tierSlots = this.tierWatch.reader();
    this.specSlots = this.specWatch.reader();
  }

  onMark(_rt: RunView, th: ThreadView, op: MarkOp): void {
    if (op.k === 'call') {
      this.threads.set(th.tid, { name: op.call.fn, call: specCallOf(op.call), ops: [] });
    } else if (op.k === 'ret') {
      const t = this.threads.get(th.tid);
      if (t === undefined) return;
      const step = this.run(th, t);
      if (!('returned' in step)) {
        this.fail(
          t.call.family,
          th,
          t,
          `${op.ret.fn} returned, but the protocol still ${describeRelease(step.release)} here`,
        );
      }
      if (!sameValue(step.returned, op.ret)) {
        this.fail(
          t.call.family,
          th,
          t,
          `${op.ret.fn} returned ${tierText(op.ret)}, the protocol returns ${specText(step.returned)}`,
        );
      }
      this.threads.delete(th.tid);
      this.compareGate(th, t);
    }
  }

  onGateRelease(_rt: RunView, th: ThreadView, waited: boolean): void {
    const t = this.threads.get(th.tid);
    if (t === undefined) {
      this.compareGate(th, OUTSIDE);
      return;
    }
    this.expectRelease(th, t, waited ? 'wait-gcv' : 'gunlock');
    this.compareGate(th, t);
  }

  onOp(_rt: RunView, th: ThreadView, op: Op, result: unknown): void {
    const t = this.threads.get(th.tid);
    if (t !== undefined) t.ops.push({ op, result });
    // the uploader joins the lockstep from its first step
    if (op.k === 'spawn' && op.name === 'uploader' && typeof result === 'number' && result >= 0) {
      this.threads.set(result, { name: 'uploader', call: new UploaderThread(), ops: [] });
    }
  }

  onQuiescent(_rt: RunView, th: ThreadView, cv: CvName | null): void {
    const t = this.threads.get(th.tid);
    if (t === undefined) {
      // a release by a thread in no tier call: the tier's state may not change
      this.compare(th, OUTSIDE);
      return;
    }
    this.expectRelease(th, t, cv === null ? 'unlock' : cv === 'cv' ? 'wait-cv' : 'wait-take');
    this.compare(th, t);
  }

  /** One step of the reference, which must end as the tier's section did. */
  private expectRelease(th: ThreadView, t: Tracked, did: Release): void {
    const step = this.run(th, t);
    if ('returned' in step)
      this.fail(t.call.family, th, t, `the tier ${describeRelease(did)} where the protocol returns from ${t.name}`);
    else if (step.release !== did) {
      // a release of the other mutex is the gate's divergence; waiting on the other
      // condition variable of one mutex a wakeup defect; waiting or not, the call's own
      const gate = isGate(step.release) !== isGate(did);
      const wake = step.release !== 'unlock' && did !== 'unlock' && step.release !== 'gunlock' && did !== 'gunlock';
      const family = gate ? 'SPEC-GATE' : wake ? 'SPEC-WAKEUP' : t.call.family;
      this.fail(family, th, t, `the tier ${describeRelease(did)} where the protocol ${describeRelease(step.release)}`);
    }
  }

  /** One step of the reference with the ops the thread did since its last step. */
  private run(th: ThreadView, t: Tracked): Step {
    const io = this.io.reset(t.ops);
    let step: Step;
    try {
      step = t.call.step(this.spec, io);
    } catch (e) {
      if (e instanceof SpecError) this.fail(e.family, th, t, e.message);
      throw e;
    }
    const left = io.leftover();
    if (left !== null) this.fail(t.call.family, th, t, `the tier did ${left}, which the protocol does not do here`);
    // a fresh list, not a truncated one: setting an array's length is a runtime call at
    // every step, a new empty array is an allocation V8 makes inline
    t.ops = [];
    return step;
  }

  private compareGate(th: ThreadView, t: Tracked): void {
    const d = gateDifference(this.spec, this.st);
    if (d !== null) this.fail('SPEC-GATE', th, t, `${d.field} is ${d.tier}, the protocol says ${d.spec}`);
  }

  private compare(th: ThreadView, t: Tracked): void {
    this.tierWatch.look(this.st.slots);
    this.specWatch.look(this.spec.slots);
    const d = firstDifference(this.spec, this.st, changedOnEitherSide(this.tierSlots.take(), this.specSlots.take()));
    if (d !== null)
      this.fail(refine(this.familyOf(t), d, t), th, t, `${d.field} is ${d.tier}, the protocol says ${d.spec}`);
  }

  /** The family of a release's divergence: the tick's, when the tick decayed or swapped. */
  private familyOf(t: Tracked): SpecFamily {
    const tick = t.call.tickOutcome ?? null;
    if (tick === null) return t.call.family;
    return tick.round ? 'SPEC-ADMISSION' : tick.decayed ? 'SPEC-DECAY' : t.call.family;
  }

  private fail(family: SpecFamily, th: ThreadView, t: Tracked, what: string): never {
    throw new Violation(family, `${th.name} in ${t.name}: ${what}`);
  }
}

/** The union of two ascending lists of distinct indices (TableReader.take's), ascending. */
function changedOnEitherSide(a: number[] | 'all', b: number[] | 'all'): number[] | 'all' {
  if (a === 'all' || b === 'all') return 'all';
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i] ?? Number.POSITIVE_INFINITY;
    const y = b[j] ?? Number.POSITIVE_INFINITY;
    if (x <= y) i++;
    if (y <= x) j++;
    out.push(Math.min(x, y));
  }
  return out;
}

const UNCHANGED: Step = { release: 'unlock' };
const OUTSIDE: Tracked = { name: 'no tier call', call: { family: 'SPEC-STATE', step: () => UNCHANGED }, ops: [] };

/**
 * Counters are their own family, so is placement; exp_bytes is init's; a heat that
 * differs after init is the heat file's, after a decay the decay's.
 */
function refine(family: SpecFamily, d: Difference, t: Tracked): SpecFamily {
  if (d.field.startsWith('counters.')) return 'SPEC-COUNTERS';
  if (d.field === 'evicted' || d.field === 'evictedDropped') return 'SPEC-EVICTED';
  if (d.field === 'pending') return 'SPEC-REPLAN';
  if (d.field === 'mark') return 'SPEC-STATS';
  if (d.field.endsWith('.home')) return 'SPEC-HOME';
  if (d.field === 'exp_bytes') return 'SPEC-INIT';
  if (d.field.endsWith('.heat') && t.name === 'init') return 'SPEC-HEAT-FILE';
  if (d.field.endsWith('.heat') && t.call.tickOutcome?.decayed === true) return 'SPEC-DECAY';
  return family;
}

function describeRelease(r: Release): string {
  switch (r) {
    case 'unlock':
      return 'unlocks';
    case 'wait-cv':
      return 'waits on cv';
    case 'wait-take':
      return 'waits on cv_take';
    case 'gunlock':
      return 'unlocks gmx';
    default:
      return 'waits on gcv';
  }
}

function isGate(r: Release): boolean {
  return r === 'gunlock' || r === 'wait-gcv';
}
