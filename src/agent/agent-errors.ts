import { GroundswellError } from '../errors/groundswell-error.js';

/** Base of the errors an agent call raises itself (API errors from the SDK pass through as they are). */
export class AgentError extends GroundswellError {
  constructor(
    message: string,
    readonly agentName: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface OutputIssue {
  /** Dotted path into the answer, '' for the root. */
  readonly path: string;
  readonly message: string;
}

/**
 * The model's answer was not the promised structure: not JSON, no answer at all, or JSON that
 * fails the prompt's schema. `issues` names every failing path; `raw` is what the model sent.
 */
export class StructuredOutputError extends AgentError {
  constructor(
    message: string,
    agentName: string,
    readonly reason: 'invalid_json' | 'schema_mismatch' | 'missing_output',
    readonly issues: readonly OutputIssue[],
    readonly raw: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, agentName, options);
  }
}

/** The tool loop used all its model turns without a final answer. */
export class MaxTurnsExceededError extends AgentError {
  constructor(
    agentName: string,
    readonly maxTurns: number,
  ) {
    super(`Agent "${agentName}" reached maxTurns (${maxTurns}) while the model was still calling tools.`, agentName);
  }
}

/**
 * A turn feature ended the call before a request was sent (`request.stop(reason)`): a limit it
 * keeps was reached. Not retryable: the same call would stop the same way.
 */
export class AgentLoopStoppedError extends AgentError {
  readonly retryable = false;
  constructor(
    agentName: string,
    readonly feature: string,
    readonly reason: string,
    readonly turn: number,
  ) {
    super(`Agent "${agentName}": turn feature "${feature}" stopped the call before request ${turn}: ${reason}`, agentName);
  }
}

/**
 * A provider model's request failed for good (after its retries): the status it answered (null
 * when no answer came), the provider and the model. `status` is read like an HTTP API error's, so
 * a 400 or 401 is not retried by reflection either.
 */
export class ProviderApiError extends AgentError {
  constructor(
    message: string,
    agentName: string,
    readonly provider: string,
    readonly model: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, agentName, options);
  }
}

export type HookName = 'sessionStart' | 'preToolUse' | 'postToolUse' | 'sessionEnd';

/**
 * A hook threw (or returned something unreadable). The call fails with this error whatever the
 * hook threw, so callers catch one type; `cause` is the value the hook threw, as it was.
 */
export class HookError extends AgentError {
  constructor(
    message: string,
    agentName: string,
    readonly hook: HookName,
    options?: { cause?: unknown },
  ) {
    super(message, agentName, options);
  }
}

/**
 * The API answered with a success status, but not with a Messages-API message: an HTML page from
 * a proxy, `{}`, truncated JSON, or a stream that was cut or carried garbage. `status` and
 * `requestId` are those of that answer; `problem` says what was wrong, `cause` is the parse
 * error when there was one. Not retried by the SDK (it reads the body after its retries);
 * `isRetryable` says yes, so a step retry policy may try again.
 */
export class MalformedResponseError extends AgentError {
  constructor(
    message: string,
    agentName: string,
    readonly status: number,
    readonly requestId: string | undefined,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(message, agentName, options);
  }
}
