/**
 * Turns any value into plain JSON data: cycles become '[Circular]', functions and symbols are
 * dropped, bigints become strings, errors keep name and message. Depth is bounded so a huge
 * object graph cannot blow up a snapshot or an export.
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
  if (obj instanceof Date) return obj.toISOString();
  if (obj instanceof Error) return { name: obj.name, message: obj.message };
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((item) => convert(item, depth - 1, seen) ?? null);
    if (obj instanceof Map) {
      return convert(Object.fromEntries(obj), depth, seen);
    }
    if (obj instanceof Set) return convert([...obj], depth, seen);
    const source = typeof (obj as { toJSON?: unknown }).toJSON === 'function'
      ? (obj as { toJSON(): unknown }).toJSON()
      : obj;
    if (source !== obj) return convert(source, depth - 1, seen);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      const converted = convert((obj as Record<string, unknown>)[key], depth - 1, seen);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}
