/**
 * The run store a `durable` option takes, as core can name it: core sits below the durable layer,
 * so it cannot import the `RunStore` contract (`groundswell/durable`); this lists its methods so
 * that every `RunStore` fits and a plain object (`{ dir: '.groundswell/runs' }`) is a type error.
 * Arguments are `never` because only the durable layer calls them. @public (in public signatures; knip)
 */
export interface DurableStore {
  createRun(...args: never[]): Promise<unknown>;
  updateRun(...args: never[]): Promise<unknown>;
  getRun(...args: never[]): Promise<unknown>;
  listRuns(...args: never[]): Promise<unknown>;
  loadRun(...args: never[]): Promise<unknown>;
  putStep(...args: never[]): Promise<unknown>;
  putCall(...args: never[]): Promise<unknown>;
  appendEvents(...args: never[]): Promise<unknown>;
  readEvents(...args: never[]): Promise<unknown>;
  putSignal(...args: never[]): Promise<unknown>;
  putData(...args: never[]): Promise<unknown>;
  putTree(...args: never[]): Promise<unknown>;
  acquireLease(...args: never[]): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A workflow's `durable` option as core carries it: core neither reads nor checks the store; the
 * durable-run layer does (`src/durable/runtime/`). @public (in public signatures; knip)
 */
export interface DurableSetting {
  /**
   * Where the run is kept: a `RunStore`, e.g. `new JournalRunStore()` from `groundswell/durable`
   * or `new PostgresRunStore()` from `groundswell/postgres`.
   */
  readonly store: DurableStore;
  /** The run's id (default: a new one). */
  readonly runId?: string;
  /** JSON input stored with the run and handed back to the factory on `resume()`. */
  readonly input?: unknown;
  /** How long the run's lease lasts without renewal, in ms (default 30,000). */
  readonly leaseMs?: number;
}
