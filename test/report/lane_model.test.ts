/**
 * The lane model of real traces (the committed replays, and a trace the test writes by
 * hand): one lane per thread, every record in exactly one cell, mx spans of different
 * threads never overlap (the mutex, seen from the trace), every wake arrow starts at a
 * signal or broadcast of the thread the record names, open spans reach the end, and a
 * long trace is drawn from its end.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayToView } from '../../apps/report/counterexample_replay.js';
import { renderLaneSvg } from '../../apps/report/lane_diagram.js';
import { buildLaneModel, MAX_DRAWN_STEPS, type TraceData } from '../../apps/report/lane_model.js';
import type { TraceEventData } from '../../model/rt/trace_data.js';

const dir = 'properties/replays';
const replays = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, trace: replayToView(join(dir, f)).trace }));

describe('lane model of the committed replays', () => {
  for (const { file, trace } of replays) {
    it(file, () => {
      const m = buildLaneModel(trace);
      expect(m.lanes).toEqual(trace.threadNames);
      expect(m.cells.reduce((a, c) => a + c.items.length, 0)).toBe(trace.records.length);
      expect(new Set(m.cells.map((c) => `${c.tid}:${c.step}`)).size).toBe(m.cells.length);

      const mx = m.spans.filter((s) => s.kind === 'mx').sort((a, b) => a.from - b.from);
      for (let i = 1; i < mx.length; i++) {
        const prev = mx[i - 1];
        const cur = mx[i];
        if (prev !== undefined && cur !== undefined)
          expect(cur.from, `${prev.tid} and ${cur.tid} both hold mx`).toBeGreaterThan(prev.to);
      }
      for (const a of m.arrows.filter((x) => x.kind === 'signal' || x.kind === 'broadcast')) {
        const from = m.cells.find((c) => c.tid === a.fromTid && c.step === a.fromStep);
        expect(from?.items.some((i) => i.event.k === a.kind)).toBe(true);
      }
      // the replays are fixed bugs: no violation, and the svg still has a lane per thread
      expect(m.violation).toBeNull();
      const svg = renderLaneSvg(trace);
      expect(svg.match(/<g class="lane"/g)?.length).toBe(trace.threadNames.length);
    });
  }
});

/**
 * A hand-made trace: main waits on cv, a worker's upload fails and it signals main, then
 * waits on cv_take and is woken spuriously; main re-takes mx and the run fails.
 */
function handTrace(): TraceData {
  const events: [number, number, TraceEventData, string][] = [
    [0, 0, { k: 'spawn', name: 'worker', tid: 1 }, 'spawn worker -> thread 1'],
    [1, 0, { k: 'lock' }, 'lock'],
    [1, 0, { k: 'call', fn: 'fill_wait', args: null }, '> fill_wait'],
    [2, 0, { k: 'wait', cv: 'cv' }, 'wait cv'],
    [3, 1, { k: 'lock' }, 'lock'],
    [4, 1, { k: 'op', op: 'upload', family: 'backend', failed: true }, 'upload L0E1.gate dev0 -> FAILED'],
    [5, 1, { k: 'signal', cv: 'cv', waiters: 1 }, 'signal cv'],
    [5, 0, { k: 'woken', how: 'signal', by: 1 }, 'woken (signalled by worker)'],
    [6, 1, { k: 'wait', cv: 'cv_take' }, 'wait cv_take'],
    [7, 1, { k: 'woken', how: 'spurious', by: -1 }, 'woken (spurious)'],
    [7, 0, { k: 'retake' }, 'wakes, re-takes mx'],
    [8, 0, { k: 'op', op: 'combine', family: 'engine', failed: false }, 'combine t0 L0 [1c]'],
    [
      8,
      0,
      { k: 'violation', property: 'POST-FILL-WAIT', detail: 'fill_wait returned with inflight=1' },
      '!! POST-FILL-WAIT: fill_wait returned with inflight=1',
    ],
  ];
  return {
    threadNames: ['main', 'worker'],
    records: events.map(([step, tid, event, text], i) => ({ step, tid, t: i * 0.5, event, text })),
  };
}

describe('lane model semantics', () => {
  it('spans, the wake arrow, the fault, the spurious wakeup, an engine op and the violation', () => {
    const m = buildLaneModel(handTrace());
    expect(m.spans).toContainEqual({ tid: 0, kind: 'wait-cv', from: 2, to: 5, open: false });
    expect(m.spans).toContainEqual({ tid: 0, kind: 'woken', from: 5, to: 7, open: false });
    expect(m.spans).toContainEqual({ tid: 1, kind: 'mx', from: 3, to: 6, open: false });
    expect(m.spans).toContainEqual({ tid: 1, kind: 'wait-cv_take', from: 6, to: 7, open: false });
    expect(m.spans).toContainEqual({ tid: 1, kind: 'woken', from: 7, to: 8, open: true });
    // main still holds mx and is still inside fill_wait when the trace ends
    expect(m.spans).toContainEqual({ tid: 0, kind: 'mx', from: 7, to: 8, open: true });
    expect(m.calls).toContainEqual({
      tid: 0,
      fn: 'fill_wait',
      arg: null,
      value: null,
      depth: 0,
      from: 1,
      to: 8,
      open: true,
    });
    expect(m.arrows).toContainEqual({ kind: 'signal', fromTid: 1, fromStep: 5, toTid: 0, toStep: 5 });
    expect(m.arrows).toContainEqual({ kind: 'spawn', fromTid: 0, fromStep: 0, toTid: 1, toStep: 0 });
    const kindAt = (tid: number, step: number): string | undefined =>
      m.cells.find((c) => c.tid === tid && c.step === step)?.kind;
    expect(kindAt(1, 4)).toBe('fault');
    expect(kindAt(1, 7)).toBe('spurious');
    expect(kindAt(0, 7)).toBe('mutex');
    expect(kindAt(0, 8)).toBe('violation');
    expect(m.cells.find((c) => c.step === 8)?.items.map((i) => i.event.k)).toEqual(['op', 'violation']);
    expect(m.violation).toEqual({
      step: 8,
      tid: 0,
      property: 'POST-FILL-WAIT',
      detail: 'fill_wait returned with inflight=1',
    });
    // durations: each record's op took the time since the record before it
    expect(m.cells.find((c) => c.step === 4)?.items[0]?.dt).toBe(0.5);
    const svg = renderLaneSvg(handTrace(), { statement: 'nothing queued or in flight' });
    expect(svg).toContain('data-violation-step="8"');
    expect(svg).toContain('combine t0 L0 [1c]');
  });

  it('draws a long trace from its end and says how much it left out', () => {
    const records = Array.from({ length: MAX_DRAWN_STEPS + 500 }, (_, i) => ({
      step: i,
      t: i,
      tid: 0,
      event: i % 2 === 0 ? ({ k: 'lock' } as const) : ({ k: 'unlock' } as const),
      text: i % 2 === 0 ? 'lock' : 'unlock',
    }));
    const m = buildLaneModel({ threadNames: ['main'], records });
    expect(m.elidedSteps).toBe(500);
    expect(m.firstStep).toBe(500);
    expect(m.cells.length).toBe(MAX_DRAWN_STEPS);
  });
});
