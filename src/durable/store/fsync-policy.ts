/**
 * When a store forces written data to the disk (decision 0032). Every write is complete before
 * its promise resolves, so a killed process never loses an acknowledged record; this policy is
 * about a power loss or an OS crash only (on PostgreSQL also a crash of the database server).
 * - `checkpoints` (the journal store's default): createRun, updateRun (status changes, suspend),
 *   signals and leases are flushed (journal: fsync; PostgreSQL: a synchronous commit), and flush
 *   everything written before them; steps, calls, events, data and the tree are not. A power loss
 *   can lose the steps since the last checkpoint, which a resume then runs again, side effects
 *   included.
 * - `every-record` (PostgreSQL's default): every write is flushed (milliseconds per record on most
 *   disks; on PostgreSQL each write waits for its commit to reach the disk).
 * - `off`: nothing is flushed (tests, throwaway runs; PostgreSQL: asynchronous commits throughout).
 */
export type FsyncPolicy = 'checkpoints' | 'every-record' | 'off';

export const FSYNC_POLICIES: readonly FsyncPolicy[] = ['checkpoints', 'every-record', 'off'];
