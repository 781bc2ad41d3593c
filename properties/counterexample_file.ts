/**
 * Counterexamples on disk: everything a replay needs in one JSON file (the scenario,
 * the schedule, and which mutant, if any, was applied). Fixed bugs are kept as such
 * files in properties/replays/ and replayed by the tests.
 *
 * Invariants: a loaded counterexample has the right shape and ranges or the loader throws
 * an InputError naming the file and the JSON path; a mutant id is plain text (it is
 * printed and becomes part of a file name); a saved file lands inside the directory it is
 * saved to, whatever the mutant id.
 */
import { isPropertyId, type PropertyId } from '../src/check/catalogue.js';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../model/scenario/scenario.js';
import { parseScenario } from '../model/scenario/scenario_json.js';
import { DEFAULT_LIMITS } from '../src/check/limits.js';
import { InputError } from '../src/input/input_error.js';
import { JsonReader } from '../src/input/json_reader.js';
import { fileNamePart } from '../src/input/paths.js';

export interface CounterexampleFile {
  readonly format: 'tierlab-counterexample';
  readonly version: 1;
  readonly property: PropertyId;
  readonly detail: string;
  readonly mutant: string | null;
  readonly scenario: Scenario;
  readonly choices: number[];
}

const KEYS = ['format', 'version', 'property', 'detail', 'mutant', 'scenario', 'choices'] as const;
/** catalogue ids (`fill-wait-queue-empty`) and operator ids (`op:NAME@FILE:LINE`) */
const MUTANT_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}$/;
/** a run makes at most one thread and one wake choice per step */
const MAX_CHOICES = 2 * DEFAULT_LIMITS.maxSteps;
/** options at one choice point: threads to move or to wake spuriously */
const MAX_CHOICE = 2 * DEFAULT_LIMITS.maxThreads;

/** A mutant id as it may appear in a file or the environment, or an InputError. */
function checkMutantId(id: string, source: string): string {
  if (!MUTANT_ID.test(id)) throw new InputError(source, `${JSON.stringify(id.slice(0, 60))} is not a mutant id (letters, digits and ._:@/- only)`);
  return id;
}

/** The mutant a properties run is told about (mutation runs set TIERLAB_MUTANT), or null. */
export function mutantOfEnvironment(): string | null {
  const id = process.env.TIERLAB_MUTANT;
  return id === undefined || id === '' ? null : checkMutantId(id, 'TIERLAB_MUTANT');
}

export function saveCounterexample(dir: string, cx: Omit<CounterexampleFile, 'format' | 'version'>): string {
  const body: CounterexampleFile = { format: 'tierlab-counterexample', version: 1, ...cx };
  const text = JSON.stringify(body, null, 1);
  const id = createHash('sha256').update(text).digest('hex').slice(0, 10);
  const name = fileNamePart(`${cx.mutant !== null ? cx.mutant + '-' : ''}${cx.property}-${id}.json`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text + '\n');
  return file;
}

export function loadCounterexample(file: string): CounterexampleFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(file, `cannot read a counterexample (${(e as Error).message})`);
  }
  const d = data as { format?: unknown; version?: unknown } | null;
  if (typeof d !== 'object' || d === null || Array.isArray(d) || d.format !== 'tierlab-counterexample' || d.version !== 1) {
    const what = typeof d === 'object' && d !== null && !Array.isArray(d) ? `format ${JSON.stringify(d.format)}, version ${JSON.stringify(d.version)}` : 'not an object';
    throw new InputError(file, `not a tierlab counterexample (${what}; want format "tierlab-counterexample", version 1)`);
  }
  const r: JsonReader = new JsonReader(file);
  const o = r.object(data, '', KEYS);
  const property = r.string(o.property, 'property');
  if (!isPropertyId(property)) r.fail('property', `${JSON.stringify(property.slice(0, 60))} is not a catalogued property`);
  const count = r.array(o.choices, 'choices').length;
  if (count > MAX_CHOICES) r.fail('choices', `${count} choices exceed the ${MAX_CHOICES} a run can make`);
  const choices = r.intArray(o.choices, 'choices', 0, MAX_CHOICE);
  return {
    format: 'tierlab-counterexample',
    version: 1,
    property,
    detail: r.string(o.detail, 'detail'),
    mutant: o.mutant === null ? null : checkMutantId(r.string(o.mutant, 'mutant'), `${file}: mutant`),
    scenario: parseScenario(o.scenario, file, 'scenario'),
    choices,
  };
}
