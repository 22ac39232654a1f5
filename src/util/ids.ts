import { randomBytes } from 'node:crypto';

// Node ids: a random per-process prefix plus a counter, unique across processes whose exports
// are merged, and never taken from the clock (no collisions within a millisecond).
const prefix = randomBytes(3).toString('hex');
let nodeCounter = 0;

export function nextId(kind: string): string {
  nodeCounter += 1;
  // Flattened on purpose: a cons-string would cost extra heap objects on every retained node.
  return `${kind}_${prefix}${nodeCounter.toString(36)}`.normalize();
}

// Event ids: a process-wide sequence. A small integer costs no allocation (events are the
// most numerous objects in a tree) and gives a total order for replaying an export.
let eventCounter = 0;

export function nextEventId(): number {
  eventCounter += 1;
  return eventCounter;
}
