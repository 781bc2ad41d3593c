/**
 * A fill_wait-like bug built by hand, for tests that must not touch src/: the planned
 * warmstart of src/engine/driver.ts, with a fill_wait that waits for the ring to be empty
 * (qn) instead of for nothing in flight (#1360), and otherwise follows src/tier/fill_wait.ts
 * (through the lifecycle gate, so that the reference catches the early return, not a
 * missing gate section). The uploader empties the ring slot before it copies, so fill_wait can
 * return while an upload is still running: SPEC-FILL at the unlock, POST-FILL-WAIT at the
 * return right after it (with the reference off).
 */
import type { Gen } from '../../src/ops.js';
import { LOCK, UNLOCK, WAIT_TAKE } from '../../src/tier/sync.js';
import type { TierState } from '../../src/tier/state.js';
import type { Tier } from '../../src/tier/tier.js';
import { enter, leave } from '../../src/tier/gate.js';

/** src/tier/fill_wait.ts with its one line changed: the loop waits on qn, not inflight */
function* fillWaitOnQueue(st: TierState): Gen<void> {
  yield { k: 'call', call: { fn: 'fill_wait' } };
  let value: 'done' | 'stopped' | 'off' = 'off';
  if (yield* enter(st.gate, 'expert')) {
    yield LOCK;
    while (st.qn > 0 && !st.stop) yield WAIT_TAKE;
    value = st.stop ? 'stopped' : 'done';
    yield UNLOCK;
    yield* leave(st.gate);
  }
  yield { k: 'ret', ret: { fn: 'fill_wait', value } };
}

export function faultyWarmstart(loaders: number): (tier: Tier) => Gen<void> {
  return function* main(tier: Tier): Gen<void> {
    const started = yield* tier.init();
    if (started.state !== 'active') return;
    const planned = yield* tier.planFill();
    const tids: number[] = [];
    for (let i = 0; i < loaders; i++) {
      const mine = planned.filter((_, j) => j % loaders === i);
      const body = function* (): Gen<void> {
        for (const key of mine) {
          const ram = (yield { k: 'loadRam', layer: key.layer, eid: key.eid }) as Parameters<Tier['notePlanned']>[2];
          yield* tier.notePlanned(key.layer, key.eid, ram);
        }
      };
      tids.push((yield { k: 'spawn', name: `loader${i}`, body }) as number);
    }
    for (const tid of tids) yield { k: 'join', tid };
    yield* fillWaitOnQueue(tier.st);
    yield* tier.shutdown();
  };
}
