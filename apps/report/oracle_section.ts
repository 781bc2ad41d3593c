/**
 * The oracle section, one block per backend report: the run table (tokens matched,
 * first divergence, hidden states against the CPU-only run, residency, hit rate,
 * uploads, swaps, the uploader's GB/s, tok/s, problems and notes), the Vulkan validation
 * messages, and a residency-over-time plot per run when the report records residency per
 * token (`residencyByToken`); a report without it says so instead.
 */
import { lineChart } from './charts.js';
import { el, esc, int, n, percent, table } from './html.js';
import type { OracleInput } from './report_inputs.js';

function residencyPlots(o: OracleInput): string {
  const runs = o.runs.filter((r) => r.residencyByToken !== undefined && r.residencyByToken.length > 0);
  if (runs.length === 0) {
    return el(
      'p',
      { class: 'note' },
      'Residency over time: this report does not record residency per token (no residencyByToken in its runs).',
    );
  }
  return el(
    'div',
    { class: 'charts' },
    ...runs.map((r) =>
      lineChart({
        title: r.name,
        xLabel: 'generated token',
        yLabel: 'experts resident',
        width: 300,
        height: 170,
        series: [{ name: 'resident', cls: 'a', points: (r.residencyByToken ?? []).map((v, i) => [i + 1, v] as const) }],
      }),
    ),
  );
}

export function renderOracleReport(o: OracleInput): string {
  const head = el(
    'p',
    {},
    el('b', { class: o.ok ? 'ok' : 'bad' }, o.ok ? 'all runs token-exact and bit-identical' : 'MISMATCH'),
    esc(
      ` · ${o.backend} on devices [${o.devices.join(',')}] · fixture ${o.fixture} · ${o.tokens} tokens per run · ${o.date}`,
    ),
    o.validationMessages !== null
      ? el(
          'span',
          { class: o.validationMessages === 0 ? 'ok' : 'bad' },
          esc(` · validation messages: ${o.validationMessages}`),
        )
      : '',
  );
  const rows = o.runs.map((r) => [
    esc(r.name),
    r.pass ? el('span', { class: 'ok' }, 'pass') : el('span', { class: 'bad' }, 'FAIL'),
    n(`${r.tokensMatched}/${r.tokens}`),
    n(r.firstDivergence < 0 ? '-' : String(r.firstDivergence)),
    r.hiddenBitIdentical ? 'bit-identical' : el('span', { class: 'bad' }, 'different'),
    n(String(r.residentAtEnd)),
    n(percent(r.hitRate)),
    n(`${r.uploads}${r.uploadFailures > 0 ? ` (+${r.uploadFailures} failed)` : ''}`),
    n(String(r.swaps)),
    n(r.uploadGBps.toFixed(3)),
    n(int(r.tokPerSec)),
    esc([r.problem, ...r.notes].filter((x): x is string => x !== null).join('; ')),
  ]);
  return (
    el('h3', {}, esc(`${o.backend} (${o.runs.length} runs)`)) +
    head +
    table(
      [
        'run',
        'verdict',
        'tokens',
        'first divergence',
        'hidden states vs CPU-only',
        'resident',
        'hit rate',
        'uploads',
        'swaps',
        'upload GB/s',
        'tok/s',
        'problems and notes',
      ],
      rows,
    ) +
    residencyPlots(o)
  );
}

export function renderOracleSection(oracles: readonly OracleInput[]): string {
  return oracles.map(renderOracleReport).join('\n');
}
