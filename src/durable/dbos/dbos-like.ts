/**
 * What groundswell uses of DBOS Transact's `DBOS` class (`@dbos-inc/dbos-sdk` 5): the user passes
 * their own `DBOS`, so this entry neither imports nor types the SDK (an optional peer).
 * @public (in public signatures; knip)
 */
export interface DbosLike {
  /** The id of the DBOS workflow running in this async context, if any. */
  readonly workflowID: string | undefined;
  isInWorkflow(): boolean;
  registerWorkflow<Args extends unknown[], R>(func: (...args: Args) => Promise<R>, config?: { name?: string }): (...args: Args) => Promise<R>;
  runStep<R>(func: () => Promise<R>, config?: { name?: string }): Promise<R>;
  startWorkflow<Args extends unknown[], R>(
    target: (...args: Args) => Promise<R>,
    params?: { workflowID?: string; queueName?: string },
  ): (...args: Args) => Promise<DbosHandleLike<R>>;
  writeStream<T>(key: string, value: T): Promise<void>;
  closeStream(key: string): Promise<void>;
  readStream<T>(workflowID: string, key: string, options?: { pollingIntervalMs?: number }): AsyncGenerator<T, void, unknown>;
  /** Null when no workflow has the id: how `run` tells a new run from one a dead launcher left. */
  getWorkflowStatus(workflowID: string): Promise<{ readonly status: string } | null>;
  retrieveWorkflow<R>(workflowID: string): DbosHandleLike<R>;
  cancelWorkflow(workflowID: string): Promise<void>;
  listWorkflows(input: { workflow_id_prefix?: string; status?: Array<'PENDING' | 'ENQUEUED' | 'DELAYED'> }): Promise<ReadonlyArray<{ readonly workflowID: string }>>;
}

/** A DBOS workflow handle, as `DBOS.startWorkflow` returns it. @public */
export interface DbosHandleLike<R> {
  readonly workflowID: string;
  getResult(options?: { pollingIntervalMs?: number }): Promise<R>;
}

/** A DBOS `WorkflowQueue` (its name is what children are enqueued on). @public */
export interface DbosQueueLike {
  readonly name: string;
}
