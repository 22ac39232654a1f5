/**
 * Text made safe to place on one line of a prompt: control characters, line and paragraph
 * separators become spaces (so a value cannot forge another line or heading), whitespace runs
 * collapse, and the result is capped at `max` characters ending in `...`.
 */
export function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}
