/**
 * The C tier's stress program (native/tier/stress/tier_stress.c) as the benchmark runs it:
 * the method C tier authors use today (real threads, random sleeps in the fake backend's
 * hooks, many iterations), plain or under ThreadSanitizer, until its first failure.
 *
 * What counts as found: a failed check of the program (printed as "iteration N ..."), a
 * ThreadSanitizer report (it halts at the first), a crash, or a hang: the program names
 * each iteration on stderr as it starts (--progress), and a run that names no new one for
 * HANG_SECONDS is killed and reported as hung in the iteration it was in. That watchdog
 * is the one clock here, as it is in the method itself: a hang is only ever seen by a
 * caller's timeout. Its seconds are counted in the time to find.
 */
import { spawn } from 'node:child_process';

/** no new iteration for this long: the run is hung (an iteration takes milliseconds) */
export const HANG_SECONDS = 10;

export interface StressOptions {
  readonly iterations: number;
  readonly sleepUs: number;
  readonly seed: number;
}

export interface StressResult {
  /** 'failed' (a check), 'tsan', 'crashed', 'hung', or 'clean' (nothing in the budget) */
  readonly outcome: 'failed' | 'tsan' | 'crashed' | 'hung' | 'clean';
  /** iterations run, the failing one included */
  readonly iterations: number;
  readonly seconds: number;
  /** the first failure's line (empty when clean) */
  readonly what: string;
}

interface Seen {
  started: number;
  lastProgress: number;
  failure: string;
  tsan: string;
}

function onStderr(seen: Seen, text: string): void {
  for (const line of text.split('\n')) {
    const m = /^iteration (\d+)$/.exec(line);
    if (m !== null) {
      seen.started = Number(m[1]) + 1;
      seen.lastProgress = performance.now();
    } else if (seen.tsan === '' && line.includes('WARNING: ThreadSanitizer:')) {
      seen.tsan = line.replace(/^.*WARNING: ThreadSanitizer: /, '').replace(/ \(pid=\d+\)/, '');
    }
  }
}

function verdict(seen: Seen, hung: boolean, code: number | null, signal: string | null, seconds: number): StressResult {
  const iterations = seen.started;
  if (hung) return { outcome: 'hung', iterations, seconds, what: `no return within ${HANG_SECONDS} s` };
  if (seen.tsan !== '') return { outcome: 'tsan', iterations, seconds, what: seen.tsan };
  if (seen.failure !== '') return { outcome: 'failed', iterations, seconds, what: seen.failure };
  if (signal !== null || (code !== 0 && code !== 1))
    return { outcome: 'crashed', iterations, seconds, what: signal ?? `exit ${String(code)}` };
  return { outcome: 'clean', iterations, seconds, what: '' };
}

/** Runs one stress program to its first failure or the end of its budget. */
export function runStress(program: string, o: StressOptions): Promise<StressResult> {
  const args = ['--iterations', String(o.iterations), '--sleep-us', String(o.sleepUs), '--seed', String(o.seed)];
  const child = spawn(program, [...args, '--stop-at-first', '--progress'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TSAN_OPTIONS: 'halt_on_error=1' },
  });
  const t0 = performance.now();
  const seen: Seen = { started: 0, lastProgress: t0, failure: '', tsan: '' };
  let hung = false;
  child.stderr.setEncoding('utf8').on('data', (d: string) => onStderr(seen, d));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const m = /^iteration \d+ \(seed \d+\): (.*)$/m.exec(d);
    if (m !== null && seen.failure === '') seen.failure = m[1] ?? '';
  });
  const watchdog = setInterval(() => {
    if (performance.now() - seen.lastProgress < HANG_SECONDS * 1000) return;
    hung = true;
    child.kill('SIGKILL');
  }, 250);
  return new Promise((resolve, reject) => {
    child.on('error', (e) => {
      clearInterval(watchdog);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearInterval(watchdog);
      resolve(verdict(seen, hung, code, hung ? null : signal, (performance.now() - t0) / 1000));
    });
  });
}
