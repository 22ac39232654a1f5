import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { TokenUsage } from '../types/usage.js';
import type { ModelAnswer } from './model/model-adapter.js';
import type { ToolCallRecord } from './tool-call-record.js';

/**
 * Where an agent call stood when a tool call of its turn `turn` had to wait for approval: the
 * conversation before that turn's answer, the answer, and what the call had spent and run. A
 * durable run keeps it, so the call goes on from here when the run resumes: no model request
 * and no tool call is made again.
 */
export interface PausedTurn {
  readonly turn: number;
  readonly messages: readonly MessageParam[];
  readonly response: ModelAnswer;
  readonly usage: TokenUsage;
  /** Model requests the call had made. */
  readonly requests: number;
  readonly toolCalls: readonly ToolCallRecord[];
}
