/**
 * The trace's bytes do not move: every pinned trace (trace_golden.ts) hashes as it did
 * when it was pinned, lines and printed lanes. Guards changes to how the runtime records
 * a step and how a record is printed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { goldenTraces, type GoldenTrace } from './trace_golden.js';

describe('trace bytes', () => {
  it('every pinned trace hashes as pinned', () => {
    const pinned = JSON.parse(readFileSync(new URL('./trace_golden.json', import.meta.url), 'utf8')) as Record<
      string,
      GoldenTrace
    >;
    const now = goldenTraces();
    expect(Object.keys(now)).toEqual(Object.keys(pinned));
    for (const [name, p] of Object.entries(pinned)) expect(now[name], name).toEqual(p);
    // the pins cover runs that end in a violation and runs that do not
    expect(Object.values(pinned).every((p) => p.records > 0)).toBe(true);
  });
});
