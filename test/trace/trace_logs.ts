/**
 * Free runs' logs for the trace tests: the C tier's stress program (real threads, the fake
 * backend) and its engine check (real threads, the native engine's CPU or Vulkan backend),
 * each built with make and run with --log, and the hand edits a test makes to a log (an
 * event dropped, two events' places swapped, a counter changed), each on the log's own
 * lines so the edit lands wherever this run's threads put things.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

export function make(target: string): void {
  const r = spawnSync('make', ['-s', '-C', 'native', target], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`make -C native ${target} failed:\n${r.stdout}${r.stderr}`);
}

/** Runs a program that writes its log with --log FILE; returns its output. */
export function runLogged(program: string, args: readonly string[], log: string): string {
  const r = spawnSync(program, [...args, '--log', log], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

export type Line = Record<string, unknown> & { seq: number; ev: string; lk: string; tid: number };

/** A log's events, sorted by seq. */
export function readSorted(file: string): Line[] {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
  return lines.sort((a, b) => a.seq - b.seq);
}

export function writeLines(file: string, lines: readonly Line[]): void {
  writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

/** The log without its first `ev` event, the later seqs closed up (no hole gives it away). */
export function dropFirst(lines: readonly Line[], ev: string): { lines: Line[]; seq: number } {
  const i = lines.findIndex((l) => l.ev === ev);
  const seq = lines[i]?.seq ?? -1;
  const out = lines.filter((_, j) => j !== i).map((l) => (l.seq > seq ? { ...l, seq: l.seq - 1 } : l));
  return { lines: out, seq };
}

/** The first unlock of mx followed directly by another thread's event under mx: the two swap places. */
export function swapAtHandOver(lines: readonly Line[]): { lines: Line[]; seq: number } {
  const i = lines.findIndex((l, j) => {
    const n = lines[j + 1];
    return l.ev === 'unlock' && n !== undefined && n.lk === 'mx' && n.tid !== l.tid && n.seq === l.seq + 1;
  });
  const a = lines[i];
  const b = lines[i + 1];
  if (a === undefined || b === undefined) throw new Error('the log has no hand-over of mx');
  const out = lines.map((l, j) => (j === i ? { ...l, seq: b.seq } : j === i + 1 ? { ...l, seq: a.seq } : l));
  return { lines: out, seq: a.seq };
}

/** The first `ev` event with `field` one more than the tier reported. */
export function bumpFirst(lines: readonly Line[], ev: string, field: string): { lines: Line[]; seq: number } {
  const i = lines.findIndex((l) => l.ev === ev);
  const out = lines.map((l, j) => (j === i ? { ...l, [field]: Number(l[field]) + 1 } : l));
  return { lines: out, seq: lines[i]?.seq ?? -1 };
}

/** The first `ev` event (outside the locks) numbered just before the last `before` event ahead of it, the seqs it passes one later. */
export function numberedBefore(lines: readonly Line[], ev: string, before: string): Line[] {
  const i = lines.findIndex((l) => l.ev === ev);
  const j = lines[i];
  let b: Line | undefined;
  for (let k = i - 1; k >= 0 && b === undefined; k--) if (lines[k]?.ev === before) b = lines[k];
  if (j === undefined || b === undefined) throw new Error(`the log has no ${before} before a ${ev}`);
  if (Number(j.after) >= b.seq)
    throw new Error(`the ${ev} may not stand before the ${before}: its thread's lock is later`);
  const to = b.seq;
  return lines.map((l) => (l === j ? { ...l, seq: to } : l.seq >= to && l.seq < j.seq ? { ...l, seq: l.seq + 1 } : l));
}
