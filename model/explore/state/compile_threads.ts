/**
 * The thread code (src/tier/, src/engine/driver.ts and what they import from src/),
 * compiled again in memory with its generators instrumented (locals_transform.ts), so
 * that the state cache can read each thread's program point and locals (frames.ts); in
 * the `resumable` mode also downlevelled to ES5 generators whose whole state a snapshot
 * can save and write back (restore/), so that a search goes on from a saved state.
 *
 * Sources are read from this checkout (or the scratch copy a mutant runs in), compiled
 * with TypeScript's single-file transpiler to CommonJS and evaluated with a require that
 * compiles relative imports the same way; packages come from the ordinary require. The
 * result is cached per process. The compiled tier is the same code: instrumentation only
 * records locals (test/explore/restore.test.ts checks the traces are byte-identical).
 *
 * What a file compiles to is kept on disk (node_modules/.cache/tierlab-threads/)
 * under a hash of its path, its text and the compiler's own sources and version, so a
 * later process (a worker thread of a parallel search, the next command) loads it
 * without loading TypeScript at all; a changed source or transform is a new name.
 *
 * Invariant: a source the transform cannot follow (a yield nested after an expression it
 * cannot record) is an error naming the file and line, never a silently weaker digest;
 * such a file is never cached.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type ts from 'typescript';
import type { DriverPlan } from '../../../src/engine/driver.js';
import type { Gen } from '../../../src/ops.js';
import type { Tier } from '../../../src/tier/tier.js';
import type { TierConfig } from '../../../src/tier/config.js';
import { localsTransform, type TransformProblem } from './locals_transform.js';
import { frameRegistry } from './frames.js';
import { resumeTransform } from './restore/resume_transform.js';
import { compiledHelpers } from './restore/compiled_helpers.js';

export interface CompiledThreads {
  /** a tier over the given state (the run's own, which the checkers watch) */
  tierOver(st: Tier['st']): Tier;
  engineMain(tier: Tier, plan: DriverPlan): Gen<void>;
}

/**
 * `frames`: ES2022 generators, frames recorded (the state cache's digests). `resumable`:
 * the same, downlevelled to ES5 generators whose state a snapshot can save and write back
 * (restore/resumable_generator.ts), for a search that restores states instead of
 * replaying to them.
 */
export type ThreadCompilation = 'frames' | 'resumable';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const packages = createRequire(import.meta.url);
const compiledByMode = new Map<ThreadCompilation, CompiledThreads>();
const loaders = new Map<ThreadCompilation, (file: string) => Record<string, unknown>>();

export function compiledThreads(mode: ThreadCompilation = 'frames'): CompiledThreads {
  const known = compiledByMode.get(mode);
  if (known !== undefined) return known;
  const tierModule = compiledModule(resolve(root, 'src/tier/tier.ts'), mode);
  const driver = compiledModule(resolve(root, 'src/engine/driver.ts'), mode);
  const TierClass = tierModule.Tier as new (cfg: TierConfig) => Tier;
  const engineMain = driver.engineMain as CompiledThreads['engineMain'];
  const threads: CompiledThreads = {
    tierOver(st) {
      const t = new TierClass(st.cfg);
      (t as { st: Tier['st'] }).st = st;
      return t;
    },
    engineMain,
  };
  compiledByMode.set(mode, threads);
  return threads;
}

/**
 * The exports of one source file compiled this way (its relative imports too, each file
 * once per mode): the tier and the driver, or a test's own thread code.
 */
export function compiledModule(file: string, mode: ThreadCompilation): Record<string, unknown> {
  let load = loaders.get(mode);
  if (load === undefined) {
    load = moduleLoader(mode);
    loaders.set(mode, load);
  }
  return load(file);
}

function moduleLoader(mode: ThreadCompilation): (file: string) => Record<string, unknown> {
  // the instrumented code reports to it (frames are kept only while a search names a thread)
  frameRegistry();
  const modules = new Map<string, { exports: Record<string, unknown> }>();
  const load = (file: string): Record<string, unknown> => {
    const known = modules.get(file);
    if (known !== undefined) return known.exports;
    const text = transpiled(file, mode);
    const module = { exports: {} as Record<string, unknown> };
    modules.set(file, module);
    const req = (spec: string): unknown => {
      if (!spec.startsWith('.')) return packages(spec);
      return load(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
    };
    const h = compiledHelpers;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating the compiled module
    new Function('require', 'module', 'exports', '__generator', '__values', '__assign', text)(
      req,
      module,
      module.exports,
      h.__generator,
      h.__values,
      h.__assign,
    );
    return module.exports;
  };
  return load;
}

/** with the packages, as build tools keep theirs (a scratch copy links the same folder) */
const CACHE = join(root, 'node_modules', '.cache', 'tierlab-threads');
/** what else decides the output: the transform, this file's options, the compiler's version */
let compilerKey: string | null = null;

function keyOf(file: string, source: string, mode: ThreadCompilation): string {
  compilerKey ??= [
    readFileSync(fileURLToPath(new URL('./locals_transform.ts', import.meta.url)), 'utf8'),
    readFileSync(fileURLToPath(new URL('./restore/resume_transform.ts', import.meta.url)), 'utf8'),
    readFileSync(fileURLToPath(import.meta.url), 'utf8'),
    readFileSync(packages.resolve('typescript/package.json'), 'utf8'),
  ].join('\0');
  return createHash('sha256')
    .update(compilerKey)
    .update('\0')
    .update(mode)
    .update('\0')
    .update(relative(root, file))
    .update('\0')
    .update(source)
    .digest('hex');
}

/** Where the compiled text of `file` (as it reads now) is kept. */
export function cacheFile(
  file: string,
  source = readFileSync(file, 'utf8'),
  mode: ThreadCompilation = 'frames',
): string {
  return join(CACHE, `${keyOf(file, source, mode)}.js`);
}

/** The helpers compiled thread code may call (compiled_helpers.ts). */
const HELPERS_GIVEN = /\b__(generator|values|assign)\(/g;

/** The instrumented CommonJS text of one source file, from the cache or compiled now. */
export function transpiled(file: string, mode: ThreadCompilation = 'frames'): string {
  const source = readFileSync(file, 'utf8');
  const cached = cacheFile(file, source, mode);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // not compiled yet
  }
  const compiler = packages('typescript') as typeof ts;
  const problems: TransformProblem[] = [];
  const out = compiler.transpileModule(source, {
    fileName: file,
    compilerOptions: {
      module: compiler.ModuleKind.CommonJS,
      target: mode === 'resumable' ? compiler.ScriptTarget.ES5 : compiler.ScriptTarget.ES2022,
      // ES5: for-of through __values (compiled_helpers.ts), helpers given, not emitted
      ...(mode === 'resumable' ? { downlevelIteration: true, noEmitHelpers: true } : {}),
      preserveConstEnums: true,
      esModuleInterop: true,
    },
    transformers: {
      before: [localsTransform(compiler, relative(root, file), problems)],
      after: mode === 'resumable' ? [resumeTransform(compiler)] : [],
    },
  });
  const p = problems[0];
  if (p !== undefined)
    throw new Error(
      `state cache: cannot record the locals at ${p.file}:${p.line}: a yield is evaluated after '${p.text}'`,
    );
  // the ES5 output may call only the helpers compiled_helpers.ts gives; another one (an
  // array spread's __spreadArray, a destructuring's __read) would throw inside a thread,
  // where it reads as a crash of the code under test
  const helper = mode === 'resumable' ? /\b(__[a-zA-Z]+)\(/.exec(out.outputText.replace(HELPERS_GIVEN, '')) : null;
  if (helper !== null)
    throw new Error(
      `state cache: ${relative(root, file)} needs the ES5 helper ${helper[1]}, which thread code may not use ` +
        '(write it without array spread or destructuring of iterables)',
    );
  // written whole under a private name, then renamed: a reader never sees half a file
  const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(partial, out.outputText);
    renameSync(partial, cached);
  } catch {
    // a folder that cannot be written (read-only packages): compiled again next time
  }
  return out.outputText;
}
