/**
 * `--jobs` and `--shard` are checked like every other option (one line naming the
 * problem, exit 2), and `npm run report -- merge` refuses shard sets that are not one
 * whole run (malformed, of another run, a part twice, a part missing) before writing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkShardSet, readShardFile, writeShardFile, type PropertiesShard } from '../../apps/report/shard_file.js';
import { runIdentity } from '../../apps/cli/cli_args.js';
import { mergeShardReports } from '../../apps/cli/report_merge.js';
import {
  joinUnits,
  runUnits,
  unitCount,
  unitsOfShard,
  UNIT_RUNS,
  type PlainRequest,
} from '../../properties/parallel_runs.js';

const scratch = mkdtempSync(join(tmpdir(), 'tierlab-shards-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function cli(script: string, args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

function shard(index: number, count: number, command = '--runs 10'): PropertiesShard {
  return { tool: 'properties', index, count, command, seed: 1, strategy: 'random', labels: [] };
}

function dirWith(name: string, s: PropertiesShard | string): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  if (typeof s === 'string') writeFileSync(join(dir, 'shard.json'), s);
  else writeShardFile(dir, s);
  return dir;
}

describe('--jobs and --shard', () => {
  it('bad values: one line naming the option, exit 2', () => {
    const bad: [string, string[], RegExp][] = [
      [
        'apps/cli/bin/properties.ts',
        ['--jobs', '0'],
        /^properties: --jobs wants an integer in \[1, 1024\], got '0'\n$/,
      ],
      [
        'apps/cli/bin/mutants.ts',
        ['--shard', '2/2'],
        /^mutants: --shard wants i\/n with integers 0 <= i < n <= 1024, e.g. 0\/4; got '2\/2'\n$/,
      ],
    ];
    for (const [script, args, message] of bad) {
      const r = cli(script, args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('a run is identified without its shard, jobs and report options', () => {
    expect(runIdentity(['--runs', '5', '--shard', '0/2', '--jobs=4', '--report', 'out/a', '--seed', '3'])).toBe(
      '--runs 5 --seed 3',
    );
  });
});

describe('report merge', () => {
  it('joins only a whole run: each refusal names the shard and the problem', () => {
    const a = dirWith('a', shard(0, 2));
    const b = dirWith('b', shard(1, 2));
    expect(() => checkShardSet([a, b], [readShardFile(a), readShardFile(b)])).not.toThrow();
    const other = dirWith('other', shard(1, 2, '--runs 11'));
    const three = dirWith('three', shard(1, 3));
    const cases: [string[], RegExp][] = [
      [[a], /shards missing: 1\/2/],
      [[a, a], /shard 0\/2 twice/],
      [[a, other], /other: a shard of another run/],
      [[a, three], /three: shard of 3, but .*a is a shard of 2/],
    ];
    for (const [dirs, message] of cases)
      expect(() =>
        checkShardSet(
          dirs,
          dirs.map((d) => readShardFile(d)),
        ),
      ).toThrow(message);
    expect(() => readShardFile(dirWith('broken', '{"format":'))).toThrow(
      /broken\/shard.json: cannot read a shard report \(not valid JSON/,
    );
    expect(() => readShardFile(dirWith('alien', '{"format":"x"}'))).toThrow(/not a tierlab shard report/);
    expect(() =>
      readShardFile(
        dirWith(
          'numbers',
          JSON.stringify({ format: 'tierlab-shard', tool: 'properties', index: 2, count: 2, command: '', labels: [] }),
        ),
      ),
    ).toThrow(/malformed shard numbers/);
    expect(() => readShardFile(join(scratch, 'nowhere'))).toThrow(/no shard report/);
  });

  it('joins two properties shards into the report of the whole run', async () => {
    const request: PlainRequest = { suite: 'fill-once', seed: 3, runs: UNIT_RUNS + 10, strategy: 'random' };
    const whole = joinUnits(request, await runUnits(request, UNIT_RUNS, 1));
    const dirs = [0, 1].map((index) => join(scratch, `joined-${index}`));
    for (const [index, dir] of dirs.entries()) {
      const units = await runUnits(
        request,
        UNIT_RUNS,
        1,
        unitsOfShard(unitCount(request, UNIT_RUNS), { index, count: 2 }),
      );
      writeShardFile(dir, {
        tool: 'properties',
        index,
        count: 2,
        command: '--suite fill-once',
        seed: 3,
        strategy: 'random',
        labels: [{ label: 'fill-once', request, units }],
      });
    }
    const out = join(scratch, 'joined');
    const lines: string[] = [];
    expect(await mergeShardReports(dirs, out, (l) => lines.push(l))).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'properties.json'), 'utf8')) as {
      ok: boolean;
      suites: { runs: number; steps: number; coverage: Record<string, number> }[];
    };
    expect(report.ok).toBe(true);
    expect(report.suites[0]?.runs).toBe(whole.runs);
    expect(report.suites[0]?.steps).toBe(whole.steps);
    expect(report.suites[0]?.coverage).toEqual(whole.coverage);
    expect(lines.join('\n')).toMatch(/PASS: 2 shards joined, 260 runs/);
  });

  it('the command refuses a bad set with exit 2 and one line', () => {
    const a = dirWith('cli-a', shard(0, 2));
    const r = cli('apps/cli/bin/report.ts', ['merge', a, '--out', join(scratch, 'merged')]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^report: shards missing: 1\/2 \(every shard of the run is needed\)\n$/);
  });
});
