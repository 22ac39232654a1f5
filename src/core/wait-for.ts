import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';
import { journalOf, type WaitOptions, type WaitSchema } from './run-journal.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

const NO_OPTIONS: WaitOptions = Object.freeze({});

/** `ctx.waitFor` / a class workflow's `waitFor`: only a durable run can wait across processes. */
export function waitForSignal<T>(workflow: WorkflowRuntime, name: string, schema: WaitSchema<T>, options?: WaitOptions): Promise<T> {
  if (typeof name !== 'string' || name.trim() === '') {
    return Promise.reject(new UsageError(`waitFor needs a non-empty signal name, got ${describeValue(name)}.`));
  }
  if (typeof schema !== 'object' || schema === null || typeof schema.safeParse !== 'function') {
    return Promise.reject(new UsageError(`waitFor("${name}") needs a zod schema for the signal's value, got ${describeValue(schema)}.`));
  }
  const timeout = options?.timeout;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    return Promise.reject(new UsageError(`waitFor("${name}"): options.timeout must be a positive number of milliseconds, got ${describeValue(timeout)}.`));
  }
  const journal = journalOf(workflow);
  if (journal === undefined) {
    return Promise.reject(
      new UsageError(
        `waitFor("${name}") in workflow "${workflow.name}": only a durable run can wait for a signal; ` +
          'give the root workflow `durable: { store }` (see docs/durable-runs.md).',
      ),
    );
  }
  return journal.waitFor(workflow, workflow.mountPoint(), name, schema, options ?? NO_OPTIONS);
}
