import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import type { CachedResponse } from './cache.js';
import { copyHeader, headerProblem, type CacheEntryHeader } from './cache-entry-header.js';
import { responseProblem } from './response-shape.js';

/** Sizes, counts and TTLs are whole positive numbers; anything else is a caller's mistake. */
export function requirePositiveInteger(what: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw new UsageError(`${what} must be a positive whole number, got ${String(value)}.`);
  }
}

/** Keys (and prefixes) are strings in every store; a number or an object is a caller's mistake. */
export function requireKey(what: string, key: unknown): asserts key is string {
  if (typeof key !== 'string') throw new UsageError(`${what} must be a string, got ${describeValue(key)}.`);
}

/**
 * Both stores keep responses as JSON text, so a value comes back the same from memory as from
 * disk and a caller mutating what it got cannot change what is stored. A number JSON cannot
 * carry (Infinity, e.g. `storedAt: 1e400`, or NaN) is refused instead of silently becoming null.
 */
export function storedJson(key: string, value: unknown, space?: number): string {
  let bad: string | undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(
      value,
      (field, item: unknown) => {
        if (typeof item === 'number' && !Number.isFinite(item)) bad ??= `\`${field || 'value'}\` is ${String(item)}`;
        return item;
      },
      space,
    );
  } catch (error) {
    throw new UsageError(`The response cached under "${key}" is not JSON data.`, { cause: error });
  }
  if (bad !== undefined) throw new UsageError(`The response cached under "${key}" is not JSON data: ${bad}, not a finite number.`);
  if (text === undefined) throw new UsageError(`The response cached under "${key}" is not JSON data.`);
  return text;
}

/** A plain JSON copy of a response about to be stored, checked so that it reads back as one. */
export function storedResponse(key: string, value: CachedResponse): CachedResponse {
  const copy: unknown = JSON.parse(storedJson(key, value));
  const problem = responseProblem(copy);
  if (problem !== undefined) throw new UsageError(`The response cached under "${key}" cannot be stored: ${problem}.`);
  return copy as CachedResponse;
}

/** A frozen copy of the header stored with an entry, checked so that it reads back as one. */
export function storedHeader(key: string, header: CacheEntryHeader | undefined): CacheEntryHeader | undefined {
  if (header === undefined) return undefined;
  // Checked on a plain copy, so a getter cannot pass the check and then hand back something else.
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(header) ?? 'null');
  } catch (error) {
    throw new UsageError(`The header of the entry cached under "${key}" is not JSON data.`, { cause: error });
  }
  const problem = headerProblem(copy);
  if (problem !== undefined) throw new UsageError(`The header of the entry cached under "${key}" cannot be stored: ${problem}.`);
  return copyHeader(copy as CacheEntryHeader);
}
