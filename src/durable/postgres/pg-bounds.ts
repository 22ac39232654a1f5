import { UsageError } from '../../errors/groundswell-error.js';

/**
 * A limit as a `bigint` parameter: larger than any count means no limit, and a number like 1e300
 * (an integer to JavaScript) is not a bigint literal.
 */
export function sqlLimit(limit: number | undefined): number | null {
  return limit === undefined ? null : Math.min(limit, Number.MAX_SAFE_INTEGER);
}

/** `readEvents`' `after` as a `bigint` parameter that selects the same sequence numbers. */
export function sqlAfter(after: unknown): number {
  if (after === undefined) return 0;
  if (typeof after !== 'number' || Number.isNaN(after)) throw new UsageError(`readEvents after must be a number (a sequence number), got ${String(after)}.`);
  return Math.max(-1, Math.min(Math.floor(after), Number.MAX_SAFE_INTEGER));
}
