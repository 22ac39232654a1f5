/**
 * Characters a terminal may act on instead of showing: C0 controls (ESC starts colour, cursor,
 * clear-screen and OSC sequences; BEL, CR, BS and LF move or sound), DEL, the C1 range (U+009B is
 * a one-character CSI), line and paragraph separators, and bidi embeddings, overrides and isolates
 * (which reorder what follows them on screen).
 */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const ACTIVE_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(char: string): string {
  return SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every character a terminal could act on written out as a JSON-style escape (`\n`,
 * `\r`, `\t`, else `\u001b`), so data printed to a terminal is only ever shown: it cannot colour,
 * move the cursor, clear the screen, set the title, reorder text, or start a line of its own.
 * `keepNewlines` lets line feeds through, for text whose lines the caller laid out itself.
 */
export function inertText(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(options.keepNewlines === true ? ACTIVE_BUT_LF : ACTIVE, visible);
}
