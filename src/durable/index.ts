// `groundswell/durable`: the run store contract, the embedded store and the in-memory one. The
// PostgreSQL store is `groundswell/postgres`; both keep runs so they can be resumed.
export type { NewRun, RunPatch, RunRecord, RunStatus, WaitingFor } from './store/run-record.js';
export type { CallRecord, SignalRecord, StepRecord, StoredEvent } from './store/stored-records.js';
export type { AppendedEvents, Lease, LeaseHolder, ListRunsQuery, LoadedRun, RunStore, SettledStep } from './store/run-store.js';
export { RunExistsError, RunFencedError, RunLeaseError, RunNotFoundError, RunStoreCorruptError, RunStoreError, RunValueError } from './store/run-store-errors.js';
export { JournalRunStore } from './journal/journal-store.js';
export type { JournalRunStoreOptions } from './journal/journal-store-options.js';
export { MemoryRunStore } from './memory/memory-store.js';
export type { MemoryRunStoreOptions } from './memory/memory-store-options.js';
export type { MemoryRunSeed } from './memory/memory-seed.js';
export type { FsyncPolicy } from './store/fsync-policy.js';
export type { RecoveredTail } from './journal/journal-file.js';
export type { CallRequest } from './store/stored-records.js';
export { checkRecording, exportRecording, readRecording, RecordingError, RECORDING_VERSION, writeRecording } from './replay/recording.js';
export type { Recording } from './replay/recording.js';
export { replayRun } from './replay/replay-run.js';
export type { ReplayOptions, ReplayResult } from './replay/replay-run.js';
export { ReplayDivergenceError } from './replay/replay-divergence.js';
export type { ChangedPart, DivergenceKind, ReplayDivergence } from './replay/replay-divergence.js';
export { formatDivergence } from './replay/format-divergence.js';
export { forkRun } from './replay/fork-run.js';
export type { ForkOptions, ForkResult } from './replay/fork-run.js';
export { recordRun } from './replay/record-run.js';
export type { RecordedRun, RecordOptions } from './replay/record-run.js';
