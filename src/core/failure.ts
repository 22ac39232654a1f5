import { WorkflowCancelledError, WorkflowError } from '../errors/workflow-error.js';
import { isSuspension } from '../errors/predicates.js';
import { errorMessage, isInstance } from '../util/describe.js';
import { serializeError } from '../util/serialize-error.js';
import { bindErrorToRun, maskForRun } from './run-secrets.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

// An error is reported (an `error` event) once, on the node where it happened; outer steps and
// workflows it passes through only mark themselves failed.
const reported = new WeakSet<object>();

/**
 * Turns whatever was thrown inside `node` into a WorkflowError carrying the workflow's redacted
 * state and logs, records the failure once, and returns the error to rethrow.
 */
export function recordFailure(workflow: WorkflowRuntime, node: TreeNode, thrown: unknown, what: string): WorkflowError {
  let error: WorkflowError;
  if (workflow.isCancelled && !isInstance(thrown, WorkflowCancelledError)) {
    error = new WorkflowCancelledError(
      maskForRun(workflow, `${what} was cancelled: ${errorMessage(thrown)}`),
      workflow.errorDetails(node, thrown),
    );
    bindErrorToRun(error, workflow);
  } else if (isInstance(thrown, WorkflowError)) {
    error = thrown;
  } else {
    // The message quotes what was thrown: masked; `cause` stays the caller's own value, untouched.
    error = new WorkflowError(maskForRun(workflow, `${what} failed: ${errorMessage(thrown)}`), workflow.errorDetails(node, thrown));
    bindErrorToRun(error, workflow);
  }
  // A suspension is no failure: it is shown by its wait and the nodes' `suspended` status.
  if (!reported.has(error) && !isSuspension(error)) {
    reported.add(error);
    workflow.emit(node, { type: 'error', error: serializeError(error) });
  }
  return error;
}

/** The status of a node that `thrown` ended: cancelled (or suspended: it stopped, it did not fail), else failed. */
export function endStatus(workflow: WorkflowRuntime, thrown: unknown): 'failed' | 'cancelled' | 'suspended' {
  if (isSuspension(thrown)) return 'suspended';
  return workflow.isCancelled ? 'cancelled' : 'failed';
}
