import type { Workflow } from '../core/workflow.js';
import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { Unsubscribe } from '../types/observer.js';
import type { DbosLike } from './dbos-like.js';

/** The DBOS stream of a child workflow that carries its events and logs to the launcher. */
export const RELAY_STREAM = 'groundswell.relay';

/** One relayed item: an event or a log entry of the child's tree. */
export type RelayItem = { readonly event: WorkflowEvent } | { readonly log: LogEntry };

/** What one write to the stream carries: items, and the id of the child's own node in this attempt. */
export interface RelayBatch {
  readonly root: string;
  readonly items: readonly RelayItem[];
}

/**
 * The child's side of the relay: buffers the events and logs of the child's tree and writes them
 * to its DBOS stream in one batch at the end of each DBOS step, before DBOS records the step (a
 * step's writes take no workflow function ids, so batching never affects replay). So the events
 * of every recorded step reach the launcher even if the worker dies next. What is left when the
 * run settles travels with its result (`close()`): the workflow itself only ends the stream.
 */
export class RelayWriter {
  private batch: RelayItem[] = [];
  private readonly unsubscribe: Unsubscribe;

  constructor(
    private readonly dbos: DbosLike,
    private readonly workflow: Workflow,
  ) {
    this.unsubscribe = workflow.addObserver({
      onEvent: (event) => this.batch.push({ event }),
      onLog: (log) => this.batch.push({ log }),
    });
  }

  /** Writes what was buffered; called inside a DBOS step. */
  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const items = this.batch;
    this.batch = [];
    await this.dbos.writeStream<RelayBatch>(RELAY_STREAM, { root: this.workflow.id, items });
  }

  /** Ends the stream (from the workflow, once it settled) and returns what was not written yet. */
  async close(): Promise<RelayItem[]> {
    this.unsubscribe();
    const rest = this.batch;
    this.batch = [];
    await this.dbos.closeStream(RELAY_STREAM);
    return rest;
  }
}
