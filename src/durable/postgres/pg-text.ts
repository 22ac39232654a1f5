/**
 * A `text` column cannot hold U+0000, and `pg` sends strings as UTF-8, which turns a lone
 * surrogate into U+FFFD (so two keys could merge). Such characters, and the escape character
 * U+0001 itself, are written as U+0001 followed by four hex digits of the UTF-16 code unit.
 * Every U+0001 in a stored string starts an escape, so the mapping is one-to-one and reversible.
 */
const UNSAFE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESCAPED = /\u0001([0-9a-f]{4})/g;

/** The form of a key, name or owner stored in a `text` column. */
export function encodeText(text: string): string {
  return text.replace(UNSAFE, (c) => `\u0001${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The string `encodeText` was given. */
export function decodeText(stored: string): string {
  return stored.includes('\u0001') ? stored.replace(ESCAPED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : stored;
}
