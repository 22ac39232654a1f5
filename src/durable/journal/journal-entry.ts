import type { CallRecord, StepRecord } from '../store/stored-records.js';

/** One record of a run's `journal.log`. */
export type JournalEntry =
  | { kind: 'step'; record: StepRecord }
  | { kind: 'call'; record: CallRecord }
  | { kind: 'data'; name: string; value?: unknown; at: number };

/** One record of `events.log`: a batch of events numbered from `first`. */
export interface EventBatch {
  first: number;
  events: unknown[];
}
