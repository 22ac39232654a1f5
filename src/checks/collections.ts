import { Check, report, type Walk } from './check.js';

class ArrayCheck<T> extends Check<T[]> {
  constructor(
    private readonly item: Check<T>,
    private readonly expectation: string,
  ) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    if (!Array.isArray(value)) {
      report(walk, 'invalid_type', this.expectation, false);
      return false;
    }
    for (let i = 0; i < value.length; i++) {
      walk.path.push(i);
      this.item.visit(value[i], walk);
      walk.path.pop();
    }
    return false;
  }
}

/** An array whose every item passes `item`. */
export function array<T>(item: Check<T>, expectation: string): Check<T[]> {
  return new ArrayCheck(item, expectation);
}

// A plain object: made by a literal, Object.create(null) or a class whose prototype looks like Object's.
function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const ctor = (value as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  return typeof proto === 'object' && proto !== null && !Array.isArray(proto) && Object.prototype.hasOwnProperty.call(proto, 'isPrototypeOf');
}

class RecordCheck<T> extends Check<Record<string, T>> {
  constructor(
    private readonly entry: Check<T>,
    private readonly expectation: string,
  ) {
    super();
  }

  visit(value: unknown, walk: Walk): boolean {
    if (!isPlainObject(value)) {
      report(walk, 'invalid_type', this.expectation, false);
      return false;
    }
    for (const key of Reflect.ownKeys(value)) {
      if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue;
      // Names are strings: a symbol key is refused where it is.
      if (typeof key === 'symbol') {
        report(walk, 'invalid_key', this.expectation, false, key);
        continue;
      }
      walk.path.push(key);
      this.entry.visit(value[key], walk);
      walk.path.pop();
    }
    return false;
  }
}

/** An object mapping string keys to values that pass `entry`. */
export function record<T>(entry: Check<T>, expectation: string): Check<Record<string, T>> {
  return new RecordCheck(entry, expectation);
}
