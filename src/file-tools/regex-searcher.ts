import { Worker } from 'node:worker_threads';
import type { CallBudget } from './call-budget.js';
import { ReadOnlyToolError } from './errors.js';
import { REGEX_WORKER_SOURCE, type WorkerHit, type WorkerRequest } from './regex-worker-source.js';

/** Heap for the worker: room for one file's text split into lines, not for a runaway pattern's allocations. */
const WORKER_HEAP_MB = 128;

/**
 * Runs a regular expression over file texts in a worker thread. A backtracking pattern can run for
 * minutes on one line and no JavaScript check can interrupt it on the main thread; a worker can be
 * terminated mid-match, so the event loop never blocks and the call ends when its budget or the
 * caller's abort says so. One worker per grep call; `close` must be called when done.
 */
export class RegexSearcher {
  readonly #worker: Worker;
  #closed = false;
  #failure: Error | undefined;

  constructor(source: string, flags: string) {
    this.#worker = new Worker(REGEX_WORKER_SOURCE, {
      eval: true,
      workerData: { source, flags },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // Always listened to: an 'error' with no listener would be thrown in this thread and crash the process.
    this.#worker.on('error', (error) => {
      this.#failure = error;
    });
  }

  /**
   * The matching lines of one text, or undefined when the budget's time ran out first (the worker is
   * then stopped and this searcher is done). Rejects with the abort reason when the call is aborted.
   */
  search(request: WorkerRequest, budget: CallBudget): Promise<WorkerHit[] | undefined> {
    if (this.#failure !== undefined) {
      return Promise.reject(new ReadOnlyToolError(`The regex search failed: ${this.#failure.message}.`, { cause: this.#failure }));
    }
    if (this.#closed) return Promise.resolve(undefined);
    const worker = this.#worker;
    const signal = budget.signal;
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (hits: WorkerHit[]): void => {
        cleanup();
        resolve(hits);
      };
      const onTimeout = (): void => {
        cleanup();
        budget.timeRanOut();
        void this.close();
        resolve(undefined);
      };
      const onAbort = (): void => {
        cleanup();
        void this.close();
        reject(signal?.reason);
      };
      const onError = (error: Error): void => {
        cleanup();
        void this.close();
        reject(new ReadOnlyToolError(`The regex search failed: ${error.message}.`, { cause: error }));
      };
      const onExit = (code: number): void => {
        cleanup();
        this.#closed = true;
        reject(new ReadOnlyToolError(`The regex search stopped unexpectedly (worker exit code ${code}).`));
      };
      const timer = setTimeout(onTimeout, budget.remainingMs());
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      if (signal?.aborted === true) onAbort();
      else worker.postMessage(request);
    });
  }

  /** Stops the worker (a running match included); safe to call more than once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#worker.terminate();
  }
}
