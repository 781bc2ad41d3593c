/**
 * How the refinement check compares a call's return with the reference's: by value for
 * the structured returns (the plan, the mask, take's outputs), by their text otherwise;
 * and the texts a divergence prints.
 */
import type { TierReturn } from '../../ops.js';
import type { SpecStats, SpecValue } from '../../protocol_ref/io.js';

type Key = { readonly layer: number; readonly eid: number };
type Pair = {
  readonly layer: number;
  readonly victim: number;
  readonly newcomerLayer: number;
  readonly newcomer: number;
};

function keysText(keys: readonly Key[]): string {
  return `[${keys.map((k) => `L${k.layer}E${k.eid}`).join(' ')}]`;
}

function pairsText(pairs: readonly Pair[]): string {
  return `[${pairs.map((p) => `L${p.newcomerLayer}E${p.newcomer}<-L${p.layer}E${p.victim}`).join(' ')}]`;
}

function maskText(mask: readonly boolean[]): string {
  return mask.map((b) => (b ? '1' : '0')).join('');
}

function statsText(s: SpecStats | null): string {
  return s === null
    ? 'refused'
    : `hits ${s.hits} misses ${s.misses} uploads ${s.uploads} swaps ${s.swaps} dropped ${s.evictedDropped}`;
}

/** The tier returned what the protocol returns (compared without building text). */
export function sameValue(v: SpecValue, r: TierReturn): boolean {
  switch (v.fn) {
    case 'init':
      // an init that stays off says why: the engine prints the reason to its user
      return r.fn === 'init' && r.value.state === v.state && (r.value.state !== 'off' || r.value.reason.trim() !== '');
    case 'plan_fill':
      return (
        r.fn === 'plan_fill' &&
        r.value.length === v.keys.length &&
        v.keys.every((k, i) => k.layer === r.value[i]?.layer && k.eid === r.value[i]?.eid)
      );
    case 'issue':
      return r.fn === 'issue' && r.value.length === v.mask.length && v.mask.every((b, i) => b === r.value[i]);
    case 'take':
      return (
        r.fn === 'take' &&
        r.value.ok === v.ok &&
        r.value.outputs.size === v.collected.length &&
        v.collected.every((e) => r.value.outputs.has(e))
      );
    default:
      return specText(v) === tierText(r);
  }
}

export function specText(v: SpecValue): string {
  switch (v.fn) {
    case 'init':
      return v.state;
    case 'plan_fill':
      return `[${v.keys.map((k) => `L${k.layer}E${k.eid}`).join(' ')}]`;
    case 'issue':
      return v.mask.map((b) => (b ? '1' : '0')).join('');
    case 'take':
      return `${v.ok ? 'ok' : 'lost'} [${[...v.collected].sort((a, b) => a - b).join(' ')}]`;
    case 'keys':
      return keysText(v.keys);
    case 'pairs':
      return pairsText(v.pairs);
    case 'mask':
      return maskText(v.mask);
    case 'stats':
      return statsText(v.stats);
    default:
      return String(v.value);
  }
}

export function tierText(r: TierReturn): string {
  switch (r.fn) {
    case 'init':
      return r.value.state === 'off' ? `off (${JSON.stringify(r.value.reason)})` : r.value.state;
    case 'plan_fill':
      return `[${r.value.map((k) => `L${k.layer}E${k.eid}`).join(' ')}]`;
    case 'issue':
      return r.value.map((b) => (b ? '1' : '0')).join('');
    case 'evicted_take':
      return keysText(r.value);
    case 'replan':
      return pairsText(r.value);
    case 'prefer':
      return maskText(r.value);
    case 'stats':
      return statsText(r.value);
    case 'take':
      return `${r.value.ok ? 'ok' : 'lost'} [${[...r.value.outputs.keys()].sort((a, b) => a - b).join(' ')}]`;
    default:
      return String(r.value);
  }
}
