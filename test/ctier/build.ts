/**
 * The C tier's schedule harness for the tests: built once per test file with make (quick
 * when nothing changed), so a test never runs a library older than the sources.
 */
import { spawnSync } from 'node:child_process';

export function buildHarness(): void {
  const r = spawnSync('make', ['-s', '-C', 'native', 'tier-sched-lib'], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`make -C native tier-sched-lib failed:\n${r.stdout}${r.stderr}`);
}
