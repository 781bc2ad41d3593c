/**
 * One oracle invocation in a child process (the CLI in some source tree, with some
 * library), and what it found: the verdict a kill table records.
 *
 * killed: the oracle exited 1 (a token off the reference, hidden states off the CPU-only
 * run, a property violated, a missed arranged situation, or a validation message), with
 * the evidence read from its JSON report; a process that died after the validation
 * layer printed a message is killed by that message, and one killed by a signal (the
 * engine crashed: the callers of a kill table have checked that the unpatched library
 * passes the same runs) is killed by that crash; survived: it exited 0; error: anything
 * else (bad input, a timeout), with the last line it printed.
 *
 * The child writes its report into a scratch folder of the one clean-up registry
 * (src/input/cleanup.ts) and has its temporary directory inside it, and it runs
 * asynchronously: a signal to this process kills it at once and removes the folder with
 * whatever the child left there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChild } from '../../../mutants/lib/child.js';
import { NATIVE_BACKENDS } from '../../../src/engine/native/library_file.js';
import { childTmp, scratchDir } from '../../../src/input/cleanup.js';

export interface OracleVerdict {
  readonly status: 'killed' | 'survived' | 'error';
  /** what caught it (killed), or why it is an error */
  readonly evidence: string;
  readonly seconds: number;
}

export interface OracleChild {
  /** the tree whose oracle (apps/cli/bin/oracle.ts) runs (node_modules reachable from there) */
  readonly cwd: string;
  /** a bundled oracle (scripts/gpu/pack.sh) to run with plain node instead */
  readonly script?: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
}

interface ReportRun {
  readonly name: string;
  readonly pass: boolean;
  readonly tokensMatched: number;
  readonly tokens: number;
  readonly firstDivergence: number;
  readonly hiddenBitIdentical: boolean;
  readonly problem: string | null;
  readonly groupsIssued?: number | null;
  readonly groupsMetUploads?: number | null;
}

/** The first failed run (tokens, hidden states, the problem), how many more failed, and
 *  the validation messages: what caught it, short enough for a table cell. */
function evidenceOf(report: { runs: readonly ReportRun[]; validationMessages: number | null }): string {
  const failed = report.runs
    .filter((r) => !r.pass)
    .map((r) => {
      const parts = [
        `${r.tokensMatched}/${r.tokens} tokens${r.firstDivergence >= 0 ? ` (first off at ${r.firstDivergence})` : ''}`,
      ];
      if (!r.hiddenBitIdentical) parts.push('hidden states differ');
      if (r.problem !== null) parts.push(r.problem.slice(0, 160));
      return `${r.name}: ${parts.join(', ')}`;
    });
  const shown = failed.slice(0, 1);
  if (failed.length > 1) shown.push(`${failed.length - 1} more runs failed`);
  if ((report.validationMessages ?? 0) > 0) shown.push(`${report.validationMessages} validation messages`);
  return shown.join('; ');
}

/** What a surviving library's runs did reach: a survivor's "why" column (for a slow bus,
 *  whether groups met tensors still uploading at all). */
function reachedOf(report: { runs: readonly ReportRun[] } | null): string {
  if (report === null) return '';
  return report.runs
    .filter((r) => (r.groupsMetUploads ?? null) !== null && (r.groupsIssued ?? 0) > 0)
    .map((r) => `${r.name}: ${r.groupsMetUploads}/${r.groupsIssued} groups met a tensor still uploading`)
    .join('; ');
}

export async function runOracleChild(c: OracleChild): Promise<OracleVerdict> {
  const scratch = scratchDir('kill-');
  const report = join(scratch.dir, 'report');
  const t0 = performance.now();
  try {
    const entry = c.script !== undefined ? [c.script] : ['--import', 'tsx', 'apps/cli/bin/oracle.ts'];
    const r = await runChild(process.execPath, [...entry, ...c.args, '--report', report], {
      cwd: c.cwd,
      env: { ...process.env, ...c.env, TMPDIR: childTmp(scratch.dir) },
      timeoutMs: c.timeoutSeconds * 1000,
    });
    const seconds = (performance.now() - t0) / 1000;
    const json = readdirJson(report);
    if (r.rc === 0) return { status: 'survived', evidence: reachedOf(json), seconds };
    if (r.rc === 1 && json !== null)
      return { status: 'killed', evidence: evidenceOf(json) || 'the oracle failed', seconds };
    const output = `${r.stderr}${r.stdout}`;
    const why = r.timedOut
      ? `timed out after ${c.timeoutSeconds} s`
      : r.signal !== null
        ? `killed by ${r.signal}`
        : `exit ${r.rc}`;
    // the validation layer spoke before the process died: that message is the catch
    const vuid = /tierlab vulkan validation \w+ \[([^\]]+)\]/.exec(output);
    if (vuid !== null)
      return { status: 'killed', evidence: `validation: ${vuid[1]} (then the process ended: ${why})`, seconds };
    const last = output.trim().split('\n').pop() ?? '';
    // a timeout is an error (the run proved nothing); a crash is the defect showing
    if (r.signal !== null && !r.timedOut)
      return { status: 'killed', evidence: `the engine crashed (${r.signal}) after: ${last}`.slice(0, 300), seconds };
    return { status: 'error', evidence: `${why}: ${last}`.slice(0, 300), seconds };
  } finally {
    scratch.remove();
  }
}

function readdirJson(dir: string): { runs: ReportRun[]; validationMessages: number | null } | null {
  for (const backend of NATIVE_BACKENDS) {
    const f = join(dir, `oracle-${backend}.json`);
    if (existsSync(f))
      return JSON.parse(readFileSync(f, 'utf8')) as { runs: ReportRun[]; validationMessages: number | null };
  }
  return null;
}
