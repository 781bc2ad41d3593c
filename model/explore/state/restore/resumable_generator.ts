/**
 * Generators whose whole state is in fields, so that a snapshot (snapshot.ts) can save it
 * and write it back: the thread code compiled for a restoring search (compile_threads.ts)
 * is downlevelled by TypeScript's generator transform, which turns each generator body
 * into a function of a label that returns one instruction at a time, and this class runs
 * those instructions. Its program counter (`label`), its try blocks, the completion a
 * `finally` is running for and the generator it delegates to are fields; the function's
 * own variables are read and written through the two closures the transform adds
 * (resume_transform.ts). A native generator keeps all of that where nothing can reach it.
 *
 * The instructions are those of TypeScript's transform: 0 next, 1 throw, 2 return,
 * 3 break (jump to a label), 4 yield, 5 yield* (delegate), 6 an exception thrown in the
 * body, 7 end of a finally block. A try block is [try, catch, finally, end] labels.
 *
 * Invariant: between two calls of next() every field is plain data or an object another
 * snapshot can walk; nothing is kept in closures of this class. Instructions and try
 * blocks are never changed once made (the compiled body pushes fresh literals), so a
 * save keeps them by reference and copies only the lists that hold them.
 */

type Instruction = [number, unknown?];

const NEXT = 0;
const THROW = 1;
const RETURN = 2;
const BREAK = 3;
const YIELD = 4;
const DELEGATE = 5;
const CAUGHT = 6;
const END_FINALLY = 7;

type Body = (this: unknown, g: ResumableGenerator) => Instruction;

export class ResumableGenerator implements Iterator<unknown> {
  label = 0;
  trys: number[][] = [];
  /** completions waiting for the finally blocks they run through */
  ops: Instruction[] = [];
  delegate: Iterator<unknown> | null = null;
  started = false;
  done = false;
  running = false;
  private sentOp: Instruction = [NEXT, undefined];

  constructor(
    private readonly thisArg: unknown,
    private readonly body: Body,
    /** the generator function's parameters and variables, in the transform's order */
    readonly getLocals: () => unknown[],
    readonly setLocals: (values: unknown[]) => void,
  ) {}

  /**
   * Appends this generator's state to `out` for a snapshot (snapshot.ts): position,
   * flags, the current instruction, the try blocks and pending completions (counted),
   * then the variables; `reach` receives every value the snapshot must look into.
   */
  saveTo(out: unknown[], reach: (v: unknown) => void): void {
    out.push(this.label, this.started, this.done, this.running, this.delegate, this.sentOp, this.trys.length);
    for (const t of this.trys) out.push(t);
    out.push(this.ops.length);
    for (const op of this.ops) {
      out.push(op);
      reach(op[1]);
    }
    reach(this.thisArg);
    reach(this.delegate);
    reach(this.sentOp[1]);
    for (const v of this.getLocals()) {
      out.push(v);
      reach(v);
    }
  }

  /** Writes back what saveTo appended at saved[at .. end). */
  restoreFrom(saved: readonly unknown[], at: number, end: number): void {
    this.label = saved[at] as number;
    this.started = saved[at + 1] as boolean;
    this.done = saved[at + 2] as boolean;
    this.running = saved[at + 3] as boolean;
    this.delegate = saved[at + 4] as Iterator<unknown> | null;
    this.sentOp = saved[at + 5] as Instruction;
    let i = at + 6;
    const tryCount = saved[i++] as number;
    this.trys.length = 0;
    for (let k = 0; k < tryCount; k++) this.trys.push(saved[i++] as number[]);
    const opCount = saved[i++] as number;
    this.ops.length = 0;
    for (let k = 0; k < opCount; k++) this.ops.push(saved[i++] as Instruction);
    this.setLocals(saved.slice(i, end));
  }

  /** what the body's last yield received, or the exception a catch block receives */
  sent(): unknown {
    if (this.sentOp[0] === THROW) throw this.sentOp[1];
    return this.sentOp[1];
  }

  next(value?: unknown): IteratorResult<unknown> {
    return this.step([NEXT, value]);
  }

  throw(e: unknown): IteratorResult<unknown> {
    return this.step([THROW, e]);
  }

  return(value?: unknown): IteratorResult<unknown> {
    return this.step([RETURN, value]);
  }

  [Symbol.iterator](): this {
    return this;
  }

  private step(start: Instruction): IteratorResult<unknown> {
    if (this.running) throw new TypeError('Generator is already running');
    let op = start;
    if (!this.started) {
      this.started = true;
      // thrown into or returned from before it started: it ends without running
      if (op[0] !== NEXT) this.done = true;
    }
    while (!this.done) {
      this.running = true;
      try {
        const fromDelegate = this.delegate !== null ? this.toDelegate(this.delegate, op) : null;
        if (fromDelegate !== null) {
          if (fromDelegate.done !== true) return fromDelegate;
          this.delegate = null;
          op = [op[0] === RETURN ? RETURN : NEXT, fromDelegate.value];
        }
        const next = this.execute(op);
        if (next !== null) {
          op = next;
          continue;
        }
        if (op[0] === YIELD) return { value: op[1], done: false };
        op = this.body.call(this.thisArg, this);
      } catch (e) {
        op = [CAUGHT, e];
        this.delegate = null;
      } finally {
        this.running = false;
      }
    }
    if (op[0] === THROW || op[0] === CAUGHT) throw op[1];
    return { value: op[0] === RETURN ? op[1] : undefined, done: true };
  }

  /** passes next/throw/return on to the delegate; null when it has no answer of its own */
  private toDelegate(d: Iterator<unknown>, op: Instruction): IteratorResult<unknown> | null {
    if (op[0] === RETURN) return d.return !== undefined ? d.return(op[1]) : { value: op[1], done: true };
    if (op[0] !== THROW) return d.next(op[1]);
    if (d.throw !== undefined) return d.throw(op[1]);
    d.return?.();
    this.delegate = null;
    throw new TypeError('the delegate of a yield* has no throw method');
  }

  /**
   * Carries out one instruction. Returns the instruction to carry out next, or null when
   * the body runs next (or, after a yield, the generator suspends: `label` moved on).
   */
  private execute(op: Instruction): Instruction | null {
    switch (op[0]) {
      case NEXT:
      case THROW:
        this.sentOp = op;
        return null;
      case YIELD:
        this.label++;
        return null;
      case DELEGATE:
        this.label++;
        this.delegate = op[1] as Iterator<unknown>;
        return [NEXT, undefined];
      case END_FINALLY: {
        const pending = this.ops.pop();
        this.trys.pop();
        return pending ?? [NEXT, undefined];
      }
      default:
        return this.leave(op);
    }
  }

  /** a return, a jump or an exception: through the innermost try block's catch and finally */
  private leave(op: Instruction): Instruction | null {
    const t = this.trys[this.trys.length - 1];
    if (t === undefined) {
      if (op[0] === BREAK) {
        this.label = op[1] as number;
        return null;
      }
      this.done = true;
      return op;
    }
    const [tryAt, catchAt, finallyAt, endAt] = t as [number, number, number, number];
    const target = op[1] as number;
    if (op[0] === BREAK && target > tryAt && target < endAt) {
      this.label = target;
      return null;
    }
    if (op[0] === CAUGHT && catchAt !== undefined && this.label < catchAt) {
      this.label = catchAt;
      this.sentOp = op;
      return null;
    }
    if (finallyAt !== undefined && this.label < finallyAt) {
      this.label = finallyAt;
      this.ops.push(op);
      return null;
    }
    if (finallyAt !== undefined) this.ops.pop();
    this.trys.pop();
    return op;
  }
}
