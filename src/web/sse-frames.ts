import type { RunChunk } from './ui-chunk.js';

/** The headers of a UI message stream (the AI SDK's client checks the last one). */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  'x-vercel-ai-ui-message-stream': 'v1',
};

/** One chunk as a server-sent event; its `id` is what a reconnecting reader sends as `Last-Event-ID`. */
export function sseFrame(chunk: RunChunk): string {
  return `id: ${chunk.id}\ndata: ${JSON.stringify(chunk.chunk)}\n\n`;
}

/** The stream's end, as the AI SDK writes it. */
export const SSE_DONE = 'data: [DONE]\n\n';
