/**
 * `npm run replay -- FILE [--full]`: re-runs a saved counterexample and prints the same
 * trace (one lane per thread) and the same verdict, byte for byte.
 * A counterexample found on a mutant names it; replay it with `npm run mutants --
 * --replay FILE`, which applies the mutant first.
 */
import { describeScenario } from '../../model/scenario/scenario.js';
import { propertyInfo } from '../check/catalogue.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { replayCounterexample } from '../../properties/runner.js';
import { parseOrFail } from './cli_args.js';
import { writeCounterexampleHtml } from '../report/write_report.js';
import { EXIT, exitForViolations } from '../check/exit_codes.js';

const { values, positionals } = parseOrFail('replay', { options: { full: { type: 'boolean' }, html: { type: 'string' } }, allowPositionals: true });
const file = positionals[0];
if (file === undefined) {
  process.stderr.write('usage: npm run replay -- COUNTEREXAMPLE.json [--full]\n');
  process.exit(2);
}
let cx;
try {
  cx = loadCounterexample(file);
} catch (e) {
  process.stderr.write(`replay: ${(e as Error).message}\n`);
  process.exit(2);
}
const r = replayCounterexample(cx.scenario, cx.choices);
process.stdout.write(
  [
    `scenario: ${describeScenario(cx.scenario)}`,
    `schedule: [${cx.choices.join(',')}]${cx.mutant !== null ? `  (found on mutant ${cx.mutant})` : ''}`,
    '',
    r.trace?.lanes({ last: values.full === true ? undefined : 120 }) ?? '',
    '',
    r.violation === null
      ? `no violation (${r.steps} steps)${cx.mutant !== null ? ': this counterexample needs its mutant applied' : ''}`
      : `VIOLATED ${r.violation.property}: ${propertyInfo(r.violation.property)?.statement ?? ''}\n  ${r.violation.detail}`,
    `trace sha256 ${r.trace?.hash() ?? '-'}`,
    '',
  ].join('\n'),
);
if (values.html !== undefined) writeCounterexampleHtml(file, values.html);
process.exit(r.violation === null ? EXIT.ok : exitForViolations([r.violation.property]));
