import { errorMessage } from '../util/describe.js';
import { MergedWorkflowError, WorkflowError, type WorkflowErrorDetails } from '../errors/workflow-error.js';

export interface ErrorMergeStrategy {
  /** Off (default): the first failure is thrown once every sibling has settled. */
  enabled: boolean;
  /** How many levels of already-merged errors are flattened into the list (default 3). */
  maxMergeDepth?: number;
  /** Builds the error to throw from all failures, in the order they happened. */
  combine?(errors: readonly unknown[]): Error;
}

/** One error for a concurrent task whose children failed, following the task's strategy. */
export function mergeErrors(
  errors: readonly unknown[],
  strategy: ErrorMergeStrategy | undefined,
  label: string,
  details: (cause: unknown) => WorkflowErrorDetails,
): unknown {
  if (!strategy?.enabled || errors.length === 1) return errors[0];
  const flat = flatten(errors, strategy.maxMergeDepth ?? 3);
  if (strategy.combine) {
    const combined = strategy.combine(flat);
    return combined instanceof WorkflowError ? combined : new WorkflowError(combined.message, details(combined));
  }
  const summary = flat.map(errorMessage).join('; ');
  return new MergedWorkflowError(`${flat.length} failures in ${label}: ${summary}`, {
    ...details(flat[0]),
    errors: flat,
  });
}

function flatten(errors: readonly unknown[], depth: number): unknown[] {
  const out: unknown[] = [];
  for (const error of errors) {
    if (depth > 0 && error instanceof MergedWorkflowError) out.push(...flatten(error.errors, depth - 1));
    else out.push(error);
  }
  return out;
}
