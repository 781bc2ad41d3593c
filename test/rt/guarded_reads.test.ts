/**
 * The read guard (src/check/guarded_reads.ts) on a state of its own: what is a read of
 * guarded state without mx, and what is not.
 */
import { describe, expect, it } from 'vitest';
import { GuardedReads } from '../../src/check/guarded_reads.js';
import { ThreadState, type ThreadView } from '../../src/check/checker.js';

const uploader: ThreadView = { tid: 1, name: 'uploader', state: ThreadState.Ready, waitingOn: null };

interface Entry {
  readonly layer: number;
  readonly eid: number;
  done: boolean;
}

function guarded() {
  const raw = {
    cfg: { devices: 1 },
    qn: 1,
    ring: [{ layer: 0, eid: 3, done: false }] as (Entry | null)[],
  };
  const guard = new GuardedReads(raw);
  return { raw, guard, st: guard.state as typeof raw };
}

describe('reads of mx-guarded state', () => {
  it('a field of the state, or of an object it still holds, read without mx is a violation naming its path', () => {
    const { guard, st } = guarded();
    const entry = st.ring[0];
    guard.unguarded(uploader);
    expect(() => st.qn).toThrow('uploader read mx-guarded st.qn without holding mx');
    expect(() => entry?.done).toThrow('uploader read mx-guarded st.ring[0].done without holding mx');
    guard.unguarded(null);
    expect(st.qn).toBe(1);
  });

  it('an object taken out of the state is the reader own, and fields set at creation are anyone s', () => {
    const { guard, st } = guarded();
    const entry = st.ring[0];
    guard.unguarded(uploader);
    expect(entry?.eid).toBe(3);
    expect(st.cfg.devices).toBe(1);
    guard.unguarded(null);
    st.ring[0] = null; // popped under mx
    guard.unguarded(uploader);
    expect(entry?.done).toBe(false);
  });

  it('writes reach the real objects, and a proxy stored into the state is stored as its object', () => {
    const { raw, st } = guarded();
    const entry = st.ring[0];
    st.ring[0] = null;
    st.ring[0] = entry ?? null;
    expect(raw.ring[0]).not.toBe(entry);
    expect(raw.ring[0]).toEqual({ layer: 0, eid: 3, done: false });
    st.qn = 0;
    expect(raw.qn).toBe(0);
  });

  it('init is exempt: it runs before any other thread touches the state', () => {
    const { guard, st } = guarded();
    guard.onMark({} as never, uploader, { k: 'call', call: { fn: 'init' } });
    guard.unguarded(uploader);
    expect(st.qn).toBe(1);
    guard.onMark({} as never, uploader, { k: 'ret', ret: { fn: 'init', value: { state: 'active' } } });
    guard.unguarded(uploader);
    expect(() => st.qn).toThrow('without holding mx');
  });

  it('a change of a slot without mx is a violation at the write (init included); the same value, or with mx, is not', () => {
    const raw = {
      cfg: { devices: 1 },
      slots: [[{ layer: 0, eid: 0, heat: 2, resident: false, tensors: null as number[] | null }]],
    };
    const guard = new GuardedReads(raw);
    const st = guard.state as typeof raw;
    const slot = st.slots[0]?.[0];
    if (slot === undefined) throw new Error('no slot');
    guard.onMark({} as never, uploader, { k: 'call', call: { fn: 'init' } });
    guard.unguarded(uploader);
    slot.heat = 2; // the value it has: nothing changes
    expect(() => {
      slot.heat = 3;
    }).toThrow('uploader changed mx-guarded state without holding mx');
    expect(() => {
      slot.tensors = [1, 2, 3];
    }).toThrow('uploader changed mx-guarded state without holding mx');
    guard.unguarded(uploader, { mx: true, gmx: false });
    slot.resident = true;
    guard.unguarded(null);
    expect(raw.slots[0]?.[0]).toMatchObject({ heat: 2, resident: true, tensors: null });
  });

  it('a frozen row (a watched table, frozen after its proxy was made) still gives its slots out guarded', () => {
    const raw = { cfg: { devices: 1 }, slots: [[{ layer: 0, eid: 0, heat: 1, resident: false }]] };
    const guard = new GuardedReads(raw);
    const st = guard.state as typeof raw;
    const row = st.slots[0];
    Object.freeze(raw.slots[0]);
    const slot = row?.[0];
    if (row === undefined || slot === undefined) throw new Error('no slot');
    expect(Array.isArray(row)).toBe(true);
    expect([...row]).toHaveLength(1);
    expect(Object.keys(row)).toEqual(['0']);
    guard.unguarded(uploader);
    expect(() => slot.resident).toThrow('uploader read mx-guarded st.slots[0][0].resident without holding mx');
    expect(() => {
      slot.heat = 5;
    }).toThrow('uploader changed mx-guarded state without holding mx');
    guard.unguarded(null);
    expect(raw.slots[0]?.[0]?.heat).toBe(1);
  });
});
