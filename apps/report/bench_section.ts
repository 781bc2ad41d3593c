/**
 * The bench section: the simulator's steps/s with and without the checkers, steps/s
 * against scenario size (one chart per grown dimension), schedules of the exhaustive
 * search against the preemption bound and the reduction, time to find the fill_wait race
 * and to kill each catalogue mutant per strategy, and the tier uploader's GB/s from the
 * oracle reports against the raw host-to-device copy, drawn only when a report measured
 * that copy (alone, a CPU backend's GB/s say nothing).
 * Sections bench.json lacks (it runs only what --only asks for) are named, not faked.
 */
import { barChart, lineChart, type Bar } from './charts.js';
import { el, esc, int, n, secs, table } from './html.js';
import type { BenchInput, OracleInput } from './report_inputs.js';
import { killColour, killColourKey } from './time_scale.js';

function speedBlock(b: BenchInput): string {
  const s = b.speed;
  if (s === undefined) return '';
  return (
    el('h3', {}, 'Simulator speed') +
    el(
      'p',
      { class: 'note' },
      esc(
        `${s.scenario}; seeded random schedules; median of ${s.on.samples.length} samples. The checkers cost ${((s.checkerCost - 1) * 100).toFixed(0)} % (off / on = ${s.checkerCost.toFixed(2)})${s.refinementCost === undefined ? '' : `, the refinement alone ${((s.refinementCost - 1) * 100).toFixed(0)} % (steps/s without it / with it = ${s.refinementCost.toFixed(2)})`}.`,
      ),
    ) +
    table(
      ['checkers', 'steps/s', 'steps per CPU second', 'schedules/s', 'steps per schedule', 'samples (steps/s)'],
      [s.on, ...(s.noRefinement === undefined ? [] : [s.noRefinement]), s.off].map((x) => [
        x.checks === true ? 'all on' : x.checks === 'no-refinement' ? 'all but the refinement' : 'off',
        n(int(x.stepsPerSecond)),
        n(int(x.stepsPerCpuSecond)),
        n(int(x.schedulesPerSecond)),
        n(x.stepsPerSchedule.toFixed(0)),
        esc(x.samples.map((y) => int(y.stepsPerSecond)).join(', ')),
      ]),
    )
  );
}

function scalingBlock(b: BenchInput): string {
  const rows = b.scaling;
  if (rows === undefined || rows.length === 0) return '';
  const dims = [...new Set(rows.map((r) => r.dimension))];
  const charts = dims.map((d) => {
    const rs = rows.filter((r) => r.dimension === d);
    return lineChart({
      title: `steps/s as ${d} grow`,
      xLabel: d,
      yLabel: 'steps/s',
      logX: true,
      series: [
        { name: 'checkers on', cls: 'a', points: rs.map((r) => [r.value, r.on.stepsPerSecond] as const) },
        { name: 'checkers off', cls: 'b', points: rs.map((r) => [r.value, r.off.stepsPerSecond] as const) },
      ],
    });
  });
  return (
    el('h3', {}, 'Steps/s against scenario size') +
    el(
      'p',
      { class: 'note' },
      'The default scenario with one dimension grown at a time (hover a point for its value).',
    ) +
    el('div', { class: 'charts' }, ...charts)
  );
}

function exhaustiveBlock(b: BenchInput): string {
  const e = b.exhaustive;
  if (e === undefined) return '';
  const bars: Bar[] = e.rows.map((r) => ({
    label: r.label,
    value: r.schedules,
    cls: r.reduction ? 'alt' : '',
    tip: `${r.label}: ${int(r.schedules)} schedules, ${r.states === null ? '?' : int(r.states)} distinct states, ${secs(r.seconds)} s, ${r.complete ? 'complete' : 'INCOMPLETE'}${r.violations.length > 0 ? `, violations: ${r.violations.join(', ')}` : ''}`,
  }));
  return (
    el('h3', {}, 'Schedules against preemption bound and reduction') +
    el(
      'p',
      { class: 'note' },
      esc(
        `Exhaustive search of ${e.scenario}. ${e.reductionFactor === null ? 'Reduction factor not measured (a search did not finish).' : `Sleep sets explore ${e.reductionFactor.toFixed(2)} x fewer schedules on the same bound.`} Green: with sleep-set reduction.`,
      ),
    ) +
    barChart({ title: 'schedules explored (log scale)', unit: 'schedules', bars, logX: true }) +
    table(
      ['search', 'bound', 'reduction', 'state cache', 'complete', 'schedules', 'distinct states', 'seconds'],
      e.rows.map((r) => [
        esc(r.label),
        n(r.preemptions === null ? 'none' : String(r.preemptions)),
        r.reduction ? 'sleep sets' : 'none',
        r.stateCache ? 'yes' : 'no',
        r.complete ? 'yes' : el('span', { class: 'bad' }, 'NO'),
        n(int(r.schedules)),
        n(r.states === null ? '-' : int(r.states)),
        n(secs(r.seconds)),
      ]),
    )
  );
}

function raceBlock(b: BenchInput): string {
  const r = b.race;
  if (r === undefined) return '';
  return (
    el('h3', {}, 'Finding the fill_wait race, per strategy') +
    el(
      'p',
      { class: 'note' },
      esc(`${r.change} in ${r.file}; ${r.seeds} seeds, at most ${r.runsPerSuite} runs per suite; search only.`),
    ) +
    table(
      ['strategy', 'found', 'median schedules', 'median s', 'worst schedules', 'worst s'],
      r.rows.map((x) => [
        esc(x.strategy),
        n(`${x.found}/${x.seeds}`),
        n(x.medianRuns === null ? '-' : int(x.medianRuns)),
        n(secs(x.medianSeconds)),
        n(x.worstRuns === null ? '-' : int(x.worstRuns)),
        n(secs(x.worstSeconds)),
      ]),
    )
  );
}

function mutantsBlock(b: BenchInput): string {
  const m = b.mutants;
  if (m === undefined) return '';
  if (!m.available) return el('h3', {}, 'Time to kill per strategy') + el('p', { class: 'note' }, esc(m.note));
  const rows = m.rows.map((row) => [
    esc(row.id),
    ...m.strategies.map((s) => {
      const c = row.byStrategy[s];
      if (c === undefined) return '-';
      if (c.status !== 'killed' || c.secondsToKill === null) return el('span', { class: 'bad' }, esc(c.status));
      const text = `${secs(c.secondsToKill)} s / ${c.runsToKill ?? '?'}`;
      return el(
        'span',
        { title: `${s}: ${c.property ?? ''} after ${c.runsToKill ?? '?'} schedules, ${c.secondsToKill} s` },
        el('span', { class: 'sw', style: `background:${killColour(c.secondsToKill)}` }),
        row.firstKiller === s ? el('b', {}, esc(text)) : esc(text),
      );
    }),
    esc(row.firstKiller ?? 'none'),
  ]);
  return (
    el('h3', {}, 'Time to kill per strategy') +
    el(
      'p',
      { class: 'note' },
      esc(
        `${m.note}: ${m.secondsPerMutant} s budget per mutant, ${m.jobs} jobs. Cells: search seconds to the failing schedule / schedules tried; the fastest in bold. Wall seconds per strategy: ${Object.entries(
          m.wallSeconds,
        )
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', ')}.`,
      ),
    ) +
    killColourKey('search seconds to the kill', 'kill-ramp-bench') +
    table(['mutant', ...m.strategies, 'first'], rows)
  );
}

function uploadBlock(oracles: readonly OracleInput[]): string {
  const bars: Bar[] = [];
  let ref: { value: number; label: string } | undefined;
  for (const o of oracles) {
    for (const r of o.runs)
      if (r.uploads > 0)
        bars.push({
          label: `${o.backend}: ${r.name}`,
          value: r.uploadGBps,
          tip: `${o.backend}, ${r.name}: ${r.uploads} uploads at ${r.uploadGBps.toFixed(3)} GB/s`,
        });
    if (o.rawCopyGBps !== undefined && ref === undefined)
      ref = { value: o.rawCopyGBps, label: `raw copy (${o.backend})` };
  }
  if (bars.length === 0)
    return (
      el('h3', {}, 'Upload GB/s against the raw copy') +
      el('p', { class: 'note' }, 'No oracle report with uploads in this directory.')
    );
  // a bandwidth means something only beside the raw copy of the same backend
  if (ref === undefined)
    return (
      el('h3', {}, 'Upload GB/s against the raw copy') +
      el(
        'p',
        { class: 'note' },
        'No report here measured the raw host-to-device copy (rawCopyGBps), so there is nothing to hold the ' +
          "uploader's GB/s against (each oracle table lists it per run); a GPU run's report (npm run bench -- --only upload) has both.",
      )
    );
  return (
    el('h3', {}, 'Upload GB/s against the raw copy') +
    el(
      'p',
      { class: 'note' },
      esc(
        "The tier uploader's bandwidth in each oracle run that uploaded (from oracle-*.json). The red line is a plain host-to-device copy on the same backend.",
      ),
    ) +
    barChart({ title: 'tier uploader bandwidth', unit: 'GB/s', bars, ref, width: 720 })
  );
}

export function renderBenchSection(b: BenchInput | null, oracles: readonly OracleInput[]): string {
  const parts: string[] = [];
  if (b === null) {
    parts.push(el('p', { class: 'note' }, 'No bench.json in this directory: `npm run bench` writes one.'));
  } else {
    const m = b.machine;
    parts.push(
      el(
        'p',
        { class: 'meta' },
        esc(
          `${b.date} · ${b.command} · node ${m.node}, ${m.cores} cores, load average ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')} at start, ${m.loadAverageAtEnd.map((x) => x.toFixed(2)).join(' ')} at the end`,
        ),
      ),
    );
    const missing = (['speed', 'scaling', 'exhaustive', 'race', 'mutants'] as const).filter((k) => b[k] === undefined);
    if (missing.length > 0)
      parts.push(
        el(
          'p',
          { class: 'note' },
          esc(`Not in this bench run: ${missing.join(', ')} (npm run bench -- --only ... ran the others).`),
        ),
      );
    parts.push(speedBlock(b), scalingBlock(b), exhaustiveBlock(b), raceBlock(b), mutantsBlock(b));
  }
  parts.push(uploadBlock(oracles));
  return parts.join('\n');
}
