import { describeValue } from '../util/describe.js';

const MAX_SHOWN = 60;

/**
 * How a refused value is shown after "got": primitives as written (`"hot"`, `NaN`, `2147483648`),
 * anything else by its kind, so a message never dumps a large object.
 */
export function received(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN - 3)}...` : value);
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      return describeValue(value);
  }
}

/** Only the kind of a value: used where the value itself may be a secret (an `env` entry). */
export function receivedKind(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  return typeof value === 'object' || typeof value === 'function' ? received(value) : typeof value;
}
