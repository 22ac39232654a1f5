import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { StreamOptions } from '../script-step.js';
import { chunkSizeOf, chunks } from '../sse.js';
import type { ChatCompletionChunk, ChatDelta, ChatErrorBody } from './chat-types.js';
import { chatUsage, finishReasonOf } from './to-chat-completion.js';

export interface ChatStreamOptions {
  /** Unix seconds, the same on every chunk of one response. */
  readonly created: number;
  /** The request's `stream_options.include_usage`: a closing chunk with usage and no choices. */
  readonly includeUsage: boolean;
  /** The step's chunking and interruption options, read as on the Messages path. */
  readonly stream: StreamOptions;
}

/** What terminates a complete Chat Completions stream. */
const DONE = '[DONE]';

/**
 * The `data:` payloads of the SSE stream for `message`, in order: a role delta, content,
 * reasoning and tool-call deltas per block, a chunk with the finish reason, the usage chunk when
 * asked for, then `[DONE]`. With `interruptWith`, the stream stops after `afterEvents` payloads
 * (default: every delta, before the finish chunk) with an error payload and no `[DONE]`, as a
 * server that fails mid-stream sends it.
 */
export function chatStreamPayloads(message: Message, options: ChatStreamOptions): string[] {
  const chunkOf = (delta: ChatDelta): ChatCompletionChunk => ({
    id: message.id,
    object: 'chat.completion.chunk',
    created: options.created,
    model: message.model,
    choices: [{ index: 0, delta, finish_reason: null, logprobs: null }],
  });
  const size = chunkSizeOf(options.stream);
  const deltas: ChatCompletionChunk[] = [chunkOf({ role: 'assistant', content: '' })];
  let toolIndex = 0;
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        for (const content of chunks(block.text, size)) deltas.push(chunkOf({ content }));
        break;
      case 'thinking':
        for (const reasoning_content of chunks(block.thinking, size)) deltas.push(chunkOf({ reasoning_content }));
        break;
      case 'tool_use': {
        const index = toolIndex++;
        const start = { index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } } as const;
        deltas.push(chunkOf({ tool_calls: [start] }));
        for (const piece of chunks(JSON.stringify(block.input ?? {}), size)) {
          deltas.push(chunkOf({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
        break;
      }
      default:
        // No Chat Completions counterpart (server tools, redacted thinking).
        break;
    }
  }
  const finish: ChatCompletionChunk = {
    ...chunkOf({}),
    choices: [{ index: 0, delta: {}, finish_reason: finishReasonOf(message.stop_reason), logprobs: null }],
  };
  const closing: ChatCompletionChunk[] = options.includeUsage
    ? [finish, { ...chunkOf({}), choices: [], usage: chatUsage(message.usage) }]
    : [finish];
  const payloads = [...deltas, ...closing].map((chunk) => JSON.stringify(chunk));

  const interrupt = options.stream.interruptWith;
  if (interrupt === undefined) return [...payloads, DONE];
  const error: ChatErrorBody = {
    error: {
      message: interrupt.message ?? 'Overloaded',
      type: interrupt.type ?? 'overloaded_error',
      param: null,
      code: null,
    },
  };
  return [...payloads.slice(0, Math.max(0, interrupt.afterEvents ?? deltas.length)), JSON.stringify(error)];
}
