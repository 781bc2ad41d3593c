/**
 * The colour of a time to kill, shared by the kill matrix and the bench's per-strategy
 * table: a log scale from 10 ms (strong red: found at once) to 30 s (pale yellow: found
 * late), so that one glance tells fast kills from slow ones. The same hues read on the
 * light and the dark palette.
 */
import { el, esc, leaf } from './html.js';

export const FAST_S = 0.01;
export const SLOW_S = 30;

/** 0 (fast) .. 1 (slow) */
function position(seconds: number): number {
  const s = Math.min(SLOW_S, Math.max(FAST_S, seconds));
  return (Math.log10(s) - Math.log10(FAST_S)) / (Math.log10(SLOW_S) - Math.log10(FAST_S));
}

export function killColour(seconds: number): string {
  const p = position(seconds);
  const hue = 350 + p * 55; // 350 (red) .. 405 = 45 (yellow)
  const light = 42 + p * 36;
  return `hsl(${Math.round(hue % 360)} 78% ${Math.round(light)}%)`;
}

/** A small key: the ramp with ticks at 0.01, 0.1, 1, 10 s. */
/** `id`: unique on the page (the key's gradient is referenced by it). */
export function killColourKey(label: string, id: string): string {
  const W = 280;
  const stops = Array.from({ length: 11 }, (_, i) => {
    const s = 10 ** (Math.log10(FAST_S) + (i / 10) * (Math.log10(SLOW_S) - Math.log10(FAST_S)));
    return leaf('stop', { offset: `${i * 10}%`, 'stop-color': killColour(s) });
  });
  const ticks = [0.01, 0.1, 1, 10].map((s) => {
    const x = 20 + position(s) * (W - 40);
    return el('text', { class: 'ax', x, y: 34, 'text-anchor': 'middle' }, `${s} s`);
  });
  return el(
    'svg',
    {
      class: 'key-ramp',
      xmlns: 'http://www.w3.org/2000/svg',
      width: W,
      height: 40,
      viewBox: `0 0 ${W} 40`,
      role: 'img',
      'aria-label': label,
    },
    el('defs', {}, el('linearGradient', { id }, ...stops)),
    el('text', { class: 'ax', x: 20, y: 10 }, esc(label)),
    leaf('rect', { x: 20, y: 14, width: W - 40, height: 10, fill: `url(#${id})` }),
    ...ticks,
  );
}
