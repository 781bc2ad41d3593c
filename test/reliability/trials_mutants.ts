/**
 * The review's trials of `npm run mutants` (D), `npm run bench` (E) and the one
 * verification gap it found (K1), re-run as the review ran them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';
import type { Gen, StagingCopy } from '../../src/ops.js';
import { okIf, oneLine, worst, type Outcome, type Trial, type Workspace } from './tools.js';
import { counterexample } from './trials_properties.js';

const M = (w: Workspace, args: readonly string[], timeoutMs = 120_000) => w.cli('mutants', args, { timeoutMs });
const refused = (w: Workspace, line: RegExp, ...args: string[]): Outcome => oneLine(M(w, args), line);

/** a catalogue folder holding one mutant, as `--catalogue-dir` reads it (id = file name) */
function catalogue(w: Workspace, id: string, patch: Record<string, string>): string {
  const dir = w.path('catalogue');
  mkdirSync(dir);
  const m = {
    id,
    title: id,
    history: 'a reliability trial',
    family: 'trial',
    expectedProperties: ['SAFE-NO-CRASH'],
    patches: [patch],
  };
  writeFileSync(join(dir, `${id}.ts`), `export const mutant = ${JSON.stringify(m, null, 1)};\n`);
  return dir;
}

const FILL_WAIT = 'src/tier/fill_wait.ts';
const FILL_WAIT_LOOP = 'while (st.inflight > 0 && !st.stop) yield WAIT_TAKE;';
/** a run of one catalogue mutant: no baseline, no sampling pass, a short budget */
const oneMutant = (dir: string, out: string, seconds = '10') => [
  '--catalogue-dir',
  dir,
  '--catalogue-only',
  '--no-baseline',
  '--matrix-seconds',
  '0',
  '--seconds',
  seconds,
  '--jobs',
  '1',
  '--out',
  out,
];

export const MUTANT_TRIALS: readonly Trial[] = [
  {
    id: 'D1',
    what: '--replay of a counterexample naming an unknown mutant (a stack trace)',
    ci: true,
    run: (w) =>
      refused(
        w,
        /mutant: no mutant 'no-such-mutant'/,
        '--replay',
        w.file('cx.json', counterexample({ mutant: 'no-such-mutant' })),
      ),
  },
  {
    id: 'D2',
    what: 'mutant id ../../../etc/passwd, or the number 5',
    run: (w) =>
      worst([
        refused(
          w,
          /mutant: "\.\.\/\.\.\/\.\.\/etc\/passwd" is not a mutant id/,
          '--replay',
          w.file('cx.json', counterexample({ mutant: '../../../etc/passwd' })),
        ),
        refused(w, /mutant: expected a string, got 5/, '--replay', w.file('cx5.json', counterexample({ mutant: 5 }))),
      ]),
  },
  {
    id: 'D3',
    what: '--replay of a missing or truncated counterexample',
    run: (w) =>
      worst([
        refused(w, /cannot read a counterexample \(missing\)/, '--replay', w.path('nope.json')),
        refused(w, /JSON/, '--replay', w.file('t.json', '{"format')),
      ]),
  },
  {
    id: 'D4',
    what: 'an upload from a null staging copy (a TypeError in the ledger)',
    run: () => {
      const none = null as unknown as StagingCopy;
      const main = function* (): Gen<void> {
        yield { k: 'upload', dev: 0, staging: none, part: 'gate', layer: 0, eid: 0 };
      };
      const r = runScenario(defaultScenario(), { strategy: new ChoicesStrategy([]), main });
      return okIf(
        r.violation?.property === 'MEM-HOST',
        `${r.violation?.property ?? 'no violation'}: ${r.violation?.detail ?? ''}`,
      );
    },
  },
  {
    id: 'D5',
    what: '--jobs 0',
    run: (w) => refused(w, /--jobs wants an integer in \[1, 1024\], got '0'/, '--jobs', '0'),
  },
  {
    id: 'D6',
    what: '--jobs abc, --jobs=-3',
    run: (w) => worst([refused(w, /--jobs wants/, '--jobs', 'abc'), refused(w, /--jobs wants/, '--jobs=-3')]),
  },
  { id: 'D7', what: '--mutant nope', run: (w) => refused(w, /no mutant 'nope'/, '--mutant', 'nope') },
  { id: 'D8', what: '--seconds abc', run: (w) => refused(w, /--seconds wants a positive number/, '--seconds', 'abc') },
  {
    id: 'D9',
    what: '--catalogue-only --operators-only',
    run: (w) => refused(w, /exclude each other/, '--catalogue-only', '--operators-only'),
  },
  {
    id: 'D10',
    what: 'a bad --strategy or --suite (blamed on the sources)',
    run: (w) =>
      worst([
        refused(w, /--strategy must be one of/, '--mutant', 'fill-wait-queue-empty', '--strategy', 'nope'),
        refused(w, /no suite 'nope'/, '--mutant', 'fill-wait-queue-empty', '--suite', 'nope'),
      ]),
  },
  {
    id: 'D11',
    what: 'the same with --no-baseline (every mutant STILLBORN)',
    run: (w) =>
      refused(
        w,
        /--strategy must be one of/,
        '--mutant',
        'fill-wait-queue-empty',
        '--strategy',
        'nope',
        '--no-baseline',
      ),
  },
  {
    id: 'D12',
    what: '--at nope (left a scratch folder behind)',
    run: (w) => {
      const line = refused(w, /--at: 'nope' names no commit/, '--at', 'nope');
      const left = w.leftovers();
      return left.length === 0 ? line : { verdict: 'defect', observed: `${line.observed}; left ${left.join(', ')}` };
    },
  },
  {
    id: 'D13',
    what: '--at=--output=FILE (truncated any file)',
    ci: true,
    run: (w) => {
      const victim = w.file('victim.txt', 'precious\n');
      const line = refused(w, /--at: '--output=.*' names no commit/, `--at=--output=${victim}`);
      const intact = readFileSync(victim, 'utf8') === 'precious\n';
      return intact ? line : { verdict: 'defect', observed: `${line.observed}; the file was overwritten` };
    },
  },
  { id: 'D14', what: '--frobnicate', run: (w) => refused(w, /Unknown option '--frobnicate'/, '--frobnicate') },
  {
    id: 'D15',
    what: '--out pointing at a file (a stack trace after the run)',
    run: (w) =>
      refused(
        w,
        /--out README\.md: .*README\.md is not a directory/,
        '--mutant',
        'fill-wait-queue-empty',
        '--out',
        'README.md',
      ),
  },
  {
    id: 'D16',
    what: 'a catalogue entry whose find text does not occur',
    run: (w) => {
      const r = M(
        w,
        oneMutant(catalogue(w, 'no-match', { file: FILL_WAIT, find: 'no such text', replace: 'x' }), w.report()),
      );
      return okIf(
        r.code === 1 && /STILLBORN: .*find text occurs 0 times/.test(r.stderr),
        `exit ${r.code}: ${/STILLBORN.*/.exec(r.stderr)?.[0] ?? ''}`,
      );
    },
  },
  {
    id: 'D17',
    what: 'a catalogue entry with a syntax error',
    run: (w) => {
      const dir = w.path('catalogue');
      mkdirSync(dir);
      writeFileSync(join(dir, 'broken.ts'), 'export const mutant = {;\n');
      return refused(w, /broken\.ts/, '--catalogue-dir', dir, '--catalogue-only', '--list');
    },
  },
  {
    id: 'D18',
    what: "a patch path with '..' (wrote outside the scratch copy)",
    ci: true,
    run: (w) => {
      const victim = w.file('victim.ts', 'precious\n');
      const dir = catalogue(w, 'escape', {
        file: `../../../../../../../..${victim}`,
        find: 'precious',
        replace: 'PWNED',
      });
      const line = refused(
        w,
        /must be a relative path inside the repository, without '\.\.'/,
        '--catalogue-dir',
        dir,
        '--catalogue-only',
        '--no-baseline',
        '--out',
        w.report(),
      );
      const intact = readFileSync(victim, 'utf8') === 'precious\n';
      return intact ? line : { verdict: 'defect', observed: `${line.observed}; the file was overwritten` };
    },
  },
  {
    id: 'D19',
    what: 'a patch that throws',
    run: (w) => {
      const dir = catalogue(w, 'throws', {
        file: FILL_WAIT,
        find: FILL_WAIT_LOOP,
        replace: `throw new Error('patched to throw'); ${FILL_WAIT_LOOP}`,
      });
      const r = M(w, oneMutant(dir, w.report()), 180_000);
      return okIf(
        /throws: killed by SAFE-NO-CRASH/.test(r.stderr),
        `exit ${r.code}: ${/throws: .*/.exec(r.stderr)?.[0] ?? r.stderr.trim().split('\n').pop() ?? ''}`,
      );
    },
  },
];

const B = (w: Workspace, ...args: string[]) => w.cli('bench', [...args, '--out', w.report()]);
const benchRefused = (w: Workspace, line: RegExp, ...args: string[]): Outcome => oneLine(B(w, ...args), line);

export const BENCH_TRIALS: readonly Trial[] = [
  {
    id: 'E1',
    what: '--only nope, --only=',
    run: (w) =>
      worst([benchRefused(w, /no section 'nope'/, '--only', 'nope'), benchRefused(w, /no section ''/, '--only=')]),
  },
  {
    id: 'E2',
    what: '--seconds 0, abc',
    run: (w) => worst(['0', 'abc'].map((s) => benchRefused(w, /--seconds wants a positive number/, '--seconds', s))),
  },
  {
    id: 'E3',
    what: '--repeats 1.5 (accepted)',
    ci: true,
    run: (w) => benchRefused(w, /--repeats wants an integer >= 1, got '1\.5'/, '--repeats', '1.5'),
  },
  {
    id: 'E4',
    what: '--race-seeds 0.5 (accepted)',
    run: (w) => benchRefused(w, /--race-seeds wants an integer >= 1, got '0\.5'/, '--race-seeds', '0.5'),
  },
  { id: 'E5', what: '--strategies nope', run: (w) => benchRefused(w, /no strategy 'nope'/, '--strategies', 'nope') },
  { id: 'E6', what: '--nope', run: (w) => benchRefused(w, /Unknown option '--nope'/, '--nope') },
  {
    id: 'E7',
    what: '--out pointing at a file (a stack trace after the run)',
    run: (w) => oneLine(w.cli('bench', ['--out', 'README.md']), /--out README\.md: .*is not a directory/),
  },
];

export const GAP_TRIALS: readonly Trial[] = [
  {
    id: 'K1',
    what: 'the body of fillWait replaced by a return (every property held)',
    run: (w) => {
      const text = readFileSync(FILL_WAIT, 'utf8');
      const body = /export function\* fillWait\([^)]*\): [^{]+\{\n([\s\S]*?)\n\}/.exec(text)?.[1];
      if (body === undefined) return { verdict: 'defect', observed: 'fillWait is not where the trial looks for it' };
      const out = w.report();
      const r = M(
        w,
        oneMutant(
          catalogue(w, 'fill-wait-noop', { file: FILL_WAIT, find: body, replace: "  return 'done' as never;" }),
          out,
          '30',
        ),
        240_000,
      );
      const killed = /fill-wait-noop: killed by (\S+)/.exec(r.stderr);
      const survived = /fill-wait-noop: SURVIVED/.test(r.stderr) && existsSync(join(out, 'mutants.json'));
      if (killed !== null) return { verdict: 'ok', observed: `killed by ${killed[1] ?? ''}` };
      return {
        verdict: 'defect',
        observed: survived ? 'SURVIVED 30 s of every suite: nothing checks that fill_wait waits' : `exit ${r.code}`,
      };
    },
  },
];
