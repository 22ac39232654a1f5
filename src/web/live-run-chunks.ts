import type { WorkflowObserver, Unsubscribe } from '../types/observer.js';
import type { WorkflowEvent } from '../types/events.js';
import { ChunkQueue } from './chunk-queue.js';
import type { RunStreamOptions } from './run-stream-options.js';
import type { RunChunk } from './ui-chunk.js';
import { UIChunkEncoder } from './ui-chunk-encoder.js';

/** What a live stream needs of a workflow: any root `Workflow` fits. */
export interface StreamableWorkflow {
  addObserver(observer: WorkflowObserver): Unsubscribe;
}

export interface LiveStreamOptions extends RunStreamOptions {
  /** Stops reading (the reader left). */
  readonly signal?: AbortSignal;
  /** Chunks held for a reader that has not read them yet (default 10,000): past it the stream ends with an error. */
  readonly bufferChunks?: number;
}

/**
 * The chunks of a live run as it happens, from now on: attach before `run()`, or the stream starts
 * with the first event it sees. Chunk ids are the events' own numbers (this process only): a
 * stream that must survive a reconnect or a restart is read from a durable run's store instead.
 */
export function liveRunChunks(workflow: StreamableWorkflow, options: LiveStreamOptions = {}): AsyncIterable<RunChunk> {
  const encoder = new UIChunkEncoder(options);
  let unsubscribe: Unsubscribe = () => undefined;
  const queue = new ChunkQueue(
    options.bufferChunks ?? 10_000,
    (last) => ({ id: last, chunk: { type: 'error', errorText: 'The reader fell behind the run and was disconnected; reconnect to read on.' } }),
    // The reader left: the run stops paying for this stream.
    () => unsubscribe(),
  );
  unsubscribe = workflow.addObserver({
    onEvent(event: WorkflowEvent) {
      const count = encoder.encodeInPlace(event, event.id);
      if (count === 0) return;
      queue.push(encoder.chunks, count);
      if (encoder.done || !queue.open) {
        queue.close();
        unsubscribe();
      }
    },
  });
  options.signal?.addEventListener('abort', () => {
    queue.close();
    unsubscribe();
  });
  return queue;
}
