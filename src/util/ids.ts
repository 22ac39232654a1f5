import { randomBytes } from 'node:crypto';

// A random per-process prefix plus a counter: unique across processes that merge exports, and
// cheap enough to mint one per event (no clock involved, so no collisions within a millisecond).
const prefix = randomBytes(4).toString('hex');
let counter = 0;

export function nextId(kind: string): string {
  counter += 1;
  return `${kind}_${prefix}${counter.toString(36)}`;
}
