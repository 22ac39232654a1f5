import type { TokenUsage } from '../../types/usage.js';
import type { SerializedError } from '../../util/serialize-error.js';

/**
 * A settled step. `key` is built by the caller (workflow path + step name + occurrence) and is
 * written once: a replay serves it instead of running the step again.
 */
export interface StepRecord {
  key: string;
  status: 'completed' | 'failed';
  /** The step's result (JSON); absent for a step that returned nothing or failed. */
  value?: unknown;
  error?: SerializedError;
  /** Fingerprint of the step's code, to detect a resume by changed code. */
  fingerprint?: string;
  /** The step was marked `recorded`: a replay of the run serves its result instead of running it. */
  recorded?: true;
  /** What the step held when it settled (its agent and tool calls, as exported nodes), shown again on replay. */
  subtree?: unknown;
  /**
   * The `@ObservedState` fields of the step's workflow that the step changed, by field name, as it
   * left them (JSON); a replay writes them back. Absent in records stored before state was kept.
   */
  state?: Record<string, unknown>;
  /** Fields the step left `undefined`, which JSON cannot hold as a value. */
  stateUnset?: string[];
  /**
   * When the step's node started and ended in the process that ran it (epoch ms, by the run's
   * clock), shown again on replay. Absent in records stored before times were kept, and for a step
   * with `trackTiming: false`.
   */
  startedAt?: number;
  endedAt?: number;
  /** Epoch ms. */
  at: number;
}

/** A completed agent call: its answer is served on resume instead of a new model request. */
export interface CallRecord {
  key: string;
  answer: unknown;
  usage: TokenUsage;
  model: string;
  fingerprint?: string;
  /** What was asked (masked), so a replay can show how a changed call differs; absent in older records. */
  request?: CallRequest;
  /** Model requests the call made (its budget counts them again on replay); absent before budgets. */
  requests?: number;
  /**
   * What requests of this call sent by earlier processes, killed before the call completed, held
   * on its budgets (worst case): they count again whenever the call is replayed.
   */
  spentBefore?: { usd: number; tokens: number; modelRequests: number; toolCalls: number };
  /** The tool calls the agent made on the way (JSON), so a replay can mark them replayed. */
  toolCalls?: unknown;
  /** When the call started and completed (epoch ms, by the run's clock); absent in older records. */
  startedAt?: number;
  endedAt?: number;
  at: number;
}

/** What an agent call asked, as its record keeps it (masked like the tree). */
export interface CallRequest {
  /** The model as cache keys name it: an Anthropic id, or `provider/model` with the whole provider id. */
  model: string;
  system: string | null;
  /** The user content as sent: the prompt's text and its data. */
  user: string;
  /** The answer's JSON Schema; null when the schema has none. */
  schema: unknown;
  /** The tools offered, as the model saw them (MCP servers by name); absent in older records. */
  tools?: ReadonlyArray<{ name: string; description: string; input: unknown }>;
  mcps?: readonly string[];
}

/** A value sent to a run from outside (`signal(runId, name, value)`). */
export interface SignalRecord {
  /** Tells this signal from others of the same name (set by `signal()`). */
  id?: string;
  name: string;
  value: unknown;
  at: number;
}

/** An event as stored: `seq` counts from 1 per run, in append order. */
export interface StoredEvent {
  seq: number;
  event: unknown;
}
