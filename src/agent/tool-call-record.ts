import type { VerifierOutcome } from '../types/trajectory.js';

/** One tool call of an agent call, as the call's outcome lists it. */
export interface ToolCallRecord {
  readonly toolUseId: string;
  readonly name: string;
  readonly kind: 'local' | 'mcp';
  readonly input: unknown;
  readonly output: string;
  readonly isError: boolean;
  readonly duration: number;
  readonly blockedReason?: string;
  /** The call ran a child agent or workflow (its result is the child's, to be verified). */
  readonly delegated?: boolean;
  /** Served from a durable run's store: the tool did not run again, so this is no fresh read. */
  readonly replayed?: boolean;
  /** For a `verify` tool that ran: how it came out (`unknown` when its result could not be read). */
  readonly outcome?: VerifierOutcome;
}
