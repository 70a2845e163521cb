/**
 * The one place that decides how data text is shown when it holds characters
 * a reader cannot see or that act on the screen: C0 controls, DEL, C1
 * controls, the bidirectional controls (a right-to-left override shows
 * `safe\u202Etxt.exe` as "safeexe.txt") and the line and paragraph
 * separators. They never reach an output raw: each is written visibly, as a
 * C-style escape (`\x1b`, `\n`) or, above U+00FF, as `\u{202E}`. Every
 * renderer (Markdown, HTML, DOT, diff text), the CLI's messages and the web
 * page go through these functions before their own format's escaping, so
 * the visible text is the same everywhere and a name stays identifiable.
 *
 * Pure, no imports: the web page bundles this file too.
 */

/** What is shown escaped in multi-line text: every control but tab and newline. */
const UNSAFE_IN_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What is shown escaped in one-line text (labels, table cells, messages): tab and newline too. */
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same set as UNSAFE_IN_LINE, to test a single character. */
const UNSAFE_CHAR = /^[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]$/;

/** The longest label the map and the panels draw whole (longer ones are cut, with the full text on hover). */
export const LABEL_MAX = 60;

const named: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** How one unsafe character is written: `\n`, `\x1b`, `\x85`, `\u{202E}`. */
export function controlEscape(c: string): string {
  const known = named[c];
  if (known) return known;
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16).toUpperCase().padStart(4, '0')}}`;
}

/** Text that may span lines (a code block, a message): tab and newline kept, every other control shown escaped. */
export function visibleText(text: string): string {
  return text.replace(UNSAFE_IN_LINES, controlEscape);
}

/** Text that must stay on one line (a label, a table cell, a line of a listing): every control, tab and newline included, shown escaped. */
export function oneLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, controlEscape);
}

/**
 * A label for the map or a panel: one line, controls shown escaped, cut
 * after `max` characters with an ellipsis. An escape is never cut in two.
 */
export function clip(text: string, max = LABEL_MAX): string {
  const full = oneLine(text);
  if (Array.from(full).length <= max) return full;
  let out = '';
  let used = 0;
  for (const c of text) {
    const shown = UNSAFE_CHAR.test(c) ? controlEscape(c) : c;
    const width = Array.from(shown).length;
    if (used + width > max - 1) break;
    out += shown;
    used += width;
  }
  return `${out}…`;
}

/** Characters JSON.stringify leaves raw that must not reach a terminal: DEL, C1, bidi controls, line separators (C0 it escapes itself). */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text that parses back to exactly `value` and holds no raw control
 * character: the ones JSON.stringify leaves raw are written as `\uXXXX`
 * escapes (they can only stand inside strings, where that escape means the
 * same character).
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
