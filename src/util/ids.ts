import { randomBytes } from 'node:crypto';

// Node ids: a kind letter, a random per-process prefix and a counter, e.g. `s-9f3a-2bq`. Unique
// within a process and very likely across processes whose exports are merged; never taken from
// the clock (no collisions within a millisecond). Kept under 13 characters for the first 60M ids
// so V8 stores them flat, not as cons-strings: retained objects per node cost GC time.
const prefix = randomBytes(2).toString('hex');
const tags = new Map<string, string>();
let nodeCounter = 0;

export function nextId(kind: string): string {
  let tag = tags.get(kind);
  if (tag === undefined) {
    tag = `${kind.charAt(0)}-${prefix}-`;
    tags.set(kind, tag);
  }
  nodeCounter += 1;
  return tag + nodeCounter.toString(36);
}

// Event ids: a process-wide sequence. A small integer costs no allocation (events are the
// most numerous objects in a tree) and gives a total order for replaying an export.
let eventCounter = 0;

export function nextEventId(): number {
  eventCounter += 1;
  return eventCounter;
}
