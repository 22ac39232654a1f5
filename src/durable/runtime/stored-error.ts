import { isError, readProperty, safeString } from '../../util/describe.js';
import { toJsonSafe } from '../../util/json-safe.js';
import { ReplayedStepError } from './replay-errors.js';

/**
 * A step's error as a durable run stores it: what code that catches it can branch on (name,
 * message, `code`, the error's own JSON-safe fields) and its cause chain. The class itself cannot
 * be stored, so a replayed error is a `ReplayedStepError` carrying these.
 */
export interface StoredError {
  name: string;
  message: string;
  stack?: string;
  code?: unknown;
  /** The error's other own enumerable fields, JSON-safe. */
  fields?: Record<string, unknown>;
  cause?: StoredError;
}

const SKIPPED = new Set(['name', 'message', 'stack', 'cause', 'code']);
const MAX_FIELDS_CHARS = 16_384;
const MAX_CAUSES = 8;

/** Total: a thrown value whose getters throw is still described. */
export function storeError(thrown: unknown, depth = MAX_CAUSES): StoredError {
  if (!isError(thrown)) return { name: 'NonError', message: typeof thrown === 'string' ? thrown : safeString(thrown) };
  const name = readProperty(thrown, 'name');
  const message = readProperty(thrown, 'message');
  const out: StoredError = { name: typeof name === 'string' ? name : 'Error', message: typeof message === 'string' ? message : safeString(message) };
  const stack = readProperty(thrown, 'stack');
  if (typeof stack === 'string') out.stack = stack;
  const code = toJsonSafe(readProperty(thrown, 'code'), 2);
  if (code !== undefined) out.code = code;
  const fields = ownFields(thrown);
  if (fields !== undefined) out.fields = fields;
  const cause = readProperty(thrown, 'cause');
  if (depth > 0 && cause !== undefined) out.cause = storeError(cause, depth - 1);
  return out;
}

function ownFields(error: object): Record<string, unknown> | undefined {
  let keys: string[];
  try {
    keys = Object.keys(error);
  } catch {
    return undefined;
  }
  const fields: Record<string, unknown> = {};
  let any = false;
  for (const key of keys) {
    if (SKIPPED.has(key)) continue;
    const value = toJsonSafe(readProperty(error, key), 6);
    if (value === undefined) continue;
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
    any = true;
  }
  if (!any) return undefined;
  // A huge field (a whole response body) is not worth a bloated journal: its presence is kept.
  return JSON.stringify(fields).length <= MAX_FIELDS_CHARS ? fields : { truncated: `fields of more than ${MAX_FIELDS_CHARS} characters were not stored` };
}

/** The stored error as an error again: same name, message, code, fields and cause chain. */
export function rebuildError(stored: StoredError | undefined, depth = MAX_CAUSES): ReplayedStepError {
  const name = typeof stored?.name === 'string' ? stored.name : 'Error';
  const error = new ReplayedStepError(typeof stored?.message === 'string' ? stored.message : 'failed', name);
  define(error, 'name', name, false);
  if (typeof stored?.stack === 'string') define(error, 'stack', stored.stack, false);
  if (stored?.code !== undefined) define(error, 'code', stored.code, true);
  const fields = stored?.fields;
  if (typeof fields === 'object' && fields !== null) {
    for (const [key, value] of Object.entries(fields)) if (!SKIPPED.has(key)) define(error, key, value, true);
  }
  if (depth > 0 && stored?.cause !== undefined) define(error, 'cause', rebuildError(stored.cause, depth - 1), false);
  return error;
}

// defineProperty, not assignment: a field named `__proto__` stays a field, and getters of the class are not hit.
function define(target: object, key: string, value: unknown, enumerable: boolean): void {
  Object.defineProperty(target, key, { value, enumerable, writable: true, configurable: true });
}
