import { toJsonSafe } from './json-safe.js';

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  workflowId?: string;
  cause?: SerializedError;
  /** Present on merged errors from concurrent tasks. */
  errors?: SerializedError[];
}

/** A JSON-safe description of anything thrown, following `cause` a few levels deep. */
export function serializeError(error: unknown, depth = 4): SerializedError {
  if (!(error instanceof Error)) {
    return { name: 'NonError', message: typeof error === 'string' ? error : JSON.stringify(toJsonSafe(error)) ?? String(error) };
  }
  const out: SerializedError = { name: error.name, message: error.message };
  if (error.stack !== undefined) out.stack = error.stack;
  const workflowId = (error as { workflowId?: unknown }).workflowId;
  if (typeof workflowId === 'string') out.workflowId = workflowId;
  if (depth > 0 && error.cause !== undefined) out.cause = serializeError(error.cause, depth - 1);
  const errors = (error as { errors?: unknown }).errors;
  if (depth > 0 && Array.isArray(errors)) out.errors = errors.map((e) => serializeError(e, depth - 1));
  return out;
}
