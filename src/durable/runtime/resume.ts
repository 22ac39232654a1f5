import { UsageError } from '../../errors/groundswell-error.js';
import { runDurablyNext } from '../../core/durable-runner.js';
import { Workflow } from '../../core/workflow.js';
import type { RunStore } from '../store/run-store.js';
import { RunNotFoundError } from '../store/run-store-errors.js';
import { describeValue } from '../../util/describe.js';
import { RunFinishedError } from './replay-errors.js';
import { resumeWith } from './run-durably.js';

/** What a factory is told besides the input: which run it rebuilds, and where that run is kept. */
export interface DurableFactoryContext {
  readonly runId: string;
  readonly store: RunStore;
}

/**
 * Builds a run's root workflow again from the input it was started with; `context` names the run
 * and its store, so the input need not carry them.
 */
export type WorkflowFactory = (input: unknown, context: DurableFactoryContext) => Workflow;

export interface ResumeOptions {
  readonly store: RunStore;
  /** A factory per root workflow name (the name stored with the run). */
  readonly workflows: Readonly<Record<string, WorkflowFactory>>;
  /** The lease's length in ms (default: the workflow's `durable.leaseMs`, else 30,000). */
  readonly leaseMs?: number;
  /**
   * Take the run's lease even from a holder that looks alive: for a holder known dead on another
   * machine (one on this machine whose process is gone is taken over without it). Safe while it
   * is in fact alive: its writes are refused from then on and its `run()` rejects with
   * `RunInterruptedError`, so no step is stored twice. Stores that predate it refuse as before.
   */
  readonly takeOver?: boolean;
}

/**
 * Continues a durable run that was interrupted (its process died) or is suspended: the workflow
 * code runs again, and every step and agent call the store holds is served from it.
 */
export async function resume<T = unknown>(runId: string, options: ResumeOptions): Promise<T> {
  const { store, workflows } = options;
  // The run record only (name, input, status): what is replayed is read under the lease.
  const run = await store.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
    throw new RunFinishedError(`Run "${runId}" has ${run.status === 'cancelled' ? 'been cancelled' : run.status}; there is nothing to resume.`);
  }
  const factory = Object.hasOwn(workflows, run.rootName) ? workflows[run.rootName] : undefined;
  if (typeof factory !== 'function') {
    throw new UsageError(
      `resume("${runId}"): no factory for workflow "${run.rootName}" in options.workflows (it has: ${Object.keys(workflows).join(', ') || 'none'}).`,
    );
  }
  const workflow = factory(run.input, { runId, store });
  if (!(workflow instanceof Workflow)) {
    throw new UsageError(`resume("${runId}"): the factory for "${run.rootName}" returned ${describeValue(workflow)}, not a Workflow.`);
  }
  if (workflow.name !== run.rootName) {
    throw new UsageError(`resume("${runId}"): the factory for "${run.rootName}" built workflow "${workflow.name}".`);
  }
  resumeWith(workflow, {
    store,
    runId,
    storedArgs: true,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.takeOver === true ? { takeOver: true } : {}),
  });
  runDurablyNext(workflow);
  return (await workflow.run()) as T;
}
