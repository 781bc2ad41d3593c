/**
 * The bench's comparison with Spin (apps/cli/bench/spin_*.ts): the Promela model it
 * generates, the timer it puts into pan.c, the growth exponent, and one row measured end
 * to end, with Spin when it is on the PATH (then Spin's count is the anchor's, 581 states
 * for two experts, and the temporary folder is gone afterwards) and without it.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { growthExponent, measureSpin, SPIN_TABLE } from '../../apps/cli/bench/spin_bench.js';
import { promelaModel } from '../../apps/cli/bench/spin_model.js';
import { renderSpin } from '../../apps/cli/bench/spin_report.js';
import { patchPan, spinTools } from '../../apps/cli/bench/spin_run.js';

const spinFolders = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith('tierlab-spin-'));

describe('the Spin comparison', () => {
  it('generates the model of each size, and refuses sizes the model cannot hold', () => {
    const m = promelaModel(6, 3, 2);
    expect(m).toMatch(/^#define NE {5}6$/m);
    expect(m).toMatch(/^#define NL {5}3$/m);
    expect(m).toMatch(/^#define QCAP {3}2$/m);
    expect(m).toContain('active [NL] proctype loader()');
    expect(m).toContain('#define NQUEUED  (queued[0] + queued[1] + queued[2] + queued[3] + queued[4] + queued[5])');
    expect(m.endsWith('end_loader:\n  (0)\n}\n')).toBe(true);
    expect(() => promelaModel(9, 2, 2)).toThrow(/1-8 experts/);
  });

  it('adds the lifecycle gate only when asked, around every entry point the configuration calls', () => {
    const plain = promelaModel(4, 2, 2);
    const gated = promelaModel(4, 2, 2, true);
    expect(plain).not.toContain('gmx');
    // a way in per gated call's text: plan_fill, fill_wait, releaseRam (one text in its
    // loop) and residentCount in main, note_planned in the loaders (one text for all);
    // init and the teardown take exclusive sections
    expect(gated.match(/STEP; assert\(gstate == 1 && !gwantx && !gx\); glive\+\+/g)?.length).toBe(5);
    expect(gated.match(/gx = 1 }/g)?.length).toBe(2);
    expect(gated).toContain('assert(gstate == 1); gstate = 2');
    // the release of mx before a gate's way out is a step of its own, the branch after it
    expect(gated).toContain('atomic { gquiescent(); gmx = FREE; STEP;\n    if\n    :: e + NL < NE');
  });

  it("puts the anchor's timer around pan's search, and refuses a pan.c without its lines", () => {
    const pan = 'int x;\n\tstart_time = times(&start_tm);\nsearch();\n\tstop_time = times(&stop_tm);\n';
    const p = patchPan(pan);
    expect(p.startsWith('#include <time.h>\nstruct timespec hr_w0, hr_c0, hr_w1, hr_c1;\nint x;\n')).toBe(true);
    expect(p).toContain('clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &hr_c0);');
    expect(p).toContain('fprintf(stderr, "pan-hr: search wall %.6f cpu %.6f\\n"');
    expect(() => patchPan('int x;\n')).toThrow(/timer lines were not found/);
  });

  it('fits the growth exponent of a power law', () => {
    expect(growthExponent([2, 4, 8].map((e) => [e, 5 * e ** 3] as const))).toBeCloseTo(3, 10);
    expect(growthExponent([[2, 10]])).toBeNull();
  });

  it('measures a row beside Spin (or beside the anchor, saying why), and reports the targets', () => {
    const before = spinFolders();
    const two = SPIN_TABLE.filter((c) => c.experts === 2);
    const log: string[] = [];
    const { section, unexpected } = measureSpin(600, (s) => log.push(s), two);
    expect(unexpected).toBe(false);
    const row = section.rows[0];
    if (row === undefined) throw new Error('no row');
    expect(row.tierlab.complete).toBe(true);
    expect(row.tierlab.states).toBeGreaterThan(0);
    const tools = spinTools();
    if ('missing' in tools) {
      expect(section.skipped).toBe(tools.missing);
      expect(row.spin).toBeNull();
    } else {
      expect(section.skipped).toBeNull();
      expect(row.spin?.states).toBe(581);
      expect(row.spin?.transitions).toBe(1095);
      // the same model with the gate: more states, and the like-for-like ratio beside it
      expect(row.spinGate?.states).toBe(1633);
      expect(row.gateStateRatio).toBeCloseTo(row.tierlab.states / 1633, 10);
    }
    expect(row.stateRatio).toBeCloseTo(row.tierlab.states / 581, 10);
    expect(spinFolders()).toEqual(before);
    const md = renderSpin(section).join('\n');
    expect(md).toContain('| e2-l2-r2 | yes |');
    expect(md).toContain("distinct states within 2 x of Spin's on every row (1 of 1 rows complete)");
    expect(md).toMatch(/beside the model with the gate, worst [\d.]+ x/);
  });
});
