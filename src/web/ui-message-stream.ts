import { runChunks, type RunChunksOptions, type RunSource } from './run-source.js';
import type { UIChunk } from './ui-chunk.js';

/**
 * A run as the AI SDK's UI message stream: the chunks `readUIMessageStream` and `useChat` read (pass
 * it to the AI SDK's `createUIMessageStreamResponse`, or use `uiMessageStreamResponse`, which also
 * sends each chunk's id). Cancelling the stream stops reading the run.
 */
export function toUIMessageStream(source: RunSource, options: RunChunksOptions = {}): ReadableStream<UIChunk> {
  const stop = new AbortController();
  const chunks = runChunks(source, { ...options, signal: joined(stop.signal, options.signal) })[Symbol.asyncIterator]();
  return new ReadableStream<UIChunk>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(next.value.chunk);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      stop.abort();
      await chunks.return?.();
    },
  });
}

/** Both signals, or the one given. */
export function joined(own: AbortSignal, given: AbortSignal | undefined): AbortSignal {
  return given === undefined ? own : AbortSignal.any([own, given]);
}
