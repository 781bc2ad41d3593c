/**
 * Sections drawn from real data: the kill matrix puts the operator mutants that are
 * equivalent by construction in their own group, one column each, every catalogue
 * property a row, and flags the rows no mutant exercised; the oracle section draws a
 * residency plot for each run whose residency moves when a report records it per token,
 * lists the steady runs in one line, and says so when a report has none; the replay command of a properties failure is read back from its report line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { equivalentResult } from '../../mutants/lib/run_mutant.js';
import { generateOperatorMutants } from '../../mutants/operators/index.js';
import { PROPERTIES } from '../../src/check/catalogue.js';
import { renderKillMatrix, unexercised } from '../../apps/report/kill_matrix.js';
import { renderOracleReport } from '../../apps/report/oracle_section.js';
import { replayFile } from '../../apps/report/properties_section.js';
import type { OracleInput } from '../../apps/report/report_inputs.js';

describe('kill matrix', () => {
  it('sets the equivalent mutants apart, one column each', () => {
    const results = generateOperatorMutants(REPO_ROOT)
      .filter((e) => e.equivalent !== undefined)
      .map(equivalentResult);
    expect(results.length).toBeGreaterThan(0);
    const statements = Object.fromEntries(PROPERTIES.map((p) => [p.id, p.statement]));
    const input = { results, matrixSeconds: 2, statements, diagramOf: () => null };
    const svg = renderKillMatrix(input);
    expect(svg.match(/<g class="hm-col"/g)?.length).toBe(results.length);
    expect(svg.match(/data-status="equivalent"/g)?.length).toBe(results.length);
    expect(svg).toContain(`equivalent (${results.length})`);
    expect(svg).not.toContain('killed (');
    // nothing was killed: every property is a row no mutant exercises
    expect(unexercised(input)).toEqual(PROPERTIES.map((p) => p.id));
  });
});

describe('oracle residency over time', () => {
  const report = JSON.parse(
    readFileSync('fixtures/reports/gpu/2026-11-29-h200x2/cuda-1gpu/oracle-cuda.json', 'utf8'),
  ) as OracleInput;

  it('says the report has no per-token residency when it has none', () => {
    const html = renderOracleReport(report);
    expect(html).toContain('does not record residency per token');
    expect(html).not.toContain('experts resident');
  });

  it('draws one plot per run whose residency moves, one point per token, and lists the steady ones', () => {
    // the shape the oracle writes: resident experts after each generated token; the first
    // run fills up over the run, the others hold what they had from the start
    const runs = report.runs.map((r, i) => ({
      ...r,
      residencyByToken: Array.from({ length: r.tokens }, (_, t) => (i === 0 ? t : r.residentAtEnd)),
    }));
    const html = renderOracleReport({ ...report, runs });
    expect(html.match(/<svg class="chart"/g)?.length).toBe(1);
    expect(html.match(/<circle class="dot-a"/g)?.length).toBe(runs[0]?.tokens);
    expect(html).toContain(`1 runs that change, ${runs.length - 1} steady`);
    for (const r of runs.slice(1)) expect(html).toContain(`${r.name} ${r.residentAtEnd}→${r.residentAtEnd}`);
  });
});

describe('replay command of a properties failure', () => {
  it('names the counterexample file', () => {
    expect(replayFile('npm run replay -- reports/counterexamples/POST-FILL-WAIT-4c9659980c.json')).toBe(
      'reports/counterexamples/POST-FILL-WAIT-4c9659980c.json',
    );
    expect(replayFile('npm run mutants -- --replay reports/mutants/a-B.json --at 1234567')).toBe(
      'reports/mutants/a-B.json',
    );
    expect(replayFile('')).toBeNull();
  });
});
