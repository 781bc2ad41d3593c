/**
 * The helpers TypeScript's ES5 output calls (`__generator`, `__values`, `__assign`), as
 * the thread code compiled for a restoring search gets them (compile_threads.ts): the
 * generator and the array cursor keep their state in fields a snapshot can save. A
 * Map's or Set's native iterator cannot be saved; a snapshot that meets one held across
 * a yield says so (snapshot.ts), and the search replays to that position instead.
 */
import { ResumableGenerator } from './resumable_generator.js';

type Body = ConstructorParameters<typeof ResumableGenerator>[1];

/** Walks an array the way for-of does: live, index by index (the array may grow). */
export class ArrayCursor implements Iterator<unknown> {
  constructor(
    private readonly items: ArrayLike<unknown>,
    private index = 0,
  ) {}

  next(): IteratorResult<unknown> {
    if (this.index >= this.items.length) return { value: undefined, done: true };
    return { value: this.items[this.index++], done: false };
  }

  return(value?: unknown): IteratorResult<unknown> {
    this.index = this.items.length;
    return { value, done: true };
  }

  [Symbol.iterator](): this {
    return this;
  }
}

export interface CompiledHelpers {
  readonly __generator: (
    thisArg: unknown,
    body: Body,
    getLocals?: () => unknown[],
    setLocals?: (values: unknown[]) => void,
  ) => ResumableGenerator;
  readonly __values: (o: unknown) => Iterator<unknown>;
  readonly __assign: typeof Object.assign;
}

const noLocals = (): unknown[] => [];

export const compiledHelpers: CompiledHelpers = {
  __generator: (thisArg, body, getLocals = noLocals, setLocals = () => undefined) =>
    new ResumableGenerator(thisArg, body, getLocals, setLocals),
  __values(o) {
    if (Array.isArray(o) || typeof o === 'string') return new ArrayCursor(o);
    if (o instanceof ResumableGenerator) return o;
    const iterable = o as { [Symbol.iterator]?: () => Iterator<unknown> } | null | undefined;
    const make = iterable?.[Symbol.iterator];
    if (typeof make === 'function') return make.call(o);
    throw new TypeError(`${String(o)} is not iterable`);
  },
  __assign: Object.assign,
};
