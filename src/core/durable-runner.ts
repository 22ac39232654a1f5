import { UsageError } from '../errors/groundswell-error.js';
import type { WorkflowRuntime } from './workflow-runtime.js';


/**
 * Runs a root workflow durably: `run` is the plain run, called once the run is set up, with the
 * arguments the run was started with when the runner read them from its store (a resume).
 */
export type DurableRunner = <T>(workflow: WorkflowRuntime, args: readonly unknown[], run: (storedArgs?: readonly unknown[]) => Promise<T>) => Promise<T>;

let runner: DurableRunner | undefined;
// Roots that `resume()` runs durably though their own config has no `durable` option.
const resumed = new WeakSet<object>();

/** The next run of `workflow` goes through the durable runner (for `resume()`). */
export function runDurablyNext(workflow: WorkflowRuntime): void {
  resumed.add(workflow);
}

/** Extension point: the durable-run layer registers the runner (from the root entry). */
export function setDurableRunner(next: DurableRunner): void {
  runner = next;
}

/** Whether `workflow` must run through the durable runner: a root with a `durable` option. */
export function durableRunner(workflow: WorkflowRuntime): DurableRunner | undefined {
  if (workflow.parent !== null || (workflow.config.durable === undefined && !resumed.delete(workflow))) return undefined;
  if (runner === undefined) {
    throw new UsageError(`Workflow "${workflow.name}": durable runs need the groundswell root entry to be loaded (import 'groundswell').`);
  }
  return runner;
}
