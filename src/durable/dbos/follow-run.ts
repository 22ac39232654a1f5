import type { Workflow } from '../../core/workflow.js';
import type { DbosLike } from './dbos-like.js';
import { graftTree } from './graft-tree.js';
import { RelayIds } from './relay-ids.js';
import { RelayReader } from './relay-reader.js';
import type { RunOutcome, RunTrail } from './run-trail.js';

const RESULT_POLL_MS = 50;

/**
 * The body of `mirror`, a workflow in this process standing for the DBOS run `workflowID` that
 * runs elsewhere: hands the run's events to the mirror's observers from the start of its stream,
 * then grafts its tree under the mirror and returns its value. `outside` runs a DBOS call outside
 * any workflow context (reads are not checkpointed).
 */
export async function followRun(dbos: DbosLike, outside: <R>(fn: () => Promise<R>) => Promise<R>, mirror: Workflow, workflowID: string): Promise<unknown> {
  // The stream ends when the run closes it (its last operation) or ends: only then is its result
  // asked for, at a short interval, instead of polling each run's status all along.
  const ids = new RelayIds(mirror.id);
  const relay = new RelayReader(mirror, ids);
  await outside(() => relay.follow(dbos, workflowID)).catch(() => undefined);
  const outcome = await outside(() => dbos.retrieveWorkflow<RunOutcome>(workflowID).getResult({ pollingIntervalMs: RESULT_POLL_MS }));
  const trail = JSON.parse(outcome.trail) as RunTrail;
  relay.deliver(trail.rest);
  graftTree(trail.tree, mirror, ids);
  return outcome.value;
}
