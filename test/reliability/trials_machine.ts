/**
 * The second round's trials of the machine under tierlab (issue 32): a full report folder
 * and a full temporary directory (L2), a temporary directory that is a file (L6), garbage
 * in the documented environment variables (L7), and what a mutation run saves with one job
 * against two (L8).
 *
 * Invariants: a full folder is a small tmpfs of its own, filled to the last byte, where
 * the machine lets the trial mount one (root), else a file-size limit of 0 (`ulimit -f`,
 * every write to a file fails), else the trial is skipped and says why; a tmpfs is always
 * unmounted before the workspace is removed. The documented end of a full folder
 * (README, exit codes): exit 74, one line naming the folder and the problem, the previous
 * report as it was, no half-written file and no scratch folder left.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  brief,
  fill,
  okIf,
  oneLine,
  skipped,
  tmpfs,
  worst,
  type Outcome,
  type Ran,
  type RunOptions,
  type Trial,
  type Workspace,
} from './tools.js';

/** A folder with no room left (once `close` has filled it), and how to run a command against it. */
interface Full {
  readonly dir: string;
  /** the problem a write there meets */
  readonly problem: RegExp;
  run(w: Workspace, tool: string, args: readonly string[], opts?: RunOptions): Ran;
}

const tool = (name: string, args: readonly string[]): string[] => [
  '--import',
  'tsx',
  `apps/cli/bin/${name}.ts`,
  ...args,
];

/**
 * Runs `check` against a full folder of its own, after `prepare(dir)` has put there what
 * an earlier run left (a previous report): a filled tmpfs (unmounted after), else a folder
 * under a file-size limit of 0, else the outcome is skipped with the reason.
 */
function withFull(w: Workspace, prepare: (dir: string) => void, check: (full: Full) => Outcome): Outcome {
  const t = tmpfs(w, 1024);
  if (typeof t !== 'string') {
    try {
      prepare(t.path);
      fill(t.path);
      const run: Full['run'] = (x, name, args, opts) => x.command(process.execPath, tool(name, args), opts);
      return check({ dir: t.path, problem: /no space left on the device \(ENOSPC\)/, run });
    } finally {
      t.unmount();
    }
  }
  if (spawnSync('sh', ['-c', 'ulimit -f 0']).status !== 0) return skipped(`${t}, and a file-size limit is refused too`);
  const dir = w.path('limited');
  mkdirSync(dir);
  prepare(dir);
  return check({
    dir,
    problem: /larger than this process may write \(EFBIG\)/,
    run: (x, name, args, opts) =>
      x.command('sh', ['-c', 'ulimit -f 0; exec "$0" "$@"', process.execPath, ...tool(name, args)], opts),
  });
}

/**
 * `name` writing its report `file` into a full folder that holds a previous one: exit 74,
 * its last line naming the folder and the problem, the previous report byte for byte, no
 * half-written file beside it.
 */
function fullReport(w: Workspace, name: string, file: string, args: readonly string[]): Outcome {
  const previous = `{"previous": "${name}"}\n`;
  const prepare = (dir: string): void => {
    mkdirSync(join(dir, 'report'));
    writeFileSync(join(dir, 'report', file), previous);
  };
  return withFull(w, prepare, (full) => {
    const dir = join(full.dir, 'report');
    const r = full.run(w, name, [...args, '--report', dir], { timeoutMs: 300_000 });
    const last = r.stderr.trim().split('\n').pop() ?? '';
    const kept = readFileSync(join(dir, file), 'utf8') === previous;
    const halves = readdirSync(dir).filter((f) => f.endsWith('.part'));
    const said = last.includes(dir) && full.problem.test(last) && /previous one is left as it was/.test(last);
    return okIf(
      r.code === 74 && said && kept && halves.length === 0 && !/\n\s+at /.test(r.stderr),
      `${name}: exit ${r.code}${kept ? ', previous report kept' : ', previous report LOST'}` +
        `${halves.length > 0 ? `, ${halves.length} half-written files` : ''}: ${last.slice(0, 200)}`,
    );
  });
}

/** `name` with its temporary directory full: exit 74 naming it, nothing of its own left there. */
function fullTemp(w: Workspace, name: string, args: readonly string[]): Outcome {
  return withFull(
    w,
    () => {},
    (full) => {
      const r = full.run(w, name, [...args], { env: { TMPDIR: full.dir }, timeoutMs: 300_000 });
      const last = r.stderr.trim().split('\n').pop() ?? '';
      const left = readdirSync(full.dir).filter((f) => f.startsWith('tierlab-'));
      return okIf(
        r.code === 74 && last.includes(full.dir) && full.problem.test(last) && left.length === 0,
        `${name}: exit ${r.code}, ${left.length} scratch folders left: ${last.slice(0, 200)}`,
      );
    },
  );
}

/** The npm scripts that run a command (each starts with the environment check). */
const SCRIPTS = ['properties', 'replay', 'mutants', 'oracle', 'bench', 'native-defects', 'oracle-mutants', 'report'];

/** Garbage in documented variables, a typo of one, and what each must say. */
const GARBAGE: readonly [Record<string, string>, RegExp][] = [
  [{ TIERLAB_CPU_COPY_THREADS: 'abc' }, /TIERLAB_CPU_COPY_THREADS="abc": wants an integer in \[1, 16\]/],
  [{ TIERLAB_PIN: 'maybe' }, /TIERLAB_PIN="maybe": wants 0 or 1/],
  [{ TIERLAB_CPU_GROUP_DELAY_US: '1e9' }, /TIERLAB_CPU_GROUP_DELAY_US="1e9": wants an integer in \[0, 1000000\]/],
  [{ TIERLAB_VK_UPLOAD: 'fast' }, /TIERLAB_VK_UPLOAD="fast": wants staged or mapped/],
  [{ TIERLAB_PINN: '1' }, /TIERLAB_PINN="1": is no tierlab variable/],
];

/**
 * Mutants of the catalogue whose counterexamples shrink from long schedules (one from 45
 * choices), each killed within a few hundred runs; their budget is runs, the seconds only
 * a safety net, so which schedule is found never depends on how busy the machine is.
 */
const L8_MUTANTS = ['abandon-frees-victim', 'budget-by-payload', 'driver-already-as-fresh-start', 'shutdown-no-wake'];
const L8_BUDGET = ['--runs', '2000', '--seconds', '3600', '--matrix-seconds', '0'];

/** The files a mutation run saved into `out`, with the fields that say when, how long and where taken out. */
function savedFiles(out: string): Map<string, string> {
  const files = new Map<string, string>();
  const timeless = (k: string, v: unknown): unknown =>
    /^(date|command|machine|wallSeconds|secondsToKill|counterexample|replay)/.test(k) || k === 'jobs' ? undefined : v;
  files.set('mutants.json', JSON.stringify(JSON.parse(readFileSync(join(out, 'mutants.json'), 'utf8')), timeless));
  const dir = join(out, 'mutants');
  for (const f of existsSync(dir) ? readdirSync(dir).sort() : [])
    files.set(`mutants/${f}`, readFileSync(join(out, 'mutants', f), 'utf8'));
  return files;
}

export const MACHINE_TRIALS: readonly Trial[] = [
  {
    id: 'L2a',
    what: 'a full report folder for properties and the oracle (exit 70, a truncated properties.json, the old report lost)',
    run: (w) =>
      worst([
        fullReport(w, 'properties', 'properties.json', ['--runs', '5']),
        fullReport(w, 'oracle', 'oracle-cpu.json', ['--only', 'one expert, cold']),
      ]),
  },
  {
    id: 'L2b',
    what: "a full temporary directory for mutants, native-defects, oracle-mutants, bench and the oracle's heat files",
    run: (w) =>
      worst([
        fullTemp(w, 'mutants', ['--catalogue-only', '--seconds', '5', '--out', w.report()]),
        fullTemp(w, 'native_defects', ['--report', w.report()]),
        fullTemp(w, 'oracle_mutants', ['--report', w.report()]),
        fullTemp(w, 'bench', [
          '--only',
          'mutants',
          '--strategies',
          'random',
          '--mutant-seconds',
          '5',
          '--out',
          w.report(),
        ]),
        fullTemp(w, 'oracle', ['--only', 'warm heat file', '--report', w.report()]),
      ]),
  },
  {
    id: 'L6a',
    what: 'TMPDIR a file, for every npm run command (a stack trace from the loader before tierlab ran)',
    ci: true,
    run: (w) => {
      const file = w.file('not-a-folder', 'x');
      return worst(
        SCRIPTS.map((s) =>
          oneLine(
            w.command('npm', ['run', '--silent', s, '--', '--help'], { env: { TMPDIR: file } }),
            /the temporary directory .* \(TMPDIR\) is not a folder; set TMPDIR to a writable folder/,
            74,
          ),
        ),
      );
    },
  },
  {
    id: 'L7a',
    what: 'garbage in documented variables (TIERLAB_CPU_COPY_THREADS=abc, TIERLAB_PIN=maybe, ..._DELAY_US=1e9) and a typo',
    ci: true,
    run: (w) =>
      worst(
        GARBAGE.flatMap(([env, line]) => [
          oneLine(w.cli('properties', ['--runs', '1', '--report', w.report()], { env }), line),
          oneLine(w.cli('oracle', ['--report', w.report()], { env }), line),
        ]),
      ),
  },
  {
    id: 'L8a',
    what: 'mutants --jobs 1 and --jobs 2 with the same seed (different counterexamples saved, 7 against 5 choices)',
    run: (w) => {
      const outs = ['1', '2'].map((jobs) => {
        const out = w.report();
        const args = [...L8_MUTANTS.flatMap((m) => ['--mutant', m]), '--seed', '11', ...L8_BUDGET, '--no-baseline'];
        const r = w.cli('mutants', [...args, '--jobs', jobs, '--out', out], { timeoutMs: 600_000 });
        return { r, files: r.code === 0 ? savedFiles(out) : new Map<string, string>() };
      });
      const [one, two] = outs;
      if (one === undefined || two === undefined) return { verdict: 'defect', observed: 'no runs' };
      const names = [...new Set([...one.files.keys(), ...two.files.keys()])];
      const differ = names.filter((n) => one.files.get(n) !== two.files.get(n));
      return okIf(
        one.r.code === 0 && two.r.code === 0 && one.files.size > 1 && differ.length === 0,
        `exit ${one.r.code} and ${two.r.code}; ${one.files.size - 1} counterexamples saved, ` +
          `${differ.length === 0 ? 'the same files' : `differ: ${differ.slice(0, 4).join(', ')}`}` +
          `${one.r.code !== 0 ? `; ${brief(one.r)}` : ''}`,
      );
    },
  },
];
