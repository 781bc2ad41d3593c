/**
 * Screenshots of the committed example report (reports/examples/), taken in headless
 * Chromium: the top of the page, and the lane diagram of one kill opened from the kill
 * matrix, as a reader clicks it. They are what reports/examples/README.md shows a
 * newcomer; run this after the example reports change:
 *
 *   npm run report -- build reports/examples && npx tsx scripts/example_screenshots.ts
 *
 * TIERLAB_CHROMIUM names the browser (default /usr/bin/chromium). Nothing is downloaded.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const EXAMPLES = resolve('reports', 'examples');
const CHROMIUM = process.env['TIERLAB_CHROMIUM'] ?? '/usr/bin/chromium';
/** the kill whose diagram is shown: the fill_wait race of the seed threads */
const KILL = 'fill-wait-queue-empty';

async function main(): Promise<void> {
  const page = join(EXAMPLES, 'index.html');
  if (!existsSync(page)) throw new Error(`no ${page}: run npm run report -- build reports/examples first`);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await tab.goto(pathToFileURL(page).href);
    await tab.screenshot({ path: join(EXAMPLES, 'report-top.png') });
    const kill = tab.locator(`g.hm-col[data-mutant="${KILL}"] a:has(rect.hm-k)`).first();
    const anchor = ((await kill.getAttribute('href')) ?? '').replace(/^#/, '');
    if (anchor === '') throw new Error(`the example page has no kill of ${KILL} to open`);
    await kill.click();
    await tab.locator(`#${anchor}`).waitFor({ state: 'visible' });
    await tab.locator(`#${anchor}`).screenshot({ path: join(EXAMPLES, 'lane-diagram.png') });
    process.stdout.write(`report-top.png and lane-diagram.png in ${EXAMPLES}\n`);
  } finally {
    await browser.close();
  }
}

await main();
