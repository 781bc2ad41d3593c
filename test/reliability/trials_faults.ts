/**
 * The review's fault trials (J): signals to a long run, to its process group or to npm
 * alone, a mutation run and an oracle run interrupted, and the temp folders the tests
 * leave. Each runs the command for real, sends its signal at a point of the run (its first
 * progress line, its first finished mutant or oracle run: never after so many seconds) and
 * looks at what is left.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { interruptOn, leftRunning, type SignalStep } from './interrupt.js';
import { okIf, type Outcome, type Trial, type Workspace } from './tools.js';

const tsx = (tool: string, ...args: string[]): [string, string[]] => [
  process.execPath,
  ['--import', 'tsx', `apps/cli/bin/${tool}.ts`, ...args],
];

/** a properties run long enough to be interrupted, its report in the workspace */
const longProperties = (w: Workspace): string[] => ['--runs', '100000', '--report', w.report()];
/** a properties run has started its search: its first progress line */
const SEARCHING = /running on \d+ jobs?/;
/** a mutation run has finished its first mutant: its first result line */
export const FIRST_MUTANT = /^\[\s*[1-9]\d*\/\d+\] [^\s:]+: /m;

async function signalGroup(w: Workspace, signal: NodeJS.Signals): Promise<Outcome> {
  const [cmd, args] = tsx('properties', ...longProperties(w));
  const r = await interruptOn(w, cmd, args, [{ when: SEARCHING, send: [signal], to: 'group' }]);
  const left = await leftRunning(r.pids);
  const code = signal === 'SIGINT' ? 130 : 143;
  return okIf(
    r.sent === 1 && r.code === code && left.length === 0,
    `${r.sent === 1 ? signal : 'no signal sent (no progress line)'}: exit ${r.code ?? r.signal}, ${left.length} processes left`,
  );
}

/** `npm run properties` with the signal sent to npm alone (what `kill PID` does) */
async function signalNpm(w: Workspace, signal: NodeJS.Signals): Promise<Outcome> {
  const steps: SignalStep[] = [{ when: SEARCHING, send: [signal], to: 'process' }];
  const r = await interruptOn(w, 'npm', ['run', '--silent', 'properties', '--', ...longProperties(w)], steps);
  const left = await leftRunning(r.pids);
  return okIf(
    r.sent === 1 && left.length === 0,
    r.sent !== 1
      ? `no signal sent (no progress line): exit ${r.code ?? r.signal}`
      : left.length === 0
        ? `npm and the run ended after ${signal}`
        : `${left.length} processes still running after ${signal}`,
  );
}

/** A short catalogue-only mutation run into `out`: the run the interrupt trials stop. */
function catalogueMutants(out: string): ReturnType<typeof tsx> {
  return tsx('mutants', '--catalogue-only', '--seconds', '5', '--jobs', '2', '--matrix-seconds', '0', '--out', out);
}

/** The progress a mutation run's report says it made: finished and planned, complete or not. */
function mutantsProgress(out: string): { finished: number; planned: number; complete: boolean } | null {
  const file = join(out, 'mutants.json');
  if (!existsSync(file)) return null;
  return (
    JSON.parse(readFileSync(file, 'utf8')) as { progress: { finished: number; planned: number; complete: boolean } }
  ).progress;
}

/**
 * A catalogue-only mutation run stopped by `signal` once its first mutant finished: the
 * documented end is exit 128 + the signal, the report marked PARTIAL with what finished
 * (as many as the catalogue holds planned, at least one finished), no scratch folder and
 * no child process left.
 */
async function interruptMutants(w: Workspace, signal: 'SIGINT' | 'SIGTERM'): Promise<Outcome> {
  const out = w.report();
  const [cmd, args] = catalogueMutants(out);
  const r = await interruptOn(w, cmd, args, [{ when: FIRST_MUTANT, send: [signal] }]);
  const md = existsSync(join(out, 'mutants.md')) ? readFileSync(join(out, 'mutants.md'), 'utf8') : '';
  const p = mutantsProgress(out);
  const partial = new RegExp(
    `\\*\\*PARTIAL\\*\\*: (\\d+) of (\\d+) mutants finished when the run was interrupted by ${signal}`,
  ).exec(md);
  const left = w.leftovers();
  const running = await leftRunning(r.pids);
  const good =
    r.sent === 1 &&
    r.code === (signal === 'SIGINT' ? 130 : 143) &&
    partial !== null &&
    p !== null &&
    !p.complete &&
    p.finished >= 1 &&
    p.finished < p.planned &&
    Number(partial[1]) === p.finished &&
    Number(partial[2]) === p.planned &&
    left.length === 0 &&
    running.length === 0;
  return okIf(
    good,
    `${r.sent === 1 ? signal : 'no signal sent (no mutant finished)'}: exit ${r.code ?? r.signal}; report ` +
      `${partial === null ? 'not marked partial' : `marked partial, ${partial[1]} of ${partial[2]} finished`}; ` +
      `${left.length} temp folders and ${running.length} processes left`,
  );
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
    run: (w) => interruptMutants(w, 'SIGINT'),
  },
  {
    id: 'J6',
    what: 'SIGINT during oracle (a heat folder leaked, no report)',
    run: async (w) => {
      const out = w.report();
      const [cmd, args] = tsx('oracle', '--report', out);
      // after its first run has finished: the report then has something to say
      const r = await interruptOn(w, cmd, args, [{ when: /^ok /m, send: ['SIGINT'] }]);
      const md = existsSync(join(out, 'oracle-cpu.md')) ? readFileSync(join(out, 'oracle-cpu.md'), 'utf8') : '';
      const left = w.leftovers();
      return okIf(
        r.sent === 1 &&
          r.code === 130 &&
          /INTERRUPTED by SIGINT after [1-9]\d* of \d+ runs/.test(md) &&
          left.length === 0,
        `exit ${r.code}; report ${md === '' ? 'missing' : /INTERRUPTED/.test(md) ? 'marked interrupted' : 'not marked'}; ${left.length} temp folders left`,
      );
    },
  },
  {
    id: 'J7',
    what: 'a mutation run killed by a time limit (SIGTERM; no report at all)',
    run: (w) => interruptMutants(w, 'SIGTERM'),
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
