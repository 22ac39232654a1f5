import type { RunChunk } from './ui-chunk.js';

/**
 * Chunks between a run that writes them and a reader that may be slow or gone. Bounded: a reader
 * that falls this far behind loses the stream (it ends with an error chunk telling it to
 * reconnect), never the run its memory or time.
 */
export class ChunkQueue implements AsyncIterable<RunChunk> {
  private items: RunChunk[] = [];
  private head = 0;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly onOverflow: () => RunChunk,
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
    for (const chunk of chunks) this.items.push(chunk);
    this.signal();
  }

  close(): void {
    this.closed = true;
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunChunk> {
    for (;;) {
      while (this.head < this.items.length) {
        const chunk = this.items[this.head] as RunChunk;
        this.head += 1;
        // Read chunks are let go in steps, not one by one: the array is copied rarely.
        if (this.head >= 1024 && this.head * 2 >= this.items.length) {
          this.items = this.items.slice(this.head);
          this.head = 0;
        }
        yield chunk;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
