/**
 * The one scenario parser (model/scenario/scenario_json.ts) against bad scenarios: each
 * row changes one field of properties/scenarios/default.json the way the reliability
 * review did (B1-B24) and must be refused with the JSON path of the field; the commands
 * that read scenarios (`--scenario`, `npm run replay`, `npm run mutants -- --replay`)
 * turn that into one line and exit 2. Every scenario the generators make must parse
 * back to itself. (A scenario at the size caps running to its end inside the step limit,
 * so that LIVE-STEPS never blames a long scenario on the tier: scenario_caps.nightly.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../model/scenario/scenario_json.js';
import { scenarioArb, SUITES } from '../../properties/arbitraries.js';
import { InputError } from '../../src/input/input_error.js';

const base = JSON.parse(readFileSync('properties/scenarios/default.json', 'utf8')) as Record<string, unknown>;
const routes = base.routes as number[][][];

/** [review row, change to default.json, the JSON path the error must name] */
const BAD: readonly (readonly [string, Record<string, unknown>, string])[] = [
  ['B1 no device', { devices: 0, budgetExperts: [], capacityExperts: [] }, 'devices'],
  ['B2 ring 0', { ringCapacity: 0 }, 'ringCapacity'],
  ['B3 ring -1', { ringCapacity: -1 }, 'ringCapacity'],
  ['B4 negative budget', { budgetExperts: [-1, -1] }, 'budgetExperts[0]'],
  ['B5 budget as text', { budgetExperts: ['lots', 'lots'] }, 'budgetExperts[0]'],
  ['B6 topk above experts', { topk: 9 }, 'topk'],
  ['B7 a billion experts', { experts: 1e9 }, 'experts'],
  ['B8 a million devices', { devices: 1e6 }, 'devices'],
  ['B9 budgets for fewer devices', { budgetExperts: [3] }, 'budgetExperts'],
  [
    'B10 route to a missing expert',
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
    'B11 an expert routed twice',
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
  ['B12 a route that is a number', { routes: [5] }, 'routes[0]'],
  ['B13 no layer', { layers: 0 }, 'layers'],
  ['B14 negative weights', { weightBytes: [-1, -1, -1] }, 'weightBytes[0]'],
  ['B15 no loader', { loaders: 0 }, 'loaders'],
  ['B16 unknown warmstart', { warmstart: 'bogus' }, 'warmstart'],
  ['B19 faults as text', { faults: 'garbage' }, 'faults'],
  ['B20 unknown shutdown phase', { shutdownAt: { phase: 'nope' } }, 'shutdownAt.phase'],
  ['B21 a fraction of a device', { devices: 1.5 }, 'devices'],
  ['B22 ring null', { ringCapacity: null }, 'ringCapacity'],
  ['B23 swap period 0', { swapPeriod: 0 }, 'swapPeriod'],
  ['B23 decay period 0', { decayPeriod: 0 }, 'decayPeriod'],
  ['B24 100 000 tokens', { routes: Array.from({ length: 100_000 }, () => routes[0]) }, 'routes'],
  ['slots past the cap', { layers: 64, experts: 32 }, 'experts'],
  ['an unknown key', { extra: 1 }, ''],
  ['a fault site that does not exist', { faults: { uploadFails: [], meteorStrike: [1] } }, 'faults'],
  ['more threads than the limit (8 loaders in 2 runs)', { loaders: 8, runs: 2 }, 'loaders'],
];

function problemOf(data: unknown): string {
  try {
    parseScenario(data, 'S.json');
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  return '(accepted)';
}

describe('bad scenarios are refused with the JSON path of the field', () => {
  for (const [row, change, path] of BAD) {
    it(row, () => {
      const message = problemOf({ ...base, ...change });
      expect(message).toMatch(new RegExp(`^S\\.json: ${path.replace(/[[\].]/g, '\\$&')}${path === '' ? '' : ':'}`));
      expect(message.split('\n')).toHaveLength(1);
    });
  }

  it('B17 a scenario with only devices and routes names the first missing key', () => {
    expect(problemOf({ devices: 2, routes })).toMatch(/^S\.json: missing key "layers"$/);
  });

  it('accepts the committed scenarios and B25 (no tokens)', () => {
    expect(problemOf(base)).toBe('(accepted)');
    expect(problemOf({ ...base, routes: [], refillAfterToken: -1 })).toBe('(accepted)');
  });
});

describe('the generators and the parser agree', () => {
  it('every generated scenario survives a JSON round trip unchanged', () => {
    for (const suite of SUITES) {
      for (const s of fc.sample(scenarioArb(suite), { seed: 7, numRuns: 150 })) {
        expect(parseScenario(JSON.parse(JSON.stringify(s)), suite)).toEqual(s);
      }
    }
  });
});

describe('the commands that read scenarios say what is wrong in one line and exit 2', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tierlab-scenario-test-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const scenarioFile = join(tmp, 'bad.json');
  writeFileSync(
    scenarioFile,
    JSON.stringify({
      ...base,
      routes: [
        [
          [0, 99],
          [1, 2],
        ],
      ],
    }),
  );
  const cxFile = join(tmp, 'bad-cx.json');
  const cx = {
    format: 'tierlab-counterexample',
    version: 1,
    property: 'MEM-DEVICE',
    detail: '',
    mutant: null,
    choices: [],
  };
  writeFileSync(cxFile, JSON.stringify({ ...cx, scenario: { ...base, ringCapacity: -1 } }));
  const cases: readonly (readonly [string, string[], RegExp])[] = [
    [
      'properties --scenario',
      ['apps/cli/bin/properties.ts', '--scenario', scenarioFile, '--report', tmp],
      /^properties: --scenario .*bad\.json: routes\[0\]\[0\]\[1\]: 99 is out of range \[0, 7\]$/,
    ],
    [
      'replay',
      ['apps/cli/bin/replay.ts', cxFile],
      /^replay: .*bad-cx\.json: scenario\.ringCapacity: -1 is out of range \[1, 64\]$/,
    ],
    [
      'mutants --replay',
      ['apps/cli/bin/mutants.ts', '--replay', cxFile],
      /^mutants: .*bad-cx\.json: scenario\.ringCapacity: -1 is out of range/,
    ],
  ];
  for (const [name, args, line] of cases) {
    it(name, () => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(line);
    });
  }
});
