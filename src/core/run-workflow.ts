import { UsageError } from '../errors/groundswell-error.js';
import type { WorkflowCancelledError } from '../errors/workflow-error.js';
import { endStatus, recordFailure } from './failure.js';
import { journalOf } from './run-journal.js';
import { currentScope, mustYield, runInScope } from './scope.js';
import type { WorkflowRuntime } from './workflow-runtime.js';
import { addRunSecrets } from './run-secrets.js';
import { startNodeBudget } from './node-budget.js';
import { ownRedactedValues } from './redacted-values.js';
import { observedFieldsOf } from './observed-fields.js';
import { nextEventId } from '../util/ids.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowEndEvent, WorkflowStartEvent } from '../types/events.js';

/**
 * Runs a workflow's body with status, `workflowStart`/`workflowEnd` events and the ambient scope.
 * A parentless, non-detached workflow started inside another workflow mounts itself there first.
 */
export async function runWorkflow<T>(workflow: WorkflowRuntime, body: () => Promise<T>): Promise<T> {
  if (workflow.status === 'running') {
    throw new UsageError(`Workflow "${workflow.name}" (${workflow.id}) is already running.`);
  }
  const outer = currentScope();
  if (workflow.parent === null && outer !== undefined && outer.workflow !== workflow && !workflow.config.detached) {
    outer.workflow.attachChild(workflow);
  }
  // Redacted values are masked from the start, not only from the first snapshot or agent call.
  if (observedFieldsOf(workflow).length > 0) addRunSecrets(workflow, ownRedactedValues(workflow));
  const node = workflow.treeNode;
  try {
    workflow.throwIfCancelled(node);
  } catch (refused) {
    // Refused before it started (a queued child of a cancelled fan-out): still this run's outcome.
    workflow.lastOutcome = { status: 'rejected', error: refused as WorkflowCancelledError };
    throw refused;
  }
  // A child's run is work of its parent, like a step: the parent does not settle (even after a
  // fast failure of a Promise.all) before every child it started has.
  const owner = workflow.parent;
  owner?.beginWork();
  workflow.lastOutcome = undefined;
  const journal = journalOf(workflow);
  journal?.workflowStarted(workflow);
  const startedAt = workflow.clock.now();
  node.start(startedAt);
  // Built whole rather than through emit()'s spread: a flat event, kept on the node, for every run.
  const start: WorkflowStartEvent = {
    id: nextEventId(),
    nodeId: node.id,
    workflowId: workflow.id,
    timestamp: startedAt,
    type: 'workflowStart',
    name: workflow.name,
  };
  workflow.dispatch(node, start);
  // A resumed durable run's root spans the whole run. Observers were told of this process's start;
  // the node, and the start event it keeps, move back to the first one.
  const earlier = journal?.startedEarlier?.(workflow);
  if (earlier !== undefined && earlier < startedAt) node.backdateStart(earlier);
  const budgetSetting = workflow.config.budget;
  const budget = budgetSetting === undefined ? undefined : startNodeBudget(workflow, node, budgetSetting, `workflow "${workflow.name}"`);
  try {
    if (mustYield()) await undefined;
    const result = await runInScope({ workflow, node }, body);
    await workflow.whenIdle();
    workflow.throwIfCancelled(node);
    node.finish('completed', workflow.clock.now());
    workflow.lastOutcome = { status: 'fulfilled', value: result };
    return result;
  } catch (thrown) {
    await workflow.whenIdle();
    // A wallMs that ran out cancelled the run: its error says why (as the cancellation's cause).
    const error = recordFailure(workflow, node, budget?.ledger.expired ?? thrown, `Workflow "${workflow.name}"`);
    node.finish(endStatus(workflow, thrown), workflow.clock.now());
    workflow.lastOutcome = { status: 'rejected', error };
    throw error;
  } finally {
    budget?.stop();
    try {
      workflow.dispatch(node, workflowEndEvent(workflow, node));
    } finally {
      owner?.endWork();
    }
  }
}

/** The `workflowEnd` event of a finished run: one literal, the same fields and order as emit() gives. */
function workflowEndEvent(workflow: WorkflowRuntime, node: TreeNode): WorkflowEndEvent {
  return {
    id: nextEventId(),
    nodeId: node.id,
    workflowId: workflow.id,
    timestamp: node.endTime ?? workflow.clock.now(),
    type: 'workflowEnd',
    name: workflow.name,
    status: node.status,
    duration: node.duration ?? 0,
  };
}
