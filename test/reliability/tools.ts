/**
 * What the reliability trials (trials.ts) are made of: running a command the way a user
 * does (`node --import tsx apps/cli/bin/<tool>.ts`, in the repository, with a private temp folder
 * so that leaks can be counted), and judging what came back.
 *
 * Verdicts, as the review used them: `clean` is one line on stderr naming the problem and
 * the exit code bad input gets; `ok` is the correct result (a pass, a mismatch rightly
 * found, a partial report after a signal); `inherent` is a library crashing in its own
 * code; `defect` is anything else (a stack trace, a hang, a silent or wrong result).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Verdict = 'clean' | 'ok' | 'inherent' | 'defect';

export interface Outcome {
  readonly verdict: Verdict;
  /** what happened, in a few words */
  readonly observed: string;
}

export interface Ran {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export interface RunOptions {
  readonly env?: Record<string, string>;
  readonly timeoutMs?: number;
}

/** A trial's scratch space: its own folder, also the TMPDIR of every command it runs. */
export class Workspace {
  readonly dir: string;
  readonly tmp: string;
  private n = 0;

  constructor(readonly root: string) {
    this.dir = mkdtempSync(join(tmpdir(), 'tierlab-trials-'));
    this.tmp = join(this.dir, 'tmp');
    mkdirSync(this.tmp);
  }

  /** a fresh path inside the workspace */
  path(name: string): string {
    this.n++;
    return join(this.dir, `${this.n}-${name}`);
  }

  /** writes `text` (a string, or JSON for anything else) to a fresh file and returns its path */
  file(name: string, content: unknown): string {
    const p = this.path(name);
    writeFileSync(p, typeof content === 'string' || content instanceof Uint8Array ? content : JSON.stringify(content));
    return p;
  }

  /** a fresh, empty report folder */
  report(): string {
    return this.path('report');
  }

  /** folders tierlab left in this workspace's temp folder (tsx keeps a cache there too) */
  leftovers(): string[] {
    return readdirSync(this.tmp).filter((f) => f.startsWith('tierlab-'));
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...process.env, TMPDIR: this.tmp, FORCE_COLOR: '0', ...extra };
  }

  /** `npm run <tool> -- args`, as the node process npm runs (apps/cli/bin/<tool>.ts) */
  cli(tool: string, args: readonly string[], opts: RunOptions = {}): Ran {
    return this.node([`apps/cli/bin/${tool}.ts`, ...args], opts);
  }

  /** node --import tsx with these arguments, in the repository */
  node(args: readonly string[], opts: RunOptions = {}): Ran {
    return this.command(process.execPath, ['--import', 'tsx', ...args], opts);
  }

  command(cmd: string, args: readonly string[], opts: RunOptions = {}): Ran {
    const r = spawnSync(cmd, args, {
      cwd: this.root,
      encoding: 'utf8',
      env: this.env(opts.env),
      timeout: opts.timeoutMs ?? 120_000,
      killSignal: 'SIGKILL',
    });
    return {
      code: r.status,
      signal: r.signal,
      stdout: r.stdout ?? '',
      stderr: r.stderr ?? '',
      timedOut: r.error !== undefined && /ETIMEDOUT/.test(String(r.error)),
    };
  }

  /**
   * Starts `cmd args` (its own process group), sends `signal` to the process (`target:
   * 'process'`) or its whole group once its output (stdout or stderr) matches `when`, the
   * point in the run the trial is about, and waits for it to end. A state of the run, not
   * a time: a loaded machine only makes it come later. Safety nets: a run that never gets
   * there is killed after SIGNAL_LIMIT_MS (`signalled` false), a run that does not end
   * after the signal is killed a minute later.
   */
  interrupt(
    cmd: string,
    args: readonly string[],
    signal: NodeJS.Signals,
    when: RegExp,
    target: 'process' | 'group' = 'group',
  ): Promise<Ran & { endedMs: number; pids: number[]; signalled: boolean }> {
    return new Promise((resolve) => {
      const child = spawn(cmd, args, {
        cwd: this.root,
        env: this.env(),
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let sentAt = 0;
      let pids: number[] = [];
      const pid = child.pid ?? 0;
      let guard: NodeJS.Timeout | undefined;
      const send = (): void => {
        if (sentAt > 0 || !when.test(stdout + stderr)) return;
        pids = groupPids(pid);
        sentAt = performance.now();
        process.kill(target === 'group' ? -pid : pid, signal);
        clearTimeout(never);
        guard = setTimeout(() => process.kill(-pid, 'SIGKILL'), 60_000);
      };
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        send();
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        send();
      });
      const never = setTimeout(() => process.kill(-pid, 'SIGKILL'), SIGNAL_LIMIT_MS);
      child.on('close', (code, sig) => {
        clearTimeout(never);
        clearTimeout(guard);
        resolve({
          code,
          signal: sig,
          stdout,
          stderr,
          timedOut: sentAt === 0,
          endedMs: sentAt > 0 ? performance.now() - sentAt : 0,
          pids,
          signalled: sentAt > 0,
        });
      });
    });
  }
}

/** How long an interrupt trial waits for its run to reach the point it interrupts (a safety net). */
const SIGNAL_LIMIT_MS = 600_000;

/** Polls until none of `pids` runs, for at most `limitMs` (a safety net); returns those still running. */
export async function ended(pids: readonly number[], limitMs = 60_000): Promise<number[]> {
  const until = performance.now() + limitMs;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || performance.now() > until) return left;
    await new Promise((res) => setTimeout(res, 200));
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

export function brief(r: Ran): string {
  if (r.timedOut) return 'did not end (killed at the time limit)';
  const err = r.stderr.trim().split('\n');
  const first = err.find((l) => l.trim() !== '') ?? r.stdout.trim().split('\n').pop() ?? '';
  return `exit ${r.code ?? r.signal}${err.length > 1 ? `, ${err.length} stderr lines` : ''}: ${first.slice(0, 160)}`;
}

/** Clean when the command exited `code` with exactly one stderr line matching `line`. */
export function oneLine(r: Ran, line: RegExp, code = 2): Outcome {
  const err = r.stderr.trim();
  const good =
    !r.timedOut &&
    r.code === code &&
    err.split('\n').length === 1 &&
    line.test(err) &&
    !/\n\s+at /.test(r.stderr + r.stdout);
  return { verdict: good ? 'clean' : 'defect', observed: brief(r) };
}

/** `ok` when `good`, else a defect; `observed` says what happened either way. */
export function okIf(good: boolean, observed: string): Outcome {
  return { verdict: good ? 'ok' : 'defect', observed };
}

/** The worst of several outcomes (one trial may be several inputs). */
export function worst(outcomes: readonly Outcome[]): Outcome {
  const rank: Verdict[] = ['clean', 'ok', 'inherent', 'defect'];
  const w = outcomes.reduce((a, b) => (rank.indexOf(b.verdict) > rank.indexOf(a.verdict) ? b : a));
  return { verdict: w.verdict, observed: outcomes.map((o) => o.observed).join(' / ') };
}

/** One row of the review's table: its id, what it tries, and how to judge it now. */
export interface Trial {
  readonly id: string;
  readonly what: string;
  /** part of `npm test` (fast, and one per class of failure at least) */
  readonly ci?: boolean;
  run(w: Workspace): Outcome | Promise<Outcome>;
}
