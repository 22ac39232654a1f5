import { RunValueError } from './run-store-errors.js';

/** Deeper than this is refused: the reader's JSON.parse and a Postgres `json` column would choke. */
const MAX_DEPTH = 500;

/**
 * `JSON.stringify(value)` for a value JSON holds exactly, else a `RunValueError` naming where and
 * what. Refused: functions, symbols, bigints, NaN/Infinity, `undefined` in arrays, cycles,
 * symbol keys, objects that are not plain (Date, Map, class instances) and objects with
 * `toJSON`, since JSON would silently change them. An object property whose value is
 * `undefined` is left out, the same as JavaScript reading an absent key.
 */
export function encodeJson(value: unknown, what: string): string {
  check(value, what, '$', 0, new Set<object>());
  return JSON.stringify(value);
}

function refuse(what: string, path: string, problem: string): never {
  throw new RunValueError(`${what} is not JSON-safe at ${path}: ${problem}. Store plain data (objects, arrays, strings, finite numbers, booleans, null).`);
}

function check(value: unknown, what: string, path: string, depth: number, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(what, path, `${value} is not a JSON number`);
      return;
    case 'object':
      if (value === null) return;
      break;
    default:
      refuse(what, path, `a ${typeof value} has no JSON form`);
  }
  const obj = value as object;
  if (depth >= MAX_DEPTH) refuse(what, path, `nested deeper than ${MAX_DEPTH}`);
  if (seen.has(obj)) refuse(what, path, 'a cycle');
  seen.add(obj);
  if (Array.isArray(obj)) {
    for (let i = 0; i < obj.length; i += 1) {
      const item: unknown = obj[i];
      if (item === undefined) refuse(what, `${path}[${i}]`, 'undefined (or a hole) in an array would become null');
      check(item, what, `${path}[${i}]`, depth + 1, seen);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      refuse(what, path, `a ${describeClass(obj)} is not a plain object`);
    }
    if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') refuse(what, path, 'an object with toJSON');
    if (Object.getOwnPropertySymbols(obj).length > 0) refuse(what, path, 'symbol keys are not JSON');
    for (const key of Object.keys(obj)) {
      const item = (obj as Record<string, unknown>)[key];
      if (item !== undefined) check(item, what, `${path}.${key}`, depth + 1, seen);
    }
  }
  seen.delete(obj);
}

function describeClass(obj: object): string {
  try {
    const name: unknown = (obj.constructor as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name !== '' ? name : 'non-plain object';
  } catch {
    return 'non-plain object';
  }
}
