import { setTimeout as sleep } from 'node:timers/promises';
import type { RunStore } from '../durable/store/run-store.js';
import type { StoredEvent } from '../durable/store/stored-records.js';
import { RunNotFoundError } from '../durable/store/run-store-errors.js';
import type { WorkflowEvent } from '../types/events.js';
import { isAfter, parseChunkId, type ChunkCursor } from './chunk-cursor.js';
import type { RunStreamOptions } from './run-stream-options.js';
import type { RunChunk } from './ui-chunk.js';
import { UIChunkEncoder } from './ui-chunk-encoder.js';

/** What reading a run's stream needs of its store: any `RunStore` fits. */
export type StreamSource = Pick<RunStore, 'getRun' | 'readEvents'>;

export interface StoredStreamOptions extends RunStreamOptions {
  /** The last chunk id the reader saw (its `Last-Event-ID`): the stream goes on after it. */
  readonly after?: string;
  /** How often a live run's store is asked for new events, in milliseconds (default 50). */
  readonly pollMs?: number;
  /** Stops reading (the reader left). */
  readonly signal?: AbortSignal;
  /**
   * How long to wait for a run the store does not hold yet, in milliseconds (default 10,000): a
   * page may ask for a run's stream before the run that was just started stored its first record.
   */
  readonly waitForRunMs?: number;
}

const PAGE = 2_000;
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The chunks of a durable run, read from its store: from the start, or after the chunk id a reader
 * saw last, while the run is live and after it ended, whichever process runs it. The chunks are
 * made from the stored events alone, so every reader (and every reconnect) gets the same chunks
 * with the same ids: none twice, none missing. Only stored events are streamed, so nothing a
 * killed process had not stored reaches a reader and then vanishes from the run.
 */
export async function* storedRunChunks(store: StreamSource, runId: string, options: StoredStreamOptions = {}): AsyncGenerator<RunChunk> {
  const cursor: ChunkCursor | undefined = options.after === undefined ? undefined : parseChunkId(options.after);
  const encoder = new UIChunkEncoder({ ...options, messageId: options.messageId ?? runId });
  const pollMs = options.pollMs ?? 50;
  let seq = 0;
  let waitUntil: number | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const events = await readOrWait(store, runId, seq, options, () => (waitUntil ??= Date.now() + (options.waitForRunMs ?? 10_000)));
    if (events === undefined) continue;
    for (const stored of events) {
      seq = stored.seq;
      const chunks = encoder.encode(stored.event as WorkflowEvent, stored.seq);
      // Chunk i of event seq is `seq` or `seq.i`: compared by numbers, not by reading ids back.
      if (cursor === undefined || stored.seq > cursor.seq) yield* chunks;
      else if (stored.seq === cursor.seq) yield* chunks.slice(cursor.index + 1);
      if (encoder.done) return;
    }
    if (events.length === PAGE) continue;
    const run = await store.getRun(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    if (FINAL.has(run.status)) {
      // Events stored between the read above and the status are read before giving up on them.
      if ((await store.readEvents(runId, { after: seq, limit: 1 })).length > 0) continue;
      // The run ended but its log does not say so (its last batch was lost): the reader is not left waiting.
      const last = { id: String(seq + 1), chunk: { type: 'finish', finishReason: run.status === 'completed' ? 'stop' : 'error' } } as const;
      if (isAfter(last.id, cursor)) yield last;
      return;
    }
    await sleep(pollMs, undefined, options.signal === undefined ? undefined : { signal: options.signal });
  }
}

/** The next page of events; undefined after a pause when the run is not stored yet (and may still be). */
async function readOrWait(store: StreamSource, runId: string, after: number, options: StoredStreamOptions, deadline: () => number): Promise<StoredEvent[] | undefined> {
  try {
    return await store.readEvents(runId, { after, limit: PAGE });
  } catch (error) {
    if (!(error instanceof RunNotFoundError) || after > 0 || Date.now() >= deadline()) throw error;
    await sleep(options.pollMs ?? 50, undefined, options.signal === undefined ? undefined : { signal: options.signal });
    return undefined;
  }
}
