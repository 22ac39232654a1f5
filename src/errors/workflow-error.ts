import type { LogEntry } from '../types/logging.js';
import type { StateSnapshot } from '../types/serialized.js';
import { serializeError, type SerializedError } from '../util/serialize-error.js';
import { GroundswellError } from './groundswell-error.js';

type ErrorJsonMasker = <T>(error: object, value: T) => T;
let maskErrorJson: ErrorJsonMasker = (_error, value) => value;

/**
 * Extension point: how `WorkflowError.toJSON` masks secrets. Core's per-run secrets install it
 * (`core/run-secrets.ts`), so this layer does not import core.
 */
export function setErrorJsonMasker(masker: ErrorJsonMasker): void {
  maskErrorJson = masker;
}

export interface WorkflowErrorDetails {
  workflowId: string;
  /** The step/task/workflow node where the failure happened. */
  nodeId: string;
  cause: unknown;
  state: StateSnapshot;
  logs: readonly LogEntry[];
}

/** A failure inside a workflow, with the redacted observed state and the logs at that moment. */
export class WorkflowError extends GroundswellError {
  readonly workflowId: string;
  readonly nodeId: string;
  readonly state: StateSnapshot;
  readonly logs: readonly LogEntry[];

  constructor(message: string, details: WorkflowErrorDetails) {
    super(message, { cause: details.cause });
    this.workflowId = details.workflowId;
    this.nodeId = details.nodeId;
    this.state = details.state;
    this.logs = details.logs;
  }

  /** The error that was originally thrown (the same value as `cause`). */
  get original(): unknown {
    return this.cause;
  }

  toJSON(): SerializedError & { nodeId: string; state: StateSnapshot; logs: readonly LogEntry[] } {
    // The cause chain quotes what was thrown: masked with the run's secrets, like the tree's copy.
    return maskErrorJson(this, { ...serializeError(this), nodeId: this.nodeId, state: this.state, logs: this.logs });
  }
}

/** Raised at the next step boundary of a cancelled workflow, and by its `run()`. */
export class WorkflowCancelledError extends WorkflowError {}

/**
 * A durable run stopped to wait for outside input (`waitFor`): not a failure. Its state is stored;
 * `signal()` and `resume()` continue it, in this process or another.
 */
export class RunSuspendedError extends WorkflowError {
  readonly runId: string;
  /** The name of the signal the run waits for. */
  readonly waitingFor: string;

  constructor(message: string, details: WorkflowErrorDetails & { runId: string; waitingFor: string }) {
    super(message, details);
    this.runId = details.runId;
    this.waitingFor = details.waitingFor;
  }
}

/** Several concurrent children failed and `errorMergeStrategy.enabled` asked for all of them. */
export class MergedWorkflowError extends WorkflowError {
  readonly errors: readonly unknown[];

  constructor(message: string, details: WorkflowErrorDetails & { errors: readonly unknown[] }) {
    super(message, details);
    this.errors = details.errors;
  }
}
