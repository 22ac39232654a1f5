import { UsageError } from '../../errors/groundswell-error.js';
import { journalOf } from '../../core/run-journal.js';
import { currentScope } from '../../core/scope.js';
import type { DbosQueueLike } from './dbos-like.js';
import type { DbosChildrenOptions } from './dbos-children-options.js';
import { DbosJournal } from './dbos-journal.js';
import type { DbosFactoryInput, DbosFactoryResult, DbosWorkflowFactory } from './dbos-workflows.js';

/**
 * From inside a step of a DBOS run: starts one child workflow per input on `queue`, where any
 * worker process listening to the queue runs it, and returns their results in input order. The
 * child is a factory of the run's `dbosWorkflows` registry (its input and result types follow)
 * or its name there. Each child is a node under the step; its events reach this run's observers
 * while it runs, and its tree joins the step's when it ends. Under budgets, the children split
 * what the budgets have left (see `DbosChildrenOptions.budgetShare`).
 */
export function dbosChildren<F extends DbosWorkflowFactory>(
  queue: DbosQueueLike,
  workflow: F,
  inputs: ReadonlyArray<DbosFactoryInput<F>>,
  options?: DbosChildrenOptions,
): Promise<Array<DbosFactoryResult<F>>>;
export function dbosChildren<T = unknown, I = unknown>(queue: DbosQueueLike, name: string, inputs: readonly I[], options?: DbosChildrenOptions): Promise<T[]>;
export function dbosChildren(queue: DbosQueueLike, workflow: string | DbosWorkflowFactory, inputs: readonly unknown[], options?: DbosChildrenOptions): Promise<unknown[]> {
  const scope = currentScope();
  const journal = scope === undefined ? undefined : journalOf(scope.workflow);
  const label = typeof workflow === 'string' ? `"${workflow}"` : workflow.name || 'a factory';
  if (!(journal instanceof DbosJournal)) {
    return Promise.reject(new UsageError(`dbosChildren(${label}) must be called inside a workflow that dbosWorkflows(...).run() or a worker runs.`));
  }
  const share = options?.budgetShare ?? 'split';
  if (share !== 'split' && share !== 'whole') {
    return Promise.reject(new UsageError(`dbosChildren(${label}): options.budgetShare must be "split" or "whole", got ${JSON.stringify(share)}.`));
  }
  return journal.launchChildren(queue, workflow, inputs, share);
}
