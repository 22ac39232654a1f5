import type { Workflow } from '../core/workflow.js';
import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { Unsubscribe } from '../types/observer.js';
import type { DbosLike } from './dbos-like.js';

/** The DBOS stream of a child workflow that carries its events and logs to the launcher. */
export const RELAY_STREAM = 'groundswell.relay';

/** One relayed item: an event or a log entry of the child's tree. */
export type RelayItem = { readonly event: WorkflowEvent } | { readonly log: LogEntry };

/**
 * The child's side of the relay: buffers the events and logs of the child's tree and writes them
 * to its DBOS stream in batches, from inside DBOS steps (a step's writes take no workflow
 * function ids, so how many batches a run writes never affects its replay), and a last batch
 * and the stream's end from the workflow itself once the run settled.
 */
export class RelayWriter {
  private batch: RelayItem[] = [];
  private readonly unsubscribe: Unsubscribe;

  constructor(
    private readonly dbos: DbosLike,
    workflow: Workflow,
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
    await this.dbos.writeStream(RELAY_STREAM, items);
  }

  /**
   * The last batch (never empty: it holds at least the run's end), then the end of the stream, so
   * the launcher's reader stops at once.
   */
  async close(): Promise<void> {
    this.unsubscribe();
    const items = this.batch;
    this.batch = [];
    await this.dbos.writeStream(RELAY_STREAM, items);
    await this.dbos.closeStream(RELAY_STREAM);
  }
}
