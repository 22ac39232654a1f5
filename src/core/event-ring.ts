import type { ChildAttachedEvent, TreeUpdatedEvent, WorkflowEvent } from '../types/events.js';

/**
 * The newest `capacity` events of one node, oldest overwritten and counted in `dropped` (like
 * `RingBuffer`). A parent spawning in a loop records a `childAttached` and a `treeUpdated` per
 * child on one node, ~100 bytes each as objects; those two are kept as their numbers (id and
 * timestamp, unboxed in a double array) and the child's id and name, and rebuilt on read with
 * the same fields in the same order. Every other event is kept as it is. Decision 0091.
 */
export class EventRing {
  // The arrays grow by doubling up to `capacity` (copied by hand, see `grown`), so a full ring
  // has no spare slots; a push would leave a third spare.
  /** The event, or for a packed one the child's id (`childAttached`) or `TREE_UPDATED`. */
  private items: unknown[] = [];
  /** A packed slot's id and timestamp at `2 * slot`; made with the first packed event. */
  private stamps: number[] | null = null;
  /** A packed `childAttached`'s child name by slot; made with the first one. */
  private names: Array<string | undefined> | null = null;
  private count = 0;
  private start = 0;
  dropped = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.count;
  }

  /** Keeps `event`, recorded on the node `nodeId` of workflow `workflowId`. */
  push(event: WorkflowEvent, nodeId: string, workflowId: string): void {
    if (this.capacity <= 0) {
      this.dropped += 1;
      return;
    }
    let slot: number;
    if (this.count < this.capacity) {
      slot = this.count;
      this.count += 1;
      // A first event gets an array of one, not the 17 slots a push into `[]` reserves.
      if (slot >= this.items.length) this.items = grown(this.items, slot, this.capacity, undefined);
    } else {
      slot = this.start;
      this.start = (this.start + 1) % this.capacity;
      this.dropped += 1;
    }
    this.put(slot, event, nodeId, workflowId);
  }

  /** Oldest first, packed events rebuilt for the node `nodeId` of workflow `workflowId`. */
  toArray(nodeId: string, workflowId: string): WorkflowEvent[] {
    const count = this.count;
    const out: WorkflowEvent[] = new Array<WorkflowEvent>(count);
    for (let i = 0; i < count; i += 1) {
      const slot = (this.start + i) % count;
      out[i] = this.eventAt(slot, nodeId, workflowId);
    }
    return out;
  }

  private put(slot: number, event: WorkflowEvent, nodeId: string, workflowId: string): void {
    const items = this.items;
    if (event.nodeId !== nodeId || event.workflowId !== workflowId) {
      items[slot] = event;
      return;
    }
    if (event.type === 'treeUpdated' && event.rootId === workflowId && hasKeys(event, TREE_UPDATED_KEYS)) {
      this.stamp(slot, event);
      items[slot] = TREE_UPDATED;
      return;
    }
    if (event.type === 'childAttached' && typeof event.childId === 'string' && hasKeys(event, CHILD_ATTACHED_KEYS)) {
      this.stamp(slot, event);
      items[slot] = event.childId;
      this.nameAt(slot, event.childName);
      return;
    }
    items[slot] = event;
  }

  private stamp(slot: number, event: WorkflowEvent): void {
    let stamps = this.stamps ?? [];
    // Zeros in the slots of whole events: the array stays all numbers, kept unboxed.
    if (stamps.length < 2 * slot + 2) stamps = grown(stamps, 2 * slot + 1, 2 * this.capacity, 0);
    this.stamps = stamps;
    stamps[2 * slot] = event.id;
    stamps[2 * slot + 1] = event.timestamp;
  }

  private nameAt(slot: number, name: string): void {
    let names = this.names ?? [];
    if (names.length <= slot) names = grown(names, slot, this.capacity, undefined);
    this.names = names;
    names[slot] = name;
  }

  private eventAt(slot: number, nodeId: string, workflowId: string): WorkflowEvent {
    const item = this.items[slot];
    if (item !== TREE_UPDATED && typeof item !== 'string') return item as WorkflowEvent;
    const stamps = this.stamps as number[];
    const id = stamps[2 * slot] as number;
    const timestamp = stamps[2 * slot + 1] as number;
    if (item === TREE_UPDATED) {
      const event: TreeUpdatedEvent = { id, nodeId, workflowId, timestamp, type: 'treeUpdated', rootId: workflowId };
      return event;
    }
    const childName = (this.names as Array<string | undefined>)[slot] as string;
    const event: ChildAttachedEvent = { id, nodeId, workflowId, timestamp, type: 'childAttached', childId: item, childName };
    return event;
  }
}

/**
 * `array` copied into one with room for index `index`: twice as long (at least 1), at most `max`,
 * new places holding `fill`.
 */
function grown<T>(array: T[], index: number, max: number, fill: T): T[] {
  const length = Math.min(max, Math.max(index + 1, 2 * array.length));
  const out = new Array<T>(length).fill(fill);
  for (let i = 0; i < array.length; i += 1) out[i] = array[i] as T;
  return out;
}

/** A packed `treeUpdated` in `items` (a child's id is a string, every other event an object). */
const TREE_UPDATED = 0;

const TREE_UPDATED_KEYS: readonly string[] = ['id', 'nodeId', 'workflowId', 'timestamp', 'type', 'rootId'];
const CHILD_ATTACHED_KEYS: readonly string[] = ['id', 'nodeId', 'workflowId', 'timestamp', 'type', 'childId', 'childName'];

/**
 * True when `event` has exactly `keys`, in that order, with a numeric id and timestamp and string
 * values elsewhere: then the rebuilt event is the same object, field for field (an export compares
 * its JSON).
 */
function hasKeys(event: WorkflowEvent, keys: readonly string[]): boolean {
  if (typeof event.id !== 'number' || typeof event.timestamp !== 'number') return false;
  const fields = event as unknown as Record<string, unknown>;
  let i = 0;
  for (const key in fields) {
    if (key !== keys[i]) return false;
    if (i >= 4 && typeof fields[key] !== 'string') return false;
    i += 1;
  }
  return i === keys.length;
}
