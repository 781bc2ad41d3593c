/**
 * The oracle section, one block per backend report: the run table (tokens matched,
 * first divergence, hidden states against the CPU-only run, residency, hit rate,
 * uploads, swaps, the uploader's GB/s, tok/s, problems and notes), the Vulkan validation
 * messages, and residency over time when the report records it per token
 * (`residencyByToken`), folded: plots for the runs where it moves, one line for the steady
 * ones; a report without it says so instead.
 */
import { lineChart } from './charts.js';
import { el, esc, int, n, percent, table } from './html.js';
import type { OracleInput } from './report_inputs.js';

/** A residency that moves by fewer experts than this over a run is steady: its plot would be a flat line. */
const STEADY_SPREAD = 2;

/** A chart title that fits its chart (about 6.5 px a character); the full name is the chart's tooltip. */
function fit(name: string, width: number): string {
  const max = Math.floor((width - 60) / 6.5);
  return name.length <= max ? name : `${name.slice(0, max - 1)}…`;
}

/**
 * Residency over time, folded: a plot only for the runs whose residency moves (swaps,
 * streaming, a fill cut short); the steady ones in one line each, as first -> last.
 */
function residencyPlots(o: OracleInput): string {
  const runs = o.runs.filter((r) => r.residencyByToken !== undefined && r.residencyByToken.length > 0);
  if (runs.length === 0) {
    return el(
      'p',
      { class: 'note' },
      'Residency over time: this report does not record residency per token (no residencyByToken in its runs).',
    );
  }
  const spread = (xs: readonly number[]): number => Math.max(...xs) - Math.min(...xs);
  const moving = runs.filter((r) => spread(r.residencyByToken ?? []) >= STEADY_SPREAD);
  const steady = runs.filter((r) => spread(r.residencyByToken ?? []) < STEADY_SPREAD);
  const width = 300;
  const plots = moving.map((r) =>
    el(
      'figure',
      { class: 'plot', title: r.name },
      lineChart({
        title: fit(r.name, width),
        xLabel: 'generated token',
        yLabel: 'experts resident',
        width,
        height: 170,
        series: [{ name: 'resident', cls: 'a', points: (r.residencyByToken ?? []).map((v, i) => [i + 1, v] as const) }],
      }),
    ),
  );
  const steadyLine =
    steady.length === 0
      ? ''
      : el(
          'p',
          { class: 'note' },
          esc(
            `Steady (residency moved by less than ${STEADY_SPREAD} experts, no plot): ${steady
              .map((r) => `${r.name} ${r.residencyByToken?.[0] ?? '?'}→${r.residencyByToken?.at(-1) ?? '?'}`)
              .join('; ')}.`,
          ),
        );
  return el(
    'details',
    {},
    el('summary', {}, esc(`Residency over time: ${moving.length} runs that change, ${steady.length} steady`)),
    moving.length > 0 ? el('div', { class: 'charts' }, ...plots) : '',
    steadyLine,
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
    el('h3', {}, esc(`${o.backend}${o.tier === 'c' ? ', the C tier' : ''} (${o.runs.length} runs)`)) +
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
