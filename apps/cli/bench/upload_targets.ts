/**
 * Issue 33's third target beside what an upload bench measured: the tier's own time per
 * expert in the warmstart fill, and the fill's share of the pinned copy, first fill and
 * warm, with every checker on. Printed in reports/bench.md and logged as the bench runs.
 */

/** Issue 33, target 3: the tier's own time per expert, and the fill's share of the pinned copy. */
export const UPLOAD_TARGETS = { perExpertMicros: 25, ofPinned: 0.9 } as const;

const mark = (ok: boolean): string => (ok ? 'met' : '**not met**');

/** Target 3's lines (also logged by the bench as it runs). On the CPU backend a copy is a
 *  memcpy and the share of it says nothing of a bus: those lines say so. */
export function uploadTargets(u: {
  readonly backend: string;
  readonly perExpert: { readonly first: number; readonly warmChecked: number; readonly unchecked: number };
  readonly fill: { readonly ratioToPinned: number };
  readonly fillWarm: { readonly ratioToPinned: number };
}): string[] {
  const t = UPLOAD_TARGETS;
  const pe = u.perExpert;
  const bus = u.backend === 'cpu' ? ' (the CPU backend: no bus, a GPU run decides)' : '';
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  return [
    `- the tier's time per expert at most ${t.perExpertMicros} us, every checker on: first fill ${pe.first.toFixed(1)} us (${(pe.first / t.perExpertMicros).toFixed(2)} x), warm ${pe.warmChecked.toFixed(1)} us (${(pe.warmChecked / t.perExpertMicros).toFixed(2)} x): ${mark(pe.first <= t.perExpertMicros && pe.warmChecked <= t.perExpertMicros)}; with none ${pe.unchecked.toFixed(1)} us`,
    `- at least ${pct(t.ofPinned)} of pinned, every checker on: first fill ${pct(u.fill.ratioToPinned)}, warm ${pct(u.fillWarm.ratioToPinned)}: ${mark(u.fill.ratioToPinned >= t.ofPinned && u.fillWarm.ratioToPinned >= t.ofPinned)}${bus}`,
  ];
}
