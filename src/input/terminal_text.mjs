/**
 * The one escaper of text on its way to a terminal. Anything tierlab echoes may come from
 * input (a key name, a file name, a fixture's field, a mutant's title, an environment
 * variable), and a control character in it would act on the terminal: ESC starts an
 * escape sequence, BEL rings, CR returns to the start of the line so that what follows
 * draws over the error (a fake PASS), NUL and the bidirectional overrides hide or reorder
 * text. Plain JavaScript (types in terminal_text.d.mts), so that the preflight, which
 * runs before the TypeScript loader, escapes with it too.
 *
 * Invariants: `printable` leaves no C0 or C1 control character, DEL or bidirectional
 * control in its result except the line feeds (and tabs) it is told to keep, and is the
 * identity on text without them; each one removed is shown as a visible escape (`\x1b`,
 * `\r`, `\u202e`). `guardTerminal` passes every string written to stdout and stderr
 * through it, so no path can forget; the progress line's own control sequences go
 * through `writeControl`, the one way around it.
 */

/** C0 controls, DEL, C1 controls, and the Unicode bidirectional marks, embeddings, overrides and isolates */
const CONTROL = new RegExp('[\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]', 'g');
const NAMED = { '\r': '\\r', '\n': '\\n', '\t': '\\t' };

/** @param {string} c */
function escapeOne(c) {
  if (c in NAMED) return NAMED[/** @type {'\r' | '\n' | '\t'} */ (c)];
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with its control characters made visible. `keep: 'lines'` keeps line feeds and
 * tabs (a trace, a table); `'none'` escapes them too (one line made of input).
 * @param {string} text
 * @param {'lines' | 'none'} [keep]
 * @returns {string}
 */
export function printable(text, keep = 'none') {
  return text.replace(CONTROL, (c) => (keep === 'lines' && (c === '\n' || c === '\t') ? c : escapeOne(c)));
}

/** @type {Map<NodeJS.WriteStream, NodeJS.WriteStream['write']>} */
const originals = new Map();

/**
 * Writes `text` as is: only for tierlab's own control sequences (the progress line's).
 * @param {NodeJS.WriteStream} stream
 * @param {string} text
 */
export function writeControl(stream, text) {
  (originals.get(stream) ?? stream.write).call(stream, text);
}

/** Makes every string written to stdout and stderr of this process go through `printable` (once). */
export function guardTerminal() {
  for (const stream of [process.stdout, process.stderr]) {
    if (originals.has(stream)) continue;
    const original = stream.write;
    originals.set(stream, original);
    /** @type {any} */ (stream).write = function (/** @type {unknown} */ chunk, /** @type {unknown[]} */ ...rest) {
      const text = typeof chunk === 'string' ? printable(chunk, 'lines') : chunk;
      return /** @type {any} */ (original).call(this, text, ...rest);
    };
  }
}
