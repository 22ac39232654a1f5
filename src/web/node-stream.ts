import type { IncomingMessage, ServerResponse } from 'node:http';
import { runChunks, type RunChunksOptions, type RunSource } from './run-source.js';
import { SSE_DONE, sseFrame, UI_STREAM_HEADERS } from './sse-frames.js';
import { joined } from './ui-message-stream.js';
import { resumeFrom } from './resume-from.js';

export interface NodeStreamOptions extends RunChunksOptions {
  /** The request being answered: a `Last-Event-ID` header (or `?after=`) in it resumes the stream after that chunk. */
  readonly request?: IncomingMessage;
}

/**
 * Answers a Node `http` request with `source` as the UI message stream, each chunk with its id;
 * resolves when the stream ended or the reader left. Writes wait for the socket to drain, so a
 * slow reader slows only its own reading, never the run.
 */
export async function writeUIMessageStream(res: ServerResponse, source: RunSource, options: NodeStreamOptions = {}): Promise<void> {
  const stop = new AbortController();
  const leave = (): void => stop.abort();
  res.on('close', leave);
  const header = options.request?.headers['last-event-id'];
  const after = options.after ?? (options.request === undefined ? undefined : resumeFrom(Array.isArray(header) ? header[0] : header, options.request.url));
  try {
    res.writeHead(200, UI_STREAM_HEADERS);
    for await (const chunk of runChunks(source, { ...options, ...(after === undefined ? {} : { after }), signal: joined(stop.signal, options.signal) })) {
      if (!res.write(sseFrame(chunk))) await drained(res, stop.signal);
    }
    res.end(SSE_DONE);
  } catch (error) {
    if (stop.signal.aborted) return;
    // Headers are gone already: the reader sees the stream end early, and reconnects.
    res.destroy(error instanceof Error ? error : undefined);
    throw error;
  } finally {
    res.off('close', leave);
  }
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done);
  });
}
