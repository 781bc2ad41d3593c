/**
 * The review's trials of `npm run properties` flags (A), scenario JSON (B) and
 * counterexample files for `npm run replay` (C), each re-run as the review ran it.
 */
import { readFileSync } from 'node:fs';
import { okIf, oneLine, worst, type Outcome, type Trial, type Workspace } from './tools.js';

const scenario = JSON.parse(readFileSync('properties/scenarios/default.json', 'utf8')) as Record<string, unknown>;
const routes = scenario.routes as number[][][];

/** a counterexample file around `over` (scenario changes), with these fields changed */
export function counterexample(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'tierlab-counterexample',
    version: 1,
    property: 'POST-FILL-WAIT',
    detail: '',
    mutant: null,
    scenario,
    choices: [],
    ...over,
  };
}

/** `npm run properties -- args` with its report in the workspace */
function P(w: Workspace, ...args: string[]) {
  return w.cli('properties', [...args, '--report', w.report()], { timeoutMs: 60_000 });
}

const refused = (w: Workspace, line: RegExp, ...args: string[]): Outcome => oneLine(P(w, ...args), line);

export const FLAG_TRIALS: readonly Trial[] = [
  { id: 'A1', what: '--runs -1', run: (w) => refused(w, /ambiguous/, '--runs', '-1') },
  { id: 'A2', what: '--runs=-1', run: (w) => refused(w, /--runs wants an integer >= 1, got '-1'/, '--runs=-1') },
  { id: 'A3', what: '--runs abc', run: (w) => refused(w, /--runs wants an integer >= 1, got 'abc'/, '--runs', 'abc') },
  {
    id: 'A4',
    what: '--runs 1.5 (it never ended)',
    ci: true,
    run: (w) => refused(w, /--runs wants an integer >= 1, got '1\.5'/, '--runs', '1.5', '--suite', 'general'),
  },
  {
    id: 'A5',
    what: '--runs 0 (a PASS of 0 runs)',
    ci: true,
    run: (w) => refused(w, /--runs wants an integer >= 1, got '0'/, '--runs', '0'),
  },
  {
    id: 'A6',
    what: '--runs= (read as 0)',
    run: (w) => refused(w, /--runs wants an integer >= 1, got ''/, '--runs=', '--suite', 'general'),
  },
  { id: 'A7', what: '--runs Infinity', run: (w) => refused(w, /--runs wants an integer/, '--runs', 'Infinity') },
  {
    id: 'A8',
    what: '--runs 0x10',
    run: (w) => {
      const r = P(w, '--runs', '0x10', '--suite', 'general');
      return okIf(
        r.code === 0 && /PASS: 16 runs/.test(r.stdout),
        `exit ${r.code}: ${r.stdout.trim().split('\n').pop() ?? ''}`,
      );
    },
  },
  {
    id: 'A9',
    what: '--seconds abc',
    run: (w) => refused(w, /--seconds wants a positive number of seconds, got 'abc'/, '--seconds', 'abc'),
  },
  {
    id: 'A10',
    what: '--seconds -5, --seconds=-5',
    run: (w) =>
      worst([
        refused(w, /ambiguous/, '--seconds', '-5'),
        refused(w, /--seconds wants a positive number/, '--seconds=-5'),
      ]),
  },
  {
    id: 'A11',
    what: '--seconds 0 (a PASS of 0 runs)',
    ci: true,
    run: (w) =>
      refused(w, /--seconds wants a positive number of seconds, got '0'/, '--seconds', '0', '--suite', 'general'),
  },
  {
    id: 'A12',
    what: '--seed abc',
    run: (w) => refused(w, /--seed wants an integer in \[0, 4294967295\]/, '--seed', 'abc'),
  },
  {
    id: 'A13',
    what: '--seed 1.5',
    run: (w) => refused(w, /--seed wants an integer in \[0, 4294967295\], got '1\.5'/, '--seed', '1.5'),
  },
  {
    id: 'A14',
    what: '--seed 1e30, --seed 4294967296 (aliased to seed 0)',
    run: (w) =>
      worst([
        refused(w, /--seed wants an integer in \[0, 4294967295\]/, '--seed', '1e30'),
        refused(w, /--seed wants/, '--seed', '4294967296'),
      ]),
  },
  { id: 'A15', what: '--bogus', run: (w) => refused(w, /Unknown option '--bogus'/, '--bogus') },
  {
    id: 'A16',
    what: '--runs with no value',
    run: (w) => oneLine(w.cli('properties', ['--report', w.report(), '--runs']), /argument missing/),
  },
  { id: 'A17', what: '--property NOPE', run: (w) => refused(w, /no property 'NOPE'; known: /, '--property', 'NOPE') },
  { id: 'A18', what: '--suite nope', run: (w) => refused(w, /no suite 'nope'; known: /, '--suite', 'nope') },
  { id: 'A19', what: '--strategy nope', run: (w) => refused(w, /--strategy must be one of/, '--strategy', 'nope') },
  {
    id: 'A20',
    what: '--strategy pct --depth 0 / 1.5',
    run: (w) =>
      worst(
        ['0', '1.5'].map((d) => refused(w, /--depth wants an integer in \[1, 16\]/, '--strategy', 'pct', '--depth', d)),
      ),
  },
  {
    id: 'A21',
    what: '--confidence 1, abc, or without --scenario',
    run: (w) =>
      worst([
        refused(w, /--confidence wants a number in \(0, 1\)/, '--strategy', 'pct', '--confidence', '1'),
        refused(w, /--confidence wants a number in \(0, 1\)/, '--strategy', 'pct', '--confidence', 'abc'),
        refused(w, /--confidence needs --strategy pct and --scenario FILE/, '--strategy', 'pct', '--confidence', '0.9'),
      ]),
  },
  {
    id: 'A22',
    what: '--preemptions=-1; --preemptions or --state-cache without exhaustive',
    run: (w) =>
      worst([
        refused(w, /--preemptions wants an integer >= 0 or 'inf'/, '--strategy', 'exhaustive', '--preemptions=-1'),
        refused(w, /are for --strategy exhaustive/, '--preemptions', '2'),
        refused(w, /are for --strategy exhaustive/, '--state-cache'),
      ]),
  },
  {
    id: 'A23',
    what: '--scenario F --suite general',
    run: (w) => refused(w, /drop --suite/, '--scenario', 'properties/scenarios/default.json', '--suite', 'general'),
  },
  {
    id: 'A24',
    what: '--scenario missing, a directory, truncated JSON, [], a counterexample with scenario null',
    run: (w) =>
      worst([
        refused(w, /cannot read a scenario \(missing\)/, '--scenario', w.path('missing.json')),
        refused(w, /is a directory, not a file/, '--scenario', 'properties'),
        refused(w, /JSON/, '--scenario', w.file('t.json', '{"devices": 2, "lay')),
        refused(w, /expected an object, got an array/, '--scenario', w.file('a.json', [])),
        refused(
          w,
          /scenario: expected an object, got null/,
          '--scenario',
          w.file('n.json', counterexample({ scenario: null })),
        ),
      ]),
  },
  {
    id: 'A25',
    what: '--report pointing at a file (a stack trace after the run)',
    ci: true,
    run: (w) =>
      oneLine(
        w.cli('properties', ['--runs', '5', '--report', 'README.md']),
        /--report README\.md: .*README\.md is not a directory/,
      ),
  },
  {
    id: 'A26',
    what: '--report /proc/x (hung)',
    run: (w) =>
      oneLine(
        w.cli('properties', ['--runs', '5', '--report', '/proc/x'], { timeoutMs: 30_000 }),
        /--report \/proc\/x: cannot write there/,
      ),
  },
  {
    id: 'A27',
    what: 'a PCT guarantee cut short by --seconds (said PASS, exit 0)',
    ci: true,
    run: (w) => {
      const r = P(
        w,
        '--strategy',
        'pct',
        '--depth',
        '3',
        '--confidence',
        '0.99',
        '--scenario',
        'properties/scenarios/default.json',
        '--seconds',
        '2',
      );
      return okIf(
        r.code === 4 && /^INCOMPLETE: /m.test(r.stdout),
        `exit ${r.code}: ${r.stdout.trim().split('\n').pop() ?? ''}`,
      );
    },
  },
  {
    id: 'A28',
    what: "a mutant's counterexample given to --scenario (no note)",
    ci: true,
    run: (w) => {
      const r = P(
        w,
        '--scenario',
        w.file('cx.json', counterexample({ mutant: 'fill-wait-queue-empty' })),
        '--runs',
        '20',
      );
      return okIf(
        r.code === 0 && /note: .* was found on mutant "fill-wait-queue-empty"/.test(r.stderr),
        `exit ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}`,
      );
    },
  },
  {
    id: 'A29',
    what: '--runs 1.5 with --strategy random / pct',
    run: (w) =>
      worst(
        ['random', 'pct'].map((s) =>
          refused(w, /--runs wants an integer >= 1, got '1\.5'/, '--runs', '1.5', '--strategy', s),
        ),
      ),
  },
];

/** [id, what, the change to default.json, the JSON path the one line must name] */
const BAD_SCENARIOS: readonly (readonly [string, string, Record<string, unknown>, string])[] = [
  ['B1', 'devices: 0', { devices: 0, budgetExperts: [], capacityExperts: [] }, 'devices'],
  ['B2', 'ringCapacity: 0', { ringCapacity: 0 }, 'ringCapacity'],
  ['B3', 'ringCapacity: -1', { ringCapacity: -1 }, 'ringCapacity'],
  ['B4', 'budgetExperts: [-1, -1]', { budgetExperts: [-1, -1] }, 'budgetExperts[0]'],
  ['B5', 'budgetExperts as strings (a fake SYNC-DISCIPLINE)', { budgetExperts: ['lots', 'lots'] }, 'budgetExperts[0]'],
  ['B6', 'topk 9 of 8 experts', { topk: 9 }, 'topk'],
  ['B7', 'experts: 1e9 (out of memory)', { experts: 1e9 }, 'experts'],
  ['B8', 'devices: 1e6 (hung)', { devices: 1e6 }, 'devices'],
  ['B9', 'budgets for 1 of 2 devices', { budgetExperts: [3] }, 'budgetExperts'],
  [
    'B10',
    'a route to expert 99 of 8 (a fake SAFE-NO-CRASH)',
    {
      routes: [
        [
          [0, 99],
          [1, 2],
        ],
        ...routes.slice(1),
      ],
    },
    'routes[0][0][1]',
  ],
  [
    'B11',
    'one expert routed twice',
    {
      routes: [
        [
          [1, 1],
          [1, 2],
        ],
        ...routes.slice(1),
      ],
    },
    'routes[0][0]',
  ],
  ['B12', 'routes: [5]', { routes: [5] }, 'routes[0]'],
  ['B13', 'layers: 0', { layers: 0 }, 'layers'],
  ['B14', 'weightBytes: [-1, -1, -1]', { weightBytes: [-1, -1, -1] }, 'weightBytes[0]'],
  ['B15', 'loaders: 0 with a planned warmstart', { loaders: 0 }, 'loaders'],
  ['B16', 'warmstart: "bogus"', { warmstart: 'bogus' }, 'warmstart'],
  ['B18', 'spuriousWakeups: 1e9', { spuriousWakeups: 1e9 }, 'spuriousWakeups'],
  ['B19', 'faults: "garbage"', { faults: 'garbage' }, 'faults'],
  ['B20', 'shutdownAt: {phase: "nope"}', { shutdownAt: { phase: 'nope' } }, 'shutdownAt.phase'],
  ['B21', 'devices: 1.5', { devices: 1.5 }, 'devices'],
  ['B22', 'ringCapacity: null', { ringCapacity: null }, 'ringCapacity'],
  ['B23', 'swapPeriod: 0, decayPeriod: 0', { swapPeriod: 0, decayPeriod: 0 }, 'swapPeriod'],
  ['B24', '100 000 tokens (a fake LIVE-STEPS)', { routes: Array.from({ length: 100_000 }, () => routes[0]) }, 'routes'],
];

const path = (p: string): string => p.replace(/[[\].]/g, '\\$&');

export const SCENARIO_TRIALS: readonly Trial[] = [
  ...BAD_SCENARIOS.map(
    ([id, what, change, at]): Trial => ({
      id,
      what,
      run: (w) =>
        refused(
          w,
          new RegExp(`--scenario .*: ${path(at)}: `),
          '--scenario',
          w.file(`${id}.json`, { ...scenario, ...change }),
          '--runs',
          '50',
        ),
    }),
  ),
  {
    id: 'B17',
    what: 'only devices and routes (a TypeError)',
    run: (w) =>
      refused(
        w,
        /--scenario .*: missing key "layers"/,
        '--scenario',
        w.file('B17.json', { devices: 2, routes }),
        '--runs',
        '50',
      ),
  },
  {
    id: 'B25',
    what: 'routes: [] (legal)',
    run: (w) => {
      const r = P(
        w,
        '--scenario',
        w.file('B25.json', { ...scenario, routes: [], refillAfterToken: -1 }),
        '--runs',
        '50',
      );
      return okIf(r.code === 0 && /^PASS: 50 runs/m.test(r.stdout), `exit ${r.code}`);
    },
  },
];

/** `npm run replay -- FILE` on a counterexample made of these changes */
function R(w: Workspace, over: Record<string, unknown> | string) {
  const file = typeof over === 'string' ? w.file('cx.json', over) : w.file('cx.json', counterexample(over));
  return w.cli('replay', [file]);
}
const replayRefused = (w: Workspace, line: RegExp, over: Record<string, unknown> | string): Outcome =>
  oneLine(R(w, over), line);

export const REPLAY_TRIALS: readonly Trial[] = [
  {
    id: 'C1',
    what: 'truncated JSON',
    run: (w) => replayRefused(w, /cannot read a counterexample \(.*JSON/, '{"format": "tierlab-counterexample", "ver'),
  },
  { id: 'C2', what: 'an empty file', run: (w) => replayRefused(w, /Unexpected end of JSON input/, '') },
  {
    id: 'C3',
    what: '[] and 42',
    run: (w) =>
      worst([
        replayRefused(w, /not a tierlab counterexample/, '[]'),
        replayRefused(w, /not a tierlab counterexample/, '42'),
      ]),
  },
  {
    id: 'C4',
    what: 'choices "0,1", [0, "1"], [1.5], [-1]',
    run: (w) => worst(['0,1', [0, '1'], [1.5], [-1]].map((choices) => replayRefused(w, /choices/, { choices }))),
  },
  {
    id: 'C5',
    what: 'choices out of range (replayed another schedule)',
    ci: true,
    run: (w) =>
      worst([
        replayRefused(w, /choices\[0\]: 999 is out of range/, { choices: [999, 999, 999, 12345678] }),
        replayRefused(w, /choice 0 is 5, but that choice point has \d options/, { choices: [5, 5, 5] }),
      ]),
  },
  {
    id: 'C6',
    what: '1 000 000 choices; a choice of 2^53+10',
    run: (w) =>
      worst([
        replayRefused(
          w,
          /choices: the schedule has 1000000 choices, but the run reaches only \d+ choice points|choices: 1000000 choices exceed/,
          { choices: new Array(1_000_000).fill(0) },
        ),
        replayRefused(
          w,
          /choices\[0\]: expected an integer/,
          `${JSON.stringify(counterexample()).slice(0, -3)}[9007199254741002]}`,
        ),
      ]),
  },
  {
    id: 'C7',
    what: 'version "1"',
    run: (w) => replayRefused(w, /version "1"; want format "tierlab-counterexample", version 1/, { version: '1' }),
  },
  {
    id: 'C8',
    what: 'format "other"',
    run: (w) => replayRefused(w, /not a tierlab counterexample \(format "other"/, { format: 'other' }),
  },
  {
    id: 'C9',
    what: 'no scenario key',
    run: (w) => replayRefused(w, /missing key "scenario"/, { scenario: undefined }),
  },
  {
    id: 'C10',
    what: 'scenario null, "x", {} (TypeError, RangeError)',
    run: (w) =>
      worst([
        replayRefused(w, /scenario: expected an object, got null/, { scenario: null }),
        replayRefused(w, /scenario: expected an object, got the string "x"/, { scenario: 'x' }),
        replayRefused(w, /scenario: missing key "devices"/, { scenario: {} }),
      ]),
  },
  {
    id: 'C11',
    what: 'an unknown mutant id in a plain replay',
    run: (w) => {
      const r = R(w, { mutant: 'no-such-mutant' });
      return okIf(r.code === 0 && /this counterexample needs its mutant applied/.test(r.stdout), `exit ${r.code}`);
    },
  },
  {
    id: 'C12',
    what: 'terminal escapes in property and scenario.warmstart (printed raw)',
    ci: true,
    run: (w) =>
      worst([
        replayRefused(w, /property: "\\u001b.*" is not a catalogued property/, { property: '\u001b]0;pwned\u0007' }),
        replayRefused(w, /scenario\.warmstart: expected one of/, { scenario: { ...scenario, warmstart: '\u001b[2J' } }),
        replayRefused(w, /mutant: ".*" is not a mutant id/, { mutant: '\u001b[2Jx' }),
      ]),
  },
  {
    id: 'C13',
    what: 'two files (the second ignored)',
    run: (w) =>
      oneLine(
        w.cli('replay', [
          'properties/replays/dense-gemv-after-shutdown.json',
          'properties/replays/victim-reenqueued-then-abandoned.json',
        ]),
        /wants one counterexample file, got 2/,
      ),
  },
  { id: 'C14', what: 'no file', run: (w) => oneLine(w.cli('replay', []), /wants one counterexample file, got 0/) },
  {
    id: 'C15',
    what: 'a missing file, a directory',
    run: (w) =>
      worst([
        oneLine(w.cli('replay', [w.path('nope.json')]), /cannot read a counterexample \(missing\)/),
        oneLine(w.cli('replay', ['properties']), /is a directory, not a file/),
      ]),
  },
  { id: 'C16', what: '--bogus', run: (w) => oneLine(w.cli('replay', ['--bogus']), /Unknown option '--bogus'/) },
  {
    id: 'C17',
    what: 'a bare scenario',
    run: (w) => oneLine(w.cli('replay', ['properties/scenarios/default.json']), /not a tierlab counterexample/),
  },
];
