/**
 * The two ways of reading a line agree: the scanner of the sink's own layout and the
 * JSON.parse path give the same event for every line of a real log, a line in another
 * layout (spaces, keys in another order, an unknown key) is still read, and the search
 * places an event outside the locks that its counter put too early (a join of the uploader
 * numbered just before the uploader's exit, still after its own thread's last section) where its thread allows it: consumed whole with the
 * search, a divergence without it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTrace, DEFAULT_TRACE_OPTIONS } from '../../src/check/trace/trace_check.js';
import { TraceColumns } from '../../src/check/trace/trace_columns.js';
import { parseTraceLine } from '../../src/check/trace/trace_event.js';
import { orderLog } from '../../src/check/trace/trace_order.js';
import { scanTraceText } from '../../src/check/trace/trace_scan.js';
import { readTraceFile } from '../../src/check/trace/trace_files.js';
import { make, numberedBefore, readSorted, runLogged, writeLines } from './trace_logs.js';

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-trace-scan-'));
const log = join(tmp, 'stress.ndjson');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => {
  make('build/tier/tier_stress');
  runLogged('native/build/tier/tier_stress', ['--iterations', '3', '--seed', '3'], log);
});

describe('reading a line', () => {
  it('the scanner and JSON.parse give the same event for every line of a real log', () => {
    const lines = readFileSync(log, 'utf8').split('\n');
    const cols = new TraceColumns();
    scanTraceText(lines.join('\n'), 'f', 1, cols);
    expect(cols.n).toBe(lines.filter((l) => l !== '').length);
    lines.forEach((l, i) => {
      if (l !== '') expect(cols.event(i)).toEqual(parseTraceLine(l, 'f', i + 1));
    });
  });

  it('a line in another layout is read as JSON', () => {
    const cols = new TraceColumns();
    const text =
      '{ "ev": "call", "seq": 1, "src": "tier", "lk": "-", "tid": 1, "fn": "init", "value": 0, "value2": 0, "note": "x" }';
    scanTraceText(text, 'f', 1, cols);
    expect(cols.event(0)).toEqual(parseTraceLine(text, 'f', 1));
    expect(cols.event(0).fn).toBe('init');
  });
});

describe('placing what happens outside the locks', () => {
  it("a join numbered before the uploader's exit: placed after it by the search, rejected without", () => {
    const f = join(tmp, 'join-early.ndjson');
    // still after the shutdown's last section (its `after`), now before the uploader's exit
    writeLines(f, numberedBefore(readSorted(log), 'joined', 'uploader_exit'));
    const found = checkTrace(orderLog(readTraceFile(f)));
    expect(found.divergence).toBeNull();
    expect(found.whole).toBe(true);
    expect(found.placements).toBeGreaterThan(0);
    const without = checkTrace(orderLog(readTraceFile(f)), { ...DEFAULT_TRACE_OPTIONS, maxPlacements: 0 });
    expect(without.divergence?.failed).toMatch(/^joined: thread \d+ joined the uploader, which has not left/);
  });
});
