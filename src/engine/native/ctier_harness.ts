/**
 * One schedule of the C tier under tierlab's scheduler, from TypeScript: the harness
 * library (native/tier/harness/, through the binding) runs the scenario whole in one call,
 * and this reads back what the run left: its outcome, the choices it took (each with the
 * number of options it had: the exhaustive search's tree), and its record stream.
 *
 * The harness's heat file lives in a folder of its own, made here and removed by
 * `close()`. Buffers are reused from run to run; a run's records are decoded into
 * objects only when asked (`records()`), so a search that only wants the outcome and the
 * choices pays for neither.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeRecords, type Rec } from '../../check/replay/records.js';
import { OUTCOMES, REC_WORDS, type SchedOutcome } from '../../check/replay/schema.js';
import { CTierHarnessLib, type NativePtr } from './binding.js';

export interface HarnessOptions {
  readonly source: 'recorded' | 'random' | 'pct';
  /** random and PCT */
  readonly seed?: number;
  /** random: chance of the quiet option, per mille */
  readonly stayPermille?: number;
  readonly pctDepth?: number;
  /** PCT: the steps its change points are drawn from */
  readonly pctSteps?: number;
  readonly maxSteps: number;
  readonly spurious: number;
  /** in a forked child: a crash is a result, not the end of this process */
  readonly fresh: boolean;
  /** 1: the tier logs nothing (its boundary only); 2: its event log too */
  readonly level: 1 | 2;
}

export interface HarnessRun {
  readonly outcome: SchedOutcome;
  readonly steps: number;
  readonly decisions: number;
  readonly description: string;
  /** the option taken at each decision, and how many options it had */
  readonly choices: readonly number[];
  readonly widths: readonly number[];
  readonly recordCount: number;
  /** records the log had no room for (the run is then not judged) */
  readonly dropped: number;
}

const SOURCES = { recorded: 0, random: 1, pct: 2 } as const;

/** Where the harness library is built (TIERLAB_CTIER_LIB: a mutant's scratch build). */
export function harnessPath(): string {
  return process.env.TIERLAB_CTIER_LIB ?? 'native/build/libtierlab_ctier_sched.so';
}

export class CTierHarness {
  private readonly lib: CTierHarnessLib;
  private readonly h: NativePtr;
  private readonly dir: string;
  private readonly summary = new Float64Array(7);
  private readonly opts = new Float64Array(9);
  private words = new Int32Array(REC_WORDS * 4096);
  private blobBuf = new Uint8Array(1 << 16);
  private choiceBuf = new Uint32Array(1 << 14);
  private widthBuf = new Uint32Array(1 << 14);
  private count = 0;
  private blobBytes = 0;

  constructor(libPath: string = harnessPath()) {
    this.lib = new CTierHarnessLib(libPath);
    this.dir = mkdtempSync(join(tmpdir(), 'tierlab-ctier-'));
    this.h = this.lib.create(join(this.dir, 'heat.bin'));
  }

  close(): void {
    this.lib.destroy(this.h);
    rmSync(this.dir, { recursive: true, force: true });
  }

  run(cfg: Float64Array, heat: Uint8Array | null, o: HarnessOptions, choices: readonly number[]): HarnessRun {
    const opts = this.opts;
    opts.set([SOURCES[o.source], o.seed ?? 0, o.stayPermille ?? 500, o.pctDepth ?? 2, o.pctSteps ?? 1000]);
    opts.set([o.maxSteps, o.spurious, o.fresh ? 1 : 0, o.level], 5);
    const rc = this.lib.run(this.h, cfg, heat, opts, Uint32Array.from(choices), this.summary);
    const description = this.lib.description(this.h);
    if (rc < 0) throw new HarnessError(description);
    const s = this.summary;
    this.count = s[4] ?? 0;
    this.blobBytes = s[5] ?? 0;
    const decisions = s[2] ?? 0;
    if (this.choiceBuf.length < decisions) {
      this.choiceBuf = new Uint32Array(decisions * 2);
      this.widthBuf = new Uint32Array(decisions * 2);
    }
    const n = this.lib.choices(this.h, this.choiceBuf, this.widthBuf);
    return {
      outcome: OUTCOMES[rc] ?? 'error',
      steps: s[1] ?? 0,
      decisions,
      description,
      choices: Array.from(this.choiceBuf.subarray(0, n)),
      widths: Array.from(this.widthBuf.subarray(0, n)),
      recordCount: this.count,
      dropped: s[6] ?? 0,
    };
  }

  /** The last run's records, decoded. */
  records(): { records: Rec[]; blob: Uint8Array } {
    if (this.words.length < this.count * REC_WORDS) this.words = new Int32Array(this.count * REC_WORDS * 2);
    const n = this.lib.records(this.h, this.words);
    if (this.blobBuf.length < this.blobBytes) this.blobBuf = new Uint8Array(this.blobBytes * 2);
    const b = this.lib.blob(this.h, this.blobBuf);
    return { records: decodeRecords(this.words, n), blob: this.blobBuf.slice(0, b) };
  }
}

/** The harness refused a scenario or options (a bad input, said in one line). */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
}
