import { UsageError } from '../errors/groundswell-error.js';
import { journalOf } from '../core/run-journal.js';
import { currentScope } from '../core/scope.js';
import type { DbosQueueLike } from './dbos-like.js';
import { DbosJournal } from './dbos-journal.js';

/**
 * From inside a step of a DBOS run: starts one child workflow per input on `queue` (`name` is a
 * factory of the run's `dbosWorkflows` registry), where any worker process listening to the
 * queue runs it, and returns their results in input order. Each child is a node under the step;
 * its events reach this run's observers while it runs, and its tree joins the step's when it ends.
 */
export function dbosChildren<T = unknown, I = unknown>(queue: DbosQueueLike, name: string, inputs: readonly I[]): Promise<T[]> {
  const scope = currentScope();
  const journal = scope === undefined ? undefined : journalOf(scope.workflow);
  if (!(journal instanceof DbosJournal)) {
    return Promise.reject(new UsageError(`dbosChildren("${name}") must be called inside a workflow that dbosWorkflows(...).run() or a worker runs.`));
  }
  return journal.launchChildren(queue, name, inputs) as Promise<T[]>;
}
