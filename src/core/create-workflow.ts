import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { Workflow, type WorkflowExecutor } from './workflow.js';
import type { WorkflowConfig } from './workflow-config.js';

/** A functional workflow: `run()` resolves to what `executor(ctx)` returns. */
export function createWorkflow<T>(config: WorkflowConfig | string, executor: WorkflowExecutor<T>): Workflow<T> {
  if (typeof executor !== 'function') {
    throw new UsageError(`createWorkflow needs an executor function, got ${describeValue(executor)}.`);
  }
  return new Workflow<T>(typeof config === 'string' ? { name: config } : config, executor);
}
