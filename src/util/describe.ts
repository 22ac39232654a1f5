/**
 * Helpers that describe arbitrary values for messages. They are total: whatever user code threw
 * or returned (a null-prototype object, a throwing getter or `toString`, a revoked proxy), they
 * return a string and never throw, because they run on failure paths that must still settle.
 */

/** A short description of a value for error messages ("null", "number", "an object (Foo)"). */
export function describeValue(value: unknown): string {
  try {
    if (value === null) return 'null';
    if (Array.isArray(value)) return `an array of ${value.length}`;
    if (typeof value === 'object') {
      const named = value as { name?: unknown; id?: unknown; constructor?: { name?: unknown } };
      const ctorName = named.constructor?.name;
      const ctor = typeof ctorName === 'string' ? ctorName : 'Object';
      return typeof named.id === 'string' ? `${ctor} "${safeString(named.name)}" (${named.id})` : `an object (${ctor})`;
    }
    return typeof value;
  } catch {
    return 'an unreadable object';
  }
}

/**
 * A readable reason for anything thrown: an Error's message (its name when the message is empty),
 * a description when the message cannot be read, and the printed value otherwise.
 */
export function errorMessage(thrown: unknown): string {
  if (!isError(thrown)) return typeof thrown === 'string' ? thrown : safeString(thrown);
  const message = readProperty(thrown, 'message');
  if (typeof message !== 'string') return `${describeValue(thrown)} whose message cannot be read`;
  if (message !== '') return message;
  const name = readProperty(thrown, 'name');
  return typeof name === 'string' && name !== '' ? name : 'Error';
}

/** `String(value)`, or a fallback when converting throws (no `toString`, a throwing one, a revoked proxy). */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return `[${describeValue(value)} that cannot be printed]`;
    } catch {
      return '[a value that cannot be printed]';
    }
  }
}

/** `value instanceof Error`, false instead of a throw for a revoked proxy. */
export function isError(value: unknown): value is Error {
  return isInstance(value, Error);
}

/** `value instanceof type`, false instead of a throw (a revoked proxy throws on any prototype read). */
export function isInstance<T>(value: unknown, type: abstract new (...args: never[]) => T): value is T {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
}

/** `object[key]`, or undefined when the getter (or a proxy trap) throws. */
export function readProperty(object: object, key: PropertyKey): unknown {
  try {
    return (object as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}
