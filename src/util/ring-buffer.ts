import { keepShape } from './lasting-shape.js';

/**
 * Keeps the newest `capacity` items. Push is O(1); the oldest item is overwritten once full and
 * counted in `dropped`, so memory per node stays bounded however long a run goes.
 */
export class RingBuffer<T> {
  private items: T[] = [];
  private start = 0;
  dropped = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.capacity <= 0) {
      this.dropped += 1;
      return;
    }
    const length = this.items.length;
    if (length < this.capacity) {
      // A first item gets an array of one, not the 17 slots a push into `[]` reserves: most
      // rings (a node's third event, its first log) never hold a second.
      if (length === 0) this.items = [item];
      else this.items.push(item);
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    this.dropped += 1;
  }

  /** Oldest first. */
  toArray(): T[] {
    if (this.start === 0) return this.items.slice();
    return this.items.slice(this.start).concat(this.items.slice(0, this.start));
  }
}

// A node's logs die with its tree: one ring is kept, so its shape outlives every tree (decision 0095).
keepShape(new RingBuffer<unknown>(0));
