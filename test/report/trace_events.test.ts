/**
 * The trace parser reads the runtime's and the simulated world's words: every line form
 * they print parses to its typed event, real traces parse with no record left unknown,
 * and text it does not know is kept as a plain op (drawn, never dropped).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayToView } from '../../apps/report/counterexample_replay.js';
import { parseTraceText } from '../../apps/report/trace_events.js';

describe('trace text parser', () => {
  it('reads each form the runtime records', () => {
    expect(parseTraceText('lock')).toEqual({ kind: 'lock' });
    expect(parseTraceText('unlock')).toEqual({ kind: 'unlock' });
    expect(parseTraceText('wait cv_take')).toEqual({ kind: 'wait', cv: 'cv_take' });
    expect(parseTraceText('signal cv (no waiter)')).toEqual({ kind: 'signal', cv: 'cv', noWaiter: true });
    expect(parseTraceText('signal cv')).toEqual({ kind: 'signal', cv: 'cv', noWaiter: false });
    expect(parseTraceText('broadcast cv_take (3 waiting)')).toEqual({ kind: 'broadcast', cv: 'cv_take', waiting: 3 });
    expect(parseTraceText('woken (signalled by main)')).toEqual({ kind: 'woken', how: 'signal', by: 'main' });
    expect(parseTraceText('woken (broadcast by uploader)')).toEqual({
      kind: 'woken',
      how: 'broadcast',
      by: 'uploader',
    });
    expect(parseTraceText('woken (spurious)')).toEqual({ kind: 'woken', how: 'spurious', by: null });
    expect(parseTraceText('wakes, re-takes mx')).toEqual({ kind: 'retake' });
    expect(parseTraceText('spawn loader0 -> thread 2')).toEqual({ kind: 'spawn', name: 'loader0', tid: 2 });
    expect(parseTraceText('join loader0')).toEqual({ kind: 'join', name: 'loader0' });
    expect(parseTraceText('ends')).toEqual({ kind: 'end' });
    expect(parseTraceText('> issue t0 L1')).toEqual({ kind: 'call', fn: 'issue', arg: 't0 L1' });
    expect(parseTraceText('> fill_wait')).toEqual({ kind: 'call', fn: 'fill_wait', arg: null });
    expect(parseTraceText('< fill_wait = done')).toEqual({ kind: 'ret', fn: 'fill_wait', value: 'done' });
    expect(parseTraceText('< note_block')).toEqual({ kind: 'ret', fn: 'note_block', value: null });
    expect(parseTraceText('# swap-enqueued L0E1<-L0E3')).toEqual({
      kind: 'mark',
      what: 'swap-enqueued',
      detail: 'L0E1<-L0E3',
    });
    expect(parseTraceText('!! POST-FILL-WAIT: fill_wait returned with inflight=1')).toEqual({
      kind: 'violation',
      property: 'POST-FILL-WAIT',
      detail: 'fill_wait returned with inflight=1',
    });
  });

  it("reads the simulated world's ops, their results and their failures", () => {
    expect(parseTraceText('upload L0E2.up dev1 -> t7')).toEqual({
      kind: 'op',
      name: 'upload',
      family: 'backend',
      what: 'upload L0E2.up dev1',
      result: 't7',
      failed: false,
    });
    expect(parseTraceText('upload L0E2.up dev1 -> FAILED')).toMatchObject({
      family: 'backend',
      result: 'FAILED',
      failed: true,
    });
    expect(parseTraceText('stage L1E0 -> FAILED (host memory)')).toMatchObject({
      name: 'stage',
      result: 'FAILED (host memory)',
      failed: true,
    });
    expect(parseTraceText('issue dev0 [E1 E4] FAILED')).toMatchObject({
      name: 'issue',
      what: 'issue dev0 [E1 E4]',
      result: 'FAILED',
      failed: true,
    });
    expect(parseTraceText('take dev1 FAILED')).toMatchObject({ name: 'take', failed: true });
    expect(parseTraceText('take dev1')).toMatchObject({ name: 'take', result: null, failed: false });
    expect(parseTraceText('route t0 L0 -> [0 3]')).toMatchObject({ name: 'route', family: 'engine', result: '[0 3]' });
    expect(parseTraceText('backendShutdown')).toMatchObject({ name: 'backendShutdown', family: 'backend' });
  });

  it('keeps text it does not know as a plain op', () => {
    expect(parseTraceText('teleport L0E0 -> somewhere')).toEqual({
      kind: 'op',
      name: 'teleport',
      family: 'other',
      what: 'teleport L0E0',
      result: 'somewhere',
      failed: false,
    });
    expect(parseTraceText('wait for godot')).toMatchObject({ kind: 'op', family: 'other' });
    expect(parseTraceText('')).toMatchObject({ kind: 'op', family: 'other' });
  });

  const dir = 'properties/replays';
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    it(`knows every record of the committed replay ${file}`, () => {
      const view = replayToView(join(dir, file));
      const unknown = view.trace.records
        .map((r) => r.text)
        .filter((t) => {
          const e = parseTraceText(t);
          return e.kind === 'op' && e.family === 'other';
        });
      expect(view.trace.records.length).toBeGreaterThan(10);
      expect(unknown).toEqual([]);
    });
  }
});
