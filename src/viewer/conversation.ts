import type { ModelRequestEvent, ToolInvocationEvent } from '../types/events.js';

/** One model request of an agent call and the tool uses its answer asked for. */
export interface ConversationTurn extends Pick<ModelRequestEvent, 'turn' | 'requestModel' | 'model' | 'startTime' | 'duration' | 'stopReason' | 'usage'> {
  /** Tool uses that started after this request's answer arrived and before the next request. */
  readonly tools: readonly ToolInvocationEvent[];
}

/**
 * An agent call's turns as the tree holds them: its `modelRequest` events, each with the tool uses
 * (inputs and results, masked like the rest of the tree) that ran before the next request. The
 * tree keeps no prompt text beyond the node's name, so neither does this.
 */
export function conversationTurns(requests: readonly ModelRequestEvent[], tools: readonly ToolInvocationEvent[]): ConversationTurn[] {
  const ordered = [...requests].sort((a, b) => a.startTime - b.startTime || a.turn - b.turn);
  const turns = ordered.map((request) => ({
    turn: request.turn,
    requestModel: request.requestModel,
    model: request.model,
    startTime: request.startTime,
    duration: request.duration,
    stopReason: request.stopReason,
    usage: request.usage,
    tools: [] as ToolInvocationEvent[],
  }));
  for (const tool of tools) {
    const started = tool.timestamp - tool.duration;
    // The latest request answered by the time the tool started asked for it.
    let owner: (typeof turns)[number] | undefined;
    for (const turn of turns) if (turn.startTime + turn.duration <= started) owner = turn;
    (owner ?? turns[0])?.tools.push(tool);
  }
  return turns;
}
