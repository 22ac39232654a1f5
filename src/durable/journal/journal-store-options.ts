import type { RecoveredTail } from './journal-file.js';

import type { FsyncPolicy } from '../store/fsync-policy.js';
import type { RunStoreCorruptError } from '../store/run-store-errors.js';

export interface JournalRunStoreOptions {
  /** Folder of the runs, one subfolder per run; default `.groundswell/runs` under `process.cwd()`. */
  dir?: string;
  /** When records are forced to the disk; default `checkpoints` (see `FsyncPolicy`). */
  fsync?: FsyncPolicy;
  /** Time source for timestamps and leases (default `Date`: epoch ms, valid across processes). */
  clock?: { now(): number };
  /** Called for each torn last record found (a write cut short by a crash), besides `store.recovered`. */
  onRecover?: (tail: RecoveredTail) => void;
  /**
   * Called for each run `listRuns` leaves out because its folder or `run.json` is damaged (a
   * symbolic link, not a run record, another run's record); the others are still listed.
   */
  onDamaged?: (error: RunStoreCorruptError) => void;
}
