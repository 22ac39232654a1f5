import { UsageError } from '../../errors/groundswell-error.js';
import { currentScope } from '../../core/scope.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import { durableRunOf } from './run-durably.js';

/**
 * A key for the side effect of the durable step running now: the run's id and the step's key,
 * the same in every process that runs or resumes this run. A step's body can run again when a
 * process is paused past its lease and another takes the run over (at most once per lease), so
 * pass this to the service the step calls (an idempotency key, a unique row) to make that harmless.
 */
export function idempotencyKey(): string {
  const scope = currentScope();
  const run = scope === undefined ? undefined : durableRunOf(scope.workflow as Workflow);
  const key = scope === undefined ? undefined : run?.stepKeyOf(scope.workflow as Workflow, scope.node as TreeNode | undefined);
  if (run === undefined || key === undefined) throw new UsageError('idempotencyKey() is called inside a step of a durable run (a workflow with `durable`, or a resumed one).');
  return `${run.runId}${key}`;
}
