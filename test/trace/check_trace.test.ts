/**
 * `npm run check-trace` on free runs' logs: the C tier's stress program and its engine
 * check (CPU, and Vulkan on lavapipe where it is installed) write their logs with real
 * threads, and every such log is consumed whole; each hand edit (an event dropped, two
 * events swapped, a counter changed) is rejected with the divergence explained at the
 * edited event; shards and gzip files make the same log; a malformed line is one error
 * naming file:line. Bounded by iterations, never by time.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTrace, type TraceVerdict } from '../../src/check/trace/trace_check.js';
import { TraceColumns } from '../../src/check/trace/trace_columns.js';
import { orderLog } from '../../src/check/trace/trace_order.js';
import { InputError } from '../../src/input/input_error.js';
import { main } from '../../apps/cli/check_trace.js';
import { readLogs } from '../../src/check/trace/trace_files.js';
import { NO_VULKAN } from '../native/vulkan_toolchain.js';
import { bumpFirst, dropFirst, make, readSorted, runLogged, swapAtHandOver, writeLines } from './trace_logs.js';

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-trace-'));
const stressLog = join(tmp, 'stress.ndjson');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(() => {
  make('build/tier/tier_stress');
  runLogged('native/build/tier/tier_stress', ['--iterations', '20', '--sleep-us', '20', '--seed', '7'], stressLog);
});

function check(...files: string[]): TraceVerdict {
  const logs = readLogs(files, true);
  return checkTrace(orderLog(logs[0]?.events ?? new TraceColumns()));
}

describe('a real run is consumed whole', () => {
  it('the stress program: 20 iterations of warmstart, decode and a racing shutdown', () => {
    const v = check(stressLog);
    expect(v.divergence).toBeNull();
    expect(v.whole).toBe(true);
    expect(v.consumed).toBe(v.events);
    expect(v.events).toBeGreaterThan(1000);
  });

  it('the engine check on the CPU engine (two devices)', () => {
    make('build/tier/tier_engine_check_cpu');
    const log = join(tmp, 'engine-cpu.ndjson');
    expect(runLogged('native/build/tier/tier_engine_check_cpu', ['2'], log)).toContain('1 passed, 0 failed');
    const v = check(log);
    expect(v.divergence).toBeNull();
    expect(v.whole && v.events > 100).toBe(true);
  });

  it('a decode on the CPU engine: notes, issue and take for 50 tokens of 4 layers', () => {
    make('build/tier/tier_decode_rate_cpu');
    const log = join(tmp, 'decode-cpu.ndjson');
    const args = [
      '--layers',
      '4',
      '--experts',
      '8',
      '--hidden',
      '256',
      '--ffn',
      '128',
      '--topk',
      '2',
      '--tokens',
      '50',
    ];
    expect(runLogged('native/build/tier/tier_decode_rate_cpu', args, log)).toMatch(/log on, 32 of 32 experts resident/);
    const v = check(log);
    expect(v.divergence).toBeNull();
    expect(v.whole && v.events > 5000).toBe(true);
  });

  it.skipIf(NO_VULKAN)('the engine check on the Vulkan engine (lavapipe)', () => {
    make('build/tier/tier_engine_check_vulkan');
    const log = join(tmp, 'engine-vulkan.ndjson');
    expect(runLogged('native/build/tier/tier_engine_check_vulkan', ['1'], log)).toContain('1 passed, 0 failed');
    const v = check(log);
    expect(v.divergence).toBeNull();
    expect(v.whole && v.events > 100).toBe(true);
  });
});

describe('a hand-edited log is rejected, the divergence explained', () => {
  it('an event dropped (the first enqueue, later seqs closed up): the counters no longer add up', () => {
    const { lines, seq } = dropFirst(readSorted(stressLog), 'enqueue');
    const f = join(tmp, 'dropped.ndjson');
    writeLines(f, lines);
    const v = check(f);
    expect(v.whole).toBe(false);
    // the first event under mx after the missing enqueue reports one more in flight than the log accounts for
    expect(v.divergence?.failed).toMatch(/^(inflight|qn): is \d+ after \w+, the protocol says \d+/);
    expect(v.divergence?.at?.seq).toBeGreaterThanOrEqual(seq);
    expect(v.divergence?.lastMatched?.seq).toBe((v.divergence?.at?.seq ?? 0) - 1);
  });

  it('an event dropped as it is (a hole in seq): named as missing', () => {
    const lines = readSorted(stressLog);
    const f = join(tmp, 'hole.ndjson');
    writeLines(f, [...lines.slice(0, 40), ...lines.slice(41)]);
    const v = check(f);
    expect(v.divergence?.failed).toMatch(/^seq 41: missing from the log/);
    expect(v.divergence?.missing).toBe(41);
    expect(v.consumed).toBe(40);
  });

  it("two events swapped (an unlock and the next thread's first event under mx): mx held by two threads", () => {
    const { lines, seq } = swapAtHandOver(readSorted(stressLog));
    const f = join(tmp, 'swapped.ndjson');
    writeLines(f, lines);
    const v = check(f);
    expect(v.divergence?.failed).toMatch(/^mx: thread \d+ acts under mx \(section \d+\) while thread \d+ holds it/);
    expect(v.divergence?.at?.seq).toBe(seq);
    expect(v.divergence?.candidates.length).toBeGreaterThan(1);
  });

  it('a counter changed (inflight of the first upload_done one higher)', () => {
    const { lines, seq } = bumpFirst(readSorted(stressLog), 'upload_done', 'inflight');
    const f = join(tmp, 'counter.ndjson');
    writeLines(f, lines);
    const v = check(f);
    expect(v.divergence?.failed).toMatch(
      /^inflight: is \d+ after upload_done, the protocol says \d+ \(it was \d+ at seq \d+; upload_done takes 1\)/,
    );
    expect(v.divergence?.at?.seq).toBe(seq);
  });
});

describe('a log cut short', () => {
  it('ends inside a call: not consumed whole, the open call named', () => {
    const lines = readSorted(stressLog);
    const cut = lines.findIndex((l, i) => i > 100 && l.ev === 'call');
    const f = join(tmp, 'cut.ndjson');
    writeLines(f, lines.slice(0, cut + 1));
    const v = check(f);
    expect(v.whole).toBe(false);
    expect(v.consumed).toBe(cut + 1);
    expect(v.divergence?.failed).toMatch(/^end: the log ends inside thread \d+'s \w+ \(called at seq \d+\)/);
  });
});

describe('logs as files: shards, gzip, several runs, bad input', () => {
  it('shards of one log (odd and even lines, one gzipped) make the same log', () => {
    const lines = readFileSync(stressLog, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const a = join(tmp, 'a.ndjson');
    const b = join(tmp, 'b.ndjson.gz');
    writeFileSync(a, lines.filter((_, i) => i % 2 === 0).join('\n'));
    writeFileSync(b, gzipSync(lines.filter((_, i) => i % 2 === 1).join('\n')));
    const v = check(a, b);
    expect(v.whole).toBe(true);
    expect(v.events).toBe(lines.length);
  });

  it('several runs, one log each: exit 0 when all are consumed whole, 1 when one diverged', () => {
    expect(main([stressLog, stressLog, '--quiet'])).toBe(0);
    expect(main([stressLog, join(tmp, 'counter.ndjson'), '--quiet'])).toBe(1);
  });

  it('a malformed line is one error naming file:line; a seq given twice too', () => {
    const f = join(tmp, 'bad.ndjson');
    const good = readFileSync(stressLog, 'utf8').split('\n').slice(0, 2).join('\n');
    writeFileSync(f, `${good}\n{"seq":3,"src":"tier","lk":"mx"\n`);
    expect(() => main([f])).toThrow(InputError);
    expect(() => main([f])).toThrow(`${f}:3: not a JSON object`);
    writeFileSync(
      f,
      `${good}\n${JSON.stringify({ seq: 4, src: 'tier', lk: 'mx', tid: 1, ev: 'nope', value: 0, value2: 0 })}\n`,
    );
    expect(() => main([f])).toThrow(`${f}:3: "ev" is "nope", not a name of the schema`);
    expect(() => main([stressLog, stressLog, '--shards'])).toThrow(/seq \d+ appears twice/);
    writeFileSync(join(tmp, 'not.gz'), 'plain text');
    expect(() => main([join(tmp, 'not.gz')])).toThrow(/not\.gz: not a gzip file/);
    expect(() => main([join(tmp, 'absent.ndjson')])).toThrow(/absent\.ndjson: cannot read it \(ENOENT\)/);
    expect(() => main([])).toThrow(/wants at least one log file/);
  });
});
