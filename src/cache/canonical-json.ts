import { UsageError } from '../errors/groundswell-error.js';

/**
 * Deterministic JSON: object keys sorted at every depth, arrays kept in order, `undefined`
 * properties dropped, no whitespace. Two values that would be sent as the same JSON get the same
 * text whatever order their keys were built in, which is what makes it usable as a hash input.
 *
 * It follows `JSON.stringify` where that is lossless (`toJSON` is honoured, so a Date becomes
 * its ISO string; `undefined` in an array becomes `null`) and throws a UsageError naming the path
 * where it would silently lose or invent data: cycles, functions, symbols, bigints, non-finite
 * numbers, and Map/Set (which `JSON.stringify` turns into `{}`, so different maps would collide).
 */
export function canonicalJson(value: unknown): string {
  // Fast pass without path bookkeeping; only when it finds something that is not JSON does the
  // slow pass run again to name the path in the error.
  let out: string | undefined;
  try {
    out = fast(value, new Set<object>(), '');
  } catch (error) {
    if (error !== NOT_JSON) throw error;
    out = write(value, '$', new Set<object>(), '');
  }
  // Only a bare top-level `undefined` reaches here as undefined: it has no JSON text at all.
  if (out === undefined) throw notJson('undefined', '$');
  return out;
}

const NOT_JSON = Symbol('not JSON');

/** `write` without paths: throws NOT_JSON where `write` would throw its descriptive error. */
function fast(value: unknown, ancestors: Set<object>, key: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw NOT_JSON;
      return String(value);
    case 'undefined':
      return undefined;
    case 'bigint':
    case 'symbol':
    case 'function':
      throw NOT_JSON;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (ancestors.has(obj)) throw NOT_JSON;
  const toJSON: unknown = (obj as { toJSON?: unknown }).toJSON;
  ancestors.add(obj);
  try {
    if (typeof toJSON === 'function') return fast(toJSON.call(obj, key), ancestors, key);
    if (obj instanceof Map || obj instanceof Set) throw NOT_JSON;
    if (Array.isArray(obj)) {
      let text = '[';
      for (let i = 0; i < obj.length; i += 1) {
        if (i > 0) text += ',';
        text += fast(obj[i], ancestors, String(i)) ?? 'null';
      }
      return `${text}]`;
    }
    const record = obj as Record<string, unknown>;
    let text = '{';
    let first = true;
    for (const k of Object.keys(record).sort()) {
      const item = fast(record[k], ancestors, k);
      if (item === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(k)}:${item}`;
      first = false;
    }
    return `${text}}`;
  } finally {
    ancestors.delete(obj);
  }
}

/** Returns undefined for a value JSON omits (an `undefined` property); the caller drops it. */
function write(value: unknown, path: string, ancestors: Set<object>, key: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw notJson(`the non-finite number ${String(value)}`, path);
      return JSON.stringify(value);
    case 'undefined':
      return undefined;
    case 'bigint':
      throw notJson('a bigint', path);
    case 'symbol':
      throw notJson('a symbol', path);
    case 'function':
      throw notJson('a function', path);
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (ancestors.has(obj)) throw notJson('a circular reference', path);
  const toJSON: unknown = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    ancestors.add(obj);
    try {
      // Same contract as JSON.stringify: toJSON receives the property name.
      return write(toJSON.call(obj, key), path, ancestors, key);
    } finally {
      ancestors.delete(obj);
    }
  }
  if (obj instanceof Map || obj instanceof Set) {
    throw notJson(`a ${obj instanceof Map ? 'Map' : 'Set'} (convert it to an object or array first)`, path);
  }
  ancestors.add(obj);
  try {
    if (Array.isArray(obj)) {
      // Array.from, not map: map skips the holes of a sparse array, which would leave `[1,,3]`.
      const items = Array.from(obj, (item: unknown, i) => write(item, `${path}[${i}]`, ancestors, String(i)) ?? 'null');
      return `[${items.join(',')}]`;
    }
    const record = obj as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of Object.keys(record).sort()) {
      const text = write(record[k], `${path}${pathSegment(k)}`, ancestors, k);
      if (text !== undefined) parts.push(`${JSON.stringify(k)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    // Only ancestors count: the same object reached twice by different paths is fine.
    ancestors.delete(obj);
  }
}

function pathSegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function notJson(what: string, path: string): UsageError {
  return new UsageError(`Cannot build canonical JSON: ${what} at ${path}. Only JSON data can be part of a request.`);
}
