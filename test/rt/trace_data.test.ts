/**
 * The trace as data (model/rt/trace_data.ts) says what its words say: each record's text
 * is the trace's own line text, an op's family and failure agree with its words, a wakeup
 * names the thread whose signal or broadcast came just before it, and the data survives a
 * JSON round trip unchanged (it crosses processes and files as JSON).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../model/run.js';
import { RandomStrategy } from '../../model/rt/strategy.js';
import { traceData, type TraceData } from '../../model/rt/trace_data.js';
import { scenarioArb, SUITES } from '../../properties/arbitraries.js';

function sampled(): { name: string; data: TraceData; lines: string[] }[] {
  return SUITES.flatMap((suite) =>
    fc.sample(scenarioArb(suite), { seed: 31, numRuns: 3 }).map((s, i) => {
      const r = runScenario({ ...s, spuriousWakeups: 2 }, { strategy: new RandomStrategy(`data-${i}`), traced: true });
      if (r.trace === null) throw new Error('traced run without a trace');
      return { name: `${suite}-${i}`, data: traceData(r.trace), lines: r.trace.lines() };
    }),
  );
}

describe('trace data', () => {
  const runs = sampled();

  it('keeps every record, with its line text', () => {
    for (const { name, data, lines } of runs) {
      expect(data.records.length, name).toBe(lines.length);
      data.records.forEach((r, i) => {
        expect(lines[i], name).toBe(`${r.step} ${r.t.toFixed(3)} ${data.threadNames[r.tid] ?? r.tid} ${r.text}`);
      });
    }
  });

  it("agrees with the words: an op's failure, a wakeup's waker", () => {
    let failures = 0;
    let wakes = 0;
    for (const { name, data } of runs) {
      const lastNotify = new Map<number, string>();
      for (const r of data.records) {
        const e = r.event;
        if (e.k === 'op') {
          // the simulated world does not print a failed trunk placement: its words say only the op
          if (e.op !== 'uploadDense') expect(e.failed, `${name}: ${r.text}`).toBe(r.text.includes('FAILED'));
          if (e.failed) failures++;
        }
        if (e.k === 'signal' || e.k === 'broadcast') lastNotify.set(r.tid, r.text);
        if (e.k === 'woken' && e.how !== 'spurious') {
          wakes++;
          expect(r.text).toBe(`woken (${e.how === 'signal' ? 'signalled' : 'broadcast'} by ${data.threadNames[e.by]})`);
          expect(lastNotify.get(e.by)?.startsWith(e.how), `${name}: ${r.text}`).toBe(true);
        }
      }
    }
    // the samples reach both (faults and condition-variable handoffs are in every suite)
    expect(failures).toBeGreaterThan(0);
    expect(wakes).toBeGreaterThan(0);
  });

  it('is plain data: a JSON round trip changes nothing', () => {
    for (const { data } of runs) expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  });
});
