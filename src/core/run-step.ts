import { UsageError } from '../errors/groundswell-error.js';
import { isRetryable } from '../errors/predicates.js';
import { describeValue, errorMessage } from '../util/describe.js';
import { serializeError } from '../util/serialize-error.js';
import { recordFailure } from './failure.js';
import { runInScope } from './scope.js';
import type { EventPayload, StepEndEvent } from '../types/events.js';
import type { WorkflowStatus } from '../types/status.js';
import { TreeNode } from './tree-node.js';
import type { Workflow } from './workflow.js';

export interface RetryOptions {
  /** Total attempts including the first (>= 1). */
  maxAttempts: number;
  /** Delay before each retry: a fixed number of ms or a function of the failed attempt (1-based). */
  backoffMs?: number | ((attempt: number) => number);
  /** Return false to fail at once. Cancellations and usage errors are never retried. */
  retryOn?(error: unknown, attempt: number): boolean;
}

export interface StepOptions {
  name?: string;
  /** Snapshot the workflow's observed state when the step ends. */
  snapshotState?: boolean;
  /** Record start/end time and duration (default true). */
  trackTiming?: boolean;
  logStart?: boolean;
  logFinish?: boolean;
  retry?: RetryOptions;
}

export function validateStepOptions(options: StepOptions, label: string): void {
  const retry = options.retry;
  if (retry === undefined) return;
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
    throw new UsageError(`Step "${label}": retry.maxAttempts must be an integer >= 1, got ${String(retry.maxAttempts)}.`);
  }
  const backoff: unknown = retry.backoffMs;
  if (backoff !== undefined && typeof backoff !== 'function' && !(typeof backoff === 'number' && backoff >= 0)) {
    throw new UsageError(`Step "${label}": retry.backoffMs must be a number >= 0 or a function, got ${describeValue(backoff)}.`);
  }
  const retryOn: unknown = retry.retryOn;
  if (retryOn !== undefined && typeof retryOn !== 'function') {
    throw new UsageError(`Step "${label}": retry.retryOn must be a function, got ${describeValue(retryOn)}.`);
  }
}

/**
 * The one step runner behind `@Step` and `ctx.step`: a step node under whatever of this workflow
 * is running now, `stepStart`/`stepEnd` events, the body run inside the step's scope, optional
 * retry, and failures wrapped in `WorkflowError`.
 */
export async function runStep<R>(
  workflow: Workflow,
  name: string,
  options: StepOptions,
  body: () => R | Promise<R>,
): Promise<Awaited<R>> {
  const parent = workflow.mountPoint();
  workflow.throwIfCancelled(parent);
  const clock = workflow.clock;
  const node = new TreeNode('step', name, workflow);
  node.timed = options.trackTiming !== false;
  parent.addChild(node);
  const startedAt = clock.now();
  node.start(startedAt);
  workflow.emit(node, { type: 'stepStart', name }, startedAt);
  const scope = { workflow, node };
  if (options.logStart) runInScope(scope, () => workflow.logger.info(`Step "${name}" started`));

  for (let attempt = 1; ; attempt += 1) {
    try {
      const value = await runInScope(scope, body);
      workflow.throwIfCancelled(node);
      if (options.logFinish) runInScope(scope, () => workflow.logger.info(`Step "${name}" finished`));
      endStep(workflow, node, options, 'completed', attempt);
      return value;
    } catch (thrown) {
      let delayMs: number | undefined;
      try {
        delayMs = retryDelay(workflow, options.retry, thrown, attempt);
      } catch (policyError) {
        // A broken retry policy must still end the step: fail with the policy's error, naming both.
        thrown = new UsageError(
          `Step "${name}": the retry policy threw while handling "${errorMessage(thrown)}": ${errorMessage(policyError)}`,
          { cause: policyError },
        );
      }
      if (delayMs !== undefined) {
        const error = serializeError(thrown);
        workflow.emit(node, { type: 'stepRetry', name, attempt, delayMs, error });
        runInScope(scope, () =>
          workflow.logger.warn(`Step "${name}" attempt ${attempt} failed; retrying in ${delayMs}ms`, {
            error: error.message,
          }),
        );
        try {
          await clock.sleep(delayMs, workflow.signal);
          continue;
        } catch (aborted) {
          thrown = aborted;
        }
      }
      const error = recordFailure(workflow, node, thrown, `Step "${name}" of workflow "${workflow.name}"`);
      endStep(workflow, node, options, workflow.isCancelled ? 'cancelled' : 'failed', attempt);
      throw error;
    }
  }
}

function endStep(workflow: Workflow, node: TreeNode, options: StepOptions, status: WorkflowStatus, attempts: number): void {
  const endedAt = workflow.clock.now();
  node.finish(status, endedAt);
  if (options.snapshotState) workflow.snapshotState();
  const duration = node.duration;
  const payload: EventPayload<StepEndEvent> =
    duration === undefined
      ? { type: 'stepEnd', name: node.name, status: node.status, attempts }
      : { type: 'stepEnd', name: node.name, status: node.status, duration, attempts };
  workflow.emit(node, payload, endedAt);
}

/** The delay before the next attempt, or undefined when the step must fail now. */
function retryDelay(workflow: Workflow, retry: RetryOptions | undefined, error: unknown, attempt: number): number | undefined {
  if (retry === undefined || attempt >= retry.maxAttempts) return undefined;
  if (workflow.isCancelled || !isRetryable(error)) return undefined;
  if (retry.retryOn && !retry.retryOn(error, attempt)) return undefined;
  const backoff = retry.backoffMs ?? 0;
  return Math.max(0, typeof backoff === 'function' ? backoff(attempt) : backoff);
}
