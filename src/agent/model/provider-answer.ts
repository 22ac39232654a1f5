import type { ContentBlock, Message, StopReason } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ProviderContent } from './language-model.js';
import type { ModelAnswer } from './model-adapter.js';

/** What one provider answer came to, before it becomes a Messages-API message. */
export interface ProviderAnswer {
  readonly content: ReadonlyArray<ProviderContent>;
  readonly finishReason: unknown;
  readonly usage: unknown;
  readonly id: string | undefined;
  readonly modelId: string;
}

/** The answer could not be read as one (a tool call's arguments are not JSON, no content list). */
export class UnreadableAnswer extends Error {}

let answers = 0;

/**
 * A provider's answer as the message the loop reads: text and tool calls in order (reasoning and
 * sources left out), the finish reason as a stop reason, the usage as the Messages API counts it
 * (input without cache reads and writes).
 */
export function toMessage(answer: ProviderAnswer): ModelAnswer {
  if (!Array.isArray(answer.content)) throw new UnreadableAnswer('the answer has no content list');
  const content: ContentBlock[] = [];
  let calledTools = false;
  for (const part of answer.content) {
    if (part.type === 'text' && typeof part.text === 'string') {
      if (part.text !== '') content.push({ type: 'text', text: part.text, citations: null });
    } else if (part.type === 'tool-call') {
      calledTools = true;
      content.push({ type: 'tool_use', id: String(part.toolCallId), name: String(part.toolName), input: toolInput(part) } as ContentBlock);
    }
  }
  answers += 1;
  const providerStopReason = providerWord(answer.finishReason);
  const message = {
    id: answer.id ?? `provider-answer-${answers}`,
    type: 'message',
    role: 'assistant',
    model: answer.modelId,
    content,
    stop_reason: stopReason(answer.finishReason, calledTools),
    stop_sequence: null,
    usage: messageUsage(answer.usage),
  } as Message;
  return providerStopReason === undefined ? message : { ...message, providerStopReason };
}

function toolInput(part: ProviderContent): unknown {
  const raw = part.input;
  if (raw === undefined || raw === '') return {};
  try {
    return typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
  } catch (error) {
    throw new UnreadableAnswer(`the arguments of tool call "${String(part.toolName)}" are not JSON`, { cause: error });
  }
}

/**
 * The provider's own finish reason: v3's `raw` (`tool_calls`), else the AI SDK's word (v2 has
 * only that, `tool-calls`), which is still the provider path's and not Anthropic's.
 */
function providerWord(reason: unknown): string | undefined {
  if (typeof reason === 'string') return reason === '' ? undefined : reason;
  const { raw, unified } = (reason ?? {}) as { raw?: unknown; unified?: unknown };
  if (typeof raw === 'string' && raw !== '') return raw;
  return typeof unified === 'string' && unified !== '' ? unified : undefined;
}

/** v2 sends the reason as a string, v3 as `{ unified, raw }`. */
function stopReason(reason: unknown, calledTools: boolean): StopReason {
  const unified = typeof reason === 'string' ? reason : (reason as { unified?: unknown } | null)?.unified;
  // Some servers say `stop` after tool calls: the calls decide.
  if (calledTools) return 'tool_use';
  switch (unified) {
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    case 'tool-calls':
      return 'tool_use';
    default:
      return 'end_turn';
  }
}

/**
 * v2: flat counts with `cachedInputTokens`; v3: `{ inputTokens: { total, noCache, cacheRead, cacheWrite }, outputTokens: { total } }`.
 * Input and output the provider did not report stay null, and a figure that is not a count stays
 * as it came, so the loop can tell an answer without usage (a stream without `include_usage`) or
 * with a hostile one from one that cost nothing (see checked-usage.ts).
 */
function messageUsage(usage: unknown): Message['usage'] {
  const u = (usage ?? {}) as Record<string, unknown>;
  let input: unknown;
  let cacheRead: unknown;
  let cacheWrite: unknown;
  let output: unknown;
  if (typeof u.inputTokens === 'object' && u.inputTokens !== null) {
    const tokens = u.inputTokens as { total?: unknown; noCache?: unknown; cacheRead?: unknown; cacheWrite?: unknown };
    cacheRead = tokens.cacheRead;
    cacheWrite = tokens.cacheWrite;
    input = tokens.noCache ?? uncached(tokens.total, cacheRead, cacheWrite);
    output = typeof u.outputTokens === 'object' && u.outputTokens !== null ? (u.outputTokens as { total?: unknown }).total : undefined;
  } else {
    cacheRead = u.cachedInputTokens;
    input = uncached(u.inputTokens, cacheRead, undefined);
    output = u.outputTokens;
  }
  return {
    input_tokens: input ?? null,
    output_tokens: output ?? null,
    cache_creation_input_tokens: cacheWrite ?? 0,
    cache_read_input_tokens: cacheRead ?? 0,
  } as Message['usage'];
}

/** The input without cache reads and writes, when all are counts; else the total as it came. */
function uncached(total: unknown, cacheRead: unknown, cacheWrite: unknown): unknown {
  if (!isCount(total)) return total;
  const read = isCount(cacheRead) ? (cacheRead as number) : 0;
  const write = isCount(cacheWrite) ? (cacheWrite as number) : 0;
  return Math.max(0, (total as number) - read - write);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
