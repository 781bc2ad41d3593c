/**
 * The properties section: the run (seed, strategy, command, totals), each property's
 * verdict, the suites (runs, steps, seconds, steps/s, result or guarantee), the coverage
 * marks as bars with the under-reached ones flagged (in a run of every suite; a narrower
 * run shows what it did not reach as out of its scope), and the lane diagram of every
 * counterexample the run found.
 */
import { barChart, type Bar } from './charts.js';
import { el, esc, int, leaf, n, secs, table } from './html.js';
import { diagramAnchor, renderCounterexample } from './counterexample_block.js';
import type { CounterexampleView, PropertiesInput } from './report_inputs.js';
import { SUITES } from '../../properties/arbitraries.js';

/**
 * A coverage mark reached by fewer runs than this share is flagged: at 1 % a CI-sized run
 * of a thousand schedules gets there about ten times, too few to trust a green result
 * about that situation.
 */
export const UNDER_REACHED_PERCENT = 1;

/** the counterexample file a `npm run replay -- FILE` command names */
export function replayFile(command: string): string | null {
  const m = /(?:^|\s)--\s+(?:--replay\s+)?(\S+\.json)\b/.exec(command);
  return m?.[1] ?? null;
}

/** Whether the run covered every suite: only then does a mark never reached mean the generators are blind there. */
export function coversEverySuite(p: PropertiesInput): boolean {
  return SUITES.every((name) => p.suites.some((s) => s.suite === name));
}

/**
 * How many runs reached each mark. A mark no run reached is the generators' blind spot
 * only in a run of every suite; a narrower run (one scenario, one suite) reaches what its
 * scope holds, and the rest is shown as out of scope, not as blind.
 */
function coverageBlock(p: PropertiesInput): string {
  const t = p.totals;
  const whole = coversEverySuite(p);
  const scope = whole ? '' : `this run's scope (${p.suites.map((s) => s.suite).join(', ')})`;
  const low = whole ? p.coverage.filter((c) => c.percent < UNDER_REACHED_PERCENT) : [];
  const bars: Bar[] = p.coverage.map((c) => {
    const why =
      c.runs === 0
        ? whole
          ? ': never reached'
          : `: not reached in ${scope}`
        : whole && c.percent < UNDER_REACHED_PERCENT
          ? ': under-reached'
          : '';
    return {
      label: c.mark,
      value: c.percent,
      cls: c.runs === 0 ? (whole ? 'zero' : 'scope') : whole && c.percent < UNDER_REACHED_PERCENT ? 'low' : '',
      tip: `${c.mark}: ${c.runs} of ${t.runs} runs (${c.percent.toFixed(2)} %)${why}`,
    };
  });
  const note = whole
    ? `How many runs reached each hard-to-reach situation. Red: never reached (the generator is blind there); amber: under ${UNDER_REACHED_PERCENT} % of runs.`
    : `How many runs of ${scope} reached each hard-to-reach situation. Grey: not reached here, which is outside this run's scope; a run of every suite (npm run properties) says whether the generators reach it.`;
  const verdict = whole
    ? low.length > 0
      ? el('p', { class: 'warn' }, esc(`Under-reached: ${low.map((c) => `${c.mark} (${c.runs} runs)`).join(', ')}.`))
      : el('p', { class: 'ok' }, `Every mark reached by at least ${UNDER_REACHED_PERCENT} % of runs.`)
    : el(
        'p',
        { class: 'note' },
        esc(`${p.coverage.filter((c) => c.runs > 0).length} of ${p.coverage.length} marks reached in ${scope}.`),
      );
  return [
    el('h3', {}, 'Coverage marks'),
    el('p', { class: 'note' }, esc(note)),
    barChart({ title: 'runs reaching each mark', unit: '% of runs', bars }),
    verdict,
  ].join('\n');
}

/** The run's headline: a run cut short with no violation is INCOMPLETE, never "held". */
function verdictLine(p: PropertiesInput): string {
  if (!p.ok) return el('p', { class: 'bad' }, 'VIOLATIONS FOUND.');
  if (!p.complete)
    return el('p', { class: 'warn' }, 'INCOMPLETE: no violation, but a guarantee was cut short by its budget.');
  return el('p', { class: 'ok' }, 'All properties held.');
}

export function renderPropertiesSection(p: PropertiesInput, views: ReadonlyMap<string, CounterexampleView>): string {
  const out: string[] = [];
  const t = p.totals;
  out.push(
    verdictLine(p),
    el('p', { class: 'meta' }, esc(`${p.date} · seed ${p.seed} · strategy ${p.strategy} · ${p.command}`)),
    el(
      'p',
      {},
      esc(
        `${int(t.runs)} runs, ${int(t.steps)} simulated steps in ${secs(t.seconds)} s (${int(t.stepsPerSecond)} steps/s, ${int(t.runsPerSecond)} schedules/s, every checker on).`,
      ),
    ),
  );

  out.push(
    el('h3', {}, 'Properties'),
    table(
      ['id', 'family', 'statement', 'verdict'],
      p.properties.map((x) => [
        el('code', {}, esc(x.id)),
        esc(x.family),
        esc(x.statement),
        x.violations > 0
          ? el('span', { class: 'bad' }, esc(`${x.status} (${x.violations} runs)`))
          : el('span', { class: 'ok' }, esc(x.status)),
      ]),
    ),
  );

  out.push(
    el('h3', {}, 'Suites'),
    table(
      ['suite', 'strategy', 'runs', 'steps', 'seconds', 'steps/s', 'result'],
      p.suites.map((s) => {
        let result: string;
        if (s.failure !== null) {
          const file = replayFile(s.failure.replay);
          const link =
            file !== null && views.has(file) ? ` ${el('a', { href: `#${diagramAnchor(file)}` }, 'lane diagram')}` : '';
          result =
            el('span', { class: 'bad' }, esc(s.failure.property)) +
            esc(`: ${s.failure.detail}`) +
            link +
            leaf('br') +
            el('code', {}, esc(s.failure.replay));
        } else {
          const v = Object.entries(s.violations);
          result =
            v.length > 0
              ? el('span', { class: 'bad' }, esc(`violations: ${v.map(([k, c]) => `${k} ${c}`).join(', ')}`))
              : el('span', { class: 'ok' }, 'pass');
        }
        if (s.guarantee !== undefined)
          result +=
            leaf('br') + el('span', { class: s.guarantee.complete ? 'note' : 'warn' }, esc(s.guarantee.statement));
        return [
          esc(s.suite),
          esc(s.strategy),
          n(int(s.runs)),
          n(int(s.steps)),
          n(secs(s.seconds)),
          n(s.seconds > 0 ? int(s.steps / s.seconds) : '-'),
          result,
        ];
      }),
    ),
  );

  out.push(coverageBlock(p));

  const found = p.suites.flatMap((s) => {
    const file = s.failure !== null ? replayFile(s.failure.replay) : null;
    const v = file !== null ? views.get(file) : undefined;
    return v === undefined
      ? []
      : [el('details', { open: true }, el('summary', {}, esc(`${s.suite}: ${v.property}`)), renderCounterexample(v))];
  });
  if (found.length > 0) out.push(el('h3', {}, 'Counterexamples'), ...found);
  return out.join('\n');
}
