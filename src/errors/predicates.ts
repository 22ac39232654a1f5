import { isInstance, readProperty } from '../util/describe.js';
import { UsageError } from './groundswell-error.js';
import { RunSuspendedError, WorkflowCancelledError, WorkflowError } from './workflow-error.js';

// API answers that repeating the same request cannot change: bad request, auth, permission,
// not found, too large, unprocessable.
const FINAL_STATUSES = new Set([400, 401, 403, 404, 413, 422]);

export function isWorkflowError(error: unknown): error is WorkflowError {
  return isInstance(error, WorkflowError);
}

/** False for cancellations, API misuse and API errors a retry cannot fix (auth, invalid request). */
export function isRetryable(error: unknown): boolean {
  if (isInstance(error, WorkflowCancelledError) || isInstance(error, UsageError) || isSuspension(error)) return false;
  if (isInstance(error, WorkflowError)) return isRetryable(readProperty(error, 'cause'));
  if (typeof error !== 'object' || error === null) return true;
  // An error may say so itself (a loop a feature stopped would stop the same way again).
  if (readProperty(error, 'retryable') === false) return false;
  const status = readProperty(error, 'status');
  if (typeof status === 'number' && FINAL_STATUSES.has(status)) return false;
  return true;
}

/** True for the error a durable run's `run()` rejects with when it stopped to wait for a signal. */
export function isSuspension(error: unknown): error is RunSuspendedError {
  return isInstance(error, RunSuspendedError);
}
