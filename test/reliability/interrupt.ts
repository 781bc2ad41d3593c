/**
 * Interrupting a command at a point of its run, for the fault and signal trials: a signal
 * goes when the command has reached a state (it printed its first progress line, it made
 * its first scratch folder, it finished its first mutant), never after so many
 * milliseconds, so a busy machine only makes a trial take longer, never changes its
 * verdict. After the command ends, the processes of its group are polled until they end.
 *
 * Invariants: steps fire in order, each once, as soon as its condition holds (output is
 * matched on every chunk, the workspace polled on a short tick); the pids of the group
 * are taken when the first step fires, so the trial can tell whether a child outlived the
 * command. The only clocks are safety nets (`guardPolls`): a command that never reaches a
 * step is killed after them and the trial fails on the missing signal (`sent` tells how
 * many steps fired), and a process that never ends is reported as left running.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Ran, RunOptions, Workspace } from './tools.js';

/** How often conditions on the workspace are looked at, and processes polled. */
const TICK_MS = 50;
/** The safety net of a command that never reaches its next step, in ticks (10 minutes). */
const GUARD_TICKS = 12_000;

/** When a step fires: on output that matches, or on a state of the workspace (polled). */
export type When = RegExp | ((w: Workspace) => boolean);

/** One step of an interruption: once `when` holds, send `send` (in order) to the process or its group. */
export interface SignalStep {
  readonly when: When;
  readonly send: readonly NodeJS.Signals[];
  /** the process alone (what `kill PID` does; the default) or its whole group (what Ctrl-C does) */
  readonly to?: 'process' | 'group';
}

/** What an interrupted command did: how it ended, the pids of its group when the first step fired, the steps fired. */
export type Interrupted = Ran & { readonly pids: readonly number[]; readonly sent: number };

/** The first step: when the command has made a scratch folder (a `tierlab-*` folder in its temporary directory). */
export const madeScratch = (w: Workspace): boolean => w.leftovers().length > 0;

function holds(when: When, w: Workspace, out: string): boolean {
  return typeof when === 'function' ? when(w) : when.test(out);
}

/**
 * Starts `cmd args` in the workspace (its own process group) and sends each step's
 * signals once the step's condition holds; resolves when the command has ended.
 */
export function interruptOn(
  w: Workspace,
  cmd: string,
  args: readonly string[],
  steps: readonly SignalStep[],
  opts: RunOptions = {},
): Promise<Interrupted> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: w.root,
      env: w.env(opts.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid ?? 0;
    let stdout = '';
    let stderr = '';
    let next = 0;
    let ticks = 0;
    let pids: number[] = [];
    const step = (): void => {
      for (let s = steps[next]; s !== undefined && holds(s.when, w, stdout + stderr); s = steps[next]) {
        if (next === 0) pids = groupPids(pid);
        for (const signal of s.send) send(s.to === 'group' ? -pid : pid, signal);
        next++;
      }
    };
    const timer = setInterval(() => {
      step();
      if (++ticks > GUARD_TICKS) send(-pid, 'SIGKILL');
    }, TICK_MS);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      step();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      step();
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      resolve({ code, signal, stdout, stderr, timedOut: ticks > GUARD_TICKS, pids, sent: next });
    });
  });
}

function send(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // it ended already
  }
}

/** The pids in process group `pgid` (from ps). */
export function groupPids(pgid: number): number[] {
  const r = spawnSync('ps', ['-e', '-o', 'pid=,pgid='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([p, g]) => g === pgid && p !== undefined && p > 0)
    .map(([p]) => p ?? 0);
}

/** Whether process `pid` still runs (a zombie, ended but not yet reaped, does not). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The processes of `pids` still running once they have had every chance to end: polled
 * until none runs, up to a safety net of a minute (a process a signal did not end keeps
 * running for ever, so the net only bounds how long the trial waits to say so).
 */
export async function leftRunning(pids: readonly number[]): Promise<number[]> {
  for (let i = 0; i < 1200 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, TICK_MS));
  return pids.filter(alive);
}
