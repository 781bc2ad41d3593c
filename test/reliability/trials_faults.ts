/**
 * The review's fault trials (J): signals to a long run, to its process group or to npm
 * alone, a mutation run and an oracle run interrupted, and the temp folders the tests
 * leave. Each runs the command for real and looks at what is left.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, ended, okIf, type Outcome, type Trial, type Workspace } from './tools.js';

const tsx = (tool: string, ...args: string[]): [string, string[]] => [
  process.execPath,
  ['--import', 'tsx', `apps/cli/bin/${tool}.ts`, ...args],
];

/** a properties run long enough to be interrupted, its report in the workspace */
const longProperties = (w: Workspace): string[] => ['--runs', '100000', '--report', w.report()];

/** the properties CLI's first progress line: its run has started */
const RUNNING = /\] mixed: running on/;
/** a mutation run's first verdict: one mutant finished, the others still running */
const FIRST_VERDICT = /^\[\s*\d+\/\d+\] [a-z-]+: /m;

async function signalGroup(w: Workspace, signal: NodeJS.Signals): Promise<Outcome> {
  const [cmd, args] = tsx('properties', ...longProperties(w));
  const r = await w.interrupt(cmd, args, signal, RUNNING, 'group');
  return okIf(
    r.endedMs < 5000 && r.pids.every((p) => !alive(p)),
    `ended ${(r.endedMs / 1000).toFixed(1)} s after ${signal} (exit ${r.code ?? r.signal})`,
  );
}

/** `npm run properties` with the signal sent to npm alone (what `kill PID` does) */
async function signalNpm(w: Workspace, signal: NodeJS.Signals): Promise<Outcome> {
  const r = await w.interrupt(
    'npm',
    ['run', '--silent', 'properties', '--', ...longProperties(w)],
    signal,
    RUNNING,
    'process',
  );
  const left = await ended(r.pids);
  return okIf(
    r.signalled && left.length === 0,
    !r.signalled
      ? 'the run never started'
      : left.length === 0
        ? `npm and the run ended after ${signal}`
        : `${left.length} processes still running a minute after ${signal}`,
  );
}

/** A catalogue-only mutation run into `out`, bounded by runs: the run the interrupt trials stop. */
function catalogueMutants(out: string): ReturnType<typeof tsx> {
  const budget = ['--runs', '200', '--seconds', '600', '--matrix-seconds', '0', '--no-baseline'];
  return tsx('mutants', '--catalogue-only', ...budget, '--jobs', '2', '--out', out);
}

export const FAULT_TRIALS: readonly Trial[] = [
  { id: 'J1', what: 'SIGINT to the process group of a long properties run', run: (w) => signalGroup(w, 'SIGINT') },
  { id: 'J2', what: 'SIGTERM to the group', run: (w) => signalGroup(w, 'SIGTERM') },
  {
    id: 'J3',
    what: 'SIGTERM to npm only (node kept running as an orphan)',
    ci: true,
    run: (w) => signalNpm(w, 'SIGTERM'),
  },
  { id: 'J4', what: 'SIGINT to npm only (the run went on)', run: (w) => signalNpm(w, 'SIGINT') },
  {
    id: 'J5',
    what: 'SIGINT during mutants --catalogue-only (scratch copies leaked, no report)',
    ci: true,
    run: async (w) => {
      const out = w.report();
      const [cmd, args] = catalogueMutants(out);
      const r = await w.interrupt(cmd, args, 'SIGINT', FIRST_VERDICT, 'process');
      const md = existsSync(join(out, 'mutants.md')) ? readFileSync(join(out, 'mutants.md'), 'utf8') : '';
      const left = w.leftovers();
      const running = await ended(r.pids);
      return okIf(
        r.code === 130 &&
          /\*\*PARTIAL\*\*: \d+ of \d+ mutants finished when the run was interrupted by SIGINT/.test(md) &&
          left.length === 0 &&
          running.length === 0,
        `exit ${r.code}; report ${md === '' ? 'missing' : 'marked partial'}; ${left.length} temp folders and ${running.length} processes left`,
      );
    },
  },
  {
    id: 'J6',
    what: 'SIGINT during oracle (a heat folder leaked, no report)',
    run: async (w) => {
      const out = w.report();
      const [cmd, args] = tsx('oracle', '--report', out);
      const r = await w.interrupt(cmd, args, 'SIGINT', /^\[\s*1\/\d+\] /m, 'process');
      const md = existsSync(join(out, 'oracle-cpu.md')) ? readFileSync(join(out, 'oracle-cpu.md'), 'utf8') : '';
      const left = w.leftovers();
      return okIf(
        r.code === 130 && /INTERRUPTED by SIGINT after \d+ of \d+ runs/.test(md) && left.length === 0,
        `exit ${r.code}; report ${md === '' ? 'missing' : 'marked interrupted'}; ${left.length} temp folders left`,
      );
    },
  },
  {
    id: 'J7',
    what: 'a mutation run killed by a time limit (no report at all)',
    run: async (w) => {
      const out = w.report();
      const [cmd, args] = catalogueMutants(out);
      const r = await w.interrupt(cmd, args, 'SIGTERM', FIRST_VERDICT, 'process');
      const json = existsSync(join(out, 'mutants.json'))
        ? (JSON.parse(readFileSync(join(out, 'mutants.json'), 'utf8')) as {
            progress: { finished: number; complete: boolean };
          })
        : null;
      const finished = json?.progress.finished ?? 0;
      return okIf(
        r.code === 143 && json !== null && !json.progress.complete && finished > 0,
        `exit ${r.code}; report with ${finished} finished mutants, marked partial`,
      );
    },
  },
  {
    id: 'J8',
    what: 'the tests leave tierlab-* folders in the temp dir',
    run: (w) => {
      const files = [
        'test/oracle/oracle_cli.test.ts',
        'test/oracle/container_errors.test.ts',
        'test/oracle/generator.test.ts',
        'test/oracle/oracle_vulkan.test.ts',
      ];
      const r = w.command(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...files], {
        timeoutMs: 600_000,
      });
      const left = w.leftovers();
      return okIf(
        r.code === 0 && left.length === 0,
        `tests exit ${r.code}; ${left.length} temp folders left${left.length > 0 ? `: ${left.slice(0, 4).join(', ')}` : ''}`,
      );
    },
  },
];
