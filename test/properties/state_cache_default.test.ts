/**
 * `npm run properties -- --strategy exhaustive --preemptions inf --scenario FILE` ("every
 * interleaving") uses the state cache without being asked, where it is sound (the
 * unbounded DPOR search of one scenario), and says so in its guarantee; --no-state-cache
 * turns it off; a bounded search leaves it off unless asked; asking for both is one line
 * and exit 2. The runs without the cache are bounded by --runs (the search is long without it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-state-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SCENARIO = 'properties/scenarios/shutdown-racing.json';

interface Guarantee {
  readonly complete: boolean;
  readonly stateCache?: boolean;
  readonly preemptions?: number | null;
}

function search(name: string, args: string[]): { status: number | null; stderr: string; guarantee: Guarantee | null } {
  const report = join(tmp, name);
  const all = ['--strategy', 'exhaustive', '--scenario', SCENARIO, '--report', report, '--quiet', ...args];
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/cli/bin/properties.ts', ...all], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  let guarantee: Guarantee | null = null;
  try {
    const json = JSON.parse(readFileSync(join(report, 'properties-shutdown-racing.json'), 'utf8')) as {
      suites: { guarantee?: Guarantee }[];
    };
    guarantee = json.suites[0]?.guarantee ?? null;
  } catch {
    guarantee = null;
  }
  return { status: r.status, stderr: r.stderr, guarantee };
}

describe('the state cache where it is sound', () => {
  it('is on for every interleaving of one scenario, unasked, and the search completes', () => {
    const r = search('default', ['--preemptions', 'inf']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.guarantee).toMatchObject({ complete: true, stateCache: true, preemptions: null });
  });

  it('--no-state-cache turns it off; a bounded search leaves it off', () => {
    const off = search('off', ['--preemptions', 'inf', '--no-state-cache', '--runs', '20']);
    expect(off.status, off.stderr).toBe(4);
    expect(off.guarantee).toMatchObject({ complete: false, stateCache: false });
    const bounded = search('bounded', ['--preemptions', '1', '--runs', '20']);
    expect(bounded.guarantee?.stateCache, bounded.stderr).toBe(false);
  });

  it('--state-cache with --no-state-cache is one line and exit 2', () => {
    const r = search('both', ['--preemptions', 'inf', '--state-cache', '--no-state-cache']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('properties: --state-cache and --no-state-cache exclude each other\n');
  });
});
