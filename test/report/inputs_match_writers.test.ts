/**
 * The report reads what the commands write. At compile time: each writer's report type is
 * assignable to the input type the renderer reads (inputs_fit.ts: a renamed field fails `tsc`). At run
 * time: a properties report and a bench report written by the real writers from real runs,
 * and the committed GPU oracle reports, load with no problem and render; bad input (a
 * truncated file, a field of the wrong type, an empty directory) is one line on the page
 * and in the result, and the page is still written.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeBenchReport } from '../../apps/cli/bench/bench_report.js';
import { measureSpeed } from '../../apps/cli/bench/speed.js';
import { describeScenario } from '../../model/scenario/scenario.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';
import { buildReport, writeReport } from '../../properties/report.js';
import { checkScenario, checkSuite } from '../../properties/runner.js';
import { loadReportInputs } from '../../apps/report/load_reports.js';
import { renderReportHtml, writeHtmlReport } from '../../apps/report/write_report.js';

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-report-inputs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('reports written by the commands load and render', () => {
  it('a properties report of a real run, and a bench report of a real measurement', async () => {
    const dir = join(tmp, 'run');
    const suites = (['general', 'shutdown'] as const).map((suite) => checkSuite({ suite, seed: 7, runs: 30 }));
    writeReport(
      dir,
      buildReport(suites, { seed: 7, strategy: 'choices', command: 'test', replays: new Map() }),
      suites,
    );
    const s = defaultScenario();
    const speed = (checks: boolean) => measureSpeed(s, { checks, seconds: 0.1, repeats: 1, warmupSeconds: 0.05 });
    const on = speed(true);
    const off = speed(false);
    writeBenchReport(dir, {
      date: new Date().toISOString(),
      command: 'test',
      machine: {
        cores: cpus().length,
        node: process.version,
        loadAverageAtStart: loadavg(),
        loadAverageAtEnd: loadavg(),
      },
      speed: { scenario: describeScenario(s), on, off, checkerCost: off.stepsPerSecond / on.stepsPerSecond },
    });
    const r = await writeHtmlReport(dir);
    expect(r.problems).toEqual([]);
    expect(r.found).toEqual(['properties', 'bench']);
    const html = readFileSync(r.file, 'utf8');
    for (const p of buildReport(suites, { seed: 7, strategy: 'choices', command: 'test', replays: new Map() })
      .properties)
      expect(html).toContain(p.id);
    expect(html).toContain('Simulator speed');
    expect(html).toContain('Not in this bench run: scaling, exhaustive, race, mutants');
  });

  it('a guarantee cut short by its budget is INCOMPLETE on the page, never "held"', async () => {
    const dir = join(tmp, 'cut-short');
    // a 0.99-confidence PCT bound on the default scenario takes far longer than 0.3 s
    const suite = checkScenario({
      scenario: defaultScenario(),
      seed: 7,
      runs: 1,
      strategy: 'pct',
      depth: 3,
      confidence: 0.99,
      seconds: 0.3,
    });
    expect(suite.guarantee?.complete).toBe(false);
    const report = buildReport([suite], { seed: 7, strategy: 'pct', command: 'test', replays: new Map() });
    expect(report.ok && !report.complete).toBe(true);
    writeReport(dir, report, [suite]);
    const r = await writeHtmlReport(dir);
    expect(r.problems).toEqual([]);
    const html = readFileSync(r.file, 'utf8');
    expect(html).toContain('INCOMPLETE: no violation, but a guarantee was cut short by its budget.');
    expect(html).not.toContain('All properties held.');
  });

  const gpu = 'fixtures/reports/gpu';
  const oracleDirs = existsSync(gpu)
    ? readdirSync(gpu, { recursive: true, encoding: 'utf8' })
        .filter((f) => /(^|\/)oracle-[a-z]+\.json$/.test(f))
        .map((f) => join(gpu, f, '..'))
    : [];
  it('the GPU oracle reports kept as test data (fixtures/reports/gpu/)', async () => {
    expect(oracleDirs.length).toBeGreaterThan(0);
    for (const dir of oracleDirs) {
      const inputs = await loadReportInputs(dir);
      expect(inputs.problems, dir).toEqual([]);
      expect(inputs.oracles.length, dir).toBe(1);
      const html = renderReportHtml(inputs);
      for (const run of inputs.oracles[0]?.runs ?? []) expect(html).toContain(run.name.replace(/&/g, '&amp;'));
      // a bandwidth chart is drawn only beside a raw copy of the same backend
      const raw = inputs.oracles.some((o) => o.rawCopyGBps !== undefined);
      expect(html.includes('tier uploader bandwidth'), dir).toBe(raw);
      if (!raw) expect(html).toContain('nothing to hold the');
    }
  });
});

describe('bad input is one line, and the page is still written', () => {
  it('a truncated report, a field of the wrong type, an unknown status', async () => {
    const dir = join(tmp, 'bad');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mutants.json'), '{"date": "2026-12-01", "results": [');
    writeFileSync(
      join(dir, 'properties.json'),
      JSON.stringify({
        date: 'x',
        seed: 1,
        strategy: 'choices',
        command: 'c',
        ok: true,
        complete: true,
        totals: 3,
        properties: [],
        suites: [],
        coverage: [],
      }),
    );
    writeFileSync(
      join(dir, 'oracle-cpu.json'),
      JSON.stringify({
        date: 'x',
        backend: 'cpu',
        devices: [0],
        fixture: 'f',
        library: 'l',
        tokens: 1,
        ok: true,
        validationMessages: null,
        runs: [{ name: 'r', status: 'odd' }],
      }),
    );
    const r = await writeHtmlReport(dir);
    expect(r.problems, r.problems.join('\n')).toHaveLength(3);
    expect(r.problems[0]).toMatch(/properties\.json: totals should be object, is number$/);
    expect(r.problems[1]).toMatch(/mutants\.json: cannot read a report \(not valid JSON/);
    expect(r.problems[2]).toMatch(/oracle-cpu\.json: runs\[0\]\.pass should be boolean, is undefined$/);
    for (const p of r.problems) expect(p).not.toContain('\n');
    const html = readFileSync(r.file, 'utf8');
    expect(html).toContain('3 inputs could not be shown');
  });

  it("the oracle-mutants kill table is not read as an oracle backend's report", async () => {
    const dir = join(tmp, 'kill-table');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'oracle-mutants.json'), JSON.stringify({ title: 'kill table', rows: [] }));
    const inputs = await loadReportInputs(dir);
    expect(inputs.oracles).toEqual([]);
    expect(inputs.problems).toEqual([]);
  });

  it('a directory with no report', async () => {
    const dir = join(tmp, 'empty');
    mkdirSync(dir, { recursive: true });
    const r = await writeHtmlReport(dir);
    expect(r.found).toEqual([]);
    expect(r.problems).toEqual([`no JSON report in ${dir}`]);
    expect(existsSync(join(dir, 'index.html'))).toBe(true);
  });
});
