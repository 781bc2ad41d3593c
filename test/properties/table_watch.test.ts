/**
 * The checkers' watch of large slot tables (src/check/table_watch.ts, on in real runs):
 * what it reports, and that the refinement and accounting checks over a watched table
 * catch what the whole-table scans catch (the faulty traces of the SPEC- families, a slot resident
 * without tensors), while the correct tier passes.
 */
import { describe, expect, it } from 'vitest';
import { TableWatch, TIER_SLOT_FIELDS, WATCH_MIN_SLOTS, watchOf } from '../../src/check/table_watch.js';
import { slotOf } from '../../src/tier/state.js';
import { runScenario } from '../../model/run.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import { ChoicesStrategy, RandomStrategy } from '../../model/rt/strategy.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';
import { SPEC_FAULTS } from './spec_faults.js';

type Cell = { heat: number; resident: boolean };

function table(layers: number, experts: number): Cell[][] {
  return Array.from({ length: layers }, () => Array.from({ length: experts }, () => ({ heat: 0, resident: false })));
}

describe('the table watch', () => {
  it('reports every slot of a new table, then exactly the slots written, in order', () => {
    const w = new TableWatch(['heat', 'resident'], 8);
    const a = w.reader();
    const b = w.reader();
    const t = table(2, 5);
    w.look(t);
    expect(a.take()).toBe('all');
    expect(a.take()).toEqual([]);
    const x = t[1]?.[3];
    const y = t[0]?.[1];
    if (x === undefined || y === undefined) throw new Error('table too small');
    x.heat = 7;
    y.resident = true;
    x.heat += 1;
    w.look(t);
    expect(a.take()).toEqual([1, 8]);
    expect(x.heat).toBe(8);
    expect(y.resident).toBe(true);
    expect({ ...x }).toEqual({ heat: 8, resident: false });
    expect(a.take()).toEqual([]);
    // each reader has its own view
    expect(b.take()).toBe('all');
  });

  it('sees a new table or row as all written, and refuses a slot replaced in its row', () => {
    const w = new TableWatch(['heat'], 4);
    const r = w.reader();
    const t = table(2, 4);
    w.look(t);
    r.take();
    const row = t[0];
    if (row === undefined) throw new Error('no row');
    expect(() => {
      row[0] = { heat: 1, resident: false };
    }).toThrow(TypeError);
    t[1] = table(1, 4)[0] ?? [];
    w.look(t);
    expect(r.take()).toBe('all');
    const fresh = table(2, 4);
    w.look(fresh);
    expect(r.take()).toBe('all');
    // a write to a slot of the table left behind marks nothing of the new one's
    const old = t[0]?.[0];
    if (old !== undefined) old.heat = 3;
    w.look(fresh);
    expect(r.take()).toEqual([]);
  });

  it('fed by writes: plain slots, the slots reported written, by the object and not its place', () => {
    const w = new TableWatch(['heat'], 4);
    w.feedByWrites();
    const r = w.reader();
    const t = table(2, 4);
    w.look(t);
    expect(r.take()).toBe('all');
    const x = t[1]?.[2];
    const y = t[0]?.[3];
    if (x === undefined || y === undefined) throw new Error('table too small');
    expect(Object.getOwnPropertyDescriptor(x, 'heat')?.writable).toBe(true);
    w.wroteSlot(x);
    w.wroteSlot(y);
    w.wroteSlot(x);
    // an object of no table, and a slot of a table left behind, mark nothing
    w.wroteSlot({ heat: 1 });
    w.look(t);
    expect(r.take()).toEqual([3, 6]);
    const fresh = table(2, 4);
    w.look(fresh);
    expect(r.take()).toBe('all');
    w.wroteSlot(x);
    expect(r.take()).toEqual([]);
    expect(() => w.feedByWrites()).toThrow(/after its first look/);
  });

  it("keeps a slot's fields, their values and their order, the unwatched ones plain", () => {
    const w = new TableWatch(['heat', 'queued'], 4);
    const r = w.reader();
    const t = Array.from({ length: 2 }, (_, layer) =>
      Array.from({ length: 4 }, (_, eid) => ({ layer, eid, heat: eid, note: 'n', queued: false })),
    );
    w.look(t);
    r.take();
    const x = t[1]?.[2];
    if (x === undefined) throw new Error('table too small');
    expect(Object.keys(x)).toEqual(['layer', 'eid', 'heat', 'note', 'queued']);
    expect({ ...x }).toEqual({ layer: 1, eid: 2, heat: 2, note: 'n', queued: false });
    expect(Object.getOwnPropertyDescriptor(x, 'note')?.writable).toBe(true);
    // an unwatched field keeps its descriptor, whatever it was
    const y = { layer: 0, eid: 0, heat: 1, note: 'n', queued: false };
    Object.defineProperty(y, 'note', { writable: false });
    const w2 = new TableWatch(['heat', 'queued'], 1);
    w2.look([[y]]);
    expect(Object.getOwnPropertyDescriptor(y, 'note')).toEqual({
      value: 'n',
      writable: false,
      enumerable: true,
      configurable: true,
    });
    expect(Object.keys(y)).toEqual(['layer', 'eid', 'heat', 'note', 'queued']);
    x.note = 'm';
    w.look(t);
    expect(r.take()).toEqual([]);
    x.queued = true;
    w.look(t);
    expect(r.take()).toEqual([6]);
    expect(x.queued).toBe(true);
  });

  it("a slot a second watch looks at reports that watch's fields too", () => {
    const a = new TableWatch(['heat'], 4);
    const b = new TableWatch(['heat', 'resident'], 4);
    const ra = a.reader();
    const rb = b.reader();
    const t = table(2, 4);
    a.look(t);
    b.look(t);
    ra.take();
    rb.take();
    const x = t[1]?.[1];
    if (x === undefined) throw new Error('table too small');
    x.resident = true;
    a.look(t);
    b.look(t);
    expect(rb.take()).toEqual([5]);
    expect(x.resident).toBe(true);
    expect(Object.keys(x)).toEqual(['heat', 'resident']);
  });

  it('does not watch a table under its size: every look is all of it', () => {
    const w = new TableWatch(['heat'], 100);
    const r = w.reader();
    const t = table(2, 5);
    w.look(t);
    expect(r.take()).toBe('all');
    expect(r.take()).toBe('all');
    expect(Object.getOwnPropertyDescriptor(t[0]?.[0], 'heat')?.writable).toBe(true);
  });
});

/** The default scenario with a slot table the checkers watch. */
function large(over: Partial<Scenario> = {}): Scenario {
  const s = { ...defaultScenario(), ...over };
  const experts = Math.ceil(WATCH_MIN_SLOTS / s.layers) + 3;
  // RAM for every expert, as the default scenario's has (streaming keeps its own)
  return { ...s, experts, ramCapacity: s.streaming ? s.ramCapacity : experts };
}

/** The two ways a watch learns of writes: the read guard's (fed), the slots' accessors (no guard). */
const WAYS = [
  { way: 'fed by the read guard', guardReads: true },
  { way: 'by accessors', guardReads: false },
] as const;

describe('checks over a watched table', () => {
  for (const { way, guardReads } of WAYS) {
    for (const [id, c] of Object.entries(SPEC_FAULTS)) {
      it(`${id} fails on its faulty trace over ${large().layers * large().experts} slots, ${way}`, () => {
        const r = runScenario(large(c.scenario), {
          strategy: new ChoicesStrategy([]),
          main: c.main,
          watchSlots: true,
          guardReads,
        });
        expect(r.violation?.property, r.violation?.message ?? 'no violation').toBe(id);
      });
    }

    it(`a resident slot without tensors is ACC-INFLIGHT, ${way}`, () => {
      const r = runScenario(large(), {
        strategy: new ChoicesStrategy([]),
        watchSlots: true,
        guardReads,
        *main(tier) {
          yield* tier.init();
          yield { k: 'lock' };
          yield { k: 'unlock' };
          // written after the watch's first look: only the watch can report it
          yield { k: 'lock' };
          slotOf(tier.st, 0, tier.st.cfg.experts - 1).resident = true;
          yield { k: 'unlock' };
        },
      });
      expect(r.violation?.property, r.violation?.message ?? 'no violation').toBe('ACC-INFLIGHT');
    });

    it(`the correct tier passes on random schedules, ${way}`, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const r = runScenario(large(), { strategy: new RandomStrategy(String(seed)), watchSlots: true, guardReads });
        expect(r.violation?.message ?? null, `seed ${seed}`).toBeNull();
      }
    });

    it(`these runs really check by the watch, ${way}: the slots are its accessors only without the guard`, () => {
      let accessors: boolean | null = null;
      let watch: TableWatch | null = null;
      let scansWhole: boolean | null = null;
      // (the run ends with end-state violations of its own: it decodes nothing)
      runScenario(large(), {
        strategy: new ChoicesStrategy([]),
        watchSlots: true,
        guardReads,
        onBuilt: (tier) => {
          watch = watchOf(tier.st, TIER_SLOT_FIELDS, true);
        },
        *main(tier) {
          yield* tier.init();
          yield { k: 'lock' };
          yield { k: 'unlock' };
          // the state is read under mx (the read guard of SYNC-DISCIPLINE)
          yield { k: 'lock' };
          accessors = Object.getOwnPropertyDescriptor(slotOf(tier.st, 0, 0), 'heat')?.get !== undefined;
          scansWhole = (watch as TableWatch | null)?.scansWhole ?? null;
          yield { k: 'unlock' };
          yield* tier.shutdown();
        },
      });
      expect(accessors).toBe(!guardReads);
      expect(scansWhole).toBe(false);
    });
  }
});
