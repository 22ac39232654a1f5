import { UsageError } from '../errors/groundswell-error.js';
import { WorkflowCancelledError } from '../errors/workflow-error.js';
import { describeValue } from '../util/describe.js';
import { validateFanOutOptions } from './config/fan-out-options.js';
import type { SettledChild } from './child-results.js';
import { childOutcomes, runChildren } from './fan-out-children.js';
import { planFor, settleJobs, valuesOf, type FanOutOptions, type ItemOutcome } from './fan-out.js';
import { isWorkflow, type WorkflowRuntime } from './workflow-runtime.js';

/**
 * `ctx.spawnAll`: attaches every child under the running node first (so the tree shows the queued
 * ones), then runs them as the options say. Results in input order, or each child's outcome.
 */
export async function spawnAll(
  workflow: WorkflowRuntime,
  children: unknown,
  options: FanOutOptions | undefined,
): Promise<unknown[] | SettledChild<WorkflowRuntime>[]> {
  if (options !== undefined) validateFanOutOptions(options, 'ctx.spawnAll');
  const list = workflowList(workflow, children);
  for (const child of list) if (child.parent !== workflow) workflow.attachChild(child);
  const outcomes = await runChildren(workflow, workflow.mountPoint(), list, planFor(options, workflow, 'ctx.spawnAll'));
  if (options?.settle === 'all') return childOutcomes(list, outcomes);
  return valuesOf(outcomes);
}

/**
 * `ctx.map`: `fn(item, index)` for each item, in the current scope (a `ctx.step` inside mounts
 * where it would without the map), at most `concurrency` at once. Values in input order, or each
 * item's outcome.
 */
export async function mapItems<T, R>(
  workflow: WorkflowRuntime,
  items: readonly T[],
  fn: (item: T, index: number) => R | PromiseLike<R>,
  options: FanOutOptions | undefined,
): Promise<R[] | Array<ItemOutcome<T, R>>> {
  if (!Array.isArray(items)) throw new UsageError(`ctx.map needs an array of items, got ${describeValue(items)}.`);
  if (typeof fn !== 'function') throw new UsageError(`ctx.map needs a function (item, index) => value, got ${describeValue(fn)}.`);
  if (options !== undefined) validateFanOutOptions(options, 'ctx.map');
  const node = workflow.mountPoint();
  // One error for every item a cancel kept from starting: they share the same reason.
  let notStarted: WorkflowCancelledError | undefined;
  const outcomes = await settleJobs(
    workflow,
    node,
    items.length,
    planFor(options, workflow, 'ctx.map'),
    (index) => fn(items[index] as T, index),
    () =>
      (notStarted ??= new WorkflowCancelledError(
        `ctx.map: cancelled before this item started (${workflow.cancellation ?? 'cancelled'}).`,
        workflow.errorDetails(node, workflow.signal.reason),
      )),
  );
  if (options?.settle !== 'all') return valuesOf(outcomes);
  return outcomes.map((outcome, index): ItemOutcome<T, R> => {
    const item = items[index] as T;
    return outcome.status === 'fulfilled' ? { status: 'fulfilled', item, value: outcome.value } : { status: 'rejected', item, error: outcome.error };
  });
}

function workflowList(workflow: WorkflowRuntime, children: unknown): readonly WorkflowRuntime[] {
  if (!Array.isArray(children)) {
    throw new UsageError(`ctx.spawnAll needs an array of Workflows, got ${describeValue(children)}.`);
  }
  // Checked before any is attached, so a bad entry leaves the tree as it was.
  children.forEach((child: unknown, index) => {
    if (!isWorkflow(child)) {
      throw new UsageError(`ctx.spawnAll needs an array of Workflows; item ${index} is ${describeValue(child)}.`);
    }
    if (child.parent !== null && child.parent !== workflow) {
      throw new UsageError(
        `ctx.spawnAll: item ${index}, Workflow "${child.name}" (${child.id}), already belongs to "${child.parent.name}"; detach it first.`,
      );
    }
  });
  return children as WorkflowRuntime[];
}
