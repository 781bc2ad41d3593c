/**
 * Counterexamples on disk: everything a replay needs in one JSON file (the scenario,
 * the schedule, and which mutant, if any, was applied). Fixed bugs are kept as such
 * files in properties/replays/ and replayed by the tests.
 */
import { isPropertyId, type PropertyId } from '../src/check/catalogue.js';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Scenario } from '../model/scenario/scenario.js';
import { parseScenario } from '../model/scenario/scenario_json.js';

export interface CounterexampleFile {
  readonly format: 'tierlab-counterexample';
  readonly version: 1;
  readonly property: PropertyId;
  readonly detail: string;
  readonly mutant: string | null;
  readonly scenario: Scenario;
  readonly choices: number[];
}

export function saveCounterexample(dir: string, cx: Omit<CounterexampleFile, 'format' | 'version'>): string {
  const body: CounterexampleFile = { format: 'tierlab-counterexample', version: 1, ...cx };
  const text = JSON.stringify(body, null, 1);
  const id = createHash('sha256').update(text).digest('hex').slice(0, 10);
  const file = join(dir, `${cx.mutant !== null ? cx.mutant + '-' : ''}${cx.property}-${id}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text + '\n');
  return file;
}

export function loadCounterexample(file: string): CounterexampleFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: cannot read a counterexample (${(e as Error).message})`);
  }
  const cx = data as Partial<CounterexampleFile>;
  if (cx.format !== 'tierlab-counterexample' || cx.version !== 1) {
    throw new Error(`${file}: not a tierlab counterexample (format ${String(cx.format)}, version ${String(cx.version)})`);
  }
  if (cx.scenario === undefined || !Array.isArray(cx.choices) || cx.choices.some((c) => !Number.isInteger(c) || c < 0)) {
    throw new Error(`${file}: counterexample lacks a scenario or a list of non-negative integer choices`);
  }
  if (typeof cx.property !== 'string' || !isPropertyId(cx.property)) {
    throw new Error(`${file}: counterexample names no catalogued property (${String(cx.property)})`);
  }
  return { ...(cx as CounterexampleFile), scenario: parseScenario(cx.scenario, file, 'scenario') };
}
