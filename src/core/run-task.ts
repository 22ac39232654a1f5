import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { mergeErrors, type ErrorMergeStrategy } from './error-merge.js';
import { endStatus, recordFailure } from './failure.js';
import { runChildren } from './fan-out-children.js';
import type { SettleMode } from './fan-out.js';
import { runInScope } from './scope.js';
import { TreeNode } from './tree-node.js';
import { Workflow } from './workflow.js';
import type { Budget } from '../types/budget.js';
import { startNodeBudget } from './node-budget.js';

export interface TaskOptions {
  name?: string;
  /** Run the returned workflows at the same time (default: one after another). */
  concurrent?: boolean;
  /** With `concurrent: true`: at most this many children run at once, started in order (default: all). */
  concurrency?: number;
  /**
   * `'throw'` (default): a failed child fails the task (after the started siblings settled; no
   * further child starts). `'all'`: every child runs and the task completes whatever they do;
   * read each one's outcome with `(await this.task()).map(outcomeOf)`. A failed child still ends
   * `failed` in the tree, with its error event; the task node does not.
   */
  settle?: SettleMode;
  /** Overrides the workflow's `errorMergeStrategy` for this task (not with `settle: 'all'`). */
  errorMergeStrategy?: ErrorMergeStrategy;
  /** Limits on everything the task's children run; the task fails with `BudgetExceededError` when one would be passed. */
  budget?: Budget;
}

export type TaskResult = Workflow | readonly Workflow[];

/**
 * Runs a task body that produces child workflows, attaches them under a task node and runs them.
 * Every child is settled before the task settles, so none is left `running` after a failure.
 */
export async function runTask<R extends TaskResult>(
  workflow: Workflow,
  name: string,
  options: TaskOptions,
  body: () => R | Promise<R>,
): Promise<R> {
  const parent = workflow.mountPoint();
  workflow.throwIfCancelled(parent);
  const clock = workflow.clock;
  const node = new TreeNode('task', name, workflow);
  workflow.beginWork();
  parent.addChild(node);
  const startedAt = clock.now();
  node.start(startedAt);
  const concurrent = options.concurrent === true;
  workflow.emit(node, { type: 'taskStart', name, concurrent }, startedAt);
  const scope = { workflow, node };
  let childIds: string[] = [];
  const budget = options.budget === undefined ? undefined : startNodeBudget(workflow, node, options.budget, `task "${name}"`);
  try {
    const produced = await (budget === undefined ? runInScope(scope, body) : budget.race(runInScope(scope, body)));
    const children = asWorkflows(produced, name);
    childIds = children.map((child) => child.id);
    runInScope(scope, () => {
      for (const child of children) if (child.parent !== workflow) workflow.attachChild(child);
    });
    if (options.settle === 'all' || options.concurrency !== undefined) {
      await runChildren(workflow, node, children, {
        limit: concurrent ? (options.concurrency ?? Number.POSITIVE_INFINITY) : 1,
        settle: options.settle ?? 'throw',
        label: `task "${name}"`,
        strategy: options.errorMergeStrategy ?? workflow.config.errorMergeStrategy,
      });
    } else if (concurrent) {
      const failures: unknown[] = [];
      await Promise.all(children.map((child) => child.run().catch((error: unknown) => void failures.push(error))));
      if (failures.length > 0) {
        const strategy = options.errorMergeStrategy ?? workflow.config.errorMergeStrategy;
        throw mergeErrors(failures, strategy, `task "${name}"`, (cause) => workflow.errorDetails(node, cause));
      }
    } else {
      for (const child of children) await child.run();
    }
    // Settling all means resolving with the children even after a cancel (the queued ones carry
    // WorkflowCancelledError); the workflow's next step or run() still throws it.
    if (options.settle !== 'all') workflow.throwIfCancelled(node);
    // The wallMs ran out: the children were cancelled and settled; the task fails with the reason.
    if (budget?.ledger.expired !== undefined) throw budget.ledger.expired;
    node.finish('completed', clock.now());
    return produced;
  } catch (thrown) {
    const error = recordFailure(workflow, node, thrown, `Task "${name}" of workflow "${workflow.name}"`);
    node.finish(endStatus(workflow, thrown), clock.now());
    throw error;
  } finally {
    budget?.stop();
    try {
      workflow.emit(node, { type: 'taskEnd', name, status: node.status, duration: node.duration ?? 0, childIds }, node.endTime);
    } finally {
      workflow.endWork();
    }
  }
}

function asWorkflows(value: unknown, name: string): readonly Workflow[] {
  if (value instanceof Workflow) return [value];
  if (Array.isArray(value) && value.every((item) => item instanceof Workflow)) return value as Workflow[];
  const bad = Array.isArray(value) ? value.find((item) => !(item instanceof Workflow)) : value;
  throw new UsageError(
    `@Task "${name}" must return a Workflow or an array of Workflows; got ${describeValue(value)}` +
      (Array.isArray(value) ? ` containing ${describeValue(bad)}.` : '.'),
  );
}
