import { UsageError } from '../errors/groundswell-error.js';

/** How much history each node keeps. Older entries are dropped and counted, never unbounded. */
export interface RetentionOptions {
  /**
   * Events kept per node besides a step's own start and end: the first two and the newest rest.
   */
  maxEventsPerNode: number;
  /** Log entries kept per node (newest win). */
  maxLogsPerNode: number;
  /**
   * Finished step/task nodes kept per parent. Pruning runs in batches once a quarter of this (at
   * least 16) more have piled up, and drops the oldest finished ones, with everything beneath them
   * (a step's child workflows too, once nothing directly beneath is running). Running nodes are
   * never pruned.
   */
  maxChildrenPerNode: number;
}

export const DEFAULT_RETENTION: RetentionOptions = Object.freeze({
  maxEventsPerNode: 1_000,
  maxLogsPerNode: 1_000,
  maxChildrenPerNode: 1_000,
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
