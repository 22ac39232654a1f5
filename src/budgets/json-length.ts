// Parts of a request that stay the same from call to call (an answer schema, tool definitions,
// system blocks) are measured once. Keyed by identity: these objects are built once and reused.
const measured = new WeakMap<object, number>();
// Smaller objects are cheaper to walk again than to remember.
const WORTH_REMEMBERING = 256;

/**
 * About the length of `JSON.stringify(value)`, without building the text: strings count their
 * characters and quotes (escapes not counted: a tokenizer sees the raw text), numbers their digits,
 * objects and arrays their keys and punctuation. Objects met again are measured once when `remember`.
 */
export function jsonLength(value: unknown, remember: boolean): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      // Fractions are rare in a request (a temperature): their text is cheap enough.
      return Number.isInteger(value) && Math.abs(value) < 1e15 ? digits(value) : String(value).length;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      return value === null ? 4 : objectLength(value, remember);
    default:
      // undefined and functions are left out of JSON.
      return 0;
  }
}

function objectLength(value: object, remember: boolean): number {
  if (remember) {
    const known = measured.get(value);
    if (known !== undefined) return known;
  }
  let length = 2;
  if (Array.isArray(value)) {
    for (const item of value) length += jsonLength(item, remember) + 1;
  } else {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined || typeof item === 'function') continue;
      length += key.length + 4 + jsonLength(item, remember);
    }
  }
  if (remember && length >= WORTH_REMEMBERING) measured.set(value, length);
  return length;
}

function digits(value: number): number {
  let n = Math.abs(value);
  let count = value < 0 ? 2 : 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    count += 1;
  }
  return count;
}
