import type { RecoveredTail } from './journal-file.js';

/**
 * When the journal store forces data to the disk (fsync). Every record is written with one
 * `write(2)` before its promise resolves, so a killed process never loses an acknowledged record;
 * fsync is only about a power loss or an OS crash (decision 0032).
 * - `checkpoints` (default): on createRun, updateRun (status changes, suspend), signals and the
 *   lease; a power loss can lose the steps since the last of these, which a resume runs again.
 * - `every-record`: every record too (costs milliseconds per record on most disks).
 * - `off`: never (tests, throwaway runs).
 */
export type JournalFsync = 'checkpoints' | 'every-record' | 'off';

export interface JournalRunStoreOptions {
  /** Folder of the runs, one subfolder per run; default `.groundswell/runs` under `process.cwd()`. */
  dir?: string;
  /** Default `checkpoints`. */
  fsync?: JournalFsync;
  /** Time source for timestamps and leases (default `Date`: epoch ms, valid across processes). */
  clock?: { now(): number };
  /** Called for each torn last record found (a write cut short by a crash), besides `store.recovered`. */
  onRecover?: (tail: RecoveredTail) => void;
}
