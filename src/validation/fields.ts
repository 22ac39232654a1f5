import { z } from 'zod';
import { closestKey } from './closest-key.js';
import { isRecord } from '../util/is-record.js';

/*
 * Building blocks of the config schemas. Each leaf carries its expectation as its zod error
 * ("a non-empty string"), so the issue message is exactly what the UsageError says was expected.
 */

/** A leaf check: the value passes `test`, else the issue says `expectation`. */
export function expected<T>(expectation: string, test: (value: unknown) => boolean): z.ZodType<T> {
  // Not aborting (zod's default for custom checks) lets a union whose other options failed on type
  // report the field inside the matching option instead of only "invalid union".
  return z.custom<T>((value) => test(value), { error: expectation, abort: false });
}

/**
 * An object with exactly these keys. An unknown key is refused by name, with the closest known key
 * when one is near (a typo of an optional key would otherwise be ignored without a word).
 */
export function strict<S extends z.ZodRawShape>(shape: S, expectation = 'an object'): z.ZodObject<S, z.core.$strict> {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeys(issue.keys, known) : expectation),
  });
}

function unknownKeys(keys: readonly string[], known: readonly string[]): string {
  if (keys.length > 1) return `has unknown keys ${keys.slice(0, 5).map(quoted).join(', ')}; known keys: ${known.join(', ')}`;
  const key = keys[0] ?? '';
  const near = closestKey(key, known);
  return `has an unknown key ${quoted(key)}${near === undefined ? `; known keys: ${known.join(', ')}` : ` (did you mean ${near}?)`}`;
}

// A key is a name, not a value: shown, but cut short.
function quoted(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 57)}...` : key);
}

export { isRecord as isObject };

export function hasMethods(value: unknown, ...names: string[]): boolean {
  return (typeof value === 'object' || typeof value === 'function') && value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

export const text = expected<string>('a string', (v) => typeof v === 'string');
export const nonEmptyText = expected<string>('a non-empty string', (v) => typeof v === 'string' && v.trim() !== '');
export const flag = z.boolean({ error: 'true or false' });
export const func = expected<(...args: never[]) => unknown>('a function', (v) => typeof v === 'function');
// A zod 3 schema has `safeParse` but no `_zod`: the expectation names the version so the fix is plain.
export const zodSchema = expected<z.ZodType>('a zod 4 schema (e.g. z.object({...}) from zod@^4; zod 3 schemas are not supported)', (v) =>
  hasMethods(v, 'safeParse') && '_zod' in (v as object),
);

/** An integer in [min, max]; the expectation reads naturally for the common bounds. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): z.ZodType<number> {
  const expectation =
    max !== Number.MAX_SAFE_INTEGER ? `an integer from ${min} to ${max}` : min === 1 ? 'a positive integer' : `an integer >= ${min}`;
  return expected(expectation, (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max);
}

/** A finite number in [min, max]. */
export function numberIn(min: number, max: number): z.ZodType<number> {
  const expectation = max === Number.MAX_VALUE ? `a finite number >= ${min}` : `a number between ${min} and ${max}`;
  return expected(expectation, (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max);
}

/** One of a few string literals. */
export function oneOf<const T extends string>(values: readonly T[]): z.ZodType<T> {
  return expected(`one of: ${values.join(', ')}`, (v) => (values as readonly unknown[]).includes(v));
}

export const stringArray = z.array(text, { error: 'an array of strings' });
export const stringRecord = z.record(z.string(), text, { error: 'an object mapping names to strings' });
