import type { TurnFeature, TurnFeatureContext } from '../agent/turn-feature.js';
import { compactMessages } from './compaction.js';
import type { TrajectoryOptions } from '../agent/config/trajectory-config.js';

/**
 * `trajectory.contextBudget`: before each request, compacts the conversation in place when it is
 * over the budget (older turns out, a note or a summary of their tool calls in), tells the other
 * features, and reports it. Runs first, so every later feature sees the compacted conversation.
 */
export function compactionFeature(context: TurnFeatureContext<{ readonly trajectory?: TrajectoryOptions }>): TurnFeature | undefined {
  const budget = context.config.trajectory?.contextBudget;
  if (budget === undefined) return undefined;
  return {
    name: 'compaction',
    beforeRequest(request) {
      const { messages, turn, call } = request;
      const result = compactMessages(messages, budget, request.summaries(turn));
      if (result === undefined) return;
      messages.splice(0, messages.length, ...result.messages);
      request.compacted();
      call.tree.emit({
        type: 'contextCompacted',
        agentName: call.agentName,
        turn,
        droppedTurns: result.droppedTurns,
        strategy: budget.strategy ?? 'drop',
        beforeChars: result.beforeChars,
        afterChars: result.afterChars,
      });
    },
  };
}
