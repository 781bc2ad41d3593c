/**
 * The Stryker mutants excluded from the score of the tier (src/tier) and of the reference
 * (src/protocol_ref), held here and in exclusions.json rather than as comments in the
 * sources, so that the tier and the reference read like the protocol. Each
 * entry names a file, the text of one line of it (trimmed), the mutators excluded on that
 * line and why (a trace mark's detail no checker reads, or an equivalent mutant argued in
 * mutants/equivalent.md, "Stryker survivors").
 *
 * How: Stryker's own `// Stryker disable next-line MUTATOR: why` rule, given to the
 * instrumenter without being written in the source. When the instrumenter enters a file
 * (its Program node), this ignorer puts that comment on the first node that starts on
 * the entry's line, where the instrumenter reads it as it would a comment in the file:
 * the same mutants are excluded, on that line and for those mutators only. The ignorer
 * itself never ignores a node.
 *
 * Invariants: an entry's line text occurs exactly `matches` times in its file (default
 * once), else the instrumenter stops with a message, so an edit of the tier cannot turn an
 * exclusion silently into nothing (test/mutants/stryker_exclusions.test.ts checks it too);
 * a file with no entry is left alone.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** The exclusions, as exclusions.json lists them. */
export const EXCLUSIONS = JSON.parse(readFileSync(new URL('./exclusions.json', import.meta.url), 'utf8'));

/** The repository root: this file is mutants/stryker/exclusions.mjs. */
const ROOT = new URL('../../', import.meta.url).pathname;

/** The 1-based numbers of the lines of `code` whose trimmed text is `line`. */
export function linesOf(code, line) {
  const at = [];
  code.split('\n').forEach((text, i) => {
    if (text.trim() === line) at.push(i + 1);
  });
  return at;
}

/** The entries of a file's exclusions whose line does not occur as often as they say. */
export function staleExclusions(file, code) {
  return EXCLUSIONS.filter((e) => e.file === file && linesOf(code, e.line).length !== (e.matches ?? 1));
}

/** The first node, in the order the instrumenter enters them, that starts on `line`. */
function firstNodeOn(program, line) {
  let found = null;
  program.traverse({
    enter(p) {
      if (p.node.loc?.start.line === line) {
        found = p.node;
        p.stop();
      }
    },
  });
  return found;
}

function fileOf(program) {
  const name = program.hub?.file?.opts?.filename ?? program.node.loc?.filename ?? '';
  return relative(ROOT, name).split('\\').join('/');
}

export const ignorer = {
  shouldIgnore(path) {
    if (!path.isProgram()) return undefined;
    const file = fileOf(path);
    const mine = EXCLUSIONS.filter((e) => e.file === file);
    if (mine.length === 0) return undefined;
    const code = path.hub?.file?.code ?? readFileSync(`${ROOT}${file}`, 'utf8');
    const stale = staleExclusions(file, code);
    if (stale.length > 0) {
      throw new Error(
        `mutants/stryker/exclusions.json: in ${file}, ${stale.map((e) => `'${e.line}'`).join(', ')} no longer occurs as often as the entry says; update the entry (or drop it) with the argument in mutants/equivalent.md`,
      );
    }
    for (const e of mine) {
      for (const line of linesOf(code, e.line)) {
        const node = firstNodeOn(path, line);
        if (node === null) throw new Error(`mutants/stryker/exclusions.json: no code starts on ${file}:${line}`);
        const at = { line: line - 1, column: 0, index: 0 };
        node.leadingComments = [
          ...(node.leadingComments ?? []),
          {
            type: 'CommentLine',
            value: ` Stryker disable next-line ${e.mutators.join(',')}: ${e.why}`,
            loc: { start: at, end: at },
          },
        ];
      }
    }
    return undefined;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'tier-exclusions', ignorer)];
