import type { PromptCall, PromptOutcome } from '../agent/prompt-call.js';
import type { ToolCallRecord } from '../agent/tool-call-record.js';
import type { TokenUsage } from '../types/usage.js';
import { DbosReplayError } from './dbos-errors.js';

/** What DBOS records of a completed agent call: JSON data only, enough to answer it again. */
export interface RecordedCall {
  readonly answer: unknown;
  readonly usage: TokenUsage;
  readonly model: string;
  readonly toolCalls: ReadonlyArray<{ name: string; kind: 'local' | 'mcp'; isError: boolean; output: string }>;
}

export function recordCall<T>(outcome: PromptOutcome<T>): RecordedCall {
  return {
    answer: outcome.answerData ?? null,
    usage: outcome.usage,
    model: outcome.model,
    toolCalls: outcome.toolCalls.map((tool) => ({ name: tool.name, kind: tool.kind, isError: tool.isError, output: tool.output.slice(0, 2_000) })),
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
  const toolCalls: ToolCallRecord[] = recorded.toolCalls.map((tool, index) => ({
    toolUseId: `replayed-${index}`,
    name: tool.name,
    kind: tool.kind,
    input: undefined,
    output: tool.output,
    isError: tool.isError,
    duration: 0,
    replayed: true,
  }));
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
