import { UsageError } from '../errors/groundswell-error.js';
import type { Workflow } from './workflow.js';

/**
 * A workflow's `durable` option as core carries it: core neither reads nor checks the store; the
 * durable-run layer does (`src/replay/`). @public (in public signatures; knip)
 */
export interface DurableSetting {
  /** Where the run is kept: `journalRunStore()` from `groundswell/durable`, or a PostgreSQL store. */
  readonly store: object;
  /** The run's id (default: a new one). */
  readonly runId?: string;
  /** JSON input stored with the run and handed back to the factory on `resume()`. */
  readonly input?: unknown;
  /** How long the run's lease lasts without renewal, in ms (default 30,000). */
  readonly leaseMs?: number;
}

/** Runs a root workflow durably: `run` is the plain run, called once the run is set up. */
export type DurableRunner = <T>(workflow: Workflow<T>, args: readonly unknown[], run: () => Promise<T>) => Promise<T>;

let runner: DurableRunner | undefined;
// Roots that `resume()` runs durably though their own config has no `durable` option.
const resumed = new WeakSet<object>();

/** The next run of `workflow` goes through the durable runner (for `resume()`). */
export function runDurablyNext(workflow: Workflow): void {
  resumed.add(workflow);
}

/** Extension point: the durable-run layer registers the runner (from the root entry). */
export function setDurableRunner(next: DurableRunner): void {
  runner = next;
}

/** Whether `workflow` must run through the durable runner: a root with a `durable` option. */
export function durableRunner(workflow: Workflow): DurableRunner | undefined {
  if (workflow.parent !== null || (workflow.config.durable === undefined && !resumed.delete(workflow))) return undefined;
  if (runner === undefined) {
    throw new UsageError(`Workflow "${workflow.name}": durable runs need the groundswell root entry to be loaded (import 'groundswell').`);
  }
  return runner;
}
