import { errorMessage, isError, readProperty } from './describe.js';

/**
 * Turns any value into plain JSON data: cycles become '[Circular]', functions and symbols are
 * dropped, bigints become strings, errors keep name and message. Depth is bounded so a huge
 * object graph cannot blow up a snapshot or an export. Total: a part that cannot be read (a
 * throwing getter or `toJSON`, an Invalid Date, a revoked proxy) becomes an `[Unserializable: …]`
 * marker instead of an exception, because snapshots are taken on paths that must settle.
 */
export function toJsonSafe(value: unknown, maxDepth = 8): unknown {
  return convert(value, maxDepth, new WeakSet<object>());
}

function convert(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return '[Circular]';
  if (depth <= 0) return '[MaxDepth]';
  try {
    return convertObject(obj, depth, seen);
  } catch (error) {
    return `[Unserializable: ${errorMessage(error)}]`;
  }
}

function convertObject(obj: object, depth: number, seen: WeakSet<object>): unknown {
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
  if (isError(obj)) {
    const name = readProperty(obj, 'name');
    return { name: typeof name === 'string' ? name : 'Error', message: errorMessage(obj) };
  }
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((item) => convert(item, depth - 1, seen) ?? null);
    if (obj instanceof Map) return convert(Object.fromEntries(obj), depth, seen);
    if (obj instanceof Set) return convert([...obj], depth, seen);
    const toJSON = (obj as { toJSON?: unknown }).toJSON;
    const source = typeof toJSON === 'function' ? (toJSON as () => unknown).call(obj) : obj;
    if (source !== obj) return convert(source, depth - 1, seen);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      let converted: unknown;
      try {
        converted = convert((obj as Record<string, unknown>)[key], depth - 1, seen);
      } catch (error) {
        converted = `[Unserializable: ${errorMessage(error)}]`;
      }
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}
