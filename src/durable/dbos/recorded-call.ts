import type { PromptCall, PromptOutcome } from '../../agent/prompt-call.js';
import { replayedToolCalls, storeToolCalls, type StoredToolCall } from '../../agent/stored-tool-calls.js';
import type { TokenUsage } from '../../types/usage.js';
import { DbosReplayError } from './dbos-errors.js';

/** What DBOS records of a completed agent call: JSON data only, enough to answer it again. */
export interface RecordedCall {
  readonly answer: unknown;
  readonly usage: TokenUsage;
  readonly model: string;
  readonly toolCalls: readonly StoredToolCall[];
  /** Model requests the call made (a replay books them on its budgets); absent in older records. */
  readonly requests?: number;
}

/** What DBOS records of `outcome`; tool outputs are masked with the call's secrets (DBOS keeps them in its database). */
export function recordCall<T>(call: PromptCall<T>, outcome: PromptOutcome<T>): RecordedCall {
  return {
    answer: outcome.answerData ?? null,
    usage: outcome.usage,
    model: outcome.model,
    toolCalls: storeToolCalls(outcome.toolCalls, call.secrets),
    requests: call.meter.turns,
  };
}

/** The recorded answer, parsed by the prompt's schema again, as a replayed outcome (no model request). */
export function replayCall<T>(call: PromptCall<T>, recorded: RecordedCall): PromptOutcome<T> {
  const parsed = call.prompt.responseFormat.safeParse(recorded.answer);
  if (!parsed.success) {
    throw new DbosReplayError(
      `Agent call of "${call.agentName}": the answer DBOS recorded does not fit the prompt's schema any more, so it is not replayed.`,
      { cause: parsed.error },
    );
  }
  const toolCalls = replayedToolCalls(recorded.toolCalls);
  return {
    value: parsed.data,
    answerData: recorded.answer,
    usage: recorded.usage,
    turns: 0,
    stopReason: null,
    model: recorded.model,
    cached: false,
    replayed: true,
    toolCalls,
  };
}
