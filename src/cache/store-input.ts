import { UsageError } from '../errors/groundswell-error.js';

/** Sizes, counts and TTLs are whole positive numbers; anything else is a caller's mistake. */
export function requirePositiveInteger(what: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw new UsageError(`${what} must be a positive whole number, got ${String(value)}.`);
  }
}

/**
 * Both stores keep responses as JSON text, so a value comes back the same from memory as from
 * disk and a caller mutating what it got cannot change what is stored.
 */
export function storedJson(key: string, value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, undefined, space);
  } catch (error) {
    throw new UsageError(`The response cached under "${key}" is not JSON data.`, { cause: error });
  }
}
