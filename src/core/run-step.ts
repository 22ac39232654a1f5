import { UsageError } from '../errors/groundswell-error.js';
import { isRetryable, isSuspension } from '../errors/predicates.js';
import { errorMessage } from '../util/describe.js';
import { nextEventId } from '../util/ids.js';
import { serializeError } from '../util/serialize-error.js';
import { endStatus, recordFailure } from './failure.js';
import { mustYield, runInScope, runInScopeWith, type Scope } from './scope.js';
import { invokeMethodCall, MethodCall } from './method-call.js';
import { retryAfterStepFailure } from './step-failure.js';
import type { StepEndEvent, StepStartEvent } from '../types/events.js';
import type { WorkflowStatus } from '../types/status.js';
import { TreeNode } from './tree-node.js';
import { checkedBackoff } from './config/step-options.js';
import type { WorkflowRuntime } from './workflow-runtime.js';
import { journalOf, type RunJournal, type StepIdentity, type StepReplay } from './run-journal.js';
import type { Budget } from '../types/budget.js';
import { startNodeBudget } from './node-budget.js';

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
  /**
   * Limits on everything the step runs (agent calls, child workflows), all attempts together;
   * when one would be passed, the step fails with `BudgetExceededError` (as its error's cause).
   */
  budget?: Budget;
  /**
   * When a recording of the run is replayed, serve this step's recorded result instead of running
   * its body: for a body that reaches the outside world other than through agents (a fetch).
   */
  recorded?: boolean;
}

/**
 * What a step runs: a function (`ctx.step`), or a decorated method's call (`@Step`), which needs
 * no closure per call and is its own durable identity.
 */
export type StepBody<R> = (() => R | Promise<R>) | MethodCall;

/**
 * The one step runner behind `@Step` and `ctx.step`: a step node under whatever of this workflow
 * is running now, `stepStart`/`stepEnd` events, the body run inside the step's scope, optional
 * retry, and failures wrapped in `WorkflowError`.
 */
export function runStep<R>(
  workflow: WorkflowRuntime,
  name: string,
  options: StepOptions,
  body: StepBody<R>,
  identity?: StepIdentity,
): Promise<Awaited<R>> {
  const parent = workflow.mountPoint();
  try {
    workflow.throwIfCancelled(parent);
  } catch (cancelled) {
    return Promise.reject(cancelled);
  }
  const node = new TreeNode('step', name, workflow);
  workflow.beginWork();
  if (options.trackTiming === false) node.timed = false;
  parent.addChild(node);
  const startedAt = workflow.clock.now();
  node.start(startedAt);
  // Built whole rather than through emit()'s spread: this is the hottest event there is.
  const start: StepStartEvent = {
    id: nextEventId(),
    nodeId: node.id,
    workflowId: workflow.id,
    timestamp: startedAt,
    type: 'stepStart',
    name,
  };
  workflow.dispatch(node, start, true);
  const scope: Scope = { workflow, node };
  if (options.logStart) runInScope(scope, () => workflow.logger.info(`Step "${name}" started`));
  if (options.budget !== undefined) return budgetedStep(scope, options, options.budget, bodyFunction(body), identity ?? identityOf(body));
  return runBody(scope, options, body, identity);
}

/** A step with a budget: the body races its wallMs, and the timer ends with the step. */
function budgetedStep<R>(scope: Scope, options: StepOptions, setting: Budget, body: () => R | Promise<R>, identity: StepIdentity | undefined): Promise<Awaited<R>> {
  const budget = startNodeBudget(scope.workflow, scope.node as TreeNode, setting, `step "${scope.node.name}"`);
  // The identity is the user's body, not this wrapper: a durable step keeps its fingerprint.
  return runBody(scope, options, () => budget.race(body()), identity ?? { source: body }).finally(budget.stop);
}

function runBody<R>(scope: Scope, options: StepOptions, body: StepBody<R>, identity: StepIdentity | undefined): Promise<Awaited<R>> {
  const journal = journalOf(scope.workflow);
  // The identity is made only here: a run without a journal never needs one.
  if (journal?.wrapStep !== undefined) return wrappedStep(journal, scope, options, body, identity ?? identityOf(body));
  if (journal !== undefined) return journaledStep(journal, scope, options, body, identity ?? identityOf(body));
  return attempt(scope, options, body, 1);
}

/** What a durable journal fingerprints: the method's code and arguments, or the function's code. */
function identityOf<R>(body: StepBody<R>): StepIdentity {
  return body instanceof MethodCall ? body : { source: body };
}

/** The body as a function, for the paths that wrap it (rare; the usual attempt calls it directly). */
function bodyFunction<R>(body: StepBody<R>): () => R | Promise<R> {
  return body instanceof MethodCall ? () => invokeMethodCall(body) as R | Promise<R> : body;
}

/** Calls the body inside the step's scope. */
function callInScope<R>(scope: Scope, body: StepBody<R>): R | Promise<R> {
  return body instanceof MethodCall ? (runInScopeWith(scope, invokeMethodCall, body) as R | Promise<R>) : runInScope(scope, body);
}

/**
 * A step of a run whose engine records steps itself: the engine runs the body (with its retries
 * and events as usual) or settles with what it recorded, which ends the step as replayed.
 */
async function wrappedStep<R>(
  journal: RunJournal,
  scope: Scope,
  options: StepOptions,
  body: StepBody<R>,
  identity: StepIdentity,
): Promise<Awaited<R>> {
  const { workflow } = scope;
  const node = scope.node as TreeNode;
  let ran = false;
  try {
    const value = await (journal.wrapStep as NonNullable<RunJournal['wrapStep']>)(workflow, node, identity, () => {
      ran = true;
      return attempt(scope, options, body, 1);
    });
    return ran ? value : (endReplayed(scope, options, { status: 'completed', value }) as Awaited<R>);
  } catch (failure) {
    // A body that ran has ended its step already; a recorded failure (or the engine's) ends it here.
    if (ran) throw failure;
    return endReplayed(scope, options, { status: 'failed', error: failure as Error }) as Awaited<R>;
  }
}

/**
 * Ends a step with the outcome its journal recorded (its body did not run): the value, or the
 * recorded error thrown. The node is marked replayed and, where the journal kept them, spans the
 * times the step ran in the process that ran it, not the moment of the replay.
 */
function endReplayed(scope: Scope, options: StepOptions, outcome: StepReplay): unknown {
  const { workflow } = scope;
  const node = scope.node as TreeNode;
  const ran = outcome.ran;
  node.markReplayed();
  if (ran !== undefined) node.backdateStart(ran.startedAt);
  workflow.emit(node, { type: 'stepReplayed', name: node.name, status: outcome.status });
  if (outcome.status === 'completed') {
    endStep(workflow, node, options, 'completed', 0, ran?.endedAt);
    return outcome.value;
  }
  const error = recordFailure(workflow, node, outcome.error, `Step "${node.name}" of workflow "${workflow.name}"`);
  endStep(workflow, node, options, 'failed', 0, ran?.endedAt);
  throw error;
}

/**
 * A step of a durable run: an outcome stored by an earlier attempt of the run is served without
 * running the body; a new outcome is stored before the step's caller sees it.
 */
async function journaledStep<R>(
  journal: RunJournal,
  scope: Scope,
  options: StepOptions,
  body: StepBody<R>,
  identity: StepIdentity,
): Promise<Awaited<R>> {
  const { workflow } = scope;
  const node = scope.node as TreeNode;
  let replay;
  try {
    replay = journal.replayStep(workflow, node, identity, options.recorded === true);
  } catch (mismatch) {
    return stepFailed(scope, { ...options, retry: undefined }, body, Number.MAX_SAFE_INTEGER, mismatch);
  }
  if (replay !== undefined) return endReplayed(scope, options, replay) as Awaited<R>;
  const gate = journal.beforeStepBody?.(workflow, node);
  if (gate !== undefined) {
    try {
      await gate;
    } catch (stopped) {
      // The body never ran, so there is no outcome to settle: the step fails as it stands.
      return stepFailed(scope, { ...options, retry: undefined }, body, Number.MAX_SAFE_INTEGER, stopped);
    }
  }
  let value: Awaited<R>;
  try {
    value = await attempt(scope, options, body, 1);
  } catch (failure) {
    // A suspension is not an outcome: the step runs again when the run resumes.
    if (!isSuspension(failure)) await journal.stepSettled(workflow, node, { status: 'failed', error: failure as Error });
    throw failure;
  }
  await journal.stepSettled(workflow, node, { status: 'completed', value });
  return value;
}

/**
 * One attempt. A body that returns a plain value (not a promise or another thenable) ends its
 * step at once, as one that throws does: awaiting a plain value would cost a promise and a turn
 * (each traced by AsyncLocalStorage's promise hooks) for nothing the step waits on. A body that
 * returns a promise costs one promise more: its result chained with `then`, where an `async`
 * attempt would add a promise of its own and an `await`. Both settle on the same microtask ticks
 * as `attemptAsync` (an async function that awaits only a thenable), so events keep their order
 * however deep the stack is. Decision 0095.
 */
function attempt<R>(scope: Scope, options: StepOptions, body: StepBody<R>, n: number): Promise<Awaited<R>> {
  if (mustYield()) return attemptAsync(scope, options, body, n);
  let result: R | Promise<R>;
  try {
    result = callInScope(scope, body);
  } catch (thrown) {
    return failedAtOnce(scope, options, body, n, thrown);
  }
  if (!isThenable(result)) return endedAtOnce(scope, options, body, n, result as Awaited<R>);
  return Promise.resolve(result).then(
    (value) => {
      try {
        scope.workflow.throwIfCancelled(scope.node as TreeNode);
      } catch (thrown) {
        return stepFailed(scope, options, body, n, thrown);
      }
      return stepSucceeded(scope, options, n, value);
    },
    (thrown: unknown) => stepFailed(scope, options, body, n, thrown),
  );
}

/**
 * What `await` would wait on: a promise, or an object or function with a callable `then` (read
 * once more by `Promise.resolve`, as awaiting it reads it). A plain value is not.
 */
function isThenable(value: unknown): boolean {
  if (value instanceof Promise) return true;
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  return typeof (value as { then?: unknown }).then === 'function';
}

/** A body that returned a plain value: the step ends now, and the promise is already settled. */
function endedAtOnce<R>(scope: Scope, options: StepOptions, body: StepBody<R>, n: number, value: Awaited<R>): Promise<Awaited<R>> {
  try {
    scope.workflow.throwIfCancelled(scope.node as TreeNode);
  } catch (thrown) {
    return stepFailed(scope, options, body, n, thrown);
  }
  try {
    return Promise.resolve(stepSucceeded(scope, options, n, value));
  } catch (thrown) {
    // As a throw inside `then` would: the step's promise rejects, the caller is not thrown at.
    return Promise.reject(thrown);
  }
}

/** The same attempt as an async function: for a stack deep enough that it must yield first. */
async function attemptAsync<R>(scope: Scope, options: StepOptions, body: StepBody<R>, n: number): Promise<Awaited<R>> {
  let value: Awaited<R>;
  try {
    if (mustYield()) await undefined;
    const result = callInScope(scope, body);
    value = isThenable(result) ? await result : (result as Awaited<R>);
    scope.workflow.throwIfCancelled(scope.node as TreeNode);
  } catch (thrown) {
    return stepFailed(scope, options, body, n, thrown);
  }
  return stepSucceeded(scope, options, n, value);
}

/** A body that threw before returning: settles like an async attempt that caught it. */
async function failedAtOnce<R>(
  scope: Scope,
  options: StepOptions,
  body: StepBody<R>,
  n: number,
  thrown: unknown,
): Promise<Awaited<R>> {
  return stepFailed(scope, options, body, n, thrown);
}

function stepSucceeded<V>(scope: Scope, options: StepOptions, n: number, value: V): V {
  if (options.logFinish) runInScope(scope, () => scope.workflow.logger.info(`Step "${scope.node.name}" finished`));
  endStep(scope.workflow, scope.node as TreeNode, options, 'completed', n);
  return value;
}

async function stepFailed<R>(
  scope: Scope,
  options: StepOptions,
  body: StepBody<R>,
  n: number,
  thrown: unknown,
): Promise<Awaited<R>> {
  const { workflow } = scope;
  const node = scope.node as TreeNode;
  const name = node.name;
  let delayMs: number | undefined;
  try {
    delayMs = retryDelay(workflow, options.retry, thrown, n);
  } catch (policyError) {
    // A broken retry policy must still end the step: fail with the policy's error, naming both.
    thrown = new UsageError(
      `Step "${name}": the retry policy threw while handling "${errorMessage(thrown)}": ${errorMessage(policyError)}`,
      { cause: policyError },
    );
  }
  if (delayMs !== undefined) {
    const error = serializeError(thrown);
    workflow.emit(node, { type: 'stepRetry', name, attempt: n, delayMs, error });
    runInScope(scope, () =>
      workflow.logger.warn(`Step "${name}" attempt ${n} failed; retrying in ${delayMs}ms`, { error: error.message }),
    );
    try {
      await workflow.clock.sleep(delayMs, workflow.signal);
      return attempt(scope, options, body, n + 1);
    } catch (aborted) {
      thrown = aborted;
    }
  }
  if (delayMs === undefined && !isSuspension(thrown)) {
    try {
      if (await retryAfterStepFailure(workflow, scope, thrown, n)) {
        workflow.emit(node, { type: 'stepRetry', name, attempt: n, delayMs: 0, error: serializeError(thrown) });
        return attempt(scope, options, body, n + 1);
      }
    } catch (reflectionFailure) {
      thrown = reflectionFailure;
    }
  }
  const error = recordFailure(workflow, node, thrown, `Step "${name}" of workflow "${workflow.name}"`);
  endStep(workflow, node, options, endStatus(workflow, thrown), n);
  throw error;
}

/** `at`: a replayed step's original end; else the step ends now. */
function endStep(workflow: WorkflowRuntime, node: TreeNode, options: StepOptions, status: WorkflowStatus, attempts: number, at?: number): void {
  try {
    const endedAt = at ?? workflow.clock.now();
    // Ended here (not cancelled before): the node ends at `endedAt` with `status`, so the event is
    // built from those, and the node keeps it as its own without comparing it field by field.
    const ended = node.finish(status, endedAt);
    if (options.snapshotState) workflow.snapshotState();
    if (ended) {
      const begin = node.startTime;
      workflow.dispatch(node, stepEndEvent(workflow, node, endedAt, status, begin === undefined ? undefined : endedAt - begin, attempts), true);
    } else {
      workflow.dispatch(node, stepEndEvent(workflow, node, endedAt, node.status, node.duration, attempts));
    }
  } finally {
    // Always, or the workflow's run would wait for this step forever.
    workflow.endWork();
  }
}

/** The `stepEnd` event of a finished step node (`duration` as the node gives it: undefined when untimed). */
function stepEndEvent(
  workflow: WorkflowRuntime,
  node: TreeNode,
  timestamp: number,
  status: WorkflowStatus,
  duration: number | undefined,
  attempts: number,
): StepEndEvent {
  // Two literals, not a spread: one stable object shape keeps this hot path monomorphic.
  return duration === undefined
    ? { id: nextEventId(), nodeId: node.id, workflowId: workflow.id, timestamp, type: 'stepEnd', name: node.name, status, attempts }
    : { id: nextEventId(), nodeId: node.id, workflowId: workflow.id, timestamp, type: 'stepEnd', name: node.name, status, duration, attempts };
}

/** The delay before the next attempt, or undefined when the step must fail now. */
function retryDelay(workflow: WorkflowRuntime, retry: RetryOptions | undefined, error: unknown, attempt: number): number | undefined {
  if (retry === undefined || attempt >= retry.maxAttempts) return undefined;
  if (workflow.isCancelled || !isRetryable(error)) return undefined;
  if (retry.retryOn && !retry.retryOn(error, attempt)) return undefined;
  const backoff = retry.backoffMs ?? 0;
  return typeof backoff === 'function' ? checkedBackoff(backoff(attempt), attempt) : backoff;
}
