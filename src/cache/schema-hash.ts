import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { loadedZod } from '../util/load-zod.js';
import { UsageError } from '../errors/groundswell-error.js';
import { canonicalJson } from './canonical-json.js';

/**
 * SHA-256 (hex) of everything that defines a zod schema, so a cached answer is never reused
 * after the schema it was validated against has changed. It walks zod 4's definition graph
 * (`schema._zod.def`: type, checks, shape, element, options, innerType, ...) into plain data:
 *
 * - checks count with their parameters (`min(1)` vs `min(5)`), refinements and transforms by the
 *   source text of their functions (`refine(fnA)` vs `refine(fnB)`);
 * - metadata from zod's global registry counts (`.describe()`, `.meta()`), since it reaches the
 *   model through the JSON schema;
 * - object shapes keep their key order: it is the order of the JSON schema the model fills in;
 * - recursion (`z.lazy`, getters in a shape) becomes a reference to the enclosing schema, so a
 *   recursive schema hashes in finite time.
 *
 * Memoised per schema instance (zod schemas are immutable), so the walk runs once per instance.
 * What cannot be seen: values captured in closures (`superRefine(fn)` only shows zod's wrapper,
 * so two superRefines differing only in their function hash alike; prefer `refine` or
 * `check(fn)`), and metadata registered on an instance after it was first hashed.
 */
export function schemaHash(schema: z.core.$ZodType): string {
  const known = memo.get(schema);
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(canonicalJson(new SchemaEncoder().value(schema))).digest('hex');
  memo.set(schema, hash);
  return hash;
}

const memo = new WeakMap<object, string>();

/**
 * Real schemas nest a few dozen levels. Deeper means a `z.lazy` getter that builds a new schema on
 * every call, which never closes into a cycle; better a clear error than a stack overflow.
 */
const MAX_DEPTH = 400;

/** zod's marker on a thunk that only returns a constant `.catch(value)`, safe to call. */
const CONSTANT_CATCH = '~constantCatch';

type Data = null | boolean | number | string | Data[] | { [key: string]: Data };

interface ZodInternals {
  def: Record<string, unknown>;
  traits?: unknown;
  check?: unknown;
  bag?: unknown;
}

/**
 * One walk over one root schema. Marker objects use keys starting with `$`; keys of user data
 * that start with `$` are escaped with a second `$`, so data can never pose as a marker.
 */
class SchemaEncoder {
  /** Schemas being encoded, outermost first; a schema met again here is recursion. */
  private readonly path: object[] = [];
  /** Encodings that refer to nothing outside themselves, reusable wherever the schema recurs. */
  private readonly closed = new Map<object, Data>();
  /** Shallowest `path` index referenced since the current schema started. */
  private lowestRef = Number.POSITIVE_INFINITY;
  /** Non-schema containers being encoded, so cyclic metadata cannot loop forever. */
  private readonly dataPath = new Set<object>();

  value(value: unknown): Data {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? value : { $number: String(value) };
      case 'bigint':
        return { $bigint: value.toString() };
      case 'undefined':
        return { $undefined: true };
      case 'symbol':
        return { $symbol: value.description ?? '' };
      case 'function':
        return fn(value);
    }
    if (value === null) return null;
    const obj = value as object;
    const internals = zodInternals(obj);
    if (internals !== undefined) {
      return isSchema(internals) ? this.schema(obj, internals) : this.check(internals);
    }
    if (obj instanceof RegExp) return { $regexp: obj.source, flags: obj.flags };
    if (obj instanceof Date) return { $date: Number.isNaN(obj.getTime()) ? 'invalid' : obj.toISOString() };
    if (this.dataPath.has(obj)) return { $cycle: true };
    this.dataPath.add(obj);
    try {
      if (Array.isArray(obj)) return obj.map((item: unknown) => this.value(item));
      if (obj instanceof Map) return { $map: [...obj].map(([k, v]: [unknown, unknown]) => [this.value(k), this.value(v)]) };
      if (obj instanceof Set) return { $set: [...obj].map((item: unknown) => this.value(item)) };
      const out = this.record(obj as Record<string, unknown>);
      const proto: object | null = Object.getPrototypeOf(obj);
      if (proto !== null && proto !== Object.prototype) out.$class = className(proto);
      return out;
    } finally {
      this.dataPath.delete(obj);
    }
  }

  private schema(schema: object, internals: ZodInternals): Data {
    const at = this.path.indexOf(schema);
    if (at !== -1) {
      this.lowestRef = Math.min(this.lowestRef, at);
      // Relative, so the same recursive sub-schema encodes alike wherever it sits.
      return { $ref: this.path.length - at };
    }
    const reusable = this.closed.get(schema);
    if (reusable !== undefined) return reusable;
    if (this.path.length >= MAX_DEPTH) {
      throw new UsageError(
        `Cannot hash a zod schema nested more than ${MAX_DEPTH} levels deep. A z.lazy() getter that builds a new schema on every call never closes its recursion: build the schema once and return that instance.`,
      );
    }

    const outerLowest = this.lowestRef;
    this.lowestRef = Number.POSITIVE_INFINITY;
    const depth = this.path.length;
    this.path.push(schema);
    const out: { [key: string]: Data } = {};
    try {
      out.def = this.def(internals.def);
      const meta: unknown = metadataRegistry()?.get(schema as z.core.$ZodType);
      if (meta !== undefined) out.meta = this.value(meta);
      // z.instanceof keeps its class outside the def; the class is what the check tests.
      const bag = internals.bag;
      if (internals.def.type === 'custom' && isRecord(bag) && typeof bag.Class === 'function') {
        out.class = fn(bag.Class);
      }
    } finally {
      this.path.pop();
    }
    if (this.lowestRef >= depth) this.closed.set(schema, out);
    this.lowestRef = Math.min(outerLowest, this.lowestRef);
    return out;
  }

  /** A check that is not itself a schema (min_length, regex, `check(fn)`, superRefine, ...). */
  private check(internals: ZodInternals): Data {
    const out: { [key: string]: Data } = { $check: this.def(internals.def) };
    // Custom checks built by `check(fn)` / superRefine keep their function outside the def.
    if (internals.def.check === 'custom' && internals.def.fn === undefined && typeof internals.check === 'function') {
      out.run = fn(internals.check);
    }
    return out;
  }

  private def(def: Record<string, unknown>): { [key: string]: Data } {
    const out: { [key: string]: Data } = {};
    for (const key of Object.keys(def).sort()) {
      const encoded = this.defEntry(def, key);
      if (encoded !== undefined) out[escapeKey(key)] = encoded;
    }
    return out;
  }

  private defEntry(def: Record<string, unknown>, key: string): Data | undefined {
    if (key === 'getter' && def.type === 'lazy' && typeof def.getter === 'function') {
      // What the getter returns defines the schema; its source is just a way to defer it.
      return { $lazy: this.value(def.getter()) };
    }
    if (key === 'defaultValue' && (def.type === 'default' || def.type === 'prefault')) {
      return this.defaultValue(def);
    }
    const value = def[key];
    if (value === undefined) return undefined;
    if (key === 'shape' && def.type === 'object' && isRecord(value)) {
      return { $shape: Object.keys(value).map((k) => [k, this.value(value[k])]) };
    }
    if (typeof value === 'function' && value.length === 0 && (key === 'error' || (key === 'catchValue' && CONSTANT_CATCH in value))) {
      // zod wraps a message string or constant catch value in a closure, so its source hides it;
      // calling the argument-less thunk reveals the text/value without running user logic on input.
      return { ...fn(value), returns: this.safeCall(() => Reflect.apply(value, undefined, [])) };
    }
    return this.value(value);
  }

  /**
   * zod exposes the default through a getter that runs a default *function* on every read. Read it
   * twice: a stable value counts; a per-read value (a timestamp, an id) cannot identify the schema.
   */
  private defaultValue(def: Record<string, unknown>): Data {
    const first = this.safeCall(() => def.defaultValue);
    const second = this.safeCall(() => def.defaultValue);
    return canonicalJson(first) === canonicalJson(second) ? { $default: first } : { $default: { $volatile: true } };
  }

  private safeCall(thunk: () => unknown): Data {
    try {
      return this.value(thunk());
    } catch (error) {
      return { $threw: error instanceof Error ? error.name : typeof error };
    }
  }

  private record(obj: Record<string, unknown>): { [key: string]: Data } {
    const out: { [key: string]: Data } = {};
    for (const key of Object.keys(obj).sort()) {
      const value = obj[key];
      if (value !== undefined) out[escapeKey(key)] = this.value(value);
    }
    return out;
  }
}

function fn(value: Function): { [key: string]: Data } {
  const source = Function.prototype.toString.call(value);
  // Native and bound functions all read `function x() { [native code] }`; the name tells them apart.
  return source.includes('[native code]') ? { $fn: source, name: value.name } : { $fn: source };
}

function escapeKey(key: string): string {
  return key.startsWith('$') ? `$${key}` : key;
}

function className(proto: object): string {
  const ctor: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  return typeof ctor === 'function' ? ctor.name : 'anonymous';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** zod schemas and checks both carry `_zod.def`; plain `check(fn)` objects have no traits. */
function zodInternals(obj: object): ZodInternals | undefined {
  const internals: unknown = (obj as { _zod?: unknown })._zod;
  if (!isRecord(internals) || !isRecord(internals.def)) return undefined;
  return { def: internals.def, traits: internals.traits, check: internals.check, bag: internals.bag };
}

/**
 * zod's global registry (`.describe()`, `.meta()`) without importing zod: zod keeps it on
 * globalThis, shared by every copy; a zod that does not is read from the loaded module.
 */
function metadataRegistry(): z.core.$ZodRegistry<z.core.GlobalMeta> | undefined {
  const shared = (globalThis as { __zod_globalRegistry?: z.core.$ZodRegistry<z.core.GlobalMeta> }).__zod_globalRegistry;
  return shared ?? loadedZod()?.globalRegistry;
}

function isSchema(internals: ZodInternals): boolean {
  return internals.traits instanceof Set && internals.traits.has('$ZodType');
}
