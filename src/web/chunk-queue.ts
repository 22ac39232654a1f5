import type { RunChunk } from './ui-chunk.js';

/**
 * Chunks between a run that writes them and a reader that may be slow or gone. Bounded: a reader
 * that falls this far behind loses the stream (it ends with an error chunk telling it to
 * reconnect), never the run its memory or time. Iterated by hand, not by a generator: a chunk
 * already queued is handed over without a promise of its own per step of a generator.
 */
export class ChunkQueue implements AsyncIterable<RunChunk> {
  private items: (RunChunk | undefined)[] = [];
  private head = 0;
  private closed = false;
  private waiting: ((result: IteratorResult<RunChunk>) => void) | undefined;
  // Made once: a reader that keeps up waits once per chunk.
  private readonly wait = (resolve: (result: IteratorResult<RunChunk>) => void): void => {
    this.waiting = resolve;
  };

  constructor(
    private readonly limit: number,
    /** The chunk that ends the stream of a reader that fell behind; `last` is the id of the last chunk the run wrote. */
    private readonly onOverflow: (last: string) => RunChunk,
    /** The reader stopped reading (`return()`, a `break` out of `for await`). */
    private readonly onLeave: () => void = () => undefined,
  ) {}

  /** False once closed (the run ended, the reader left, or it fell behind). */
  get open(): boolean {
    return !this.closed;
  }

  /** Queues the first `count` of `chunks` (one event's), or none of them past the limit. */
  push(chunks: readonly RunChunk[], count = chunks.length): void {
    if (this.closed || count === 0) return;
    const unread = this.items.length - this.head;
    if (unread + count > this.limit) {
      // What it holds is still read; then the error, and nothing more.
      this.items.push(this.onOverflow((chunks[count - 1] as RunChunk).id));
      this.close();
      return;
    }
    let i = 0;
    const waiting = this.waiting;
    if (waiting !== undefined && unread === 0) {
      // The reader waits on an empty queue (it keeps up): the first chunk goes straight to it.
      this.waiting = undefined;
      waiting({ value: chunks[0] as RunChunk, done: false });
      i = 1;
    }
    for (; i < count; i += 1) {
      const chunk = chunks[i] as RunChunk;
      if (!this.merged(chunk)) this.items.push(chunk);
    }
  }

  /**
   * A text piece for the same part as the last chunk still unread joins it: a reader that is
   * behind gets the same text in fewer chunks (a live stream's ids are not for resuming).
   */
  private merged(chunk: RunChunk): boolean {
    const piece = chunk.chunk;
    if (piece.type !== 'text-delta' || this.head >= this.items.length) return false;
    const last = this.items[this.items.length - 1] as RunChunk;
    const before = last.chunk;
    if (before.type !== 'text-delta' || before.id !== piece.id) return false;
    this.items[this.items.length - 1] = { id: last.id, chunk: { type: 'text-delta', id: piece.id, delta: before.delta + piece.delta } };
    return true;
  }

  close(): void {
    this.closed = true;
    const waiting = this.waiting;
    if (waiting === undefined) return;
    const next = this.take();
    if (next === undefined) return;
    this.waiting = undefined;
    waiting(next);
  }

  private take(): IteratorResult<RunChunk> | undefined {
    const items = this.items;
    if (this.head < items.length) {
      const value = items[this.head] as RunChunk;
      // A read chunk is let go at once: kept, it would be copied by every young-generation GC until the array is cut.
      items[this.head] = undefined;
      this.head += 1;
      if (this.head === items.length) {
        items.length = 0;
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= items.length) {
        // Read chunks are dropped from the front in steps, not one by one: the array is copied rarely.
        this.items = items.slice(this.head);
        this.head = 0;
      }
      return { value, done: false };
    }
    return this.closed ? { value: undefined, done: true } : undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunChunk> {
    return {
      next: () => {
        const next = this.take();
        return next !== undefined ? Promise.resolve(next) : new Promise(this.wait);
      },
      return: () => {
        this.close();
        this.onLeave();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
