import { UsageError } from './groundswell-error.js';
import { WorkflowCancelledError, WorkflowError } from './workflow-error.js';

export function isWorkflowError(error: unknown): error is WorkflowError {
  return error instanceof WorkflowError;
}

/** False for cancellations and API misuse; retrying those only repeats the failure. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof WorkflowCancelledError || error instanceof UsageError) return false;
  if (error instanceof WorkflowError) return isRetryable(error.cause);
  return true;
}
