/**
 * A page for one counterexample (`npm run replay -- FILE --html OUT.html`, `npm run report
 * -- counterexample FILE OUT.html`): a self-contained HTML file whose title says what was
 * violated and where it came from, then the counterexample as the report shows it (the
 * verdict with the property's statement, the scenario, the wrapped schedule, the replay
 * command, the lane diagram opening on the violation, the colour key).
 */
import { renderCounterexample } from './counterexample_block.js';
import { renderPage } from './page.js';
import type { CounterexampleView } from './report_inputs.js';

export function renderCounterexampleHtml(view: CounterexampleView): string {
  const verdict = view.violation !== null ? `VIOLATED ${view.violation.property}` : 'replays clean';
  const steps = new Set(view.trace.records.map((r) => r.step)).size;
  const threads = view.trace.threadNames.length;
  const origin = view.mutant !== null ? ` · the run of mutant ${view.mutant}` : '';
  return renderPage({
    title: `tierlab counterexample: ${verdict}`,
    subtitle: `${view.file}${origin} · ${threads} threads (one lane each) · ${steps} steps · ${view.trace.records.length} trace records`,
    sections: [
      {
        id: 'lanes',
        heading: 'The run, one lane per thread',
        html: renderCounterexample(view),
      },
    ],
    problems: [],
  });
}
