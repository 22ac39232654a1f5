import { runBounded, type JobOutcome } from './bounded-run.js';
import { mergeErrors, type ErrorMergeStrategy } from './error-merge.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

/** `'throw'`: a failure fails the whole fan-out. `'all'`: every outcome is returned, nothing fails it. */
export type SettleMode = 'throw' | 'all';

/** Options of `ctx.spawnAll` and `ctx.map` (a `@Task` takes the same two). */
export interface FanOutOptions {
  /** At most this many run at once (a positive integer); they start in order. Default: all at once. */
  concurrency?: number;
  /**
   * `'throw'` (default): once the started ones have settled, the first failure (in time) is
   * thrown, or all of them merged when the workflow's `errorMergeStrategy` is on; nothing new
   * starts after a failure. `'all'`: every one runs, and you get each outcome instead.
   */
  settle?: SettleMode;
}

/** How one item of `ctx.map(items, fn, { settle: 'all' })` ended, with the item it was for. */
export type ItemOutcome<T, R> =
  | { readonly status: 'fulfilled'; readonly item: T; readonly value: R }
  | { readonly status: 'rejected'; readonly item: T; readonly error: unknown };

/** @internal How one fan-out runs: resolved from its options and its workflow. */
export interface FanOutPlan {
  readonly limit: number;
  readonly settle: SettleMode;
  /** Names the fan-out in a merged error: `task "spawn"`, `ctx.map`. */
  readonly label: string;
  readonly strategy: ErrorMergeStrategy | undefined;
}

/** The plan of a `ctx` fan-out: its options over the workflow's `errorMergeStrategy`. */
export function planFor(options: FanOutOptions | undefined, workflow: WorkflowRuntime, label: string): FanOutPlan {
  return {
    limit: options?.concurrency ?? Number.POSITIVE_INFINITY,
    settle: options?.settle ?? 'throw',
    label,
    strategy: workflow.config.errorMergeStrategy,
  };
}

/**
 * Runs `count` jobs of `workflow` as `plan` says. Once the workflow is cancelled nothing more
 * starts and each job left gets `notStarted(index)` as its error. `'throw'` throws the failures
 * (after the started jobs settled), then a cancellation; `'all'` resolves with every outcome.
 */
export async function settleJobs<R>(
  workflow: WorkflowRuntime,
  node: TreeNode,
  count: number,
  plan: FanOutPlan,
  start: (index: number) => R | PromiseLike<R>,
  notStarted: (index: number) => unknown,
): Promise<Array<JobOutcome<R>>> {
  const throwing = plan.settle === 'throw';
  const { outcomes, failures } = await runBounded(count, plan.limit, start, (failed) => workflow.isCancelled || (throwing && failed > 0));
  if (workflow.isCancelled) {
    for (let i = 0; i < count; i += 1) outcomes[i] ??= { status: 'rejected', error: notStarted(i) };
  }
  if (throwing) {
    if (failures.length > 0) {
      throw mergeErrors(failures, plan.strategy, plan.label, (cause) => workflow.errorDetails(node, cause));
    }
    workflow.throwIfCancelled(node);
  }
  // Every index is set: 'all' stops only on a cancel (filled above), 'throw' returned above otherwise.
  return outcomes as Array<JobOutcome<R>>;
}

/** The values of a `'throw'` fan-out that returned, so every job was fulfilled. */
export function valuesOf<R>(outcomes: ReadonlyArray<JobOutcome<R>>): R[] {
  return outcomes.map((outcome) => (outcome as { readonly value: R }).value);
}
