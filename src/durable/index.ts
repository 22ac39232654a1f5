// `groundswell/durable`: the run store contract and the embedded store. The
// PostgreSQL store is `groundswell/postgres`; both keep runs so they can be resumed.
export type { NewRun, RunPatch, RunRecord, RunStatus, WaitingFor } from './run-record.js';
export type { CallRecord, SignalRecord, StepRecord, StoredEvent } from './stored-records.js';
export type { AppendedEvents, Lease, ListRunsQuery, LoadedRun, RunStore } from './run-store.js';
export { RunExistsError, RunLeaseError, RunNotFoundError, RunStoreCorruptError, RunStoreError, RunValueError } from './run-store-errors.js';
export { JournalRunStore } from './journal-store.js';
export type { JournalRunStoreOptions } from './journal-store-options.js';
export type { FsyncPolicy } from './fsync-policy.js';
export type { RecoveredTail } from './journal-file.js';
