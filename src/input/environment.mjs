/**
 * The one check of what tierlab needs from its environment, run before anything else:
 * by every npm script's set-up (scripts/setup.mjs, before the TypeScript loader, whose
 * compile cache in the temporary directory would otherwise fail with a stack trace) and
 * again by every command as it starts (apps/cli/run_command.ts), for a command started
 * without npm. Plain JavaScript (types in environment.d.mts) for that reason.
 *
 * It checks (1) every environment variable tierlab reads, parsed as an option is: the
 * table below is the list (the README's table says the same, and a test keeps the two
 * and the code in step), and a TIERLAB_ variable it does not list is a typo; (2) the
 * temporary directory: a folder this process can make a folder in, and the loader's
 * cache in it a folder.
 *
 * Invariants: an empty value means unset, as the native engine reads it; a bad variable
 * is one line naming it and what it wants, exit 2 (bad input); an unusable temporary
 * directory is one line naming it, exit 74 (the environment failed). Values are echoed
 * through the terminal escaper.
 */
import { existsSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printable } from './terminal_text.mjs';

/** catalogue ids (`fill-wait-queue-empty`) and operator ids (`op:NAME@FILE:LINE`): plain text, no separator a shell or a terminal reads */
export const MUTANT_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}$/;

/** @typedef {(value: string) => string | null} Check  what is wrong with a value, or null */

/** @param {string[]} words @returns {Check} */
const oneOf = (...words) => (v) => (words.includes(v) ? null : `wants ${words.join(' or ')} (or unset)`);

/** @param {number} min @param {number} max @returns {Check} */
const integer = (min, max) => (v) =>
  /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max
    ? null
    : `wants an integer in [${min}, ${max === Number.MAX_SAFE_INTEGER ? '...' : max}] (or unset)`;

/** @type {Check} */
const mutantId = (v) => (MUTANT_ID.test(v) ? null : 'wants a mutant id (letters, digits and ._:@/- only)');

/** @type {Check} */
const path = (v) => (v.trim() === v ? null : 'wants a path (no leading or trailing blanks)');

const DELAY = integer(0, 1_000_000);

/**
 * Every variable tierlab reads, with its check and what it does (the README's table).
 * @type {readonly { name: string, check: Check }[]}
 */
export const ENVIRONMENT_VARIABLES = [
  { name: 'TIERLAB_DEBUG', check: oneOf('0', '1') },
  { name: 'TIERLAB_LIB', check: path },
  { name: 'TIERLAB_PIN', check: oneOf('0', '1') },
  { name: 'TIERLAB_COPY_THREADS', check: integer(1, 16) },
  { name: 'TIERLAB_CPU_COPY_THREADS', check: integer(1, 16) },
  { name: 'TIERLAB_VK_UPLOAD', check: oneOf('staged', 'mapped') },
  { name: 'TIERLAB_VK_LANES', check: integer(1, 64) },
  { name: 'TIERLAB_VK_VALIDATION', check: oneOf('0', '1', 'sync') },
  ...['CPU', 'CUDA', 'VK'].flatMap((b) => [
    { name: `TIERLAB_${b}_COPY_DELAY_US`, check: DELAY },
    { name: `TIERLAB_${b}_GROUP_DELAY_US`, check: DELAY },
  ]),
  { name: 'TIERLAB_STRYKER_RUNS', check: integer(1, Number.MAX_SAFE_INTEGER) },
  // the C tier's schedule harness to load instead of the project's (a tier of one's own)
  { name: 'TIERLAB_CTIER_LIB', check: path },
  { name: 'TIERLAB_MUTANT', check: mutantId },
  { name: 'TIERLAB_REQUIRE_VULKAN', check: oneOf('0', '1') },
  { name: 'TIERLAB_TEST_RUNS', check: integer(1, Number.MAX_SAFE_INTEGER) },
  { name: 'TIERLAB_RESTORE_MUTANTS', check: oneOf('all') },
  { name: 'TIERLAB_CHROMIUM', check: path },
  // the Vulkan validation layer's own switch, which the oracle reads to name what ran
  { name: 'VK_KHRONOS_VALIDATION_VALIDATE_SYNC', check: oneOf('0', '1', 'true', 'false') },
];

/**
 * What is wrong with the variables in `env`: one sentence per bad one.
 * @param {NodeJS.ProcessEnv} env
 * @returns {string[]}
 */
export function variableProblems(env) {
  const problems = [];
  const known = new Set(ENVIRONMENT_VARIABLES.map((v) => v.name));
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    const entry = ENVIRONMENT_VARIABLES.find((v) => v.name === name);
    const problem =
      entry !== undefined
        ? entry.check(value)
        : name.startsWith('TIERLAB_') && !known.has(name)
          ? 'is no tierlab variable (a typo? the README lists them)'
          : null;
    if (problem !== null) problems.push(`${printable(name)}=${JSON.stringify(printable(value))}: ${problem}`);
  }
  return problems;
}

/**
 * What is wrong with the temporary directory, or null: it must be a folder this process
 * can make a folder in, and the TypeScript loader's cache there (tsx-<uid>) a folder.
 * @returns {string | null}
 */
export function temporaryDirectoryProblem() {
  const dir = tmpdir();
  const shown = `the temporary directory ${printable(dir)}${process.env.TMPDIR ? ' (TMPDIR)' : ''}`;
  try {
    if (!statSync(dir).isDirectory()) return `${shown} is not a folder; set TMPDIR to a writable folder`;
  } catch (e) {
    return `${shown} cannot be used (${/** @type {NodeJS.ErrnoException} */ (e).code}); set TMPDIR to a writable folder`;
  }
  const cache = join(dir, `tsx-${process.geteuid?.() ?? 'user'}`);
  if (existsSync(cache) && !statSync(cache).isDirectory())
    return `${printable(cache)}, the TypeScript loader's cache, is not a folder; remove it`;
  try {
    rmdirSync(mkdtempSync(join(dir, 'tierlab-check-')));
  } catch (e) {
    const code = /** @type {NodeJS.ErrnoException} */ (e).code;
    return `${shown} is not writable (${code}); set TMPDIR to a writable folder`;
  }
  return null;
}

/**
 * Checks the environment for `tool`; on a problem prints one line and exits (2 for a bad
 * variable, 74 for an unusable temporary directory).
 * @param {string} tool
 */
export function checkEnvironment(tool) {
  const tmp = temporaryDirectoryProblem();
  if (tmp !== null) {
    process.stderr.write(`${tool}: ${tmp}\n`);
    process.exit(74);
  }
  const bad = variableProblems(process.env);
  if (bad.length > 0) {
    process.stderr.write(`${tool}: ${bad.join('; ')}\n`);
    process.exit(2);
  }
}
