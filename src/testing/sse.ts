import type {
  ContentBlock,
  Message,
  RawContentBlockDelta,
  RawContentBlockStartEvent,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
import type { StreamOptions } from './script-step.js';

/** One server-sent event: `event: <event>` and `data: <JSON>`. */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

const DEFAULT_CHUNK_SIZE = 16;

/**
 * The event sequence the Messages API streams for `message`: message_start (empty content,
 * no stop reason yet), a ping, start/delta.../stop per content block, message_delta with the
 * stop reason and final usage, message_stop. The SDK's accumulator rebuilds `message` from it.
 */
export function messageEvents(message: Message, options: StreamOptions = {}): SseEvent[] {
  const chunkSize = chunkSizeOf(options);
  const start: RawMessageStreamEvent = {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      // The API reports a token or so up front and the real count in message_delta.
      usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
    },
  };
  const sequence: RawMessageStreamEvent[] = [start];
  message.content.forEach((block, index) => {
    sequence.push({ type: 'content_block_start', index, content_block: startOf(block) });
    for (const delta of deltasOf(block, chunkSize)) sequence.push({ type: 'content_block_delta', index, delta });
    sequence.push({ type: 'content_block_stop', index });
  });
  const usage = message.usage;
  sequence.push({
    type: 'message_delta',
    delta: {
      stop_reason: message.stop_reason,
      stop_sequence: message.stop_sequence,
      stop_details: message.stop_details,
      container: message.container,
    },
    usage: {
      output_tokens: usage.output_tokens,
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens_details: usage.output_tokens_details,
      server_tool_use: usage.server_tool_use,
    },
  });
  sequence.push({ type: 'message_stop' });
  // The API interleaves pings; the SDK must skip them.
  const events: SseEvent[] = [toSse(start), { event: 'ping', data: { type: 'ping' } }, ...sequence.slice(1).map(toSse)];

  const interrupt = options.interruptWith;
  if (!interrupt) return events;
  // Default cut: everything up to the last content_block_stop, so text arrived but no stop reason.
  const cut = interrupt.afterEvents ?? events.length - 2;
  return [
    ...events.slice(0, Math.max(0, cut)),
    {
      event: 'error',
      data: {
        type: 'error',
        error: { type: interrupt.type ?? 'overloaded_error', message: interrupt.message ?? 'Overloaded' },
      },
    },
  ];
}

/**
 * Encodes events as a `text/event-stream` body, one chunk per event, read as the SDK pulls.
 * With `cutAfterEvents` the body fails after that many events, as a dropped connection does.
 */
export function sseBody(
  events: readonly SseEvent[],
  signal: AbortSignal | undefined,
  cutAfterEvents?: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      // An aborted request stops its stream, as a closed connection would.
      if (signal?.aborted) {
        controller.error(abortReason(signal));
        return;
      }
      if (cutAfterEvents !== undefined && next >= cutAfterEvents) {
        controller.error(connectionDropped());
        return;
      }
      const event = events[next++];
      if (event === undefined) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`));
    },
  });
}

/** A body whose first `bytes` bytes arrive, then the connection drops. */
export function cutBody(body: string, bytes: number): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode(body).slice(0, bytes);
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent || head.length === 0) {
        controller.error(connectionDropped());
        return;
      }
      sent = true;
      controller.enqueue(head);
    },
  });
}

// What undici raises when the connection ends in the middle of a body.
function connectionDropped(): TypeError {
  return new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}

/** Code points per delta for these options (the Chat Completions stream cuts the same way). */
export function chunkSizeOf(options: StreamOptions): number {
  return Math.max(1, Math.floor(options.chunkSize ?? DEFAULT_CHUNK_SIZE));
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function toSse(event: RawMessageStreamEvent): SseEvent {
  return { event: event.type, data: event };
}

// Blocks that grow by deltas start empty; the rest arrive whole in content_block_start.
function startOf(block: ContentBlock): RawContentBlockStartEvent['content_block'] {
  switch (block.type) {
    case 'text':
      return { ...block, text: '', citations: block.citations === null ? null : [] };
    case 'tool_use':
      return { ...block, input: {} };
    case 'thinking':
      return { ...block, thinking: '', signature: '' };
    default:
      return block;
  }
}

function deltasOf(block: ContentBlock, chunkSize: number): RawContentBlockDelta[] {
  switch (block.type) {
    case 'text':
      return [
        ...chunks(block.text, chunkSize).map((text): RawContentBlockDelta => ({ type: 'text_delta', text })),
        ...(block.citations ?? []).map((citation): RawContentBlockDelta => ({ type: 'citations_delta', citation })),
      ];
    case 'tool_use':
      return chunks(JSON.stringify(block.input ?? {}), chunkSize).map(
        (partial_json): RawContentBlockDelta => ({ type: 'input_json_delta', partial_json }),
      );
    case 'thinking':
      return [
        ...chunks(block.thinking, chunkSize).map(
          (thinking): RawContentBlockDelta => ({ type: 'thinking_delta', thinking }),
        ),
        { type: 'signature_delta', signature: block.signature },
      ];
    default:
      return [];
  }
}

// Split on code points, not UTF-16 units, so no delta carries half a surrogate pair.
export function chunks(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}
