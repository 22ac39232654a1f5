import { UsageError } from '../errors/groundswell-error.js';
import type { WorkflowNode } from '../types/node.js';
import { currentScope, runInScope } from './scope.js';
import { TreeNode } from './tree-node.js';
import type { Workflow } from './workflow.js';

// Scopes hold the `WorkflowRuntime` view (scope.ts cannot import the class); every one of them is
// a `Workflow`, the interface's only implementation.

/** The workflow whose step (or body) is running in this async context, if any. */
export function getCurrentWorkflow(): Workflow | undefined {
  return currentScope()?.workflow as Workflow | undefined;
}

/** The innermost node (step, task or workflow) running in this async context, if any. */
export function getCurrentNode(): WorkflowNode | undefined {
  return currentScope()?.node;
}

/** Like getCurrentWorkflow, but throws a UsageError naming `operation` outside a workflow. */
export function requireCurrentWorkflow(operation: string): Workflow {
  const workflow = currentScope()?.workflow as Workflow | undefined;
  if (workflow === undefined) {
    throw new UsageError(`${operation} must be called while a workflow is running (inside run(), a step or a task).`);
  }
  return workflow;
}

/**
 * Runs `fn` as if inside `workflow` (at `node`, default the workflow's own node), so work started
 * from callbacks outside the async chain (timers, event emitters) still mounts in the right place.
 */
export function runInContext<R>(workflow: Workflow, fn: () => R, node: WorkflowNode = workflow.node): R {
  if (!(node instanceof TreeNode) || node.owner !== workflow) {
    throw new UsageError(`runInContext: node ${node.id} does not belong to workflow "${workflow.name}".`);
  }
  return runInScope({ workflow, node }, fn);
}
