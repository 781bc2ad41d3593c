/**
 * The shape of each JSON report the HTML report reads (properties.json, mutants.json,
 * oracle-<backend>.json, bench.json): every field a section dereferences is checked, so a
 * report of another version or a hand-edited one fails here with one line naming the file
 * and the field. Each returns the report typed as the renderer's input.
 */
import { checkEach, checkShape, ReportInputError } from './json_shape.js';
import type { BenchInput, MutantsInput, OracleInput, PropertiesInput } from './report_inputs.js';

export function propertiesReport(data: unknown, file: string): PropertiesInput {
  checkShape(
    data,
    {
      date: 'string',
      seed: 'number',
      strategy: 'string',
      command: 'string',
      ok: 'boolean',
      complete: 'boolean',
      totals: 'object',
      properties: 'array',
      suites: 'array',
      coverage: 'array',
    },
    file,
  );
  const p = data as PropertiesInput;
  checkShape(
    p.totals,
    { runs: 'number', steps: 'number', seconds: 'number', stepsPerSecond: 'number', runsPerSecond: 'number' },
    file,
    'totals',
  );
  checkEach(
    p.properties,
    { id: 'string', family: 'string', statement: 'string', violations: 'number', status: 'string' },
    file,
    'properties',
  );
  checkEach(
    p.suites,
    {
      suite: 'string',
      strategy: 'string',
      runs: 'number',
      steps: 'number',
      seconds: 'number',
      violations: 'object',
      failure: 'object?',
      guarantee: 'object?',
    },
    file,
    'suites',
  );
  p.suites.forEach((s, i) => {
    if (s.failure !== null)
      checkShape(
        s.failure,
        { property: 'string', detail: 'string', choices: 'array', replay: 'string' },
        file,
        `suites[${i}].failure`,
      );
  });
  checkEach(p.coverage, { mark: 'string', runs: 'number', percent: 'number' }, file, 'coverage');
  return p;
}

const STATUSES = new Set(['killed', 'survived', 'stillborn', 'equivalent', 'inconclusive']);

export function mutantsReport(data: unknown, file: string): MutantsInput {
  checkShape(
    data,
    {
      date: 'string',
      command: 'string',
      settings: 'object',
      sources: 'object',
      wallSeconds: 'number',
      results: 'array',
    },
    file,
  );
  const m = data as MutantsInput;
  checkShape(m.sources, { commit: 'string', changed: 'array' }, file, 'sources');
  checkEach(
    m.results,
    {
      id: 'string',
      kind: 'string',
      source: 'string',
      title: 'string',
      status: 'string',
      property: 'string?',
      detail: 'string?',
      suite: 'string?',
      runsToKill: 'number?',
      secondsToKill: 'number?',
      steps: 'number?',
      choices: 'number?',
      counterexample: 'string?',
      replay: 'string?',
      matrix: 'object?',
      matrixRuns: 'number',
      runs: 'number?',
      error: 'string?',
      equivalentReason: 'string?',
    },
    file,
    'results',
  );
  m.results.forEach((r, i) => {
    if (!STATUSES.has(r.status))
      throw new ReportInputError(
        `${file}: results[${i}].status '${r.status}' is not one of ${[...STATUSES].join(', ')}`,
      );
  });
  return m;
}

export function oracleReport(data: unknown, file: string): OracleInput {
  checkShape(
    data,
    {
      date: 'string',
      backend: 'string',
      devices: 'array',
      fixture: 'string',
      library: 'string',
      tokens: 'number',
      ok: 'boolean',
      validationMessages: 'number?',
      runs: 'array',
      rawCopyGBps: 'number?',
    },
    file,
  );
  const o = data as OracleInput;
  checkEach(
    o.runs,
    {
      name: 'string',
      pass: 'boolean',
      tokensMatched: 'number',
      tokens: 'number',
      firstDivergence: 'number',
      hiddenBitIdentical: 'boolean',
      residentAtEnd: 'number',
      hitRate: 'number',
      uploads: 'number',
      uploadFailures: 'number',
      swaps: 'number',
      uploadGBps: 'number',
      tokPerSec: 'number',
      problem: 'string?',
      notes: 'array',
      residencyByToken: 'array?',
    },
    file,
    'runs',
  );
  return o;
}

export function benchReport(data: unknown, file: string): BenchInput {
  checkShape(
    data,
    {
      date: 'string',
      command: 'string',
      machine: 'object',
      speed: 'object?',
      scaling: 'array?',
      exhaustive: 'object?',
      race: 'object?',
      mutants: 'object?',
    },
    file,
  );
  const b = data as BenchInput;
  checkShape(
    b.machine,
    { cores: 'number', node: 'string', loadAverageAtStart: 'array', loadAverageAtEnd: 'array' },
    file,
    'machine',
  );
  const speed = {
    checks: 'boolean',
    stepsPerSecond: 'number',
    stepsPerCpuSecond: 'number',
    schedulesPerSecond: 'number',
    stepsPerSchedule: 'number',
    samples: 'array',
  } as const;
  if (b.speed !== undefined) {
    checkShape(b.speed, { scenario: 'string', on: 'object', off: 'object', checkerCost: 'number' }, file, 'speed');
    checkShape(b.speed.on, speed, file, 'speed.on');
    checkShape(b.speed.off, speed, file, 'speed.off');
    if (b.speed.noRefinement !== undefined)
      checkShape(b.speed.noRefinement, { ...speed, checks: 'string' }, file, 'speed.noRefinement');
  }
  if (b.scaling !== undefined) {
    checkEach(b.scaling, { dimension: 'string', value: 'number', on: 'object', off: 'object' }, file, 'scaling');
    b.scaling.forEach((r, i) => {
      checkShape(r.on, speed, file, `scaling[${i}].on`);
      checkShape(r.off, speed, file, `scaling[${i}].off`);
    });
  }
  if (b.exhaustive !== undefined) {
    checkShape(b.exhaustive, { scenario: 'string', rows: 'array', reductionFactor: 'number?' }, file, 'exhaustive');
    checkEach(
      b.exhaustive.rows,
      {
        label: 'string',
        preemptions: 'number?',
        reduction: 'boolean',
        stateCache: 'boolean',
        complete: 'boolean',
        schedules: 'number',
        states: 'number?',
        seconds: 'number',
        violations: 'array',
      },
      file,
      'exhaustive.rows',
    );
  }
  if (b.race !== undefined) {
    checkShape(
      b.race,
      { file: 'string', change: 'string', seeds: 'number', runsPerSuite: 'number', rows: 'array' },
      file,
      'race',
    );
    checkEach(
      b.race.rows,
      {
        strategy: 'string',
        seeds: 'number',
        found: 'number',
        medianRuns: 'number?',
        medianSeconds: 'number?',
        worstRuns: 'number?',
        worstSeconds: 'number?',
      },
      file,
      'race.rows',
    );
  }
  if (b.mutants !== undefined) {
    checkShape(
      b.mutants,
      {
        available: 'boolean',
        note: 'string',
        secondsPerMutant: 'number',
        jobs: 'number',
        strategies: 'array',
        rows: 'array',
        wallSeconds: 'object',
      },
      file,
      'mutants',
    );
    checkEach(b.mutants.rows, { id: 'string', byStrategy: 'object', firstKiller: 'string?' }, file, 'mutants.rows');
  }
  return b;
}
