import type { Workflow } from '../../core/workflow.js';
import { childFailure } from './child-failure.js';
import type { DbosLike } from './dbos-like.js';
import { graftTree } from './graft-tree.js';
import { RelayIds } from './relay-ids.js';
import { RelayReader } from './relay-reader.js';
import type { RunOutcome, RunTrail } from './run-trail.js';

const RESULT_POLL_MS = 50;

/**
 * The body of `mirror`, a workflow in this process standing for the DBOS run `workflowID` that
 * runs elsewhere: hands the run's events to the mirror's observers from the start of its stream,
 * then grafts its tree under the mirror and returns its value. A child that failed brings its
 * trail with its error: its tree is grafted too, then its error thrown. `outside` runs a DBOS call
 * outside any workflow context (reads are not checkpointed).
 */
export async function followRun(
  dbos: DbosLike,
  outside: <R>(fn: () => Promise<R>) => Promise<R>,
  mirror: Workflow,
  workflowID: string,
): Promise<unknown> {
  // The stream ends when the run closes it (its last operation) or ends: only then is its result
  // asked for, at a short interval, instead of polling each run's status all along.
  const ids = new RelayIds(mirror.id);
  const relay = new RelayReader(mirror, ids);
  const settle = (text: string): void => {
    const trail = JSON.parse(text) as RunTrail;
    relay.deliver(trail.rest);
    graftTree(trail.tree, mirror, ids);
  };
  await outside(() => relay.follow(dbos, workflowID)).catch(() => undefined);
  let outcome: RunOutcome;
  try {
    outcome = await outside(() => dbos.retrieveWorkflow<RunOutcome>(workflowID).getResult({ pollingIntervalMs: RESULT_POLL_MS }));
  } catch (error) {
    const failed = childFailure(error);
    if (failed === undefined) throw error;
    settle(failed.trail);
    throw failed.cause ?? error;
  }
  settle(outcome.trail);
  return outcome.value;
}
