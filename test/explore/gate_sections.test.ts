/**
 * The gate's sections as one step (model/explore/dpor/gate_sections.ts): only the release
 * of gmx goes alone (not a broadcast, a world op, or a release beside another thread's
 * spurious wakeup off gcv, which is dependent with it), so a defect that needs another
 * thread inside a gmx section is still found, where offering every step of the holder
 * alone (the unsound variant, put in for the test) loses it; and on the engine's threads
 * the reduction merges states without changing a verdict.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolve } from 'node:path';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { gateSections } from '../../model/explore/dpor/gate_sections.js';
import { scenarioSubject, type MainThread } from '../../model/explore/subject.js';
import { compiledModule } from '../../model/explore/state/compile_threads.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';
import type { Subject } from '../../model/explore/subject.js';
import { eventFp, spuriousFp, type EventFp } from '../../model/explore/dpor/dependence.js';
import type { ChoiceContext } from '../../model/rt/strategy.js';
import type { SimThread } from '../../model/rt/thread.js';
import type { Op } from '../../src/ops.js';

const scenario = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });
const file = resolve(import.meta.dirname, 'gate_section_threads.ts');
const handWritten = (): Subject =>
  scenarioSubject(scenario, true, compiledModule(file, 'resumable').gateSectionMain as MainThread, true);
const search = (subject: Subject) =>
  dporSearch(subject, {
    preemptions: Infinity,
    reduce: true,
    stateCache: true,
    countStates: true,
    stopOnViolation: false,
  });

/** A choice point: thread 1 holds gmx with `pending` next; thread 2 runs unlocked, or waits on gcv. */
function choice(pending: Op, other: 'runs' | 'waits-on-gcv'): { ctx: ChoiceContext; events: { fp: EventFp }[] } {
  const holder = { tid: 1, pending, reacquire: false } as unknown as SimThread;
  const second = { tid: 2, pending: { k: 'memInfo', dev: 0 }, reacquire: false } as unknown as SimThread;
  const runs = other === 'runs';
  const ctx: ChoiceContext = {
    options: [holder, second],
    runnable: runs ? 2 : 1,
    current: 1,
    currentCanMove: true,
    mxOwner: -1,
    gmxOwner: 1,
    step: 0,
  };
  const mine = eventFp(pending, false, false, true, true);
  const theirs = runs ? eventFp(second.pending, false, false, true) : spuriousFp(true, 'gmx');
  return { ctx, events: [{ fp: mine }, { fp: theirs }] };
}

describe('which step of a gmx holder goes alone', () => {
  const unlock: Op = { k: 'unlock', mutex: 'gmx' };

  it('its release of gmx, beside steps that touch nothing of the gate', () => {
    const { ctx, events } = choice(unlock, 'runs');
    expect(gateSections.alone(ctx, events, true)).toBe(0);
    expect(gateSections.alone(ctx, events, false)).toBe(-1);
    const wait = choice({ k: 'wait', cv: 'gcv' }, 'runs');
    expect(gateSections.alone(wait.ctx, wait.events, true)).toBe(0);
  });

  it('nothing else: a broadcast, a world op, or a release beside a spurious wakeup off gcv', () => {
    for (const op of [
      { k: 'broadcast', cv: 'gcv' },
      { k: 'free', dev: 0, tensor: null },
    ] as Op[]) {
      const { ctx, events } = choice(op, 'runs');
      expect(gateSections.alone(ctx, events, true)).toBe(-1);
    }
    const { ctx, events } = choice(unlock, 'waits-on-gcv');
    expect(gateSections.alone(ctx, events, true)).toBe(-1);
  });
});

describe('the gate sections as one step', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('still finds a defect inside a gmx section, offering the release alone', () => {
    const alone = vi.spyOn(gateSections, 'alone');
    const r = search(handWritten());
    expect(r.complete).toBe(true);
    expect(r.violations.map((v) => v.property)).toEqual(['SYNC-DISCIPLINE']);
    // the holder's unlock went alone somewhere: the reduction was on
    expect(alone.mock.results.some((x) => x.type === 'return' && (x.value as number) >= 0)).toBe(true);
  });

  it('loses it when every step of the holder goes alone: the case is one an unsound variant fails', () => {
    vi.spyOn(gateSections, 'alone').mockImplementation((ctx) => {
      for (let i = 0; i < ctx.runnable; i++) if (ctx.options[i]?.tid === ctx.gmxOwner) return i;
      return -1;
    });
    const r = search(handWritten());
    expect(r.complete).toBe(true);
    expect(r.violations).toEqual([]);
  });

  it('merges states of the engine and keeps its verdict', () => {
    const engine = scenarioSubject(scenario);
    const reduced = search(engine);
    vi.spyOn(gateSections, 'alone').mockReturnValue(-1);
    const full = search(engine);
    expect(reduced.complete && full.complete).toBe(true);
    expect(reduced.violations).toEqual([]);
    expect(full.violations).toEqual([]);
    expect(reduced.states ?? 0).toBeLessThan(full.states ?? 0);
  });
});
