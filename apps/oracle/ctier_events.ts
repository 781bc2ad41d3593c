/**
 * What the oracle reads back from a C-tier row's event log (NDJSON, native/tier/EVENTS.md):
 * whether the row reached the situation it was arranged for, how many trunk matrices were
 * placed, and the decode steps whose
 * LFRU round enqueued a swap (where the arranged rows put their shutdown or refill).
 *
 * Invariants: lines are read in `seq` order (the file sink writes each thread's lines in
 * order, not the threads' in one order); the k-th `tick` event is decode step k, since the
 * tier ticks once per layer-0 issue and the probe run is live from its first step; a swap
 * counts when its enqueue (an `enqueue` with a victim) is in the tick's critical section,
 * which is the TypeScript tier's `swap-enqueued` mark of its LFRU round.
 */
import { readFileSync } from 'node:fs';
import type { CoverageMark } from '../../src/check/checkers/coverage.js';
import { checkTrace } from '../../src/check/trace/trace_check.js';
import { readTraceFile } from '../../src/check/trace/trace_files.js';
import { orderLog } from '../../src/check/trace/trace_order.js';

interface LogLine {
  readonly seq: number;
  readonly ev: string;
  readonly value: number;
  readonly sec?: number;
  readonly vlayer?: number;
}

function readLog(path: string): LogLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogLine)
    .sort((a, b) => a.seq - b.seq);
}

/** The events of the tier's log that show each arranged situation. */
const ARRANGED_EVENTS: Partial<Record<CoverageMark, (e: LogLine) => boolean>> = {
  'upload-failed': (e) => e.ev === 'upload_failed',
  'take-failed': (e) => e.ev === 'take_failed',
  // note_block waited on cv_take for ring space
  'ring-full': (e) => e.ev === 'wait' && e.value === 1,
  'shutdown-with-group-open': (e) => e.ev === 'drained' && e.value > 0,
  'swap-abandoned-at-shutdown': (e) => e.ev === 'swap_abandoned',
};

/**
 * Situations a sequential caller cannot force on a tier whose uploader is a real thread:
 * a full ring needs the uploader to stay away while two note_blocks run; a swap parked on
 * the open group needs the probe's swap at the same step of a run whose uploads land at
 * other moments. A row arranged for one is judged on its tokens and hidden states, and
 * the report says whether the situation came (the scheduler harness forces both:
 * `npm run properties -- --tier c`).
 */
export const RACED_MARKS: ReadonlySet<CoverageMark> = new Set(['ring-full', 'swap-abandoned-at-shutdown']);

/** Whether the log shows `mark`; null when no event of the log can show it. */
export function reachedIn(path: string, mark: CoverageMark): boolean | null {
  const test = ARRANGED_EVENTS[mark];
  if (test === undefined) return null;
  return readLog(path).some(test);
}

/** How many events of kind `ev` the log holds (e.g. trunk_placed: the trunk matrices init placed). */
export function countIn(path: string, ev: string): number {
  return readLog(path).filter((e) => e.ev === ev).length;
}

/** Decode steps (0-based) whose layer-0 issue enqueued an LFRU swap. */
export function swapStepsIn(path: string): number[] {
  const steps: number[] = [];
  let step = -1;
  let tickSec = -1;
  for (const e of readLog(path)) {
    if (e.ev === 'tick') {
      step++;
      tickSec = e.sec ?? -1;
    } else if (e.ev === 'enqueue' && e.vlayer !== undefined && e.sec === tickSec && steps.at(-1) !== step) {
      steps.push(step);
    }
  }
  return steps;
}

/**
 * The row's log through the trace checker (`npm run check-trace`): a real run with real
 * threads must follow the protocol, so a log not consumed whole fails the row with the
 * rule that broke; one consumed whole is a note with its size.
 */
export function checkedLog(path: string): { readonly problem: string | null; readonly note: string | null } {
  const v = checkTrace(orderLog(readTraceFile(path)));
  if (v.whole) return { problem: null, note: `event log: ${v.events} events, consumed whole by check-trace` };
  const failed = v.divergence?.failed ?? 'the log ends inside a call';
  return { problem: `event log diverged after ${v.consumed} of ${v.events} events: ${failed}`, note: null };
}
