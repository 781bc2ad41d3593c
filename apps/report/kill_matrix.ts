/**
 * The kill matrix as an SVG heatmap: properties down, mutants across, a cell coloured by
 * how fast that property kills that mutant. The property whose shrunk counterexample
 * killed the mutant (K, outlined) is coloured by the measured search seconds to the kill
 * and links to its lane diagram; every other property the no-bail sampling pass saw fail
 * is coloured by the sampling seconds per failing run (matrix seconds / failing runs: the
 * mean wait for such a run). Killed mutants come first; survivors, stillborn or
 * inconclusive mutants and equivalents are set apart in their own groups.
 *
 * Invariant: one `g.hm-col` per mutant of the report, whatever its status.
 */
import { el, esc, leaf, num, title } from './html.js';
import type { MutantInput, MutantStatusInput } from './report_inputs.js';
import { killColour } from './time_scale.js';

/** cell size: roomy for a catalogue run, compact when hundreds of operator mutants come along */
const CELL_WIDE = 20;
const CELL_NARROW = 14;
const WIDE_UP_TO = 60;
const ROW_LABEL = 150;
const HEAD_LABEL_CHARS = 40;
const GROUP_GAP = 16;

const GROUPS: readonly { readonly name: string; readonly statuses: readonly MutantStatusInput[] }[] = [
  { name: 'killed', statuses: ['killed'] },
  { name: 'survived', statuses: ['survived'] },
  { name: 'stillborn / inconclusive', statuses: ['stillborn', 'inconclusive'] },
  { name: 'equivalent', statuses: ['equivalent'] },
];

export interface KillMatrixInput {
  readonly results: readonly MutantInput[];
  /** seconds the sampling pass ran per mutant (mutants.json settings.matrixSeconds) */
  readonly matrixSeconds: number | null;
  /** property ids in catalogue order, and their statements */
  readonly statements: Readonly<Record<string, string>>;
  /** counterexample file -> anchor of its lane diagram on this page */
  readonly diagramOf: (counterexample: string) => string | null;
}

/** Rows: every catalogue property, then any other id a mutant run reported (CRASH, limits). */
export function matrixRows(input: KillMatrixInput): string[] {
  const rows = Object.keys(input.statements);
  const seen = new Set(rows);
  for (const r of input.results) {
    for (const p of [r.property, ...Object.keys(r.matrix ?? {})]) {
      if (p !== null && !seen.has(p)) {
        seen.add(p);
        rows.push(p);
      }
    }
  }
  return rows;
}

function columnTip(r: MutantInput): string {
  const head = `${r.id} (${r.kind}): ${r.title}`;
  switch (r.status) {
    case 'killed':
      return `${head}\nkilled by ${r.property ?? '?'} after ${r.runsToKill ?? '?'} schedules, ${r.secondsToKill ?? '?'} s; counterexample ${r.steps ?? '?'} steps`;
    case 'survived':
      return `${head}\nSURVIVED ${r.runs ?? '?'} schedules`;
    case 'equivalent':
      return `${head}\nequivalent: ${r.equivalentReason ?? ''}`;
    default:
      return `${head}\n${r.status}: ${r.error ?? ''}`;
  }
}

export function renderKillMatrix(input: KillMatrixInput): string {
  const rows = matrixRows(input);
  const groups = GROUPS.map((g) => ({
    name: g.name,
    cols: input.results.filter((r) => g.statuses.includes(r.status)),
  })).filter((g) => g.cols.length > 0);
  const blind = new Set(unexercised(input));
  const parts: string[] = [];
  const CELL = input.results.length <= WIDE_UP_TO ? CELL_WIDE : CELL_NARROW;
  const longest = Math.min(HEAD_LABEL_CHARS, Math.max(8, ...input.results.map((r) => r.id.length)));
  const gridTop = 12 + longest * 6;
  const gridBottom = gridTop + rows.length * CELL;

  rows.forEach((p, i) => {
    const y = gridTop + i * CELL;
    const statement = input.statements[p];
    const dim = blind.has(p);
    parts.push(
      el(
        'text',
        { class: dim ? 'ax hm-row dim' : 'ax hm-row', x: ROW_LABEL - 6, y: y + CELL - 3, 'text-anchor': 'end' },
        esc(p + (dim ? ' ·' : '')),
        title(
          `${p}${statement !== undefined ? `: ${statement}` : ''}${dim ? '\nno mutant of this run exercises it' : ''}`,
        ),
      ),
    );
  });

  let x = ROW_LABEL;
  for (const g of groups) {
    const gx = x;
    for (const r of g.cols) {
      const col: string[] = [];
      const bg =
        r.status === 'survived' ? 'hm-cell hm-surv' : r.status === 'killed' ? 'hm-cell hm-none' : 'hm-cell hm-eq';
      col.push(el('rect', { class: bg, x, y: gridTop, width: CELL, height: rows.length * CELL }, title(columnTip(r))));
      const anchor = r.counterexample !== null ? input.diagramOf(r.counterexample) : null;
      const label = r.id.length > HEAD_LABEL_CHARS ? `${r.id.slice(0, HEAD_LABEL_CHARS - 1)}…` : r.id;
      const hx = x + CELL / 2 + 3;
      const head = el(
        'text',
        { class: 'ax hm-head', x: hx, y: gridTop - 5, transform: `rotate(-90 ${num(hx)} ${gridTop - 5})` },
        esc(label),
        title(columnTip(r)),
      );
      col.push(anchor !== null ? el('a', { href: `#${anchor}` }, head) : head);
      rows.forEach((p, i) => {
        const y = gridTop + i * CELL;
        const isKill = r.status === 'killed' && r.property === p;
        const failing = r.matrix?.[p] ?? 0;
        if (!isKill && failing === 0) return;
        const seconds = isKill ? r.secondsToKill : input.matrixSeconds !== null ? input.matrixSeconds / failing : null;
        const how = isKill
          ? `K: its shrunk counterexample killed the mutant: ${r.runsToKill ?? '?'} schedules, ${r.secondsToKill ?? '?'} s of search`
          : `no shrinking, no bail: failed ${failing} of ${r.matrixRuns} sampled runs${seconds !== null ? `, one every ${seconds.toPrecision(2)} s` : ''}`;
        const tip = title(
          `${p} on ${r.id}\n${how}${isKill && failing > 0 ? `\n(sampling: failed ${failing} of ${r.matrixRuns} runs)` : ''}`,
        );
        const cell = el(
          'rect',
          {
            class: isKill ? 'hm-cell hm-k' : 'hm-cell',
            x: x + 1,
            y: y + 1,
            width: CELL - 2,
            height: CELL - 2,
            style: `fill:${seconds !== null ? killColour(seconds) : 'var(--op)'}`,
            'data-property': p,
          },
          tip,
        );
        col.push(isKill && anchor !== null ? el('a', { href: `#${anchor}` }, cell) : cell);
      });
      parts.push(el('g', { class: 'hm-col', 'data-mutant': r.id, 'data-status': r.status }, ...col));
      x += CELL;
    }
    parts.push(el('text', { class: 'ax hm-group', x: gx, y: gridBottom + 14 }, esc(`${g.name} (${g.cols.length})`)));
    parts.push(leaf('line', { class: 'grid', x1: gx, y1: gridBottom + 3, x2: x, y2: gridBottom + 3 }));
    x += GROUP_GAP;
  }
  const width = Math.max(x + 40, ROW_LABEL + 200);
  const height = gridBottom + 22;
  return el(
    'svg',
    {
      class: 'heatmap',
      xmlns: 'http://www.w3.org/2000/svg',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `kill matrix: ${rows.length} properties x ${input.results.length} mutants`,
    },
    ...parts,
  );
}

/** Properties no mutant of the run made fail: the catalogue's blind spots for this run. */
export function unexercised(input: KillMatrixInput): string[] {
  const rows = matrixRows(input);
  return rows.filter(
    (p) => !input.results.some((r) => (r.status === 'killed' && r.property === p) || (r.matrix?.[p] ?? 0) > 0),
  );
}
