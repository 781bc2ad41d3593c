/**
 * Spin's shortest counterexample of the #1360 race (the anchor's Promela model of the
 * small configuration, compiled with BUG_FILLWAIT_QN, searched breadth-first) replays in
 * tierlab step for step: at every step the thread the trail moves is one tierlab lets
 * move, and the run ends in the race (SPEC-FILL) at the trail's last step.
 *
 * Differences of granularity, none a missing choice:
 *  - the model runs init's code up to the uploader's spawn as one step, where tierlab's
 *    main makes three world calls first (the slot table's and the ring's host arrays, the
 *    mutex and condition variables), one step each. Only main exists then, so those steps
 *    are no choice point and nothing can run between them;
 *  - the model, written before the lifecycle gate, spawns the uploader without mx; the
 *    gated init holds mx from before the spawn to after it (it writes the tables and the
 *    uploader's id there, PROTOCOL.md "init"), so its lock and its unlock are two steps of
 *    main the model does not have. The lock comes before the spawn, where only main
 *    exists. The unlock comes after it, and the trail's next step, the uploader's start,
 *    is taken first: a thread's start only runs its code up to its first op (the lock of
 *    mx, which main still holds), touches nothing shared, and so commutes with main's
 *    unlock; the model's next step of main (plan_fill's lock) then follows the unlock. The
 *    gate's own steps (gmx, gcv) have no counterpart at all and are taken as they come;
 *  - the model asserts fill_wait's postcondition in the step that re-takes mx and leaves
 *    the loop; tierlab checks it (the reference, or POST-FILL-WAIT) when mx is released,
 *    in main's next step, the unlock. Nothing else can run in between: main holds mx.
 * So Spin's 59 steps (the last one failing) are tierlab's 59 + 3 + 2 + 1 = 65 steps, the
 * last of them the unlock whose check fails, and between them only the gate's steps.
 *
 * The trail is kept here; where `spin` and a C compiler are on the PATH, the test also
 * asks Spin for it again.
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../model/run.js';
import type { ChoiceContext, DecisionKind, Strategy } from '../../model/rt/strategy.js';
import type { SimThread } from '../../model/rt/thread.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import { promelaModel } from '../../apps/cli/bench/spin_model.js';
import { spinTools, spinTrail } from '../../apps/cli/bench/spin_run.js';
import { faultyWarmstart } from './faulty_fill_wait.js';

/** `spin -t` of the model e4-l2-r2 with -DBUG_FILLWAIT_QN, pan -DBFS: the tid of each step */
const SPIN_BFS_TRAIL =
  '0 0 1 0 0 0 2 2 2 2 2 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 0 3 3 3 3 3 3 3 3 3 3 3 1 1 1 1 1 1 1 1 1 1 1 1 0 0 0';
/** tierlab's init makes these world calls before the spawn the model's second step does */
const INIT_CALLS = 3;
/** the gated init's lock before the spawn and unlock after it: the model has neither */
const INIT_MX_STEPS = 2;

/** Whether th's next step is the lifecycle gate's own (gmx, gcv): the model has no gate. */
function gateStep(th: SimThread, holdsGmx: boolean): boolean {
  if (holdsGmx) return true;
  if (th.reacquire) return th.relock === 'gmx';
  const op = th.pending;
  if (op === null) return false;
  if (op.k === 'lock' || op.k === 'unlock') return op.mutex === 'gmx';
  if (op.k === 'wait' || op.k === 'signal' || op.k === 'broadcast') return op.cv === 'gcv';
  return false;
}

/**
 * Moves the thread the trail names at each of its steps; the lifecycle gate's steps (which
 * the model, written before the gate, does not have) are taken as they come and consume no
 * step of the trail. Records every step it could not follow.
 */
class TrailStrategy implements Strategy {
  readonly name = 'trail';
  readonly path: number[] = [];
  readonly problems: string[] = [];
  /** the trail's steps followed so far (the gate's steps not counted) */
  followed = 0;
  /** the lifecycle gate's steps taken, which the trail does not have */
  gateSteps = 0;
  firstChoiceAt = -1;
  constructor(private readonly tids: readonly number[]) {}

  pick(n: number, kind: DecisionKind, ctx?: ChoiceContext): number {
    if (ctx === undefined) throw new Error('the trail needs the choice context');
    if (kind === 'thread' && this.firstChoiceAt < 0) this.firstChoiceAt = this.followed;
    const want = this.tids[this.followed];
    const movable = (tid: number): number => ctx.options.findIndex((t, k) => k < ctx.runnable && t.tid === tid);
    let i = kind === 'thread' ? movable(want ?? -1) : 0;
    // the thread the trail wants waits for the gate: its holder finishes its gate section first
    if (i < 0 && kind === 'thread' && ctx.gmxOwner >= 0) i = movable(ctx.gmxOwner);
    // or for a thread that must first pass the gate (a loader leaving it before its end, which
    // main joins): a gate step is no step of the trail
    if (i < 0 && kind === 'thread')
      i = ctx.options.findIndex((t, k) => k < ctx.runnable && gateStep(t, t.tid === ctx.gmxOwner));
    if (i < 0) this.problems.push(`trail step ${this.followed}: thread ${want} cannot move`);
    const option = Math.max(0, Math.min(i, n - 1));
    this.path.push(option);
    return option;
  }

  onStep(th: SimThread, _holdsMx: boolean, _step: number, holdsGmx = false): void {
    if (gateStep(th, holdsGmx)) {
      this.gateSteps++;
      return;
    }
    const want = this.tids[this.followed];
    if (want !== undefined && th.tid !== want)
      this.problems.push(`trail step ${this.followed}: ${th.name} moved, not ${want}`);
    this.followed++;
  }
}

/**
 * The trail in tierlab's steps: the model's first step is tierlab's main start and init's
 * three world calls; init's lock comes before the spawn (the model's second step), its
 * unlock after the uploader's start (the model's third, which commutes with it); the last
 * step (fill_wait re-takes mx and returns) is followed by main's unlock, where tierlab
 * checks.
 */
function inTierlabSteps(trail: readonly number[]): number[] {
  const [first, spawn, start, ...rest] = trail;
  if (spawn !== 0 || start !== 1)
    throw new Error("the trail does not start with main's spawn and the uploader's start");
  return [first ?? 0, ...new Array<number>(INIT_CALLS).fill(0), 0, spawn, start, 0, ...rest, 0];
}

describe("Spin's shortest counterexample of #1360", () => {
  const trail = SPIN_BFS_TRAIL.split(' ').map(Number);

  it('replays in tierlab step for step, init as six steps of main', () => {
    const tids = inTierlabSteps(trail);
    const strategy = new TrailStrategy(tids);
    const r = runScenario(smallWarmstart(), { strategy, main: faultyWarmstart(2) });
    expect(strategy.problems).toEqual([]);
    expect(r.violation?.property).toBe('SPEC-FILL');
    // every step of the mapped trail, the failing unlock its last, and no other step but the
    // gate's: Spin's 59, init's three calls, its lock and unlock, and the unlock that checks
    expect(strategy.followed).toBe(trail.length + INIT_CALLS + INIT_MX_STEPS + 1);
    expect(strategy.followed).toBe(tids.length);
    // the run counts the steps it completed: all but the failing one
    expect(strategy.followed + strategy.gateSteps).toBe(r.steps + 1);
    // nothing could run before the spawn: the first choice is the uploader's start, after it
    expect(strategy.firstChoiceAt).toBe(1 + INIT_CALLS + 2);
  });

  const tools = spinTools();
  it.skipIf('missing' in tools)('is the trail Spin finds (run here: spin and a C compiler are on the PATH)', () => {
    if ('missing' in tools) return;
    expect(spinTrail(tools, promelaModel(4, 2, 2), ['BUG_FILLWAIT_QN'])).toEqual(trail);
    // and the model without the bug has no counterexample
    expect(spinTrail(tools, promelaModel(4, 2, 2), [])).toBeNull();
  });
});
