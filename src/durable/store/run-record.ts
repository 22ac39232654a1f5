import type { TokenUsage } from '../../types/usage.js';
import type { SerializedError } from '../../util/serialize-error.js';

/** Where a run is: `suspended` waits for a signal; the last three are final. */
export type RunStatus = 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';

export const RUN_STATUSES: readonly RunStatus[] = ['running', 'suspended', 'completed', 'failed', 'cancelled'];

/** What a suspended run waits for: a signal `name`, since `since`, until `timeoutAt` (epoch ms). */
export interface WaitingFor {
  name: string;
  since: number;
  timeoutAt?: number;
  /** The wait's schema as JSON Schema, so `signal()` can check a value without the workflow code. */
  schema?: unknown;
}

/** One durable run as a store keeps it; times are epoch milliseconds. */
export interface RunRecord {
  id: string;
  /** Name of the root workflow, to find the code that resumes it. */
  rootName: string;
  /** The run's input (JSON); absent when the run took none. */
  input?: unknown;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  result?: unknown;
  error?: SerializedError;
  waitingFor?: WaitingFor;
  usage?: TokenUsage;
  /** The caller's version of the workflow code, to detect a resume by different code. */
  codeVersion?: string;
}

/** What `createRun` takes: the rest (timestamps) the store sets. */
export interface NewRun {
  id: string;
  rootName: string;
  input?: unknown;
  /** Default `running`. */
  status?: RunStatus;
  codeVersion?: string;
}

/**
 * A change to a run. A field left out (or `undefined`) stays as it is; `null` clears an optional
 * field (`waitingFor: null` once the signal came). `updatedAt` is set by the store.
 */
export interface RunPatch {
  status?: RunStatus;
  result?: unknown;
  error?: SerializedError | null;
  waitingFor?: WaitingFor | null;
  usage?: TokenUsage | null;
  codeVersion?: string | null;
}
