import type { RunChunk } from './ui-chunk.js';

/**
 * Chunks between a run that writes them and a reader that may be slow or gone. Bounded: a reader
 * that falls this far behind loses the stream (it ends with an error chunk telling it to
 * reconnect), never the run its memory or time. Iterated by hand, not by a generator: a chunk
 * already queued is handed over without a promise of its own per step of a generator.
 */
export class ChunkQueue implements AsyncIterable<RunChunk> {
  private items: RunChunk[] = [];
  private head = 0;
  private closed = false;
  private waiting: ((result: IteratorResult<RunChunk>) => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly onOverflow: () => RunChunk,
    /** The reader stopped reading (`return()`, a `break` out of `for await`). */
    private readonly onLeave: () => void = () => undefined,
  ) {}

  /** False once closed (the run ended, the reader left, or it fell behind). */
  get open(): boolean {
    return !this.closed;
  }

  push(chunks: readonly RunChunk[]): void {
    if (this.closed || chunks.length === 0) return;
    if (this.items.length - this.head + chunks.length > this.limit) {
      // What it holds is still read; then the error, and nothing more.
      this.items.push(this.onOverflow());
      this.close();
      return;
    }
    for (const chunk of chunks) if (!this.merged(chunk)) this.items.push(chunk);
    this.hand();
  }

  /**
   * A text piece for the same part as the last chunk still unread joins it: a reader that is
   * behind gets the same text in fewer chunks (a live stream's ids are not for resuming).
   */
  private merged(chunk: RunChunk): boolean {
    const last = this.head < this.items.length ? this.items[this.items.length - 1] : undefined;
    const piece = chunk.chunk;
    const before = last?.chunk;
    if (last === undefined || before === undefined || piece.type !== 'text-delta' || before.type !== 'text-delta' || before.id !== piece.id) return false;
    this.items[this.items.length - 1] = { id: last.id, chunk: { type: 'text-delta', id: piece.id, delta: before.delta + piece.delta } };
    return true;
  }

  close(): void {
    this.closed = true;
    this.hand();
  }

  /** Gives a waiting reader the next chunk (or the end). */
  private hand(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    const next = this.take();
    if (next === undefined) return;
    this.waiting = undefined;
    waiting(next);
  }

  private take(): IteratorResult<RunChunk> | undefined {
    if (this.head < this.items.length) {
      const value = this.items[this.head] as RunChunk;
      this.head += 1;
      // Read chunks are let go in steps, not one by one: the array is copied rarely.
      if (this.head >= 1024 && this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head);
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
        return next !== undefined ? Promise.resolve(next) : new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.close();
        this.onLeave();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
