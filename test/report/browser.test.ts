/**
 * The HTML report in a real browser: Debian's Chromium, headless, driven by playwright-core
 * pointed at the system binary (nothing downloads a browser). Renders the lane diagram of
 * every committed replay and the report of a small mutants run (two catalogue mutants,
 * run here with a small budget through the mutation run's own code), and checks what a
 * reader sees: no console errors and no request leaving the file, one lane per thread,
 * every step of the trace drawn, every record in a hover text, the violating step
 * highlighted with the property's statement, one heatmap column per mutant, and a click on
 * a kill reaching its lane diagram. Screenshots go to reports/browser-test/.
 *
 * Without a browser the tests are skipped, with the reason printed; on CI (CI=true) a
 * missing browser fails, since .ci/run installs it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { loadCatalogue, REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { runPool } from '../../mutants/lib/pool.js';
import { buildMutantsReport, writeMutantsReport } from '../../mutants/lib/report.js';
import { runChild } from '../../mutants/lib/child.js';
import { tsxCommand } from '../../mutants/lib/properties_cli.js';
import { runMutant } from '../../mutants/lib/run_mutant.js';
import { makeScratch } from '../../mutants/lib/scratch.js';
import { replayToView } from '../../apps/report/counterexample_replay.js';
import { diagramAnchor } from '../../apps/report/counterexample_block.js';
import { loadReportInputs } from '../../apps/report/load_reports.js';
import type { CounterexampleView } from '../../apps/report/report_inputs.js';
import { writeCounterexampleHtml, writeHtmlReport } from '../../apps/report/write_report.js';

const CHROMIUM = process.env['TIERLAB_CHROMIUM'] ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const MUTANTS = ['fill-wait-queue-empty', 'enqueue-after-stop'];
const shots = join(REPO_ROOT, 'reports', 'browser-test');

const missing = existsSync(CHROMIUM)
  ? null
  : `no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; .ci/run installs it; TIERLAB_CHROMIUM names another binary)`;
if (missing !== null) process.stderr.write(`\n*** browser tests SKIPPED: ${missing} ***\n\n`);

function needBrowser(ctx: TestContext): void {
  if (missing === null) return;
  if (process.env['CI'] === 'true') throw new Error(`the browser tests need Chromium on CI: ${missing}`);
  ctx.skip(`SKIPPED: ${missing}`);
}

const tmp = mkdtempSync(join(tmpdir(), 'tierlab-browser-test-'));
let browser: BrowserContext | null = null;

beforeAll(async () => {
  if (missing !== null) return;
  mkdirSync(shots, { recursive: true });
  // headless adds --headless; a fresh profile, removed with tmp
  browser = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 900 },
  });
});
afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Opens a file and collects console errors, page errors and requests that leave it. */
async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  if (browser === null) throw new Error('no browser');
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file://')) errors.push(`request: ${r.url()}`);
  });
  await page.goto(`file://${file}`);
  await page.waitForLoadState('load');
  return { page, errors };
}

/** The lane diagram of `view` on the page, inside `root`, checked against the trace. */
async function checkDiagram(page: Page, root: string, view: CounterexampleView): Promise<void> {
  const steps = [...new Set(view.trace.records.map((r) => r.step))];
  for (const axis of ['step', 'time']) {
    const svg = `${root} .view-${axis} svg`;
    expect(await page.locator(`${svg} g.lane`).count(), `${axis} view lanes`).toBe(view.trace.threadNames.length);
    const drawn = new Set(
      await page
        .locator(`${svg} [data-step]`)
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-step')))),
    );
    expect(
      steps.filter((s) => !drawn.has(s)),
      `${axis} view: steps not drawn`,
    ).toEqual([]);
  }
  // every record is a line of some mark's hover text (the first line names step and thread)
  const titles = await page.locator(`${root} .view-step svg .m > title`).allTextContents();
  expect(titles.reduce((a, t) => a + t.split('\n').length - 1, 0)).toBe(view.trace.records.length);
  const last = view.trace.records.at(-1);
  if (view.violation !== null && last !== undefined) {
    expect(last.text.startsWith(`!! ${view.violation.property}`)).toBe(true);
    expect(await page.locator(`${root} .view-step [data-violation-step]`).getAttribute('data-violation-step')).toBe(
      String(last.step),
    );
    const verdict = await page.locator(`${root} .violated`).textContent();
    expect(verdict).toContain(`VIOLATED ${view.violation.property}`);
    expect(verdict).toContain(view.statement ?? '(no statement)');
  } else {
    expect(await page.locator(`${root} [data-violation-step]`).count()).toBe(0);
  }
  expect(await page.locator(`${root} code.replay`).textContent()).toBe(view.replay);
  // it says what a lane is, in a sentence and in the key
  expect(await page.locator(`${root} .how`).textContent()).toContain('Each lane is one thread');
  expect(await page.locator(`${root} .legend`).textContent()).toContain('a lane: one thread');
  // it opens on the violation: the view shown first holds the violating step, inside the box
  const first = page.locator(`${root} .axis-switch > .scroll`).first();
  expect(await first.isVisible()).toBe(true);
  if (view.violation !== null) {
    const box = await first.boundingBox();
    const band = await first.locator('[data-violation-step]').boundingBox();
    if (box === null || band === null) throw new Error('the violating step is not on screen');
    expect(band.x).toBeGreaterThanOrEqual(box.x);
    expect(band.x + band.width).toBeLessThanOrEqual(box.x + box.width + 1);
  }
}

describe('the HTML report in headless Chromium', () => {
  const replays = ['dense-gemv-after-shutdown', 'victim-reenqueued-then-abandoned'];
  for (const name of replays) {
    it(`lane diagram of the committed replay ${name}`, async (ctx) => {
      needBrowser(ctx);
      const file = `properties/replays/${name}.json`;
      const out = join(tmp, `${name}.html`);
      await writeCounterexampleHtml(file, out);
      const view = replayToView(file);
      const { page, errors } = await open(out);
      await checkDiagram(page, '.cx', view);
      // a fixed bug: it replays clean and says what it once found
      expect(await page.locator('.cx .clean').textContent()).toContain(view.property);
      await page.click('.cx label[for$="-time"]');
      expect(await page.locator('.cx .view-time').isVisible()).toBe(true);
      expect(await page.locator('.cx .view-step').isVisible()).toBe(false);
      await page.locator('.cx').screenshot({ path: join(shots, `replay-${name}.png`) });
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('properties report of a run that found a counterexample (the properties CLI on a mutant)', async (ctx) => {
    needBrowser(ctx);
    const [entry] = (await loadCatalogue()).filter((e) => e.mutant.id === 'fill-wait-queue-empty');
    if (entry === undefined) throw new Error('no catalogue mutant fill-wait-queue-empty');
    const reportDir = join(tmp, 'properties-run');
    const inScratch = join(tmp, 'properties-run-in-scratch');
    const scratch = makeScratch(REPO_ROOT, join(REPO_ROOT, 'node_modules'), entry.mutant);
    try {
      const [node, tsx] = tsxCommand(REPO_ROOT);
      const env = { ...process.env, TIERLAB_MUTANT: entry.mutant.id, FORCE_COLOR: '0' };
      // bounded by runs: the mutant falls within its first few dozen schedules
      const args = [...tsx, 'apps/cli/bin/properties.ts', '--bail', '--quiet', '--runs', '200', '--report', reportDir];
      const r = await runChild(node, args, { cwd: scratch.dir, env, timeoutMs: 600_000 });
      expect(r.rc, r.stderr).toBe(1);
      // the report built inside the scratch copy (no mutants/lib there) replays in-process
      mkdirSync(inScratch);
      cpSync(join(reportDir, 'properties.json'), join(inScratch, 'properties.json'));
      const built = await runChild(node, [...tsx, 'apps/cli/bin/report.ts', 'build', inScratch], {
        cwd: scratch.dir,
        env,
        timeoutMs: 600_000,
      });
      expect(built.rc, built.stderr + built.stdout).toBe(0);
    } finally {
      scratch.remove();
    }
    // found on a mutant outside a mutation run: no stored view, so the page replays it on
    // its mutant, as `npm run report` does
    const written = await writeHtmlReport(reportDir, { replayMutants: true });
    expect(written.problems).toEqual([]);
    const views = [...(await loadReportInputs(reportDir, { replayMutants: true })).counterexamples.values()];
    expect(views.length).toBe(1);
    const view = views[0];
    if (view === undefined) throw new Error('no counterexample view');
    const { page, errors } = await open(written.file);
    const anchor = diagramAnchor(view.file);
    expect(await page.locator(`#properties a[href="#${anchor}"]`).count()).toBe(1);
    await checkDiagram(page, `#${anchor}`, view);
    expect(view.replay).toBe(`npm run mutants -- --replay ${view.file}`);
    const step = view.trace.records.at(-1)?.step;
    expect(readFileSync(join(inScratch, 'index.html'), 'utf8')).toContain(`data-violation-step="${step}"`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('report of a small mutants run: kill matrix, links, lane diagrams of the kills', {
    timeout: 900_000,
  }, async (ctx) => {
    needBrowser(ctx);
    const out = join(tmp, 'mutants-run');
    const entries = (await loadCatalogue()).filter((e) => MUTANTS.includes(e.mutant.id));
    expect(entries.map((e) => e.mutant.id).sort()).toEqual([...MUTANTS].sort());
    const started = performance.now();
    const results = await runPool(entries, Math.min(2, cpus().length), (e) =>
      runMutant(e, {
        root: REPO_ROOT,
        outDir: out,
        // bounded by runs (both fall within a few dozen schedules); the seconds are a safety net
        runs: 200,
        seconds: 3600,
        seed: 20261129,
        matrixSeconds: 0,
        typecheck: false,
        keep: false,
      }),
    );
    writeMutantsReport(
      out,
      buildMutantsReport(results, {
        date: new Date().toISOString(),
        command: 'test/report/browser.test.ts',
        progress: { planned: results.length, finished: results.length, complete: true, interrupted: null },
        settings: { runs: 200, seconds: 3600, seed: 20261129, matrixSeconds: 0 },
        machine: { cores: cpus().length, loadAverageAtStart: loadavg() },
        sources: { commit: 'working tree', changed: [] },
        wallSeconds: (performance.now() - started) / 1000,
      }),
    );
    for (const r of results) expect(r.status, `${r.id}: ${r.error ?? ''}`).toBe('killed');

    const written = await writeHtmlReport(out);
    expect(written.problems).toEqual([]);
    const inputs = await loadReportInputs(out);
    const { page, errors } = await open(written.file);

    expect(await page.locator('#mutants svg.heatmap g.hm-col').count()).toBe(results.length);
    for (const r of results) {
      const view = r.counterexample !== null ? inputs.counterexamples.get(r.counterexample) : undefined;
      if (view === undefined || r.counterexample === null) throw new Error(`${r.id}: no replayed counterexample`);
      const anchor = diagramAnchor(r.counterexample);
      const col = page.locator(`g.hm-col[data-mutant="${r.id}"]`);
      expect(await col.locator(`a[href="#${anchor}"] rect.hm-k`).getAttribute('data-property')).toBe(r.property);
      // the diagram is collapsed until its kill is clicked
      expect(await page.locator(`#${anchor}`).isVisible()).toBe(false);
      await col.locator(`a[href="#${anchor}"]:has(rect.hm-k)`).click();
      await page.locator(`#${anchor}`).waitFor({ state: 'visible' });
      await checkDiagram(page, `#${anchor}`, view);
      if (r.id === 'fill-wait-queue-empty')
        await page.locator(`#${anchor}`).screenshot({ path: join(shots, 'mutant-lane-diagram.png') });
    }
    await page.locator('#mutants').screenshot({ path: join(shots, 'mutants-section.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
