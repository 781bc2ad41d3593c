/**
 * Counterexamples on disk: everything a replay needs in one JSON file (the scenario,
 * the schedule, and which mutant, if any, was applied). Fixed bugs are kept as such
 * files in properties/replays/, each with its `regression`: the patch to the sources
 * that puts the bug back, under which the schedule violates the file's `property` (the
 * tests check both halves: clean on today's sources, that property with the patch).
 *
 * A counterexample of the C tier (native/tier/, run by its schedule harness) says so:
 * `tier: "c"` and the level it was judged at (1: the boundary only, 2: the tier's event
 * log too); its choices are the scheduler's decisions. Without `tier` it is the
 * TypeScript tier's.
 *
 * Invariants: a loaded counterexample has the right shape and ranges or the loader throws
 * an InputError naming the file and the JSON path, and this loader is the one every
 * command reads counterexamples with (replay, properties --scenario, mutants --replay,
 * the report), so no command accepts a file another refuses; a mutant id is plain text (it is
 * printed and becomes part of a file name); a saved file lands inside the directory it is
 * saved to, whatever the mutant id; a regression patch names a relative path with no
 * `..` and is given only with no mutant (it is applied to today's sources).
 */
import { isPropertyId, type PropertyId } from '../src/check/catalogue.js';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Scenario } from '../model/scenario/scenario.js';
import { parseScenario } from '../model/scenario/scenario_json.js';
import { DEFAULT_LIMITS } from '../src/check/limits.js';
import { InputError } from '../src/input/input_error.js';
import { JsonReader } from '../src/input/json_reader.js';
import { fileNamePart } from '../src/input/paths.js';
import { MUTANT_ID } from '../src/input/environment.mjs';
import { MAX_SCENARIO_BYTES, readInputJson } from '../src/input/read_file.js';
import { writeReportFile } from '../src/input/report_file.js';

/** A fixed bug put back: `find` occurs once in `file` and becomes `replace`. */
export interface Regression {
  readonly file: string;
  readonly find: string;
  readonly replace: string;
}

export interface CounterexampleFile {
  readonly format: 'tierlab-counterexample';
  readonly version: 1;
  readonly property: PropertyId;
  readonly detail: string;
  readonly mutant: string | null;
  readonly scenario: Scenario;
  readonly choices: number[];
  /** the patch that puts a fixed bug back (files in properties/replays/); null: none */
  readonly regression: Regression | null;
  /** the C tier's counterexample (absent: the TypeScript tier's) */
  readonly tier?: 'c';
  /** the C tier's: the level it was judged at */
  readonly level?: 1 | 2;
}

const KEYS = ['format', 'version', 'property', 'detail', 'mutant', 'scenario', 'choices'] as const;
const REGRESSION_KEYS = ['file', 'find', 'replace'] as const;
/** a relative path of plain names (none starts with a dot, so no `..`), forward slashes */
const SOURCE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** a patch's find and replace texts: a few lines of source, not a file */
const MAX_PATCH_TEXT = 4000;
/** a run makes at most one thread and one wake choice per step */
const MAX_CHOICES = 2 * DEFAULT_LIMITS.maxSteps;
/** options at one choice point: threads to move or to wake spuriously */
const MAX_CHOICE = 2 * DEFAULT_LIMITS.maxThreads;

/** A mutant id as it may appear in a file or the environment, or an InputError. */
function checkMutantId(id: string, source: string): string {
  if (!MUTANT_ID.test(id))
    throw new InputError(
      source,
      `${JSON.stringify(id.slice(0, 60))} is not a mutant id (letters, digits and ._:@/- only)`,
    );
  return id;
}

/** The mutant a properties run is told about (mutation runs set TIERLAB_MUTANT), or null. */
export function mutantOfEnvironment(): string | null {
  const id = process.env.TIERLAB_MUTANT;
  return id === undefined || id === '' ? null : checkMutantId(id, 'TIERLAB_MUTANT');
}

/** what a run that found a counterexample knows */
type FoundCounterexample = Omit<CounterexampleFile, 'format' | 'version' | 'regression'>;

/** Saves a counterexample a run found (a regression patch is added by hand, once the bug is fixed). */
export function saveCounterexample(dir: string, cx: FoundCounterexample): string {
  const body: Omit<CounterexampleFile, 'regression'> = { format: 'tierlab-counterexample', version: 1, ...cx };
  const text = JSON.stringify(body, null, 1);
  const id = createHash('sha256').update(text).digest('hex').slice(0, 10);
  const name = fileNamePart(`${cx.mutant !== null ? cx.mutant + '-' : ''}${cx.property}-${id}.json`);
  const file = join(dir, name);
  writeReportFile(file, text + '\n');
  return file;
}

/** Whether parsed JSON says it is a counterexample (its format), whatever else is wrong with it. */
export function claimsCounterexample(data: unknown): boolean {
  return (
    typeof data === 'object' && data !== null && (data as { format?: unknown }).format === 'tierlab-counterexample'
  );
}

export function loadCounterexample(file: string): CounterexampleFile {
  return counterexampleOf(readInputJson(file, { what: 'a counterexample', maxBytes: MAX_SCENARIO_BYTES }), file);
}

/** A counterexample from JSON already read from `file` (which names it in messages), checked as loadCounterexample checks it. */
export function counterexampleOf(data: unknown, file: string): CounterexampleFile {
  const d = data as { format?: unknown; version?: unknown } | null;
  if (
    typeof d !== 'object' ||
    d === null ||
    Array.isArray(d) ||
    d.format !== 'tierlab-counterexample' ||
    d.version !== 1
  ) {
    const what =
      typeof d === 'object' && d !== null && !Array.isArray(d)
        ? `format ${JSON.stringify(d.format)}, version ${JSON.stringify(d.version)}`
        : 'not an object';
    throw new InputError(
      file,
      `not a tierlab counterexample (${what}; want format "tierlab-counterexample", version 1)`,
    );
  }
  const r: JsonReader = new JsonReader(file);
  const optional = (['regression', 'tier', 'level'] as const).filter((k) => k in d);
  const o = r.object(data, '', [...KEYS, ...optional]);
  const property = r.string(o.property, 'property');
  if (!isPropertyId(property))
    r.fail('property', `${JSON.stringify(property.slice(0, 60))} is not a catalogued property`);
  const count = r.array(o.choices, 'choices').length;
  if (count > MAX_CHOICES) r.fail('choices', `${count} choices exceed the ${MAX_CHOICES} a run can make`);
  const choices = r.intArray(o.choices, 'choices', 0, MAX_CHOICE);
  const mutant = o.mutant === null ? null : checkMutantId(r.string(o.mutant, 'mutant'), `${file}: mutant`);
  const regression = o.regression === undefined || o.regression === null ? null : readRegression(r, o.regression);
  if (regression !== null && mutant !== null) {
    r.fail('regression', 'a counterexample found on a mutant has no regression patch (mutant is not null)');
  }
  return {
    format: 'tierlab-counterexample',
    version: 1,
    property,
    detail: r.string(o.detail, 'detail'),
    mutant,
    scenario: parseScenario(o.scenario, file, 'scenario'),
    choices,
    regression,
    ...readTier(r, o.tier, o.level),
  };
}

/** The C tier's fields: `tier` "c" and its `level`, or neither. */
function readTier(r: JsonReader, tier: unknown, level: unknown): { tier?: 'c'; level?: 1 | 2 } {
  if (tier === undefined && level === undefined) return {};
  if (tier !== 'c') r.fail('tier', `${JSON.stringify(tier)} is not a tier (want "c", or no tier: the TypeScript one)`);
  if (level !== 1 && level !== 2) r.fail('level', `${JSON.stringify(level)} is not a level (want 1 or 2)`);
  return { tier: 'c', level };
}

function readRegression(r: JsonReader, value: unknown): Regression {
  const o = r.object(value, 'regression', REGRESSION_KEYS);
  const file = r.string(o.file, 'regression.file');
  if (!SOURCE_PATH.test(file)) {
    const shown = JSON.stringify(file.slice(0, 60));
    r.fail('regression.file', `${shown} is not a relative path of plain names (no .., no leading /)`);
  }
  const text = (key: 'find' | 'replace'): string => {
    const s = r.string(o[key], `regression.${key}`);
    if (s.length > MAX_PATCH_TEXT) r.fail(`regression.${key}`, `${s.length} characters, over ${MAX_PATCH_TEXT}`);
    return s;
  };
  const find = text('find');
  const replace = text('replace');
  if (find === '') r.fail('regression.find', 'is empty (it must name the text the fix put in)');
  if (find === replace) r.fail('regression.replace', 'equals find (the patch would change nothing)');
  return { file, find, replace };
}
