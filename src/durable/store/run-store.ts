import type { NewRun, RunPatch, RunRecord, RunStatus } from './run-record.js';
import type { CallRecord, SignalRecord, StepRecord, StoredEvent } from './stored-records.js';

export interface ListRunsQuery {
  /** One status or several; all when absent. */
  status?: RunStatus | readonly RunStatus[];
  rootName?: string;
  /** At most this many, newest first. */
  limit?: number;
}

/** Everything a resume needs, read in one call. */
export interface LoadedRun {
  run: RunRecord;
  /** In the order they were written. */
  steps: StepRecord[];
  calls: CallRecord[];
  signals: SignalRecord[];
  /** Named data (`putData`), the latest value of each name. */
  data: Record<string, unknown>;
  /** The latest tree (`putTree`), absent when none was stored. */
  tree?: unknown;
}

/**
 * The right to write a run, held by one owner until `expiresAt` unless renewed. A holder passes
 * its lease with every write it makes (the `fence` argument): the store makes the write only while
 * that lease is still the run's current one, checked together with the write, so a holder that
 * was paused past its lease and taken over writes nothing at all.
 */
export interface Lease {
  readonly runId: string;
  readonly owner: string;
  /** Tells this holding of the lease from every other one, the same owner's later ones included. */
  readonly token: string;
  /** Epoch ms; updated by `renew()`. */
  readonly expiresAt: number;
  /** Extends the lease by its ttl; a lease taken over meanwhile rejects with `RunLeaseError`. */
  renew(): Promise<void>;
  /** Gives the lease up (idempotent; a lease already taken over is left to its new owner). */
  release(): Promise<void>;
}

/** How `acquireLease` takes a lease. */
export interface AcquireLeaseOptions {
  /** Take the lease even from a live holder (an operator's word that it is dead; decision 0090). */
  readonly takeOver?: boolean;
}

/** Who holds a run's lease, as `leaseOf` reads it. */
export interface LeaseHolder {
  readonly owner: string;
  /** Epoch ms, on the store's clock. */
  readonly expiresAt: number;
  /**
   * `alive` while the lease holds; `expired` once `expiresAt` passed; `exited` when the store can
   * tell its process is gone before that (the journal store, for a process on this host).
   */
  readonly state: 'alive' | 'expired' | 'exited';
}

export interface AppendedEvents {
  /** Sequence number of the first event appended (the next one when none were). */
  first: number;
  /** Sequence number of the last event appended. */
  last: number;
}

/** What `settleStep` resolves: what `putStep` and `appendEvents` would have. */
export interface SettledStep {
  /** False when the step's key was already written (the record was left as it was). */
  written: boolean;
  events: AppendedEvents;
}

/**
 * Where durable runs are kept. Values are stored as JSON: a value JSON cannot hold
 * exactly is refused with a `RunValueError`, never changed. A run unknown to the store is a
 * `RunNotFoundError` for every method but `getRun` (which resolves `undefined`).
 *
 * Writes take an optional `fence`: the lease the writer holds. With one, the store writes only
 * while that lease is the run's current lease, decided atomically with the write; otherwise it
 * writes nothing and rejects with `RunFencedError`. Without one (tools, `signal()`), it writes.
 */
export interface RunStore {
  /** Refuses an id already stored with `RunExistsError`. */
  createRun(run: NewRun): Promise<RunRecord>;
  updateRun(id: string, patch: RunPatch, fence?: Lease): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /** Newest first (by `createdAt`). */
  listRuns(query?: ListRunsQuery): Promise<RunRecord[]>;
  loadRun(id: string): Promise<LoadedRun>;
  /** A key is written once: a second put of the same key is ignored and resolves `false`. */
  putStep(runId: string, step: StepRecord, fence?: Lease): Promise<boolean>;
  /** A key is written once: a second put of the same key is ignored and resolves `false`. */
  putCall(runId: string, call: CallRecord, fence?: Lease): Promise<boolean>;
  appendEvents(runId: string, events: readonly unknown[], fence?: Lease): Promise<AppendedEvents>;
  /**
   * Optional: `appendEvents(runId, events)` then `putStep(runId, step)` in one write, which a
   * durable run uses for each settled step when the store has it (else it makes the two calls).
   * The events are appended even when the key was already written: they record what this
   * process ran. A value refused with `RunValueError` writes nothing. PostgreSQL writes both
   * atomically; the journal store writes the events, then the step (two files).
   */
  settleStep?(runId: string, step: StepRecord, events: readonly unknown[], fence?: Lease): Promise<SettledStep>;
  /** Events with `seq > after` (default 0), at most `limit`, in order. */
  readEvents(runId: string, options?: { after?: number; limit?: number }): Promise<StoredEvent[]>;
  putSignal(runId: string, signal: SignalRecord): Promise<void>;
  /** Named data of a run (the trajectory checkpoint, the plan): the latest value wins. */
  putData(runId: string, name: string, value: unknown, fence?: Lease): Promise<void>;
  /** The run's latest tree (a debugger export): the latest one wins. */
  putTree(runId: string, tree: unknown, fence?: Lease): Promise<void>;
  /**
   * Takes the run's lease for `ttlMs`. Another owner's live lease is a `RunLeaseError` naming
   * the holder and when it expires; an expired lease is taken over, and so is one whose holder
   * the store can tell is gone (a process of this machine that exited); the same owner renews.
   * With `takeOver`, the lease is taken whoever holds it, with a new token, so the old holder's
   * fenced writes are refused from then on. A store that ignores `options` never takes a live
   * lease (safe: the resumer is refused).
   */
  acquireLease(runId: string, owner: string, ttlMs: number, options?: AcquireLeaseOptions): Promise<Lease>;
  /**
   * Optional, read-only: who holds the run's lease, undefined when nobody does (never taken, or
   * released). `groundswell runs list` shows with it whether a `running` run's holder is alive.
   */
  leaseOf?(runId: string): Promise<LeaseHolder | undefined>;
  close(): Promise<void>;
}
