/**
 * Child processes with a wall-clock limit: a mutant can make the simulated world loop
 * forever without yielding (no step limit can stop code between two yields), so every
 * child gets a deadline, after which its process group is killed.
 *
 * Each child leads its own process group (so a deadline kills what it started too), which
 * also keeps a Ctrl-C from reaching it: every child still running when this process ends
 * (a signal, an error, the end of `main`) is killed with its group by the one clean-up
 * registry (src/input/cleanup.ts), before the scratch folders it works in are removed.
 */
import { spawn } from 'node:child_process';
import { atExitStop } from '../../src/input/cleanup.js';

export interface ChildResult {
  readonly rc: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly wallSeconds: number;
}

export interface ChildOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  /** pass output through to ours (replays) instead of capturing it */
  readonly inherit?: boolean;
}

/** Keeps the last `max` characters of a stream (a crashing child may print a lot). */
function tail(max: number): { add(chunk: Buffer): void; text(): string } {
  let buf = '';
  return {
    add(chunk) {
      buf += chunk.toString('utf8');
      if (buf.length > 2 * max) buf = buf.slice(-max);
    },
    text: () => buf.slice(-max),
  };
}

/** process groups of the children still running */
const running = new Set<number>();
/** whether the registry knows to kill them */
let stopRegistered = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Kills every child this process started that is still running, with what it started. */
export function killAllChildren(): void {
  for (const pid of running) killGroup(pid);
}

export function runChild(cmd: string, args: readonly string[], opts: ChildOptions): Promise<ChildResult> {
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: opts.inherit === true ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      // its own process group, so a timeout kills it and anything it started
      detached: true,
    });
    const out = tail(64_000);
    const err = tail(64_000);
    child.stdout?.on('data', (c: Buffer) => out.add(c));
    child.stderr?.on('data', (c: Buffer) => err.add(c));
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    if (!stopRegistered) {
      stopRegistered = true;
      atExitStop(killAllChildren);
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) killGroup(pid);
    }, opts.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      reject(e);
    });
    child.on('close', (rc, signal) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      resolvePromise({
        rc,
        signal,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        wallSeconds: (performance.now() - started) / 1000,
      });
    });
  });
}
