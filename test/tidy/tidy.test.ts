/**
 * Tidy: what the house keeps by hand, checked (TigerBeetle's tidy.zig in spirit). Each
 * test names the rule and, on failure, every place that breaks it.
 *  - the folder layering (test/tidy/layers.ts) and no import cycle between files;
 *  - the tier and the simulator touch no time, randomness or promises; koffi is imported
 *    by the bindings alone (the engine's, and the C tier's over it); every command is a
 *    function (apps/cli/bin/ holds the two-line entry points, no other command file runs
 *    code when imported);
 *  - every source file opens with a comment that gives its role;
 *  - every property id the code throws is catalogued, and every catalogued id is thrown;
 *  - lines and functions stay within their lengths (a ratchet: today's exceptions are
 *    listed and may only shrink).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROPERTY_IDS } from '../../src/check/catalogue.js';
import { cycles } from './graph.js';
import { APART, folderOf, layerOf } from './layers.js';
import { projectFiles, readSources } from './source_files.js';

const sources = readSources();
const code = sources.filter((s) => !s.path.startsWith('test/'));

describe('tidy: structure', () => {
  it('every file belongs to a layer', () => {
    expect(sources.filter((s) => folderOf(s.path) === null && !/^[^/]+\.ts$/.test(s.path)).map((s) => s.path)).toEqual(
      [],
    );
  });

  it('no file imports from a layer above its own, and the two worlds never import each other', () => {
    const bad: string[] = [];
    for (const s of sources) {
      const from = layerOf(s.path);
      if (from < 0) continue;
      for (const target of s.imports) {
        const to = layerOf(target);
        const apart = APART.some(([a, b]) => {
          const fa = folderOf(s.path);
          const fb = folderOf(target);
          return (fa === a && fb === b) || (fa === b && fb === a);
        });
        if (to > from || apart) bad.push(`${s.path} -> ${target}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('no import cycle between files', () => {
    expect(cycles(sources.map((s) => [s.path, s.imports] as const))).toEqual([]);
  });
});

describe('tidy: purity', () => {
  const pure = code.filter(
    (s) =>
      /^(src\/tier|src\/check|src\/protocol_ref|model\/(rt|sim_engine|ram|scenario))\//.test(s.path) ||
      s.path === 'src/engine/driver.ts',
  );
  it('the tier, the checks and the simulator use no time, randomness or promises', () => {
    const banned =
      /\b(Date|Math\.random|setTimeout|setInterval|setImmediate|Promise|performance|process)\b|\basync\b|\bawait\b/;
    const bad = pure.flatMap((s) =>
      codeLines(s.text)
        .filter((l) => banned.test(l.text))
        .map((l) => `${s.path}:${l.line}: ${l.text.trim()}`),
    );
    expect(pure.length).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });

  it('the tier imports only the op vocabulary and its own files', () => {
    const bad = code
      .filter((s) => s.path.startsWith('src/tier/'))
      .flatMap((s) =>
        s.imports.filter((i) => !i.startsWith('src/tier/') && i !== 'src/ops.ts').map((i) => `${s.path} -> ${i}`),
      );
    expect(bad).toEqual([]);
  });

  it('every command is a function: apps/cli/bin/ holds two-line entry points, and no other command file runs code when imported', () => {
    const cli = code.filter((s) => s.path.startsWith('apps/cli/'));
    const entries = cli.filter((s) => s.path.startsWith('apps/cli/bin/'));
    expect(entries.length).toBeGreaterThan(7);
    const long = entries.filter((s) => codeLines(s.text).length > 2).map((s) => s.path);
    // a statement at the top of a module, or the process's arguments read anywhere but where
    // run_command.ts hands them to main: what a script of top-level statements does
    const statement =
      /^(await\b|for\b|if\b|try\b|while\b|do\b|switch\b|process\.|[A-Za-z_$][\w$]*(\.[\w$]+)*\s*\(|(export\s+)?(const|let|var)\s+([{[]|[\w$]+\s*(:[^=]+)?=\s*await\b))|\bprocess\.argv\b/;
    const running = cli
      .filter((s) => !s.path.startsWith('apps/cli/bin/') && s.path !== 'apps/cli/run_command.ts')
      .flatMap((s) =>
        codeLines(s.text)
          .filter((l) => statement.test(l.text))
          .map((l) => `${s.path}:${l.line}: ${l.text.trim()}`),
      );
    expect(long).toEqual([]);
    expect(running).toEqual([]);
  });

  it('koffi is imported only by the bindings (the engine, and the C tier over it)', () => {
    expect(code.filter((s) => s.packages.includes('koffi')).map((s) => s.path)).toEqual([
      'src/engine/native/binding.ts',
      'src/engine/native/ctier_binding.ts',
    ]);
  });
});

describe('tidy: the house style', () => {
  it('every source file opens with a comment that gives its role', () => {
    const files = projectFiles(['*.ts', '*.mjs', '*.c', '*.h', '*.cu', '*.comp', '*.glsl', '*.sh']).filter(
      (f) => !f.startsWith('test/') || f.endsWith('.ts'),
    );
    const bad = files.filter((f) => {
      const head = readFileSync(f, 'utf8')
        .replace(/^#!.*\n/, '')
        .trimStart();
      return !(head.startsWith('/*') || head.startsWith('//') || head.startsWith('#'));
    });
    expect(bad).toEqual([]);
  });

  it('every property id thrown is catalogued, and every catalogued id is thrown somewhere', () => {
    const thrown = new Set<string>();
    for (const s of code) for (const m of s.text.matchAll(/Violation\(\s*'([A-Z][A-Z-]+)'/g)) thrown.add(m[1] ?? '');
    for (const s of code)
      for (const m of s.text.matchAll(/'(LIVE-SHUTDOWN|LIVE-DEADLOCK)'\s*:\s*'(LIVE-SHUTDOWN|LIVE-DEADLOCK)'/g))
        thrown.add(m[1] ?? '').add(m[2] ?? '');
    // the refinement check throws the family the reference names (src/protocol_ref, src/check/refinement)
    for (const s of code.filter((f) => /^src\/(protocol_ref|check\/refinement)\//.test(f.path))) {
      for (const m of s.text.matchAll(/'(SPEC-[A-Z-]+)'/g)) thrown.add(m[1] ?? '');
    }
    const known = new Set<string>(PROPERTY_IDS);
    expect([...thrown].filter((id) => !known.has(id))).toEqual([]);
    expect(PROPERTY_IDS.filter((id) => !thrown.has(id))).toEqual([]);
  });

  it('lines stay within 120 columns (ratchet)', () => {
    const long = code.flatMap((s) =>
      codeLines(s.text)
        .filter((l) => l.text.length > 120)
        .map(() => s.path),
    );
    expect(long.length).toBeLessThanOrEqual(LONG_LINES_ALLOWED);
  });

  it('functions stay within 70 lines (ratchet: the listed exceptions may only shrink)', () => {
    const long = code.flatMap((s) => longFunctions(s.path, s.text, 70));
    expect(long.filter((f) => !LONG_FUNCTIONS_ALLOWED.includes(f))).toEqual([]);
  });
});

/** Lines over 120 columns today (after the formatter: long strings and template literals it does not break). */
const LONG_LINES_ALLOWED = 30;
/** Functions over 70 lines today, as `file:name`; remove an entry when its function is split. */
const LONG_FUNCTIONS_ALLOWED: readonly string[] = [
  'mutants/lib/run_mutant.ts:runMutant',
  'properties/arbitraries.ts:scenarioAimed',
  'src/check/checkers/accounting.ts:accountingChecker',
  'apps/cli/bench/bench_report.ts:renderMarkdown',
  'apps/report/lane_model.ts:buildLaneModel',
  'apps/report/mutants_section.ts:renderMutantsSection',
  // past 70 lines once the formatter broke their long lines (2026-12-01); split one, drop it
  'model/explore/pct_campaign.ts:pctCampaign',
  'src/engine/native/real_world.ts:makeHandlers',
  'src/fixture/container.ts:buildModel',
  'apps/oracle/oracle_report.ts:writeOracleReport',
  'apps/oracle/oracle_run.ts:runOnce',
  'apps/report/charts.ts:lineChart',
  'apps/report/charts.ts:barChart',
  'apps/report/kill_matrix.ts:renderKillMatrix',
  'apps/report/properties_section.ts:renderPropertiesSection',
  'apps/report/report_checks.ts:benchReport',
  'src/tier/uploader.ts:uploaderThread',
];

function codeLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((raw, i) => {
    let l = raw;
    if (inBlock) {
      const end = l.indexOf('*/');
      if (end < 0) return;
      l = l.slice(end + 2);
      inBlock = false;
    }
    l = l.replace(/\/\*.*?\*\//g, '');
    const open = l.indexOf('/*');
    if (open >= 0) {
      inBlock = true;
      l = l.slice(0, open);
    }
    l = l.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
    l = l.replace(/(^|[^:])\/\/.*$/, '$1');
    if (l.trim() !== '') out.push({ line: i + 1, text: l });
  });
  return out;
}

/** Named functions and methods longer than `max` lines, by brace matching on their body. */
function longFunctions(path: string, text: string, max: number): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  const head =
    /^\s*(?:export\s+)?(?:async\s+)?(?:function\*?\s+(\w+)|(?:private\s+|public\s+|static\s+|readonly\s+)*\*?(\w+)\s*\([^)]*\)\s*(?::\s*[^{]+)?\{\s*$)/;
  lines.forEach((l, i) => {
    const m = head.exec(l);
    if (m === null) return;
    const name = m[1] ?? m[2] ?? '';
    if (['if', 'for', 'while', 'switch', 'catch'].includes(name)) return;
    let depth = 0;
    for (let j = i; j < lines.length; j++) {
      for (const ch of lines[j] ?? '') {
        if (ch === '{') depth++;
        else if (ch === '}') depth--;
      }
      if (depth === 0 && j > i) {
        if (j - i + 1 > max) out.push(`${path}:${name}`);
        return;
      }
    }
  });
  return out;
}
