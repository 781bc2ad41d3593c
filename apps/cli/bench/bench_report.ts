/**
 * The benchmark report: reports/bench.json (everything measured, every repeat) and
 * reports/bench.md (the tables people read). Numbers are printed as measured; the
 * machine's core count and load averages are written next to them, because on a shared
 * 2-core machine the load moves every number.
 */
import { join } from 'node:path';
import { writeReportFile } from '../../../src/input/report_file.js';
import type { ExhaustiveRow, ExhaustiveSection, JobsRow } from './exhaustive_bench.js';
import type { MutantsSection } from './mutants_bench.js';
import type { RaceRow } from './race.js';
import { renderCheckTrace, type TraceBenchSection } from './trace_bench.js';
import type { UploadSection } from './upload.js';
import { renderUpload } from './upload_report.js';
import { renderSpin } from './spin_report.js';
import type { CTierSection } from './ctier_bench.js';
import { renderCTier } from './ctier_report.js';
import type { Flatness } from './flatness.js';
import { renderSpeed, type ScalingRow, type SpeedReport } from './speed_report.js';

export interface BenchReport {
  readonly date: string;
  readonly command: string;
  readonly machine: { cores: number; node: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  speed?: SpeedReport;
  scaling?: ScalingRow[];
  /** the fewest and the most experts in turn, for the growth target (flatness.ts) */
  flatness?: Flatness;
  exhaustive?: ExhaustiveSection;
  race?: { file: string; change: string; seeds: number; runsPerSuite: number; rows: RaceRow[] };
  mutants?: MutantsSection;
  upload?: UploadSection;
  ctier?: CTierSection;
  checkTrace?: TraceBenchSection;
}

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const sec = (x: number | null): string => (x === null ? '-' : x < 0.1 ? x.toFixed(3) : x.toFixed(2));

const EXHAUSTIVE_HEAD =
  '| search | complete | schedules | sleep-blocked | stopped at a known state | distinct states | steps executed | steps per state | seconds | steps/s | distinct states/s | violations |';
const EXHAUSTIVE_RULE = '|---|---|---|---|---|---|---|---|---|---|---|---|';

const JOBS_HEAD =
  '| search | complete | schedules | distinct states | wall seconds | CPU seconds | schedules/s | violations |';
const JOBS_RULE = '|---|---|---|---|---|---|---|---|';

function jobsLine(j: JobsRow): string {
  return `| ${j.label} | ${j.complete ? 'yes' : 'NO'} | ${int(j.schedules)} | ${j.states === null ? '-' : int(j.states)} | ${sec(j.wallSeconds)} | ${sec(j.cpuSeconds)} | ${int(j.schedulesPerSecond)} | ${j.violations.join(', ') || 'none'} |`;
}

const REPEATED_NOTE =
  'A row with several seconds in brackets is a short search run that many times (the same counts each time): the row is the median run, the first run (which compiles the code it runs) first.';

const secondsOf = (x: ExhaustiveRow): string =>
  x.runs === undefined ? sec(x.seconds) : `${sec(x.seconds)} (${x.runs.map(sec).join(', ')})`;

function exhaustiveLine(x: ExhaustiveRow): string {
  return (
    `| ${x.label} | ${x.complete ? 'yes' : 'NO'} | ${int(x.schedules)} | ${int(x.sleepBlocked)} | ${int(x.cachedStops)} | ${x.states === null ? '-' : int(x.states)} | ` +
    `${int(x.stepsExecuted)} | ${x.stepsPerState === null ? '-' : x.stepsPerState.toFixed(1)} | ${secondsOf(x)} | ${int(x.stepsPerSecond)} | ${x.statesPerSecond === null ? '-' : int(x.statesPerSecond)} | ${x.violations.join(', ') || 'none'} |`
  );
}

export function writeBenchReport(dir: string, r: BenchReport): void {
  writeReportFile(join(dir, 'bench.json'), JSON.stringify(r, null, 2) + '\n');
  writeReportFile(join(dir, 'bench.md'), renderMarkdown(r));
}

export function renderMarkdown(r: BenchReport): string {
  const md: string[] = ['# tierlab benchmark', ''];
  const m = r.machine;
  md.push(
    `${r.date} - \`${r.command}\` - node ${m.node}, ${m.cores} cores, load average ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')} at start, ` +
      `${m.loadAverageAtEnd.map((x) => x.toFixed(2)).join(' ')} at the end. Other jobs on the machine slow every number here; repeats are in bench.json.`,
    '',
  );
  md.push(...renderSpeed(r.speed, r.scaling, r.flatness));
  if (r.exhaustive !== undefined) {
    const e = r.exhaustive;
    md.push('## Exhaustive search of the small configuration', '', `Scenario: ${e.scenario}.`, '');
    md.push(EXHAUSTIVE_HEAD, EXHAUSTIVE_RULE);
    for (const x of e.rows) md.push(exhaustiveLine(x));
    if (e.rows.some((x) => x.runs !== undefined)) md.push('', REPEATED_NOTE);
    const restoreLine = restoreComparison(e.rows);
    if (restoreLine !== null) md.push('', restoreLine);
    md.push(
      '',
      e.reductionFactor === null
        ? 'Reduction factor: not measured (a search did not finish).'
        : `Reduction factor of sleep sets on the same bound: ${e.reductionFactor.toFixed(2)} x fewer schedules.`,
      '',
      `Stateless DPOR on worker threads (\`--jobs N\`: one search tree, work handed out as it appears), to the end on ${e.jobsScenario}, then for ${e.steadySeconds} s on ${e.steadyScenario}:`,
      '',
      JOBS_HEAD,
      JOBS_RULE,
    );
    for (const j of [...e.jobs, ...e.steady, ...e.ceiling]) md.push(jobsLine(j));
    const ratio = (x: number | null): string => (x === null ? '-' : `${x.toFixed(2)} x`);
    md.push(
      '',
      `Each row in a fresh process (the same cold start for every row). Two jobs: ${ratio(e.jobsSpeedup)} the schedules/s of one to the end (worker start-up included), ${ratio(e.steadySpeedup)} over ${e.steadySeconds} s. ` +
        `The machine's ceiling for that: the same whole search twice at once on two workers, nothing shared, made ${ratio(e.ceilingSpeedup)} the schedules/s of one` +
        (e.ceilingSpeedup !== null && e.steadySpeedup !== null
          ? ` (the shared tree reaches ${((100 * e.steadySpeedup) / e.ceilingSpeedup).toFixed(0)} % of it).`
          : '.'),
    );
    md.push(
      '',
      `## Exhaustive search of the medium configuration`,
      '',
      `Scenario: ${e.mediumScenario}. A stateful search counts schedules and distinct states, not traces: a run stopped at a known state stands for every trace through it.`,
      '',
      EXHAUSTIVE_HEAD,
      EXHAUSTIVE_RULE,
      exhaustiveLine(e.medium),
      '',
      ...(e.medium.runs !== undefined ? [REPEATED_NOTE, ''] : []),
    );
    if (e.spin !== undefined) md.push(...renderSpin(e.spin));
  }
  if (r.race !== undefined) {
    const x = r.race;
    md.push(
      '## Finding the fill_wait race (#1360)',
      '',
      `A scratch copy with \`${x.change}\` in ${x.file}; the suites in \`npm run properties\` order, ${x.runsPerSuite} runs each at most, ${x.seeds} seeds; search only (shrinking not counted).`,
      '',
    );
    md.push(
      '| strategy | found | median schedules | median seconds | worst schedules | worst seconds | property |',
      '|---|---|---|---|---|---|---|',
    );
    for (const y of x.rows) {
      md.push(
        `| ${y.strategy} | ${y.found}/${y.seeds} | ${y.medianRuns ?? '-'} | ${sec(y.medianSeconds)} | ${y.worstRuns ?? '-'} | ${sec(y.worstSeconds)} | ${Object.entries(
          y.properties,
        )
          .map(([k, v]) => `${k} (${v})`)
          .join(', ')} |`,
      );
    }
    md.push('');
  }
  if (r.mutants !== undefined) {
    const x = r.mutants;
    md.push('## Time to kill the catalogue mutants', '');
    if (!x.available) {
      md.push(x.note, '');
    } else {
      md.push(
        `\`${x.note}\`, ${x.secondsPerMutant} s budget per mutant, ${x.jobs} jobs in parallel. Cells: search seconds to the failing schedule / schedules tried; the fastest strategy in bold.`,
        '',
      );
      md.push(
        `| mutant | ${x.strategies.join(' | ')} | first |`,
        `|---|${x.strategies.map(() => '---|').join('')}---|`,
      );
      for (const row of x.rows) {
        const cells = x.strategies.map((s) => {
          const c = row.byStrategy[s];
          if (c === undefined) return '-';
          const text =
            c.status === 'killed'
              ? `${sec(c.secondsToKill)} s / ${c.runsToKill ?? '?'} (${c.property ?? ''})`
              : c.status;
          return row.firstKiller === s ? `**${text}**` : text;
        });
        md.push(`| ${row.id} | ${cells.join(' | ')} | ${row.firstKiller ?? 'none'} |`);
      }
      md.push(
        '',
        `Wall seconds per strategy (whole mutation run): ${Object.entries(x.wallSeconds)
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', ')}.`,
        '',
      );
    }
  }
  if (r.upload !== undefined) md.push(...renderUpload(r.upload));
  if (r.ctier !== undefined) md.push(...renderCTier(r.ctier));
  if (r.checkTrace !== undefined) md.push(...renderCheckTrace(r.checkTrace));
  return md.join('\n') + '\n';
}

/** The DPOR search with its cache, going on from saved states beside the same search replaying. */
function restoreComparison(rows: readonly ExhaustiveRow[]): string | null {
  const replayed = rows.find((x) => x.restored === false && x.stateCache);
  const restored = rows.find((x) => x.restored === true && x.stateCache);
  const a = replayed?.stepsPerState ?? null;
  const b = restored?.stepsPerState ?? null;
  if (replayed === undefined || restored === undefined || a === null || b === null) return null;
  const fewer = (a / b).toFixed(1);
  const faster = (replayed.seconds / Math.max(restored.seconds, 1e-9)).toFixed(2);
  return (
    'Going on from saved states (model/explore/state/restore/) instead of replaying each run from the start: ' +
    `${b.toFixed(2)} steps per distinct state against ${a.toFixed(2)} (${fewer} x fewer), ` +
    `${restored.seconds.toFixed(1)} s against ${replayed.seconds.toFixed(1)} s (${faster} x), ` +
    'the same schedules and states.'
  );
}
