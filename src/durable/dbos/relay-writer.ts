import type { Workflow } from '../../core/workflow.js';
import type { WorkflowEvent } from '../../types/events.js';
import type { LogEntry } from '../../types/logging.js';
import type { Unsubscribe } from '../../types/observer.js';
import type { DbosLike } from './dbos-like.js';

/** The DBOS stream of a run that carries its events and logs to whoever follows it. */
export const RELAY_STREAM = 'groundswell.relay';

// How often a running step writes what it buffered (children's events in a fan-out, for one).
const RELAY_INTERVAL_MS = 200;

/** One relayed item: an event or a log entry of the run's tree. */
export type RelayItem = { readonly event: WorkflowEvent } | { readonly log: LogEntry };

/** What one write to the stream carries: items, and the id of the child's own node in this attempt. */
export interface RelayBatch {
  readonly root: string;
  readonly items: readonly RelayItem[];
}

/**
 * A run's side of the relay (a child's to its launcher, a root's to a launcher that comes back):
 * buffers the events and logs of the run's tree and writes them to its DBOS stream in batches
 * from inside DBOS steps, the last before DBOS records the step (a step's writes take no workflow
 * function ids, so batching never affects replay). So the events of every recorded step reach the
 * stream even if the process dies next. What is left when the run settles travels with its result
 * (`close()`): the workflow itself only ends the stream.
 */
export class RelayWriter {
  private batch: RelayItem[] = [];
  private writing: Promise<void> = Promise.resolve();
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

  /** Writes what was buffered; called inside a DBOS step. Writes go in order, one at a time. */
  flush(): Promise<void> {
    if (this.batch.length === 0) return this.writing;
    const items = this.batch;
    this.batch = [];
    const write = this.writing.then(() => this.dbos.writeStream<RelayBatch>(RELAY_STREAM, { root: this.workflow.id, items }));
    this.writing = write.catch(() => undefined);
    return write;
  }

  /**
   * Runs a DBOS step's body, writing what it buffered every `RELAY_INTERVAL_MS` while it runs and
   * the rest before DBOS records it: a long step (a fan-out) is followed as it goes. The timer is
   * made in the step's context, so its writes are the step's (they take no workflow function ids).
   */
  async during<R>(body: () => Promise<R>): Promise<R> {
    const timer = setInterval(() => void this.flush().catch(() => undefined), RELAY_INTERVAL_MS);
    // A step that never ends (its process stopping DBOS) must not keep the process alive.
    timer.unref();
    try {
      return await body();
    } finally {
      clearInterval(timer);
      await this.flush();
    }
  }

  /** Ends the stream (from the workflow, once it settled) and returns what was not written yet. */
  async close(): Promise<RelayItem[]> {
    this.unsubscribe();
    const rest = this.batch;
    this.batch = [];
    await this.writing;
    await this.dbos.closeStream(RELAY_STREAM);
    return rest;
  }
}
