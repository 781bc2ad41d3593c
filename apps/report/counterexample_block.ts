/**
 * One counterexample as the report shows it: what was found (the violation with its
 * statement, or why it replays clean), a sentence on how to read a lane diagram, the
 * scenario, the schedule (wrapped: it can be hundreds of choices) and the replay command,
 * then the diagram in three views behind a switch that needs no script: the violating
 * step with the steps leading to it (shown first: the violation is where a run ends),
 * the whole run by step, and the whole run by virtual time; and the colour key.
 *
 * Invariant: the first view always holds the violating step (a run's trace ends there),
 * inside the page's width, so the page opens on the violation, never at step 0 of a long run.
 */
import { anchorId, el, esc, leaf } from './html.js';
import { laneLegend, renderLaneSvg } from './lane_diagram.js';
import type { CounterexampleView } from './report_inputs.js';

/** Steps drawn in the first view: the violation and those leading to it (they fit the page's width). */
export const STEPS_BEFORE_VIOLATION = 120;

/** The page anchor of a counterexample's diagram (links from tables and the kill matrix). */
export function diagramAnchor(file: string): string {
  return anchorId('cx', file.replace(/^.*[\\/]/, '').replace(/\.json$/, ''));
}

/** How to read a lane diagram, in one sentence. */
export const HOW_TO_READ =
  'Each lane is one thread of the run (its name on the left); time runs left to right, one column per step ' +
  'the scheduler took. A solid bar: the thread holds mx; hatched: it waits on a condition variable; the thin bars ' +
  'under a lane: the tier call it is inside; an arrow: the signal or broadcast that woke a waiter; the red band: ' +
  'the step that violated the property. Hover a mark for the ops of that step.';

function verdictOf(cx: CounterexampleView): string {
  const v = cx.violation;
  if (v !== null)
    return el(
      'p',
      { class: 'violated' },
      el('b', {}, `VIOLATED ${esc(v.property)}`),
      cx.statement !== null ? `: ${esc(cx.statement)}` : '',
      leaf('br'),
      el('span', { class: 'detail' }, esc(v.detail)),
    );
  return el(
    'p',
    { class: 'clean' },
    el('b', {}, 'replays clean now'),
    ` (found as ${esc(cx.property)}: ${esc(cx.detail)})`,
    cx.mutant !== null ? ` — it needs mutant ${esc(cx.mutant)} applied` : ' — the bug it found is fixed',
  );
}

function metaOf(cx: CounterexampleView): string {
  return el(
    'div',
    { class: 'meta' },
    el('p', {}, `scenario: ${esc(cx.scenario)}`),
    el(
      'p',
      {},
      `schedule (${cx.choices.length} choices)${cx.mutant !== null ? `, found on mutant ${el('code', {}, esc(cx.mutant))}` : ''}: `,
      el('code', { class: 'schedule' }, esc(`[${cx.choices.join(',')}]`)),
    ),
    el(
      'p',
      {},
      'replay: ',
      el('code', { class: 'replay' }, esc(cx.replay)),
      cx.traceSha256 !== null
        ? el('span', { class: 'sha' }, ` · trace sha256 ${esc(cx.traceSha256.slice(0, 16))}…`)
        : '',
    ),
  );
}

/** The three views of the diagram, behind radio buttons (CSS shows the checked one). */
function views(cx: CounterexampleView, id: string): string {
  const steps = new Set(cx.trace.records.map((r) => r.step)).size;
  const windowed = cx.violation !== null && steps > STEPS_BEFORE_VIOLATION;
  const opts = { statement: cx.statement };
  const choices: { key: string; label: string; svg: string }[] = [
    ...(windowed
      ? [
          {
            key: 'near',
            label: `the violation and the ${STEPS_BEFORE_VIOLATION - 1} steps before it`,
            svg: renderLaneSvg(cx.trace, { ...opts, axis: 'step', lastSteps: STEPS_BEFORE_VIOLATION }),
          },
        ]
      : []),
    {
      key: 'step',
      label: `the whole run by step (${steps} steps)`,
      svg: renderLaneSvg(cx.trace, { ...opts, axis: 'step' }),
    },
    {
      key: 'time',
      label: 'the whole run by virtual time (width = time the ops took)',
      svg: renderLaneSvg(cx.trace, { ...opts, axis: 'time' }),
    },
  ];
  return el(
    'div',
    { class: 'axis-switch' },
    ...choices.flatMap((c, i) => [
      leaf('input', {
        type: 'radio',
        name: `${id}-axis`,
        id: `${id}-${c.key}`,
        class: `ax-${c.key}`,
        checked: i === 0,
      }),
      el('label', { for: `${id}-${c.key}` }, esc(c.label)),
    ]),
    ...choices.map((c) => el('div', { class: `scroll view-${c.key}` }, c.svg)),
  );
}

/** One counterexample: verdict, how to read it, scenario, schedule, replay, diagram, key. */
export function renderCounterexample(cx: CounterexampleView): string {
  const id = diagramAnchor(cx.file);
  return el(
    'div',
    { class: 'cx', id, 'data-file': cx.file },
    verdictOf(cx),
    metaOf(cx),
    el('p', { class: 'note how' }, esc(HOW_TO_READ)),
    views(cx, id),
    laneLegend(),
  );
}
