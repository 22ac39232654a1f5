import type { AgentStreamEvent } from './prompt-call.js';

type Producer<T> = (emit: (event: AgentStreamEvent<T>) => void) => Promise<T>;

/**
 * The events of one streamed call as an async iterable, ending with `{ type: 'result' }`. The call
 * starts at once; events are buffered until read. A failure rejects the iteration and `finalValue()`.
 */
export class AgentStream<T> implements AsyncIterable<AgentStreamEvent<T>> {
  private readonly buffer: AgentStreamEvent<T>[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private failure: { error: unknown } | undefined;
  private readonly result: Promise<T>;

  constructor(produce: Producer<T>) {
    this.result = produce((event) => this.push(event)).then(
      (value) => {
        this.push({ type: 'result', value });
        this.finish();
        return value;
      },
      (error: unknown) => {
        this.failure = { error };
        this.finish();
        throw error;
      },
    );
    // Reading only through the iterator must not leave an unhandled rejection behind.
    this.result.catch(() => undefined);
  }

  /** The validated answer (the same value as the final `result` event). */
  finalValue(): Promise<T> {
    return this.result;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AgentStreamEvent<T>> {
    let index = 0;
    for (;;) {
      if (index < this.buffer.length) {
        yield this.buffer[index] as AgentStreamEvent<T>;
        index += 1;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private push(event: AgentStreamEvent<T>): void {
    this.buffer.push(event);
    this.wake?.();
    this.wake = undefined;
  }

  private finish(): void {
    this.done = true;
    this.wake?.();
    this.wake = undefined;
  }
}
