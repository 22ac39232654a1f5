import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ToolCallRecord } from './tool-call-record.js';
import type { RequestOverride, ToolCallDone, TurnCall, TurnFeature, TurnRequest } from './turn-feature.js';
import { AgentLoopStoppedError } from './agent-errors.js';
import { budgetedRequest } from './budgeted-request.js';
import type { PromptCall } from './prompt-call.js';

/** What the features made of one request: blocks to append, and the last override with its author. */
export interface ShapedRequest {
  readonly blocks: string[];
  readonly override: { readonly change: RequestOverride; readonly feature: string } | undefined;
}

/**
 * Runs every feature's `beforeRequest`, in order, and returns the system blocks they added and
 * what they changed for this request. Awaits only a feature that returned a promise. A feature
 * that stops the call ends it here, before anything is sent.
 */
export async function beforeRequest<T>(
  call: PromptCall<T>,
  features: readonly TurnFeature[],
  turn: number,
  messages: MessageParam[],
): Promise<ShapedRequest> {
  let current = '';
  let override: { change: RequestOverride; feature: string } | undefined;
  let stopped: string | undefined;
  const request: TurnRequest = {
    call,
    turn,
    messages,
    systemBlocks: [],
    compacted: () => {
      for (const feature of features) feature.onCompaction?.(turn);
    },
    summaries: (maxTurn) => features.flatMap((feature) => feature.summaries?.(maxTurn) ?? []),
    // A feature's own request goes to the call's model: reserved and booked like the loop's.
    send: (params) => budgetedRequest(call, params),
    override: (change) => {
      override = { change: { ...override?.change, ...change }, feature: current };
    },
    stop: (reason) => {
      stopped ??= reason;
    },
  };
  for (const feature of features) {
    current = feature.name;
    const pending = feature.beforeRequest?.(request);
    if (pending !== undefined) await pending;
    if (stopped !== undefined) throw new AgentLoopStoppedError(call.agentName, feature.name, stopped, turn);
  }
  return { blocks: request.systemBlocks, override };
}

export function afterToolCall(features: readonly TurnFeature[], done: ToolCallDone): void {
  for (const feature of features) feature.afterToolCall?.(done);
}

export function afterToolRound(features: readonly TurnFeature[], turn: number, records: readonly ToolCallRecord[]): void {
  for (const feature of features) feature.afterToolRound?.(turn, records);
}

/** Whether any feature observes single tool calls (then the loop reads each tool's target). */
export function observesToolCalls(features: readonly TurnFeature[]): boolean {
  return features.some((feature) => feature.afterToolCall !== undefined);
}

/**
 * What the features add to the first request, for the cache key: undefined (synchronously, so a
 * cache hit pays no await) when none adds anything that varies.
 */
export function firstRequestText(features: readonly TurnFeature[], call: TurnCall): Promise<string> | undefined {
  if (features.length === 0) return undefined;
  const keyed = features.filter((feature) => feature.firstRequestText !== undefined);
  if (keyed.length === 0) return undefined;
  if (keyed.length === 1) return keyed[0]?.firstRequestText?.(call);
  return Promise.all(keyed.map((feature) => feature.firstRequestText?.(call) ?? '')).then((texts) => texts.join('\n'));
}
