import { describeValue } from '../util/describe.js';

// Longer strings are described, not shown: a misplaced API key or token must not reach a log.
const MAX_SHOWN = 32;

/**
 * How a refused value is shown after "got": short primitives as written (`"hot"`, `NaN`,
 * `2147483648`), anything else by its kind, so a message never dumps a large object.
 */
export function received(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_SHOWN ? `a string of ${value.length} characters` : JSON.stringify(value);
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
