/**
 * Runs Spin on a generated Promela model (spin_model.ts), in a temporary folder removed
 * afterwards: `spin -a`, pan.c given a high-resolution timer around its search (pan's own
 * clock has a 10 ms resolution), compiled `-O2 -DSAFETY`, run `-m1000000 -w24` as the
 * anchor's measurements were. Nothing is downloaded: Spin and the C compiler are the
 * machine's, found on the PATH, and the bench says why it skips when either is missing.
 *
 * Invariant: the folder is removed whatever happens; a run that Spin or pan reports
 * as failed (an error in the model, an assertion violated) is an error, not a row.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promelaModel } from './spin_model.js';

export interface SpinTools {
  /** `spin -V`'s line */
  readonly version: string;
  /** the C compiler's command */
  readonly cc: string;
}

export interface SpinResult {
  readonly states: number;
  readonly transitions: number;
  readonly depth: number;
  /** pan's search, CPU and wall seconds (the timer patched around it) */
  readonly searchCpuSeconds: number;
  readonly searchWallSeconds: number;
}

const run = (cmd: string, args: readonly string[], cwd?: string) =>
  spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26, timeout: 600_000 });

/** Spin and a C compiler on the PATH, or why not. */
export function spinTools(): SpinTools | { readonly missing: string } {
  const v = run('spin', ['-V']);
  if (v.error !== undefined || v.status !== 0)
    return { missing: 'spin is not on the PATH (a Debian package: apt-get install spin)' };
  for (const cc of ['gcc', 'cc', 'clang']) {
    const c = run(cc, ['--version']);
    if (c.error === undefined && c.status === 0) return { version: v.stdout.trim(), cc };
  }
  return { missing: 'no C compiler (gcc, cc or clang) on the PATH to build pan' };
}

/** The anchor's timer around pan's search (its patch_pan.sh): prints "pan-hr: search wall S cpu S". */
export function patchPan(text: string): string {
  const start = '\tstart_time = times(&start_tm);';
  const stop = '\tstop_time = times(&stop_tm);';
  const lines = text.split('\n');
  const at = (l: string): number => lines.indexOf(l);
  if (at(start) < 0 || at(stop) < 0) throw new Error('pan.c: the search timer lines were not found (another Spin?)');
  lines[at(start)] =
    `${start} clock_gettime(CLOCK_MONOTONIC, &hr_w0); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &hr_c0);`;
  lines[at(stop)] =
    `${stop} clock_gettime(CLOCK_MONOTONIC, &hr_w1); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &hr_c1); ` +
    'if (!readtrail) fprintf(stderr, "pan-hr: search wall %.6f cpu %.6f\\n", ' +
    '(hr_w1.tv_sec-hr_w0.tv_sec)+(hr_w1.tv_nsec-hr_w0.tv_nsec)/1e9, ' +
    '(hr_c1.tv_sec-hr_c0.tv_sec)+(hr_c1.tv_nsec-hr_c0.tv_nsec)/1e9);';
  return ['#include <time.h>', 'struct timespec hr_w0, hr_c0, hr_w1, hr_c1;', ...lines].join('\n');
}

function must(r: ReturnType<typeof run>, what: string): string {
  if (r.error !== undefined || r.status !== 0)
    throw new Error(
      `spin bench: ${what} failed (${r.error?.message ?? r.status}): ${(r.stderr + r.stdout).trim().slice(-400)}`,
    );
  return r.stdout + r.stderr;
}

function num(out: string, re: RegExp, what: string): number {
  const m = re.exec(out);
  if (m === null || m[1] === undefined) throw new Error(`spin bench: pan's output has no ${what}`);
  return Number(m[1]);
}

/**
 * The thread of each step of the shortest counterexample Spin finds (breadth-first) in
 * the model compiled with `defines` (e.g. BUG_FILLWAIT_QN: the #1360 race), read from
 * its trail (`spin -t` prints one "@tid" per step); null when the model holds.
 */
export function spinTrail(tools: SpinTools, model: string, defines: readonly string[]): number[] | null {
  const dir = mkdtempSync(join(tmpdir(), 'tierlab-spin-'));
  try {
    writeFileSync(join(dir, 'm.pml'), model);
    const d = defines.map((x) => `-D${x}`);
    must(run('spin', ['-a', ...d, 'm.pml'], dir), 'spin -a');
    must(run(tools.cc, ['-w', '-O2', '-DSAFETY', '-DBFS', '-o', 'pan', 'pan.c'], dir), `${tools.cc} pan.c`);
    const out = run(join(dir, 'pan'), ['-m1000000'], dir);
    if (num(out.stdout + out.stderr, /errors:\s*(\d+)/, 'error count') === 0) return null;
    const trail = must(run('spin', ['-t', ...d, 'm.pml'], dir), 'spin -t');
    return [...trail.matchAll(/@(\d+)/g)].map((m) => Number(m[1]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Spin's search of the model of `experts` experts, `loaders` loaders, a ring of `ring`;
 * with `gate`, the model with the lifecycle gate (spin_model_gate.ts).
 */
export function runSpin(tools: SpinTools, experts: number, loaders: number, ring: number, gate = false): SpinResult {
  const dir = mkdtempSync(join(tmpdir(), 'tierlab-spin-'));
  try {
    writeFileSync(join(dir, 'm.pml'), promelaModel(experts, loaders, ring, gate));
    must(run('spin', ['-a', 'm.pml'], dir), 'spin -a');
    const pan = join(dir, 'pan.c');
    writeFileSync(pan, patchPan(readFileSync(pan, 'utf8')));
    must(run(tools.cc, ['-w', '-O2', '-DSAFETY', '-o', 'pan', 'pan.c'], dir), `${tools.cc} pan.c`);
    const out = must(run(join(dir, 'pan'), ['-m1000000', '-w24'], dir), 'pan');
    const errors = num(out, /errors:\s*(\d+)/, 'error count');
    if (errors !== 0) throw new Error(`spin bench: pan found ${errors} error(s) in e${experts}-l${loaders}-r${ring}`);
    return {
      states: num(out, /(\d+) states, stored/, 'states stored'),
      transitions: num(out, /(\d+) transitions/, 'transitions'),
      depth: num(out, /depth reached (\d+)/, 'depth'),
      searchWallSeconds: num(out, /pan-hr: search wall ([\d.]+)/, 'search wall time'),
      searchCpuSeconds: num(out, /pan-hr: search wall [\d.]+ cpu ([\d.]+)/, 'search CPU time'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
