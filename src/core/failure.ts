import { WorkflowCancelledError, WorkflowError } from '../errors/workflow-error.js';
import { errorMessage, isInstance } from '../util/describe.js';
import { serializeError } from '../util/serialize-error.js';
import type { TreeNode } from './tree-node.js';
import type { Workflow } from './workflow.js';

// An error is reported (an `error` event) once, on the node where it happened; outer steps and
// workflows it passes through only mark themselves failed.
const reported = new WeakSet<object>();

/**
 * Turns whatever was thrown inside `node` into a WorkflowError carrying the workflow's redacted
 * state and logs, records the failure once, and returns the error to rethrow.
 */
export function recordFailure(workflow: Workflow, node: TreeNode, thrown: unknown, what: string): WorkflowError {
  let error: WorkflowError;
  if (workflow.isCancelled && !isInstance(thrown, WorkflowCancelledError)) {
    error = new WorkflowCancelledError(
      `${what} was cancelled: ${errorMessage(thrown)}`,
      workflow.errorDetails(node, thrown),
    );
  } else if (isInstance(thrown, WorkflowError)) {
    error = thrown;
  } else {
    error = new WorkflowError(`${what} failed: ${errorMessage(thrown)}`, workflow.errorDetails(node, thrown));
  }
  if (!reported.has(error)) {
    reported.add(error);
    workflow.emit(node, { type: 'error', error: serializeError(error) });
  }
  return error;
}
