import { isRecord } from '../util/is-record.js';
import type { Check } from './check.js';
import { array, record } from './collections.js';
import { expected, typed } from './leaf.js';

/*
 * Building blocks of the config checks. Each leaf carries its expectation ("a non-empty string"),
 * so the issue message is exactly what the UsageError says was expected.
 */

export { isRecord as isObject };

export function hasMethods(value: unknown, ...names: string[]): boolean {
  return (typeof value === 'object' || typeof value === 'function') && value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

export const text = expected<string>('a string', (v) => typeof v === 'string');
export const nonEmptyText = expected<string>('a non-empty string', (v) => typeof v === 'string' && v.trim() !== '');
export const flag = typed<boolean>('true or false', (v) => typeof v === 'boolean');
export const func = expected<(...args: never[]) => unknown>('a function', (v) => typeof v === 'function');

/** An integer in [min, max]; the expectation reads naturally for the common bounds. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Check<number> {
  const expectation =
    max !== Number.MAX_SAFE_INTEGER ? `an integer from ${min} to ${max}` : min === 1 ? 'a positive integer' : `an integer >= ${min}`;
  return expected(expectation, (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max);
}

/** A finite number in [min, max]. */
export function numberIn(min: number, max: number): Check<number> {
  const expectation = max === Number.MAX_VALUE ? `a finite number >= ${min}` : `a number between ${min} and ${max}`;
  return expected(expectation, (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max);
}

/** One of a few string literals. */
export function oneOf<const T extends string>(values: readonly T[]): Check<T> {
  return expected(`one of: ${values.join(', ')}`, (v) => (values as readonly unknown[]).includes(v));
}

export const stringArray = array(text, 'an array of strings');
export const stringRecord = record(text, 'an object mapping names to strings');
