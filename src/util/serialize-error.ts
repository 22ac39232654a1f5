import { isError, readProperty, safeString } from './describe.js';
import { toJsonSafe } from './json-safe.js';
import type { SerializedError } from '../types/serialized-error.js';

// Its readers import the shape from here or from types/, whichever layer they are in.
export type { SerializedError };

/**
 * A JSON-safe description of anything thrown, following `cause` a few levels deep. Total: every
 * property is read through a guard, so an error with throwing getters is described, not rethrown.
 */
export function serializeError(error: unknown, depth = 4): SerializedError {
  if (!isError(error)) {
    return { name: 'NonError', message: typeof error === 'string' ? error : nonErrorText(error) };
  }
  const name = readProperty(error, 'name');
  const message = readProperty(error, 'message');
  const out: SerializedError = {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : safeString(message),
  };
  const stack = readProperty(error, 'stack');
  if (typeof stack === 'string') out.stack = stack;
  const workflowId = readProperty(error, 'workflowId');
  if (typeof workflowId === 'string') out.workflowId = workflowId;
  const cause = readProperty(error, 'cause');
  if (depth > 0 && cause !== undefined) out.cause = serializeError(cause, depth - 1);
  const errors = readProperty(error, 'errors');
  if (depth > 0 && Array.isArray(errors)) out.errors = errors.map((e) => serializeError(e, depth - 1));
  return out;
}

function nonErrorText(value: unknown): string {
  try {
    const json = JSON.stringify(toJsonSafe(value));
    if (json !== undefined) return json;
  } catch {
    // Fall through to a plain description.
  }
  return safeString(value);
}
