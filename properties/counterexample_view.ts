/**
 * A counterexample as a reader sees it: the file's verdict, scenario and schedule, and
 * the replay's trace as plain data (model/rt/trace_data.ts) with what the replay found.
 * Made by replaying the file here, on the sources this process runs; a counterexample
 * found on a mutant is replayed where its mutant is applied (the mutation run's probe,
 * mutants/lib/probe.ts, right after the kill) and the view is stored beside the file
 * (`X.json` -> `X.view.json`), so that the report draws the mutant's run without replaying
 * anything.
 *
 * Invariant: a stored view is used only for the file it was made from (same schedule,
 * same mutant); anything else is an error that says so, never a wrong diagram.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { traceData, type TraceData } from '../model/rt/trace_data.js';
import { describeScenario } from '../model/scenario/scenario.js';
import { propertyInfo } from '../src/check/catalogue.js';
import { loadCounterexample, type CounterexampleFile } from './counterexample_file.js';
import { replayCounterexample } from './runner.js';

/** One counterexample, replayed with its trace on (what a lane diagram draws). */
export interface CounterexampleView {
  /** the file, as the page names it */
  readonly file: string;
  /** what the file says was found */
  readonly property: string;
  readonly detail: string;
  readonly mutant: string | null;
  /** one line: devices, layers, experts, ring, budgets, tokens */
  readonly scenario: string;
  readonly choices: readonly number[];
  readonly trace: TraceData;
  /** what the replay found now (null: it replays clean, e.g. a fixed bug) */
  readonly violation: { readonly property: string; readonly detail: string } | null;
  /** the property's one-line statement (src/check/catalogue.ts) */
  readonly statement: string | null;
  /** the command that prints this trace again */
  readonly replay: string;
  readonly traceSha256: string | null;
}

/** The command that replays a file: with its mutant applied when it names one. */
export function replayCommand(shownAs: string, mutant: string | null): string {
  return mutant !== null ? `npm run mutants -- --replay ${shownAs}` : `npm run replay -- ${shownAs}`;
}

/** Replays a loaded counterexample on this process's sources. */
export function viewOf(cx: CounterexampleFile, shownAs: string, replay: string): CounterexampleView {
  const r = replayCounterexample(cx.scenario, cx.choices);
  const found = r.violation !== null ? { property: r.violation.property, detail: r.violation.detail } : null;
  return {
    file: shownAs,
    property: cx.property,
    detail: cx.detail,
    mutant: cx.mutant,
    scenario: describeScenario(cx.scenario),
    choices: cx.choices,
    trace: r.trace !== null ? traceData(r.trace) : { threadNames: [], records: [] },
    violation: found,
    statement: propertyInfo(found?.property ?? cx.property)?.statement ?? null,
    replay,
    traceSha256: r.trace?.hash() ?? null,
  };
}

/**
 * Replays `file` here. `shownAs` is the name the page gives it, `replay` the command that
 * prints the same trace.
 */
export function replayToView(
  file: string,
  shownAs: string = file,
  replay: string = replayCommand(shownAs, null),
): CounterexampleView {
  return viewOf(loadCounterexample(file), shownAs, replay);
}

/** Where the view of counterexample `file` is stored. */
export function storedViewPath(file: string): string {
  return file.replace(/(\.json)?$/, '.view.json');
}

export function writeStoredView(file: string, view: CounterexampleView): void {
  writeFileSync(storedViewPath(file), `${JSON.stringify(view)}\n`);
}

/**
 * The stored view of `file` (null: none stored), renamed as the page shows it. Throws when
 * the stored view is unreadable or was made from another schedule or mutant.
 */
export function readStoredView(file: string, shownAs: string, replay: string): CounterexampleView | null {
  const path = storedViewPath(file);
  if (!existsSync(path)) return null;
  const cx = loadCounterexample(file);
  let v: CounterexampleView;
  try {
    v = JSON.parse(readFileSync(path, 'utf8')) as CounterexampleView;
  } catch (e) {
    throw new Error(`${path}: not a stored view (${(e as Error).message})`);
  }
  const same =
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.choices) &&
    v.choices.length === cx.choices.length &&
    v.choices.every((c, i) => c === cx.choices[i]) &&
    v.mutant === cx.mutant &&
    Array.isArray(v.trace?.records);
  if (!same) throw new Error(`${path}: made from another counterexample than ${file} (replay it again)`);
  return { ...v, file: shownAs, replay };
}
