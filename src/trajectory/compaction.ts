import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ContextBudget } from '../agent/config/trajectory-config.js';


export interface CompactionResult {
  readonly messages: MessageParam[];
  readonly droppedTurns: number;
  readonly beforeChars: number;
  readonly afterChars: number;
}

/**
 * Keeps the first user message and the newest `keepTurns` turns; the turns in between (each an
 * assistant message and the tool results answering it, so tool_use/tool_result pairs stay whole)
 * are removed, and a note — or a summary line per removed tool call, from `summaries` — is added
 * to the first message. Returns undefined when the conversation is within budget.
 */
export function compactMessages(
  messages: readonly MessageParam[],
  budget: ContextBudget,
  summaries: readonly string[],
): CompactionResult | undefined {
  const beforeChars = JSON.stringify(messages).length;
  if (beforeChars <= budget.maxChars) return undefined;
  const keep = Math.max(1, budget.keepTurns ?? 2);
  const turns = Math.floor((messages.length - 1) / 2);
  const drop = turns - keep;
  if (drop <= 0) return undefined;
  const [first, ...rest] = messages;
  if (first === undefined) return undefined;
  const kept = rest.slice(drop * 2);
  const note =
    budget.strategy === 'summarize' && summaries.length > 0
      ? `[Earlier turns compacted: ${drop} turn(s). What they did:\n${summaries.map((s) => `- ${s}`).join('\n')}]`
      : `[Earlier turns compacted: ${drop} turn(s) removed to stay within the context budget.]`;
  const head: ContentBlockParam[] =
    typeof first.content === 'string' ? [{ type: 'text', text: first.content }] : [...first.content];
  const compacted: MessageParam[] = [{ role: 'user', content: [...head, { type: 'text', text: note }] }, ...kept];
  return { messages: compacted, droppedTurns: drop, beforeChars, afterChars: JSON.stringify(compacted).length };
}
