import { performance } from 'node:perf_hooks';

export interface BudgetLimits {
  /** Wall-clock time one tool call may take, in milliseconds. */
  readonly timeMs: number;
  /** Bytes one tool call may read from files. */
  readonly bytes: number;
}

/**
 * The time and byte allowance of one tool call. Loops ask `ok()` between units of work (a chunk, a
 * file, a directory): it throws when the call was aborted, and turns false for good once time or
 * bytes ran out, remembering which, so the result can say it is incomplete instead of pretending.
 */
export class CallBudget {
  readonly #limits: BudgetLimits;
  readonly #signal: AbortSignal | undefined;
  readonly #start = performance.now();
  #bytes = 0;
  #exhausted: 'time' | 'bytes' | undefined;

  constructor(limits: BudgetLimits, signal: AbortSignal | undefined) {
    this.#limits = limits;
    this.#signal = signal;
    signal?.throwIfAborted();
  }

  get signal(): AbortSignal | undefined {
    return this.#signal;
  }

  ok(): boolean {
    this.#signal?.throwIfAborted();
    if (this.#exhausted !== undefined) return false;
    if (this.remainingMs() <= 0) this.#exhausted = 'time';
    else if (this.remainingBytes() <= 0) this.#exhausted = 'bytes';
    return this.#exhausted === undefined;
  }

  remainingMs(): number {
    return Math.max(0, this.#limits.timeMs - (performance.now() - this.#start));
  }

  remainingBytes(): number {
    return Math.max(0, this.#limits.bytes - this.#bytes);
  }

  spend(bytes: number): void {
    this.#bytes += bytes;
  }

  /** Marks the time as used up (a worker was stopped at the deadline). */
  timeRanOut(): void {
    this.#exhausted ??= 'time';
  }

  get exhausted(): boolean {
    return this.#exhausted !== undefined;
  }

  /** A line for the result when the budget stopped the work, else undefined. */
  note(what: string): string | undefined {
    if (this.#exhausted === 'time') {
      return `[${what} stopped after ${Math.round(performance.now() - this.#start)} ms (time budget ${this.#limits.timeMs} ms); results may be incomplete]`;
    }
    if (this.#exhausted === 'bytes') {
      return `[${what} stopped after reading ${this.#bytes} bytes (byte budget ${this.#limits.bytes}); results may be incomplete]`;
    }
    return undefined;
  }
}
