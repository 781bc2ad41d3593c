/**
 * The one writer of the files tierlab leaves behind (reports, counterexamples, shard
 * files, manifests): each is written to a temporary file beside it and renamed into
 * place, so a reader (or the next run) sees the old file or the new one, never half of
 * one, and a full disk leaves the previous report as it was.
 *
 * Invariants: on success `file` holds exactly `content`, synced to disk before the
 * rename; on failure `file` is untouched, the temporary file is gone, and the error is an
 * EnvironmentError naming the folder (exit 74): no space, a quota, a read-only file
 * system, or a folder that vanished or cannot be written. Markdown goes through the
 * terminal escaper first: a report is read in a terminal too (`cat reports/x.md`).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EnvironmentError, environmentProblem } from './environment_error.js';
import { printable } from './terminal_text.mjs';

function writeAll(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** Writes `content` to `file` atomically (a temporary file beside it, then a rename). */
export function writeReportFile(file: string, content: string | Uint8Array): void {
  const dir = dirname(file);
  const text = typeof content === 'string' && file.endsWith('.md') ? printable(content, 'lines') : content;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const partial = join(dir, `.${basename(file)}.${process.pid}.part`);
  let fd: number | null = null;
  try {
    mkdirSync(dir, { recursive: true });
    fd = openSync(partial, 'w');
    writeAll(fd, bytes);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(partial, file);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    rmSync(partial, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    const problem = environmentProblem(code) ?? code ?? (e as Error).message;
    throw new EnvironmentError(dir, `cannot write ${basename(file)}: ${problem}; any previous one is left as it was`);
  }
}
