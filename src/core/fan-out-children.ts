import type { GroundswellError } from '../errors/groundswell-error.js';
import { WorkflowCancelledError } from '../errors/workflow-error.js';
import type { JobOutcome } from './bounded-run.js';
import type { RunResult, SettledChild } from './child-results.js';
import { settleJobs, type FanOutPlan } from './fan-out.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

/**
 * Runs attached `children` of `workflow` as `plan` says (a `@Task` with a limit or `settle`, and
 * `ctx.spawnAll`). A child a cancel kept from starting is never run: it ends `cancelled` and its
 * outcome is a `WorkflowCancelledError`.
 */
export function runChildren(
  workflow: WorkflowRuntime,
  node: TreeNode,
  children: readonly WorkflowRuntime[],
  plan: FanOutPlan,
): Promise<Array<JobOutcome<unknown>>> {
  return settleJobs(
    workflow,
    node,
    children.length,
    plan,
    (index) => (children[index] as WorkflowRuntime).run(),
    (index) => cancelledBeforeStart(workflow, children[index] as WorkflowRuntime),
  );
}

/** `outcomes[i]` of `children[i]`, with the child (a child's `run()` only rejects with a GroundswellError). */
export function childOutcomes<W extends WorkflowRuntime>(children: readonly W[], outcomes: ReadonlyArray<JobOutcome<unknown>>): Array<SettledChild<W>> {
  return outcomes.map((outcome, index) => {
    const workflow = children[index] as W;
    return outcome.status === 'fulfilled'
      ? { status: 'fulfilled', workflow, value: outcome.value as RunResult<W> }
      : { status: 'rejected', workflow, error: outcome.error as GroundswellError };
  });
}

function cancelledBeforeStart(workflow: WorkflowRuntime, child: WorkflowRuntime): WorkflowCancelledError {
  const reason = workflow.cancellation ?? 'cancelled';
  // A child attached after the cancel missed its cascade: it ends cancelled like its siblings.
  if (!child.isCancelled) child.cancel(reason);
  const error = new WorkflowCancelledError(
    `Workflow "${child.name}" was cancelled before it started (${reason}).`,
    child.errorDetails(child.treeNode, workflow.signal.reason),
  );
  child.lastOutcome = { status: 'rejected', error };
  return error;
}
