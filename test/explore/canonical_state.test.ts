/**
 * The canonical state (model/explore/state/world_names.ts, world_digest.ts) forgets only
 * what nothing can observe: the order records were allocated in, their ids, which RAM
 * slot a copy landed in, RAM copies nobody holds, fault-site calls past the plan's last
 * fault. It keeps what can: a record's content, which references name one record, whether
 * a held RAM reference is still valid, calls before a planned fault. And a search whose
 * only failing order is told apart from a passing one by aliasing alone still finds it,
 * where a digest of contents alone (the unsound reduction, put in for the test) prunes it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolve } from 'node:path';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { scenarioSubject, type MainThread } from '../../model/explore/subject.js';
import { compiledModule } from '../../model/explore/state/compile_threads.js';
import { Hasher } from '../../model/explore/state/digest_hash.js';
import { addCanonical, canonicalNames } from '../../model/explore/state/canonical_value.js';
import { addLedgerRecords, addWorld } from '../../model/explore/state/world_digest.js';
import { RecordNames, WorldOwned } from '../../model/explore/state/world_names.js';
import { SimulatedWorld } from '../../model/sim_engine/sim_world.js';
import type { SimRamRef } from '../../model/ram/ram.js';
import type { Op } from '../../src/ops.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import { smallWarmstart } from '../../properties/committed_scenarios.js';

const scenario = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });

/** A world, the ops run on it, and what the threads hold, digested as the search does. */
class Probe {
  readonly world: SimulatedWorld;
  readonly owned = new WorldOwned();
  constructor(s: Scenario = scenario) {
    this.world = new SimulatedWorld(s, 4);
  }
  exec<T>(op: Op): T {
    const r = this.world.exec(op);
    this.owned.markResult(op.k, r);
    return r as T;
  }
  upload(eid: number): object {
    const ram = this.exec<SimRamRef>({ k: 'ramOf', layer: 0, eid });
    const staging = this.exec<object>({ k: 'stage', ram: ram as never, layer: 0, eid });
    const t = this.exec<object>({ k: 'upload', dev: 0, staging: staging as never, part: 'gate', layer: 0, eid });
    this.exec({ k: 'unstage', staging: staging as never });
    return t;
  }
  digest(held: unknown): number {
    const world = this.world;
    const names = canonicalNames(
      new RecordNames(this.owned, (ref) => {
        const r = ref as SimRamRef;
        return world.ram.checkRead(r, r.layer, r.eid) === null;
      }),
    );
    const h = new Hasher();
    addCanonical(h, held, names);
    addWorld(h, world, names);
    addLedgerRecords(h, world, names);
    return h.digest();
  }
}

describe('the canonical state', () => {
  it('forgets the allocation order and ids of records, and keeps their content', () => {
    const a = new Probe();
    const a0 = a.upload(0);
    const a1 = a.upload(1);
    const b = new Probe();
    const b1 = b.upload(1);
    const b0 = b.upload(0);
    expect(a.digest([a0, a1])).toBe(b.digest([b0, b1]));
    // the slots hold the other expert's tensor: another state
    expect(a.digest([a0, a1])).not.toBe(b.digest([b1, b0]));
    // a tensor freed is another state
    b.exec({ k: 'free', dev: 0, tensor: b1 as never });
    expect(a.digest([a0, a1])).not.toBe(b.digest([b0, b1]));
  });

  it('keeps aliasing: one record held twice is not two equal records', () => {
    const a = new Probe();
    const t = a.upload(0);
    a.upload(0);
    const b = new Probe();
    const u = b.upload(0);
    const v = b.upload(0);
    expect(a.digest([t, t])).not.toBe(b.digest([u, v]));
    expect(a.digest([t, t])).toBe(b.digest([v, v]));
  });

  it('forgets which RAM slot a copy is in and copies nobody holds; keeps validity and the current copy', () => {
    const a = new Probe();
    const b = new Probe();
    // a: expert 0 loaded again (the first copy stays alive, held by nobody); b: once
    const old = a.exec<object>({ k: 'ramOf', layer: 0, eid: 0 });
    const fresh = a.exec<object>({ k: 'loadRam', layer: 0, eid: 0, why: 'warmstart' });
    const current = b.exec<object>({ k: 'ramOf', layer: 0, eid: 0 });
    expect(a.digest([])).toBe(b.digest([]));
    expect(a.digest([fresh])).toBe(b.digest([current]));
    // holding a copy that is not the current one (freeRam would leave it valid)
    expect(a.digest([old])).not.toBe(b.digest([current]));
    // a stale reference is another state than a valid one
    b.exec({ k: 'freeRam', layer: 0, eid: 0 });
    const again = b.exec<object>({ k: 'loadRam', layer: 0, eid: 0, why: 'warmstart' });
    expect(b.digest([current])).not.toBe(b.digest([again]));
  });

  it('counts calls at a fault site only while the plan fails a later one', () => {
    const faults = { ...scenario.faults, stageFails: [1] };
    const planned = { ...scenario, faults };
    const a = new Probe(planned);
    const b = new Probe(planned);
    a.upload(0);
    // before the planned fault: the count decides whether the next stage fails
    expect(a.digest([])).not.toBe(b.digest([]));
    const c = new Probe();
    const d = new Probe();
    c.upload(0);
    c.exec({ k: 'free', dev: 0, tensor: c.upload(1) as never });
    d.upload(0);
    // no fault planned: two stages or one, the same state
    expect(c.digest([])).toBe(d.digest([]));
  });
});

describe('the canonical state is sound in a search', () => {
  const file = resolve(import.meta.dirname, 'aliasing_threads.ts');
  const main = (): MainThread => compiledModule(file, 'resumable').aliasingMain as MainThread;
  const search = (cache: boolean) =>
    dporSearch(scenarioSubject(scenario, false, main(), true), {
      preemptions: Infinity,
      reduce: true,
      stateCache: cache,
      countStates: true,
      stopOnViolation: false,
    });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('finds the double free that only aliasing tells apart, with the state cache as without', () => {
    const stateless = search(false);
    const cached = search(true);
    expect(stateless.complete && cached.complete).toBe(true);
    expect(stateless.violations.map((v) => v.property)).toEqual(['MEM-DEVICE']);
    expect(cached.violations.map((v) => v.property)).toEqual(['MEM-DEVICE']);
  });

  it('loses it to a digest of contents alone: the case is one an unsound reduction fails', () => {
    vi.spyOn(RecordNames.prototype, 'fold').mockImplementation(function (this: RecordNames, h, v, depth) {
      if (this.owned.kind(v) === undefined) return false;
      this.foldUnnamed(h, v, depth);
      return true;
    });
    const unsound = search(true);
    expect(unsound.complete).toBe(true);
    expect(unsound.violations).toEqual([]);
  });
});
