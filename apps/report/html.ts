/**
 * Markup building blocks for the HTML report: escaping, elements from attribute objects, and
 * number formats. Every string that came from a report or a trace goes through `esc`
 * (text) or `el`'s attributes (escaped), so a detail with `<` or `&` cannot break the page.
 */

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export type Attrs = Record<string, string | number | boolean | null | undefined>;

function attrs(a: Attrs): string {
  let out = '';
  for (const [k, v] of Object.entries(a)) {
    if (v === null || v === undefined || v === false) continue;
    out += v === true ? ` ${k}` : ` ${k}="${esc(typeof v === 'number' ? num(v) : v)}"`;
  }
  return out;
}

/** An element; children are markup already (escape text with `esc`). */
export function el(tag: string, a: Attrs = {}, ...children: string[]): string {
  return `<${tag}${attrs(a)}>${children.join('')}</${tag}>`;
}

/** An element with no children (`<rect/>`, `<br>` is not needed here). */
export function leaf(tag: string, a: Attrs = {}): string {
  return `<${tag}${attrs(a)}/>`;
}

/** A hover text for an SVG shape. */
export function title(text: string): string {
  return `<title>${esc(text)}</title>`;
}

/** SVG coordinates: at most two decimals, no trailing zeros (keeps the page small). */
export function num(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
}

/** 1234567 -> 1,234,567 */
export function int(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

/** seconds as people read them: 0.004, 0.37, 12.3 */
export function secs(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  return x < 0.1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1);
}

export function percent(x: number, digits = 1): string {
  return `${(100 * x).toFixed(digits)} %`;
}

/** A table cell: markup, or markup with a class (`n`: a number, right-aligned). */
export type Cell = string | { readonly html: string; readonly cls: string };

/** A table from a header row and body rows of markup cells. */
export function table(head: readonly string[], rows: readonly (readonly Cell[])[], a: Attrs = {}): string {
  const td = (c: Cell): string => (typeof c === 'string' ? el('td', {}, c) : el('td', { class: c.cls }, c.html));
  return el(
    'table',
    a,
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map(td)))),
  );
}

/** A right-aligned number cell. */
export function n(html: string): Cell {
  return { html, cls: 'n' };
}

/** An id usable in a URL fragment, from any name (counterexample files, mutant ids). */
export function anchorId(prefix: string, name: string): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]+/g, '_')}`;
}
