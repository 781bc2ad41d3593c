/**
 * `npm run check-trace -- FILE... [--shards] [--placements N] [--reference SCENARIO]`:
 * trace validation of a free run's event logs (a run with real threads, no scheduler: an
 * engine's own run, the stress program's, the engine check's). Each log is walked in the
 * order its locks gave it through the protocol's rules (src/check/trace/); with
 * --reference, a log the rules consumed whole is then replayed through the reference and
 * the standard checkers, given the run's configuration (a scenario or a C tier
 * counterexample: trace_setup.ts). The verdict says whether the whole trace was consumed,
 * and a divergence names the last matched event, the guard, field or property that
 * failed, and each thread's next event there.
 *
 * Files are logs of their own (several runs), or with --shards the pieces of one log
 * (merged by seq); `.gz` files are unpacked. Exits 0 when every log was consumed whole, 1
 * when one diverged, 2 on bad input (a file that cannot be read, a malformed line: one
 * line naming file:line).
 */
import { EXIT, type ExitCode } from '../../src/check/exit_codes.js';
import { checkTrace, DEFAULT_TRACE_OPTIONS, type TraceVerdict } from '../../src/check/trace/trace_check.js';
import { describeEvent } from '../../src/check/trace/trace_event.js';
import { orderLog } from '../../src/check/trace/trace_order.js';
import { intOption, parseOrFail, sharedOptions, usageError } from './cli_args.js';
import { readLogs } from '../../src/check/trace/trace_files.js';
import { referenceSetupOf } from './trace_setup.js';

const USAGE = 'usage: npm run check-trace -- FILE... [--shards] [--placements N] [--reference SCENARIO] [--quiet]';

/** The verdict of one log as lines: one when consumed whole, the divergence's report otherwise. */
export function verdictLines(name: string, v: TraceVerdict): string[] {
  const tried = `${v.placements} other placement${v.placements === 1 ? '' : 's'} tried`;
  if (v.whole) return [`${name}: ${v.events} events, consumed whole (${tried})${referenceNote(v)}`];
  const d = v.divergence;
  const out = [
    `${name}: DIVERGED after ${v.consumed} of ${v.events} events: the trace was not consumed whole (${tried})`,
  ];
  if (d === null) return out;
  out.push(`  last matched: ${d.lastMatched === null ? 'none (the first event)' : describeEvent(d.lastMatched)}`);
  out.push(`  failed:       ${d.failed}`);
  const where = d.missing !== null ? `seq ${d.missing}, absent from the log` : 'the end of the log';
  out.push(`  at:           ${d.at === null ? where : describeEvent(d.at)}`);
  out.push("  candidates:   each thread's next event there");
  for (const c of d.candidates) out.push(`    ${c}`);
  return out;
}

/** What the reference's replay of a log consumed whole by the rules adds to its line. */
function referenceNote(v: TraceVerdict): string {
  const r = v.reference;
  if (r === null) return '';
  if (r.cut === null) return `; the reference replayed all ${r.replayed} events: no violation`;
  return `; the reference replayed ${r.replayed} of ${v.events} events, no violation, then stopped: ${r.cut}`;
}

export function main(argv: readonly string[]): ExitCode {
  const { values, positionals } = parseOrFail('check-trace', argv, {
    options: {
      ...sharedOptions('quiet'),
      shards: { type: 'boolean' },
      placements: { type: 'string' },
      reference: { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length === 0) usageError('check-trace', `wants at least one log file (${USAGE})`);
  const max = intOption(
    'check-trace',
    values.placements,
    'placements',
    0,
    1_000_000,
    DEFAULT_TRACE_OPTIONS.maxPlacements,
  );
  const reference = values.reference !== undefined ? referenceSetupOf(values.reference) : undefined;
  const opts = { ...DEFAULT_TRACE_OPTIONS, maxPlacements: max, ...(reference !== undefined ? { reference } : {}) };
  let diverged = 0;
  for (const log of readLogs(positionals, values.shards === true)) {
    const v = checkTrace(orderLog(log.events), opts);
    if (!v.whole) diverged++;
    if (!v.whole || values.quiet !== true) process.stdout.write(`${verdictLines(log.name, v).join('\n')}\n`);
  }
  return diverged === 0 ? EXIT.ok : EXIT.safety;
}
