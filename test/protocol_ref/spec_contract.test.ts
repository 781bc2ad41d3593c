/**
 * The reference against the contract the seed engine's own tier tests pin
 * (PROTOCOL.md, "Contract details"): admission, decay, saturation, the heat file,
 * init's refusals and rollback, exp_bytes, the mask, take and shutdown. A call is run to
 * its return (`finish`); the gate's own wakeups (broadcast gcv) are left out of the op
 * lists, which are about the tier's work.
 */
import { describe, expect, it } from 'vitest';
import { expBytes, granular, refusal } from '../../src/protocol_ref/config.js';
import { admits, HEAT_MAX, heatUp } from '../../src/protocol_ref/enqueue.js';
import { IssueCall, TakeCall } from '../../src/protocol_ref/group.js';
import { readHeatFile, writeHeatFile } from '../../src/protocol_ref/heat_file.js';
import { InitCall } from '../../src/protocol_ref/init.js';
import type { Step } from '../../src/protocol_ref/io.js';
import { lfruTick } from '../../src/protocol_ref/lfru.js';
import { NoteCall } from '../../src/protocol_ref/note.js';
import { ShutdownCall } from '../../src/protocol_ref/shutdown.js';
import { newSpecState, type SpecState } from '../../src/protocol_ref/state.js';
import { PlanFillCall } from '../../src/protocol_ref/warmstart.js';
import { config, ScriptIo } from './script_io.js';

function active(over = {}): SpecState {
  const s = newSpecState(config(over));
  const io = new ScriptIo();
  expect(finish(new InitCall(), s, io)).toEqual({ fn: 'init', state: 'active' });
  return s;
}

/** Steps `call` to its return; the value it returns. */
function finish(call: { step: (s: SpecState, io: ScriptIo) => Step }, s: SpecState, io: ScriptIo): unknown {
  const last = run(call, s, io).at(-1);
  return last !== undefined && 'returned' in last ? last.returned : last;
}

/** The ops of the tier's work, without the gate's own wakeups. */
function work(io: ScriptIo): string[] {
  return io.ops.filter((o) => o !== 'broadcast gcv');
}

function run(call: { step: (s: SpecState, io: ScriptIo) => Step }, s: SpecState, io: ScriptIo): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < 12; i++) {
    const st = call.step(s, io);
    steps.push(st);
    if ('returned' in st) break;
  }
  return steps;
}

describe('admission and heat', () => {
  it('promotes iff hot > cold + cold/4 + 4, in 64 bits', () => {
    expect(admits(130, 100)).toBe(true);
    expect(admits(129, 100)).toBe(false);
    expect(admits(2 ** 32 - 2, 2 ** 32 - 1)).toBe(false);
    expect(admits(7, 7)).toBe(false);
    expect(admits(5, 0)).toBe(true);
    expect(admits(4, 0)).toBe(false);
  });

  it('heat saturates at 2^32-1', () => {
    const x = { heat: HEAT_MAX - 1, resident: false, queued: false, planned: false, tensors: false, ram: false };
    heatUp(x);
    heatUp(x);
    expect(x.heat).toBe(HEAT_MAX);
  });

  it('decays by halving exactly every decay period (9 -> 4)', () => {
    const s = active({ decayPeriod: 4, swaps: false });
    const x = s.slots[0]?.[1];
    if (x === undefined) throw new Error('no slot');
    x.heat = 9;
    const io = new ScriptIo();
    for (let t = 1; t <= 3; t++) expect(lfruTick(s, io).decayed).toBe(false);
    expect(x.heat).toBe(9);
    expect(lfruTick(s, io).decayed).toBe(true);
    expect(x.heat).toBe(4);
  });
});

describe('the heat file', () => {
  it('round trips in its format and is ignored when of another shape', () => {
    const bytes = writeHeatFile([[1, 2, 3]], 3);
    expect(Array.from(bytes.slice(0, 4))).toEqual([0x31, 0x48, 0x54, 0x51]); // "QTH1" as a little-endian u32
    expect(readHeatFile(bytes, 1, 3)).toEqual([[1, 2, 3]]);
    expect(readHeatFile(bytes, 1, 4)).toBeNull();
    expect(readHeatFile(bytes.slice(0, bytes.byteLength - 1), 1, 3)).toBeNull();
  });

  it('is halved on load', () => {
    const s = newSpecState(config({ heatFile: true }));
    finish(new InitCall(), s, new ScriptIo(() => false, 1 << 30, writeHeatFile([[9, 8, 7, 6]], 4)));
    expect(s.slots[0]?.map((x) => x.heat)).toEqual([4, 4, 3, 3]);
  });
});

describe('init', () => {
  it('refuses exactly the invalid configurations', () => {
    expect(refusal(config({ topk: 33 }))).not.toBeNull();
    expect(refusal(config({ topk: 32 }))).toBeNull();
    expect(refusal(config({ cap: 3 }))).not.toBeNull();
    expect(refusal(config({ cap: 3, streaming: true }))).toBeNull();
    expect(refusal(config({ format: 1, group: 64 }))).not.toBeNull();
    expect(refusal(config({ format: 4, group: 64 }))).toBeNull();
  });

  it('a second init while active changes nothing and says so', () => {
    const s = active();
    const before = JSON.stringify(s);
    const io = new ScriptIo();
    expect(finish(new InitCall(), s, io)).toEqual({ fn: 'init', state: 'already' });
    expect(io.ops).toEqual([]);
    expect(JSON.stringify(s)).toBe(before);
  });

  it('a failure at any stage undoes every stage before it', () => {
    const cases: [string, string[]][] = [
      ['hostAlloc slots', ['hostAlloc slots']],
      ['hostAlloc ring', ['hostAlloc slots', 'hostAlloc ring', 'hostFree slots']],
      ['syncInit', ['hostAlloc slots', 'hostAlloc ring', 'syncInit', 'hostFree slots', 'hostFree ring']],
      [
        'spawn',
        [
          'hostAlloc slots',
          'hostAlloc ring',
          'syncInit',
          'uploadDense dev0',
          'spawn',
          'free dense dev0',
          'hostFree slots',
          'hostFree ring',
          'syncDestroy',
        ],
      ],
    ];
    for (const [failing, ops] of cases) {
      const s = newSpecState(config({ trunk: [{ name: 'dense0', layer: -1, weightBytes: 1024, scaleBytes: 0 }] }));
      const io = new ScriptIo((op) => (op.k === 'hostAlloc' ? `hostAlloc ${op.what}` : op.k) === failing);
      expect(finish(new InitCall(), s, io)).toEqual({ fn: 'init', state: 'off' });
      expect(work(io)).toEqual(ops);
      expect(s.active).toBe(false);
      expect(s.slots).toEqual([]);
    }
  });

  it('budget: a byte figure, or free memory minus the reserve', () => {
    const s = newSpecState(config({ budget: ['auto'], reserveBytes: 1000 }));
    finish(new InitCall(), s, new ScriptIo(() => false, 5000));
    expect(s.budget).toEqual([4000]);
  });
});

describe('exp_bytes at allocator granularity', () => {
  it('charges the seed figure for a 64 x 2048 int8 expert', () => {
    // gate and up [2048 x 64] with per-row scales, down [64 x 2048]
    const c = config({ format: 1, weightBytes: [131072, 131072, 131072], scaleBytes: [8192, 8192, 256] });
    expect(expBytes(c)).toBe(458_752);
  });

  it('rounds each branch of the allocator rule', () => {
    expect(granular(1)).toBe(8192);
    expect(granular(8192)).toBe(16384);
    expect(granular(600 * 1024)).toBe(1 << 20);
    expect(granular((1 << 20) + 1)).toBe(2 << 20);
  });
});

describe('plan, note, issue, take, shutdown', () => {
  it('plans maximally, in natural order without a heat file', () => {
    const e = expBytes(config());
    const s = active({ experts: 4, budget: [2 * e] });
    const steps = run(new PlanFillCall(), s, new ScriptIo());
    expect(steps.at(-1)).toEqual({
      returned: {
        fn: 'plan_fill',
        keys: [
          { layer: 0, eid: 0 },
          { layer: 0, eid: 1 },
        ],
      },
    });
    expect(s.used).toEqual([2 * e]);
  });

  it('note enqueues a plain upload that fits: stage now, then wake the uploader', () => {
    const s = active();
    const io = new ScriptIo();
    run(new NoteCall({ layer: 0, eid: 1 }, true), s, io);
    expect(io.ops).toEqual(['stage L0E1', 'signal cv']);
    expect(s.ring).toEqual([{ layer: 0, eid: 1, victim: null }]);
    expect(s.slots[0]?.[1]?.heat).toBe(1);
  });

  it('the mask is exactly the routed experts resident on a device whose issue succeeded; hits + misses = routed', () => {
    const s = active({ devices: 2, budget: [1 << 20, 1 << 20] });
    for (const eid of [0, 1, 2]) {
      const x = s.slots[0]?.[eid];
      if (x !== undefined) (x.resident = true), (x.tensors = true);
    }
    const io = new ScriptIo((op) => op.k === 'issueGroup' && op.dev === 1);
    const steps = run(new IssueCall(0, [0, 1, 2, 3]), s, io);
    expect(steps.at(-1)).toEqual({ returned: { fn: 'issue', mask: [true, false, true, false] } });
    expect(s.counters.hits + s.counters.misses).toBe(4);
    expect(io.ops).toContain('issueGroup dev0 [0 2]');
    expect(io.ops).toContain('writeInput dev1 +32 x1');
  });

  it('take drains every device, reports a lost group, and closes the window', () => {
    const s = active({ devices: 2, budget: [1 << 20, 1 << 20] });
    s.issueOpen = true;
    s.groups = [[0], [1]];
    const steps = run(new TakeCall(), s, new ScriptIo((op) => op.k === 'takeGroup' && op.dev === 0));
    expect(steps.at(-1)).toEqual({ returned: { fn: 'take', ok: false, collected: [1] } });
    expect(s.issueOpen).toBe(false);
    expect(s.groups).toEqual([[], []]);
  });

  it('shutdown wakes everyone, releases everything, and is safe to call twice', () => {
    const s = active();
    const x = s.slots[0]?.[0];
    if (x !== undefined) (x.resident = true), (x.tensors = true);
    s.used[0] = s.exp;
    const io = new ScriptIo();
    const steps = run(new ShutdownCall(), s, io);
    expect(steps.at(-1)).toEqual({ returned: { fn: 'shutdown', value: 'done' } });
    expect(io.ops.slice(0, 2)).toEqual(['signal cv', 'broadcast cv_take']);
    expect(io.ops).toContain('free L0E0.gate dev0');
    expect(work(io).at(-2)).toBe('syncDestroy');
    expect(work(io).at(-1)).toBe('backendShutdown');
    expect(s.gate.state).toBe('DEAD');
    expect(s.used).toEqual([0]);
    const again = new ScriptIo();
    expect(run(new ShutdownCall(), s, again).at(-1)).toEqual({ returned: { fn: 'shutdown', value: 'already' } });
    expect(again.ops).toEqual([]);
  });
});
