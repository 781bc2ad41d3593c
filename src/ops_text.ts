/**
 * How a trace prints a tier call and its return: one line each, the same in both worlds.
 */
import type { TierCall, TierReturn } from './ops.js';

export function describeCall(c: TierCall): string {
  switch (c.fn) {
    case 'note':
    case 'note_block':
    case 'note_planned':
      return `> ${c.fn} L${c.layer}E${c.eid}${c.ram === null ? ' (no RAM)' : ''}`;
    case 'release_ram':
      return `> ${c.fn} L${c.layer}E${c.eid}`;
    case 'issue':
      return `> issue t${c.route.token} L${c.route.layer}`;
    case 'take':
      return `> take L${c.layer}`;
    case 'dense_matmul':
      return `> dense_matmul #${c.index}`;
    default:
      return `> ${c.fn}`;
  }
}

export function describeReturn(r: TierReturn): string {
  switch (r.fn) {
    case 'init':
      return `< init = ${r.value.state}${r.value.state === 'off' ? `: ${r.value.reason}` : ''}`;
    case 'plan_fill':
      return `< plan_fill = ${r.value.length}`;
    case 'issue':
      return `< issue = ${r.value.map((b) => (b ? '1' : '0')).join('')}`;
    case 'take':
      return `< take = ${r.value.outputs.size}${r.value.ok ? '' : ' (a group was lost)'}`;
    default:
      return `< ${r.fn} = ${String(r.value)}`;
  }
}
