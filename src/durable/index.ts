// `groundswell/durable`: the run store contract and the embedded store. The
// PostgreSQL store is `groundswell/postgres`; both keep runs so they can be resumed.
export type { NewRun, RunPatch, RunRecord, RunStatus, WaitingFor } from './store/run-record.js';
export type { CallRecord, SignalRecord, StepRecord, StoredEvent } from './store/stored-records.js';
export type { AppendedEvents, Lease, LeaseHolder, ListRunsQuery, LoadedRun, RunStore, SettledStep } from './store/run-store.js';
export { RunExistsError, RunFencedError, RunLeaseError, RunNotFoundError, RunStoreCorruptError, RunStoreError, RunValueError } from './store/run-store-errors.js';
export { JournalRunStore } from './journal/journal-store.js';
export type { JournalRunStoreOptions } from './journal/journal-store-options.js';
export type { FsyncPolicy } from './store/fsync-policy.js';
export type { RecoveredTail } from './journal/journal-file.js';
