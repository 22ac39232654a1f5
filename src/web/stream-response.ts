import { runChunks, type RunChunksOptions, type RunSource } from './run-source.js';
import { SSE_DONE, sseFrame, UI_STREAM_HEADERS } from './sse-frames.js';
import { joined } from './ui-message-stream.js';
import { resumeFrom } from './resume-from.js';

export interface StreamResponseOptions extends RunChunksOptions {
  /** The request being answered: a `Last-Event-ID` header (or `?after=`) in it resumes the stream after that chunk. */
  readonly request?: Request;
  /** Headers added to the answer's. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A fetch-style `Response` (Next.js, Hono, Remix, Bun, Deno route handlers) streaming `source` as
 * the UI message stream, each chunk with its id. The reader leaving stops the reading.
 */
export function uiMessageStreamResponse(source: RunSource, options: StreamResponseOptions = {}): Response {
  const stop = new AbortController();
  const after = options.after ?? (options.request === undefined ? undefined : resumeFrom(options.request.headers.get('last-event-id'), options.request.url));
  const chunks = runChunks(source, { ...options, ...(after === undefined ? {} : { after }), signal: joined(stop.signal, options.signal) })[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done === true) {
          controller.enqueue(encoder.encode(SSE_DONE));
          controller.close();
        } else {
          controller.enqueue(encoder.encode(sseFrame(next.value)));
        }
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      stop.abort();
      await chunks.return?.();
    },
  });
  return new Response(body, { status: 200, headers: { ...UI_STREAM_HEADERS, ...options.headers } });
}
