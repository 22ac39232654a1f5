import type { Rng } from './rng.js';

/**
 * The faults a schedule injects, by where they strike:
 * - at a call to the store or the lease (`call`): the process is killed before the call runs or
 *   after it ran but before it sees the answer; it is paused past its lease while another process
 *   resumes the run, then continues; the wall clock jumps forward;
 * - at a file operation of the journal store (`fs`): a short write then a full disk, a full disk,
 *   an I/O error on a write or a read, a failed fsync, or a kill right after the operation;
 * - at a statement sent to PostgreSQL (`pg`): the connection drops before the statement is sent,
 *   or after it ran (its outcome unknown to the client).
 */
export const CALL_FAULTS = ['kill-before', 'kill-after', 'pause', 'clock-jump'] as const;
export const FS_FAULTS = ['short-write', 'enospc', 'eio-write', 'eio-read', 'fsync-fail', 'kill-at-fs'] as const;
export const PG_FAULTS = ['drop-before', 'drop-after'] as const;

export type CallFault = (typeof CALL_FAULTS)[number];
export type FsFault = (typeof FS_FAULTS)[number];
export type PgFault = (typeof PG_FAULTS)[number];
export type FaultKind = CallFault | FsFault | PgFault;

export interface PlannedFault {
  kind: FaultKind;
  /** Which operation of its place (counted from the schedule's start, all processes together). */
  at: number;
}

/** How many operations of each place an uninterrupted run makes: the range faults are drawn from. */
export interface OperationCounts {
  call: number;
  fs: number;
  pg: number;
}

/** One to three faults, at operations the uninterrupted run would reach (a resume adds more). */
export function planFaults(rng: Rng, store: 'journal' | 'postgres', counts: OperationCounts): PlannedFault[] {
  const count = 1 + rng.below(3);
  const faults: PlannedFault[] = [];
  for (let i = 0; i < count; i += 1) {
    const place = rng.below(3);
    if (place === 0 || (place === 2 && store === 'journal' && counts.fs === 0)) {
      faults.push({ kind: rng.pick(CALL_FAULTS), at: rng.below(counts.call) });
    } else if (store === 'journal' && place >= 1) {
      faults.push({ kind: rng.pick(FS_FAULTS), at: rng.below(counts.fs) });
    } else {
      faults.push({ kind: rng.pick(PG_FAULTS), at: rng.below(Math.max(1, counts.pg)) });
    }
  }
  return faults;
}

/** The fault planned at operation `at` of the kinds in `kinds`, if any. */
export function faultAt<K extends FaultKind>(plan: readonly PlannedFault[], kinds: readonly K[], at: number): K | undefined {
  return plan.find((fault) => fault.at === at && (kinds as readonly FaultKind[]).includes(fault.kind))?.kind as K | undefined;
}
