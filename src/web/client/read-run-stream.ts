import type { UIChunk } from '../ui-chunk.js';
import { SseParser } from './sse-parser.js';

export interface ReadRunStreamOptions {
  /** The last chunk id already seen: reading starts after it (default: from the start). */
  readonly after?: string;
  /** Request options (method, body, headers) for the first request; reconnects send the same. */
  readonly init?: RequestInit;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Wait before reconnecting, in milliseconds (default 250, doubling up to 5 s). */
  readonly retryMs?: number;
  /** Reconnects in a row that read nothing before giving up (default 8). */
  readonly maxRetries?: number;
  /** Called with each chunk's id as the reader takes the chunk: keep the last one to resume after a page reload. */
  readonly onChunkId?: (id: string) => void;
}

/**
 * Reads a run's UI message stream from `url` (served by `uiMessageStreamResponse` or
 * `writeUIMessageStream`) and reconnects when the connection drops, with `Last-Event-ID` set to the
 * last chunk read: one unbroken stream of chunks, none twice and none missing, for
 * `readUIMessageStream` or a chat transport. Runs in browsers and Node alike.
 */
export function readRunStream(url: string, options: ReadRunStreamOptions = {}): ReadableStream<UIChunk> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const baseDelay = options.retryMs ?? 250;
  const maxRetries = options.maxRetries ?? 8;
  const stop = new AbortController();
  let last = options.after;

  async function* chunks(): AsyncGenerator<UIChunk> {
    let failures = 0;
    for (;;) {
      let progressed = false;
      let finished = false;
      try {
        const headers = new Headers(options.init?.headers);
        if (last !== undefined) headers.set('last-event-id', last);
        const response = await doFetch(url, { ...options.init, headers, signal: stop.signal });
        if (!response.ok || response.body === null) throw new Error(`The run's stream answered ${response.status}.`);
        const parser = new SseParser();
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        for (;;) {
          const read = await reader.read();
          if (read.done) break;
          for (const event of parser.push(decoder.decode(read.value, { stream: true }))) {
            if (event.data === '[DONE]') {
              finished = true;
              continue;
            }
            const chunk = JSON.parse(event.data) as UIChunk;
            if (event.id !== undefined) {
              last = event.id;
              options.onChunkId?.(event.id);
            }
            progressed = true;
            yield chunk;
          }
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        if (error instanceof SyntaxError) throw error;
      }
      if (finished) return;
      failures = progressed ? 0 : failures + 1;
      if (failures > maxRetries) throw new Error(`The run's stream at ${url} could not be read after ${maxRetries} reconnects.`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, baseDelay * 2 ** Math.max(0, failures - 1))));
    }
  }

  const iterator = chunks();
  // No read-ahead (high-water mark 0): a chunk is read, and its id reported, only when the reader
  // asks for it, so the last id reported is never that of a chunk the reader did not get.
  return new ReadableStream<UIChunk>(
    {
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done === true) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        stop.abort();
        await iterator.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
