import type { DbosLike } from './dbos-like.js';

// DBOS states of a workflow that may still run: cancelling it keeps it from (going on) running.
const UNFINISHED: Array<'PENDING' | 'ENQUEUED' | 'DELAYED'> = ['PENDING', 'ENQUEUED', 'DELAYED'];

/**
 * Cancels the DBOS run `workflowID` and every run it queued, at any depth: children are started
 * outside the run's DBOS context (so DBOS records no parent), but their ids begin with the id of
 * the run that queued them, and a descendant's with its ancestors'.
 */
export async function cancelRun(dbos: DbosLike, workflowID: string): Promise<void> {
  // The run first: it stops at its next DBOS call, so it queues no children after they are listed
  // (bar a fan-out's enqueues already in flight).
  await dbos.cancelWorkflow(workflowID);
  const descendants = await dbos.listWorkflows({ workflow_id_prefix: `${workflowID}/`, status: UNFINISHED });
  await Promise.all(descendants.map((run) => dbos.cancelWorkflow(run.workflowID)));
}
