/**
 * A page for one counterexample (`npm run replay -- FILE --html OUT.html`): the verdict,
 * the scenario and schedule, the lane diagram and the replay command, as a self-contained
 * HTML file.
 */
import { renderCounterexample } from './lane_diagram.js';
import { renderPage } from './page.js';
import type { CounterexampleView } from './report_inputs.js';

export function renderCounterexampleHtml(view: CounterexampleView): string {
  const verdict = view.violation !== null ? `VIOLATED ${view.violation.property}` : 'replays clean';
  return renderPage({
    title: `tierlab counterexample: ${verdict}`,
    subtitle: `${view.file}: ${view.trace.records.length} trace records over ${view.trace.threadNames.length} threads`,
    sections: [{ id: 'lanes', heading: 'Lane diagram', html: renderCounterexample(view) }],
    problems: [],
  });
}
