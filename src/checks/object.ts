import { Check, report, type Walk } from './check.js';
import { closestKey } from './closest-key.js';

export type Shape = Readonly<Record<string, Check<unknown>>>;

type Present<S extends Shape> = { [K in keyof S as undefined extends S[K]['_type'] ? never : K]: S[K]['_type'] };
type Absent<S extends Shape> = { [K in keyof S as undefined extends S[K]['_type'] ? K : never]?: S[K]['_type'] };
export type ShapeType<S extends Shape> = Present<S> & Absent<S>;

/** A non-null, non-array object (class instances included, like the config objects users pass). */
function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object with exactly the keys of `shape`; an unknown key is refused by name (see `strict`). */
export class StrictObjectCheck<S extends Shape> extends Check<ShapeType<S>> {
  private readonly keys: readonly string[];
  private readonly known: ReadonlySet<string>;

  constructor(
    readonly shape: S,
    private readonly expectation: string,
  ) {
    super();
    this.keys = Object.keys(shape);
    this.known = new Set(this.keys);
  }

  visit(value: unknown, walk: Walk): boolean {
    if (!isObjectLike(value)) {
      report(walk, 'invalid_type', this.expectation, false);
      return false;
    }
    visitKeys(this.shape, this.keys, value, walk);
    let unknown: string[] | undefined;
    // for...in: inherited enumerable keys are keys the user set too (a config built on a prototype).
    for (const key in value) if (!this.known.has(key)) (unknown ??= []).push(key);
    // Soft: an unknown key does not hide the object's other problems, nor the union option it fits.
    if (unknown !== undefined) report(walk, 'unrecognized_keys', unknownKeys(unknown, this.keys), true);
    return false;
  }
}

/**
 * An object whose known keys are checked and whose other keys are left alone: for objects that
 * carry fields of their own besides the ones we call (an observer class with its own state).
 */
export class OpenObjectCheck<S extends Shape> extends Check<ShapeType<S>> {
  private readonly keys: readonly string[];

  constructor(
    readonly shape: S,
    private readonly expectation: string,
  ) {
    super();
    this.keys = Object.keys(shape);
  }

  visit(value: unknown, walk: Walk): boolean {
    if (!isObjectLike(value)) {
      report(walk, 'invalid_type', this.expectation, false);
      return false;
    }
    // Read through the prototype chain: a class instance's methods live there.
    visitKeys(this.shape, this.keys, value, walk);
    return false;
  }
}

/** An object whose keys in `shape` pass their checks; any other key is allowed. */
export function open<S extends Shape>(shape: S, expectation = 'an object'): OpenObjectCheck<S> {
  return new OpenObjectCheck(shape, expectation);
}

/**
 * An object with exactly these keys. An unknown key is refused by name, with the closest known key
 * when one is near (a typo of an optional key would otherwise be ignored without a word).
 */
export function strict<S extends Shape>(shape: S, expectation = 'an object'): StrictObjectCheck<S> {
  return new StrictObjectCheck(shape, expectation);
}

function unknownKeys(keys: readonly string[], known: readonly string[]): string {
  if (keys.length > 1) return `has unknown keys ${keys.slice(0, 5).map(quoted).join(', ')}; known keys: ${known.join(', ')}`;
  const key = keys[0] ?? '';
  const near = closestKey(key, known);
  return `has an unknown key ${quoted(key)}${near === undefined ? `; known keys: ${known.join(', ')}` : ` (did you mean ${near}?)`}`;
}

// A key is a name, not a value: shown, but cut short.
function quoted(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 57)}...` : key);
}

/** Checks each of `keys` of `value` with its check in `shape`, the key on the walk's path. */
function visitKeys(shape: Shape, keys: readonly string[], value: Record<string, unknown>, walk: Walk): void {
  for (const key of keys) {
    walk.path.push(key);
    (shape[key] as Check).visit(value[key], walk);
    walk.path.pop();
  }
}
