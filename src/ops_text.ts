/**
 * How a trace prints a tier call and its return: one line each, the same in both worlds.
 * The arguments and the returned value are also given apart (`callArgs`, `returnValue`),
 * for readers that show them in their own layout (the report's lane diagram).
 */
import type { TierCall, TierReturn } from './ops.js';

/** A call's arguments in a trace's words (null: a call that takes none worth printing). */
export function callArgs(c: TierCall): string | null {
  switch (c.fn) {
    case 'note':
    case 'note_block':
    case 'note_planned':
      return `L${c.layer}E${c.eid}${c.ram === null ? ' (no RAM)' : ''}`;
    case 'release_ram':
      return `L${c.layer}E${c.eid}`;
    case 'issue':
      return `t${c.route.token} L${c.route.layer}`;
    case 'take':
      return `L${c.layer}`;
    case 'dense_matmul':
      return `#${c.index}`;
    default:
      return null;
  }
}

/** What a call returned, in a trace's words. */
export function returnValue(r: TierReturn): string {
  switch (r.fn) {
    case 'init':
      return `${r.value.state}${r.value.state === 'off' ? `: ${r.value.reason}` : ''}`;
    case 'plan_fill':
      return String(r.value.length);
    case 'issue':
      return r.value.map((b) => (b ? '1' : '0')).join('');
    case 'take':
      return `${r.value.outputs.size}${r.value.ok ? '' : ' (a group was lost)'}`;
    default:
      return String(r.value);
  }
}

export function describeCall(c: TierCall): string {
  const args = callArgs(c);
  return `> ${c.fn}${args !== null ? ` ${args}` : ''}`;
}

export function describeReturn(r: TierReturn): string {
  return `< ${r.fn} = ${returnValue(r)}`;
}
