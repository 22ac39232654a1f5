import { randomBytes } from 'node:crypto';

// Node ids: a kind letter, a random per-process prefix and a counter, e.g. `s-9f3a-2bq`. Unique
// within a process and very likely across processes whose exports are merged; never taken from
// the clock (no collisions within a millisecond). Kept under 13 characters for the first 60M ids
// so V8 stores them flat, not as cons-strings: retained objects per node cost GC time.
const prefix = randomBytes(2).toString('hex');
const tags = new Map<string, IdTag>();
let nodeCounter = 0;

/**
 * The ids of one kind letter: its tag (`s-9f3a-`) and, for the block of 1,296 (36²) counter values
 * the last id fell in, the first of them and the tag with the block's base-36 digits. An id is
 * then that head and its last two digits from a table: one string made per id, not three
 * (`toString(36)` and two joins), and no division.
 */
export interface IdTag {
  readonly tag: string;
  /** The first counter value of the block `head` is for (-1: none yet). */
  first: number;
  head: string;
}

const BLOCK = 36 * 36;

/** Two base-36 digits for each number below 36², zero-padded: the last two digits of an id. */
const PAIRS: readonly string[] = Array.from({ length: BLOCK }, (_, n) => n.toString(36).padStart(2, '0'));

/** The tag of ids of `kind` (its first letter), made once per letter. */
export function idTag(kind: string): IdTag {
  let tag = tags.get(kind);
  if (tag === undefined) {
    tag = { tag: `${kind.charAt(0)}-${prefix}-`, first: -1, head: '' };
    tags.set(kind, tag);
  }
  return tag;
}

export function nextId(kind: string): string {
  return nextIdOf(idTag(kind));
}

/** The next id with `tag`: the same id `nextId` gives for its kind, without looking the tag up. */
export function nextIdOf(tag: IdTag): string {
  nodeCounter += 1;
  const n = nodeCounter;
  const low = n - tag.first;
  if (tag.first > 0 && low < BLOCK) return tag.head + (PAIRS[low] as string);
  return idInNewBlock(tag, n);
}

/** `n.toString(36)` after the tag: the block's digits then the last two, padded (no leading zero: block ≥ 1). */
function idInNewBlock(tag: IdTag, n: number): string {
  const block = Math.floor(n / BLOCK);
  if (block === 0) return tag.tag + n.toString(36);
  tag.first = block * BLOCK;
  tag.head = tag.tag + block.toString(36);
  return tag.head + (PAIRS[n - tag.first] as string);
}

// Event ids: a process-wide sequence. A small integer costs no allocation (events are the
// most numerous objects in a tree) and gives a total order for replaying an export.
let eventCounter = 0;

export function nextEventId(): number {
  eventCounter += 1;
  return eventCounter;
}
