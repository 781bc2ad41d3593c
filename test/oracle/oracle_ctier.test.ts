/**
 * `npm run oracle -- --tier c` on the CPU backend: the oracle matrix with the C tier
 * (native/tier/) inside the engine, on two simulated devices, 32 tokens a run (bounded by
 * tokens and rows, as the TypeScript tier's oracle test is). Every row it runs is
 * token-exact and bit-identical to the CPU-only run; the rows its driver cannot express
 * are listed by name with the reason; the TypeScript tier's report is left alone; each
 * row's event log is NDJSON with one seq per line, and the trace checker consumed it whole
 * (the oracle fails a row whose log diverges). And the one-line errors of the
 * option and of a missing or foreign C tier library.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

function oracle(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/oracle.ts', ...args], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-oracle-ctier-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(() => {
  // the tier library over the CPU engine, never older than its sources
  const r = spawnSync('make', ['-s', '-C', 'native', 'cpu', 'tier'], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`make -C native cpu tier failed:\n${r.stdout}${r.stderr}`);
});

interface CTierReport {
  tier: string;
  ok: boolean;
  runs: {
    name: string;
    tokensMatched: number;
    hiddenBitIdentical: boolean;
    problem: string | null;
    notes: string[];
  }[];
  skipped: { name: string; reason: string }[];
}

describe('oracle --tier c on the CPU backend', () => {
  it('every row it runs is token-exact and bit-identical on two simulated devices; the rest are named', () => {
    const report = join(tmp, 'reports');
    const r = oracle(['--tier', 'c', '--backend', 'cpu', '--devices', '0,1', '--tokens', '32', '--report', report]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(report, 'oracle-cpu.json'))).toBe(false);
    const json = JSON.parse(readFileSync(join(report, 'oracle-cpu-ctier.json'), 'utf8')) as CTierReport;
    expect([json.tier, json.ok]).toEqual(['c', true]);
    const names = json.runs.map((run) => run.name);
    for (const row of [
      'cpu-only (nothing resident)',
      'half, swaps',
      'fault: failed take (device 0)',
      'shutdown mid-fill',
    ])
      expect(names).toContain(row);
    expect(json.runs.length).toBeGreaterThanOrEqual(25);
    for (const run of json.runs) {
      expect([run.name, run.tokensMatched, run.hiddenBitIdentical, run.problem]).toEqual([run.name, 32, true, null]);
      // the real run's log (real threads, no scheduler) went through the trace checker whole
      expect(
        run.notes.some((n) => /^event log: \d+ events, consumed whole by check-trace$/.test(n)),
        run.name,
      ).toBe(true);
    }
    // the later protocol's rows need a second native caller or features the one-caller driver does not drive yet
    expect(json.skipped.map((s) => s.name).sort()).toEqual([
      'a stats thread during decode and teardown',
      'fault: failed staging copy in a heat-file warmstart, then swaps at every tick',
      'fault: failed staging copy in warmstart, then swaps',
      'init and a second shutdown racing the shutdown',
      'prefer-resident routing, half resident',
      'prefer-resident routing, sync uploads, swaps',
      're-plan after each prompt layer',
      're-plan with the whole table, eviction ring polled',
      'synchronous uploads, swaps',
    ]);
    for (const s of json.skipped) expect(s.reason.length).toBeGreaterThan(20);
    expect(readFileSync(join(report, 'oracle-cpu-ctier.md'), 'utf8')).toContain('Not run (the C tier oracle driver');
  });

  it("each row's event log is NDJSON, one seq per line, from init to the teardown", () => {
    const dir = join(tmp, 'reports', 'oracle-cpu-ctier-events');
    const files = readdirSync(dir).sort();
    expect(files.length).toBeGreaterThanOrEqual(25);
    const events = readFileSync(join(dir, files.find((f) => f.includes('half-swaps')) ?? ''), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { seq: number; ev: string });
    const seqs = events.map((e) => e.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const kinds = new Set(events.map((e) => e.ev));
    for (const ev of ['init_stage', 'enqueue', 'upload_done', 'tick', 'swap_chosen', 'teardown_done'])
      expect(kinds).toContain(ev);
  });
});

describe('oracle --tier: bad input gets one clear error line', () => {
  const cases: readonly (readonly [string, string[], RegExp])[] = [
    ['an unknown tier', ['--tier', 'rust'], /^oracle: --tier must be ts or c, got 'rust'/],
    ['a C tier library without --tier c', ['--ctier-lib', 'x.so'], /^oracle: --ctier-lib needs --tier c/],
    ['an event log without --tier c', ['--events', 'off'], /^oracle: --events needs --tier c/],
    [
      'an event log neither on nor off',
      ['--tier', 'c', '--events', 'maybe'],
      /^oracle: --events must be on or off, got 'maybe'/,
    ],
    [
      'a missing C tier library',
      ['--tier', 'c', '--ctier-lib', join(tmp, 'nope.so')],
      /^oracle: C tier library not found: .*nope\.so \(build it with: make -C native tier\)$/,
    ],
    [
      'a library that is not a C tier',
      ['--tier', 'c', '--ctier-lib', 'native/build/libtierlab_cpu.so'],
      /^oracle: native\/build\/libtierlab_cpu\.so is not a C tier library/,
    ],
  ];
  for (const [what, args, line] of cases) {
    it(what, () => {
      const r = oracle([...args, '--report', join(tmp, 'bad')]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(line);
    });
  }
});
