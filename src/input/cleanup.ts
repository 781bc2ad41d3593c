/**
 * The one registry of what a process must undo before it ends (child processes to kill,
 * scratch folders to remove) and the one handler of SIGINT, SIGTERM and SIGHUP: a command
 * interrupted by any of them, once or again and again, kills what it started, writes what
 * it finished (its `onInterrupt` actions) and removes every scratch folder it made, then
 * exits 128 + the signal's number (130, 143, 129).
 *
 * Invariants: the handlers are installed once per process and stay installed until it
 * exits, so a repeated signal during the clean-up finds a handler that does nothing (the
 * first one is still at work) instead of the default action that would kill the process
 * half-way; every action is synchronous and runs at most once (it is taken out of the
 * registry before it is called, so a clean-up that is re-entered or fails part-way never
 * runs an action twice, and one action's failure does not stop the others); the same
 * clean-up runs when the process exits any other way (an error, the end of `main`).
 * A scratch folder's children get a temporary directory inside it (`childTmp`), so what
 * a child leaves when it is killed goes with the folder.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvironmentError, environmentProblem } from './environment_error.js';

export const SIGNAL_EXIT = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
export type HandledSignal = keyof typeof SIGNAL_EXIT;

type Action = () => void;
/** run first: stop what is still running (child processes) */
const stoppers = new Set<Action>();
/** run on a signal, after the stoppers: write what finished */
const interrupts = new Set<(signal: HandledSignal) => void>();
/** run last: remove scratch folders */
const removers = new Set<Action>();
let exitHooked = false;
let signalsInstalled = false;
let ending: HandledSignal | null = null;

function runOnce<T extends unknown[]>(set: Set<(...a: T) => void>, ...args: T): void {
  for (const fn of [...set]) {
    set.delete(fn);
    try {
      fn(...args);
    } catch (e) {
      // one failed action must not keep the others from running; say what it was
      process.stderr.write(`clean-up: ${(e as Error).message.split('\n')[0] ?? ''}\n`);
    }
  }
}

/** Kills what is running and removes every scratch folder now (each action once). */
export function runCleanups(): void {
  runOnce(stoppers);
  runOnce(removers);
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', runCleanups);
}

function register<F>(set: Set<F>, fn: F): () => void {
  hookExit();
  set.add(fn);
  return () => {
    set.delete(fn);
  };
}

/** `fn` stops something still running (a child's process group) before the process ends; returns its removal. */
export function atExitStop(fn: Action): () => void {
  return register(stoppers, fn);
}

/** `fn` removes something (a scratch folder) when the process ends; returns its removal. */
export function atExitRemove(fn: Action): () => void {
  return register(removers, fn);
}

/** `fn(signal)` writes what finished when a signal interrupts the process; returns its removal. */
export function onInterrupt(fn: (signal: HandledSignal) => void): () => void {
  return register(interrupts, fn);
}

function handle(signal: HandledSignal): void {
  // a repeated signal: the first one's clean-up is under way, and ends the process
  if (ending !== null) return;
  ending = signal;
  runOnce(stoppers);
  runOnce(interrupts, signal);
  runOnce(removers);
  process.exit(SIGNAL_EXIT[signal]);
}

/** Installs the handlers of SIGINT, SIGTERM and SIGHUP (once per process; later calls do nothing). */
export function installSignalHandlers(): void {
  if (signalsInstalled) return;
  signalsInstalled = true;
  hookExit();
  for (const signal of Object.keys(SIGNAL_EXIT) as HandledSignal[]) process.on(signal, () => handle(signal));
}

/** The signal the process is ending on, or null. */
export function interruptedBy(): HandledSignal | null {
  return ending;
}

export interface ScratchDir {
  readonly dir: string;
  /** removes it now (idempotent) */
  remove(): void;
}

/** Removes `dir` and everything in it; a child killed a moment ago may still be closing a file there. */
export function removeTree(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
}

/**
 * A new folder `tierlab-<prefix>XXXXXX` in the temporary directory, removed when the
 * process ends however it ends. A temporary directory that cannot hold it (full, not a
 * folder, read-only) is an EnvironmentError naming it.
 */
export function scratchDir(prefix: string): ScratchDir {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), `tierlab-${prefix}`));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const problem = environmentProblem(code) ?? code ?? (e as Error).message;
    throw new EnvironmentError(tmpdir(), `cannot make a scratch folder in the temporary directory: ${problem}`);
  }
  const unregister = atExitRemove(() => removeTree(dir));
  return {
    dir,
    remove: () => {
      unregister();
      removeTree(dir);
    },
  };
}

/**
 * Makes `scratch`/tmp, the temporary directory for the commands run inside `scratch`:
 * whatever they leave there goes when `scratch` is removed, even if they are killed. The
 * TypeScript loader's compile cache of this process's temporary directory is linked in,
 * so a child does not compile the sources again.
 */
export function childTmp(scratch: string): string {
  const tmp = join(scratch, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const cache = `tsx-${process.geteuid?.() ?? 'user'}`;
  if (existsSync(join(tmpdir(), cache)) && !existsSync(join(tmp, cache))) {
    symlinkSync(join(tmpdir(), cache), join(tmp, cache), 'dir');
  }
  return tmp;
}
