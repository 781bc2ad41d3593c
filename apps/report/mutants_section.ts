/**
 * The mutants section: the run's score per set (catalogue, operators), the kill matrix
 * heatmap with its colour key, the properties no mutant exercised, the mutants that were
 * not killed (survivors, stillborn or inconclusive, equivalents: each with its reason),
 * the table of kills with links to their lane diagrams, the Stryker score of the tier
 * sources when its report is there, and the lane diagram of every kill (collapsed).
 */
import { el, esc, int, n, percent, secs, table } from './html.js';
import { renderKillMatrix, unexercised } from './kill_matrix.js';
import { diagramAnchor, renderCounterexample } from './counterexample_block.js';
import type { CounterexampleView, MutantInput, MutantsInput, StrykerInput } from './report_inputs.js';
import { killColourKey } from './time_scale.js';

function score(rs: readonly MutantInput[]): string {
  const judged = rs.filter((r) => r.status === 'killed' || r.status === 'survived').length;
  const killed = rs.filter((r) => r.status === 'killed').length;
  return judged === 0 ? '-' : percent(killed / judged);
}

function summaryRow(name: string, rs: readonly MutantInput[]): string[] {
  const count = (s: string): string => String(rs.filter((r) => r.status === s).length);
  return [
    name,
    String(rs.length),
    count('killed'),
    count('survived'),
    count('equivalent'),
    count('stillborn'),
    count('inconclusive'),
    score(rs),
  ];
}

export function strykerBlock(s: StrykerInput | null): string {
  if (s === null)
    return el(
      'p',
      { class: 'note' },
      'No Stryker report (reports/stryker/mutation.json): `npm run stryker` writes one.',
    );
  return (
    el(
      'p',
      {},
      el('b', {}, `Stryker mutation score of the tier sources: ${s.score === null ? '-' : percent(s.score)}`),
      esc(
        ` (${s.killed} killed + ${s.timeout} timed out of ${s.killed + s.timeout + s.survived + s.noCoverage} counted; ${s.survived} survived, ${s.noCoverage} without coverage; ${s.excluded} errors or ignored not counted) from ${s.file}`,
      ),
    ) +
    el(
      'details',
      {},
      el('summary', {}, `per file (${s.byFile.length})`),
      table(
        ['file', 'detected', 'undetected', 'score'],
        s.byFile.map((f) => [
          esc(f.file),
          n(String(f.detected)),
          n(String(f.undetected)),
          n(f.score === null ? '-' : percent(f.score)),
        ]),
      ),
    )
  );
}

export function renderMutantsSection(
  m: MutantsInput,
  ctx: {
    statements: Readonly<Record<string, string>>;
    views: ReadonlyMap<string, CounterexampleView>;
    stryker: StrykerInput | null;
  },
): string {
  const cat = m.results.filter((r) => r.kind === 'catalogue');
  const ops = m.results.filter((r) => r.kind !== 'catalogue');
  const matrixSeconds = typeof m.settings['matrixSeconds'] === 'number' ? m.settings['matrixSeconds'] : null;
  const diagramOf = (file: string): string | null => (ctx.views.has(file) ? diagramAnchor(file) : null);
  const matrixInput = { results: m.results, matrixSeconds, statements: ctx.statements, diagramOf };
  const blind = unexercised(matrixInput);
  const out: string[] = [];

  out.push(
    el(
      'p',
      { class: 'meta' },
      esc(
        `${m.date} · ${m.command} · sources ${m.sources.commit}${m.sources.changed.length > 0 ? ` with uncommitted changes to ${m.sources.changed.join(', ')}` : ''} · ${secs(m.wallSeconds)} s in all`,
      ),
    ),
    table(
      ['set', 'mutants', 'killed', 'survived', 'equivalent', 'stillborn', 'inconclusive', 'score'],
      [
        ...(cat.length > 0 ? [summaryRow('catalogue', cat)] : []),
        ...(ops.length > 0 ? [summaryRow('operators', ops)] : []),
      ],
    ),
    el('p', { class: 'note' }, 'Score: killed / (killed + survived).'),
  );

  out.push(
    el('h3', {}, 'Kill matrix'),
    el(
      'p',
      { class: 'note' },
      'Properties down, mutants across. The outlined cell (K) is the property whose shrunk counterexample killed the mutant, coloured by the measured search seconds to that kill; click it for the lane diagram. ' +
        esc(
          `Other cells: properties the sampling pass (${matrixSeconds ?? '?'} s per mutant, no shrinking, no bail) saw fail, coloured by the sampling seconds per failing run. Hatched columns survived; grey ones were not judged.`,
        ),
    ),
    killColourKey('time to kill', 'kill-ramp-matrix'),
    el('div', { class: 'scroll' }, renderKillMatrix(matrixInput)),
  );
  if (blind.length > 0)
    out.push(
      el('p', { class: 'warn' }, esc(`No mutant of this run exercises ${blind.join(', ')} (row labels marked ·).`)),
    );

  const notKilled = m.results.filter((r) => r.status !== 'killed');
  if (notKilled.length > 0) {
    out.push(
      el('h3', {}, `Not killed (${notKilled.length})`),
      table(
        ['mutant', 'status', 'why', 'where'],
        notKilled.map((r) => [
          esc(r.id),
          r.status === 'survived' ? el('span', { class: 'bad' }, 'SURVIVED') : esc(r.status),
          esc(
            r.status === 'survived'
              ? `${r.runs ?? '?'} schedules, every property held: ${r.title}`
              : r.status === 'equivalent'
                ? (r.equivalentReason ?? '')
                : (r.error ?? ''),
          ),
          esc(r.source),
        ]),
      ),
    );
  }

  const killed = m.results.filter((r) => r.status === 'killed');
  if (killed.length > 0) {
    out.push(
      el('h3', {}, `Kills (${killed.length})`),
      table(
        ['mutant', 'killed by', 'suite', 'schedules', 's to kill', 'choices / steps', 'lane diagram'],
        killed.map((r) => {
          const file = r.counterexample;
          const link =
            file !== null && ctx.views.has(file)
              ? el('a', { href: `#${diagramAnchor(file)}` }, 'diagram')
              : file !== null
                ? el('span', { class: 'warn' }, 'not replayed')
                : '-';
          return [
            el('span', { title: r.title }, esc(r.id)),
            esc(r.property ?? '?') +
              (r.asExpected === false ? el('span', { class: 'warn' }, ' (not an expected property)') : ''),
            esc(r.suite ?? '-'),
            n(r.runsToKill !== null ? int(r.runsToKill) : '-'),
            n(secs(r.secondsToKill)),
            n(`${r.choices ?? '-'} / ${r.steps ?? '-'}`),
            link,
          ];
        }),
      ),
    );
  }

  out.push(el('h3', {}, 'Stryker'), strykerBlock(ctx.stryker));

  const diagrams = killed.flatMap((r) => {
    const v = r.counterexample !== null ? ctx.views.get(r.counterexample) : undefined;
    return v === undefined
      ? []
      : [
          el(
            'details',
            {},
            el('summary', {}, esc(`${r.id}: ${r.property ?? ''} in ${v.trace.records.length} records`)),
            renderCounterexample(v),
          ),
        ];
  });
  if (diagrams.length > 0) out.push(el('h3', {}, 'Lane diagrams of the kills'), ...diagrams);
  return out.join('\n');
}
