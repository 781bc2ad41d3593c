/**
 * The second round's interruption trials (issue 32, L3): every command that makes scratch
 * folders (mutants, oracle-mutants, native-defects, the oracle's heat files, bench) is
 * sent SIGINT, SIGTERM, SIGHUP, and a signal repeated back to back (the clean-up must not
 * be cut short by the second one), each once it has made its scratch folders. The
 * documented end (README, "Signals"): exit 128 + the signal's number (one of the signals
 * sent back to back: they arrive together), no stack trace, no `tierlab-*` folder left in the temporary
 * directory and no process of its group left running.
 *
 * Invariant: the signal goes when the command's temporary directory holds as many scratch
 * folders as it makes at once (its copy and a child's, where it has children), a state,
 * never a time, so a busy machine cannot make a trial pass or fail.
 */
import { interruptOn, leftRunning } from './interrupt.js';
import { okIf, worst, type Outcome, type Trial, type Workspace } from './tools.js';

const EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * One interruption: the signals sent (back to back) once the command holds its scratch
 * folders, and those sent again when it says it is cleaning up (`again`: its
 * "interrupted by" line), a second signal in the middle of the first one's clean-up.
 */
interface Round {
  readonly first: readonly NodeJS.Signals[];
  readonly again?: { readonly when: RegExp; readonly send: readonly NodeJS.Signals[] };
}

/** Each signal once, then one repeated with others on top. */
const ROUNDS: readonly Round[] = [
  { first: ['SIGINT'] },
  { first: ['SIGTERM'] },
  { first: ['SIGHUP'] },
  { first: ['SIGINT', 'SIGINT', 'SIGTERM', 'SIGHUP'] },
];

interface Command {
  readonly tool: string;
  /** its arguments, given the workspace (its report folder there) */
  args(w: Workspace): string[];
  /** how many scratch folders it holds at once once it is under way */
  readonly folders: number;
  /** further rounds for this command alone */
  readonly rounds?: readonly Round[];
}

/** `cmd` interrupted as `round` says once it holds its scratch folders. */
async function interruptOnce(w: Workspace, c: Command, round: Round): Promise<Outcome> {
  const args = ['--import', 'tsx', `apps/cli/bin/${c.tool}.ts`, ...c.args(w)];
  const when = (x: Workspace): boolean => x.leftovers().length >= c.folders;
  const steps = [{ when, send: round.first }, ...(round.again !== undefined ? [round.again] : [])];
  const r = await interruptOn(w, process.execPath, args, steps);
  const running = await leftRunning(r.pids);
  const left = w.leftovers();
  // signals sent back to back reach the process together, in an order it cannot know:
  // it ends on one of them; one sent during the clean-up changes nothing
  const codes = round.first.map((x) => EXIT[x]);
  const trace = /\n\s+at /.test(r.stderr);
  const sent = [round.first, ...(round.again !== undefined ? [round.again.send] : [])]
    .slice(0, r.sent)
    .map((x) => x.join('+'))
    .join(', then ');
  const said = `${sent}: exit ${r.code ?? r.signal}, ${left.length} folders and ${running.length} processes left`;
  return okIf(
    r.sent === steps.length &&
      r.code !== null &&
      codes.includes(r.code) &&
      left.length === 0 &&
      running.length === 0 &&
      !trace,
    r.sent > 0
      ? `${said}${trace ? ', a stack trace' : ''}`
      : `no signal sent (never held ${c.folders} scratch folders)`,
  );
}

/** One trial per command: the four interruptions in turn, the worst of them its verdict. */
function signalTrial(id: string, c: Command, ci = false): Trial {
  return {
    id,
    what: `SIGINT, SIGTERM, SIGHUP and a repeated signal to ${c.tool.replace('_', '-')} holding its scratch folders`,
    ...(ci ? { ci } : {}),
    run: async (w) => {
      const outcomes: Outcome[] = [];
      for (const round of [...ROUNDS, ...(c.rounds ?? [])]) outcomes.push(await interruptOnce(w, c, round));
      return worst(outcomes);
    },
  };
}

export const SIGNAL_TRIALS: readonly Trial[] = [
  signalTrial('L3a', {
    tool: 'mutants',
    // the run's snapshot of the sources and a mutant's copy
    args: (w) => ['--catalogue-only', '--seconds', '5', '--jobs', '2', '--matrix-seconds', '0', '--out', w.report()],
    folders: 2,
    // the review's case: a second SIGINT or SIGTERM while the first one's clean-up runs
    rounds: [
      { first: ['SIGINT'], again: { when: /interrupted by SIGINT/, send: ['SIGINT'] } },
      { first: ['SIGTERM'], again: { when: /interrupted by SIGTERM/, send: ['SIGTERM', 'SIGINT'] } },
    ],
  }),
  signalTrial('L3b', {
    tool: 'oracle_mutants',
    // the snapshot and the control's oracle child's folder (its own temporary directory inside)
    args: (w) => ['--report', w.report()],
    folders: 2,
  }),
  signalTrial('L3c', {
    tool: 'native_defects',
    // the control build of native/
    args: (w) => ['--report', w.report()],
    folders: 1,
  }),
  signalTrial(
    'L3d',
    {
      tool: 'oracle',
      // a run's heat files
      args: (w) => ['--report', w.report()],
      folders: 1,
    },
    true,
  ),
  signalTrial('L3e', {
    tool: 'bench',
    // a mutation strategy's scratch copy
    args: (w) => [
      '--only',
      'mutants',
      '--strategies',
      'random',
      '--mutant-seconds',
      '5',
      '--jobs',
      '1',
      '--out',
      w.report(),
    ],
    folders: 1,
  }),
];
