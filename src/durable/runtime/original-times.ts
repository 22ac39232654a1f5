import type { TreeNode } from '../../core/tree-node.js';
import type { OriginalTimes } from '../../types/original-times.js';
import type { LoadedRun } from '../store/run-store.js';

/** A stored record's original times, when it kept both (older records keep none). */
export function storedTimes(record: { readonly startedAt?: number; readonly endedAt?: number }): OriginalTimes | undefined {
  const { startedAt, endedAt } = record;
  return typeof startedAt === 'number' && typeof endedAt === 'number' ? { startedAt, endedAt } : undefined;
}

/** What a settled step's record keeps of its node's times: none when the step does not track them. */
export function nodeTimes(node: TreeNode): { startedAt?: number; endedAt?: number } {
  const { startTime, endTime } = node;
  return startTime === undefined || endTime === undefined ? {} : { startedAt: startTime, endedAt: endTime };
}

/**
 * When a resumed run first started: the stored tree's root start (after an earlier resume that is
 * the first start already), or the earliest start a stored step or call kept. Not the run
 * record's `createdAt`: that is the store's clock, and the tree's times are the run's.
 */
export function firstStart(loaded: LoadedRun): number | undefined {
  let first = Number.POSITIVE_INFINITY;
  const root = (loaded.tree as { root?: { startTime?: unknown } } | null | undefined)?.root?.startTime;
  if (typeof root === 'number' && Number.isFinite(root)) first = root;
  for (const record of loaded.steps) if (typeof record.startedAt === 'number' && record.startedAt < first) first = record.startedAt;
  for (const record of loaded.calls) if (typeof record.startedAt === 'number' && record.startedAt < first) first = record.startedAt;
  return first === Number.POSITIVE_INFINITY ? undefined : first;
}

/**
 * A replayed part that ran at `at` was inside workflows that had started by then: they move their
 * start back to it, unless something between (a step that runs again here) started in this
 * process, which a replayed part inside it is shown to predate.
 */
export function backdateWorkflows(parent: TreeNode | null | undefined, at: number): void {
  const workflows: TreeNode[] = [];
  for (let up = parent; up !== null && up !== undefined; up = up.parent) {
    if (up.kind !== 'workflow') return;
    workflows.push(up);
  }
  for (const workflow of workflows) {
    const start = workflow.startTime;
    if (start !== undefined && at < start) workflow.backdateStart(at);
  }
}
