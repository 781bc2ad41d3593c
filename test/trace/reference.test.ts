/**
 * `npm run check-trace -- --reference`: a log the rules consume whole, replayed through the
 * reference and the standard checkers. The logs are the C tier's runs under tierlab's
 * scheduler (random schedules of every suite), their events read as a free run's log,
 * with the scenario as the run's configuration:
 *  - a run the scheduled replay accepts (which has the scheduler's trace and the engine's
 *    records the log lacks) is consumed whole by the reference too: no false alarm;
 *  - hand edits the rules cannot see (a return value, a heat, the plan's order) are
 *    rejected by the reference, the property and the edited event named;
 *  - the command: the verdict's line, exit 1 on a divergence, a bad --reference file is
 *    one error line; the same log and scenario give the same verdict.
 * Bounded by runs and events, never by time; the temporary folder is removed.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../apps/cli/check_trace.js';
import { harnessScenario, referenceSetup } from '../../model/ctier/harness_config.js';
import { runCTier } from '../../model/ctier/run_ctier.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import { SUITES, scenarioArb } from '../../properties/arbitraries.js';
import type { Rec } from '../../src/check/replay/records.js';
import { checkTrace, DEFAULT_TRACE_OPTIONS, type TraceVerdict } from '../../src/check/trace/trace_check.js';
import { columnsFromRecords } from '../../src/check/trace/trace_from_records.js';
import { orderLog } from '../../src/check/trace/trace_order.js';
import type { ReferenceSetup } from '../../src/check/trace/trace_reference.js';
import { readLogs } from '../../src/check/trace/trace_files.js';
import { InputError } from '../../src/input/input_error.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { buildHarness } from '../ctier/build.js';
import type { Line } from './trace_logs.js';

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-trace-ref-'));
let h: CTierHarness;
beforeAll(() => {
  buildHarness();
  h = new CTierHarness();
});
afterAll(() => {
  h.close();
  rmSync(tmp, { recursive: true, force: true });
});

function setupOf(s: Scenario): ReferenceSetup {
  return referenceSetup(s);
}

/** A scheduled run of the scenario (null: its own replay found a violation). */
function run(s: Scenario, seed: number): readonly Rec[] | null {
  const r = runCTier(h, harnessScenario(s), { level: 2, strategy: { kind: 'random', seed }, keepRecords: true });
  return r.ok ? r.records : null;
}

/** The run's events as a free run's NDJSON lines (what the C tier's file sink writes). */
function logLines(recs: readonly Rec[]): Line[] {
  const cols = columnsFromRecords(recs, 'run');
  const out: Line[] = [];
  for (let r = 0; r < cols.n; r++) {
    const { file: _f, line: _l, fn, ...e } = cols.event(r);
    out.push({ ...e, ...(fn !== '' ? { fn } : {}) });
  }
  return out;
}

function checkLines(lines: readonly Line[], setup: ReferenceSetup): TraceVerdict {
  const f = join(tmp, 'edited.ndjson');
  writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n'));
  const log = readLogs([f], false)[0];
  if (log === undefined) throw new Error('no log read');
  return checkTrace(orderLog(log.events), { ...DEFAULT_TRACE_OPTIONS, reference: setup });
}

describe('runs the scheduled replay accepts are consumed whole by the reference', () => {
  for (const suite of SUITES) {
    it(`${suite}: 6 scenarios, a random schedule each`, () => {
      let judged = 0;
      fc.sample(scenarioArb(suite), { seed: 31, numRuns: 6 }).forEach((s, i) => {
        const recs = run(s, 1000 + i);
        if (recs === null) return;
        judged++;
        const v = checkTrace(orderLog(columnsFromRecords(recs, `${suite}#${i}`)), {
          ...DEFAULT_TRACE_OPTIONS,
          reference: setupOf(s),
        });
        expect(v.divergence?.failed ?? null).toBeNull();
        expect(v.whole).toBe(true);
        expect(v.reference).toEqual({ replayed: v.events, property: null, cut: null });
      });
      expect(judged).toBeGreaterThan(2);
    });
  }
});

/** A run of the suite whose log has an event `has` accepts (the first of 12 scenarios that has one). */
function runWith(suite: (typeof SUITES)[number], has: (l: Line) => boolean): { s: Scenario; lines: Line[] } {
  const found = fc
    .sample(scenarioArb(suite), { seed: 31, numRuns: 12 })
    .map((s, i) => ({ s, recs: run(s, 1000 + i) }))
    .find((x) => x.recs !== null && logLines(x.recs).some(has));
  if (found === undefined || found.recs === null) throw new Error(`no ${suite} run has the event`);
  return { s: found.s, lines: logLines(found.recs) };
}

describe('hand edits the rules cannot see are rejected by the reference', () => {
  it("a note's return value changed (enqueued, reported not): its property and the ret named", () => {
    const isNoteRet = (l: Line): boolean => l.ev === 'ret' && l.fn === 'note' && l.value === 1;
    const { s, lines } = runWith('general', isNoteRet);
    const i = lines.findIndex(isNoteRet);
    const edited = lines.map((l, j) => (j === i ? { ...l, value: 0 } : l));
    const rules = checkTrace(orderLog(readLogs([write('ret.ndjson', edited)], false)[0]?.events ?? fail()));
    expect(rules.whole).toBe(true);
    const v = checkLines(edited, setupOf(s));
    expect(v.whole).toBe(false);
    expect(v.divergence?.failed).toMatch(/^SPEC-[A-Z-]+ \(the reference and the standard checkers\): .*note returned/);
    expect(v.divergence?.at?.seq).toBe(lines[i]?.seq);
    expect(v.reference?.property).toMatch(/^SPEC-/);
    // the ret is outside the locks: the search tried its other places, and none helps
    expect(v.placements).toBeGreaterThan(0);
  });

  it("a note's heat one higher (its section's last word on the expert): the states differ at its release", () => {
    const isEnqueue = (l: Line): boolean => l.ev === 'noted' && l.value === 1;
    const { s, lines } = runWith('general', isEnqueue);
    const i = lines.findIndex(isEnqueue);
    const edited = lines.map((l, j) => (j === i ? { ...l, heat: Number(l.heat) + 1 } : l));
    const v = checkLines(edited, setupOf(s));
    expect(v.whole).toBe(false);
    expect(v.divergence?.failed).toMatch(/heat is \d+, the protocol says \d+/);
    expect(v.divergence?.at?.seq).toBeGreaterThanOrEqual(lines[i]?.seq ?? 0);
    expect(v.divergence?.lastMatched).not.toBeNull();
    expect(v.divergence?.candidates.length).toBeGreaterThan(0);
  });
});

function write(name: string, lines: readonly Line[]): string {
  const f = join(tmp, name);
  writeFileSync(f, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return f;
}

function fail(): never {
  throw new Error('no log read');
}

describe('the command', () => {
  it('--reference SCENARIO: exit 0 with the reference named on the line, 1 on a divergence; deterministic', () => {
    const isNoteRet = (l: Line): boolean => l.ev === 'ret' && l.fn === 'note' && l.value === 1;
    const { s, lines } = runWith('general', isNoteRet);
    const scenario = join(tmp, 'scenario.json');
    writeFileSync(scenario, JSON.stringify(s));
    const good = write('good.ndjson', lines);
    const i = lines.findIndex(isNoteRet);
    const bad = write(
      'bad.ndjson',
      lines.map((l, j) => (j === i ? { ...l, value: 0 } : l)),
    );
    const out: string[] = [];
    const write0 = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((t: string) => out.push(t) > 0) as typeof process.stdout.write;
    try {
      expect(main([good, '--reference', scenario])).toBe(0);
      expect(main([bad, '--reference', scenario])).toBe(1);
      expect(main([bad, '--reference', scenario])).toBe(1);
    } finally {
      process.stdout.write = write0;
    }
    expect(out[0]).toMatch(/consumed whole .*the reference replayed all \d+ events: no violation/);
    expect(out[1]).toMatch(/DIVERGED .*\n {2}last matched: .*\n {2}failed: {7}SPEC-/);
    expect(out[2]).toBe(out[1]);
  });

  it('a --reference file that is neither a scenario nor a counterexample is one error', () => {
    const f = join(tmp, 'nope.json');
    writeFileSync(f, '{"devices": "two"}');
    const log = write('tiny.ndjson', [
      { seq: 1, src: 'tier', lk: '-', tid: 1, ev: 'call', fn: 'init', value: 0, value2: 0 },
    ]);
    expect(() => main([log, '--reference', f])).toThrow(InputError);
    expect(() => main([log, '--reference', join(tmp, 'absent.json')])).toThrow(/absent\.json: cannot read/);
  });
});
