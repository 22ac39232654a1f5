import { liveRunChunks, type LiveStreamOptions, type StreamableWorkflow } from './live-run-chunks.js';
import { storedRunChunks, type StoredStreamOptions, type StreamSource } from './stored-run-chunks.js';
import type { RunChunk } from './ui-chunk.js';

/** A durable run, by its store and id: its stream is read from the store. */
export interface StoredRun {
  readonly store: StreamSource;
  readonly runId: string;
}

/** A live root workflow (streamed as it runs, in this process), or a durable run in its store. */
export type RunSource = StreamableWorkflow | StoredRun;

export type RunChunksOptions = LiveStreamOptions & StoredStreamOptions;

function isStoredRun(source: RunSource): source is StoredRun {
  return 'store' in source && 'runId' in source && typeof source.runId === 'string';
}

/** The chunks of `source`, each with its id (for `Last-Event-ID`). */
export function runChunks(source: RunSource, options: RunChunksOptions = {}): AsyncIterable<RunChunk> {
  return isStoredRun(source) ? storedRunChunks(source.store, source.runId, options) : liveRunChunks(source, options);
}
