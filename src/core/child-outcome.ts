import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import type { RunResult, RunResults, SettledChild } from './child-results.js';
import type { RunOutcome } from './run-outcome.js';
import { Workflow } from './workflow.js';

/** What `run()` of a workflow resolves to: from its `run()` override, else its `Workflow<T>`. */
export type WorkflowResult<W extends Workflow> = RunResult<W>;

/** The run results of a list (or tuple) of workflows, position by position. */
export type WorkflowResults<W extends readonly Workflow[]> = RunResults<W>;

/**
 * How one child of a fan-out ended, with the child itself so you know which one it was: like a
 * `PromiseSettledResult`. The error is what the child's `run()` rejected with (a
 * `WorkflowCancelledError` for a child that a cancel kept from starting).
 */
export type ChildOutcome<W extends Workflow = Workflow> = SettledChild<W>;

/**
 * The value `workflow`'s last run resolved to, typed from its `run()`: read a `@Task`'s results
 * with `(await this.spawn()).map(resultOf)`. Throws the run's error if it failed, and a
 * `UsageError` if it has not finished a run.
 */
export function resultOf<W extends Workflow>(workflow: W): WorkflowResult<W> {
  const outcome = settled(workflow, 'resultOf');
  if (outcome.status === 'rejected') throw outcome.error;
  return outcome.value as WorkflowResult<W>;
}

/**
 * How `workflow`'s last run ended, as a `ChildOutcome` (never throws for a failed run): read a
 * `@Task({ settle: 'all' })` with `(await this.spawn()).map(outcomeOf)`. A `UsageError` if it has
 * not finished a run.
 */
export function outcomeOf<W extends Workflow>(workflow: W): ChildOutcome<W> {
  const outcome = settled(workflow, 'outcomeOf');
  return outcome.status === 'fulfilled'
    ? { status: 'fulfilled', workflow, value: outcome.value as WorkflowResult<W> }
    : { status: 'rejected', workflow, error: outcome.error };
}

function settled(workflow: Workflow, caller: string): RunOutcome<unknown> {
  if (!(workflow instanceof Workflow)) {
    throw new UsageError(`${caller} needs a Workflow, got ${describeValue(workflow)}.`);
  }
  const outcome = workflow.lastOutcome;
  if (outcome === undefined) {
    throw new UsageError(
      `${caller}: Workflow "${workflow.name}" (${workflow.id}) has not finished a run (status ${workflow.status}); ` +
        'await the task or run() first.',
    );
  }
  return outcome;
}
