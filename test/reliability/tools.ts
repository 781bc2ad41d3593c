/**
 * What the reliability trials (trials.ts) are made of: running a command the way a user
 * does (`node --import tsx apps/cli/bin/<tool>.ts`, in the repository, with a private temp folder
 * so that leaks can be counted), and judging what came back.
 *
 * Verdicts, as the review used them: `clean` is one line on stderr naming the problem and
 * the exit code bad input gets; `ok` is the correct result (a pass, a mismatch rightly
 * found, a partial report after a signal); `inherent` is a library crashing in its own
 * code; `defect` is anything else (a stack trace, a hang, a silent or wrong result);
 * `skipped` is a trial this machine cannot stage (a tmpfs without the right to mount
 * one), with the reason.
 *
 * Interruptions are bounded by events, never by time: interrupt.ts sends its signals when
 * the command reaches a point of its run, so a slow machine only takes longer.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Verdict = 'clean' | 'ok' | 'inherent' | 'defect' | 'skipped';

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

  /** A named pipe, or a symbolic link to `kind.link`, at a fresh path in the workspace. */
  special(name: string, kind: 'fifo' | { link: string }): string {
    const p = this.path(name);
    if (kind === 'fifo') spawnSync('mkfifo', [p]);
    else spawnSync('ln', ['-s', kind.link, p]);
    return p;
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
      // a safety net: a command that hangs is a defect, one that is merely slow is not
      timeout: opts.timeoutMs ?? 600_000,
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

/** A trial this machine cannot stage, and why. */
export function skipped(why: string): Outcome {
  return { verdict: 'skipped', observed: `skipped: ${why}` };
}

/** Whether `text` holds a control character a terminal would act on (a newline and a tab are text). */
export function hasControl(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if ((c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e)) return true;
  }
  return false;
}

/**
 * A tmpfs of `kib` KiB mounted in the workspace (root only; `ro` read-only), for the
 * full-disk trials; a string says why it cannot be had here.
 */
export function tmpfs(w: Workspace, kib: number, ro = false): { path: string; unmount(): void } | string {
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  const path = w.path('tmpfs');
  mkdirSync(path);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k${ro ? ',ro' : ''}`, 'tmpfs', path], {
    encoding: 'utf8',
  });
  if (r.status !== 0) return `mount -t tmpfs failed: ${(r.stderr ?? '').trim() || `exit ${r.status}`}`;
  return { path, unmount: () => void spawnSync('umount', ['-l', path]) };
}

/** Fills the file system of `dir` until it has no byte left. */
export function fill(dir: string): void {
  spawnSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
}

/** `ok` when `good`, else a defect; `observed` says what happened either way. */
export function okIf(good: boolean, observed: string): Outcome {
  return { verdict: good ? 'ok' : 'defect', observed };
}

/** The worst of several outcomes (one trial may be several inputs). */
export function worst(outcomes: readonly Outcome[]): Outcome {
  const rank: Verdict[] = ['skipped', 'clean', 'ok', 'inherent', 'defect'];
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
