import type { Message, StopReason, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from './chat-types.js';

/**
 * The scripted Message as a Chat Completions response: text blocks joined into `content`,
 * thinking into `reasoning_content` (the field local servers use), tool_use blocks into
 * `tool_calls`. Other block types (server tools, redacted thinking) have no counterpart and are
 * left out.
 */
export function toChatCompletion(message: Message, created: number): ChatCompletion {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const reasoning = message.content.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join('');
  const toolCalls = message.content.flatMap((block): ChatToolCall[] =>
    block.type === 'tool_use'
      ? [{ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }]
      : [],
  );
  return {
    id: message.id,
    object: 'chat.completion',
    created,
    model: message.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // The API sends null, not '', when the model only called tools.
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        finish_reason: finishReasonOf(message.stop_reason),
        logprobs: null,
      },
    ],
    usage: chatUsage(message.usage),
  };
}

/** The stop reason a Chat Completions client understands; null stays null (no reason given). */
export function finishReasonOf(stopReason: StopReason | null): ChatFinishReason | null {
  switch (stopReason) {
    case null:
      return null;
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
  }
}

/**
 * Chat Completions counts cached tokens inside `prompt_tokens`; the Messages API reports cache
 * reads and writes beside `input_tokens`. So the prompt total adds them up, and `cached_tokens`
 * is the cache reads.
 */
export function chatUsage(usage: Usage): ChatUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = usage.input_tokens + cacheRead + (usage.cache_creation_input_tokens ?? 0);
  const reasoning = usage.output_tokens_details?.thinking_tokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
    ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
  };
}
