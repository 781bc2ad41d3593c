/**
 * A saved state written back leaves every object as it was saved, also where the
 * write-back takes a short cut (restore/snapshot.ts): objects whose contents compare
 * equal to the saved ones are left alone, so the comparison must see every difference
 * a program could observe (-0 against 0, NaN, a field deleted and another added, a
 * changed element after an equal prefix, a Set's or Map's order), and frozen objects
 * (a frame's locals) are looked through, not saved.
 *
 * Invariant: each case changes the state after the save and wants it back exactly.
 */
import { describe, expect, it } from 'vitest';
import { Snapshot } from '../../model/explore/state/restore/snapshot.js';

function roundTrip<T extends object>(root: T, change: (x: T) => void): T {
  const s = Snapshot.take([root], new Set());
  change(root);
  s.restore();
  return root;
}

describe('a saved state written back', () => {
  it('tells -0 from 0 and NaN from itself in fields and elements', () => {
    const o = { a: -0, b: 0, c: Number.NaN, list: [0, -0, 1] };
    roundTrip(o, (x) => {
      x.a = 0;
      x.b = -0;
      x.c = 1;
      x.list[1] = 0;
    });
    expect(Object.is(o.a, -0)).toBe(true);
    expect(Object.is(o.b, 0)).toBe(true);
    expect(o.c).toBeNaN();
    expect(Object.is(o.list[1], -0)).toBe(true);
  });

  it('deletes a field added in place of a deleted one (as many fields as saved)', () => {
    const o: Record<string, number> = { a: 1, b: 2 };
    roundTrip(o, (x) => {
      delete x.b;
      x.c = 3;
    });
    expect(o).toEqual({ a: 1, b: 2 });
    expect(Object.keys(o).sort()).toEqual(['a', 'b']);
  });

  it('writes an element changed after an equal prefix, and a length', () => {
    const o = { list: [1, 2, 3, 4] };
    roundTrip(o, (x) => {
      x.list[3] = 9;
      x.list.push(5);
    });
    expect(o.list).toEqual([1, 2, 3, 4]);
  });

  it('gives a Set and a Map back their entries in the saved order', () => {
    const o = {
      s: new Set([1, 2, 3]),
      m: new Map([
        ['a', 1],
        ['b', -0],
      ]),
    };
    roundTrip(o, (x) => {
      x.s.delete(1);
      x.s.add(1);
      x.m.set('b', 0);
    });
    expect([...o.s]).toEqual([1, 2, 3]);
    expect(Object.is(o.m.get('b'), -0)).toBe(true);
  });

  it('leaves an unchanged object as it is, identities included', () => {
    const inner = { n: 1 };
    const o = { inner, list: [inner] };
    roundTrip(o, () => undefined);
    expect(o.inner).toBe(inner);
    expect(o.list[0]).toBe(inner);
  });

  it('looks through a frozen list into the objects it holds', () => {
    const held = { n: 1 };
    const o = { locals: Object.freeze([held, 2]) };
    roundTrip(o, () => {
      held.n = 5;
    });
    expect(held.n).toBe(1);
  });
});
