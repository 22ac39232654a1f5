/**
 * A workflow's `durable` option as core carries it: core neither reads nor checks the store; the
 * durable-run layer does (`src/durable/runtime/`). @public (in public signatures; knip)
 */
export interface DurableSetting {
  /** Where the run is kept: `journalRunStore()` from `groundswell/durable`, or a PostgreSQL store. */
  readonly store: object;
  /** The run's id (default: a new one). */
  readonly runId?: string;
  /** JSON input stored with the run and handed back to the factory on `resume()`. */
  readonly input?: unknown;
  /** How long the run's lease lasts without renewal, in ms (default 30,000). */
  readonly leaseMs?: number;
}
