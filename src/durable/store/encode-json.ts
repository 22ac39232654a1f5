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
  check(value, { what, keys: [], seen: new Set<object>() }, 0);
  return JSON.stringify(value);
}

/** The walk's state; the path is kept as keys and spelled out only for an error (the usual case has none). */
interface Walk {
  what: string;
  keys: Array<string | number>;
  seen: Set<object>;
}

function refuse(walk: Walk, problem: string, last?: string | number): never {
  const keys = last === undefined ? walk.keys : [...walk.keys, last];
  const path = `$${keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('')}`;
  throw new RunValueError(`${walk.what} is not JSON-safe at ${path}: ${problem}. Store plain data (objects, arrays, strings, finite numbers, booleans, null).`);
}

function check(value: unknown, walk: Walk, depth: number): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(walk, `${value} is not a JSON number`);
      return;
    case 'object':
      if (value === null) return;
      break;
    default:
      refuse(walk, `a ${typeof value} has no JSON form`);
  }
  const obj = value as object;
  if (depth >= MAX_DEPTH) refuse(walk, `nested deeper than ${MAX_DEPTH}`);
  const { seen, keys } = walk;
  if (seen.has(obj)) refuse(walk, 'a cycle');
  seen.add(obj);
  if (Array.isArray(obj)) {
    for (let i = 0; i < obj.length; i += 1) {
      const item: unknown = obj[i];
      if (item === undefined) refuse(walk, 'undefined (or a hole) in an array would become null', i);
      keys.push(i);
      check(item, walk, depth + 1);
      keys.pop();
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      refuse(walk, `a ${describeClass(obj)} is not a plain object`);
    }
    if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') refuse(walk, 'an object with toJSON');
    if (Object.getOwnPropertySymbols(obj).length > 0) refuse(walk, 'symbol keys are not JSON');
    for (const key of Object.keys(obj)) {
      const item = (obj as Record<string, unknown>)[key];
      if (item === undefined) continue;
      keys.push(key);
      check(item, walk, depth + 1);
      keys.pop();
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
