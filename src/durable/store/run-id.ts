import { UsageError } from '../../errors/groundswell-error.js';

/**
 * Letters, digits, `_`, `-` and `.` (not first), at most 200: the id is a file name in the
 * embedded store, so a path separator, `..` or a leading dot could leave its folder.
 */
const RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;

/** Throws a `UsageError` for an id a store must not use. */
export function requireRunId(id: unknown): string {
  if (typeof id !== 'string' || !RUN_ID.test(id) || id.includes('..')) {
    throw new UsageError(
      `Run id ${JSON.stringify(String(id)).slice(0, 220)} is not usable: use 1-200 letters, digits, "_", "-" or "." (not first, no "..").`,
    );
  }
  return id;
}

/** Throws a `UsageError` unless `value` is a non-empty string (a step key, a data name...). */
export function requireName(what: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`${what} must be a non-empty string.`);
  return value;
}

/** Throws a `UsageError` unless `value` is a positive integer (or absent when optional). */
export function requirePositiveInteger(what: string, value: unknown, optional = false): void {
  if (optional && value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new UsageError(`${what} must be a positive integer, got ${String(value)}.`);
  }
}
