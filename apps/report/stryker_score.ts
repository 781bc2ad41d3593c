/**
 * The Stryker mutation score from reports/stryker/mutation.json (the mutation-testing
 * report schema Stryker writes: `files` -> each file's `mutants`, each with a `status`).
 * Scored as Stryker scores it: detected (Killed, Timeout) over detected plus undetected
 * (Survived, NoCoverage); CompileError, RuntimeError, Ignored and Pending are not counted.
 */
import { checkShape, ReportInputError } from './json_shape.js';
import type { StrykerInput } from './report_inputs.js';

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

export function strykerScore(data: unknown, file: string): StrykerInput {
  checkShape(data, { files: 'object' }, file);
  const files = (data as { files: Record<string, unknown> }).files;
  const tally = { mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, excluded: 0 };
  const byFile: { file: string; detected: number; undetected: number; score: number | null }[] = [];
  for (const [name, f] of Object.entries(files)) {
    checkShape(f, { mutants: 'array' }, file, `files["${name}"]`);
    let detected = 0;
    let undetected = 0;
    for (const [i, m] of (f as { mutants: unknown[] }).mutants.entries()) {
      checkShape(m, { status: 'string' }, file, `files["${name}"].mutants[${i}]`);
      const status = (m as { status: string }).status;
      tally.mutants++;
      if (status === 'Killed') tally.killed++;
      else if (status === 'Timeout') tally.timeout++;
      else if (status === 'Survived') tally.survived++;
      else if (status === 'NoCoverage') tally.noCoverage++;
      else tally.excluded++;
      if (DETECTED.has(status)) detected++;
      if (UNDETECTED.has(status)) undetected++;
    }
    byFile.push({
      file: name,
      detected,
      undetected,
      score: detected + undetected > 0 ? detected / (detected + undetected) : null,
    });
  }
  if (tally.mutants === 0) throw new ReportInputError(`${file}: holds no mutants`);
  const counted = tally.killed + tally.timeout + tally.survived + tally.noCoverage;
  return {
    file,
    ...tally,
    score: counted > 0 ? (tally.killed + tally.timeout) / counted : null,
    byFile: byFile.sort((a, b) => a.file.localeCompare(b.file)),
  };
}
