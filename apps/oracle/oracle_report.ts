/**
 * The oracle report: reports/oracle-<backend>.json and .md, one row per run (the C
 * tier's: oracle-<backend>-ctier.*, with the rows its driver left out, each with why).
 *
 * Invariants: validation messages are counted only where a validation layer ran
 * ("validation: off" otherwise, never "0 messages"); a hit rate with no lookups is "-" in
 * the Markdown (0 in the JSON, with `lookups: 0`);
 * a report of an interrupted oracle says so and how many runs finished.
 */
import { join } from 'node:path';
import { writeReportFile } from '../../src/input/report_file.js';
import type { OracleRunResult } from './oracle_run.js';

export interface OracleRow {
  readonly result: OracleRunResult;
  readonly matched: number;
  /** first generated position that differs from the reference, -1 if none */
  readonly firstDivergence: number;
  readonly hiddenIdentical: boolean;
  readonly pass: boolean;
}

/** A row of the matrix a tier's driver cannot run, by name, with the reason. */
export interface SkippedRow {
  readonly name: string;
  readonly reason: string;
}

/** Vulkan's validation layer: not loaded, the core checks, or those and synchronization. */
export type Validation = 'off' | 'core' | 'sync';

export interface OracleReportInput {
  readonly backend: string;
  readonly devices: readonly number[];
  readonly tokens: number;
  readonly fixture: string;
  readonly library: string;
  readonly rows: readonly OracleRow[];
  /** null: a backend with no validation layer */
  readonly validation: Validation | null;
  /** messages the layer reported; null when no layer ran */
  readonly validationMessages: number | null;
  readonly ok: boolean;
  /** runs the matrix had */
  readonly planned: number;
  /** the signal that ended the run early, or null */
  readonly interrupted: string | null;
  /** the tier inside the engine: tierlab's TypeScript tier, or the C tier (native/tier/) */
  readonly tier: 'ts' | 'c';
  /** rows of the matrix not run, and why (the C tier's driver) */
  readonly skipped: readonly SkippedRow[];
}

export function writeOracleReport(dir: string, r: OracleReportInput): void {
  const date = new Date().toISOString();
  const runs = r.rows.map((row) => {
    const x = row.result;
    return {
      name: x.spec.name,
      pass: row.pass,
      tokensMatched: row.matched,
      tokens: r.tokens,
      firstDivergence: row.firstDivergence,
      hiddenBitIdentical: row.hiddenIdentical,
      residentAtEnd: x.residentAtEnd,
      residencyByToken: x.residencyByToken,
      lookups: x.hits + x.misses,
      hitRate: x.hits + x.misses > 0 ? x.hits / (x.hits + x.misses) : 0,
      uploads: x.uploads,
      uploadFailures: x.uploadFailures,
      swaps: x.swaps,
      uploadGBps: x.uploadGBps,
      tokPerSec: x.tokPerSec,
      problem: x.problem,
      notes: x.notes,
      nativeLedgerAtShutdown: x.nativeLedgerAtShutdown,
      trunkResident: x.trunkResident,
      trunkOffered: x.trunkOffered,
      trunkGemvsOnDevice: x.trunkOnDevice,
      trunkGemvsOnCpu: x.trunkOnCpu,
      lruHits: x.lru?.hits ?? null,
      lruMisses: x.lru?.misses ?? null,
      arranged: x.spec.arranged ?? null,
      situations: x.situations,
      groupsIssued: x.groups?.issued ?? null,
      groupsMetUploads: x.groups?.metUploads ?? null,
    };
  });
  // the upload path is the Vulkan backend's choice of environment (staged by default)
  const upload = r.backend === 'vulkan' ? (process.env.TIERLAB_VK_UPLOAD ?? 'staged') : null;
  const { planned, interrupted, validation, validationMessages, skipped } = r;
  const name = r.tier === 'c' ? `oracle-${r.backend}-ctier` : `oracle-${r.backend}`;
  const body = {
    date,
    backend: r.backend,
    tier: r.tier,
    devices: r.devices,
    fixture: r.fixture,
    library: r.library,
    tokens: r.tokens,
    ok: r.ok,
    planned,
    interrupted,
    upload,
    validation,
    validationMessages,
    runs,
    skipped,
  };
  writeReportFile(join(dir, `${name}.json`), JSON.stringify(body, null, 2) + '\n');
  const verdict =
    interrupted !== null
      ? `INTERRUPTED by ${interrupted} after ${r.rows.length} of ${planned} runs`
      : r.ok
        ? 'all runs token-exact and bit-identical'
        : 'MISMATCH';
  const md = [
    `# tierlab oracle${r.tier === 'c' ? ' (the C tier)' : ''}: ` +
      `${r.backend} on devices [${r.devices.join(',')}]: ${verdict}`,
    '',
    `${date} - fixture \`${r.fixture}\` - ${r.tokens} generated tokens per run - library \`${r.library}\`` +
      (upload !== null ? ` - uploads ${upload}` : '') +
      (validation === null
        ? ''
        : validation === 'off'
          ? ' - Vulkan validation: off'
          : ` - Vulkan validation (${validation}): ${validationMessages ?? 0} messages`),
    '',
    '| run | tokens | first divergence | hidden states vs CPU-only | resident | hit rate | uploads | swaps | trunk resident (GEMVs on device) | RAM LRU hits | upload GB/s | tok/s | arranged situation | notes |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (x) =>
        `| ${x.name} | ${x.tokensMatched}/${x.tokens} | ${x.firstDivergence < 0 ? '-' : x.firstDivergence} | ${x.hiddenBitIdentical ? 'bit-identical' : '**different**'} | ${x.residentAtEnd} | ${x.lookups === 0 ? '-' : `${(100 * x.hitRate).toFixed(1)} %`} | ${x.uploads}${x.uploadFailures > 0 ? ` (+${x.uploadFailures} failed)` : ''} | ${x.swaps} | ${trunkCell(x)} | ${lruCell(x.lruHits, x.lruMisses)} | ${x.uploadGBps.toFixed(3)} | ${x.tokPerSec.toFixed(0)} | ${x.arranged === null ? '-' : `${x.arranged}${x.situations.includes(x.arranged) ? '' : ' (**missed**)'}`} | ${[
          x.problem,
          ...x.notes,
        ]
          .filter((n) => n !== null)
          .join('; ')
          .slice(0, 200)} |`,
    ),
    '',
    ...(skipped.length === 0
      ? []
      : [
          'Not run (the C tier oracle driver cannot express them yet):',
          '',
          ...skipped.map((k) => `- ${k.name}: ${k.reason}`),
          '',
        ]),
  ];
  writeReportFile(join(dir, `${name}.md`), md.join('\n'));
}

function trunkCell(x: {
  trunkResident: number;
  trunkOffered: number;
  trunkGemvsOnDevice: number;
  trunkGemvsOnCpu: number;
}): string {
  if (x.trunkGemvsOnDevice + x.trunkGemvsOnCpu === 0) return '-';
  const all = x.trunkGemvsOnDevice + x.trunkGemvsOnCpu;
  return `${x.trunkResident}/${x.trunkOffered} (${((100 * x.trunkGemvsOnDevice) / all).toFixed(0)} %)`;
}

function lruCell(hits: number | null, misses: number | null): string {
  if (hits === null || misses === null) return '-';
  return `${((100 * hits) / Math.max(1, hits + misses)).toFixed(1)} % of ${hits + misses}`;
}
