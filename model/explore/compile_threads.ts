/**
 * The thread code (src/tier/, src/engine/driver.ts and what they import from src/),
 * compiled again in memory with its generators instrumented (locals_transform.ts), so
 * that the state cache can read each thread's program point and locals (frames.ts).
 *
 * Sources are read from this checkout (or the scratch copy a mutant runs in), compiled
 * with TypeScript's single-file transpiler to CommonJS and evaluated with a require that
 * compiles relative imports the same way; packages come from the ordinary require. The
 * result is cached per process. The compiled tier is the same code: instrumentation only
 * records locals (test/explore/frames.test.ts checks the traces are byte-identical).
 *
 * Invariant: a source the transform cannot follow (a yield nested after an expression it
 * cannot record) is an error naming the file and line, never a silently weaker digest.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { DriverPlan } from '../../src/engine/driver.js';
import type { Gen } from '../../src/ops.js';
import type { Tier } from '../../src/tier/tier.js';
import type { TierConfig } from '../../src/tier/config.js';
import { localsTransform, type TransformProblem } from './locals_transform.js';
import { frameRegistry } from './frames.js';

export interface CompiledThreads {
  /** a tier over the given state (the run's own, which the checkers watch) */
  tierOver(st: Tier['st']): Tier;
  engineMain(tier: Tier, plan: DriverPlan): Gen<void>;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const packages = createRequire(import.meta.url);
let compiled: CompiledThreads | null = null;

export function compiledThreads(): CompiledThreads {
  if (compiled !== null) return compiled;
  // the instrumented code reports to it (frames are kept only while a search names a thread)
  frameRegistry();
  const modules = new Map<string, { exports: Record<string, unknown> }>();
  const load = (file: string): Record<string, unknown> => {
    const known = modules.get(file);
    if (known !== undefined) return known.exports;
    const rel = relative(root, file);
    const problems: TransformProblem[] = [];
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        preserveConstEnums: true,
        esModuleInterop: true,
      },
      transformers: { before: [localsTransform(rel, problems)] },
    });
    if (problems.length > 0) {
      const p = problems[0];
      throw new Error(
        `state cache: cannot record the locals at ${p?.file}:${p?.line}: a yield is evaluated after '${p?.text}'`,
      );
    }
    const module = { exports: {} as Record<string, unknown> };
    modules.set(file, module);
    const req = (spec: string): unknown => {
      if (!spec.startsWith('.')) return packages(spec);
      return load(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
    };
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating the compiled module
    new Function('require', 'module', 'exports', out.outputText)(req, module, module.exports);
    return module.exports;
  };
  const tierModule = load(resolve(root, 'src/tier/tier.ts'));
  const driver = load(resolve(root, 'src/engine/driver.ts'));
  const TierClass = tierModule.Tier as new (cfg: TierConfig) => Tier;
  const engineMain = driver.engineMain as CompiledThreads['engineMain'];
  compiled = {
    tierOver(st) {
      const t = new TierClass(st.cfg);
      (t as { st: Tier['st'] }).st = st;
      return t;
    },
    engineMain,
  };
  return compiled;
}
