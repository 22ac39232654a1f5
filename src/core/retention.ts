import { UsageError } from '../errors/groundswell-error.js';

/** How much history each node keeps. Older entries are dropped and counted, never unbounded. */
export interface RetentionOptions {
  /** Events kept per node (newest win). */
  maxEventsPerNode: number;
  /** Log entries kept per node (newest win). */
  maxLogsPerNode: number;
  /**
   * Finished step/task nodes kept per parent; the oldest finished ones are pruned beyond this.
   * Workflow nodes and running nodes are never pruned.
   */
  maxChildrenPerNode: number;
}

export const DEFAULT_RETENTION: RetentionOptions = Object.freeze({
  maxEventsPerNode: 1_000,
  maxLogsPerNode: 1_000,
  maxChildrenPerNode: 10_000,
});

export function resolveRetention(
  own: Partial<RetentionOptions> | undefined,
  inherited: RetentionOptions,
): RetentionOptions {
  if (own === undefined) return inherited;
  const merged = { ...inherited, ...own };
  for (const [key, value] of Object.entries(merged)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new UsageError(`retention.${key} must be a non-negative integer, got ${String(value)}`);
    }
  }
  return Object.freeze(merged);
}
