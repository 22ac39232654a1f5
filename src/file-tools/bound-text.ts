import { truncate } from '../util/truncate.js';

/**
 * Cuts `text` to at most `max` characters (marker included when it fits), saying how much was
 * dropped, so a model never mistakes a cut output for the whole of it.
 */
export function boundText(text: string, max: number): string {
  return truncate(text, max, (dropped) => `\n[output truncated: ${dropped} more characters]`);
}

/**
 * Bounds `body` to `max` characters together with `notes` appended on their own lines. The notes
 * say why a result is incomplete, so they are kept whole and the body is cut instead (unless the
 * notes alone nearly fill the bound).
 */
export function boundWithNotes(body: string, notes: readonly string[], max: number): string {
  if (notes.length === 0) return boundText(body, max);
  const tail = notes.join('\n');
  const room = max - tail.length - 1;
  if (room < 100) return boundText(`${body}\n${tail}`, max);
  return `${boundText(body, room)}\n${tail}`;
}

/**
 * The display form of a line known only by its first characters (`head`, at least `max` of them
 * when the line is longer) and its full `length`. `complete` is false when reading stopped inside
 * the line (a budget ran out), so its end is unknown and it is marked even when short.
 */
export function cutLine(head: string, length: number, max: number, complete: boolean): string {
  if (complete) return length <= max ? head : `${head.slice(0, max)}… [line cut, ${length - max} more characters]`;
  return length <= max ? `${head}… [line cut where reading stopped]` : `${head.slice(0, max)}… [line cut, at least ${length - max} more characters]`;
}
